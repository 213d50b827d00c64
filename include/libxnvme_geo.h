/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Device geometry: LBA size and count, zones, metadata and protection-information format,
 * derived from identify data on first use.
 */
#ifndef LIBXNVME_GEO_H
#define LIBXNVME_GEO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "libxnvme_util.h"

#ifdef __cplusplus
extern "C" {
#endif

enum xnvme_geo_type {
	XNVME_GEO_UNKNOWN = 0x0,
	XNVME_GEO_CONVENTIONAL = 0x1,
	XNVME_GEO_ZONED = 0x2,
	XNVME_GEO_KV = 0x3,
};

/**
 * Geometry of a device handle; see api.md for derivation rules. Read it through the pointer of
 * xnvme_dev_get_geo(); xnvme_dev_derive_geo() updates changed fields in place, each atomically.
 */
struct xnvme_geo {
	enum xnvme_geo_type type;

	uint32_t npugrp; ///< parallel unit groups
	uint32_t npunit; ///< parallel units per group
	uint32_t nzone;  ///< zones per parallel unit
	uint64_t nsect;  ///< sectors (LBAs) per zone

	uint32_t nbytes;     ///< data bytes per sector
	uint32_t nbytes_oob; ///< metadata bytes per sector

	uint64_t tbytes; ///< total capacity in bytes
	uint64_t ssw;    ///< shift from LBA to byte offset

	uint32_t mdts_nbytes; ///< largest transfer in bytes
	uint32_t lba_nbytes;  ///< bytes per LBA on the wire (with metadata when extended)

	uint8_t lba_extended; ///< metadata interleaved with data
	uint8_t pi_type;
	uint8_t pi_loc;
	uint8_t pi_format;

	uint8_t _rsvd[4];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_geo) == 64, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_geo, tbytes) == 32, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_geo, lba_extended) == 56, "Incorrect offset")



#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_GEO_H */
