// SPDX-License-Identifier: BSD-3-Clause
/*
 * NVMe over Fabrics commands: Connect (admin and I/O queues), Property Get/Set, and the
 * controller enable and shutdown sequences built on them, over any transport.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "nvmf.h"

uint64_t
xnvme_nvmf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t
xnvme_nvmf_coarse_ns(void)
{
	struct timespec ts;

#ifdef CLOCK_MONOTONIC_COARSE
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
	clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void
ctx_init(struct xnvme_cmd_ctx *ctx, const void *cmd)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->opts = XNVME_CMD_SYNC;
	memcpy(&ctx->cmd, cmd, sizeof(ctx->cmd));
}

int
xnvme_nvmf_connect(struct xnvme_nvmf_ctrlr *ctrlr, void *conn, uint16_t qid, uint16_t sqsize,
		   uint16_t cntlid, uint16_t *cntlid_out)
{
	const struct xnvme_nvmf_target *tgt = &ctrlr->tgt;
	struct xnvme_fabrics_connect_cmd cmd = {0};
	struct xnvme_fabrics_connect_data data = {0};
	struct xnvme_cmd_ctx ctx;
	int err;

	cmd.opcode = XNVME_FABRICS_OPC;
	cmd.fctype = XNVME_FABRICS_CONNECT;
	cmd.qid = qid;
	cmd.sqsize = sqsize;
	cmd.kato = qid ? 0 : tgt->kato_ms;
	memcpy(data.hostid, tgt->hostid, sizeof(data.hostid));
	data.cntlid = cntlid;
	memcpy(data.subnqn, tgt->subnqn, sizeof(data.subnqn) - 1);
	memcpy(data.hostnqn, tgt->hostnqn, sizeof(data.hostnqn) - 1);

	ctx_init(&ctx, &cmd);
	err = ctrlr->tr->conn_run(conn, &ctx, &data, sizeof(data), NULL, 0, NULL, 0);
	if (err) {
		return err;
	}
	*cntlid_out = (uint16_t)(ctx.cpl.cdw0 & 0xFFFF);
	return 0;
}

int
xnvme_nvmf_prop_get(struct xnvme_nvmf_ctrlr *ctrlr, void *conn, uint32_t ofst, int eight,
		    uint64_t *value)
{
	struct xnvme_fabrics_prop_cmd cmd = {0};
	struct xnvme_cmd_ctx ctx;
	int err;

	cmd.opcode = XNVME_FABRICS_OPC;
	cmd.fctype = XNVME_FABRICS_PROP_GET;
	cmd.attrib = eight ? 1 : 0;
	cmd.ofst = ofst;
	ctx_init(&ctx, &cmd);
	err = ctrlr->tr->conn_run(conn, &ctx, NULL, 0, NULL, 0, NULL, 0);
	if (!err) {
		*value = eight ? ctx.cpl.result : ctx.cpl.cdw0;
	}
	return err;
}

int
xnvme_nvmf_prop_set(struct xnvme_nvmf_ctrlr *ctrlr, void *conn, uint32_t ofst, int eight,
		    uint64_t value)
{
	struct xnvme_fabrics_prop_cmd cmd = {0};
	struct xnvme_cmd_ctx ctx;

	cmd.opcode = XNVME_FABRICS_OPC;
	cmd.fctype = XNVME_FABRICS_PROP_SET;
	cmd.attrib = eight ? 1 : 0;
	cmd.ofst = ofst;
	cmd.value = value;
	ctx_init(&ctx, &cmd);
	return ctrlr->tr->conn_run(conn, &ctx, NULL, 0, NULL, 0, NULL, 0);
}

static void
sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Polls CSTS on the admin connection until (CSTS & mask) == want, for up to timeout_ms */
static int
csts_wait(struct xnvme_nvmf_ctrlr *ctrlr, uint32_t mask, uint32_t want, uint32_t timeout_ms)
{
	uint64_t deadline = xnvme_nvmf_now_ns() + (uint64_t)timeout_ms * 1000000ULL;

	for (;;) {
		uint64_t csts;
		int err = xnvme_nvmf_prop_get(ctrlr, ctrlr->admin, XNVME_PROP_CSTS, 0, &csts);

		if (err) {
			return err;
		}
		if (csts & XNVME_CSTS_CFS) {
			return -EIO;
		}
		if ((csts & mask) == want) {
			return 0;
		}
		if (xnvme_nvmf_now_ns() >= deadline) {
			return -ETIMEDOUT;
		}
		sleep_ms(1);
	}
}

int
xnvme_nvmf_ctrlr_enable(struct xnvme_nvmf_ctrlr *ctrlr)
{
	uint32_t to_ms = (uint32_t)((ctrlr->cap >> 24) & 0xFF) * 500U;
	uint64_t cc;
	int err;

	err = xnvme_nvmf_prop_get(ctrlr, ctrlr->admin, XNVME_PROP_CC, 0, &cc);
	if (err) {
		return err;
	}
	if (cc & XNVME_CC_EN) {
		return csts_wait(ctrlr, XNVME_CSTS_RDY, XNVME_CSTS_RDY, to_ms ? to_ms : 500);
	}
	/* CSS 0 (NVM), MPS 0 (4 KiB), AMS 0 (round robin) */
	cc = XNVME_CC_EN | XNVME_CC_IOSQES | XNVME_CC_IOCQES;
	err = xnvme_nvmf_prop_set(ctrlr, ctrlr->admin, XNVME_PROP_CC, 0, cc);
	if (err) {
		return err;
	}
	return csts_wait(ctrlr, XNVME_CSTS_RDY, XNVME_CSTS_RDY, to_ms ? to_ms : 500);
}

int
xnvme_nvmf_ctrlr_shutdown(struct xnvme_nvmf_ctrlr *ctrlr, uint32_t timeout_ms)
{
	uint64_t cc;
	int err;

	err = xnvme_nvmf_prop_get(ctrlr, ctrlr->admin, XNVME_PROP_CC, 0, &cc);
	if (err) {
		return err;
	}
	cc = (cc & ~(0x3ULL << 14)) | XNVME_CC_SHN_NORMAL;
	err = xnvme_nvmf_prop_set(ctrlr, ctrlr->admin, XNVME_PROP_CC, 0, cc);
	if (err) {
		return err;
	}
	return csts_wait(ctrlr, XNVME_CSTS_SHST_MASK, XNVME_CSTS_SHST_DONE, timeout_ms);
}
