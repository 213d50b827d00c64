// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "nil": performs no I/O. Every submitted command completes successfully at
 * the next poke, which makes it the yardstick for the library's own per-command overhead:
 * submission is one store into a ring, completion one load and the callback.
 */
#include <errno.h>
#include <stdlib.h>
#include "async_stubs.h"

/*
 * The ring of submitted contexts lives in the queue's allocation (state_nbytes), so submission
 * and poke reach it without a load. It has more slots than a queue has commands
 * (XNVME_QUEUE_CAPACITY_MAX) and is addressed by 16-bit byte offsets, which wrap at its end by
 * themselves: no index is masked. `head` is the next context to complete, `tail` the next free
 * slot. No ring-full check on submission: the core refuses a submission once `capacity`
 * commands are outstanding, and every outstanding command holds one slot, also while a poke
 * has claimed it (below) and not yet completed it.
 */
#define NIL_SLOT ((uint16_t)sizeof(struct xnvme_cmd_ctx *))

struct nil_state {
	uint16_t head;
	uint16_t tail;
	uint32_t rsvd;
	struct xnvme_cmd_ctx *ring[(UINT16_MAX + 1) / sizeof(struct xnvme_cmd_ctx *)];
};
_Static_assert(sizeof(((struct nil_state *)0)->ring) == UINT16_MAX + 1, "16-bit offsets wrap");
_Static_assert(sizeof(((struct nil_state *)0)->ring) / NIL_SLOT >= XNVME_QUEUE_CAPACITY_MAX,
	       "a slot for every command of a queue");

/* `off` is a 16-bit offset held in a 32-bit word: no zero extension at each use */
static inline struct xnvme_cmd_ctx **
nil_slot(struct nil_state *state, uint32_t off)
{
	return (struct xnvme_cmd_ctx **)((char *)state->ring + off);
}

/* The ring is zeroed with the queue: head == tail, nothing to set up or release */
static int
nil_init(struct xnvme_queue *queue, int opts)
{
	(void)queue;
	(void)opts;
	return 0;
}

static int
nil_term(struct xnvme_queue *queue)
{
	(void)queue;
	return 0;
}

/* Completes the claimed contexts of the adjacent slots [slot, end), inside a batch */
static inline void
nil_complete_run(struct xnvme_queue *queue, struct xnvme_cmd_ctx **slot, struct xnvme_cmd_ctx **end)
{
	for (; slot != end; ++slot) {
		xnvme_queue_complete_in_batch(queue, *slot);
	}
}

/* nil_reap() of a range that wraps around the end of the ring: two runs */
__attribute__((noinline, cold)) static int
nil_reap_wrapped(struct xnvme_queue *queue, struct nil_state *state, uint32_t head, uint32_t n)
{
	uint32_t first = (uint32_t)(sizeof(state->ring) - head) / NIL_SLOT;

	queue->nested++;
	nil_complete_run(queue, nil_slot(state, head),
			 nil_slot(state, 0) + sizeof(state->ring) / NIL_SLOT);
	nil_complete_run(queue, nil_slot(state, 0), nil_slot(state, 0) + (n - first));
	queue->nested--;
	return (int)n;
}

/*
 * Completes up to `max` (0: all) of the `n` ready commands at `head`. The range is claimed
 * (head moved past it) before the first callback, so a callback's nested poke completes only
 * what was submitted after it; the claimed slots stay untouched until completed, as their
 * commands are still outstanding.
 */
__attribute__((noinline)) static int
nil_reap(struct xnvme_queue *queue, struct nil_state *state, uint32_t head, uint32_t n,
	 uint32_t max)
{
	struct xnvme_cmd_ctx **slot = nil_slot(state, head);

	if (max && max < n) {
		n = max;
	}
	state->head = (uint16_t)(head + n * NIL_SLOT);
	if (XNVME_BE_UNLIKELY(head + n * NIL_SLOT > sizeof(state->ring))) {
		return nil_reap_wrapped(queue, state, head, n);
	}
	XNVME_BE_REFETCH(queue->nested);
	queue->nested++;
	nil_complete_run(queue, slot, slot + n);
	XNVME_BE_REFETCH(queue->nested);
	queue->nested--;
	return (int)n;
}

/*
 * Rule 5's tests: beyond the nesting bound it reaps nothing; an empty ring (nothing
 * outstanding at this level) gives 0 from nil_reap().
 */
__attribute__((noinline)) static int
nil_poke_ring(struct xnvme_queue *queue, uint32_t max)
{
	struct nil_state *state = xnvme_be_queue_state(queue);
	uint32_t head = state->head;

	if (XNVME_BE_UNLIKELY(queue->nested >= XNVME_QUEUE_POKE_DEPTH_MAX)) {
		return 0;
	}
	return nil_reap(queue, state, head, (uint16_t)(state->tail - head) / NIL_SLOT, max);
}

/*
 * One command outstanding and no callback of the queue running (queue depth 1, or fio
 * reaping one at a time): nothing can have claimed it, so it is the one ready command at
 * the head of the ring, whatever `max`. One compare instead of the ring's arithmetic; no
 * loop, no batch: the counts go from (1 outstanding, 0 nested) to (0, 1) in one shift, and
 * the callback's nested pokes see both. Anything else reads the ring.
 */
static int
nil_poke(struct xnvme_queue *queue, uint32_t max)
{
	if (XNVME_BE_LIKELY(xnvme_be_queue_lone(queue))) {
		struct nil_state *state = xnvme_be_queue_state(queue);
		struct xnvme_cmd_ctx *ctx = *nil_slot(state, state->head);

		XNVME_BE_REFETCH(state->head);
		state->head += NIL_SLOT;
		xnvme_be_queue_lone_to_cb(queue);
		ctx->async.cb(ctx, ctx->async.cb_arg);
		queue->nested--;
		return 1;
	}
	return nil_poke_ring(queue, max);
}

/* Never refuses: nothing to take back (rule 4) */
static inline int
nil_submit(struct xnvme_cmd_ctx *ctx)
{
	struct nil_state *state = xnvme_be_queue_state(ctx->async.queue);
	*nil_slot(state, state->tail) = ctx;
	XNVME_BE_REFETCH(state->tail);
	state->tail += NIL_SLOT;
	return 0;
}

static int
nil_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	   size_t mbuf_nbytes)
{
	(void)dbuf;
	(void)dbuf_nbytes;
	(void)mbuf;
	(void)mbuf_nbytes;
	return nil_submit(ctx);
}

static int
nil_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	    void *mbuf, size_t mbuf_nbytes)
{
	(void)dvec;
	(void)dvec_cnt;
	(void)dvec_nbytes;
	(void)mbuf;
	(void)mbuf_nbytes;
	return nil_submit(ctx);
}

const struct xnvme_be_async xnvme_be_async_nil = {
	.name = "nil",
	.check_support = xnvme_be_async_serves_any,
	.init = nil_init,
	.term = nil_term,
	.poke = nil_poke,
	.cmd_io = nil_cmd_io,
	.cmd_iov = nil_cmd_iov,
	.get_completion_fd = xnvme_be_async_no_completion_fd,
	.state_nbytes = sizeof(struct nil_state),
};
