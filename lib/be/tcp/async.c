// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "tcp": each xnvme_queue is an NVMe I/O queue on a TCP connection of its
 * own. Submissions are queued in CID slots and written at the next poke (or once
 * XNVME_TCP_TX_EAGER PDUs wait), all waiting PDUs in one sendmsg.
 *
 * A poke never sleeps, so it may leave work that the socket's readability does not announce:
 * PDUs a full socket could not take (the target cannot answer before it has them), and PDUs
 * already received into the staging buffer when `max` stopped the poke. The completion fd is
 * therefore an epoll fd, made on first request: readable when the socket is, when the socket
 * can take queued PDUs (EPOLLOUT is registered only while some wait), and when a poke left
 * received PDUs behind (an eventfd, kicked only then). Callers wait for readability and poke.
 *
 * Deadlines: a silent target makes nothing readable, yet only a poke fails expired commands.
 * With a command timeout the epoll fd also holds a timerfd, armed a little after the earliest
 * deadline. Deadlines only grow with submission order, so a submission arms it only when it
 * is idle; the poke that finds it fired fails the connection if a deadline passed and re-arms
 * it to the earliest outstanding deadline, or disarms it. A timer left armed after the last
 * completion costs one wakeup whose poke returns 0: no timerfd_settime per command.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "tcp.h"

/* A queue's connection (first: queue->state is also the connection) and its completion fd */
struct tcp_aq {
	struct xnvme_tcp_conn conn;
	uint16_t qid;      ///< the NVMe queue ID of the connection
	int epfd;          ///< the completion fd, -1 until asked for
	int kickfd;        ///< eventfd in epfd: readable while a poke left received PDUs behind
	int timerfd;       ///< timerfd in epfd (with a command timeout): a deadline may have passed
	uint64_t timer_ns; ///< CLOCK_MONOTONIC time timerfd fires at; 0: disarmed (or drained)
	uint64_t slack_ns; ///< added to deadlines: the coarse clock they use lags the precise one
	bool out;          ///< EPOLLOUT registered for the socket
	bool kicked;       ///< kickfd holds a count
};

/* PDUs that may wait for a poke before a submission writes them itself */
#define XNVME_TCP_TX_EAGER 32
/* Before the timer's time, pokes that look whether it fired (by the precise clock) */
#define TIMER_WINDOW_NS (64ULL * 1000000ULL)

static void
async_complete(struct xnvme_tcp_conn *conn, struct xnvme_cmd_ctx *ctx)
{
	xnvme_queue_complete(conn->arg, ctx);
}

static int
tcp_async_init(struct xnvme_queue *queue, int opts)
{
	struct tcp_aq *aq;
	int err;

	(void)opts;
	aq = calloc(1, sizeof(*aq));
	if (!aq) {
		return -ENOMEM;
	}
	aq->epfd = -1;
	aq->kickfd = -1;
	aq->timerfd = -1;
	err = xnvme_nvmf_ioconn_open(queue->dev, &aq->conn, queue->capacity, &aq->qid);
	if (err) {
		free(aq);
		return err;
	}
	aq->conn.complete = async_complete;
	aq->conn.arg = queue;
	queue->state = aq;
	return 0;
}

static void
fd_close(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
	}
	*fd = -1;
}

static int
tcp_async_term(struct xnvme_queue *queue)
{
	struct tcp_aq *aq = queue->state;

	if (aq) {
		xnvme_nvmf_ioconn_close(queue->dev, &aq->conn, aq->qid);
		fd_close(&aq->epfd);
		fd_close(&aq->kickfd);
		fd_close(&aq->timerfd);
		free(aq);
		queue->state = NULL;
	}
	return 0;
}

