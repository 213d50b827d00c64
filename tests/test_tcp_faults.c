// SPDX-License-Identifier: BSD-3-Clause
/*
 * A misbehaving NVMe/TCP target (tests/tcp_target.c with faults injected) against the "tcp"
 * backend: a truncated PDU, data beyond the command, a response or data for an unknown CID, wrong
 * header and data digests, the connection dropped mid-transfer, no response at all (command
 * timeout), a termination request, and a write answered before its data was asked for. Each
 * must fail the affected commands with an error, leave the connection refusing new commands,
 * and neither hang nor crash; the admin connection keeps working. Then the same through an
 * async queue of depth 8, where every command gets exactly one callback. Last, a read completed
 * by C2HData with SUCCESS while its capsule still waits to be sent is a connection error too.
 * And a target that goes silent while the application waits on the completion fd alone
 * (poll(fd, -1)): the fd must wake at the command timeout so that a poke fails the commands.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tcp_target.h"
#include "xnvme_test.h"

#define NLBAS 8192U
#define SUBNQN "nqn.2024-01.io.xnvme:faults"
#define TIMEOUT_US 300000 /* command timeout for the no-response case */

static const struct {
	enum tt_fault fault;
	const char *name;
	const char *query;
	bool write;
} g_cases[] = {
	{TT_FAULT_TRUNCATED, "truncated", "", false},
	{TT_FAULT_OVERSIZED, "oversized", "", false},
	{TT_FAULT_UNKNOWN_CID, "unknown-cid", "", false},
	{TT_FAULT_BAD_HDGST, "bad-hdgst", "?hdgst=1", false},
	{TT_FAULT_BAD_DDGST, "bad-ddgst", "?ddgst=1", false},
	{TT_FAULT_DROP, "drop", "", false},
	{TT_FAULT_NO_RESPONSE, "no-response", "", false},
	{TT_FAULT_TERM, "term", "", false},
	{TT_FAULT_EARLY_RESP, "early-resp", "", true},
	{TT_FAULT_DATA_UNKNOWN_CID, "data-unknown-cid", "", false},
};

static struct xnvme_dev *
open_dev(uint16_t port, const char *query)
{
	struct xnvme_opts opts = xnvme_opts_default();
	char uri[128];

	snprintf(uri, sizeof(uri), "127.0.0.1:%u%s", port, query);
	opts.subnqn = SUBNQN;
	opts.command_timeout = TIMEOUT_US;
	return xnvme_test_open(uri, &opts);
}

static int
io(struct xnvme_dev *dev, bool write, uint8_t *buf, uint32_t nbytes)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	uint16_t nlb = (uint16_t)(nbytes / 512 - 1);

	return write ? xnvme_nvm_write(&ctx, 1, 16, nlb, buf, NULL)
		     : xnvme_nvm_read(&ctx, 1, 16, nlb, buf, NULL);
}

static void
sync_case(struct tt *tt, uint16_t port, size_t i, uint8_t *buf)
{
	struct xnvme_dev *dev;
	struct xnvme_cmd_ctx ctx;
	double t0;
	int err;

	/*
	 * A fault armed by the previous case stays armed when its commands timed out before the
	 * target read the one it was meant for (slow runs, valgrind): it must not hit this case.
	 */
	tt_set_fault(tt, TT_FAULT_NONE, 0);
	dev = open_dev(port, g_cases[i].query);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	CHECK_EQ(io(dev, true, buf, 65536), 0); /* healthy before the fault */
	tt_set_fault(tt, g_cases[i].fault, 0);
	t0 = tt_now_s();
	err = io(dev, g_cases[i].write, buf, 65536);
	if (err == 0) {
		fprintf(stderr, "fault %s: the command succeeded\n", g_cases[i].name);
	}
	CHECK(err != 0);
	CHECK(tt_now_s() - t0 < 5.0);
	/* the I/O connection is dead: later commands fail at once */
	CHECK_EQ(io(dev, false, buf, 4096), -ENOTCONN);
	/* the admin connection is not affected */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy_ctrlr(&ctx, (struct xnvme_spec_idfy *)(void *)buf);
	CHECK_OK(err, ctx);
	xnvme_dev_close(dev);
}

