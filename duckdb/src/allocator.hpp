// SPDX-License-Identifier: BSD-3-Clause
//
// Extent allocator of one region: free space as a map of start -> length (coalesced on free)
// plus a length index for best fit. Not thread-safe: the volume serialises calls.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "layout.hpp"

namespace nvmefs {

class ExtentAllocator {
public:
	void Reset(uint64_t start, uint64_t nunits);
	//! Marks [start, start + nunits) used; false if any unit of it is not free (overlap)
	bool Reserve(uint64_t start, uint64_t nunits);
	//! Allocates exactly `nunits` units, preferring to continue at `hint` (the unit after a file's last
	//! extent), then the smallest free extent that fits, then several pieces, largest first.
	//! Returns false (allocating nothing) when fewer than `nunits` units are free.
	bool Allocate(uint64_t nunits, uint64_t hint, std::vector<Extent> &out);
	void Free(uint64_t start, uint64_t nunits);

	uint64_t FreeUnits() const {
		return free_units;
	}
	uint64_t LargestFree() const;
	uint64_t FreeExtentCount() const {
		return by_start.size();
	}
	uint64_t Start() const {
		return region_start;
	}
	uint64_t Units() const {
		return region_units;
	}

private:
	void Insert(uint64_t start, uint64_t nunits);
	void Erase(std::map<uint64_t, uint64_t>::iterator it);

	uint64_t region_start = 0;
	uint64_t region_units = 0;
	uint64_t free_units = 0;
	std::map<uint64_t, uint64_t> by_start;           //!< start -> length
	std::set<std::pair<uint64_t, uint64_t>> by_size; //!< (length, start)
};

} // namespace nvmefs
