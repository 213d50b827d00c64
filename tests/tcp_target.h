/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small NVMe/TCP target for the initiator's tests (tests/tcp_target.c): listens on
 * 127.0.0.1 on an ephemeral port, serves one NVM namespace of 512-byte LBAs from memory
 * (Identify, Property Get/Set, Connect, Read, Write, Flush) and injects faults on request.
 * Each connection is served by a thread of its own; the target lives in the test process.
 * Below it, helpers the tcp test programs share (tests/guest/test_tcp_proxy.c too).
 */
#ifndef XNVME_TESTS_TCP_TARGET_H
#define XNVME_TESTS_TCP_TARGET_H

#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libxnvme.h>
#include "xnvme_test.h"

enum tt_fault {
	TT_FAULT_NONE = 0,
	TT_FAULT_TRUNCATED,        ///< response with a PDU length shorter than its header
	TT_FAULT_OVERSIZED,        ///< C2HData longer than the read
	TT_FAULT_UNKNOWN_CID,      ///< response for a CID that is not outstanding
	TT_FAULT_BAD_HDGST,        ///< response with a wrong header digest
	TT_FAULT_BAD_DDGST,        ///< C2HData with a wrong data digest
	TT_FAULT_DROP,             ///< half of the read data, then the connection is closed
	TT_FAULT_NO_RESPONSE,      ///< the command is never answered
	TT_FAULT_TERM,             ///< C2HTermReq instead of a response
	TT_FAULT_EARLY_RESP,       ///< a write is answered before its data was requested
	TT_FAULT_DATA_UNKNOWN_CID, ///< C2HData for a CID that is not outstanding
	/**
	 * A write gets one R2T for all its data, which is then not read; 0.5 s later comes a
	 * C2HData of one LBA with SUCCESS for the next CID (a read whose capsule the initiator
	 * cannot have sent yet); 1 s later the connection is closed
	 */
	TT_FAULT_C2H_BEFORE_CAPSULE,
	/** No Read or Write is answered any more (all connections) until the next tt_set_fault */
	TT_FAULT_SILENT,
};

struct tt_cfg {
	uint32_t nlbas;      ///< namespace size in 512-byte LBAs
	uint32_t maxh2cdata; ///< ICResp MAXH2CDATA
	uint32_t icd_nbytes; ///< in-capsule data of I/O queues (IOCCSZ - 64)
	uint32_t c2h_chunk;  ///< bytes per C2HData PDU
	int c2h_success;     ///< use the SUCCESS flag instead of a response capsule
	uint16_t ms;         ///< metadata bytes per LBA (LBA format 0; PI type 1 when >= 8)
	int ms_separate;     ///< report them in a separate buffer, else extended LBAs
};

struct tt;

/** Starts a target; NULL on error. *port gets the TCP port */
struct tt *
tt_start(const struct tt_cfg *cfg, uint16_t *port);

/** Makes the `after`-th Read or Write from now on (0: the next) misbehave as `fault` */
void
tt_set_fault(struct tt *tt, enum tt_fault fault, int after);

/** Number of I/O commands (Read/Write/Flush) the target served */
uint64_t
tt_nio(struct tt *tt);

/** Keep Alive commands received, and the largest KATO (ms) an admin Connect asked for */
uint64_t
tt_nkeepalive(struct tt *tt, uint32_t *kato_ms);

/**
 * Keep Alive commands that came before the Set Features Number of Queues of their admin queue
 * (an initiator's open sends that last). An admin Connect with KATO 1 ms makes the target
 * answer Identify 5 ms late, time enough for a Keep Alive sent during the open to arrive.
 */
uint64_t
tt_nkeepalive_early(struct tt *tt);

/** Stops the target: closes the listener and every connection, joins the threads */
void
tt_stop(struct tt *tt);

/** Completions the test programs count: good and failed; each context goes back to its queue */
struct tt_counts {
	int ok;
	int bad;
};

static inline void
tt_count_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct tt_counts *c = arg;

	if (xnvme_cmd_ctx_cpl_status(ctx)) {
		c->bad++;
	} else {
		c->ok++;
	}
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* A queue of depth 8 on `dev`; NULL when `dev` is NULL or the queue fails (`dev` is then closed) */
static inline struct xnvme_queue *
tt_queue_or_close(struct xnvme_dev *dev)
{
	struct xnvme_queue *q = NULL;

	if (dev && xnvme_queue_init(dev, 8, 0, &q)) {
		xnvme_dev_close(dev);
		return NULL;
	}
	return q;
}

/*
 * Submits a read of LBA 0 on `q` and returns what xnvme_cmd_pass() gave: on a queue whose
 * connection failed, -ENOTCONN (a refused context goes back to the queue)
 */
static inline int
tt_try_read(struct xnvme_queue *q, void *buf)
{
	struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);
	int err;

	xnvme_prep_nvm(ctx, XNVME_SPEC_NVM_OPC_READ, 1, 0, 0);
	err = xnvme_cmd_pass(ctx, buf, 512, NULL, 0);
	if (err) {
		xnvme_queue_put_cmd_ctx(q, ctx);
	}
	return err;
}

/* A pseudo-random pattern of `n` bytes from `seed` */
static inline void
tt_fill(uint8_t *buf, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; ++i) {
		seed = seed * 1103515245U + 12345U;
		buf[i] = (uint8_t)(seed >> 16);
	}
}

