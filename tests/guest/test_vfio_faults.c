// SPDX-License-Identifier: BSD-3-Clause
/*
 * Faults of the vfio backend on emulated controllers bound to vfio-pci, inside the QEMU guest
 * (tests/guest/vfio_faults.sh binds them). A watchdog (SIGALRM) turns a hang into a failure.
 *   test_vfio_faults refuse BDF       memory the device cannot reach (EFAULT) and a transfer
 *                                     beyond MDTS (EINVAL) are refused, sync and async
 *   test_vfio_faults slow BDF         the controller of `rig.sh --slow` (every read answered
 *     after XNVME_QEMU_SLOW_LATENCY_MS, at least 3 s): with command_timeout 1 s a sync read
 *     returns -ETIMEDOUT (sct 7, sc ETIMEDOUT) once the driver has aborted it and reset the
 *     controller, and an async read completes with that status; the controller answers
 *     Identify in between, also after a reset on request (xnvme_controller_reset); a queue of
 *     a second handle without a timeout, made before, then reads the namespace (zeroes)
 *   test_vfio_faults remove BDF ID    reads with 16 in flight, then asks the host for QEMU
 *     device_del of ID (through $XNVME_QEMU_DEVICE_DEL) with 16 reads queued and leaves the
 *     device alone: the driver lets go of it by itself (registers read all-ones) and the
 *     kernel removes the function while the handle is open; the queued reads then complete
 *     with sct 7, sc EIO, new ones are refused with EIO; it closes and exits
 * Exit: 0 pass, 1 fail, 77 skip.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <libxnvme.h>
#include "../xnvme_test.h"

#define QD 16

static struct xnvme_dev *
open_dev(const char *bdf, uint32_t command_timeout)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;

	opts.command_timeout = command_timeout;
	dev = xnvme_dev_open(bdf, &opts);
	if (!dev) {
		fprintf(stderr, "FAIL: xnvme_dev_open(%s): %s\n", bdf, strerror(errno));
	}
	return dev;
}

struct tally {
	int ok, nerr, eio;
	int sc; ///< status code of the last error (sct 7: an errno)
};

static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct tally *t = arg;

	if (xnvme_cmd_ctx_cpl_status(ctx)) {
		t->nerr++;
		t->sc = ctx->cpl.status.sct == XNVME_STATUS_CODE_TYPE_VENDOR ? ctx->cpl.status.sc
									     : -1;
		t->eio += ctx->cpl.status.sct == XNVME_STATUS_CODE_TYPE_VENDOR &&
			  ctx->cpl.status.sc == EIO;
	} else {
		t->ok++;
	}
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static int
refuse(const char *bdf)
{
	struct xnvme_dev *dev = open_dev(bdf, 30000000);
	const struct xnvme_geo *geo;
	struct xnvme_queue *queue = NULL;
	struct xnvme_cmd_ctx ctx, *actx;
	uint8_t *heap, *big;
	uint32_t lbas;

	if (!dev) {
		return 1;
	}
	geo = xnvme_dev_get_geo(dev);
	heap = malloc(4096);
	big = xnvme_buf_alloc(dev, (size_t)geo->mdts_nbytes + 4096);
	CHECK(heap && big);
	if (!heap || !big) {
		return 1;
	}
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_read(&ctx, 1, 0, 4096 / geo->lba_nbytes - 1, heap, NULL), -EFAULT);
	lbas = (geo->mdts_nbytes + 4096) / geo->lba_nbytes;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_read(&ctx, 1, 0, (uint16_t)(lbas - 1), big, NULL), -EINVAL);
	CHECK_EQ(xnvme_queue_init(dev, 4, 0, &queue), 0);
	if (queue) {
		actx = xnvme_queue_get_cmd_ctx(queue);
		CHECK_EQ(xnvme_nvm_read(actx, 1, 0, 4096 / geo->lba_nbytes - 1, heap, NULL),
			 -EFAULT);
		CHECK_EQ(xnvme_nvm_read(actx, 1, 0, (uint16_t)(lbas - 1), big, NULL), -EINVAL);
		xnvme_queue_put_cmd_ctx(queue, actx);
		CHECK_EQ(xnvme_queue_get_outstanding(queue), 0);
		xnvme_queue_term(queue);
	}
	/* the queues are intact: a read within the limits from DMA memory works */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_read(&ctx, 1, 0, (uint16_t)(geo->mdts_nbytes / geo->lba_nbytes - 1), big,
				NULL),
		 0);
	free(heap);
	xnvme_buf_free(dev, big);
	xnvme_dev_close(dev);
	return 0;
}

