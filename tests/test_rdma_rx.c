// SPDX-License-Identifier: BSD-3-Clause
/*
 * The rdma backend's command path without an RDMA device (lib/be/rdma/conn_io.c, parse.c): a
 * connection made by xnvme_rdma_conn_init() over a fake registration, fed the work
 * completions a target causes. What each submission builds (in-capsule data as a second gather
 * entry or copied in, keyed SGLs with the region's key or a window bound for the command), and
 * what each answer does: a command completes once its send completed and its response came, in
 * either order, and once a window the target left bound is invalidated; a hostile response
 * (unknown CID, wrong length, an answer twice, the wrong key invalidated, an invalidation not
 * asked for) or an error completion fails the connection, and every command completes exactly
 * once with the errno in its status; an NVMe status (an SGL the target does not support) fails
 * only its command. Also the private data of accept and reject, and the keyed SGL encoding.
 * The same paths over a real device and the kernel's target run in the guest
 * (tests/guest/rdma_target.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "be/rdma/rdma.h"
#include "xnvme_test.h"

#define NCMDS 4
#define ICD 4096
#define KEY_L 0x1111
#define KEY_R 0x2222

struct rig {
	struct xnvme_rdma_dev rd;
	struct xnvme_rdma_conn conn;
	struct xnvme_cmd_ctx ctx[NCMDS];
	int ncompleted[NCMDS];
	struct ibv_mr mr;
	struct ibv_mw mw[NCMDS];
	uint8_t arena[NCMDS * 8192];
};

static struct rig *g_rig;

static void
on_complete(struct xnvme_rdma_conn *conn, struct xnvme_cmd_ctx *ctx)
{
	(void)conn;
	g_rig->ncompleted[ctx - g_rig->ctx]++;
}

/* A connection of NCMDS slots over one fake registration of the arena; `mw`: windows */
static struct rig *
rig_new(bool mw)
{
	struct rig *r = calloc(1, sizeof(*r));

	if (!r) {
		return NULL;
	}
	g_rig = r;
	r->mr.lkey = KEY_L;
	r->mr.rkey = KEY_R;
	r->rd.mrs.regions = malloc(sizeof(*r->rd.mrs.regions));
	r->rd.mrs.regions[0] = (struct xnvme_rdma_region){r->arena, sizeof(r->arena), &r->mr, NULL};
	r->rd.mrs.nregions = r->rd.mrs.cap = 1;
	pthread_rwlock_init(&r->rd.mrs.lock, NULL);
	CHECK_EQ(xnvme_rdma_conn_init(&r->conn, &r->rd, 1, NCMDS, ICD), 0);
	r->conn.icd_max = ICD;
	r->conn.mw = mw;
	r->conn.complete = on_complete;
	for (int i = 0; mw && i < NCMDS; ++i) {
		r->mw[i].rkey = 0x8000100U + (uint32_t)i * 0x100;
		r->conn.slots[i].mw = &r->mw[i];
		r->conn.slots[i].mw_rkey = r->mw[i].rkey;
	}
	return r;
}

static void
rig_free(struct rig *r)
{
	xnvme_rdma_conn_free(&r->conn);
	free(r->rd.mrs.regions);
	pthread_rwlock_destroy(&r->rd.mrs.lock);
	free(r);
}

/* Submits command i: opcode, buffer (NULL: the arena's i-th 8 KiB), size; the CID it got */
static int
submit(struct rig *r, int i, uint8_t opc, void *buf, uint32_t nbytes)
{
	memset(&r->ctx[i], 0, sizeof(r->ctx[i]));
	r->ctx[i].cmd.common.opcode = opc;
	return xnvme_rdma_conn_submit(&r->conn, &r->ctx[i], buf ? buf : r->arena + i * 8192, NULL,
				      0, nbytes, NULL, 0);
}

/* The CID of the slot that holds command i */
static uint16_t
cid_of(struct rig *r, int i)
{
	for (uint16_t c = 0; c < NCMDS; ++c) {
		if (r->conn.st[c].active && r->conn.slots[c].ctx == &r->ctx[i]) {
			return c;
		}
	}
	return 0xFFFF;
}

