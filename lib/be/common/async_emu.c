// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "emu": submissions are queued in FIFO order and executed by the device's
 * sync mechanism inside poke, on the calling thread. No parallelism, but any opcode the sync
 * mechanism supports works, and a client polling for one command makes progress (clients.md
 * E.31).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include "xnvme_be.h"

/** The payload of one submitted command, stored per pooled context */
struct emu_entry {
	void *buf;         ///< dbuf, or the iovec array when `vectored`
	size_t buf_cnt;    ///< dvec_cnt
	size_t buf_nbytes; ///< dbuf_nbytes or dvec_nbytes
	void *mbuf;
	size_t mbuf_nbytes;
	bool vectored;
};

struct emu_state {
	uint32_t head;
	uint32_t tail;
	uint32_t mask;
	struct xnvme_cmd_ctx **fifo;
	struct emu_entry *entries; ///< indexed by xnvme_queue_ctx_idx(), capacity + 1 of them
};

static int
emu_check_support(struct xnvme_dev *dev)
{
	(void)dev;
	return 0;
}

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
	struct emu_state *state;
	uint32_t size = 1;

	(void)opts;

	while (size < queue->capacity) {
		size <<= 1;
	}
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

static int
emu_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct emu_state *state = queue->state;
	const struct xnvme_be_sync *sync = queue->dev->sync;
	uint32_t n = state->tail - state->head;

	/* Commands submitted by the callbacks below wait for the next poke */
	if (max && max < n) {
		n = max;
	}
	for (uint32_t i = 0; i < n; ++i) {
		struct xnvme_cmd_ctx *ctx = state->fifo[state->head++ & state->mask];
		struct emu_entry *entry = &state->entries[xnvme_queue_ctx_idx(queue, ctx)];
		int err;

		if (entry->vectored) {
			err = sync->cmd_iov(ctx, entry->buf, entry->buf_cnt, entry->buf_nbytes,
					    entry->mbuf, entry->mbuf_nbytes);
		} else {
			err = sync->cmd_io(ctx, entry->buf, entry->buf_nbytes, entry->mbuf,
					   entry->mbuf_nbytes);
		}
		if (err < 0 && !xnvme_cmd_ctx_cpl_status(ctx)) {
			xnvme_cpl_set_errno(ctx, err);
		}
		xnvme_queue_complete(queue, ctx);
	}
	return (int)n;
}

static int
emu_submit(struct xnvme_cmd_ctx *ctx, void *buf, size_t buf_cnt, size_t buf_nbytes, void *mbuf,
	   size_t mbuf_nbytes, bool vectored)
{
	struct xnvme_queue *queue = ctx->async.queue;
	struct emu_state *state = queue->state;
	uint32_t idx = xnvme_queue_ctx_idx(queue, ctx);
	struct emu_entry *entry;

	if (idx > queue->capacity) {
		return -EINVAL; /* not a context of this queue's pool */
	}
	if (state->tail - state->head > state->mask) {
		return -EBUSY;
	}
	entry = &state->entries[idx];
	entry->buf = buf;
	entry->buf_cnt = buf_cnt;
	entry->buf_nbytes = buf_nbytes;
	entry->mbuf = mbuf;
	entry->mbuf_nbytes = mbuf_nbytes;
	entry->vectored = vectored;
	state->fifo[state->tail++ & state->mask] = ctx;
	return 0;
}

static int
emu_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	   size_t mbuf_nbytes)
{
	return emu_submit(ctx, dbuf, 0, dbuf_nbytes, mbuf, mbuf_nbytes, false);
}

/*
 * Only the pointer to the caller's iovec array is kept, not a copy: the caller must keep the
 * array (and the buffers) alive until the command completes, as with the original.
 */
static int
emu_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	    void *mbuf, size_t mbuf_nbytes)
{
	return emu_submit(ctx, dvec, dvec_cnt, dvec_nbytes, mbuf, mbuf_nbytes, true);
}

static int
emu_get_completion_fd(struct xnvme_queue *queue)
{
	(void)queue;
	return -ENOSYS;
}

const struct xnvme_be_async xnvme_be_async_emu = {
	.name = "emu",
	.check_support = emu_check_support,
	.init = emu_init,
	.term = emu_term,
	.poke = emu_poke,
	.cmd_io = emu_cmd_io,
	.cmd_iov = emu_cmd_iov,
	.get_completion_fd = emu_get_completion_fd,
};
