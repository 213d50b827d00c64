// SPDX-License-Identifier: BSD-3-Clause
/*
 * Test-only NVMe/TCP target (tcp_target.h). Blocking sockets, a thread per connection; digests
 * are computed bit by bit here, independently of the library's CRC32C. Faults are injected on
 * the I/O commands the tests pick (tt_set_fault).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tcp_spec.h"
#include "tcp_target.h"

#define TT_MAX_CONNS 256
#define TT_LBA 512U
#define TT_R2T_CHUNK (32U << 10)

struct tt {
	struct tt_cfg cfg;
	int lfd;
	int stop_pipe[2];
	pthread_t acceptor;
	pthread_mutex_t lock;
	uint8_t *ns;
	uint32_t lba; ///< bytes per LBA on the wire: 512 plus extended metadata
	int fds[TT_MAX_CONNS];
	pthread_t thr[TT_MAX_CONNS];
	int nconns;
	enum tt_fault fault;
	int fault_after;
	uint64_t nio;
	uint32_t cc;
	uint16_t port;
	uint64_t nka;
	uint32_t kato;
	uint64_t nka_early;
};

/* A received command capsule: SQE and in-capsule data */
struct tt_capsule {
	uint8_t sqe[64];
	uint8_t *icd;
	uint32_t icd_len;
};

#define TT_BACKLOG 1024

struct tt_conn {
	struct tt *tt;
	int fd;
	bool hd, dd;
	uint16_t qid;
	uint16_t sqhd;
	uint32_t kato;     ///< admin queue: the KATO of its Connect
	bool nqueues_seen; ///< admin queue: Set Features Number of Queues received
	/* capsules that arrived while the data of a write was awaited (the host pipelines) */
	struct tt_capsule backlog[TT_BACKLOG];
	uint32_t bl_head, bl_tail;
};

static int
read_capsule(struct tt_conn *c, const struct xnvme_tcp_ch *ch, struct tt_capsule *cap);

static void
sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L};

	nanosleep(&ts, NULL);
}

static uint32_t
crc32c_bitwise(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t crc = ~0U;

	for (size_t i = 0; i < len; ++i) {
		crc ^= p[i];
		for (int b = 0; b < 8; ++b) {
			crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78U : crc >> 1;
		}
	}
	return ~crc;
}

