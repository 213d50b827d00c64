// SPDX-License-Identifier: BSD-3-Clause
/*
 * Identify and Get Features of a synthesised controller with one namespace over a file or a
 * disk, shared by the Linux and Windows admin mechanisms that have no NVMe controller behind
 * them (synth.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "synth.h"

#define SYNTH_IDFY_NBYTES 4096

/* Space-padded ASCII, no terminator, as identify strings are */
static void
strpad(void *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len);

	memset(dst, ' ', len);
	memcpy(dst, src, n);
}

void
xnvme_be_synth_ctrlr(struct xnvme_spec_idfy_ctrlr *ctrlr, const char *sn, const char *mn,
		     const char *fr, uint8_t mdts, const char *subnqn)
{
	strpad(ctrlr->sn, sizeof(ctrlr->sn), sn);
	strpad(ctrlr->mn, sizeof(ctrlr->mn), mn);
	strpad(ctrlr->fr, sizeof(ctrlr->fr), fr);

	ctrlr->mdts = mdts;
	ctrlr->ver.val = 0x00020000; /* NVMe 2.0 */
	ctrlr->cntrltype = 1;        /* I/O controller */
	ctrlr->sqes.min = ctrlr->sqes.max = 6;
	ctrlr->cqes.min = ctrlr->cqes.max = 4;
	ctrlr->nn = 1;
	memcpy(ctrlr->subnqn, subnqn, strnlen(subnqn, sizeof(ctrlr->subnqn) - 1) + 1);
}

void
xnvme_be_synth_ns(struct xnvme_spec_idfy_ns *ns, uint64_t nsze, uint32_t lba_nbytes)
{
	ns->nsze = nsze;
	ns->ncap = nsze;
	ns->nuse = nsze;
	ns->nlbaf = 0; /* zero-based: one format */
	ns->lbaf[0].ds = (uint8_t)XNVME_ILOG2(lba_nbytes);
}

static void
file_ctrlr(const struct xnvme_dev *dev, const struct xnvme_be_synth_file_ops *ops,
	   const struct xnvme_be_synth_file *f, struct xnvme_spec_idfy_ctrlr *ctrlr)
{
	char sn[64] = "0", nqn[256];

	ops->serial(dev, sn, sizeof(sn));
	/* NQNs hold 223 bytes; a long path is cut, it only has to be stable */
	snprintf(nqn, sizeof(nqn), "nqn.2014-08.io.xnvme:file_as_ns:%.190s", dev->ident.uri);
	xnvme_be_synth_ctrlr(ctrlr, sn, f->block ? ops->mn_block : ops->mn, "0.7.5",
			     XNVME_BE_SYNTH_MDTS, nqn);
	ctrlr->vwc.present = 1; /* the OS's cache is a volatile write cache; FLUSH syncs the file */
}

static void
file_fs_ctrlr(const struct xnvme_be_synth_file *f, struct xnvme_spec_fs_idfy_ctrlr *fs)
{
	fs->caps.direct = f->direct;
	fs->limits.file_data_size = f->fs_nbytes;
	fs->limits.file_name_len = f->fs_name_len;
	fs->limits.number_of_files = f->fs_nfiles;
	fs->limits.path_name_len = f->fs_path_len;
	if (f->posix && !f->block) {
		fs->properties.permissions_posix = 1;
		fs->properties.stamp_access = 1;
		fs->properties.stamp_change = 1;
		fs->properties.hardlinks = 1;
		fs->properties.symlinks = 1;
		fs->properties.case_sensitive = 1;
		fs->properties.case_preserving = 1;
	}
	fs->iosizes.min = f->direct ? f->lba_nbytes : 1;
	fs->iosizes.max = 1U << (XNVME_BE_SYNTH_MDTS + 12);
	fs->iosizes.opt = f->fs_opt_nbytes ? f->fs_opt_nbytes : 4096;
	fs->ac = 0xAC;
	fs->dc = 0xDC;
}

static void
file_fs_ns(uint64_t nbytes, struct xnvme_spec_fs_idfy_ns *fs)
{
	fs->nsze = nbytes;
	fs->ncap = nbytes;
	fs->nuse = nbytes;
	fs->ac = 0xAC;
	fs->dc = 0xDC;
}

