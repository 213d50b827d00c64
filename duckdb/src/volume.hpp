// SPDX-License-Identifier: BSD-3-Clause
//
// An nvmefs volume on one device: superblock, the two alternating metadata copies, one extent
// allocator per region, and the file table. No DuckDB types here.
//
// Durability rules
//  * Files are classified by name: DuckDB's temporary files ("duckdb_temp_*") live in the temp
//    region and are volatile (never in the persisted file table: they are garbage after a
//    restart); WALs ("*.wal*") in the WAL region; everything else in the database region.
//  * Growing a persistent file allocates in memory; the file table is committed at the next
//    Sync, Close or any other commit. A crash before that leaves the new extents free again.
//  * Freeing space of a persistent file (truncate, remove, replace by move) commits first and
//    returns the extents to the allocator after: freed space is never reused before the free
//    is durable, and no allocation can interleave (the metadata lock is held throughout).
//  * A commit snapshots the table, flushes (the data the snapshot describes becomes durable),
//    writes the older metadata copy, and flushes again.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "allocator.hpp"
#include "device.hpp"
#include "layout.hpp"

namespace nvmefs {

struct FileNode {
	std::string name; //!< guarded by the volume's metadata lock
	uint8_t region = REGION_DB;
	bool persistent = true;
	bool unlinked = false;          //!< removed while open: extents freed on last close
	std::atomic<uint64_t> persisted_version {0}; //!< version in the newest committed copy

	std::shared_mutex map_lock; //!< extents / ext_off / cap_units
	std::vector<Extent> extents;
	std::vector<uint64_t> ext_off; //!< file-relative first unit of each extent
	uint64_t cap_units = 0;

	std::atomic<uint64_t> size {0};
	std::atomic<uint64_t> version {1}; //!< bumped after every change of size or extents
	std::atomic<uint64_t> mtime_ns {0};
	std::atomic<int> open_handles {0};

	//! The partial last LBA of the previous unaligned write (appends skip the read-back)
	std::mutex tail_lock;
	std::atomic<uint64_t> tail_lba {UINT64_MAX}; //!< file-relative byte offset of the cached LBA
	std::vector<uint8_t> tail_data;
};

struct FormatOptions {
	bool force = false;
	uint32_t wal_percent = 10;
	uint32_t temp_percent = 40;
};

//! I/O counters of one region (by the class of the file, not where its extents lie)
struct RegionStats {
	std::atomic<uint64_t> read_bytes {0};
	std::atomic<uint64_t> write_bytes {0};
	std::atomic<uint64_t> rmw_reads {0}; //!< partial-LBA reads of unaligned writes
	std::atomic<uint64_t> syncs {0};
};

struct RegionInfo {
	std::string name;
	uint64_t start_lba = 0;
	uint64_t nbytes = 0;
	uint64_t free_nbytes = 0;
	uint64_t largest_free_nbytes = 0;
	uint64_t free_extents = 0;
	int placement = -1;
	uint64_t read_bytes = 0;
	uint64_t write_bytes = 0;
	uint64_t rmw_reads = 0;
	uint64_t syncs = 0;
};

struct FileInfo {
	std::string name;
	std::string kind; //!< "file" or "directory"
	std::string region;
	uint64_t size = 0;
	uint64_t allocated = 0;
	uint64_t nextents = 0;
	bool persistent = false;
	int open_handles = 0;
	int placement = -1;
};

struct VolumeInfo {
	std::string uri;
	std::string state;
	std::string detail;
	std::string mechanisms;
	uint32_t lba_nbytes = 0;
	uint64_t capacity = 0;
	uint32_t max_transfer = 0;
	size_t queues = 0;
	bool fdp = false;
	std::vector<uint16_t> placement_ids;
	std::vector<uint64_t> placement_available; //!< RUAMW per placement identifier, in LBAs
	std::string uuid;
	uint64_t seq = 0;
	uint64_t commits = 0;
	std::vector<RegionInfo> regions;
	std::vector<FileInfo> files;
};

class Volume {
public:
	//! The process-wide volume of a device, opened on first use. A device can only be open with
	//! one configuration at a time. Ramdisk volumes stay open for the life of the process (their
	//! data lives in process memory); others close when the last user releases them.
	static std::shared_ptr<Volume> Acquire(const DeviceConfig &config);

	explicit Volume(const DeviceConfig &config);
	~Volume();

	const DeviceConfig &Config() const {
		return config;
	}
	//! Throws an Error explaining why the volume cannot be used (blank, foreign, corrupt)
	void EnsureMounted();
	void Format(const FormatOptions &options);
	VolumeInfo Info();

	//! Name classification
	static uint8_t RegionOf(const std::string &name);

	// Namespace; names are normalised paths without the scheme ("" is the root)
	bool FileExists(const std::string &name);
	bool DirExists(const std::string &name);
	void MakeDir(const std::string &name);
	void RemoveDir(const std::string &name);
	//! Children of a directory: (name, is_directory)
	std::vector<std::pair<std::string, bool>> List(const std::string &dir);
	std::vector<std::string> AllFiles();

	enum class OpenResult { OPENED, CREATED, NOT_FOUND, EXISTS, IS_DIR };
	//! Opens (and counts a handle on) a file; `create` creates a missing file, `truncate` empties
	//! an existing one, `exclusive` refuses an existing one
	OpenResult Open(const std::string &name, bool create, bool truncate, bool exclusive,
	                std::shared_ptr<FileNode> &out);
	void Close(const std::shared_ptr<FileNode> &node);
	void Remove(const std::string &name); //!< throws when missing
	void Move(const std::string &from, const std::string &to);

	// I/O on an open file
	void Read(FileNode &node, void *buf, uint64_t nbytes, uint64_t offset);
	void Write(FileNode &node, const void *buf, uint64_t nbytes, uint64_t offset);
	void Truncate(FileNode &node, uint64_t size);
	void Sync(FileNode &node);

private:
	enum class State { UNFORMATTED, REFUSED, MOUNTED };

	void Probe();
	void ReadUnits(uint64_t unit, uint64_t nunits, uint8_t *dst);
	void Commit();
	bool Dirty();
	void FreeExtents(FileNode &node);
	void ReleaseExtents(const std::vector<Extent> &extents);
	uint8_t RegionOfUnit(uint64_t unit) const;
	int Placement(uint8_t region) const;
	std::shared_ptr<FileNode> NewNode(const std::string &name);

	// I/O helpers (volume_io.cpp)
	void Grow(FileNode &node, uint64_t end);
	void Map(FileNode &node, uint64_t offset, uint64_t nbytes, std::vector<Segment> &out);
	void FillOld(FileNode &node, uint64_t lba_offset, uint8_t *dst);
	void CutExtents(FileNode &node, uint64_t keep_units, std::vector<Extent> &cut);

	DeviceConfig config;
	std::unique_ptr<Device> dev;
	int lock_fd = -1;

	std::mutex meta_lock; //!< state, table, dirs, allocators, commits
	State state = State::UNFORMATTED;
	std::string why;
	SuperBlock sb;
	uint64_t seq = 0;
	ExtentAllocator alloc[NREGIONS];
	std::map<std::string, std::shared_ptr<FileNode>> table;
	std::set<std::string> dirs;
	std::atomic<bool> mounted {false};
	RegionStats stats[NREGIONS];
	uint64_t commits = 0; //!< metadata commits since open (metadata lock)
};

} // namespace nvmefs
