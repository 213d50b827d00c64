/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The primary of multi-process mode (xnvme-driver serve): owns each controller it serves (bus,
 * bring-up, admin queue, resets, shutdown) and serves secondaries (mp_secondary.h) on a socket
 * per controller named from the shm id and the PCI address (mp_proto.h). A secondary is
 * admitted by its credentials (SO_PEERCRED: the primary's own uid, or an admitted uid or
 * group); it receives the device's descriptors and a first IOVA window, then asks for queue
 * ids, queue creation and deletion, admin commands, resets and more windows. Its I/O never
 * passes here. When a secondary's socket ends (exit, crash, SIGKILL) the primary deletes its
 * queues, unmaps its windows and takes them back. One thread: requests are served one at a
 * time, so admin commands of all processes are serialised.
 */
#ifndef XNVME_VFIO_MP_PRIMARY_H
#define XNVME_VFIO_MP_PRIMARY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctrl.h"

#define VFIO_MP_WINDOW_DEFAULT (1ULL << 30)

struct vfio_primary_opts {
	uint32_t shm_id;      ///< non-zero
	const uint32_t *uids; ///< admitted users besides the primary's own
	size_t nuids;
	const uint32_t *gids; ///< admitted groups (a secondary's primary or supplementary group)
	size_t ngids;
	uint64_t window_nbytes; ///< IOVA window handed out at a time; 0: VFIO_MP_WINDOW_DEFAULT
	FILE *log;              ///< one line per event (attach, exit, reclaim, refusal); NULL: none
};

struct vfio_primary;

/** 0 with *out, or negative errno */
int
vfio_primary_create(struct vfio_primary **out, const struct vfio_primary_opts *opts);

/**
 * Brings the controller on `bus` up (taking the bus: destroyed with the primary when its ops
 * have destroy) and listens for its secondaries under `bdf`. 0, or negative errno with the
 * reason in errmsg (-EADDRINUSE: a primary with this shm id serves `bdf` already).
 */
int
vfio_primary_add(struct vfio_primary *p, const char *bdf, struct vfio_bus *bus,
		 const struct vfio_ctrl_opts *copts, char *errmsg, size_t errmsg_len);

/** The controller served under `bdf` (tests), NULL if none */
struct vfio_ctrl *
vfio_primary_ctrl(struct vfio_primary *p, const char *bdf);

/** Serves until `stop_fd` becomes readable (a signalfd, an eventfd); 0 or negative errno */
int
vfio_primary_run(struct vfio_primary *p, int stop_fd);

/** Detaches every secondary (deleting their queues, unmapping their windows), shuts each
 * controller down and frees everything */
void
vfio_primary_destroy(struct vfio_primary *p);

#endif /* XNVME_VFIO_MP_PRIMARY_H */
