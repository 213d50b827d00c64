// SPDX-License-Identifier: BSD-3-Clause
/*
 * libaio bounds an idle poke's wait with a per-queue watchdog (a timerfd polled by an iocb in
 * the queue's own AIO context), not with a timer per wait (lib/be/linux/async_libaio.c).
 * White-box, on a file under $TMPDIR: the test submits commands of its own on the queue's AIO
 * context, IOCB_CMD_POLL iocbs carrying pooled contexts, which complete when the test says so
 * (a pipe it writes, or a timerfd of its own). Checked:
 *  - a command that does not complete: each waiting poke returns 0 within the bound (well
 *    under 200 ms; the first after >= 0.5 ms, so it did wait), the bound grows to 16 ms, one
 *    arm per wait; written at last, it gets exactly one callback (the watchdog's events none);
 *  - inside xnvme_queue_drain_timeout() a watchdog set 100 ms ahead does not hold the wait:
 *    -ETIMEDOUT a few ms after the deadline; term with that watchdog armed returns at once;
 *  - 2000 commands that complete ~100 us after submission, each waited for: the watchdog is
 *    armed at most once per ms of the run (it stays armed until it fires), so, when the run
 *    took less than 500 ms, for at most a quarter of the commands; every command gets one
 *    callback (also on the context the term above parked);
 *  - after get_completion_fd, an armed watchdog's event is consumed silently: no callback,
 *    the count of commands without the eventfd flag unchanged;
 *  - in a child whose timerfd_create a seccomp filter refuses: waits keep their own timeout,
 *    bounded the same, no arm, nothing printed (skipped under valgrind or without seccomp).
 * Exit: 0 pass, 1 fail, 77 skip (no libaio mechanism, no IOCB_CMD_POLL or timerfd).
 */
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include "xnvme_test.h"
#include "xnvme_be.h"
#include "be/linux/be_linux_libaio.h"

#ifdef XNVME_HAVE_LIBAIO

#define NFAST 2000
#define MS 1000000ull

struct run {
	uint32_t calls;               ///< callbacks
	struct xnvme_cmd_ctx *expect; ///< the context the next callback must carry
	uint64_t result;              ///< cpl.result of the last callback
};

static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct run *r = arg;

	r->calls++;
	CHECKF(ctx == r->expect, "callback for an unexpected context %p", (void *)ctx);
	r->result = ctx->cpl.result;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static void
timer_in(int tfd, uint64_t ns)
{
	struct itimerspec its = {.it_value = {.tv_sec = (time_t)(ns / 1000000000ull),
					      .tv_nsec = (long)(ns % 1000000000ull)}};

	CHECK_EQ(timerfd_settime(tfd, 0, &its, NULL), 0);
}

/*
 * A command of the test's own on the queue's AIO context: completes when `fd` is readable,
 * counted outstanding like one the queue submitted. 0, or the negative errno of io_submit.
 */
static int
submit_poll(struct xnvme_queue *q, struct run *r, struct iocb *cb, int fd)
{
	struct la_state *st = q->state;
	struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);
	struct iocb *cbs[1] = {cb};

	if (!ctx) {
		CHECKF(0, "no free context: %d", errno);
		return -ENOMEM;
	}
	io_prep_poll(cb, fd, POLLIN);
	cb->data = ctx;
	r->expect = ctx;
	if (syscall(SYS_io_submit, st->aio, 1L, cbs) != 1) {
		int err = -errno;

		xnvme_queue_put_cmd_ctx(q, ctx);
		return err;
	}
	q->outstanding++;
	return 0;
}

/* Pokes until the command of submit_poll() had its callback (at most ~10 s) */
static void
poke_until_done(struct xnvme_queue *q, struct run *r, uint32_t calls0)
{
	uint64_t t0 = xnvme_test_now_ns();

	while (r->calls == calls0 && xnvme_test_now_ns() - t0 < 10000 * MS) {
		int n = xnvme_queue_poke(q, 0);

		CHECKF(n >= 0, "poke: %d", n);
	}
	CHECKF(r->calls == calls0 + 1, "%u callbacks, expected %u", r->calls, calls0 + 1);
}

