// SPDX-License-Identifier: BSD-3-Clause
/*
 * I/O queue pairs of a controller: queue id allocation, Create I/O CQ/SQ and their deletion,
 * and their recreation after a controller reset. In a secondary of multi-process mode the
 * primary allocates the ids and runs the admin commands (mp_secondary.h).
 */
#include <errno.h>

#include "ctrl.h"
#include "mp_secondary.h"

int
vfio_ctrl_qid_get(struct vfio_ctrl *ctrl, uint16_t *qid)
{
	int err = -EBUSY;

	if (ctrl->remote) {
		return vfio_sec_qid_get(ctrl->remote, qid);
	}
	pthread_mutex_lock(&ctrl->qid_lock);
	for (uint32_t i = 1; i <= ctrl->nioq; ++i) {
		if (!ctrl->qid_used[i]) {
			ctrl->qid_used[i] = 1;
			*qid = (uint16_t)i;
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&ctrl->qid_lock);
	return err;
}

void
vfio_ctrl_qid_put(struct vfio_ctrl *ctrl, uint16_t qid)
{
	if (ctrl->remote) {
		vfio_sec_qid_put(ctrl->remote, qid);
		return;
	}
	pthread_mutex_lock(&ctrl->qid_lock);
	ctrl->qid_used[qid] = 0;
	pthread_mutex_unlock(&ctrl->qid_lock);
}

/* A queue creation (ring: its IOVA) or deletion command; the caller holds admin_lock */
static int
queue_cmd(struct vfio_ctrl *ctrl, uint8_t opc, uint16_t qid, uint32_t qsize, uint32_t cdw11,
	  const uint64_t *ring)
{
	struct xnvme_spec_cmd cmd = {0};
	struct xnvme_spec_cpl cpl;

	cmd.common.opcode = opc;
	cmd.common.ndt = qid;
	if (ring) {
		cmd.common.ndt |= (qsize - 1) << 16;
		cmd.common.ndm = cdw11;
	}
	return vfio_ctrl_admin_ring_locked(ctrl, &cmd, ring, &cpl);
}

/* Under one hold of admin_lock, so no reset comes between (*epoch: the one they were made in) */
int
vfio_ctrl_queue_create(struct vfio_ctrl *ctrl, uint16_t qid, uint32_t qsize, uint32_t cq_flags,
		       uint64_t cq_iova, uint64_t sq_iova, unsigned *epoch)
{
	int err;

	pthread_mutex_lock(&ctrl->admin_lock);
	*epoch = __atomic_load_n(&ctrl->epoch, __ATOMIC_ACQUIRE);
	err = queue_cmd(ctrl, NVME_ADM_CREATE_CQ, qid, qsize, cq_flags, &cq_iova);
	if (!err) {
		err = queue_cmd(ctrl, NVME_ADM_CREATE_SQ, qid, qsize, ((uint32_t)qid << 16) | 0x1,
				&sq_iova);
		if (err) {
			queue_cmd(ctrl, NVME_ADM_DELETE_CQ, qid, 0, 0, NULL);
		}
	}
	pthread_mutex_unlock(&ctrl->admin_lock);
	return err;
}

int
vfio_ctrl_queue_delete(struct vfio_ctrl *ctrl, uint16_t qid)
{
	int err;

	pthread_mutex_lock(&ctrl->admin_lock);
	err = queue_cmd(ctrl, NVME_ADM_DELETE_SQ, qid, 0, 0, NULL);
	if (!err) {
		err = queue_cmd(ctrl, NVME_ADM_DELETE_CQ, qid, 0, 0, NULL);
		err = err == -ETIMEDOUT ? err : 0; /* the SQ is gone: nothing can DMA any more */
	}
	pthread_mutex_unlock(&ctrl->admin_lock);
	return err;
}

/* Creates the pair's CQ, then its SQ bound to it (qp->epoch: the epoch they were made in) */
static int
create_on_ctrl(struct vfio_ctrl *ctrl, struct vfio_qpair *qp)
{
	if (ctrl->remote) {
		return vfio_sec_queue_create(ctrl->remote, qp);
	}
	return vfio_ctrl_queue_create(ctrl, qp->qid, qp->qsize, qp->cq_flags, qp->cq_iova,
				      qp->sq_iova, &qp->epoch);
}

int
vfio_qpair_recover(struct vfio_qpair *qp)
{
	struct vfio_ctrl *ctrl = qp->ctrl;

	while (!qp->failed && !__atomic_load_n(&ctrl->failed, __ATOMIC_RELAXED)) {
		vfio_qpair_restart(qp);
		if (create_on_ctrl(ctrl, qp)) {
			break;
		}
		if (__atomic_load_n(&ctrl->epoch, __ATOMIC_ACQUIRE) == qp->epoch) {
			/* up again: what the reset dropped fails now (callbacks may submit anew) */
			vfio_qpair_cancel_all(qp, ECANCELED);
			return 0;
		}
	}
	/* the queues cannot be recreated: every command on this pair fails from now on (and
	 * the pair stops looking for resets) */
	qp->epoch = __atomic_load_n(&ctrl->epoch, __ATOMIC_ACQUIRE);
	qp->failed = true;
	vfio_qpair_cancel_all(qp, EIO);
	return -EIO;
}

struct vfio_qpair *
vfio_ctrl_qpair_create(struct vfio_ctrl *ctrl, uint32_t qsize, vfio_cpl_fn cb, uint64_t timeout_us,
		       bool irq)
{
	struct vfio_qpair *qp;
	uint16_t qid;
	int err;

	if (vfio_ctrl_check_fatal(ctrl)) {
		errno = __atomic_load_n(&ctrl->fail_err, __ATOMIC_RELAXED);
		return NULL;
	}
	err = vfio_ctrl_qid_get(ctrl, &qid);
	if (err) {
		errno = -err;
		return NULL;
	}
	qp = vfio_qpair_alloc(ctrl, qid, qsize, cb ? cb : vfio_exec_cb, timeout_us);
	if (!qp) {
		err = errno;
		vfio_ctrl_qid_put(ctrl, qid);
		errno = err;
		return NULL;
	}
	qp->cq_flags = 0x1; /* physically contiguous */
	if (irq) {
		/* interrupts enabled (IEN) on MSI-X vector qid: for a completion fd */
		if (ctrl->remote) {
			err = vfio_sec_irq_eventfd(ctrl->remote, qid);
		} else {
			err = ctrl->bus->ops->irq_eventfd
				      ? ctrl->bus->ops->irq_eventfd(ctrl->bus, qid)
				      : -ENOSYS;
		}
		if (err < 0) {
			vfio_qpair_free(qp);
			vfio_ctrl_qid_put(ctrl, qid);
			errno = -err;
			return NULL;
		}
		qp->irq_fd = err;
		qp->cq_flags |= 0x2 | ((uint32_t)qid << 16);
	}
	/* CQ polled unless irq; the SQ is bound to the CQ of its qid */
	err = create_on_ctrl(ctrl, qp);
	if (err) {
		vfio_qpair_free(qp);
		vfio_ctrl_qid_put(ctrl, qid);
		errno = err == -EIO ? EIO : -err;
		return NULL;
	}
	return qp;
}

void
vfio_ctrl_qpair_destroy(struct vfio_ctrl *ctrl, struct vfio_qpair *qp)
{
	uint16_t qid;
	int err = 0;

	if (!qp) {
		return;
	}
	qid = qp->qid;
	if (qp->epoch != __atomic_load_n(&ctrl->epoch, __ATOMIC_ACQUIRE)) {
		/* a reset took the queues off the device already, with every command on them */
		vfio_qpair_restart(qp);
	} else if (!vfio_ctrl_check_fatal(ctrl)) {
		err = ctrl->remote ? vfio_sec_queue_delete(ctrl->remote, qp)
				   : vfio_ctrl_queue_delete(ctrl, qid);
		if (!err) {
			/* the SQ's commands are all completed or aborted: none can DMA any more */
			__atomic_sub_fetch(&ctrl->dma.abandoned, qp->abandoned, __ATOMIC_RELEASE);
			qp->abandoned = 0;
		}
	}
	if (err == -ETIMEDOUT) {
		/* the device may still write the rings: leak them rather than reuse the memory */
		return;
	}
	vfio_qpair_free(qp);
	vfio_ctrl_qid_put(ctrl, qid);
}
