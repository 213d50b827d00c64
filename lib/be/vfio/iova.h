/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A set of free IOVA ranges: sorted, never adjacent, handed out first-fit. The DMA memory table
 * of a process (dma.h) takes the IOVAs of its regions from one; the primary of multi-process
 * mode (mp_primary.c) takes the windows it gives its processes from another. Not thread-safe:
 * the owner serialises.
 */
#ifndef XNVME_VFIO_IOVA_H
#define XNVME_VFIO_IOVA_H

#include <stddef.h>
#include <stdint.h>

/** A free IOVA range [start, end) */
struct vfio_iova_hole {
	uint64_t start;
	uint64_t end;
};

struct vfio_iova_space {
	struct vfio_iova_hole *holes; ///< sorted, never adjacent
	size_t nholes;
	size_t cap;
};

/** An empty set; 0 or -ENOMEM */
int
vfio_iova_init(struct vfio_iova_space *sp);

void
vfio_iova_fini(struct vfio_iova_space *sp);

/** Takes `len` bytes aligned to `align` (a power of two) from the lowest range that fits;
 * -ENOSPC when none does, -ENOMEM when the table cannot grow */
int
vfio_iova_take(struct vfio_iova_space *sp, uint64_t len, uint64_t align, uint64_t *iova);

/** Gives [iova, iova+len) back (merged with its neighbours); should the table not grow, the
 * range stays taken (-ENOMEM) */
int
vfio_iova_put(struct vfio_iova_space *sp, uint64_t iova, uint64_t len);

/** Takes [start, end) out of the free ranges for good (parts already taken are skipped) */
int
vfio_iova_punch(struct vfio_iova_space *sp, uint64_t start, uint64_t end);

/** Bytes free in all ranges */
uint64_t
vfio_iova_free_bytes(const struct vfio_iova_space *sp);

#endif /* XNVME_VFIO_IOVA_H */
