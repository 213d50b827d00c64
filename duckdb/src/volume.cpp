// SPDX-License-Identifier: BSD-3-Clause
//
// Volume: registry, mount, format, metadata commits and the namespace. I/O is in volume_io.cpp.
#include "volume.hpp"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nvmefs {

//! Units per metadata copy (1 MiB): room for thousands of files and extents
static constexpr uint64_t META_UNITS = 256;
//! Regions start on 1 MiB boundaries
static constexpr uint64_t REGION_ALIGN_UNITS = 256;
static constexpr uint64_t MIN_VOLUME_UNITS = 4096; // 16 MiB

static uint64_t NowNs() {
	return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
	                    std::chrono::system_clock::now().time_since_epoch())
	                    .count());
}

// ---------------------------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------------------------
namespace {
struct RegistryEntry {
	std::string key;
	std::weak_ptr<Volume> weak;
	std::shared_ptr<Volume> pinned; //!< ramdisks: their data dies with the last handle
};
struct Registry {
	std::mutex lock;
	std::map<std::string, RegistryEntry> entries; //!< canonical URI -> volume
};
// Never destroyed: volumes may be released by DuckDB instances during process teardown
Registry &GetRegistry() {
	static Registry *registry = new Registry();
	return *registry;
}

std::string CanonicalUri(const std::string &uri) {
	char resolved[PATH_MAX];
	if (!uri.empty() && uri[0] == '/' && realpath(uri.c_str(), resolved)) {
		return resolved;
	}
	return uri;
}
} // namespace

std::shared_ptr<Volume> Volume::Acquire(const DeviceConfig &config) {
	auto &registry = GetRegistry();
	std::lock_guard<std::mutex> guard(registry.lock);
	std::string canon = CanonicalUri(config.uri);
	auto it = registry.entries.find(canon);
	if (it != registry.entries.end()) {
		auto vol = it->second.weak.lock();
		if (vol) {
			if (it->second.key != config.Key()) {
				throw Error("nvmefs: device '" + config.uri +
				            "' is already open in this process with other options (" + vol->Config().Describe() +
				            "); use the same secret settings");
			}
			return vol;
		}
		registry.entries.erase(it);
	}
	auto vol = std::make_shared<Volume>(config);
	RegistryEntry entry;
	entry.key = config.Key();
	entry.weak = vol;
	if (vol->dev->IsRamdisk()) {
		entry.pinned = vol;
	}
	registry.entries[canon] = entry;
	return vol;
}

// ---------------------------------------------------------------------------------------------
// Open, probe, format
// ---------------------------------------------------------------------------------------------
Volume::Volume(const DeviceConfig &config_p) : config(config_p) {
	// Files and block devices: one process at a time (advisory lock on the inode)
	struct stat st;
	if (!config.uri.empty() && config.uri[0] == '/' && stat(config.uri.c_str(), &st) == 0) {
		lock_fd = open(config.uri.c_str(), O_RDONLY | O_CLOEXEC);
		if (lock_fd >= 0 && flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
			int err = errno;
			close(lock_fd);
			lock_fd = -1;
			if (err == EWOULDBLOCK) {
				throw Error("nvmefs: device '" + config.uri + "' is in use by another process");
			}
		}
	}
	try {
		dev.reset(new Device(config));
		Probe();
	} catch (...) {
		if (lock_fd >= 0) {
			close(lock_fd);
		}
		throw;
	}
}

Volume::~Volume() {
	try {
		std::lock_guard<std::mutex> guard(meta_lock);
		if (state == State::MOUNTED && Dirty()) {
			Commit();
		}
	} catch (...) { // NOLINT: nothing to report to at teardown
	}
	dev.reset();
	if (lock_fd >= 0) {
		close(lock_fd);
	}
}

void Volume::ReadUnits(uint64_t unit, uint64_t nunits, uint8_t *dst) {
	uint64_t lbas_per_unit = UNIT / dev->LbaSize();
	uint8_t *buf = dev->ThreadBuffer();
	uint64_t per_window = dev->WindowBytes() / UNIT;
	while (nunits) {
		uint64_t n = nunits < per_window ? nunits : per_window;
		Segment seg {unit * lbas_per_unit, n * lbas_per_unit};
		dev->Read(&seg, 1, buf);
		memcpy(dst, buf, n * UNIT);
		dst += n * UNIT;
		unit += n;
		nunits -= n;
	}
}