static void
async_case(struct tt *tt, uint16_t port, size_t i, uint8_t *buf)
{
	struct xnvme_dev *dev = open_dev(port, g_cases[i].query);
	struct xnvme_queue *q = tt_queue_or_close(dev);
	struct tt_counts c = {0};
	const int n = 8;
	double t0;

	CHECK(dev != NULL);
	CHECK(q != NULL);
	if (!q) {
		return;
	}
	xnvme_queue_set_cb(q, tt_count_cb, &c);
	tt_set_fault(tt, g_cases[i].fault, 3);
	for (int k = 0; k < n; ++k) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);
		uint8_t opc = g_cases[i].write ? XNVME_SPEC_NVM_OPC_WRITE : XNVME_SPEC_NVM_OPC_READ;

		xnvme_prep_nvm(ctx, opc, 1, (uint64_t)k * 128, 127);
		CHECK_EQ(xnvme_cmd_pass(ctx, buf + (size_t)k * 65536, 65536, NULL, 0), 0);
	}
	t0 = tt_now_s();
	xnvme_queue_drain(q);
	CHECK(tt_now_s() - t0 < 5.0);
	CHECK_EQ(c.ok + c.bad, n);
	CHECK(c.bad >= 1);
	CHECK_EQ(xnvme_queue_get_outstanding(q), 0);
	/* the queue's connection refuses new commands */
	CHECK_EQ(tt_try_read(q, buf), -ENOTCONN);
	xnvme_queue_term(q);
	xnvme_dev_close(dev);
}

/*
 * A write fills the socket with its data (the target does not read it) and a read queues
 * behind; the target then "completes" the read with C2HData SUCCESS. Its CID is still in the
 * transmit queue: the connection must fail, not the read succeed.
 */
static void
c2h_before_capsule(void)
{
	const uint32_t nbytes = 32U << 20; /* more than the socket buffers of both ends */
	struct tt_cfg cfg = {.nlbas = 65536 + 8, .maxh2cdata = 131072, .icd_nbytes = 4096};
	struct tt_counts wc = {0}, rc = {0};
	struct xnvme_cmd_ctx *w, *r;
	struct xnvme_queue *q = NULL;
	struct xnvme_dev *dev = NULL;
	uint8_t *buf = calloc(1, nbytes);
	uint16_t port;
	struct tt *tt = tt_start(&cfg, &port);
	uint64_t n0;
	double t0;

	CHECK(tt && buf);
	if (tt && buf) {
		struct xnvme_opts opts = xnvme_opts_default();
		char uri[64];

		snprintf(uri, sizeof(uri), "127.0.0.1:%u", port);
		opts.subnqn = SUBNQN;
		opts.command_timeout = 10000000; /* the write waits 2 s before the target quits */
		dev = xnvme_test_open(uri, &opts);
	}
	CHECK(dev != NULL);
	if (dev) {
		CHECK_EQ(xnvme_queue_init(dev, 8, 0, &q), 0);
	}
	if (!q) {
		goto out;
	}
	tt_set_fault(tt, TT_FAULT_C2H_BEFORE_CAPSULE, 0);
	xnvme_queue_set_cb(q, tt_count_cb, &wc);
	w = xnvme_queue_get_cmd_ctx(q);
	xnvme_prep_nvm(w, XNVME_SPEC_NVM_OPC_WRITE, 1, 0, 0xFFFF);
	n0 = tt_nio(tt);
	CHECK_EQ(xnvme_cmd_pass(w, buf, nbytes, NULL, 0), 0);
	/* capsule out until the target took it (it answers with the R2T), then R2T in and data
	 * out until the socket is full: by progress, not by a fixed time (valgrind, loaded CI) */
	for (t0 = tt_now_s(); tt_nio(tt) == n0 && tt_now_s() - t0 < 5.0;) {
		xnvme_queue_poke(q, 0);
	}
	for (t0 = tt_now_s(); tt_now_s() - t0 < 0.2;) {
		xnvme_queue_poke(q, 0);
	}
	r = xnvme_queue_get_cmd_ctx(q);
	r->async.cb_arg = &rc;
	xnvme_prep_nvm(r, XNVME_SPEC_NVM_OPC_READ, 1, 0, 0);
	CHECK_EQ(xnvme_cmd_pass(r, buf, 512, NULL, 0), 0);
	t0 = tt_now_s();
	while (xnvme_queue_get_outstanding(q) && tt_now_s() - t0 < 5.0) {
		xnvme_queue_poke(q, 0);
	}
	CHECK_EQ(xnvme_queue_get_outstanding(q), 0);
	CHECK_EQ(rc.bad, 1); /* not completed as a success */
	CHECK_EQ(wc.bad, 1);
	/* failed at the C2HData (~0.8 s from here), not when the target gave up (~1.8 s) */
	CHECK(tt_now_s() - t0 < 1.3);
	xnvme_queue_term(q);
out:
	if (dev) {
		xnvme_dev_close(dev);
	}
	if (tt) {
		tt_stop(tt);
	}
	free(buf);
}

