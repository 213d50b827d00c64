// SPDX-License-Identifier: BSD-3-Clause
/*
 * A secondary of multi-process mode (mp_secondary.h): the attach handshake, requests to the
 * primary (one at a time; the reply is read by the socket's reader thread, which also applies
 * the primary's notifications) and the admin side of ctrl.h on top of them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "mp_proto.h"
#include "mp_secondary.h"
#include "xnvme_be.h"

#define HELLO_TIMEOUT_S 30
#define WINDOW_MIN (1ULL << 30)

struct vfio_sec {
	struct vfio_ctrl *ctrl;
	int sock;
	char bdf[16];
	uint32_t shm_id;
	int primary_pid;
	pthread_t reader;
	bool reader_started;
	uint64_t reply_timeout_us; ///< bound on one request's wait for its reply
	int *irq_fds;              ///< [nirq]: completion eventfds by queue id, -1 when none
	uint32_t nirq;

	pthread_mutex_t req_lock; ///< one request at a time
	pthread_mutex_t lock;     ///< the reply slot and `gone`, with cond
	pthread_cond_t cond;
	uint32_t seq;
	bool gone;      ///< the socket ended: the primary is gone (or we detach)
	bool detaching; ///< the end is ours: not a failure

	/* the reply slot of the request in flight (want_seq 0: none) */
	uint32_t want_seq;
	bool done;
	int32_t rerr;
	void *rbody;
	size_t rbody_len;
	void *rpay;
	size_t rpay_cap;
	size_t rpay_len; ///< payload bytes the reply carried
	char rmsg[VFIO_MP_ERRMSG_LEN];
};

/* Reads a reply's body into the slot (caller holds sec->lock) */
static int
reply_read(struct vfio_sec *sec, const struct vfio_mp_hdr *hdr)
{
	size_t left = hdr->len, n;
	int err;

	sec->rerr = hdr->err;
	if (hdr->err) {
		n = left < sizeof(sec->rmsg) - 1 ? left : sizeof(sec->rmsg) - 1;
		err = vfio_mp_recv_all(sec->sock, sec->rmsg, n);
		sec->rmsg[err ? 0 : n] = '\0';
		return err ? err : vfio_mp_recv_all(sec->sock, NULL, left - n);
	}
	sec->rmsg[0] = '\0';
	n = left < sec->rbody_len ? left : sec->rbody_len;
	err = vfio_mp_recv_all(sec->sock, sec->rbody, n);
	left -= err ? 0 : n;
	if (!err && left && sec->rpay) {
		n = left < sec->rpay_cap ? left : sec->rpay_cap;
		err = vfio_mp_recv_all(sec->sock, sec->rpay, n);
		left -= err ? 0 : n;
		sec->rpay_len = err ? 0 : n;
	}
	return err ? err : vfio_mp_recv_all(sec->sock, NULL, left);
}

static void
note_apply(struct vfio_sec *sec, const struct vfio_mp_hdr *hdr, const struct vfio_mp_note *note)
{
	struct vfio_ctrl *ctrl = sec->ctrl;

	switch (hdr->type) {
	case VFIO_MP_NOTE_EPOCH:
		/* the queue pairs see it at their next submit or reap and recreate their queues */
		__atomic_store_n(&ctrl->epoch, note->epoch, __ATOMIC_RELEASE);
		break;
	case VFIO_MP_NOTE_FAILED:
		__atomic_store_n(&ctrl->fail_err, note->err ? -note->err : EIO, __ATOMIC_RELAXED);
		__atomic_store_n(&ctrl->failed, 1, __ATOMIC_RELEASE);
		break;
	case VFIO_MP_NOTE_REMOVED:
		/* the kernel waits for every process holding the device: let go at once */
		__atomic_store_n(&ctrl->removed, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&ctrl->failed, 1, __ATOMIC_RELEASE);
		if (ctrl->bus->ops->release) {
			ctrl->bus->ops->release(ctrl->bus);
		}
		break;
	default:
		break;
	}
}

