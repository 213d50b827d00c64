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
/**
 * Prints a range (slba, elba, naddrs, nbytes, attr) as YAML to `stream`; NULL prints
 * "xnvme_lba_range: ~". `opts` XNVME_PR_DEF or XNVME_PR_YAML; others print a "# ENOSYS" note.
 * @return the number of characters written. Thread safety: see above.
 */
int
xnvme_lba_range_fpr(FILE *stream, struct xnvme_lba_range *range, int opts);

/**
 * xnvme_lba_range_fpr() on stdout. @return the number of characters written. Thread safety: see
 * above.
 */
int
xnvme_lba_range_pr(struct xnvme_lba_range *range, int opts);

/**
 * The range covering `nbytes` bytes from byte `offset`; both must be multiples of the LBA size
 * (geo->nbytes). @return the range, or the all-zero range (attr.is_valid false) for a NULL dev,
 * unaligned input, 0 bytes or more than UINT32_MAX blocks. Thread safety: see above.
 */
struct xnvme_lba_range
xnvme_lba_range_from_offset_nbytes(struct xnvme_dev *dev, uint64_t offset, uint64_t nbytes);

/**
 * The range from `slba` to `elba`, both INCLUSIVE (naddrs = elba - slba + 1). @return the range,
 * or the all-zero range (attr.is_valid false) when slba > elba, for a NULL dev or more than
 * UINT32_MAX blocks. Thread safety: see above.
 */
struct xnvme_lba_range
xnvme_lba_range_from_slba_elba(struct xnvme_dev *dev, uint64_t slba, uint64_t elba);

/**
 * The range of `naddrs` blocks from `slba`; `naddrs` is a ONE-BASED count (unlike nlb). @return
 * the range, or the all-zero range (attr.is_valid false) for a NULL dev, a device without LBA
 * geometry, naddrs 0 or above UINT32_MAX, or an end beyond UINT64_MAX. Thread safety: see above.
 */
struct xnvme_lba_range
xnvme_lba_range_from_slba_naddrs(struct xnvme_dev *dev, uint64_t slba, uint64_t naddrs);

/**
 * The writable part of a zone: `zdescr->zcap` blocks from `zdescr->zslba`. @return the range, or
 * the all-zero range (attr.is_valid false) for NULL arguments or a zero capacity. Thread safety:
 * see above.
 */
struct xnvme_lba_range
xnvme_lba_range_from_zdescr(struct xnvme_dev *dev, struct xnvme_spec_znd_descr *zdescr);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_LBA_H */
