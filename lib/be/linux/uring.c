// SPDX-License-Identifier: BSD-3-Clause
/*
 * The queue of the io_uring mechanisms "io_uring" and "io_uring_cmd" (be_linux_uring.h for the
 * rules): what the kernel accepts, probed once; ring setup with fallbacks and teardown; the
 * slow paths of submission; and poke, which reaps completions and folds them into cpl, as a
 * byte count ("io_uring") or as the NVMe status and result of a passthrough command
 * ("io_uring_cmd").
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "be_linux.h"
#include "be_linux_nvme.h"
#include "be_linux_rw.h"
#include "be_linux_uring.h"

#ifdef XNVME_HAVE_LIBURING

#ifdef XNVME_BE_LINUX_URING_FAULTS
int xnvme_be_linux_uring_fault_n;
int xnvme_be_linux_uring_fault_err;

/* An injected failure of the next enter, consumed (be_linux_uring.h) */
static bool
uring_fault_take(int *ret)
{
	if (xnvme_be_linux_uring_fault_n <= 0) {
		return false;
	}
	xnvme_be_linux_uring_fault_n--;
	*ret = -xnvme_be_linux_uring_fault_err;
	return true;
}

static bool
uring_fault_pending(void)
{
	return xnvme_be_linux_uring_fault_n > 0;
}
#else
/* the library's build: no fault injection */
static inline bool
uring_fault_take(int *ret)
{
	(void)ret;
	return false;
}

static inline bool
uring_fault_pending(void)
{
	return false;
}
#endif

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
	xnvme_last_error_set("linux: async mechanism '%s': %s: %s%s", mech, what, strerror(-err),
			     detail ? detail : "");
	return err;
}

/* True when the running kernel's release is at least major.minor */
static bool
uring_kernel_at_least(unsigned int major, unsigned int minor)
{
	struct utsname u;
	unsigned int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &ma, &mi) != 2) {
		return false;
	}
	return ma > major || (ma == major && mi >= minor);
}

/* What every SQE of `u` starts with: opcode 0, its IOSQE flags, ioprio 0, its fd */
static uint64_t
uring_sqe_w0(const struct xnvme_be_linux_uring *u)
{
	struct io_uring_sqe w = {.flags = u->sqe_flags, .fd = u->fd};
	uint64_t w0;

	memcpy(&w0, &w, sizeof(w0));
	return w0;
}

/* Sets up the ring of `u` (zeroed) for `queue` on `fd`, see xnvme_be_linux_uring_queue_init() */
static int
uring_setup(struct xnvme_be_linux_uring *u, struct xnvme_queue *queue, const char *mech,
	    unsigned int required, int fd, int opts)
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

	u->efd = -1;
	u->reg_idx = -1;
	u->reg_owner = XNVME_BE_LINUX_URING_NO_OWNER;
	u->mech = mech;

	if (!c->ring) {
		return uring_fail(mech, -c->err, "the kernel refuses io_uring",
				  " (kernel.io_uring_disabled or seccomp?)");
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
	u->enter_flags = (u->defer || u->iopoll) ? IORING_ENTER_GETEVENTS : 0;
	u->cq_mask = *u->ring.cq.kring_mask;
	u->sq_mask = *u->ring.sq.kring_mask;
	u->sq_entries = *u->ring.sq.kring_entries;
	/* a timed wait needs EXT_ARG (5.11); pollers (SQPOLL, IOPOLL) keep spinning */
	u->wait = (p.features & IORING_FEAT_EXT_ARG) && !sqpoll && !iopoll &&
		  !xnvme_be_queue_poke_spin(opts);
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
	u->sqe_w0 = uring_sqe_w0(u);

	if (dopts->register_buffers) {
		/* filled lazily with the library's buffers as commands use them */
		err = io_uring_register_buffers_sparse(&u->ring, XNVME_BUFREG_SLOTS);
		if (err) {
			io_uring_queue_exit(&u->ring);
			return uring_fail(mech, err, "registering a sparse buffer table",
					  " (opts.register_buffers; needs Linux 5.19)");
		}
		u->fixed_bufs = true;
		u->cmd_fixed = uring_kernel_at_least(6, 1); /* passthrough of registered buffers */
	}

	u->iov = calloc((size_t)queue->capacity + 1, sizeof(*u->iov));
	if (!u->iov) {
		io_uring_queue_exit(&u->ring);
		return -ENOMEM;
	}
	return 0;
}

