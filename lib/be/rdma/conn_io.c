// SPDX-License-Identifier: BSD-3-Clause
/*
 * Commands on a connection. A submission takes a free CID, writes the SQE into the slot's
 * registered capsule with an SGL that says where the data is, and links the slot's work
 * requests (a memory-window bind, then the capsule's send) after those waiting for the next
 * post; a poke posts them all with one ibv_post_send.
 *
 * Data: a write of up to the queue's in-capsule size travels in the capsule (the caller's
 * registered buffer as a second gather entry, other memory copied in). Anything else goes by
 * keyed SGL: the caller's buffer when it lies in one registered region, else the slot's bounce
 * buffer (copied in before, and for reads back out at delivery).
 *
 * Completion: a command is done when its send completed and its response arrived (either may
 * come first), and, when it offered a window the target did not invalidate, when the local
 * invalidation posted then completed. Done commands go to a ring and are delivered from there,
 * up to a poke's `max`; the completion queue itself is always drained whole, so a poke leaves
 * no work entries behind.
 *
 * Completion fd (the channel's): in fd mode a poke that finds the CQ not armed arms it and
 * drains once more (what came before arming raises no event), and consumes the events it was
 * woken by. Without fd mode nothing is armed, except by xnvme_rdma_conn_wait(), the idle wait.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdma.h"

#define POLL_BATCH 16
#define SCAN_PERIOD_NS 1000000ULL

static void
sq_push(struct xnvme_rdma_conn *conn, struct ibv_send_wr *first, struct ibv_send_wr *last)
{
	last->next = NULL;
	if (conn->sq_tail) {
		conn->sq_tail->next = first;
	} else {
		conn->sq_head = first;
	}
	conn->sq_tail = last;
	conn->sq_pending++;
}

static void
rq_push(struct xnvme_rdma_conn *conn, uint32_t ri)
{
	struct ibv_recv_wr *wr = &conn->rwr[ri];

	wr->next = NULL;
	if (conn->rq_tail) {
		conn->rq_tail->next = wr;
	} else {
		conn->rq_head = wr;
	}
	conn->rq_tail = wr;
}

static int
wc_errno(const struct ibv_wc *wc)
{
	switch (wc->status) {
	case IBV_WC_WR_FLUSH_ERR:
		return -ECONNABORTED;
	case IBV_WC_RETRY_EXC_ERR:
		return -EHOSTUNREACH;
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return -ECONNRESET;
	case IBV_WC_LOC_LEN_ERR: /* a response longer than the receive buffer */
		return -EPROTO;
	case IBV_WC_REM_ACCESS_ERR:
	case IBV_WC_REM_INV_REQ_ERR:
	case IBV_WC_REM_OP_ERR:
		return -EREMOTEIO;
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_MW_BIND_ERR:
		return -EFAULT;
	default:
		return -EIO;
	}
}

/* Copies `nbytes` of the caller's data (iov, or dbuf) to or from `buf` */
static void
gather(void *buf, const struct iovec *iov, uint32_t iovcnt, size_t nbytes, bool to_caller)
{
	uint8_t *p = buf;

	for (uint32_t i = 0; i < iovcnt && nbytes; ++i) {
		size_t n = iov[i].iov_len < nbytes ? iov[i].iov_len : nbytes;

		if (to_caller) {
			memcpy(iov[i].iov_base, p, n);
		} else {
			memcpy(p, iov[i].iov_base, n);
		}
		p += n;
		nbytes -= n;
	}
}

/* The slot's bounce buffer, of at least nbytes, registered; grown (never shrunk) as needed */
static int
bounce_get(struct xnvme_rdma_conn *conn, struct xnvme_rdma_slot *slot, size_t nbytes)
{
	size_t size = (nbytes + 4095) & ~(size_t)4095;
	void *buf;

	if (slot->bounce_nbytes >= nbytes) {
		return 0;
	}
	if (!conn->rd->pd) {
		return -ENOTCONN;
	}
	if (slot->bounce_mr) {
		ibv_dereg_mr(slot->bounce_mr);
		slot->bounce_mr = NULL;
	}
	free(slot->bounce);
	slot->bounce = NULL;
	slot->bounce_nbytes = 0;
	if (posix_memalign(&buf, 4096, size)) {
		return -ENOMEM;
	}
	slot->bounce_mr =
		ibv_reg_mr(conn->rd->pd, buf, size,
			   IBV_ACCESS_LOCAL_WRITE |
				   (conn->mw ? IBV_ACCESS_MW_BIND
					     : IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE));
	if (!slot->bounce_mr) {
		int err = errno ? -errno : -ENOMEM;

		free(buf);
		return err;
	}
	slot->bounce = buf;
	slot->bounce_nbytes = size;
	return 0;
}

