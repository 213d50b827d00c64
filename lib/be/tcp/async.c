// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "tcp": each xnvme_queue is an NVMe I/O queue on a TCP connection of its
 * own. Submissions are queued in CID slots and written at the next poke (or once
 * XNVME_TCP_TX_EAGER PDUs wait), all waiting PDUs in one sendmsg; the completion fd is the
 * socket.
 */
#include <errno.h>
#include <stdlib.h>

#include "tcp.h"

/* PDUs that may wait for a poke before a submission writes them itself */
#define XNVME_TCP_TX_EAGER 32

static void
async_complete(struct xnvme_tcp_conn *conn, struct xnvme_cmd_ctx *ctx)
{
	xnvme_queue_complete(conn->arg, ctx);
}

static int
tcp_async_init(struct xnvme_queue *queue, int opts)
{
	struct xnvme_tcp_conn *conn;
	int err;

	(void)opts;
	conn = calloc(1, sizeof(*conn));
	if (!conn) {
		return -ENOMEM;
	}
	err = xnvme_tcp_dev_ioconn_open(queue->dev, conn, queue->capacity);
	if (err) {
		free(conn);
		return err;
	}
	conn->complete = async_complete;
	conn->arg = queue;
	queue->state = conn;
	return 0;
}

static int
tcp_async_term(struct xnvme_queue *queue)
{
	if (queue->state) {
		xnvme_tcp_dev_ioconn_close(queue->dev, queue->state);
		free(queue->state);
		queue->state = NULL;
	}
	return 0;
}

static int
tcp_async_poke(struct xnvme_queue *queue, uint32_t max)
{
	return xnvme_tcp_conn_poke(queue->state, max);
}

static int
submit(struct xnvme_cmd_ctx *ctx, void *dbuf, struct iovec *dvec, size_t dvec_cnt, size_t nbytes,
       void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_tcp_conn *conn = ctx->async.queue->state;
	int err;

	if (XNVME_BE_UNLIKELY(dvec_cnt > XNVME_TCP_IOV_MAX)) {
		return -EINVAL;
	}
	err = xnvme_tcp_conn_submit(conn, ctx, dbuf, dvec, (uint32_t)dvec_cnt, nbytes, mbuf,
				    mbuf_nbytes);
	if (!err && conn->txq_tail - conn->txq_head >= XNVME_TCP_TX_EAGER) {
		xnvme_tcp_conn_flush(conn);
	}
	return err;
}

static int
tcp_async_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	     size_t mbuf_nbytes)
{
	return submit(ctx, dbuf, NULL, 0, dbuf_nbytes, mbuf, mbuf_nbytes);
}

static int
tcp_async_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	      void *mbuf, size_t mbuf_nbytes)
{
	return submit(ctx, NULL, dvec, dvec_cnt, dvec_nbytes, mbuf, mbuf_nbytes);
}

static int
tcp_async_fd(struct xnvme_queue *queue)
{
	struct xnvme_tcp_conn *conn = queue->state;

	return conn->fd >= 0 ? conn->fd : -ENOTCONN;
}

const struct xnvme_be_async xnvme_be_tcp_async = {
	.name = "tcp",
	.check_support = NULL,
	.init = tcp_async_init,
	.term = tcp_async_term,
	.poke = tcp_async_poke,
	.cmd_io = tcp_async_io,
	.cmd_iov = tcp_async_iov,
	.get_completion_fd = tcp_async_fd,
};
