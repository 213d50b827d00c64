// SPDX-License-Identifier: BSD-3-Clause
/*
 * Processes of the vfio backend's multi-process mode on a real (emulated) controller, inside
 * the QEMU guest (tests/guest/vfio_mp.sh runs `xnvme-driver serve` and these side by side).
 * Every device open goes through the public API with opts.shm_id (SHM, hexadecimal; 0 opens
 * the controller in single-process mode).
 *   test_vfio_mp worker BDF SHM IDX SECONDS READY   writes and reads back 4 KiB blocks at queue
 *     depth 16 and through the sync path on LBAs [IDX * 16384, +16384) of namespace 1 until
 *     SIGTERM or SECONDS passed; READY ("-": none) is created after the first verified round
 *   test_vfio_mp status BDF SHM    admin commands whose answers must not depend on the mode:
 *     an unknown opcode, Identify of an inactive namespace, Identify Namespace 1, the
 *     Arbitration feature; one line each (status, data digest)
 *   test_vfio_mp queues BDF SHM    opens queues until the controller has none left: prints
 *     their number and the reason of the refusal
 *   test_vfio_mp orphan BDF SHM READY   reads at depth 8 until its primary is killed (READY
 *     created first): then every command fails with ENOTCONN and nothing hangs
 *   test_vfio_mp cfd BDF SHM       a queue's completion fd (the primary routes the MSI-X vector
 *     of the queue to the secondary's eventfd): a write completes and the fd becomes readable
 * Exit: 0 pass, 1 fail.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libxnvme.h>
#include "../xnvme_test.h"

#define QD 16
#define BS 4096
#define RANGE_LBAS 16384

static volatile sig_atomic_t g_stop;

static void
on_term(int sig)
{
	(void)sig;
	g_stop = 1;
}

static struct xnvme_dev *
open_dev(const char *bdf, const char *shm)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;

	opts.nsid = 1;
	opts.shm_id = (uint32_t)strtoul(shm, NULL, 16);
	dev = xnvme_dev_open(bdf, &opts);
	if (!dev) {
		fprintf(stderr, "FAIL: xnvme_dev_open(%s, shm id %s): %s: %s\n", bdf, shm,
			strerror(errno), xnvme_last_error());
	}
	return dev;
}

static void
pattern(uint8_t *buf, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t x = (seed + i) * 0x9E3779B97F4A7C15ULL;

		memcpy(buf + i, &x, 8);
	}
}

struct done {
	int n;
	int nerr;
	int last_sc;
};

static void
cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct done *d = arg;

	d->n++;
	if (xnvme_cmd_ctx_cpl_status(ctx)) {
		d->nerr++;
		d->last_sc = ctx->cpl.status.sc;
	}
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* QD blocks written at depth QD from `w`, read back into `r`: 0 or -1 */
static int
qd_round(struct xnvme_dev *dev, struct xnvme_queue *q, uint8_t *w, uint8_t *r, uint64_t slba)
{
	uint16_t nlb = (uint16_t)(BS / xnvme_dev_get_geo(dev)->lba_nbytes - 1);
	struct done d = {0};

	xnvme_queue_set_cb(q, cb, &d);
	for (int pass = 0; pass < 2; ++pass) {
		for (int i = 0; i < QD; ++i) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);
			uint64_t lba = slba + (uint64_t)i * (nlb + 1);
			int err =
				pass ? xnvme_nvm_read(ctx, 1, lba, nlb, r + (size_t)i * BS, NULL)
				     : xnvme_nvm_write(ctx, 1, lba, nlb, w + (size_t)i * BS, NULL);

			if (err) {
				fprintf(stderr, "FAIL: submit: %s\n", strerror(-err));
				xnvme_queue_put_cmd_ctx(q, ctx);
				return -1;
			}
		}
		if (xnvme_queue_drain(q) < 0 || d.nerr) {
			fprintf(stderr, "FAIL: %d commands failed (sc %d)\n", d.nerr, d.last_sc);
			return -1;
		}
	}
	return memcmp(w, r, (size_t)QD * BS) ? -1 : 0;
}