/* Arms the timerfd to fire at `at_ns` (CLOCK_MONOTONIC), 0 disarms; a failure stays idle */
static void
timer_set(struct tcp_aq *aq, uint64_t at_ns)
{
	struct itimerspec its = {.it_value = {.tv_sec = (time_t)(at_ns / 1000000000ULL),
					      .tv_nsec = (long)(at_ns % 1000000000ULL)}};

	aq->timer_ns = timerfd_settime(aq->timerfd, TFD_TIMER_ABSTIME, &its, NULL) ? 0 : at_ns;
}

/* Arms the timer for the earliest outstanding deadline (one already past fires at once) */
static void
timer_rearm(struct tcp_aq *aq)
{
	struct xnvme_tcp_conn *conn = &aq->conn;
	uint64_t earliest = UINT64_MAX;

	for (uint32_t cid = 0; cid < conn->lim.ncmds && conn->nactive && !conn->err; ++cid) {
		if (conn->st[cid].active && conn->slots[cid].deadline_ns < earliest) {
			earliest = conn->slots[cid].deadline_ns;
		}
	}
	if (earliest == UINT64_MAX) {
		timer_set(aq, 0);
		return;
	}
	timer_set(aq, earliest + aq->slack_ns);
}

/* After a poke: make the completion fd tell what the socket alone would not */
static void
arm(struct tcp_aq *aq, uint32_t max, int ret)
{
	struct xnvme_tcp_conn *conn = &aq->conn;
	bool out = !conn->err && conn->txq_head != conn->txq_tail;

	if (out != aq->out && conn->fd >= 0) {
		struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0)};

		if (!epoll_ctl(aq->epfd, EPOLL_CTL_MOD, conn->fd, &ev)) {
			aq->out = out;
		}
	}
	/* `max` stopped the poke with PDUs in the staging buffer: no new bytes will say so */
	if (max && ret == (int)max && conn->rxb_head != conn->rxb_tail && !aq->kicked) {
		uint64_t one = 1;

		aq->kicked = write(aq->kickfd, &one, sizeof(one)) == sizeof(one);
	}
}

static int
tcp_async_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct tcp_aq *aq = queue->state;
	uint64_t now = 0;
	int ret;

	if (XNVME_BE_UNLIKELY(xnvme_be_poke_skip(queue))) {
		return 0;
	}
	if (XNVME_BE_UNLIKELY(aq->kicked)) {
		uint64_t count;

		aq->kicked = read(aq->kickfd, &count, sizeof(count)) != sizeof(count);
	}
	/*
	 * The coarse clock lags the precise one by a tick or more (a busy machine): only within
	 * TIMER_WINDOW_NS of the timer's time does a poke read the precise clock
	 */
	if (aq->timer_ns &&
	    XNVME_BE_UNLIKELY(xnvme_nvmf_coarse_ns() + TIMER_WINDOW_NS >= aq->timer_ns)) {
		now = xnvme_nvmf_now_ns();
		now = now >= aq->timer_ns ? now : 0;
	}
	ret = xnvme_tcp_conn_poke(&aq->conn, max);
	if (XNVME_BE_UNLIKELY(now)) {
		uint32_t before = aq->conn.ncompleted;

		/* the timer fired: judge deadlines by the precise clock, not the lagging coarse one */
		if (!aq->conn.err) {
			xnvme_tcp_conn_expire(&aq->conn, now);
			ret += (int)(aq->conn.ncompleted - before); /* alive: ret was >= 0 */
		}
		timer_rearm(aq); /* timerfd_settime also clears the expiration */
	} else if (XNVME_BE_UNLIKELY(aq->timer_ns && aq->conn.err)) {
		timer_set(aq, 0);
	}
	if (aq->epfd >= 0) {
		arm(aq, max, ret);
	}
	return ret;
}

