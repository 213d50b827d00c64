// SPDX-License-Identifier: BSD-3-Clause
/*
 * Fault handling of the controller (ctrl.h): a command that outlives its timeout is aborted and,
 * when the device keeps it anyway, the controller is reset; a removal requested by the OS makes
 * the driver let go of the device at once, from a thread of its own, so the removal never waits
 * for the application.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ctrl.h"

#define SETTLE_MAX_US 1000000

/* Sends Abort for command `cid` of queue `sqid`, waiting at most `timeout_us` for the answer */
static int
abort_cmd(struct vfio_ctrl *ctrl, uint16_t sqid, uint16_t cid, uint64_t timeout_us)
{
	struct xnvme_spec_cmd cmd = {0};
	struct xnvme_spec_cpl cpl;

	cmd.common.opcode = NVME_ADM_ABORT;
	cmd.common.ndt = (uint32_t)sqid | ((uint32_t)cid << 16);
	__atomic_add_fetch(&ctrl->aborts, 1, __ATOMIC_RELAXED);
	return vfio_ctrl_admin_timed(ctrl, &cmd, timeout_us, &cpl);
}

void
vfio_qpair_timeout_recovery(struct vfio_qpair *qp)
{
	struct vfio_ctrl *ctrl = qp->ctrl;
	uint64_t settle = qp->timeout_us < SETTLE_MAX_US ? qp->timeout_us : SETTLE_MAX_US;
	unsigned epoch = __atomic_load_n(&ctrl->epoch, __ATOMIC_ACQUIRE);
	uint32_t sent = 0;
	bool reset = false;
	uint64_t deadline;

	qp->recovering = true;
	for (uint32_t cid = 0; cid < qp->ncids; ++cid) {
		struct vfio_cid *c = &qp->cids[cid];

		if (c->state != VFIO_CID_ABANDONED || !c->abort) {
			continue;
		}
		c->abort = false;
		/* no more Aborts at once than the controller takes (ACL); the reset covers the rest */
		if (sent > ctrl->acl || abort_cmd(ctrl, qp->qid, (uint16_t)cid, settle)) {
			reset = true;
			break;
		}
		sent++;
	}
	/* settled: the device completed the command (aborted or not), and its CID is free */
	deadline = vfio_now_us() + settle;
	while (!reset && qp->abandoned && vfio_now_us() < deadline &&
	       !__atomic_load_n(&ctrl->failed, __ATOMIC_RELAXED)) {
		vfio_qpair_reap(qp, 0);
	}
	if ((reset || qp->abandoned) && !__atomic_load_n(&ctrl->failed, __ATOMIC_RELAXED)) {
		vfio_ctrl_reset_if(ctrl, epoch);
		vfio_qpair_recover(qp);
	}
	qp->recovering = false;
}

/* Waits for the request eventfd (or the stop eventfd) and lets go of the device */
static void *
removal_main(void *arg)
{
	struct vfio_ctrl *ctrl = arg;
	struct pollfd pfd[2] = {
		{.fd = ctrl->bus->ops->req_eventfd(ctrl->bus), .events = POLLIN},
		{.fd = ctrl->req_stop, .events = POLLIN},
	};

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR) {
				continue;
			}
			break;
		}
		if (pfd[1].revents) {
			break;
		}
		if (pfd[0].revents) {
			/* everything outstanding fails at the next poll (all-ones CSTS), nothing waits */
			__atomic_store_n(&ctrl->removed, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&ctrl->failed, 1, __ATOMIC_RELAXED);
			ctrl->bus->ops->release(ctrl->bus);
			break;
		}
	}
	return NULL;
}

int
vfio_ctrl_watch_removal(struct vfio_ctrl *ctrl)
{
	const struct vfio_bus_ops *ops = ctrl->bus->ops;
	sigset_t all, old;
	int err;

	if (!ops->req_eventfd || !ops->release || ops->req_eventfd(ctrl->bus) < 0) {
		return 0; /* the bus cannot tell: a removal then waits until the device is closed */
	}
	ctrl->req_stop = eventfd(0, EFD_CLOEXEC);
	if (ctrl->req_stop < 0) {
		return -errno;
	}
	/* the application's signals are not delivered to the driver's thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&ctrl->req_thread, NULL, removal_main, ctrl);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(ctrl->req_stop);
		ctrl->req_stop = -1;
		return -err;
	}
	return 0;
}

void
vfio_ctrl_unwatch_removal(struct vfio_ctrl *ctrl)
{
	uint64_t one = 1;

	if (ctrl->req_stop < 0) {
		return;
	}
	if (write(ctrl->req_stop, &one, sizeof(one)) != sizeof(one)) {
		/* an eventfd write only fails on overflow, which one write cannot reach */
	}
	pthread_join(ctrl->req_thread, NULL);
	close(ctrl->req_stop);
	ctrl->req_stop = -1;
}
