// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "emu": submissions are queued in FIFO order and executed by the device's
 * sync mechanism inside poke, on the calling thread. No parallelism, but any opcode the sync
 * mechanism supports works, and a client polling for one command makes progress.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include "async_deferred.h"
#include "async_stubs.h"

struct emu_state {
	uint32_t head;
	uint32_t tail;
	uint32_t mask;
	struct xnvme_cmd_ctx **fifo;
	struct xnvme_be_deferred *entries; ///< indexed by xnvme_queue_ctx_idx()
};

static int
emu_term(struct xnvme_queue *queue)
{
	struct emu_state *state = queue->state;

	if (state) {
		free(state->fifo);
		free(state->entries);
		free(state);
	}
	queue->state = NULL;
	return 0;
}

static int
emu_init(struct xnvme_queue *queue, int opts)
{
	uint32_t size = xnvme_be_ring_size(queue->capacity);
	struct emu_state *state;

	(void)opts;

	state = calloc(1, sizeof(*state));
	if (!state) {
		return -ENOMEM;
	}
	queue->state = state;
	state->mask = size - 1;
	state->fifo = calloc(size, sizeof(*state->fifo));
	state->entries = calloc((size_t)queue->capacity + 1, sizeof(*state->entries));
	if (!state->fifo || !state->entries) {
		emu_term(queue);
		return -ENOMEM;
	}
	return 0;
}

/* Commands one poke level takes off the FIFO before running them (kept on its stack) */
#define EMU_BATCH 32

/* More than one command queued: out of line, so that the one-command poke needs no frame */
static __attribute__((noinline)) int
emu_poke_batch(struct xnvme_queue *queue, struct emu_state *state, uint32_t n, uint32_t max)
{
	struct xnvme_cmd_ctx *batch[EMU_BATCH];
	uint32_t done = 0;

	/* Commands submitted by the callbacks below wait for the next poke */
	if (max && max < n) {
		n = max;
	}
	/*
	 * Batches are copied out of the FIFO before any runs: a callback's nested poke takes only
	 * later entries, and submissions may reuse the slots of a batch (the FIFO holds only
	 * what nobody has taken).
	 */
	while (done < n) {
		uint32_t nb = state->tail - state->head;

		if (nb > n - done) {
			nb = n - done;
		}
		if (nb > EMU_BATCH) {
			nb = EMU_BATCH;
		}
		if (!nb) {
			break; /* nested pokes took the rest */
		}
		for (uint32_t i = 0; i < nb; ++i) {
			batch[i] = state->fifo[state->head++ & state->mask];
		}
		for (uint32_t i = 0; i < nb; ++i) {
			xnvme_be_deferred_run(state->entries, queue, batch[i]);
			xnvme_queue_complete(queue, batch[i]);
		}
		done += nb;
	}
	return (int)done;
}

static int
emu_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct emu_state *state = queue->state;
	struct xnvme_cmd_ctx *ctx;

	if (state->tail - state->head != 1) {
		return emu_poke_batch(queue, state, state->tail - state->head, max);
	}
	/* one command (queue depth 1, or reaped one at a time): no batch to copy out */
	ctx = state->fifo[state->head++ & state->mask];
	xnvme_be_deferred_run(state->entries, queue, ctx);
	xnvme_queue_complete(queue, ctx);
	return 1;
}

static int
emu_submit(struct xnvme_cmd_ctx *ctx, void *buf, size_t buf_cnt, size_t buf_nbytes, void *mbuf,
	   size_t mbuf_nbytes, bool vectored)
{
	struct emu_state *state = ctx->async.queue->state;
	struct xnvme_be_deferred *d = xnvme_be_deferred_at(state->entries, ctx);

	if (!d) {
		return -EINVAL; /* not a context of this queue's pool */
	}
	if (state->tail - state->head > state->mask) {
		return -EBUSY;
	}
	xnvme_be_deferred_set(d, buf, buf_cnt, buf_nbytes, mbuf, mbuf_nbytes, vectored);
	state->fifo[state->tail++ & state->mask] = ctx;
	return 0;
}

static int
emu_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	   size_t mbuf_nbytes)
{
	return emu_submit(ctx, dbuf, 0, dbuf_nbytes, mbuf, mbuf_nbytes, false);
}

/* Counted by the core before the call (the read/write fast path's tail call) */
static int
emu_cmd_io_counted(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		   size_t mbuf_nbytes)
{
	int err = emu_submit(ctx, dbuf, 0, dbuf_nbytes, mbuf, mbuf_nbytes, false);

	return XNVME_BE_UNLIKELY(err) ? xnvme_be_cmd_io_refused(ctx, err) : 0;
}

static int
emu_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	    void *mbuf, size_t mbuf_nbytes)
{
	return emu_submit(ctx, dvec, dvec_cnt, dvec_nbytes, mbuf, mbuf_nbytes, true);
}

const struct xnvme_be_async xnvme_be_async_emu = {
	.name = "emu",
	.check_support = xnvme_be_async_serves_any,
	.init = emu_init,
	.term = emu_term,
	.poke = emu_poke,
	.cmd_io = emu_cmd_io,
	.cmd_iov = emu_cmd_iov,
	.cmd_io_counted = emu_cmd_io_counted,
	.get_completion_fd = xnvme_be_async_no_completion_fd,
};
