// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer harness of what an NVMe/RDMA target sends (lib/be/rdma/parse.c, conn_io.c):
 * the private data of its accept and reject, and the work completions of a connection with
 * eight commands outstanding: responses (any length, any CID, any status, with and without an
 * invalidation, of the right key or another, in the bit libibverbs defines and in the one
 * soft-RoCE uses), send and local-invalidation completions, error completions, completions of
 * no known kind. No verbs: the connection is made by xnvme_rdma_conn_init() over a device with
 * one fake registration, and what it would post is dropped. Input layout:
 *   byte 0      bit 0: private data mode (the rest is the data, fed to both parsers at every
 *               length); else bit 1: memory windows (per-command keys to invalidate)
 *   bytes 1-8   command per CID 0..7: bits 0-1 flush (no data), write 512 B (in the capsule),
 *               read 4 KiB, write 8 KiB (keyed)
 *   rest        8 bytes per work completion:
 *                 [0] bits 0-2 kind (1 receive, 2 send, 3 bind, 4 invalidation, else unknown),
 *                     bit 3 error status, bit 4 IBV_WC_WITH_INV, bit 5 IBV_WC_IP_CSUM_OK,
 *                     bit 6 a key of the input instead of the command's own
 *                 [1] receive index or CID   [2] byte_len   [3] the response's CID
 *                 [4-5] the response's status field   [6-7] low bits of the input's key
 * Checked: every command completes exactly once (failing the connection at the end completes
 * what is left), a failed connection has nothing outstanding, the key encoding round-trips.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "be/rdma/rdma.h"
#include "fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NCMDS 8
#define HDR_NBYTES 9
#define WC_NBYTES 8
#define FAIL(...) fuzz_fail("fuzz_rdma_rx", __VA_ARGS__)

static const uint32_t g_nbytes[4] = {0, 512, 4096, 8192};
static const uint8_t g_opc[4] = {XNVME_SPEC_NVM_OPC_FLUSH, XNVME_SPEC_NVM_OPC_WRITE,
				 XNVME_SPEC_NVM_OPC_READ, XNVME_SPEC_NVM_OPC_WRITE};

struct harness {
	struct xnvme_cmd_ctx ctx[NCMDS];
	int ncompleted[NCMDS];
	uint8_t arena[NCMDS * 8192];
	struct ibv_mr mr;
	struct ibv_mw mw[NCMDS];
	struct xnvme_rdma_region region;
	struct xnvme_rdma_dev rd;
};

static struct harness g_h;

static void
on_complete(struct xnvme_rdma_conn *conn, struct xnvme_cmd_ctx *ctx)
{
	(void)conn;
	g_h.ncompleted[ctx - g_h.ctx]++;
}

static void
private_data(const uint8_t *d, size_t n)
{
	uint16_t v;

	for (size_t len = 0; len <= n; ++len) {
		if (!xnvme_rdma_cm_rep_parse(d, len, &v) && (!v || len < 4)) {
			FAIL("accept of %zu bytes taken with crqsize %u", len, v);
		}
		if (!xnvme_rdma_cm_rej_parse(d, len, &v) && !xnvme_rdma_cm_sts_str(v)) {
			FAIL("reject status %u without text", v);
		}
	}
	if (n >= 16) {
		struct xnvme_rdma_sgl_keyed k;
		uint64_t addr;
		uint32_t len, key;

		memcpy(&addr, d, 8);
		memcpy(&len, d + 8, 4);
		memcpy(&key, d + 12, 4);
		len &= XNVME_RDMA_SGL_LEN_MAX;
		xnvme_rdma_sgl_keyed(&k, addr, len, key, d[0] & 1);
		if (k.addr != addr ||
		    (uint32_t)(k.len[0] | k.len[1] << 8 | k.len[2] << 16) != len ||
		    memcmp(k.key, &key, 4) || (k.type != XNVME_RDMA_SGL_KEYED_INV) != !(d[0] & 1)) {
			FAIL("keyed SGL does not round-trip");
		}
	}
}

