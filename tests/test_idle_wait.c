// SPDX-License-Identifier: BSD-3-Clause
/*
 * The idle wait of the io_uring mechanism (lib/be/linux/uring.c), bounded by a watchdog (a
 * timeout SQE in the ring) rather than by a timer per wait. The command waited for is a
 * one-byte read of a pipe, started as the mechanism's submission would (white box): it
 * completes only when the test writes the pipe.
 *  - every empty poke after the first waits, and returns 0 within its bound (1 ms first,
 *    growing on expiry) after really waiting; the watchdog's completion never reaches a callback nor the outstanding count;
 *    the command's completion then arrives exactly once;
 *  - waits that completions end keep the armed watchdog: far fewer watchdogs than waits;
 *  - xnvme_queue_drain_timeout() keeps its deadline while a long watchdog is armed;
 *  - term with a command outstanding and a watchdog armed waits for the command, not for
 *    the watchdog.
 * Links the static library for the ring's state (lib/be/linux/be_linux_uring.h).
 * Built with liburing only. Exit: 0 pass, 1 fail, 77 skip (the kernel refuses io_uring, or
 * under valgrind, which neither sees the kernel's writes through the ring nor keeps its
 * timing).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xnvme_test.h"
#include "be_linux.h"
#include "be_linux_uring.h"

#define MS 1000000ull

struct rec {
	unsigned int calls;
	struct xnvme_cmd_ctx *last;
};

static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct rec *r = arg;

	r->calls++;
	r->last = ctx;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static struct xnvme_be_linux_uring *
ring_of(struct xnvme_queue *q)
{
	return (struct xnvme_be_linux_uring *)q->state;
}

static struct xnvme_cmd_ctx *
start_read(struct xnvme_queue *q, int rfd, void *buf)
{
	struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);
	struct io_uring_sqe *sqe;

	CHECK(ctx != NULL);
	sqe = ctx ? xnvme_be_linux_uring_get_sqe(ring_of(q), 0) : NULL;
	CHECK(sqe != NULL);
	if (!sqe) {
		return NULL;
	}
	io_uring_prep_read(sqe, rfd, buf, 1, (uint64_t)-1);
	sqe->user_data = (uint64_t)(uintptr_t)ctx;
	q->outstanding++;
	return ctx;
}

/* Pokes until `r` has `calls` callbacks or 2 s passed */
static void
poke_until(struct xnvme_queue *q, struct rec *r, unsigned int calls)
{
	uint64_t t0 = xnvme_test_now_ns();

	while (r->calls < calls && xnvme_test_now_ns() - t0 < 2000 * MS) {
		CHECK(xnvme_queue_poke(q, 0) >= 0);
	}
}

struct writer {
	int wfd;
	unsigned int n;
	unsigned int gap_us;
};

static void *
write_bytes(void *arg)
{
	struct writer *w = arg;

	for (unsigned int i = 0; i < w->n; ++i) {
		usleep(w->gap_us);
		if (write(w->wfd, "x", 1) != 1) {
			break;
		}
	}
	return NULL;
}

/* A queue of the mechanism under test with its callback record and the pipe read from */
struct rig {
	struct xnvme_queue *q;
	struct rec r;
	int pfd[2];
	char byte; ///< what the reads land in
};

static struct xnvme_queue *
rig_open(struct xnvme_dev *dev, struct rig *g)
{
	memset(g, 0, sizeof(*g));
	CHECK(!pipe2(g->pfd, O_CLOEXEC));
	CHECK(!xnvme_queue_init(dev, 8, 0, &g->q));
	xnvme_queue_set_cb(g->q, on_cpl, &g->r);
	return g->q;
}

static void
rig_close(struct rig *g)
{
	close(g->pfd[0]);
	close(g->pfd[1]);
}

/* A command that does not complete: each waiting poke returns within its bound */
static void
test_bound(struct xnvme_dev *dev)
{
	struct rig g;
	struct xnvme_queue *q = rig_open(dev, &g);
	struct xnvme_cmd_ctx *ctx;

	ctx = start_read(q, g.pfd[0], &g.byte);

	CHECK_EQ(xnvme_queue_poke(q, 0), 0); /* submits: the first poke that found nothing */
	for (int i = 0; i < 6; ++i) {
		uint64_t t0 = xnvme_test_now_ns(), dt;
		uint64_t arms = ring_of(q)->wd_arms;
		uint32_t bound = ring_of(q)->pwait.ns ? ring_of(q)->pwait.ns : (uint32_t)MS;
		int n = xnvme_queue_poke(q, 0);

		dt = xnvme_test_now_ns() - t0;
		/* every empty poke after the first waits, also the one after a watchdog's CQE
		 * ended the previous wait: that poke reaped no command, so it stays counted */
		CHECKF(ring_of(q)->wd_arms > arms || ring_of(q)->wd_armed,
		       "wait %d: no watchdog armed", i);
		CHECKF(n == 0, "wait %d: poke %d", i, n);
		CHECKF(dt >= bound / 2 && dt < bound + 200 * MS, "wait %d: %.2f ms, bound %.2f ms",
		       i, dt / 1e6, bound / 1e6);
	}
	CHECKF(ring_of(q)->wd_arms >= 2, "watchdogs armed: %lu",
	       (unsigned long)ring_of(q)->wd_arms);
	CHECKF(ring_of(q)->pwait.ns > MS, "bound grew: %u ns", ring_of(q)->pwait.ns);
	CHECK_EQ(g.r.calls, 0u);
	CHECK_EQ(xnvme_queue_get_outstanding(q), 1u);

	CHECK_EQ(write(g.pfd[1], "y", 1), 1);
	poke_until(q, &g.r, 1);
	CHECK_EQ(g.r.calls, 1u);
	CHECK(g.r.last == ctx);
	CHECK_EQ(g.byte, 'y');
	CHECK_EQ(xnvme_queue_get_outstanding(q), 0u);
	/* the watchdog still armed, if any, completes without a callback */
	for (int i = 0; i < 50 && ring_of(q)->wd_armed; ++i) {
		struct xnvme_cmd_ctx *c2 = start_read(q, g.pfd[0], &g.byte);

		CHECK_EQ(write(g.pfd[1], "z", 1), 1);
		poke_until(q, &g.r, g.r.calls + 1);
		CHECK(g.r.last == c2);
	}
	CHECK_EQ(xnvme_queue_get_outstanding(q), 0u);
	CHECK(!xnvme_queue_term(q));
	rig_close(&g);
}

