// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "libaio": Linux native AIO on the handle's file descriptor. One AIO context
 * per queue (io_setup with the queue capacity), one iocb per pooled context. NVM READ/WRITE
 * (byte offset slba << ssw, length (nlb + 1) << ssw, never beyond the caller's buffer: else
 * Invalid Field), the file opcodes READ/WRITE (byte offset slba, length as passed), the
 * vectored forms for vectors, IOCB_CMD_FSYNC for both FLUSH opcodes; other opcodes are
 * refused with -ENOSYS, metadata with -ENOTSUP. The io_uring options (poll_io, poll_sq,
 * register_*) have no meaning here: the kernel's AIO cannot poll (it drops RWF_HIPRI).
 *
 * Submission: io_submit inside the submitting call, one iocb at a time. Deferring to poke
 * would batch several iocbs per system call, but AIO is only asynchronous for O_DIRECT on
 * block-backed storage and completes everything else inside io_submit, so a deferred submit
 * adds a poke's worth of latency to every command for a saving of one system call (~0.2 us)
 * per batch, against 3-70 us per I/O. The kernel copies the iocb and any vector during
 * io_submit, so callers' vectors need not outlive the call. io_submit refusing with EAGAIN
 * (kernel short of slots) is returned as -EAGAIN (nothing queued, try again after poking);
 * any other refusal is the command's completion: the errno folds into cpl (sct 7) and the
 * callback runs at the next poke. O_DIRECT alignment errors arrive as completions with
 * -EINVAL and fold the same way.
 *
 * Completion: poke polls with io_getevents and a zero timeout (libaio answers that from the
 * user-mapped ring without a system call when nothing is ready) and returns 0 when nothing
 * is ready; it never blocks. Blocking is offered through xnvme_queue_get_completion_fd(): an
 * eventfd that every iocb signals (IOCB_FLAG_RESFD), created with the queue so that commands
 * in flight when the application asks for it are covered too. The application reads the fd
 * to clear it, then pokes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include "../common/async_stubs.h"
#include "be_linux.h"
#include "be_linux_rw.h"
#include "xnvme_config.h"

#ifdef XNVME_HAVE_LIBAIO
#include <libaio.h>

/* Room to trim a vector that is longer than its command (IOV_MAX: what the kernel accepts) */
#define LA_IOV_SCRATCH 1024

struct la_state {
	io_context_t aio;
	int fd;
	int efd;
	uint32_t nready;
	struct xnvme_cmd_ctx **ready; ///< completed without reaching the kernel
	struct xnvme_cmd_ctx **reap;  ///< poke's scratch
	struct io_event *events;
	struct iocb *iocbs;           ///< per pooled context, indexed by xnvme_queue_ctx_idx()
	struct iovec *scratch;        ///< LA_IOV_SCRATCH entries
};

static int
la_check_support(struct xnvme_dev *dev)
{
	return xnvme_be_linux_check_file_or_block_for(dev, "libaio");
}

static int
la_term(struct xnvme_queue *queue)
{
	struct la_state *state = queue->state;

	if (state) {
		/* waits for requests in flight: their buffers may be freed after term */
		if (state->aio) {
			io_destroy(state->aio);
		}
		if (state->efd >= 0) {
			close(state->efd);
		}
		free(state->scratch);
		free(state->iocbs);
		free(state->events);
		free(state->reap);
		free(state->ready);
		free(state);
	}
	queue->state = NULL;
	return 0;
}

