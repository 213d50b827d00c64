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
	uint8_t storage[];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_znd_report) == 64, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_znd_report, nentries) == 32, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_znd_report, zrent_nbytes) == 40, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_znd_report, storage) == 64, "Incorrect offset")

/** Zone descriptor of entry `nth` of report `rprt` */
#define XNVME_ZND_REPORT_DESCR(rprt, nth) \
	((struct xnvme_spec_znd_descr *)&(rprt)->storage[(nth) * (rprt)->zrent_nbytes])

/** Descriptor extension of entry `nth` of report `rprt`; NULL when the report is not extended */
#define XNVME_ZND_REPORT_DEXT(rprt, nth)                                                       \
	((rprt)->extended                                                                      \
		 ? (void *)&(rprt)->storage[(nth) * (rprt)->zrent_nbytes + (rprt)->zd_nbytes] \
		 : NULL)

/*
 * Thread safety: the xnvme_znd_dev_get_* getters are safe concurrently on one handle (as the
 * xnvme_dev_get_* getters). The *_from_dev functions and xnvme_znd_stat issue synchronous
 * commands on their own context and buffers: safe concurrently on one handle. The command
 * functions taking `ctx` pass it like xnvme_cmd_pass(): synchronous contexts concurrently on
 * one handle (one per thread), queue contexts only on the thread owning the queue. The report
 * functions only read the report (printing to the stream).
 */
const struct xnvme_spec_znd_idfy_ns *xnvme_znd_dev_get_ns(struct xnvme_dev *dev);
const struct xnvme_spec_znd_idfy_ctrlr *xnvme_znd_dev_get_ctrlr(struct xnvme_dev *dev);
const struct xnvme_spec_znd_idfy_lbafe *xnvme_znd_dev_get_lbafe(struct xnvme_dev *dev);
int xnvme_znd_mgmt_recv(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, enum xnvme_spec_znd_cmd_mgmt_recv_action zra, enum xnvme_spec_znd_cmd_mgmt_recv_action_sf zrasf, uint8_t partial, void *dbuf, uint32_t dbuf_nbytes);
int xnvme_znd_descr_from_dev(struct xnvme_dev *dev, uint64_t slba, struct xnvme_spec_znd_descr *zdescr);
int xnvme_znd_descr_from_dev_in_state(struct xnvme_dev *dev, enum xnvme_spec_znd_state state, struct xnvme_spec_znd_descr *zdescr);
int xnvme_znd_stat(struct xnvme_dev *dev, enum xnvme_spec_znd_cmd_mgmt_recv_action_sf sfield, uint64_t *nzones);
struct xnvme_spec_znd_log_changes *xnvme_znd_log_changes_from_dev(struct xnvme_dev *dev);
int xnvme_znd_mgmt_send(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t zslba, bool select_all, enum xnvme_spec_znd_cmd_mgmt_send_action zsa, enum xnvme_spec_znd_mgmt_send_action_so zsa_so, void *dbuf);
int xnvme_znd_append(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t zslba, uint16_t nlb, const void *dbuf, const void *mbuf);
int xnvme_znd_zrwa_flush(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t lba);
int xnvme_znd_report_fpr(FILE *stream, const struct xnvme_znd_report *report, int flags);
int xnvme_znd_report_pr(const struct xnvme_znd_report *report, int flags);
struct xnvme_znd_report *xnvme_znd_report_from_dev(struct xnvme_dev *dev, uint64_t slba, size_t limit, uint8_t extended);
int xnvme_znd_report_find_arbitrary(const struct xnvme_znd_report *report, enum xnvme_spec_znd_state state, uint64_t *zlba, int opts);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_ZND_H */
