// SPDX-License-Identifier: BSD-3-Clause
/*
 * Admin mechanism "file_as_ns": makes a regular file (or, when asked for explicitly, a block
 * device) look like a controller with one namespace by synthesising identify data
 * (docs/linux.md). Sizes are re-read on every identify so a growing file is seen.
 */
#include <errno.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include "be_linux.h"

#define SHIM_IDFY_NBYTES 4096
#define SHIM_MDTS 8 /* 2^(8 + 12) = 1 MiB */
#define SHIM_NQUEUES 63

/* Current size in bytes: files grow and shrink under us */
static int
shim_nbytes(const struct xnvme_be_linux_state *state, uint64_t *nbytes)
{
	struct stat st;

	if (state->ftype == XNVME_BE_LINUX_BLOCK) {
		return ioctl(state->fd, BLKGETSIZE64, nbytes) ? errno : 0;
	}
	if (fstat(state->fd, &st)) {
		return errno;
	}
	*nbytes = (uint64_t)st.st_size;
	return 0;
}

static void
shim_idfy_ctrlr(struct xnvme_dev *dev, const struct xnvme_be_linux_state *state,
		struct xnvme_spec_idfy_ctrlr *ctrlr)
{
	bool block = state->ftype == XNVME_BE_LINUX_BLOCK;
	char str[256], nqn[256];
	struct stat st;

	/* A serial that tells files apart: device and inode of what was opened */
	memset(&st, 0, sizeof(st));
	fstat(state->fd, &st);
	snprintf(str, sizeof(str), "%" PRIx64 ".%" PRIx64, (uint64_t)st.st_dev,
		 (uint64_t)st.st_ino);
	/* NQNs hold 223 bytes; a long path is cut, it only has to be stable */
	snprintf(nqn, sizeof(nqn), "nqn.2014-08.io.xnvme:file_as_ns:%.190s", dev->ident.uri);
	xnvme_be_linux_synth_ctrlr(
		ctrlr, str, block ? "xNVMe block device as namespace" : "xNVMe file as namespace",
		"0.7.5", SHIM_MDTS, nqn);
	ctrlr->vwc.present = 1; /* the page cache is a volatile write cache; FLUSH is fsync */
}

static void
shim_idfy_ns(const struct xnvme_be_linux_state *state, uint64_t nbytes,
	     struct xnvme_spec_idfy_ns *ns)
{
	uint8_t ds = (uint8_t)XNVME_ILOG2(state->lba_nbytes);

	/* Files: sizes in bytes, as the original (geometry takes tbytes from the FS data).
	 * Block devices: in logical blocks, since their geometry is derived from these. */
	if (state->ftype == XNVME_BE_LINUX_BLOCK) {
		nbytes >>= ds;
	}
	ns->nsze = nbytes;
	ns->ncap = nbytes;
	ns->nuse = nbytes;
	ns->nlbaf = 0; /* zero-based: one format */
	ns->lbaf[0].ds = ds;
}

static void
shim_idfy_fs_ctrlr(const struct xnvme_be_linux_state *state, struct xnvme_spec_fs_idfy_ctrlr *fs)
{
	struct statvfs svfs;
	struct stat st;

	fs->caps.direct = state->direct;
	if (!fstatvfs(state->fd, &svfs)) {
		fs->limits.file_data_size = (uint64_t)svfs.f_blocks * svfs.f_frsize;
		fs->limits.file_name_len = svfs.f_namemax;
		fs->limits.number_of_files = svfs.f_files;
	}
	fs->limits.path_name_len = PATH_MAX;
	if (state->ftype == XNVME_BE_LINUX_FILE) {
		fs->properties.permissions_posix = 1;
		fs->properties.stamp_access = 1;
		fs->properties.stamp_change = 1;
		fs->properties.hardlinks = 1;
		fs->properties.symlinks = 1;
		fs->properties.case_sensitive = 1;
		fs->properties.case_preserving = 1;
	}
	fs->iosizes.min = state->direct ? state->lba_nbytes : 1;
	fs->iosizes.max = 1U << (SHIM_MDTS + 12);
	fs->iosizes.opt =
		(!fstat(state->fd, &st) && st.st_blksize > 0) ? (uint32_t)st.st_blksize : 4096;
	fs->ac = 0xAC;
	fs->dc = 0xDC;
}

