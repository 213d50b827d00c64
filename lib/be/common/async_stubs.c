// SPDX-License-Identifier: BSD-3-Clause
/*
 * Entry points async mechanisms share where they have nothing of their own (async_stubs.h).
 */
#include <errno.h>
#include "async_stubs.h"

int
xnvme_be_async_serves_any(struct xnvme_dev *dev)
{
	(void)dev;
	return 0;
}

int
xnvme_be_async_no_completion_fd(struct xnvme_queue *queue)
{
	(void)queue;
	return -ENOSYS;
}

int
xnvme_be_async_absent_term(struct xnvme_queue *queue)
{
	queue->state = NULL;
	return 0;
}

int
xnvme_be_async_absent_poke(struct xnvme_queue *queue, uint32_t max)
{
	(void)queue;
	(void)max;
	return -ENOSYS;
}

int
xnvme_be_async_absent_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
			     size_t mbuf_nbytes)
{
	(void)ctx;
	(void)dbuf;
	(void)dbuf_nbytes;
	(void)mbuf;
	(void)mbuf_nbytes;
	return -ENOSYS;
}

int
xnvme_be_async_absent_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
			      size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	(void)ctx;
	(void)dvec;
	(void)dvec_cnt;
	(void)dvec_nbytes;
	(void)mbuf;
	(void)mbuf_nbytes;
	return -ENOSYS;
}
