/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Queues for asynchronous commands: a pool of capacity + 1 pre-bound command contexts, and
 * poke/drain to reap completions, whose callbacks run on the caller's thread inside poke.
 *
 * Threads. A queue and its contexts belong to one thread at a time (use one queue per
 * thread; handing a queue to another thread needs the caller's own synchronisation, e.g. a
 * mutex or a thread join, between the last call of one and the first of the other).
 * - xnvme_queue_init(): thread-safe; any number of threads may create queues on one device.
 * - xnvme_queue_get_capacity(): thread-safe (fixed at init).
 * - every other function here (term, poke, drain, wait, drain_timeout, get_cmd_ctx,
 *   put_cmd_ctx, set_cb, get_outstanding, get_completion_fd), and submitting on the queue's
 *   contexts: not thread-safe on the same queue; never call two of them concurrently on one
 *   queue. Different queues, also of the same device, are independent and may be used
 *   concurrently. The fd of xnvme_queue_get_completion_fd() may be waited on (poll, epoll,
 *   read) from any thread.
 * Callbacks run on the thread that pokes, never on a library thread.
 *
 * NULL. Every function here refuses a NULL queue or context without touching anything:
 * functions returning int give -EINVAL, xnvme_queue_get_cmd_ctx() gives NULL with errno
 * EINVAL, the two getters give 0. The same holds for the command functions of the other
 * headers (xnvme_cmd_pass*, xnvme_nvm_*, ...) given a NULL context.
 *
 * Callbacks. A completion callback may, on its own queue: take and return contexts
 * (xnvme_queue_get_cmd_ctx(), xnvme_queue_put_cmd_ctx()), submit commands, and call
 * xnvme_queue_poke(). A nested poke delivers only completions no enclosing poke has taken;
 * every command gets exactly one callback, whatever the nesting. Nesting is bounded: at most
 * 8 pokes of one queue run inside each other; a poke beyond that returns 0 without reaping,
 * leaving the completions to an enclosing poke or the next top-level one, so do not wait for
 * a command by looping on poke inside a callback.
 * xnvme_queue_drain(), xnvme_queue_wait(), xnvme_queue_drain_timeout() and
 * xnvme_queue_term() on the queue whose callback is running return -EDEADLK: the commands of
 * the enclosing pokes count as outstanding and only those pokes can deliver them.
 *
 * Pool. xnvme_queue_put_cmd_ctx() accepts only a context of this queue's pool that is
 * currently taken; a context put back twice, or one from elsewhere (another queue, the
 * stack), is refused with -EINVAL and the pool is left as it was. The check is O(1).
 *
 * Commands a target cannot execute (an opcode its mechanism does not carry) are accepted by
 * the submission and complete through the callback with the NVMe status SCT 0 / SC 0x01
 * (Invalid Command Opcode), as the synchronous path reports it, on every mechanism that
 * judges commands itself ("nil" performs no I/O and completes everything successfully).
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

/** Per-queue modes: io_uring polling (combined with the device options poll_io/poll_sq) */
enum xnvme_queue_opts {
	XNVME_QUEUE_IOPOLL = 0x1,    ///< completion polling
	XNVME_QUEUE_SQPOLL = 0x2,    ///< kernel submission-queue polling
	XNVME_QUEUE_POKE_SPIN = 0x4, ///< pokes never wait for a completion (see xnvme_queue_poke)
};

/**
 * Creates a queue of 1..4096 outstanding commands (`capacity`, one-based; the pool holds
 * capacity + 1 contexts) into *queue, using the handle's async mechanism. `opts`: 0 or bits of
 * enum xnvme_queue_opts (IOPOLL/SQPOLL honoured by io_uring and io_uring_cmd, POKE_SPIN by the
 * mechanisms whose pokes may wait, ignored by the others). Identifies the device first when
 * that has not happened yet (libxnvme_dev.h, the getters): the queue's commands take their
 * transfer sizes from the geometry. Several threads may create queues on the same device at
 * once; a queue belongs to one thread.
 * @return 0, or -EINVAL (bad capacity, NULL device or `queue`), -ENOMEM, or the mechanism's
 *	   error
 */
int
xnvme_queue_init(struct xnvme_dev *dev, uint16_t capacity, int opts, struct xnvme_queue **queue);

/** @return the capacity, or 0 for NULL */
uint32_t
xnvme_queue_get_capacity(struct xnvme_queue *queue);

/** Submitted commands whose callback has not started yet; 0 for NULL */
uint32_t
xnvme_queue_get_outstanding(struct xnvme_queue *queue);

/**
 * Frees the queue without draining it: outstanding commands get no callback, but requests the
 * kernel holds are waited for, so their buffers may be freed once this returns.
 * @return 0, -EINVAL for NULL, -EDEADLK from a callback of this queue (nothing freed)
 */
int
xnvme_queue_term(struct xnvme_queue *queue);

