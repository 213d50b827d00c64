/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Ring handling shared by the Linux async mechanisms "io_uring" and "io_uring_cmd" (uring.c;
 * not installed). Only meaningful when the build has liburing (XNVME_HAVE_LIBURING).
 *
 * Setup flags. Per queue the ring is created with the flags the caller asked for (IOPOLL,
 * SQPOLL, SQE128|CQE32 for passthrough); an impossible request fails queue init with a
 * reason. On top come optional flags that only change cost, tried in this order and dropped
 * one step at a time when the kernel refuses them (the set in use is kept in `setup_flags`):
 *   no SQPOLL: SUBMIT_ALL|SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG|R_DISABLED,
 *              SUBMIT_ALL|COOP_TASKRUN|TASKRUN_FLAG, SUBMIT_ALL, none
 *   SQPOLL:    SUBMIT_ALL|SINGLE_ISSUER|R_DISABLED, SUBMIT_ALL, none
 * Which of them the kernel accepts at all is probed once per process. The environment
 * variable XNVME_QUEUE_TASKRUN (defer, coop or off) narrows the choice for non-SQPOLL rings.
 *
 * SINGLE_ISSUER binds a ring to one thread. The ring is created disabled and enabled by the
 * first poke, so the thread that uses the queue becomes its issuer, not the one that created
 * it. A queue later driven by another thread fails with -EEXIST from poke (fatal, with a note
 * on stderr); XNVME_QUEUE_TASKRUN=coop avoids the binding.
 *
 * Batching. Submissions only fill SQEs; poke hands them to the kernel with one system call,
 * then reaps. That call also asks for completions (GETEVENTS) whenever they would need one
 * (DEFER_TASKRUN, IOPOLL, IORING_SQ_TASKRUN, CQ overflow), so a poke enters at most once.
 *
 * Registered ring fd. The first submitting poke registers the ring's fd in the calling
 * thread's io_uring table (IORING_REGISTER_RING_FDS: enter skips the fd lookup) and enters
 * through it while the queue is poked by that thread; another thread enters through the plain
 * fd (the table is per thread; threads are told apart by a process-unique number in thread-local
 * storage, as pthread_t values are reused). An enter refused with EBADF through the index
 * drops the registration and is retried through the plain fd. Term unregisters it when it runs on that thread; otherwise
 * the entry stays until that thread exits (the kernel holds at most 16 per thread; a refused
 * registration only means the plain fd is used). SQPOLL rings submit through liburing. Without new SQEs, poke enters the kernel only when the kernel asks for it
 * (IORING_SQ_TASKRUN, CQ overflow) or to poll completions of an IOPOLL ring. Transient
 * failures of that call (EAGAIN, EBUSY, EINTR, ENOMEM) leave the SQEs in the ring for the
 * next poke; poke then reports what it reaped (>= 0). XNVME_QUEUE_BATCHING_OFF (any value)
 * submits inside every submission call instead.
 */
#ifndef XNVME_BE_LINUX_URING_H
#define XNVME_BE_LINUX_URING_H

#include "xnvme_config.h"

#ifdef XNVME_HAVE_LIBURING
#include <errno.h>
#include <liburing.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "be_linux.h"
#include "poke_wait.h"
#include "xnvme_bufreg.h"

#ifndef IORING_SETUP_SUBMIT_ALL
#define IORING_SETUP_SUBMIT_ALL (1U << 7)
#endif
#ifndef IORING_SETUP_COOP_TASKRUN
#define IORING_SETUP_COOP_TASKRUN (1U << 8)
#endif
#ifndef IORING_SETUP_TASKRUN_FLAG
#define IORING_SETUP_TASKRUN_FLAG (1U << 9)
#endif
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif
#ifndef IORING_SQ_TASKRUN
#define IORING_SQ_TASKRUN (1U << 2)
#endif
#ifndef IORING_URING_CMD_FIXED
#define IORING_URING_CMD_FIXED (1U << 0)
#endif
#ifndef IORING_ENTER_REGISTERED_RING
#define IORING_ENTER_REGISTERED_RING (1U << 4)
#endif
#ifndef IORING_REGISTER_RING_FDS
#define IORING_REGISTER_RING_FDS 20
#define IORING_UNREGISTER_RING_FDS 21
#endif

/**
 * user_data of the watchdog's timeout CQE (never a context: contexts are aligned pointers);
 * poke consumes it without a callback
 */
