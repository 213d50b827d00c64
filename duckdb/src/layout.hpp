// SPDX-License-Identifier: BSD-3-Clause
//
// On-device format of an nvmefs volume (format version 1). All integers are little-endian.
//
//   unit 0                 superblock: magic, version, geometry, regions; written by format only
//   units [meta_start, +meta_units)              metadata copy A (file table, generation seq)
//   units [meta_start + meta_units, +meta_units) metadata copy B
//   regions                database files, WALs, temporary files (extent-allocated, 4 KiB units)
//
// A metadata commit writes the copy that does not hold the newest generation, so a torn write
// leaves the other, older copy intact; mount takes the valid copy with the highest generation.
// Every structure carries a CRC-32C.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nvmefs {

//! Allocation unit of the volume: every extent, region and metadata copy is a multiple of it
constexpr uint64_t UNIT = 4096;
constexpr uint32_t FORMAT_VERSION = 1;
//! Bytes of the superblock (unit 0)
constexpr uint32_t SUPERBLOCK_NBYTES = 4096;
//! Bytes of a metadata copy header
constexpr uint32_t META_HEADER_NBYTES = 64;
constexpr uint32_t NAME_MAX_NBYTES = 1024;

enum Region : uint8_t { REGION_DB = 0, REGION_WAL = 1, REGION_TEMP = 2, NREGIONS = 3 };

const char *RegionName(uint8_t region);

struct Extent {
	uint64_t start = 0;  //!< first unit
	uint64_t nunits = 0; //!< length in units
};

struct RegionDesc {
	uint64_t start = 0;
	uint64_t nunits = 0;
};

struct SuperBlock {
	uint32_t version = FORMAT_VERSION;
	uint32_t unit_nbytes = UNIT;
	uint32_t lba_nbytes = 0;  //!< LBA size when formatted; a different LBA size is refused
	uint64_t total_units = 0; //!< units of the device the volume covers
	uint64_t meta_start = 0;  //!< first unit of metadata copy A
	uint64_t meta_units = 0;  //!< units per metadata copy
	RegionDesc regions[NREGIONS];
	uint8_t uuid[16] = {};
	uint64_t created_ns = 0; //!< wall clock at format, nanoseconds since the epoch

	void Encode(uint8_t *buf) const; //!< SUPERBLOCK_NBYTES bytes
	std::string UuidString() const;
};

enum class SuperBlockCheck { OK, BLANK, FOREIGN, CORRUPT, UNSUPPORTED };

//! Decodes unit 0; `why` explains any verdict other than OK
SuperBlockCheck DecodeSuperBlock(const uint8_t *buf, SuperBlock &sb, std::string &why);

enum FileKind : uint8_t { KIND_FILE = 1, KIND_DIR = 2 };

struct FileRecord {
	std::string name;
	uint8_t kind = KIND_FILE;
	uint8_t region = REGION_DB; //!< region new extents of the file come from
	uint64_t size = 0;          //!< bytes
	uint64_t mtime_ns = 0;
	std::vector<Extent> extents; //!< in file order
};

struct MetaImage {
	uint64_t seq = 0; //!< generation; copy index is seq & 1
	std::vector<FileRecord> files;
};

//! Header + payload of a metadata copy, zero-padded to a multiple of `pad_to` bytes
std::vector<uint8_t> EncodeMeta(const SuperBlock &sb, const MetaImage &img, uint32_t pad_to);

struct MetaHeader {
	uint64_t seq = 0;
	uint32_t payload_nbytes = 0;
	uint32_t nfiles = 0;
	uint32_t crc = 0;
};

//! Checks magic and volume identity of a copy's header: false when the copy is not usable
bool DecodeMetaHeader(const SuperBlock &sb, const uint8_t *buf, MetaHeader &hdr);
//! Verifies the checksum over header + payload and decodes the records; false with `why` set
bool DecodeMeta(const uint8_t *buf, const MetaHeader &hdr, MetaImage &img, std::string &why);

uint32_t Crc32c(const void *data, size_t nbytes, uint32_t crc = 0);

} // namespace nvmefs
