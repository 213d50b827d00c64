// SPDX-License-Identifier: BSD-3-Clause
/*
 * Admin mechanism "file": a file looks like a controller with one namespace through
 * synthesised identify data (sizes re-read on every identify, so a growing file is seen) and
 * Get Features "number of queues". Other commands: Invalid Opcode / Invalid Field.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "be_windows.h"

#define FILE_MDTS 8 /* 2^(8 + 12) = 1 MiB */
#define FILE_NQUEUES 63

static void
strpad(void *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len);

	memset(dst, ' ', len);
	memcpy(dst, src, n);
}

void
xnvme_be_windows_idfy_ctrlr(struct xnvme_dev *dev, struct xnvme_spec_idfy_ctrlr *ctrlr,
			    const char *mn, const char *nqn_kind)
{
	const struct xnvme_be_windows_state *state = dev->state;
	BY_HANDLE_FILE_INFORMATION info;
	char sn[64] = "0";

	/* A serial that tells files apart: volume serial and file index */
	if (GetFileInformationByHandle(state->h, &info)) {
		snprintf(sn, sizeof(sn), "%lx.%lx%08lx", (unsigned long)info.dwVolumeSerialNumber,
			 (unsigned long)info.nFileIndexHigh, (unsigned long)info.nFileIndexLow);
	}
	strpad(ctrlr->sn, sizeof(ctrlr->sn), sn);
	strpad(ctrlr->mn, sizeof(ctrlr->mn), mn);
	strpad(ctrlr->fr, sizeof(ctrlr->fr), "0.7.5");
	ctrlr->mdts = FILE_MDTS;
	ctrlr->ver.val = 0x00020000;
	ctrlr->cntrltype = 1;
	ctrlr->sqes.min = ctrlr->sqes.max = 6;
	ctrlr->cqes.min = ctrlr->cqes.max = 4;
	ctrlr->nn = 1;
	ctrlr->vwc.present = 1; /* the file cache is a volatile write cache; FLUSH flushes it */
	snprintf((char *)ctrlr->subnqn, sizeof(ctrlr->subnqn), "nqn.2014-08.io.xnvme:%s:%.190s",
		 nqn_kind, dev->ident.uri);
}

static int
file_idfy(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes)
{
	const struct xnvme_be_windows_state *state = ctx->dev->state;
	uint32_t cns = ctx->cmd.idfy.cns, csi = ctx->cmd.idfy.csi;
	union {
		struct xnvme_spec_idfy base;
		struct xnvme_spec_fs_idfy_ctrlr fs_ctrlr;
		struct xnvme_spec_fs_idfy_ns fs_ns;
	} idfy;
	uint64_t nbytes = 0;
	int err;

	if (!dbuf) {
		return xnvme_be_windows_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
	}
	memset(&idfy, 0, sizeof(idfy));
	if (cns == XNVME_SPEC_IDFY_NS || cns == XNVME_SPEC_IDFY_NS_IOCS) {
		err = xnvme_be_windows_size(state, &nbytes);
		if (err) {
			xnvme_cpl_set_errno(ctx, -err);
			return err;
		}
	}
	switch (cns) {
	case XNVME_SPEC_IDFY_CTRLR:
		xnvme_be_windows_idfy_ctrlr(ctx->dev, &idfy.base.ctrlr, "xNVMe file as namespace",
					    "file_as_ns");
		break;
	case XNVME_SPEC_IDFY_NS:
		/* sizes in bytes, as for files on Linux: geometry takes tbytes from the FS data */
		idfy.base.ns.nsze = nbytes;
		idfy.base.ns.ncap = nbytes;
		idfy.base.ns.nuse = nbytes;
		idfy.base.ns.lbaf[0].ds = (uint8_t)XNVME_ILOG2(state->lba_nbytes);
		break;
	case XNVME_SPEC_IDFY_CTRLR_IOCS:
		if (csi != XNVME_SPEC_CSI_FS) {
			return xnvme_be_windows_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
		}
		idfy.fs_ctrlr.caps.direct = state->direct;
		idfy.fs_ctrlr.iosizes.min = state->direct ? state->lba_nbytes : 1;
		idfy.fs_ctrlr.iosizes.max = 1U << (FILE_MDTS + 12);
		idfy.fs_ctrlr.iosizes.opt = 4096;
		idfy.fs_ctrlr.ac = 0xAC;
		idfy.fs_ctrlr.dc = 0xDC;
		break;
	case XNVME_SPEC_IDFY_NS_IOCS:
		if (csi != XNVME_SPEC_CSI_FS) {
			return xnvme_be_windows_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
		}
		idfy.fs_ns.nsze = nbytes;
		idfy.fs_ns.ncap = nbytes;
		idfy.fs_ns.nuse = nbytes;
		idfy.fs_ns.ac = 0xAC;
		idfy.fs_ns.dc = 0xDC;
		break;
	default:
		return xnvme_be_windows_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
	}
	memcpy(dbuf, &idfy, dbuf_nbytes < 4096 ? dbuf_nbytes : 4096);
	return 0;
}

int
xnvme_be_windows_synth_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes,
			     int (*idfy)(struct xnvme_cmd_ctx *, void *, size_t))
{
	struct xnvme_spec_feat feat = {0};

	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_ADM_OPC_IDFY:
		return idfy(ctx, dbuf, dbuf_nbytes);
	case XNVME_SPEC_ADM_OPC_GFEAT:
		if (ctx->cmd.gfeat.cdw10.fid != XNVME_SPEC_FEAT_NQUEUES) {
			return xnvme_be_windows_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
		}
		feat.nqueues.nsqa = FILE_NQUEUES;
		feat.nqueues.ncqa = FILE_NQUEUES;
		ctx->cpl.cdw0 = feat.val;
		return 0;
	default:
		return xnvme_be_windows_status(ctx, 0x01); /* Invalid Command Opcode */
	}
}

static int
file_cmd_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	       size_t mbuf_nbytes)
{
	(void)mbuf;
	(void)mbuf_nbytes;
	return xnvme_be_windows_synth_admin(ctx, dbuf, dbuf_nbytes, file_idfy);
}

static int
file_check_support(struct xnvme_dev *dev)
{
	(void)dev;
	return 0;
}

int
xnvme_be_windows_pseudo_none(struct xnvme_dev *dev, enum xnvme_be_pseudo op, void *buf,
			     size_t nbytes)
{
	(void)dev;
	(void)op;
	(void)buf;
	(void)nbytes;
	return -ENOSYS; /* no controller to reset or read behind a file; disks: not offered */
}

const struct xnvme_be_admin xnvme_be_windows_admin_file = {
	.name = "file",
	.check_support = file_check_support,
	.cmd_admin = file_cmd_admin,
	.pseudo = xnvme_be_windows_pseudo_none,
};