uint8_t Volume::RegionOfUnit(uint64_t unit) const {
	for (uint8_t r = 0; r < NREGIONS; r++) {
		if (unit >= sb.regions[r].start && unit < sb.regions[r].start + sb.regions[r].nunits) {
			return r;
		}
	}
	return NREGIONS;
}

void Volume::Probe() {
	state = State::REFUSED;
	mounted = false;
	table.clear();
	dirs.clear();
	std::vector<uint8_t> unit0(UNIT);
	ReadUnits(0, 1, unit0.data());
	SuperBlock probe;
	std::string reason;
	switch (DecodeSuperBlock(unit0.data(), probe, reason)) {
	case SuperBlockCheck::OK:
		break;
	case SuperBlockCheck::BLANK:
		state = State::UNFORMATTED;
		why = reason;
		return;
	default:
		why = reason;
		return;
	}
	if (probe.lba_nbytes != dev->LbaSize()) {
		why = "the volume was formatted with " + std::to_string(probe.lba_nbytes) + "-byte LBAs, the device now has " +
		      std::to_string(dev->LbaSize());
		return;
	}
	if (probe.total_units * UNIT > dev->NumLbas() * dev->LbaSize()) {
		why = "the volume is larger than the device (was the device or file shrunk?)";
		return;
	}
	sb = probe;

	// newest valid metadata copy
	MetaImage best;
	bool found = false;
	std::string copy_why[2];
	std::vector<uint8_t> copy(sb.meta_units * UNIT);
	for (int slot = 0; slot < 2; slot++) {
		uint64_t start = sb.meta_start + slot * sb.meta_units;
		ReadUnits(start, 1, copy.data());
		MetaHeader hdr;
		if (!DecodeMetaHeader(sb, copy.data(), hdr)) {
			copy_why[slot] = "no valid header";
			continue;
		}
		uint64_t nunits = (META_HEADER_NBYTES + hdr.payload_nbytes + UNIT - 1) / UNIT;
		if (nunits > 1) {
			ReadUnits(start + 1, nunits - 1, copy.data() + UNIT);
		}
		MetaImage img;
		if (!DecodeMeta(copy.data(), hdr, img, copy_why[slot])) {
			continue;
		}
		if (!found || img.seq > best.seq) {
			best = std::move(img);
			found = true;
		}
	}
	if (!found) {
		why = "both metadata copies are damaged (A: " + copy_why[0] + ", B: " + copy_why[1] + ")";
		return;
	}
	for (uint8_t r = 0; r < NREGIONS; r++) {
		alloc[r].Reset(sb.regions[r].start, sb.regions[r].nunits);
	}
	for (auto &rec : best.files) {
		if (rec.kind == KIND_DIR) {
			dirs.insert(rec.name);
			continue;
		}
		auto node = NewNode(rec.name);
		node->region = rec.region;
		node->persistent = true;
		uint64_t off = 0;
		for (auto &e : rec.extents) {
			uint8_t r = RegionOfUnit(e.start);
			if (r == NREGIONS || RegionOfUnit(e.start + e.nunits - 1) != r || !e.nunits ||
			    !alloc[r].Reserve(e.start, e.nunits)) {
				why = "the file table is inconsistent (extent of '" + rec.name + "' outside its region or shared)";
				table.clear();
				dirs.clear();
				return;
			}
			node->extents.push_back(e);
			node->ext_off.push_back(off);
			off += e.nunits;
		}
		node->cap_units = off;
		if (rec.size > off * UNIT) {
			why = "the file table is inconsistent ('" + rec.name + "' is larger than its extents)";
			table.clear();
			dirs.clear();
			return;
		}
		node->size = rec.size;
		node->mtime_ns = rec.mtime_ns;
		node->persisted_version = node->version.load();
		table[rec.name] = node;
	}
	seq = best.seq;
	why.clear();
	state = State::MOUNTED;
	mounted = true;
}

