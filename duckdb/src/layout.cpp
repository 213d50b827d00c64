// SPDX-License-Identifier: BSD-3-Clause
#include "layout.hpp"

#include <cstdio>
#include <cstring>

namespace nvmefs {

static const uint8_t SB_MAGIC[8] = {'N', 'V', 'M', 'E', 'F', 'S', 'S', 'B'};
static const uint8_t MD_MAGIC[8] = {'N', 'V', 'M', 'E', 'F', 'S', 'M', 'D'};

// Superblock field offsets
enum : size_t {
	SB_OFF_MAGIC = 0,
	SB_OFF_VERSION = 8,
	SB_OFF_UNIT = 12,
	SB_OFF_LBA = 16,
	SB_OFF_TOTAL = 24,
	SB_OFF_META_START = 32,
	SB_OFF_META_UNITS = 40,
	SB_OFF_REGIONS = 48, // NREGIONS x (start, nunits)
	SB_OFF_UUID = 96,
	SB_OFF_CREATED = 112,
	SB_OFF_CRC = SUPERBLOCK_NBYTES - 4,
};

// Metadata header field offsets
enum : size_t {
	MD_OFF_MAGIC = 0,
	MD_OFF_UUID = 8,
	MD_OFF_SEQ = 24,
	MD_OFF_PAYLOAD = 32,
	MD_OFF_NFILES = 36,
	MD_OFF_CRC = 40,
};

const char *RegionName(uint8_t region) {
	switch (region) {
	case REGION_DB:
		return "db";
	case REGION_WAL:
		return "wal";
	case REGION_TEMP:
		return "temp";
	default:
		return "?";
	}
}

static void Put16(uint8_t *p, uint16_t v) {
	p[0] = uint8_t(v);
	p[1] = uint8_t(v >> 8);
}
static void Put32(uint8_t *p, uint32_t v) {
	for (int i = 0; i < 4; i++) {
		p[i] = uint8_t(v >> (8 * i));
	}
}
static void Put64(uint8_t *p, uint64_t v) {
	for (int i = 0; i < 8; i++) {
		p[i] = uint8_t(v >> (8 * i));
	}
}
static uint16_t Get16(const uint8_t *p) {
	return uint16_t(p[0] | (p[1] << 8));
}
static uint32_t Get32(const uint8_t *p) {
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--) {
		v = (v << 8) | p[i];
	}
	return v;
}
static uint64_t Get64(const uint8_t *p) {
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--) {
		v = (v << 8) | p[i];
	}
	return v;
}

// CRC-32C (Castagnoli), reflected, table driven
static const uint32_t *CrcTable() {
	static uint32_t table[256];
	static bool ready = [] {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++) {
				c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
			}
			table[i] = c;
		}
		return true;
	}();
	(void)ready;
	return table;
}

uint32_t Crc32c(const void *data, size_t nbytes, uint32_t crc) {
	const uint32_t *table = CrcTable();
	const uint8_t *p = static_cast<const uint8_t *>(data);
	crc = ~crc;
	for (size_t i = 0; i < nbytes; i++) {
		crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
	}
	return ~crc;
}

void SuperBlock::Encode(uint8_t *buf) const {
	memset(buf, 0, SUPERBLOCK_NBYTES);
	memcpy(buf + SB_OFF_MAGIC, SB_MAGIC, sizeof(SB_MAGIC));
	Put32(buf + SB_OFF_VERSION, version);
	Put32(buf + SB_OFF_UNIT, unit_nbytes);
	Put32(buf + SB_OFF_LBA, lba_nbytes);
	Put64(buf + SB_OFF_TOTAL, total_units);
	Put64(buf + SB_OFF_META_START, meta_start);
	Put64(buf + SB_OFF_META_UNITS, meta_units);
	for (int r = 0; r < NREGIONS; r++) {
		Put64(buf + SB_OFF_REGIONS + 16 * r, regions[r].start);
		Put64(buf + SB_OFF_REGIONS + 16 * r + 8, regions[r].nunits);
	}
	memcpy(buf + SB_OFF_UUID, uuid, sizeof(uuid));
	Put64(buf + SB_OFF_CREATED, created_ns);
	Put32(buf + SB_OFF_CRC, Crc32c(buf, SB_OFF_CRC));
}

