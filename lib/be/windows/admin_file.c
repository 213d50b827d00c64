// SPDX-License-Identifier: BSD-3-Clause
/*
 * Admin mechanism "file": a file looks like a controller with one namespace through
 * synthesised identify data (lib/be/common/synth.c; sizes re-read on every identify, so a
 * growing file is seen) and Get Features "number of queues". Other commands: Invalid Opcode /
 * Invalid Field. This file gathers the facts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "be_windows.h"
#include "../common/synth.h"

void
xnvme_be_windows_serial(const struct xnvme_dev *dev, char *sn, size_t len)
{
	const struct xnvme_be_windows_state *state = dev->state;
	BY_HANDLE_FILE_INFORMATION info;

	if (GetFileInformationByHandle(state->h, &info)) {
		snprintf(sn, len, "%lx.%lx%08lx", (unsigned long)info.dwVolumeSerialNumber,
			 (unsigned long)info.nFileIndexHigh, (unsigned long)info.nFileIndexLow);
	}
}

static int
file_nbytes(const struct xnvme_dev *dev, uint64_t *nbytes)
{
	return xnvme_be_windows_size(dev->state, nbytes);
}

static void
file_facts(const struct xnvme_dev *dev, bool fs, struct xnvme_be_synth_file *f)
{
	const struct xnvme_be_windows_state *state = dev->state;

	(void)fs; /* no file-system limits asked of the OS */
	f->lba_nbytes = state->lba_nbytes;
	f->direct = state->direct;
	f->fs_opt_nbytes = 4096;
}

static const struct xnvme_be_synth_file_ops file_ops = {
	.mn = "xNVMe file as namespace",
	.mn_block = "xNVMe file as namespace",
	.facts = file_facts,
	.serial = xnvme_be_windows_serial,
	.nbytes = file_nbytes,
};

static int
file_cmd_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	       size_t mbuf_nbytes)
{
	(void)mbuf;
	(void)mbuf_nbytes;
	return xnvme_be_synth_file_admin(ctx, dbuf, dbuf_nbytes, &file_ops);
}

static int
file_check_support(struct xnvme_dev *dev)
{
	(void)dev;
	return 0;
}

const struct xnvme_be_admin xnvme_be_windows_admin_file = {
	.name = "file",
	.check_support = file_check_support,
	.cmd_admin = file_cmd_admin,
	.pseudo = xnvme_be_pseudo_none,
};