/* A command that does not complete while pokes wait, then completes by a write to a pipe */
static void
never_completes(struct xnvme_queue *q, struct run *r, int pipefd[2])
{
	struct la_state *st = q->state;
	struct iocb cb;
	uint64_t arms0 = st->wd_arms, dt[6];
	int n;

	CHECK_EQ(submit_poll(q, r, &cb, pipefd[0]), 0);
	CHECK_EQ(xnvme_queue_poke(q, 0), 0); /* the first idle poke returns at once */
	for (int i = 0; i < 6; ++i) {
		uint64_t t0 = xnvme_test_now_ns();

		n = xnvme_queue_poke(q, 0);
		dt[i] = xnvme_test_now_ns() - t0;
		CHECKF(n == 0, "wait %d: poke %d", i, n);
		CHECKF(dt[i] < 200 * MS, "wait %d took %llu us", i,
		       (unsigned long long)dt[i] / 1000);
	}
	CHECKF(dt[0] >= MS / 2, "the first wait took %llu us: it did not wait",
	       (unsigned long long)dt[0] / 1000);
	/* 1, 2, 4, 8, 16, 16 ms: the timer fires no earlier than set */
	CHECKF(dt[5] >= 15 * MS, "the sixth wait took %llu us, not the grown bound",
	       (unsigned long long)dt[5] / 1000);
	CHECK_EQ(st->pwait.ns, 16 * MS);
	CHECK_EQ(st->wd_arms - arms0, 6);
	CHECK_EQ(r->calls, 0);
	CHECK_EQ(xnvme_queue_get_outstanding(q), 1);

	CHECK_EQ(write(pipefd[1], "x", 1), 1);
	poke_until_done(q, r, 0);
	CHECKF(r->result & POLLIN, "cpl.result %#llx: not the pipe's poll",
	       (unsigned long long)r->result);
	CHECK_EQ(xnvme_queue_get_outstanding(q), 0);
	CHECK_EQ(read(pipefd[0], &(char){0}, 1), 1);
}

/* drain_timeout keeps its own 1 ms waits while a watchdog far ahead is armed; term is quick */
static void
deadline_and_term(struct xnvme_queue *q, struct run *r, int pipefd[2], int tfd)
{
	struct la_state *st = q->state;
	struct iocb cb;
	uint64_t t0, dt;
	int ret;

	/* a wait that a completion ends: its 16 ms watchdog stays armed. Where the machine is so
	 * slow (valgrind, load) that the command completed before any poke waited, nothing was
	 * armed by this command: again with a later completion */
	uint32_t calls0 = r->calls;
	for (uint64_t delay = 2 * MS; delay <= 200 * MS; delay *= 10) {
		uint64_t arms0 = st->wd_arms;

		timer_in(tfd, delay);
		CHECK_EQ(submit_poll(q, r, &cb, tfd), 0);
		poke_until_done(q, r, calls0++);
		if (st->wd_arms != arms0) {
			break;
		}
	}
	CHECKF(st->wd_armed, "no watchdog armed after a wait a completion ended");
	if (!st->wd_armed) {
		return;
	}
	timer_in(st->wd_fd, 100 * MS); /* fires long after the deadline below */

	CHECK_EQ(submit_poll(q, r, &cb, pipefd[0]), 0);
	t0 = xnvme_test_now_ns();
	ret = xnvme_queue_drain_timeout(q, 2000);
	dt = xnvme_test_now_ns() - t0;
	CHECK_EQ(ret, -ETIMEDOUT);
	CHECKF(dt >= 2 * MS && dt < 50 * MS, "drain_timeout(2 ms) took %llu us",
	       (unsigned long long)dt / 1000);
	CHECK_EQ(r->calls, calls0);
	CHECK_EQ(write(pipefd[1], "x", 1), 1);
	poke_until_done(q, r, calls0);
	CHECK_EQ(read(pipefd[0], &(char){0}, 1), 1);

	CHECKF(st->wd_armed, "the watchdog fired before its time");
	t0 = xnvme_test_now_ns();
	CHECK_EQ(xnvme_queue_term(q), 0);
	dt = xnvme_test_now_ns() - t0;
	CHECKF(dt < 50 * MS, "term with an armed watchdog took %llu us",
	       (unsigned long long)dt / 1000);
}

