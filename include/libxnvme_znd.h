/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Zoned Namespace command set: zone management send/receive, zone append, zone reports and
 * convenience accessors for the zoned identify data.
 */
#ifndef LIBXNVME_ZND_H
#define LIBXNVME_ZND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "libxnvme_util.h"
#include "libxnvme_spec.h"
#include "libxnvme_dev.h"
#include "libxnvme_cmd.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A zone report: a 64-byte header followed by `nentries` entries of `zrent_nbytes` each (a zone
 * descriptor, optionally followed by its descriptor extension). Free with xnvme_buf_virt_free().
 */
struct xnvme_znd_report {
	uint64_t nzones;       ///< zones on the device
	uint32_t zd_nbytes;    ///< bytes per zone descriptor (64)
	uint32_t zdext_nbytes; ///< bytes per zone descriptor extension
	uint64_t zslba;        ///< first LBA covered by the report
	uint64_t zelba;        ///< start LBA of the last zone in the report
	uint32_t nentries;     ///< entries in storage
	uint8_t extended;      ///< entries carry descriptor extensions
	uint8_t _pad[3];
	uint64_t zrent_nbytes;   ///< bytes per entry
	uint64_t report_nbytes;  ///< header + entries
	uint64_t entries_nbytes; ///< entries only
	__extension__ uint8_t storage[XNVME_FLEX];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_znd_report) == 64, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_znd_report, nentries) == 32, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_znd_report, zrent_nbytes) == 40, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_znd_report, storage) == 64, "Incorrect offset")

/** Zone descriptor of entry `nth` of report `rprt` */
#define XNVME_ZND_REPORT_DESCR(rprt, nth)                                                          \
	((struct xnvme_spec_znd_descr *)&(rprt)->storage[(nth) * (rprt)->zrent_nbytes])

/** Descriptor extension of entry `nth` of report `rprt`; NULL when the report is not extended */
#define XNVME_ZND_REPORT_DEXT(rprt, nth)                                                           \
	((rprt)->extended                                                                          \
		 ? (void *)&(rprt)->storage[(nth) * (rprt)->zrent_nbytes + (rprt)->zd_nbytes]      \
		 : NULL)

/*
 * Thread safety: the xnvme_znd_dev_get_* getters are safe concurrently on one handle (as the
 * xnvme_dev_get_* getters). The *_from_dev functions and xnvme_znd_stat issue synchronous
 * commands on their own context and buffers: safe concurrently on one handle. The command
 * functions taking `ctx` pass it like xnvme_cmd_pass(): synchronous contexts concurrently on
 * one handle (one per thread), queue contexts only on the thread owning the queue. The report
 * functions only read the report (printing to the stream).
 */
/**
 * Zoned (I/O command set specific) Identify Namespace data of a zoned handle.
 * @return a pointer into the handle (valid until xnvme_dev_close()), or NULL with errno EINVAL
 * when `dev` is NULL or not zoned. Thread safety: see above.
 */
const struct xnvme_spec_znd_idfy_ns *
xnvme_znd_dev_get_ns(struct xnvme_dev *dev);

/**
 * Zoned Identify Controller data of a zoned handle.
 * @return a pointer into the handle, or NULL with errno EINVAL when `dev` is NULL or not
 * zoned. Thread safety: see above.
 */
const struct xnvme_spec_znd_idfy_ctrlr *
xnvme_znd_dev_get_ctrlr(struct xnvme_dev *dev);

/**
 * The zoned LBA format extension (zone size, descriptor extension size) of the namespace's
 * active LBA format. @return a pointer into the handle, or NULL with errno EINVAL when `dev`
 * is NULL, not zoned or its format index is out of range. Thread safety: see above.
 */
const struct xnvme_spec_znd_idfy_lbafe *
xnvme_znd_dev_get_lbafe(struct xnvme_dev *dev);

/**
 * Zone Management Receive: action `zra` (report zones, extended report) from `slba`, filtered
 * by `zrasf` (enum xnvme_spec_znd_cmd_mgmt_recv_action_sf), `partial` nonzero to count only the
 * descriptors that fit, into `dbuf` of `dbuf_nbytes` bytes (a 64-byte header then 64-byte
 * descriptors). @return 0, -EIO with the NVMe status in ctx->cpl, other negative errno
 * (-EINVAL for a NULL ctx); 0 means queued for a queue context. Thread safety: see above.
 */
int
xnvme_znd_mgmt_recv(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba,
		    enum xnvme_spec_znd_cmd_mgmt_recv_action zra,
		    enum xnvme_spec_znd_cmd_mgmt_recv_action_sf zrasf, uint8_t partial, void *dbuf,
		    uint32_t dbuf_nbytes);

/**
 * Copies the descriptor of the zone starting at `slba` (the first zone reported from `slba`)
 * into `zdescr`, with a synchronous command on its own context.
 * @return 0, -EINVAL for NULL arguments, -EIO when no zone is reported or the command failed.
 * Thread safety: see above.
 */
