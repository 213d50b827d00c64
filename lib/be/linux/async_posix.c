// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "posix": POSIX AIO (aio_read/aio_write/aio_fsync, no notification); poke
 * checks the outstanding requests with aio_error without blocking. READ/WRITE of the NVM and
 * file command sets and both FLUSH opcodes; other opcodes complete with Invalid Command Opcode.
 * Partial transfers are continued with a new request, as psync continues them with a loop.
 *
 * Vectored submissions with more than one iovec are refused with -ENOTSUP: POSIX AIO has no
 * vectored requests, and splitting one command into several would need per-command state the
 * pool does not have.
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include "../common/async_stubs.h"
#include "be_linux.h"
#include "be_linux_rw.h"
#include "poke_wait.h"

enum paio_phase {
	PAIO_PH_READY = 1, ///< cpl is final; complete at the next poke
	PAIO_PH_INFLIGHT,  ///< the aiocb belongs to the AIO implementation
	PAIO_PH_RESTART,   ///< (re)submission was refused with EAGAIN; retried by poke
};

enum paio_op {
	PAIO_OP_NONE = 0,
	PAIO_OP_READ,
	PAIO_OP_WRITE,
	PAIO_OP_FSYNC,
};

/* The operation of each xnvme_be_linux_rw_decode() verdict */
static const enum paio_op paio_op_of[] = {
	[XNVME_BE_LINUX_RW_READ] = PAIO_OP_READ,
	[XNVME_BE_LINUX_RW_WRITE] = PAIO_OP_WRITE,
	[XNVME_BE_LINUX_RW_FLUSH] = PAIO_OP_FSYNC,
	[XNVME_BE_LINUX_RW_FAILED] = PAIO_OP_NONE,
};

struct paio_entry {
	struct aiocb cb;
	char *buf;
	size_t nbytes;
	size_t done;
	off_t off;
	enum paio_op op;
	enum paio_phase phase;
	uint32_t next; ///< pool index of the next context a poke delivers (PAIO_NONE: last)
};

#define PAIO_NONE UINT32_MAX

struct paio_state {
	int fd;
	bool direct;
	uint32_t nlive;
	uint32_t *live;             ///< pool indices of pending commands, in submission order
	struct paio_entry *entries; ///< indexed by xnvme_queue_ctx_idx()
	uint32_t nidle;             ///< pokes in a row that delivered nothing
	struct xnvme_be_linux_pwait pwait; ///< bound of the next idle wait (poke_wait.h)
	bool wait;                         ///< idle pokes may wait in aio_suspend()
};

/*
 * Hands the remainder of `e` to the AIO implementation; 0 or a positive errno. The aiocb was
 * zeroed and given the descriptor and SIGEV_NONE at init (paio_init()): the implementation
 * writes only its private fields and aio_lio_opcode, so a request sets just the transfer.
 */
static int
paio_start(struct paio_entry *e)
{
	int ret;

	e->cb.aio_buf = e->buf ? e->buf + e->done : NULL;
	e->cb.aio_nbytes = e->nbytes - e->done;
	e->cb.aio_offset = e->off + (off_t)e->done;

	switch (e->op) {
	case PAIO_OP_READ:
		ret = aio_read(&e->cb);
		break;
	case PAIO_OP_WRITE:
		ret = aio_write(&e->cb);
		break;
	default:
		ret = aio_fsync(O_SYNC, &e->cb);
		break;
	}
	if (ret) {
		return errno;
	}
	e->phase = PAIO_PH_INFLIGHT;
	return 0;
}

/* Starts or retries `e`; false when it is done (cpl final) */
static bool
paio_kick(struct xnvme_cmd_ctx *ctx, struct paio_entry *e)
{
	int err = paio_start(e);

	if (!err) {
		return true;
	}
	if (err == EAGAIN) {
		e->phase = PAIO_PH_RESTART;
		return true;
	}
	xnvme_cpl_set_errno(ctx, err);
	e->phase = PAIO_PH_READY;
	return false;
}

