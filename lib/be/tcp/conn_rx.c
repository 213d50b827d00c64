// SPDX-License-Identifier: BSD-3-Clause
/*
 * Receive side of a connection: a state machine over common header, rest of the header (with
 * digest), data and data digest. Headers go through the parser (pdu.c) before anything in them
 * is used; C2HData payloads are received straight into the caller's buffer at the validated
 * offset. Any violation fails the whole connection.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp.h"

/* Reads into `iov` until done or the socket is empty: 1 done, 0 would block, <0 error */
static int
rx_fill(struct xnvme_tcp_conn *conn, struct iovec *iov, uint32_t iovcnt, uint32_t want)
{
	while (conn->rx_got < want) {
		struct msghdr msg = {.msg_iov = iov, .msg_iovlen = iovcnt};
		ssize_t n = recvmsg(conn->fd, &msg, MSG_DONTWAIT);

		if (n > 0) {
			conn->rx_got += (uint32_t)n;
			return conn->rx_got >= want ? 1 : 0;
		}
		if (n == 0) {
			return -ECONNRESET;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			return 0;
		}
		if (errno != EINTR) {
			return -errno;
		}
	}
	return 1;
}

static int
rx_bytes(struct xnvme_tcp_conn *conn, uint8_t *buf, uint32_t want)
{
	struct iovec iov = {.iov_base = buf + conn->rx_got, .iov_len = want - conn->rx_got};

	return rx_fill(conn, &iov, 1, want);
}

static void
on_resp(struct xnvme_tcp_conn *conn)
{
	uint16_t cid = conn->pdu.cid;
	struct xnvme_tcp_cmd_state *st = &conn->st[cid];
	struct xnvme_cmd_ctx *ctx = conn->slots[cid].ctx;

	if (conn->slots[cid].txpending) {
		/* answered before its data went out: the buffer must not be read afterwards */
		xnvme_tcp_conn_fail(conn, -EPROTO);
		return;
	}
	/*
	 * "success" with an R2T still being served, or with less written than the SGL. A read
	 * may legally move less (the buffer may exceed NLB x LBA size): what came is the data.
	 */
	if (!conn->pdu.cqe.status.sc && !conn->pdu.cqe.status.sct &&
	    ((st->dir == XNVME_TCP_DIR_H2C && !st->incapsule && st->done != st->nbytes) ||
	     st->r2t_busy)) {
		xnvme_tcp_conn_fail(conn, -EPROTO);
		return;
	}
	ctx->cpl = conn->pdu.cqe;
	xnvme_tcp_slot_complete(conn, cid);
}

static void
on_r2t(struct xnvme_tcp_conn *conn)
{
	uint16_t cid = conn->pdu.cid;
	struct xnvme_tcp_slot *slot = &conn->slots[cid];

	if (slot->txpending) {
		xnvme_tcp_conn_fail(conn, -EPROTO);
		return;
	}
	conn->st[cid].r2t_busy = 1;
	conn->st[cid].done += conn->pdu.len;
	slot->ttag = conn->pdu.ttag;
	slot->r2t_off = conn->pdu.off;
	slot->r2t_end = conn->pdu.off + conn->pdu.len;
	if (xnvme_tcp_slot_build_h2c(conn, cid)) {
		xnvme_tcp_conn_fail(conn, -EPROTO);
		return;
	}
	xnvme_tcp_conn_txq_push(conn, cid);
}

static void
on_data_done(struct xnvme_tcp_conn *conn)
{
	uint16_t cid = conn->pdu.cid;

	conn->st[cid].done += conn->pdu.len;
	conn->rx = XNVME_TCP_RX_CH;
	conn->rx_got = 0;
	if (conn->pdu.flags & XNVME_TCP_F_SUCCESS) {
		memset(&conn->slots[cid].ctx->cpl, 0, sizeof(conn->slots[cid].ctx->cpl));
		xnvme_tcp_slot_complete(conn, cid);
	}
}