/**
 * Reaps up to `max` completions (0: all ready), running their callbacks inside the call.
 * Callable from a callback of the queue (see Callbacks above). A poke that finds nothing ready
 * returns 0 at once; on Linux the io_uring, io_uring_cmd, libaio, posix and thrpool mechanisms
 * make the second such poke in a row (not nested in a callback) wait up to 1 ms for a
 * completion instead (thrpool, while its commands only take CPU: for a quarter of the
 * outstanding ones, at most 16), so a caller polling in a loop sleeps rather than spins (on
 * io_uring and io_uring_cmd a poke that submitted commands and reaped none counts as the first
 * such poke, so a submit-then-wait loop sleeps at its second poke). On io_uring, io_uring_cmd,
 * libaio and posix the bound grows on a slow device: each wait that ran out with nothing
 * completed doubles the queue's next one, up to 16 ms, and 16 waits in a row that completions
 * end within a quarter of the bound halve it again (down to 1 ms); inside
 * xnvme_queue_drain_timeout() it stays 1 ms. With 8 or more commands outstanding, posix
 * sleeps until about an eighth of them have finished (glibc runs them in submission order),
 * so each wake-up delivers several. io_uring, io_uring_cmd and libaio keep the bound without a
 * kernel timer per wait: one timer of the bound stays armed across waits until it expires,
 * so a wait may also end before its bound, returning 0 (call poke again). They never wait
 * once xnvme_queue_get_completion_fd() was called (the caller then waits on the fd itself), nor
 * on a queue created with XNVME_QUEUE_POKE_SPIN (callers that poll several queues in turn or
 * run an event loop).
 * @return the number reaped (0 when nothing is ready, never -EAGAIN), -EINVAL for NULL,
 *	   another negative errno only when fatal
 */
int
xnvme_queue_poke(struct xnvme_queue *queue, uint32_t max);

/**
 * Pokes until nothing is outstanding (busy-polls, never sleeps).
 * @return total reaped, the first negative error of a poke, -EINVAL for NULL, -EDEADLK from
 *	   a callback of this queue
 */
int
xnvme_queue_drain(struct xnvme_queue *queue);

/** Deprecated alias of xnvme_queue_drain(); same returns. Thread safety: as xnvme_queue_drain(). */
int
xnvme_queue_wait(struct xnvme_queue *queue);

/**
 * xnvme_queue_drain() bounded in time: pokes until nothing is outstanding or `timeout_us`
 * microseconds (CLOCK_MONOTONIC) have passed; 0 pokes once. Its pokes wait at most 1 ms each
 * (see xnvme_queue_poke()), so it returns at most about 1 ms after the deadline. On -ETIMEDOUT nothing is lost:
 * the commands not yet completed stay outstanding and a later poke or drain delivers them
 * (completions reaped before the timeout have had their callbacks). Not in xNVMe 0.7.5.
 * @return total reaped, -ETIMEDOUT, the first negative error of a poke, -EINVAL for NULL,
 *	   -EDEADLK from a callback of this queue
 */
int
xnvme_queue_drain_timeout(struct xnvme_queue *queue, uint64_t timeout_us);

/**
 * @return a pooled context, or NULL with errno ENOMEM when all capacity + 1 are taken (EINVAL
 *	   for a NULL queue). Callable from callbacks.
 */
struct xnvme_cmd_ctx *
xnvme_queue_get_cmd_ctx(struct xnvme_queue *queue);

/**
 * Returns a taken context to the pool; callable from completion callbacks.
 * @return 0, or -EINVAL for NULL, a context of no slot of this pool, or one already returned
 */
int
xnvme_queue_put_cmd_ctx(struct xnvme_queue *queue, struct xnvme_cmd_ctx *ctx);

typedef void (*xnvme_queue_cb)(struct xnvme_cmd_ctx *ctx, void *opaque);

/**
 * Sets the callback and argument of every pooled context (taken ones included); a NULL `cb`
 * installs one that does nothing. @return 0, or -EINVAL for NULL
 */
int
xnvme_queue_set_cb(struct xnvme_queue *queue, xnvme_queue_cb cb, void *cb_arg);

/**
 * An fd to wait on (poll, epoll, an event loop) until a poke has something to do; poke when it
 * is readable. Mechanism notes:
 * - "io_uring", "io_uring_cmd", "libaio", "vfio": an eventfd owned by the queue; the caller
 *   reads it (8 bytes, non-blocking) to clear it, then pokes. For every other fd the caller
 *   only pokes: the library consumes the readiness.
 * - "tcp" (NVMe/TCP): an epoll fd, made on the first call and closed by xnvme_queue_term().
 *   Commands go out at a poke: poke once after submitting, then wait. Readable when the socket
 *   has input, when queued PDUs can be sent, when a poke stopped by `max` left received
 *   completions behind, and, with a command timeout (opts.command_timeout), shortly after the
 *   earliest outstanding command's deadline (two ticks of CLOCK_MONOTONIC_COARSE plus 1 ms,
 *   about 10 ms). So a waiter without a timeout of its own (poll(fd, -1)) wakes when a target
 *   goes silent, and the poke that follows completes every outstanding command of the queue
 *   exactly once with status type 7, sc ETIMEDOUT; the queue then refuses new commands with
 *   -ENOTCONN. It may also wake once with nothing due (a deadline of commands that completed
 *   since); that poke returns 0. Keep Alive needs no poke (a thread of the handle sends it).
 * - "rdma" (NVMe/RDMA): the queue's completion channel fd (ibv_comp_channel). Commands go out
 *   at a poke: poke once after submitting (and after the first call), then wait. Readable when
 *   a completion arrived after a poke that left none behind: a poke that `max` stopped with
 *   completed commands undelivered does not make it readable, so poke until a poke returns
 *   fewer than `max` before waiting. A target that disconnects, a device being removed, and,
 *   with a command timeout, commands outstanding with no completion for longer than it wake
 *   the fd too; the poke that follows completes every outstanding command once with status
 *   type 7 (sc ECONNRESET, ENODEV, ETIMEDOUT) and the queue refuses new ones (-ENOTCONN).
 * @return an fd readable while completions are pending, -ENOSYS, or -EINVAL for NULL
 */
int
xnvme_queue_get_completion_fd(struct xnvme_queue *queue);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_QUEUE_H */
