// SPDX-License-Identifier: BSD-3-Clause
/*
 * Admin mechanism "block": makes any block device look like a controller with one namespace
 * by synthesising identify data from sysfs and block ioctls.
 *   Identify Controller: model/serial/firmware from the disk's device in sysfs when there is
 *     one, MDTS from max_hw_sectors_kb, Write Zeroes always (the kernel emulates it), DSM when
 *     the queue discards, volatile write cache from write_cache.
 *   Identify Namespace: size from BLKGETSIZE64, one LBA format of BLKSSZGET bytes, preferred
 *     write granularity from the physical block size (BLKPBSZGET).
 *   I/O command set data: NVM (CSI 0) for every device; Zoned (CSI 2) for zoned block devices:
 *     zone size from BLKGETZONESZ, max open/active zones from sysfs (0 -> no limit).
 *   Get Features: number of queues, volatile write cache.
 * Anything else fails with a status: Invalid Field for unsupported CNS/CSI/FID values,
 * Invalid Command Opcode for other opcodes. No topology pseudo-commands (-ENOSYS).
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "be_linux.h"
#include "../common/synth.h"

#define BADM_IDFY_NBYTES 4096
#define BADM_NQUEUES 63
#define BADM_MPSMIN 4096 /* MDTS counts units of the minimum memory page size */

/* A queue limit of the disk, 0 when sysfs does not say */
static uint64_t
badm_queue_u64(const struct xnvme_be_linux_state *state, const char *attr)
{
	uint64_t val = 0;

	if (!state->disk[0] ||
	    xnvme_be_linux_sysfs_u64(&val, "/sys/block/%s/queue/%s", state->disk, attr)) {
		return 0;
	}
	return val;
}

/* First readable attribute among the disk's device attributes, else "" */
static void
badm_device_attr(const struct xnvme_be_linux_state *state, char *buf, size_t len,
		 const char *const *attrs)
{
	buf[0] = '\0';
	for (; state->disk[0] && *attrs; ++attrs) {
		if (!xnvme_be_linux_sysfs_read(buf, len, "/sys/block/%s/%s", state->disk, *attrs) &&
		    buf[0]) {
			return;
		}
	}
	buf[0] = '\0';
}

/* log2 of the largest transfer in 4 KiB units: at least 1 (0 would mean "no limit") */
static uint8_t
badm_mdts(const struct xnvme_be_linux_state *state)
{
	uint64_t units = badm_queue_u64(state, "max_hw_sectors_kb") * 1024 / BADM_MPSMIN;
	uint8_t mdts = 0;

	if (!units) {
		return 8; /* unknown: 1 MiB, as the file shim */
	}
	while (units >> (mdts + 1)) {
		mdts++;
	}
	return mdts ? mdts : 1;
}

static void
badm_idfy_ctrlr(const struct xnvme_be_linux_state *state, struct xnvme_spec_idfy_ctrlr *ctrlr)
{
	static const char *const sn_attrs[] = {"device/serial", "serial", NULL};
	static const char *const mn_attrs[] = {"device/model", NULL};
	static const char *const fr_attrs[] = {"device/firmware_rev", "device/rev", NULL};
	char str[256], mn[256], fr[256], nqn[128], wcache[32] = "";
	struct stat st;

	badm_device_attr(state, str, sizeof(str), sn_attrs);
	if (!str[0]) {
		/* a serial that tells devices apart: name and device number */
		memset(&st, 0, sizeof(st));
		fstat(state->fd, &st);
		snprintf(str, sizeof(str), "%.12s-%u:%u", state->name, major(st.st_rdev),
			 minor(st.st_rdev));
	}
	snprintf(nqn, sizeof(nqn), "nqn.2014-08.io.xnvme:block:%.64s", state->name);
	badm_device_attr(state, mn, sizeof(mn), mn_attrs);
	badm_device_attr(state, fr, sizeof(fr), fr_attrs);
	xnvme_be_synth_ctrlr(ctrlr, str, mn[0] ? mn : "xNVMe Linux block device",
			     fr[0] ? fr : "0.7.5", badm_mdts(state), nqn);
	ctrlr->oncs.write_zeroes = 1;
	ctrlr->oncs.dsm = badm_queue_u64(state, "discard_max_bytes") ? 1 : 0;
	if (state->disk[0]) {
		xnvme_be_linux_sysfs_read(wcache, sizeof(wcache), "/sys/block/%s/queue/write_cache",
					  state->disk);
	}
	ctrlr->vwc.present = !strcmp(wcache, "write back");
}