std::string SuperBlock::UuidString() const {
	char out[40];
	int n = 0;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10) {
			out[n++] = '-';
		}
		n += snprintf(out + n, sizeof(out) - n, "%02x", uuid[i]);
	}
	return std::string(out, n);
}

SuperBlockCheck DecodeSuperBlock(const uint8_t *buf, SuperBlock &sb, std::string &why) {
	if (memcmp(buf + SB_OFF_MAGIC, SB_MAGIC, sizeof(SB_MAGIC)) != 0) {
		for (uint32_t i = 0; i < SUPERBLOCK_NBYTES; i++) {
			if (buf[i]) {
				why = "the first 4 KiB hold data that is not an nvmefs superblock (no nvmefs magic at LBA 0)";
				return SuperBlockCheck::FOREIGN;
			}
		}
		why = "the device is blank (LBA 0 is all zeroes)";
		return SuperBlockCheck::BLANK;
	}
	uint32_t stored = Get32(buf + SB_OFF_CRC);
	uint32_t computed = Crc32c(buf, SB_OFF_CRC);
	if (stored != computed) {
		char msg[160];
		snprintf(msg, sizeof(msg), "superblock checksum mismatch at LBA 0 (stored 0x%08x, computed 0x%08x)", stored,
		         computed);
		why = msg;
		return SuperBlockCheck::CORRUPT;
	}
	sb.version = Get32(buf + SB_OFF_VERSION);
	if (sb.version != FORMAT_VERSION) {
		why = "superblock format version " + std::to_string(sb.version) + " is not supported (this build reads " +
		      std::to_string(FORMAT_VERSION) + ")";
		return SuperBlockCheck::UNSUPPORTED;
	}
	sb.unit_nbytes = Get32(buf + SB_OFF_UNIT);
	sb.lba_nbytes = Get32(buf + SB_OFF_LBA);
	sb.total_units = Get64(buf + SB_OFF_TOTAL);
	sb.meta_start = Get64(buf + SB_OFF_META_START);
	sb.meta_units = Get64(buf + SB_OFF_META_UNITS);
	for (int r = 0; r < NREGIONS; r++) {
		sb.regions[r].start = Get64(buf + SB_OFF_REGIONS + 16 * r);
		sb.regions[r].nunits = Get64(buf + SB_OFF_REGIONS + 16 * r + 8);
	}
	memcpy(sb.uuid, buf + SB_OFF_UUID, sizeof(sb.uuid));
	sb.created_ns = Get64(buf + SB_OFF_CREATED);

	// layout sanity: everything inside the device, nothing overlapping, in this order
	bool ok = sb.unit_nbytes == UNIT && sb.meta_start >= 1 && sb.meta_units >= 1;
	uint64_t next = sb.meta_start + 2 * sb.meta_units;
	for (int r = 0; ok && r < NREGIONS; r++) {
		ok = sb.regions[r].start >= next && sb.regions[r].nunits > 0;
		next = sb.regions[r].start + sb.regions[r].nunits;
	}
	if (!ok || next > sb.total_units) {
		why = "superblock describes an impossible layout (regions overlap or exceed the volume)";
		return SuperBlockCheck::CORRUPT;
	}
	return SuperBlockCheck::OK;
}