/* One async read of LBA 0 on `queue`; waits for its completion and returns the status */
static int
async_read(struct xnvme_queue *queue, uint8_t *buf, struct tally *t, double *dt)
{
	struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(queue);
	double t0 = xnvme_test_now();
	int n = t->ok + t->nerr, err;

	err = xnvme_nvm_read(ctx, 1, 0, 0, buf, NULL);
	if (err) {
		xnvme_queue_put_cmd_ctx(queue, ctx);
		return err;
	}
	while (t->ok + t->nerr == n) {
		xnvme_queue_poke(queue, 0);
	}
	*dt = xnvme_test_now() - t0;
	return 0;
}

/*
 * Handle A (command_timeout 1 s) and handle B (none) share the controller; B's queue exists
 * before the faults. A's sync read and A's async read each time out, are aborted (QEMU cannot
 * abort them) and end in a controller reset; in between, the controller answers Identify and
 * takes a reset on request. B's queue, recreated after the resets, then reads the zeroes.
 */
static int
slow(const char *bdf)
{
	struct xnvme_dev *a = open_dev(bdf, 1000000), *b = open_dev(bdf, 0);
	struct xnvme_queue *qa = NULL, *qb = NULL;
	struct xnvme_spec_idfy *idfy;
	struct tally ta = {0}, tb = {0};
	struct xnvme_cmd_ctx ctx;
	uint8_t *buf;
	double t0, dt = 0;
	size_t nz = 0;
	int err;

	if (!a || !b) {
		return 1;
	}
	buf = xnvme_buf_alloc(a, 8192);
	idfy = xnvme_buf_alloc(a, sizeof(*idfy));
	CHECK_EQ(xnvme_queue_init(b, 4, 0, &qb), 0);
	CHECK(buf && idfy && qb);
	if (!buf || !idfy || !qb) {
		return 1;
	}
	xnvme_queue_set_cb(qb, on_cpl, &tb);

	ctx = xnvme_cmd_ctx_from_dev(a);
	t0 = xnvme_test_now();
	err = xnvme_nvm_read(&ctx, 1, 0, 0, buf, NULL);
	dt = xnvme_test_now() - t0;
	printf("sync read with a 1 s timeout: %d after %.2f s\n", err, dt);
	CHECK_EQ(err, -ETIMEDOUT);
	CHECK_EQ(ctx.cpl.status.sct, XNVME_STATUS_CODE_TYPE_VENDOR);
	CHECK_EQ(ctx.cpl.status.sc, ETIMEDOUT);
	CHECK(dt >= 1.0 && dt < 30.0);
	/* aborted, then reset (QEMU holds the read till its latency is over): live again */
	ctx = xnvme_cmd_ctx_from_dev(a);
	CHECK_EQ(xnvme_adm_idfy_ctrlr(&ctx, idfy), 0);
	CHECK(!strncmp((const char *)idfy->ctrlr.sn, "qslow0", 6));
	CHECK_EQ(xnvme_controller_reset(a), 0);
	ctx = xnvme_cmd_ctx_from_dev(a);
	CHECK_EQ(xnvme_adm_idfy_ctrlr(&ctx, idfy), 0);

	CHECK_EQ(xnvme_queue_init(a, 4, 0, &qa), 0);
	if (qa) {
		xnvme_queue_set_cb(qa, on_cpl, &ta);
		CHECK_EQ(async_read(qa, buf, &ta, &dt), 0);
		printf("async read with a 1 s timeout: %d errors after %.2f s\n", ta.nerr, dt);
		CHECK_EQ(ta.nerr, 1);
		CHECK_EQ(ta.sc, ETIMEDOUT);
		CHECK(dt >= 1.0 && dt < 30.0);
		xnvme_queue_term(qa);
	}

	memset(buf, 0xAA, 8192);
	CHECK_EQ(async_read(qb, buf, &tb, &dt), 0);
	printf("async read without a timeout, on a queue made before the resets: %d errors "
	       "after %.2f s\n",
	       tb.nerr, dt);
	CHECK_EQ(tb.ok, 1);
	CHECK_EQ(tb.nerr, 0);
	for (size_t i = 0; i < 8192; ++i) {
		nz += buf[i] != 0;
	}
	CHECK_EQ(nz, 0);
	xnvme_queue_term(qb);
	xnvme_buf_free(a, buf);
	xnvme_buf_free(a, idfy);
	xnvme_dev_close(b);
	xnvme_dev_close(a);
	return 0;
}

/* Asks the host for device_del of `id`: the id goes to $XNVME_QEMU_DEVICE_DEL in one rename */
static int
ask_device_del(const char *id)
{
	const char *path = getenv("XNVME_QEMU_DEVICE_DEL");
	char tmp[512];
	FILE *fp;

	if (!path) {
		return -ENOENT;
	}
	snprintf(tmp, sizeof(tmp), "%s.req", path);
	fp = fopen(tmp, "w");
	if (!fp) {
		return -errno;
	}
	fprintf(fp, "%s\n", id);
	if (fclose(fp) || rename(tmp, path)) {
		return -errno;
	}
	return 0;
}

