// SPDX-License-Identifier: BSD-3-Clause
/*
 * Setting up and tearing down a connection: an RDMA-CM id on an event channel of its own,
 * address and route resolution, a completion channel and one CQ for sends and receives, an
 * RC QP, the registered capsule and response buffers, a memory window per slot, every receive
 * posted, then the connect request with the NVMe/RDMA private data (queue ID, receive and
 * send queue sizes) and the accept's (the controller's receive queue size, which bounds the
 * commands outstanding at once). All of it within the admin timeout, waiting on the event
 * channel with poll. Once up, the device's monitor watches the event channel.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rdma.h"

#define INLINE_WANT 64U     ///< a capsule without data goes inline
#define ICD_ROOM_MAX 65536U ///< in-capsule bytes per slot at most (IOCCSZ may offer more)

/* Milliseconds left until the deadline, at least 1 */
static int
left_ms(uint64_t deadline_ns)
{
	uint64_t now = xnvme_nvmf_now_ns();

	return now < deadline_ns ? (int)((deadline_ns - now) / 1000000ULL) + 1 : 1;
}

static int
nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) ? -errno : 0;
}

static const char *
event_str(enum rdma_cm_event_type ev)
{
	const char *s = rdma_event_str(ev);

	return s ? s : "unknown event";
}

/*
 * Waits for RDMA-CM event `want` on the connection's channel until the deadline. 0 with the
 * event in *out (the caller acknowledges it), or a negative errno and a reason in errmsg.
 */
static int
cm_wait(struct xnvme_rdma_conn *conn, enum rdma_cm_event_type want, uint64_t deadline_ns,
	struct rdma_cm_event **out, char *errmsg, size_t errmsg_len)
{
	struct rdma_cm_event *ev = NULL;
	uint16_t sts;
	int err;

	for (;;) {
		struct pollfd pfd = {.fd = conn->ech->fd, .events = POLLIN};

		if (!rdma_get_cm_event(conn->ech, &ev)) {
			break;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			err = -errno;
			snprintf(errmsg, errmsg_len, "rdma_get_cm_event: %s", strerror(-err));
			return err;
		}
		if (xnvme_nvmf_now_ns() >= deadline_ns) {
			snprintf(errmsg, errmsg_len, "timed out waiting for %s", event_str(want));
			return -ETIMEDOUT;
		}
		if (poll(&pfd, 1, left_ms(deadline_ns)) < 0 && errno != EINTR) {
			err = -errno;
			snprintf(errmsg, errmsg_len, "poll: %s", strerror(-err));
			return err;
		}
	}
	if (ev->event == want) {
		*out = ev;
		return 0;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		err = -ECONNREFUSED;
		if (!xnvme_rdma_cm_rej_parse(ev->param.conn.private_data,
					     ev->param.conn.private_data_len, &sts)) {
			snprintf(errmsg, errmsg_len, "the target rejected the connection: %s (%u)",
				 xnvme_rdma_cm_sts_str(sts), sts);
		} else {
			snprintf(errmsg, errmsg_len,
				 "the target rejected the connection (status %d; nothing listens "
				 "on that port?)",
				 ev->status);
		}
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		err = -EHOSTUNREACH;
		snprintf(errmsg, errmsg_len, "%s (%s): no RDMA path to the target",
			 event_str(ev->event), ev->status < 0 ? strerror(-ev->status) : "-");
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		err = -ENODEV;
		snprintf(errmsg, errmsg_len, "the RDMA device went away");
		break;
	default:
		err = -ECONNABORTED;
		snprintf(errmsg, errmsg_len, "%s while waiting for %s", event_str(ev->event),
			 event_str(want));
		break;
	}
	rdma_ack_cm_event(ev);
	return err;
}

