// SPDX-License-Identifier: BSD-3-Clause
/*
 * The requests a secondary sends its primary (mp_primary_int.h): IOVA windows, queue ids, queue
 * creation and deletion, admin commands and resets. Everything a secondary names is checked
 * against what it owns: its queue ids, rings inside its windows, Abort only for its own queues;
 * the queue management opcodes are the primary's alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_primary_int.h"

#define ADMIN_NBYTES_MAX (64u << 20)

#define NVME_ADM_AER 0x0C
#define NVME_ADM_DBBUF 0x7C

/* Publishes what the request changed, then answers it: a secondary learns of a reset before
 * the reply of the request that caused it */
static void
answer(struct mp_client *c, const struct vfio_mp_hdr *req, int err, const char *msg,
       const void *body, size_t blen, const void *payload, size_t plen)
{
	mp_publish(c->srv);
	if (!c->dead && vfio_mp_reply(c->fd, req, err, msg, body, blen, payload, plen)) {
		c->dead = true;
	}
}

static bool
in_windows(const struct mp_client *c, uint64_t iova, uint64_t len)
{
	for (size_t i = 0; i < c->nwins; ++i) {
		if (iova >= c->wins[i].start && len <= c->wins[i].end - iova &&
		    iova < c->wins[i].end) {
			return true;
		}
	}
	return false;
}

static unsigned
queues_of(const struct mp_served *srv, const struct mp_client *c)
{
	unsigned n = 0;

	for (uint32_t q = 1; q <= srv->ctrl.nioq; ++q) {
		n += srv->qids[q].owner == c;
	}
	return n;
}

static void
req_window(struct mp_client *c, const struct vfio_mp_hdr *hdr)
{
	struct vfio_mp_window w = {0};
	char msg[VFIO_MP_ERRMSG_LEN];
	int err = hdr->len == sizeof(w) ? vfio_mp_recv_all(c->fd, &w, sizeof(w)) : -EPROTO;

	if (err) {
		c->dead = true;
		return;
	}
	err = mp_window_take(c->srv, c, w.len, &w.start, &w.end, msg, sizeof(msg));
	answer(c, hdr, err, msg, &w, sizeof(w), NULL, 0);
}

static void
req_qid_get(struct mp_client *c, const struct vfio_mp_hdr *hdr)
{
	struct mp_served *srv = c->srv;
	struct vfio_mp_queue q = {0};
	char msg[VFIO_MP_ERRMSG_LEN] = "";
	int err;

	if (hdr->len) {
		c->dead = true; /* not a request of this protocol */
		return;
	}
	err = vfio_ctrl_qid_get(&srv->ctrl, &q.qid);
	if (err) {
		unsigned mine = queues_of(srv, c);

		snprintf(msg, sizeof(msg),
			 "all %u I/O queue pairs of the controller are in use (%u by this process, "
			 "%u by others)",
			 srv->ctrl.nioq, mine, srv->ctrl.nioq - mine);
	} else {
		srv->qids[q.qid] = (struct mp_qid){.owner = c};
	}
	answer(c, hdr, err, msg, &q, sizeof(q), NULL, 0);
}

/* Reads a vfio_mp_queue naming a queue id of `c`; -EPERM with the reason when it is not */
static int
queue_arg(struct mp_client *c, const struct vfio_mp_hdr *hdr, struct vfio_mp_queue *q, char *msg,
	  size_t len)
{
	int err = hdr->len == sizeof(*q) ? vfio_mp_recv_all(c->fd, q, sizeof(*q)) : -EPROTO;

	if (err) {
		c->dead = true;
		return err;
	}
	if (!q->qid || q->qid > c->srv->ctrl.nioq || c->srv->qids[q->qid].owner != c) {
		snprintf(msg, len, "queue id %u is not one of this process's", q->qid);
		return -EPERM;
	}
	return 0;
}

/* Deletes the queues of `qid` when the device has them (not since a reset took them) */
static int
queue_off(struct mp_served *srv, uint16_t qid)
{
	struct mp_qid *r = &srv->qids[qid];
	int err = 0;

	if (r->on_device && r->epoch == __atomic_load_n(&srv->ctrl.epoch, __ATOMIC_ACQUIRE) &&
	    !vfio_ctrl_check_fatal(&srv->ctrl)) {
		err = vfio_ctrl_queue_delete(&srv->ctrl, qid);
	}
	r->on_device = false;
	if (r->irq && srv->bus->ops->irq_set) {
		srv->bus->ops->irq_set(srv->bus, qid, -1);
	}
	r->irq = false;
	return err;
}

/* QDELETE: the queues of an owned id go; QID_PUT: the id too */
static void
req_queue_off(struct mp_client *c, const struct vfio_mp_hdr *hdr, bool release)
{
	struct vfio_mp_queue q;
	char msg[VFIO_MP_ERRMSG_LEN];
	int err = queue_arg(c, hdr, &q, msg, sizeof(msg));

	if (c->dead) {
		return;
	}
	if (!err) {
		err = queue_off(c->srv, q.qid);
		snprintf(msg, sizeof(msg), "deleting the queues of id %u: %s", q.qid,
			 strerror(-err));
	}
	if (release && !err) {
		c->srv->qids[q.qid] = (struct mp_qid){0};
		vfio_ctrl_qid_put(&c->srv->ctrl, q.qid);
	}
	answer(c, hdr, err, msg, NULL, 0, NULL, 0);
}

