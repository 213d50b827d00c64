// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "thrpool": each queue owns a few worker threads that run submitted commands
 * through the device's sync mechanism. Workers take commands from a submission ring (a mutex,
 * and a semaphore that a submission posts once per sleeping worker it claims) and push finished ones onto a completion ring (its
 * workers' mutex, which poke, its only reader, does not need); poke moves ready completions
 * out and runs their callbacks on the caller's thread.
 *
 * Semaphores rather than condition variables: a condvar waiter wakes up owning the mutex in
 * its contended state, so each hand-off cost two more futex calls (a wake-up that blocks on the
 * mutex, and an unlock that wakes nobody). A semaphore post wakes a sleeper with one call and
 * none when nobody sleeps; it also cannot lose a wake-up (glibc < 2.38 condvars can, bug 25847).
 *
 * Both rings hold at most `capacity` contexts (the core bounds outstanding commands), so they
 * are sized to the next power of two and never overflow.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include "async_deferred.h"
#include "async_stubs.h"
#include "xnvme_plat.h"

#define THRPOOL_NTHREADS_DEFAULT 4
#define THRPOOL_NTHREADS_MAX 1023
#define THRPOOL_ENV_NTHREADS "XNVME_BE_CBI_ASYNC_THRPOOL_NTHREADS"

/* The clock of an idle poke's deadline: sem_timedwait() counts in CLOCK_REALTIME */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 30))
#define THRPOOL_WAIT_CLOCK CLOCK_MONOTONIC
#define THRPOOL_SEM_WAIT_UNTIL(sem, ts) sem_clockwait(sem, CLOCK_MONOTONIC, ts)
#else
#define THRPOOL_WAIT_CLOCK CLOCK_REALTIME
#define THRPOOL_SEM_WAIT_UNTIL(sem, ts) sem_timedwait(sem, ts)
#endif

struct thrpool_state {
	struct xnvme_queue *queue;
	uint32_t mask;

	pthread_mutex_t sq_lock;
	sem_t sq_sem;       ///< one post per sleeper a submission claims, one per worker at stop
	uint32_t nsleeping; ///< workers about to wait on sq_sem and not yet claimed; sq_lock
	uint32_t sq_head;
	uint32_t sq_tail;
	bool stop;
	struct xnvme_cmd_ctx **sq;

	pthread_mutex_t cq_lock;
	uint32_t cq_head; ///< poke's alone (no worker reads it)
	uint32_t cq_tail; ///< written by workers under cq_lock, read by poke without it
	sem_t cq_sem;     ///< posted by the worker that clears `waiting`
	int waiting;      ///< a poke sleeps (or is about to) on cq_sem; atomic
	uint32_t stale;   ///< posts to cq_sem owed to earlier waits (poke's alone)
	bool wait;        ///< idle pokes may sleep (not XNVME_QUEUE_POKE_SPIN)
	uint32_t nidle;   ///< pokes in a row that found nothing ready
	struct xnvme_cmd_ctx **cq;

	struct xnvme_be_deferred *entries; ///< indexed by xnvme_queue_ctx_idx()