std::vector<uint8_t> EncodeMeta(const SuperBlock &sb, const MetaImage &img, uint32_t pad_to) {
	size_t payload = 0;
	for (auto &f : img.files) {
		payload += 32 + f.name.size() + 16 * f.extents.size();
	}
	size_t total = META_HEADER_NBYTES + payload;
	size_t padded = (total + pad_to - 1) / pad_to * pad_to;
	std::vector<uint8_t> out(padded, 0);
	uint8_t *p = out.data() + META_HEADER_NBYTES;
	for (auto &f : img.files) {
		Put16(p, uint16_t(f.name.size()));
		p[2] = f.kind;
		p[3] = f.region;
		Put32(p + 4, uint32_t(f.extents.size()));
		Put64(p + 8, f.size);
		Put64(p + 16, f.mtime_ns);
		Put64(p + 24, 0); // reserved
		memcpy(p + 32, f.name.data(), f.name.size());
		p += 32 + f.name.size();
		for (auto &e : f.extents) {
			Put64(p, e.start);
			Put64(p + 8, e.nunits);
			p += 16;
		}
	}
	uint8_t *h = out.data();
	memcpy(h + MD_OFF_MAGIC, MD_MAGIC, sizeof(MD_MAGIC));
	memcpy(h + MD_OFF_UUID, sb.uuid, sizeof(sb.uuid));
	Put64(h + MD_OFF_SEQ, img.seq);
	Put32(h + MD_OFF_PAYLOAD, uint32_t(payload));
	Put32(h + MD_OFF_NFILES, uint32_t(img.files.size()));
	Put32(h + MD_OFF_CRC, 0);
	Put32(h + MD_OFF_CRC, Crc32c(h, total));
	return out;
}

bool DecodeMetaHeader(const SuperBlock &sb, const uint8_t *buf, MetaHeader &hdr) {
	if (memcmp(buf + MD_OFF_MAGIC, MD_MAGIC, sizeof(MD_MAGIC)) != 0 ||
	    memcmp(buf + MD_OFF_UUID, sb.uuid, sizeof(sb.uuid)) != 0) {
		return false;
	}
	hdr.seq = Get64(buf + MD_OFF_SEQ);
	hdr.payload_nbytes = Get32(buf + MD_OFF_PAYLOAD);
	hdr.nfiles = Get32(buf + MD_OFF_NFILES);
	hdr.crc = Get32(buf + MD_OFF_CRC);
	return uint64_t(hdr.payload_nbytes) + META_HEADER_NBYTES <= sb.meta_units * UNIT;
}

bool DecodeMeta(const uint8_t *buf, const MetaHeader &hdr, MetaImage &img, std::string &why) {
	size_t total = META_HEADER_NBYTES + hdr.payload_nbytes;
	std::vector<uint8_t> copy(buf, buf + total);
	Put32(copy.data() + MD_OFF_CRC, 0);
	if (Crc32c(copy.data(), total) != hdr.crc) {
		why = "checksum mismatch";
		return false;
	}
	img.seq = hdr.seq;
	img.files.clear();
	const uint8_t *p = buf + META_HEADER_NBYTES;
	const uint8_t *end = buf + total;
	for (uint32_t i = 0; i < hdr.nfiles; i++) {
		if (end - p < 32) {
			why = "truncated file record";
			return false;
		}
		FileRecord f;
		uint16_t name_len = Get16(p);
		f.kind = p[2];
		f.region = p[3];
		uint32_t nextents = Get32(p + 4);
		f.size = Get64(p + 8);
		f.mtime_ns = Get64(p + 16);
		p += 32;
		if (uint64_t(end - p) < name_len + 16ull * nextents || f.region >= NREGIONS ||
		    (f.kind != KIND_FILE && f.kind != KIND_DIR)) {
			why = "malformed file record";
			return false;
		}
		f.name.assign(reinterpret_cast<const char *>(p), name_len);
		p += name_len;
		f.extents.resize(nextents);
		for (auto &e : f.extents) {
			e.start = Get64(p);
			e.nunits = Get64(p + 8);
			p += 16;
		}
		img.files.push_back(std::move(f));
	}
	return true;
}

} // namespace nvmefs
