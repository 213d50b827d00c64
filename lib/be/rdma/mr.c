// SPDX-License-Identifier: BSD-3-Clause
/*
 * Memory registrations of a device handle: every buffer of xnvme_buf_alloc() (the memory
 * mechanisms "posix" and "hugepage" of this backend allocate as the common ones do, then
 * register) and every range of xnvme_mem_map() is registered once with the handle's protection
 * domain and kept in a table sorted by address. A command whose data lies in one region hands
 * the target a key for it; the I/O path finds the region through a one-entry cache per
 * connection, validated by a generation counter that every removal bumps, without locks.
 *
 * With memory windows the regions allow local access and window binding only: the target
 * reaches a buffer through the window a command binds to it, for that command. Without, the
 * region's own key allows remote read and write of all of it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdma.h"
#include "xnvme_plat.h"

static int
mr_access(const struct xnvme_rdma_dev *rd)
{
	int access = IBV_ACCESS_LOCAL_WRITE;

	return rd->mw ? access | IBV_ACCESS_MW_BIND
		      : access | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
}

/* Index of the first region whose vaddr is above `p` */
static size_t
upper(const struct xnvme_rdma_mrtab *t, const uint8_t *p)
{
	size_t lo = 0, hi = t->nregions;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->regions[mid].vaddr <= p) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

int
xnvme_rdma_mr_add(struct xnvme_rdma_dev *rd, void *vaddr, size_t len,
		  const struct xnvme_be_mem *owner)
{
	struct xnvme_rdma_mrtab *t = &rd->mrs;
	uint8_t *p = vaddr;
	struct ibv_mr *mr;
	size_t i;
	int err = 0;

	if (!rd->pd) {
		return -ENOTCONN;
	}
	pthread_rwlock_wrlock(&t->lock);
	i = upper(t, p);
	if ((i > 0 && t->regions[i - 1].vaddr + t->regions[i - 1].len > p) ||
	    (i < t->nregions && t->regions[i].vaddr < p + len)) {
		err = -EEXIST;
		goto out;
	}
	if (t->nregions == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		void *r = realloc(t->regions, cap * sizeof(*t->regions));

		if (!r) {
			err = -ENOMEM;
			goto out;
		}
		t->regions = r;
		t->cap = cap;
	}
	mr = ibv_reg_mr(rd->pd, vaddr, len, mr_access(rd));
	if (!mr) {
		err = errno ? -errno : -ENOMEM;
		goto out;
	}
	memmove(&t->regions[i + 1], &t->regions[i], (t->nregions - i) * sizeof(*t->regions));
	t->regions[i] =
		(struct xnvme_rdma_region){.vaddr = p, .len = len, .mr = mr, .owner = owner};
	t->nregions++;
out:
	pthread_rwlock_unlock(&t->lock);
	return err;
}

int
xnvme_rdma_mr_del(struct xnvme_rdma_dev *rd, void *vaddr, const struct xnvme_be_mem *owner,
		  size_t *len)
{
	struct xnvme_rdma_mrtab *t = &rd->mrs;
	size_t i;
	int err = -ENOENT;

	pthread_rwlock_wrlock(&t->lock);
	i = upper(t, vaddr);
	if (i > 0 && t->regions[i - 1].vaddr == (uint8_t *)vaddr) {
		struct xnvme_rdma_region *r = &t->regions[i - 1];

		err = -EINVAL;
		if (r->owner == owner) {
			if (len) {
				*len = r->len;
			}
			ibv_dereg_mr(r->mr);
			memmove(r, r + 1, (t->nregions - i) * sizeof(*r));
			t->nregions--;
			atomic_fetch_add_explicit(&t->gen, 1, memory_order_release);
			err = 0;
		}
	}
	pthread_rwlock_unlock(&t->lock);
	return err;
}

void
xnvme_rdma_mr_fini(struct xnvme_rdma_dev *rd)
{
	struct xnvme_rdma_mrtab *t = &rd->mrs;

	for (size_t i = 0; i < t->nregions; ++i) {
		ibv_dereg_mr(t->regions[i].mr);
		if (t->regions[i].owner) {
			t->regions[i].owner->buf_free(NULL, t->regions[i].vaddr);
		}
	}
	free(t->regions);
	t->regions = NULL;
	t->nregions = t->cap = 0;
}

struct ibv_mr *
xnvme_rdma_mr_find(struct xnvme_rdma_dev *rd, struct xnvme_rdma_mrcache *c, const void *p,
		   size_t len)
{
	struct xnvme_rdma_mrtab *t = &rd->mrs;
	const uint8_t *a = p;
	struct ibv_mr *mr = NULL;
	size_t i;

	if (XNVME_BE_LIKELY(
		    c->mr && c->gen == atomic_load_explicit(&t->gen, memory_order_acquire) &&
		    a >= c->vaddr && len <= c->len && (size_t)(a - c->vaddr) <= c->len - len)) {
		return c->mr;
	}
	pthread_rwlock_rdlock(&t->lock);
	i = upper(t, a);
	if (i > 0) {
		const struct xnvme_rdma_region *r = &t->regions[i - 1];

		if (len <= r->len && (size_t)(a - r->vaddr) <= r->len - len) {
			c->gen = atomic_load_explicit(&t->gen, memory_order_relaxed);
			c->vaddr = r->vaddr;
			c->len = r->len;
			c->mr = r->mr;
			mr = r->mr;
		}
	}
	pthread_rwlock_unlock(&t->lock);
	return mr;
}