#define XNVME_BE_LINUX_URING_WD_DATA ((uint64_t)1)

/** Vectors up to this many entries are copied into per-command storage */
#define XNVME_BE_LINUX_URING_IOV_INLINE 8

struct xnvme_be_linux_uring_iov {
	struct iovec v[XNVME_BE_LINUX_URING_IOV_INLINE];
};

/**
 * The state of an io_uring / io_uring_cmd queue (queue->state): its ring, with what poke needs
 * to know about how it was set up, and per pooled context room for a short vector
 */
struct xnvme_be_linux_uring {
	struct io_uring ring;
	unsigned int setup_flags; ///< IORING_SETUP_* in use
	bool defer;               ///< DEFER_TASKRUN: completions are posted when we enter
	bool iopoll;              ///< IOPOLL without SQPOLL: completions are polled when we enter
	bool enabled;             ///< R_DISABLED rings are enabled by the first submitting poke
	bool batching;            ///< submit in poke (false: in every submission)
	bool fixed_file;          ///< the fd is registered at index 0
	bool failed;              ///< a fatal enter error was reported once
	bool reg_tried;           ///< the ring fd registration was attempted
	bool fast; ///< enabled, reg_tried and not SQPOLL: flush takes the inline path
	unsigned int enter_flags; ///< IORING_ENTER_* of every submitting enter (GETEVENTS)
	unsigned int cq_mask;     ///< the CQ's ring mask
	unsigned int sq_mask;     ///< the SQ's ring mask
	unsigned int sq_entries;  ///< the SQ's size
	uint64_t sqe_w0;          ///< the first 8 bytes of every SQE, opcode 0 (flags, fd)
	bool wait;      ///< an idle poke may wait in the kernel (EXT_ARG; not SQPOLL/IOPOLL)
	uint32_t nidle; ///< pokes in a row that found nothing to do
	struct xnvme_be_linux_pwait pwait; ///< bound of the next idle wait (poke_wait.h)
	bool wd_armed;    ///< the watchdog (a timeout SQE, see uring_idle_wait()) is in the kernel
	uint64_t wd_arms; ///< watchdogs armed so far (tests, statistics)
	uint64_t nwaits;  ///< idle waits so far (tests, statistics)
	struct __kernel_timespec wd_ts; ///< the relative expiry of the last one armed
	int reg_idx;                    ///< registered ring fd index, -1: none
	uint64_t reg_owner;    ///< self() of the thread holding reg_idx, else ..._URING_NO_OWNER
	bool fixed_bufs;       ///< opts.register_buffers: a sparse buffer table is registered
	bool cmd_fixed;        ///< fixed_bufs and the kernel takes IORING_URING_CMD_FIXED
	unsigned int buf_hint; ///< bufreg slot of the last fixed buffer used
	uint64_t nfixed;       ///< commands submitted with a fixed buffer (tests, statistics)
	uint64_t buf_gen[XNVME_BUFREG_SLOTS]; ///< bufreg generation registered per slot
	uint64_t buf_dels;                    ///< xnvme_bufreg_dels when buf_gen was last checked
	int fd;              ///< what SQEs carry: the fd, or 0 with IOSQE_FIXED_FILE
	uint8_t sqe_flags;   ///< IOSQE_* every SQE carries
	uint32_t timeout_ms; ///< io_uring_cmd: every command's timeout_ms (be_linux_nvme.h)
	int efd;             ///< eventfd of get_completion_fd, -1 until asked for
	const char *mech;    ///< mechanism name for messages
	struct xnvme_be_linux_uring_iov *iov; ///< indexed by xnvme_queue_ctx_idx()
};

/** What the kernel accepts, probed once per process (setup flags and opcodes) */
struct xnvme_be_linux_uring_caps {
	bool ring; ///< io_uring_setup works at all (errno in `err` otherwise)
	int err;
	bool submit_all;
	bool coop;          ///< COOP_TASKRUN|TASKRUN_FLAG
	bool defer;         ///< SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG|R_DISABLED
	bool single_issuer; ///< SINGLE_ISSUER|R_DISABLED
	bool big;           ///< SQE128|CQE32
	bool op_uring_cmd;  ///< IORING_OP_URING_CMD
	bool op_read_write; ///< IORING_OP_READ / IORING_OP_WRITE
};

