// SPDX-License-Identifier: BSD-3-Clause
/*
 * One hostile-target case of the "tcp" backend against the kernel's nvmet-tcp, through the
 * fault-injecting proxy tests/guest/tcp_fault_proxy.py (which runs this program once per case).
 * The proxy corrupts the data of the one 64 KiB read (NLB 127) it sees; this program:
 *  1. opens the device through the proxy, queues that read with three 4 KiB reads on an async
 *     queue of depth 8 and drains it: the 64 KiB read fails, every command gets exactly one
 *     callback, all within the command timeout plus a margin (no hang);
 *  2. the read's status carries the transport's errno (status code type 7), and the queue
 *     reports the error: a new command is refused with -ENOTCONN;
 *  3. a fresh device handle (new connections, the proxy now forwards unchanged) writes 32 KiB
 *     of a pattern, reads it back through a sync and an async read and compares.
 * The case "silent" instead writes a pattern, then waits for the reads on the completion fd
 * alone (poll(fd, -1) under a watchdog) while the proxy swallows every response: the fd must
 * wake at the command timeout, one poke fails each read once with ETIMEDOUT, and a new queue
 * of the same handle reads the pattern back.
 *
 *   usage: test_tcp_proxy <uri> <subnqn> <case name>
 * Exit 0 pass, 1 fail.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tcp_target.h"
#include "../xnvme_test.h"

#define TIMEOUT_US 2000000U /* command timeout: the stall case waits this long */
#define FRESH_SLBA 4096U
#define FRESH_NBYTES 32768U
#define SILENT_TIMEOUT_US 1000000U

struct counts {
	int ok;
	int bad;
	int big_bad;
	struct xnvme_spec_cpl big_cpl; ///< completion of the 64 KiB read
};

static void
count_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct counts *c = arg;
	bool bad = xnvme_cmd_ctx_cpl_status(ctx) != 0;

	c->ok += !bad;
	c->bad += bad;
	if (ctx->cmd.nvm.nlb == 127) {
		c->big_bad += bad;
		c->big_cpl = ctx->cpl;
	}
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static struct xnvme_dev *
open_dev(const char *uri, const char *subnqn, uint64_t timeout_us)
{
	struct xnvme_opts opts = xnvme_opts_default();

	opts.subnqn = subnqn;
	opts.command_timeout = timeout_us;
	return xnvme_test_open(uri, &opts);
}

/* Writes FRESH_NBYTES of a pattern from `seed` to FRESH_SLBA through the sync path */
static void
write_pattern(struct xnvme_dev *dev, uint8_t *buf, uint32_t seed)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	int err;

	tt_fill(buf, FRESH_NBYTES, seed);
	err = xnvme_nvm_write(&ctx, 1, FRESH_SLBA, FRESH_NBYTES / 512 - 1, buf, NULL);
	CHECK_OK(err, ctx);
}

/* buf: 6 x 64 KiB; the reads use the first four, the pattern and its read-back the others */
static void
silent(const char *uri, const char *subnqn, uint8_t *buf, uint32_t seed)
{
	struct xnvme_dev *dev = open_dev(uri, subnqn, SILENT_TIMEOUT_US);
	struct xnvme_queue *q = tt_queue_or_close(dev);
	uint8_t *wbuf = buf + 4 * 65536, *rbuf = buf + 5 * 65536;

	CHECK(q != NULL);
	if (!q) {
		return;
	}
	write_pattern(dev, wbuf, seed);
	tt_silent_wait(q, buf, 4, 127, SILENT_TIMEOUT_US, 5.0, 30);
	xnvme_queue_term(q);
	tt_queue_read_cmp(dev, FRESH_SLBA, FRESH_NBYTES, wbuf, rbuf);
	xnvme_dev_close(dev);
}

