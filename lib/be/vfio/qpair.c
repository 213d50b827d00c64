// SPDX-License-Identifier: BSD-3-Clause
/*
 * Polled NVMe queue pairs (qpair.h): submission without doorbell, batch ring, reap with phase
 * tracking and a CID table that tolerates hostile or late completions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctrl.h"
#include "xnvme_be.h"

#define CHECK_INTERVAL_US 1000
#define STALL_CHECKS 4 /* idle checks without a completion before CSTS is read */

uint64_t
vfio_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

struct vfio_qpair *
vfio_qpair_alloc(struct vfio_ctrl *ctrl, uint16_t qid, uint32_t qsize, vfio_cpl_fn cb,
		 uint64_t timeout_us)
{
	struct vfio_qpair *qp;
	size_t page = (size_t)1 << ctrl->page_shift;
	int err = ENOMEM;

	if (qsize < 2 || qsize > ctrl->mqes || qsize > 65536 || qid > ctrl->max_qid) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		return NULL;
	}
	qp->ctrl = ctrl;
	qp->bus = ctrl->bus;
	qp->dma = &ctrl->dma;
	qp->qid = qid;
	qp->qsize = qsize;
	qp->phase = 1;
	qp->sq_db = NVME_REG_DBS + (2u * qid) * ctrl->dstrd;
	qp->cq_db = NVME_REG_DBS + (2u * qid + 1) * ctrl->dstrd;
	qp->ncids = qsize - 1;
	qp->page_shift = ctrl->page_shift;
	qp->prp_pages = ctrl->prp_pages;
	qp->max_xfer = ctrl->max_xfer;
	qp->sgls = qid ? ctrl->sgls : 0; /* admin commands take PRPs only */
	qp->cb = cb;
	qp->timeout_us = timeout_us;
	qp->irq_fd = -1;
	qp->epoch = __atomic_load_n(&ctrl->epoch, __ATOMIC_ACQUIRE);

	qp->cids = calloc(qp->ncids, sizeof(*qp->cids));
	qp->cid_free = calloc(qp->ncids, sizeof(*qp->cid_free));
	if (!qp->cids || !qp->cid_free) {
		goto fail;
	}
	for (uint32_t i = 0; i < qp->ncids; ++i) {
		qp->cid_free[i] = (uint16_t)(qp->ncids - 1 - i); /* CID 0 is handed out first */
	}
	qp->nfree = qp->ncids;

	qp->sq = vfio_dma_alloc(qp->dma, qsize * sizeof(*qp->sq), &qp->sq_iova);
	qp->cq = vfio_dma_alloc(qp->dma, qsize * sizeof(*qp->cq), &qp->cq_iova);
	qp->prp = vfio_dma_alloc(qp->dma, (size_t)qp->ncids * qp->prp_pages * page, &qp->prp_iova);
	if (!qp->sq || !qp->cq || !qp->prp) {
		err = errno;
		goto fail;
	}
	return qp;

fail:
	vfio_qpair_free(qp);
	errno = err;
	return NULL;
}

void
vfio_qpair_free(struct vfio_qpair *qp)
{
	if (!qp) {
		return;
	}
	if (qp->sq) {
		vfio_dma_free(qp->dma, qp->sq);
	}
	if (qp->cq) {
		vfio_dma_free(qp->dma, qp->cq);
	}
	if (qp->prp) {
		vfio_dma_free(qp->dma, qp->prp);
	}
	free(qp->cids);
	free(qp->cid_free);
	free(qp);
}

/* Why a command cannot go now: the controller failed (-EIO), or it was reset and this pair
 * follows (recovered here when nothing is outstanding, else -EAGAIN: reaping recovers it) */
static int
submit_blocked(struct vfio_qpair *qp)
{
	if (__atomic_load_n(&qp->ctrl->failed, __ATOMIC_RELAXED)) {
		return -__atomic_load_n(&qp->ctrl->fail_err, __ATOMIC_RELAXED);
	}
	if (qp->failed) {
		return -EIO;
	}
	return qp->outstanding ? -EAGAIN : vfio_qpair_recover(qp);
}

