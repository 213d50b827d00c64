// SPDX-License-Identifier: BSD-3-Clause
/*
 * Geometry derivation from identify data (rules: include/libxnvme_geo.h), declared in
 * xnvme_dev.h. xnvme_geo_derive_from() is a pure function of the identify data it is given
 * (plus the handle's dtype and transfer cap, fixed at open), so xnvme_dev_derive_geo() can
 * derive away from the geometry readers are looking at.
 */
#include <errno.h>
#include <string.h>
#include "xnvme_dev.h"

/* Full active LBA format index: low bits in flbas.format, upper bits in flbas.format_msb */
static unsigned int
lbaf_index(const struct xnvme_spec_idfy_ns *ns)
{
	return ns->flbas.format | (ns->flbas.format_msb << 4);
}

static uint32_t
mdts_nbytes(const struct xnvme_spec_idfy_ctrlr *ctrlr)
{
	if (!ctrlr->mdts) {
		return 1 << 20;
	}
	if (ctrlr->mdts + 12 >= 32) {
		return UINT32_MAX & ~((1U << 12) - 1);
	}
	return 1U << (ctrlr->mdts + 12);
}

static void
derive_lba_format(const struct xnvme_spec_idfy_ns *ns, unsigned int fmt, struct xnvme_geo *geo)
{
	const struct xnvme_spec_lbaf *lbaf = &ns->lbaf[fmt];

	geo->nbytes = 1U << lbaf->ds;
	geo->nbytes_oob = lbaf->ms;
	geo->lba_extended = ns->flbas.extended && lbaf->ms;
	geo->lba_nbytes = geo->nbytes + (geo->lba_extended ? geo->nbytes_oob : 0);
}

static void
derive_pi(const struct xnvme_spec_idfy *ctrlr, const struct xnvme_spec_idfy_ns *ns,
	  const struct xnvme_spec_idfy *ns_css, uint8_t csi, unsigned int fmt,
	  struct xnvme_geo *geo)
{
	geo->pi_type = ns->dps.pit;
	if (!geo->pi_type) {
		return;
	}
	geo->pi_loc = ns->dps.md_start;
	geo->pi_format = XNVME_SPEC_NVM_NS_16B_GUARD;
	if (ctrlr->ctrlr.ctratt.extended_lba_formats && csi == XNVME_SPEC_CSI_NVM) {
		const struct xnvme_spec_nvm_idfy_ns *nvm = (const void *)ns_css;

		geo->pi_format = nvm->elbaf[fmt].pif;
	}
}

int
xnvme_geo_derive_from(const struct xnvme_dev *dev, const struct xnvme_spec_idfy *ctrlr,
		      const struct xnvme_spec_idfy *idfy_ns, const struct xnvme_spec_idfy *ns_css,
		      uint8_t csi, struct xnvme_geo *geo)
{
	const struct xnvme_spec_idfy_ns *ns = &idfy_ns->ns;
	unsigned int fmt;

	memset(geo, 0, sizeof(*geo));

	switch (dev->ident.dtype) {
	case 1: /* controller handle: no namespace, no geometry */
		geo->type = XNVME_GEO_UNKNOWN;
		return 0;

	case 4: { /* file: byte-addressed, 512-byte units for NVM opcodes */
		const struct xnvme_spec_fs_idfy_ns *fns = (const void *)ns_css;

		geo->type = XNVME_GEO_CONVENTIONAL;
		geo->npugrp = geo->npunit = geo->nzone = 1;
		geo->nsect = 1;
		geo->nbytes = 1;
		geo->lba_nbytes = 512;
		geo->tbytes = fns->nuse;
		geo->mdts_nbytes = 1 << 20;
		geo->ssw = XNVME_UNIVERSAL_SECT_SH;
		return 0;
	}
	default:
		break;
	}

	fmt = lbaf_index(ns);
	if (fmt > ns->nlbaf || fmt >= 64) {
		return -EINVAL;
	}

	switch (csi) {
	case XNVME_SPEC_CSI_NVM:
	case XNVME_SPEC_CSI_FS:
		geo->type = XNVME_GEO_CONVENTIONAL;
		geo->npugrp = geo->npunit = geo->nzone = 1;
		geo->nsect = ns->nsze;
		derive_lba_format(ns, fmt, geo);
		derive_pi(ctrlr, ns, ns_css, csi, fmt, geo);
		break;

	case XNVME_SPEC_CSI_ZONED: {
		const struct xnvme_spec_znd_idfy_ns *zns = (const void *)ns_css;

		if (!zns->lbafe[0].zsze || fmt >= 16 || !zns->lbafe[fmt].zsze) {
			return -EINVAL;
		}
		geo->type = XNVME_GEO_ZONED;
		geo->npugrp = geo->npunit = 1;
		geo->nzone = (uint32_t)(ns->nsze / zns->lbafe[fmt].zsze);
		geo->nsect = zns->lbafe[fmt].zsze;
		derive_lba_format(ns, fmt, geo);
		break;
	}
	case XNVME_SPEC_CSI_KV:
		geo->type = XNVME_GEO_KV;
		return 0;

	default:
		return -ENOSYS;
	}

	geo->tbytes = (uint64_t)geo->npugrp * geo->npunit * geo->nzone * geo->nsect * geo->nbytes;
	geo->ssw = XNVME_ILOG2(geo->nbytes);
	geo->mdts_nbytes = mdts_nbytes(&ctrlr->ctrlr);
	if (dev->mdts_cap_nbytes && geo->mdts_nbytes > dev->mdts_cap_nbytes && geo->lba_nbytes) {
		uint32_t cap = dev->mdts_cap_nbytes - dev->mdts_cap_nbytes % geo->lba_nbytes;

		geo->mdts_nbytes = cap ? cap : geo->lba_nbytes;
	}

	return 0;
}