int
xnvme_znd_descr_from_dev(struct xnvme_dev *dev, uint64_t slba, struct xnvme_spec_znd_descr *zdescr);

/**
 * Copies the descriptor of the first zone in `state` (empty, implicitly/explicitly open,
 * closed, full, read-only, offline) into `zdescr`.
 * @return 0, -EINVAL for NULL arguments or a state without a report filter, -EIO when no zone
 * is in that state or the command failed. Thread safety: see above.
 */
int
xnvme_znd_descr_from_dev_in_state(struct xnvme_dev *dev, enum xnvme_spec_znd_state state,
				  struct xnvme_spec_znd_descr *zdescr);

/**
 * Counts the zones matching report filter `sfield` (e.g. XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL)
 * into *nzones. @return 0, -EINVAL for NULL arguments, or the negative errno of the command.
 * Thread safety: see above.
 */
int
xnvme_znd_stat(struct xnvme_dev *dev, enum xnvme_spec_znd_cmd_mgmt_recv_action_sf sfield,
	       uint64_t *nzones);

/**
 * Reads the Changed Zone List log page. @return a buffer to free with xnvme_buf_free(dev, ..),
 * or NULL with errno set (EINVAL for a NULL dev, the command's errno otherwise).
 * Thread safety: see above.
 */
struct xnvme_spec_znd_log_changes *
xnvme_znd_log_changes_from_dev(struct xnvme_dev *dev);

/**
 * Zone Management Send: action `zsa` (close, finish, open, reset, offline, set descriptor
 * extension, flush) on the zone at `zslba`, or on all zones with `select_all`; `zsa_so`
 * action specific option (e.g. ZRWA allocation on open). `dbuf` (or NULL) is the zone
 * descriptor extension for "set extension", its size taken from the LBA format extension.
 * @return 0, -EIO with the NVMe status in ctx->cpl, other negative errno (-EINVAL for a NULL
 * ctx, or a dbuf on a non-zoned handle); 0 means queued for a queue context.
 * Thread safety: see above.
 */
int
xnvme_znd_mgmt_send(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t zslba, bool select_all,
		    enum xnvme_spec_znd_cmd_mgmt_send_action zsa,
		    enum xnvme_spec_znd_mgmt_send_action_so zsa_so, void *dbuf);

/**
 * Zone Append of `nlb + 1` blocks (nlb ZERO-BASED) to the zone starting at `zslba`; the LBA
 * written is returned in ctx->cpl.result (cdw0/cdw1). `dbuf` must hold (nlb + 1) * lba_nbytes
 * bytes and `mbuf` (or NULL) (nlb + 1) * nbytes_oob: no length is passed, so a smaller buffer
 * is overrun. @return as xnvme_nvm_write(); -EINVAL for a NULL ctx. Thread safety: see above.
 */
int
xnvme_znd_append(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t zslba, uint16_t nlb,
		 const void *dbuf, const void *mbuf);

/**
 * Flushes the zone random write area up to `lba` (Zone Management Send, action flush).
 * @return as xnvme_znd_mgmt_send(). Thread safety: see above.
 */
int
xnvme_znd_zrwa_flush(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t lba);

/**
 * Prints a report as YAML; `flags` XNVME_PR_DEF or XNVME_PR_YAML (others print an ENOSYS
 * comment). @return the number of characters written. Thread safety: see above.
 */
int
xnvme_znd_report_fpr(FILE *stream, const struct xnvme_znd_report *report, int flags);

/** xnvme_znd_report_fpr() on stdout. Thread safety: see above. */
int
xnvme_znd_report_pr(const struct xnvme_znd_report *report, int flags);

/**
 * Assembles a report of `limit` zones (0: all) starting at the zone of `slba`, with descriptor
 * extensions when `extended` is nonzero; issues as many commands as the transfer size needs.
 * @return the report, to free with xnvme_buf_virt_free(), or NULL with errno EINVAL (NULL or
 * non-zoned dev, limit above the zone count), ENOSYS (extended without extensions), ENOMEM
 * or the command's errno. Thread safety: see above.
 */
struct xnvme_znd_report *
xnvme_znd_report_from_dev(struct xnvme_dev *dev, uint64_t slba, size_t limit, uint8_t extended);

/**
 * Finds a sequential-write-required zone with nonzero capacity in `state` in the report,
 * starting at a pseudo-random entry (seeded from `opts`, or the time when 0), and stores its
 * start LBA in *zlba. @return 0, or -ENXIO when none is found (or on NULL/empty input).
 * Thread safety: see above.
 */
int
xnvme_znd_report_find_arbitrary(const struct xnvme_znd_report *report,
				enum xnvme_spec_znd_state state, uint64_t *zlba, int opts);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_ZND_H */
