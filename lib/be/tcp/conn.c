// SPDX-License-Identifier: BSD-3-Clause
/*
 * NVMe/TCP connections: socket setup and ICReq/ICResp negotiation (blocking with a deadline,
 * once per connection), command submission into CID slots, and the poke that drives the
 * transmit (conn_tx.c) and receive (conn_rx.c) state machines. A failed connection completes
 * everything outstanding with the error and refuses new commands.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tcp.h"

static int
wait_fd(int fd, short events, uint64_t deadline_ns)
{
	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = events};
		uint64_t now = xnvme_nvmf_now_ns();
		int ret;

		if (now >= deadline_ns) {
			return -ETIMEDOUT;
		}
		ret = poll(&pfd, 1, (int)((deadline_ns - now) / 1000000ULL) + 1);
		if (ret < 0 && errno != EINTR) {
			return -errno;
		}
		if (ret > 0) {
			return 0;
		}
	}
}

/* Moves exactly `len` bytes in one direction before the deadline (connection setup only) */
static int
xfer_full(int fd, void *buf, size_t len, bool out, uint64_t deadline_ns)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0) {
			return -ECONNRESET;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			return -errno;
		}
		n = wait_fd(fd, out ? POLLOUT : POLLIN, deadline_ns);
		if (n) {
			return (int)n;
		}
	}
	return 0;
}

static int
sock_connect(const struct xnvme_nvmf_target *tgt, uint64_t deadline_ns, int *fd_out)
{
	struct addrinfo hints = {0}, *res = NULL, *ai;
	int err = -EHOSTUNREACH;

	hints.ai_family = tgt->family;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (getaddrinfo(tgt->host, tgt->port, &hints, &res)) {
		return -EHOSTUNREACH;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		int one = 1, soerr = 0;
		socklen_t sl = sizeof(soerr);
		int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		if (fd < 0) {
			err = -errno;
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
			err = -errno;
			close(fd);
			continue;
		}
		err = wait_fd(fd, POLLOUT, deadline_ns);
		if (!err && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl)) {
			err = -errno;
		}
		if (!err && soerr) {
			err = -soerr;
		}
		if (err) {
			close(fd);
			continue;
		}
		*fd_out = fd;
		break;
	}
	freeaddrinfo(res);
	return err;
}

static int
icreq(struct xnvme_tcp_conn *conn, const struct xnvme_nvmf_target *tgt, uint64_t deadline_ns,
      char *errmsg, size_t errmsg_len)
{
	struct xnvme_tcp_icreq req = {0};
	struct xnvme_tcp_icresp rsp;
	int err;

	req.ch.type = XNVME_TCP_PDU_ICREQ;
	req.ch.hlen = sizeof(req);
	req.ch.plen = sizeof(req);
	req.hpda = 0;
	req.maxr2t = 0;
	req.dgst = (tgt->hdgst ? XNVME_TCP_DGST_HDR : 0) | (tgt->ddgst ? XNVME_TCP_DGST_DATA : 0);
	err = xfer_full(conn->fd, &req, sizeof(req), true, deadline_ns);
	if (!err) {
		err = xfer_full(conn->fd, &rsp, sizeof(rsp), false, deadline_ns);
	}
	if (err) {
		snprintf(errmsg, errmsg_len, "ICReq/ICResp exchange failed: %s", strerror(-err));
		return err;
	}
	if (rsp.ch.type != XNVME_TCP_PDU_ICRESP || rsp.ch.hlen != sizeof(rsp) ||
	    rsp.ch.plen != sizeof(rsp) || rsp.pfv != 0 || rsp.cpda > 31 || (rsp.dgst & ~req.dgst) ||
	    rsp.maxh2cdata < 4096 || rsp.maxh2cdata % 4) {
		snprintf(errmsg, errmsg_len,
			 "invalid ICResp (type %u, pfv %u, cpda %u, dgst %u, "
			 "maxh2cdata %u)",
			 rsp.ch.type, rsp.pfv, rsp.cpda, rsp.dgst, rsp.maxh2cdata);
		return -EPROTO;
	}
	conn->lim.hdgst = !!(rsp.dgst & XNVME_TCP_DGST_HDR);
	conn->lim.ddgst = !!(rsp.dgst & XNVME_TCP_DGST_DATA);
	conn->cpda_nbytes = (rsp.cpda + 1U) * 4U;
	conn->maxh2cdata = rsp.maxh2cdata;
	return 0;
}

