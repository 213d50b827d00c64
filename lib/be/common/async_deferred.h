/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Commands deferred to the device's sync mechanism, shared by the async mechanisms "emu" (run
 * inside poke) and "thrpool" (run by worker threads). Not installed.
 */
#ifndef XNVME_BE_ASYNC_DEFERRED_H
#define XNVME_BE_ASYNC_DEFERRED_H

#include <stdbool.h>
#include "xnvme_be.h"

/** What one submitted command passes to the sync mechanism, kept per pooled context */
struct xnvme_be_deferred {
	void *buf;         ///< dbuf, or the iovec array when `vectored`
	size_t buf_cnt;    ///< dvec_cnt
	size_t buf_nbytes; ///< dbuf_nbytes or dvec_nbytes
	void *mbuf;
	size_t mbuf_nbytes;
	bool vectored;
};

/**
 * The entry of `ctx` in `entries` (capacity + 1 of them, indexed by xnvme_queue_ctx_idx()), or
 * NULL when `ctx` is not a context of its queue's pool
 */
static inline struct xnvme_be_deferred *
xnvme_be_deferred_at(struct xnvme_be_deferred *entries, const struct xnvme_cmd_ctx *ctx)
{
	const struct xnvme_queue *queue = ctx->async.queue;
	uint32_t idx = xnvme_queue_ctx_idx(queue, ctx);

	return idx > queue->capacity ? NULL : &entries[idx];
}

/**
 * Keeps the buffers of a submission. Only the pointer to an iovec array is kept, not a copy:
 * the caller keeps the array (and the buffers) alive until the command completes, as with the
 * original.
 */
static inline void
xnvme_be_deferred_set(struct xnvme_be_deferred *d, void *buf, size_t buf_cnt, size_t buf_nbytes,
		      void *mbuf, size_t mbuf_nbytes, bool vectored)
{
	d->buf = buf;
	d->buf_cnt = buf_cnt;
	d->buf_nbytes = buf_nbytes;
	d->mbuf = mbuf;
	d->mbuf_nbytes = mbuf_nbytes;
	d->vectored = vectored;
}

/**
 * Runs the deferred command of `ctx`, a context of `queue`, through the device's sync
 * mechanism; an error without a status folds into cpl
 */
static inline void
xnvme_be_deferred_run(const struct xnvme_be_deferred *entries, struct xnvme_queue *queue,
		      struct xnvme_cmd_ctx *ctx)
{
	const struct xnvme_be_deferred *d = &entries[xnvme_queue_ctx_idx(queue, ctx)];
	const struct xnvme_be_sync *sync = queue->dev->sync;
	int err;

	if (d->vectored) {
		err = sync->cmd_iov(ctx, d->buf, d->buf_cnt, d->buf_nbytes, d->mbuf,
				    d->mbuf_nbytes);
	} else {
		err = sync->cmd_io(ctx, d->buf, d->buf_nbytes, d->mbuf, d->mbuf_nbytes);
	}
	if (err < 0 && !xnvme_cmd_ctx_cpl_status(ctx)) {
		xnvme_cpl_set_errno(ctx, err);
	}
}

#endif /* XNVME_BE_ASYNC_DEFERRED_H */
