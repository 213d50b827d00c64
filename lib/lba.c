/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * LBA range constructors. They return by value; any invalid request yields the all-zero range,
 * so callers test attr.is_valid and nothing else. The range printers live with the other
 * printers (lib/pp/lba_pp.c).
 */
#include <errno.h>
#include <string.h>
#include <libxnvme.h>

struct xnvme_lba_range
xnvme_lba_range_from_slba_naddrs(struct xnvme_dev *dev, uint64_t slba, uint64_t naddrs)
{
	struct xnvme_lba_range range;
	const struct xnvme_geo *geo = dev ? xnvme_dev_get_geo(dev) : NULL;

	memset(&range, 0, sizeof(range));

	if (!geo || (geo->type != XNVME_GEO_CONVENTIONAL && geo->type != XNVME_GEO_ZONED)) {
		return range;
	}
	/* naddrs is a 32-bit field: reject rather than truncate; elba must not wrap */
	if (!naddrs || naddrs > UINT32_MAX || naddrs - 1 > UINT64_MAX - slba) {
		return range;
	}

	range.slba = slba;
	range.elba = slba + naddrs - 1;
	range.naddrs = (uint32_t)naddrs;
	range.nbytes = naddrs * geo->nbytes;
	range.attr.is_valid = true;

	return range;
}

struct xnvme_lba_range
xnvme_lba_range_from_slba_elba(struct xnvme_dev *dev, uint64_t slba, uint64_t elba)
{
	struct xnvme_lba_range range;

	if (slba > elba) {
		memset(&range, 0, sizeof(range));
		return range;
	}

	/* 0..UINT64_MAX wraps naddrs to 0, which from_slba_naddrs rejects */
	return xnvme_lba_range_from_slba_naddrs(dev, slba, elba - slba + 1);
}

struct xnvme_lba_range
xnvme_lba_range_from_offset_nbytes(struct xnvme_dev *dev, uint64_t offset, uint64_t nbytes)
{
	struct xnvme_lba_range range;
	const struct xnvme_geo *geo = dev ? xnvme_dev_get_geo(dev) : NULL;

	memset(&range, 0, sizeof(range));

	if (!geo || !geo->nbytes || offset % geo->nbytes || nbytes % geo->nbytes) {
		return range;
	}

	return xnvme_lba_range_from_slba_naddrs(dev, offset / geo->nbytes, nbytes / geo->nbytes);
}

struct xnvme_lba_range
xnvme_lba_range_from_zdescr(struct xnvme_dev *dev, struct xnvme_spec_znd_descr *zdescr)
{
	struct xnvme_lba_range range;

	if (!zdescr) {
		memset(&range, 0, sizeof(range));
		return range;
	}

	return xnvme_lba_range_from_slba_naddrs(dev, zdescr->zslba, zdescr->zcap);
}
