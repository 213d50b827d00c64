// SPDX-License-Identifier: BSD-3-Clause
/*
 * Admin and sync mechanism "nvme" on \\.\PhysicalDriveN (NVMe disks of the Windows inbox
 * driver, stornvme):
 * - admin: Identify (controller, namespace), Get Log Page and Get Features through
 *   IOCTL_STORAGE_QUERY_PROPERTY with protocol-specific data (the driver issues them itself);
 *   every other admin command through IOCTL_STORAGE_PROTOCOL_COMMAND, which the driver may
 *   refuse (it passes vendor-specific commands and a few others): that answers -ENOTSUP.
 * - sync: READ, WRITE and FLUSH as ReadFile/WriteFile/FlushFileBuffers on the disk at
 *   slba << ssw (the "file" mechanism's code); other I/O commands through
 *   IOCTL_STORAGE_PROTOCOL_COMMAND.
 * The buffers are built and decoded by nvme_pass.c (unit-tested); the ioctls themselves could
 * not be run here: Wine has no NVMe storage driver (docs/windows.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "be_windows.h"
#include "../common/synth.h"
#include "nvme_pass.h"
#include <winioctl.h> /* after windows.h */

#define NVME_TIMEOUT_S 60

int
xnvme_be_windows_ioctl(HANDLE h, DWORD code, void *buf, DWORD nbytes, DWORD *returned)
{
	OVERLAPPED ov = {0};
	DWORD werr = 0;

	ov.hEvent = CreateEventA(NULL, TRUE, FALSE, NULL);
	if (!ov.hEvent) {
		return -ENOMEM;
	}
	*returned = 0;
	if (!DeviceIoControl(h, code, buf, nbytes, buf, nbytes, returned, &ov)) {
		werr = GetLastError();
		if (werr == ERROR_IO_PENDING) {
			werr = GetOverlappedResult(h, &ov, returned, TRUE) ? 0 : GetLastError();
		}
	}
	CloseHandle(ov.hEvent);
	return werr ? -xnvme_be_windows_errno(werr) : 0;
}

/* A command the driver answers through a property query; -ENOTSUP when there is none */
static int
nvme_query(HANDLE h, struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes)
{
	long n = xnvme_be_windows_spq_build(NULL, 0, &ctx->cmd, dbuf_nbytes);
	DWORD returned;
	void *buf;
	int err;

	if (n != -ENOSPC) {
		return (int)n; /* no query for it (-ENOTSUP), or too large */
	}
	buf = calloc(1, XNVME_BE_WINDOWS_SPQ_DATA_OFFSET + dbuf_nbytes);
	if (!buf) {
		return -ENOMEM;
	}
	n = xnvme_be_windows_spq_build(buf, XNVME_BE_WINDOWS_SPQ_DATA_OFFSET + dbuf_nbytes,
				       &ctx->cmd, dbuf_nbytes);
	err = n < 0 ? (int)n
		    : xnvme_be_windows_ioctl(h, IOCTL_STORAGE_QUERY_PROPERTY, buf, (DWORD)n,
					     &returned);
	if (!err) {
		err = xnvme_be_windows_spq_result(buf, returned, ctx, dbuf, dbuf_nbytes);
	}
	free(buf);
	return err;
}

/* Any command through IOCTL_STORAGE_PROTOCOL_COMMAND */
static int
nvme_protocol_command(HANDLE h, struct xnvme_cmd_ctx *ctx, bool admin, void *dbuf,
		      size_t dbuf_nbytes)
{
	size_t nbytes = XNVME_BE_WINDOWS_SPC_DATA_OFFSET + dbuf_nbytes;
	DWORD returned;
	void *buf;
	long n;
	int err;

	buf = calloc(1, nbytes);
	if (!buf) {
		return -ENOMEM;
	}
	n = xnvme_be_windows_spc_build(buf, nbytes, &ctx->cmd, admin, dbuf, dbuf_nbytes,
				       NVME_TIMEOUT_S);
	err = n < 0 ? (int)n
		    : xnvme_be_windows_ioctl(h, IOCTL_STORAGE_PROTOCOL_COMMAND, buf, (DWORD)n,
					     &returned);
	if (!err) {
		err = xnvme_be_windows_spc_status(buf, ctx);
	}
	if (!err && (ctx->cmd.common.opcode & 0x3) == 0x2 && dbuf_nbytes) {
		memcpy(dbuf, (uint8_t *)buf + XNVME_BE_WINDOWS_SPC_DATA_OFFSET, dbuf_nbytes);
	}
	free(buf);
	return err;
}

