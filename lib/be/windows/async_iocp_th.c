// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "iocp_th": "iocp" with a completion thread per queue. Submission is the same
 * (overlapped ReadFile/WriteFile on the queue's own handle and port); the thread blocks in
 * GetQueuedCompletionStatusEx and hands each reaped entry to poke through a single-producer
 * single-consumer ring, so poke makes no system call and callbacks still run on the caller's
 * thread. The ring holds capacity + 1 entries: at most `capacity` commands are outstanding, so
 * it never overflows. Term posts XNVME_IOCP_KEY_STOP, joins the thread, then cancels and
 * drains like "iocp".
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "iocp.h"
#include "xnvme_plat.h"

struct iocp_th {
	struct xnvme_iocp io; ///< first member: the shared submission path takes it from state
	OVERLAPPED_ENTRY *ring;
	uint32_t nring;
	uint32_t head; ///< consumer (poke) index, atomic
	uint32_t tail; ///< producer (thread) index, atomic
	pthread_t thread;
	bool running;
};

static void *
iocp_th_main(void *arg)
{
	struct iocp_th *th = arg;

	for (;;) {
		OVERLAPPED_ENTRY e[XNVME_IOCP_BATCH];
		uint32_t tail = __atomic_load_n(&th->tail, __ATOMIC_RELAXED);
		ULONG got = 0;

		if (!GetQueuedCompletionStatusEx(th->io.port, e, XNVME_IOCP_BATCH, &got, INFINITE,
						 FALSE)) {
			if (GetLastError() == ERROR_ABANDONED_WAIT_0) {
				return NULL; /* the port was closed */
			}
			continue;
		}
		for (ULONG i = 0; i < got; ++i) {
			if (e[i].lpCompletionKey == XNVME_IOCP_KEY_STOP) {
				__atomic_store_n(&th->tail, tail, __ATOMIC_RELEASE);
				return NULL;
			}
			th->ring[tail] = e[i];
			tail = tail + 1 == th->nring ? 0 : tail + 1;
		}
		__atomic_store_n(&th->tail, tail, __ATOMIC_RELEASE);
	}
}

static int
iocp_th_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct iocp_th *th = queue->state;
	uint32_t head = th->head, tail = __atomic_load_n(&th->tail, __ATOMIC_ACQUIRE);
	uint32_t reaped = 0;

	if (XNVME_BE_UNLIKELY(xnvme_be_poke_skip(queue))) {
		return 0;
	}
	max = max ? max : UINT32_MAX;
	while (head != tail && reaped < max) {
		OVERLAPPED_ENTRY e = th->ring[head];

		head = head + 1 == th->nring ? 0 : head + 1;
		/* released before the callback, which may submit into the freed slot */
		__atomic_store_n(&th->head, head, __ATOMIC_RELEASE);
		xnvme_iocp_complete(queue, &th->io, &e);
		reaped++;
	}
	return (int)reaped;
}

static int
iocp_th_term(struct xnvme_queue *queue)
{
	struct iocp_th *th = queue->state;
	bool stopped = false;

	if (!th) {
		return 0;
	}
	if (th->running) {
		stopped = PostQueuedCompletionStatus(th->io.port, 0, XNVME_IOCP_KEY_STOP, NULL);
		if (stopped) {
			pthread_join(th->thread, NULL);
		}
	}
	/* what the thread handed over is no longer with the OS */
	while (th->head != th->tail) {
		th->io.inflight -= th->ring[th->head].lpCompletionKey == XNVME_IOCP_KEY_IO;
		th->head = th->head + 1 == th->nring ? 0 : th->head + 1;
	}
	xnvme_iocp_close(&th->io);
	if (th->running && !stopped) {
		pthread_join(th->thread, NULL); /* closing the port ended its wait */
	}
	free(th->ring);
	free(th);
	queue->state = NULL;
	return 0;
}

static int
iocp_th_init(struct xnvme_queue *queue, int opts)
{
	struct iocp_th *th;
	int err;

	(void)opts;
	th = calloc(1, sizeof(*th));
	if (!th) {
		return -ENOMEM;
	}
	queue->state = th;
	th->nring = queue->capacity + 1;
	th->ring = calloc(th->nring, sizeof(*th->ring));
	err = th->ring ? xnvme_iocp_open(queue, &th->io) : -ENOMEM;
	if (!err) {
		err = -xnvme_plat_thread_create(&th->thread, iocp_th_main, th);
		th->running = !err;
	}
	if (err) {
		iocp_th_term(queue);
	}
	return err;
}

static int
iocp_th_check_support(struct xnvme_dev *dev)
{
	(void)dev;
	return 0;
}

const struct xnvme_be_async xnvme_be_windows_async_iocp_th = {
	.name = "iocp_th",
	.check_support = iocp_th_check_support,
	.init = iocp_th_init,
	.term = iocp_th_term,
	.poke = iocp_th_poke,
	.cmd_io = xnvme_iocp_cmd_io,
	.cmd_iov = xnvme_iocp_cmd_iov,
	.get_completion_fd = xnvme_iocp_get_completion_fd,
};