static void *
reader_main(void *arg)
{
	struct vfio_sec *sec = arg;
	struct vfio_mp_hdr hdr;
	int err;

	for (;;) {
		err = vfio_mp_recv_hdr(sec->sock, &hdr, NULL, NULL);
		if (err) {
			break;
		}
		if (hdr.flags & VFIO_MP_F_REPLY) {
			pthread_mutex_lock(&sec->lock);
			if (sec->want_seq && hdr.seq == sec->want_seq && !sec->done) {
				err = reply_read(sec, &hdr);
				sec->done = !err;
				pthread_cond_broadcast(&sec->cond);
			} else {
				err = vfio_mp_recv_all(sec->sock, NULL, hdr.len); /* a late reply */
			}
			pthread_mutex_unlock(&sec->lock);
		} else {
			struct vfio_mp_note note = {0};

			err = vfio_mp_recv_all(sec->sock, &note,
					       hdr.len < sizeof(note) ? hdr.len : sizeof(note));
			if (!err && hdr.len > sizeof(note)) {
				err = vfio_mp_recv_all(sec->sock, NULL, hdr.len - sizeof(note));
			}
			if (!err) {
				note_apply(sec, &hdr, &note);
			}
		}
		if (err) {
			break;
		}
	}
	pthread_mutex_lock(&sec->lock);
	sec->gone = true;
	if (!sec->detaching) {
		/* every command fails from now on, outstanding ones at their queue's next poll */
		__atomic_store_n(&sec->ctrl->fail_err, ENOTCONN, __ATOMIC_RELAXED);
		__atomic_store_n(&sec->ctrl->failed, 1, __ATOMIC_RELEASE);
	}
	pthread_cond_broadcast(&sec->cond);
	pthread_mutex_unlock(&sec->lock);
	return NULL;
}

struct request {
	uint16_t type;
	const void *body;
	size_t blen;
	const void *payload;
	size_t plen;
	int fd; ///< sent with the request when >= 0
	void *rbody;
	size_t rbody_len;
	void *rpay;
	size_t rpay_cap;
	size_t rpay_len; ///< out: payload bytes received
};

/*
 * The reply lands in rbody and rpay, which must not be memory the request sends from (body,
 * payload): the reader thread writes them while, as far as any race detector can tell, the
 * sending thread may still read its request.
 *
 * Sends a request and waits for its reply: the reply's err (its reason then in
 * xnvme_last_error()), -ENOTCONN when the primary is gone, -ETIMEDOUT when it did not answer */
static int
request(struct vfio_sec *sec, struct request *rq)
{
	struct vfio_mp_hdr hdr = {.magic = VFIO_MP_MAGIC, .type = rq->type};
	struct timespec deadline;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += (time_t)(sec->reply_timeout_us / 1000000);
	pthread_mutex_lock(&sec->req_lock);
	pthread_mutex_lock(&sec->lock);
	if (sec->gone) {
		pthread_mutex_unlock(&sec->lock);
		pthread_mutex_unlock(&sec->req_lock);
		xnvme_last_error_set("vfio: %s: the primary process (shm id %x) is gone", sec->bdf,
				     sec->shm_id);
		return -ENOTCONN;
	}
	sec->seq = sec->seq + 1 ? sec->seq + 1 : 1;
	hdr.seq = sec->seq;
	sec->want_seq = hdr.seq;
	sec->done = false;
	sec->rbody = rq->rbody;
	sec->rbody_len = rq->rbody ? rq->rbody_len : 0;
	sec->rpay = rq->rpay;
	sec->rpay_cap = rq->rpay ? rq->rpay_cap : 0;
	sec->rpay_len = 0;
	pthread_mutex_unlock(&sec->lock);

	hdr.len = (uint32_t)((rq->body ? rq->blen : 0) + (rq->payload ? rq->plen : 0));
	err = vfio_mp_send(sec->sock, &hdr, rq->body, rq->blen, rq->payload, rq->plen, &rq->fd,
			   rq->fd >= 0 ? 1 : 0);

	pthread_mutex_lock(&sec->lock);
	while (!err && !sec->done && !sec->gone) {
		if (pthread_cond_timedwait(&sec->cond, &sec->lock, &deadline) == ETIMEDOUT) {
			err = -ETIMEDOUT;
		}
	}
	if (!err && sec->done) {
		err = sec->rerr;
		rq->rpay_len = sec->rpay_len;
		if (err && sec->rmsg[0]) {
			xnvme_last_error_set("vfio: %s: %s", sec->bdf, sec->rmsg);
		}
	} else if (!err || err == -EPIPE || err == -ECONNRESET) {
		err = -ENOTCONN;
	}
	if (err == -ENOTCONN) {
		xnvme_last_error_set("vfio: %s: the primary process (shm id %x) is gone", sec->bdf,
				     sec->shm_id);
	} else if (err == -ETIMEDOUT && !sec->done) {
		xnvme_last_error_set("vfio: %s: the primary process did not answer in %llu s",
				     sec->bdf, (unsigned long long)sec->reply_timeout_us / 1000000);
	}
	sec->want_seq = 0; /* a late reply is discarded by the reader */
	pthread_mutex_unlock(&sec->lock);
	pthread_mutex_unlock(&sec->req_lock);
	return err;
}