/* NFAST commands completing ~100 us after submission: about one arm per ms, not per wait */
static void
fast_commands(struct xnvme_queue *q, struct run *r, int tfd)
{
	struct la_state *st = q->state;
	uint64_t arms, arms0 = st->wd_arms, t0 = xnvme_test_now_ns(), elapsed_ms;
	struct iocb cb;

	for (uint32_t i = 0; i < NFAST; ++i) {
		timer_in(tfd, 100000);
		if (submit_poll(q, r, &cb, tfd)) {
			CHECKF(0, "submit %u", i);
			return;
		}
		poke_until_done(q, r, i);
	}
	elapsed_ms = (xnvme_test_now_ns() - t0) / MS;
	arms = st->wd_arms - arms0;
	printf("# %d commands in %llu ms: %llu watchdog arms\n", NFAST,
	       (unsigned long long)elapsed_ms, (unsigned long long)arms);
	CHECKF(arms > 0, "the waits never armed the watchdog");
	/* each arm but the last is followed by its firing, at least 1 ms later */
	CHECKF(arms <= elapsed_ms + 1, "%llu arms in %llu ms", (unsigned long long)arms,
	       (unsigned long long)elapsed_ms);
	/* so where the commands are fast (~0.11 ms each here, ~0.25 under QEMU's TCG), a small
	 * fraction of the waits: a timer per wait would have armed one for about every command */
	if (elapsed_ms < NFAST / 4) {
		CHECKF(arms <= NFAST / 4, "%llu arms for %d commands", (unsigned long long)arms,
		       NFAST);
	} else {
		printf("# the machine is slow: %llu ms for %d commands\n",
		       (unsigned long long)elapsed_ms, NFAST);
	}
}

/* After get_completion_fd, the watchdog's event is consumed without trace */
static void
completion_fd(struct xnvme_queue *q, struct run *r, int pipefd[2])
{
	struct la_state *st = q->state;
	uint32_t calls0 = r->calls;
	struct iocb cb;

	if (!st->wd_armed) {
		/* arm it by a wait a completion ends (the bound is 1 ms here) */
		int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

		CHECK(tfd >= 0);
		timer_in(tfd, 200000);
		CHECK_EQ(submit_poll(q, r, &cb, tfd), 0);
		poke_until_done(q, r, calls0++);
		close(tfd);
	}
	CHECKF(st->wd_armed, "no watchdog armed");
	timer_in(st->wd_fd, 5 * MS);
	CHECK_EQ(submit_poll(q, r, &cb, pipefd[0]), 0);
	CHECK(xnvme_queue_get_completion_fd(q) >= 0);
	CHECK_EQ(st->unarmed, 1); /* the pipe command went in without the eventfd */
	usleep(20000);
	for (int i = 0; i < 4; ++i) {
		CHECK_EQ(xnvme_queue_poke(q, 0), 0);
	}
	CHECKF(!st->wd_armed, "the watchdog's event was not consumed");
	CHECK_EQ(st->unarmed, 1);
	CHECK_EQ(r->calls, calls0);
	CHECK_EQ(write(pipefd[1], "x", 1), 1);
	poke_until_done(q, r, calls0);
	CHECK_EQ(read(pipefd[0], &(char){0}, 1), 1);
	CHECK_EQ(st->unarmed, 0);
	CHECK_EQ(xnvme_queue_get_outstanding(q), 0);
}

/* timerfd_create fails with ENOSYS from now on */
static int
deny_timerfd(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_timerfd_create, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		return -errno;
	}
	return 0;
}

/* The child's part: no timerfd, so no watchdog; its stderr goes to a file that must stay empty */
static int
without_timerfd(struct xnvme_dev *dev, int pipefd[2])
{
	FILE *log = tmpfile();
	struct xnvme_queue *q = NULL;
	struct run r = {0};
	struct la_state *st;
	struct iocb cb;
	long nlog;
	int err;

	if (deny_timerfd()) {
		return xnvme_test_skip("seccomp filters are not permitted here");
	}
	if (!log || dup2(fileno(log), STDERR_FILENO) < 0) {
		return 1;
	}
	CHECK(timerfd_create(CLOCK_MONOTONIC, 0) < 0 && errno == ENOSYS);
	err = xnvme_queue_init(dev, 4, 0, &q);
	CHECK_EQ(err, 0);
	if (err) {
		return 1;
	}
	xnvme_queue_set_cb(q, on_cpl, &r);
	st = q->state;
	CHECK_EQ(submit_poll(q, &r, &cb, pipefd[0]), 0);
	CHECK_EQ(xnvme_queue_poke(q, 0), 0);
	for (int i = 0; i < 3; ++i) {
		uint64_t t0 = xnvme_test_now_ns(), dt;

		CHECK_EQ(xnvme_queue_poke(q, 0), 0);
		dt = xnvme_test_now_ns() - t0;
		CHECKF(dt >= MS / 2 && dt < 200 * MS, "timed wait %d took %llu us", i,
		       (unsigned long long)dt / 1000);
	}
	CHECK_EQ(st->wd_fd, XNVME_BE_LINUX_LIBAIO_WD_REFUSED);
	CHECK_EQ(st->wd_arms, 0);
	CHECK_EQ(st->pwait.ns, 8 * MS); /* the timed waits ran out: the bound grew as before */
	CHECK_EQ(write(pipefd[1], "x", 1), 1);
	poke_until_done(q, &r, 0);
	CHECK_EQ(read(pipefd[0], &(char){0}, 1), 1);
	CHECK_EQ(xnvme_queue_term(q), 0);
	fflush(stderr);
	nlog = ftell(log);
	if (nlog) {
		char line[256];

		rewind(log);
		while (fgets(line, sizeof(line), log)) {
			printf("# child's stderr: %s", line);
		}
	}
	CHECKF(nlog == 0, "%ld bytes on stderr", nlog);
	return xnvme_test_result("test_libaio_watchdog (no timerfd)");
}