	int nthreads;
	pthread_t *threads;
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

static void *
thrpool_worker(void *arg)
{
	struct thrpool_state *state = arg;

	pthread_mutex_lock(&state->sq_lock);
	for (;;) {
		struct xnvme_cmd_ctx *ctx;

		if (state->stop) {
			break;
		}
		if (state->sq_head == state->sq_tail) {
			/* registered under the lock: a submission after this sees it and posts */
			state->nsleeping++;
			pthread_mutex_unlock(&state->sq_lock);
			thrpool_sem_wait(&state->sq_sem);
			pthread_mutex_lock(&state->sq_lock);
			continue;
		}
		ctx = state->sq[state->sq_head++ & state->mask];
		pthread_mutex_unlock(&state->sq_lock);

		xnvme_be_deferred_run(state->entries, state->queue, ctx);

		pthread_mutex_lock(&state->cq_lock);
		state->cq[state->cq_tail & state->mask] = ctx;
		__atomic_store_n(&state->cq_tail, state->cq_tail + 1, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&state->cq_lock);
		/*
		 * Pairs with thrpool_idle_wait(): it sets `waiting` and then reads cq_tail, this
		 * stored cq_tail and now reads `waiting`, so one of the two sees the other. One
		 * worker takes the flag and posts once.
		 */
		if (__atomic_load_n(&state->waiting, __ATOMIC_SEQ_CST) &&
		    __atomic_exchange_n(&state->waiting, 0, __ATOMIC_SEQ_CST)) {
			sem_post(&state->cq_sem);
		}
		pthread_mutex_lock(&state->sq_lock);
	}
	pthread_mutex_unlock(&state->sq_lock);
	return NULL;
}

/* Stops and joins the workers; commands still in the submission ring are abandoned */
static void
thrpool_stop(struct thrpool_state *state)
{
	pthread_mutex_lock(&state->sq_lock);
	state->stop = true;
	pthread_mutex_unlock(&state->sq_lock);
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
	pthread_mutex_destroy(&state->sq_lock);
	pthread_mutex_destroy(&state->cq_lock);
	free(state->threads);
	free(state->entries);
	free(state->cq);
	free(state->sq);
	free(state);
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
	int nthreads, err = 0;

	(void)opts;

	nthreads = thrpool_nthreads(queue->capacity);

	state = calloc(1, sizeof(*state));
	if (!state) {
		return -ENOMEM;
	}
	state->queue = queue;
	state->mask = size - 1;
	state->wait = !xnvme_be_queue_poke_spin(opts);
	pthread_mutex_init(&state->sq_lock, NULL);
	pthread_mutex_init(&state->cq_lock, NULL);
	sem_init(&state->sq_sem, 0, 0);
	sem_init(&state->cq_sem, 0, 0);

	state->sq = calloc(size, sizeof(*state->sq));
	state->cq = calloc(size, sizeof(*state->cq));
	state->entries = calloc((size_t)queue->capacity + 1, sizeof(*state->entries));
	state->threads = calloc((size_t)nthreads, sizeof(*state->threads));
	if (!state->sq || !state->cq || !state->entries || !state->threads) {
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

/* Completions one poke level moves out of the lock before their callbacks (on its stack) */
#define THRPOOL_BATCH 32

/*
 * The second top-level poke in a row that finds nothing ready while workers hold commands:
 * the caller waits for one, so sleep until a worker posts (at most XNVME_BE_POKE_WAIT_NS)
 * instead of spinning against the workers for the CPU.
 */
static __attribute__((noinline)) void
thrpool_idle_wait(struct xnvme_queue *queue, struct thrpool_state *state)
{
	struct timespec ts;
	bool woken = false;

	if (!state->wait || queue->depth != 1 || !queue->outstanding || state->nidle++ < 1) {
		return;
	}
	clock_gettime(THRPOOL_WAIT_CLOCK, &ts);
	ts.tv_nsec += XNVME_BE_POKE_WAIT_NS;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec += 1;
		ts.tv_nsec -= 1000000000L;
	}
	__atomic_store_n(&state->waiting, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&state->cq_tail, __ATOMIC_SEQ_CST) == state->cq_head) {
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
	 * A worker that took the flag posts once. A post this wait did not take is owed: counted,
	 * and taken by a later wait, instead of blocking for it here.
	 */
	if (!__atomic_exchange_n(&state->waiting, 0, __ATOMIC_SEQ_CST) && !woken) {
		state->stale++;
	}
}

static int
thrpool_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct thrpool_state *state = queue->state;
	struct xnvme_cmd_ctx *batch[THRPOOL_BATCH];
	uint32_t n = 0, lim = max ? max : UINT32_MAX;

	/*
	 * Batches are moved off the completion ring into this call's stack before delivery: a
	 * callback's nested poke takes only completions this level did not take. No lock: poke
	 * is the ring's only reader and alone moves cq_head, which no worker reads (the ring
	 * cannot overflow); the acquire load of cq_tail makes the slots below it visible.
	 */
	if (__atomic_load_n(&state->cq_tail, __ATOMIC_ACQUIRE) == state->cq_head) {
		thrpool_idle_wait(queue, state);
	}
	while (n < lim) {
		uint32_t nb;

		nb = __atomic_load_n(&state->cq_tail, __ATOMIC_ACQUIRE) - state->cq_head;
		if (!nb) {
			break;
		}
		if (nb > lim - n) {
			nb = lim - n;
		}
		if (nb > THRPOOL_BATCH) {
			nb = THRPOOL_BATCH;
		}
		for (uint32_t i = 0; i < nb; ++i) {
			batch[i] = state->cq[state->cq_head++ & state->mask];
		}

		for (uint32_t i = 0; i < nb; ++i) {
			xnvme_queue_complete(queue, batch[i]);
		}
		n += nb;
		if (nb < THRPOOL_BATCH) {
			break; /* what was ready when this poke looked is delivered */
		}
	}
	if (n) {
		state->nidle = 0;
	}
	return (int)n;
}

static int
thrpool_submit(struct xnvme_cmd_ctx *ctx, void *buf, size_t buf_cnt, size_t buf_nbytes, void *mbuf,
	       size_t mbuf_nbytes, bool vectored)
{
	struct thrpool_state *state = ctx->async.queue->state;
	struct xnvme_be_deferred *d = xnvme_be_deferred_at(state->entries, ctx);
	bool wake;

	if (!d) {
		return -EINVAL; /* not a context of this queue's pool */
	}
	/* Written before the context is published under sq_lock; the worker reads it after */
	xnvme_be_deferred_set(d, buf, buf_cnt, buf_nbytes, mbuf, mbuf_nbytes, vectored);

	pthread_mutex_lock(&state->sq_lock);
	if (state->sq_tail - state->sq_head > state->mask) {
		pthread_mutex_unlock(&state->sq_lock);
		return -EBUSY;
	}
	state->sq[state->sq_tail++ & state->mask] = ctx;
	/* one post per sleeper claimed here: a burst of submissions wakes no more than needed */
	wake = state->nsleeping != 0;
	state->nsleeping -= wake;
	pthread_mutex_unlock(&state->sq_lock);
	if (wake) {
		sem_post(&state->sq_sem);
	}
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
