/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * The "tcp" backend: a user-space NVMe/TCP initiator (not installed), the NVMe/TCP transport
 * under the shared NVMe over Fabrics layer (../nvmf/nvmf.h).
 *
 * A connection is a non-blocking socket with a command slot per CID: slots, their PDU headers
 * and a receive staging buffer are allocated when the connection is set up, never per
 * command. Every xnvme_queue gets a connection of its own, used by one thread at a time like
 * any queue. Any protocol violation, digest error, timeout or lost connection fails every
 * command of that connection and leaves it dead (later commands fail with -ENOTCONN).
 */
#ifndef XNVME_TCP_H
#define XNVME_TCP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "../nvmf/nvmf.h"
#include "tcp_spec.h"

/* ------------------------------------------------------------------------------------------ */
/* CRC32C (crc32c.c)                                                                          */
/* ------------------------------------------------------------------------------------------ */

/** Continues a CRC32C over `len` bytes; start with ~0U and complement the result */
uint32_t
xnvme_tcp_crc32c(uint32_t crc, const void *buf, size_t len);

/** The NVMe/TCP digest of a buffer: CRC32C, initial and final XOR all ones */
static inline uint32_t
xnvme_tcp_digest(const void *buf, size_t len)
{
	return ~xnvme_tcp_crc32c(~0U, buf, len);
}

/** The portable slice-by-8 implementation (used without SSE4.2; the fuzzer compares both) */
uint32_t
xnvme_tcp_crc32c_sw(uint32_t crc, const void *buf, size_t len);

/* ------------------------------------------------------------------------------------------ */
/* PDU parser (pdu.c): pure functions, no I/O                                                 */
/* ------------------------------------------------------------------------------------------ */

/** What the initiator knows when a PDU arrives */
struct xnvme_tcp_limits {
	uint32_t ncmds; ///< command slots: valid CIDs are 0..ncmds-1
	uint8_t hdgst;  ///< header digests negotiated
	uint8_t ddgst;  ///< data digests negotiated
};

enum xnvme_tcp_dir {
	XNVME_TCP_DIR_NONE = 0,
	XNVME_TCP_DIR_H2C = 1, ///< write: host to controller
	XNVME_TCP_DIR_C2H = 2, ///< read: controller to host
};
_Static_assert(XNVME_TCP_DIR_H2C == (int)XNVME_NVMF_DIR_H2C &&
		       XNVME_TCP_DIR_C2H == (int)XNVME_NVMF_DIR_C2H,
	       "xnvme_nvmf_cmd_dir() gives the parser's directions");

/** The state of one CID as far as the parser needs it */
struct xnvme_tcp_cmd_state {
	uint32_t nbytes;   ///< data length of the command
	uint32_t done;     ///< C2H: bytes received; H2C: bytes requested by R2Ts so far
	uint8_t active;    ///< the CID is outstanding
	uint8_t dir;       ///< enum xnvme_tcp_dir
	uint8_t r2t_busy;  ///< H2C: an R2T is being served (MAXR2T is 1)
	uint8_t incapsule; ///< H2C: the data went in the capsule (no R2T expected)
};

/** A validated controller-to-host PDU header */
struct xnvme_tcp_pdu {
	uint8_t type;
	uint8_t flags;
	uint16_t cid;
	uint16_t ttag;
	uint16_t fes; ///< termination: fatal error status
	uint32_t plen;
	uint32_t off;              ///< C2HData datao / R2T r2to
	uint32_t len;              ///< C2HData datal / R2T r2tl / termination data bytes
	struct xnvme_spec_cpl cqe; ///< CapsuleResp
};

/** Largest header (with digest) of a PDU the initiator receives after ICResp */
#define XNVME_TCP_RX_HDR_MAX (24 + XNVME_TCP_DIGEST_LEN)

/**
 * Checks a common header received from a controller: known type, header length of that type,
 * digest flags as negotiated, data offset and PDU length consistent. Sets `*hdr_nbytes` to the
 * header length including its digest (for a termination PDU: the whole PDU). 0 or -EPROTO.
 */
int
xnvme_tcp_pdu_check_ch(const uint8_t *ch, const struct xnvme_tcp_limits *lim, uint32_t *hdr_nbytes);

