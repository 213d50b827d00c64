/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * The core's queue (not installed; no backend includes it): the mechanism's view (struct
 * xnvme_queue of lib/be/xnvme_be.h) plus the context pool's free list and the copies of the
 * mechanism's entry points the per-I/O path calls. lib/queue.c owns it; lib/cmd.c submits
 * through xnvme_cmd_pass_async().
 */
#ifndef XNVME_QUEUE_H
#define XNVME_QUEUE_H

#include "xnvme_be.h"

/**
 * The queue: one allocation, 64-byte aligned. The core's own fields come first and the
 * mechanism's view (struct xnvme_queue) last, so that the state a mechanism asked to have
 * allocated with the queue (xnvme_be_async.state_nbytes) starts right after it, at a constant
 * offset from the queue pointer (xnvme_be_queue_state()). The fields of the per-I/O path (get,
 * submit, poke, put) share the second cache line: the last 32 bytes of the core's part and the
 * first 32 of the mechanism's view.
 */
struct xnvme_queue_core {
	const struct xnvme_be_async *async;
	uint8_t rsvd[56]; ///< puts the per-I/O fields in the second cache line
	/** free list linked through the contexts; XNVME_QUEUE_CTX_END: empty */
	struct xnvme_cmd_ctx *free_head;
	/** async->cmd_io and async->poke, one load closer */
	int (*cmd_io)(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		      size_t mbuf_nbytes);
	int (*poke)(struct xnvme_queue *queue, uint32_t max);
	uint64_t last_idx;    ///< capacity, as a 64-bit word for put's one-compare range check
	struct xnvme_queue q; ///< last: the mechanism's state follows it
};
_Static_assert(offsetof(struct xnvme_queue_core, free_head) == 64, "per-I/O fields aligned");
_Static_assert(offsetof(struct xnvme_queue_core, q) + offsetof(struct xnvme_queue, dev) <= 128,
	       "per-I/O fields in one line");
_Static_assert(offsetof(struct xnvme_queue_core, q) + sizeof(struct xnvme_queue) ==
		       sizeof(struct xnvme_queue_core),
	       "the mechanism's state follows the queue");

/* `queue` must not be NULL (pointer arithmetic on NULL is undefined: callers test it first) */
static inline struct xnvme_queue_core *
xnvme_queue_core(const struct xnvme_queue *queue)
{
	return (struct xnvme_queue_core *)((const char *)queue -
					   offsetof(struct xnvme_queue_core, q));
}

/**
 * The queue core's word of a pooled context, in its reserved area (be_rsvd[4..11], 8-byte
 * aligned): the next free context (XNVME_QUEUE_CTX_END after the last) while on the free list,
 * XNVME_QUEUE_CTX_TAKEN (0, as in a context a client cleared) while taken. Mechanisms may use
 * be_rsvd[0..3], never this word.
 */
#define XNVME_QUEUE_CTX_LINK_OFS 4
#define XNVME_QUEUE_CTX_TAKEN ((uintptr_t)0)
#define XNVME_QUEUE_CTX_END ((uintptr_t)1)
_Static_assert((offsetof(struct xnvme_cmd_ctx, be_rsvd) + XNVME_QUEUE_CTX_LINK_OFS) % 8 == 0,
	       "the link word of a context is 8-byte aligned");
_Static_assert(sizeof(((struct xnvme_cmd_ctx *)0)->be_rsvd) - XNVME_QUEUE_CTX_LINK_OFS >=
		       sizeof(uintptr_t),
	       "the link word fits the reserved area");

static inline uintptr_t
xnvme_queue_ctx_link(const struct xnvme_cmd_ctx *ctx)
{
	uintptr_t v;

	memcpy(&v, &ctx->be_rsvd[XNVME_QUEUE_CTX_LINK_OFS], sizeof(v));
	return v;
}

static inline void
xnvme_queue_ctx_link_set(struct xnvme_cmd_ctx *ctx, uintptr_t v)
{
	memcpy(&ctx->be_rsvd[XNVME_QUEUE_CTX_LINK_OFS], &v, sizeof(v));
}

/**
 * The asynchronous branch of xnvme_cmd_pass() (ctx->opts == XNVME_CMD_ASYNC): capacity check,
 * cpl cleared, outstanding counted, then the mechanism's submission as a tail call (it takes
 * the count back when it refuses: rule 4 of lib/be/xnvme_be.h).
 */
static inline int
xnvme_cmd_pass_async(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		     size_t mbuf_nbytes)
{
	struct xnvme_queue *queue = ctx->async.queue;
	uint32_t outstanding;

	if (XNVME_BE_UNLIKELY(!queue)) {
		return -EINVAL;
	}
	/* a load of its own: gcc then counts with one add to memory instead of add + store */
	outstanding = __atomic_load_n(&queue->outstanding, __ATOMIC_RELAXED);
	if (XNVME_BE_UNLIKELY(outstanding >= queue->capacity)) {
		return -EBUSY;
	}
	memset(&ctx->cpl, 0, sizeof(ctx->cpl));
	queue->outstanding++;
	return xnvme_queue_core(queue)->cmd_io(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);
}

#endif /* XNVME_QUEUE_H */
