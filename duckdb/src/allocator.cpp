// SPDX-License-Identifier: BSD-3-Clause
#include "allocator.hpp"

namespace nvmefs {

void ExtentAllocator::Reset(uint64_t start, uint64_t nunits) {
	by_start.clear();
	by_size.clear();
	region_start = start;
	region_units = nunits;
	free_units = 0;
	if (nunits) {
		Insert(start, nunits);
	}
}

void ExtentAllocator::Insert(uint64_t start, uint64_t nunits) {
	by_start.emplace(start, nunits);
	by_size.emplace(nunits, start);
	free_units += nunits;
}

void ExtentAllocator::Erase(std::map<uint64_t, uint64_t>::iterator it) {
	by_size.erase({it->second, it->first});
	free_units -= it->second;
	by_start.erase(it);
}

bool ExtentAllocator::Reserve(uint64_t start, uint64_t nunits) {
	if (!nunits) {
		return true;
	}
	auto it = by_start.upper_bound(start);
	if (it == by_start.begin()) {
		return false;
	}
	--it;
	uint64_t fs = it->first, fl = it->second;
	if (start + nunits > fs + fl) {
		return false;
	}
	Erase(it);
	if (start > fs) {
		Insert(fs, start - fs);
	}
	if (start + nunits < fs + fl) {
		Insert(start + nunits, fs + fl - (start + nunits));
	}
	return true;
}

bool ExtentAllocator::Allocate(uint64_t nunits, uint64_t hint, std::vector<Extent> &out) {
	if (!nunits) {
		return true;
	}
	if (nunits > free_units) {
		return false;
	}
	// 1. continue the file in place
	if (hint) {
		auto it = by_start.find(hint);
		if (it != by_start.end()) {
			uint64_t take = it->second < nunits ? it->second : nunits;
			uint64_t start = it->first;
			Reserve(start, take);
			out.push_back({start, take});
			nunits -= take;
			if (!nunits) {
				return true;
			}
		}
	}
	// 2. best fit
	auto fit = by_size.lower_bound({nunits, 0});
	if (fit != by_size.end()) {
		uint64_t start = fit->second;
		Reserve(start, nunits);
		out.push_back({start, nunits});
		return true;
	}
	// 3. fragments, largest first
	while (nunits) {
		auto largest = std::prev(by_size.end());
		uint64_t start = largest->second;
		uint64_t take = largest->first < nunits ? largest->first : nunits;
		Reserve(start, take);
		out.push_back({start, take});
		nunits -= take;
	}
	return true;
}

void ExtentAllocator::Free(uint64_t start, uint64_t nunits) {
	if (!nunits) {
		return;
	}
	auto next = by_start.lower_bound(start);
	if (next != by_start.end() && next->first == start + nunits) {
		nunits += next->second;
		auto victim = next++;
		Erase(victim);
	}
	if (next != by_start.begin()) {
		auto prev = std::prev(next);
		if (prev->first + prev->second == start) {
			start = prev->first;
			nunits += prev->second;
			Erase(prev);
		}
	}
	Insert(start, nunits);
}

uint64_t ExtentAllocator::LargestFree() const {
	return by_size.empty() ? 0 : by_size.rbegin()->first;
}

} // namespace nvmefs
