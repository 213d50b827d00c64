// SPDX-License-Identifier: BSD-3-Clause
/*
 * DMA memory table of the vfio driver (dma.h). IOVAs come first-fit from the free ranges of
 * iova.h; a removed region's range goes back (merged with its neighbours) once it is unmapped.
 * While any command is abandoned (timed out, controller failed) with its data possibly still in
 * the device's hands, removed ranges stay reserved for good, so its late DMA can never land in
 * memory that was handed out again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dma.h"

#define DMA_PAGE 4096UL
#define DMA_HUGE (2UL << 20)

int
vfio_dma_init(struct vfio_dma *dma, struct vfio_bus *bus)
{
	int err;

	memset(dma, 0, sizeof(*dma));
	dma->bus = bus;
	dma->iova_align = DMA_PAGE;
	err = vfio_iova_init(&dma->iova);
	if (!err && bus->iova_limit > bus->iova_base) {
		err = vfio_iova_put(&dma->iova, bus->iova_base, bus->iova_limit - bus->iova_base);
	}
	for (size_t i = 0; !err && i < bus->nreserved; ++i) {
		err = vfio_iova_punch(&dma->iova, bus->reserved[i].start, bus->reserved[i].end);
	}
	if (!err) {
		err = -pthread_rwlock_init(&dma->lock, NULL);
	}
	if (err) {
		vfio_iova_fini(&dma->iova);
	}
	return err;
}

int
vfio_dma_init_grown(struct vfio_dma *dma, struct vfio_bus *bus, vfio_dma_grow_fn grow, void *arg)
{
	int err;

	memset(dma, 0, sizeof(*dma));
	dma->bus = bus;
	dma->iova_align = DMA_PAGE;
	dma->grow = grow;
	dma->grow_arg = arg;
	err = vfio_iova_init(&dma->iova);
	if (!err) {
		err = -pthread_rwlock_init(&dma->lock, NULL);
		if (err) {
			vfio_iova_fini(&dma->iova);
		}
	}
	return err;
}

/* An IOVA range for `len` bytes: from the free ranges, else from a range `grow` adds (caller
 * holds the lock) */
static int
iova_take(struct vfio_dma *dma, size_t len, size_t align, uint64_t *iova)
{
	uint64_t start, end;
	int err = vfio_iova_take(&dma->iova, len, align, iova);

	if (err != -ENOSPC || !dma->grow) {
		return err;
	}
	err = dma->grow(dma->grow_arg, (uint64_t)len + align, &start, &end);
	if (!err) {
		err = vfio_iova_put(&dma->iova, start, end - start);
	}
	return err ? err : vfio_iova_take(&dma->iova, len, align, iova);
}

static void
region_release(struct vfio_dma *dma, const struct vfio_dma_region *reg)
{
	dma->bus->ops->dma_unmap(dma->bus, reg->iova, reg->len);
	if (reg->owned) {
		munmap(reg->vaddr, reg->len);
	}
}

void
vfio_dma_fini(struct vfio_dma *dma)
{
	for (size_t i = 0; i < dma->nregions; ++i) {
		region_release(dma, &dma->regions[i]);
	}
	free(dma->regions);
	dma->regions = NULL;
	dma->nregions = 0;
	vfio_iova_fini(&dma->iova);
	pthread_rwlock_destroy(&dma->lock);
}

/* Index of the first region whose start is above `p` (caller holds the lock) */
static size_t
region_upper(const struct vfio_dma *dma, const uint8_t *p)
{
	size_t lo = 0, hi = dma->nregions;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dma->regions[mid].vaddr <= p) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/* The region containing `p`, or NULL (caller holds the lock) */
static struct vfio_dma_region *
region_find(const struct vfio_dma *dma, const uint8_t *p)
{
	size_t idx = region_upper(dma, p);
	struct vfio_dma_region *reg;

	if (!idx) {
		return NULL;
	}
	reg = &dma->regions[idx - 1];
	return (p < reg->vaddr + reg->len) ? reg : NULL;
}

/* Maps and inserts a region; on failure nothing is left behind */
static int
region_add(struct vfio_dma *dma, uint8_t *vaddr, size_t len, size_t align, bool owned,
	   uint64_t *iova)
{
	struct vfio_dma_region reg = {.vaddr = vaddr, .len = len, .owned = owned};
	size_t idx;
	int err;

	if (align < dma->iova_align) {
		align = dma->iova_align;
	}
	pthread_rwlock_wrlock(&dma->lock);
	idx = region_upper(dma, vaddr);
	if ((idx && dma->regions[idx - 1].vaddr + dma->regions[idx - 1].len > vaddr) ||
	    (idx < dma->nregions && dma->regions[idx].vaddr < vaddr + len)) {
		err = -EEXIST;
		goto out;
	}
	if (dma->nregions == dma->cap) {
		size_t cap = dma->cap ? dma->cap * 2 : 64;
		void *mem = realloc(dma->regions, cap * sizeof(*dma->regions));

		if (!mem) {
			err = -ENOMEM;
			goto out;
		}
		dma->regions = mem;
		dma->cap = cap;
	}
	err = iova_take(dma, len, align, &reg.iova);
	if (err) {
		goto out;
	}
	err = dma->bus->ops->dma_map(dma->bus, vaddr, len, reg.iova);
	if (err) {
		vfio_iova_put(&dma->iova, reg.iova, len);
		goto out;
	}
	memmove(&dma->regions[idx + 1], &dma->regions[idx],
		(dma->nregions - idx) * sizeof(*dma->regions));
	dma->regions[idx] = reg;
	dma->nregions++;
	*iova = reg.iova;
out:
	pthread_rwlock_unlock(&dma->lock);
	return err;
}

