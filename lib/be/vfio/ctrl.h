/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe controller over an abstract bus (bus.h): bring-up honouring CAP (MQES, DSTRD, TO,
 * MPSMIN, CSS), the admin queue, Identify, Number of Queues, I/O queue pair creation and
 * deletion, and shutdown with CC.SHN. Thread safety: vfio_ctrl_admin() and the queue pair
 * create/destroy calls may be used from any thread (admin commands are serialised); init and
 * fini are not concurrent with anything else on the controller.
 */
#ifndef XNVME_VFIO_CTRL_H
#define XNVME_VFIO_CTRL_H

#include <pthread.h>
#include <stdint.h>

#include "bus.h"
#include "dma.h"
#include "nvme_reg.h"
#include "qpair.h"

struct vfio_ctrl_opts {
	uint64_t admin_timeout_us; ///< per admin command and for CC.SHN; 0: 60 s
	uint32_t css;              ///< CC.CSS when css_given
	int css_given;
	uint32_t max_xfer_cap; ///< driver limit per command in bytes; 0: 2 MiB
	uint16_t io_queues;    ///< I/O queue pairs to request with Set Features; 0: 64
};

struct vfio_ctrl {
	struct vfio_bus *bus;
	struct vfio_dma dma;
	uint64_t cap;
	uint32_t dstrd;      ///< doorbell stride in bytes
	uint32_t mqes;       ///< max entries per queue (CAP.MQES + 1)
	uint32_t page_shift; ///< CC.MPS + 12
	uint64_t ready_timeout_us;
	uint64_t admin_timeout_us;
	uint32_t max_xfer;  ///< bytes per command: min(MDTS, max_xfer_cap)
	uint32_t prp_pages; ///< PRP list pages per CID to reach max_xfer
	uint16_t nioq;      ///< I/O queue pairs granted
	uint16_t max_qid;   ///< highest queue id whose doorbells lie inside BAR0
	uint8_t sgls;       ///< Identify SGLS bits 1:0 (0: no SGLs)
	int failed;         ///< atomic: controller fatal status or removal seen

	pthread_mutex_t admin_lock;
	struct vfio_qpair *adminq;

	pthread_mutex_t qid_lock;
	uint8_t *qid_used; ///< [nioq + 1]

	uint8_t idfy[4096]; ///< Identify Controller
};

/** Resets, configures and enables the controller; identifies it. 0 or negative errno */
int
vfio_ctrl_init(struct vfio_ctrl *ctrl, struct vfio_bus *bus, const struct vfio_ctrl_opts *opts,
	       char *errmsg, size_t errmsg_len);

/** Deletes nothing (queue pairs are destroyed by their owners), shuts down, frees memory */
void
vfio_ctrl_fini(struct vfio_ctrl *ctrl);

/**
 * Runs one admin command and waits for it (admin_timeout). `cpl` receives the completion.
 * 0; -EIO with the status in cpl; -ETIMEDOUT; -EFAULT/-EINVAL as vfio_qpair_submit().
 */
int
vfio_ctrl_admin(struct vfio_ctrl *ctrl, const struct xnvme_spec_cmd *cmd, void *dbuf,
		size_t dbuf_nbytes, struct xnvme_spec_cpl *cpl);

/** An admin command without payload whose PRP1 is a queue ring of the driver (queue creation) */
int
vfio_ctrl_admin_ring(struct vfio_ctrl *ctrl, const struct xnvme_spec_cmd *cmd, const uint64_t *ring,
		     struct xnvme_spec_cpl *cpl);

/** Runs a command on a queue pair owned by the caller and waits for it (sync path) */
int
vfio_qpair_exec(struct vfio_qpair *qp, const struct xnvme_spec_cmd *cmd, const struct iovec *dvec,
		size_t dvec_cnt, void *mbuf, size_t mbuf_nbytes, struct xnvme_spec_cpl *cpl);

/** The completion callback of queue pairs used with vfio_qpair_exec() */
void
vfio_exec_cb(void *arg, const struct xnvme_spec_cpl *cpl);

/**
 * Creates an I/O queue pair of `qsize` entries (2 .. mqes) whose completions go to `cb` (NULL:
 * vfio_exec_cb, for vfio_qpair_exec()); with `irq` its CQ signals MSI-X vector qid, whose
 * eventfd is qp->irq_fd (ENOSYS/ENOTSUP when the bus or function has no such vector);
 * NULL with errno (EBUSY when all granted queue ids are in use)
 */
struct vfio_qpair *
vfio_ctrl_qpair_create(struct vfio_ctrl *ctrl, uint32_t qsize, vfio_cpl_fn cb, uint64_t timeout_us,
		       bool irq);

/** Deletes the queue pair on the controller (best effort if it failed) and frees it */
void
vfio_ctrl_qpair_destroy(struct vfio_ctrl *ctrl, struct vfio_qpair *qp);

/** Marks the controller failed and returns whether it was (CSTS read all-ones or CFS) */
int
vfio_ctrl_check_fatal(struct vfio_ctrl *ctrl);

#endif /* XNVME_VFIO_CTRL_H */
