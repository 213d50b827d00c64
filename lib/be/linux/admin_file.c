// SPDX-License-Identifier: BSD-3-Clause
/*
 * Admin mechanism "file_as_ns": makes a regular file (or, when asked for explicitly, a block
 * device) look like a controller with one namespace by synthesising identify data
 * (docs/linux.md). The commands are lib/be/common/synth.c's; this file gathers the facts, on
 * every Identify, so a growing file is seen.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include "be_linux.h"
#include "../common/synth.h"

/* Current size in bytes: files grow and shrink under us */
static int
shim_nbytes(const struct xnvme_dev *dev, uint64_t *nbytes)
{
	const struct xnvme_be_linux_state *state = dev->state;
	struct stat st;

	if (state->ftype == XNVME_BE_LINUX_BLOCK) {
		return ioctl(state->fd, BLKGETSIZE64, nbytes) ? -errno : 0;
	}
	if (fstat(state->fd, &st)) {
		return -errno;
	}
	*nbytes = (uint64_t)st.st_size;
	return 0;
}

/* A serial that tells files apart: device and inode of what was opened */
static void
shim_serial(const struct xnvme_dev *dev, char *sn, size_t len)
{
	const struct xnvme_be_linux_state *state = dev->state;
	struct stat st;

	memset(&st, 0, sizeof(st));
	fstat(state->fd, &st);
	snprintf(sn, len, "%" PRIx64 ".%" PRIx64, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
}

static void
shim_facts(const struct xnvme_dev *dev, bool fs, struct xnvme_be_synth_file *f)
{
	const struct xnvme_be_linux_state *state = dev->state;
	struct statvfs svfs;
	struct stat st;

	f->lba_nbytes = state->lba_nbytes;
	f->direct = state->direct;
	f->block = state->ftype == XNVME_BE_LINUX_BLOCK;
	f->posix = true;
	if (!fs) {
		return;
	}
	if (!fstatvfs(state->fd, &svfs)) {
		f->fs_nbytes = (uint64_t)svfs.f_blocks * svfs.f_frsize;
		f->fs_name_len = (uint32_t)svfs.f_namemax;
		f->fs_nfiles = svfs.f_files;
	}
	f->fs_path_len = PATH_MAX;
	if (!fstat(state->fd, &st) && st.st_blksize > 0) {
		f->fs_opt_nbytes = (uint32_t)st.st_blksize;
	}
}

static const struct xnvme_be_synth_file_ops shim_ops = {
	.mn = "xNVMe file as namespace",
	.mn_block = "xNVMe block device as namespace",
	.facts = shim_facts,
	.serial = shim_serial,
	.nbytes = shim_nbytes,
};

static int
shim_cmd_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	       size_t mbuf_nbytes)
{
	(void)mbuf;
	(void)mbuf_nbytes;
	return xnvme_be_synth_file_admin(ctx, dbuf, dbuf_nbytes, &shim_ops);
}

const struct xnvme_be_admin xnvme_be_linux_admin_file = {
	.name = "file_as_ns",
	.check_support = xnvme_be_linux_check_file_or_block,
	.cmd_admin = shim_cmd_admin,
	.pseudo = xnvme_be_pseudo_none,
};