static void
faulted(const char *uri, const char *subnqn, uint8_t *buf)
{
	struct xnvme_dev *dev = open_dev(uri, subnqn, TIMEOUT_US);
	struct xnvme_queue *q = tt_queue_or_close(dev);
	struct counts c = {0};
	double t0, dt;

	CHECK(dev != NULL);
	CHECK(q != NULL);
	if (!q) {
		return;
	}
	xnvme_queue_set_cb(q, count_cb, &c);
	for (int k = 0; k < 4; ++k) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);
		uint16_t nlb = k ? 7 : 127; /* the proxy acts on the 64 KiB read only */

		xnvme_prep_nvm(ctx, XNVME_SPEC_NVM_OPC_READ, 1, (uint64_t)k * 256, nlb);
		CHECK_EQ(xnvme_cmd_pass(ctx, buf + (size_t)k * 65536, (nlb + 1U) * 512U, NULL, 0),
			 0);
	}
	t0 = tt_now_s();
	while (xnvme_queue_get_outstanding(q) && tt_now_s() - t0 < 20.0) {
		xnvme_queue_poke(q, 0);
	}
	dt = tt_now_s() - t0;
	printf("faulted queue drained in %.2f s: %d ok, %d failed; the 64 KiB read: sct %u sc %u "
	       "(%s)\n",
	       dt, c.ok, c.bad, c.big_cpl.status.sct, c.big_cpl.status.sc,
	       strerror(c.big_cpl.status.sc));
	CHECK_EQ(xnvme_queue_get_outstanding(q), 0);
	CHECK_EQ(c.ok + c.bad, 4);
	CHECK_EQ(c.big_bad, 1);
	CHECK(dt < TIMEOUT_US / 1e6 + 5.0);
	/* the transport's error, as errno in a status of the vendor-specific type */
	CHECK_EQ(c.big_cpl.status.sct, XNVME_STATUS_CODE_TYPE_VENDOR);
	CHECK(c.big_cpl.status.sc != 0);
	/* the queue reports the error: its connection refuses new commands */
	CHECK_EQ(tt_try_read(q, buf), -ENOTCONN);
	xnvme_queue_term(q);
	xnvme_dev_close(dev);
}

static void
fresh(const char *uri, const char *subnqn, uint8_t *buf, uint32_t seed)
{
	struct xnvme_dev *dev = open_dev(uri, subnqn, TIMEOUT_US);
	uint8_t *rbuf = buf + FRESH_NBYTES;
	struct xnvme_queue *q = NULL;
	struct xnvme_cmd_ctx ctx;
	struct counts c = {0};
	int err;

	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	write_pattern(dev, buf, seed);
	memset(rbuf, 0, FRESH_NBYTES);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, 1, FRESH_SLBA, FRESH_NBYTES / 512 - 1, rbuf, NULL);
	CHECK_OK(err, ctx);
	CHECK(!memcmp(buf, rbuf, FRESH_NBYTES));

	memset(rbuf, 0, FRESH_NBYTES);
	CHECK_EQ(xnvme_queue_init(dev, 8, 0, &q), 0);
	if (q) {
		struct xnvme_cmd_ctx *actx = xnvme_queue_get_cmd_ctx(q);

		xnvme_queue_set_cb(q, count_cb, &c);
		xnvme_prep_nvm(actx, XNVME_SPEC_NVM_OPC_READ, 1, FRESH_SLBA,
			       FRESH_NBYTES / 512 - 1);
		CHECK_EQ(xnvme_cmd_pass(actx, rbuf, FRESH_NBYTES, NULL, 0), 0);
		CHECK_EQ(xnvme_queue_drain(q), 1);
		CHECK_EQ(c.ok, 1);
		CHECK(!memcmp(buf, rbuf, FRESH_NBYTES));
		xnvme_queue_term(q);
	}
	xnvme_dev_close(dev);
}

int
main(int argc, char **argv)
{
	uint8_t *buf;
	uint32_t seed = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: %s <uri> <subnqn> <case name>\n", argv[0]);
		return 1;
	}
	buf = calloc(6, 65536);
	if (!buf) {
		return 1;
	}
	for (const char *p = argv[3]; *p; ++p) {
		seed = seed * 31U + (uint8_t)*p;
	}
	if (!strcmp(argv[3], "silent")) {
		silent(argv[1], argv[2], buf, seed);
	} else {
		faulted(argv[1], argv[2], buf);
		fresh(argv[1], argv[2], buf, seed);
	}
	free(buf);
	printf("# test_tcp_proxy %s\n", argv[3]);
	return xnvme_test_result("test_tcp_proxy");
}
