/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Command contexts and the pass-through functions every command goes through. A context holds
 * one NVMe submission entry (cmd), its completion (cpl), the device and, for queued commands,
 * the queue and callback.
 *
 * Thread safety: a context is used by one thread at a time. Synchronous contexts: any number
 * of threads may issue commands on one handle at once, each with its own context (the
 * mechanisms hold no per-handle state for a command; commands on overlapping LBAs race as on
 * a device). Queue contexts: only the thread that owns the queue (libxnvme_queue.h).
 */
#ifndef LIBXNVME_CMD_H
#define LIBXNVME_CMD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "libxnvme_queue.h"
#include "libxnvme_spec.h"
#include "libxnvme_util.h"

#ifdef __cplusplus
extern "C" {
#endif

struct xnvme_dev;

/** Queue binding of an asynchronous context */
struct xnvme_cmd_ctx_async {
	struct xnvme_queue *queue;
	xnvme_queue_cb cb;
	void *cb_arg;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_cmd_ctx_async) == 24, "Incorrect size")

/**
 * A command in flight. `cmd` first and `cpl` right after it: the first 80 bytes have the
 * shape of Linux's 64-bit NVMe passthrough command. `opts` is 1 for synchronous and 2 for
 * asynchronous contexts.
 */
struct xnvme_cmd_ctx {
	struct xnvme_spec_cmd cmd;
	struct xnvme_spec_cpl cpl;
	struct xnvme_dev *dev;
	struct xnvme_cmd_ctx_async async;
	uint32_t opts;
	uint8_t be_rsvd[12];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_cmd_ctx) == 128, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cmd_ctx, cpl) == 64, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cmd_ctx, dev) == 80, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cmd_ctx, async) == 88, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cmd_ctx, opts) == 112, "Incorrect offset")

/** Sets the completion callback and argument of one context. Thread safety: the ctx user's. */
static inline void
xnvme_cmd_ctx_set_cb(struct xnvme_cmd_ctx *ctx, xnvme_queue_cb cb, void *cb_arg)
{
	ctx->async.cb = cb;
	ctx->async.cb_arg = cb_arg;
}

/**
 * A synchronous context for `dev`: every byte zero except dev and opts. Identifies the device
 * first when that has not happened yet (libxnvme_dev.h, the getters), so that no command waits
 * for it. Thread safety: safe from any thread (concurrent first calls wait for one
 * identification, as the getters do).
 */
struct xnvme_cmd_ctx
xnvme_cmd_ctx_from_dev(struct xnvme_dev *dev);

/** Same as xnvme_queue_get_cmd_ctx(). Thread safety: only on the thread that owns `queue`. */
struct xnvme_cmd_ctx *
xnvme_cmd_ctx_from_queue(struct xnvme_queue *queue);

/** Zero-fills all 128 bytes, including dev and opts. Thread safety: the ctx user's. */
void
xnvme_cmd_ctx_clear(struct xnvme_cmd_ctx *ctx);

/** Non-zero iff the completion carries an error status. Thread safety: reads `ctx` only. */
static inline int
xnvme_cmd_ctx_cpl_status(struct xnvme_cmd_ctx *ctx)
{
	return ctx->cpl.status.sc || ctx->cpl.status.sct;
}

/**
 * Passes the I/O command in ctx->cmd. Synchronous context: executes it, returning a negative
 * errno on failure (-EIO for an NVMe status, which stays in ctx->cpl). Asynchronous context:
 * queues it (0), -EBUSY/-EAGAIN when the queue cannot take it now.
 * Thread safety: synchronous contexts: safe concurrently on one handle, one context per
 * thread. Queue contexts: only on the thread that owns the queue (no locking on that path).
 */
int
xnvme_cmd_pass(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	       size_t mbuf_nbytes);

/**
 * Vectored form of xnvme_cmd_pass() with at most one metadata iovec (else -EINVAL).
 * Thread safety: as xnvme_cmd_pass().
 */
int
xnvme_cmd_passv(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
		struct iovec *mvec, size_t mvec_cnt, size_t mvec_nbytes);

/**
 * Vectored form of xnvme_cmd_pass() with a contiguous metadata buffer.
 * Thread safety: as xnvme_cmd_pass().
 */
int
xnvme_cmd_pass_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
		   size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes);

/**
 * Passes the admin command in ctx->cmd with data buffer `dbuf` of `dbuf_nbytes` bytes and
 * metadata `mbuf` of `mbuf_nbytes` (NULL/0 for none); admin commands are synchronous only.
 * @return 0, -EIO for an NVMe status (in ctx->cpl), or another negative errno.
 * Thread safety: safe concurrently on one handle, one context per thread, also while I/O runs
 * (commands that change the device, e.g. Format, affect the I/O of every thread).
 */
int
xnvme_cmd_pass_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		     size_t mbuf_nbytes);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_CMD_H */