/*
 * Waits that completions end share a watchdog: each lives at least the base bound (1 ms) and
 * the next is armed only after it fired, so at most one per millisecond of waiting, however
 * many waits (a timer per wait would be one each)
 */
static void
test_arms_per_wait(struct xnvme_dev *dev)
{
	struct rig g;
	struct xnvme_queue *q = rig_open(dev, &g);
	struct writer w = {.n = 500, .gap_us = 100};
	uint64_t waits, arms, t0, ms;
	pthread_t thr;

	w.wfd = g.pfd[1];
	t0 = xnvme_test_now_ns();
	CHECK(!pthread_create(&thr, NULL, write_bytes, &w));
	for (unsigned int i = 0; i < w.n; ++i) {
		struct xnvme_cmd_ctx *ctx = start_read(q, g.pfd[0], &g.byte);

		poke_until(q, &g.r, i + 1);
		CHECKF(g.r.calls == i + 1 && g.r.last == ctx, "read %u: %u callbacks", i,
		       g.r.calls);
	}
	ms = (xnvme_test_now_ns() - t0) / MS;
	pthread_join(thr, NULL);
	waits = ring_of(q)->nwaits;
	arms = ring_of(q)->wd_arms;
	printf("# %u reads in %lu ms: %lu waits, %lu watchdogs\n", w.n, (unsigned long)ms,
	       (unsigned long)waits, (unsigned long)arms);
	CHECKF(waits >= w.n / 2, "waits %lu", (unsigned long)waits);
	CHECKF(arms >= 1 && arms <= ms + 1 && arms < waits, "watchdogs %lu for %lu waits in %lu ms",
	       (unsigned long)arms, (unsigned long)waits, (unsigned long)ms);
	CHECK(!xnvme_queue_term(q));
	rig_close(&g);
}

/* drain_timeout's deadline holds while a long watchdog is armed; term does not wait it out */
static void
test_deadline(struct xnvme_dev *dev)
{
	struct rig g;
	struct xnvme_queue *q = rig_open(dev, &g);
	struct writer w = {.n = 1, .gap_us = 2000};
	uint64_t t0, dt;
	pthread_t thr;
	int ret;

	w.wfd = g.pfd[1];

	/* a wait a completion ends after ~2 ms leaves its 500 ms watchdog armed */
	ring_of(q)->pwait.ns = 500 * MS;
	start_read(q, g.pfd[0], &g.byte);
	CHECK(!pthread_create(&thr, NULL, write_bytes, &w));
	poke_until(q, &g.r, 1);
	pthread_join(thr, NULL);
	CHECK_EQ(g.r.calls, 1u);
	CHECK(ring_of(q)->wd_armed);

	start_read(q, g.pfd[0], &g.byte);
	t0 = xnvme_test_now_ns();
	ret = xnvme_queue_drain_timeout(q, 3000);
	dt = xnvme_test_now_ns() - t0;
	CHECKF(ret == -ETIMEDOUT, "drain_timeout: %d", ret);
	CHECKF(dt >= 3 * MS && dt < 250 * MS, "drain_timeout(3 ms) took %.2f ms", dt / 1e6);
	CHECK_EQ(g.r.calls, 1u);

	/* term with that command outstanding (it completes in ~2 ms) cancels the watchdog */
	CHECK(ring_of(q)->wd_armed);
	CHECK(!pthread_create(&thr, NULL, write_bytes, &w));
	t0 = xnvme_test_now_ns();
	CHECK(!xnvme_queue_term(q));
	dt = xnvme_test_now_ns() - t0;
	pthread_join(thr, NULL);
	CHECKF(dt < 250 * MS, "term took %.2f ms", dt / 1e6);
	CHECK_EQ(g.r.calls, 1u); /* term runs no callbacks */
	rig_close(&g);
}

/* Opens `path` with the io_uring mechanism and runs every check on it */
static void
run(const char *path)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;

	opts.be = "linux";
	opts.async = "io_uring";
	dev = xnvme_dev_open(path, &opts);
	CHECKF(dev != NULL, "open %s: errno %d", path, errno);
	if (dev) {
		test_bound(dev);
		test_arms_per_wait(dev);
		test_deadline(dev);
		xnvme_dev_close(dev);
	}
}

int
main(void)
{
	char path[] = "/dev/shm/xnvme-idle-wait-XXXXXX";
	int fd;

	if (getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "vgpreload")) {
		printf("SKIP: under valgrind\n");
		return XNVME_TEST_SKIP;
	}
	if (!xnvme_be_linux_uring_caps()->ring) {
		printf("SKIP: the kernel refuses io_uring\n");
		return XNVME_TEST_SKIP;
	}
	fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, 1 << 20)) {
		printf("FAIL: a file in /dev/shm\n");
		return 1;
	}
	close(fd);
	run(path);
	unlink(path);
	return xnvme_test_result("idle_wait");
}
