// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "io_uring": one ring per queue, sized to the queue capacity, on the
 * handle's file descriptor (regular files and block devices). NVM READ/WRITE (byte offset
 * slba << ssw, length (nlb + 1) << ssw, never beyond the caller's buffer: else Invalid Field),
 * the file opcodes READ/WRITE (byte offset slba, length as passed), READV/WRITEV for vectors
 * of more than one entry, FSYNC for both FLUSH opcodes. Other opcodes are refused with
 * -ENOSYS, metadata with -ENOTSUP. Completions: res < 0 folds the errno into cpl (sct 7), else
 * cpl.result is the byte count (a short transfer is a success).
 *
 * Submission only fills an SQE (no allocation, lock or system call); poke submits and reaps
 * (be_linux_uring.h: batching, setup flags, transient errors). A command the decoding fails
 * (Invalid Field, geometry error) still completes through the ring, as a NOP, with its status
 * preset in cpl.
 *
 * Vectors: up to LU_IOV_INLINE entries are copied into per-command storage, so the caller's
 * array may be reused as soon as the submission returns; longer arrays are handed to the
 * kernel as they are and must stay valid until the command's callback runs.
 *
 * opts.register_files (and SQPOLL) register the fd and use IOSQE_FIXED_FILE.
 * opts.register_buffers is refused at queue init with -ENOTSUP: the buffers are the caller's
 * and not known up front, and registering them lazily by address is unsound (a freed and
 * re-mapped range would keep pointing at the pinned old pages).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "be_linux.h"
#include "be_linux_rw.h"
#include "be_linux_uring.h"

#ifdef XNVME_HAVE_LIBURING

#define LU_IOV_INLINE 8

int xnvme_be_linux_uring_fault_n;
int xnvme_be_linux_uring_fault_err;

/* ---------------------------------------------------------------------------------------- */
/* Shared with io_uring_cmd: capability probe, ring setup and teardown, slow paths            */
/* ---------------------------------------------------------------------------------------- */

static struct xnvme_be_linux_uring_caps uring_caps;
static pthread_once_t uring_caps_once = PTHREAD_ONCE_INIT;

/* 0 when the kernel sets up a one-entry ring with `flags`, else the negative errno */
static int
caps_try(unsigned int flags)
{
	struct io_uring_params p;
	int fd;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	fd = io_uring_setup(1, &p);
	if (fd < 0) {
		return fd;
	}
	close(fd);
	return 0;
}

static void
caps_probe(void)
{
	struct xnvme_be_linux_uring_caps *c = &uring_caps;
	struct io_uring_probe *probe;
	int err;

	err = caps_try(0);
	if (err) {
		c->err = -err;
		return;
	}
	c->ring = true;
	c->submit_all = !caps_try(IORING_SETUP_SUBMIT_ALL);
	c->coop = !caps_try(IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG);
	c->defer = !caps_try(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
			     IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_R_DISABLED);
	c->single_issuer = !caps_try(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_R_DISABLED);
	c->big = !caps_try(IORING_SETUP_SQE128 | IORING_SETUP_CQE32);

	probe = io_uring_get_probe();
	if (probe) {
		c->op_uring_cmd = io_uring_opcode_supported(probe, IORING_OP_URING_CMD);
		c->op_read_write = io_uring_opcode_supported(probe, IORING_OP_READ) &&
				   io_uring_opcode_supported(probe, IORING_OP_WRITE);
		io_uring_free_probe(probe);
	}
}

const struct xnvme_be_linux_uring_caps *
xnvme_be_linux_uring_caps(void)
{
	pthread_once(&uring_caps_once, caps_probe);
	return &uring_caps;
}

enum uring_taskrun {
	URING_TASKRUN_DEFER = 0,
	URING_TASKRUN_COOP,
	URING_TASKRUN_OFF,
};

static int
uring_taskrun_mode(enum uring_taskrun *mode)
{
	const char *env = getenv("XNVME_QUEUE_TASKRUN");

	if (!env || !*env || !strcmp(env, "defer")) {
		*mode = URING_TASKRUN_DEFER;
	} else if (!strcmp(env, "coop")) {
		*mode = URING_TASKRUN_COOP;
	} else if (!strcmp(env, "off")) {
		*mode = URING_TASKRUN_OFF;
	} else {
		return -EINVAL;
	}
	return 0;
}

