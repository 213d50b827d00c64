/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * The "rdma" backend: a user-space NVMe/RDMA initiator on rdma-core (libibverbs, librdmacm),
 * the RDMA transport under the shared NVMe over Fabrics layer (../nvmf/nvmf.h). Not installed.
 *
 * A connection is one RDMA-CM id and reliable-connected QP carrying one NVMe queue, with its
 * own completion queue (sends and receives) and completion channel. Per command slot (CID) it
 * holds a registered command capsule (64 bytes plus room for in-capsule data), a memory window
 * where the device has type 2 windows, and work requests built once; per slot a registered
 * receive buffer for responses. Data moves by keyed SGL: the target reads or writes the
 * caller's buffer directly when it lies in one registered region (xnvme_buf_alloc(),
 * xnvme_mem_map(): a registration table per device), else through a registered bounce buffer
 * of the slot (allocated once, grown when needed). Small writes travel inside the capsule.
 *
 * With memory windows each command binds its slot's window to exactly its buffer, with only
 * the access its direction needs, and asks the target to invalidate it when responding; what
 * the target did not invalidate the initiator invalidates before completing the command.
 * Without, the region's own key is used (the target can reach the whole registered region).
 *
 * Any protocol violation, error completion, timeout, disconnect or device removal fails every
 * command of that connection once, moves the QP to the error state (no further remote access
 * to the caller's memory) and leaves the connection dead (later commands: -ENOTCONN). A
 * monitor thread per device handle watches the connections' RDMA-CM events and, for waiters
 * blocked on a completion fd, their deadlines.
 */
#ifndef XNVME_RDMA_H
#define XNVME_RDMA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "../nvmf/nvmf.h"
#include "rdma_spec.h"

#define XNVME_RDMA_IOV_MAX 16 ///< data segments per command

/* ------------------------------------------------------------------------------------------ */
/* Parsers (parse.c): pure functions, no verbs                                                 */
/* ------------------------------------------------------------------------------------------ */

/** The state of one CID as far as the response parser needs it */
struct xnvme_rdma_cmd_state {
	uint32_t rkey;  ///< the key the command's SGL carries (0: none)
	uint8_t active; ///< outstanding
	uint8_t rsp;    ///< its response arrived
	uint8_t inv;    ///< the SGL asked the target to invalidate rkey
};

/** A validated response */
struct xnvme_rdma_rsp {
	struct xnvme_spec_cpl cqe;
	uint16_t cid;
	uint8_t invalidated; ///< the target invalidated the command's key (SEND with Invalidate)
};

/**
 * Validates a received response capsule: `byte_len` bytes in `buf`, `wc_flags` and `inv_rkey`
 * from the work completion (IBV_WC_WITH_INV, invalidated_rkey), against the outstanding
 * commands `cmds[0..ncmds-1]`. 0, or -EPROTO: not exactly one completion queue entry, a CID
 * not outstanding or answered twice, an invalidation of a key the command did not offer.
 */
int
xnvme_rdma_rsp_parse(const void *buf, uint32_t byte_len, uint32_t wc_flags, uint32_t inv_rkey,
		     uint32_t ncmds, const struct xnvme_rdma_cmd_state *cmds,
		     struct xnvme_rdma_rsp *rsp);

/** The private data of a connect request */
void
xnvme_rdma_cm_req_init(struct xnvme_rdma_cm_req *req, uint16_t qid, uint16_t hrqsize,
		       uint16_t hsqsize, uint16_t cntlid);

/**
 * The private data of an accept (`len` bytes; RDMA-CM may pad it): *crqsize, or -EPROTO when
 * it is too short or of an unknown record format or grants no command
 */
int
xnvme_rdma_cm_rep_parse(const void *data, size_t len, uint16_t *crqsize);

/** The private data of a reject: *sts, or -ENOENT when it carries no NVMe/RDMA status */
int
xnvme_rdma_cm_rej_parse(const void *data, size_t len, uint16_t *sts);

/** A reject status as text ("invalid HSQSIZE", ...) */
const char *
xnvme_rdma_cm_sts_str(uint16_t sts);

/** Fills a keyed SGL data block descriptor (24-bit length: the caller checked it) */
void
xnvme_rdma_sgl_keyed(void *sgl, uint64_t addr, uint32_t len, uint32_t key, bool inv);

/* ------------------------------------------------------------------------------------------ */
/* Registrations (mr.c): regions of memory registered with the device's protection domain      */
/* ------------------------------------------------------------------------------------------ */

struct xnvme_rdma_region {
	uint8_t *vaddr;
	size_t len;
	struct ibv_mr *mr;
	const struct xnvme_be_mem *owner; ///< the allocator of memory allocated here, else NULL
};

/** Regions sorted by address; writers take the lock, the I/O path reads through a cache */
struct xnvme_rdma_mrtab {
	pthread_rwlock_t lock;
	struct xnvme_rdma_region *regions;
	size_t nregions;
	size_t cap;
	_Atomic unsigned gen; ///< bumped whenever a region goes away
};

/** One cached lookup of a connection: valid while the table's gen equals gen */
struct xnvme_rdma_mrcache {
	unsigned gen;
	const uint8_t *vaddr;
	size_t len;
	struct ibv_mr *mr;
};

/* ------------------------------------------------------------------------------------------ */
/* Device state (dev.c): ctrlr->tstate                                                          */
/* ------------------------------------------------------------------------------------------ */

struct xnvme_rdma_conn;

struct xnvme_rdma_dev {
	pthread_mutex_t lock;      ///< verbs/pd set-up and the connection list
	struct ibv_context *verbs; ///< the device every connection of the handle uses
	struct ibv_pd *pd;
	bool mw;                 ///< type 2 memory windows: per-command keys, invalidation
	uint32_t max_qp_rd_atom; ///< RDMA READs the target may have outstanding per QP
	uint32_t max_inline;     ///< inline send bytes asked for at QP creation
	struct xnvme_rdma_mrtab mrs;
	/* monitor: RDMA-CM events of every connection and the deadlines of waiters */
	pthread_t mon;
	bool mon_running;
	int epfd;                      ///< the connections' event channel fds and stopfd
	int stopfd;                    ///< eventfd: stop
	struct xnvme_rdma_conn *conns; ///< connections the monitor watches
	uint64_t tick_ms;              ///< the watchdog's period
};

int
xnvme_rdma_dev_init(struct xnvme_nvmf_ctrlr *ctrlr);
void
xnvme_rdma_dev_fini(struct xnvme_nvmf_ctrlr *ctrlr);

/** First connection: remembers the device of `verbs`, allocates the PD; later ones: same one */
int
xnvme_rdma_dev_attach(struct xnvme_rdma_dev *rd, struct ibv_context *verbs, char *errmsg,
		      size_t errmsg_len);

/** Registers [vaddr, vaddr + len) (`owner`: memory allocated by that mechanism); 0 or errno */
int
xnvme_rdma_mr_add(struct xnvme_rdma_dev *rd, void *vaddr, size_t len,
		  const struct xnvme_be_mem *owner);

/**
 * Deregisters the region starting at vaddr when `owner` allocated it (NULL: a mapping), its
 * length in *len. 0, -ENOENT (no region starts there), -EINVAL (a region of another owner).
 */
int
xnvme_rdma_mr_del(struct xnvme_rdma_dev *rd, void *vaddr, const struct xnvme_be_mem *owner,
		  size_t *len);

/** Deregisters every region, freeing the owned memory (device close) */
void
xnvme_rdma_mr_fini(struct xnvme_rdma_dev *rd);

/** The region holding [p, p + len), through and into `cache`; NULL when none does */
struct ibv_mr *
xnvme_rdma_mr_find(struct xnvme_rdma_dev *rd, struct xnvme_rdma_mrcache *cache, const void *p,
		   size_t len);

/** Starts watching `conn` (its RDMA-CM events, its deadlines) */
int
xnvme_rdma_mon_add(struct xnvme_rdma_dev *rd, struct xnvme_rdma_conn *conn);
/** Stops watching `conn`; when this returns the monitor no longer touches it */
void
xnvme_rdma_mon_del(struct xnvme_rdma_dev *rd, struct xnvme_rdma_conn *conn);

extern const struct xnvme_be_mem xnvme_be_rdma_mem_posix;
extern const struct xnvme_be_mem xnvme_be_rdma_mem_hugepage;

/* ------------------------------------------------------------------------------------------ */
/* Connections (conn.c: set-up and teardown; conn_io.c: commands)                              */
/* ------------------------------------------------------------------------------------------ */

/* What a work request is: the high half of its wr_id (the low half: CID or receive index) */
#define XNVME_RDMA_WR_RECV 1U
#define XNVME_RDMA_WR_SEND 2U
#define XNVME_RDMA_WR_BIND 3U
#define XNVME_RDMA_WR_INV 4U

static inline uint64_t
xnvme_rdma_wr_id(uint32_t kind, uint32_t idx)
{
	return ((uint64_t)kind << 32) | idx;
}

/* slot->flags */
#define XNVME_RDMA_SLOT_SENT 0x1   ///< the capsule's send completed
#define XNVME_RDMA_SLOT_RSP 0x2    ///< the response arrived (slot->cpl)
#define XNVME_RDMA_SLOT_INV 0x4    ///< waiting for a local invalidation of the window
#define XNVME_RDMA_SLOT_BOUNCE 0x8 ///< the data went through the bounce buffer
#define XNVME_RDMA_SLOT_READY 0x10 ///< in the ready ring, to be delivered

struct xnvme_rdma_slot {
	struct xnvme_cmd_ctx *ctx;
	uint64_t deadline_ns;
	uint32_t nbytes;
	uint8_t dir; ///< enum xnvme_nvmf_dir
	uint8_t flags;
	struct xnvme_spec_cpl cpl; ///< the response, kept until the send completed too
	struct ibv_mw *mw;         ///< NULL without memory windows
	uint32_t mw_rkey;          ///< the key of the window's last bind
	/* the caller's data, for a bounced read's copy back */
	struct iovec iov[XNVME_RDMA_IOV_MAX];
	uint32_t iovcnt;
	void *bounce;
	size_t bounce_nbytes;
	struct ibv_mr *bounce_mr;
	/* the command's work requests: [local invalidate of the window,] bind, send */
	struct ibv_send_wr wr_inv;
	struct ibv_send_wr wr_bind;
	struct ibv_send_wr wr_send;
	struct ibv_sge sge[2];
};

/** Called for every delivered command, after its CID is free again; ctx->cpl is final */
typedef void (*xnvme_rdma_complete_fn)(struct xnvme_rdma_conn *conn, struct xnvme_cmd_ctx *ctx);

struct xnvme_rdma_conn {
	struct xnvme_rdma_dev *rd;
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int err;               ///< 0 while healthy; the negative errno that killed the connection
	_Atomic int abort_err; ///< set by the monitor: the poke fails the connection with it
	uint16_t qid;
	bool mw;             ///< per-command memory windows and invalidation
	bool fdmode;         ///< the caller waits on the completion channel's fd
	bool armed;          ///< the CQ asked for an event that was not consumed yet
	uint32_t ncmds;      ///< slots: CIDs 0..ncmds-1
	uint32_t nrecv;      ///< receive buffers posted
	uint32_t icd_max;    ///< in-capsule data bytes of this queue
	uint32_t icd_room;   ///< bytes after the SQE in each capsule buffer
	uint32_t max_inline; ///< inline bytes of the QP's sends
	uint64_t timeout_ns;
	uint64_t next_scan_ns; ///< when to look for expired commands again
	uint32_t nactive;
	uint32_t ncompleted; ///< running count, lets a synchronous caller see its completion
	uint32_t nreported;  ///< deliveries pokes returned: a poke counts only its own
	uint32_t ncqev;      ///< completion events read and not acknowledged yet
	uint32_t nidle;      ///< pokes in a row that found nothing
	int qopts;           ///< the xnvme_queue's flags (XNVME_QUEUE_POKE_SPIN)
	_Atomic uint64_t wd_timeout;     ///< timeout_ns, for the monitor
	_Atomic uint32_t wd_active;      ///< nactive, for the monitor
	_Atomic uint64_t wd_stamp;       ///< coarse time of the last progress, for the monitor
	xnvme_rdma_complete_fn complete; ///< NULL on synchronous connections
	void *arg;

	uint8_t *capsules; ///< ncmds x (64 + icd_room), registered
	struct ibv_mr *capsule_mr;
	uint8_t *rsps; ///< nrecv x XNVME_RDMA_RSP_BUF, registered
	struct ibv_mr *rsp_mr;
	struct ibv_recv_wr *rwr;
	struct ibv_sge *rsge;

	/* work requests built since the last post, linked */
	struct ibv_send_wr *sq_head;
	struct ibv_send_wr *sq_tail;
	uint32_t sq_pending;
	struct ibv_recv_wr *rq_head;
	struct ibv_recv_wr *rq_tail;

	/* completed commands not delivered yet (a poke's max) */
	uint16_t *ready;
	uint32_t ready_head;
	uint32_t ready_tail;
	uint32_t ready_mask;

	uint16_t *free;
	uint32_t nfree;
	struct xnvme_rdma_cmd_state *st;
	struct xnvme_rdma_slot *slots;
	struct xnvme_rdma_mrcache mrc;
	struct xnvme_rdma_conn *mon_next; ///< the monitor's list
};

/** Receive buffer bytes: room to see (and refuse) a response longer than a CQE */
#define XNVME_RDMA_RSP_BUF 64

/**
 * The connection's memory without verbs: slots, command capsules, response buffers and the
 * work requests' fixed parts (conn_open registers and posts them; the fuzzer drives a
 * connection made only by this). 0, -EINVAL, -ENOMEM (nothing to free then).
 */
int
xnvme_rdma_conn_init(struct xnvme_rdma_conn *conn, struct xnvme_rdma_dev *rd, uint16_t qid,
		     uint32_t ncmds, uint32_t icd_room);

/** Frees what xnvme_rdma_conn_init() allocated (and bounce buffers: deregistered first) */
void
xnvme_rdma_conn_free(struct xnvme_rdma_conn *conn);

/**
 * Connects `conn` to the target as queue `qid` with `ncmds` command slots (sqsize zero-based)
 * within timeout_us: address and route resolution, QP, buffers, RDMA-CM connect with the
 * NVMe/RDMA private data. 0, or a negative errno with a reason in errmsg (nothing to close).
 */
int
xnvme_rdma_conn_open(struct xnvme_rdma_conn *conn, struct xnvme_nvmf_ctrlr *ctrlr, uint16_t qid,
		     uint32_t ncmds, uint16_t sqsize, char *errmsg, size_t errmsg_len);

/**
 * Deallocates the slots' memory windows. A window still bound to a buffer (a command failed
 * or abandoned before the target or the initiator invalidated it) holds the QP and the
 * buffer's registration: neither could be destroyed while it lives.
 */
void
xnvme_rdma_conn_unbind(struct xnvme_rdma_conn *conn);

/** Disconnects and frees; outstanding commands are abandoned */
void
xnvme_rdma_conn_close(struct xnvme_rdma_conn *conn);

/**
 * Queues a command for the next post. 0, -EBUSY (no free slot), -ENOTCONN (dead connection),
 * -EINVAL (too many segments, transfer too large), -ENOTSUP (separate metadata), -ENOMEM (a
 * bounce buffer could not be registered).
 */
int
xnvme_rdma_conn_submit(struct xnvme_rdma_conn *conn, struct xnvme_cmd_ctx *ctx, void *dbuf,
		       const struct iovec *iov, uint32_t iovcnt, size_t nbytes, void *mbuf,
		       size_t mbuf_nbytes);

/** Posts what is queued: 0, or a negative errno (the connection failed) */
int
xnvme_rdma_conn_post(struct xnvme_rdma_conn *conn);

/**
 * Posts what is queued and processes every completion the CQ holds, delivering up to `max`
 * commands (0: no limit) through conn->complete. Returns the number delivered, or a negative
 * errno when the connection died and nothing was delivered by this call.
 */
int
xnvme_rdma_conn_poke(struct xnvme_rdma_conn *conn, uint32_t max);

/**
 * Waits up to `timeout_ms` for a completion on the channel (arming the CQ first; a CQ that
 * is not empty returns at once). 0, or a negative errno of poll.
 */
int
xnvme_rdma_conn_wait(struct xnvme_rdma_conn *conn, int timeout_ms);

/** From then on pokes keep the completion channel's fd meaningful (see conn_io.c) */
int
xnvme_rdma_conn_fd(struct xnvme_rdma_conn *conn);

/**
 * Processes work completions (the CQ's, or a fuzzer's) without delivering: commands that
 * became complete wait in the ready ring
 */
void
xnvme_rdma_conn_process(struct xnvme_rdma_conn *conn, const struct ibv_wc *wc, int n);

/** Delivers up to `max` (0: all) commands of the ready ring; the number delivered */
uint32_t
xnvme_rdma_conn_deliver(struct xnvme_rdma_conn *conn, uint32_t max);

/** Kills the connection: every outstanding command completes with `err` folded into cpl */
void
xnvme_rdma_conn_fail(struct xnvme_rdma_conn *conn, int err);

/** Runs one command to completion (caller serialises); 0, -EIO or a negative errno */
int
xnvme_rdma_conn_run(struct xnvme_rdma_conn *conn, struct xnvme_cmd_ctx *ctx, void *dbuf,
		    size_t dbuf_nbytes, const struct iovec *iov, uint32_t iovcnt, void *mbuf,
		    size_t mbuf_nbytes);

/** From another thread (the monitor): fails the connection at its next poke, QP to error */
void
xnvme_rdma_conn_abort(struct xnvme_rdma_conn *conn, int err);

/* ------------------------------------------------------------------------------------------ */
/* The transport (be.c) and the async mechanism (async.c)                                      */
/* ------------------------------------------------------------------------------------------ */

/** check_support of the rdma mechanisms: a device the rdma backend opened */
int
xnvme_be_rdma_check_support(struct xnvme_dev *dev);

/** The backend (lib/be/registry.def), its transport and its async mechanism */
extern const struct xnvme_be xnvme_be_rdma;
extern const struct xnvme_nvmf_transport xnvme_rdma_transport;
extern const struct xnvme_be_async xnvme_be_rdma_async;

#endif /* XNVME_RDMA_H */