static int
io_full(int fd, void *buf, size_t len, bool out)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);

		if (n <= 0) {
			if (n < 0 && errno == EINTR) {
				continue;
			}
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Sends a header (hlen bytes in hdr), then optional data; digests as negotiated */
static int
send_pdu(struct tt_conn *c, void *hdr, uint32_t hlen, const void *data, uint32_t dlen, bool bad_hd,
	 bool bad_dd)
{
	struct xnvme_tcp_ch *ch = hdr;
	uint32_t hd = c->hd ? 4 : 0, dd = (c->dd && dlen) ? 4 : 0;
	uint32_t dg;

	ch->hlen = (uint8_t)hlen;
	ch->flags |= (c->hd ? XNVME_TCP_F_HDGST : 0) | (dd ? XNVME_TCP_F_DDGST : 0);
	ch->pdo = dlen ? (uint8_t)(hlen + hd) : 0;
	if (!ch->plen) {
		ch->plen = hlen + hd + dlen + dd;
	}
	if (io_full(c->fd, hdr, hlen, true)) {
		return -1;
	}
	if (hd) {
		dg = crc32c_bitwise(hdr, hlen) ^ (bad_hd ? 1U : 0U);
		if (io_full(c->fd, &dg, 4, true)) {
			return -1;
		}
	}
	if (dlen && io_full(c->fd, (void *)(uintptr_t)data, dlen, true)) {
		return -1;
	}
	if (dd) {
		dg = crc32c_bitwise(data, dlen) ^ (bad_dd ? 1U : 0U);
		return io_full(c->fd, &dg, 4, true);
	}
	return 0;
}

static int
send_rsp(struct tt_conn *c, uint16_t cid, uint32_t cdw0, uint32_t cdw1, uint8_t sct, uint8_t sc,
	 enum tt_fault fault)
{
	struct xnvme_tcp_rsp_pdu r = {0};
	uint16_t status = (uint16_t)((sc << 1) | ((sct & 7) << 9) | ((sc || sct) ? 0x8000 : 0));

	r.ch.type = XNVME_TCP_PDU_CAPSULE_RESP;
	r.cqe.cdw0 = cdw0;
	r.cqe.rsvd1 = cdw1;
	r.cqe.sqid = c->qid;
	r.cqe.sqhd = ++c->sqhd;
	r.cqe.cid = fault == TT_FAULT_UNKNOWN_CID ? (uint16_t)(cid ^ 0x5A5) : cid;
	memcpy(&r.cqe.status, &status, sizeof(status));
	if (fault == TT_FAULT_TRUNCATED) {
		r.ch.plen = 20;
	}
	return send_pdu(c, &r, sizeof(r), NULL, 0, fault == TT_FAULT_BAD_HDGST, false);
}

static enum tt_fault
take_fault(struct tt *tt)
{
	enum tt_fault f = TT_FAULT_NONE;

	pthread_mutex_lock(&tt->lock);
	tt->nio++;
	if (tt->fault != TT_FAULT_NONE && tt->fault_after-- <= 0) {
		f = tt->fault;
		tt->fault = f == TT_FAULT_SILENT ? f : TT_FAULT_NONE; /* silent stays */
		tt->fault_after = 0;
	}
	pthread_mutex_unlock(&tt->lock);
	return f;
}

static void
idfy(struct tt_conn *c, const uint8_t *sqe, uint8_t *buf)
{
	struct tt *tt = c->tt;
	uint8_t cns = sqe[40];
	uint64_t n = tt->cfg.nlbas;
	uint32_t ioccsz = (tt->cfg.icd_nbytes + 64) / 16, nn = 1, iorcsz = 1;

	memset(buf, 0, 4096);
	if (cns == 1) {
		memcpy(buf + 4, "TT0001              ", 20);
		memcpy(buf + 24, "xnvme test tcp target                   ", 40);
		memcpy(buf + 64, "1.0     ", 8);
		buf[77] = 5; /* MDTS: 128 KiB */
		memcpy(buf + 516, &nn, 4);
		snprintf((char *)buf + 768, 256, "nqn.2024-01.io.xnvme:test");
		memcpy(buf + 1792, &ioccsz, 4);
		memcpy(buf + 1796, &iorcsz, 4);
	} else if (cns == 0) {
		memcpy(buf, &n, 8);
		memcpy(buf + 8, &n, 8);
		memcpy(buf + 16, &n, 8);
		buf[128 + 2] = 9; /* LBA format 0: 512 bytes */
		memcpy(buf + 128, &tt->cfg.ms, 2);
		if (tt->cfg.ms) {
			buf[26] = tt->cfg.ms_separate ? 0 : 0x10;  /* FLBAS bit 4: extended */
			buf[27] = tt->cfg.ms_separate ? 0x2 : 0x1; /* MC */
			buf[28] = tt->cfg.ms >= 8 ? 0x1 : 0;       /* DPC: type 1 */
			buf[29] = tt->cfg.ms >= 8 ? 0x1 : 0;       /* DPS: type 1, PI at the end */
		}
	}
}

/* Receives the data of a write through R2T/H2CData into buf; 0 or -1 (connection broken) */
static int
recv_h2c(struct tt_conn *c, uint16_t cid, uint8_t *buf, uint32_t len)
{
	uint32_t off = 0;
	uint16_t ttag = 7;

	while (off < len) {
		struct xnvme_tcp_r2t_pdu r = {0};
		uint32_t end = off + (len - off > TT_R2T_CHUNK ? TT_R2T_CHUNK : len - off);

		r.ch.type = XNVME_TCP_PDU_R2T;
		r.cccid = cid;
		r.ttag = ++ttag;
		r.r2to = off;
		r.r2tl = end - off;
		if (send_pdu(c, &r, sizeof(r), NULL, 0, false, false)) {
			return -1;
		}
		while (off < end) {
			struct xnvme_tcp_data_pdu d;
			uint32_t skip = 0, dg;

			if (io_full(c->fd, &d, 8, false)) {
				return -1;
			}
			if (d.ch.type == XNVME_TCP_PDU_CAPSULE_CMD) {
				if (c->bl_tail - c->bl_head == TT_BACKLOG ||
				    read_capsule(c, &d.ch, &c->backlog[c->bl_tail % TT_BACKLOG])) {
					return -1;
				}
				c->bl_tail++;
				continue;
			}
			if (io_full(c->fd, (uint8_t *)&d + 8, sizeof(d) - 8, false) ||
			    d.ch.type != XNVME_TCP_PDU_H2C_DATA || d.cccid != cid ||
			    d.ttag != ttag || d.datao != off || d.datal > end - off ||
			    d.datal > c->tt->cfg.maxh2cdata) {
				return -1;
			}
			if (c->hd && (io_full(c->fd, &dg, 4, false) ||
				      dg != crc32c_bitwise(&d, sizeof(d)))) {
				return -1;
			}
			skip = d.ch.pdo - sizeof(d) - (c->hd ? 4 : 0);
			while (skip--) {
				uint8_t pad;

				if (io_full(c->fd, &pad, 1, false)) {
					return -1;
				}
			}
			if (io_full(c->fd, buf + off, d.datal, false)) {
				return -1;
			}
			if (c->dd && (io_full(c->fd, &dg, 4, false) ||
				      dg != crc32c_bitwise(buf + off, d.datal))) {
				return -1;
			}
			off += d.datal;
			if ((off == end) != !!(d.ch.flags & XNVME_TCP_F_LAST)) {
				return -1;
			}
		}
	}
	return 0;
}

static int
send_c2h(struct tt_conn *c, uint16_t cid, const uint8_t *data, uint32_t len, enum tt_fault f)
{
	struct tt *tt = c->tt;
	uint32_t chunk = tt->cfg.c2h_chunk ? tt->cfg.c2h_chunk : len;

	for (uint32_t off = 0; off < len; off += chunk) {
		struct xnvme_tcp_data_pdu d = {0};
		uint32_t n = len - off < chunk ? len - off : chunk;

		d.ch.type = XNVME_TCP_PDU_C2H_DATA;
		d.cccid = f == TT_FAULT_DATA_UNKNOWN_CID ? (uint16_t)(cid ^ 0x5A5) : cid;
		d.datao = off;
		d.datal = n;
		if (off + n == len) {
			d.ch.flags =
				XNVME_TCP_F_LAST | (tt->cfg.c2h_success ? XNVME_TCP_F_SUCCESS : 0);
		}
		if (f == TT_FAULT_OVERSIZED) {
			uint8_t *big = calloc(1, len + TT_LBA);
			int ret;

			d.datal = len + TT_LBA;
			ret = big ? send_pdu(c, &d, sizeof(d), big, len + TT_LBA, false, false)
				  : -1;
			free(big);
			return ret;
		}
		if (f == TT_FAULT_DROP) {
			d.ch.plen = (uint32_t)(sizeof(d) + (c->hd ? 4 : 0) + n + ((c->dd) ? 4 : 0));
			io_full(c->fd, &d, sizeof(d), true); /* header without digest: then cut */
			io_full(c->fd, (void *)(uintptr_t)data, n / 2, true);
			return -1;
		}
		if (send_pdu(c, &d, sizeof(d), data + off, n, false, f == TT_FAULT_BAD_DDGST)) {
			return -1;
		}
	}
	return 0;
}

/* TT_FAULT_C2H_BEFORE_CAPSULE for the write `cid` of `len` bytes; always ends the connection */
static int
c2h_before_capsule(struct tt_conn *c, uint16_t cid, uint32_t len)
{
	struct xnvme_tcp_r2t_pdu r = {0};
	struct xnvme_tcp_data_pdu d = {0};
	int rcvbuf = 65536;

	/* no receive window autotuning: the data must back up into the initiator */
	setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	r.ch.type = XNVME_TCP_PDU_R2T;
	r.cccid = cid;
	r.ttag = 1;
	r.r2tl = len;
	if (send_pdu(c, &r, sizeof(r), NULL, 0, false, false)) {
		return -1;
	}
	sleep_ms(1000); /* the initiator's socket fills up; it queues the read behind the data */
	d.ch.type = XNVME_TCP_PDU_C2H_DATA;
	d.ch.flags = XNVME_TCP_F_LAST | XNVME_TCP_F_SUCCESS;
	d.cccid = (uint16_t)(cid + 1);
	d.datal = TT_LBA;
	send_pdu(c, &d, sizeof(d), c->tt->ns, TT_LBA, false, false);
	sleep_ms(1000);
	return -1;
}

/* An NVM command on an I/O queue; returns -1 when the connection must end */
static int
nvm_cmd(struct tt_conn *c, const uint8_t *sqe, uint16_t cid, uint8_t *icd, uint32_t icd_len)
{
	struct tt *tt = c->tt;
	uint8_t opc = sqe[0];
	uint64_t slba;
	uint32_t nlb, sgl_len, len;
	enum tt_fault f;
	uint8_t *buf;
	int ret = 0;

	if (opc == 0x00) {
		take_fault(tt);
		return send_rsp(c, cid, 0, 0, 0, 0, TT_FAULT_NONE);
	}
	if (opc != 0x01 && opc != 0x02) {
		return send_rsp(c, cid, 0, 0, 0, 0x01, TT_FAULT_NONE);
	}
	f = take_fault(tt);
	memcpy(&slba, sqe + 40, 8);
	memcpy(&nlb, sqe + 48, 4);
	nlb = (nlb & 0xFFFF) + 1;
	memcpy(&sgl_len, sqe + 24 + 8, 4);
	len = nlb * tt->lba;
	if (slba + nlb > tt->cfg.nlbas) {
		return send_rsp(c, cid, 0, 0, 0, 0x80, TT_FAULT_NONE); /* LBA out of range */
	}
	if (opc == 0x01 ? sgl_len != len : sgl_len < len) { /* a read may move less */
		return send_rsp(c, cid, 0, 0, 0, 0x02, TT_FAULT_NONE);
	}
	if (f == TT_FAULT_NO_RESPONSE || f == TT_FAULT_SILENT) {
		return 0;
	}
	if (f == TT_FAULT_TERM) {
		struct xnvme_tcp_term_pdu t = {0};

		t.ch.type = XNVME_TCP_PDU_C2H_TERM;
		t.ch.hlen = sizeof(t);
		t.ch.plen = sizeof(t);
		t.fes = XNVME_TCP_FES_INVALID_HEADER;
		io_full(c->fd, &t, sizeof(t), true);
		return -1;
	}
	buf = tt->ns + slba * tt->lba;
	if (opc == 0x01) {
		if (icd_len) {
			if (icd_len != len) {
				return send_rsp(c, cid, 0, 0, 0, 0x02, TT_FAULT_NONE);
			}
			memcpy(buf, icd, len);
		} else if (f == TT_FAULT_C2H_BEFORE_CAPSULE) {
			return c2h_before_capsule(c, cid, len);
		} else if (f != TT_FAULT_EARLY_RESP && recv_h2c(c, cid, buf, len)) {
			return -1;
		}
	} else {
		ret = send_c2h(c, cid, buf, len, f);
		if (ret || (tt->cfg.c2h_success && f == TT_FAULT_NONE)) {
			return ret;
		}
	}
	return send_rsp(c, cid, 0, 0, 0, 0, f);
}

static int
prop(struct tt_conn *c, const uint8_t *sqe, uint16_t cid)
{
	struct tt *tt = c->tt;
	uint8_t fctype = sqe[4];
	uint32_t ofst;
	uint64_t val = 0;

	memcpy(&ofst, sqe + 44, 4);
	if (fctype == XNVME_FABRICS_PROP_SET) {
		memcpy(&val, sqe + 48, 8);
		if (ofst == XNVME_PROP_CC) {
			tt->cc = (uint32_t)val;
		}
		return send_rsp(c, cid, 0, 0, 0, 0, TT_FAULT_NONE);
	}
	switch (ofst) {
	case XNVME_PROP_CAP:
		val = 127 | (1ULL << 24) | (1ULL << 37);
		break;
	case XNVME_PROP_VS:
		val = 0x10400;
		break;
	case XNVME_PROP_CC:
		val = tt->cc;
		break;
	case XNVME_PROP_CSTS:
		val = (tt->cc & XNVME_CC_EN) | ((tt->cc >> 14) & 3 ? XNVME_CSTS_SHST_DONE : 0);
		break;
	default:
		return send_rsp(c, cid, 0, 0, 0, 0x02, TT_FAULT_NONE);
	}
	return send_rsp(c, cid, (uint32_t)val, (uint32_t)(val >> 32), 0, 0, TT_FAULT_NONE);
}

static int
admin_cmd(struct tt_conn *c, const uint8_t *sqe, uint16_t cid)
{
	uint8_t buf[4096];
	uint32_t len;

	memcpy(&len, sqe + 24 + 8, 4);
	switch (sqe[0]) {
	case 0x06:
		if (sqe[40] > 1) {
			return send_rsp(c, cid, 0, 0, 0, 0x02, TT_FAULT_NONE);
		}
		if (c->kato == 1) {
			sleep_ms(
				5); /* room for a Keep Alive sent too early (tt_nkeepalive_early) */
		}
		idfy(c, sqe, buf);
		break;
	case 0x02: /* Get Log Page: the discovery log lists this target, other logs are zeroes */
		memset(buf, 0, sizeof(buf));
		if (sqe[40] == 0x70) {
			uint64_t numrec = 2;

			memcpy(buf + 8, &numrec, 8);
			/* a TCP NVM subsystem entry, then a referral the host must skip */
			buf[1024] = 3;
			buf[1024 + 1] = 1;
			buf[1024 + 2] = 2;
			snprintf((char *)buf + 1024 + 32, 32, "%u", c->tt->port);
			snprintf((char *)buf + 1024 + 256, 256, "nqn.2024-01.io.xnvme:test");
			snprintf((char *)buf + 1024 + 512, 256, "127.0.0.1");
			buf[2048] = 3;
			buf[2048 + 2] = 1;
		}
		break;
	case 0x09: /* Set Features: Number of Queues grants 64 I/O queues */
		c->nqueues_seen = c->nqueues_seen || sqe[40] == 0x07;
		return send_rsp(c, cid, sqe[40] == 0x07 ? (63U | 63U << 16) : 0, 0, 0, 0,
				TT_FAULT_NONE);
	case 0x18: /* Keep Alive */
		pthread_mutex_lock(&c->tt->lock);
		c->tt->nka++;
		c->tt->nka_early += !c->nqueues_seen;
		pthread_mutex_unlock(&c->tt->lock);
		return send_rsp(c, cid, 0, 0, 0, 0, TT_FAULT_NONE);
	case 0x0A: /* Get Features */
		return send_rsp(c, cid, 0, 0, 0, 0, TT_FAULT_NONE);
	default:
		return send_rsp(c, cid, 0, 0, 0, 0x01, TT_FAULT_NONE);
	}
	if (len > sizeof(buf)) {
		len = sizeof(buf);
	}
	if (len && send_c2h(c, cid, buf, len, TT_FAULT_NONE)) {
		return -1;
	}
	if (c->tt->cfg.c2h_success && len) {
		return 0;
	}
	return send_rsp(c, cid, 0, 0, 0, 0, TT_FAULT_NONE);
}

static int
read_capsule(struct tt_conn *c, const struct xnvme_tcp_ch *ch, struct tt_capsule *cap)
{
	uint8_t hdr[72 + 4];
	uint32_t hd = c->hd ? 4 : 0;

	memset(cap, 0, sizeof(*cap));
	memcpy(hdr, ch, 8);
	if (ch->hlen != 72 || io_full(c->fd, hdr + 8, 64 + hd, false)) {
		return -1;
	}
	if (hd) {
		uint32_t dg;

		memcpy(&dg, hdr + 72, 4);
		if (dg != crc32c_bitwise(hdr, 72)) {
			return -1;
		}
	}
	memcpy(cap->sqe, hdr + 8, 64);
	if (ch->pdo) {
		uint32_t pad = ch->pdo - 72 - hd, dd = (ch->flags & XNVME_TCP_F_DDGST) ? 4 : 0;
		uint8_t junk[128];
		uint32_t dg;

		cap->icd_len = ch->plen - ch->pdo - dd;
		if (pad > sizeof(junk) || cap->icd_len > (1U << 20) ||
		    io_full(c->fd, junk, pad, false)) {
			return -1;
		}
		cap->icd = malloc(cap->icd_len ? cap->icd_len : 1);
		if (!cap->icd || io_full(c->fd, cap->icd, cap->icd_len, false) ||
		    (dd && (io_full(c->fd, &dg, 4, false) ||
			    dg != crc32c_bitwise(cap->icd, cap->icd_len)))) {
			free(cap->icd);
			cap->icd = NULL;
			return -1;
		}
	}
	return 0;
}

static int
exec_capsule(struct tt_conn *c, struct tt_capsule *cap)
{
	uint16_t cid;
	int ret;

	memcpy(&cid, cap->sqe + 2, 2);
	if (cap->sqe[0] == XNVME_FABRICS_OPC) {
		const struct xnvme_fabrics_connect_cmd *cc = (const void *)cap->sqe;

		if (cc->fctype == XNVME_FABRICS_CONNECT) {
			c->qid = cc->qid;
			pthread_mutex_lock(&c->tt->lock);
			c->kato = cc->kato;
			if (!cc->qid && cc->kato > c->tt->kato) {
				c->tt->kato = cc->kato;
			}
			pthread_mutex_unlock(&c->tt->lock);
			ret = send_rsp(c, cid, 1, 0, 0, (cap->icd_len == 1024) ? 0 : 0x02,
				       TT_FAULT_NONE);
		} else {
			ret = prop(c, cap->sqe, cid);
		}
	} else if (c->qid == 0) {
		ret = admin_cmd(c, cap->sqe, cid);
	} else {
		ret = nvm_cmd(c, cap->sqe, cid, cap->icd, cap->icd_len);
	}
	free(cap->icd);
	cap->icd = NULL;
	return ret;
}

static void *
conn_main(void *arg)
{
	struct tt_conn *c = arg;
	struct xnvme_tcp_icreq req;
	struct xnvme_tcp_icresp rsp = {0};

	if (io_full(c->fd, &req, sizeof(req), false) || req.ch.type != XNVME_TCP_PDU_ICREQ) {
		goto out;
	}
	rsp.ch.type = XNVME_TCP_PDU_ICRESP;
	rsp.ch.hlen = sizeof(rsp);
	rsp.ch.plen = sizeof(rsp);
	rsp.dgst = req.dgst;
	rsp.maxh2cdata = c->tt->cfg.maxh2cdata;
	c->hd = req.dgst & XNVME_TCP_DGST_HDR;
	c->dd = req.dgst & XNVME_TCP_DGST_DATA;
	if (io_full(c->fd, &rsp, sizeof(rsp), true)) {
		goto out;
	}
	for (;;) {
		struct xnvme_tcp_ch ch;
		struct tt_capsule cap;

		if (c->bl_head != c->bl_tail) {
			if (exec_capsule(c, &c->backlog[c->bl_head++ % TT_BACKLOG])) {
				break;
			}
			continue;
		}
		if (io_full(c->fd, &ch, sizeof(ch), false) ||
		    ch.type != XNVME_TCP_PDU_CAPSULE_CMD || read_capsule(c, &ch, &cap) ||
		    exec_capsule(c, &cap)) {
			break;
		}
	}
out:
	while (c->bl_head != c->bl_tail) {
		free(c->backlog[c->bl_head++ % TT_BACKLOG].icd);
	}
	shutdown(c->fd, SHUT_RDWR);
	free(c);
	return NULL;
}

static void *
accept_main(void *arg)
{
	struct tt *tt = arg;

	for (;;) {
		struct pollfd pfd[2] = {{.fd = tt->lfd, .events = POLLIN},
					{.fd = tt->stop_pipe[0], .events = POLLIN}};
		struct tt_conn *c;
		int fd, one = 1;

		if (poll(pfd, 2, -1) < 0 || pfd[1].revents) {
			break;
		}
		fd = accept(tt->lfd, NULL, NULL);
		if (fd < 0) {
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = calloc(1, sizeof(*c));
		pthread_mutex_lock(&tt->lock);
		if (!c || tt->nconns == TT_MAX_CONNS) {
			pthread_mutex_unlock(&tt->lock);
			close(fd);
			free(c);
			continue;
		}
		c->tt = tt;
		c->fd = fd;
		tt->fds[tt->nconns] = fd;
		if (pthread_create(&tt->thr[tt->nconns], NULL, conn_main, c)) {
			close(fd);
			free(c);
		} else {
			tt->nconns++;
		}
		pthread_mutex_unlock(&tt->lock);
	}
	return NULL;
}

struct tt *
tt_start(const struct tt_cfg *cfg, uint16_t *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t sl = sizeof(sa);
	struct tt *tt = calloc(1, sizeof(*tt));

	if (!tt) {
		return NULL;
	}
	tt->cfg = *cfg;
	tt->lba = TT_LBA + (cfg->ms_separate ? 0 : cfg->ms);
	tt->ns = calloc(cfg->nlbas, tt->lba);
	pthread_mutex_init(&tt->lock, NULL);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	tt->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!tt->ns || tt->lfd < 0 || bind(tt->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(tt->lfd, 16) || getsockname(tt->lfd, (struct sockaddr *)&sa, &sl) ||
	    pipe(tt->stop_pipe) || pthread_create(&tt->acceptor, NULL, accept_main, tt)) {
		perror("tt_start");
		exit(1);
	}
	*port = ntohs(sa.sin_port);
	tt->port = *port;
	return tt;
}

void
tt_set_fault(struct tt *tt, enum tt_fault fault, int after)
{
	pthread_mutex_lock(&tt->lock);
	tt->fault = fault;
	tt->fault_after = after;
	pthread_mutex_unlock(&tt->lock);
}

uint64_t
tt_nio(struct tt *tt)
{
	uint64_t n;

	pthread_mutex_lock(&tt->lock);
	n = tt->nio;
	pthread_mutex_unlock(&tt->lock);
	return n;
}

uint64_t
tt_nkeepalive(struct tt *tt, uint32_t *kato_ms)
{
	uint64_t n;

	pthread_mutex_lock(&tt->lock);
	n = tt->nka;
	*kato_ms = tt->kato;
	pthread_mutex_unlock(&tt->lock);
	return n;
}

void
tt_stop(struct tt *tt)
{
	if (write(tt->stop_pipe[1], "x", 1) != 1) {
		perror("tt_stop");
	}
	pthread_join(tt->acceptor, NULL);
	pthread_mutex_lock(&tt->lock);
	for (int i = 0; i < tt->nconns; ++i) {
		shutdown(tt->fds[i], SHUT_RDWR);
	}
	pthread_mutex_unlock(&tt->lock);
	for (int i = 0; i < tt->nconns; ++i) {
		pthread_join(tt->thr[i], NULL);
		close(tt->fds[i]);
	}
	close(tt->lfd);
	close(tt->stop_pipe[0]);
	close(tt->stop_pipe[1]);
	free(tt->ns);
	free(tt);
}

uint64_t
tt_nkeepalive_early(struct tt *tt)
{
	uint64_t n;

	pthread_mutex_lock(&tt->lock);
	n = tt->nka_early;
	pthread_mutex_unlock(&tt->lock);
	return n;
}
