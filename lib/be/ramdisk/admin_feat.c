// SPDX-License-Identifier: BSD-3-Clause
/*
 * Get/Set Features for the ramdisk controller: arbitration, power management, temperature
 * threshold, error recovery, volatile write cache and number of queues; the FDP features
 * (0x1D, 0x1E) are answered by fdp.c when FDP is on and refused otherwise. Values are shared by
 * every handle of the ramdisk and kept as current values only: nothing is saveable, so the
 * "saved" selection reports defaults and Set Features with SV fails as NVMe prescribes.
 */
#include <string.h>

#include "ramdisk.h"

/* Supported-capabilities bits (SEL 3) */
#define CAP_SAVEABLE (1U << 0)
#define CAP_NS_SPECIFIC (1U << 1)
#define CAP_CHANGEABLE (1U << 2)

#define ARBITRATION_DEFAULT 0x7U /* burst: no limit */
#define ARBITRATION_MASK 0xFFFFFF07U
#define PWR_MGMT_MASK 0xFFU
#define TMPTH_SENSOR1_OVER_DEFAULT 0xFFFFU
#define TMPSEL_ALL 0xF
#define NQUEUES_VAL (RAMDISK_NQUEUES | (RAMDISK_NQUEUES << 16))

void
xnvme_ramdisk_feat_init(struct ramdisk *rd)
{
	struct ramdisk_feat *feat = &rd->feat;

	atomic_init(&feat->arbitration, ARBITRATION_DEFAULT);
	atomic_init(&feat->pwr_mgmt, 0);
	atomic_init(&feat->error_recovery, 0);
	atomic_init(&feat->vwc, 1);
	atomic_init(&feat->tmpth[0][0], RAMDISK_WCTEMP_K);
	atomic_init(&feat->tmpth[0][1], 0);
	atomic_init(&feat->tmpth[1][0], TMPTH_SENSOR1_OVER_DEFAULT);
	atomic_init(&feat->tmpth[1][1], 0);
}

static uint32_t
tmpth_default(unsigned int tmpsel, unsigned int thsel)
{
	if (thsel) {
		return 0;
	}
	return tmpsel ? TMPTH_SENSOR1_OVER_DEFAULT : RAMDISK_WCTEMP_K;
}

static int
check_ns_feat(struct xnvme_cmd_ctx *ctx)
{
	uint32_t nsid = ctx->cmd.common.nsid;

	if (!nsid || nsid == RAMDISK_NSID || nsid == 0xFFFFFFFF) {
		return 0;
	}
	return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, RAMDISK_SC_INVALID_NS);
}

/* Capabilities of a supported feature, or -1 when the feature is not supported */
static int64_t
feat_caps(uint8_t fid)
{
	switch (fid) {
	case XNVME_SPEC_FEAT_ARBITRATION:
	case XNVME_SPEC_FEAT_PWR_MGMT:
	case XNVME_SPEC_FEAT_TEMP_THRESHOLD:
	case XNVME_SPEC_FEAT_VWCACHE:
	case XNVME_SPEC_FEAT_NQUEUES:
		return CAP_CHANGEABLE;
	case XNVME_SPEC_FEAT_ERROR_RECOVERY:
		return CAP_CHANGEABLE | CAP_NS_SPECIFIC;
	default:
		return -1;
	}
}