static void
shim_idfy_fs_ns(uint64_t nbytes, struct xnvme_spec_fs_idfy_ns *fs)
{
	fs->nsze = nbytes;
	fs->ncap = nbytes;
	fs->nuse = nbytes;
	fs->ac = 0xAC;
	fs->dc = 0xDC;
}

static int
shim_idfy(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes)
{
	const struct xnvme_be_linux_state *state = ctx->dev->state;
	uint32_t cns = ctx->cmd.idfy.cns, csi = ctx->cmd.idfy.csi;
	union {
		struct xnvme_spec_idfy base;
		struct xnvme_spec_fs_idfy_ctrlr fs_ctrlr;
		struct xnvme_spec_fs_idfy_ns fs_ns;
	} idfy;
	uint64_t nbytes = 0;
	int err;

	if (!dbuf) {
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
	}
	memset(&idfy, 0, sizeof(idfy));

	/* The namespace id is not checked: the one namespace answers to any, as the original */
	switch (cns) {
	case XNVME_SPEC_IDFY_CTRLR:
		shim_idfy_ctrlr(ctx->dev, state, &idfy.base.ctrlr);
		break;

	case XNVME_SPEC_IDFY_NS:
		err = shim_nbytes(state, &nbytes);
		if (err) {
			return xnvme_be_linux_errno(ctx, err);
		}
		shim_idfy_ns(state, nbytes, &idfy.base.ns);
		break;

	case XNVME_SPEC_IDFY_CTRLR_IOCS:
		if (csi != XNVME_SPEC_CSI_FS) {
			return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
		}
		shim_idfy_fs_ctrlr(state, &idfy.fs_ctrlr);
		break;

	case XNVME_SPEC_IDFY_NS_IOCS:
		if (csi != XNVME_SPEC_CSI_FS) {
			return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
		}
		err = shim_nbytes(state, &nbytes);
		if (err) {
			return xnvme_be_linux_errno(ctx, err);
		}
		shim_idfy_fs_ns(nbytes, &idfy.fs_ns);
		break;

	default:
		/* The original answers sct 3 / sc 3 (a path status, misleading); Invalid Field
		 * in Command is what NVMe specifies for an unsupported CNS value. */
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
	}

	memcpy(dbuf, &idfy, dbuf_nbytes < SHIM_IDFY_NBYTES ? dbuf_nbytes : SHIM_IDFY_NBYTES);
	return 0;
}

static int
shim_gfeat(struct xnvme_cmd_ctx *ctx)
{
	struct xnvme_spec_feat feat = {0};

	if (ctx->cmd.gfeat.cdw10.fid != XNVME_SPEC_FEAT_NQUEUES) {
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
	}
	feat.nqueues.nsqa = SHIM_NQUEUES;
	feat.nqueues.ncqa = SHIM_NQUEUES;
	ctx->cpl.cdw0 = feat.val;
	return 0;
}

static int
shim_cmd_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	       size_t mbuf_nbytes)
{
	(void)mbuf;
	(void)mbuf_nbytes;

	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_ADM_OPC_IDFY:
		return shim_idfy(ctx, dbuf, dbuf_nbytes);

	case XNVME_SPEC_ADM_OPC_GFEAT:
		return shim_gfeat(ctx);

	default:
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_OPCODE);
	}
}

const struct xnvme_be_admin xnvme_be_linux_admin_file = {
	.name = "file_as_ns",
	.check_support = xnvme_be_linux_check_file_or_block,
	.cmd_admin = shim_cmd_admin,
	.pseudo = xnvme_be_linux_synth_pseudo,
};
