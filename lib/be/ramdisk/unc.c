// SPDX-License-Identifier: BSD-3-Clause
/*
 * LBAs marked by Write Uncorrectable: one bit per LBA, allocated on the first mark and kept
 * until the ramdisk goes away. Updates are serialised by a mutex; lookups are lock-free. The
 * count of marked LBAs lets reads and writes skip the bitmap entirely while nothing is marked,
 * which is the normal case.
 */
#include <errno.h>

#include "ramdisk.h"
#include "xnvme_plat.h"

void
xnvme_ramdisk_unc_init(struct ramdisk *rd)
{
	pthread_mutex_init(&rd->unc.lock, NULL);
	atomic_init(&rd->unc.map, NULL);
	atomic_init(&rd->unc.nset, 0);
	rd->unc.map_nbytes = 0;
}

void
xnvme_ramdisk_unc_fini(struct ramdisk *rd)
{
	_Atomic uint64_t *map = atomic_load_explicit(&rd->unc.map, memory_order_relaxed);

	if (map) {
		xnvme_plat_vmem_free((void *)map, rd->unc.map_nbytes);
	}
	pthread_mutex_destroy(&rd->unc.lock);
}

/* Mask of bits [lo, hi) within one 64-bit word, 0 <= lo < hi <= 64 */
static inline uint64_t
word_mask(unsigned int lo, unsigned int hi)
{
	uint64_t upper = hi == 64 ? ~0ULL : ((1ULL << hi) - 1);

	return upper & ~((1ULL << lo) - 1);
}

/*
 * Calls `fn` for every word touched by [slba, slba + nlbas) with the mask of the range's bits
 * in it; stops early when `fn` returns true and reports that.
 */
static bool
for_each_word(_Atomic uint64_t *map, uint64_t slba, uint64_t nlbas,
	      bool (*fn)(_Atomic uint64_t *word, uint64_t mask, void *arg), void *arg)
{
	uint64_t end = slba + nlbas;
	uint64_t lba = slba;

	while (lba < end) {
		uint64_t idx = lba >> 6;
		unsigned int lo = (unsigned int)(lba & 63);
		uint64_t left = end - lba;
		unsigned int hi = left >= 64 - lo ? 64 : lo + (unsigned int)left;

		if (fn(&map[idx], word_mask(lo, hi), arg)) {
			return true;
		}
		lba += hi - lo;
	}
	return false;
}

static bool
word_set(_Atomic uint64_t *word, uint64_t mask, void *arg)
{
	uint64_t old = atomic_fetch_or_explicit(word, mask, memory_order_relaxed);

	*(uint64_t *)arg += (uint64_t)__builtin_popcountll(mask & ~old);
	return false;
}

static bool
word_clear(_Atomic uint64_t *word, uint64_t mask, void *arg)
{
	uint64_t old = atomic_fetch_and_explicit(word, ~mask, memory_order_relaxed);

	*(uint64_t *)arg += (uint64_t)__builtin_popcountll(mask & old);
	return false;
}

static bool
word_test(_Atomic uint64_t *word, uint64_t mask, void *arg)
{
	(void)arg;
	return (atomic_load_explicit(word, memory_order_relaxed) & mask) != 0;
}

int
xnvme_ramdisk_unc_mark(struct ramdisk *rd, uint64_t slba, uint64_t nlbas)
{
	struct ramdisk_unc *unc = &rd->unc;
	_Atomic uint64_t *map;
	uint64_t nnew = 0;

	pthread_mutex_lock(&unc->lock);
	map = atomic_load_explicit(&unc->map, memory_order_relaxed);
	if (!map) {
		size_t nbytes = (size_t)((rd->nlbas + 63) / 64) * sizeof(uint64_t);
		void *mem;

		/* Lazily committed like the data: a few marks cost a few pages */
		mem = xnvme_plat_vmem_alloc(nbytes);
		if (!mem) {
			pthread_mutex_unlock(&unc->lock);
			return -ENOMEM;
		}
		map = mem;
		unc->map_nbytes = nbytes;
		atomic_store_explicit(&unc->map, map, memory_order_release);
	}
	for_each_word(map, slba, nlbas, word_set, &nnew);
	/* Release: a reader seeing nset != 0 also sees the map and the bits */
	atomic_fetch_add_explicit(&unc->nset, nnew, memory_order_release);
	pthread_mutex_unlock(&unc->lock);

	return 0;
}

void
xnvme_ramdisk_unc_clear(struct ramdisk *rd, uint64_t slba, uint64_t nlbas)
{
	struct ramdisk_unc *unc = &rd->unc;
	uint64_t ncleared = 0;
	_Atomic uint64_t *map;

	if (!atomic_load_explicit(&unc->nset, memory_order_acquire)) {
		return;
	}
	pthread_mutex_lock(&unc->lock);
	map = atomic_load_explicit(&unc->map, memory_order_relaxed);
	if (map && atomic_load_explicit(&unc->nset, memory_order_relaxed)) {
		for_each_word(map, slba, nlbas, word_clear, &ncleared);
		atomic_fetch_sub_explicit(&unc->nset, ncleared, memory_order_release);
	}
	pthread_mutex_unlock(&unc->lock);
}

bool
xnvme_ramdisk_unc_test(struct ramdisk *rd, uint64_t slba, uint64_t nlbas)
{
	struct ramdisk_unc *unc = &rd->unc;
	_Atomic uint64_t *map;

	if (!atomic_load_explicit(&unc->nset, memory_order_acquire)) {
		return false;
	}
	map = atomic_load_explicit(&unc->map, memory_order_acquire);
	if (!map) {
		return false;
	}
	return for_each_word(map, slba, nlbas, word_test, NULL);
}