int
xnvme_tcp_conn_init(struct xnvme_tcp_conn *conn, uint32_t ncmds)
{
	uint32_t ring = xnvme_be_ring_size(ncmds);

	memset(conn, 0, sizeof(*conn));
	conn->fd = -1;
	if (!ncmds || ncmds > 0xFFFF) {
		return -EINVAL;
	}
	conn->lim.ncmds = ncmds;
	conn->slots = calloc(ncmds, sizeof(*conn->slots));
	conn->st = calloc(ncmds, sizeof(*conn->st));
	conn->free = calloc(ncmds, sizeof(*conn->free));
	conn->txq = calloc(ring, sizeof(*conn->txq));
	conn->rxb = malloc(XNVME_TCP_RXB_NBYTES);
	if (!conn->slots || !conn->st || !conn->free || !conn->txq || !conn->rxb) {
		xnvme_tcp_conn_close(conn);
		return -ENOMEM;
	}
	conn->txq_mask = ring - 1;
	for (uint32_t i = 0; i < ncmds; ++i) {
		conn->free[i] = (uint16_t)(ncmds - 1 - i);
	}
	conn->nfree = ncmds;
	conn->icd_max = 8192; /* admin queue; I/O queues use the controller's IOCCSZ */
	conn->cpda_nbytes = 4;
	conn->maxh2cdata = 4096;
	return 0;
}

int
xnvme_tcp_conn_open(struct xnvme_tcp_conn *conn, const struct xnvme_nvmf_target *tgt,
		    uint32_t ncmds, uint64_t timeout_us, char *errmsg, size_t errmsg_len)
{
	uint64_t deadline_ns = xnvme_nvmf_now_ns() + (timeout_us ? timeout_us : 60000000ULL) * 1000;
	int err = xnvme_tcp_conn_init(conn, ncmds);

	if (err) {
		return err;
	}
	err = sock_connect(tgt, deadline_ns, &conn->fd);
	if (err) {
		snprintf(errmsg, errmsg_len, "cannot connect to %s port %s: %s", tgt->host,
			 tgt->port, strerror(-err));
		xnvme_tcp_conn_close(conn);
		return err;
	}
	err = icreq(conn, tgt, deadline_ns, errmsg, errmsg_len);
	if (err) {
		xnvme_tcp_conn_close(conn);
	}
	return err;
}

void
xnvme_tcp_conn_close(struct xnvme_tcp_conn *conn)
{
	if (conn->fd >= 0) {
		close(conn->fd);
	}
	conn->fd = -1;
	free(conn->slots);
	free(conn->st);
	free(conn->free);
	free(conn->txq);
	free(conn->rxb);
	conn->rxb = NULL;
	conn->slots = NULL;
	conn->st = NULL;
	conn->free = NULL;
	conn->txq = NULL;
	conn->nfree = 0;
	conn->nactive = 0;
	if (!conn->err) {
		conn->err = -ENOTCONN;
	}
}

void
xnvme_tcp_slot_complete(struct xnvme_tcp_conn *conn, uint16_t cid)
{
	struct xnvme_cmd_ctx *ctx = conn->slots[cid].ctx;

	conn->st[cid].active = 0;
	conn->slots[cid].ctx = NULL;
	conn->free[conn->nfree++] = cid;
	conn->nactive--;
	conn->ncompleted++;
	if (conn->complete) {
		conn->complete(conn, ctx);
	}
}

void
xnvme_tcp_conn_fail(struct xnvme_tcp_conn *conn, int err)
{
	if (!conn->err) {
		conn->err = err;
		if (conn->fd >= 0) {
			shutdown(conn->fd, SHUT_RDWR);
		}
	}
	conn->txq_head = conn->txq_tail = 0;
	conn->tx_off = 0;
	for (uint32_t cid = 0; cid < conn->lim.ncmds && conn->nactive; ++cid) {
		if (conn->st[cid].active) {
			conn->slots[cid].txpending = 0;
			xnvme_cpl_set_errno(conn->slots[cid].ctx, conn->err);
			xnvme_tcp_slot_complete(conn, (uint16_t)cid);
		}
	}
}