/* Optional setup flags to try, best first; the caller adds the required ones */
static int
uring_candidates(const struct xnvme_be_linux_uring_caps *c, bool sqpoll, enum uring_taskrun mode,
		 unsigned int *cand)
{
	unsigned int all = c->submit_all ? IORING_SETUP_SUBMIT_ALL : 0;
	int n = 0;

	if (sqpoll) {
		/* the IPI-related flags make no sense with a kernel submitter thread */
		if (c->single_issuer) {
			cand[n++] = all | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_R_DISABLED;
		}
	} else {
		if (mode == URING_TASKRUN_DEFER && c->defer) {
			cand[n++] = all | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
				    IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_R_DISABLED;
		}
		if (mode != URING_TASKRUN_OFF && c->coop) {
			cand[n++] = all | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
		}
	}
	if (all) {
		cand[n++] = all;
	}
	cand[n++] = 0;
	return n;
}

static const char *
uring_required_str(unsigned int flags)
{
	switch (flags & (IORING_SETUP_SQPOLL | IORING_SETUP_IOPOLL | IORING_SETUP_SQE128)) {
	case 0:
		return "a plain ring";
	case IORING_SETUP_SQPOLL:
		return "SQPOLL";
	case IORING_SETUP_IOPOLL:
		return "IOPOLL";
	case IORING_SETUP_SQPOLL | IORING_SETUP_IOPOLL:
		return "SQPOLL|IOPOLL";
	case IORING_SETUP_SQE128:
		return "SQE128|CQE32";
	case IORING_SETUP_SQE128 | IORING_SETUP_IOPOLL:
		return "SQE128|CQE32|IOPOLL";
	case IORING_SETUP_SQE128 | IORING_SETUP_SQPOLL:
		return "SQE128|CQE32|SQPOLL";
	default:
		return "SQE128|CQE32|SQPOLL|IOPOLL";
	}
}

static int
uring_fail(const char *mech, int err, const char *what, const char *detail)
{
	fprintf(stderr, "# xnvme_queue_init(%s): %s: %s%s\n", mech, what, strerror(-err),
		detail ? detail : "");
	return err;
}