int
vfio_sec_admin(struct vfio_sec *sec, const struct xnvme_spec_cmd *cmd, void *dbuf, size_t nbytes,
	       uint64_t timeout_us, struct xnvme_spec_cpl *cpl)
{
	struct vfio_mp_admin a = {.cmd = *cmd, .timeout_us = timeout_us}, ra = {0};
	uint8_t dir = cmd->common.opcode & 0x3; /* 01b to the controller, 10b from it */
	struct request rq = {.type = VFIO_MP_ADMIN, .body = &a, .blen = sizeof(a), .fd = -1};
	void *back = NULL;
	int err;

	if (!dbuf) {
		nbytes = 0;
	}
	if (nbytes > UINT32_MAX) {
		return -EINVAL;
	}
	a.nbytes = (uint32_t)nbytes;
	/* as the single-process bounce buffer: copied to the controller and back unless the
	 * opcode says one direction only */
	a.flags = (nbytes && dir != 0x2 ? VFIO_MP_ADMIN_SEND : 0) |
		  (nbytes && dir != 0x1 ? VFIO_MP_ADMIN_RECV : 0);
	if (a.flags & VFIO_MP_ADMIN_SEND) {
		rq.payload = dbuf;
		rq.plen = nbytes;
	}
	rq.rbody = &ra;
	rq.rbody_len = sizeof(ra);
	if (a.flags & VFIO_MP_ADMIN_RECV) {
		/* both ways: the data comes back into a buffer of its own (see request()) */
		back = (a.flags & VFIO_MP_ADMIN_SEND) ? malloc(nbytes) : dbuf;
		if (!back) {
			return -ENOMEM;
		}
		rq.rpay = back;
		rq.rpay_cap = nbytes;
	}
	memset(cpl, 0, sizeof(*cpl));
	err = request(sec, &rq);
	if (!err) {
		*cpl = ra.cpl;
		err = ra.err;
		if (back != dbuf && rq.rpay_len) {
			memcpy(dbuf, back, rq.rpay_len);
		}
	}
	if (back != dbuf) {
		free(back);
	}
	return err;
}

int
vfio_sec_qid_get(struct vfio_sec *sec, uint16_t *qid)
{
	struct vfio_mp_queue q = {0};
	struct request rq = {
		.type = VFIO_MP_QID_GET, .fd = -1, .rbody = &q, .rbody_len = sizeof(q)};
	int err = request(sec, &rq);

	if (!err && (!q.qid || q.qid > sec->ctrl->max_qid)) {
		err = -EPROTO;
	}
	if (!err) {
		*qid = q.qid;
	}
	return err;
}