static void
wc_send(struct rig *r, uint16_t cid, enum ibv_wc_status status)
{
	struct ibv_wc wc = {.wr_id = xnvme_rdma_wr_id(XNVME_RDMA_WR_SEND, cid), .status = status};

	xnvme_rdma_conn_process(&r->conn, &wc, 1);
}

/* A response in receive buffer `ri`: `len` bytes, for `cid`, with status sct/sc */
static void
wc_recv(struct rig *r, uint32_t ri, uint32_t len, uint16_t cid, uint8_t sct, uint8_t sc, int flags,
	uint32_t inv_rkey)
{
	struct xnvme_spec_cpl cqe = {0};
	struct ibv_wc wc = {.wr_id = xnvme_rdma_wr_id(XNVME_RDMA_WR_RECV, ri),
			    .status = IBV_WC_SUCCESS,
			    .byte_len = len,
			    .wc_flags = (unsigned)flags,
			    .invalidated_rkey = inv_rkey};

	cqe.cid = cid;
	cqe.status.sct = sct & 7;
	cqe.status.sc = sc;
	memcpy(r->conn.rsps + (size_t)ri * XNVME_RDMA_RSP_BUF, &cqe, sizeof(cqe));
	xnvme_rdma_conn_process(&r->conn, &wc, 1);
}

static int
ncompleted(struct rig *r)
{
	int n = 0;

	for (int i = 0; i < NCMDS; ++i) {
		n += r->ncompleted[i];
	}
	return n;
}

/* Every command completed exactly once, failed with `err` (folded into cpl) */
static void
check_all_failed(struct rig *r, int err)
{
	CHECK_EQ(r->conn.err, err);
	CHECK_EQ(r->conn.nactive, 0);
	for (int i = 0; i < NCMDS; ++i) {
		CHECK_EQ(r->ncompleted[i], 1);
		CHECK_EQ(r->ctx[i].cpl.status.sct, XNVME_STATUS_CODE_TYPE_VENDOR);
		CHECK_EQ(r->ctx[i].cpl.status.sc, -err);
	}
	CHECK_EQ(submit(r, 0, XNVME_SPEC_NVM_OPC_READ, NULL, 4096), -ENOTCONN);
}

