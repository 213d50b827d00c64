// SPDX-License-Identifier: BSD-3-Clause
/*
 * What the target sends, checked before use: the private data of its accept or reject, and
 * every response capsule (exactly one 16-byte CQE, for an outstanding CID answered once,
 * invalidating no key but the one that command offered). Pure functions: the fuzzer drives
 * them (tests/fuzz/fuzz_rdma_parse.c).
 */
#include <errno.h>
#include <string.h>

#include "rdma.h"

int
xnvme_rdma_rsp_parse(const void *buf, uint32_t byte_len, uint32_t wc_flags, uint32_t inv_rkey,
		     uint32_t ncmds, const struct xnvme_rdma_cmd_state *cmds,
		     struct xnvme_rdma_rsp *rsp)
{
	const struct xnvme_rdma_cmd_state *st;

	if (byte_len != XNVME_RDMA_RSP_NBYTES) {
		return -EPROTO;
	}
	memset(rsp, 0, sizeof(*rsp));
	memcpy(&rsp->cqe, buf, sizeof(rsp->cqe));
	rsp->cid = rsp->cqe.cid;
	if (rsp->cid >= ncmds) {
		return -EPROTO;
	}
	st = &cmds[rsp->cid];
	if (!st->active || st->rsp) {
		return -EPROTO;
	}
	if (wc_flags & IBV_WC_WITH_INV) {
		/* only the key this command offered, and only when it asked */
		if (!st->inv || inv_rkey != st->rkey) {
			return -EPROTO;
		}
		rsp->invalidated = 1;
	} else if ((wc_flags & IBV_WC_IP_CSUM_OK) && st->inv && inv_rkey == st->rkey) {
		/*
		 * Soft-RoCE (rxe, Linux 6.1) reports the invalidation in this bit (the kernel's
		 * IB_WC_WITH_INVALIDATE); a reliable-connected receive has no checksum to report,
		 * and the key tells. Invalidating it again would fail the QP (or worse).
		 */
		rsp->invalidated = 1;
	}
	return 0;
}

void
xnvme_rdma_cm_req_init(struct xnvme_rdma_cm_req *req, uint16_t qid, uint16_t hrqsize,
		       uint16_t hsqsize, uint16_t cntlid)
{
	memset(req, 0, sizeof(*req));
	req->recfmt = 0;
	req->qid = qid;
	req->hrqsize = hrqsize;
	req->hsqsize = hsqsize;
	req->cntlid = cntlid;
}

int
xnvme_rdma_cm_rep_parse(const void *data, size_t len, uint16_t *crqsize)
{
	struct xnvme_rdma_cm_rep rep;

	/* the accept carries at least recfmt and crqsize; the rest is reserved */
	if (!data || len < 4) {
		return -EPROTO;
	}
	memset(&rep, 0, sizeof(rep));
	memcpy(&rep, data, len < sizeof(rep) ? len : sizeof(rep));
	if (rep.recfmt != 0 || !rep.crqsize) {
		return -EPROTO;
	}
	*crqsize = rep.crqsize;
	return 0;
}

int
xnvme_rdma_cm_rej_parse(const void *data, size_t len, uint16_t *sts)
{
	struct xnvme_rdma_cm_rej rej;

	if (!data || len < sizeof(rej)) {
		return -ENOENT;
	}
	memcpy(&rej, data, sizeof(rej));
	if (rej.recfmt != 0 || !rej.sts) {
		return -ENOENT;
	}
	*sts = rej.sts;
	return 0;
}

const char *
xnvme_rdma_cm_sts_str(uint16_t sts)
{
	switch (sts) {
	case XNVME_RDMA_CM_INVALID_LEN:
		return "invalid private data length";
	case XNVME_RDMA_CM_INVALID_RECFMT:
		return "invalid record format";
	case XNVME_RDMA_CM_INVALID_QID:
		return "invalid queue ID";
	case XNVME_RDMA_CM_INVALID_HSQSIZE:
		return "invalid host send queue size";
	case XNVME_RDMA_CM_INVALID_HRQSIZE:
		return "invalid host receive queue size";
	case XNVME_RDMA_CM_NO_RSC:
		return "no resources";
	case XNVME_RDMA_CM_INVALID_IRD:
		return "invalid IRD";
	case XNVME_RDMA_CM_INVALID_ORD:
		return "invalid ORD";
	case XNVME_RDMA_CM_INVALID_CNTLID:
		return "invalid controller ID";
	default:
		return "unknown status";
	}
}

void
xnvme_rdma_sgl_keyed(void *sgl, uint64_t addr, uint32_t len, uint32_t key, bool inv)
{
	struct xnvme_rdma_sgl_keyed d;

	d.addr = addr;
	d.len[0] = (uint8_t)len;
	d.len[1] = (uint8_t)(len >> 8);
	d.len[2] = (uint8_t)(len >> 16);
	memcpy(d.key, &key, sizeof(key));
	d.type = inv ? XNVME_RDMA_SGL_KEYED_INV : XNVME_RDMA_SGL_KEYED;
	memcpy(sgl, &d, sizeof(d));
}