/* Folds an errno into cpl unless the device answered with a status */
static int
nvme_done(struct xnvme_cmd_ctx *ctx, int err)
{
	if (err < 0 && !xnvme_cmd_ctx_cpl_status(ctx)) {
		xnvme_cpl_set_errno(ctx, -err);
	}
	return err;
}

int
xnvme_be_windows_nvme_admin(HANDLE h, struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes)
{
	int err = nvme_query(h, ctx, dbuf, dbuf_nbytes);

	if (err == -ENOTSUP) {
		err = nvme_protocol_command(h, ctx, true, dbuf, dbuf_nbytes);
	}
	return err;
}

static int
nvme_cmd_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	       size_t mbuf_nbytes)
{
	const struct xnvme_be_windows_state *state = ctx->dev->state;

	(void)mbuf;
	if (mbuf_nbytes) {
		return nvme_done(ctx, -ENOTSUP); /* the ioctls carry no separate metadata */
	}
	return nvme_done(ctx, xnvme_be_windows_nvme_admin(state->h, ctx, dbuf, dbuf_nbytes));
}

static bool
is_rw(const struct xnvme_cmd_ctx *ctx)
{
	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_NVM_OPC_READ:
	case XNVME_SPEC_NVM_OPC_WRITE:
	case XNVME_SPEC_NVM_OPC_FLUSH:
		return true;
	default:
		return false;
	}
}

static int
nvme_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	    size_t mbuf_nbytes)
{
	const struct xnvme_be_windows_state *state = ctx->dev->state;

	if (is_rw(ctx)) {
		return xnvme_be_windows_sync_file.cmd_io(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);
	}
	if (mbuf_nbytes) {
		return nvme_done(ctx, -ENOTSUP);
	}
	return nvme_done(ctx, nvme_protocol_command(state->h, ctx, false, dbuf, dbuf_nbytes));
}

static int
nvme_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	     void *mbuf, size_t mbuf_nbytes)
{
	if (is_rw(ctx)) {
		return xnvme_be_windows_sync_file.cmd_iov(ctx, dvec, dvec_cnt, dvec_nbytes, mbuf,
							  mbuf_nbytes);
	}
	if (dvec_cnt > 1) {
		return nvme_done(ctx, -ENOTSUP); /* one data buffer per protocol command */
	}
	return nvme_cmd_io(ctx, dvec_cnt ? dvec[0].iov_base : NULL, dvec_cnt ? dvec[0].iov_len : 0,
			   mbuf, mbuf_nbytes);
}

static int
nvme_check_support(struct xnvme_dev *dev)
{
	const struct xnvme_be_windows_state *state = dev->state;

	if (!state->nvme) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP,
					    "'nvme' needs an NVMe disk (\\\\.\\PhysicalDriveN); "
					    "files use 'file'");
	}
	return 0;
}

const struct xnvme_be_admin xnvme_be_windows_admin_nvme = {
	.name = "nvme",
	.check_support = nvme_check_support,
	.cmd_admin = nvme_cmd_admin,
	.pseudo =
		xnvme_be_pseudo_none, /* no controller operations through Windows' storage stack */
};

const struct xnvme_be_sync xnvme_be_windows_sync_nvme = {
	.name = "nvme",
	.check_support = nvme_check_support,
	.cmd_io = nvme_cmd_io,
	.cmd_iov = nvme_cmd_iov,
};