static void
submissions(void)
{
	struct rig *r = rig_new(false);
	uint8_t stack[512];
	struct xnvme_rdma_slot *s;
	struct xnvme_rdma_sgl_keyed k;
	uint8_t *capsule;
	uint16_t c;

	/* in-capsule, registered: the caller's buffer is the second gather entry */
	CHECK_EQ(submit(r, 0, XNVME_SPEC_NVM_OPC_WRITE, NULL, 512), 0);
	c = cid_of(r, 0);
	s = &r->conn.slots[c];
	CHECK_EQ(s->wr_send.num_sge, 2);
	CHECK_EQ(s->sge[0].length, 64);
	CHECK_EQ(s->sge[1].addr, (uintptr_t)r->arena);
	CHECK_EQ(s->sge[1].lkey, KEY_L);
	capsule = r->conn.capsules + (size_t)c * (64 + ICD);
	CHECK_EQ(capsule[24 + 15], XNVME_RDMA_SGL_INCAPSULE);
	CHECK_EQ(capsule[1] & 0xC0, XNVME_NVMF_PSDT_SGL);

	/* in-capsule, not registered: copied behind the SQE, one gather entry */
	memset(stack, 0x5A, sizeof(stack));
	CHECK_EQ(submit(r, 1, XNVME_SPEC_NVM_OPC_WRITE, stack, sizeof(stack)), 0);
	c = cid_of(r, 1);
	s = &r->conn.slots[c];
	capsule = r->conn.capsules + (size_t)c * (64 + ICD);
	CHECK_EQ(s->wr_send.num_sge, 1);
	CHECK_EQ(s->sge[0].length, 64 + 512);
	CHECK(!memcmp(capsule + 64, stack, sizeof(stack)));

	/* keyed, no windows: the region's key, no invalidation asked for */
	CHECK_EQ(submit(r, 2, XNVME_SPEC_NVM_OPC_READ, NULL, 8192), 0);
	c = cid_of(r, 2);
	capsule = r->conn.capsules + (size_t)c * (64 + ICD);
	memcpy(&k, capsule + 24, sizeof(k));
	CHECK_EQ(k.type, XNVME_RDMA_SGL_KEYED);
	CHECK_EQ(k.addr, (uintptr_t)(r->arena + 2 * 8192));
	CHECK_EQ(k.len[0] | k.len[1] << 8 | k.len[2] << 16, 8192);
	CHECK(!memcmp(k.key, &(uint32_t){KEY_R}, 4));
	CHECK_EQ(r->conn.st[c].rkey, KEY_R);

	/* no data: a keyed SGL of length 0 */
	CHECK_EQ(submit(r, 3, XNVME_SPEC_NVM_OPC_FLUSH, NULL, 4096), 0);
	c = cid_of(r, 3);
	capsule = r->conn.capsules + (size_t)c * (64 + ICD);
	memcpy(&k, capsule + 24, sizeof(k));
	CHECK_EQ(k.len[0] | k.len[1] | k.len[2], 0);

	/* all slots taken; the SQ list links four sends */
	CHECK_EQ(submit(r, 0, XNVME_SPEC_NVM_OPC_READ, NULL, 512), -EBUSY);
	CHECK_EQ(r->conn.sq_pending, 4);
	/* more than a keyed SGL can describe; metadata */
	xnvme_rdma_conn_fail(&r->conn, -ECONNRESET);
	rig_free(r);

	r = rig_new(true);
	CHECK_EQ(submit(r, 0, XNVME_SPEC_NVM_OPC_READ, NULL, 4096), 0);
	c = cid_of(r, 0);
	s = &r->conn.slots[c];
	capsule = r->conn.capsules + (size_t)c * (64 + ICD);
	memcpy(&k, capsule + 24, sizeof(k));
	/* a window bound to exactly the buffer, writable by the target only, before the send */
	CHECK(r->conn.sq_head == &s->wr_bind && s->wr_bind.next == &s->wr_send);
	CHECK_EQ(s->wr_bind.bind_mw.bind_info.addr, (uintptr_t)r->arena);
	CHECK_EQ(s->wr_bind.bind_mw.bind_info.length, 4096);
	CHECK_EQ(s->wr_bind.bind_mw.bind_info.mw_access_flags, IBV_ACCESS_REMOTE_WRITE);
	CHECK(s->wr_bind.bind_mw.bind_info.mr == &r->mr);
	CHECK_EQ(s->wr_bind.bind_mw.rkey, ibv_inc_rkey(r->mw[c].rkey));
	CHECK_EQ(k.type, XNVME_RDMA_SGL_KEYED_INV);
	CHECK(!memcmp(k.key, &s->wr_bind.bind_mw.rkey, 4));
	CHECK_EQ(submit(r, 1, XNVME_SPEC_NVM_OPC_WRITE, NULL, 8192), 0);
	CHECK_EQ(r->conn.slots[cid_of(r, 1)].wr_bind.bind_mw.bind_info.mw_access_flags,
		 IBV_ACCESS_REMOTE_READ);
	CHECK_EQ(submit(r, 2, XNVME_SPEC_NVM_OPC_READ, NULL, XNVME_RDMA_SGL_LEN_MAX + 1), -EINVAL);
	memset(&r->ctx[2], 0, sizeof(r->ctx[2]));
	r->ctx[2].cmd.common.opcode = XNVME_SPEC_NVM_OPC_READ;
	CHECK_EQ(xnvme_rdma_conn_submit(&r->conn, &r->ctx[2], r->arena, NULL, 0, 512, r->arena, 8),
		 -ENOTSUP);
	xnvme_rdma_conn_fail(&r->conn, -ECONNRESET);
	rig_free(r);
}