/* One work completion from 8 input bytes (a response's CQE goes into its receive buffer) */
static void
feed(struct xnvme_rdma_conn *conn, const uint8_t *b)
{
	struct ibv_wc wc = {0};
	uint32_t kind = b[0] & 7, idx = b[1];

	wc.wr_id = xnvme_rdma_wr_id(kind, idx);
	wc.status = (b[0] & 8) ? IBV_WC_REM_ACCESS_ERR : IBV_WC_SUCCESS;
	wc.byte_len = b[2];
	wc.wc_flags = ((b[0] & 16) ? IBV_WC_WITH_INV : 0) | ((b[0] & 32) ? IBV_WC_IP_CSUM_OK : 0);
	if (kind == XNVME_RDMA_WR_RECV && idx < conn->nrecv) {
		struct xnvme_spec_cpl cqe = {0};
		uint16_t status;

		cqe.cid = b[3];
		memcpy(&status, b + 4, sizeof(status));
		memcpy(&cqe.status, &status, sizeof(status));
		memcpy(conn->rsps + (size_t)idx * XNVME_RDMA_RSP_BUF, &cqe, sizeof(cqe));
	}
	wc.invalidated_rkey =
		(b[0] & 64) ? (uint32_t)(b[6] | b[7] << 8) : conn->st[b[3] % conn->ncmds].rkey;
	xnvme_rdma_conn_process(conn, &wc, 1);
	/* what a poke would post: dropped (the lists are links through the slots) */
	conn->sq_head = conn->sq_tail = NULL;
	conn->sq_pending = 0;
	conn->rq_head = conn->rq_tail = NULL;
	xnvme_rdma_conn_deliver(conn, b[1] & 3);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xnvme_rdma_conn conn;
	struct xnvme_rdma_region *regions;

	if (size < 1) {
		return 0;
	}
	if (data[0] & 1) {
		private_data(data + 1, size - 1 < 64 ? size - 1 : 64);
		return 0;
	}
	if (size < HDR_NBYTES) {
		return 0;
	}
	memset(&g_h, 0, sizeof(g_h));
	/* one registration covering every command's buffer, with keys no device gave */
	g_h.mr.lkey = 0x1111;
	g_h.mr.rkey = 0x2222;
	g_h.region = (struct xnvme_rdma_region){g_h.arena, sizeof(g_h.arena), &g_h.mr, NULL};
	regions = malloc(sizeof(*regions));
	if (!regions) {
		FAIL("out of memory");
	}
	*regions = g_h.region;
	pthread_rwlock_init(&g_h.rd.mrs.lock, NULL);
	g_h.rd.mrs.regions = regions;
	g_h.rd.mrs.nregions = g_h.rd.mrs.cap = 1;
	if (xnvme_rdma_conn_init(&conn, &g_h.rd, 1, NCMDS, 4096)) {
		FAIL("conn_init");
	}
	conn.mw = (data[0] >> 1) & 1;
	conn.icd_max = 4096;
	conn.complete = on_complete;
	for (int i = 0; conn.mw && i < NCMDS; ++i) {
		g_h.mw[i].rkey = 0x8000100U + (uint32_t)i * 0x100;
		conn.slots[i].mw = &g_h.mw[i];
		conn.slots[i].mw_rkey = g_h.mw[i].rkey;
	}
	for (int i = 0; i < NCMDS; ++i) {
		uint32_t kind = data[1 + i] & 3;

		g_h.ctx[i].cmd.common.opcode = g_opc[kind];
		if (xnvme_rdma_conn_submit(&conn, &g_h.ctx[i], g_h.arena + (size_t)i * 8192, NULL,
					   0, g_nbytes[kind], NULL, 0)) {
			FAIL("submission %d refused", i);
		}
	}
	conn.sq_head = conn.sq_tail = NULL;
	for (size_t pos = HDR_NBYTES; pos + WC_NBYTES <= size && !conn.err; pos += WC_NBYTES) {
		feed(&conn, data + pos);
	}
	/* end of the input: the connection goes down with what is left */
	xnvme_rdma_conn_deliver(&conn, 0);
	xnvme_rdma_conn_fail(&conn, -ECONNRESET);
	if (conn.nactive) {
		FAIL("%u commands outstanding after the connection failed", conn.nactive);
	}
	for (int i = 0; i < NCMDS; ++i) {
		if (g_h.ncompleted[i] != 1) {
			FAIL("CID %d completed %d times", i, g_h.ncompleted[i]);
		}
	}
	xnvme_rdma_conn_free(&conn);
	free(g_h.rd.mrs.regions);
	pthread_rwlock_destroy(&g_h.rd.mrs.lock);
	return 0;
}
