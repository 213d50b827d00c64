// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "nil": performs no I/O. Every submitted command completes successfully at
 * the next poke, which makes it the yardstick for the library's own per-command overhead:
 * submission is one store into a ring, completion one load and the callback.
 */
#include <errno.h>
#include <stdlib.h>
#include "async_stubs.h"
#include "xnvme_plat.h"

/*
 * ring[tail & mask] is the next free slot, ring[head & mask] the next context to complete. No
 * ring-full check on submission: the core refuses a submission once `capacity` commands are
 * outstanding, every outstanding command holds exactly one slot, and the ring has at least
 * `capacity` slots.
 */
struct nil_state {
	uint32_t head;
	uint32_t tail;
	uint32_t mask;
	struct xnvme_cmd_ctx *ring[];
};

static int
nil_init(struct xnvme_queue *queue, int opts)
{
	uint32_t size = xnvme_be_ring_size(queue->capacity);
	struct nil_state *state;

	(void)opts;
	state = xnvme_plat_aligned_alloc(64, sizeof(*state) + size * sizeof(state->ring[0]));
	if (!state) {
		return -ENOMEM;
	}
	state->head = 0;
	state->tail = 0;
	state->mask = size - 1;
	queue->state = state;
	return 0;
}

static int
nil_term(struct xnvme_queue *queue)
{
	xnvme_plat_aligned_free(queue->state);
	queue->state = NULL;
	return 0;
}

/*
 * Completes the `n` commands at the head of the ring, each taken off the ring before its
 * callback runs. A callback's nested poke takes from the same head: this level stops at the
 * end of its range (what was submitted before it), whoever took the commands in it, so
 * commands submitted from the callbacks complete at a later poke, each exactly once.
 */
__attribute__((noinline)) static int
nil_reap(struct xnvme_queue *queue, struct nil_state *state, uint32_t n)
{
	uint32_t end = state->head + n, done = 0;

	queue->depth++;
	while ((int32_t)(end - state->head) > 0) {
		uint32_t head = state->head;

		state->head = head + 1;
		xnvme_queue_complete_in_batch(queue, state->ring[head & state->mask]);
		done++;
	}
	queue->depth--;
	return (int)done;
}

/*
 * Rule 5's tests: beyond the nesting bound it reaps nothing; an empty ring (nothing
 * outstanding at this level) gives 0 from nil_reap().
 */
static int
nil_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct nil_state *state = queue->state;
	uint32_t head = state->head, tail = state->tail, n;

	/* a load of its own: gcc would otherwise keep depth in a register for the ++ below */
	if (XNVME_BE_UNLIKELY(__atomic_load_n(&queue->depth, __ATOMIC_RELAXED) >
			      XNVME_QUEUE_POKE_DEPTH_MAX)) {
		return 0;
	}
	/* one ready command (queue depth 1, or fio reaping one at a time), whatever `max`: no
	 * loop, no batch */
	if (XNVME_BE_LIKELY(head + 1 == tail)) {
		struct xnvme_cmd_ctx *ctx = state->ring[head & state->mask];

		state->head = tail;
		xnvme_queue_complete(queue, ctx);
		return 1;
	}
	n = tail - head;
	/* Only what was submitted before this poke: commands submitted from the callbacks
	 * below complete at the next poke. */
	if (max && max < n) {
		n = max;
	}
	return nil_reap(queue, state, n);
}

/* Never refuses: nothing to take back (rule 4) */
static inline int
nil_submit(struct xnvme_cmd_ctx *ctx)
{
	struct nil_state *state = ctx->async.queue->state;

	state->ring[state->tail++ & state->mask] = ctx;
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
};
