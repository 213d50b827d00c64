// SPDX-License-Identifier: BSD-3-Clause
/* Admin and synchronous I/O mechanisms "tcp": one command at a time on their connection */
#include <errno.h>

#include "tcp.h"

static int
tcp_admin_cmd(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	      size_t mbuf_nbytes)
{
	struct xnvme_tcp_dev *st = ctx->dev->state;
	int err;

	pthread_mutex_lock(&st->admin_lock);
	err = xnvme_tcp_conn_run(&st->admin, ctx, dbuf, dbuf_nbytes, NULL, 0, mbuf, mbuf_nbytes);
	pthread_mutex_unlock(&st->admin_lock);
	return err;
}

static int
tcp_admin_pseudo(struct xnvme_dev *dev, enum xnvme_be_pseudo op, void *buf, size_t nbytes)
{
	(void)dev;
	(void)op;
	(void)buf;
	(void)nbytes;
	return -ENOSYS;
}

const struct xnvme_be_admin xnvme_be_tcp_admin = {
	.name = "tcp",
	.check_support = xnvme_be_tcp_check_support,
	.cmd_admin = tcp_admin_cmd,
	.pseudo = tcp_admin_pseudo,
};

static int
tcp_sync_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	     void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_tcp_dev *st = ctx->dev->state;
	int err;

	if (dvec_cnt > XNVME_TCP_IOV_MAX) {
		return -EINVAL;
	}
	if (!st->sync.slots) {
		return -ENOTSUP; /* a discovery controller has no I/O queues */
	}
	pthread_mutex_lock(&st->sync_lock);
	err = xnvme_tcp_conn_run(&st->sync, ctx, NULL, dvec_nbytes, dvec, (uint32_t)dvec_cnt, mbuf,
				 mbuf_nbytes);
	pthread_mutex_unlock(&st->sync_lock);
	return err;
}

static int
tcp_sync_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	    size_t mbuf_nbytes)
{
	struct xnvme_tcp_dev *st = ctx->dev->state;
	int err;

	if (!st->sync.slots) {
		return -ENOTSUP;
	}
	pthread_mutex_lock(&st->sync_lock);
	err = xnvme_tcp_conn_run(&st->sync, ctx, dbuf, dbuf_nbytes, NULL, 0, mbuf, mbuf_nbytes);
	pthread_mutex_unlock(&st->sync_lock);
	return err;
}

const struct xnvme_be_sync xnvme_be_tcp_sync = {
	.name = "tcp",
	.check_support = xnvme_be_tcp_check_support,
	.cmd_io = tcp_sync_io,
	.cmd_iov = tcp_sync_iov,
};
