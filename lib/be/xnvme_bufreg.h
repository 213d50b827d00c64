/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * The buffers the library handed out (xnvme_buf_alloc(), xnvme_buf_realloc(), xnvme_mem_map()),
 * so that a mechanism can recognise them at submission, e.g. to use them as io_uring fixed
 * buffers (not installed). A table of XNVME_BUFREG_SLOTS ranges; a buffer that does not fit
 * is simply not known. Each slot carries a generation: 0 while empty or being rewritten, a new
 * process-unique value each time it is filled, so a stale registration made for a freed
 * buffer is never matched again, even when a new buffer lands at the same address.
 * Writers (alloc/free) take a mutex; lookups take no lock (seqlock-style generation check).
 */
#ifndef XNVME_BUFREG_H
#define XNVME_BUFREG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define XNVME_BUFREG_SLOTS 64

struct xnvme_bufreg_slot {
	_Atomic uint64_t gen; ///< 0: empty
	_Atomic uintptr_t start;
	_Atomic size_t nbytes;
};

extern struct xnvme_bufreg_slot xnvme_bufreg[XNVME_BUFREG_SLOTS];

/**
 * Bumped by every xnvme_bufreg_del() after the slot is cleared: a user of the table (e.g. an
 * io_uring ring holding registrations) compares it with the value it last saw to learn, with
 * one load, that a buffer went away and its registration must be dropped
 */
extern _Atomic uint64_t xnvme_bufreg_dels;

/** Records [buf, buf + nbytes); silently not when the table is full */
void
xnvme_bufreg_add(void *buf, size_t nbytes);

/** Forgets the range starting at `buf` (no-op when unknown) */
void
xnvme_bufreg_del(void *buf);

/**
 * Checks slot `i` for [p, p + nbytes): true with its generation and range when the slot holds
 * a buffer containing it
 */
static inline int
xnvme_bufreg_match(unsigned int i, const void *p, size_t nbytes, uint64_t *gen, uintptr_t *start,
		   size_t *len)
{
	struct xnvme_bufreg_slot *s = &xnvme_bufreg[i];
	uint64_t g = atomic_load_explicit(&s->gen, memory_order_acquire);
	uintptr_t a = (uintptr_t)p, st;
	size_t n;

	if (!g) {
		return 0;
	}
	/* seqlock read: acquire loads keep the generation re-check below after them (no fence,
	 * which ThreadSanitizer cannot model) */
	st = atomic_load_explicit(&s->start, memory_order_acquire);
	n = atomic_load_explicit(&s->nbytes, memory_order_acquire);
	if (atomic_load_explicit(&s->gen, memory_order_relaxed) != g || a < st || a - st > n ||
	    nbytes > n - (a - st)) {
		return 0;
	}
	*gen = g;
	*start = st;
	*len = n;
	return 1;
}

/** The slot holding [p, p + nbytes), trying `hint` first; -1 when none does */
static inline int
xnvme_bufreg_find(unsigned int hint, const void *p, size_t nbytes, uint64_t *gen, uintptr_t *start,
		  size_t *len)
{
	if (hint < XNVME_BUFREG_SLOTS && xnvme_bufreg_match(hint, p, nbytes, gen, start, len)) {
		return (int)hint;
	}
	for (unsigned int i = 0; i < XNVME_BUFREG_SLOTS; ++i) {
		if (xnvme_bufreg_match(i, p, nbytes, gen, start, len)) {
			return (int)i;
		}
	}
	return -1;
}

#endif /* XNVME_BUFREG_H */
