// SPDX-License-Identifier: BSD-3-Clause
/*
 * Queues: a pool of capacity + 1 pre-bound contexts on a free list (the spare lets clients
 * take one more context than they may submit), plus the async mechanism's state.
 *
 * The rules clients see (callbacks, nesting, NULL, the pool, drain_timeout) are documented in
 * libxnvme_queue.h; `nested` counts the callbacks running, so nested > 0 means "inside a
 * completion callback of this queue".
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "xnvme_dev.h"
#include "xnvme_plat.h"
#include "xnvme_queue.h"

/* log2 of the context size: put's range check divides by rotating */
#define CTX_SHIFT 7
_Static_assert(sizeof(struct xnvme_cmd_ctx) == 1u << CTX_SHIFT, "contexts are 128 bytes");

static void
cb_noop(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	(void)ctx;
	(void)cb_arg;
}

static void
queue_free(struct xnvme_queue_core *qc)
{
	xnvme_plat_aligned_free(qc->q.pool);
	xnvme_plat_aligned_free(qc);
}

int
xnvme_queue_init(struct xnvme_dev *dev, uint16_t capacity, int opts, struct xnvme_queue **queue)
{
	struct xnvme_queue_core *qc;
	struct xnvme_queue *q;
	uint32_t npool = (uint32_t)capacity + 1;
	int err;

	xnvme_last_error_set("%s", "");
	if (!dev || !queue || !capacity || capacity > XNVME_QUEUE_CAPACITY_MAX) {
		xnvme_last_error_set("xnvme: queue capacity %u out of range [1, %d], or no device",
				     capacity, XNVME_QUEUE_CAPACITY_MAX);
		return -EINVAL;
	}
	*queue = NULL;
	/* the queue's read/write take the transfer sizes from the geometry: settled now, so that
	 * no command waits for identification (a failure leaves it zero, commands then fail) */
	xnvme_dev_settle(dev);

	/* the mechanism's state follows the queue (lib/xnvme_queue.h) */
	qc = xnvme_plat_aligned_alloc(64, sizeof(*qc) + dev->async->state_nbytes);
	if (!qc) {
		return -ENOMEM;
	}
	memset(qc, 0, sizeof(*qc) + dev->async->state_nbytes);
	q = &qc->q;
	q->state = dev->async->state_nbytes ? xnvme_be_queue_state(q) : NULL;
	/* contexts are 128 bytes: cache-line aligned, no context straddles two lines */
	q->pool = xnvme_plat_aligned_alloc(64, npool * sizeof(*q->pool));
	if (!q->pool) {
		queue_free(qc);
		return -ENOMEM;
	}
	memset(q->pool, 0, npool * sizeof(*q->pool));

	q->dev = dev;
	q->capacity = capacity;
	q->opts = opts;
	qc->async = dev->async;
	qc->cmd_io = dev->async->cmd_io;
	qc->poke = dev->async->poke;
	qc->last_idx = capacity;
	for (uint32_t i = 0; i < npool; ++i) {
		struct xnvme_cmd_ctx *ctx = &q->pool[i];

		ctx->dev = dev;
		ctx->opts = XNVME_CMD_ASYNC;
		ctx->async.queue = q;
		ctx->async.cb = cb_noop;
		/* linked in pool order: the first get returns pool[0] */
		xnvme_queue_ctx_link_set(ctx, i + 1 < npool ? (uintptr_t)&q->pool[i + 1]
							    : XNVME_QUEUE_CTX_END);
	}
	qc->free_head = q->pool;

	err = qc->async->init(q, opts);
	if (err) {
		if (!xnvme_last_error()[0]) { /* keep the mechanism's own reason when it gave one */
			xnvme_last_error_set("%s: async mechanism '%s' could not set up a queue of "
					     "capacity %u: %s",
					     dev->be->name, qc->async->name, capacity,
					     strerror(-err));
		}
		queue_free(qc);
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
	if (queue->nested) {
		return -EDEADLK; /* a poke of this queue is still walking it */
	}
	err = xnvme_queue_core(queue)->async->term(queue);
	queue_free(xnvme_queue_core(queue));
	return err;
}

/*
 * The poke as a tail call: `nested` is counted around each callback (xnvme_queue_complete()),
 * so that many pokes are in progress when this one starts. The mechanism's poke makes the nesting
 * bound and nothing-outstanding tests (rule 5 of lib/be/xnvme_be.h).
 */
int
xnvme_queue_poke(struct xnvme_queue *queue, uint32_t max)
{
	if (XNVME_BE_UNLIKELY(!queue)) {
		return -EINVAL;
	}
	return xnvme_queue_core(queue)->poke(queue, max);
}

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/*
 * Pokes until nothing is outstanding or, with `bounded`, `timeout_us` have passed. From a
 * callback of the queue it would spin forever: the commands of the pokes it is nested in are
 * counted as outstanding and only those pokes can deliver them.
 */
static int
queue_drain(struct xnvme_queue *queue, bool bounded, uint64_t timeout_us)
{
	uint64_t deadline = 0;
	int acc = 0;

	if (!queue) {
		return -EINVAL;
	}
	if (queue->nested) {
		return -EDEADLK;
	}
	if (bounded) {
		uint64_t now = now_us();

		deadline = timeout_us > UINT64_MAX - now ? UINT64_MAX : now + timeout_us;
	}
	while (queue->outstanding) {
		int err = xnvme_queue_core(queue)->poke(queue, 0);

		if (err < 0) {
			return err;
		}
		acc += err;
		if (bounded && queue->outstanding && now_us() >= deadline) {
			return -ETIMEDOUT;
		}
	}
	return acc;
}

int
xnvme_queue_drain(struct xnvme_queue *queue)
{
	return queue_drain(queue, false, 0);
}

int
xnvme_queue_drain_timeout(struct xnvme_queue *queue, uint64_t timeout_us)
{
	int ret, opts;

	if (!queue) {
		return -EINVAL;
	}
	opts = queue->opts; /* restored as found: a nested call must not clear an outer one's */
	queue->opts |= XNVME_BE_QUEUE_DEADLINE; /* idle waits keep their base bound */
	ret = queue_drain(queue, true, timeout_us);
	queue->opts = opts;
	return ret;
}

int
xnvme_queue_wait(struct xnvme_queue *queue)
{
	return xnvme_queue_drain(queue);
}

/* Out of line so that the per-I/O path of get_cmd_ctx needs no stack frame */
__attribute__((noinline, cold)) static struct xnvme_cmd_ctx *
get_cmd_ctx_fail(int err)
{
	errno = err;
	return NULL;
}

struct xnvme_cmd_ctx *
xnvme_queue_get_cmd_ctx(struct xnvme_queue *queue)
{
	struct xnvme_cmd_ctx **head, *ctx;

	if (XNVME_BE_UNLIKELY(!queue)) {
		return get_cmd_ctx_fail(EINVAL);
	}
	head = &xnvme_queue_core(queue)->free_head;
	ctx = *head;
	if (XNVME_BE_UNLIKELY((uintptr_t)ctx == XNVME_QUEUE_CTX_END)) {
		return get_cmd_ctx_fail(ENOMEM);
	}
	*head = (struct xnvme_cmd_ctx *)xnvme_queue_ctx_link(ctx);
	xnvme_queue_ctx_link_set(ctx, XNVME_QUEUE_CTX_TAKEN);
	return ctx;
}

/* The same function under its second public name: no extra call on the per-I/O path */
#if defined(__ELF__)
struct xnvme_cmd_ctx *
xnvme_cmd_ctx_from_queue(struct xnvme_queue *queue)
	__attribute__((alias("xnvme_queue_get_cmd_ctx")));
#else
struct xnvme_cmd_ctx *
xnvme_cmd_ctx_from_queue(struct xnvme_queue *queue)
{
	return xnvme_queue_get_cmd_ctx(queue);
}
#endif

int
xnvme_queue_put_cmd_ctx(struct xnvme_queue *queue, struct xnvme_cmd_ctx *ctx)
{
	struct xnvme_queue_core *qc;
	uintptr_t off, idx;

	if (XNVME_BE_UNLIKELY(!queue)) {
		return -EINVAL;
	}
	qc = xnvme_queue_core(queue);
	/*
	 * O(1): a context of this pool (address range and alignment) that is taken, not on the
	 * free list. The offset rotated right by log2(128) is the index for an aligned context,
	 * and has high bits set for a misaligned one; NULL and addresses below the pool wrap
	 * around. So one compare with the capacity checks all three, and the link word is read
	 * only inside the pool.
	 */
	off = (uintptr_t)ctx - (uintptr_t)queue->pool;
	idx = (off >> CTX_SHIFT) | (off << (sizeof(off) * CHAR_BIT - CTX_SHIFT));
	if (XNVME_BE_UNLIKELY(idx > qc->last_idx ||
			      xnvme_queue_ctx_link(ctx) != XNVME_QUEUE_CTX_TAKEN)) {
		return -EINVAL;
	}
	xnvme_queue_ctx_link_set(ctx, (uintptr_t)qc->free_head);
	qc->free_head = ctx;
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
	return xnvme_queue_core(queue)->async->get_completion_fd(queue);
}