/* Four reads answered: send then response, response then send; in order or not */
static void
answers(bool mw, int inv_flags)
{
	struct rig *r = rig_new(mw);

	for (int i = 0; i < NCMDS; ++i) {
		CHECK_EQ(submit(r, i, XNVME_SPEC_NVM_OPC_READ, NULL, 4096), 0);
	}
	r->conn.sq_head = r->conn.sq_tail = NULL; /* posted */
	for (int i = 0; i < NCMDS; ++i) {
		uint16_t c = cid_of(r, i);
		uint32_t key = r->conn.st[c].rkey;

		if (i % 2) {
			wc_recv(r, (uint32_t)i, 16, c, 0, 0, inv_flags, key);
			xnvme_rdma_conn_deliver(&r->conn, 0);
			CHECK_EQ(r->ncompleted[i], 0); /* the send's completion is missing */
			wc_send(r, c, IBV_WC_SUCCESS);
		} else {
			wc_send(r, c, IBV_WC_SUCCESS);
			wc_recv(r, (uint32_t)i, 16, c, 0, 0, inv_flags, key);
		}
		if (mw && !inv_flags) {
			/* not invalidated by the target: the initiator does it before completing */
			CHECK(r->conn.sq_head == &r->conn.slots[c].wr_inv);
			CHECK_EQ(r->conn.slots[c].wr_inv.invalidate_rkey, key);
			xnvme_rdma_conn_deliver(&r->conn, 0);
			CHECK_EQ(r->ncompleted[i], 0);
			{
				struct ibv_wc wc = {.wr_id =
							    xnvme_rdma_wr_id(XNVME_RDMA_WR_INV, c)};

				xnvme_rdma_conn_process(&r->conn, &wc, 1);
			}
		} else {
			CHECK(r->conn.sq_head == NULL);
		}
		r->conn.sq_head = r->conn.sq_tail = NULL;
		CHECK(r->conn.rq_head == &r->conn.rwr[i]); /* the receive goes back */
		r->conn.rq_head = r->conn.rq_tail = NULL;
		CHECK_EQ(xnvme_rdma_conn_deliver(&r->conn, 0), 1);
		CHECK_EQ(r->ncompleted[i], 1);
		CHECK_EQ(xnvme_cmd_ctx_cpl_status(&r->ctx[i]), 0);
		if (mw) {
			CHECK_EQ(r->mw[c].rkey, key); /* the window is named by its last key */
		}
	}
	CHECK_EQ(r->conn.err, 0);
	CHECK_EQ(r->conn.nactive, 0);
	CHECK_EQ(r->conn.nfree, NCMDS);
	rig_free(r);
}

/* A poke's `max`: completed commands wait in the ready ring */
static void
deliver_max(void)
{
	struct rig *r = rig_new(false);

	for (int i = 0; i < NCMDS; ++i) {
		CHECK_EQ(submit(r, i, XNVME_SPEC_NVM_OPC_FLUSH, NULL, 0), 0);
		wc_send(r, cid_of(r, i), IBV_WC_SUCCESS);
		wc_recv(r, (uint32_t)i, 16, cid_of(r, i), 0, 0, 0, 0);
	}
	CHECK_EQ(xnvme_rdma_conn_deliver(&r->conn, 1), 1);
	CHECK_EQ(ncompleted(r), 1);
	CHECK_EQ(xnvme_rdma_conn_deliver(&r->conn, 2), 2);
	CHECK_EQ(xnvme_rdma_conn_deliver(&r->conn, 0), 1);
	CHECK_EQ(ncompleted(r), NCMDS);
	rig_free(r);
}