static void
req_qcreate(struct mp_client *c, const struct vfio_mp_hdr *hdr, int irq_fd)
{
	struct mp_served *srv = c->srv;
	struct vfio_ctrl *ctrl = &srv->ctrl;
	struct vfio_mp_queue q;
	char msg[VFIO_MP_ERRMSG_LEN];
	int err = queue_arg(c, hdr, &q, msg, sizeof(msg));
	bool ien;

	if (c->dead) {
		return;
	}
	ien = q.cq_flags & 0x2;
	if (!err && srv->qids[q.qid].on_device &&
	    srv->qids[q.qid].epoch == __atomic_load_n(&ctrl->epoch, __ATOMIC_ACQUIRE)) {
		snprintf(msg, sizeof(msg), "the queues of id %u exist already", q.qid);
		err = -EEXIST;
	}
	if (!err && (q.qsize < 2 || q.qsize > ctrl->mqes || (q.cq_flags & ~0xFFFF0003u) ||
		     (ien && (q.cq_flags >> 16) != q.qid) || (ien && irq_fd < 0))) {
		snprintf(msg, sizeof(msg), "queue id %u: invalid size %u or CQ flags 0x%x", q.qid,
			 q.qsize, q.cq_flags);
		err = -EINVAL;
	}
	if (!err &&
	    (!in_windows(c, q.cq_iova, (uint64_t)q.qsize * sizeof(struct xnvme_spec_cpl)) ||
	     !in_windows(c, q.sq_iova, (uint64_t)q.qsize * sizeof(struct xnvme_spec_cmd)))) {
		snprintf(msg, sizeof(msg), "queue id %u: rings outside the process's IOVA windows",
			 q.qid);
		err = -EFAULT;
	}
	if (!err && ien) {
		err = srv->bus->ops->irq_set ? srv->bus->ops->irq_set(srv->bus, q.qid, irq_fd)
					     : -ENOTSUP;
		if (err) {
			snprintf(msg, sizeof(msg), "MSI-X vector %u for a completion fd: %s", q.qid,
				 strerror(-err));
		}
		srv->qids[q.qid].irq = !err;
	}
	if (!err) {
		err = vfio_ctrl_queue_create(ctrl, q.qid, q.qsize, q.cq_flags, q.cq_iova, q.sq_iova,
					     &srv->qids[q.qid].epoch);
		srv->qids[q.qid].on_device = !err;
		q.epoch = srv->qids[q.qid].epoch;
		if (err) {
			snprintf(msg, sizeof(msg), "creating the queues of id %u: %s", q.qid,
				 strerror(-err));
		}
	}
	answer(c, hdr, err, msg, &q, sizeof(q), NULL, 0);
}

/* The opcodes a secondary may not send: -EPERM with the reason */
static int
admin_refused(const struct mp_client *c, const struct xnvme_spec_cmd *cmd, char *msg, size_t len)
{
	uint16_t sqid = (uint16_t)(cmd->common.ndt & 0xFFFF);

	switch (cmd->common.opcode) {
	case NVME_ADM_DELETE_SQ:
	case NVME_ADM_CREATE_SQ:
	case NVME_ADM_DELETE_CQ:
	case NVME_ADM_CREATE_CQ:
	case NVME_ADM_DBBUF:
		snprintf(msg, len,
			 "admin opcode 0x%02x manages the queues of every process: only "
			 "the primary sends it",
			 cmd->common.opcode);
		return -EPERM;
	case NVME_ADM_AER:
		snprintf(msg, len,
			 "Asynchronous Event Requests would hold the admin queue that "
			 "every process shares: refused");
		return -EPERM;
	case NVME_ADM_ABORT:
		if (!sqid || sqid > c->srv->ctrl.nioq || c->srv->qids[sqid].owner != c) {
			snprintf(msg, len,
				 "Abort of a command on queue %u, not one of this process's", sqid);
			return -EPERM;
		}
		return 0;
	default:
		return 0;
	}
}

