// SPDX-License-Identifier: BSD-3-Clause
/*
 * Admin mechanism "block": a disk (\\.\PhysicalDriveN) that does not speak NVMe to us, or one
 * opened with admin=block, looks like a controller with one NVM namespace. Identify is
 * synthesised from the disk geometry (IOCTL_DISK_GET_DRIVE_GEOMETRY_EX, re-read on every
 * identify): the logical sector size is the LBA size, the disk size gives nsze. Get Features
 * answers "number of queues". Other commands: Invalid Opcode / Invalid Field. The identify data
 * are lib/be/common/synth.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "be_windows.h"
#include "../common/synth.h"
#include <winioctl.h> /* after windows.h */

int
xnvme_be_windows_geometry(HANDLE h, uint32_t *sector_nbytes, uint64_t *nbytes)
{
	DISK_GEOMETRY_EX geo;
	DWORD returned = 0;
	int err;

	memset(&geo, 0, sizeof(geo));
	err = xnvme_be_windows_ioctl(h, IOCTL_DISK_GET_DRIVE_GEOMETRY_EX, &geo, sizeof(geo),
				     &returned);
	if (err) {
		return err;
	}
	/* a sector size the NVMe LBA format cannot express is no geometry we can use */
	if (returned < sizeof(DISK_GEOMETRY) + sizeof(LARGE_INTEGER) ||
	    geo.Geometry.BytesPerSector < 512 || geo.Geometry.BytesPerSector > 65536 ||
	    (geo.Geometry.BytesPerSector & (geo.Geometry.BytesPerSector - 1)) ||
	    geo.DiskSize.QuadPart < 0) {
		return -EPROTO;
	}
	*sector_nbytes = geo.Geometry.BytesPerSector;
	*nbytes = (uint64_t)geo.DiskSize.QuadPart;
	return 0;
}

static void
block_ctrlr(const struct xnvme_dev *dev, struct xnvme_spec_idfy_ctrlr *ctrlr)
{
	char sn[64] = "0", nqn[256];

	xnvme_be_windows_serial(dev, sn, sizeof(sn));
	snprintf(nqn, sizeof(nqn), "nqn.2014-08.io.xnvme:block:%.190s", dev->ident.uri);
	xnvme_be_synth_ctrlr(ctrlr, sn, "xNVMe disk via geometry", "0.7.5", XNVME_BE_SYNTH_MDTS,
			     nqn);
	ctrlr->vwc.present = 1;
}

static int
block_idfy(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes)
{
	const struct xnvme_be_windows_state *state = ctx->dev->state;
	uint32_t cns = ctx->cmd.idfy.cns, csi = ctx->cmd.idfy.csi, sector_nbytes = 0;
	struct xnvme_spec_idfy idfy;
	uint64_t nbytes = 0;
	int err;

	if (!dbuf) {
		return xnvme_be_windows_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
	}
	memset(&idfy, 0, sizeof(idfy));
	switch (cns) {
	case XNVME_SPEC_IDFY_CTRLR:
		block_ctrlr(ctx->dev, &idfy.ctrlr);
		break;
	case XNVME_SPEC_IDFY_NS:
		err = xnvme_be_windows_geometry(state->h, &sector_nbytes, &nbytes);
		if (err) {
			xnvme_cpl_set_errno(ctx, -err);
			return err;
		}
		xnvme_be_synth_ns(&idfy.ns, nbytes / sector_nbytes, sector_nbytes);
		break;
	case XNVME_SPEC_IDFY_CTRLR_IOCS:
	case XNVME_SPEC_IDFY_NS_IOCS:
		/* NVM: nothing to report beyond the base data */
		if (csi != XNVME_SPEC_CSI_NVM) {
			return xnvme_be_windows_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
		}
		break;
	default:
		return xnvme_be_windows_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
	}
	memcpy(dbuf, &idfy, dbuf_nbytes < sizeof(idfy) ? dbuf_nbytes : sizeof(idfy));
	return 0;
}

static int
block_cmd_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		size_t mbuf_nbytes)
{
	(void)mbuf;
	(void)mbuf_nbytes;
	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_ADM_OPC_IDFY:
		return block_idfy(ctx, dbuf, dbuf_nbytes);
	case XNVME_SPEC_ADM_OPC_GFEAT:
		return xnvme_be_synth_gfeat(ctx);
	default:
		return xnvme_be_synth_status(ctx, 0x01); /* Invalid Command Opcode */
	}
}

static int
block_check_support(struct xnvme_dev *dev)
{
	const struct xnvme_be_windows_state *state = dev->state;

	if (!state->disk) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP,
					    "'block' needs a disk (\\\\.\\PhysicalDriveN); "
					    "files use 'file'");
	}
	return 0;
}

const struct xnvme_be_admin xnvme_be_windows_admin_block = {
	.name = "block",
	.check_support = block_check_support,
	.cmd_admin = block_cmd_admin,
	.pseudo = xnvme_be_pseudo_none,
};
