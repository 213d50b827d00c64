/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * NVMe over Fabrics without the transport (not installed): what the "tcp" and "rdma" backends
 * share. A transport (struct xnvme_nvmf_transport) brings connections that run commands; this
 * layer opens the target with them: the admin connection (Fabrics Connect to queue 0 with a
 * dynamic controller), Property Get/Set of CAP, VS, CC and CSTS, controller enable and
 * shutdown, Identify, Number of Queues, Keep Alive, I/O queue IDs, the discovery log and
 * xnvme_enumerate(), and the admin and synchronous I/O mechanisms.
 *
 * A device handle (dev->state: struct xnvme_nvmf_ctrlr) holds the admin connection (queue 0)
 * and a connection for synchronous I/O (queue 1), each behind a mutex; every xnvme_queue of the
 * transport's async mechanism opens a connection of its own (queue 2, 3, ...).
 */
#ifndef XNVME_NVMF_H
#define XNVME_NVMF_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "xnvme_be.h"
#include "nvmf_spec.h"

/** Where a connection goes and how (from the URI and options) */
struct xnvme_nvmf_target {
	char host[256];
	char port[16];
	int family; ///< AF_INET, AF_INET6 or AF_UNSPEC
	char subnqn[256];
	char hostnqn[256];
	uint8_t hostid[16];
	bool hdgst;     ///< TCP: header digests asked for ("?hdgst=1")
	bool ddgst;     ///< TCP: data digests asked for ("?ddgst=1")
	bool rdma_nomw; ///< RDMA: no memory windows, the regions' own keys ("?mw=0")
	uint32_t kato_ms;
	uint64_t admin_timeout_us;
	uint64_t io_timeout_us;
};

struct xnvme_nvmf_ctrlr;

/** conn_set(): leave the in-capsule data size as the transport set it */
#define XNVME_NVMF_ICD_KEEP UINT32_MAX

/**
 * A transport: how connections are made and commands run on them. A connection is memory of
 * conn_nbytes owned by its user (the layer for the admin and sync connections, the async
 * mechanism for its queues); the transport owns what it points at.
 */
struct xnvme_nvmf_transport {
	const char *name;   ///< the backend's name, also that of its admin/sync/async mechanisms
	uint8_t trtype;     ///< TRTYPE of this transport in discovery log entries
	size_t conn_nbytes; ///< bytes of a connection
	/** A URI query option "key=value" other than subnqn: 0, or -EINVAL when not known */
	int (*uri_opt)(struct xnvme_nvmf_target *tgt, const char *kv);
	const char *uri_opts; ///< the URI options known, for the message about an unknown one
	/** Sets up ctrlr->tstate before the first connection (NULL: nothing to set up) */
	int (*init)(struct xnvme_nvmf_ctrlr *ctrlr);
	/** Releases ctrlr->tstate after the last connection closed */
	void (*fini)(struct xnvme_nvmf_ctrlr *ctrlr);
	/**
	 * Establishes the connection of queue `qid` (`ncmds` command slots, `sqsize` entries
	 * zero-based) up to where Fabrics Connect follows, within ctrlr->tgt.admin_timeout_us.
	 * 0, or a negative errno and a reason in errmsg; nothing to close on failure.
	 */
	int (*conn_open)(struct xnvme_nvmf_ctrlr *ctrlr, void *conn, uint16_t qid, uint32_t ncmds,
			 uint16_t sqsize, char *errmsg, size_t errmsg_len);
	/** Closes the connection; outstanding commands are abandoned */
	void (*conn_close)(void *conn);
	/**
	 * Runs one command to completion (the caller serialises): 0, -EIO with the NVMe status in
	 * ctx->cpl, or a negative errno (also folded into ctx->cpl)
	 */
	int (*conn_run)(void *conn, struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes,
			const struct iovec *iov, uint32_t iovcnt, void *mbuf, size_t mbuf_nbytes);
	/** The command timeout (0: none) and the in-capsule data bytes (XNVME_NVMF_ICD_KEEP) */
	void (*conn_set)(void *conn, uint64_t timeout_ns, uint32_t icd_max);
	/** 0 while the connection is usable, else the negative errno that ended it */
	int (*conn_err)(const void *conn);
};