/* A free SQE for the watchdog's own requests, whatever the ring's SQE size; NULL when full */
static struct io_uring_sqe *
uring_wd_sqe(struct xnvme_be_linux_uring *u)
{
	return xnvme_be_linux_uring_get_sqe(u, (u->setup_flags & IORING_SETUP_SQE128) ? 1 : 0);
}

/* Submits the removal of the armed watchdog (both CQEs carry its user_data); 1 when submitted */
static int
uring_wd_cancel(struct xnvme_be_linux_uring *u)
{
	struct io_uring_sqe *sqe = uring_wd_sqe(u);

	if (!sqe) {
		return 0;
	}
	io_uring_prep_timeout_remove(sqe, XNVME_BE_LINUX_URING_WD_DATA, 0);
	sqe->user_data = XNVME_BE_LINUX_URING_WD_DATA;
	return io_uring_submit(&u->ring);
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
	/* the watchdog, when armed, completes like a command (seen or not, as they are) */
	outstanding += u->wd_armed ? 1 : 0;
	inflight = outstanding > unseen ? outstanding - unseen : 0;
	if (u->wd_armed && !unseen && uring_wd_cancel(u) == 1) {
		inflight++; /* rather than wait out its bound: the removal's CQE comes too */
	}

	while (inflight) {
		int err = io_uring_wait_cqe_timeout(ring, &cqe, &ts);

		if (err && err != -ETIME && err != -EINTR) {
			/* e.g. EEXIST: a SINGLE_ISSUER ring terminated by another thread */
			fprintf(stderr, "# xnvme_queue_term(%s): %u commands in flight: %s\n",
				u->mech, inflight, strerror(-err));
			return;
		}
		n = 0;
		io_uring_for_each_cqe(ring, head, cqe)
		{
			n++;
		}
		io_uring_cq_advance(ring, n);
		inflight = n < inflight ? inflight - n : 0;
	}
}

/*
 * Registered ring fds of queues terminated on a thread other than the one that registered
 * them: the kernel's table is per thread, so only that thread can drop the entry (and with it
 * the ring, its pinned buffers and its file). It does so at its next flush, queue init or term
 * (dead_seq tells it, one load); a thread's exit drops its table in the kernel, and its
 * entries here. A full list leaves the ring alive until the thread exits.
 */
#define URING_DEAD_MAX 64
static struct {
	uint64_t tid;
	int idx;
} uring_dead[URING_DEAD_MAX];
static unsigned int uring_ndead; ///< under uring_dead_lock
static pthread_mutex_t uring_dead_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t uring_dead_key;
static pthread_once_t uring_dead_once = PTHREAD_ONCE_INIT;
_Atomic uint64_t xnvme_be_linux_uring_dead_seq;
__thread uint64_t xnvme_be_linux_uring_dead_seen __attribute__((tls_model("initial-exec")));
static __thread bool uring_dead_keyed;

/* Forgets the entries of this thread; with `ring_fd` >= 0 unregisters them through it first */
static void
uring_dead_drop(int ring_fd)
{
	uint64_t self = xnvme_be_linux_uring_self();

	pthread_mutex_lock(&uring_dead_lock);
	xnvme_be_linux_uring_dead_seen =
		atomic_load_explicit(&xnvme_be_linux_uring_dead_seq, memory_order_relaxed);
	for (unsigned int i = 0; i < uring_ndead;) {
		struct io_uring_rsrc_update up = {.offset = (uint32_t)uring_dead[i].idx};

		if (uring_dead[i].tid != self) {
			i++;
			continue;
		}
		if (ring_fd >= 0) {
			(void)io_uring_register(ring_fd, IORING_UNREGISTER_RING_FDS, &up, 1);
		}
		uring_dead[i] = uring_dead[--uring_ndead];
	}
	pthread_mutex_unlock(&uring_dead_lock);
}

static void
uring_dead_exit(void *arg)
{
	(void)arg;
	uring_dead_drop(-1); /* the kernel drops the thread's table itself */
}

static void
uring_dead_key_create(void)
{
	(void)pthread_key_create(&uring_dead_key, uring_dead_exit);
}

