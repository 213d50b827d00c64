// SPDX-License-Identifier: BSD-3-Clause
/*
 * Command timeouts against a device that answers late: run inside the QEMU guest booted with
 * `tests/qemu/rig.sh run --slow`, whose controller qslow0 completes every read after
 * XNVME_QEMU_SLOW_LATENCY_MS (6 s by default; the test needs at least 5 s, so that the
 * driver's abort-then-reset of a command with a 1 s timeout comes first).
 *   test_timeout     uses XNVME_QEMU_SLOW_CHR (/dev/ngXn1 of qslow0), XNVME_QEMU_SLOW_CTRLR,
 *                    XNVME_QEMU_NVM_CHR (a namespace of another controller)
 * Checks, with opts.command_timeout = 1 s: a read through io_uring_cmd completes through its
 * callback with ETIMEDOUT (sct 7), a read through the sync "nvme" ioctls returns -ETIMEDOUT;
 * with opts.admin_timeout = 1 s an admin command the controller holds (Asynchronous Event
 * Request: answered only when an event occurs) returns -ETIMEDOUT. Each in bounded time.
 * Then the controller is live again and a read with the default timeouts (the driver's 30 s)
 * succeeds after the device's latency; the other controller's namespace served commands with
 * the same 1 s timeout, and with the defaults, throughout.
 * Exit: 0 pass, 1 fail, 77 skip (not in the guest, or booted without --slow).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libxnvme.h>
#include "../xnvme_test.h"

#define TMO_US 1000000U /* the timeout under test: 1 s */

static const char *slow_chr, *slow_ctrlr, *nvm_chr;
static double latency_s;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
on_alarm(int sig)
{
	static const char msg[] = "FAIL: watchdog: a command outlived its timeout by far\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		_exit(1);
	}
	_exit(1);
}

static struct xnvme_dev *
open_dev(const char *uri, const char *async, uint32_t admin_us, uint32_t io_us)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;

	opts.sync = "nvme";
	opts.admin = "nvme";
	opts.async = async;
	opts.admin_timeout = admin_us;
	opts.command_timeout = io_us;
	dev = xnvme_dev_open(uri, &opts);
	if (!dev) {
		fprintf(stderr, "FAIL: open('%s', async %s): %s\n", uri, async, strerror(errno));
	}
	return dev;
}

/* The controller's state in sysfs ("live", "resetting", ...), waited for to become live */
static void
wait_live(void)
{
	const char *name = strrchr(slow_ctrlr, '/') ? strrchr(slow_ctrlr, '/') + 1 : slow_ctrlr;
	char path[128], state[32] = "";
	double t0 = now();

	snprintf(path, sizeof(path), "/sys/class/nvme/%s/state", name);
	while (now() - t0 < 60) {
		FILE *fp = fopen(path, "r");

		state[0] = '\0';
		if (fp) {
			if (!fgets(state, sizeof(state), fp)) {
				state[0] = '\0';
			}
			fclose(fp);
		}
		state[strcspn(state, "\n")] = '\0';
		if (!strcmp(state, "live")) {
			break;
		}
		usleep(100000);
	}
	printf("# %s: state '%s' %.2f s after the timeout\n", name, state, now() - t0);
	CHECK(!strcmp(state, "live"));
	/*
	 * The driver re-validates the namespaces after the controller is live again; commands
	 * right at that moment were seen to fail once (an open's Identify, hence an empty
	 * geometry). Give it a moment.
	 */
	usleep(500000);
}

/* The elapsed time of a command that timed out: not before its timeout, within bounds */
static void
check_elapsed(const char *what, double dt)
{
	printf("# %s: %.2f s (timeout 1 s, device latency %.1f s)\n", what, dt, latency_s);
	CHECK(dt >= 0.9);
	CHECK(dt <= latency_s + 20);
}

