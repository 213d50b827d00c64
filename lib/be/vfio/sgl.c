// SPDX-License-Identifier: BSD-3-Clause
/*
 * SGL construction for vectored payloads that PRPs cannot describe (inner boundaries off page
 * boundaries), on controllers that offer SGLs (Identify Controller SGLS). One element is a
 * Data Block descriptor in the command; more go to the CID's list pages behind a Last Segment
 * descriptor.
 */
#include <errno.h>

#include "qpair.h"

#define SGL_TYPE_DATA_BLOCK 0x0
#define SGL_TYPE_LAST_SEGMENT 0x3

int
vfio_sgl_build(struct vfio_qpair *qp, uint16_t cid, const struct iovec *dvec, size_t dvec_cnt,
	       struct xnvme_spec_sgl_descriptor *dptr)
{
	size_t cap = ((size_t)qp->prp_pages << qp->page_shift) / sizeof(*dptr);
	struct xnvme_spec_sgl_descriptor *list =
		(struct xnvme_spec_sgl_descriptor *)(qp->prp + ((size_t)cid * qp->prp_pages
								<< qp->page_shift));
	uint64_t list_iova = qp->prp_iova + ((uint64_t)cid * qp->prp_pages << qp->page_shift);
	size_t n = 0, total = 0;

	for (size_t i = 0; i < dvec_cnt; ++i) {
		struct xnvme_spec_sgl_descriptor *d = &list[n];
		uint64_t iova;
		int err;

		if (!dvec[i].iov_len) {
			continue;
		}
		total += dvec[i].iov_len;
		if (!dvec[i].iov_base || n == cap || total > qp->max_xfer ||
		    dvec[i].iov_len > UINT32_MAX) {
			return -EINVAL;
		}
		err = vfio_dma_xlate(qp->dma, &qp->cache, dvec[i].iov_base, dvec[i].iov_len, &iova);
		if (err) {
			return err;
		}
		if (qp->sgls == 2 && ((iova | dvec[i].iov_len) & 3)) {
			return -EINVAL; /* this controller wants dword alignment and granularity */
		}
		d->addr = iova;
		d->unkeyed.len = (uint32_t)dvec[i].iov_len;
		d->unkeyed.rsvd = 0;
		d->unkeyed.subtype = 0;
		d->unkeyed.type = SGL_TYPE_DATA_BLOCK;
		n++;
	}
	if (n == 1) {
		*dptr = list[0];
		return 0;
	}
	dptr->addr = list_iova;
	dptr->unkeyed.len = (uint32_t)(n * sizeof(*dptr));
	dptr->unkeyed.rsvd = 0;
	dptr->unkeyed.subtype = 0;
	dptr->unkeyed.type = SGL_TYPE_LAST_SEGMENT;
	return n ? 0 : -EINVAL;
}