/**
 * Validates a whole PDU header (`len` bytes: common header, type header and header digest)
 * against the limits and the outstanding commands `cmds[0..lim->ncmds-1]`, and decodes it.
 * Returns 0, -EPROTO (framing, length, offset or CID error) or -EBADMSG (header digest).
 */
int
xnvme_tcp_pdu_parse(const uint8_t *hdr, size_t len, const struct xnvme_tcp_limits *lim,
		    const struct xnvme_tcp_cmd_state *cmds, struct xnvme_tcp_pdu *pdu);

/* ------------------------------------------------------------------------------------------ */
/* Connections (conn.c, conn_rx.c, conn_tx.c)                                                 */
/* ------------------------------------------------------------------------------------------ */

#define XNVME_TCP_IOV_MAX 16 ///< data segments per command (cmd_iov)

struct xnvme_tcp_slot {
	struct xnvme_cmd_ctx *ctx;
	struct iovec
		iov[XNVME_TCP_IOV_MAX]; ///< the caller's data (copied: callers may reuse theirs)
	uint32_t iovcnt;
	uint64_t deadline_ns;
	uint32_t r2t_off; ///< H2C: next offset to send of the current R2T
	uint32_t r2t_end;
	uint16_t ttag;
	uint8_t txkind;    ///< XNVME_TCP_TX_CMD or XNVME_TCP_TX_H2C
	uint8_t txpending; ///< the slot's PDU is queued or being written
	/* the PDU being transmitted for this slot */
	uint8_t hdr[72 + XNVME_TCP_DIGEST_LEN + 128];
	uint32_t ddgst;
	struct iovec tx[XNVME_TCP_IOV_MAX + 3];
	uint32_t txcnt;
	uint32_t txlen;
};

#define XNVME_TCP_TX_CMD 0
#define XNVME_TCP_TX_H2C 1

struct xnvme_tcp_conn;
/** Called for every completed command, after its CID is free again; ctx->cpl is final */
typedef void (*xnvme_tcp_complete_fn)(struct xnvme_tcp_conn *conn, struct xnvme_cmd_ctx *ctx);

enum xnvme_tcp_rx_state {
	XNVME_TCP_RX_CH = 0, ///< expecting a PDU header
	XNVME_TCP_RX_DATA,   ///< C2HData payload of conn->pdu
	XNVME_TCP_RX_DDGST,  ///< its data digest
};

/** Bytes of a connection's receive staging buffer */
#define XNVME_TCP_RXB_NBYTES (128U * 1024U)
/** C2HData payload still to come from which recvmsg scatters straight into the caller's buffer */
#define XNVME_TCP_RX_DIRECT_MIN (16U * 1024U)

struct xnvme_tcp_conn {
	int fd;
	int err; ///< 0 while healthy; the negative errno that killed the connection
	struct xnvme_tcp_limits lim;
	uint32_t cpda_nbytes; ///< data alignment of host-to-controller PDUs
	uint32_t maxh2cdata;
	uint32_t icd_max; ///< in-capsule data bytes this queue accepts
	uint64_t timeout_ns;
	uint64_t next_scan_ns; ///< when to look for expired commands again
	uint32_t nactive;
	uint32_t ncompleted; ///< running count, lets a synchronous caller see its completion
	xnvme_tcp_complete_fn complete; ///< NULL on synchronous connections
	void *arg;

	/*
	 * receive: a staging buffer that one recvmsg fills with as many PDUs as have arrived
	 * (rxb[rxb_head..rxb_tail) not parsed yet); headers are parsed in place, data copied
	 * out, large C2HData payloads received straight into the caller's buffer
	 */
	enum xnvme_tcp_rx_state rx;
	uint32_t rx_got; ///< RX_DATA: payload bytes of conn->pdu received so far
	uint8_t *rxb;
	uint32_t rxb_head;
	uint32_t rxb_tail;
	struct xnvme_tcp_pdu pdu; ///< the PDU being received

	/* transmit: ring of slot indices whose PDU waits to be sent; tx_off into the head PDU */
	uint16_t *txq;
	uint32_t txq_head;
	uint32_t txq_tail;
	uint32_t txq_mask;
	uint32_t tx_off;