/** Device state: dev->state */
struct xnvme_nvmf_ctrlr {
	const struct xnvme_nvmf_transport *tr;
	void *tstate; ///< the transport's (tr->init)
	struct xnvme_nvmf_target tgt;
	void *admin; ///< connection of queue 0
	void *sync;  ///< connection of queue 1; NULL on a discovery controller (no I/O queues)
	pthread_mutex_t admin_lock;
	pthread_mutex_t sync_lock;
	pthread_mutex_t qid_lock;
	/* Keep Alive: a thread sends one on the admin connection every KATO / 2 */
	pthread_t ka_thread;
	pthread_mutex_t ka_lock;
	pthread_cond_t ka_cond;
	bool ka_running;
	bool ka_stop;
	uint64_t cap;
	uint32_t vs;
	uint32_t icd_max;  ///< in-capsule data bytes of I/O queues (IOCCSZ)
	uint16_t cntlid;   ///< the controller the admin Connect made
	uint16_t mqes;     ///< largest I/O queue, zero-based
	uint16_t nqids;    ///< queue IDs granted: 1..nqids-1 (Set Features Number of Queues)
	uint16_t qid_next; ///< where the search for a free queue ID starts (round robin)
	uint8_t qid_used[1024];
};

/** CLOCK_MONOTONIC in ns */
uint64_t
xnvme_nvmf_now_ns(void);

/** CLOCK_MONOTONIC_COARSE in ns (a few ms resolution): command deadlines on the hot path */
uint64_t
xnvme_nvmf_coarse_ns(void);

/* ------------------------------------------------------------------------------------------ */
/* Per command, for the transports' submission paths                                          */
/* ------------------------------------------------------------------------------------------ */

enum xnvme_nvmf_dir {
	XNVME_NVMF_DIR_NONE = 0,
	XNVME_NVMF_DIR_H2C = 1, ///< write: host to controller
	XNVME_NVMF_DIR_C2H = 2, ///< read: controller to host
};

/** The data direction of a command: its opcode's low bits (Fabrics commands: fctype's) */
static inline uint8_t
xnvme_nvmf_cmd_dir(const struct xnvme_cmd_ctx *ctx)
{
	uint8_t opc = ctx->cmd.common.opcode;

	if (opc == XNVME_FABRICS_OPC) {
		opc = ((const uint8_t *)&ctx->cmd)[4]; /* fctype follows the same convention */
	}
	switch (opc & 0x3) {
	case 1:
		return XNVME_NVMF_DIR_H2C;
	case 2:
		return XNVME_NVMF_DIR_C2H;
	default:
		return XNVME_NVMF_DIR_NONE;
	}
}

/**
 * The bytes a command moves in direction `dir`: the iovec lengths when `iov` is given (the
 * caller's total is advisory), else *nbytes; 0 for a command without data. -EINVAL for more
 * than `iov_max` segments, a NULL segment or buffer with bytes, or more than `max` bytes.
 */
static inline int
xnvme_nvmf_xfer_nbytes(uint8_t dir, const void *dbuf, const struct iovec *iov, uint32_t iovcnt,
		       uint32_t iov_max, size_t max, size_t *nbytes)
{
	if (XNVME_BE_UNLIKELY(iovcnt > iov_max || (!iov && iovcnt))) {
		return -EINVAL;
	}
	if (iov) {
		*nbytes = 0;
		for (uint32_t i = 0; i < iovcnt; ++i) {
			if (XNVME_BE_UNLIKELY(!iov[i].iov_base && iov[i].iov_len)) {
				return -EINVAL;
			}
			*nbytes += iov[i].iov_len;
			if (XNVME_BE_UNLIKELY(*nbytes < iov[i].iov_len)) {
				return -EINVAL;
			}
		}
	}
	if (XNVME_BE_UNLIKELY(*nbytes > max)) {
		return -EINVAL;
	}
	if (dir == XNVME_NVMF_DIR_NONE) {
		*nbytes = 0;
	}
	return (XNVME_BE_UNLIKELY(!iov && !dbuf && *nbytes)) ? -EINVAL : 0;
}

/**
 * What running one command to completion returns: the connection's errno when it failed the
 * command, -EIO for an NVMe status, else 0
 */