/* ------------------------------------------------------------------------------------------ */
/* The memory mechanisms: the common allocators, registered                                    */
/* ------------------------------------------------------------------------------------------ */

static struct xnvme_rdma_dev *
dev_rd(const struct xnvme_dev *dev)
{
	const struct xnvme_nvmf_ctrlr *ctrlr = dev->state;

	return ctrlr ? ctrlr->tstate : NULL;
}

static size_t
page_round(size_t nbytes)
{
	size_t pgsz = xnvme_plat_pagesize();

	return (nbytes + pgsz - 1) & ~(pgsz - 1);
}

static void *
buf_alloc(const struct xnvme_be_mem *under, const struct xnvme_dev *dev, size_t nbytes,
	  uint64_t *phys)
{
	struct xnvme_rdma_dev *rd = dev_rd(dev);
	void *buf;
	int err;

	if (!rd) {
		errno = ENOTCONN;
		return NULL;
	}
	buf = under->buf_alloc(dev, nbytes, phys);
	if (!buf) {
		return NULL;
	}
	/* the allocators round up to whole pages, which clients may use (libxnvme_buf.h) */
	err = xnvme_rdma_mr_add(rd, buf, page_round(nbytes), under);
	if (err) {
		under->buf_free(dev, buf);
		errno = -err;
		return NULL;
	}
	return buf;
}

static void
buf_free(const struct xnvme_be_mem *under, const struct xnvme_dev *dev, void *buf)
{
	struct xnvme_rdma_dev *rd = dev_rd(dev);

	if (rd && xnvme_rdma_mr_del(rd, buf, under, NULL) == -EINVAL) {
		return; /* registered by xnvme_mem_map(): not an allocation of this mechanism */
	}
	under->buf_free(dev, buf);
}

static void *
buf_realloc(const struct xnvme_be_mem *under, const struct xnvme_dev *dev, void *buf, size_t nbytes,
	    uint64_t *phys)
{
	struct xnvme_rdma_dev *rd = dev_rd(dev);
	size_t len = 0;
	void *nbuf;
	int err;

	if (!buf) {
		return buf_alloc(under, dev, nbytes, phys);
	}
	if (!rd || xnvme_rdma_mr_del(rd, buf, under, &len)) {
		errno = EINVAL;
		return NULL;
	}
	nbuf = under->buf_realloc(dev, buf, nbytes, phys);
	if (!nbuf) {
		int saved = errno;

		xnvme_rdma_mr_add(rd, buf, len, under); /* the old buffer stays as it was */
		errno = saved;
		return NULL;
	}
	err = xnvme_rdma_mr_add(rd, nbuf, page_round(nbytes), under);
	if (err) {
		under->buf_free(dev, nbuf);
		errno = -err;
		return NULL;
	}
	return nbuf;
}

static int
mem_map(const struct xnvme_dev *dev, void *vaddr, size_t nbytes)
{
	struct xnvme_rdma_dev *rd = dev_rd(dev);

	return rd ? xnvme_rdma_mr_add(rd, vaddr, nbytes, NULL) : -ENOTCONN;
}

static int
mem_unmap(const struct xnvme_dev *dev, void *buf)
{
	struct xnvme_rdma_dev *rd = dev_rd(dev);

	/* only a mapping: an allocation is released with xnvme_buf_free() */
	return rd && !xnvme_rdma_mr_del(rd, buf, NULL, NULL) ? 0 : -EINVAL;
}

static int
vtophys(const struct xnvme_dev *dev, void *buf, uint64_t *phys)
{
	(void)dev;
	(void)buf;
	(void)phys;
	return -ENOSYS;
}

/* Memory of the rdma backend's handles, then what the allocator underneath asks */
#define RDMA_MEM(sym, nm, under)                                                                   \
	static int sym##_check(struct xnvme_dev *dev)                                              \
	{                                                                                          \
		int err = xnvme_be_rdma_check_support(dev);                                        \
                                                                                                   \
		return err ? err : (under).check_support(dev);                                     \
	}                                                                                          \
	static void *sym##_alloc(const struct xnvme_dev *dev, size_t nbytes, uint64_t *phys)       \
	{                                                                                          \
		return buf_alloc(&(under), dev, nbytes, phys);                                     \
	}                                                                                          \
	static void *sym##_realloc(const struct xnvme_dev *dev, void *buf, size_t nbytes,          \
				   uint64_t *phys)                                                 \
	{                                                                                          \
		return buf_realloc(&(under), dev, buf, nbytes, phys);                              \
	}                                                                                          \
	static void sym##_free(const struct xnvme_dev *dev, void *buf)                             \
	{                                                                                          \
		buf_free(&(under), dev, buf);                                                      \
	}                                                                                          \
	const struct xnvme_be_mem xnvme_be_rdma_mem_##sym = {                                      \
		.name = nm,                                                                        \
		.check_support = sym##_check,                                                      \
		.buf_alloc = sym##_alloc,                                                          \
		.buf_realloc = sym##_realloc,                                                      \
		.buf_free = sym##_free,                                                            \
		.buf_vtophys = vtophys,                                                            \
		.mem_map = mem_map,                                                                \
		.mem_unmap = mem_unmap,                                                            \
	}

RDMA_MEM(posix, "posix", xnvme_be_mem_posix);
RDMA_MEM(hugepage, "hugepage", xnvme_be_mem_hugepage);