/* without_timerfd() in a child process (a seccomp filter cannot be taken back) */
static void
fallback(struct xnvme_dev *dev, int pipefd[2])
{
	const char *pre = getenv("LD_PRELOAD");
	int status = 0;
	pid_t pid;

	if (pre && strstr(pre, "vgpreload")) {
		printf("# no fallback part: valgrind does not run seccomp filters\n");
		return;
	}
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int ret = without_timerfd(dev, pipefd);

		fflush(stdout);
		_exit(ret);
	}
	if (pid > 0) {
		CHECK_EQ(waitpid(pid, &status, 0), pid);
		CHECKF(WIFEXITED(status) &&
			       (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == XNVME_TEST_SKIP),
		       "the child without timerfd: status %#x", status);
	}
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_queue *q = NULL;
	struct xnvme_dev *dev;
	struct run r = {0};
	int pipefd[2], tfd, fd, err;
	struct iocb cb;
	char path[512];

	snprintf(path, sizeof(path), "%s/xnvme-libaio-wd-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, 1 << 20)) {
		fprintf(stderr, "test_libaio_watchdog: temp file: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	opts.async = "libaio";
	dev = xnvme_dev_open(path, &opts);
	unlink(path);
	if (!dev) {
		return xnvme_test_skip("the libaio mechanism is not available here");
	}
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (tfd < 0 || pipe2(pipefd, O_CLOEXEC)) {
		xnvme_dev_close(dev);
		return xnvme_test_skip("no timerfd or pipe");
	}
	err = xnvme_queue_init(dev, 4, 0, &q);
	CHECK_EQ(err, 0);
	if (err) {
		xnvme_dev_close(dev);
		return xnvme_test_result("test_libaio_watchdog");
	}
	xnvme_queue_set_cb(q, on_cpl, &r);

	/* the kernel takes IOCB_CMD_POLL (Linux 4.18) */
	timer_in(tfd, 1);
	err = submit_poll(q, &r, &cb, tfd);
	if (err) {
		xnvme_queue_term(q);
		xnvme_dev_close(dev);
		return xnvme_test_skip("the kernel refuses IOCB_CMD_POLL");
	}
	poke_until_done(q, &r, 0);
	r.calls = 0;

	never_completes(q, &r, pipefd);
	if (((struct la_state *)q->state)->wd_fd == XNVME_BE_LINUX_LIBAIO_WD_REFUSED) {
		xnvme_queue_term(q);
		xnvme_dev_close(dev);
		return xnvme_test_skip("no watchdog here (timerfd refused)");
	}
	deadline_and_term(q, &r, pipefd, tfd);

	/* a new queue, on the context term parked */
	r.calls = 0;
	err = xnvme_queue_init(dev, 4, 0, &q);
	CHECK_EQ(err, 0);
	if (!err) {
		xnvme_queue_set_cb(q, on_cpl, &r);
		fast_commands(q, &r, tfd);
		completion_fd(q, &r, pipefd);
		CHECK_EQ(xnvme_queue_term(q), 0);
	}
	fallback(dev, pipefd);
	close(tfd);
	close(pipefd[0]);
	close(pipefd[1]);
	xnvme_dev_close(dev);
	return xnvme_test_result("test_libaio_watchdog");
}

#else

int
main(void)
{
	return xnvme_test_skip("built without libaio");
}

#endif
