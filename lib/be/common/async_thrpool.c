// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "thrpool": each queue owns a few worker threads that run submitted commands
 * through the device's sync mechanism; poke delivers finished ones and runs their callbacks on
 * the caller's thread.
 *
 * Hand-over without locks. The submission ring has one producer (the queue's thread) and the
 * workers as consumers: a worker claims the command at sq_head with a compare-and-swap. A
 * finished command is pushed onto a lock-free stack (a link per context), which poke, its only
 * consumer, takes whole with one exchange and reverses into completion order. Both hold at
 * most `capacity` contexts (the core bounds outstanding commands), so the ring is sized to the
 * next power of two and never overflows.
 *
 * Few wake-ups. What a hand-over costs is waking a sleeping thread (a futex call for the waker,
 * a sleep and two context switches for the sleeper), and on CPU-bound reads (tmpfs, unwritten
 * extents, the page cache) workers beyond the CPUs only take the CPU from the submitting thread
 * and then sleep and are woken once per command. So:
 * - a submission, or a worker that claims a command and leaves more queued, wakes a sleeper
 *   only while fewer workers are awake than may be: all of them while commands block in the
 *   OS (device I/O: concurrency pays), else one per CPU but the submitter's (one on two
 *   CPUs). Each worker checks one command in THRPOOL_SAMPLE (and its first) for blocking
 *   waits (voluntary context switches of the thread; where the OS does not tell, every
 *   command counts as blocking). A worker finishing a command takes the next without a
 *   wake-up, so a burst costs one wake-up, not one per command;
 * - sleepers are counted (`nsleeping`, the ones no wake-up has claimed yet) and woken through a
 *   semaphore, one post per claimed sleeper and none when nobody sleeps. A sleeper registers
 *   and then looks at the ring once more, the submitter publishes and then looks at the count
 *   (both sequentially consistent), so a wake-up is never lost. A semaphore rather than a
 *   condition variable: a post wakes a sleeper with one call and cannot be lost (glibc < 2.38
 *   condvars can, bug 25847);
 * - an idle poke (see thrpool_idle_wait()) sleeps only when the caller polls in a row, the
 *   workers post to it only while it sleeps, and while commands do not block it sleeps until
 *   several have finished, not the first.
 * Idle workers do not spin: on two CPUs a spinning worker cost more CPU per I/O than the
 * wake-ups it saved.
 *
 * glibc's POSIX AIO (fio's `posixaio`) by comparison queues every request on one file
 * descriptor to a single helper thread, in order.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "async_deferred.h"
#include "async_stubs.h"
#include "xnvme_plat.h"

#define THRPOOL_NTHREADS_DEFAULT 4
#define THRPOOL_NTHREADS_MAX 1023
#define THRPOOL_ENV_NTHREADS "XNVME_BE_CBI_ASYNC_THRPOOL_NTHREADS"

/* One command in this many of each worker is checked for blocking in the OS */
#define THRPOOL_SAMPLE 32

/* Most completions an idle poke waits for at once (thrpool_idle_wait()) */
#define THRPOOL_WAIT_BATCH 16

/* Separates the fields one side writes from those the other side writes */
#define THRPOOL_LINE 64

/* The clock of an idle poke's deadline: sem_timedwait() counts in CLOCK_REALTIME */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 30))
#define THRPOOL_WAIT_CLOCK CLOCK_MONOTONIC
#define THRPOOL_SEM_WAIT_UNTIL(sem, ts) sem_clockwait(sem, CLOCK_MONOTONIC, ts)
#else
#define THRPOOL_WAIT_CLOCK CLOCK_REALTIME
#define THRPOOL_SEM_WAIT_UNTIL(sem, ts) sem_timedwait(sem, ts)
#endif

struct thrpool_state {
	/* Set at init, then read only (the workers read them too) */
	struct xnvme_queue *queue;
	struct xnvme_cmd_ctx **sq;
	struct xnvme_cmd_ctx **link;       ///< per context (index): completion stack and ready list
	struct xnvme_be_deferred *entries; ///< per context (index): the submitted buffers
	uint32_t mask;
	uint32_t nworkers;     ///< workers started
	uint32_t ncpu_workers; ///< workers awake at most while commands do not block
	bool wait;             ///< idle pokes may sleep (not XNVME_QUEUE_POKE_SPIN)
	int nthreads;
	pthread_t *threads;
	sem_t sq_sem; ///< one post per claimed sleeper, one per worker at stop
	sem_t cq_sem; ///< posted by the worker that counts `waiting` down to 0

