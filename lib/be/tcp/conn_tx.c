// SPDX-License-Identifier: BSD-3-Clause
/*
 * Transmit side of a connection: a ring of slots whose PDU (command capsule or H2CData) waits
 * to be written. A flush gathers the queued PDUs into one sendmsg (header, the caller's data,
 * digests) and remembers how far into the head PDU a short write got.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp.h"

#define TX_BATCH_IOV 64

uint32_t
xnvme_tcp_iov_slice(const struct iovec *iov, uint32_t iovcnt, size_t off, size_t len,
		    struct iovec *out, uint32_t outmax)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < iovcnt && len; ++i) {
		size_t seg = iov[i].iov_len;

		if (off >= seg) {
			off -= seg;
			continue;
		}
		if (n == outmax) {
			return 0;
		}
		seg -= off;
		if (seg > len) {
			seg = len;
		}
		out[n].iov_base = (uint8_t *)iov[i].iov_base + off;
		out[n++].iov_len = seg;
		len -= seg;
		off = 0;
	}
	return len ? 0 : n;
}

void
xnvme_tcp_conn_txq_push(struct xnvme_tcp_conn *conn, uint16_t cid)
{
	conn->slots[cid].txpending = 1;
	conn->txq[conn->txq_tail++ & conn->txq_mask] = cid;
}

/* The next H2CData PDU of the R2T slot `cid` is serving */
int
xnvme_tcp_slot_build_h2c(struct xnvme_tcp_conn *conn, uint16_t cid)
{
	struct xnvme_tcp_slot *slot = &conn->slots[cid];
	struct xnvme_tcp_data_pdu *d = (struct xnvme_tcp_data_pdu *)slot->hdr;
	uint32_t hd = conn->lim.hdgst ? XNVME_TCP_DIGEST_LEN : 0;
	uint32_t chunk = slot->r2t_end - slot->r2t_off;
	uint32_t pdo = sizeof(*d) + hd;
	uint32_t n;

	if (chunk > conn->maxh2cdata) {
		chunk = conn->maxh2cdata;
	}
	pdo = (pdo + conn->cpda_nbytes - 1) / conn->cpda_nbytes * conn->cpda_nbytes;
	memset(slot->hdr, 0, pdo);
	d->ch.type = XNVME_TCP_PDU_H2C_DATA;
	d->ch.flags = (uint8_t)((conn->lim.hdgst ? XNVME_TCP_F_HDGST : 0) |
				(conn->lim.ddgst ? XNVME_TCP_F_DDGST : 0));
	if (slot->r2t_off + chunk == slot->r2t_end) {
		d->ch.flags |= XNVME_TCP_F_LAST;
	}
	d->ch.hlen = sizeof(*d);
	d->ch.pdo = (uint8_t)pdo;
	d->ch.plen = pdo + chunk + (conn->lim.ddgst ? XNVME_TCP_DIGEST_LEN : 0);
	d->cccid = cid;
	d->ttag = slot->ttag;
	d->datao = slot->r2t_off;
	d->datal = chunk;
	if (hd) {
		uint32_t dg = xnvme_tcp_digest(d, sizeof(*d));

		memcpy(slot->hdr + sizeof(*d), &dg, sizeof(dg));
	}
	slot->tx[0].iov_base = slot->hdr;
	slot->tx[0].iov_len = pdo;
	/*
	 * The slice covers the chunk: the transfer length is the iovec total and R2Ts stay
	 * inside it (pdu.c). Should it ever not, send nothing rather than a header promising
	 * bytes that do not follow.
	 */
	n = xnvme_tcp_iov_slice(slot->iov, slot->iovcnt, slot->r2t_off, chunk, &slot->tx[1],
				XNVME_TCP_IOV_MAX);
	if (!n) {
		return -EPROTO;
	}
	slot->txcnt = 1 + n;
	if (conn->lim.ddgst) {
		uint32_t crc = ~0U;

		for (uint32_t i = 1; i <= n; ++i) {
			crc = xnvme_tcp_crc32c(crc, slot->tx[i].iov_base, slot->tx[i].iov_len);
		}
		slot->ddgst = ~crc;
		slot->tx[slot->txcnt].iov_base = &slot->ddgst;
		slot->tx[slot->txcnt++].iov_len = XNVME_TCP_DIGEST_LEN;
	}
	slot->txlen = d->ch.plen;
	slot->txkind = XNVME_TCP_TX_H2C;
	slot->r2t_off += chunk;
	return 0;
}

/*
 * The head PDU is fully written: pop it. The next H2CData of the same R2T goes to the tail:
 * bytes already written behind the head belong to the PDUs queued after it.
 */
static void
pdu_sent(struct xnvme_tcp_conn *conn)
{
	uint16_t cid = conn->txq[conn->txq_head++ & conn->txq_mask];
	struct xnvme_tcp_slot *slot = &conn->slots[cid];

	if (slot->txkind == XNVME_TCP_TX_H2C && slot->r2t_off < slot->r2t_end) {
		int err = xnvme_tcp_slot_build_h2c(conn, cid);

		if (err) {
			xnvme_tcp_conn_fail(conn, err);
			return;
		}
		conn->txq[conn->txq_tail++ & conn->txq_mask] = cid;
		return;
	}
	if (slot->txkind == XNVME_TCP_TX_H2C) {
		conn->st[cid].r2t_busy = 0;
	}
	slot->txpending = 0;
}

int
xnvme_tcp_conn_flush(struct xnvme_tcp_conn *conn)
{
	while (conn->txq_head != conn->txq_tail && !conn->err) {
		struct iovec iov[TX_BATCH_IOV];
		struct msghdr msg = {.msg_iov = iov};
		size_t skip = conn->tx_off;
		uint32_t n = 0;
		ssize_t w;

		for (uint32_t q = conn->txq_head; q != conn->txq_tail; ++q) {
			struct xnvme_tcp_slot *slot = &conn->slots[conn->txq[q & conn->txq_mask]];

			if (n + slot->txcnt > TX_BATCH_IOV) {
				break;
			}
			for (uint32_t i = 0; i < slot->txcnt; ++i) {
				if (skip >= slot->tx[i].iov_len) {
					skip -= slot->tx[i].iov_len;
					continue;
				}
				iov[n].iov_base = (uint8_t *)slot->tx[i].iov_base + skip;
				iov[n++].iov_len = slot->tx[i].iov_len - skip;
				skip = 0;
			}
		}
		msg.msg_iovlen = n;
		w = sendmsg(conn->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				return 0;
			}
			if (errno == EINTR) {
				continue;
			}
			xnvme_tcp_conn_fail(conn, -errno);
			return conn->err;
		}
		conn->tx_off += (size_t)w;
		while (conn->txq_head != conn->txq_tail) {
			uint16_t cid = conn->txq[conn->txq_head & conn->txq_mask];

			if (conn->tx_off < conn->slots[cid].txlen) {
				break;
			}
			conn->tx_off -= conn->slots[cid].txlen;
			pdu_sent(conn);
		}
	}
	return 0;
}