static inline int
xnvme_nvmf_run_result(const struct xnvme_cmd_ctx *ctx, int conn_err)
{
	if (ctx->cpl.status.sct == XNVME_STATUS_CODE_TYPE_VENDOR && conn_err) {
		return conn_err;
	}
	return (ctx->cpl.status.sc || ctx->cpl.status.sct) ? -EIO : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Targets (target.c)                                                                           */
/* ------------------------------------------------------------------------------------------ */

/**
 * Parses "host:port" and "[v6]:port" with an optional "?key=value&..." (subnqn, and what
 * tr->uri_opt knows). -ENXIO when the URI has another form, -EINVAL for an unknown option.
 */
int
xnvme_nvmf_uri_parse(const struct xnvme_nvmf_transport *tr, const char *uri,
		     struct xnvme_nvmf_target *tgt);

/**
 * A fabrics backend's claim on a URI (struct xnvme_be_dev's uri_claim): a target address as
 * xnvme_nvmf_uri_parse() reads it. tcp and rdma take the same addresses, so both claim it.
 */
enum xnvme_be_uri_claim
xnvme_nvmf_uri_claim(const struct xnvme_nvmf_transport *tr, const char *uri);

/* ------------------------------------------------------------------------------------------ */
/* Fabrics commands (fabrics.c), on a connection of transport `tr`                              */
/* ------------------------------------------------------------------------------------------ */

/** Fabrics Connect as queue `qid` with `sqsize` (zero-based) entries; *cntlid_out on success */
int
xnvme_nvmf_connect(struct xnvme_nvmf_ctrlr *ctrlr, void *conn, uint16_t qid, uint16_t sqsize,
		   uint16_t cntlid, uint16_t *cntlid_out);
int
xnvme_nvmf_prop_get(struct xnvme_nvmf_ctrlr *ctrlr, void *conn, uint32_t ofst, int eight,
		    uint64_t *value);
int
xnvme_nvmf_prop_set(struct xnvme_nvmf_ctrlr *ctrlr, void *conn, uint32_t ofst, int eight,
		    uint64_t value);
/** Enables the controller (CC.EN, waits for CSTS.RDY within CAP.TO) */
int
xnvme_nvmf_ctrlr_enable(struct xnvme_nvmf_ctrlr *ctrlr);
/** Normal shutdown (CC.SHN), waits for CSTS.SHST up to `timeout_ms` */
int
xnvme_nvmf_ctrlr_shutdown(struct xnvme_nvmf_ctrlr *ctrlr, uint32_t timeout_ms);

/* ------------------------------------------------------------------------------------------ */
/* Devices (ctrlr.c, keepalive.c), queues, discovery (discover.c), mechanisms (mech.c)          */
/* ------------------------------------------------------------------------------------------ */

/** be->dev->dev_open of a fabrics backend over transport `tr` */
int
xnvme_nvmf_dev_open(struct xnvme_dev *dev, const struct xnvme_nvmf_transport *tr);

/** be->dev->dev_close of a fabrics backend */
void
xnvme_nvmf_dev_close(struct xnvme_dev *dev);

int
xnvme_nvmf_keep_alive_start(struct xnvme_nvmf_ctrlr *ctrlr);
void
xnvme_nvmf_keep_alive_stop(struct xnvme_nvmf_ctrlr *ctrlr);

/**
 * Opens one more connection (`conn`, tr->conn_nbytes) for an I/O queue of `ncmds` commands
 * and Connects it with a queue ID chosen here (*qid). 0, -ENOTSUP (discovery controller),
 * -EINVAL (more than CAP.MQES), -EBUSY (no queue ID left) or the connection's error.
 */
int
xnvme_nvmf_ioconn_open(struct xnvme_dev *dev, void *conn, uint32_t ncmds, uint16_t *qid);

/** Closes a connection of xnvme_nvmf_ioconn_open() and frees its queue ID */
void
xnvme_nvmf_ioconn_close(struct xnvme_dev *dev, void *conn, uint16_t qid);

/** Lists the NVM subsystems a discovery controller at sys_uri offers on transport `tr` */
int
xnvme_nvmf_enumerate(const struct xnvme_nvmf_transport *tr, const char *sys_uri,
		     struct xnvme_opts *opts, xnvme_enumerate_cb cb_func, void *cb_args);

/**
 * The check_support of a fabrics backend's admin, sync and async mechanisms: 0 for a device
 * that backend `be` opened, else -ENOTSUP with a reason in dev->errmsg
 */
int
xnvme_nvmf_check_support(struct xnvme_dev *dev, const struct xnvme_be *be);

/** The admin mechanism's cmd_admin: one command at a time on the admin connection */
int
xnvme_nvmf_cmd_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		     size_t mbuf_nbytes);

/** The admin mechanism's pseudo: none of them exist on a fabric (-ENOSYS) */
int
xnvme_nvmf_admin_pseudo(struct xnvme_dev *dev, enum xnvme_be_pseudo op, void *buf, size_t nbytes);

/** The sync mechanism: one command at a time on the sync connection (-ENOTSUP: no I/O queues) */
int
xnvme_nvmf_sync_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		   size_t mbuf_nbytes);
int
xnvme_nvmf_sync_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
		    size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes);

#endif /* XNVME_NVMF_H */