/* Resolves the target's address and route on conn->id, trying each address of the host */
static int
resolve(struct xnvme_rdma_conn *conn, const struct xnvme_nvmf_target *tgt, uint64_t deadline_ns,
	char *errmsg, size_t errmsg_len)
{
	struct addrinfo hints = {0}, *res = NULL, *ai;
	struct rdma_cm_event *ev;
	int err = -EHOSTUNREACH;

	hints.ai_family = tgt->family;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (getaddrinfo(tgt->host, tgt->port, &hints, &res)) {
		snprintf(errmsg, errmsg_len, "cannot resolve '%s'", tgt->host);
		return -EHOSTUNREACH;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		if (rdma_resolve_addr(conn->id, NULL, ai->ai_addr, left_ms(deadline_ns))) {
			err = -errno;
			snprintf(errmsg, errmsg_len, "rdma_resolve_addr(%s): %s", tgt->host,
				 strerror(errno));
			continue;
		}
		err = cm_wait(conn, RDMA_CM_EVENT_ADDR_RESOLVED, deadline_ns, &ev, errmsg,
			      errmsg_len);
		if (!err) {
			rdma_ack_cm_event(ev);
			break;
		}
	}
	freeaddrinfo(res);
	if (err) {
		return err;
	}
	if (rdma_resolve_route(conn->id, left_ms(deadline_ns))) {
		err = -errno;
		snprintf(errmsg, errmsg_len, "rdma_resolve_route: %s", strerror(errno));
		return err;
	}
	err = cm_wait(conn, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline_ns, &ev, errmsg, errmsg_len);
	if (!err) {
		rdma_ack_cm_event(ev);
	}
	return err;
}

int
xnvme_rdma_conn_init(struct xnvme_rdma_conn *conn, struct xnvme_rdma_dev *rd, uint16_t qid,
		     uint32_t ncmds, uint32_t icd_room)
{
	uint32_t ring = xnvme_be_ring_size(ncmds);
	size_t capsule_nbytes = 64 + (size_t)icd_room;
	void *capsules = NULL, *rsps = NULL;

	memset(conn, 0, sizeof(*conn));
	conn->rd = rd;
	conn->qid = qid;
	if (!ncmds || ncmds > 0xFFFF || icd_room > ICD_ROOM_MAX) {
		return -EINVAL;
	}
	conn->ncmds = ncmds;
	conn->nrecv = ncmds;
	conn->icd_room = icd_room;
	conn->slots = calloc(ncmds, sizeof(*conn->slots));
	conn->st = calloc(ncmds, sizeof(*conn->st));
	conn->free = calloc(ncmds, sizeof(*conn->free));
	conn->ready = calloc(ring, sizeof(*conn->ready));
	conn->rwr = calloc(conn->nrecv, sizeof(*conn->rwr));
	conn->rsge = calloc(conn->nrecv, sizeof(*conn->rsge));
	if (!posix_memalign(&capsules, 4096, capsule_nbytes * ncmds)) {
		conn->capsules = capsules;
	}
	if (!posix_memalign(&rsps, 4096, (size_t)XNVME_RDMA_RSP_BUF * conn->nrecv)) {
		conn->rsps = rsps;
	}
	if (!conn->slots || !conn->st || !conn->free || !conn->ready || !conn->rwr || !conn->rsge ||
	    !conn->capsules || !conn->rsps) {
		xnvme_rdma_conn_free(conn);
		return -ENOMEM;
	}
	memset(conn->capsules, 0, capsule_nbytes * ncmds);
	memset(conn->rsps, 0, (size_t)XNVME_RDMA_RSP_BUF * conn->nrecv);
	conn->ready_mask = ring - 1;
	for (uint32_t i = 0; i < ncmds; ++i) {
		struct xnvme_rdma_slot *slot = &conn->slots[i];

		conn->free[i] = (uint16_t)(ncmds - 1 - i);
		slot->wr_send.wr_id = xnvme_rdma_wr_id(XNVME_RDMA_WR_SEND, i);
		slot->wr_send.opcode = IBV_WR_SEND;
		slot->wr_send.sg_list = slot->sge;
		slot->wr_bind.wr_id = xnvme_rdma_wr_id(XNVME_RDMA_WR_BIND, i);
		slot->wr_bind.opcode = IBV_WR_BIND_MW;
		slot->wr_inv.wr_id = xnvme_rdma_wr_id(XNVME_RDMA_WR_INV, i);
		slot->wr_inv.opcode = IBV_WR_LOCAL_INV;
		slot->wr_inv.send_flags = IBV_SEND_SIGNALED;
	}
	conn->nfree = ncmds;
	for (uint32_t i = 0; i < conn->nrecv; ++i) {
		conn->rsge[i].addr = (uintptr_t)(conn->rsps + (size_t)i * XNVME_RDMA_RSP_BUF);
		conn->rsge[i].length = XNVME_RDMA_RSP_BUF;
		conn->rwr[i].wr_id = xnvme_rdma_wr_id(XNVME_RDMA_WR_RECV, i);
		conn->rwr[i].sg_list = &conn->rsge[i];
		conn->rwr[i].num_sge = 1;
		conn->rwr[i].next = i + 1 < conn->nrecv ? &conn->rwr[i + 1] : NULL;
	}
	return 0;
}

