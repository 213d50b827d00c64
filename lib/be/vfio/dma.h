/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DMA memory of one controller: allocations (2 MiB hugepages when the size warrants it and the
 * system has them, else anonymous memory, which the IOMMU mapping pins) and caller memory
 * registered with xnvme_mem_map(), each mapped at an IOVA handed out first-fit from the free
 * ranges of the IOVA window; a removed region's range is reused unless a command was abandoned.
 * The table is sorted by virtual address; writers serialise on a lock, the I/O path looks up
 * through a per-queue cache validated by a generation counter, without locks.
 */
#ifndef XNVME_VFIO_DMA_H
#define XNVME_VFIO_DMA_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bus.h"
#include "iova.h"

struct vfio_dma_region {
	uint8_t *vaddr; ///< page-aligned start of the mapped range
	size_t len;     ///< bytes mapped
	uint64_t iova;
	bool owned; ///< allocated here (freed on removal), else caller memory
};

/**
 * Gives the table more IOVA space when its ranges hold no room for `len` bytes: 0 with the new
 * range [*start, *end), or negative errno (-ENOMEM: none left, the reason recorded by the
 * callee). Multi-process mode: a secondary asks its primary for another window.
 */
typedef int (*vfio_dma_grow_fn)(void *arg, uint64_t len, uint64_t *start, uint64_t *end);

struct vfio_dma {
	struct vfio_bus *bus;
	pthread_rwlock_t lock;
	struct vfio_dma_region *regions; ///< sorted by vaddr, non-overlapping
	size_t nregions;
	size_t cap;
	struct vfio_iova_space iova; ///< free IOVA ranges
	vfio_dma_grow_fn grow;       ///< NULL: the ranges of init are all there is
	void *grow_arg;
	unsigned abandoned;  ///< atomic: commands given up on that the device may still run
	uint64_t iova_align; ///< minimum IOVA alignment (the controller page size; PRP lists)
	unsigned gen;        ///< atomic: bumped whenever a region goes away
};

/** One cached translation of an I/O path (a queue): valid while dma->gen == gen */
struct vfio_dma_cache {
	unsigned gen;
	const uint8_t *vaddr;
	size_t len;
	uint64_t iova;
};

/** IOVAs from the bus's window (iova_base to iova_limit, less its reserved ranges) */
int
vfio_dma_init(struct vfio_dma *dma, struct vfio_bus *bus);

/** IOVAs only from the ranges `grow` hands out, asked for when the table runs out */
int
vfio_dma_init_grown(struct vfio_dma *dma, struct vfio_bus *bus, vfio_dma_grow_fn grow, void *arg);

/** Unmaps every region and frees the owned ones */
void
vfio_dma_fini(struct vfio_dma *dma);

/** Page-aligned DMA memory of at least `nbytes`, zeroed; NULL with errno on failure */
void *
vfio_dma_alloc(struct vfio_dma *dma, size_t nbytes, uint64_t *iova);

/** Frees memory of vfio_dma_alloc(); -EINVAL for anything else */
int
vfio_dma_free(struct vfio_dma *dma, void *vaddr);

/** Registers caller memory (the enclosing pages); -EEXIST when it overlaps a region */
int
vfio_dma_map(struct vfio_dma *dma, void *vaddr, size_t nbytes, uint64_t *iova);

/** Removes a registration made by vfio_dma_map() at `vaddr` */
int
vfio_dma_unmap(struct vfio_dma *dma, void *vaddr);

/** Size of the allocation or registration starting at `vaddr`, 0 if none */
size_t
vfio_dma_size(struct vfio_dma *dma, const void *vaddr);

/**
 * IOVA of [vaddr, vaddr+nbytes), which must lie inside one region: 0, or -EFAULT when the
 * device cannot reach it (not allocated by the driver, not registered with xnvme_mem_map)
 */
int
vfio_dma_xlate_slow(struct vfio_dma *dma, struct vfio_dma_cache *cache, const void *vaddr,
		    size_t nbytes, uint64_t *iova);

static inline int
vfio_dma_xlate(struct vfio_dma *dma, struct vfio_dma_cache *cache, const void *vaddr, size_t nbytes,
	       uint64_t *iova)
{
	const uint8_t *p = vaddr;

	if (cache->gen == __atomic_load_n(&dma->gen, __ATOMIC_ACQUIRE) && cache->vaddr &&
	    p >= cache->vaddr && nbytes <= cache->len &&
	    (size_t)(p - cache->vaddr) <= cache->len - nbytes) {
		*iova = cache->iova + (uint64_t)(p - cache->vaddr);
		return 0;
	}
	return vfio_dma_xlate_slow(dma, cache, vaddr, nbytes, iova);
}

#endif /* XNVME_VFIO_DMA_H */
