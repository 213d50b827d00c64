/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Internal interface of the ramdisk backend (not installed).
 *
 * A ramdisk is an in-memory NVMe controller with one namespace. Every handle opened on the same
 * URI shares one `struct ramdisk` (process-wide registry in dev.c), so data, statistics, feature
 * values and the error log survive close and reopen as long as one handle stays open, and are
 * seen by every handle at once.
 *
 * The URI selects the namespace (uri.c, docs/ramdisk.md): its command set through a
 * per-namespace operations table (`ns`: NVM in nvm.c, zoned in zoned.c, key-value in kv.c), the
 * LBA format with metadata and protection information (media.c), and Flexible Data Placement on
 * an NVM namespace (fdp.c).
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

/** The endurance group of the namespace when FDP is on */
#define RAMDISK_ENDGID 1

/* Status codes used by the emulation; generic (sct 0) unless noted */
#define RAMDISK_SC_INVALID_OPCODE 0x01
#define RAMDISK_SC_INVALID_FIELD 0x02
#define RAMDISK_SC_INVALID_NS 0x0B
#define RAMDISK_SC_LBA_RANGE 0x80
#define RAMDISK_SC_INVALID_LOG_PAGE 0x09  ///< sct 1
#define RAMDISK_SC_FEAT_NOT_SAVEABLE 0x0D ///< sct 1
#define RAMDISK_SC_INVALID_PI 0x81        ///< sct 1
#define RAMDISK_SC_CMD_SIZE_LIMIT 0x83    ///< sct 1
#define RAMDISK_SC_UNRECOVERED_READ 0x81  ///< sct 2
#define RAMDISK_SC_GUARD_CHECK 0x82       ///< sct 2
#define RAMDISK_SC_APPTAG_CHECK 0x83      ///< sct 2
#define RAMDISK_SC_REFTAG_CHECK 0x84      ///< sct 2
#define RAMDISK_SC_COMPARE_FAILURE 0x85   ///< sct 2

/* Commands Supported and Effects log bits */
#define RAMDISK_EFFECT_CSUPP (1U << 0) ///< command supported
#define RAMDISK_EFFECT_LBCC (1U << 1)  ///< logical block content change

/**
 * What a ramdisk URI asks for (uri.c): "<N>GB" alone is a 512-byte LBA NVM namespace without
 * metadata; "<N>GB?key=value,..." selects the command set, the LBA format and the zoned, FDP
 * and key-value parameters. Counts are one-based here; identify data converts them.
 */
struct ramdisk_cfg {
	uint64_t ngib;
	uint8_t csi;   ///< XNVME_SPEC_CSI_{NVM,ZONED,KV}
	uint8_t lbads; ///< LBA data size shift: 9 or 12
	uint16_t ms;   ///< metadata bytes per LBA
	bool mset;     ///< metadata interleaved with the data (extended LBA)
	uint8_t pi;    ///< protection information type 0..3
	bool pil;      ///< PI in the first bytes of the metadata
	uint8_t pif;   ///< PI format: XNVME_SPEC_NVM_NS_{16B,64B}_GUARD

	uint64_t zsze; ///< zone size, LBAs
	uint64_t zcap; ///< zone capacity, LBAs
	uint32_t mor;  ///< max open zones, 0: unlimited
	uint32_t mar;  ///< max active zones, 0: unlimited
	uint8_t zdes;  ///< zone descriptor extension size, 64-byte units

	bool fdp;
	uint16_t nruh; ///< reclaim unit handles (= placement handles of the namespace)
	uint64_t runs; ///< reclaim unit size, bytes
	uint32_t nrg;  ///< reclaim groups

	uint16_t kmax;  ///< longest key, bytes
	uint32_t vmax;  ///< largest value, bytes
	uint32_t nkeys; ///< most keys stored at once
};

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

/** What an I/O command hands its command set: the data and the separate metadata buffer */
struct ramdisk_io {
	struct ramdisk_payload data;
	struct ramdisk_payload meta; ///< empty (nbytes 0) when the caller passed none
};

/** Per-namespace behaviour, one table per command set */
struct ramdisk_ns_ops {
	uint8_t csi;
	/** Sets up the command-set state at creation: 0 or a negative errno (message in dev) */
	int (*init)(struct ramdisk *rd, struct xnvme_dev *dev);
	/** Releases what init set up; also called after a failed init */
	void (*fini)(struct ramdisk *rd);
	/** Executes an I/O command: 0, or -EIO with the status set in ctx->cpl */
	int (*cmd_io)(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_io *io);
	/** Identify I/O command set specific namespace (CNS 0x05) for this csi, 4096 bytes */
	void (*idfy_ns_css)(const struct ramdisk *rd, void *buf);
	/** Identify I/O command set specific controller (CNS 0x06) for this csi, 4096 bytes */
	void (*idfy_ctrlr_css)(const struct ramdisk *rd, void *buf);
	/** Fills the I/O part (256 dwords) of the Commands Supported and Effects log */
	void (*effects)(const struct ramdisk *rd, uint32_t *iocs);
};

