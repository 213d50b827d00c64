/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-process mode of the vfio driver: the messages between a primary (mp_primary.h, which
 * owns a controller's admin queue and lifecycle) and its secondaries (mp_secondary.h, which run
 * their own I/O queue pairs). One stream socket per secondary, in the abstract namespace under a
 * name made of the shm id and the PCI address. Every message is a header and `len` bytes of
 * body; a request is answered by one reply with the same type and sequence number, and the
 * primary may send notifications (NOTE_*) at any time. The file descriptors of the device go
 * to the secondary with the reply to HELLO (SCM_RIGHTS), a completion eventfd to the primary
 * with QCREATE. Only the set-up, admin and fault paths use the socket, never the I/O path.
 */
#ifndef XNVME_VFIO_MP_PROTO_H
#define XNVME_VFIO_MP_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <libxnvme.h>

#define VFIO_MP_MAGIC 0x504D4E58u ///< "XNMP" in the first four bytes
#define VFIO_MP_VERSION 1
#define VFIO_MP_MAXFDS 4
#define VFIO_MP_ERRMSG_LEN 256

enum vfio_mp_type {
	VFIO_MP_HELLO = 1,   ///< attach: vfio_mp_hello; reply vfio_mp_info + device fds
	VFIO_MP_WINDOW = 2,  ///< more IOVA space: vfio_mp_window
	VFIO_MP_QID_GET = 3, ///< reserve a queue id: reply vfio_mp_queue.qid
	VFIO_MP_QID_PUT = 4, ///< release a queue id (deleting its queues if they exist)
	VFIO_MP_QCREATE = 5, ///< create CQ and SQ of an owned id: vfio_mp_queue [+ eventfd]
	VFIO_MP_QDELETE = 6, ///< delete SQ and CQ of an owned id: vfio_mp_queue
	VFIO_MP_ADMIN = 7,   ///< an admin command: vfio_mp_admin + data
	VFIO_MP_RESET = 8,   ///< reset the controller: vfio_mp_reset

	VFIO_MP_NOTE_EPOCH = 64,   ///< the controller was reset: vfio_mp_note.epoch
	VFIO_MP_NOTE_FAILED = 65,  ///< the controller failed (fatal status): vfio_mp_note.err
	VFIO_MP_NOTE_REMOVED = 66, ///< the OS wants the device back: let go of it now
};

#define VFIO_MP_F_REPLY 0x1

struct vfio_mp_hdr {
	uint32_t magic;
	uint16_t type;  ///< enum vfio_mp_type
	uint16_t flags; ///< VFIO_MP_F_REPLY on replies
	uint32_t seq;   ///< a reply carries the sequence number of its request
	int32_t err;    ///< reply: 0, or negative errno with the reason as body (a string)
	uint32_t len;   ///< body bytes that follow
	uint32_t rsvd;
};
_Static_assert(sizeof(struct vfio_mp_hdr) == 24, "vfio_mp_hdr size");

struct vfio_mp_hello {
	uint32_t version; ///< VFIO_MP_VERSION: both sides must speak the same
	uint32_t shm_id;
	char bdf[16]; ///< the PCI address the secondary means (checked against the socket's)
};
_Static_assert(sizeof(struct vfio_mp_hello) == 24, "vfio_mp_hello size");

/** What a secondary needs to drive I/O queues of the controller the primary brought up */
struct vfio_mp_info {
	uint32_t version;
	uint32_t epoch; ///< controller reset epoch
	uint64_t cap;
	uint64_t ready_timeout_us;
	uint64_t admin_timeout_us;
	uint64_t bar_size;
	uint64_t win_start; ///< the first IOVA window of the secondary, [win_start, win_end)
	uint64_t win_end;
	uint32_t dstrd;
	uint32_t mqes;
	uint32_t page_shift;
	uint32_t max_xfer;
	uint32_t prp_pages;
	uint16_t nioq;
	uint16_t max_qid;
	uint8_t sgls;
	uint8_t acl;
	uint8_t failed;
	uint8_t rsvd;
	int32_t primary_pid;
	uint8_t idfy[4096]; ///< Identify Controller as the primary read it
};
_Static_assert(sizeof(struct vfio_mp_info) == 4184, "vfio_mp_info size");
_Static_assert(offsetof(struct vfio_mp_info, idfy) == 88, "vfio_mp_info idfy offset");