int
vfio_qpair_submit(struct vfio_qpair *qp, const struct xnvme_spec_cmd *cmd, const struct iovec *dvec,
		  size_t dvec_cnt, void *mbuf, size_t mbuf_nbytes, void *arg)
{
	struct xnvme_spec_sgl_descriptor sgl;
	struct xnvme_spec_cmd *sqe;
	uint64_t prp1, prp2, mptr = 0;
	uint16_t cid;
	bool use_sgl = false;
	int err;

	if (XNVME_BE_UNLIKELY(qp->failed || __atomic_load_n(&qp->ctrl->failed, __ATOMIC_RELAXED) ||
			      qp->epoch != __atomic_load_n(&qp->ctrl->epoch, __ATOMIC_ACQUIRE))) {
		err = submit_blocked(qp);
		if (err) {
			return err;
		}
	}
	if (XNVME_BE_UNLIKELY(!qp->nfree)) {
		return -EBUSY;
	}
	cid = qp->cid_free[qp->nfree - 1];
	err = vfio_prp_build(qp, cid, dvec, dvec_cnt, &prp1, &prp2);
	if (XNVME_BE_UNLIKELY(err == -EINVAL && qp->sgls && dvec_cnt > 1)) {
		err = vfio_sgl_build(qp, cid, dvec, dvec_cnt, &sgl);
		use_sgl = true;
	}
	if (XNVME_BE_UNLIKELY(err)) {
		return err;
	}
	if (mbuf && mbuf_nbytes) {
		err = vfio_dma_xlate(qp->dma, &qp->cache, mbuf, mbuf_nbytes, &mptr);
		if (XNVME_BE_UNLIKELY(err)) {
			return err;
		}
		if (XNVME_BE_UNLIKELY(mptr & 3)) {
			return -EINVAL;
		}
	}
	qp->nfree--;
	qp->outstanding++;
	qp->cids[cid].arg = arg;
	qp->cids[cid].state = VFIO_CID_BUSY;
	qp->cids[cid].t_submit_us = UINT64_MAX;

	sqe = &qp->sq[qp->sq_tail];
	*sqe = *cmd;
	sqe->common.cid = cid;
	sqe->common.fuse = 0;
	sqe->common.mptr = mptr;
	if (XNVME_BE_LIKELY(!use_sgl)) {
		sqe->common.psdt = 0;
		sqe->common.dptr.prp.prp1 = prp1;
		sqe->common.dptr.prp.prp2 = prp2;
	} else {
		sqe->common.psdt = 1; /* SGL for data, MPTR holds the metadata address */
		sqe->common.dptr.sgl = sgl;
	}
	qp->sq_tail = qp->sq_tail + 1 == qp->qsize ? 0 : qp->sq_tail + 1;
	return 0;
}

void
vfio_qpair_ring(struct vfio_qpair *qp)
{
	uint64_t now;

	if (qp->sq_tail == qp->sq_tail_db ||
	    XNVME_BE_UNLIKELY(qp->epoch != __atomic_load_n(&qp->ctrl->epoch, __ATOMIC_ACQUIRE))) {
		return; /* after a reset the queue is not on the device: reaping recovers it */
	}
	now = qp->timeout_us ? vfio_now_us() : 0;
	for (uint32_t i = qp->sq_tail_db; i != qp->sq_tail; i = i + 1 == qp->qsize ? 0 : i + 1) {
		qp->cids[qp->sq[i].common.cid].t_submit_us = now;
	}
	vfio_bus_write32(qp->bus, qp->sq_db, qp->sq_tail);
	qp->sq_tail_db = qp->sq_tail;
	qp->stats.sq_doorbells++;
}

static void
cid_release(struct vfio_qpair *qp, uint16_t cid)
{
	qp->cids[cid].state = VFIO_CID_FREE;
	qp->cids[cid].arg = NULL;
	qp->cid_free[qp->nfree++] = cid;
}

/* Completes a busy command with a driver-made status: sct 7 (vendor), sc = errno; `keep`:
 * the device still owns it (abandoned), else its CID is free again */
static void
cid_fail(struct vfio_qpair *qp, uint16_t cid, int err, bool keep)
{
	struct xnvme_spec_cpl cpl = {0};
	void *arg = qp->cids[cid].arg;

	cpl.cid = cid;
	cpl.sqid = qp->qid;
	cpl.status.sct = XNVME_STATUS_CODE_TYPE_VENDOR;
	cpl.status.sc = (uint8_t)err;
	cpl.status.dnr = 1;
	if (keep) {
		qp->cids[cid].state = VFIO_CID_ABANDONED;
		qp->cids[cid].arg = NULL;
		qp->cids[cid].abort = false;
		qp->abandoned++;
		__atomic_add_fetch(&qp->dma->abandoned, 1, __ATOMIC_RELEASE);
	} else {
		cid_release(qp, cid);
	}
	qp->outstanding--;
	qp->cb(arg, &cpl);
}

void
vfio_qpair_restart(struct vfio_qpair *qp)
{
	for (uint32_t cid = 0; cid < qp->ncids; ++cid) {
		if (qp->cids[cid].state == VFIO_CID_ABANDONED) {
			cid_release(qp, (uint16_t)cid);
		}
	}
	__atomic_sub_fetch(&qp->dma->abandoned, qp->abandoned, __ATOMIC_RELEASE);
	qp->abandoned = 0;
	memset(qp->cq, 0, qp->qsize * sizeof(*qp->cq));
	qp->sq_tail = qp->sq_tail_db = 0;
	qp->cq_head = qp->cq_head_db = 0;
	qp->phase = 1;
}