void Volume::EnsureMounted() {
	if (mounted) {
		return;
	}
	std::lock_guard<std::mutex> guard(meta_lock);
	if (state == State::MOUNTED) {
		return;
	}
	if (state == State::UNFORMATTED) {
		throw Error("nvmefs: device '" + config.uri + "' holds no nvmefs volume (" + why +
		            "); initialise it with: SELECT * FROM nvmefs_format()");
	}
	throw Error("nvmefs: refusing to use device '" + config.uri + "': " + why +
	            ". The device is left untouched; nvmefs_format(force := true) would erase it");
}

void Volume::Format(const FormatOptions &options) {
	std::lock_guard<std::mutex> guard(meta_lock);
	for (auto &entry : table) {
		if (entry.second->open_handles) {
			throw Error("nvmefs: cannot format '" + config.uri + "': '" + entry.first +
			            "' is open (DETACH its database first)");
		}
	}
	if (!options.force) {
		if (state == State::REFUSED) {
			throw Error("nvmefs: refusing to format '" + config.uri + "': " + why +
			            ". Pass force := true to erase the device");
		}
		if (state == State::MOUNTED && (!table.empty() || !dirs.empty())) {
			throw Error("nvmefs: device '" + config.uri + "' already holds an nvmefs volume with " +
			            std::to_string(table.size()) + " file(s); pass force := true to erase it");
		}
	}
	if (options.wal_percent < 1 || options.temp_percent < 1 || options.wal_percent + options.temp_percent > 90) {
		throw Error("nvmefs: wal_percent and temp_percent must each be at least 1 and together at most 90");
	}
	uint64_t total = dev->NumLbas() * dev->LbaSize() / UNIT;
	if (total < MIN_VOLUME_UNITS) {
		throw Error("nvmefs: device '" + config.uri + "' is too small (" + std::to_string(total * UNIT >> 20) +
		            " MiB); nvmefs needs at least 16 MiB");
	}
	SuperBlock nsb;
	nsb.lba_nbytes = dev->LbaSize();
	nsb.total_units = total;
	nsb.meta_start = 1;
	nsb.meta_units = META_UNITS;
	uint64_t data_start =
	    (nsb.meta_start + 2 * META_UNITS + REGION_ALIGN_UNITS - 1) / REGION_ALIGN_UNITS * REGION_ALIGN_UNITS;
	uint64_t avail = (total - data_start) / REGION_ALIGN_UNITS * REGION_ALIGN_UNITS;
	auto share = [&](uint32_t pct) {
		uint64_t n = avail * pct / 100 / REGION_ALIGN_UNITS * REGION_ALIGN_UNITS;
		return n ? n : REGION_ALIGN_UNITS;
	};
	uint64_t wal = share(options.wal_percent);
	uint64_t temp = share(options.temp_percent);
	uint64_t db = avail - wal - temp;
	nsb.regions[REGION_DB] = {data_start, db};
	nsb.regions[REGION_WAL] = {data_start + db, wal};
	nsb.regions[REGION_TEMP] = {data_start + db + wal, temp};
	std::random_device rd;
	for (auto &b : nsb.uuid) {
		b = uint8_t(rd());
	}
	nsb.created_ns = NowNs();

	// metadata copy A (generation 1, empty), copy B invalidated, then the superblock
	uint64_t lbas_per_unit = UNIT / dev->LbaSize();
	uint8_t *buf = dev->ThreadBuffer();
	MetaImage img;
	img.seq = 1;
	auto bytes = EncodeMeta(nsb, img, UNIT);
	memcpy(buf, bytes.data(), bytes.size());
	Segment seg {nsb.meta_start * lbas_per_unit, bytes.size() / dev->LbaSize()};
	dev->Write(&seg, 1, buf, Placement(REGION_DB));
	memset(buf, 0, UNIT);
	seg = {(nsb.meta_start + META_UNITS) * lbas_per_unit, lbas_per_unit};
	dev->Write(&seg, 1, buf, Placement(REGION_DB));
	dev->Flush();
	nsb.Encode(buf);
	seg = {0, lbas_per_unit};
	dev->Write(&seg, 1, buf, Placement(REGION_DB));
	dev->Flush();
	Probe();
	if (state != State::MOUNTED) {
		throw Error("nvmefs: format of '" + config.uri + "' did not verify: " + why);
	}
}