/*
 * The target stops answering reads while the application waits on the completion fd with no
 * timeout of its own; data written before is read back through a new queue afterwards. Keep
 * Alive (KATO 100 ms) goes on meanwhile: the handle's thread sends it, not the waiter.
 */
static void
silent_fd_wait(struct tt *tt, uint16_t port, uint8_t *buf)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;
	struct xnvme_queue *q;
	uint8_t *wbuf = buf + 4 * 65536;
	uint64_t nka;
	uint32_t kato;
	char uri[64];

	snprintf(uri, sizeof(uri), "127.0.0.1:%u", port);
	opts.subnqn = SUBNQN;
	opts.command_timeout = TIMEOUT_US;
	opts.keep_alive_timeout_ms = 100;
	dev = xnvme_test_open(uri, &opts);
	q = tt_queue_or_close(dev);
	CHECK(q != NULL);
	if (!q) {
		return;
	}
	tt_fill(wbuf, 65536, 7);
	CHECK_EQ(io(dev, true, wbuf, 65536), 0); /* LBA 16 */
	tt_set_fault(tt, TT_FAULT_SILENT, 0);
	nka = tt_nkeepalive(tt, &kato);
	tt_silent_wait(q, buf, 4, 7, TIMEOUT_US, 2.0, 20);
	CHECKF(tt_nkeepalive(tt, &kato) - nka >= 2, "%d Keep Alive during the wait",
	       (int)(tt_nkeepalive(tt, &kato) - nka));
	xnvme_queue_term(q);
	tt_set_fault(tt, TT_FAULT_NONE, 0);
	tt_queue_read_cmp(dev, 16, 65536, wbuf, buf);
	xnvme_dev_close(dev);
}

int
main(void)
{
	struct tt_cfg cfg = {
		.nlbas = NLBAS, .maxh2cdata = 16384, .icd_nbytes = 4096, .c2h_chunk = 8192};
	uint8_t *buf = calloc(8, 65536);
	uint16_t port;
	struct tt *tt = tt_start(&cfg, &port);

	if (!buf) {
		return 1;
	}
	for (size_t i = 0; i < sizeof(g_cases) / sizeof(g_cases[0]); ++i) {
		int before = xnvme_test_nfail;

		sync_case(tt, port, i, buf);
		async_case(tt, port, i, buf);
		if (xnvme_test_nfail != before) {
			fprintf(stderr, "fault case '%s' failed\n", g_cases[i].name);
		}
	}
	{
		int before = xnvme_test_nfail;

		silent_fd_wait(tt, port, buf);
		if (xnvme_test_nfail != before) {
			fprintf(stderr, "fault case 'silent-fd-wait' failed\n");
		}
	}
	tt_stop(tt);
	free(buf);
	{
		int before = xnvme_test_nfail;

		c2h_before_capsule();
		if (xnvme_test_nfail != before) {
			fprintf(stderr, "fault case 'c2h-before-capsule' failed\n");
		}
	}
	return xnvme_test_result("test_tcp_faults");
}
