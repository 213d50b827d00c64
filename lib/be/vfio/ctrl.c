// SPDX-License-Identifier: BSD-3-Clause
/*
 * Controller bring-up and teardown over the abstract bus (ctrl.h), and the waiting execution
 * of single commands used by the admin and sync paths.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctrl.h"
#include "mp_secondary.h"

#define ADMIN_QSIZE 32
#define MAX_XFER_DEFAULT (2u << 20)

struct exec_waiter {
	int done;
	struct xnvme_spec_cpl cpl;
};

void
vfio_exec_cb(void *arg, const struct xnvme_spec_cpl *cpl)
{
	struct exec_waiter *w = arg;

	w->cpl = *cpl;
	w->done = 1;
}

int
vfio_ctrl_check_fatal(struct vfio_ctrl *ctrl)
{
	uint32_t csts;

	if (__atomic_load_n(&ctrl->failed, __ATOMIC_RELAXED)) {
		return 1;
	}
	csts = vfio_bus_read32(ctrl->bus, NVME_REG_CSTS);
	if (csts == UINT32_MAX || (csts & NVME_CSTS_CFS)) {
		__atomic_store_n(&ctrl->failed, 1, __ATOMIC_RELAXED);
		return 1;
	}
	return 0;
}

/* Submits, rings and polls until the command completes, times out or the controller fails */
static int
exec_wait(struct vfio_qpair *qp, const struct xnvme_spec_cmd *cmd, const struct iovec *dvec,
	  size_t dvec_cnt, void *mbuf, size_t mbuf_nbytes, const uint64_t *raw_prp1,
	  struct xnvme_spec_cpl *cpl)
{
	struct exec_waiter w = {0};
	int err;

	err = vfio_qpair_submit(qp, cmd, dvec, dvec_cnt, mbuf, mbuf_nbytes, &w);
	if (err) {
		return err;
	}
	if (raw_prp1) {
		/* queue creation: the address is a ring of the driver, not a payload */
		uint32_t last = qp->sq_tail ? qp->sq_tail - 1 : qp->qsize - 1;

		qp->sq[last].common.dptr.prp.prp1 = *raw_prp1;
	}
	vfio_qpair_ring(qp);
	while (!w.done) {
		vfio_qpair_reap(qp, 0);
	}
	*cpl = w.cpl;
	if (cpl->status.sct == XNVME_STATUS_CODE_TYPE_VENDOR && cpl->status.dnr &&
	    (cpl->status.sc == ETIMEDOUT || cpl->status.sc == EIO || cpl->status.sc == ECANCELED ||
	     cpl->status.sc == ENOTCONN)) {
		return -(int)cpl->status.sc;
	}
	return (cpl->status.sc || cpl->status.sct) ? -EIO : 0;
}

int
vfio_qpair_exec(struct vfio_qpair *qp, const struct xnvme_spec_cmd *cmd, const struct iovec *dvec,
		size_t dvec_cnt, void *mbuf, size_t mbuf_nbytes, struct xnvme_spec_cpl *cpl)
{
	return exec_wait(qp, cmd, dvec, dvec_cnt, mbuf, mbuf_nbytes, NULL, cpl);
}

static int
admin_raw(struct vfio_ctrl *ctrl, const struct xnvme_spec_cmd *cmd, const struct iovec *dvec,
	  size_t dvec_cnt, struct xnvme_spec_cpl *cpl)
{
	int err;

	pthread_mutex_lock(&ctrl->admin_lock);
	err = exec_wait(ctrl->adminq, cmd, dvec, dvec_cnt, NULL, 0, NULL, cpl);
	pthread_mutex_unlock(&ctrl->admin_lock);
	return err;
}

int
vfio_ctrl_admin_timed(struct vfio_ctrl *ctrl, const struct xnvme_spec_cmd *cmd, uint64_t timeout_us,
		      struct xnvme_spec_cpl *cpl)
{
	uint64_t saved;
	int err;

	if (ctrl->remote) {
		return vfio_sec_admin(ctrl->remote, cmd, NULL, 0, timeout_us, cpl);
	}
	pthread_mutex_lock(&ctrl->admin_lock);
	saved = ctrl->adminq->timeout_us;
	ctrl->adminq->timeout_us = timeout_us;
	err = exec_wait(ctrl->adminq, cmd, NULL, 0, NULL, 0, NULL, cpl);
	ctrl->adminq->timeout_us = saved;
	pthread_mutex_unlock(&ctrl->admin_lock);
	return err;
}

