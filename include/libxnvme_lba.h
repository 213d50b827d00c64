/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * LBA ranges: a start/end LBA pair with its size, constructed by value from offsets, LBA pairs,
 * counts or zone descriptors. Invalid requests yield an all-zero range (attr.is_valid == 0).
 */
#ifndef LIBXNVME_LBA_H
#define LIBXNVME_LBA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "libxnvme_util.h"
#include "libxnvme_spec.h"
#include "libxnvme_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

struct xnvme_lba_range_attr {
	bool is_zoned; ///< never set by the constructors
	bool is_valid;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_lba_range_attr) == 2, "Incorrect size")

struct xnvme_lba_range {
	uint64_t slba;   ///< first LBA
	uint64_t elba;   ///< last LBA (inclusive)
	uint32_t naddrs; ///< number of LBAs
	uint64_t nbytes; ///< naddrs * geo.nbytes
	struct xnvme_lba_range_attr attr;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_lba_range) == 40, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_lba_range, nbytes) == 24, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_lba_range, attr) == 32, "Incorrect offset")

/*
 * Thread safety: safe from any thread; the constructors read the handle's geometry (safe
 * concurrently with its other users), the printers only read `range`.
 */
int xnvme_lba_range_fpr(FILE *stream, struct xnvme_lba_range *range, int opts);
int xnvme_lba_range_pr(struct xnvme_lba_range *range, int opts);
struct xnvme_lba_range xnvme_lba_range_from_offset_nbytes(struct xnvme_dev *dev, uint64_t offset, uint64_t nbytes);
struct xnvme_lba_range xnvme_lba_range_from_slba_elba(struct xnvme_dev *dev, uint64_t slba, uint64_t elba);
struct xnvme_lba_range xnvme_lba_range_from_slba_naddrs(struct xnvme_dev *dev, uint64_t slba, uint64_t naddrs);
struct xnvme_lba_range xnvme_lba_range_from_zdescr(struct xnvme_dev *dev, struct xnvme_spec_znd_descr *zdescr);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_LBA_H */