int
xnvme_ramdisk_adm_gfeat(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *dbuf,
			size_t dbuf_nbytes)
{
	struct ramdisk_feat *feat = &rd->feat;
	uint8_t fid = ctx->cmd.gfeat.cdw10.fid;
	uint8_t sel = ctx->cmd.gfeat.cdw10.sel;
	bool dflt = sel == XNVME_SPEC_FEAT_SEL_DEFAULT || sel == XNVME_SPEC_FEAT_SEL_SAVED;
	struct xnvme_spec_feat arg = {.val = ctx->cmd.gfeat.cdw11};
	int64_t caps = feat_caps(fid);
	uint32_t val;

	if (fid == XNVME_SPEC_FEAT_FDP_MODE || fid == XNVME_SPEC_FEAT_FDP_EVENTS) {
		return xnvme_ramdisk_fdp_gfeat(rd, ctx, dbuf, dbuf_nbytes);
	}
	if (caps < 0 || sel > XNVME_SPEC_FEAT_SEL_SUPPORTED) {
		return ramdisk_invalid_field(ctx);
	}
	if ((caps & CAP_NS_SPECIFIC) && check_ns_feat(ctx)) {
		return -EIO;
	}
	if (sel == XNVME_SPEC_FEAT_SEL_SUPPORTED) {
		ctx->cpl.cdw0 = (uint32_t)caps;
		return 0;
	}

	switch (fid) {
	case XNVME_SPEC_FEAT_ARBITRATION:
		val = dflt ? ARBITRATION_DEFAULT : atomic_load(&feat->arbitration);
		break;
	case XNVME_SPEC_FEAT_PWR_MGMT:
		val = dflt ? 0 : atomic_load(&feat->pwr_mgmt);
		break;
	case XNVME_SPEC_FEAT_TEMP_THRESHOLD: {
		unsigned int tmpsel = arg.temp_threshold.tmpsel;
		unsigned int thsel = arg.temp_threshold.thsel;

		if (tmpsel > 1 || thsel > 1) {
			return ramdisk_invalid_field(ctx);
		}
		val = dflt ? tmpth_default(tmpsel, thsel)
			   : atomic_load(&feat->tmpth[tmpsel][thsel]);
		val |= tmpsel << 16 | thsel << 20;
		break;
	}
	case XNVME_SPEC_FEAT_ERROR_RECOVERY:
		val = dflt ? 0 : atomic_load(&feat->error_recovery);
		break;
	case XNVME_SPEC_FEAT_VWCACHE:
		val = dflt ? 1 : atomic_load(&feat->vwc);
		break;
	case XNVME_SPEC_FEAT_NQUEUES:
	default:
		val = NQUEUES_VAL;
		break;
	}
	ctx->cpl.cdw0 = val;
	return 0;
}

static int
sfeat_tmpth(struct ramdisk_feat *feat, struct xnvme_cmd_ctx *ctx, struct xnvme_spec_feat arg)
{
	unsigned int tmpsel = arg.temp_threshold.tmpsel;
	unsigned int thsel = arg.temp_threshold.thsel;
	uint32_t tmpth = arg.temp_threshold.tmpth;

	if ((tmpsel > 1 && tmpsel != TMPSEL_ALL) || thsel > 1) {
		return ramdisk_invalid_field(ctx);
	}
	for (unsigned int sensor = 0; sensor < 2; ++sensor) {
		if (tmpsel == sensor || tmpsel == TMPSEL_ALL) {
			atomic_store(&feat->tmpth[sensor][thsel], tmpth);
		}
	}
	return 0;
}

int
xnvme_ramdisk_adm_sfeat(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const void *dbuf,
			size_t dbuf_nbytes)
{
	struct ramdisk_feat *feat = &rd->feat;
	uint8_t fid = ctx->cmd.sfeat.cdw10.fid;
	struct xnvme_spec_feat arg = ctx->cmd.sfeat.feat;
	int64_t caps = feat_caps(fid);

	if (fid == XNVME_SPEC_FEAT_FDP_MODE || fid == XNVME_SPEC_FEAT_FDP_EVENTS) {
		return xnvme_ramdisk_fdp_sfeat(rd, ctx, dbuf, dbuf_nbytes);
	}
	if (caps < 0) {
		return ramdisk_invalid_field(ctx);
	}
	if (ctx->cmd.sfeat.cdw10.save) {
		return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
				      RAMDISK_SC_FEAT_NOT_SAVEABLE);
	}
	if ((caps & CAP_NS_SPECIFIC) && check_ns_feat(ctx)) {
		return -EIO;
	}

	switch (fid) {
	case XNVME_SPEC_FEAT_ARBITRATION:
		atomic_store(&feat->arbitration, arg.val & ARBITRATION_MASK);
		break;
	case XNVME_SPEC_FEAT_PWR_MGMT:
		/* one power state (NPSS 0) */
		if (arg.val & 0x1F) {
			return ramdisk_invalid_field(ctx);
		}
		atomic_store(&feat->pwr_mgmt, arg.val & PWR_MGMT_MASK);
		break;
	case XNVME_SPEC_FEAT_TEMP_THRESHOLD:
		return sfeat_tmpth(feat, ctx, arg);
	case XNVME_SPEC_FEAT_ERROR_RECOVERY:
		/* deallocated blocks read as zeroes, they are never an error (NSFEAT bit 2 clear) */
		if (arg.error_recovery.dulbe) {
			return ramdisk_invalid_field(ctx);
		}
		atomic_store(&feat->error_recovery, arg.error_recovery.tler);
		break;
	case XNVME_SPEC_FEAT_VWCACHE:
		atomic_store(&feat->vwc, arg.val & 0x1);
		break;
	case XNVME_SPEC_FEAT_NQUEUES:
	default:
		if (arg.nqueues.nsqa == 0xFFFF || arg.nqueues.ncqa == 0xFFFF) {
			return ramdisk_invalid_field(ctx);
		}
		ctx->cpl.cdw0 = NQUEUES_VAL;
		break;
	}
	return 0;
}
