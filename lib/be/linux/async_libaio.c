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
 * Completion: poke reads the completion ring the kernel maps at the io_context_t address
 * (struct la_ring below) without a system call: acquire-load the tail, read the events, fold
 * them into their contexts, release-store the head (the kernel reads it back to recycle its
 * request slots, in io_submit). Only when that ring is not recognisable (magic, features,
 * header size) does poke fall back to io_getevents with a zero timeout. A poke that finds
 * nothing ready returns 0; the second such poke in a row waits in io_getevents for one event
 * (at most XNVME_BE_POKE_WAIT_NS, more on a slow device: poke_wait.h; never with
 * XNVME_QUEUE_POKE_SPIN).
 *
 * The wait's bound is a per-queue watchdog, not a timeout of io_getevents: a timeout makes the
 * kernel arm and cancel a high-resolution timer per wait, which costs microseconds of CPU per
 * I/O where programming the timer exits a virtual machine. The watchdog is a timerfd with an
 * IOCB_CMD_POLL iocb on it in the queue's own context, whose event's data is the state (never
 * a context): a wait that finds it unarmed sets the timer (one-shot, the wait's bound) and
 * submits the poll, then waits without a timeout. It stays armed across waits until it fires,
 * so a device completing in tens of microseconds pays about one arm per bound instead of a
 * timer per wait; a wait it ends returns 0 like a timeout. Every reaper consumes its event
 * without counting it (no callback, not outstanding, no IOCB_FLAG_RESFD: not in `unarmed`).
 * Inside xnvme_queue_drain_timeout() waits keep their own 1 ms timeout; a kernel without
 * IOCB_CMD_POLL (before 4.18) or timerfd gets timed waits for that queue.
 *
 * Events are taken in batches of LA_REAP_BATCH and the head advanced before their callbacks
 * run, so a callback's nested poke never touches what an outer poke still has to deliver.
 *
 * Completion fd: xnvme_queue_get_completion_fd() creates an eventfd on first use; from then
 * on every iocb carries IOCB_FLAG_RESFD. Without it no iocb pays for signalling one. Commands
 * already in the kernel when the fd is created cannot be armed after the fact: until the last
 * of them is reaped (counted in `unarmed`, told apart by the iocb's flag), the fd is signalled
 * at creation and again at the end of every poke, so a caller that waits on the fd and then
 * pokes never waits for a completion nobody will signal. Commands completed without reaching
 * the kernel (the ready list) signal it too.
 *
 * AIO contexts are reused: io_destroy waits for an RCU grace period (~30 ms), which made
 * every short-lived queue slow to terminate. Term first waits for the requests the kernel
 * still holds (their buffers may be freed once term returns; an armed watchdog is made to
 * fire at once and counted with them) and reaps their events, then parks the now idle context
 * in a small process-wide cache; init takes the smallest parked context with room for its
 * capacity before calling io_setup. Parked contexts count against fs.aio-max-nr, so the cache
 * holds at most LA_CACHE_EVENTS events and an io_setup refused with EAGAIN destroys them and
 * retries. Contexts of a parent process are not inherited across fork and are never handed
 * out in the child.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "../common/async_stubs.h"
#include "be_linux.h"
#include "be_linux_libaio.h"
#include "be_linux_rw.h"
#include "poke_wait.h"
#include "xnvme_config.h"

#ifdef XNVME_HAVE_LIBAIO

/*
 * Valgrind's io_setup wrapper makes only the events asked for addressable, the kernel's ring
 * is larger: tell memcheck about all of it (a no-op outside valgrind; optional header)
 */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define LA_RING_DEFINED(p, n) VALGRIND_MAKE_MEM_DEFINED(p, n)
#endif
#endif
#ifndef LA_RING_DEFINED
#define LA_RING_DEFINED(p, n) ((void)(p), (void)(n))
#endif

/* Room to trim a vector that is longer than its command (IOV_MAX: what the kernel accepts) */
#define LA_IOV_SCRATCH 1024

/* Events one poke level takes from the kernel before running their callbacks */
#define LA_REAP_BATCH 32

/* Idle AIO contexts kept for later queues, and the events they may hold in all: parked
 * contexts count against the system-wide fs.aio-max-nr */
#define LA_CACHE_LEN 8
#define LA_CACHE_EVENTS 8192

/*
 * The completion ring the kernel maps at the io_context_t address (fs/aio.c, struct aio_ring;
 * a stable user-space ABI since Linux 2.6). The kernel writes events and then `tail`; the
 * reader owns `head`. Both stay below `nr`.
 */
struct la_ring {
	unsigned int id;
	unsigned int nr; ///< events in the ring
	unsigned int head;
	unsigned int tail;
	unsigned int magic;
	unsigned int compat_features;
	unsigned int incompat_features;
	unsigned int header_length; ///< sizeof(struct la_ring)
	struct io_event events[];
};
_Static_assert(sizeof(struct la_ring) == 32, "aio_ring header");
_Static_assert(offsetof(struct la_ring, tail) == 12, "aio_ring tail");
_Static_assert(offsetof(struct la_ring, magic) == 16, "aio_ring magic");
_Static_assert(sizeof(struct io_event) == 32, "io_event");

#define LA_RING_MAGIC 0xa10a10a1u

#ifndef IOCB_FLAG_RESFD
#define IOCB_FLAG_RESFD (1 << 0) /* linux/aio_abi.h: signal aio_resfd on completion */
#endif

static struct {
	pthread_mutex_t lock;
	uint32_t n;
	pid_t pid; ///< process the parked contexts belong to
	struct {
		io_context_t aio;
		unsigned int nr_events;
	} ent[LA_CACHE_LEN];
} la_cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* An idle parked context with room for `nr_events`, or 0 */
static io_context_t
la_cache_take(unsigned int nr_events, unsigned int *got)
{
	io_context_t aio = 0;
	pid_t pid = getpid();
	uint32_t best = LA_CACHE_LEN;

	pthread_mutex_lock(&la_cache.lock);
	if (la_cache.pid != pid) {
		la_cache.n = 0; /* a forked child: the parent's contexts are not ours */
		la_cache.pid = pid;
	}
	for (uint32_t i = 0; i < la_cache.n; ++i) {
		if (la_cache.ent[i].nr_events >= nr_events &&
		    (best == LA_CACHE_LEN ||
		     la_cache.ent[i].nr_events < la_cache.ent[best].nr_events)) {
			best = i;
		}
	}
	if (best < LA_CACHE_LEN) {
		aio = la_cache.ent[best].aio;
		*got = la_cache.ent[best].nr_events;
		la_cache.ent[best] = la_cache.ent[--la_cache.n];
	}
	pthread_mutex_unlock(&la_cache.lock);
	return aio;
}

/* Events of the parked contexts; under the lock */
static unsigned int
la_cache_events(void)
{
	unsigned int sum = 0;

	for (uint32_t i = 0; i < la_cache.n; ++i) {
		sum += la_cache.ent[i].nr_events;
	}
	return sum;
}

/* Destroys every parked context: io_setup ran out of fs.aio-max-nr; true when any was */
static bool
la_cache_flush(void)
{
	bool any = false;

	pthread_mutex_lock(&la_cache.lock);
	if (la_cache.pid == getpid()) {
		for (uint32_t i = 0; i < la_cache.n; ++i) {
			io_destroy(la_cache.ent[i].aio);
			any = true;
		}
	}
	la_cache.n = 0;
	pthread_mutex_unlock(&la_cache.lock);
	return any;
}

/* Parks an idle context; false when the cache is full (the caller destroys it) */
static bool
la_cache_put(io_context_t aio, unsigned int nr_events)
{
	pid_t pid = getpid();
	bool parked = false;

	pthread_mutex_lock(&la_cache.lock);
	if (la_cache.pid != pid) {
		la_cache.n = 0;
		la_cache.pid = pid;
	}
	if (la_cache.n < LA_CACHE_LEN && nr_events <= LA_CACHE_EVENTS - la_cache_events()) {
		la_cache.ent[la_cache.n].aio = aio;
		la_cache.ent[la_cache.n].nr_events = nr_events;
		la_cache.n++;
		parked = true;
	}
	pthread_mutex_unlock(&la_cache.lock);
	return parked;
}

/* Waits for `inflight` requests the kernel holds, discarding their events; false on failure */
static bool
la_quiesce(io_context_t aio, uint32_t inflight)
{
	struct io_event events[LA_REAP_BATCH];

	while (inflight) {
		/* bounded: a miscount must not hang term; io_destroy then waits instead */
		struct timespec limit = {.tv_sec = 10, .tv_nsec = 0};
		long want = inflight < LA_REAP_BATCH ? (long)inflight : LA_REAP_BATCH;
		int ret = io_getevents(aio, want, want, events, &limit);

		if (ret == -EINTR) {
			continue;
		}
		if (ret <= 0) {
			return false;
		}
		inflight -= (uint32_t)ret;
	}
	return true;
}

/* The ring of `aio` when the kernel's layout is the one known here, else NULL */
static struct la_ring *
la_ring_of(io_context_t aio)
{
	struct la_ring *ring = (struct la_ring *)aio;

	if (!ring || ring->magic != LA_RING_MAGIC || ring->incompat_features ||
	    ring->header_length != sizeof(*ring) || !ring->nr || ring->head >= ring->nr) {
		return NULL;
	}
	LA_RING_DEFINED(ring, sizeof(*ring) + (size_t)ring->nr * sizeof(struct io_event));
	return ring;
}

/* Makes the completion fd readable; a full counter (2^64 - 2 pending) is readable anyway */
static void
la_signal(const struct la_state *state)
{
	uint64_t one = 1;

	if (write(state->efd, &one, sizeof(one)) < 0) {
		return;
	}
}

/*
 * True for the watchdog's event, which is consumed here (the watchdog is unarmed); false for a
 * command's. Its data is the state, never a context.
 */
static inline bool
la_wd_event(struct la_state *state, const void *data)
{
	if (__builtin_expect(data != (const void *)state, 1)) {
		return false;
	}
	state->wd_armed = false;
	return true;
}

/*
 * Bounds the idle wait about to start by `ns` with the watchdog: 1 armed now (timerfd one-shot
 * in `ns`, then its poll iocb submitted), 0 already armed (it fires within `ns`: a bound that
 * shrank since moves the timer closer, the poll stays), -1 not available (the wait carries its
 * own timeout: timerfd or IOCB_CMD_POLL refused, for good, or the kernel short of slots).
 */
static int
la_wd_arm(struct la_state *state, uint32_t ns)
{
	struct itimerspec its = {.it_value = {.tv_sec = 0, .tv_nsec = (long)ns}};
	struct iocb *cb = &state->wd_cb;
	long ret;

	if (state->wd_armed) {
		if (ns < state->wd_ns && !timerfd_settime(state->wd_fd, 0, &its, NULL)) {
			state->wd_ns = ns;
		}
		return 0;
	}
	if (state->wd_fd == XNVME_BE_LINUX_LIBAIO_WD_REFUSED) {
		return -1;
	}
	if (state->wd_fd < 0) {
		state->wd_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (state->wd_fd < 0) {
			state->wd_fd = XNVME_BE_LINUX_LIBAIO_WD_REFUSED;
			return -1;
		}
		io_prep_poll(cb, state->wd_fd, POLLIN); /* no IOCB_FLAG_RESFD: nobody waits on it */
		cb->data = state;
	}
	/* also clears the expiration count of the last firing: the poll sees no stale POLLIN */
	if (timerfd_settime(state->wd_fd, 0, &its, NULL)) {
		return -1;
	}
	ret = syscall(SYS_io_submit, state->aio, 1L, &cb);
	if (ret != 1) {
		if (ret < 0 && errno != EAGAIN && errno != EINTR) {
			/* no IOCB_CMD_POLL (before Linux 4.18): the timer fires unseen, harmlessly */
			close(state->wd_fd);
			state->wd_fd = XNVME_BE_LINUX_LIBAIO_WD_REFUSED;
		}
		return -1;
	}
	state->wd_armed = true;
	state->wd_ns = ns;
	state->wd_arms++;
	return 1;
}

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
		if (state->aio) {
			/* outstanding commands not on the ready list are held by the kernel */
			uint32_t inflight = queue->outstanding > state->nready
						    ? queue->outstanding - state->nready
						    : 0;
			/* an armed watchdog fires now: its event is one more to wait for */
			struct itimerspec now = {.it_value = {.tv_sec = 0, .tv_nsec = 1}};
			bool fired =
				!state->wd_armed || !timerfd_settime(state->wd_fd, 0, &now, NULL);

			if (!fired || !la_quiesce(state->aio, inflight + state->wd_armed) ||
			    !la_cache_put(state->aio, state->nr_events)) {
				/* cancels the watchdog, waits for what is left in flight */
				io_destroy(state->aio);
			}
		}
		if (state->wd_fd >= 0) {
			close(state->wd_fd); /* after the context: no poll left on it */
		}
		if (state->efd >= 0) {
			close(state->efd);
		}
		free(state->scratch);
		free(state->iocbs);
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

	err = xnvme_be_linux_queue_state(queue, sizeof(*state), &lstate);
	if (err) {
		return err;
	}
	state = queue->state;
	state->fd = lstate->fd;
	state->efd = -1;
	state->wd_fd = XNVME_BE_LINUX_LIBAIO_WD_NONE;
	/* before the cache lookup: a reused context must wait like a fresh one */
	state->wait = !xnvme_be_queue_poke_spin(opts);
	state->ready = calloc(nctx, sizeof(*state->ready));
	state->iocbs = calloc(nctx, sizeof(*state->iocbs));
	state->scratch = calloc(LA_IOV_SCRATCH, sizeof(*state->scratch));
	if (!state->ready || !state->iocbs || !state->scratch) {
		la_term(queue);
		return -ENOMEM;
	}
	state->aio = la_cache_take(queue->capacity, &state->nr_events);
	if (state->aio) {
		state->ring = la_ring_of(state->aio);
		return 0;
	}
	err = io_setup((int)queue->capacity, &state->aio);
	if (err == -EAGAIN && la_cache_flush()) {
		err = io_setup((int)queue->capacity, &state->aio); /* parked ones held the events */
	}
	if (err) {
		state->aio = 0;
		xnvme_last_error_set("linux: async mechanism 'libaio': io_setup(%u): %s%s",
				     queue->capacity, strerror(-err),
				     err == -EAGAIN ? " (fs.aio-max-nr reached?)" : "");
		la_term(queue);
		return err;
	}
	state->nr_events = queue->capacity;
	state->ring = la_ring_of(state->aio);
	return 0;
}

/*
 * Up to `want` events off the mapped ring into `batch`, folded into their contexts; the head
 * moves past them before any callback runs. -1: the ring is unusable (io_getevents instead).
 */
static inline int
la_ring_reap(struct la_state *state, struct xnvme_cmd_ctx **batch, uint32_t want)
{
	struct la_ring *ring = state->ring;
	unsigned int nr = ring->nr, head = ring->head;
	unsigned int tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
	uint32_t nb = 0;
	bool moved = false; ///< the watchdog's event was taken

	if (__builtin_expect(tail >= nr || head >= nr, 0)) {
		return -1;
	}
	while (head != tail && nb < want) {
		const struct io_event *ev = &ring->events[head];
		struct xnvme_cmd_ctx *ctx = (struct xnvme_cmd_ctx *)(uintptr_t)ev->data;

		if (++head == nr) {
			head = 0;
		}
		if (la_wd_event(state, ctx)) {
			moved = true;
			continue;
		}
		if (__builtin_expect(state->unarmed != 0, 0) &&
		    !(((const struct iocb *)(uintptr_t)ev->obj)->u.c.flags & IOCB_FLAG_RESFD)) {
			state->unarmed--;
		}
		xnvme_be_linux_rw_cpl(ctx, (long)ev->res);
		batch[nb++] = ctx;
	}
	if (nb || moved) {
		/* the events are read: the kernel may reuse their slots */
		__atomic_store_n(&ring->head, head, __ATOMIC_RELEASE);
	}
	return (int)nb;
}

/*
 * The system call route of la_ring_reap(); the negative errno on failure. Waits for `min_nr`
 * events up to `ts` (NULL: no timeout of its own, see la_wait()).
 */
static int
la_syscall_reap(struct la_state *state, struct xnvme_cmd_ctx **batch, uint32_t want, long min_nr,
		struct timespec *ts)
{
	struct io_event events[LA_REAP_BATCH];
	int ret = io_getevents(state->aio, min_nr, (long)want, events, ts);
	int n = 0;

	if (ret == -EINTR) {
		return 0;
	}
	for (int i = 0; i < ret; ++i) {
		struct xnvme_cmd_ctx *ctx = events[i].data;

		if (la_wd_event(state, ctx)) {
			continue;
		}
		if (state->unarmed &&
		    !(((const struct iocb *)events[i].obj)->u.c.flags & IOCB_FLAG_RESFD)) {
			state->unarmed--;
		}
		xnvme_be_linux_rw_cpl(ctx, (long)events[i].res);
		batch[n++] = ctx;
	}
	return ret < 0 ? ret : n;
}

/*
 * The idle wait for one event, bounded as poke_wait.h says. It blocks without a timeout of its
 * own while the watchdog is armed (arming it when it is not), so the kernel arms no timer per
 * wait: at a fast device's rate about one arm per bound, not one per wait. A wait that the
 * watchdog armed here ends is one that ran out; one ended by a watchdog armed earlier says
 * nothing about the device. Inside drain_timeout (XNVME_BE_QUEUE_DEADLINE) and where the
 * watchdog is not available the wait carries its own timeout, as the 1 ms there must hold
 * also while a longer watchdog is armed.
 */
static __attribute__((noinline)) int
la_wait(struct xnvme_queue *queue, struct la_state *state, struct xnvme_cmd_ctx **batch,
	uint32_t want)
{
	uint32_t ns = xnvme_be_linux_pwait_begin(&state->pwait, queue);
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ns};
	int arm = (queue->opts & XNVME_BE_QUEUE_DEADLINE) ? -1 : la_wd_arm(state, ns);
	bool armed = state->wd_armed;
	int ret = la_syscall_reap(state, batch, want, 1, arm < 0 ? &ts : NULL);

	if (ret > 0) {
		xnvme_be_linux_pwait_end(&state->pwait, false);
	} else if (!ret && (armed && !state->wd_armed ? arm == 1 : arm < 0)) {
		xnvme_be_linux_pwait_end(&state->pwait, true);
	}
	return ret;
}