const struct xnvme_be_linux_uring_caps *
xnvme_be_linux_uring_caps(void);

/**
 * The init of both mechanisms: sets queue->state to a ring of queue->capacity entries on the
 * handle's fd with `required` setup flags plus the optional ones, registered file when
 * opts.register_files or SQPOLL. Honours the queue opts and the device opts poll_io/poll_sq
 * (adding IOPOLL/SQPOLL to `required`). Fails with a negative errno and one line on stderr
 * naming `mech` and the reason.
 */
int
xnvme_be_linux_uring_queue_init(struct xnvme_queue *queue, int opts, const char *mech,
				unsigned int required);

/**
 * The term of both mechanisms. With commands outstanding, the kernel's share of them is waited
 * for first (without callbacks), so that their buffers may be freed once term returns.
 */
int
xnvme_be_linux_uring_queue_term(struct xnvme_queue *queue);

/** The eventfd signalled on completions, registered on first use; or a negative errno */
int
xnvme_be_linux_uring_queue_completion_fd(struct xnvme_queue *queue);

/**
 * The poke of "io_uring": cpl.result is the byte count of a completion, a negative res folds
 * into cpl as an errno.
 */
int
xnvme_be_linux_uring_poke_rw(struct xnvme_queue *queue, uint32_t max);

/**
 * The poke of "io_uring_cmd": res >= 0 is the NVMe status as the kernel reports it and
 * big_cqe[0] the command's result; a negative res folds into cpl as an errno.
 */
int
xnvme_be_linux_uring_poke_pass(struct xnvme_queue *queue, uint32_t max);

/**
 * opts.register_buffers: true with the registered index in `idx` when [buf, buf + nbytes) lies
 * in a buffer the library handed out (xnvme_bufreg.h), registering that buffer in the ring's
 * slot first when the slot holds another generation. False (ordinary I/O) for any other
 * buffer, or when the kernel refuses to register it (e.g. a file-backed mapping).
 */
bool
xnvme_be_linux_uring_fixed_buf(struct xnvme_be_linux_uring *u, const void *buf, size_t nbytes,
			       uint16_t *idx);

/**
 * Empties the ring's slots whose buffer was freed or unmapped since the last check, so that
 * the kernel unpins its pages (they count against RLIMIT_MEMLOCK) at once rather than when the
 * slot is reused or the ring exits
 */
void
xnvme_be_linux_uring_drop_stale(struct xnvme_be_linux_uring *u);

/**
 * Registered ring fds other threads terminated for this one: the count of hand-overs, and the
 * count this thread last looked at (uring.c)
 */
extern _Atomic uint64_t xnvme_be_linux_uring_dead_seq;
extern __thread uint64_t xnvme_be_linux_uring_dead_seen __attribute__((tls_model("initial-exec")));

/** Unregisters the ring fds of queues other threads terminated for this one (through `u`) */
void
xnvme_be_linux_uring_reap_dead(struct xnvme_be_linux_uring *u);

/** Slow paths of the flush below: enabling a disabled ring, registering the ring fd, errors */
int
xnvme_be_linux_uring_enable(struct xnvme_be_linux_uring *u);
void
xnvme_be_linux_uring_register_ring(struct xnvme_be_linux_uring *u);
int
xnvme_be_linux_uring_enter_err(struct xnvme_be_linux_uring *u, int err);

#ifdef XNVME_BE_LINUX_URING_FAULTS
/**
 * Fault injection of the test-only build of uring.c (tests/meson.build compiles it into
 * test_io_uring with XNVME_BE_LINUX_URING_FAULTS; the library has none of this): the next
 * `xnvme_be_linux_uring_fault_n` submitting enters fail with -xnvme_be_linux_uring_fault_err
 * without reaching the kernel (the SQEs stay queued). Only a ring whose `fast` is false looks
 * at it: clear that too to arm it.
 */
extern int xnvme_be_linux_uring_fault_n;
extern int xnvme_be_linux_uring_fault_err;
#endif

/** This thread's number for reg_owner: never 0, never reused within the process */
extern __thread uint64_t xnvme_be_linux_uring_tid __attribute__((tls_model("initial-exec")));
uint64_t
xnvme_be_linux_uring_self_slow(void);

static inline uint64_t
xnvme_be_linux_uring_self(void)
{
	uint64_t id = xnvme_be_linux_uring_tid;

	return __builtin_expect(id != 0, 1) ? id : xnvme_be_linux_uring_self_slow();
}

