// SPDX-License-Identifier: BSD-3-Clause
/*
 * Validation of controller-to-host PDUs. Everything a target sends is checked here before the
 * receive path uses it: the PDU type and its fixed header length, digest flags against what
 * was negotiated, PDU length and data offset, the CID against the outstanding commands, and
 * data offsets and lengths against the command's transfer. The host advertises HPDA 0, so data
 * must follow the header (and its digest) directly. Pure functions: the fuzzer drives them.
 */
#include <errno.h>
#include <string.h>

#include "tcp.h"

static uint32_t
hdgst_len(const struct xnvme_tcp_limits *lim)
{
	return lim->hdgst ? XNVME_TCP_DIGEST_LEN : 0;
}

int
xnvme_tcp_pdu_check_ch(const uint8_t *ch_bytes, const struct xnvme_tcp_limits *lim,
		       uint32_t *hdr_nbytes)
{
	struct xnvme_tcp_ch ch;
	uint32_t hd = hdgst_len(lim);
	uint32_t dd = lim->ddgst ? XNVME_TCP_DIGEST_LEN : 0;
	uint8_t want_flags;

	memcpy(&ch, ch_bytes, sizeof(ch));
	switch (ch.type) {
	case XNVME_TCP_PDU_C2H_TERM:
		/* no digests on termination PDUs; up to 128 bytes of echoed header follow */
		if (ch.hlen != sizeof(struct xnvme_tcp_term_pdu) || ch.plen < ch.hlen ||
		    ch.plen > ch.hlen + (uint32_t)XNVME_TCP_TERM_DATA_MAX) {
			return -EPROTO;
		}
		*hdr_nbytes = ch.plen;
		return 0;
	case XNVME_TCP_PDU_CAPSULE_RESP:
	case XNVME_TCP_PDU_R2T:
		if (ch.hlen != 24 || ch.pdo != 0 || ch.plen != 24 + hd) {
			return -EPROTO;
		}
		want_flags = lim->hdgst ? XNVME_TCP_F_HDGST : 0;
		if ((ch.flags & (XNVME_TCP_F_HDGST | XNVME_TCP_F_DDGST)) != want_flags) {
			return -EPROTO;
		}
		break;
	case XNVME_TCP_PDU_C2H_DATA:
		if (ch.hlen != 24 || ch.pdo != 24 + hd || ch.plen <= ch.pdo + dd) {
			return -EPROTO;
		}
		want_flags = (uint8_t)((lim->hdgst ? XNVME_TCP_F_HDGST : 0) |
				       (lim->ddgst ? XNVME_TCP_F_DDGST : 0));
		if ((ch.flags & (XNVME_TCP_F_HDGST | XNVME_TCP_F_DDGST)) != want_flags) {
			return -EPROTO;
		}
		break;
	default:
		return -EPROTO;
	}
	*hdr_nbytes = ch.hlen + hd;
	return 0;
}

static const struct xnvme_tcp_cmd_state *
cmd_lookup(const struct xnvme_tcp_limits *lim, const struct xnvme_tcp_cmd_state *cmds, uint16_t cid)
{
	if (cid >= lim->ncmds || !cmds[cid].active) {
		return NULL;
	}
	return &cmds[cid];
}

static int
parse_c2h_data(const uint8_t *hdr, const struct xnvme_tcp_limits *lim,
	       const struct xnvme_tcp_cmd_state *cmds, struct xnvme_tcp_pdu *pdu)
{
	struct xnvme_tcp_data_pdu d;
	const struct xnvme_tcp_cmd_state *st;
	uint32_t dd = lim->ddgst ? XNVME_TCP_DIGEST_LEN : 0;

	memcpy(&d, hdr, sizeof(d));
	st = cmd_lookup(lim, cmds, d.cccid);
	if (!st || st->dir != XNVME_TCP_DIR_C2H) {
		return -EPROTO;
	}
	/* data arrives in order, exactly once, inside the command's buffer */
	if (!d.datal || d.datao != st->done || d.datal > st->nbytes - st->done ||
	    d.ch.plen - d.ch.pdo - dd != d.datal) {
		return -EPROTO;
	}
	/* SUCCESS may end a short read (see on_resp in conn_rx.c) but only with the last PDU */
	if ((d.ch.flags & XNVME_TCP_F_SUCCESS) && !(d.ch.flags & XNVME_TCP_F_LAST)) {
		return -EPROTO;
	}
	pdu->cid = d.cccid;
	pdu->ttag = d.ttag;
	pdu->off = d.datao;
	pdu->len = d.datal;
	return 0;
}

static int
parse_r2t(const uint8_t *hdr, const struct xnvme_tcp_limits *lim,
	  const struct xnvme_tcp_cmd_state *cmds, struct xnvme_tcp_pdu *pdu)
{
	struct xnvme_tcp_r2t_pdu r;
	const struct xnvme_tcp_cmd_state *st;

	memcpy(&r, hdr, sizeof(r));
	st = cmd_lookup(lim, cmds, r.cccid);
	if (!st || st->dir != XNVME_TCP_DIR_H2C || st->incapsule || st->r2t_busy) {
		return -EPROTO;
	}
	if (!r.r2tl || r.r2to != st->done || r.r2tl > st->nbytes - st->done) {
		return -EPROTO;
	}
	pdu->cid = r.cccid;
	pdu->ttag = r.ttag;
	pdu->off = r.r2to;
	pdu->len = r.r2tl;
	return 0;
}

int
xnvme_tcp_pdu_parse(const uint8_t *hdr, size_t len, const struct xnvme_tcp_limits *lim,
		    const struct xnvme_tcp_cmd_state *cmds, struct xnvme_tcp_pdu *pdu)
{
	struct xnvme_tcp_ch ch;
	uint32_t hdr_nbytes;
	int err;

	if (len < sizeof(ch)) {
		return -EPROTO;
	}
	err = xnvme_tcp_pdu_check_ch(hdr, lim, &hdr_nbytes);
	if (err) {
		return err;
	}
	if (len != hdr_nbytes) {
		return -EPROTO;
	}
	memcpy(&ch, hdr, sizeof(ch));
	memset(pdu, 0, sizeof(*pdu));
	pdu->type = ch.type;
	pdu->flags = ch.flags;
	pdu->plen = ch.plen;

	if (ch.type == XNVME_TCP_PDU_C2H_TERM) {
		struct xnvme_tcp_term_pdu t;

		memcpy(&t, hdr, sizeof(t));
		pdu->fes = t.fes;
		pdu->len = ch.plen - ch.hlen;
		return 0;
	}
	if (lim->hdgst) {
		uint32_t want = xnvme_tcp_digest(hdr, ch.hlen), got;

		memcpy(&got, hdr + ch.hlen, sizeof(got));
		if (got != want) {
			return -EBADMSG;
		}
	}
	switch (ch.type) {
	case XNVME_TCP_PDU_CAPSULE_RESP:
		memcpy(&pdu->cqe, hdr + sizeof(ch), sizeof(pdu->cqe));
		if (!cmd_lookup(lim, cmds, pdu->cqe.cid)) {
			return -EPROTO;
		}
		pdu->cid = pdu->cqe.cid;
		return 0;
	case XNVME_TCP_PDU_C2H_DATA:
		return parse_c2h_data(hdr, lim, cmds, pdu);
	case XNVME_TCP_PDU_R2T:
		return parse_r2t(hdr, lim, cmds, pdu);
	default:
		return -EPROTO;
	}
}