/*
 * True for the second top-level poke in a row that finds nothing ready while commands are in
 * the kernel: the caller is waiting for one, so wait in io_getevents like fio's own libaio
 * engine instead of spinning against the kernel threads (loop device) that do the I/O.
 */
static inline bool
la_may_wait(struct xnvme_queue *queue, struct la_state *state)
{
	return state->wait && !queue->nested && queue->outstanding > state->nready &&
	       state->nidle++ >= 1;
}

static __attribute__((noinline)) int
la_poke_batch(struct xnvme_queue *queue, struct la_state *state, uint32_t max)
{
	struct xnvme_cmd_ctx *batch[LA_REAP_BATCH];
	uint32_t n = 0, lim;
	int ret, err = 0;

	lim = (max && max < queue->outstanding) ? max : queue->outstanding;
	while (n < lim) {
		uint32_t nb = 0, want = lim - n;

		if (want > LA_REAP_BATCH) {
			want = LA_REAP_BATCH;
		}
		while (state->nready && nb < want) {
			batch[nb++] = state->ready[--state->nready];
		}
		if (nb < want) {
			ret = state->ring ? la_ring_reap(state, batch + nb, want - nb) : -1;
			if (__builtin_expect(ret < 0, 0)) {
				struct timespec zero = {0, 0};

				ret = la_syscall_reap(state, batch + nb, want - nb, 0, &zero);
			} else if (!ret && !nb && !n && la_may_wait(queue, state)) {
				ret = la_wait(queue, state, batch, want);
				if (ret < 0) {
					state->wait = false; /* refused: spin from now on */
					ret = 0;
				}
			}
			if (__builtin_expect(ret < 0, 0)) {
				fprintf(stderr, "# xnvme_queue_poke(libaio): io_getevents: %s\n",
					strerror(-ret));
				err = ret; /* what this level already took is delivered below */
				lim = n + nb;
				ret = 0;
			}
			nb += (uint32_t)ret;
		}
		if (!nb) {
			break;
		}
		/* taken off the kernel's ring and the ready list: callbacks may submit and poke */
		for (uint32_t i = 0; i < nb; ++i) {
			xnvme_queue_complete(queue, batch[i]);
		}
		n += nb;
		if (nb < want) {
			break; /* nothing more was ready */
		}
	}
	if (__builtin_expect(state->unarmed != 0, 0) && state->efd >= 0) {
		la_signal(state); /* unarmed commands remain: keep a waiter poking */
	}
	if (n) {
		state->nidle = 0;
	}
	return (n || !err) ? (int)n : err;
}

