/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The vfio backend: handles of one PCI function share a controller (refcounted per process);
 * each handle serves namespace opts.nsid. With opts.shm_id the process is a secondary of the
 * primary serving the function (mp_secondary.h) instead of its owner. Mechanisms (all named "vfio"): mem (DMA memory of
 * the controller), admin (the admin queue, serialised), sync (one shared I/O queue pair,
 * serialised by a lock), async (one I/O queue pair per xnvme_queue, lock-free).
 */
#ifndef XNVME_BE_VFIO_H
#define XNVME_BE_VFIO_H

#include <sys/types.h>

#include "xnvme_be.h"
#include "ctrl.h"
#include "vfio_pci.h"

#define VFIO_SYNC_QSIZE 8

struct vfio_shared {
	char bdf[16];
	uint32_t shm_id; ///< non-zero: a secondary of the primary of (shm_id, bdf)
	int refcnt;
	pid_t pid; ///< the process that opened it: a forked child must not use it
	struct vfio_shared *next;
	struct vfio_pci *pci; ///< NULL in a secondary (the bus is the one it imported)
	struct vfio_ctrl ctrl;
	pthread_mutex_t sync_lock;
	struct vfio_qpair *syncq;
	uint64_t command_timeout_us;
};

static inline struct vfio_shared *
vfio_dev_shared(const struct xnvme_dev *dev)
{
	return dev->state;
}

/** Parses "DDDD:BB:DD.F" (or "BB:DD.F", domain 0) into the canonical form; -ENXIO if not one */
int
vfio_uri_parse(const char *uri, char *bdf, size_t len);

extern const struct xnvme_be_mem xnvme_be_vfio_mem;
extern const struct xnvme_be_admin xnvme_be_vfio_admin;
extern const struct xnvme_be_sync xnvme_be_vfio_sync;
extern const struct xnvme_be_async xnvme_be_vfio_async;
/** The backend (lib/be/registry.def) and its mechanisms */
extern const struct xnvme_be xnvme_be_vfio;
extern const struct xnvme_be_dev xnvme_be_vfio_dev;

int
vfio_check_support(struct xnvme_dev *dev);

#endif /* XNVME_BE_VFIO_H */