// ---------------------------------------------------------------------------------------------
// Metadata commit
// ---------------------------------------------------------------------------------------------
int Volume::Placement(uint8_t region) const {
	auto &pids = dev->PlacementIds();
	if (pids.empty()) {
		return -1;
	}
	size_t n = pids.size();
	switch (region) {
	case REGION_TEMP:
		return pids[n > 1 ? 1 : 0];
	case REGION_WAL:
		return pids[n > 2 ? 2 : 0];
	default:
		return pids[0];
	}
}

bool Volume::Dirty() {
	for (auto &entry : table) {
		auto &node = *entry.second;
		if (node.persistent && node.version.load() != node.persisted_version.load()) {
			return true;
		}
	}
	return false;
}

void Volume::Commit() {
	MetaImage img;
	img.seq = seq + 1;
	std::vector<std::pair<FileNode *, uint64_t>> versions;
	for (auto &d : dirs) {
		FileRecord rec;
		rec.name = d;
		rec.kind = KIND_DIR;
		img.files.push_back(std::move(rec));
	}
	for (auto &entry : table) {
		auto &node = *entry.second;
		if (!node.persistent) {
			continue;
		}
		// version before size: a recorded version never claims a size the snapshot lacks
		uint64_t version = node.version.load();
		FileRecord rec;
		rec.name = entry.first;
		rec.region = node.region;
		rec.mtime_ns = node.mtime_ns.load();
		{
			std::shared_lock<std::shared_mutex> guard(node.map_lock);
			rec.extents = node.extents;
			rec.size = node.size.load();
		}
		img.files.push_back(std::move(rec));
		versions.emplace_back(&node, version);
	}
	auto bytes = EncodeMeta(sb, img, UNIT);
	if (bytes.size() > sb.meta_units * UNIT) {
		throw Error("nvmefs: the file table of '" + config.uri + "' is full (" + std::to_string(bytes.size()) +
		            " bytes needed, " + std::to_string(sb.meta_units * UNIT) + " available)");
	}
	dev->Flush(); // the data the snapshot describes is durable before the snapshot is
	uint64_t lbas_per_unit = UNIT / dev->LbaSize();
	uint64_t start = sb.meta_start + (img.seq & 1) * sb.meta_units;
	uint8_t *buf = dev->ThreadBuffer();
	size_t window = dev->WindowBytes();
	for (size_t off = 0; off < bytes.size(); off += window) {
		size_t n = bytes.size() - off < window ? bytes.size() - off : window;
		memcpy(buf, bytes.data() + off, n);
		Segment seg {start * lbas_per_unit + off / dev->LbaSize(), n / dev->LbaSize()};
		dev->Write(&seg, 1, buf, Placement(REGION_DB));
	}
	dev->Flush();
	seq = img.seq;
	commits++;
	for (auto &v : versions) {
		v.first->persisted_version = v.second;
	}
}

// ---------------------------------------------------------------------------------------------
// Namespace
// ---------------------------------------------------------------------------------------------
uint8_t Volume::RegionOf(const std::string &name) {
	auto slash = name.rfind('/');
	std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
	if (base.compare(0, 12, "duckdb_temp_") == 0) {
		return REGION_TEMP;
	}
	auto wal = base.find(".wal");
	if (wal != std::string::npos && (wal + 4 == base.size() || base[wal + 4] == '.')) {
		return REGION_WAL;
	}
	return REGION_DB;
}

std::shared_ptr<FileNode> Volume::NewNode(const std::string &name) {
	auto node = std::make_shared<FileNode>();
	node->name = name;
	node->region = RegionOf(name);
	node->persistent = node->region != REGION_TEMP;
	node->mtime_ns = NowNs();
	return node;
}

static bool UnderDir(const std::string &name, const std::string &dir) {
	return dir.empty() || (name.size() > dir.size() && name.compare(0, dir.size(), dir) == 0 && name[dir.size()] == '/');
}

bool Volume::FileExists(const std::string &name) {
	std::lock_guard<std::mutex> guard(meta_lock);
	return table.count(name) > 0;
}

bool Volume::DirExists(const std::string &name) {
	std::lock_guard<std::mutex> guard(meta_lock);
	if (name.empty() || dirs.count(name)) {
		return true;
	}
	auto it = table.lower_bound(name + "/");
	return it != table.end() && UnderDir(it->first, name);
}