/* Collects a finished request; true when more of the transfer remains in flight */
static inline __attribute__((always_inline)) bool
paio_finish(struct paio_state *state, struct xnvme_cmd_ctx *ctx, struct paio_entry *e, int err)
{
	ssize_t ret = aio_return(&e->cb);

	e->phase = PAIO_PH_READY;
	if (err) {
		/* an O_DIRECT read continued past an unaligned end of file: that is EOF */
		if (err == EINVAL && state->direct && e->op == PAIO_OP_READ && e->done) {
			ctx->cpl.result = e->done;
			return false;
		}
		xnvme_cpl_set_errno(ctx, err);
		return false;
	}
	if (e->op == PAIO_OP_FSYNC) {
		return false;
	}
	e->done += (size_t)ret;
	if (ret > 0 && e->done < e->nbytes) {
		return paio_kick(ctx, e);
	}
	ctx->cpl.result = e->done; /* short at end of file is a success */
	return false;
}

/*
 * glibc's aio_error() takes the global AIO mutex that its helper threads need to finish a
 * request, so calling it on every poke of a spinning caller delays the very completion it waits
 * for. The status word of the aiocb is stored under that mutex when the request finishes: a
 * lock-free look at it tells whether aio_error() (which then synchronises) is worth calling.
 */
static inline bool
paio_maybe_done(const struct aiocb *cb)
{
#ifdef __GLIBC__
	return __atomic_load_n(&cb->__error_code, __ATOMIC_RELAXED) != EINPROGRESS;
#else
	(void)cb;
	return true;
#endif
}

/*
 * The second top-level poke in a row that finds nothing: the caller waits for a completion,
 * so wait in aio_suspend() (at most XNVME_BE_POKE_WAIT_NS, more on a slow device:
 * poke_wait.h) like fio's posixaio engine instead of spinning against glibc's helper threads.
 * True when it waited.
 *
 * At most PAIO_SUSPEND_MAX requests are listed, from position nlive / PAIO_SUSPEND_DEPTH of
 * the live list on (submission order): glibc runs the requests of one descriptor in that order
 * on one helper thread, so with fewer than PAIO_SUSPEND_DEPTH outstanding this waits for the
 * oldest, and with more it sleeps until about 1 / PAIO_SUSPEND_DEPTH of them have finished
 * (each wake-up delivers that many; the rest keep the helper thread busy, so throughput is
 * kept, and a completion is delivered at most that many service times later). Waking once per
 * completion cost a futex wake and a context switch per I/O at QD 64, several times what fio's
 * posixaio engine spends (it lists 8 arbitrary requests in flight). glibc's aio_suspend() also
 * registers a waiter on every listed request under its global mutex, finding each by a walk
 * of the descriptor's queue: a list of all outstanding costs O(QD^2) steps under the mutex the
 * helper thread needs. Where requests finish out of order (other C libraries) the wait is
 * still bounded.
 */
#define PAIO_SUSPEND_MAX 4
#define PAIO_SUSPEND_DEPTH 8

static __attribute__((noinline)) bool
paio_idle_wait(struct xnvme_queue *queue, struct paio_state *state)
{
	const struct aiocb *susp[PAIO_SUSPEND_MAX];
	struct timespec ts = {0, 0};
	uint32_t from = state->nlive / PAIO_SUSPEND_DEPTH;
	int cnt = 0, ret;

	if (!state->wait || queue->nested || state->nidle++ < 1) {
		return false;
	}
	for (uint32_t i = 0; i < state->nlive; ++i) {
		struct paio_entry *e = &state->entries[state->live[i]];

		if (e->phase != PAIO_PH_INFLIGHT) {
			return false; /* a restart or a ready command: poke again at once */
		}
		if (i >= from && cnt < PAIO_SUSPEND_MAX) {
			susp[cnt++] = &e->cb;
		}
	}
	if (!cnt) {
		return false;
	}
	ts.tv_nsec = xnvme_be_linux_pwait_begin(&state->pwait, queue);
	ret = aio_suspend(susp, cnt, &ts);
	xnvme_be_linux_pwait_end(&state->pwait, ret && errno == EAGAIN);
	return true;
}

