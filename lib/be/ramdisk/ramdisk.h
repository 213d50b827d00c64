/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Internal interface of the ramdisk backend (not installed).
 *
 * A ramdisk is an in-memory NVMe controller with one namespace. Every handle opened on the same
 * URI shares one `struct ramdisk` (process-wide registry in dev.c), so data, statistics, feature
 * values and the error log survive close and reopen as long as one handle stays open, and are
 * seen by every handle at once.
 *
 * The namespace behaviour is selected through a per-namespace operations table (`ns`), one per
 * command set. Only NVM exists today; zoned, key-value or FDP emulation add a table in a file of
 * their own and pick it at open.
 */
#ifndef XNVME_BE_RAMDISK_H
#define XNVME_BE_RAMDISK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "xnvme_be.h"

#define RAMDISK_NSID 1
#define RAMDISK_LBA_SHIFT 9
#define RAMDISK_LBA_NBYTES (1U << RAMDISK_LBA_SHIFT)

/** MDTS in units of the 4 KiB minimum page size: 2^7 * 4 KiB = 512 KiB */
#define RAMDISK_MDTS 7
#define RAMDISK_MDTS_NBYTES (1U << (RAMDISK_MDTS + 12))

/** Simple Copy limits: LBAs per source range, LBAs per command, ranges (zero-based) */
#define RAMDISK_MSSRL 128
#define RAMDISK_MCL 128
#define RAMDISK_MSRC 127

/** Dataset Management: most ranges in one command (nr is 8 bits, zero-based) */
#define RAMDISK_DSM_NRANGES_MAX 256

#define RAMDISK_ERRLOG_NENTRIES 64

/** Number of I/O queues reported through the feature (zero-based, submission and completion) */
#define RAMDISK_NQUEUES 63

/** Temperatures in Kelvin */
#define RAMDISK_TEMP_K 300
#define RAMDISK_WCTEMP_K 343
#define RAMDISK_CCTEMP_K 358

/* Status codes used by the emulation; generic (sct 0) unless noted */
#define RAMDISK_SC_INVALID_OPCODE 0x01
#define RAMDISK_SC_INVALID_FIELD 0x02
#define RAMDISK_SC_INVALID_NS 0x0B
#define RAMDISK_SC_LBA_RANGE 0x80
#define RAMDISK_SC_INVALID_LOG_PAGE 0x09  ///< sct 1
#define RAMDISK_SC_FEAT_NOT_SAVEABLE 0x0D ///< sct 1
#define RAMDISK_SC_CMD_SIZE_LIMIT 0x83    ///< sct 1
#define RAMDISK_SC_UNRECOVERED_READ 0x81  ///< sct 2
#define RAMDISK_SC_COMPARE_FAILURE 0x85   ///< sct 2

/* Commands Supported and Effects log bits */
#define RAMDISK_EFFECT_CSUPP (1U << 0) ///< command supported
#define RAMDISK_EFFECT_LBCC (1U << 1)  ///< logical block content change

struct ramdisk;

/**
 * The data buffer of a command, contiguous or vectored, with the number of bytes the caller
 * provided. Commands never touch more than `nbytes` of it. `bad` is set when the caller passed a
 * length with no memory behind it (NULL base).
 */
struct ramdisk_payload {
	const struct iovec *iov;
	size_t iovcnt;
	size_t nbytes;
	bool bad;
	struct iovec one; ///< backs `iov` for a contiguous buffer; never copy the struct
};

/** Per-namespace behaviour, one table per command set */
struct ramdisk_ns_ops {
	uint8_t csi;
	/** Executes an I/O command: 0, or -EIO with the status set in ctx->cpl */
	int (*cmd_io)(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx,
		      const struct ramdisk_payload *pl);
	/** Identify I/O command set specific namespace (CNS 0x05) for this csi, 4096 bytes */
	void (*idfy_ns_css)(const struct ramdisk *rd, void *buf);
	/** Identify I/O command set specific controller (CNS 0x06) for this csi, 4096 bytes */
	void (*idfy_ctrlr_css)(const struct ramdisk *rd, void *buf);
	/** Fills the I/O part (256 dwords) of the Commands Supported and Effects log */
	void (*effects)(uint32_t *iocs);
};

extern const struct ramdisk_ns_ops xnvme_ramdisk_ns_nvm;

/* The backend's own mechanisms (dev.c, admin.c, sync.c), listed by be.c */
extern const struct xnvme_be_dev xnvme_be_ramdisk_dev;
extern const struct xnvme_be_admin xnvme_be_ramdisk_admin;
extern const struct xnvme_be_sync xnvme_be_ramdisk_sync;

/** LBAs marked by Write Uncorrectable; the bitmap is allocated on first use */
struct ramdisk_unc {
	pthread_mutex_t lock;          ///< serialises updates of map and nset
	_Atomic(_Atomic uint64_t *) map; ///< one bit per LBA, published once
	size_t map_nbytes;
	_Atomic uint64_t nset; ///< marked LBAs; 0 keeps the I/O path free of bitmap lookups
};

/** Counters for the SMART / Health log; updated concurrently by I/O threads */
struct ramdisk_stats {
	_Atomic uint64_t read_nbytes;
	_Atomic uint64_t write_nbytes;
	_Atomic uint64_t read_cmds;
	_Atomic uint64_t write_cmds;
	_Atomic uint64_t media_errs;
};