void
xnvme_rdma_conn_free(struct xnvme_rdma_conn *conn)
{
	for (uint32_t i = 0; conn->slots && i < conn->ncmds; ++i) {
		free(conn->slots[i].bounce);
	}
	free(conn->capsules);
	free(conn->rsps);
	free(conn->slots);
	free(conn->st);
	free(conn->free);
	free(conn->ready);
	free(conn->rwr);
	free(conn->rsge);
	conn->capsules = conn->rsps = NULL;
	conn->slots = NULL;
	conn->st = NULL;
	conn->free = NULL;
	conn->ready = NULL;
	conn->rwr = NULL;
	conn->rsge = NULL;
	conn->nfree = 0;
	conn->nactive = 0;
}

/* The completion channel and CQ, the QP, the buffers' registrations, windows, receives */
static int
resources(struct xnvme_rdma_conn *conn, char *errmsg, size_t errmsg_len)
{
	struct xnvme_rdma_dev *rd = conn->rd;
	uint32_t wr_per_cmd = conn->mw ? 3 : 1; /* bind, send, local invalidation */
	struct ibv_qp_init_attr qa = {0};
	struct ibv_recv_wr *bad = NULL;
	int err;

	conn->cch = ibv_create_comp_channel(conn->id->verbs);
	if (!conn->cch || nonblock(conn->cch->fd)) {
		snprintf(errmsg, errmsg_len, "ibv_create_comp_channel: %s", strerror(errno));
		return errno ? -errno : -ENOMEM;
	}
	/* room for a flush of every work request: send queue and receive queue */
	conn->cq = ibv_create_cq(conn->id->verbs, (int)(conn->ncmds * wr_per_cmd + conn->nrecv),
				 conn, conn->cch, 0);
	if (!conn->cq) {
		snprintf(errmsg, errmsg_len, "ibv_create_cq: %s", strerror(errno));
		return errno ? -errno : -ENOMEM;
	}
	qa.send_cq = conn->cq;
	qa.recv_cq = conn->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 0;
	qa.cap.max_send_wr = conn->ncmds * wr_per_cmd;
	qa.cap.max_recv_wr = conn->nrecv;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = rd->max_inline;
	if (rdma_create_qp(conn->id, rd->pd, &qa)) {
		qa.cap.max_inline_data = 0; /* a device without inline sends */
		if (rdma_create_qp(conn->id, rd->pd, &qa)) {
			snprintf(errmsg, errmsg_len,
				 "rdma_create_qp (%u send, %u receive entries): %s",
				 qa.cap.max_send_wr, qa.cap.max_recv_wr, strerror(errno));
			return errno ? -errno : -ENOMEM;
		}
	}
	conn->qp = conn->id->qp;
	conn->max_inline = qa.cap.max_inline_data;
	conn->capsule_mr =
		ibv_reg_mr(rd->pd, conn->capsules, (64 + (size_t)conn->icd_room) * conn->ncmds, 0);
	conn->rsp_mr = ibv_reg_mr(rd->pd, conn->rsps, (size_t)XNVME_RDMA_RSP_BUF * conn->nrecv,
				  IBV_ACCESS_LOCAL_WRITE);
	if (!conn->capsule_mr || !conn->rsp_mr) {
		snprintf(errmsg, errmsg_len, "cannot register the queue's buffers: %s",
			 strerror(errno));
		return errno ? -errno : -ENOMEM;
	}
	for (uint32_t i = 0; i < conn->ncmds; ++i) {
		struct xnvme_rdma_slot *slot = &conn->slots[i];

		slot->sge[0].lkey = conn->capsule_mr->lkey;
		if (!conn->mw) {
			continue;
		}
		slot->mw = ibv_alloc_mw(rd->pd, IBV_MW_TYPE_2);
		if (!slot->mw) {
			snprintf(errmsg, errmsg_len, "ibv_alloc_mw: %s", strerror(errno));
			return errno ? -errno : -ENOMEM;
		}
		slot->mw_rkey = slot->mw->rkey;
		slot->wr_bind.bind_mw.mw = slot->mw;
	}
	for (uint32_t i = 0; i < conn->nrecv; ++i) {
		conn->rsge[i].lkey = conn->rsp_mr->lkey;
	}
	err = ibv_post_recv(conn->qp, &conn->rwr[0], &bad);
	if (err) {
		snprintf(errmsg, errmsg_len, "ibv_post_recv: %s", strerror(err));
		return -err;
	}
	return 0;
}