int
xnvme_be_linux_uring_init(struct xnvme_be_linux_uring *u, struct xnvme_queue *queue,
			  const char *mech, unsigned int required, int fd, int opts)
{
	const struct xnvme_be_linux_uring_caps *c = xnvme_be_linux_uring_caps();
	const struct xnvme_opts *dopts = &queue->dev->opts;
	bool sqpoll = (opts & XNVME_QUEUE_SQPOLL) || dopts->poll_sq;
	bool iopoll = (opts & XNVME_QUEUE_IOPOLL) || dopts->poll_io;
	enum uring_taskrun mode;
	struct io_uring_params p;
	const char *env;
	unsigned int cand[4];
	int ncand, err = -EINVAL;

	memset(u, 0, sizeof(*u));
	u->efd = -1;
	u->mech = mech;

	if (!c->ring) {
		return uring_fail(mech, -c->err, "the kernel refuses io_uring",
				  " (kernel.io_uring_disabled or seccomp?)");
	}
	if (dopts->register_buffers) {
		return uring_fail(mech, -ENOTSUP, "opts.register_buffers",
				  " (caller buffers are not known to the queue up front)");
	}
	if (uring_taskrun_mode(&mode)) {
		return uring_fail(mech, -EINVAL, "XNVME_QUEUE_TASKRUN",
				  " (valid: defer, coop, off)");
	}
	required |= (sqpoll ? IORING_SETUP_SQPOLL : 0) | (iopoll ? IORING_SETUP_IOPOLL : 0);

	ncand = uring_candidates(c, sqpoll, mode, cand);
	for (int i = 0; i < ncand; ++i) {
		memset(&p, 0, sizeof(p));
		p.flags = required | cand[i];
		env = getenv("XNVME_QUEUE_SQPOLL_CPU");
		if (sqpoll && env && *env) {
			p.flags |= IORING_SETUP_SQ_AFF;
			p.sq_thread_cpu = (unsigned int)strtoul(env, NULL, 10);
		}
		err = io_uring_queue_init_params(queue->capacity, &u->ring, &p);
		if (err != -EINVAL) {
			break; /* done, or a failure dropping optional flags cannot cure */
		}
	}
	if (err) {
		char what[96];

		snprintf(what, sizeof(what), "setting up a ring with %s",
			 uring_required_str(required));
		return uring_fail(mech, err, what, NULL);
	}
	u->setup_flags = p.flags;
	u->defer = p.flags & IORING_SETUP_DEFER_TASKRUN;
	u->iopoll = iopoll && !sqpoll;
	u->enabled = !(p.flags & IORING_SETUP_R_DISABLED);
	u->batching = !getenv("XNVME_QUEUE_BATCHING_OFF");
	u->fd = fd;

	if (dopts->register_files || sqpoll) {
		err = io_uring_register_files(&u->ring, &fd, 1);
		if (err) {
			io_uring_queue_exit(&u->ring);
			return uring_fail(mech, err, "registering the file", NULL);
		}
		u->fixed_file = true;
		u->fd = 0;
		u->sqe_flags = IOSQE_FIXED_FILE;
	}

	u->reap = calloc((size_t)queue->capacity + 1, sizeof(*u->reap));
	if (!u->reap) {
		io_uring_queue_exit(&u->ring);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Waits for the commands the kernel has taken and not yet completed: term abandons commands
 * without callbacks, but the caller may free their buffers right after, and a read landing
 * in freed memory must not happen. SQEs the kernel never saw are dropped unexecuted.
 */
static void
uring_abandon(struct xnvme_be_linux_uring *u, uint32_t outstanding)
{
	struct io_uring *ring = &u->ring;
	struct __kernel_timespec ts = {.tv_sec = 1, .tv_nsec = 0};
	unsigned int unseen, head, n;
	struct io_uring_cqe *cqe;
	uint32_t inflight;

	if (!u->enabled) {
		return; /* a disabled ring took nothing */
	}
	if (u->setup_flags & IORING_SETUP_SQPOLL) {
		/* the kernel thread takes whatever was published */
		unseen = ring->sq.sqe_tail - io_uring_smp_load_acquire(ring->sq.ktail);
	} else {
		unseen = ring->sq.sqe_tail - IO_URING_READ_ONCE(*ring->sq.khead);
	}
	inflight = outstanding > unseen ? outstanding - unseen : 0;

	while (inflight) {
		int err = io_uring_wait_cqe_timeout(ring, &cqe, &ts);

		if (err && err != -ETIME && err != -EINTR) {
			/* e.g. EEXIST: a SINGLE_ISSUER ring terminated by another thread */
			fprintf(stderr, "# xnvme_queue_term(%s): %u commands in flight: %s\n",
				u->mech, inflight, strerror(-err));
			return;
		}
		n = 0;
		io_uring_for_each_cqe(ring, head, cqe) {
			n++;
		}
		io_uring_cq_advance(ring, n);
		inflight = n < inflight ? inflight - n : 0;
	}
}

void
xnvme_be_linux_uring_term(struct xnvme_be_linux_uring *u, uint32_t outstanding)
{
	if (outstanding) {
		uring_abandon(u, outstanding);
	}
	io_uring_queue_exit(&u->ring);
	if (u->efd >= 0) {
		close(u->efd);
	}
	free(u->reap);
	u->reap = NULL;
	u->efd = -1;
}

int
xnvme_be_linux_uring_completion_fd(struct xnvme_be_linux_uring *u)
{
	int efd, err;

	if (u->efd >= 0) {
		return u->efd;
	}
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0) {
		return -errno;
	}
	err = io_uring_register_eventfd(&u->ring, efd);
	if (err) {
		close(efd);
		return err;
	}
	u->efd = efd;
	return efd;
}

int
xnvme_be_linux_uring_enable(struct xnvme_be_linux_uring *u)
{
	int err = io_uring_register(u->ring.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0);

	if (err < 0) {
		return xnvme_be_linux_uring_enter_err(u, err);
	}
	u->enabled = true;
	return 0;
}

int
xnvme_be_linux_uring_enter_err(struct xnvme_be_linux_uring *u, int err)
{
	switch (-err) {
	case EAGAIN: /* the kernel is short of requests: retry at the next poke */
	case EBUSY:  /* completions are backing up: reap, retry at the next poke */
	case EINTR:
	case ENOMEM:
		return 0;
	default:
		break;
	}
	if (!u->failed) {
		u->failed = true;
		fprintf(stderr, "# xnvme_queue_poke(%s): entering the ring failed: %s%s\n", u->mech,
			strerror(-err),
			err == -EEXIST ? " (SINGLE_ISSUER ring driven by a thread other than its "
					 "first user; XNVME_QUEUE_TASKRUN=coop lifts the binding)"
				       : "");
	}
	return err;
}

/* ---------------------------------------------------------------------------------------- */
/* The io_uring mechanism                                                                     */
/* ---------------------------------------------------------------------------------------- */

struct lu_iov {
	struct iovec v[LU_IOV_INLINE];
};

struct lu_state {
	struct xnvme_be_linux_uring u;
	struct lu_iov *iov; ///< per pooled context, indexed by xnvme_queue_ctx_idx()
};

static int
lu_check_support(struct xnvme_dev *dev)
{
	const struct xnvme_be_linux_state *state = xnvme_be_linux_state(dev);
	const struct xnvme_be_linux_uring_caps *c;

	if (!state) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP,
					    "serves regular files and block devices only");
	}
	if (state->ftype == XNVME_BE_LINUX_CHAR) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP,
					    "io_uring moves bytes of files and block devices; '%s' "
					    "is an NVMe char device (use io_uring_cmd)",
					    dev->ident.uri);
	}
	c = xnvme_be_linux_uring_caps();
	if (!c->ring) {
		return xnvme_dev_set_errmsg(dev, -c->err, "the kernel refuses io_uring: %s",
					    strerror(c->err));
	}
	if (!c->op_read_write) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP,
					    "the kernel lacks IORING_OP_READ/IORING_OP_WRITE");
	}
	return 0;
}