void
vfio_sec_qid_put(struct vfio_sec *sec, uint16_t qid)
{
	struct vfio_mp_queue q = {.qid = qid};
	struct request rq = {.type = VFIO_MP_QID_PUT, .body = &q, .blen = sizeof(q), .fd = -1};

	/* the primary frees the id when we are gone, too: nothing to do on failure */
	request(sec, &rq);
	if (qid < sec->nirq && sec->irq_fds[qid] >= 0) {
		close(sec->irq_fds[qid]);
		sec->irq_fds[qid] = -1;
	}
}

int
vfio_sec_irq_eventfd(struct vfio_sec *sec, uint16_t qid)
{
	if (qid >= sec->nirq) {
		return -EINVAL;
	}
	if (sec->irq_fds[qid] < 0) {
		sec->irq_fds[qid] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (sec->irq_fds[qid] < 0) {
			return -errno;
		}
	}
	return sec->irq_fds[qid];
}

int
vfio_sec_queue_create(struct vfio_sec *sec, struct vfio_qpair *qp)
{
	struct vfio_mp_queue q = {
		.qid = qp->qid,
		.qsize = qp->qsize,
		.cq_flags = qp->cq_flags,
		.cq_iova = qp->cq_iova,
		.sq_iova = qp->sq_iova,
	};
	struct vfio_mp_queue rq_reply = {0};
	struct request rq = {
		.type = VFIO_MP_QCREATE,
		.body = &q,
		.blen = sizeof(q),
		.fd = (qp->cq_flags & 0x2) ? sec->irq_fds[qp->qid] : -1,
		.rbody = &rq_reply,
		.rbody_len = sizeof(rq_reply),
	};
	int err = request(sec, &rq);

	if (!err) {
		qp->epoch = rq_reply.epoch;
	}
	return err;
}

int
vfio_sec_queue_delete(struct vfio_sec *sec, struct vfio_qpair *qp)
{
	struct vfio_mp_queue q = {.qid = qp->qid};
	struct request rq = {.type = VFIO_MP_QDELETE, .body = &q, .blen = sizeof(q), .fd = -1};

	return request(sec, &rq);
}

int
vfio_sec_reset(struct vfio_sec *sec, unsigned epoch, bool force)
{
	struct vfio_mp_reset r = {.epoch = epoch, .force = force}, reply = {0};
	struct request rq = {
		.type = VFIO_MP_RESET,
		.body = &r,
		.blen = sizeof(r),
		.fd = -1,
		.rbody = &reply,
		.rbody_len = sizeof(reply),
	};

	return request(sec, &rq);
}

/* dma.h grow: another IOVA window from the primary */
static int
sec_grow(void *arg, uint64_t len, uint64_t *start, uint64_t *end)
{
	struct vfio_sec *sec = arg;
	struct vfio_mp_window req = {.len = len}, w = {0};
	struct request rq = {
		.type = VFIO_MP_WINDOW,
		.body = &req,
		.blen = sizeof(req),
		.fd = -1,
		.rbody = &w,
		.rbody_len = sizeof(w),
	};
	int err = request(sec, &rq);

	if (!err && (w.end <= w.start || w.end - w.start < len)) {
		err = -EPROTO;
	}
	if (!err) {
		*start = w.start;
		*end = w.end;
	}
	return err;
}

