/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Queues for asynchronous commands: a pool of capacity + 1 pre-bound command contexts, and
 * poke/drain to reap completions, whose callbacks run on the caller's thread inside poke.
 */
#ifndef LIBXNVME_QUEUE_H
#define LIBXNVME_QUEUE_H

#include <stdint.h>
#include "libxnvme_util.h"

#ifdef __cplusplus
extern "C" {
#endif

struct xnvme_dev;
struct xnvme_cmd_ctx;

/** Opaque queue */
struct xnvme_queue;

/** Per-queue io_uring modes, combined with the device options poll_io/poll_sq */
enum xnvme_queue_opts {
	XNVME_QUEUE_IOPOLL = 0x1, ///< completion polling
	XNVME_QUEUE_SQPOLL = 0x2, ///< kernel submission-queue polling
};

/**
 * Creates a queue of 1..4096 outstanding commands.
 * @return 0, or -EINVAL (bad capacity or device), -ENOMEM, or the mechanism's error
 */
int
xnvme_queue_init(struct xnvme_dev *dev, uint16_t capacity, int opts, struct xnvme_queue **queue);

uint32_t
xnvme_queue_get_capacity(struct xnvme_queue *queue);

/** Submitted but not yet reaped commands */
uint32_t
xnvme_queue_get_outstanding(struct xnvme_queue *queue);

/** Frees the queue without draining it; NULL gives -EINVAL */
int
xnvme_queue_term(struct xnvme_queue *queue);

/**
 * Reaps up to `max` completions (0: all ready), running their callbacks inside the call.
 * @return the number reaped (0 when nothing is ready, never -EAGAIN), negative only when fatal
 */
int
xnvme_queue_poke(struct xnvme_queue *queue, uint32_t max);

/** Pokes until nothing is outstanding; @return total reaped or the first negative error */
int
xnvme_queue_drain(struct xnvme_queue *queue);

/** Deprecated alias of xnvme_queue_drain() */
int
xnvme_queue_wait(struct xnvme_queue *queue);

/** @return a pooled context, or NULL with errno ENOMEM when all capacity + 1 are taken */
struct xnvme_cmd_ctx *
xnvme_queue_get_cmd_ctx(struct xnvme_queue *queue);

/** Returns a context to the pool; callable from completion callbacks */
int
xnvme_queue_put_cmd_ctx(struct xnvme_queue *queue, struct xnvme_cmd_ctx *ctx);

typedef void (*xnvme_queue_cb)(struct xnvme_cmd_ctx *ctx, void *opaque);

/** Sets the callback and argument of every pooled context */
int
xnvme_queue_set_cb(struct xnvme_queue *queue, xnvme_queue_cb cb, void *cb_arg);

/** @return an fd readable while completions are pending, or -ENOSYS */
int
xnvme_queue_get_completion_fd(struct xnvme_queue *queue);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_QUEUE_H */