/* Submits reads until QD are outstanding; 0 or the first submission error */
static int
top_up(struct xnvme_queue *queue, uint8_t *buf, uint64_t *lba)
{
	while (xnvme_queue_get_outstanding(queue) < QD) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(queue);
		int err = xnvme_nvm_read(ctx, 1, *lba, 7, buf, NULL);

		*lba = (*lba + 8) % 16384;
		if (err) {
			xnvme_queue_put_cmd_ctx(queue, ctx);
			return err;
		}
	}
	return 0;
}

static bool
exists(const char *bdf)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
	return access(path, F_OK) == 0;
}

static int
remove_dev(const char *bdf, const char *id)
{
	struct xnvme_dev *dev = open_dev(bdf, 30000000);
	struct xnvme_spec_ctrlr_bar *bar;
	struct xnvme_queue *queue = NULL;
	struct xnvme_cmd_ctx *ctx;
	struct tally t = {0};
	uint8_t *buf;
	uint64_t lba = 0;
	double t_ask, t_rel, t_gone;
	int inflight, ok_before, err;

	if (!dev) {
		return 1;
	}
	buf = xnvme_buf_alloc(dev, 4096);
	bar = malloc(sizeof(*bar));
	CHECK_EQ(xnvme_queue_init(dev, QD, 0, &queue), 0);
	if (!buf || !bar || !queue) {
		return 1;
	}
	xnvme_queue_set_cb(queue, on_cpl, &t);
	while (t.ok < 64) {
		CHECK_EQ(top_up(queue, buf, &lba), 0);
		xnvme_queue_poke(queue, 0);
	}
	CHECK_EQ(t.nerr, 0);
	CHECK_EQ(ask_device_del(id), 0);
	t_ask = xnvme_test_now();
	CHECK_EQ(top_up(queue, buf, &lba), 0);
	inflight = (int)xnvme_queue_get_outstanding(queue);
	ok_before = t.ok;
	/*
	 * The application now leaves the device alone, the handle open, reads queued: the driver's
	 * thread must let go of it by itself (registers all-ones) and the kernel then completes
	 * the removal (the function leaves sysfs) while the handle is still open.
	 */
	do {
		err = xnvme_controller_get_registers(dev, bar);
		usleep(10000);
	} while (!err && bar->csts != 0xffffffff && xnvme_test_now() - t_ask < 60);
	CHECK_EQ(err, 0);
	t_rel = xnvme_test_now();
	CHECK_EQ(bar->csts, 0xffffffff);
	while (exists(bdf) && xnvme_test_now() - t_ask < 60) {
		usleep(10000);
	}
	t_gone = xnvme_test_now();
	CHECK(!exists(bdf));
	printf("device_del asked after %d reads with %d more queued: released after %.2f s, "
	       "removed by the kernel after %.2f s, the handle still open\n",
	       t.ok, inflight, t_rel - t_ask, t_gone - t_ask);
	/*
	 * Each queued read completes once: with success when the device had answered it before
	 * the driver let go (its completion is in host memory), else with EIO; new ones are refused
	 */
	CHECK_EQ(inflight, QD);
	xnvme_queue_drain(queue);
	CHECK_EQ(xnvme_queue_get_outstanding(queue), 0);
	CHECK_EQ((t.ok - ok_before) + t.nerr, inflight);
	CHECK_EQ(t.eio, t.nerr);
	ctx = xnvme_queue_get_cmd_ctx(queue);
	CHECK_EQ(xnvme_nvm_read(ctx, 1, 0, 7, buf, NULL), -EIO);
	xnvme_queue_put_cmd_ctx(queue, ctx);
	xnvme_queue_term(queue);
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
	free(bar);
	printf("queued reads: %d answered before the release, %d failed with EIO; closed %.2f s "
	       "after device_del was asked\n",
	       t.ok - ok_before, t.eio, xnvme_test_now() - t_ask);
	return 0;
}

int
main(int argc, char **argv)
{
	int rc = 2;

	alarm(120); /* a hang ends the program with SIGALRM: a failure */
	if (argc == 3 && !strcmp(argv[1], "refuse")) {
		rc = refuse(argv[2]);
	} else if (argc == 3 && !strcmp(argv[1], "slow")) {
		rc = slow(argv[2]);
	} else if (argc == 4 && !strcmp(argv[1], "remove")) {
		rc = remove_dev(argv[2], argv[3]);
	}
	if (rc == 2) {
		fprintf(stderr, "usage: test_vfio_faults refuse BDF | slow BDF | remove BDF ID\n");
		return XNVME_TEST_SKIP;
	}
	return xnvme_test_result("test_vfio_faults") || rc ? 1 : 0;
}