/* The connect request with the NVMe/RDMA private data, and the accept */
static int
connect_queue(struct xnvme_rdma_conn *conn, struct xnvme_nvmf_ctrlr *ctrlr, uint16_t sqsize,
	      uint64_t deadline_ns, char *errmsg, size_t errmsg_len)
{
	struct rdma_conn_param param = {0};
	struct xnvme_rdma_cm_req req;
	struct rdma_cm_event *ev;
	uint16_t crqsize;
	int err;

	xnvme_rdma_cm_req_init(&req, conn->qid, (uint16_t)conn->nrecv, sqsize,
			       conn->qid ? ctrlr->cntlid : 0xFFFF);
	param.private_data = &req;
	param.private_data_len = sizeof(req);
	/* the target reads a write's data from this host: RDMA READs it may have in flight */
	param.responder_resources =
		(uint8_t)(conn->rd->max_qp_rd_atom < 255 ? conn->rd->max_qp_rd_atom : 255);
	param.initiator_depth = 0;
	param.flow_control = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(conn->id, &param)) {
		err = -errno;
		snprintf(errmsg, errmsg_len, "rdma_connect: %s", strerror(errno));
		return err;
	}
	err = cm_wait(conn, RDMA_CM_EVENT_ESTABLISHED, deadline_ns, &ev, errmsg, errmsg_len);
	if (err) {
		return err;
	}
	err = xnvme_rdma_cm_rep_parse(ev->param.conn.private_data, ev->param.conn.private_data_len,
				      &crqsize);
	rdma_ack_cm_event(ev);
	if (err) {
		snprintf(errmsg, errmsg_len, "the target's accept carries no valid NVMe/RDMA data");
		return err;
	}
	/* no more commands outstanding than the target has receive entries for */
	if (crqsize < conn->nfree) {
		uint32_t drop = conn->nfree - crqsize;

		memmove(conn->free, conn->free + drop, crqsize * sizeof(*conn->free));
		conn->nfree = crqsize;
	}
	return 0;
}