int
vfio_ctrl_admin_ring_locked(struct vfio_ctrl *ctrl, const struct xnvme_spec_cmd *cmd,
			    const uint64_t *ring, struct xnvme_spec_cpl *cpl)
{
	return exec_wait(ctrl->adminq, cmd, NULL, 0, NULL, 0, ring, cpl);
}

int
vfio_ctrl_admin(struct vfio_ctrl *ctrl, const struct xnvme_spec_cmd *cmd, void *dbuf,
		size_t dbuf_nbytes, struct xnvme_spec_cpl *cpl)
{
	struct iovec iov = {.iov_base = dbuf, .iov_len = dbuf ? dbuf_nbytes : 0};
	uint64_t iova;
	void *bounce;
	int err;

	if (ctrl->remote) {
		return vfio_sec_admin(ctrl->remote, cmd, dbuf, dbuf_nbytes, 0, cpl);
	}
	if (!dbuf || !dbuf_nbytes ||
	    !vfio_dma_xlate_slow(&ctrl->dma, &(struct vfio_dma_cache){0}, dbuf, dbuf_nbytes,
				 &iova)) {
		return admin_raw(ctrl, cmd, &iov, 1, cpl);
	}
	/* admin payloads in ordinary memory go through a bounce buffer (not a hot path) */
	bounce = vfio_dma_alloc(&ctrl->dma, dbuf_nbytes, NULL);
	if (!bounce) {
		return -errno;
	}
	memcpy(bounce, dbuf, dbuf_nbytes);
	iov.iov_base = bounce;
	err = admin_raw(ctrl, cmd, &iov, 1, cpl);
	if (err != -ETIMEDOUT && err != -EIO) {
		memcpy(dbuf, bounce, dbuf_nbytes);
	}
	/* a command the device still owns keeps its memory: never freed, never reused */
	if (err != -ETIMEDOUT) {
		vfio_dma_free(&ctrl->dma, bounce);
	}
	return err;
}

/* Polls CSTS until (CSTS & mask) == val; -ETIMEDOUT, -ENODEV (all-ones) or -EIO (CFS) */
static int
wait_csts(struct vfio_ctrl *ctrl, uint32_t mask, uint32_t val, uint64_t timeout_us, bool cfs_fatal)
{
	uint64_t deadline = vfio_now_us() + timeout_us;

	for (;;) {
		uint32_t csts = vfio_bus_read32(ctrl->bus, NVME_REG_CSTS);

		if (csts == UINT32_MAX) {
			return -ENODEV;
		}
		if (cfs_fatal && (csts & NVME_CSTS_CFS)) {
			return -EIO;
		}
		if ((csts & mask) == val) {
			return 0;
		}
		if (vfio_now_us() > deadline) {
			return -ETIMEDOUT;
		}
		usleep(100);
	}
}

static uint32_t
pick_css(const struct vfio_ctrl *ctrl, const struct vfio_ctrl_opts *opts)
{
	uint32_t css = NVME_CAP_CSS(ctrl->cap);

	if (opts->css_given) {
		return opts->css & 0x7;
	}
	if (css & NVME_CAP_CSS_IOCS) {
		return NVME_CC_CSS_ALL;
	}
	if (css & NVME_CAP_CSS_NVM) {
		return NVME_CC_CSS_NVM;
	}
	return 7; /* admin command set only */
}

/* Disables the controller if enabled, then enables it with the admin queue and `ctrl->cc` */
static int
ctrl_enable(struct vfio_ctrl *ctrl, char *errmsg, size_t len)
{
	uint32_t cc = vfio_bus_read32(ctrl->bus, NVME_REG_CC);
	uint32_t aqa = ((ctrl->adminq->qsize - 1) << 16) | (ctrl->adminq->qsize - 1);
	int err;

	if (cc & NVME_CC_EN) {
		vfio_bus_write32(ctrl->bus, NVME_REG_CC, cc & ~NVME_CC_EN);
	}
	err = wait_csts(ctrl, NVME_CSTS_RDY, 0, ctrl->ready_timeout_us, false);
	if (err) {
		snprintf(errmsg, len, "controller did not become disabled within CAP.TO (%llu ms)",
			 (unsigned long long)ctrl->ready_timeout_us / 1000);
		return err;
	}
	vfio_bus_write32(ctrl->bus, NVME_REG_AQA, aqa);
	vfio_bus_write64(ctrl->bus, NVME_REG_ASQ, ctrl->adminq->sq_iova);
	vfio_bus_write64(ctrl->bus, NVME_REG_ACQ, ctrl->adminq->cq_iova);
	vfio_bus_write32(ctrl->bus, NVME_REG_CC, ctrl->cc);
	err = wait_csts(ctrl, NVME_CSTS_RDY, NVME_CSTS_RDY, ctrl->ready_timeout_us, true);
	if (err) {
		snprintf(errmsg, len, "controller did not become ready within CAP.TO (%llu ms): %s",
			 (unsigned long long)ctrl->ready_timeout_us / 1000,
			 err == -EIO ? "fatal status (CSTS.CFS)" : strerror(-err));
	}
	return err;
}