/* The SQE in the slot's capsule and its work requests; nothing is linked on failure */
static int
build(struct xnvme_rdma_conn *conn, uint16_t cid, uint8_t dir, void *dbuf, const struct iovec *iov,
      uint32_t iovcnt, uint32_t nbytes)
{
	struct xnvme_rdma_slot *slot = &conn->slots[cid];
	struct xnvme_rdma_cmd_state *st = &conn->st[cid];
	uint8_t *capsule = conn->capsules + (size_t)cid * (64 + conn->icd_room);
	struct ibv_send_wr *first = &slot->wr_send;
	struct iovec one = {dbuf, nbytes};
	const void *seg;
	uint32_t total = 64;

	if (!iov) {
		iov = &one;
		iovcnt = 1;
	}
	seg = iovcnt == 1 ? iov[0].iov_base : NULL;
	memcpy(capsule, &slot->ctx->cmd, 64);
	memcpy(capsule + 2, &cid, sizeof(cid));
	capsule[1] = (uint8_t)((capsule[1] & 0x3F) | XNVME_NVMF_PSDT_SGL);
	slot->flags = 0;
	slot->nbytes = nbytes;
	slot->dir = nbytes ? dir : XNVME_NVMF_DIR_NONE;
	*st = (struct xnvme_rdma_cmd_state){0};
	slot->sge[0].addr = (uintptr_t)capsule;
	slot->sge[0].length = 64;
	slot->wr_send.num_sge = 1;

	if (!nbytes) {
		xnvme_rdma_sgl_keyed(capsule + 24, 0, 0, 0, false);
	} else if (dir == XNVME_NVMF_DIR_H2C && nbytes <= conn->icd_max) {
		struct xnvme_nvmf_sgl sgl = {
			.addr = 0, .len = nbytes, .type = XNVME_RDMA_SGL_INCAPSULE};
		struct ibv_mr *mr =
			seg ? xnvme_rdma_mr_find(conn->rd, &conn->mrc, seg, nbytes) : NULL;

		memcpy(capsule + 24, &sgl, sizeof(sgl));
		if (mr) {
			slot->sge[1].addr = (uintptr_t)seg;
			slot->sge[1].length = nbytes;
			slot->sge[1].lkey = mr->lkey;
			slot->wr_send.num_sge = 2;
		} else {
			gather(capsule + 64, iov, iovcnt, nbytes, false);
			slot->sge[0].length += nbytes;
		}
		total += nbytes;
	} else {
		struct ibv_mr *mr =
			seg ? xnvme_rdma_mr_find(conn->rd, &conn->mrc, seg, nbytes) : NULL;
		const void *addr = seg;

		if (!mr) {
			int err = bounce_get(conn, slot, nbytes);

			if (err) {
				return err;
			}
			/* reads too: what the target does not write keeps the caller's bytes */
			gather(slot->bounce, iov, iovcnt, nbytes, false);
			memcpy(slot->iov, iov, iovcnt * sizeof(*iov));
			slot->iovcnt = iovcnt;
			slot->flags |= XNVME_RDMA_SLOT_BOUNCE;
			mr = slot->bounce_mr;
			addr = slot->bounce;
		}
		if (conn->mw) {
			struct ibv_send_wr *b = &slot->wr_bind;

			slot->mw_rkey = ibv_inc_rkey(slot->mw_rkey);
			b->bind_mw.rkey = slot->mw_rkey;
			b->bind_mw.bind_info.mr = mr;
			b->bind_mw.bind_info.addr = (uintptr_t)addr;
			b->bind_mw.bind_info.length = nbytes;
			b->bind_mw.bind_info.mw_access_flags = dir == XNVME_NVMF_DIR_C2H
								       ? IBV_ACCESS_REMOTE_WRITE
								       : IBV_ACCESS_REMOTE_READ;
			b->next = &slot->wr_send;
			first = b;
			st->rkey = slot->mw_rkey;
			st->inv = 1;
		} else {
			st->rkey = mr->rkey;
		}
		xnvme_rdma_sgl_keyed(capsule + 24, (uintptr_t)addr, nbytes, st->rkey, st->inv);
	}
	slot->wr_send.send_flags = IBV_SEND_SIGNALED;
	if (total <= conn->max_inline) {
		slot->wr_send.send_flags |= IBV_SEND_INLINE;
	}
	sq_push(conn, first, &slot->wr_send);
	return 0;
}

