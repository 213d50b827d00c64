/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A secondary of multi-process mode: a controller whose primary (mp_primary.h) is another
 * process. The secondary maps BAR0 and makes its own IOMMU mappings through the descriptors the
 * primary shares, inside IOVA windows the primary hands out; it rings its own doorbells and
 * polls its own completions (qpair.h, unchanged). Queue ids, queue creation and deletion, admin
 * commands and resets go to the primary over the socket (ctrl->remote routes them here). A
 * thread of the secondary reads the socket: replies, and the primary's notifications (reset
 * epoch, failure, removal); when the primary goes away the controller is marked failed with
 * ENOTCONN, so commands fail instead of waiting. Thread safety: as ctrl.h (one request to the
 * primary at a time, serialised here).
 */
#ifndef XNVME_VFIO_MP_SECONDARY_H
#define XNVME_VFIO_MP_SECONDARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctrl.h"

/**
 * Attaches to the primary of (shm_id, bdf) and sets `ctrl` up as its secondary, the bus made by
 * `import` from the descriptors the primary shares. 0, or negative errno with the reason in
 * errmsg: -ECONNREFUSED (no primary), -EACCES (the primary does not admit this user), -EPROTO
 * (another protocol version), or what the import or the primary answered.
 */
int
vfio_sec_attach(struct vfio_ctrl *ctrl, const char *bdf, uint32_t shm_id, vfio_bus_import_fn import,
		char *errmsg, size_t errmsg_len);

/** Unmaps the secondary's DMA memory and detaches (its queue pairs are destroyed already) */
void
vfio_sec_detach(struct vfio_ctrl *ctrl);

/** The pid of the primary */
int
vfio_sec_primary_pid(const struct vfio_ctrl *ctrl);

/* The admin side of ctrl.h for a secondary (errors -ENOTCONN once the primary is gone; the
 * primary's reason for a refusal goes to xnvme_last_error()) */
int
vfio_sec_admin(struct vfio_sec *sec, const struct xnvme_spec_cmd *cmd, void *dbuf, size_t nbytes,
	       uint64_t timeout_us, struct xnvme_spec_cpl *cpl);

int
vfio_sec_qid_get(struct vfio_sec *sec, uint16_t *qid);

void
vfio_sec_qid_put(struct vfio_sec *sec, uint16_t qid);

/** An eventfd for MSI-X vector `qid`, sent to the primary with the queue's creation */
int
vfio_sec_irq_eventfd(struct vfio_sec *sec, uint16_t qid);

/** Creates the pair's CQ and SQ on the controller; sets qp->epoch */
int
vfio_sec_queue_create(struct vfio_sec *sec, struct vfio_qpair *qp);

int
vfio_sec_queue_delete(struct vfio_sec *sec, struct vfio_qpair *qp);

/** Resets the controller unless it was reset since `epoch` (force: anyway) */
int
vfio_sec_reset(struct vfio_sec *sec, unsigned epoch, bool force);

#endif /* XNVME_VFIO_MP_SECONDARY_H */