/* Rule 4: the command is already counted, a refusal takes the count back */
static int
submit(struct xnvme_cmd_ctx *ctx, void *dbuf, struct iovec *dvec, size_t dvec_cnt, size_t nbytes,
       void *mbuf, size_t mbuf_nbytes)
{
	struct tcp_aq *aq = ctx->async.queue->state;
	struct xnvme_tcp_conn *conn = &aq->conn;
	int err;

	if (XNVME_BE_UNLIKELY(dvec_cnt > XNVME_TCP_IOV_MAX)) {
		return xnvme_be_cmd_refused(ctx, -EINVAL);
	}
	err = xnvme_tcp_conn_submit(conn, ctx, dbuf, dvec, (uint32_t)dvec_cnt, nbytes, mbuf,
				    mbuf_nbytes);
	if (err) {
		return xnvme_be_cmd_refused(ctx, err);
	}
	/* an armed timer fires no later than this command's deadline needs: leave it */
	if (XNVME_BE_UNLIKELY(aq->timerfd >= 0 && !aq->timer_ns)) {
		timer_set(aq, xnvme_nvmf_coarse_ns() + conn->timeout_ns + aq->slack_ns);
	}
	if (conn->txq_tail - conn->txq_head >= XNVME_TCP_TX_EAGER) {
		xnvme_tcp_conn_flush(conn);
	}
	return 0;
}

static int
tcp_async_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	     size_t mbuf_nbytes)
{
	return submit(ctx, dbuf, NULL, 0, dbuf_nbytes, mbuf, mbuf_nbytes);
}

static int
tcp_async_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	      void *mbuf, size_t mbuf_nbytes)
{
	return submit(ctx, NULL, dvec, dvec_cnt, dvec_nbytes, mbuf, mbuf_nbytes);
}

/*
 * Two ticks of the coarse clock that deadlines are taken from, + 1 ms: it lags the precise
 * clock by about a tick, so the timer fires no earlier than the command timeout after the
 * submission (measured with the precise clock)
 */
static uint64_t
coarse_slack_ns(void)
{
	struct timespec res = {.tv_nsec = 10000000};

#ifdef CLOCK_MONOTONIC_COARSE
	clock_getres(CLOCK_MONOTONIC_COARSE, &res);
#endif
	return 2 * ((uint64_t)res.tv_sec * 1000000000ULL + (uint64_t)res.tv_nsec) + 1000000ULL;
}

static int
tcp_async_fd(struct xnvme_queue *queue)
{
	struct tcp_aq *aq = queue->state;
	struct epoll_event ev = {.events = EPOLLIN};
	int err;

	if (aq->epfd >= 0) {
		return aq->epfd;
	}
	if (aq->conn.fd < 0) {
		return -ENOTCONN;
	}
	aq->epfd = epoll_create1(EPOLL_CLOEXEC);
	aq->kickfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (aq->conn.timeout_ns) {
		aq->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	}
	if (aq->epfd < 0 || aq->kickfd < 0 || epoll_ctl(aq->epfd, EPOLL_CTL_ADD, aq->kickfd, &ev) ||
	    epoll_ctl(aq->epfd, EPOLL_CTL_ADD, aq->conn.fd, &ev) ||
	    (aq->conn.timeout_ns &&
	     (aq->timerfd < 0 || epoll_ctl(aq->epfd, EPOLL_CTL_ADD, aq->timerfd, &ev)))) {
		err = -errno;
		fd_close(&aq->epfd);
		fd_close(&aq->kickfd);
		fd_close(&aq->timerfd);
		return err;
	}
	aq->out = false;
	aq->kicked = false;
	aq->timer_ns = 0;
	aq->slack_ns = coarse_slack_ns();
	arm(aq, 0, 0); /* PDUs may already wait for room */
	if (aq->timerfd >= 0 && aq->conn.nactive) {
		timer_rearm(aq); /* commands submitted before the fd was asked for */
	}
	return aq->epfd;
}

const struct xnvme_be_async xnvme_be_tcp_async = {
	.name = "tcp",
	.check_support = xnvme_be_tcp_check_support,
	.init = tcp_async_init,
	.term = tcp_async_term,
	.poke = tcp_async_poke,
	.cmd_io = tcp_async_io,
	.cmd_iov = tcp_async_iov,
	.get_completion_fd = tcp_async_fd,
};
