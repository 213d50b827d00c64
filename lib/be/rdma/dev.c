// SPDX-License-Identifier: BSD-3-Clause
/*
 * Per device handle (ctrlr->tstate): the RDMA device its connections use (the one the first
 * connection's route resolved to; later ones must resolve to the same, since buffers are
 * registered with one protection domain), the registration table, and the monitor.
 *
 * The monitor is a thread that sleeps in epoll_wait on the event channels of the handle's
 * connections. On DISCONNECTED (the target went away, e.g. its port was removed) or
 * DEVICE_REMOVAL (the local RDMA device is being removed) it aborts the connection: the QP
 * goes to the error state, which flushes every work request, so a caller waiting on the
 * completion channel wakes and the next poke fails the commands. Every tick it also aborts,
 * with ETIMEDOUT, a connection that has had commands outstanding and no progress for longer
 * than the command timeout: pokes check deadlines themselves, but a caller blocked on the
 * completion fd of a silent target makes no pokes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rdma.h"

#define TICK_MAX_MS 100U
#define TICK_MIN_MS 10U
#define MON_EVENTS 16

static bool
listed(const struct xnvme_rdma_dev *rd, const struct xnvme_rdma_conn *conn)
{
	for (const struct xnvme_rdma_conn *c = rd->conns; c; c = c->mon_next) {
		if (c == conn) {
			return true;
		}
	}
	return false;
}

static void
cm_events(struct xnvme_rdma_conn *conn)
{
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(conn->ech, &ev)) {
		switch (ev->event) {
		case RDMA_CM_EVENT_DISCONNECTED:
			xnvme_rdma_conn_abort(conn, -ECONNRESET);
			break;
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			xnvme_rdma_conn_abort(conn, -ENODEV);
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
	}
}

static void
watchdog(struct xnvme_rdma_dev *rd)
{
	uint64_t now = xnvme_nvmf_coarse_ns();

	for (struct xnvme_rdma_conn *c = rd->conns; c; c = c->mon_next) {
		uint64_t stamp = atomic_load_explicit(&c->wd_stamp, memory_order_relaxed);
		uint64_t timeout = atomic_load_explicit(&c->wd_timeout, memory_order_relaxed);

		if (timeout && atomic_load_explicit(&c->wd_active, memory_order_relaxed) &&
		    now > stamp + timeout + rd->tick_ms * 1000000ULL) {
			xnvme_rdma_conn_abort(c, -ETIMEDOUT);
		}
	}
}

static void *
mon_main(void *arg)
{
	struct xnvme_rdma_dev *rd = arg;
	bool stop = false;

	while (!stop) {
		struct epoll_event ev[MON_EVENTS];
		int n = epoll_wait(rd->epfd, ev, MON_EVENTS, (int)rd->tick_ms);

		pthread_mutex_lock(&rd->lock);
		for (int i = 0; i < n; ++i) {
			struct xnvme_rdma_conn *conn = ev[i].data.ptr;

			if (!conn) {
				stop = true;
			} else if (listed(rd, conn)) {
				cm_events(conn);
			}
		}
		watchdog(rd);
		pthread_mutex_unlock(&rd->lock);
	}
	return NULL;
}

int
xnvme_rdma_mon_add(struct xnvme_rdma_dev *rd, struct xnvme_rdma_conn *conn)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = conn};
	int err = 0;

	atomic_store_explicit(&conn->wd_stamp, xnvme_nvmf_coarse_ns(), memory_order_relaxed);
	pthread_mutex_lock(&rd->lock);
	if (epoll_ctl(rd->epfd, EPOLL_CTL_ADD, conn->ech->fd, &ev)) {
		err = -errno;
	} else {
		conn->mon_next = rd->conns;
		rd->conns = conn;
	}
	pthread_mutex_unlock(&rd->lock);
	return err;
}

void
xnvme_rdma_mon_del(struct xnvme_rdma_dev *rd, struct xnvme_rdma_conn *conn)
{
	pthread_mutex_lock(&rd->lock);
	for (struct xnvme_rdma_conn **p = &rd->conns; *p; p = &(*p)->mon_next) {
		if (*p == conn) {
			*p = conn->mon_next;
			epoll_ctl(rd->epfd, EPOLL_CTL_DEL, conn->ech->fd, NULL);
			break;
		}
	}
	conn->mon_next = NULL;
	pthread_mutex_unlock(&rd->lock);
}

int
xnvme_rdma_dev_attach(struct xnvme_rdma_dev *rd, struct ibv_context *verbs, char *errmsg,
		      size_t errmsg_len)
{
	struct ibv_device_attr attr;
	int err = 0;

	pthread_mutex_lock(&rd->lock);
	if (rd->verbs) {
		if (verbs != rd->verbs) {
			err = -EXDEV;
			snprintf(errmsg, errmsg_len,
				 "the target is reached through RDMA device %s and %s: a handle "
				 "uses one",
				 ibv_get_device_name(rd->verbs->device),
				 ibv_get_device_name(verbs->device));
		}
		goto out;
	}
	if (ibv_query_device(verbs, &attr)) {
		err = -EIO;
		snprintf(errmsg, errmsg_len, "ibv_query_device: %s", strerror(errno));
		goto out;
	}
	rd->pd = ibv_alloc_pd(verbs);
	if (!rd->pd) {
		err = errno ? -errno : -ENOMEM;
		snprintf(errmsg, errmsg_len, "ibv_alloc_pd: %s", strerror(-err));
		goto out;
	}
	rd->verbs = verbs;
	rd->max_qp_rd_atom = (uint32_t)attr.max_qp_rd_atom;
	rd->mw = rd->mw && (attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B);
out:
	pthread_mutex_unlock(&rd->lock);
	return err;
}

int
xnvme_rdma_dev_init(struct xnvme_nvmf_ctrlr *ctrlr)
{
	struct xnvme_rdma_dev *rd = calloc(1, sizeof(*rd));
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
	uint64_t min_us = ctrlr->tgt.io_timeout_us;
	int err;

	if (!rd) {
		return -ENOMEM;
	}
	pthread_mutex_init(&rd->lock, NULL);
	pthread_rwlock_init(&rd->mrs.lock, NULL);
	rd->mw = !ctrlr->tgt.rdma_nomw; /* and if the device has them: dev_attach() */
	rd->max_inline = 64;
	if (ctrlr->tgt.admin_timeout_us && (!min_us || ctrlr->tgt.admin_timeout_us < min_us)) {
		min_us = ctrlr->tgt.admin_timeout_us;
	}
	/* a quarter of the shortest timeout, within [TICK_MIN_MS, TICK_MAX_MS] */
	rd->tick_ms = min_us ? min_us / 4000 : TICK_MAX_MS;
	rd->tick_ms = rd->tick_ms < TICK_MIN_MS ? TICK_MIN_MS : rd->tick_ms;
	rd->tick_ms = rd->tick_ms > TICK_MAX_MS ? TICK_MAX_MS : rd->tick_ms;
	rd->epfd = epoll_create1(EPOLL_CLOEXEC);
	rd->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (rd->epfd < 0 || rd->stopfd < 0 || epoll_ctl(rd->epfd, EPOLL_CTL_ADD, rd->stopfd, &ev)) {
		err = -errno;
		goto fail;
	}
	err = -pthread_create(&rd->mon, NULL, mon_main, rd);
	if (err) {
		goto fail;
	}
	rd->mon_running = true;
	ctrlr->tstate = rd;
	return 0;
fail:
	if (rd->epfd >= 0) {
		close(rd->epfd);
	}
	if (rd->stopfd >= 0) {
		close(rd->stopfd);
	}
	pthread_rwlock_destroy(&rd->mrs.lock);
	pthread_mutex_destroy(&rd->lock);
	free(rd);
	return err;
}

void
xnvme_rdma_dev_fini(struct xnvme_nvmf_ctrlr *ctrlr)
{
	struct xnvme_rdma_dev *rd = ctrlr->tstate;
	uint64_t one = 1;

	if (!rd) {
		return;
	}
	if (rd->mon_running && write(rd->stopfd, &one, sizeof(one)) == sizeof(one)) {
		pthread_join(rd->mon, NULL);
	}
	xnvme_rdma_mr_fini(rd);
	if (rd->pd) {
		ibv_dealloc_pd(rd->pd);
	}
	close(rd->epfd);
	close(rd->stopfd);
	pthread_rwlock_destroy(&rd->mrs.lock);
	pthread_mutex_destroy(&rd->lock);
	free(rd);
	ctrlr->tstate = NULL;
}