static int
lu_term(struct xnvme_queue *queue)
{
	struct lu_state *state = queue->state;

	if (state) {
		xnvme_be_linux_uring_term(&state->u, queue->outstanding);
		free(state->iov);
		free(state);
	}
	queue->state = NULL;
	return 0;
}

static int
lu_init(struct xnvme_queue *queue, int opts)
{
	const struct xnvme_be_linux_state *lstate = xnvme_be_linux_state(queue->dev);
	struct lu_state *state;
	int err;

	if (!lstate) {
		return -ENOTSUP;
	}
	state = calloc(1, sizeof(*state));
	if (!state) {
		return -ENOMEM;
	}
	state->iov = calloc((size_t)queue->capacity + 1, sizeof(*state->iov));
	if (!state->iov) {
		free(state);
		return -ENOMEM;
	}
	err = xnvme_be_linux_uring_init(&state->u, queue, "io_uring", 0, lstate->fd, opts);
	if (err) {
		free(state->iov);
		free(state);
		return err;
	}
	queue->state = state;
	return 0;
}

static inline void
lu_cpl(struct xnvme_cmd_ctx *ctx, int res)
{
	if (__builtin_expect(res >= 0, 1)) {
		ctx->cpl.result = (uint64_t)res;
	} else {
		xnvme_cpl_set_errno(ctx, res);
	}
}

/* poke beyond the idle check: submit, let the kernel post, reap */
static __attribute__((noinline)) int
lu_poke_work(struct xnvme_queue *queue, uint32_t max)
{
	struct lu_state *state = queue->state;
	struct xnvme_cmd_ctx **reap = state->u.reap;
	struct io_uring *ring = &state->u.ring;
	struct io_uring_cqe *cqe;
	uint32_t n = 0, lim;
	unsigned int head;
	int err;

	err = xnvme_be_linux_uring_flush(&state->u);
	if (__builtin_expect(err != 0, 0)) {
		return err;
	}
	lim = (max && max < queue->outstanding) ? max : queue->outstanding;
	if (!lim) {
		return 0;
	}
	io_uring_for_each_cqe(ring, head, cqe) {
		struct xnvme_cmd_ctx *ctx = (struct xnvme_cmd_ctx *)(uintptr_t)cqe->user_data;

		lu_cpl(ctx, cqe->res);
		reap[n] = ctx;
		if (++n == lim) {
			break;
		}
	}
	io_uring_cq_advance(ring, n);

	/* after the ring is consistent: callbacks may submit */
	for (uint32_t i = 0; i < n; ++i) {
		xnvme_queue_complete(queue, reap[i]);
	}
	return (int)n;
}

