/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe controller over an abstract bus (bus.h): bring-up honouring CAP (MQES, DSTRD, TO,
 * MPSMIN, CSS), the admin queue, Identify, Number of Queues, I/O queue pair creation and
 * deletion, and shutdown with CC.SHN. In a secondary of multi-process mode (ctrl->remote) the
 * admin side (admin commands, queue ids, queue creation and deletion, resets) goes to the
 * primary (mp_secondary.h) and the rest runs here unchanged. Thread safety: vfio_ctrl_admin() and the queue pair
 * create/destroy calls may be used from any thread (admin commands are serialised); init and
 * fini are not concurrent with anything else on the controller.
 */
#ifndef XNVME_VFIO_CTRL_H
#define XNVME_VFIO_CTRL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "bus.h"
#include "dma.h"
#include "nvme_reg.h"
#include "qpair.h"

struct vfio_ctrl_opts {
	uint64_t admin_timeout_us; ///< per admin command and for CC.SHN; 0: 60 s
	uint32_t css;              ///< CC.CSS when css_given
	int css_given;
	uint32_t max_xfer_cap;     ///< driver limit per command in bytes; 0: 2 MiB
	uint16_t io_queues;        ///< I/O queue pairs to request with Set Features; 0: 64
	vfio_dma_grow_fn dma_grow; ///< non-NULL: DMA memory only in the ranges it hands out
	void *dma_grow_arg;
};

struct vfio_sec;

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
	int fail_err; ///< errno of commands on a failed controller: EIO, ENOTCONN (primary gone)
	struct vfio_sec *remote; ///< multi-process secondary: the primary runs the admin side
	unsigned epoch;     ///< atomic: bumped by each controller reset (queue pairs follow it)
	uint32_t cc;        ///< CC of the enabled controller (re-enabled with it on a reset)
	uint16_t nioq_want; ///< I/O queue pairs asked for (again after a reset)
	uint8_t acl;        ///< Identify ACL: Abort commands outstanding at once, zero-based
	bool ready;         ///< brought up: timeouts lead to abort and reset from now on
	bool resetting;     ///< a reset is running (under admin_lock)
	uint64_t resets;    ///< atomic: controller resets done
	uint64_t aborts;    ///< atomic: Abort commands sent

	/* removal: a thread waits on the bus's request eventfd and releases the device */
	pthread_t req_thread;
	int req_stop; ///< eventfd that stops the thread, -1 when none runs
	int removed;  ///< atomic: the OS asked for the device and the driver let go of it

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

/** An admin command without payload, waited for at most `timeout_us` (Abort) */
int
vfio_ctrl_admin_timed(struct vfio_ctrl *ctrl, const struct xnvme_spec_cmd *cmd, uint64_t timeout_us,
		      struct xnvme_spec_cpl *cpl);

/**
 * An admin command without payload whose PRP1 is a queue ring of the driver (queue creation),
 * for a caller that holds admin_lock
 */
int
vfio_ctrl_admin_ring_locked(struct vfio_ctrl *ctrl, const struct xnvme_spec_cmd *cmd,
			    const uint64_t *ring, struct xnvme_spec_cpl *cpl);

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

/** Reserves a free I/O queue id: 0 with *qid, -EBUSY when all granted ids are in use */
int
vfio_ctrl_qid_get(struct vfio_ctrl *ctrl, uint16_t *qid);

void
vfio_ctrl_qid_put(struct vfio_ctrl *ctrl, uint16_t qid);

/**
 * Creates the CQ (dword 11 `cq_flags`) and then the SQ of queue id `qid` on rings at the given
 * IOVAs, under one hold of admin_lock; *epoch: the reset epoch they belong to. 0 or negative
 * errno (the CQ is deleted again when the SQ fails). For owners of queue ids that are not
 * queue pairs of this process (the primary of multi-process mode).
 */
int
vfio_ctrl_queue_create(struct vfio_ctrl *ctrl, uint16_t qid, uint32_t qsize, uint32_t cq_flags,
		       uint64_t cq_iova, uint64_t sq_iova, unsigned *epoch);

/** Deletes the SQ of `qid` and, when that worked, its CQ: 0 or the SQ deletion's error */
int
vfio_ctrl_queue_delete(struct vfio_ctrl *ctrl, uint16_t qid);

/** Marks the controller failed and returns whether it was (CSTS read all-ones or CFS) */
int
vfio_ctrl_check_fatal(struct vfio_ctrl *ctrl);

/**
 * Resets the controller (CC.EN=0, CSTS.RDY=0 within CAP.TO, enabled again with its admin queue,
 * Number of Queues set again) and bumps ctrl->epoch: each I/O queue pair then recreates its
 * queues on the controller the next time its owner uses it (vfio_qpair_recover). Every command
 * outstanding at the reset is gone: the device no longer owns any. 0, or negative errno with
 * the controller marked failed. Takes admin_lock (vfio_ctrl_reset_locked: caller holds it).
 */
int
vfio_ctrl_reset(struct vfio_ctrl *ctrl);

int
vfio_ctrl_reset_locked(struct vfio_ctrl *ctrl);

/** Resets the controller unless a reset since `epoch` has done it already (timeout recovery) */
int
vfio_ctrl_reset_if(struct vfio_ctrl *ctrl, unsigned epoch);

/**
 * Brings a queue pair up to date after a controller reset: fails its busy commands (sct 7,
 * sc ECANCELED), releases its abandoned CIDs, clears the rings and creates its CQ and SQ again.
 * The owner's thread only. 0, or -EIO with the pair marked failed.
 */
int
vfio_qpair_recover(struct vfio_qpair *qp);

/**
 * After commands of an I/O queue pair timed out (they are abandoned): sends Abort for each
 * (at most ACL + 1), polls the pair for their completions for up to its timeout (capped at
 * 1 s) and resets the controller when one is still owned by the device. The owner's thread.
 */
void
vfio_qpair_timeout_recovery(struct vfio_qpair *qp);

/** Starts the thread that releases the device when the bus's request eventfd fires */
int
vfio_ctrl_watch_removal(struct vfio_ctrl *ctrl);

/** Stops that thread (before the bus goes) */
void
vfio_ctrl_unwatch_removal(struct vfio_ctrl *ctrl);

#endif /* XNVME_VFIO_CTRL_H */