	uint16_t *free;
	uint32_t nfree;
	struct xnvme_tcp_cmd_state *st;
	struct xnvme_tcp_slot *slots;
};

/**
 * Allocates `ncmds` command slots and the buffers of a connection without a socket (fd -1;
 * conn_open connects and negotiates; the fuzzer attaches a socket pair). 0, -EINVAL, -ENOMEM.
 */
int
xnvme_tcp_conn_init(struct xnvme_tcp_conn *conn, uint32_t ncmds);

/** Connects and negotiates (ICReq/ICResp) with `ncmds` command slots; 0 or negative errno */
int
xnvme_tcp_conn_open(struct xnvme_tcp_conn *conn, const struct xnvme_nvmf_target *tgt,
		    uint32_t ncmds, uint64_t timeout_us, char *errmsg, size_t errmsg_len);

/** Closes the socket and frees the slots; outstanding commands are abandoned */
void
xnvme_tcp_conn_close(struct xnvme_tcp_conn *conn);

/**
 * Queues a command (its SQE in ctx->cmd, data in iov, direction from the opcode) for the next
 * flush. 0, -EBUSY (no free slot), -ENOTCONN (dead connection), -EINVAL (too many segments,
 * transfer too large), -ENOTSUP (separate metadata).
 */
int
xnvme_tcp_conn_submit(struct xnvme_tcp_conn *conn, struct xnvme_cmd_ctx *ctx, void *dbuf,
		      const struct iovec *iov, uint32_t iovcnt, size_t nbytes, void *mbuf,
		      size_t mbuf_nbytes);

/**
 * Sends what is queued and processes what has arrived, completing up to `max` commands (0: no
 * limit) through conn->complete. Returns the number completed, or a negative errno when the
 * connection died and nothing was completed by this call.
 */
int
xnvme_tcp_conn_poke(struct xnvme_tcp_conn *conn, uint32_t max);

/** Kills the connection: every outstanding command completes with `err` folded into cpl */
void
xnvme_tcp_conn_fail(struct xnvme_tcp_conn *conn, int err);

/** Fails the connection with -ETIMEDOUT when a command's deadline is at or before `now_ns` */
void
xnvme_tcp_conn_expire(struct xnvme_tcp_conn *conn, uint64_t now_ns);

/** Runs one command to completion on a connection (caller serialises); 0, -EIO or errno */
int
xnvme_tcp_conn_run(struct xnvme_tcp_conn *conn, struct xnvme_cmd_ctx *ctx, void *dbuf,
		   size_t dbuf_nbytes, const struct iovec *iov, uint32_t iovcnt, void *mbuf,
		   size_t mbuf_nbytes);

/* internal to conn*.c */
int
xnvme_tcp_conn_flush(struct xnvme_tcp_conn *conn);
void
xnvme_tcp_conn_txq_push(struct xnvme_tcp_conn *conn, uint16_t cid);
/** Builds the next H2CData PDU of slot `cid`'s R2T; 0, or -EPROTO (nothing built) */
int
xnvme_tcp_slot_build_h2c(struct xnvme_tcp_conn *conn, uint16_t cid);
uint32_t
xnvme_tcp_iov_slice(const struct iovec *iov, uint32_t iovcnt, size_t off, size_t len,
		    struct iovec *out, uint32_t outmax);
int
xnvme_tcp_conn_recv(struct xnvme_tcp_conn *conn, uint32_t max);
void
xnvme_tcp_slot_complete(struct xnvme_tcp_conn *conn, uint16_t cid);

/* ------------------------------------------------------------------------------------------ */
/* The transport (be.c) and the async mechanism (async.c)                                      */
/* ------------------------------------------------------------------------------------------ */

/** check_support of the tcp mechanisms: a device the tcp backend opened */
int
xnvme_be_tcp_check_support(struct xnvme_dev *dev);

/** The backend (lib/be/registry.def), its transport and its async mechanism */
extern const struct xnvme_be xnvme_be_tcp;
extern const struct xnvme_nvmf_transport xnvme_tcp_transport;
extern const struct xnvme_be_async xnvme_be_tcp_async;

#endif /* XNVME_TCP_H */