extern const struct ramdisk_ns_ops xnvme_ramdisk_ns_nvm;
extern const struct ramdisk_ns_ops xnvme_ramdisk_ns_zoned;
extern const struct ramdisk_ns_ops xnvme_ramdisk_ns_kv;

/* The backend's own mechanisms (dev.c, admin.c, sync.c), listed by be.c */
/** The backend (lib/be/registry.def) and its mechanisms */
extern const struct xnvme_be xnvme_be_ramdisk;
extern const struct xnvme_be_dev xnvme_be_ramdisk_dev;
extern const struct xnvme_be_admin xnvme_be_ramdisk_admin;
extern const struct xnvme_be_sync xnvme_be_ramdisk_sync;

/** LBAs marked by Write Uncorrectable; the bitmap is allocated on first use */
struct ramdisk_unc {
	pthread_mutex_t lock;            ///< serialises updates of map and nset
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

struct ramdisk_zoned; /* zoned.c */
struct ramdisk_kv;    /* kv.c */
struct ramdisk_fdp;   /* fdp.c */

struct ramdisk {
	struct ramdisk *next; ///< registry link
	unsigned int refcnt;  ///< handles open on it; registry lock
	char uri[XNVME_IDENT_URI_LEN];
	struct ramdisk_cfg cfg;

	uint8_t *mem;    ///< LBA data; NULL for a key-value namespace
	uint64_t nbytes; ///< size of mem
	uint64_t nlbas;  ///< namespace size (whole zones on a zoned namespace)
	uint8_t lba_shift;
	/** NVM namespace without metadata nor FDP: reads and writes may take nvm_rw_fast() */
	bool rw_fast;
	uint32_t lba_nbytes;

	uint8_t *meta; ///< cfg.ms bytes per LBA, stored XOR the blank pattern (media.c)
	uint64_t meta_nbytes;
	uint8_t blank[256]; ///< what metadata of a never-written LBA reads as
	uint8_t pi_nbytes;  ///< size of the PI tuple, 0 without PI
	uint16_t pi_off;    ///< offset of the PI tuple within the metadata