int
xnvme_rdma_conn_submit(struct xnvme_rdma_conn *conn, struct xnvme_cmd_ctx *ctx, void *dbuf,
		       const struct iovec *iov, uint32_t iovcnt, size_t nbytes, void *mbuf,
		       size_t mbuf_nbytes)
{
	struct xnvme_rdma_slot *slot;
	uint8_t dir = xnvme_nvmf_cmd_dir(ctx);
	uint16_t cid;
	int err;

	(void)mbuf;
	if (XNVME_BE_UNLIKELY(conn->err ||
			      atomic_load_explicit(&conn->abort_err, memory_order_relaxed))) {
		return -ENOTCONN;
	}
	if (XNVME_BE_UNLIKELY(mbuf_nbytes)) {
		return -ENOTSUP; /* fabrics carry metadata interleaved (extended LBAs) only */
	}
	err = xnvme_nvmf_xfer_nbytes(dir, dbuf, iov, iovcnt, XNVME_RDMA_IOV_MAX,
				     XNVME_RDMA_SGL_LEN_MAX, &nbytes);
	if (XNVME_BE_UNLIKELY(err)) {
		return err;
	}
	if (XNVME_BE_UNLIKELY(!conn->nfree)) {
		return -EBUSY;
	}
	cid = conn->free[--conn->nfree];
	slot = &conn->slots[cid];
	slot->ctx = ctx;
	err = build(conn, cid, dir, dbuf, iov, iovcnt, (uint32_t)nbytes);
	if (XNVME_BE_UNLIKELY(err)) {
		conn->free[conn->nfree++] = cid;
		slot->ctx = NULL;
		return err;
	}
	conn->st[cid].active = 1;
	if (conn->timeout_ns) {
		/* the coarse clock: a vDSO read without a hardware timer access, per command */
		uint64_t now = xnvme_nvmf_coarse_ns();

		slot->deadline_ns = now + conn->timeout_ns;
		if (!conn->nactive) {
			atomic_store_explicit(&conn->wd_stamp, now, memory_order_relaxed);
		}
	}
	conn->nactive++;
	atomic_store_explicit(&conn->wd_active, conn->nactive, memory_order_relaxed);
	return 0;
}

/*
 * Ends the connection without completing anything: the QP goes to the error state (no more
 * remote access to the caller's memory), nothing queued is posted. xnvme_rdma_conn_fail()
 * then completes the commands; a poke does so for a connection it finds dead.
 */
static void
conn_kill(struct xnvme_rdma_conn *conn, int err)
{
	if (!conn->err) {
		conn->err = err;
		if (conn->qp) {
			struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};

			ibv_modify_qp(conn->qp, &attr, IBV_QP_STATE);
			xnvme_rdma_conn_unbind(conn);
		}
	}
	conn->sq_head = conn->sq_tail = NULL;
	conn->sq_pending = 0;
	conn->rq_head = conn->rq_tail = NULL;
}

int
xnvme_rdma_conn_post(struct xnvme_rdma_conn *conn)
{
	int err = 0;

	if (conn->err) {
		return conn->err;
	}
	if (conn->rq_head) {
		struct ibv_recv_wr *bad = NULL;

		err = ibv_post_recv(conn->qp, conn->rq_head, &bad);
		conn->rq_head = conn->rq_tail = NULL;
	}
	if (!err && conn->sq_head) {
		struct ibv_send_wr *bad = NULL;

		err = ibv_post_send(conn->qp, conn->sq_head, &bad);
		conn->sq_head = conn->sq_tail = NULL;
		conn->sq_pending = 0;
	}
	if (err) {
		/* no callbacks here (a submission posts too): the next poke completes them */
		conn_kill(conn, err > 0 ? -err : -EIO);
		return conn->err;
	}
	return 0;
}

