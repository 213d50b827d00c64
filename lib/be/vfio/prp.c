// SPDX-License-Identifier: BSD-3-Clause
/*
 * PRP construction. PRP1 holds the first address (any dword-aligned offset); every further
 * entry is a page start. Two entries fit in the command; more go to the CID's list pages,
 * where the last slot of a full page points at the next page when more entries follow.
 */
#include <errno.h>

#include "qpair.h"

/* Validates the elements and translates them; returns the entries needed after PRP1 */
static int
prp_count(struct vfio_qpair *qp, const struct iovec *dvec, size_t dvec_cnt, uint64_t *nent)
{
	uint64_t mask = (1ULL << qp->page_shift) - 1;
	uint64_t count = 0, prev_end = 0;
	size_t total = 0;
	bool first = true;

	for (size_t i = 0; i < dvec_cnt; ++i) {
		uint64_t iova, start;
		int err;

		if (!dvec[i].iov_len) {
			continue;
		}
		if (!dvec[i].iov_base) {
			return -EINVAL;
		}
		total += dvec[i].iov_len;
		if (total > qp->max_xfer || total < dvec[i].iov_len) {
			return -EINVAL;
		}
		err = vfio_dma_xlate(qp->dma, &qp->cache, dvec[i].iov_base, dvec[i].iov_len, &iova);
		if (err) {
			return err;
		}
		if (first) {
			if (iova & 3) {
				return -EINVAL;
			}
			start = (iova & ~mask) + mask + 1;
			first = false;
		} else {
			/* inner boundaries of a vectored payload must be page boundaries */
			if ((iova & mask) || (prev_end & mask)) {
				return -EINVAL;
			}
			start = iova;
		}
		prev_end = iova + dvec[i].iov_len;
		if (prev_end > start) {
			count += (prev_end - start + mask) >> qp->page_shift;
		}
	}
	*nent = count;
	return 0;
}

/*
 * The common case on the submission path, one element of at most two pages: translated once
 * (the general path below translates each element twice, to size the list first). 1 when the
 * payload needs the general path.
 */
static int
prp_build_short(struct vfio_qpair *qp, const struct iovec *v, uint64_t *prp1, uint64_t *prp2)
{
	uint64_t page = 1ULL << qp->page_shift;
	uint64_t iova, next;
	int err;

	if (!v->iov_base || !v->iov_len || v->iov_len > qp->max_xfer || v->iov_len > page) {
		return 1;
	}
	err = vfio_dma_xlate(qp->dma, &qp->cache, v->iov_base, v->iov_len, &iova);
	if (err) {
		return err;
	}
	if (iova & 3) {
		return -EINVAL;
	}
	next = (iova & ~(page - 1)) + page;
	*prp1 = iova;
	*prp2 = iova + v->iov_len > next ? next : 0;
	return 0;
}

int
vfio_prp_build(struct vfio_qpair *qp, uint16_t cid, const struct iovec *dvec, size_t dvec_cnt,
	       uint64_t *prp1, uint64_t *prp2)
{
	uint64_t page = 1ULL << qp->page_shift;
	uint32_t per_page = (uint32_t)(page / sizeof(uint64_t));
	uint64_t *list = (uint64_t *)(qp->prp + ((size_t)cid * qp->prp_pages << qp->page_shift));
	uint64_t list_iova = qp->prp_iova + ((uint64_t)cid * qp->prp_pages << qp->page_shift);
	uint64_t nent, left, written = 0;
	uint32_t slot = 0, pg = 0;
	bool first = true;
	int err;

	*prp1 = 0;
	*prp2 = 0;
	if (dvec_cnt == 1) {
		err = prp_build_short(qp, dvec, prp1, prp2);
		if (err <= 0) {
			return err;
		}
	}
	err = prp_count(qp, dvec, dvec_cnt, &nent);
	if (err) {
		return err;
	}
	/* pages of list: per_page - 1 entries on each page but the last, which holds per_page */
	if (nent > 1 && (nent - 2) / (per_page - 1) + 1 > qp->prp_pages) {
		return -EINVAL;
	}
	left = nent;
	for (size_t i = 0; i < dvec_cnt; ++i) {
		uint64_t iova, addr, end;

		if (!dvec[i].iov_len) {
			continue;
		}
		vfio_dma_xlate(qp->dma, &qp->cache, dvec[i].iov_base, dvec[i].iov_len, &iova);
		end = iova + dvec[i].iov_len;
		if (first) {
			*prp1 = iova;
			addr = (iova & ~(page - 1)) + page;
			first = false;
		} else {
			addr = iova;
		}
		for (; addr < end; addr += page, --left, ++written) {
			if (nent == 1) {
				*prp2 = addr;
				continue;
			}
			if (slot == per_page - 1 && left > 1) {
				list[(size_t)pg * per_page + slot] = list_iova + (pg + 1) * page;
				pg++;
				slot = 0;
			}
			list[(size_t)pg * per_page + slot++] = addr;
		}
	}
	if (nent > 1) {
		*prp2 = list_iova;
	}
	return written == nent ? 0 : -EINVAL;
}
