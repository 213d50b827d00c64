// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "rdma": each xnvme_queue is an NVMe I/O queue on a connection (QP) of its
 * own. Submissions are linked into the slots' work requests and posted at the next poke (or
 * once XNVME_RDMA_POST_EAGER commands wait), all with one ibv_post_send. A poke drains the
 * completion queue and delivers up to `max` commands.
 *
 * Idle pokes: without a completion fd and without XNVME_QUEUE_POKE_SPIN, the second poke in a
 * row that finds nothing arms the CQ and sleeps on the completion channel for up to
 * XNVME_BE_POKE_WAIT_NS (the core's rule for mechanisms that can wait in the kernel), so a
 * polling caller leaves the CPU to the target and the RDMA device's own threads.
 *
 * Completion fd: the completion channel's fd; from the first xnvme_queue_get_completion_fd()
 * on, pokes never wait, arm the CQ whenever commands are outstanding and consume the channel's
 * events (conn_io.c). Poke after submitting (and after asking for the fd), then wait for the
 * fd to become readable, and poke again. The monitor (dev.c) flushes a connection whose target
 * went away or stopped answering for longer than the command timeout, which wakes the fd.
 */
#include <errno.h>
#include <stdlib.h>

#include "rdma.h"

/* Commands that may wait for a poke before a submission posts them itself */
#define XNVME_RDMA_POST_EAGER 32

/* A queue's connection (first: queue->state is also the connection) and its queue ID */
struct rdma_aq {
	struct xnvme_rdma_conn conn;
	uint16_t qid;
};

static void
async_complete(struct xnvme_rdma_conn *conn, struct xnvme_cmd_ctx *ctx)
{
	xnvme_queue_complete(conn->arg, ctx);
}

static int
rdma_async_init(struct xnvme_queue *queue, int opts)
{
	struct rdma_aq *aq = calloc(1, sizeof(*aq));
	int err;

	if (!aq) {
		return -ENOMEM;
	}
	err = xnvme_nvmf_ioconn_open(queue->dev, &aq->conn, queue->capacity, &aq->qid);
	if (err) {
		free(aq);
		return err;
	}
	aq->conn.complete = async_complete;
	aq->conn.arg = queue;
	aq->conn.qopts = opts;
	queue->state = aq;
	return 0;
}

static int
rdma_async_term(struct xnvme_queue *queue)
{
	struct rdma_aq *aq = queue->state;

	if (aq) {
		xnvme_nvmf_ioconn_close(queue->dev, &aq->conn, aq->qid);
		free(aq);
		queue->state = NULL;
	}
	return 0;
}

/*
 * Rule 5 of xnvme_be.h: nothing outstanding or nested too deep returns at once; completed
 * commands leave the ready ring one at a time before their callbacks (conn_io.c), and the count
 * is what this poke delivered itself. Only a top-level poke waits when idle.
 */
static int
rdma_async_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct rdma_aq *aq = queue->state;
	struct xnvme_rdma_conn *conn = &aq->conn;
	int ret;

	if (XNVME_BE_UNLIKELY(xnvme_be_poke_skip(queue))) {
		return 0;
	}
	ret = xnvme_rdma_conn_poke(conn, max);
	if (ret) {
		conn->nidle = 0;
		return ret;
	}
	if (!conn->nactive || conn->fdmode || xnvme_be_queue_poke_spin(conn->qopts) ||
	    queue->nested || ++conn->nidle < 2) {
		return 0;
	}
	ret = xnvme_rdma_conn_wait(conn, XNVME_BE_POKE_WAIT_NS / 1000000);
	if (ret && !conn->err) {
		return ret;
	}
	/* a connection that failed while waiting: this poke delivers its commands */
	return xnvme_rdma_conn_poke(conn, max);
}

/* Rule 4: the command is already counted, a refusal takes the count back */
static int
submit(struct xnvme_cmd_ctx *ctx, void *dbuf, struct iovec *dvec, size_t dvec_cnt, size_t nbytes,
       void *mbuf, size_t mbuf_nbytes)
{
	struct rdma_aq *aq = ctx->async.queue->state;
	struct xnvme_rdma_conn *conn = &aq->conn;
	int err;

	if (XNVME_BE_UNLIKELY(dvec_cnt > XNVME_RDMA_IOV_MAX)) {
		return xnvme_be_cmd_refused(ctx, -EINVAL);
	}
	err = xnvme_rdma_conn_submit(conn, ctx, dbuf, dvec, (uint32_t)dvec_cnt, nbytes, mbuf,
				     mbuf_nbytes);
	if (XNVME_BE_UNLIKELY(err)) {
		return xnvme_be_cmd_refused(ctx, err);
	}
	/* a post that fails kills the connection; its commands complete at the next poke */
	if (conn->sq_pending >= XNVME_RDMA_POST_EAGER) {
		xnvme_rdma_conn_post(conn);
	}
	return 0;
}

static int
rdma_async_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	      size_t mbuf_nbytes)
{
	return submit(ctx, dbuf, NULL, 0, dbuf_nbytes, mbuf, mbuf_nbytes);
}

static int
rdma_async_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	       void *mbuf, size_t mbuf_nbytes)
{
	return submit(ctx, NULL, dvec, dvec_cnt, dvec_nbytes, mbuf, mbuf_nbytes);
}

static int
rdma_async_fd(struct xnvme_queue *queue)
{
	struct rdma_aq *aq = queue->state;

	return xnvme_rdma_conn_fd(&aq->conn);
}

const struct xnvme_be_async xnvme_be_rdma_async = {
	.name = "rdma",
	.check_support = xnvme_be_rdma_check_support,
	.init = rdma_async_init,
	.term = rdma_async_term,
	.poke = rdma_async_poke,
	.cmd_io = rdma_async_io,
	.cmd_iov = rdma_async_iov,
	.get_completion_fd = rdma_async_fd,
};