	/* The queue's thread alone (submit, poke) */
	struct xnvme_cmd_ctx *ready_head; ///< taken off the stack, not yet delivered
	struct xnvme_cmd_ctx *ready_tail;
	uint32_t nready;
	uint32_t nidle; ///< pokes in a row that found nothing ready
	uint32_t stale; ///< posts to cq_sem owed to earlier waits

	_Alignas(THRPOOL_LINE) uint32_t sq_tail; ///< stored by the submitter, loaded by workers
	_Alignas(THRPOOL_LINE) uint32_t sq_head; ///< moved by the worker that claims a command

	_Alignas(THRPOOL_LINE) struct xnvme_cmd_ctx *cq_top; ///< stack of finished commands
	uint32_t waiting; ///< completions a poke sleeping on cq_sem waits for; 0: none sleeps

	_Alignas(THRPOOL_LINE) uint32_t nsleeping; ///< sleepers no wake-up has claimed yet
	uint32_t blocking; ///< 1 when the last sampled command blocked in the OS
	int stop;
};

static int
thrpool_nthreads(uint32_t capacity)
{
	const char *env = getenv(THRPOOL_ENV_NTHREADS);
	long nthreads = THRPOOL_NTHREADS_DEFAULT;

	if (env && *env) {
		char *end;
		long val = strtol(env, &end, 10);

		/* out-of-range or malformed values fall back to the default, as the original */
		if (!*end && val >= 1 && val <= THRPOOL_NTHREADS_MAX) {
			nthreads = val;
		}
	}
	/* more workers than commands that can be outstanding would only ever sleep */
	if ((uint32_t)nthreads > capacity) {
		nthreads = capacity;
	}
	return (int)nthreads;
}

/* sem_wait() that retries when a signal interrupts it */
static void
thrpool_sem_wait(sem_t *sem)
{
	while (sem_wait(sem) && errno == EINTR) {
	}
}

static inline bool
thrpool_sq_empty(struct thrpool_state *state)
{
	return __atomic_load_n(&state->sq_tail, __ATOMIC_SEQ_CST) ==
	       __atomic_load_n(&state->sq_head, __ATOMIC_SEQ_CST);
}

/*
 * Wakes one sleeper unless enough workers are awake: all of them while commands block in the
 * OS, else one per CPU but the submitter's. The caller made its command visible (seq_cst)
 * before: a worker about to sleep either is counted here or sees that command.
 */