/* Identify Controller; MDTS (units of CAP.MPSMIN pages) bounds the transfer size */
static int
ctrl_identify(struct vfio_ctrl *ctrl)
{
	struct xnvme_spec_cmd cmd = {0};
	struct xnvme_spec_cpl cpl;
	uint8_t mdts;
	int err;

	cmd.common.opcode = NVME_ADM_IDENTIFY;
	cmd.common.ndt = 1; /* CNS 1: controller */
	err = vfio_ctrl_admin(ctrl, &cmd, ctrl->idfy, sizeof(ctrl->idfy), &cpl);
	if (err) {
		return err;
	}
	ctrl->acl = ctrl->idfy[258];
	ctrl->sgls = ctrl->idfy[536] & 0x3;
	if (ctrl->sgls == 3) {
		ctrl->sgls = 0; /* reserved value */
	}
	mdts = ctrl->idfy[77];
	if (mdts && mdts < 20) {
		uint64_t lim = (uint64_t)1 << (mdts + 12 + NVME_CAP_MPSMIN(ctrl->cap));

		if (lim < ctrl->max_xfer) {
			ctrl->max_xfer = (uint32_t)lim;
		}
	}
	ctrl->adminq->max_xfer = ctrl->max_xfer;
	return 0;
}

static int
ctrl_num_queues(struct vfio_ctrl *ctrl, uint16_t want)
{
	struct xnvme_spec_cmd cmd = {0};
	struct xnvme_spec_cpl cpl;
	uint32_t nsq, ncq;
	int err;

	cmd.common.opcode = NVME_ADM_SET_FEATURES;
	cmd.common.ndt = NVME_FEAT_NUM_QUEUES;
	cmd.common.ndm = (uint32_t)(want - 1) | ((uint32_t)(want - 1) << 16);
	ctrl->nioq_want = want;
	err = vfio_ctrl_admin(ctrl, &cmd, NULL, 0, &cpl);
	if (err) {
		return err;
	}
	nsq = (cpl.cdw0 & 0xFFFF) + 1;
	ncq = (cpl.cdw0 >> 16) + 1;
	ctrl->nioq = (uint16_t)(nsq < ncq ? nsq : ncq);
	if (ctrl->nioq > want) {
		ctrl->nioq = want;
	}
	ctrl->qid_used = calloc((size_t)ctrl->nioq + 1, 1);
	return ctrl->qid_used ? 0 : -ENOMEM;
}