void Volume::MakeDir(const std::string &name) {
	std::lock_guard<std::mutex> guard(meta_lock);
	if (name.empty() || dirs.count(name)) {
		return;
	}
	if (table.count(name)) {
		throw Error("nvmefs: cannot create directory '" + name + "': a file of that name exists");
	}
	if (name.size() > NAME_MAX_NBYTES) {
		throw Error("nvmefs: name too long: '" + name + "'");
	}
	dirs.insert(name);
	Commit();
}

void Volume::RemoveDir(const std::string &name) {
	std::lock_guard<std::mutex> guard(meta_lock);
	std::vector<std::shared_ptr<FileNode>> victims;
	bool persistent = false;
	for (auto it = table.begin(); it != table.end();) {
		if (UnderDir(it->first, name)) {
			persistent |= it->second->persistent;
			it->second->unlinked = true;
			victims.push_back(it->second);
			it = table.erase(it);
		} else {
			++it;
		}
	}
	for (auto it = dirs.begin(); it != dirs.end();) {
		if (*it == name || UnderDir(*it, name)) {
			persistent = true;
			it = dirs.erase(it);
		} else {
			++it;
		}
	}
	if (persistent) {
		Commit();
	}
	for (auto &node : victims) {
		if (!node->open_handles) {
			FreeExtents(*node);
		}
	}
}

std::vector<std::pair<std::string, bool>> Volume::List(const std::string &dir) {
	std::lock_guard<std::mutex> guard(meta_lock);
	std::map<std::string, bool> children;
	size_t skip = dir.empty() ? 0 : dir.size() + 1;
	auto add = [&](const std::string &path, bool is_dir) {
		if (!UnderDir(path, dir)) {
			return;
		}
		std::string rest = path.substr(skip);
		auto slash = rest.find('/');
		if (slash == std::string::npos) {
			children[rest] = children[rest] || is_dir;
		} else {
			children[rest.substr(0, slash)] = true;
		}
	};
	for (auto &entry : table) {
		add(entry.first, false);
	}
	for (auto &d : dirs) {
		add(d, true);
	}
	return std::vector<std::pair<std::string, bool>>(children.begin(), children.end());
}

std::vector<std::string> Volume::AllFiles() {
	std::lock_guard<std::mutex> guard(meta_lock);
	std::vector<std::string> out;
	for (auto &entry : table) {
		out.push_back(entry.first);
	}
	return out;
}

Volume::OpenResult Volume::Open(const std::string &name, bool create, bool truncate, bool exclusive,
                                std::shared_ptr<FileNode> &out) {
	std::lock_guard<std::mutex> guard(meta_lock);
	if (name.empty() || dirs.count(name)) {
		return OpenResult::IS_DIR;
	}
	auto it = table.find(name);
	if (it != table.end()) {
		if (exclusive) {
			return OpenResult::EXISTS;
		}
		out = it->second;
		out->open_handles++;
		if (truncate && out->size.load()) {
			std::vector<Extent> cut;
			CutExtents(*out, 0, cut);
			if (out->persistent) {
				Commit();
			}
			ReleaseExtents(cut);
		}
		return OpenResult::OPENED;
	}
	if (!create) {
		return OpenResult::NOT_FOUND;
	}
	if (name.size() > NAME_MAX_NBYTES) {
		throw Error("nvmefs: name too long: '" + name + "'");
	}
	out = NewNode(name);
	out->open_handles = 1;
	table[name] = out;
	// a new persistent file is recorded at its first Sync or Close (empty until then)
	return OpenResult::CREATED;
}

void Volume::Close(const std::shared_ptr<FileNode> &node) {
	if (--node->open_handles > 0) {
		return;
	}
	std::lock_guard<std::mutex> guard(meta_lock);
	if (node->open_handles > 0) {
		return;
	}
	if (node->unlinked) {
		FreeExtents(*node);
		return;
	}
	if (node->persistent && node->version.load() != node->persisted_version.load() && state == State::MOUNTED) {
		Commit();
	}
}

void Volume::Remove(const std::string &name) {
	std::lock_guard<std::mutex> guard(meta_lock);
	auto it = table.find(name);
	if (it == table.end()) {
		throw Error("nvmefs: cannot remove '" + name + "': no such file");
	}
	auto node = it->second;
	table.erase(it);
	node->unlinked = true;
	if (node->persistent) {
		Commit();
	}
	if (!node->open_handles) {
		FreeExtents(*node);
	}
}