/*
 * Exactly one event on the ring and nothing else to deliver or signal (queue depth 1, or
 * completions trickling in): taken here without a batch; everything else in la_poke_batch()
 */
static int
la_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct la_state *state = queue->state;
	struct la_ring *ring = state->ring;

	if (XNVME_BE_UNLIKELY(xnvme_be_poke_skip(queue))) {
		return 0;
	}
	if (XNVME_BE_LIKELY(ring && !state->nready && !state->unarmed)) {
		unsigned int head = ring->head, next = head + 1;
		struct xnvme_cmd_ctx *ctx;

		if (next == ring->nr) {
			next = 0;
		}
		if (__atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE) == next && head < ring->nr &&
		    ring->events[head].data != (void *)state) {
			const struct io_event *ev = &ring->events[head];

			ctx = (struct xnvme_cmd_ctx *)(uintptr_t)ev->data;
			xnvme_be_linux_rw_cpl(ctx, (long)ev->res);
			/* the event is read: the kernel may reuse its slot, a nested poke skips it */
			__atomic_store_n(&ring->head, next, __ATOMIC_RELEASE);
			state->nidle = 0;
			xnvme_queue_complete(queue, ctx);
			return 1;
		}
	}
	return la_poke_batch(queue, state, max);
}

/* Completes `ctx` with cpl as it is, at the next poke */
static int
la_ready(struct la_state *state, struct xnvme_cmd_ctx *ctx)
{
	state->ready[state->nready++] = ctx;
	if (state->efd >= 0) {
		la_signal(state);
	}
	return 0;
}

