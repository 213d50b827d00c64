// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "emu": submissions are queued in FIFO order and executed by the device's
 * sync mechanism inside poke, on the calling thread. No parallelism, but any opcode the sync
 * mechanism supports works, and a client polling for one command makes progress.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "async_stubs.h"
#include "xnvme_plat.h"

/*
 * One submitted command and what it passes to the sync mechanism, kept in the FIFO slot
 * itself: no per-context table to index, so any context of the queue can be submitted.
 * 64 bytes: a slot is one cache line, its address one shift.
 */
struct emu_entry {
	_Alignas(64) struct xnvme_cmd_ctx *ctx;
	void *buf;         ///< dbuf, or the iovec array when vectored
	size_t buf_cnt;    ///< 0: `buf` is a plain buffer; else dvec_cnt + 1 (an iovec array)
	size_t buf_nbytes; ///< dbuf_nbytes or dvec_nbytes
	void *mbuf;
	size_t mbuf_nbytes;
};
_Static_assert(sizeof(struct emu_entry) == 64, "one FIFO slot per cache line");

struct emu_state {
	uint32_t head;
	uint32_t tail;
	uint32_t mask;
	struct emu_entry *fifo;
	/** the device's sync cmd_io, one load closer */
	int (*cmd_io)(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		      size_t mbuf_nbytes);
};

static int
emu_term(struct xnvme_queue *queue)
{
	struct emu_state *state = queue->state;

	if (state) {
		xnvme_plat_aligned_free(state->fifo);
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
	state->cmd_io = queue->dev->sync->cmd_io;
	/* the slots are 64-byte aligned (calloc() would not honour the type's alignment) */
	state->fifo = xnvme_plat_aligned_alloc(64, (size_t)size * sizeof(*state->fifo));
	if (!state->fifo) {
		emu_term(queue);
		return -ENOMEM;
	}
	memset(state->fifo, 0, (size_t)size * sizeof(*state->fifo));
	return 0;
}

/* Runs a command through the device's sync mechanism and completes it */
static inline void
emu_run(struct xnvme_queue *queue, const struct emu_state *state, const struct emu_entry *e)
{
	struct xnvme_cmd_ctx *ctx = e->ctx;
	int err;

	if (XNVME_BE_UNLIKELY(e->buf_cnt)) {
		err = queue->dev->sync->cmd_iov(ctx, e->buf, e->buf_cnt - 1, e->buf_nbytes, e->mbuf,
						e->mbuf_nbytes);
	} else {
		err = state->cmd_io(ctx, e->buf, e->buf_nbytes, e->mbuf, e->mbuf_nbytes);
	}
	if (XNVME_BE_UNLIKELY(err < 0) && !xnvme_cmd_ctx_cpl_status(ctx)) {
		xnvme_cpl_set_errno(ctx, err);
	}
	xnvme_queue_complete(queue, ctx);
}

/* Commands one poke level takes off the FIFO before running them (kept on its stack) */
#define EMU_BATCH 32

/* More than one command queued: out of line, so that the one-command poke needs no frame */
static __attribute__((noinline)) int
emu_poke_batch(struct xnvme_queue *queue, struct emu_state *state, uint32_t n, uint32_t max)
{
	struct emu_entry batch[EMU_BATCH];
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
			emu_run(queue, state, &batch[i]);
		}
		done += nb;
	}
	return (int)done;
}

/*
 * Rule 5's tests: beyond the nesting bound it runs nothing; an empty FIFO (nothing
 * outstanding at this level) gives 0 from emu_poke_batch().
 */
static int
emu_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct emu_state *state = queue->state;
	uint32_t head = state->head, tail = state->tail;
	struct emu_entry e;

	if (XNVME_BE_UNLIKELY(__atomic_load_n(&queue->nested, __ATOMIC_RELAXED) >=
			      XNVME_QUEUE_POKE_DEPTH_MAX)) {
		return 0;
	}
	if (head + 1 != tail) {
		return emu_poke_batch(queue, state, tail - head, max);
	}
	/* one command (queue depth 1, or reaped one at a time): copied out of its slot, which a
	 * submission from the callback may reuse */
	e = state->fifo[head & state->mask];
	state->head = head + 1;
	emu_run(queue, state, &e);
	return 1;
}

/*
 * buf_cnt: 0 for a plain buffer, else the iovec count + 1. Never refuses: the core bounds the
 * outstanding commands by the capacity, and the FIFO has room for that many.
 */
static inline int
emu_submit(struct xnvme_cmd_ctx *ctx, void *buf, size_t buf_cnt, size_t buf_nbytes, void *mbuf,
	   size_t mbuf_nbytes)
{
	struct emu_state *state = ctx->async.queue->state;
	uint32_t tail = state->tail;

	state->fifo[tail & state->mask] =
		(struct emu_entry){ctx, buf, buf_cnt, buf_nbytes, mbuf, mbuf_nbytes};
	state->tail = tail + 1;
	return 0;
}

static int
emu_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	   size_t mbuf_nbytes)
{
	return emu_submit(ctx, dbuf, 0, dbuf_nbytes, mbuf, mbuf_nbytes);
}

static int
emu_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	    void *mbuf, size_t mbuf_nbytes)
{
	if (dvec_cnt == SIZE_MAX) {
		/* dvec_cnt + 1 marks the entry as vectored */
		return xnvme_be_cmd_refused(ctx, -EINVAL);
	}
	return emu_submit(ctx, dvec, dvec_cnt + 1, dvec_nbytes, mbuf, mbuf_nbytes);
}

const struct xnvme_be_async xnvme_be_async_emu = {
	.name = "emu",
	.check_support = xnvme_be_async_serves_any,
	.init = emu_init,
	.term = emu_term,
	.poke = emu_poke,
	.cmd_io = emu_cmd_io,
	.cmd_iov = emu_cmd_iov,
	.get_completion_fd = xnvme_be_async_no_completion_fd,
};
