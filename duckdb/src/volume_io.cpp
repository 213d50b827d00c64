// SPDX-License-Identifier: BSD-3-Clause
//
// Volume I/O: offset -> LBA mapping through a file's extents, growth, byte-granular writes
// (partial first/last LBA read-modify-write, with the last partial LBA of the previous write
// cached so sequential WAL appends never read back), truncation and sync.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "volume.hpp"

namespace nvmefs {

//! Smallest growth step of a file: 1 MiB
static constexpr uint64_t GROW_MIN_UNITS = 256;
//! Largest growth step: 64 MiB
static constexpr uint64_t GROW_MAX_UNITS = 16384;

static uint64_t NowNs() {
	return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
	                    std::chrono::system_clock::now().time_since_epoch())
	                    .count());
}

void Volume::Grow(FileNode &node, uint64_t end) {
	std::lock_guard<std::mutex> guard(meta_lock);
	std::unique_lock<std::shared_mutex> map_guard(node.map_lock);
	uint64_t want = (end + UNIT - 1) / UNIT;
	if (want <= node.cap_units) {
		return; // another thread grew it
	}
	uint64_t need = want - node.cap_units;
	// grow by a quarter of the file (1 MiB .. 64 MiB) so files keep few extents
	uint64_t step = std::min(std::max(node.cap_units / 4, GROW_MIN_UNITS), GROW_MAX_UNITS);
	uint64_t chunk = std::max(need, step);
	uint64_t hint = node.extents.empty() ? 0 : node.extents.back().start + node.extents.back().nunits;
	auto &allocator = alloc[node.region];
	std::vector<Extent> got;
	bool ok = allocator.Allocate(chunk, hint, got) || allocator.Allocate(need, hint, got);
	if (!ok && node.region == REGION_WAL) {
		// a WAL that outgrows its region (a large transaction) overflows into the database region
		ok = alloc[REGION_DB].Allocate(need, 0, got);
	}
	if (!ok) {
		throw NoSpaceError("nvmefs: no space left in the " + std::string(RegionName(node.region)) +
		                   " region of '" + config.uri + "' for '" + node.name + "' (" +
		                   std::to_string(need * UNIT) + " bytes needed, " +
		                   std::to_string(allocator.FreeUnits() * UNIT) + " free of " +
		                   std::to_string(allocator.Units() * UNIT) + ")");
	}
	for (auto &e : got) {
		auto &last = node.extents;
		if (!last.empty() && last.back().start + last.back().nunits == e.start) {
			last.back().nunits += e.nunits;
		} else {
			node.extents.push_back(e);
			node.ext_off.push_back(node.cap_units);
		}
		node.cap_units += e.nunits;
	}
	node.version++;
}

void Volume::CutExtents(FileNode &node, uint64_t keep_units, std::vector<Extent> &cut) {
	std::unique_lock<std::shared_mutex> map_guard(node.map_lock);
	while (!node.extents.empty() && node.cap_units > keep_units) {
		Extent &last = node.extents.back();
		uint64_t excess = node.cap_units - keep_units;
		if (last.nunits <= excess) {
			cut.push_back(last);
			node.cap_units -= last.nunits;
			node.extents.pop_back();
			node.ext_off.pop_back();
		} else {
			cut.push_back({last.start + last.nunits - excess, excess});
			last.nunits -= excess;
			node.cap_units -= excess;
		}
	}
	if (node.size.load() > node.cap_units * UNIT) {
		node.size = node.cap_units * UNIT;
	}
	node.tail_lba = UINT64_MAX;
	node.version++;
}

void Volume::Map(FileNode &node, uint64_t offset, uint64_t nbytes, std::vector<Segment> &out) {
	uint64_t lba_nbytes = dev->LbaSize();
	uint64_t lbas_per_unit = UNIT / lba_nbytes;
	out.clear();
	std::shared_lock<std::shared_mutex> map_guard(node.map_lock);
	if (offset + nbytes > node.cap_units * UNIT) {
		throw Error("nvmefs: internal error: I/O beyond the allocation of '" + node.name + "'");
	}
	uint64_t unit = offset / UNIT;
	size_t i = std::upper_bound(node.ext_off.begin(), node.ext_off.end(), unit) - node.ext_off.begin() - 1;
	while (nbytes) {
		const Extent &e = node.extents[i];
		uint64_t in_ext = offset - node.ext_off[i] * UNIT; // byte offset inside the extent
		uint64_t avail = e.nunits * UNIT - in_ext;
		uint64_t n = nbytes < avail ? nbytes : avail;
		uint64_t lba = e.start * lbas_per_unit + in_ext / lba_nbytes;
		uint64_t nlbas = n / lba_nbytes;
		if (!out.empty() && out.back().lba + out.back().nlbas == lba) {
			out.back().nlbas += nlbas;
		} else {
			out.push_back({lba, nlbas});
		}
		offset += n;
		nbytes -= n;
		i++;
	}
}

void Volume::FillOld(FileNode &node, uint64_t lba_offset, uint8_t *dst) {
	uint32_t lba_nbytes = dev->LbaSize();
	if (lba_offset >= node.size.load()) {
		memset(dst, 0, lba_nbytes); // never written: reads as zeroes
		return;
	}
	if (node.tail_lba.load() == lba_offset) { // the caller holds tail_lock
		memcpy(dst, node.tail_data.data(), lba_nbytes);
		return;
	}
	std::vector<Segment> segs;
	Map(node, lba_offset, lba_nbytes, segs);
	dev->Read(segs.data(), segs.size(), dst);
	stats[node.region].rmw_reads++;
}

