/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small NVMe/TCP target for the initiator's tests (tests/tcp_target.c): listens on
 * 127.0.0.1 on an ephemeral port, serves one NVM namespace of 512-byte LBAs from memory
 * (Identify, Property Get/Set, Connect, Read, Write, Flush) and injects faults on request.
 * Each connection is served by a thread of its own; the target lives in the test process.
 */
#ifndef XNVME_TESTS_TCP_TARGET_H
#define XNVME_TESTS_TCP_TARGET_H

#include <stdint.h>
#include <libxnvme.h>

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

#endif