static int
file_idfy(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes,
	  const struct xnvme_be_synth_file_ops *ops)
{
	uint32_t cns = ctx->cmd.idfy.cns, csi = ctx->cmd.idfy.csi;
	bool iocs = cns == XNVME_SPEC_IDFY_CTRLR_IOCS || cns == XNVME_SPEC_IDFY_NS_IOCS;
	struct xnvme_be_synth_file f;
	union {
		struct xnvme_spec_idfy base;
		struct xnvme_spec_fs_idfy_ctrlr fs_ctrlr;
		struct xnvme_spec_fs_idfy_ns fs_ns;
	} idfy;
	uint64_t nbytes = 0;
	int err;

	if (!dbuf) {
		return xnvme_be_synth_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
	}
	/* The namespace id is not checked: the one namespace answers to any, as the original */
	if ((cns != XNVME_SPEC_IDFY_CTRLR && cns != XNVME_SPEC_IDFY_NS && !iocs) ||
	    (iocs && csi != XNVME_SPEC_CSI_FS)) {
		/* The original answers sct 3 / sc 3 (a path status, misleading); Invalid Field
		 * in Command is what NVMe specifies for an unsupported CNS value. */
		return xnvme_be_synth_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
	}
	if (cns == XNVME_SPEC_IDFY_NS || cns == XNVME_SPEC_IDFY_NS_IOCS) {
		err = ops->nbytes(ctx->dev, &nbytes);
		if (err) {
			xnvme_cpl_set_errno(ctx, err);
			return err;
		}
	}
	memset(&f, 0, sizeof(f));
	ops->facts(ctx->dev, cns == XNVME_SPEC_IDFY_CTRLR_IOCS, &f);
	memset(&idfy, 0, sizeof(idfy));

	switch (cns) {
	case XNVME_SPEC_IDFY_CTRLR:
		file_ctrlr(ctx->dev, ops, &f, &idfy.base.ctrlr);
		break;
	case XNVME_SPEC_IDFY_NS:
		/* files: sizes in bytes, as the original (geometry takes tbytes from the FS data);
		 * block devices: in LBAs, since their geometry is derived from these */
		xnvme_be_synth_ns(&idfy.base.ns, f.block ? nbytes / f.lba_nbytes : nbytes,
				  f.lba_nbytes);
		break;
	case XNVME_SPEC_IDFY_CTRLR_IOCS:
		file_fs_ctrlr(&f, &idfy.fs_ctrlr);
		break;
	default:
		file_fs_ns(nbytes, &idfy.fs_ns);
		break;
	}
	memcpy(dbuf, &idfy, dbuf_nbytes < SYNTH_IDFY_NBYTES ? dbuf_nbytes : SYNTH_IDFY_NBYTES);
	return 0;
}

int
xnvme_be_synth_gfeat(struct xnvme_cmd_ctx *ctx)
{
	struct xnvme_spec_feat feat = {0};

	if (ctx->cmd.gfeat.cdw10.fid != XNVME_SPEC_FEAT_NQUEUES) {
		return xnvme_be_synth_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
	}
	feat.nqueues.nsqa = XNVME_BE_SYNTH_NQUEUES;
	feat.nqueues.ncqa = XNVME_BE_SYNTH_NQUEUES;
	ctx->cpl.cdw0 = feat.val;
	return 0;
}

int
xnvme_be_synth_file_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes,
			  const struct xnvme_be_synth_file_ops *ops)
{
	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_ADM_OPC_IDFY:
		return file_idfy(ctx, dbuf, dbuf_nbytes, ops);
	case XNVME_SPEC_ADM_OPC_GFEAT:
		return xnvme_be_synth_gfeat(ctx);
	default:
		return xnvme_be_synth_status(ctx, 0x01); /* Invalid Command Opcode */
	}
}

int
xnvme_be_pseudo_none(struct xnvme_dev *dev, enum xnvme_be_pseudo op, void *buf, size_t nbytes)
{
	(void)dev;
	(void)op;
	(void)buf;
	(void)nbytes;
	return -ENOSYS; /* no NVMe controller behind a file or a disk to reset or read */
}