static int
la_init(struct xnvme_queue *queue, int opts)
{
	size_t nctx = (size_t)queue->capacity + 1;
	const struct xnvme_be_linux_state *lstate;
	struct la_state *state;
	int err;

	(void)opts; /* IOPOLL/SQPOLL are io_uring modes */

	err = xnvme_be_linux_queue_state(queue, sizeof(*state), &lstate);
	if (err) {
		return err;
	}
	state = queue->state;
	state->fd = lstate->fd;
	state->efd = -1;
	state->ready = calloc(nctx, sizeof(*state->ready));
	state->reap = calloc(nctx, sizeof(*state->reap));
	state->events = calloc(nctx, sizeof(*state->events));
	state->iocbs = calloc(nctx, sizeof(*state->iocbs));
	state->scratch = calloc(LA_IOV_SCRATCH, sizeof(*state->scratch));
	if (!state->ready || !state->reap || !state->events || !state->iocbs || !state->scratch) {
		la_term(queue);
		return -ENOMEM;
	}
	state->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (state->efd < 0) {
		err = -errno;
		fprintf(stderr, "# xnvme_queue_init(libaio): eventfd: %s\n", strerror(-err));
		la_term(queue);
		return err;
	}
	err = io_setup((int)queue->capacity, &state->aio);
	if (err) {
		state->aio = 0;
		fprintf(stderr, "# xnvme_queue_init(libaio): io_setup(%u): %s%s\n",
			queue->capacity, strerror(-err),
			err == -EAGAIN ? " (fs.aio-max-nr reached?)" : "");
		la_term(queue);
		return err;
	}
	return 0;
}

static int
la_poke(struct xnvme_queue *queue, uint32_t max)
{
	static struct timespec nowait = {0, 0};
	struct la_state *state = queue->state;
	struct xnvme_cmd_ctx **reap = state->reap;
	uint32_t n = 0, lim;
	int ret;

	lim = (max && max < queue->outstanding) ? max : queue->outstanding;
	while (state->nready && n < lim) {
		reap[n++] = state->ready[--state->nready];
	}
	if (n < lim) {
		ret = io_getevents(state->aio, 0, (long)(lim - n), state->events, &nowait);
		if (__builtin_expect(ret < 0, 0) && ret != -EINTR) {
			fprintf(stderr, "# xnvme_queue_poke(libaio): io_getevents: %s\n",
				strerror(-ret));
			return ret;
		}
		for (int i = 0; i < ret; ++i) {
			struct xnvme_cmd_ctx *ctx = state->events[i].data;

			xnvme_be_linux_rw_cpl(ctx, (long)state->events[i].res);
			reap[n++] = ctx;
		}
	}

	for (uint32_t i = 0; i < n; ++i) {
		xnvme_queue_complete(queue, reap[i]);
	}
	return (int)n;
}

/* Completes `ctx` with cpl as it is, at the next poke */
static int
la_ready(struct la_state *state, struct xnvme_cmd_ctx *ctx)
{
	state->ready[state->nready++] = ctx;
	return 0;
}

static inline int
la_submit(struct la_state *state, struct xnvme_cmd_ctx *ctx, struct iocb *cb)
{
	int ret;

	io_set_eventfd(cb, state->efd);
	cb->data = ctx;
	ret = io_submit(state->aio, 1, &cb);
	if (__builtin_expect(ret == 1, 1)) {
		return 0;
	}
	if (ret == 0 || ret == -EAGAIN || ret == -EINTR) {
		return -EAGAIN; /* nothing queued */
	}
	xnvme_cpl_set_errno(ctx, ret);
	return la_ready(state, ctx);
}

/* The iocb of a context of this queue's pool, or NULL */
static inline struct iocb *
la_iocb(struct xnvme_cmd_ctx *ctx)
{
	struct xnvme_queue *queue = ctx->async.queue;
	uint32_t idx = xnvme_queue_ctx_idx(queue, ctx);

	if (__builtin_expect(idx > queue->capacity, 0)) {
		return NULL;
	}
	return &((struct la_state *)queue->state)->iocbs[idx];
}