static __attribute__((noinline)) int
paio_poke_list(struct xnvme_queue *queue, struct paio_state *state, uint32_t max)
{
	uint32_t n = 0, keep = 0, nlive = state->nlive, first = PAIO_NONE, *link = &first;
	bool waited = false;

again:
	for (uint32_t i = 0; i < nlive; ++i) {
		uint32_t idx = state->live[i];
		struct paio_entry *e = &state->entries[idx];
		struct xnvme_cmd_ctx *ctx = &queue->pool[idx];
		bool pending;

		if (max && n >= max) {
			state->live[keep++] = idx;
			continue;
		}
		switch (e->phase) {
		case PAIO_PH_INFLIGHT: {
			int err;

			if (!paio_maybe_done(&e->cb)) {
				pending = true;
				break;
			}
			err = aio_error(&e->cb);

			pending = err == EINPROGRESS || paio_finish(state, ctx, e, err);
			break;
		}
		case PAIO_PH_RESTART:
			pending = paio_kick(ctx, e);
			break;
		default:
			pending = false;
			break;
		}
		if (pending) {
			state->live[keep++] = idx;
		} else {
			/* linked through the entries: this poke's own list, no shared scratch */
			e->next = PAIO_NONE;
			*link = idx;
			link = &e->next;
			n++;
		}
	}
	state->nlive = keep;
	if (!n && !waited && keep && paio_idle_wait(queue, state)) {
		waited = true;
		keep = 0;
		nlive = state->nlive;
		goto again;
	}
	if (n) {
		state->nidle = 0;
	}

	/* After the live list is consistent: callbacks may submit, which appends to it, and
	 * poke, which takes only what is still live */
	while (first != PAIO_NONE) {
		uint32_t idx = first;

		first = state->entries[idx].next;
		xnvme_queue_complete(queue, &queue->pool[idx]);
	}
	return (int)n;
}

/*
 * One command pending (queue depth 1) and finished: delivered without walking and compacting
 * the live list. Anything else, a command still in flight included, takes paio_poke_list().
 */
static int
paio_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct paio_state *state = queue->state;

	if (XNVME_BE_UNLIKELY(xnvme_be_poke_skip(queue))) {
		return 0;
	}
	if (state->nlive == 1) {
		uint32_t idx = state->live[0];
		struct paio_entry *e = &state->entries[idx];

		if (e->phase == PAIO_PH_INFLIGHT && paio_maybe_done(&e->cb)) {
			struct xnvme_cmd_ctx *ctx = &queue->pool[idx];
			int err = aio_error(&e->cb);

			/* a continued transfer is in flight again: the list walk sees to it */
			if (err != EINPROGRESS && !paio_finish(state, ctx, e, err)) {
				state->nlive = 0; /* before the callback: it may submit */
				state->nidle = 0;
				xnvme_queue_complete(queue, ctx);
				return 1;
			}
		}
	}
	return paio_poke_list(queue, state, max);
}