static int
lu_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct lu_state *state = queue->state;

	if (xnvme_be_linux_uring_idle(&state->u)) {
		return 0;
	}
	return lu_poke_work(queue, max);
}

/* Queues `sqe` (already prepared) under the context; submits when batching is off */
static inline int
lu_queue(struct lu_state *state, struct io_uring_sqe *sqe, struct xnvme_cmd_ctx *ctx,
	 uint8_t flags)
{
	sqe->flags = flags;
	io_uring_sqe_set_data(sqe, ctx);
	if (__builtin_expect(!state->u.batching, 0)) {
		xnvme_be_linux_uring_flush(&state->u); /* failures resurface in poke */
	}
	return 0;
}

/* Completes a context whose cpl already holds its verdict, through the ring */
static int
lu_queue_nop(struct lu_state *state, struct xnvme_cmd_ctx *ctx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&state->u.ring);

	if (!sqe) {
		return -EBUSY;
	}
	io_uring_prep_nop(sqe);
	return lu_queue(state, sqe, ctx, 0);
}

static const uint8_t lu_op_plain[] = {IORING_OP_READ, IORING_OP_WRITE};
static const uint8_t lu_op_vec[] = {IORING_OP_READV, IORING_OP_WRITEV};

static int
lu_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	  size_t mbuf_nbytes)
{
	struct lu_state *state = ctx->async.queue->state;
	struct io_uring_sqe *sqe;
	uint64_t off;
	size_t len;
	int rw;

	if (__builtin_expect(mbuf || mbuf_nbytes, 0)) {
		return -ENOTSUP;
	}
	rw = xnvme_be_linux_rw_decode(ctx, dbuf_nbytes, &off, &len);
	if (__builtin_expect(rw < 0, 0)) {
		return rw;
	}
	if (__builtin_expect(rw <= XNVME_BE_LINUX_RW_WRITE && len > UINT32_MAX, 0)) {
		xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
				     XNVME_STATUS_CODE_INVALID_FIELD);
		rw = XNVME_BE_LINUX_RW_FAILED;
	}
	if (__builtin_expect(rw > XNVME_BE_LINUX_RW_WRITE, 0)) {
		if (rw == XNVME_BE_LINUX_RW_FAILED) {
			return lu_queue_nop(state, ctx);
		}
		sqe = io_uring_get_sqe(&state->u.ring);
		if (!sqe) {
			return -EBUSY;
		}
		io_uring_prep_fsync(sqe, state->u.fd, 0);
		return lu_queue(state, sqe, ctx, state->u.sqe_flags);
	}
	sqe = io_uring_get_sqe(&state->u.ring);
	if (__builtin_expect(!sqe, 0)) {
		return -EBUSY; /* cannot happen: the ring has room for `capacity` commands */
	}
	io_uring_prep_rw(lu_op_plain[rw], sqe, state->u.fd, dbuf, (unsigned int)len, off);
	return lu_queue(state, sqe, ctx, state->u.sqe_flags);
}