static int
la_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	  size_t mbuf_nbytes)
{
	struct la_state *state = ctx->async.queue->state;
	struct iocb *cb = la_iocb(ctx);
	uint64_t off;
	size_t len;
	int rw;

	if (__builtin_expect(mbuf || mbuf_nbytes, 0)) {
		return -ENOTSUP;
	}
	if (__builtin_expect(!cb, 0)) {
		return -EINVAL; /* not a context of this queue's pool */
	}
	rw = xnvme_be_linux_rw_decode(ctx, dbuf_nbytes, &off, &len);
	switch (rw) {
	case XNVME_BE_LINUX_RW_READ:
		io_prep_pread(cb, state->fd, dbuf, len, (long long)off);
		break;
	case XNVME_BE_LINUX_RW_WRITE:
		io_prep_pwrite(cb, state->fd, dbuf, len, (long long)off);
		break;
	case XNVME_BE_LINUX_RW_FLUSH:
		io_prep_fsync(cb, state->fd);
		break;
	case XNVME_BE_LINUX_RW_FAILED:
		return la_ready(state, ctx);
	default:
		return rw;
	}
	return la_submit(state, ctx, cb);
}

static int
la_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	   void *mbuf, size_t mbuf_nbytes)
{
	struct la_state *state = ctx->async.queue->state;
	struct iocb *cb = la_iocb(ctx);
	const struct iovec *vec = dvec;
	size_t total, cnt = dvec_cnt, len;
	uint64_t off;
	int rw;

	(void)dvec_nbytes; /* advisory; the iovec lengths define the transfer (api.md §2.7) */

	if (mbuf || mbuf_nbytes) {
		return -ENOTSUP;
	}
	if (!cb) {
		return -EINVAL;
	}
	total = xnvme_be_linux_iov_total(dvec, dvec_cnt);
	rw = xnvme_be_linux_rw_decode(ctx, total, &off, &len);
	if (rw < 0) {
		return rw;
	}
	if (rw == XNVME_BE_LINUX_RW_FAILED) {
		return la_ready(state, ctx);
	}
	if (rw == XNVME_BE_LINUX_RW_FLUSH) {
		return la_cmd_io(ctx, NULL, 0, NULL, 0);
	}
	if (len < total) {
		/* longer than the command: a trimmed copy, consumed by io_submit below */
		cnt = xnvme_be_linux_iov_trim(state->scratch, LA_IOV_SCRATCH, dvec, dvec_cnt, len);
		vec = state->scratch;
		if (!cnt && len) {
			xnvme_cpl_set_errno(ctx, EINVAL); /* more entries than the kernel takes */
			return la_ready(state, ctx);
		}
	}
	if (cnt <= 1) {
		void *buf = cnt ? vec[0].iov_base : NULL;
		size_t nbytes = cnt ? vec[0].iov_len : 0;

		if (rw == XNVME_BE_LINUX_RW_WRITE) {
			io_prep_pwrite(cb, state->fd, buf, nbytes, (long long)off);
		} else {
			io_prep_pread(cb, state->fd, buf, nbytes, (long long)off);
		}
	} else if (rw == XNVME_BE_LINUX_RW_WRITE) {
		io_prep_pwritev(cb, state->fd, vec, (int)cnt, (long long)off);
	} else {
		io_prep_preadv(cb, state->fd, vec, (int)cnt, (long long)off);
	}
	return la_submit(state, ctx, cb);
}

static int
la_get_completion_fd(struct xnvme_queue *queue)
{
	struct la_state *state = queue->state;

	return state->efd;
}

const struct xnvme_be_async xnvme_be_linux_async_libaio = {
	.name = "libaio",
	.check_support = la_check_support,
	.init = la_init,
	.term = la_term,
	.poke = la_poke,
	.cmd_io = la_cmd_io,
	.cmd_iov = la_cmd_iov,
	.get_completion_fd = la_get_completion_fd,
};

#else /* !XNVME_HAVE_LIBAIO */

static int
la_check_support(struct xnvme_dev *dev)
{
	return xnvme_dev_set_errmsg(dev, -ENOSYS, "built without libaio");
}

static int
la_init(struct xnvme_queue *queue, int opts)
{
	(void)queue;
	(void)opts;
	fprintf(stderr, "# xnvme_queue_init(libaio): built without libaio\n");
	return -ENOSYS;
}

const struct xnvme_be_async xnvme_be_linux_async_libaio =
	XNVME_BE_ASYNC_ABSENT("libaio", la_check_support, la_init);

#endif /* XNVME_HAVE_LIBAIO */
