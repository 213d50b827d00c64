// SPDX-License-Identifier: BSD-3-Clause
/*
 * Receive side of a connection: one recvmsg takes whatever has arrived into the connection's
 * staging buffer, and a state machine (PDU header, C2HData payload, data digest) consumes it:
 * headers are parsed in place by the parser (pdu.c) before anything in them is used, payloads
 * copied to the caller's buffer at the validated offset. While at least
 * XNVME_TCP_RX_DIRECT_MIN payload bytes are still to come, the recvmsg scatters them straight
 * into the caller's buffer and only what follows into the staging buffer. A recvmsg that
 * leaves room unused drained the socket: the poke reads no more (no trailing EAGAIN). Any
 * violation fails the whole connection.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp.h"

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

/* A whole header (hdr, len bytes) is in the staging buffer: validate and act on it */
static int
on_header(struct xnvme_tcp_conn *conn, const uint8_t *hdr, uint32_t len)
{
	int err = xnvme_tcp_pdu_parse(hdr, len, &conn->lim, conn->st, &conn->pdu);

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

static uint32_t
rxb_avail(const struct xnvme_tcp_conn *conn)
{
	return conn->rxb_tail - conn->rxb_head;
}

/* The caller's buffer for the rest of the payload of conn->pdu; 0 when it does not fit */
static uint32_t
data_iov(struct xnvme_tcp_conn *conn, struct iovec *iov)
{
	struct xnvme_tcp_slot *slot = &conn->slots[conn->pdu.cid];

	return xnvme_tcp_iov_slice(slot->iov, slot->iovcnt, conn->pdu.off + conn->rx_got,
				   conn->pdu.len - conn->rx_got, iov, XNVME_TCP_IOV_MAX);
}

static int
data_done(struct xnvme_tcp_conn *conn)
{
	if (conn->lim.ddgst) {
		conn->rx = XNVME_TCP_RX_DDGST;
		return 1;
	}
	on_data_done(conn);
	return 1;
}

static int
check_ddgst(struct xnvme_tcp_conn *conn, const uint8_t *dgst)
{
	struct xnvme_tcp_slot *slot = &conn->slots[conn->pdu.cid];
	struct iovec iov[XNVME_TCP_IOV_MAX];
	uint32_t crc = ~0U, got;
	uint32_t n = xnvme_tcp_iov_slice(slot->iov, slot->iovcnt, conn->pdu.off, conn->pdu.len, iov,
					 XNVME_TCP_IOV_MAX);

	for (uint32_t i = 0; i < n; ++i) {
		crc = xnvme_tcp_crc32c(crc, iov[i].iov_base, iov[i].iov_len);
	}
	memcpy(&got, dgst, sizeof(got));
	if (got != ~crc) {
		return -EBADMSG;
	}
	on_data_done(conn);
	return 1;
}

/* Consumes what the staging buffer holds for the current state: 1 progress, 0 needs bytes */
static int
rx_step(struct xnvme_tcp_conn *conn)
{
	const uint8_t *p = conn->rxb + conn->rxb_head;
	uint32_t avail = rxb_avail(conn);

	switch (conn->rx) {
	case XNVME_TCP_RX_CH: {
		uint32_t hdr_nbytes;
		int err;

		if (avail < sizeof(struct xnvme_tcp_ch)) {
			return 0;
		}
		err = xnvme_tcp_pdu_check_ch(p, &conn->lim, &hdr_nbytes);
		if (err) {
			return err;
		}
		if (avail < hdr_nbytes) {
			return 0;
		}
		conn->rxb_head += hdr_nbytes;
		err = on_header(conn, p, hdr_nbytes);
		return err ? err : 1;
	}
	case XNVME_TCP_RX_DATA: {
		struct iovec iov[XNVME_TCP_IOV_MAX];
		uint32_t n, left = conn->pdu.len - conn->rx_got;

		if (!left) { /* received directly */
			return data_done(conn);
		}
		if (!avail) {
			return 0;
		}
		n = data_iov(conn, iov);
		if (!n) {
			return -EPROTO;
		}
		for (uint32_t i = 0; i < n && avail; ++i) {
			uint32_t take = iov[i].iov_len < avail ? (uint32_t)iov[i].iov_len : avail;

			memcpy(iov[i].iov_base, conn->rxb + conn->rxb_head, take);
			conn->rxb_head += take;
			conn->rx_got += take;
			avail -= take;
		}
		return conn->rx_got == conn->pdu.len ? data_done(conn) : 1;
	}
	case XNVME_TCP_RX_DDGST:
		if (avail < XNVME_TCP_DIGEST_LEN) {
			return 0;
		}
		conn->rxb_head += XNVME_TCP_DIGEST_LEN;
		return check_ddgst(conn, p);
	default:
		return -EPROTO;
	}
}

/*
 * One recvmsg: a large rest of a payload straight into the caller's buffer, everything else
 * into the staging buffer. 1 bytes came, 0 would block, <0 error; *more is false when the
 * call left room unused (the socket is drained).
 */
static int
rx_read(struct xnvme_tcp_conn *conn, bool *more)
{
	struct iovec iov[XNVME_TCP_IOV_MAX + 1];
	struct msghdr msg = {.msg_iov = iov};
	uint32_t n = 0, direct = 0, avail = rxb_avail(conn);
	size_t room;
	ssize_t got;

	/* what is left is a piece of one PDU header or digest: move it to the front */
	if (conn->rxb_head) {
		memmove(conn->rxb, conn->rxb + conn->rxb_head, avail);
		conn->rxb_head = 0;
		conn->rxb_tail = avail;
	}
	if (conn->rx == XNVME_TCP_RX_DATA && !avail &&
	    conn->pdu.len - conn->rx_got >= XNVME_TCP_RX_DIRECT_MIN) {
		n = data_iov(conn, iov);
		if (!n) {
			return -EPROTO;
		}
		direct = conn->pdu.len - conn->rx_got;
	}
	iov[n].iov_base = conn->rxb + conn->rxb_tail;
	iov[n++].iov_len = XNVME_TCP_RXB_NBYTES - conn->rxb_tail;
	room = direct + (XNVME_TCP_RXB_NBYTES - conn->rxb_tail);
	msg.msg_iovlen = n;
	for (;;) {
		got = recvmsg(conn->fd, &msg, MSG_DONTWAIT);
		if (got > 0) {
			break;
		}
		if (got == 0) {
			return -ECONNRESET;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			*more = false;
			return 0;
		}
		if (errno != EINTR) {
			return -errno;
		}
	}
	*more = (size_t)got == room;
	if (direct) {
		uint32_t take = (size_t)got < direct ? (uint32_t)got : direct;

		conn->rx_got += take;
		got -= take;
	}
	conn->rxb_tail += (uint32_t)got;
	return 1;
}

int
xnvme_tcp_conn_recv(struct xnvme_tcp_conn *conn, uint32_t max)
{
	uint32_t start = conn->ncompleted;
	bool more = true;

	while (!conn->err && (!max || conn->ncompleted - start < max)) {
		int ret = rx_step(conn);

		if (!ret && more) {
			ret = rx_read(conn, &more);
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