/* A whole header is in rxhdr: validate and act on it */
static int
on_header(struct xnvme_tcp_conn *conn)
{
	int err = xnvme_tcp_pdu_parse(conn->rxhdr, conn->rx_need, &conn->lim, conn->st, &conn->pdu);

	if (err) {
		return err;
	}
	conn->rx = XNVME_TCP_RX_CH;
	conn->rx_got = 0;
	switch (conn->pdu.type) {
	case XNVME_TCP_PDU_CAPSULE_RESP:
		on_resp(conn);
		return 0;
	case XNVME_TCP_PDU_R2T:
		on_r2t(conn);
		return 0;
	case XNVME_TCP_PDU_C2H_DATA:
		if (conn->slots[conn->pdu.cid].txpending) {
			/* data (perhaps a completion) before the capsule went out: as in on_resp */
			return -EPROTO;
		}
		conn->rx = XNVME_TCP_RX_DATA;
		return 0;
	default: /* C2HTermReq: the controller gave up on this connection */
		return -ECONNABORTED;
	}
}

static int
rx_data(struct xnvme_tcp_conn *conn)
{
	struct xnvme_tcp_slot *slot = &conn->slots[conn->pdu.cid];
	struct iovec iov[XNVME_TCP_IOV_MAX];
	uint32_t n = xnvme_tcp_iov_slice(slot->iov, slot->iovcnt, conn->pdu.off + conn->rx_got,
					 conn->pdu.len - conn->rx_got, iov, XNVME_TCP_IOV_MAX);
	uint32_t got = conn->rx_got;
	int ret;

	if (!n) {
		return -EPROTO;
	}
	/* rx_fill counts from zero against the remaining length */
	conn->rx_got = 0;
	ret = rx_fill(conn, iov, n, conn->pdu.len - got);
	conn->rx_got += got;
	if (ret <= 0) {
		return ret;
	}
	if (conn->lim.ddgst) {
		conn->rx = XNVME_TCP_RX_DDGST;
		conn->rx_got = 0;
		return 1;
	}
	on_data_done(conn);
	return 1;
}

static int
rx_ddgst(struct xnvme_tcp_conn *conn)
{
	struct xnvme_tcp_slot *slot = &conn->slots[conn->pdu.cid];
	struct iovec iov[XNVME_TCP_IOV_MAX];
	uint32_t crc = ~0U, got;
	uint32_t n;
	int ret = rx_bytes(conn, conn->rx_dgst, XNVME_TCP_DIGEST_LEN);

	if (ret <= 0) {
		return ret;
	}
	n = xnvme_tcp_iov_slice(slot->iov, slot->iovcnt, conn->pdu.off, conn->pdu.len, iov,
				XNVME_TCP_IOV_MAX);
	for (uint32_t i = 0; i < n; ++i) {
		crc = xnvme_tcp_crc32c(crc, iov[i].iov_base, iov[i].iov_len);
	}
	memcpy(&got, conn->rx_dgst, sizeof(got));
	if (got != ~crc) {
		return -EBADMSG;
	}
	on_data_done(conn);
	return 1;
}

int
xnvme_tcp_conn_recv(struct xnvme_tcp_conn *conn, uint32_t max)
{
	uint32_t start = conn->ncompleted;

	while (!conn->err && (!max || conn->ncompleted - start < max)) {
		int ret;

		switch (conn->rx) {
		case XNVME_TCP_RX_CH:
			/*
			 * Every PDU after ICResp has a 24-byte header: take it and its digest in
			 * one recv. (A termination PDU has no digest; it ends the connection.)
			 */
			ret = rx_bytes(conn, conn->rxhdr,
				       24 + (conn->lim.hdgst ? XNVME_TCP_DIGEST_LEN : 0));
			if (ret > 0) {
				ret = xnvme_tcp_pdu_check_ch(conn->rxhdr, &conn->lim,
							     &conn->rx_need);
				ret = ret ? ret : 1;
				conn->rx = XNVME_TCP_RX_HDR;
			}
			break;
		case XNVME_TCP_RX_HDR:
			ret = conn->rx_got >= conn->rx_need
				      ? 1
				      : rx_bytes(conn, conn->rxhdr, conn->rx_need);
			if (ret > 0) {
				ret = on_header(conn);
				ret = ret ? ret : 1;
			}
			break;
		case XNVME_TCP_RX_DATA:
			ret = rx_data(conn);
			break;
		case XNVME_TCP_RX_DDGST:
			ret = rx_ddgst(conn);
			break;
		default:
			ret = -EPROTO;
			break;
		}
		if (ret < 0) {
			xnvme_tcp_conn_fail(conn, ret);
			return ret;
		}
		if (!ret) {
			return 0;
		}
	}
	return 0;
}
