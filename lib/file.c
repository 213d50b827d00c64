// SPDX-License-Identifier: BSD-3-Clause
/*
 * File API (libxnvme_file.h): files are devices speaking the byte-addressed command set of CSI
 * 0x1F. These are thin wrappers over the device and command functions.
 */
#include <errno.h>
#include <libxnvme.h>

struct xnvme_dev *
xnvme_file_open(const char *pathname, struct xnvme_opts *opts)
{
	return xnvme_dev_open(pathname, opts);
}

int
xnvme_file_close(struct xnvme_dev *fh)
{
	xnvme_dev_close(fh);
	return 0;
}

static int
file_rw(struct xnvme_cmd_ctx *ctx, uint8_t opcode, void *buf, size_t count, off_t offset)
{
	if (!ctx || !ctx->dev || offset < 0) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = opcode;
	ctx->cmd.common.nsid = xnvme_dev_get_nsid(ctx->dev);
	ctx->cmd.nvm.slba = (uint64_t)offset;
	return xnvme_cmd_pass(ctx, buf, count, NULL, 0);
}

int
xnvme_file_pread(struct xnvme_cmd_ctx *ctx, void *buf, size_t count, off_t offset)
{
	return file_rw(ctx, XNVME_SPEC_FS_OPC_READ, buf, count, offset);
}

int
xnvme_file_pwrite(struct xnvme_cmd_ctx *ctx, void *buf, size_t count, off_t offset)
{
	return file_rw(ctx, XNVME_SPEC_FS_OPC_WRITE, buf, count, offset);
}

int
xnvme_file_sync(struct xnvme_dev *fh)
{
	struct xnvme_cmd_ctx ctx;

	if (!fh) {
		return -EINVAL;
	}
	ctx = xnvme_cmd_ctx_from_dev(fh);
	ctx.cmd.common.opcode = XNVME_SPEC_FS_OPC_FLUSH;
	ctx.cmd.common.nsid = xnvme_dev_get_nsid(fh);
	return xnvme_cmd_pass(&ctx, NULL, 0, NULL, 0);
}

struct xnvme_cmd_ctx
xnvme_file_get_cmd_ctx(struct xnvme_dev *fh)
{
	return xnvme_cmd_ctx_from_dev(fh);
}
