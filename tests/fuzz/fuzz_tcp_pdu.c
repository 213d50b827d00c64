// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer harness of the NVMe/TCP PDU parser (lib/be/tcp/pdu.c): what a hostile target can
 * send. Input layout:
 *   byte 0      bit 0 header digests, bit 1 data digests, bit 2 "repair": write the correct
 *               header digest before parsing so that the checks behind it are reached
 *   bytes 1-32  eight outstanding-command slots of 4 bytes: flags (bit 0 active, bits 1-2
 *               direction, bit 3 in-capsule, bit 4 R2T busy), nbytes / 512 (2 bytes),
 *               done / 512
 *   rest        a stream of PDUs: common header, header, data and digests
 * Checked: a PDU the parser accepts has a known type, its CID is outstanding with a matching
 * direction, and its data lies inside the command's transfer at the expected offset; the
 * parser refuses a header buffer of the wrong length; no access outside the (exactly sized)
 * copies. Accepted data PDUs advance the command as the receive path would. The CRC32C of
 * the whole input is the same from the library (CPU instruction or table walk), its portable
 * fallback and a bit-by-bit reference.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "be/tcp/tcp.h"
#include "fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NCMDS 8
#define HDR_NBYTES (1 + NCMDS * 4)
#define FAIL(...) fuzz_fail("fuzz_tcp_pdu", __VA_ARGS__)

static void
check_accepted(const struct xnvme_tcp_pdu *pdu, struct xnvme_tcp_cmd_state *cmds)
{
	struct xnvme_tcp_cmd_state *st;

	if (pdu->type == XNVME_TCP_PDU_C2H_TERM) {
		if (pdu->len > XNVME_TCP_TERM_DATA_MAX) {
			FAIL("termination PDU with %u data bytes", pdu->len);
		}
		return;
	}
	if (pdu->cid >= NCMDS || !cmds[pdu->cid].active) {
		FAIL("type %u accepted for CID %u that is not outstanding", pdu->type, pdu->cid);
	}
	st = &cmds[pdu->cid];
	switch (pdu->type) {
	case XNVME_TCP_PDU_CAPSULE_RESP:
		break;
	case XNVME_TCP_PDU_C2H_DATA:
		if (st->dir != XNVME_TCP_DIR_C2H || !pdu->len || pdu->off != st->done ||
		    (uint64_t)pdu->off + pdu->len > st->nbytes) {
			FAIL("C2HData off %u len %u for a command of %u bytes (%u done, dir %u)",
			     pdu->off, pdu->len, st->nbytes, st->done, st->dir);
		}
		st->done += pdu->len;
		break;
	case XNVME_TCP_PDU_R2T:
		if (st->dir != XNVME_TCP_DIR_H2C || st->incapsule || st->r2t_busy || !pdu->len ||
		    pdu->off != st->done || (uint64_t)pdu->off + pdu->len > st->nbytes) {
			FAIL("R2T off %u len %u for a command of %u bytes", pdu->off, pdu->len,
			     st->nbytes);
		}
		st->done += pdu->len;
		break;
	default:
		FAIL("unexpected PDU type %u accepted", pdu->type);
	}
}

static void
check_crc(const uint8_t *data, size_t size)
{
	uint32_t ref = ~0U;

	for (size_t i = 0; i < size; ++i) {
		ref ^= data[i];
		for (int b = 0; b < 8; ++b) {
			ref = (ref & 1) ? (ref >> 1) ^ 0x82F63B78U : ref >> 1;
		}
	}
	if (xnvme_tcp_crc32c(~0U, data, size) != ref ||
	    xnvme_tcp_crc32c_sw(~0U, data, size) != ref) {
		FAIL("CRC32C of %zu bytes differs from the bitwise reference", size);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xnvme_tcp_cmd_state cmds[NCMDS];
	struct xnvme_tcp_limits lim = {.ncmds = NCMDS};
	bool repair;
	size_t pos = HDR_NBYTES;

	check_crc(data, size);
	if (size < HDR_NBYTES) {
		return 0;
	}
	lim.hdgst = data[0] & 1;
	lim.ddgst = (data[0] >> 1) & 1;
	repair = (data[0] >> 2) & 1;
	for (int i = 0; i < NCMDS; ++i) {
		const uint8_t *c = data + 1 + 4 * i;

		memset(&cmds[i], 0, sizeof(cmds[i]));
		cmds[i].active = c[0] & 1;
		cmds[i].dir = (c[0] >> 1) % 3;
		cmds[i].incapsule = (c[0] >> 3) & 1;
		cmds[i].r2t_busy = (c[0] >> 4) & 1;
		cmds[i].nbytes = (uint32_t)(c[1] | (c[2] << 8)) * 512U;
		cmds[i].done = (uint32_t)c[3] * 512U;
		if (cmds[i].done > cmds[i].nbytes) {
			cmds[i].done = cmds[i].nbytes;
		}
	}

	while (size - pos >= sizeof(struct xnvme_tcp_ch)) {
		struct xnvme_tcp_pdu pdu;
		uint32_t hdr_nbytes, skip;
		uint8_t *hdr;
		int err;

		if (xnvme_tcp_pdu_check_ch(data + pos, &lim, &hdr_nbytes)) {
			break;
		}
		if (hdr_nbytes < sizeof(struct xnvme_tcp_ch) ||
		    hdr_nbytes > XNVME_TCP_RX_HDR_MAX + 128) {
			FAIL("common header accepted with a header of %u bytes", hdr_nbytes);
		}
		if (size - pos < hdr_nbytes) {
			break;
		}
		hdr = malloc(hdr_nbytes);
		if (!hdr) {
			return 0;
		}
		memcpy(hdr, data + pos, hdr_nbytes);
		if (repair && lim.hdgst && hdr[0] != XNVME_TCP_PDU_C2H_TERM) {
			uint32_t dg = xnvme_tcp_digest(hdr, hdr[2]);

			memcpy(hdr + hdr[2], &dg, sizeof(dg));
		}
		if (!xnvme_tcp_pdu_parse(hdr, hdr_nbytes - 1, &lim, cmds, &pdu)) {
			FAIL("a header one byte short was accepted");
		}
		err = xnvme_tcp_pdu_parse(hdr, hdr_nbytes, &lim, cmds, &pdu);
		free(hdr);
		if (err) {
			if (err != -EPROTO && err != -EBADMSG) {
				FAIL("parser returned %d", err);
			}
			break;
		}
		check_accepted(&pdu, cmds);
		pos += hdr_nbytes;
		if (pdu.type == XNVME_TCP_PDU_C2H_DATA) {
			skip = pdu.len + (lim.ddgst ? XNVME_TCP_DIGEST_LEN : 0);
			if (size - pos < skip) {
				break;
			}
			pos += skip;
		}
	}
	return 0;
}