/* An NVMe status fails its command only (here: the SGL descriptor type is not supported) */
static void
status_only(void)
{
	struct rig *r = rig_new(false);
	uint16_t c;

	CHECK_EQ(submit(r, 0, XNVME_SPEC_NVM_OPC_READ, NULL, 4096), 0);
	CHECK_EQ(submit(r, 1, XNVME_SPEC_NVM_OPC_READ, NULL, 4096), 0);
	c = cid_of(r, 0);
	wc_send(r, c, IBV_WC_SUCCESS);
	wc_recv(r, 0, 16, c, 0, 0x11, 0, 0);
	CHECK_EQ(xnvme_rdma_conn_deliver(&r->conn, 0), 1);
	CHECK_EQ(r->ctx[0].cpl.status.sct, 0);
	CHECK_EQ(r->ctx[0].cpl.status.sc, 0x11);
	CHECK_EQ(r->conn.err, 0);
	CHECK_EQ(r->conn.nactive, 1);
	xnvme_rdma_conn_fail(&r->conn, -ECONNRESET);
	CHECK_EQ(r->ncompleted[1], 1);
	rig_free(r);
}

enum hostile {
	UNKNOWN_CID,
	NOT_OUTSTANDING,
	LEN_SHORT,
	LEN_LONG,
	TWICE,
	WRONG_KEY,
	INV_NOT_ASKED,
	SEND_ERROR,
	FLUSH_AFTER_ABORT,
	RECV_INDEX,
	UNKNOWN_KIND,
};

/* One hostile answer among good ones: the connection fails, every command completes once */
static void
hostile(enum hostile h)
{
	struct rig *r = rig_new(h == WRONG_KEY);
	uint16_t c0, c1;
	int want = -EPROTO;

	for (int i = 0; i < NCMDS; ++i) {
		CHECK_EQ(submit(r, i, XNVME_SPEC_NVM_OPC_READ, NULL, 4096), 0);
	}
	c0 = cid_of(r, 0);
	c1 = cid_of(r, 1);
	wc_send(r, c0, IBV_WC_SUCCESS);
	wc_send(r, c1, IBV_WC_SUCCESS);
	switch (h) {
	case UNKNOWN_CID:
		wc_recv(r, 0, 16, 200, 0, 0, 0, 0);
		break;
	case NOT_OUTSTANDING:
		wc_recv(r, 0, 16, c0, 0, 0, 0, 0);
		xnvme_rdma_conn_deliver(&r->conn, 0);
		wc_recv(r, 1, 16, c0, 0, 0, 0, 0); /* its CID is free again */
		break;
	case LEN_SHORT:
		wc_recv(r, 0, 8, c0, 0, 0, 0, 0);
		break;
	case LEN_LONG:
		wc_recv(r, 0, 32, c0, 0, 0, 0, 0);
		break;
	case TWICE:
		wc_recv(r, 0, 16, c0, 0, 0, 0, 0);
		wc_recv(r, 1, 16, c0, 0, 0, 0, 0);
		break;
	case WRONG_KEY: /* another command's key */
		wc_recv(r, 0, 16, c0, 0, 0, IBV_WC_WITH_INV, r->conn.st[c1].rkey);
		break;
	case INV_NOT_ASKED:
		wc_recv(r, 0, 16, c0, 0, 0, IBV_WC_WITH_INV, KEY_R);
		break;
	case SEND_ERROR:
		want = -EREMOTEIO;
		wc_send(r, cid_of(r, 2), IBV_WC_REM_ACCESS_ERR);
		break;
	case FLUSH_AFTER_ABORT:
		want = -ETIMEDOUT;
		xnvme_rdma_conn_abort(&r->conn, -ETIMEDOUT); /* the monitor's, QP-less here */
		wc_send(r, cid_of(r, 2), IBV_WC_WR_FLUSH_ERR);
		break;
	case RECV_INDEX:
		wc_recv(r, 0, 16, c0, 0, 0, 0, 0);
		{
			struct ibv_wc wc = {.wr_id = xnvme_rdma_wr_id(XNVME_RDMA_WR_RECV, 999),
					    .byte_len = 16};

			xnvme_rdma_conn_process(&r->conn, &wc, 1);
		}
		break;
	case UNKNOWN_KIND: {
		struct ibv_wc wc = {.wr_id = xnvme_rdma_wr_id(7, c0)};

		xnvme_rdma_conn_process(&r->conn, &wc, 1);
		break;
	}
	}
	if (h == NOT_OUTSTANDING || h == TWICE || h == RECV_INDEX) {
		/* the first answer was good: that command succeeded */
		CHECK_EQ(r->ncompleted[0], 1);
		CHECK_EQ(xnvme_cmd_ctx_cpl_status(&r->ctx[0]), 0);
		CHECK_EQ(r->conn.err, want);
		CHECK_EQ(r->conn.nactive, 0);
		for (int i = 1; i < NCMDS; ++i) {
			CHECK_EQ(r->ncompleted[i], 1);
			CHECK_EQ(r->ctx[i].cpl.status.sc, -want);
		}
	} else {
		check_all_failed(r, want);
	}
	/* later completions (flushes of the dead QP) change nothing */
	wc_send(r, c0, IBV_WC_WR_FLUSH_ERR);
	wc_recv(r, 2, 16, c1, 0, 0, 0, 0);
	CHECK_EQ(ncompleted(r), NCMDS);
	rig_free(r);
}