static inline int
la_submit(struct la_state *state, struct xnvme_cmd_ctx *ctx, struct iocb *cb)
{
	int ret;

	if (state->efd >= 0) {
		io_set_eventfd(cb, state->efd);
	}
	cb->data = ctx;
	/* the system call itself: libaio's wrapper adds a call and a PLT hop per command */
	ret = (int)xnvme_be_linux_sys4(SYS_io_submit, (long)(uintptr_t)state->aio, 1L,
				       (long)(uintptr_t)&cb, 0);
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

/*
 * A read or write into the context's own iocb: the fields of a transfer only. The rest stays
 * as calloc() and the io_prep_*() of other commands (which clear the iocb) left it, zero but
 * for the eventfd fields la_submit() sets anyway; libaio's io_prep_pread() clears the whole
 * iocb every time.
 */
static inline void
la_prep_rw(struct iocb *cb, int fd, short opcode, void *buf, size_t len, long long off)
{
	cb->aio_lio_opcode = opcode;
	cb->aio_reqprio = 0;
	cb->aio_fildes = fd;
	cb->u.c.buf = buf;
	cb->u.c.nbytes = len;
	cb->u.c.offset = off;
}

static inline __attribute__((always_inline)) int
la_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf, size_t mbuf_nbytes)
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
		la_prep_rw(cb, state->fd, IO_CMD_PREAD, dbuf, len, (long long)off);
		break;
	case XNVME_BE_LINUX_RW_WRITE:
		la_prep_rw(cb, state->fd, IO_CMD_PWRITE, dbuf, len, (long long)off);
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