void
vfio_qpair_cancel_all(struct vfio_qpair *qp, int err)
{
	for (uint32_t cid = 0; cid < qp->ncids; ++cid) {
		if (qp->cids[cid].state == VFIO_CID_BUSY) {
			qp->stats.cancelled++;
			cid_fail(qp, (uint16_t)cid, err, false);
		}
	}
}

void
vfio_qpair_fail_all(struct vfio_qpair *qp, int err)
{
	qp->failed = true;
	for (uint32_t cid = 0; cid < qp->ncids; ++cid) {
		if (qp->cids[cid].state == VFIO_CID_BUSY) {
			cid_fail(qp, (uint16_t)cid, err, true);
		}
	}
}

/* Idle housekeeping: timeouts and controller health, at most once per interval */
static void
idle_check(struct vfio_qpair *qp)
{
	uint64_t now = vfio_now_us();
	uint32_t expired = 0;

	if (now < qp->next_check_us || !qp->outstanding || qp->recovering) {
		return;
	}
	qp->next_check_us = now + CHECK_INTERVAL_US;
	/* CSTS costs an MMIO read, which under emulation waits for the device model: only when
	 * completions have stopped for a few intervals, never while the queue makes progress */
	if (++qp->idle_checks >= STALL_CHECKS && vfio_ctrl_check_fatal(qp->ctrl)) {
		vfio_qpair_fail_all(qp, __atomic_load_n(&qp->ctrl->fail_err, __ATOMIC_RELAXED));
		return;
	}
	if (!qp->timeout_us) {
		return;
	}
	for (uint32_t cid = 0; cid < qp->ncids; ++cid) {
		struct vfio_cid *c = &qp->cids[cid];

		if (c->state == VFIO_CID_BUSY && c->t_submit_us != UINT64_MAX &&
		    now - c->t_submit_us >= qp->timeout_us) {
			qp->stats.timeouts++;
			cid_fail(qp, (uint16_t)cid, ETIMEDOUT, true);
			c->abort = true;
			expired++;
		}
	}
	if (!expired || !qp->ctrl->ready) {
		return;
	}
	if (qp->qid) {
		vfio_qpair_timeout_recovery(qp);
	} else if (!qp->ctrl->resetting) {
		/* an admin command: its waiter holds admin_lock; no Abort on the queue it blocks */
		vfio_ctrl_reset_locked(qp->ctrl);
	}
}

uint32_t
vfio_qpair_reap(struct vfio_qpair *qp, uint32_t max)
{
	uint32_t n = 0;

	if (XNVME_BE_UNLIKELY(qp->epoch != __atomic_load_n(&qp->ctrl->epoch, __ATOMIC_ACQUIRE)) &&
	    !qp->recovering) {
		vfio_qpair_recover(qp); /* the controller was reset: cancels what it dropped */
	}
	if (qp->bus->ops->idle) {
		qp->bus->ops->idle(qp->bus);
	}
	while (!max || n < max) {
		struct xnvme_spec_cpl *cqe = &qp->cq[qp->cq_head];
		uint16_t status = __atomic_load_n(&cqe->status.val, __ATOMIC_ACQUIRE);
		struct xnvme_spec_cpl cpl;
		struct vfio_cid *c;
		void *arg;

		if ((status & 1) != qp->phase) {
			break;
		}
		cpl = *cqe;
		cpl.status.val = status & (uint16_t)~1u;
		if (++qp->cq_head == qp->qsize) {
			qp->cq_head = 0;
			qp->phase ^= 1;
		}
		if (XNVME_BE_UNLIKELY(cpl.cid >= qp->ncids)) {
			qp->stats.bogus++;
			continue;
		}
		c = &qp->cids[cpl.cid];
		if (XNVME_BE_UNLIKELY(c->state != VFIO_CID_BUSY)) {
			if (c->state == VFIO_CID_ABANDONED) {
				qp->stats.late++;
				qp->abandoned--;
				__atomic_sub_fetch(&qp->dma->abandoned, 1, __ATOMIC_RELEASE);
				cid_release(qp, cpl.cid);
			} else {
				qp->stats.bogus++;
			}
			continue;
		}
		arg = c->arg;
		cid_release(qp, cpl.cid);
		qp->outstanding--;
		n++;
		qp->cb(arg, &cpl); /* may submit or reap (nested): all state above is settled */
	}
	if (qp->cq_head != qp->cq_head_db) {
		vfio_bus_write32(qp->bus, qp->cq_db, qp->cq_head);
		qp->cq_head_db = qp->cq_head;
		qp->stats.cq_doorbells++;
	}
	if (n) {
		qp->idle_checks = 0;
	}
	/* idle reaps check at once; a queue kept busy checks every 1024 reaps, so one stuck
	 * command among many that complete still times out */
	if (!n || !(++qp->nreaps & 1023)) {
		idle_check(qp);
	}
	return n;
}