/** reg_owner of a ring without a registered fd: no thread's number (those are never 0) */
#define XNVME_BE_LINUX_URING_NO_OWNER UINT64_MAX

/**
 * io_uring_enter(2) made here rather than through liburing's exported wrapper (a PLT call
 * and two more frames on every poke). Returns the count or -errno.
 */
static inline int
xnvme_be_linux_uring_sys_enter(unsigned int fd, unsigned int to_submit, unsigned int min,
			       unsigned int flags, const void *arg, size_t argsz)
{
	return (int)xnvme_be_linux_sys6(__NR_io_uring_enter, fd, to_submit, min, flags,
					(long)(uintptr_t)arg, (long)argsz);
}

/** The enter of enter_sq through the registered index failed with EBADF: plain fd from now */
int
xnvme_be_linux_uring_enter_unreg(struct xnvme_be_linux_uring *u, unsigned int to_submit,
				 unsigned int flags);

/**
 * Enters once (non-SQPOLL rings) through the registered ring fd when this thread owns it:
 * submits `nsub` published SQEs with `flags` (IORING_ENTER_*). The count submitted or -errno.
 */
static inline int
xnvme_be_linux_uring_enter(struct xnvme_be_linux_uring *u, unsigned int nsub, unsigned int flags)
{
	int ret;

	/* no owner matches a thread's number, 0 (not yet drawn) included */
	if (u->reg_owner == xnvme_be_linux_uring_tid) {
		ret = xnvme_be_linux_uring_sys_enter((unsigned int)u->reg_idx, nsub, 0,
						     flags | IORING_ENTER_REGISTERED_RING, NULL, 0);
		if (__builtin_expect(ret != -EBADF, 1)) {
			return ret;
		}
		return xnvme_be_linux_uring_enter_unreg(u, nsub, flags);
	}
	return xnvme_be_linux_uring_sys_enter((unsigned int)u->ring.ring_fd, nsub, 0, flags, NULL,
					      0);
}

/** The SQEs filled and not yet taken by the kernel (published by a failed enter included) */
static inline unsigned int
xnvme_be_linux_uring_sq_pending(const struct xnvme_be_linux_uring *u)
{
	return u->ring.sq.sqe_tail - __atomic_load_n(u->ring.sq.khead, __ATOMIC_ACQUIRE);
}

/**
 * Publishes the new SQEs and enters once: submits them and, when completions need an enter
 * to be posted, asks for those too. Non-SQPOLL rings only. The count submitted or -errno.
 */
static inline int
xnvme_be_linux_uring_enter_sq(struct xnvme_be_linux_uring *u, unsigned int nsub)
{
	struct io_uring_sq *sq = &u->ring.sq;
	unsigned int flags = u->enter_flags;

	sq->sqe_head = sq->sqe_tail;
	io_uring_smp_store_release(sq->ktail, sq->sqe_tail);
	if (IO_URING_READ_ONCE(*sq->kflags) & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW)) {
		flags |= IORING_ENTER_GETEVENTS;
	}
	return xnvme_be_linux_uring_enter(u, nsub, flags);
}

/** The flush below when the ring is not `fast` (not enabled, not registered, SQPOLL) */
int
xnvme_be_linux_uring_flush_slow(struct xnvme_be_linux_uring *u);

/**
 * Hands the `nsub` pending SQEs (xnvme_be_linux_uring_sq_pending()) to the kernel and lets it
 * post completions when it needs us to enter. Returns 0, or a negative errno for a fatal ring
 * error.
 */
