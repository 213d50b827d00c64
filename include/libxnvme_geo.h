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
 * Geometry of a device handle. Read it through the pointer of xnvme_dev_get_geo();
 * xnvme_dev_derive_geo() updates changed fields in place, each atomically.
 *
 * Derived from the identify data of the active LBA format: nbytes = 2^lbads (data bytes per
 * LBA), nbytes_oob = metadata bytes per LBA, lba_extended when the metadata is interleaved,
 * lba_nbytes = nbytes (+ nbytes_oob when extended) = the bytes one LBA occupies in a data
 * buffer, ssw = log2(nbytes). NVM namespaces: CONVENTIONAL, nsect = the namespace size in LBAs,
 * one zone. Zoned namespaces: ZONED, nsect = zone size in LBAs, nzone = namespace size / zone
 * size. Key-value namespaces: KV, no LBA fields. tbytes = nzone * nsect * nbytes.
 * mdts_nbytes = 2^(12 + MDTS) bytes (1 MiB when MDTS is 0), capped for Linux passthrough at what
 * the kernel maps in one request. Regular files: CONVENTIONAL, tbytes = the file size, LBAs of
 * 512 bytes (ssw 9, lba_nbytes 512), mdts_nbytes 1 MiB. Controller handles: UNKNOWN, all zero.
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