struct vfio_mp_window {
	uint64_t len;   ///< request: bytes needed at least
	uint64_t start; ///< reply: the new window [start, end)
	uint64_t end;
};
_Static_assert(sizeof(struct vfio_mp_window) == 24, "vfio_mp_window size");

struct vfio_mp_queue {
	uint16_t qid;
	uint16_t rsvd;
	uint32_t qsize;    ///< entries of each ring
	uint32_t cq_flags; ///< Create I/O CQ dword 11: PC, IEN (vector = qid; eventfd attached)
	uint32_t epoch;    ///< reply of QCREATE: the reset epoch the queues were made in
	uint64_t cq_iova;  ///< rings, inside the secondary's windows
	uint64_t sq_iova;
};
_Static_assert(sizeof(struct vfio_mp_queue) == 32, "vfio_mp_queue size");

#define VFIO_MP_ADMIN_SEND 0x1 ///< the data follows the request (host to controller)
#define VFIO_MP_ADMIN_RECV 0x2 ///< the data follows the reply (controller to host)

/**
 * An admin command. The reply carries the command's own result in `err` (an NVMe error status
 * is -EIO with the completion in `cpl`), and the data when the command returns some and neither
 * timed out nor failed, as the single-process path copies its bounce buffer back.
 */
struct vfio_mp_admin {
	struct xnvme_spec_cmd cmd;
	uint64_t timeout_us; ///< 0: the controller's admin timeout (else: no data, e.g. Abort)
	uint32_t nbytes;     ///< data bytes of the command
	uint32_t flags;      ///< VFIO_MP_ADMIN_*
	struct xnvme_spec_cpl cpl; ///< reply: the completion
	int32_t err;               ///< reply: 0 or negative errno, as vfio_ctrl_admin() returns
	uint32_t rsvd;
};
_Static_assert(sizeof(struct vfio_mp_admin) == 104, "vfio_mp_admin size");
_Static_assert(offsetof(struct vfio_mp_admin, cpl) == 80, "vfio_mp_admin cpl offset");

struct vfio_mp_reset {
	uint32_t epoch; ///< request: the epoch the secondary saw (no reset when it moved on since)
	uint32_t force; ///< reset even when the epoch moved on (xnvme_controller_reset)
};
_Static_assert(sizeof(struct vfio_mp_reset) == 8, "vfio_mp_reset size");

struct vfio_mp_note {
	uint32_t epoch;
	int32_t err;
};
_Static_assert(sizeof(struct vfio_mp_note) == 8, "vfio_mp_note size");

/** The socket address of the primary of (shm_id, bdf): "@xnvme-vfio-<shm_id hex>-<bdf>" */
void
vfio_mp_sockaddr(uint32_t shm_id, const char *bdf, struct sockaddr_un *sa, socklen_t *len);

/**
 * Sends header, body and payload as one message (body and payload may be NULL), with `nfds`
 * descriptors attached. Blocking; 0 or negative errno (-EPIPE: the peer is gone).
 */
int
vfio_mp_send(int fd, const struct vfio_mp_hdr *hdr, const void *body, size_t blen,
	     const void *payload, size_t plen, const int *fds, int nfds);

/**
 * Receives a header, and the descriptors attached to it into fds (up to VFIO_MP_MAXFDS; *nfds
 * set, may be NULL to close any). 0, -ECONNRESET at a clean end of stream, -EPROTO for a
 * header that is not one, or negative errno.
 */
int
vfio_mp_recv_hdr(int fd, struct vfio_mp_hdr *hdr, int *fds, int *nfds);

/** Reads exactly `len` bytes (buf may be NULL: they are discarded). 0 or negative errno */
int
vfio_mp_recv_all(int fd, void *buf, size_t len);

/** Sends a reply to `req` with body and payload, or with err < 0 and the reason `msg` */
int
vfio_mp_reply(int fd, const struct vfio_mp_hdr *req, int err, const char *msg, const void *body,
	      size_t blen, const void *payload, size_t plen);

#endif /* XNVME_VFIO_MP_PROTO_H */