static inline int
xnvme_be_linux_uring_flush_n(struct xnvme_be_linux_uring *u, unsigned int nsub)
{
	struct io_uring *ring = &u->ring;
	int ret;

	if (nsub) {
		if (u->fixed_bufs &&
		    __builtin_expect(atomic_load_explicit(&xnvme_bufreg_dels,
							  memory_order_relaxed) != u->buf_dels,
				     0)) {
			xnvme_be_linux_uring_drop_stale(u);
		}
		if (__builtin_expect(atomic_load_explicit(&xnvme_be_linux_uring_dead_seq,
							  memory_order_relaxed) !=
					     xnvme_be_linux_uring_dead_seen,
				     0)) {
			xnvme_be_linux_uring_reap_dead(u);
		}
		if (__builtin_expect(!u->fast, 0)) {
			return xnvme_be_linux_uring_flush_slow(u);
		}
		ret = xnvme_be_linux_uring_enter_sq(u, nsub);
	} else if ((IO_URING_READ_ONCE(*ring->sq.kflags) &
		    (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW)) ||
		   (u->iopoll && !io_uring_cq_ready(ring))) {
		if (u->setup_flags & IORING_SETUP_SQPOLL) {
			ret = io_uring_get_events(ring);
		} else {
			ret = xnvme_be_linux_uring_enter(u, 0, IORING_ENTER_GETEVENTS);
		}
	} else {
		return 0;
	}
	return __builtin_expect(ret >= 0, 1) ? 0 : xnvme_be_linux_uring_enter_err(u, ret);
}

static inline int
xnvme_be_linux_uring_flush(struct xnvme_be_linux_uring *u)
{
	return xnvme_be_linux_uring_flush_n(u, xnvme_be_linux_uring_sq_pending(u));
}

/**
 * True when poke has nothing to do: no SQE waits for submission (`nsub` is 0), no completion
 * waits to be reaped, the kernel asks for no enter, and completions are not polled. The
 * busy-polling client's common case, kept to a handful of loads.
 */
static inline bool
xnvme_be_linux_uring_idle(const struct xnvme_be_linux_uring *u, unsigned int nsub)
{
	const struct io_uring *ring = &u->ring;

	return !nsub && !io_uring_cq_ready(ring) && !u->iopoll &&
	       !(IO_URING_READ_ONCE(*ring->sq.kflags) &
		 (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW));
}

/**
 * io_uring_get_sqe() with what it looks up per call fixed at queue init; `shift` is 0 for
 * 64-byte SQEs, 1 for SQE128. NULL when the ring is full.
 */
static inline struct io_uring_sqe *
xnvme_be_linux_uring_get_sqe(struct xnvme_be_linux_uring *u, unsigned int shift)
{
	struct io_uring_sq *sq = &u->ring.sq;
	unsigned int tail = sq->sqe_tail;

	if (__builtin_expect(tail - __atomic_load_n(sq->khead, __ATOMIC_ACQUIRE) >= u->sq_entries,
			     0)) {
		return NULL;
	}
	sq->sqe_tail = tail + 1;
	return &sq->sqes[(size_t)(tail & u->sq_mask) << shift];
}

/**
 * Fills the first 8 bytes of `sqe`: `op`, the ring's IOSQE flags, ioprio 0 and the ring's fd,
 * as one store of the word precomputed at queue init
 */
static inline void
xnvme_be_linux_uring_sqe_head(const struct xnvme_be_linux_uring *u, struct io_uring_sqe *sqe,
			      uint8_t op)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w0 = u->sqe_w0 | op;
#else
	uint64_t w0 = u->sqe_w0 | ((uint64_t)op << 56);
#endif
	_Static_assert(offsetof(struct io_uring_sqe, opcode) == 0 &&
			       offsetof(struct io_uring_sqe, fd) == 4,
		       "opcode, flags, ioprio and fd are the SQE's first 8 bytes");
	memcpy(sqe, &w0, sizeof(w0));
}

/**
 * Queues the prepared `sqe` of `ctx` for the next poke; submits at once when batching is off
 * (failures then resurface in poke). Returns 0.
 */
static inline int
xnvme_be_linux_uring_queue_sqe(struct xnvme_be_linux_uring *u, struct io_uring_sqe *sqe,
			       struct xnvme_cmd_ctx *ctx)
{
	io_uring_sqe_set_data(sqe, ctx);
	if (__builtin_expect(!u->batching, 0)) {
		xnvme_be_linux_uring_flush(u);
	}
	return 0;
}

/**
 * Completes `ctx` with the verdict already in its cpl through the ring, as a NOP in `sqe` that
 * never reaches the device: poke runs its callback. Returns 0.
 */
static inline int
xnvme_be_linux_uring_queue_nop(struct xnvme_be_linux_uring *u, struct io_uring_sqe *sqe,
			       struct xnvme_cmd_ctx *ctx)
{
	io_uring_prep_nop(sqe);
	return xnvme_be_linux_uring_queue_sqe(u, sqe, ctx);
}

#endif /* XNVME_HAVE_LIBURING */
#endif /* XNVME_BE_LINUX_URING_H */