/* Reads through the sync mechanism and through io_uring_cmd on a namespace that answers */
static void
reads_work(const char *uri, uint32_t admin_us, uint32_t io_us)
{
	struct xnvme_dev *dev = open_dev(uri, "io_uring_cmd", admin_us, io_us);
	struct xnvme_queue *queue = NULL;
	struct xnvme_cmd_ctx ctx, *actx;
	void *buf;

	if (!dev) {
		CHECK(0);
		return;
	}
	buf = xnvme_buf_alloc(dev, xnvme_dev_get_geo(dev)->lba_nbytes);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_OK(xnvme_nvm_read(&ctx, xnvme_dev_get_nsid(dev), 0, 0, buf, NULL), ctx);

	CHECK_EQ(xnvme_queue_init(dev, 4, 0, &queue), 0);
	if (queue) {
		actx = xnvme_queue_get_cmd_ctx(queue);
		CHECK_EQ(xnvme_nvm_read(actx, xnvme_dev_get_nsid(dev), 0, 0, buf, NULL), 0);
		CHECK_EQ(xnvme_queue_drain(queue), 1);
		CHECK_EQ(xnvme_cmd_ctx_cpl_status(actx), 0);
		xnvme_queue_put_cmd_ctx(queue, actx);
		xnvme_queue_term(queue);
	}
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
}

struct done {
	int ncalls;
	double t;
	struct xnvme_spec_cpl cpl;
};

static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	struct done *d = cb_arg;

	d->ncalls++;
	d->t = now();
	d->cpl = ctx->cpl;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* A read through io_uring_cmd with a 1 s timeout: ETIMEDOUT through the callback */
static void
uring_cmd_times_out(void)
{
	struct xnvme_dev *dev = open_dev(slow_chr, "io_uring_cmd", TMO_US, TMO_US);
	struct xnvme_queue *queue = NULL;
	struct xnvme_cmd_ctx *ctx;
	struct done d = {0};
	void *buf;
	double t0;

	if (!dev) {
		CHECK(0);
		return;
	}
	buf = xnvme_buf_alloc(dev, xnvme_dev_get_geo(dev)->lba_nbytes);
	CHECK_EQ(xnvme_dev_get_geo(dev)->lba_nbytes, 8192);
	CHECK_EQ(xnvme_queue_init(dev, 4, 0, &queue), 0);
	if (!queue || !buf) {
		CHECK(0);
		goto out;
	}
	xnvme_queue_set_cb(queue, on_cpl, &d);
	ctx = xnvme_queue_get_cmd_ctx(queue);
	t0 = now();
	CHECK_EQ(xnvme_nvm_read(ctx, xnvme_dev_get_nsid(dev), 0, 0, buf, NULL), 0);
	CHECK_EQ(xnvme_queue_drain(queue), 1);
	CHECK_EQ(d.ncalls, 1);
	printf("# io_uring_cmd read: sct %d sc %d\n", d.cpl.status.sct, d.cpl.status.sc);
	CHECK_EQ(d.cpl.status.sct, 7);
	CHECK_EQ(d.cpl.status.sc, ETIMEDOUT);
	check_elapsed("io_uring_cmd read timed out after", d.t - t0);
	xnvme_queue_term(queue);
out:
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
	wait_live();
}

/* A read through the sync "nvme" ioctls with a 1 s timeout: -ETIMEDOUT */
static void
sync_times_out(void)
{
	struct xnvme_dev *dev = open_dev(slow_chr, "emu", TMO_US, TMO_US);
	struct xnvme_cmd_ctx ctx;
	void *buf;
	double t0;
	int err;

	if (!dev) {
		CHECK(0);
		return;
	}
	buf = xnvme_buf_alloc(dev, xnvme_dev_get_geo(dev)->lba_nbytes);
	printf("# %s: lba_nbytes %u, mdts_nbytes %u, sync %s\n", slow_chr,
	       xnvme_dev_get_geo(dev)->lba_nbytes, xnvme_dev_get_geo(dev)->mdts_nbytes,
	       xnvme_dev_get_opts(dev)->sync);
	CHECK_EQ(xnvme_dev_get_geo(dev)->lba_nbytes, 8192);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	t0 = now();
	err = xnvme_nvm_read(&ctx, xnvme_dev_get_nsid(dev), 0, 0, buf, NULL);
	printf("# sync read: err %d, sct %d sc %d\n", err, ctx.cpl.status.sct, ctx.cpl.status.sc);
	CHECK_EQ(err, -ETIMEDOUT);
	CHECK_EQ(ctx.cpl.status.sct, 7);
	CHECK_EQ(ctx.cpl.status.sc, ETIMEDOUT);
	check_elapsed("sync read timed out after", now() - t0);
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
	wait_live();
}