static void
thrpool_wake(struct thrpool_state *state)
{
	uint32_t n, most;

	most = __atomic_load_n(&state->blocking, __ATOMIC_RELAXED) ? state->nworkers
								   : state->ncpu_workers;
	n = __atomic_load_n(&state->nsleeping, __ATOMIC_SEQ_CST);
	/* nworkers - n are awake (or claimed): they look at the ring before they sleep */
	while (n && state->nworkers - n < most) {
		if (__atomic_compare_exchange_n(&state->nsleeping, &n, n - 1, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			sem_post(&state->sq_sem);
			return;
		}
	}
}

/*
 * Claims the oldest submitted command, or returns NULL when there is none; `left` is what
 * stays queued behind it. Acquire on sq_head orders the load of sq_tail after it, so a claimed
 * index is never one the submitter has not published.
 */
static struct xnvme_cmd_ctx *
thrpool_take(struct thrpool_state *state, uint32_t *left)
{
	uint32_t head = __atomic_load_n(&state->sq_head, __ATOMIC_ACQUIRE);

	for (;;) {
		uint32_t tail = __atomic_load_n(&state->sq_tail, __ATOMIC_ACQUIRE);
		struct xnvme_cmd_ctx *ctx;

		if ((int32_t)(tail - head) <= 0) {
			return NULL;
		}
		/* may be overwritten after a lost race: then the CAS fails and it is not used */
		ctx = __atomic_load_n(&state->sq[head & state->mask], __ATOMIC_RELAXED);
		if (__atomic_compare_exchange_n(&state->sq_head, &head, head + 1, true,
						__ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
			*left = tail - head - 1;
			return ctx;
		}
	}
}

/*
 * A worker found the ring empty: sleep. Registered first and then the ring looked at once
 * more, so a submission made meanwhile is either seen here or counts this sleeper.
 */
static void
thrpool_idle(struct thrpool_state *state)
{
	uint32_t n;

	__atomic_add_fetch(&state->nsleeping, 1, __ATOMIC_SEQ_CST);
	if (!thrpool_sq_empty(state) || __atomic_load_n(&state->stop, __ATOMIC_SEQ_CST)) {
		/* withdraw, unless a wake-up claimed this sleeper already: then its post is ours */
		n = __atomic_load_n(&state->nsleeping, __ATOMIC_SEQ_CST);
		while (n) {
			if (__atomic_compare_exchange_n(&state->nsleeping, &n, n - 1, false,
							__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
				return;
			}
		}
	}
	thrpool_sem_wait(&state->sq_sem);
}

/* Pushes a finished command for poke, and wakes a poke that sleeps for one */
static void
thrpool_complete(struct thrpool_state *state, struct xnvme_cmd_ctx *ctx)
{
	struct xnvme_cmd_ctx **link = &state->link[xnvme_queue_ctx_idx(state->queue, ctx)];
	struct xnvme_cmd_ctx *top = __atomic_load_n(&state->cq_top, __ATOMIC_RELAXED);
	uint32_t n;

	do {
		*link = top;
	} while (!__atomic_compare_exchange_n(&state->cq_top, &top, ctx, true, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	/*
	 * Pairs with thrpool_idle_wait(): it sets `waiting` and then reads cq_top, this stored
	 * cq_top and now reads `waiting`, so one of the two sees the other. The worker that
	 * counts it down to 0 posts, once.
	 */
	n = __atomic_load_n(&state->waiting, __ATOMIC_SEQ_CST);
	while (n) {
		if (__atomic_compare_exchange_n(&state->waiting, &n, n - 1, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST)) {
			if (n == 1) {
				sem_post(&state->cq_sem);
			}
			break;
		}
	}
}

/*
 * Runs one command; every THRPOOL_SAMPLE-th (and the first) of each worker is timed in
 * blocking waits: whether those happen sets how many workers may be awake (thrpool_wake())
 */
static void
thrpool_run(struct thrpool_state *state, struct xnvme_cmd_ctx *ctx, uint32_t *count)
{
	long before;
	uint32_t blocked;

	if ((*count)++ % THRPOOL_SAMPLE) {
		xnvme_be_deferred_run(state->entries, state->queue, ctx);
		return;
	}
	before = xnvme_plat_thread_nblocked();
	xnvme_be_deferred_run(state->entries, state->queue, ctx);
	blocked = before < 0 || xnvme_plat_thread_nblocked() != before;
	if (__atomic_load_n(&state->blocking, __ATOMIC_RELAXED) != blocked) {
		__atomic_store_n(&state->blocking, blocked, __ATOMIC_RELAXED);
	}
}

static void *
thrpool_worker(void *arg)
{
	struct thrpool_state *state = arg;
	uint32_t count = 0;

	while (!__atomic_load_n(&state->stop, __ATOMIC_ACQUIRE)) {
		struct xnvme_cmd_ctx *ctx;
		uint32_t left;

		ctx = thrpool_take(state, &left);
		if (!ctx) {
			thrpool_idle(state);
			continue;
		}
		if (left) {
			thrpool_wake(state); /* commands wait and nobody looks: one more worker? */
		}
		thrpool_run(state, ctx, &count);
		thrpool_complete(state, ctx);
	}
	return NULL;
}

/* Stops and joins the workers; commands not yet claimed are abandoned */
static void
thrpool_stop(struct thrpool_state *state)
{
	__atomic_store_n(&state->stop, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < state->nthreads; ++i) {
		sem_post(&state->sq_sem); /* more wake-ups than sleepers do no harm here */
	}
	for (int i = 0; i < state->nthreads; ++i) {
		pthread_join(state->threads[i], NULL);
	}
	state->nthreads = 0;
}

static void
thrpool_free(struct thrpool_state *state)
{
	sem_destroy(&state->sq_sem);
	sem_destroy(&state->cq_sem);
	free(state->threads);
	free(state->entries);
	free(state->link);
	free(state->sq);
	xnvme_plat_aligned_free(state);
}

static int
thrpool_term(struct xnvme_queue *queue)
{
	struct thrpool_state *state = queue->state;

	if (state) {
		thrpool_stop(state);
		thrpool_free(state);
	}
	queue->state = NULL;
	return 0;
}

static int
thrpool_init(struct xnvme_queue *queue, int opts)
{
	uint32_t size = xnvme_be_ring_size(queue->capacity);
	struct thrpool_state *state;
	unsigned int ncpus;
	int nthreads, err = 0;

	nthreads = thrpool_nthreads(queue->capacity);

	state = xnvme_plat_aligned_alloc(THRPOOL_LINE, sizeof(*state));
	if (!state) {
		return -ENOMEM;
	}
	memset(state, 0, sizeof(*state));
	state->queue = queue;
	state->mask = size - 1;
	state->wait = !xnvme_be_queue_poke_spin(opts);
	state->nworkers = (uint32_t)nthreads;
	/* until a worker's first command tells otherwise: all workers serve the first burst */
	state->blocking = 1;
	/* while commands only take CPU, workers beyond the CPUs but the submitter's do not pay */
	ncpus = xnvme_plat_ncpus();
	state->ncpu_workers = ncpus > 2 ? ncpus - 1 : 1;
	if (state->ncpu_workers > state->nworkers) {
		state->ncpu_workers = state->nworkers;
	}
	sem_init(&state->sq_sem, 0, 0);
	sem_init(&state->cq_sem, 0, 0);

	state->sq = calloc(size, sizeof(*state->sq));
	state->link = calloc((size_t)queue->capacity + 1, sizeof(*state->link));
	state->entries = calloc((size_t)queue->capacity + 1, sizeof(*state->entries));
	state->threads = calloc((size_t)nthreads, sizeof(*state->threads));
	if (!state->sq || !state->link || !state->entries || !state->threads) {
		thrpool_free(state);
		return -ENOMEM;
	}

	/* Workers must not take the process's signals (e.g. fio's SIGINT handler) */
	for (int i = 0; i < nthreads; ++i) {
		err = -xnvme_plat_thread_create(&state->threads[i], thrpool_worker, state);
		if (err) {
			break;
		}
		state->nthreads++;
	}

	if (err) {
		thrpool_stop(state);
		thrpool_free(state);
		return err;
	}
	queue->state = state;
	return 0;
}

/*
 * The second top-level poke in a row that finds nothing ready while workers hold commands:
 * the caller waits for one, so sleep until a worker posts (at most XNVME_BE_POKE_WAIT_NS)
 * instead of spinning against the workers for the CPU. While commands do not block, it waits
 * for a quarter of the outstanding ones (at most THRPOOL_WAIT_BATCH): they finish within
 * microseconds of each other, the rest keep the workers busy meanwhile, and the caller wakes
 * once per batch instead of once per command.
 */
static __attribute__((noinline)) void
thrpool_idle_wait(struct xnvme_queue *queue, struct thrpool_state *state)
{
	struct timespec ts;
	bool woken = false;
	uint32_t want = 1;

	if (!state->wait || queue->nested || !queue->outstanding || state->nidle++ < 1) {
		return;
	}
	if (!__atomic_load_n(&state->blocking, __ATOMIC_RELAXED) && queue->outstanding >= 8) {
		want = queue->outstanding / 4;
		want = want > THRPOOL_WAIT_BATCH ? THRPOOL_WAIT_BATCH : want;
	}
	clock_gettime(THRPOOL_WAIT_CLOCK, &ts);
	ts.tv_nsec += XNVME_BE_POKE_WAIT_NS;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec += 1;
		ts.tv_nsec -= 1000000000L;
	}
	__atomic_store_n(&state->waiting, want, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&state->cq_top, __ATOMIC_SEQ_CST)) {
		if (THRPOOL_SEM_WAIT_UNTIL(&state->cq_sem, &ts)) {
			if (errno == EINTR) {
				continue;
			}
			break; /* timed out */
		}
		if (state->stale) {
			state->stale--; /* the late post of an earlier wait: wait on */
			continue;
		}
		woken = true;
		break;
	}
	/*
	 * The worker that counted `waiting` down to 0 posts once. A post this wait did not take
	 * is owed: counted, and taken by a later wait, instead of blocking for it here.
	 */
	if (!__atomic_exchange_n(&state->waiting, 0, __ATOMIC_SEQ_CST) && !woken) {
		state->stale++;
	}
}

/* Moves the finished commands off the stack onto the end of the ready list, oldest first */
static void
thrpool_reap(struct thrpool_state *state)
{
	struct xnvme_cmd_ctx *top = __atomic_exchange_n(&state->cq_top, NULL, __ATOMIC_ACQUIRE);
	struct xnvme_cmd_ctx *first = NULL, *last = top;

	while (top) {
		struct xnvme_cmd_ctx **link = &state->link[xnvme_queue_ctx_idx(state->queue, top)];
		struct xnvme_cmd_ctx *next = *link;

		*link = first;
		first = top;
		top = next;
		state->nready++;
	}
	if (state->ready_tail) {
		state->link[xnvme_queue_ctx_idx(state->queue, state->ready_tail)] = first;
	} else {
		state->ready_head = first;
	}
	state->ready_tail = last;
}

static int
thrpool_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct thrpool_state *state = queue->state;
	struct xnvme_cmd_ctx *ctx, *last;
	uint32_t n;

	if (XNVME_BE_UNLIKELY(xnvme_be_poke_skip(queue))) {
		return 0;
	}
	if (!state->ready_head && !__atomic_load_n(&state->cq_top, __ATOMIC_RELAXED)) {
		thrpool_idle_wait(queue, state);
	}
	if (__atomic_load_n(&state->cq_top, __ATOMIC_RELAXED)) {
		thrpool_reap(state);
	}
	ctx = state->ready_head;
	if (!ctx) {
		return 0;
	}
	state->nidle = 0;

	/*
	 * The commands this poke delivers leave the ready list before the first callback: a
	 * callback's nested poke takes only the ones after them
	 */
	n = state->nready;
	if (max && max < n) {
		n = max;
		last = ctx;
		for (uint32_t i = 1; i < n; ++i) {
			last = state->link[xnvme_queue_ctx_idx(queue, last)];
		}
		state->ready_head = state->link[xnvme_queue_ctx_idx(queue, last)];
	} else {
		state->ready_head = NULL;
		state->ready_tail = NULL;
	}
	state->nready -= n;

	for (uint32_t i = 0; i < n; ++i) {
		/* read before the callback: it may submit the context again */
		struct xnvme_cmd_ctx *next = state->link[xnvme_queue_ctx_idx(queue, ctx)];

		xnvme_queue_complete(queue, ctx);
		ctx = next;
	}
	return (int)n;
}

static int
thrpool_submit(struct xnvme_cmd_ctx *ctx, void *buf, size_t buf_cnt, size_t buf_nbytes, void *mbuf,
	       size_t mbuf_nbytes, bool vectored)
{
	struct thrpool_state *state = ctx->async.queue->state;
	struct xnvme_be_deferred *d = xnvme_be_deferred_at(state->entries, ctx);
	uint32_t tail;

	if (!d) {
		return xnvme_be_cmd_refused(ctx, -EINVAL); /* not a context of this queue's pool */
	}
	/* Written before the context is published; the worker reads it after */
	xnvme_be_deferred_set(d, buf, buf_cnt, buf_nbytes, mbuf, mbuf_nbytes, vectored);

	/* no room check: the core keeps at most `capacity` commands outstanding */
	tail = state->sq_tail;
	__atomic_store_n(&state->sq[tail & state->mask], ctx, __ATOMIC_RELAXED);
	__atomic_store_n(&state->sq_tail, tail + 1, __ATOMIC_SEQ_CST);
	thrpool_wake(state);
	return 0;
}

static int
thrpool_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	       size_t mbuf_nbytes)
{
	return thrpool_submit(ctx, dbuf, 0, dbuf_nbytes, mbuf, mbuf_nbytes, false);
}

static int
thrpool_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
		void *mbuf, size_t mbuf_nbytes)
{
	return thrpool_submit(ctx, dvec, dvec_cnt, dvec_nbytes, mbuf, mbuf_nbytes, true);
}

const struct xnvme_be_async xnvme_be_async_thrpool = {
	.name = "thrpool",
	.check_support = xnvme_be_async_serves_any,
	.init = thrpool_init,
	.term = thrpool_term,
	.poke = thrpool_poke,
	.cmd_io = thrpool_cmd_io,
	.cmd_iov = thrpool_cmd_iov,
	.get_completion_fd = xnvme_be_async_no_completion_fd,
};
