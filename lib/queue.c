// SPDX-License-Identifier: BSD-3-Clause
/*
 * Queues: a pool of capacity + 1 pre-bound contexts on a free stack (the spare lets clients
 * take one more context than they may submit), plus the async mechanism's state.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "xnvme_be.h"

static void
cb_noop(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	(void)ctx;
	(void)cb_arg;
}

static void
queue_free(struct xnvme_queue *queue)
{
	free(queue->free);
	free(queue->pool);
	free(queue);
}

int
xnvme_queue_init(struct xnvme_dev *dev, uint16_t capacity, int opts, struct xnvme_queue **queue)
{
	struct xnvme_queue *q;
	uint32_t npool = (uint32_t)capacity + 1;
	int err;

	if (!dev || !queue || !capacity || capacity > XNVME_QUEUE_CAPACITY_MAX) {
		return -EINVAL;
	}
	*queue = NULL;

	q = calloc(1, sizeof(*q));
	if (!q) {
		return -ENOMEM;
	}
	/* contexts are 128 bytes: cache-line aligned, no context straddles two lines */
	if (posix_memalign((void **)&q->pool, 64, npool * sizeof(*q->pool))) {
		q->pool = NULL;
		queue_free(q);
		return -ENOMEM;
	}
	q->free = calloc(npool, sizeof(*q->free));
	if (!q->free) {
		queue_free(q);
		return -ENOMEM;
	}
	memset(q->pool, 0, npool * sizeof(*q->pool));

	q->dev = dev;
	q->async = dev->async;
	q->capacity = capacity;
	q->opts = opts;
	for (uint32_t i = 0; i < npool; ++i) {
		struct xnvme_cmd_ctx *ctx = &q->pool[i];

		ctx->dev = dev;
		ctx->opts = XNVME_CMD_ASYNC;
		ctx->async.queue = q;
		ctx->async.cb = cb_noop;
		/* pushed in reverse so that the first get returns pool[0] */
		q->free[npool - 1 - i] = ctx;
	}
	q->nfree = npool;

	err = q->async->init(q, opts);
	if (err) {
		queue_free(q);
		return err;
	}
	*queue = q;
	return 0;
}

uint32_t
xnvme_queue_get_capacity(struct xnvme_queue *queue)
{
	return queue ? queue->capacity : 0;
}

uint32_t
xnvme_queue_get_outstanding(struct xnvme_queue *queue)
{
	return queue ? queue->outstanding : 0;
}

int
xnvme_queue_term(struct xnvme_queue *queue)
{
	int err;

	if (!queue) {
		return -EINVAL;
	}
	err = queue->async->term(queue);
	queue_free(queue);
	return err;
}

int
xnvme_queue_poke(struct xnvme_queue *queue, uint32_t max)
{
	if (XNVME_BE_UNLIKELY(!queue->outstanding)) {
		return 0;
	}
	return queue->async->poke(queue, max);
}

int
xnvme_queue_drain(struct xnvme_queue *queue)
{
	int acc = 0;

	if (!queue) {
		return -EINVAL;
	}
	while (queue->outstanding) {
		int err = queue->async->poke(queue, 0);

		if (err < 0) {
			return err;
		}
		acc += err;
	}
	return acc;
}

int
xnvme_queue_wait(struct xnvme_queue *queue)
{
	return xnvme_queue_drain(queue);
}

/* Out of line so that the per-I/O path of get_cmd_ctx needs no stack frame */
__attribute__((noinline, cold)) static struct xnvme_cmd_ctx *
get_cmd_ctx_fail(const struct xnvme_queue *queue)
{
	errno = queue ? ENOMEM : EINVAL;
	return NULL;
}

struct xnvme_cmd_ctx *
xnvme_queue_get_cmd_ctx(struct xnvme_queue *queue)
{
	if (XNVME_BE_UNLIKELY(!queue || !queue->nfree)) {
		return get_cmd_ctx_fail(queue);
	}
	return queue->free[--queue->nfree];
}

int
xnvme_queue_put_cmd_ctx(struct xnvme_queue *queue, struct xnvme_cmd_ctx *ctx)
{
	if (XNVME_BE_UNLIKELY(!queue || !ctx || queue->nfree > queue->capacity)) {
		return -EINVAL;
	}
	queue->free[queue->nfree++] = ctx;
	return 0;
}

int
xnvme_queue_set_cb(struct xnvme_queue *queue, xnvme_queue_cb cb, void *cb_arg)
{
	if (!queue) {
		return -EINVAL;
	}
	for (uint32_t i = 0; i <= queue->capacity; ++i) {
		queue->pool[i].async.cb = cb ? cb : cb_noop;
		queue->pool[i].async.cb_arg = cb_arg;
	}
	return 0;
}

int
xnvme_queue_get_completion_fd(struct xnvme_queue *queue)
{
	if (!queue) {
		return -EINVAL;
	}
	return queue->async->get_completion_fd(queue);
}
