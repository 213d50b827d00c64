// SPDX-License-Identifier: BSD-3-Clause
/*
 * File API (libxnvme_file.h): files are devices speaking the byte-addressed command set of CSI
 * 0x1F. These are thin wrappers over the device and command functions; the buffer helpers
 * xnvme_buf_to_file() and xnvme_buf_from_file() are built on them.
 */
#include <errno.h>
#include <stdint.h>
#include <libxnvme.h>
#include "xnvme_plat.h" /* XNVME_PLAT_FILE_BE: the backend of this OS's files */

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

/*
 * Moves nbytes between buf and the file at path through the file API, on the backend of this
 * OS's files (a path like "1GB" is a file here, not a ramdisk). Writing creates and truncates
 * the file so that it holds exactly the buffer, and with `sync` syncs it before closing;
 * reading stops at end of file (a shorter file is not an error).
 */
static int
buf_file_xfer(void *buf, size_t nbytes, const char *path, bool write, bool sync)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *fh;
	size_t done = 0;
	int err = 0;

	opts.be = XNVME_PLAT_FILE_BE;
	opts.rdwr = 0;
	opts.wronly = write;
	opts.rdonly = !write;
	opts.create = write;
	opts.truncate = write;
	fh = xnvme_file_open(path, &opts);
	if (!fh) {
		return -errno;
	}
	ctx = xnvme_file_get_cmd_ctx(fh);
	while (done < nbytes) {
		uint8_t *pos = (uint8_t *)buf + done;

		err = write ? xnvme_file_pwrite(&ctx, pos, nbytes - done, (off_t)done)
			    : xnvme_file_pread(&ctx, pos, nbytes - done, (off_t)done);
		if (err || !ctx.cpl.result) {
			err = (!err && write) ? -EIO : err;
			break;
		}
		done += ctx.cpl.result;
	}
	if (!err && sync) {
		err = xnvme_file_sync(fh);
	}
	xnvme_file_close(fh);
	return err;
}

/*
 * An existing regular file is replaced only whole: the buffer goes to a new file beside it
 * (same mode, owner and group), synced, then renamed over it; on any failure the new file is
 * removed and the old bytes stay. Other paths (absent, a device, a FIFO) are written as they
 * are, as the tools do (docs/reliability.md).
 */
int
xnvme_buf_to_file(void *buf, size_t nbytes, const char *path)
{
	char target[XNVME_PLAT_PATH_MAX], tmp[XNVME_PLAT_PATH_MAX];
	int replace, err;

	if (!buf || !path) {
		return -EINVAL;
	}
	replace = xnvme_plat_replace_begin(path, target, tmp);
	if (replace < 0) {
		return replace;
	}
	if (!replace) {
		return buf_file_xfer(buf, nbytes, path, true, false);
	}
	err = buf_file_xfer(buf, nbytes, tmp, true, true);
	replace = xnvme_plat_replace_end(tmp, target, !err);
	return err ? err : replace;
}

int
xnvme_buf_from_file(void *buf, size_t nbytes, const char *path)
{
	if (!buf || !path) {
		return -EINVAL;
	}
	return buf_file_xfer(buf, nbytes, path, false, false);
}
