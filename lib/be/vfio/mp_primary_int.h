/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * State of the multi-process primary shared by its files: mp_primary.c (controllers, the
 * socket, secondaries coming and going) and mp_primary_req.c (the requests of a secondary).
 */
#ifndef XNVME_VFIO_MP_PRIMARY_INT_H
#define XNVME_VFIO_MP_PRIMARY_INT_H

#include <stdbool.h>
#include <sys/types.h>

#include "iova.h"
#include "mp_primary.h"
#include "mp_proto.h"

struct mp_served;

/** One secondary */
struct mp_client {
	struct mp_served *srv;
	int fd;
	unsigned id; ///< numbers the secondaries in the log
	pid_t pid;
	uid_t uid;
	struct vfio_bus_range *wins; ///< its IOVA windows
	size_t nwins;
	size_t capwins;
	bool dead; ///< its socket ended or misbehaved: reclaimed at the end of the loop turn
	struct mp_client *next;
};

/** An I/O queue id of a controller, as the primary sees it */
struct mp_qid {
	struct mp_client *owner; ///< NULL: free (or the primary's own)
	bool on_device;          ///< CQ and SQ created in `epoch`
	bool irq;                ///< its vector points at the owner's eventfd
	unsigned epoch;
};

/** One controller served */
struct mp_served {
	struct vfio_primary *prim;
	char bdf[16];
	struct vfio_bus *bus;
	struct vfio_ctrl ctrl;
	bool ctrl_up;
	struct vfio_iova_space space; ///< IOVA not yet handed out (windows)
	int lfd;                      ///< listening socket
	struct mp_qid *qids;          ///< [ctrl.nioq + 1]
	unsigned pub_epoch;           ///< what the secondaries were told
	bool pub_failed;
	bool pub_removed;
	uint64_t next_health_us;
	struct mp_client *clients;
};

struct vfio_primary {
	struct vfio_primary_opts opts;
	uint32_t *uids;
	uint32_t *gids;
	struct mp_served **srv;
	size_t nsrv;
	unsigned next_id;
	bool foreign_unmap; ///< the kernel lets the primary unmap a secondary's mappings (>= 6.0)
};

#define mp_log(p, ...) mp_log_((p), __VA_ARGS__)

void
mp_log_(const struct vfio_primary *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Takes an IOVA window of at least `len` bytes for `c` (NULL: the primary's own DMA memory) */
int
mp_window_take(struct mp_served *srv, struct mp_client *c, uint64_t len, uint64_t *start,
	       uint64_t *end, char *msg, size_t msg_len);

/** Tells every secondary of `srv` what changed (reset epoch, failure, removal) */
void
mp_publish(struct mp_served *srv);

/** Serves one request of `c` (its header read, with the descriptors that came along) */
void
mp_request(struct mp_client *c, const struct vfio_mp_hdr *hdr, int *fds, int nfds);

/** Deletes the queues of `c` and frees its queue ids: the device then reaches none of its
 * memory; the names of the queues deleted go to `done` */
void
mp_client_queues_drop(struct mp_client *c, char *done, size_t done_len);

#endif /* XNVME_VFIO_MP_PRIMARY_INT_H */