static int
lu_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	   void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_queue *queue = ctx->async.queue;
	struct lu_state *state = queue->state;
	uint32_t idx = xnvme_queue_ctx_idx(queue, ctx);
	const struct iovec *vec = dvec;
	struct io_uring_sqe *sqe;
	size_t total = 0, cnt = dvec_cnt, len, acc = 0;
	uint64_t off;
	int rw;

	(void)dvec_nbytes; /* advisory; the iovec lengths define the transfer (api.md §2.7) */

	if (mbuf || mbuf_nbytes) {
		return -ENOTSUP;
	}
	if (idx > queue->capacity) {
		return -EINVAL; /* not a context of this queue's pool */
	}
	for (size_t i = 0; i < dvec_cnt; ++i) {
		total += dvec[i].iov_len;
	}
	rw = xnvme_be_linux_rw_decode(ctx, total, &off, &len);
	if (rw < 0) {
		return rw;
	}
	if (rw == XNVME_BE_LINUX_RW_FAILED) {
		return lu_queue_nop(state, ctx);
	}
	if (rw == XNVME_BE_LINUX_RW_FLUSH) {
		return lu_cmd_io(ctx, NULL, 0, NULL, 0);
	}

	if (len > UINT32_MAX) {
		goto invalid; /* out of reach of one SQE */
	}
	if (dvec_cnt <= LU_IOV_INLINE) {
		/* own copy, trimmed to the command's length (decoding ensured len <= total) */
		vec = state->iov[idx].v;
		cnt = xnvme_be_linux_iov_trim(state->iov[idx].v, LU_IOV_INLINE, dvec, dvec_cnt,
					      len);
	} else if (len < total) {
		/* a long vector, used in place: only a prefix of exactly `len` bytes will do */
		for (cnt = 0; cnt < dvec_cnt && acc < len; ++cnt) {
			acc += dvec[cnt].iov_len;
		}
		if (acc != len) {
			goto invalid;
		}
	}

	sqe = io_uring_get_sqe(&state->u.ring);
	if (!sqe) {
		return -EBUSY;
	}
	if (cnt <= 1) {
		/* one segment needs no vector: the plain opcode skips the kernel's iovec import */
		io_uring_prep_rw(lu_op_plain[rw], sqe, state->u.fd, cnt ? vec[0].iov_base : NULL,
				 cnt ? (unsigned int)vec[0].iov_len : 0, off);
	} else {
		io_uring_prep_rw(lu_op_vec[rw], sqe, state->u.fd, vec, (unsigned int)cnt, off);
	}
	return lu_queue(state, sqe, ctx, state->u.sqe_flags);

invalid:
	xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_STATUS_CODE_INVALID_FIELD);
	return lu_queue_nop(state, ctx);
}

static int
lu_get_completion_fd(struct xnvme_queue *queue)
{
	struct lu_state *state = queue->state;

	return xnvme_be_linux_uring_completion_fd(&state->u);
}

#else /* !XNVME_HAVE_LIBURING */

static int
lu_check_support(struct xnvme_dev *dev)
{
	return xnvme_dev_set_errmsg(dev, -ENOSYS, "built without liburing");
}

static int
lu_init(struct xnvme_queue *queue, int opts)
{
	(void)queue;
	(void)opts;
	fprintf(stderr, "# xnvme_queue_init(io_uring): built without liburing\n");
	return -ENOSYS;
}

static int
lu_term(struct xnvme_queue *queue)
{
	queue->state = NULL;
	return 0;
}

static int
lu_poke(struct xnvme_queue *queue, uint32_t max)
{
	(void)queue;
	(void)max;
	return -ENOSYS;
}

static int
lu_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	  size_t mbuf_nbytes)
{
	(void)ctx;
	(void)dbuf;
	(void)dbuf_nbytes;
	(void)mbuf;
	(void)mbuf_nbytes;
	return -ENOSYS;
}

static int
lu_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	   void *mbuf, size_t mbuf_nbytes)
{
	(void)ctx;
	(void)dvec;
	(void)dvec_cnt;
	(void)dvec_nbytes;
	(void)mbuf;
	(void)mbuf_nbytes;
	return -ENOSYS;
}

static int
lu_get_completion_fd(struct xnvme_queue *queue)
{
	(void)queue;
	return -ENOSYS;
}

#endif /* XNVME_HAVE_LIBURING */

unsigned int
xnvme_be_linux_uring_queue_flags(struct xnvme_queue *queue)
{
#ifdef XNVME_HAVE_LIBURING
	/* both io_uring mechanisms keep the ring first in their state */
	return queue->state ? ((struct xnvme_be_linux_uring *)queue->state)->setup_flags : 0;
#else
	(void)queue;
	return 0;
#endif
}

const struct xnvme_be_async xnvme_be_linux_async_liburing = {
	.name = "io_uring",
	.check_support = lu_check_support,
	.init = lu_init,
	.term = lu_term,
	.poke = lu_poke,
	.cmd_io = lu_cmd_io,
	.cmd_iov = lu_cmd_iov,
	.get_completion_fd = lu_get_completion_fd,
};