static int
badm_idfy_ns(const struct xnvme_be_linux_state *state, struct xnvme_spec_idfy_ns *ns)
{
	uint64_t nbytes = 0, nlbs;
	int pbsz = 0;

	if (ioctl(state->fd, BLKGETSIZE64, &nbytes)) {
		return errno;
	}
	nlbs = nbytes / state->lba_nbytes;
	ns->nsze = nlbs;
	ns->ncap = nlbs;
	ns->nuse = nlbs;
	ns->nlbaf = 0; /* zero-based: one format */
	ns->lbaf[0].ds = (uint8_t)XNVME_ILOG2(state->lba_nbytes);

	/* writes of whole physical blocks avoid read-modify-write in the device */
	if (!ioctl(state->fd, BLKPBSZGET, &pbsz) && pbsz > (int)state->lba_nbytes &&
	    pbsz / (int)state->lba_nbytes <= 0x10000) {
		ns->nsfeat.optimal_performance = 1;
		ns->npwg = (uint16_t)(pbsz / (int)state->lba_nbytes - 1);
		ns->npwa = ns->npwg;
	}
	return 0;
}

/* Zero-based resource limit from sysfs: 0 (or unknown) means no limit, 0xFFFFFFFF */
static uint32_t
badm_zone_limit(const struct xnvme_be_linux_state *state, const char *attr)
{
	uint64_t val = badm_queue_u64(state, attr);

	return (val && val <= UINT32_MAX) ? (uint32_t)(val - 1) : 0xFFFFFFFF;
}

static void
badm_idfy_zns(const struct xnvme_be_linux_state *state, struct xnvme_spec_znd_idfy_ns *zns)
{
	unsigned int shift = (unsigned int)XNVME_ILOG2(state->lba_nbytes) - 9;

	zns->mar = badm_zone_limit(state, "max_active_zones");
	zns->mor = badm_zone_limit(state, "max_open_zones");
	zns->lbafe[0].zsze = state->zone_nsect >> shift;
	zns->lbafe[0].zdes = 0; /* no descriptor extensions through the block layer */
}

static int
badm_idfy(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes)
{
	const struct xnvme_be_linux_state *state = ctx->dev->state;
	uint32_t cns = ctx->cmd.idfy.cns, csi = ctx->cmd.idfy.csi;
	bool zoned = state->zone_nsect != 0;
	union {
		struct xnvme_spec_idfy base;
		struct xnvme_spec_znd_idfy_ns zns;
		struct xnvme_spec_nvm_idfy_ns nvm_ns;
	} idfy;
	int err;

	if (!dbuf) {
		return xnvme_be_linux_errno(ctx, EFAULT);
	}
	memset(&idfy, 0, sizeof(idfy));

	/* The namespace id is not checked: the one namespace answers to any, as the file shim */
	switch (cns) {
	case XNVME_SPEC_IDFY_CTRLR:
		badm_idfy_ctrlr(state, &idfy.base.ctrlr);
		break;

	case XNVME_SPEC_IDFY_NS:
		err = badm_idfy_ns(state, &idfy.base.ns);
		if (err) {
			return xnvme_be_linux_errno(ctx, err);
		}
		break;

	case XNVME_SPEC_IDFY_CTRLR_IOCS:
		/* NVM: nothing to report (no limits); Zoned: append size limit unknown (0) */
		if (csi != XNVME_SPEC_CSI_NVM && !(csi == XNVME_SPEC_CSI_ZONED && zoned)) {
			return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
		}
		break;

	case XNVME_SPEC_IDFY_NS_IOCS:
		if (csi == XNVME_SPEC_CSI_ZONED && zoned) {
			badm_idfy_zns(state, &idfy.zns);
		} else if (csi != XNVME_SPEC_CSI_NVM) {
			return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
		}
		break;

	default:
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
	}

	memcpy(dbuf, &idfy, dbuf_nbytes < BADM_IDFY_NBYTES ? dbuf_nbytes : BADM_IDFY_NBYTES);
	return 0;
}

static int
badm_gfeat(struct xnvme_cmd_ctx *ctx)
{
	const struct xnvme_be_linux_state *state = ctx->dev->state;
	struct xnvme_spec_feat feat = {0};
	char wcache[32] = "";

	switch (ctx->cmd.gfeat.cdw10.fid) {
	case XNVME_SPEC_FEAT_NQUEUES:
		feat.nqueues.nsqa = BADM_NQUEUES;
		feat.nqueues.ncqa = BADM_NQUEUES;
		break;
	case XNVME_SPEC_FEAT_VWCACHE:
		if (state->disk[0]) {
			xnvme_be_linux_sysfs_read(wcache, sizeof(wcache),
						  "/sys/block/%s/queue/write_cache", state->disk);
		}
		feat.val = !strcmp(wcache, "write back") ? 1 : 0;
		break;
	default:
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
	}
	ctx->cpl.cdw0 = feat.val;
	return 0;
}

static int
badm_cmd_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	       size_t mbuf_nbytes)
{
	(void)mbuf;
	(void)mbuf_nbytes;

	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_ADM_OPC_IDFY:
		return badm_idfy(ctx, dbuf, dbuf_nbytes);

	case XNVME_SPEC_ADM_OPC_GFEAT:
		return badm_gfeat(ctx);

	default:
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_OPCODE);
	}
}

const struct xnvme_be_admin xnvme_be_linux_admin_block = {
	.name = "block",
	.check_support = xnvme_be_linux_check_block,
	.cmd_admin = badm_cmd_admin,
	.pseudo = xnvme_be_pseudo_none,
};