/* Frees the CID and delivers: the callback may reuse it */
static void
deliver(struct xnvme_rdma_conn *conn, uint16_t cid, int err)
{
	struct xnvme_rdma_slot *slot = &conn->slots[cid];
	struct xnvme_cmd_ctx *ctx = slot->ctx;

	if (err) {
		xnvme_cpl_set_errno(ctx, err);
	} else {
		ctx->cpl = slot->cpl;
		if ((slot->flags & XNVME_RDMA_SLOT_BOUNCE) && slot->dir == XNVME_NVMF_DIR_C2H) {
			gather(slot->bounce, slot->iov, slot->iovcnt, slot->nbytes, true);
		}
	}
	conn->st[cid] = (struct xnvme_rdma_cmd_state){0};
	slot->ctx = NULL;
	slot->flags = 0;
	conn->free[conn->nfree++] = cid;
	conn->nactive--;
	conn->ncompleted++;
	atomic_store_explicit(&conn->wd_active, conn->nactive, memory_order_relaxed);
	if (conn->complete) {
		conn->complete(conn, ctx);
	}
}

static void
ready_check(struct xnvme_rdma_conn *conn, uint16_t cid)
{
	struct xnvme_rdma_slot *slot = &conn->slots[cid];
	uint8_t f = slot->flags;

	if ((f & (XNVME_RDMA_SLOT_SENT | XNVME_RDMA_SLOT_RSP)) ==
		    (XNVME_RDMA_SLOT_SENT | XNVME_RDMA_SLOT_RSP) &&
	    !(f & (XNVME_RDMA_SLOT_INV | XNVME_RDMA_SLOT_READY))) {
		slot->flags |= XNVME_RDMA_SLOT_READY;
		conn->ready[conn->ready_tail++ & conn->ready_mask] = cid;
	}
}

uint32_t
xnvme_rdma_conn_deliver(struct xnvme_rdma_conn *conn, uint32_t max)
{
	uint32_t n = 0;

	while (conn->ready_head != conn->ready_tail && (!max || n < max)) {
		uint16_t cid = conn->ready[conn->ready_head++ & conn->ready_mask];

		deliver(conn, cid, 0);
		n++;
	}
	return n;
}

void
xnvme_rdma_conn_fail(struct xnvme_rdma_conn *conn, int err)
{
	conn_kill(conn, err);
	/* what completed before stays a success */
	xnvme_rdma_conn_deliver(conn, 0);
	for (uint32_t cid = 0; cid < conn->ncmds && conn->nactive; ++cid) {
		if (conn->st[cid].active && !(conn->slots[cid].flags & XNVME_RDMA_SLOT_READY)) {
			deliver(conn, (uint16_t)cid, conn->err);
		}
	}
}

void
xnvme_rdma_conn_abort(struct xnvme_rdma_conn *conn, int err)
{
	int zero = 0;

	if (atomic_compare_exchange_strong(&conn->abort_err, &zero, err) && conn->qp) {
		struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};

		/* flushes every work request: a waiter on the channel wakes */
		ibv_modify_qp(conn->qp, &attr, IBV_QP_STATE);
	}
}

static void
on_recv(struct xnvme_rdma_conn *conn, const struct ibv_wc *wc, uint32_t ri)
{
	struct xnvme_rdma_rsp rsp;
	struct xnvme_rdma_slot *slot;
	int err;

	if (ri >= conn->nrecv) {
		xnvme_rdma_conn_fail(conn, -EPROTO);
		return;
	}
	err = xnvme_rdma_rsp_parse(conn->rsps + (size_t)ri * XNVME_RDMA_RSP_BUF, wc->byte_len,
				   wc->wc_flags, wc->invalidated_rkey, conn->ncmds, conn->st, &rsp);
	if (err) {
		xnvme_rdma_conn_fail(conn, err);
		return;
	}
	rq_push(conn, ri);
	slot = &conn->slots[rsp.cid];
	conn->st[rsp.cid].rsp = 1;
	slot->cpl = rsp.cqe;
	slot->flags |= XNVME_RDMA_SLOT_RSP;
	if (conn->st[rsp.cid].inv && !rsp.invalidated) {
		/* the target left the window bound: close it before the caller gets the buffer */
		slot->wr_inv.invalidate_rkey = slot->mw_rkey;
		slot->flags |= XNVME_RDMA_SLOT_INV;
		sq_push(conn, &slot->wr_inv, &slot->wr_inv);
	}
	ready_check(conn, rsp.cid);
}