/* Hands the registration of `u`, made by another thread, to that thread to drop */
static void
uring_dead_add(struct xnvme_be_linux_uring *u)
{
	/* what the kernel lets any thread release goes now (not SINGLE_ISSUER rings) */
	if (u->fixed_bufs) {
		(void)io_uring_unregister_buffers(&u->ring);
	}
	pthread_mutex_lock(&uring_dead_lock);
	if (uring_ndead < URING_DEAD_MAX) {
		uring_dead[uring_ndead].tid = u->reg_owner;
		uring_dead[uring_ndead].idx = u->reg_idx;
		uring_ndead++;
		atomic_fetch_add_explicit(&xnvme_be_linux_uring_dead_seq, 1, memory_order_relaxed);
	}
	pthread_mutex_unlock(&uring_dead_lock);
}

static void
uring_dead_reap(int ring_fd)
{
	if (atomic_load_explicit(&xnvme_be_linux_uring_dead_seq, memory_order_relaxed) !=
	    xnvme_be_linux_uring_dead_seen) {
		uring_dead_drop(ring_fd);
	}
}

void
xnvme_be_linux_uring_reap_dead(struct xnvme_be_linux_uring *u)
{
	uring_dead_drop(u->ring.ring_fd);
}

int
xnvme_be_linux_uring_queue_init(struct xnvme_queue *queue, int opts, const char *mech,
				unsigned int required)
{
	const struct xnvme_be_linux_state *lstate;
	int err = xnvme_be_linux_queue_state(queue, sizeof(struct xnvme_be_linux_uring), &lstate);

	if (!err) {
		err = uring_setup(queue->state, queue, mech, required, lstate->fd, opts);
	}
	if (!err) {
		uring_dead_reap(((struct xnvme_be_linux_uring *)queue->state)->ring.ring_fd);
	}
	if (err) {
		free(queue->state);
		queue->state = NULL;
	}
	return err;
}

int
xnvme_be_linux_uring_queue_term(struct xnvme_queue *queue)
{
	struct xnvme_be_linux_uring *u = queue->state;

	if (u) {
		if (queue->outstanding) {
			uring_abandon(u, queue->outstanding);
		}
		if (u->reg_idx >= 0 && u->reg_owner == xnvme_be_linux_uring_self()) {
			struct io_uring_rsrc_update up = {.offset = (uint32_t)u->reg_idx};

			(void)io_uring_register(u->ring.ring_fd, IORING_UNREGISTER_RING_FDS, &up,
						1);
		} else if (u->reg_idx >= 0) {
			uring_dead_add(u);
		}
		uring_dead_reap(u->ring.ring_fd);
		io_uring_queue_exit(&u->ring);
		if (u->efd >= 0) {
			close(u->efd);
		}
		free(u->iov);
		free(u);
	}
	queue->state = NULL;
	return 0;
}