static void
private_data(void)
{
	struct xnvme_rdma_cm_rep rep = {.recfmt = 0, .crqsize = 128};
	struct xnvme_rdma_cm_rej rej = {.recfmt = 0, .sts = XNVME_RDMA_CM_INVALID_HSQSIZE};
	struct xnvme_rdma_cm_req req;
	uint16_t v = 0;

	xnvme_rdma_cm_req_init(&req, 3, 32, 31, 7);
	CHECK(req.recfmt == 0 && req.qid == 3 && req.hrqsize == 32 && req.hsqsize == 31 &&
	      req.cntlid == 7);
	CHECK_EQ(xnvme_rdma_cm_rep_parse(&rep, sizeof(rep), &v), 0);
	CHECK_EQ(v, 128);
	CHECK_EQ(xnvme_rdma_cm_rep_parse(&rep, 4, &v), 0); /* the reserved bytes may be cut */
	CHECK_EQ(xnvme_rdma_cm_rep_parse(&rep, 3, &v), -EPROTO);
	CHECK_EQ(xnvme_rdma_cm_rep_parse(NULL, 0, &v), -EPROTO);
	rep.crqsize = 0;
	CHECK_EQ(xnvme_rdma_cm_rep_parse(&rep, sizeof(rep), &v), -EPROTO);
	rep.crqsize = 8;
	rep.recfmt = 1;
	CHECK_EQ(xnvme_rdma_cm_rep_parse(&rep, sizeof(rep), &v), -EPROTO);
	CHECK_EQ(xnvme_rdma_cm_rej_parse(&rej, sizeof(rej), &v), 0);
	CHECK_EQ(v, XNVME_RDMA_CM_INVALID_HSQSIZE);
	CHECK(strstr(xnvme_rdma_cm_sts_str(v), "HSQSIZE") ||
	      strstr(xnvme_rdma_cm_sts_str(v), "send"));
	CHECK_EQ(xnvme_rdma_cm_rej_parse(&rej, 2, &v), -ENOENT);
	rej.sts = 0;
	CHECK_EQ(xnvme_rdma_cm_rej_parse(&rej, sizeof(rej), &v), -ENOENT);
}

int
main(void)
{
	private_data();
	submissions();
	answers(false, 0);
	answers(true, IBV_WC_WITH_INV);
	answers(true, IBV_WC_IP_CSUM_OK); /* soft-RoCE's bit for an invalidation */
	answers(true, 0);                 /* the target ignored the request: local invalidation */
	deliver_max();
	status_only();
	for (int h = UNKNOWN_CID; h <= UNKNOWN_KIND; ++h) {
		hostile((enum hostile)h);
	}
	printf("test_rdma_rx: %d checks, %d failed\n", xnvme_test_ncheck, xnvme_test_nfail);
	return xnvme_test_nfail ? 1 : 0;
}