void Volume::Move(const std::string &from, const std::string &to) {
	std::lock_guard<std::mutex> guard(meta_lock);
	auto it = table.find(from);
	if (it == table.end()) {
		throw Error("nvmefs: cannot move '" + from + "': no such file");
	}
	if (from == to) {
		return;
	}
	if (dirs.count(to)) {
		throw Error("nvmefs: cannot move '" + from + "' onto directory '" + to + "'");
	}
	auto node = it->second;
	std::shared_ptr<FileNode> victim;
	auto vit = table.find(to);
	if (vit != table.end()) {
		victim = vit->second;
	}
	bool was_persistent = node->persistent || (victim && victim->persistent);
	table.erase(from);
	node->name = to;
	node->region = RegionOf(to);
	node->persistent = node->region != REGION_TEMP;
	node->version++;
	table[to] = node;
	if (victim) {
		victim->unlinked = true;
	}
	if (was_persistent || node->persistent) {
		Commit(); // the rename (and the replacement) is atomic: one metadata copy
	}
	if (victim && !victim->open_handles) {
		FreeExtents(*victim);
	}
}

void Volume::FreeExtents(FileNode &node) {
	std::vector<Extent> cut;
	CutExtents(node, 0, cut);
	ReleaseExtents(cut);
}

void Volume::ReleaseExtents(const std::vector<Extent> &extents) {
	for (auto &e : extents) {
		uint8_t r = RegionOfUnit(e.start);
		if (r < NREGIONS) {
			alloc[r].Free(e.start, e.nunits);
		}
	}
}

// ---------------------------------------------------------------------------------------------
// Inspection
// ---------------------------------------------------------------------------------------------
VolumeInfo Volume::Info() {
	std::lock_guard<std::mutex> guard(meta_lock);
	VolumeInfo info;
	info.uri = config.uri;
	info.state = state == State::MOUNTED ? "mounted" : state == State::UNFORMATTED ? "unformatted" : "refused";
	info.detail = why;
	info.mechanisms = dev->Mechanisms();
	info.lba_nbytes = dev->LbaSize();
	info.capacity = dev->NumLbas() * dev->LbaSize();
	info.max_transfer = dev->MaxTransfer();
	info.queues = dev->QueueCount();
	info.fdp = dev->FdpEnabled();
	info.placement_ids = dev->PlacementIds();
	info.placement_available = dev->PlacementAvailable();
	if (state != State::MOUNTED) {
		return info;
	}
	info.uuid = sb.UuidString();
	info.seq = seq;
	info.commits = commits;
	uint64_t lbas_per_unit = UNIT / dev->LbaSize();
	for (uint8_t r = 0; r < NREGIONS; r++) {
		RegionInfo ri;
		ri.name = RegionName(r);
		ri.start_lba = sb.regions[r].start * lbas_per_unit;
		ri.nbytes = sb.regions[r].nunits * UNIT;
		ri.free_nbytes = alloc[r].FreeUnits() * UNIT;
		ri.largest_free_nbytes = alloc[r].LargestFree() * UNIT;
		ri.free_extents = alloc[r].FreeExtentCount();
		ri.placement = Placement(r);
		ri.read_bytes = stats[r].read_bytes.load();
		ri.write_bytes = stats[r].write_bytes.load();
		ri.rmw_reads = stats[r].rmw_reads.load();
		ri.syncs = stats[r].syncs.load();
		info.regions.push_back(ri);
	}
	for (auto &d : dirs) {
		FileInfo fi;
		fi.name = d;
		fi.kind = "directory";
		fi.persistent = true;
		info.files.push_back(fi);
	}
	for (auto &entry : table) {
		auto &node = *entry.second;
		FileInfo fi;
		fi.name = entry.first;
		fi.kind = "file";
		fi.region = RegionName(node.region);
		{
			std::shared_lock<std::shared_mutex> map_guard(node.map_lock);
			fi.allocated = node.cap_units * UNIT;
			fi.nextents = node.extents.size();
		}
		fi.size = node.size.load();
		fi.persistent = node.persistent;
		fi.open_handles = node.open_handles.load();
		fi.placement = Placement(node.region);
		info.files.push_back(fi);
	}
	return info;
}

} // namespace nvmefs