static inline double
tt_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Callbacks per command of tt_silent_wait() (by SLBA / 256) and each one's completion */
struct tt_silent {
	int ncalls[8];
	struct xnvme_spec_cpl cpl[8];
};

static inline void
tt_silent_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct tt_silent *s = arg;
	uint64_t k = ctx->cmd.nvm.slba / 256;

	if (k < 8) {
		s->ncalls[k]++;
		s->cpl[k] = ctx->cpl;
	}
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static inline void
tt_watchdog(int sig)
{
	static const char msg[] = "FAIL: watchdog: poll(completion fd, -1) never returned\n";
	ssize_t n = write(2, msg, sizeof(msg) - 1);

	(void)n;
	(void)sig;
	_exit(1);
}

/*
 * A silent target and an application that waits on the completion fd alone: submits `n` (1..8)
 * reads on `q` (read k: SLBA k * 256, `nlb0` + 1 LBAs for k = 0, else 8, into buf + k * 64 KiB),
 * which the target never answers, pokes once, then waits with poll(fd, -1) under a watchdog of
 * `watchdog_s` seconds that fails the program. The fd must become readable at the command
 * timeout `timeout_us` (not more than 5 ms early) and before `late_s` seconds beyond it, the poke after that
 * wake must complete every read exactly once with ETIMEDOUT (status type 7), and the queue then
 * refuses new commands with -ENOTCONN.
 */
static inline void
tt_silent_wait(struct xnvme_queue *q, uint8_t *buf, int n, uint16_t nlb0, uint64_t timeout_us,
	       double late_s, unsigned watchdog_s)
{
	struct pollfd pfd = {.fd = xnvme_queue_get_completion_fd(q), .events = POLLIN};
	struct sigaction sa = {.sa_handler = tt_watchdog};
	struct tt_silent s = {0};
	double t0, dt;
	int ret;

	CHECK(pfd.fd >= 0 && n >= 1 && n <= 8);
	if (pfd.fd < 0 || n < 1 || n > 8) {
		return;
	}
	xnvme_queue_set_cb(q, tt_silent_cb, &s);
	t0 = tt_now_s();
	for (int k = 0; k < n; ++k) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);
		uint16_t nlb = k ? 7 : nlb0;

		xnvme_prep_nvm(ctx, XNVME_SPEC_NVM_OPC_READ, 1, (uint64_t)k * 256, nlb);
		CHECK_EQ(xnvme_cmd_pass(ctx, buf + (size_t)k * 65536, (nlb + 1U) * 512U, NULL, 0),
			 0);
	}
	CHECK_EQ(xnvme_queue_poke(q, 0), 0); /* sends the capsules */
	sigaction(SIGALRM, &sa, NULL);
	alarm(watchdog_s);
	ret = poll(&pfd, 1, -1);
	alarm(0);
	dt = tt_now_s() - t0;
	CHECK_EQ(ret, 1);
	/* deadlines come from a coarse clock: a few ms early at most */
	CHECKF(dt >= (double)timeout_us / 1e6 - 0.005 && dt < (double)timeout_us / 1e6 + late_s,
	       "the fd became readable after %.3f s (command timeout %.3f s)", dt,
	       (double)timeout_us / 1e6);
	CHECK_EQ(xnvme_queue_poke(q, 0), n);
	CHECK(xnvme_queue_poke(q, 0) <= 0); /* nothing twice */
	for (int k = 0; k < n; ++k) {
		CHECKF(s.ncalls[k] == 1, "read %d: %d callbacks", k, s.ncalls[k]);
		CHECK_EQ(s.cpl[k].status.sct, XNVME_STATUS_CODE_TYPE_VENDOR);
		CHECK_EQ(s.cpl[k].status.sc, ETIMEDOUT);
	}
	CHECK_EQ(xnvme_queue_get_outstanding(q), 0);
	CHECK_EQ(tt_try_read(q, buf), -ENOTCONN);
	printf("silent target: the completion fd woke after %.3f s, %d reads failed with "
	       "ETIMEDOUT\n",
	       dt, n);
}

/* Reads `nbytes` at `slba` through a new queue of `dev` (a new connection) and compares */
static inline void
tt_queue_read_cmp(struct xnvme_dev *dev, uint64_t slba, uint32_t nbytes, const uint8_t *expect,
		  uint8_t *rbuf)
{
	struct tt_counts c = {0};
	struct xnvme_queue *q = NULL;
	struct xnvme_cmd_ctx *ctx;

	CHECK_EQ(xnvme_queue_init(dev, 8, 0, &q), 0);
	if (!q) {
		return;
	}
	memset(rbuf, 0, nbytes);
	xnvme_queue_set_cb(q, tt_count_cb, &c);
	ctx = xnvme_queue_get_cmd_ctx(q);
	xnvme_prep_nvm(ctx, XNVME_SPEC_NVM_OPC_READ, 1, slba, (uint16_t)(nbytes / 512 - 1));
	CHECK_EQ(xnvme_cmd_pass(ctx, rbuf, nbytes, NULL, 0), 0);
	CHECK_EQ(xnvme_queue_drain(q), 1);
	CHECK_EQ(c.ok, 1);
	CHECK(!memcmp(expect, rbuf, nbytes));
	xnvme_queue_term(q);
}

#endif