static void
req_admin(struct mp_client *c, const struct vfio_mp_hdr *hdr)
{
	struct vfio_ctrl *ctrl = &c->srv->ctrl;
	struct vfio_mp_admin a;
	char msg[VFIO_MP_ERRMSG_LEN];
	void *buf = NULL;
	size_t sent;
	int err;

	if (hdr->len < sizeof(a) || vfio_mp_recv_all(c->fd, &a, sizeof(a))) {
		c->dead = true;
		return;
	}
	sent = (a.flags & VFIO_MP_ADMIN_SEND) ? a.nbytes : 0;
	if (hdr->len != sizeof(a) + sent || a.nbytes > ADMIN_NBYTES_MAX ||
	    (a.nbytes && !(a.flags & (VFIO_MP_ADMIN_SEND | VFIO_MP_ADMIN_RECV)))) {
		c->dead = true; /* not a message of this protocol: the stream is lost */
		return;
	}
	buf = a.nbytes ? calloc(1, a.nbytes) : NULL;
	err = vfio_mp_recv_all(c->fd, buf, sent);
	if (err || (a.nbytes && !buf)) {
		free(buf);
		c->dead = err != 0;
		if (!err) {
			answer(c, hdr, -ENOMEM, "no memory for the admin payload", NULL, 0, NULL,
			       0);
		}
		return;
	}
	err = admin_refused(c, &a.cmd, msg, sizeof(msg));
	if (err) {
		free(buf);
		answer(c, hdr, err, msg, NULL, 0, NULL, 0);
		return;
	}
	if (a.timeout_us) {
		a.err = a.nbytes ? -EINVAL
				 : vfio_ctrl_admin_timed(ctrl, &a.cmd, a.timeout_us, &a.cpl);
	} else {
		a.err = vfio_ctrl_admin(ctrl, &a.cmd, buf, a.nbytes, &a.cpl);
	}
	/* data back as the bounce buffer of the single-process path gives it back */
	sent = ((a.flags & VFIO_MP_ADMIN_RECV) && a.err != -ETIMEDOUT && a.err != -EIO) ? a.nbytes
											: 0;
	answer(c, hdr, 0, NULL, &a, sizeof(a), buf, sent);
	free(buf);
}

static void
req_reset(struct mp_client *c, const struct vfio_mp_hdr *hdr)
{
	struct vfio_ctrl *ctrl = &c->srv->ctrl;
	struct vfio_mp_reset r;
	int err = hdr->len == sizeof(r) ? vfio_mp_recv_all(c->fd, &r, sizeof(r)) : -EPROTO;

	if (err) {
		c->dead = true;
		return;
	}
	if (r.force || r.epoch == __atomic_load_n(&ctrl->epoch, __ATOMIC_ACQUIRE)) {
		mp_log(c->srv->prim, "%s: controller reset asked for by secondary %u (pid %d)",
		       c->srv->bdf, c->id, (int)c->pid);
		err = vfio_ctrl_reset(ctrl);
	}
	r.epoch = __atomic_load_n(&ctrl->epoch, __ATOMIC_ACQUIRE);
	answer(c, hdr, err, err ? "the controller reset failed: the controller is failed" : NULL,
	       &r, sizeof(r), NULL, 0);
}

void
mp_request(struct mp_client *c, const struct vfio_mp_hdr *hdr, int *fds, int nfds)
{
	int irq_fd = -1;

	if (hdr->flags & VFIO_MP_F_REPLY) {
		c->dead = true;
	} else if (hdr->type == VFIO_MP_QCREATE && nfds == 1) {
		irq_fd = fds[0];
		nfds = 0;
	}
	for (int i = 0; i < nfds; ++i) {
		close(fds[i]);
	}
	switch (c->dead ? 0 : hdr->type) {
	case VFIO_MP_WINDOW:
		req_window(c, hdr);
		break;
	case VFIO_MP_QID_GET:
		req_qid_get(c, hdr);
		break;
	case VFIO_MP_QID_PUT:
		req_queue_off(c, hdr, true);
		break;
	case VFIO_MP_QCREATE:
		req_qcreate(c, hdr, irq_fd);
		break;
	case VFIO_MP_QDELETE:
		req_queue_off(c, hdr, false);
		break;
	case VFIO_MP_ADMIN:
		req_admin(c, hdr);
		break;
	case VFIO_MP_RESET:
		req_reset(c, hdr);
		break;
	default:
		c->dead = true; /* not a request of this protocol version */
		break;
	}
	if (irq_fd >= 0) {
		close(irq_fd); /* VFIO holds its own reference to the eventfd */
	}
}

void
mp_client_queues_drop(struct mp_client *c, char *done, size_t done_len)
{
	struct mp_served *srv = c->srv;
	size_t at = 0;

	done[0] = '\0';
	for (uint32_t q = 1; q <= srv->ctrl.nioq; ++q) {
		int err;

		if (srv->qids[q].owner != c) {
			continue;
		}
		err = queue_off(srv, (uint16_t)q);
		if (err && !vfio_ctrl_check_fatal(&srv->ctrl)) {
			/* the device may still hold the queue: after a reset it holds nothing */
			mp_log(srv->prim,
			       "%s: deleting queue %u of secondary %u failed (%s): reset", srv->bdf,
			       q, c->id, strerror(-err));
			vfio_ctrl_reset(&srv->ctrl);
		}
		srv->qids[q] = (struct mp_qid){0};
		vfio_ctrl_qid_put(&srv->ctrl, (uint16_t)q);
		if (at < done_len) {
			int n = snprintf(done + at, done_len - at, "%s%u", at ? " " : "", q);

			at += n > 0 ? (size_t)n : 0;
		}
	}
}
