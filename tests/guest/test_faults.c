// SPDX-License-Identifier: BSD-3-Clause
/*
 * Device removal while open (run inside the QEMU guest, LAST: it removes the controller).
 * Commands pending at removal and commands issued afterwards must fail with an error; none may
 * hang. A watchdog (alarm) turns a hang into a failure.
 *   test_faults            uses XNVME_QEMU_NVM4K_CHR / _BLK and XNVME_QEMU_PCI_BDF
 * Exit: 0 pass, 1 fail, 77 skip (not in the guest).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxnvme.h>
#include "../xnvme_test.h"

#define QDEPTH 8

struct done {
	int ncalls;
	int nerr;
};

static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	struct done *d = cb_arg;

	d->ncalls++;
	d->nerr += xnvme_cmd_ctx_cpl_status(ctx) != 0;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static void
on_alarm(int sig)
{
	static const char msg[] = "FAIL: watchdog: a command hung after device removal\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		_exit(1);
	}
	_exit(1);
}

static int
remove_pci(const char *bdf)
{
	char path[256];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", bdf);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		return -errno;
	}
	if (write(fd, "1", 1) != 1) {
		err = -errno;
	}
	close(fd);
	return err;
}

static int
submit_reads(struct xnvme_queue *queue, struct xnvme_dev *dev, void *buf, int n)
{
	int nsubmitted = 0;

	for (int i = 0; i < n; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(queue);
		int err;

		if (!ctx) {
			break;
		}
		err = xnvme_nvm_read(ctx, xnvme_dev_get_nsid(dev), i, 0, buf, NULL);
		if (err) {
			xnvme_queue_put_cmd_ctx(queue, ctx);
			break;
		}
		nsubmitted++;
	}
	return nsubmitted;
}

int
main(void)
{
	const char *chr = getenv("XNVME_QEMU_NVM4K_CHR");
	const char *blk = getenv("XNVME_QEMU_NVM4K_BLK");
	const char *bdf = getenv("XNVME_QEMU_PCI_BDF");
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *adev, *sdev;
	struct xnvme_queue *queue = NULL;
	struct xnvme_cmd_ctx ctx;
	struct done d = {0};
	void *abuf, *sbuf;
	int n, err;

	if (!chr || !blk || !bdf) {
		fprintf(stderr, "skip: not in the QEMU guest\n");
		return XNVME_TEST_SKIP;
	}
	signal(SIGALRM, on_alarm);

	opts.async = "io_uring_cmd";
	adev = xnvme_dev_open(chr, &opts);
	sdev = xnvme_dev_open(blk, NULL);
	CHECK(adev && sdev);
	if (!adev || !sdev) {
		return 1;
	}
	abuf = xnvme_buf_alloc(adev, 4096);
	sbuf = xnvme_buf_alloc(sdev, 4096);
	CHECK_EQ(xnvme_queue_init(adev, QDEPTH, 0, &queue), 0);
	if (!queue || !abuf || !sbuf) {
		return 1;
	}
	xnvme_queue_set_cb(queue, on_cpl, &d);

	/* before: everything works */
	n = submit_reads(queue, adev, abuf, QDEPTH);
	CHECK_EQ(n, QDEPTH);
	alarm(60);
	CHECK_EQ(xnvme_queue_drain(queue), n);
	CHECK_EQ(d.nerr, 0);
	ctx = xnvme_cmd_ctx_from_dev(sdev);
	CHECK_EQ(xnvme_nvm_read(&ctx, xnvme_dev_get_nsid(sdev), 0, 0, sbuf, NULL), 0);

	/* commands queued (submitted to the kernel at the next poke) when the device goes */
	memset(&d, 0, sizeof(d));
	n = submit_reads(queue, adev, abuf, QDEPTH);
	err = remove_pci(bdf);
	CHECK_EQ(err, 0);
	printf("removed %s with %d commands pending\n", bdf, n);
	xnvme_queue_drain(queue);
	CHECK_EQ(d.ncalls, n);
	printf("pending: %d completed, %d with an error status\n", d.ncalls, d.nerr);

	/* commands issued after removal fail, synchronously and asynchronously */
	ctx = xnvme_cmd_ctx_from_dev(sdev);
	err = xnvme_nvm_read(&ctx, xnvme_dev_get_nsid(sdev), 0, 0, sbuf, NULL);
	CHECK(err != 0);
	printf("sync read after removal: err %d, sct %d, sc %d\n", err, ctx.cpl.status.sct,
	       ctx.cpl.status.sc);

	memset(&d, 0, sizeof(d));
	n = submit_reads(queue, adev, abuf, 2);
	if (n > 0) {
		xnvme_queue_drain(queue);
		CHECK_EQ(d.ncalls, n);
		CHECK_EQ(d.nerr, n);
	}
	printf("async after removal: %d submitted, %d failed\n", n, d.nerr);
	alarm(0);

	/* a new open of the vanished node fails with an error, not a crash */
	errno = 0;
	CHECK(xnvme_dev_open(chr, NULL) == NULL);
	CHECK(errno != 0);

	xnvme_queue_term(queue);
	xnvme_buf_free(adev, abuf);
	xnvme_buf_free(sdev, sbuf);
	xnvme_dev_close(adev);
	xnvme_dev_close(sdev);
	return xnvme_test_result("test_faults");
}