static void
on_wc(struct xnvme_rdma_conn *conn, const struct ibv_wc *wc)
{
	uint32_t kind = (uint32_t)(wc->wr_id >> 32);
	uint32_t idx = (uint32_t)wc->wr_id;

	if (conn->err) {
		return; /* flushed after the failure */
	}
	if (wc->status != IBV_WC_SUCCESS) {
		int abort = atomic_load_explicit(&conn->abort_err, memory_order_relaxed);

		xnvme_rdma_conn_fail(conn, abort ? abort : wc_errno(wc));
		return;
	}
	if (kind == XNVME_RDMA_WR_RECV) {
		on_recv(conn, wc, idx);
		return;
	}
	if ((kind != XNVME_RDMA_WR_SEND && kind != XNVME_RDMA_WR_INV) || idx >= conn->ncmds ||
	    !conn->st[idx].active) {
		xnvme_rdma_conn_fail(conn, -EPROTO);
		return;
	}
	if (kind == XNVME_RDMA_WR_SEND) {
		struct xnvme_rdma_slot *slot = &conn->slots[idx];

		slot->flags |= XNVME_RDMA_SLOT_SENT;
		if (slot->mw) {
			/* the bind before the send is done: providers name the window by its key */
			slot->mw->rkey = slot->mw_rkey;
		}
	} else {
		conn->slots[idx].flags &= (uint8_t)~XNVME_RDMA_SLOT_INV;
	}
	ready_check(conn, (uint16_t)idx);
}

void
xnvme_rdma_conn_process(struct xnvme_rdma_conn *conn, const struct ibv_wc *wc, int n)
{
	for (int i = 0; i < n; ++i) {
		on_wc(conn, &wc[i]);
	}
}

/* Processes every completion the CQ holds (no callbacks run); the number processed */
static uint32_t
drain(struct xnvme_rdma_conn *conn)
{
	struct ibv_wc wc[POLL_BATCH];
	uint32_t total = 0;
	int n;

	do {
		n = ibv_poll_cq(conn->cq, POLL_BATCH, wc);
		if (XNVME_BE_UNLIKELY(n < 0)) {
			xnvme_rdma_conn_fail(conn, -EIO);
			return total;
		}
		xnvme_rdma_conn_process(conn, wc, n);
		total += (uint32_t)n;
	} while (n == POLL_BATCH);
	return total;
}

/*
 * Reads the channel's event (non-blocking). An armed CQ raises one event and is disarmed by
 * it, so one read takes all there is; a later one is a stale wake the next read takes.
 */
static void
events_consume(struct xnvme_rdma_conn *conn)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	if (ibv_get_cq_event(conn->cch, &cq, &cq_ctx)) {
		return;
	}
	conn->armed = false;
	if (++conn->ncqev >= 64) {
		ibv_ack_cq_events(conn->cq, conn->ncqev);
		conn->ncqev = 0;
	}
}

/*
 * Arms the CQ (when not armed) and drains what came before, posting what that drain queued
 * (receives, invalidations: a waiter's wake may depend on them); 0 or a negative errno
 */
static int
arm(struct xnvme_rdma_conn *conn)
{
	if (conn->armed) {
		return 0;
	}
	if (ibv_req_notify_cq(conn->cq, 0)) {
		return -EIO;
	}
	conn->armed = true;
	drain(conn);
	if (!conn->err && (conn->sq_head || conn->rq_head)) {
		xnvme_rdma_conn_post(conn);
	}
	return 0;
}