static int
worker(const char *bdf, const char *shm, int idx, int seconds, const char *ready)
{
	struct xnvme_dev *dev = open_dev(bdf, shm);
	struct xnvme_queue *q = NULL;
	uint8_t *w, *r;
	time_t end = time(NULL) + seconds;
	uint64_t base = (uint64_t)idx * RANGE_LBAS, rounds = 0;
	int rc = 0;

	if (!dev) {
		return 1;
	}
	w = xnvme_buf_alloc(dev, (size_t)QD * BS);
	r = xnvme_buf_alloc(dev, (size_t)QD * BS);
	if (!w || !r || xnvme_queue_init(dev, QD, 0, &q)) {
		fprintf(stderr, "FAIL: worker %d: buffers or queue: %s\n", idx, xnvme_last_error());
		return 1;
	}
	signal(SIGTERM, on_term);
	while (!rc && !g_stop && time(NULL) < end) {
		uint64_t slba = base + (rounds * QD * 8) % (RANGE_LBAS - QD * 8);
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);

		pattern(w, (size_t)QD * BS, ((uint64_t)idx << 40) | rounds);
		memset(r, 0, (size_t)QD * BS);
		rc = qd_round(dev, q, w, r, slba);
		/* and one block through the sync path (the process's own sync queue pair) */
		if (!rc && (xnvme_nvm_write(&ctx, 1, slba, 7, w, NULL) ||
			    xnvme_nvm_read(&ctx, 1, slba, 7, r, NULL) || memcmp(w, r, BS))) {
			fprintf(stderr, "FAIL: worker %d: sync write/read at %llu\n", idx,
				(unsigned long long)slba);
			rc = -1;
		}
		if (!rc && !rounds++ && strcmp(ready, "-")) {
			fclose(fopen(ready, "w"));
		}
	}
	printf("worker %d: %llu rounds, %llu blocks verified%s\n", idx, (unsigned long long)rounds,
	       (unsigned long long)rounds * (QD + 1), rc ? ", FAILED" : "");
	xnvme_queue_term(q);
	xnvme_buf_free(dev, w);
	xnvme_buf_free(dev, r);
	xnvme_dev_close(dev);
	return rc ? 1 : 0;
}

static uint64_t
digest(const uint8_t *buf, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; ++i) {
		h = (h ^ buf[i]) * 1099511628211ULL;
	}
	return h;
}

static void
status_line(const char *what, int err, const struct xnvme_cmd_ctx *ctx, const uint8_t *buf,
	    size_t n)
{
	printf("%s: err %d sct %u sc 0x%02x cdw0 0x%x data %016llx\n", what, err,
	       ctx->cpl.status.sct, ctx->cpl.status.sc, ctx->cpl.cdw0,
	       (unsigned long long)(buf ? digest(buf, n) : 0));
}