/*
 * An admin command the controller holds with a 1 s admin timeout: an Asynchronous Event
 * Request, which a controller answers only when an event occurs. The driver resets the
 * controller at the first expiry on the admin queue.
 */
static void
admin_times_out(void)
{
	struct xnvme_dev *dev = open_dev(slow_chr, "emu", TMO_US, TMO_US);
	struct xnvme_cmd_ctx ctx;
	double t0, dt;
	int err;

	if (!dev) {
		CHECK(0);
		return;
	}
	ctx = xnvme_cmd_ctx_from_dev(dev);
	ctx.cmd.common.opcode = 0x0C; /* Asynchronous Event Request */
	t0 = now();
	err = xnvme_cmd_pass_admin(&ctx, NULL, 0, NULL, 0);
	dt = now() - t0;
	printf("# admin AER: err %d, sct %d sc %d\n", err, ctx.cpl.status.sct, ctx.cpl.status.sc);
	CHECK_EQ(err, -ETIMEDOUT);
	CHECK_EQ(ctx.cpl.status.sct, 7);
	CHECK_EQ(ctx.cpl.status.sc, ETIMEDOUT);
	printf("# admin AER timed out after %.2f s (admin timeout 1 s)\n", dt);
	CHECK(dt >= 0.9);
	CHECK(dt <= 20);
	xnvme_dev_close(dev);
	wait_live();
}

/* After the resets: the default timeouts let the slow device answer, late but successfully */
static void
default_waits(void)
{
	struct xnvme_opts dflt = xnvme_opts_default();
	struct xnvme_dev *dev = open_dev(slow_chr, "emu", dflt.admin_timeout, dflt.command_timeout);
	struct xnvme_cmd_ctx ctx;
	void *buf;
	double t0, dt;
	int err;

	if (!dev) {
		CHECK(0);
		return;
	}
	buf = xnvme_buf_alloc(dev, xnvme_dev_get_geo(dev)->lba_nbytes);
	CHECK_EQ(xnvme_dev_get_geo(dev)->lba_nbytes, 8192);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	t0 = now();
	err = xnvme_nvm_read(&ctx, xnvme_dev_get_nsid(dev), 0, 0, buf, NULL);
	dt = now() - t0;
	printf("# default timeouts, sync read: err %d after %.2f s\n", err, dt);
	CHECK_OK(err, ctx);
	CHECK(dt >= latency_s * 0.8);
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
}

int
main(void)
{
	const char *lat = getenv("XNVME_QEMU_SLOW_LATENCY_MS");
	struct xnvme_opts dflt = xnvme_opts_default();

	slow_chr = getenv("XNVME_QEMU_SLOW_CHR");
	slow_ctrlr = getenv("XNVME_QEMU_SLOW_CTRLR");
	nvm_chr = getenv("XNVME_QEMU_NVM_CHR");
	if (!slow_chr || !slow_ctrlr || !lat || !nvm_chr) {
		fprintf(stderr, "skip: not in the QEMU guest booted with --slow\n");
		return XNVME_TEST_SKIP;
	}
	latency_s = atof(lat) / 1000;
	if (latency_s < 5) {
		fprintf(stderr, "skip: device latency %.1f s; the test needs >= 5 s\n", latency_s);
		return XNVME_TEST_SKIP;
	}
	signal(SIGALRM, on_alarm);
	alarm((unsigned int)(4 * latency_s + 90));

	/* a namespace of another controller: commands well within 1 s, and with the defaults */
	reads_work(nvm_chr, TMO_US, TMO_US);
	reads_work(nvm_chr, dflt.admin_timeout, dflt.command_timeout);

	uring_cmd_times_out();
	sync_times_out();
	admin_times_out();
	default_waits();

	/* the other controller was not disturbed by the resets */
	reads_work(nvm_chr, TMO_US, TMO_US);
	alarm(0);
	return xnvme_test_result("test_timeout");
}