int
xnvme_rdma_conn_open(struct xnvme_rdma_conn *conn, struct xnvme_nvmf_ctrlr *ctrlr, uint16_t qid,
		     uint32_t ncmds, uint16_t sqsize, char *errmsg, size_t errmsg_len)
{
	const struct xnvme_nvmf_target *tgt = &ctrlr->tgt;
	uint64_t timeout_us = tgt->admin_timeout_us ? tgt->admin_timeout_us : 60000000ULL;
	uint64_t deadline_ns = xnvme_nvmf_now_ns() + timeout_us * 1000ULL;
	int err;

	/* the admin queue takes no in-capsule data; I/O queues up to IOCCSZ */
	err = xnvme_rdma_conn_init(
		conn, ctrlr->tstate, qid, ncmds,
		qid ? (ctrlr->icd_max < ICD_ROOM_MAX ? ctrlr->icd_max : ICD_ROOM_MAX) : 0);
	if (err) {
		snprintf(errmsg, errmsg_len, "%u commands: %s", ncmds, strerror(-err));
		return err;
	}
	conn->ech = rdma_create_event_channel();
	if (!conn->ech) {
		err = errno ? -errno : -ENODEV;
		snprintf(errmsg, errmsg_len, "no RDMA-CM (rdma_create_event_channel: %s)",
			 strerror(-err));
		xnvme_rdma_conn_free(conn);
		return err;
	}
	err = nonblock(conn->ech->fd);
	if (!err && rdma_create_id(conn->ech, &conn->id, conn, RDMA_PS_TCP)) {
		err = -errno;
	}
	if (err) {
		snprintf(errmsg, errmsg_len, "rdma_create_id: %s", strerror(-err));
		goto fail;
	}
	err = resolve(conn, tgt, deadline_ns, errmsg, errmsg_len);
	err = err ? err : xnvme_rdma_dev_attach(conn->rd, conn->id->verbs, errmsg, errmsg_len);
	if (err) {
		goto fail;
	}
	conn->mw = conn->rd->mw;
	err = resources(conn, errmsg, errmsg_len);
	err = err ? err : connect_queue(conn, ctrlr, sqsize, deadline_ns, errmsg, errmsg_len);
	err = err ? err : xnvme_rdma_mon_add(conn->rd, conn);
	if (err) {
		goto fail;
	}
	return 0;
fail:
	xnvme_rdma_conn_close(conn);
	return err;
}

void
xnvme_rdma_conn_unbind(struct xnvme_rdma_conn *conn)
{
	for (uint32_t i = 0; conn->slots && i < conn->ncmds; ++i) {
		if (conn->slots[i].mw) {
			ibv_dealloc_mw(conn->slots[i].mw);
			conn->slots[i].mw = NULL;
		}
	}
}

void
xnvme_rdma_conn_close(struct xnvme_rdma_conn *conn)
{
	if (!conn->ech) {
		return;
	}
	xnvme_rdma_mon_del(conn->rd, conn);
	xnvme_rdma_conn_unbind(conn);
	if (conn->qp) {
		rdma_disconnect(conn->id);
		rdma_destroy_qp(conn->id);
		conn->qp = NULL;
	}
	if (conn->cq) {
		if (conn->ncqev) {
			ibv_ack_cq_events(conn->cq, conn->ncqev);
		}
		ibv_destroy_cq(conn->cq);
	}
	if (conn->cch) {
		ibv_destroy_comp_channel(conn->cch);
	}
	for (uint32_t i = 0; conn->slots && i < conn->ncmds; ++i) {
		if (conn->slots[i].bounce_mr) {
			ibv_dereg_mr(conn->slots[i].bounce_mr);
		}
	}
	if (conn->capsule_mr) {
		ibv_dereg_mr(conn->capsule_mr);
	}
	if (conn->rsp_mr) {
		ibv_dereg_mr(conn->rsp_mr);
	}
	xnvme_rdma_conn_free(conn);
	if (conn->id) {
		rdma_destroy_id(conn->id);
	}
	rdma_destroy_event_channel(conn->ech);
	memset(conn, 0, sizeof(*conn));
	conn->err = -ENOTCONN;
}