void Volume::Read(FileNode &node, void *buf, uint64_t nbytes, uint64_t offset) {
	if (!nbytes) {
		return;
	}
	uint64_t lba = dev->LbaSize();
	uint64_t end = offset + nbytes;
	std::vector<Segment> segs;
	if (dev->ZeroCopy(buf, offset, nbytes)) {
		Map(node, offset, nbytes, segs);
		dev->Read(segs.data(), segs.size(), buf);
		stats[node.region].read_bytes += nbytes;
		return;
	}
	uint64_t a0 = offset / lba * lba;
	uint64_t a1 = (end + lba - 1) / lba * lba;
	uint64_t window = dev->WindowBytes();
	uint8_t *bounce = dev->ThreadBuffer();
	auto *out = static_cast<uint8_t *>(buf);
	for (uint64_t pos = a0; pos < a1;) {
		uint64_t w1 = std::min(a1, pos + window);
		Map(node, pos, w1 - pos, segs);
		dev->Read(segs.data(), segs.size(), bounce);
		stats[node.region].read_bytes += w1 - pos;
		uint64_t from = std::max(offset, pos);
		uint64_t to = std::min(end, w1);
		memcpy(out + (from - offset), bounce + (from - pos), to - from);
		pos = w1;
	}
}

void Volume::Write(FileNode &node, const void *buf, uint64_t nbytes, uint64_t offset) {
	if (!nbytes) {
		return;
	}
	uint64_t end = offset + nbytes;
	bool grown = false;
	{
		std::shared_lock<std::shared_mutex> map_guard(node.map_lock);
		grown = end > node.cap_units * UNIT;
	}
	if (grown) {
		Grow(node, end);
	}
	uint32_t lba = dev->LbaSize();
	uint64_t a0 = offset / lba * lba;
	uint64_t a1 = (end + lba - 1) / lba * lba;
	bool head_partial = offset != a0;
	bool tail_partial = end != a1;
	bool unaligned = head_partial || tail_partial;
	std::unique_lock<std::mutex> tail_guard(node.tail_lock, std::defer_lock);
	if (unaligned) {
		tail_guard.lock();
	} else {
		uint64_t cached = node.tail_lba.load();
		if (cached != UINT64_MAX && cached >= a0 && cached < a1) {
			node.tail_lba = UINT64_MAX; // overwritten in full
		}
	}
	int placement = Placement(node.region);
	std::vector<Segment> segs;
	if (!unaligned && dev->ZeroCopy(buf, offset, nbytes)) {
		Map(node, offset, nbytes, segs);
		dev->Write(segs.data(), segs.size(), buf, placement);
		stats[node.region].write_bytes += nbytes;
		a1 = a0; // nothing left for the windowed copy below
	}
	uint64_t window = dev->WindowBytes();
	uint8_t *bounce = dev->ThreadBuffer();
	auto *in = static_cast<const uint8_t *>(buf);
	for (uint64_t pos = a0; pos < a1;) {
		uint64_t w1 = std::min(a1, pos + window);
		if (pos == a0 && head_partial) {
			FillOld(node, a0, bounce);
		}
		if (w1 == a1 && tail_partial && !(head_partial && a1 - lba == a0)) {
			FillOld(node, a1 - lba, bounce + (a1 - lba - pos));
		}
		uint64_t from = std::max(offset, pos);
		uint64_t to = std::min(end, w1);
		memcpy(bounce + (from - pos), in + (from - offset), to - from);
		Map(node, pos, w1 - pos, segs);
		dev->Write(segs.data(), segs.size(), bounce, placement);
		stats[node.region].write_bytes += w1 - pos;
		if (w1 == a1 && unaligned) {
			if (tail_partial) {
				node.tail_data.assign(bounce + (a1 - lba - pos), bounce + (a1 - pos));
				node.tail_lba = a1 - lba;
			} else {
				uint64_t cached = node.tail_lba.load();
				if (cached != UINT64_MAX && cached >= a0 && cached < a1) {
					node.tail_lba = UINT64_MAX;
				}
			}
		}
		pos = w1;
	}
	uint64_t cur = node.size.load();
	bool changed = grown;
	while (end > cur) {
		if (node.size.compare_exchange_weak(cur, end)) {
			changed = true;
			break;
		}
	}
	node.mtime_ns = NowNs();
	if (changed) {
		node.version++; // after the size: a commit that sees this version sees the size
	}
}

void Volume::Truncate(FileNode &node, uint64_t size) {
	uint64_t cur = node.size.load();
	if (size == cur) {
		return;
	}
	if (size > cur) {
		// extend with zeroes, written through the normal path
		std::vector<uint8_t> zeroes(std::min<uint64_t>(size - cur, 1u << 20), 0);
		for (uint64_t off = cur; off < size;) {
			uint64_t n = std::min<uint64_t>(size - off, zeroes.size());
			Write(node, zeroes.data(), n, off);
			off += n;
		}
		return;
	}
	std::lock_guard<std::mutex> guard(meta_lock);
	std::lock_guard<std::mutex> tail_guard(node.tail_lock);
	node.size = size;
	std::vector<Extent> cut;
	CutExtents(node, (size + UNIT - 1) / UNIT, cut);
	node.mtime_ns = NowNs();
	if (node.persistent && !node.unlinked && !cut.empty()) {
		Commit(); // the shrink is durable before its space can be reused
	}
	ReleaseExtents(cut);
}

void Volume::Sync(FileNode &node) {
	if (!node.persistent) {
		return; // temporary files need no durability
	}
	stats[node.region].syncs++;
	if (node.version.load() == node.persisted_version) {
		dev->Flush();
		return;
	}
	std::lock_guard<std::mutex> guard(meta_lock);
	if (node.unlinked) {
		dev->Flush();
		return;
	}
	Commit(); // flushes the data, then records the file's size and extents
}

} // namespace nvmefs