/* Connects, says hello and receives the controller and the device's descriptors */
static int
hello(struct vfio_sec *sec, struct vfio_mp_info *info, int *fds, int *nfds, char *errmsg,
      size_t len)
{
	struct timeval tv = {.tv_sec = HELLO_TIMEOUT_S};
	struct vfio_mp_hello h = {.version = VFIO_MP_VERSION, .shm_id = sec->shm_id};
	struct vfio_mp_hdr hdr = {.magic = VFIO_MP_MAGIC, .type = VFIO_MP_HELLO, .seq = 1};
	struct sockaddr_un sa;
	socklen_t salen;
	int err;

	snprintf(h.bdf, sizeof(h.bdf), "%s", sec->bdf);
	vfio_mp_sockaddr(sec->shm_id, sec->bdf, &sa, &salen);
	sec->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sec->sock < 0) {
		err = -errno;
		snprintf(errmsg, len, "%s: cannot make a socket: %s", sec->bdf, strerror(-err));
		return err;
	}
	if (connect(sec->sock, (struct sockaddr *)&sa, salen)) {
		err = -errno;
		snprintf(errmsg, len,
			 "%s: no primary process serves it with shm id %x (%s): start one with "
			 "'xnvme-driver serve %s --shm-id %x'",
			 sec->bdf, sec->shm_id, strerror(-err), sec->bdf, sec->shm_id);
		return err == -ENOENT ? -ECONNREFUSED : err;
	}
	setsockopt(sec->sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	hdr.len = sizeof(h);
	err = vfio_mp_send(sec->sock, &hdr, &h, sizeof(h), NULL, 0, NULL, 0);
	if (!err) {
		err = vfio_mp_recv_hdr(sec->sock, &hdr, fds, nfds);
	}
	if (!err && (!(hdr.flags & VFIO_MP_F_REPLY) || hdr.type != VFIO_MP_HELLO)) {
		err = -EPROTO;
	}
	if (err) {
		snprintf(errmsg, len, "%s: the primary process (shm id %x) did not answer: %s",
			 sec->bdf, sec->shm_id, strerror(-err));
		return err;
	}
	if (hdr.err) {
		char msg[VFIO_MP_ERRMSG_LEN] = "";
		size_t n = hdr.len < sizeof(msg) - 1 ? hdr.len : sizeof(msg) - 1;

		if (!vfio_mp_recv_all(sec->sock, msg, n)) {
			msg[n] = '\0';
		}
		snprintf(errmsg, len, "%s: the primary process refused: %s", sec->bdf, msg);
		return hdr.err;
	}
	if (hdr.len != sizeof(*info) || vfio_mp_recv_all(sec->sock, info, sizeof(*info))) {
		snprintf(errmsg, len, "%s: the primary process sent no controller description",
			 sec->bdf);
		return -EPROTO;
	}
	tv.tv_sec = 0;
	setsockopt(sec->sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return 0;
}

/* The controller as the primary brought it up */
static int
ctrl_from_info(struct vfio_ctrl *ctrl, struct vfio_sec *sec, const struct vfio_mp_info *info)
{
	int err;

	ctrl->cap = info->cap;
	ctrl->dstrd = info->dstrd;
	ctrl->mqes = info->mqes;
	ctrl->page_shift = info->page_shift;
	ctrl->ready_timeout_us = info->ready_timeout_us;
	ctrl->admin_timeout_us = info->admin_timeout_us;
	ctrl->max_xfer = info->max_xfer;
	ctrl->prp_pages = info->prp_pages;
	ctrl->nioq = info->nioq;
	ctrl->max_qid = info->max_qid;
	ctrl->sgls = info->sgls;
	ctrl->acl = info->acl;
	ctrl->epoch = info->epoch;
	ctrl->failed = info->failed;
	ctrl->fail_err = EIO;
	ctrl->req_stop = -1;
	ctrl->ready = true;
	ctrl->remote = sec;
	memcpy(ctrl->idfy, info->idfy, sizeof(ctrl->idfy));
	pthread_mutex_init(&ctrl->admin_lock, NULL);
	pthread_mutex_init(&ctrl->qid_lock, NULL);
	err = vfio_dma_init_grown(&ctrl->dma, ctrl->bus, sec_grow, sec);
	if (err) {
		return err;
	}
	ctrl->dma.iova_align = 1ULL << ctrl->page_shift;
	return vfio_iova_put(&ctrl->dma.iova, info->win_start, info->win_end - info->win_start);
}

static void
sec_free(struct vfio_sec *sec)
{
	if (sec->sock >= 0) {
		close(sec->sock);
	}
	for (uint32_t q = 0; q < sec->nirq; ++q) {
		if (sec->irq_fds[q] >= 0) {
			close(sec->irq_fds[q]);
		}
	}
	free(sec->irq_fds);
	pthread_mutex_destroy(&sec->req_lock);
	pthread_mutex_destroy(&sec->lock);
	pthread_cond_destroy(&sec->cond);
	free(sec);
}

int
vfio_sec_attach(struct vfio_ctrl *ctrl, const char *bdf, uint32_t shm_id, vfio_bus_import_fn import,
		char *errmsg, size_t errmsg_len)
{
	struct vfio_sec *sec = calloc(1, sizeof(*sec));
	struct vfio_mp_info *info = calloc(1, sizeof(*info));
	int fds[VFIO_MP_MAXFDS], nfds = 0, err;
	pthread_condattr_t ca;
	sigset_t all, old;

	memset(ctrl, 0, sizeof(*ctrl));
	if (!sec || !info) {
		free(sec);
		free(info);
		return -ENOMEM;
	}
	sec->ctrl = ctrl;
	sec->sock = -1;
	sec->shm_id = shm_id;
	snprintf(sec->bdf, sizeof(sec->bdf), "%s", bdf);
	pthread_mutex_init(&sec->req_lock, NULL);
	pthread_mutex_init(&sec->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sec->cond, &ca);
	pthread_condattr_destroy(&ca);

	err = hello(sec, info, fds, &nfds, errmsg, errmsg_len);
	if (err) {
		for (int i = 0; i < nfds; ++i) {
			close(fds[i]);
		}
		goto fail;
	}
	if (info->version != VFIO_MP_VERSION || !info->max_qid) {
		for (int i = 0; i < nfds; ++i) {
			close(fds[i]);
		}
		snprintf(errmsg, errmsg_len, "%s: the primary speaks protocol version %u, not %u",
			 bdf, info->version, VFIO_MP_VERSION);
		err = -EPROTO;
		goto fail;
	}
	err = import(fds, nfds, info->bar_size, &ctrl->bus, errmsg, errmsg_len);
	if (err) {
		goto fail;
	}
	sec->primary_pid = info->primary_pid;
	/* a reply waits for the primary's serialised admin path: its timeout plus a reset */
	sec->reply_timeout_us =
		2 * (info->admin_timeout_us + 2 * info->ready_timeout_us) + 10000000;
	sec->irq_fds = malloc(((size_t)info->max_qid + 1) * sizeof(int));
	err = sec->irq_fds ? 0 : -ENOMEM;
	for (uint32_t q = 0; !err && q <= info->max_qid; ++q) {
		sec->irq_fds[q] = -1;
		sec->nirq = q + 1;
	}
	if (!err) {
		err = ctrl_from_info(ctrl, sec, info);
	}
	if (err) {
		snprintf(errmsg, errmsg_len, "%s: cannot set up the controller's DMA table: %s",
			 bdf, strerror(-err));
		goto fail_bus;
	}
	/* the application's signals are not delivered to the reader */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&sec->reader, NULL, reader_main, sec);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		snprintf(errmsg, errmsg_len, "%s: cannot start the socket reader: %s", bdf,
			 strerror(-err));
		vfio_dma_fini(&ctrl->dma);
		goto fail_bus;
	}
	sec->reader_started = true;
	free(info);
	return 0;

fail_bus:
	ctrl->bus->ops->destroy(ctrl->bus);
fail:
	free(info);
	sec_free(sec);
	memset(ctrl, 0, sizeof(*ctrl));
	return err;
}

void
vfio_sec_detach(struct vfio_ctrl *ctrl)
{
	struct vfio_sec *sec = ctrl->remote;

	/* our own mappings go first; the primary then reclaims the (empty) windows */
	vfio_dma_fini(&ctrl->dma);
	pthread_mutex_lock(&sec->lock);
	sec->detaching = true;
	pthread_mutex_unlock(&sec->lock);
	shutdown(sec->sock, SHUT_RDWR);
	if (sec->reader_started) {
		pthread_join(sec->reader, NULL);
	}
	ctrl->bus->ops->destroy(ctrl->bus);
	sec_free(sec);
	pthread_mutex_destroy(&ctrl->admin_lock);
	pthread_mutex_destroy(&ctrl->qid_lock);
	ctrl->remote = NULL;
}

int
vfio_sec_primary_pid(const struct vfio_ctrl *ctrl)
{
	return ctrl->remote ? ctrl->remote->primary_pid : 0;
}