int
xnvme_be_linux_uring_queue_completion_fd(struct xnvme_queue *queue)
{
	struct xnvme_be_linux_uring *u = queue->state;
	int efd, err;

	if (u->efd >= 0) {
		return u->efd;
	}
	u->wait = false; /* the caller waits on the fd: pokes must not block */
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

__thread uint64_t xnvme_be_linux_uring_tid __attribute__((tls_model("initial-exec")));
static uint64_t uring_tid_next;

uint64_t
xnvme_be_linux_uring_self_slow(void)
{
	xnvme_be_linux_uring_tid = __atomic_add_fetch(&uring_tid_next, 1, __ATOMIC_RELAXED);
	return xnvme_be_linux_uring_tid;
}

/* Marks a generation the kernel refused to register: not retried for that buffer */
#define URING_BUF_REFUSED (1ULL << 63)

bool
xnvme_be_linux_uring_fixed_buf(struct xnvme_be_linux_uring *u, const void *buf, size_t nbytes,
			       uint16_t *idx)
{
	uintptr_t start;
	uint64_t gen;
	size_t len;
	int slot = xnvme_bufreg_find(u->buf_hint, buf, nbytes, &gen, &start, &len);

	if (slot < 0) {
		return false;
	}
	u->buf_hint = (unsigned int)slot;
	if (u->buf_gen[slot] != gen) {
		struct iovec iov = {.iov_base = (void *)start, .iov_len = len};

		if (u->buf_gen[slot] == (gen | URING_BUF_REFUSED)) {
			return false;
		}
		if (io_uring_register_buffers_update_tag(&u->ring, (unsigned int)slot, &iov, NULL,
							 1) != 1) {
			u->buf_gen[slot] = gen | URING_BUF_REFUSED;
			return false;
		}
		u->buf_gen[slot] = gen;
	}
	*idx = (uint16_t)slot;
	u->nfixed++;
	return true;
}

void
xnvme_be_linux_uring_drop_stale(struct xnvme_be_linux_uring *u)
{
	/* read first: a buffer freed during the scan is caught by the next check */
	uint64_t dels = atomic_load_explicit(&xnvme_bufreg_dels, memory_order_acquire);

	for (unsigned int i = 0; i < XNVME_BUFREG_SLOTS; ++i) {
		struct iovec none = {.iov_base = NULL, .iov_len = 0};
		uint64_t mine = u->buf_gen[i];

		if (!mine ||
		    (mine & ~URING_BUF_REFUSED) ==
			    atomic_load_explicit(&xnvme_bufreg[i].gen, memory_order_acquire)) {
			continue;
		}
		/* a refused slot holds nothing; on failure the kernel keeps the old pin */
		if ((mine & URING_BUF_REFUSED) ||
		    io_uring_register_buffers_update_tag(&u->ring, i, &none, NULL, 1) == 1) {
			u->buf_gen[i] = 0;
		}
	}
	u->buf_dels = dels;
}

void
xnvme_be_linux_uring_register_ring(struct xnvme_be_linux_uring *u)
{
	struct io_uring_rsrc_update up = {.offset = UINT32_MAX, .data = (uint64_t)u->ring.ring_fd};

	u->reg_tried = true;
	if (io_uring_register(u->ring.ring_fd, IORING_REGISTER_RING_FDS, &up, 1) == 1) {
		u->reg_idx = (int)up.offset;
		u->reg_owner = xnvme_be_linux_uring_self();
		if (!uring_dead_keyed) {
			/* the key's destructor forgets this thread's dead entries at its exit */
			pthread_once(&uring_dead_once, uring_dead_key_create);
			uring_dead_keyed = !pthread_setspecific(uring_dead_key, u);
		}
	}
}

int
xnvme_be_linux_uring_enter_unreg(struct xnvme_be_linux_uring *u, unsigned int to_submit,
				 unsigned int flags)
{
	u->reg_idx = -1; /* the thread's table lost it (e.g. a forked child): plain fd from now */
	u->reg_owner = XNVME_BE_LINUX_URING_NO_OWNER;
	return xnvme_be_linux_uring_sys_enter((unsigned int)u->ring.ring_fd, to_submit, 0, flags,
					      NULL, 0);
}

int
xnvme_be_linux_uring_flush_slow(struct xnvme_be_linux_uring *u)
{
	bool sqpoll = u->setup_flags & IORING_SETUP_SQPOLL;
	int ret;

	if (!u->enabled) {
		ret = xnvme_be_linux_uring_enable(u);
		if (ret) {
			return ret;
		}
	}
	if (!u->reg_tried && !sqpoll) {
		xnvme_be_linux_uring_register_ring(u);
	}
	if (uring_fault_take(&ret)) {
		/* the test-only build: ret holds the injected failure */
	} else if (!sqpoll) {
		ret = xnvme_be_linux_uring_enter_sq(u, xnvme_be_linux_uring_sq_pending(u));
	} else {
		ret = io_uring_submit(&u->ring);
	}
	u->fast = u->enabled && u->reg_tried && !sqpoll && !uring_fault_pending();
	return ret >= 0 ? 0 : xnvme_be_linux_uring_enter_err(u, ret);
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

/* Folds one CQE into the context's cpl: a byte count, or a passthrough command's completion */
static inline __attribute__((always_inline)) void
uring_cpl(struct xnvme_cmd_ctx *ctx, const struct io_uring_cqe *cqe, bool pass)
{
	if (!pass) {
		xnvme_be_linux_rw_cpl(ctx, cqe->res);
	} else if (__builtin_expect(cqe->res >= 0, 1)) {
		xnvme_be_linux_nvme_cpl(ctx, cqe->res, cqe->big_cqe[0]);
	} else {
		(void)xnvme_be_linux_nvme_errno(ctx, -cqe->res); /* EINTR: cancelled, ETIMEDOUT */
	}
}

/*
 * poke beyond the idle check: submit, let the kernel post, reap; `pass` is a constant (and
 * with it the CQE size: CQE32 exactly for passthrough). Each CQE is taken off the ring before
 * its callback runs, so that a callback's nested poke sees a consistent ring and takes only
 * CQEs this level did not take; head and tail are read again after every callback for that
 * reason.
 */
static inline __attribute__((always_inline)) int
uring_reap(struct xnvme_queue *queue, struct xnvme_be_linux_uring *u, unsigned int nsub,
	   uint32_t max, bool pass)
{
	struct io_uring_cq *cq = &u->ring.cq;
	unsigned int head, tail, mask = u->cq_mask;
	uint32_t n = 0, lim;
	int err;

	err = xnvme_be_linux_uring_flush_n(u, nsub);
	if (__builtin_expect(err != 0, 0)) {
		return err;
	}
	lim = (max && max < queue->outstanding) ? max : queue->outstanding;
	while (n < lim) {
		const struct io_uring_cqe *cqe;
		struct xnvme_cmd_ctx *ctx;

		/* both again: a nested poke may have taken CQEs past a tail read before */
		head = IO_URING_READ_ONCE(*cq->khead);
		tail = io_uring_smp_load_acquire(cq->ktail);
		if (head == tail) {
			break;
		}
		cqe = &cq->cqes[(size_t)(head & mask) << (pass ? 1 : 0)];
		if (__builtin_expect(cqe->user_data == XNVME_BE_LINUX_URING_WD_DATA, 0)) {
			io_uring_smp_store_release(cq->khead, head + 1);
			u->wd_armed = false; /* the watchdog ran out: no command, no callback */
			continue;
		}
		ctx = (struct xnvme_cmd_ctx *)(uintptr_t)cqe->user_data;
		uring_cpl(ctx, cqe, pass);
		io_uring_smp_store_release(cq->khead, head + 1);

		/* after the ring is consistent: callbacks may submit and poke */
		xnvme_queue_complete(queue, ctx);
		n++;
	}
	return (int)n;
}

/* True when the only CQE ready is the watchdog's: the wait ran out with nothing completed */
static bool
uring_wd_alone(const struct xnvme_be_linux_uring *u)
{
	const struct io_uring_cq *cq = &u->ring.cq;
	unsigned int head = IO_URING_READ_ONCE(*cq->khead);
	unsigned int shift = (u->setup_flags & IORING_SETUP_CQE32) ? 1 : 0;

	return io_uring_smp_load_acquire(cq->ktail) - head == 1 &&
	       cq->cqes[(size_t)(head & u->cq_mask) << shift].user_data ==
		       XNVME_BE_LINUX_URING_WD_DATA;
}

/*
 * Queues the watchdog: a timeout SQE (no command counted) that completes `bound_ns` from now
 * and so ends any wait in progress then. Returns the SQEs to submit: 1, or 0 when the ring
 * has no free SQE (the caller then waits with a timeout instead).
 */
static unsigned int
uring_wd_arm(struct xnvme_be_linux_uring *u, uint32_t bound_ns)
{
	struct io_uring_sqe *sqe = uring_wd_sqe(u);
	struct io_uring_sq *sq = &u->ring.sq;

	if (!sqe) {
		return 0;
	}
	u->wd_ts.tv_sec = 0;
	u->wd_ts.tv_nsec = bound_ns;
	io_uring_prep_timeout(sqe, &u->wd_ts, 0, 0);
	sqe->user_data = XNVME_BE_LINUX_URING_WD_DATA;
	sq->sqe_head = sq->sqe_tail;
	io_uring_smp_store_release(sq->ktail, sq->sqe_tail);
	u->wd_armed = true;
	u->wd_arms++;
	return 1;
}

/*
 * A poke that finds nothing to do, right after another that found nothing either or that only
 * submitted, comes from a caller waiting for a completion: wait for one in the kernel instead
 * of returning at once, so the caller sleeps like fio's own io_uring engine instead of
 * spinning against the threads that do the I/O (io-wq workers on tmpfs, the loop device's
 * kworker). The first such poke still returns at once, and nested pokes never wait. Returns
 * true when completions may be ready.
 *
 * The wait is bounded (XNVME_BE_POKE_WAIT_NS, more on a slow device: poke_wait.h), but not by
 * a timeout of the wait itself: that arms and cancels a kernel timer per wait, which in a
 * virtual machine costs microseconds per I/O (timer programming exits to the hypervisor).
 * Instead a watchdog, a timeout SQE of the bound, goes in with the wait when none is armed and
 * stays armed across waits until it fires: its CQE ends the wait then, and the reaper drops
 * it. At thousands of I/Os per second that is one timer per bound instead of one per wait;
 * a wait the watchdog ends early (armed by an earlier wait) merely returns 0 sooner. Inside
 * xnvme_queue_drain_timeout() the wait keeps its own 1 ms timeout, so a longer watchdog
 * cannot delay the deadline.
 */
static __attribute__((noinline)) bool
uring_idle_wait(struct xnvme_queue *queue, struct xnvme_be_linux_uring *u)
{
	struct __kernel_timespec ts = {.tv_sec = 0};
	struct io_uring_getevents_arg arg = {.ts = (uint64_t)(uintptr_t)&ts};
	unsigned int flags = IORING_ENTER_GETEVENTS;
	unsigned int fd = (unsigned int)u->ring.ring_fd;
	bool deadline = queue->opts & XNVME_BE_QUEUE_DEADLINE;
	unsigned int nsub = 0;
	uint32_t bound;
	int ret;

	if (!u->wait || !queue->outstanding || queue->nested || u->nidle++ < 1) {
		return false;
	}
	if (u->reg_owner == xnvme_be_linux_uring_tid) {
		fd = (unsigned int)u->reg_idx;
		flags |= IORING_ENTER_REGISTERED_RING;
	}
	u->nwaits++;
	bound = xnvme_be_linux_pwait_begin(&u->pwait, queue);
	if (!deadline && !u->wd_armed) {
		nsub = uring_wd_arm(u, bound); /* 1: armed here, 0: no free SQE, wait timed */
	}
	if (!deadline && u->wd_armed) {
		ret = xnvme_be_linux_uring_sys_enter(fd, nsub, 1, flags, NULL, 0);
		if (!uring_wd_alone(u)) {
			xnvme_be_linux_pwait_end(&u->pwait, false);
		} else if (nsub) {
			xnvme_be_linux_pwait_end(&u->pwait, true); /* ran out its bound */
		} /* else an earlier wait's watchdog ended it early: not counted (poke_wait.h) */
	} else {
		ts.tv_nsec = bound;
		ret = xnvme_be_linux_uring_sys_enter(fd, 0, 1, flags | IORING_ENTER_EXT_ARG, &arg,
						     sizeof(arg));
		xnvme_be_linux_pwait_end(&u->pwait, ret == -ETIME && !io_uring_cq_ready(&u->ring));
	}
	if (ret == -EBADF || ret == -EINVAL || ret == -EOPNOTSUPP) {
		u->wait = false; /* lost registration or an old kernel: spin from now */
	}
	return true;
}

/* Rule 5 of xnvme_be.h: the poke tests of both mechanisms */
static inline __attribute__((always_inline)) int
uring_poke(struct xnvme_queue *queue, uint32_t max, bool pass)
{
	struct xnvme_be_linux_uring *u = queue->state;
	unsigned int nsub;
	int n;

	if (__builtin_expect(xnvme_be_poke_skip(queue), 0)) {
		return 0; /* nothing outstanding (SQEs pending are counted too), or nested too deep */
	}
	nsub = xnvme_be_linux_uring_sq_pending(u);
	if (xnvme_be_linux_uring_idle(u, nsub)) {
		if (!uring_idle_wait(queue, u) || xnvme_be_linux_uring_idle(u, 0)) {
			return 0;
		}
	}
	n = uring_reap(queue, u, nsub, max, pass);
	/*
	 * A poke that reaped starts the count again; one that only submitted counts as the first
	 * that found nothing; one that reaped no command (the watchdog's CQE ended its wait)
	 * keeps the count, so that the next empty poke waits again instead of spinning once.
	 */
	u->nidle = n ? 0 : nsub ? 1 : u->nidle;
	return n;
}

int
xnvme_be_linux_uring_poke_rw(struct xnvme_queue *queue, uint32_t max)
{
	return uring_poke(queue, max, false);
}

int
xnvme_be_linux_uring_poke_pass(struct xnvme_queue *queue, uint32_t max)
{
	return uring_poke(queue, max, true);
}

#endif /* XNVME_HAVE_LIBURING */