/* Reads CAP and derives the limits the rest of the driver works with */
static int
ctrl_caps(struct vfio_ctrl *ctrl, const struct vfio_ctrl_opts *opts, char *errmsg, size_t len)
{
	uint32_t per_page, pages;
	uint64_t slots;

	ctrl->cap = vfio_bus_read64(ctrl->bus, NVME_REG_CAP);
	if (ctrl->cap == UINT64_MAX) {
		snprintf(errmsg, len, "BAR0 reads all-ones: the device is gone or not responding");
		return -ENODEV;
	}
	if (NVME_CAP_MPSMIN(ctrl->cap) > 4) {
		snprintf(errmsg, len, "CAP.MPSMIN %u (page size > 64 KiB) is not supported",
			 NVME_CAP_MPSMIN(ctrl->cap));
		return -ENOTSUP;
	}
	ctrl->mqes = NVME_CAP_MQES(ctrl->cap) + 1;
	ctrl->dstrd = 4u << NVME_CAP_DSTRD(ctrl->cap);
	/* the CQ doorbell of queue q is the 4 bytes at NVME_REG_DBS + (2q + 1) * dstrd */
	slots = ctrl->bus->bar_size > NVME_REG_DBS + 4
			? (ctrl->bus->bar_size - NVME_REG_DBS - 4) / ctrl->dstrd + 1
			: 0;
	if (slots < 4) {
		snprintf(errmsg, len,
			 "BAR0 (%llu bytes) cannot hold the doorbells of an I/O queue with a "
			 "stride of %u bytes (CAP.DSTRD %u)",
			 (unsigned long long)ctrl->bus->bar_size, ctrl->dstrd,
			 NVME_CAP_DSTRD(ctrl->cap));
		return -ENOTSUP;
	}
	ctrl->max_qid = (uint16_t)((slots / 2 - 1) < UINT16_MAX ? slots / 2 - 1 : UINT16_MAX);
	ctrl->page_shift = 12 + NVME_CAP_MPSMIN(ctrl->cap);
	ctrl->dma.iova_align = 1ULL << ctrl->page_shift;
	ctrl->ready_timeout_us =
		(uint64_t)(NVME_CAP_TO(ctrl->cap) ? NVME_CAP_TO(ctrl->cap) : 1) * 500000;
	ctrl->admin_timeout_us = opts->admin_timeout_us ? opts->admin_timeout_us : 60000000;
	ctrl->max_xfer = opts->max_xfer_cap ? opts->max_xfer_cap : MAX_XFER_DEFAULT;
	ctrl->max_xfer &= ~((1u << ctrl->page_shift) - 1);
	if (ctrl->max_xfer < (1u << ctrl->page_shift)) {
		ctrl->max_xfer = 1u << ctrl->page_shift;
	}
	per_page = (1u << ctrl->page_shift) / 8;
	pages = (ctrl->max_xfer >> ctrl->page_shift) + 1; /* an unaligned start spans one more */
	ctrl->prp_pages = pages > 1 ? (pages - 2) / (per_page - 1) + 1 : 1;
	return 0;
}

int
vfio_ctrl_init(struct vfio_ctrl *ctrl, struct vfio_bus *bus, const struct vfio_ctrl_opts *opts,
	       char *errmsg, size_t errmsg_len)
{
	int err;

	memset(ctrl, 0, sizeof(*ctrl));
	ctrl->bus = bus;
	ctrl->req_stop = -1;
	pthread_mutex_init(&ctrl->admin_lock, NULL);
	pthread_mutex_init(&ctrl->qid_lock, NULL);
	ctrl->fail_err = EIO;
	err = opts->dma_grow
		      ? vfio_dma_init_grown(&ctrl->dma, bus, opts->dma_grow, opts->dma_grow_arg)
		      : vfio_dma_init(&ctrl->dma, bus);
	if (err) {
		return err;
	}
	err = ctrl_caps(ctrl, opts, errmsg, errmsg_len);
	if (err) {
		goto fail;
	}
	ctrl->adminq =
		vfio_qpair_alloc(ctrl, 0, ADMIN_QSIZE < ctrl->mqes ? ADMIN_QSIZE : ctrl->mqes,
				 vfio_exec_cb, ctrl->admin_timeout_us);
	if (!ctrl->adminq) {
		err = -errno;
		snprintf(errmsg, errmsg_len, "cannot allocate the admin queue: %s",
			 strerror(errno));
		goto fail;
	}
	ctrl->cc = NVME_CC_EN | (pick_css(ctrl, opts) << NVME_CC_CSS_SHIFT) |
		   ((ctrl->page_shift - 12) << NVME_CC_MPS_SHIFT) | NVME_CC_IOSQES | NVME_CC_IOCQES;
	err = ctrl_enable(ctrl, errmsg, errmsg_len);
	if (err) {
		goto fail;
	}
	err = ctrl_identify(ctrl);
	if (!err) {
		uint16_t want = opts->io_queues ? opts->io_queues : 64;

		/* no more queues than BAR0 has doorbells for */
		err = ctrl_num_queues(ctrl, want < ctrl->max_qid ? want : ctrl->max_qid);
	}
	if (err) {
		snprintf(errmsg, errmsg_len, "controller bring-up (identify, number of queues): %s",
			 strerror(-err));
		goto fail;
	}
	err = vfio_ctrl_watch_removal(ctrl);
	if (err) {
		snprintf(errmsg, errmsg_len, "cannot watch for device removal: %s", strerror(-err));
		goto fail;
	}
	ctrl->ready = true;
	return 0;

fail:
	vfio_ctrl_fini(ctrl);
	return err;
}