/** Current feature values (the controller has no saved values) */
struct ramdisk_feat {
	_Atomic uint32_t arbitration;
	_Atomic uint32_t pwr_mgmt;
	_Atomic uint32_t error_recovery;
	_Atomic uint32_t vwc;
	_Atomic uint32_t tmpth[2][2]; ///< [sensor: composite, 1][type: over, under]
};

struct ramdisk_errlog {
	pthread_mutex_t lock;
	uint64_t ecnt; ///< errors recorded so far; entry ecnt sits at ring[(ecnt - 1) % N]
	struct xnvme_spec_log_erri_entry ring[RAMDISK_ERRLOG_NENTRIES];
};

struct ramdisk {
	struct ramdisk *next; ///< registry link
	unsigned int refcnt;  ///< handles open on it; registry lock
	char uri[XNVME_IDENT_URI_LEN];

	uint8_t *mem;
	uint64_t nbytes;
	uint64_t nlbas;

	const struct ramdisk_ns_ops *ns;

	struct timespec created; ///< power-on time, CLOCK_MONOTONIC
	uint8_t nguid[16];       ///< derived from the URI: stable across runs
	uint64_t eui64;

	struct ramdisk_unc unc;
	struct ramdisk_stats stats;
	struct ramdisk_feat feat;
	struct ramdisk_errlog errlog;
};

/** The ramdisk behind a handle opened by this backend */
static inline struct ramdisk *
ramdisk_of(const struct xnvme_dev *dev)
{
	return dev->state;
}

/** Sets an NVMe status and returns the sync mechanism's verdict for it */
static inline int
ramdisk_status(struct xnvme_cmd_ctx *ctx, uint8_t sct, uint8_t sc)
{
	xnvme_cpl_set_status(ctx, sct, sc);
	return -EIO;
}

static inline int
ramdisk_invalid_field(struct xnvme_cmd_ctx *ctx)
{
	return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, RAMDISK_SC_INVALID_FIELD);
}

static inline void
ramdisk_stat_add(_Atomic uint64_t *counter, uint64_t val)
{
	atomic_fetch_add_explicit(counter, val, memory_order_relaxed);
}

/* dev.c */
int
xnvme_ramdisk_check_support(struct xnvme_dev *dev);

/** Zeroes `nbytes` at byte offset `off`, returning whole pages to the system where possible */
void
xnvme_ramdisk_mem_zero(struct ramdisk *rd, uint64_t off, uint64_t nbytes);

/* unc.c */
void
xnvme_ramdisk_unc_init(struct ramdisk *rd);

void
xnvme_ramdisk_unc_fini(struct ramdisk *rd);

/** Marks [slba, slba + nlbas); -ENOMEM when the bitmap cannot be allocated */
int
xnvme_ramdisk_unc_mark(struct ramdisk *rd, uint64_t slba, uint64_t nlbas);

/** Clears marks of [slba, slba + nlbas); one atomic load when nothing is marked */
void
xnvme_ramdisk_unc_clear(struct ramdisk *rd, uint64_t slba, uint64_t nlbas);

/** Whether any LBA of [slba, slba + nlbas) is marked; one atomic load when nothing is marked */
bool
xnvme_ramdisk_unc_test(struct ramdisk *rd, uint64_t slba, uint64_t nlbas);

/* sync.c */
void
xnvme_ramdisk_payload_gather(const struct ramdisk_payload *pl, void *dst, size_t nbytes);

void
xnvme_ramdisk_payload_scatter(const struct ramdisk_payload *pl, const void *src, size_t nbytes);

bool
xnvme_ramdisk_payload_equal(const struct ramdisk_payload *pl, const void *mem, size_t nbytes);

/* fs.c: the file opcodes, served for every namespace type */
bool
xnvme_ramdisk_fs_is_opcode(uint8_t opcode);

int
xnvme_ramdisk_fs_cmd_io(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx,
			const struct ramdisk_payload *pl);

void
xnvme_ramdisk_fs_effects(uint32_t *iocs);

/* admin_log.c */
void
xnvme_ramdisk_errlog_init(struct ramdisk *rd);

void
xnvme_ramdisk_errlog_fini(struct ramdisk *rd);

/** Records the failed command of `ctx` (status already set) in the error log */
void
xnvme_ramdisk_errlog_add(struct ramdisk *rd, const struct xnvme_cmd_ctx *ctx, uint16_t sqid,
			 uint64_t lba);

int
xnvme_ramdisk_adm_log(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *dbuf,
		      size_t dbuf_nbytes);

/* admin_idfy.c */
int
xnvme_ramdisk_adm_idfy(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *dbuf,
		       size_t dbuf_nbytes);

/* admin_feat.c */
void
xnvme_ramdisk_feat_init(struct ramdisk *rd);

int
xnvme_ramdisk_adm_gfeat(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *dbuf,
			size_t dbuf_nbytes);

int
xnvme_ramdisk_adm_sfeat(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const void *dbuf,
			size_t dbuf_nbytes);

#endif /* XNVME_BE_RAMDISK_H */
