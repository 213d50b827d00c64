// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "tcp": each xnvme_queue is an NVMe I/O queue on a TCP connection of its
 * own. Submissions are queued in CID slots and written at the next poke (or once
 * XNVME_TCP_TX_EAGER PDUs wait), all waiting PDUs in one sendmsg.
 *
 * A poke never sleeps, so it may leave work that the socket's readability does not announce:
 * PDUs a full socket could not take (the target cannot answer before it has them), and PDUs
 * already received into the staging buffer when `max` stopped the poke. The completion fd is
 * therefore an epoll fd, made on first request: readable when the socket is, when the socket
 * can take queued PDUs (EPOLLOUT is registered only while some wait), and when a poke left
 * received PDUs behind (an eventfd, kicked only then). Callers wait for readability and poke.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "tcp.h"

/* A queue's connection (first: queue->state is also the connection) and its completion fd */
struct tcp_aq {
	struct xnvme_tcp_conn conn;
	int epfd;    ///< the completion fd, -1 until asked for
	int kickfd;  ///< eventfd in epfd: readable while a poke left received PDUs behind
	bool out;    ///< EPOLLOUT registered for the socket
	bool kicked; ///< kickfd holds a count
};

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
	struct tcp_aq *aq;
	int err;

	(void)opts;
	aq = calloc(1, sizeof(*aq));
	if (!aq) {
		return -ENOMEM;
	}
	aq->epfd = -1;
	aq->kickfd = -1;
	err = xnvme_tcp_dev_ioconn_open(queue->dev, &aq->conn, queue->capacity);
	if (err) {
		free(aq);
		return err;
	}
	aq->conn.complete = async_complete;
	aq->conn.arg = queue;
	queue->state = aq;
	return 0;
}

static int
tcp_async_term(struct xnvme_queue *queue)
{
	struct tcp_aq *aq = queue->state;

	if (aq) {
		xnvme_tcp_dev_ioconn_close(queue->dev, &aq->conn);
		if (aq->epfd >= 0) {
			close(aq->epfd);
			close(aq->kickfd);
		}
		free(aq);
		queue->state = NULL;
	}
	return 0;
}

/* After a poke: make the completion fd tell what the socket alone would not */
static void
arm(struct tcp_aq *aq, uint32_t max, int ret)
{
	struct xnvme_tcp_conn *conn = &aq->conn;
	bool out = !conn->err && conn->txq_head != conn->txq_tail;

	if (out != aq->out && conn->fd >= 0) {
		struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0)};

		if (!epoll_ctl(aq->epfd, EPOLL_CTL_MOD, conn->fd, &ev)) {
			aq->out = out;
		}
	}
	/* `max` stopped the poke with PDUs in the staging buffer: no new bytes will say so */
	if (max && ret == (int)max && conn->rxb_head != conn->rxb_tail && !aq->kicked) {
		uint64_t one = 1;

		aq->kicked = write(aq->kickfd, &one, sizeof(one)) == sizeof(one);
	}
}

static int
tcp_async_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct tcp_aq *aq = queue->state;
	int ret;

	if (XNVME_BE_UNLIKELY(aq->kicked)) {
		uint64_t count;

		aq->kicked = read(aq->kickfd, &count, sizeof(count)) != sizeof(count);
	}
	ret = xnvme_tcp_conn_poke(&aq->conn, max);
	if (aq->epfd >= 0) {
		arm(aq, max, ret);
	}
	return ret;
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
	struct tcp_aq *aq = queue->state;
	struct epoll_event ev = {.events = EPOLLIN};
	int err;

	if (aq->epfd >= 0) {
		return aq->epfd;
	}
	if (aq->conn.fd < 0) {
		return -ENOTCONN;
	}
	aq->epfd = epoll_create1(EPOLL_CLOEXEC);
	aq->kickfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (aq->epfd < 0 || aq->kickfd < 0 || epoll_ctl(aq->epfd, EPOLL_CTL_ADD, aq->kickfd, &ev) ||
	    epoll_ctl(aq->epfd, EPOLL_CTL_ADD, aq->conn.fd, &ev)) {
		err = -errno;
		if (aq->epfd >= 0) {
			close(aq->epfd);
		}
		if (aq->kickfd >= 0) {
			close(aq->kickfd);
		}
		aq->epfd = aq->kickfd = -1;
		return err;
	}
	aq->out = false;
	aq->kicked = false;
	arm(aq, 0, 0); /* PDUs may already wait for room */
	return aq->epfd;
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