void
vfio_ctrl_fini(struct vfio_ctrl *ctrl)
{
	uint32_t cc;

	vfio_ctrl_unwatch_removal(ctrl);
	if (ctrl->adminq && !vfio_ctrl_check_fatal(ctrl)) {
		/* orderly shutdown, then disable, so the kernel driver can take the device back */
		cc = vfio_bus_read32(ctrl->bus, NVME_REG_CC);
		if (cc & NVME_CC_EN) {
			vfio_bus_write32(ctrl->bus, NVME_REG_CC,
					 (cc & ~NVME_CC_SHN_MASK) | NVME_CC_SHN_NORMAL);
			wait_csts(ctrl, NVME_CSTS_SHST_MASK, NVME_CSTS_SHST_DONE,
				  ctrl->ready_timeout_us > 2000000 ? ctrl->ready_timeout_us
								   : 2000000,
				  true);
			vfio_bus_write32(ctrl->bus, NVME_REG_CC, 0);
			wait_csts(ctrl, NVME_CSTS_RDY, 0, ctrl->ready_timeout_us, false);
		}
	}
	vfio_qpair_free(ctrl->adminq);
	ctrl->adminq = NULL;
	free(ctrl->qid_used);
	ctrl->qid_used = NULL;
	vfio_dma_fini(&ctrl->dma);
	pthread_mutex_destroy(&ctrl->admin_lock);
	pthread_mutex_destroy(&ctrl->qid_lock);
}

int
vfio_ctrl_reset_locked(struct vfio_ctrl *ctrl)
{
	struct xnvme_spec_cmd cmd = {0};
	struct xnvme_spec_cpl cpl;
	char msg[160];
	int err;

	if (ctrl->resetting || vfio_ctrl_check_fatal(ctrl)) {
		return -EIO;
	}
	ctrl->resetting = true;
	vfio_bus_write32(ctrl->bus, NVME_REG_CC, ctrl->cc & ~NVME_CC_EN);
	err = wait_csts(ctrl, NVME_CSTS_RDY, 0, ctrl->ready_timeout_us, false);
	if (!err) {
		/* disabled: the device has dropped every queue and command; queue pairs follow */
		__atomic_add_fetch(&ctrl->epoch, 1, __ATOMIC_RELEASE);
		vfio_qpair_cancel_all(ctrl->adminq, ECANCELED);
		vfio_qpair_restart(ctrl->adminq);
		ctrl->adminq->epoch = __atomic_load_n(&ctrl->epoch, __ATOMIC_RELAXED);
		err = ctrl_enable(ctrl, msg, sizeof(msg));
	}
	if (!err) {
		cmd.common.opcode = NVME_ADM_SET_FEATURES;
		cmd.common.ndt = NVME_FEAT_NUM_QUEUES;
		cmd.common.ndm =
			(uint32_t)(ctrl->nioq_want - 1) | ((uint32_t)(ctrl->nioq_want - 1) << 16);
		err = exec_wait(ctrl->adminq, &cmd, NULL, 0, NULL, 0, NULL, &cpl);
	}
	__atomic_add_fetch(&ctrl->resets, 1, __ATOMIC_RELAXED);
	if (err) {
		/* every queue pair then fails its commands with EIO, none is recreated */
		__atomic_store_n(&ctrl->failed, 1, __ATOMIC_RELAXED);
	}
	ctrl->resetting = false;
	return err;
}

int
vfio_ctrl_reset(struct vfio_ctrl *ctrl)
{
	int err;

	if (ctrl->remote) {
		return vfio_sec_reset(ctrl->remote, __atomic_load_n(&ctrl->epoch, __ATOMIC_ACQUIRE),
				      true);
	}
	pthread_mutex_lock(&ctrl->admin_lock);
	err = vfio_ctrl_reset_locked(ctrl);
	pthread_mutex_unlock(&ctrl->admin_lock);
	return err;
}

int
vfio_ctrl_reset_if(struct vfio_ctrl *ctrl, unsigned epoch)
{
	int err = 0;

	if (ctrl->remote) {
		return vfio_sec_reset(ctrl->remote, epoch, false);
	}
	pthread_mutex_lock(&ctrl->admin_lock);
	if (__atomic_load_n(&ctrl->epoch, __ATOMIC_ACQUIRE) == epoch) {
		err = vfio_ctrl_reset_locked(ctrl);
	}
	pthread_mutex_unlock(&ctrl->admin_lock);
	return err;
}