/* Rule 4: the command is already counted, a refusal takes the count back */
static int
la_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	int err = la_io(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);

	return XNVME_BE_UNLIKELY(err) ? xnvme_be_cmd_refused(ctx, err) : 0;
}

static inline __attribute__((always_inline)) int
la_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
       void *mbuf, size_t mbuf_nbytes)
{
	struct la_state *state = ctx->async.queue->state;
	struct iocb *cb = la_iocb(ctx);
	const struct iovec *vec = dvec;
	size_t total, cnt = dvec_cnt, len;
	uint64_t off;
	int rw;

	(void)dvec_nbytes; /* advisory; the iovec lengths define the transfer (libxnvme_cmd.h) */

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
		return la_io(ctx, NULL, 0, NULL, 0);
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
la_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	   void *mbuf, size_t mbuf_nbytes)
{
	int err = la_iov(ctx, dvec, dvec_cnt, dvec_nbytes, mbuf, mbuf_nbytes);

	return err ? xnvme_be_cmd_refused(ctx, err) : 0;
}

static int
la_get_completion_fd(struct xnvme_queue *queue)
{
	struct la_state *state = queue->state;

	state->wait = false; /* the caller waits on the fd: pokes must not block */
	if (state->efd < 0) {
		int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

		if (efd < 0) {
			return -errno;
		}
		state->efd = efd;
		/* what is already in the kernel was submitted without the fd */
		state->unarmed =
			queue->outstanding > state->nready ? queue->outstanding - state->nready : 0;
		if (state->unarmed || state->nready) {
			la_signal(state);
		}
	}
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
	xnvme_last_error_set("linux: async mechanism 'libaio': built without libaio");
	return -ENOSYS;
}

const struct xnvme_be_async xnvme_be_linux_async_libaio =
	XNVME_BE_ASYNC_ABSENT("libaio", la_check_support, la_init);

#endif /* XNVME_HAVE_LIBAIO */