/* Removes the region starting exactly at `vaddr` if its ownership matches */
static int
region_del(struct vfio_dma *dma, const void *vaddr, bool owned)
{
	struct vfio_dma_region reg;
	size_t idx;

	pthread_rwlock_wrlock(&dma->lock);
	idx = region_upper(dma, vaddr);
	if (!idx || dma->regions[idx - 1].vaddr != (const uint8_t *)vaddr ||
	    dma->regions[idx - 1].owned != owned) {
		pthread_rwlock_unlock(&dma->lock);
		return -EINVAL;
	}
	reg = dma->regions[idx - 1];
	memmove(&dma->regions[idx - 1], &dma->regions[idx],
		(dma->nregions - idx) * sizeof(*dma->regions));
	dma->nregions--;
	__atomic_add_fetch(&dma->gen, 1, __ATOMIC_RELEASE);
	pthread_rwlock_unlock(&dma->lock);

	region_release(dma, &reg);
	/* reused only once unmapped: no second mapping of the IOVA can race with the first */
	if (!__atomic_load_n(&dma->abandoned, __ATOMIC_ACQUIRE)) {
		pthread_rwlock_wrlock(&dma->lock);
		vfio_iova_put(&dma->iova, reg.iova, reg.len);
		pthread_rwlock_unlock(&dma->lock);
	}
	return 0;
}

void *
vfio_dma_alloc(struct vfio_dma *dma, size_t nbytes, uint64_t *iova)
{
	size_t len = (nbytes + DMA_PAGE - 1) & ~(DMA_PAGE - 1);
	size_t align = DMA_PAGE;
	void *mem = MAP_FAILED;
	uint64_t addr;
	int err;

	if (!nbytes || nbytes > SIZE_MAX - DMA_HUGE) {
		errno = EINVAL;
		return NULL;
	}
#ifdef MAP_HUGETLB
	/* hugepages for large buffers: fewer IOMMU entries; falls back when none are reserved */
	if (nbytes >= DMA_HUGE / 2) {
		size_t hlen = (nbytes + DMA_HUGE - 1) & ~(DMA_HUGE - 1);

		mem = mmap(NULL, hlen, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (mem != MAP_FAILED) {
			len = hlen;
			align = DMA_HUGE;
		}
	}
#endif
	if (mem == MAP_FAILED) {
		mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED) {
			return NULL;
		}
	}
	err = region_add(dma, mem, len, align, true, &addr);
	if (err) {
		munmap(mem, len);
		errno = -err;
		return NULL;
	}
	if (iova) {
		*iova = addr;
	}
	return mem;
}

int
vfio_dma_free(struct vfio_dma *dma, void *vaddr)
{
	return region_del(dma, vaddr, true);
}

int
vfio_dma_map(struct vfio_dma *dma, void *vaddr, size_t nbytes, uint64_t *iova)
{
	uintptr_t start = (uintptr_t)vaddr & ~(DMA_PAGE - 1);
	uintptr_t end;
	uint64_t base;
	int err;

	if (!vaddr || !nbytes || (uintptr_t)vaddr + nbytes < (uintptr_t)vaddr) {
		return -EINVAL;
	}
	end = ((uintptr_t)vaddr + nbytes + DMA_PAGE - 1) & ~(DMA_PAGE - 1);
	err = region_add(dma, (uint8_t *)start, end - start, DMA_PAGE, false, &base);
	if (!err && iova) {
		*iova = base + ((uintptr_t)vaddr - start);
	}
	return err;
}

int
vfio_dma_unmap(struct vfio_dma *dma, void *vaddr)
{
	return region_del(dma, (void *)((uintptr_t)vaddr & ~(DMA_PAGE - 1)), false);
}

size_t
vfio_dma_size(struct vfio_dma *dma, const void *vaddr)
{
	struct vfio_dma_region *reg;
	size_t len = 0;

	pthread_rwlock_rdlock(&dma->lock);
	reg = region_find(dma, vaddr);
	if (reg) {
		len = reg->len - (size_t)((const uint8_t *)vaddr - reg->vaddr);
	}
	pthread_rwlock_unlock(&dma->lock);
	return len;
}

int
vfio_dma_xlate_slow(struct vfio_dma *dma, struct vfio_dma_cache *cache, const void *vaddr,
		    size_t nbytes, uint64_t *iova)
{
	const uint8_t *p = vaddr;
	struct vfio_dma_region *reg;
	int err = -EFAULT;

	pthread_rwlock_rdlock(&dma->lock);
	reg = region_find(dma, p);
	if (reg && nbytes <= reg->len - (size_t)(p - reg->vaddr)) {
		cache->gen = __atomic_load_n(&dma->gen, __ATOMIC_ACQUIRE);
		cache->vaddr = reg->vaddr;
		cache->len = reg->len;
		cache->iova = reg->iova;
		*iova = reg->iova + (uint64_t)(p - reg->vaddr);
		err = 0;
	}
	pthread_rwlock_unlock(&dma->lock);
	return err;
}
