/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shadow doorbells (Doorbell Buffer Config, admin opcode 0x7C, OACS bit 8): the driver writes
 * each new SQ tail / CQ head into a host page the controller reads, and writes the MMIO
 * doorbell only when the controller's event index says it is waiting for it. Emulated and
 * para-virtual controllers offer it because an MMIO write costs them a trap (a VM exit); a
 * controller without it keeps plain doorbells. Only I/O queues use it; the admin queue rings
 * its doorbell every time.
 */
#ifndef XNVME_VFIO_DBBUF_H
#define XNVME_VFIO_DBBUF_H

#include <stdbool.h>
#include <stdint.h>

#include "bus.h"

struct vfio_ctrl;
struct vfio_qpair;

/** The shadow slots of one queue (NULL: plain doorbells) */
struct vfio_dbbuf_slot {
	uint32_t *db; ///< the value the controller reads instead of the register
	uint32_t *ei; ///< the controller's event index
	bool always;  ///< the register is written every time as well (admin queue)
};

/** Sends Doorbell Buffer Config when the controller offers it; failures leave it unused */
void
vfio_dbbuf_enable(struct vfio_ctrl *ctrl);

/** Points the queue pair's slots at the shadow pages and zeroes them (before queue creation) */
void
vfio_dbbuf_attach(struct vfio_ctrl *ctrl, struct vfio_qpair *qp);

/**
 * Publishes a new doorbell value: through the shadow slot when there is one, and the MMIO
 * register only when the controller asked for an event in (old, val]. true when the register
 * was written.
 */
static inline bool
vfio_dbbuf_ring(struct vfio_bus *bus, uint32_t reg, const struct vfio_dbbuf_slot *slot,
		uint32_t val)
{
	if (slot->db) {
		uint16_t old = (uint16_t)__atomic_load_n(slot->db, __ATOMIC_RELAXED);
		uint16_t ei;

		/* store then load, both seq_cst: the controller sees the value before we read its
		 * event index (the full barrier of the shadow doorbell protocol) */
		__atomic_store_n(slot->db, val, __ATOMIC_SEQ_CST);
		ei = (uint16_t)__atomic_load_n(slot->ei, __ATOMIC_SEQ_CST);
		if (!slot->always && (uint16_t)(val - ei - 1) >= (uint16_t)(val - old)) {
			return false;
		}
	}
	vfio_bus_write32(bus, reg, val);
	return true;
}

#endif /* XNVME_VFIO_DBBUF_H */