static int
paio_submit(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes)
{
	struct xnvme_queue *queue = ctx->async.queue;
	struct paio_state *state = queue->state;
	uint32_t idx = xnvme_queue_ctx_idx(queue, ctx);
	uint64_t off = 0;
	size_t len = 0;
	struct paio_entry *e;
	int rw;

	if (idx > queue->capacity) {
		return xnvme_be_cmd_refused(ctx, -EINVAL); /* not a context of this queue's pool */
	}
	if (state->nlive > queue->capacity) {
		return xnvme_be_cmd_refused(ctx, -EBUSY);
	}
	/* A failed decoding leaves its status in cpl; other opcodes complete as invalid */
	rw = xnvme_be_linux_rw_decode(ctx, dbuf_nbytes, &off, &len);
	if (rw < 0) {
		xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
				     XNVME_BE_LINUX_SC_INVALID_OPCODE);
	}
	e = &state->entries[idx];
	e->buf = dbuf;
	e->nbytes = len;
	e->done = 0;
	e->off = (off_t)off;
	e->op = rw < 0 ? PAIO_OP_NONE : paio_op_of[rw];
	e->phase = PAIO_PH_READY;

	if (!dbuf && e->nbytes && !xnvme_cmd_ctx_cpl_status(ctx)) {
		xnvme_cpl_set_errno(ctx, EFAULT);
	}
	/* Failed decoding or nothing to move: complete at the next poke with cpl as it is */
	if (!xnvme_cmd_ctx_cpl_status(ctx) && (e->op == PAIO_OP_FSYNC || e->nbytes)) {
		paio_kick(ctx, e);
	}
	state->live[state->nlive++] = idx;
	return 0;
}

static int
paio_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	    size_t mbuf_nbytes)
{
	(void)mbuf; /* no metadata on files and these block devices */
	(void)mbuf_nbytes;
	return paio_submit(ctx, dbuf, dbuf_nbytes);
}

static int
paio_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	     void *mbuf, size_t mbuf_nbytes)
{
	(void)dvec_nbytes;
	(void)mbuf;
	(void)mbuf_nbytes;

	if (dvec_cnt > 1) {
		return xnvme_be_cmd_refused(ctx, -ENOTSUP);
	}
	return paio_submit(ctx, dvec_cnt ? dvec[0].iov_base : NULL, dvec_cnt ? dvec[0].iov_len : 0);
}

/* Waits out requests the AIO implementation still owns, so their aiocbs can be freed */
static void
paio_abandon(struct paio_state *state)
{
	for (uint32_t i = 0; i < state->nlive; ++i) {
		struct paio_entry *e = &state->entries[state->live[i]];
		const struct aiocb *list[1] = {&e->cb};

		if (e->phase != PAIO_PH_INFLIGHT) {
			continue;
		}
		/* only this request: other queues may have requests on the same fd */
		aio_cancel(state->fd, &e->cb);
		while (aio_error(&e->cb) == EINPROGRESS) {
			aio_suspend(list, 1, NULL);
		}
		aio_return(&e->cb);
	}
	state->nlive = 0;
}

static int
paio_term(struct xnvme_queue *queue)
{
	struct paio_state *state = queue->state;

	if (state) {
		paio_abandon(state);
		free(state->entries);
		free(state->live);
		free(state);
	}
	queue->state = NULL;
	return 0;
}

static int
paio_init(struct xnvme_queue *queue, int opts)
{
	size_t nctx = (size_t)queue->capacity + 1;
	const struct xnvme_be_linux_state *lstate;
	struct paio_state *state;
	int err;

	(void)opts;

	err = xnvme_be_linux_queue_state(queue, sizeof(*state), &lstate);
	if (err) {
		return err;
	}
	state = queue->state;
	state->fd = lstate->fd;
	state->direct = lstate->direct;
	state->live = calloc(nctx, sizeof(*state->live));
	state->wait = !xnvme_be_queue_poke_spin(opts);
	state->entries = calloc(nctx, sizeof(*state->entries));
	if (!state->live || !state->entries) {
		paio_term(queue);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nctx; ++i) {
		state->entries[i].cb.aio_fildes = state->fd;
		state->entries[i].cb.aio_sigevent.sigev_notify = SIGEV_NONE;
	}
	return 0;
}

const struct xnvme_be_async xnvme_be_linux_async_posix = {
	.name = "posix",
	.check_support = xnvme_be_linux_check_file_or_block,
	.init = paio_init,
	.term = paio_term,
	.poke = paio_poke,
	.cmd_io = paio_cmd_io,
	.cmd_iov = paio_cmd_iov,
	.get_completion_fd = xnvme_be_async_no_completion_fd,
};