	const struct ramdisk_ns_ops *ns;
	struct ramdisk_zoned *zoned;
	struct ramdisk_kv *kv;
	struct ramdisk_fdp *fdp;

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

/** Counts a host read of `nbytes` for the SMART / Health log */
static inline void
ramdisk_stat_read(struct ramdisk *rd, uint64_t nbytes)
{
	ramdisk_stat_add(&rd->stats.read_cmds, 1);
	ramdisk_stat_add(&rd->stats.read_nbytes, nbytes);
}

/** Counts a host write of `nbytes` for the SMART / Health log */
static inline void
ramdisk_stat_write(struct ramdisk *rd, uint64_t nbytes)
{
	ramdisk_stat_add(&rd->stats.write_cmds, 1);
	ramdisk_stat_add(&rd->stats.write_nbytes, nbytes);
}

static inline int
ramdisk_invalid_opcode(struct xnvme_cmd_ctx *ctx)
{
	return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, RAMDISK_SC_INVALID_OPCODE);
}

/* uri.c */

/**
 * Parses "<N>GB[?key=value,...]" into `cfg`: -ENXIO when the URI is not a ramdisk's, -EINVAL
 * (reason, naming the key, in dev->errmsg) when it is one with a bad or inconsistent option
 */
int
xnvme_ramdisk_uri_parse(struct xnvme_dev *dev, const char *uri, struct ramdisk_cfg *cfg);

/**
 * The ramdisk's claim on a URI (its dev table's uri_claim): XNVME_BE_URI_FORM for a size, the
 * URIs xnvme_ramdisk_uri_parse() does not give -ENXIO ("<N>GB" and the sizes it refuses
 * by name, such as "512MB" or "2GiB")
 */
enum xnvme_be_uri_claim
xnvme_ramdisk_uri_claim(const char *uri);

/** The URIs the ramdisk takes, for error texts (its dev table's uri_forms) */
#define XNVME_RAMDISK_URI_FORMS                                                                    \
	"<N>GB, N a whole number >= 1 of GiB (e.g. 1GB, 8GB), optionally followed by "             \
	"?key=value,... options"

/* dev.c */
int
xnvme_ramdisk_check_support(struct xnvme_dev *dev);

/** Zeroes `nbytes` at `base + off`, returning whole pages to the system where possible */
void
xnvme_ramdisk_mem_zero(uint8_t *base, uint64_t off, uint64_t nbytes);

/* media.c: LBA data and metadata as the host sees them, with protection information */

/**
 * One transfer of LBAs between the host's buffers and the medium. With metadata every LBA
 * passes through `bounce` as [data | metadata], whatever the host layout (interleaved or
 * separate), so PI is generated and checked in one place; without metadata data moves
 * directly between the host buffer and the medium.
 */
struct ramdisk_xfer {
	uint64_t slba;
	uint64_t nlbas;
	size_t dnbytes;  ///< bytes moved through the data buffer
	size_t mnbytes;  ///< bytes moved through the metadata buffer; 0 when the caller gave none
	bool strip;      ///< PRACT with PI-only metadata: no metadata crosses the host interface
	bool pract;      ///< the controller inserts PI (writes)
	uint8_t prchk;   ///< PI fields to check: XNVME_PI_FLAGS_* (same order as PRCHK)
	uint64_t reftag; ///< initial reference tag (48 bits with the 64-bit guard format)
	uint16_t apptag;
	uint16_t appmask;
	uint8_t *bounce; ///< NULL without metadata
};

/**
 * Sizes a transfer of [slba, slba + nlbas) for the command in ctx (PRINFO, tags) and checks the
 * caller's buffers against it and MDTS: 0, -EIO with Invalid Field / Invalid Protection
 * Information set, or -ENOMEM (status set)
 */
int
xnvme_ramdisk_xfer_init(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, struct ramdisk_xfer *x,
			uint64_t slba, uint64_t nlbas, const struct ramdisk_io *io);

void
xnvme_ramdisk_xfer_fini(struct ramdisk_xfer *x);

/** Writes: takes the host's LBAs, generating (PRACT) or checking (PRCHK) PI; 0 or -EIO */
int
xnvme_ramdisk_xfer_from_host(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, struct ramdisk_xfer *x,
			     const struct ramdisk_io *io);

/** Writes: stores the LBAs taken by xfer_from_host at x->slba (which callers may move) */
void
xnvme_ramdisk_xfer_commit(struct ramdisk *rd, struct ramdisk_xfer *x, const struct ramdisk_io *io);

/** Reads: loads the LBAs and checks their PI as PRCHK asks; 0 or -EIO */
int
xnvme_ramdisk_xfer_load(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, struct ramdisk_xfer *x);

/** Reads: hands the loaded LBAs to the host, without PI when stripped */
void
xnvme_ramdisk_xfer_to_host(struct ramdisk *rd, struct ramdisk_xfer *x, const struct ramdisk_io *io);

/** Compare: whether the host's LBAs (and metadata, when sent) equal the loaded ones */
bool
xnvme_ramdisk_xfer_equal(struct ramdisk *rd, struct ramdisk_xfer *x, const struct ramdisk_io *io);

/** Deallocates LBAs: data and metadata read as never written */
void
xnvme_ramdisk_media_zero(struct ramdisk *rd, uint64_t slba, uint64_t nlbas);

/** Copies LBAs with their metadata; overlapping ranges behave like memmove */
void
xnvme_ramdisk_media_move(struct ramdisk *rd, uint64_t dst, uint64_t src, uint64_t nlbas);

/** Write Zeroes with PRACT: zeroed data carrying controller-generated PI */
void
xnvme_ramdisk_media_zero_pi(struct ramdisk *rd, const struct xnvme_cmd_ctx *ctx, uint64_t slba,
			    uint64_t nlbas);

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

/**
 * READ or WRITE of one contiguous buffer on a plain NVM namespace (no metadata, PI, zones or
 * FDP, no LBA marked uncorrectable), where nothing can fail: the data moves and the command is
 * counted; 0. Returns 1, touching nothing, for every other command, which then takes the
 * general path (checks, status, error log). Per-command fast path of the sync mechanism.
 */
static inline int
xnvme_ramdisk_nvm_rw_fast(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *dbuf,
			  size_t dbuf_nbytes)
{
	uint8_t opc = ctx->cmd.common.opcode;
	uint64_t slba = ctx->cmd.nvm.slba;
	uint64_t nlbas = (uint64_t)ctx->cmd.nvm.nlb + 1;
	size_t nbytes;
	uint8_t *mem;

	if ((opc != XNVME_SPEC_NVM_OPC_READ && opc != XNVME_SPEC_NVM_OPC_WRITE) ||
	    ctx->cmd.common.nsid != RAMDISK_NSID || !rd->rw_fast || slba >= rd->nlbas ||
	    nlbas > rd->nlbas - slba) {
		return 1;
	}
	nbytes = (size_t)nlbas << rd->lba_shift;
	if (!dbuf || dbuf_nbytes < nbytes || nbytes > RAMDISK_MDTS_NBYTES ||
	    atomic_load_explicit(&rd->unc.nset, memory_order_relaxed)) {
		return 1;
	}
	mem = rd->mem + (slba << rd->lba_shift);
	if (opc == XNVME_SPEC_NVM_OPC_READ) {
		memcpy(dbuf, mem, nbytes);
		ramdisk_stat_read(rd, nbytes);
		return 0;
	}
	if (ctx->cmd.nvm.dtype) {
		return 1; /* a placement directive without FDP: the general path judges it */
	}
	memcpy(mem, dbuf, nbytes);
	ramdisk_stat_write(rd, nbytes);
	return 0;
}

/* sync.c */ /* sync.c */
void
xnvme_ramdisk_payload_gather(const struct ramdisk_payload *pl, void *dst, size_t nbytes);

void
xnvme_ramdisk_payload_scatter(const struct ramdisk_payload *pl, const void *src, size_t nbytes);

bool
xnvme_ramdisk_payload_equal(const struct ramdisk_payload *pl, const void *mem, size_t nbytes);

/** A position in a payload, for walking it LBA by LBA */
struct ramdisk_cursor {
	const struct ramdisk_payload *pl;
	size_t idx; ///< current iovec
	size_t off; ///< offset within it
};

void
xnvme_ramdisk_cursor_init(struct ramdisk_cursor *cur, const struct ramdisk_payload *pl);

/** Copies the next `nbytes` of the payload to `dst` and advances */
void
xnvme_ramdisk_cursor_get(struct ramdisk_cursor *cur, void *dst, size_t nbytes);

/** Copies `nbytes` from `src` into the payload and advances */
void
xnvme_ramdisk_cursor_put(struct ramdisk_cursor *cur, const void *src, size_t nbytes);

/** Whether the next `nbytes` of the payload equal `mem`; advances */
bool
xnvme_ramdisk_cursor_equal(struct ramdisk_cursor *cur, const void *mem, size_t nbytes);

/* nvm.c: checks shared by the LBA command sets */

/** The command names our namespace (or all, where `broadcast_ok`); else Invalid Namespace */
int
xnvme_ramdisk_check_nsid(struct xnvme_cmd_ctx *ctx, bool broadcast_ok);

/** [slba, slba + nlbas) within the namespace; else LBA Out of Range */
int
xnvme_ramdisk_check_range(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, uint64_t slba,
			  uint64_t nlbas);

/** Reads of LBAs marked by Write Uncorrectable fail like unreadable media */
int
xnvme_ramdisk_check_readable(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, uint64_t slba,
			     uint64_t nlbas);

/* fs.c: the file opcodes, served on NVM namespaces */
bool
xnvme_ramdisk_fs_is_opcode(uint8_t opcode);

int
xnvme_ramdisk_fs_cmd_io(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx,
			const struct ramdisk_payload *pl);

void
xnvme_ramdisk_fs_effects(uint32_t *iocs);

/* zoned.c */

/** Changed Zone List log page (0xBF) into a 4096-byte page; 0 or -EIO */
int
xnvme_ramdisk_zoned_log_changes(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *page);

/* fdp.c: Flexible Data Placement on an NVM namespace (rd->fdp set when enabled) */
int
xnvme_ramdisk_fdp_init(struct ramdisk *rd);

void
xnvme_ramdisk_fdp_fini(struct ramdisk *rd);

/**
 * Placement of a write of `nlbas` LBAs: checks the directive type (Invalid Field for a type
 * that is not enabled) and, with FDP, charges the reclaim unit of the placement handle
 */
int
xnvme_ramdisk_fdp_write(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, uint64_t nlbas);

/** I/O Management Receive / Send */
int
xnvme_ramdisk_fdp_mgmt_recv(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx,
			    const struct ramdisk_payload *pl);

int
xnvme_ramdisk_fdp_mgmt_send(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx,
			    const struct ramdisk_payload *pl);

/** FDP log pages 0x20..0x23 into `page` (4096 bytes): the page size, or -EIO */
int
xnvme_ramdisk_fdp_log(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *page);

/** Get / Set Features 0x1D (FDP mode) and 0x1E (FDP events); -ENOENT: not an FDP feature */
int
xnvme_ramdisk_fdp_gfeat(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *dbuf,
			size_t dbuf_nbytes);

int
xnvme_ramdisk_fdp_sfeat(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const void *dbuf,
			size_t dbuf_nbytes);

/** Directive Send / Receive (admin) for the Identify directive */
int
xnvme_ramdisk_dir_send(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx);

int
xnvme_ramdisk_dir_recv(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *dbuf,
		       size_t dbuf_nbytes);

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