static uint32_t
align_up(uint32_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

/* The command capsule of slot `cid`: header, padding, in-capsule data and its digest */
static int
build_cmd(struct xnvme_tcp_conn *conn, uint16_t cid, uint32_t nbytes, bool incapsule)
{
	struct xnvme_tcp_slot *slot = &conn->slots[cid];
	struct xnvme_tcp_ch *ch = (struct xnvme_tcp_ch *)slot->hdr;
	uint32_t hd = conn->lim.hdgst ? XNVME_TCP_DIGEST_LEN : 0;
	struct xnvme_nvmf_sgl sgl = {0};
	uint8_t *sqe = slot->hdr + sizeof(*ch);
	uint32_t hlen = sizeof(struct xnvme_tcp_cmd_pdu);

	memset(slot->hdr, 0, sizeof(slot->hdr));
	memcpy(sqe, &slot->ctx->cmd, 64);
	memcpy(sqe + 2, &cid, sizeof(cid));
	sqe[1] = (uint8_t)((sqe[1] & 0x3F) | XNVME_NVMF_PSDT_SGL);
	sgl.len = nbytes;
	sgl.type = incapsule ? XNVME_TCP_SGL_INCAPSULE : XNVME_TCP_SGL_TRANSPORT;
	memcpy(sqe + 24, &sgl, sizeof(sgl));

	ch->type = XNVME_TCP_PDU_CAPSULE_CMD;
	ch->hlen = (uint8_t)hlen;
	ch->flags = conn->lim.hdgst ? XNVME_TCP_F_HDGST : 0;
	ch->plen = hlen + hd;
	slot->tx[0].iov_base = slot->hdr;
	slot->txcnt = 1;
	if (incapsule && nbytes) {
		uint32_t pdo = align_up(hlen + hd, conn->cpda_nbytes);
		uint32_t n = xnvme_tcp_iov_slice(slot->iov, slot->iovcnt, 0, nbytes, &slot->tx[1],
						 XNVME_TCP_IOV_MAX);

		if (!n || pdo > sizeof(slot->hdr) || pdo > 0xFF) {
			return -EINVAL;
		}
		ch->pdo = (uint8_t)pdo;
		ch->plen = pdo + nbytes;
		slot->tx[0].iov_len = pdo;
		slot->txcnt += n;
		if (conn->lim.ddgst) {
			uint32_t crc = ~0U;

			ch->flags |= XNVME_TCP_F_DDGST;
			ch->plen += XNVME_TCP_DIGEST_LEN;
			for (uint32_t i = 1; i <= n; ++i) {
				crc = xnvme_tcp_crc32c(crc, slot->tx[i].iov_base,
						       slot->tx[i].iov_len);
			}
			slot->ddgst = ~crc;
			slot->tx[slot->txcnt].iov_base = &slot->ddgst;
			slot->tx[slot->txcnt++].iov_len = XNVME_TCP_DIGEST_LEN;
		}
	} else {
		slot->tx[0].iov_len = hlen + hd;
	}
	if (conn->lim.hdgst) {
		uint32_t dg = xnvme_tcp_digest(slot->hdr, hlen);

		memcpy(slot->hdr + hlen, &dg, sizeof(dg));
	}
	slot->txlen = ch->plen;
	slot->txkind = XNVME_TCP_TX_CMD;
	return 0;
}

int
xnvme_tcp_conn_submit(struct xnvme_tcp_conn *conn, struct xnvme_cmd_ctx *ctx, void *dbuf,
		      const struct iovec *iov, uint32_t iovcnt, size_t nbytes, void *mbuf,
		      size_t mbuf_nbytes)
{
	struct xnvme_tcp_slot *slot;
	uint8_t dir = xnvme_nvmf_cmd_dir(ctx); /* XNVME_TCP_DIR_* have the same values */
	bool incapsule;
	uint16_t cid;
	int err;

	(void)mbuf;
	if (XNVME_BE_UNLIKELY(conn->err)) {
		return -ENOTCONN;
	}
	if (XNVME_BE_UNLIKELY(mbuf_nbytes)) {
		return -ENOTSUP; /* fabrics carry metadata interleaved (extended LBAs) only */
	}
	err = xnvme_nvmf_xfer_nbytes(dir, dbuf, iov, iovcnt, XNVME_TCP_IOV_MAX, UINT32_MAX,
				     &nbytes);
	if (XNVME_BE_UNLIKELY(err)) {
		return err;
	}
	if (XNVME_BE_UNLIKELY(!conn->nfree)) {
		return -EBUSY;
	}
	cid = conn->free[--conn->nfree];
	slot = &conn->slots[cid];
	slot->ctx = ctx;
	if (iov) {
		memcpy(slot->iov, iov, iovcnt * sizeof(*iov));
		slot->iovcnt = iovcnt;
	} else {
		slot->iov[0].iov_base = dbuf;
		slot->iov[0].iov_len = nbytes;
		slot->iovcnt = 1;
	}
	incapsule = dir == XNVME_TCP_DIR_H2C && nbytes <= conn->icd_max;
	err = build_cmd(conn, cid, (uint32_t)nbytes, incapsule);
	if (XNVME_BE_UNLIKELY(err)) {
		conn->free[conn->nfree++] = cid;
		slot->ctx = NULL;
		return err;
	}
	conn->st[cid] = (struct xnvme_tcp_cmd_state){
		.nbytes = (uint32_t)nbytes,
		.active = 1,
		.dir = nbytes ? dir : XNVME_TCP_DIR_NONE,
		.incapsule = incapsule,
	};
	/* the coarse clock: a vDSO read without a hardware timer access, per command */
	slot->deadline_ns = conn->timeout_ns ? xnvme_nvmf_coarse_ns() + conn->timeout_ns : 0;
	conn->nactive++;
	xnvme_tcp_conn_txq_push(conn, cid);
	return 0;
}

/*
 * Fails the connection when a command has outlived its deadline (looked at every ~1 ms of the
 * coarse clock, whose resolution of a few ms is far below any useful timeout)
 */
static void
check_deadlines(struct xnvme_tcp_conn *conn)
{
	uint64_t now;

	if (!conn->timeout_ns || !conn->nactive) {
		return;
	}
	now = xnvme_nvmf_coarse_ns();
	if (now < conn->next_scan_ns) {
		return;
	}
	conn->next_scan_ns = now + 1000000ULL;
	xnvme_tcp_conn_expire(conn, now);
}

void
xnvme_tcp_conn_expire(struct xnvme_tcp_conn *conn, uint64_t now_ns)
{
	for (uint32_t cid = 0; cid < conn->lim.ncmds && conn->nactive; ++cid) {
		if (conn->st[cid].active && conn->slots[cid].deadline_ns <= now_ns) {
			xnvme_tcp_conn_fail(conn, -ETIMEDOUT);
			return;
		}
	}
}

int
xnvme_tcp_conn_poke(struct xnvme_tcp_conn *conn, uint32_t max)
{
	uint32_t before = conn->ncompleted;
	uint32_t done;

	if (!conn->err) {
		xnvme_tcp_conn_flush(conn);
	}
	if (!conn->err) {
		xnvme_tcp_conn_recv(conn, max);
	}
	/*
	 * H2CData for the R2Ts just received. What a full socket holds back waits for the next
	 * poke: a poke never sleeps. Waiters on the socket ask for POLLOUT too while something is
	 * queued (xnvme_tcp_conn_run(); docs/fabrics.md says so for the completion fd).
	 */
	if (!conn->err && conn->txq_head != conn->txq_tail) {
		xnvme_tcp_conn_flush(conn);
	}
	if (!conn->err) {
		check_deadlines(conn);
	}
	if (conn->err && conn->nactive) {
		xnvme_tcp_conn_fail(conn, conn->err);
	}
	done = conn->ncompleted - before;
	if (!done && conn->err) {
		return conn->err;
	}
	return (int)done;
}

int
xnvme_tcp_conn_run(struct xnvme_tcp_conn *conn, struct xnvme_cmd_ctx *ctx, void *dbuf,
		   size_t dbuf_nbytes, const struct iovec *iov, uint32_t iovcnt, void *mbuf,
		   size_t mbuf_nbytes)
{
	uint32_t before = conn->ncompleted;
	int err;

	err = xnvme_tcp_conn_submit(conn, ctx, dbuf, iov, iovcnt, dbuf_nbytes, mbuf, mbuf_nbytes);
	if (err) {
		xnvme_cpl_set_errno(ctx, err);
		return err;
	}
	while (conn->ncompleted == before) {
		struct pollfd pfd = {.fd = conn->fd, .events = POLLIN};

		xnvme_tcp_conn_poke(conn, 0);
		if (conn->ncompleted != before) {
			break;
		}
		if (conn->txq_head != conn->txq_tail) {
			pfd.events |= POLLOUT;
		}
		/* short waits: deadlines are checked by the poke */
		if (poll(&pfd, 1, conn->timeout_ns ? 10 : 1000) < 0 && errno != EINTR) {
			xnvme_tcp_conn_fail(conn, -errno);
		}
	}
	return xnvme_nvmf_run_result(ctx, conn->err);
}