static int
status(const char *bdf, const char *shm)
{
	struct xnvme_dev *dev = open_dev(bdf, shm);
	struct xnvme_cmd_ctx ctx;
	uint8_t *buf;
	int err;

	if (!dev || !(buf = xnvme_buf_alloc(dev, 4096))) {
		return 1;
	}
	ctx = xnvme_cmd_ctx_from_dev(dev);
	ctx.cmd.common.opcode = 0xC4; /* vendor specific: not implemented by QEMU */
	err = xnvme_cmd_pass_admin(&ctx, NULL, 0, NULL, 0);
	status_line("unknown opcode", err, &ctx, NULL, 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	memset(buf, 0xA5, 4096);
	err = xnvme_adm_idfy_ns(&ctx, 9, (struct xnvme_spec_idfy *)buf);
	status_line("identify inactive namespace", err, &ctx, NULL, 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy_ns(&ctx, 1, (struct xnvme_spec_idfy *)buf);
	status_line("identify namespace 1", err, &ctx, buf, 4096);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 0, 0x01, 0, NULL, 0);
	status_line("get features arbitration", err, &ctx, NULL, 0);
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
	return 0;
}

static int
queues(const char *bdf, const char *shm)
{
	struct xnvme_dev *dev = open_dev(bdf, shm);
	struct xnvme_queue *q[1024];
	int n = 0, err = 0;

	if (!dev) {
		return 1;
	}
	while (n < 1024 && !(err = xnvme_queue_init(dev, 4, 0, &q[n]))) {
		n++;
	}
	printf("queues: %d, then errno %d: %s\n", n, -err, xnvme_last_error());
	while (n) {
		xnvme_queue_term(q[--n]);
	}
	xnvme_dev_close(dev);
	return err == -EBUSY ? 0 : 1;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int
orphan(const char *bdf, const char *shm, const char *ready)
{
	struct xnvme_dev *dev = open_dev(bdf, shm);
	struct xnvme_queue *q = NULL;
	struct done d = {0};
	uint8_t *buf;
	uint64_t t_fail = 0, t0;
	bool readied = false;
	int err = 0;

	if (!dev || !(buf = xnvme_buf_alloc(dev, 8 * BS)) || xnvme_queue_init(dev, 8, 0, &q)) {
		return 1;
	}
	xnvme_queue_set_cb(q, cb, &d);
	t0 = now_ms();
	/* reads until the submissions are refused: the primary is gone */
	while (now_ms() - t0 < 60000) {
		struct xnvme_cmd_ctx *ctx;

		while (xnvme_queue_get_outstanding(q) >= 8) {
			xnvme_queue_poke(q, 0);
		}
		if (!readied && d.n >= 64) {
			fclose(fopen(ready, "w")); /* reading: the primary may be killed now */
			readied = true;
		}
		ctx = xnvme_queue_get_cmd_ctx(q);
		err = xnvme_nvm_read(ctx, 1, 0, 7, buf + (size_t)(d.n % 8) * BS, NULL);
		if (err) {
			xnvme_queue_put_cmd_ctx(q, ctx);
			t_fail = now_ms();
			break;
		}
	}
	CHECK_EQ(err, -ENOTCONN);
	/* what was outstanding completes (the device still runs) or fails: nothing waits long */
	CHECK(xnvme_queue_drain_timeout(q, 10000000) >= 0);
	CHECK(now_ms() - t_fail < 10000);
	{
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);

		CHECK_EQ(xnvme_nvm_read(&ctx, 1, 0, 7, buf, NULL), -ENOTCONN);
		ctx = xnvme_cmd_ctx_from_dev(dev);
		CHECK_EQ(xnvme_adm_idfy_ns(&ctx, 1, (struct xnvme_spec_idfy *)buf), -ENOTCONN);
	}
	printf("orphan: %d reads done before the primary went, then ENOTCONN (%s)\n", d.n,
	       xnvme_last_error());
	xnvme_queue_term(q);
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
	return xnvme_test_nfail ? 1 : 0;
}

static int
cfd(const char *bdf, const char *shm)
{
	struct xnvme_dev *dev = open_dev(bdf, shm);
	struct xnvme_queue *q = NULL;
	struct xnvme_cmd_ctx *ctx;
	struct done d = {0};
	struct pollfd pfd = {.events = POLLIN};
	uint64_t cnt = 0;
	uint8_t *buf;

	if (!dev || !(buf = xnvme_buf_alloc(dev, BS)) || xnvme_queue_init(dev, 4, 0, &q)) {
		return 1;
	}
	xnvme_queue_set_cb(q, cb, &d);
	pfd.fd = xnvme_queue_get_completion_fd(q);
	CHECK(pfd.fd >= 0);
	if (pfd.fd < 0) {
		fprintf(stderr, "completion fd: %s: %s\n", strerror(-pfd.fd), xnvme_last_error());
		return 1;
	}
	CHECK_EQ(poll(&pfd, 1, 0), 0); /* nothing completed yet */
	pattern(buf, BS, 11);
	ctx = xnvme_queue_get_cmd_ctx(q);
	CHECK_EQ(xnvme_nvm_write(ctx, 1, 100000, 7, buf, NULL), 0);
	CHECK(xnvme_queue_drain(q) >= 0);
	CHECK_EQ(d.n, 1);
	CHECK_EQ(d.nerr, 0);
	CHECK_EQ(poll(&pfd, 1, 5000), 1); /* the interrupt of that completion */
	CHECK_EQ(read(pfd.fd, &cnt, sizeof(cnt)), (ssize_t)sizeof(cnt));
	CHECK(cnt >= 1);
	printf("cfd: the completion fd of a secondary's queue signalled %llu\n",
	       (unsigned long long)cnt);
	xnvme_queue_term(q);
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
	return xnvme_test_nfail ? 1 : 0;
}

int
main(int argc, char **argv)
{
	if (argc == 7 && !strcmp(argv[1], "worker")) {
		return worker(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]), argv[6]);
	}
	if (argc == 4 && !strcmp(argv[1], "status")) {
		return status(argv[2], argv[3]);
	}
	if (argc == 4 && !strcmp(argv[1], "queues")) {
		return queues(argv[2], argv[3]);
	}
	if (argc == 4 && !strcmp(argv[1], "cfd")) {
		return cfd(argv[2], argv[3]);
	}
	if (argc == 5 && !strcmp(argv[1], "orphan")) {
		return orphan(argv[2], argv[3], argv[4]);
	}
	fprintf(stderr, "usage: see the head of %s\n", __FILE__);
	return 1;
}
