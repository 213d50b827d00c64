/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Entry points async mechanisms share where they have nothing of their own (async_stubs.c,
 * not installed): serving every device, having no completion fd, and the whole table of a
 * mechanism the build lacks because its library was missing.
 */
#ifndef XNVME_BE_ASYNC_STUBS_H
#define XNVME_BE_ASYNC_STUBS_H

#include "xnvme_be.h"

/** check_support of a mechanism that serves any device its sync mechanism serves: 0 */
int
xnvme_be_async_serves_any(struct xnvme_dev *dev);

/** get_completion_fd of a mechanism without one: -ENOSYS */
int
xnvme_be_async_no_completion_fd(struct xnvme_queue *queue);

/** Entry points of a mechanism the build lacks: term succeeds, the others answer -ENOSYS */
int
xnvme_be_async_absent_term(struct xnvme_queue *queue);
int
xnvme_be_async_absent_poke(struct xnvme_queue *queue, uint32_t max);
int
xnvme_be_async_absent_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes,
			     void *mbuf, size_t mbuf_nbytes);
int
xnvme_be_async_absent_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
			      size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes);

/**
 * The table of the async mechanism `mech` in a build without its library: `check` and `init`
 * refuse with -ENOSYS and a reason, the other entry points are the absent_* above.
 */
#define XNVME_BE_ASYNC_ABSENT(mech, check, init_fn)                                           \
	{                                                                                     \
		.name = (mech), .check_support = (check), .init = (init_fn),                  \
		.term = xnvme_be_async_absent_term, .poke = xnvme_be_async_absent_poke,       \
		.cmd_io = xnvme_be_async_absent_cmd_io,                                       \
		.cmd_iov = xnvme_be_async_absent_cmd_iov,                                     \
		.get_completion_fd = xnvme_be_async_no_completion_fd,                         \
	}

#endif /* XNVME_BE_ASYNC_STUBS_H */