static void
expire(struct xnvme_rdma_conn *conn, uint64_t now)
{
	for (uint32_t cid = 0; cid < conn->ncmds && conn->nactive; ++cid) {
		if (conn->st[cid].active && conn->slots[cid].deadline_ns <= now) {
			xnvme_rdma_conn_fail(conn, -ETIMEDOUT);
			return;
		}
	}
}

int
xnvme_rdma_conn_poke(struct xnvme_rdma_conn *conn, uint32_t max)
{
	uint32_t before = conn->ncompleted, nested = conn->nreported, got;
	int abort = atomic_load_explicit(&conn->abort_err, memory_order_relaxed);

	if (XNVME_BE_UNLIKELY(abort && !conn->err)) {
		xnvme_rdma_conn_fail(conn, abort);
	}
	if (conn->sq_head || conn->rq_head) {
		xnvme_rdma_conn_post(conn);
	}
	got = conn->err ? 0 : drain(conn);
	if (conn->fdmode && !conn->err) {
		if (conn->armed) {
			events_consume(conn);
		}
		if (conn->nactive && arm(conn)) {
			xnvme_rdma_conn_fail(conn, -EIO);
		}
	}
	/* receives to post again, local invalidations */
	if (!conn->err && (conn->sq_head || conn->rq_head)) {
		xnvme_rdma_conn_post(conn);
	}
	if (conn->timeout_ns && !conn->err) {
		uint64_t now = xnvme_nvmf_coarse_ns();

		if (got) {
			atomic_store_explicit(&conn->wd_stamp, now, memory_order_relaxed);
		}
		if (conn->nactive && now >= conn->next_scan_ns) {
			conn->next_scan_ns = now + SCAN_PERIOD_NS;
			expire(conn, now);
		}
	}
	xnvme_rdma_conn_deliver(conn, max);
	if (conn->err && conn->nactive) {
		xnvme_rdma_conn_fail(conn, conn->err);
	}
	/* what this poke delivered: pokes nested in its callbacks counted their own */
	got = conn->ncompleted - before - (conn->nreported - nested);
	conn->nreported += got;
	if (!got && conn->err) {
		return conn->err;
	}
	return (int)got;
}

int
xnvme_rdma_conn_wait(struct xnvme_rdma_conn *conn, int timeout_ms)
{
	struct pollfd pfd = {.fd = conn->cch->fd, .events = POLLIN};
	int err;

	if (conn->err) {
		return conn->err;
	}
	if (!conn->armed) {
		err = arm(conn);
		if (err) {
			xnvme_rdma_conn_fail(conn, err);
			return err;
		}
		if (conn->ready_head != conn->ready_tail || conn->err) {
			return 0; /* completions came before the CQ was armed */
		}
	}
	if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR) {
		return -errno;
	}
	events_consume(conn);
	return 0;
}

int
xnvme_rdma_conn_fd(struct xnvme_rdma_conn *conn)
{
	if (!conn->fdmode && !conn->err && !conn->armed) {
		if (ibv_req_notify_cq(conn->cq, 0)) {
			return -EIO;
		}
		conn->armed = true;
	}
	conn->fdmode = true;
	return conn->cch->fd;
}

int
xnvme_rdma_conn_run(struct xnvme_rdma_conn *conn, struct xnvme_cmd_ctx *ctx, void *dbuf,
		    size_t dbuf_nbytes, const struct iovec *iov, uint32_t iovcnt, void *mbuf,
		    size_t mbuf_nbytes)
{
	uint32_t before = conn->ncompleted;
	int err;

	err = xnvme_rdma_conn_submit(conn, ctx, dbuf, iov, iovcnt, dbuf_nbytes, mbuf, mbuf_nbytes);
	if (err) {
		xnvme_cpl_set_errno(ctx, err);
		return err;
	}
	for (int spins = 0; conn->ncompleted == before; ++spins) {
		xnvme_rdma_conn_poke(conn, 0);
		if (conn->ncompleted != before) {
			break;
		}
		/* a few polls for a fast fabric, then sleep on the channel (deadlines: short) */
		if (spins >= 64) {
			xnvme_rdma_conn_wait(conn, conn->timeout_ns ? 10 : 1000);
		}
	}
	return xnvme_nvmf_run_result(ctx, conn->err);
}
