// SPDX-License-Identifier: BSD-3-Clause
/*
 * Sync mechanism "nvme": NVMe I/O passthrough ioctls on a namespace block device
 * (/dev/nvmeXnY), a generic namespace char device (/dev/ngXnY) or, for single-namespace
 * controllers, the controller node.
 *
 * NVME_IOCTL_IO64_CMD (64-bit result, for Zone Append) is tried first; a kernel that does not
 * know it (ENOTTY) gets NVME_IOCTL_IO_CMD from then on, remembered per handle. Vectored commands
 * use NVME_IOCTL_IO64_CMD_VEC, falling back to a bounce buffer. The kernel command is built in
 * a local struct from ctx->cmd rather than handing the context itself to the kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "be_linux_nvme.h"

static int
nvme_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	    size_t mbuf_nbytes)
{
	int err = xnvme_be_linux_nvme_io_bufs(ctx, &dbuf, &dbuf_nbytes, &mbuf, &mbuf_nbytes);

	if (err) {
		return xnvme_be_linux_errno(ctx, err);
	}
	return xnvme_be_linux_nvme_pass(ctx, XNVME_BE_LINUX_PASS_IO, dbuf, dbuf_nbytes, mbuf,
					mbuf_nbytes);
}

static int
nvme_cmd_iov_bounce(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t total,
		    void *mbuf, size_t mbuf_nbytes)
{
	uint8_t dir = ctx->cmd.common.opcode & 0x3; /* 1: to the device, 2: from it, 3: both */
	void *bounce = NULL;
	int err;

	/* copied here, not by the kernel: a NULL base of non-zero length must not reach memcpy */
	for (size_t i = 0; i < dvec_cnt; ++i) {
		if (!dvec[i].iov_base && dvec[i].iov_len) {
			return xnvme_be_linux_errno(ctx, EINVAL);
		}
	}
	/* only on kernels without NVME_IOCTL_IO64_CMD_VEC: allocation is acceptable there */
	if (posix_memalign(&bounce, 4096, total)) {
		return xnvme_be_linux_errno(ctx, ENOMEM);
	}
	if (dir & 0x1) {
		xnvme_be_linux_iov_copy(dvec, dvec_cnt, bounce, true);
	}
	err = xnvme_be_linux_nvme_pass(ctx, XNVME_BE_LINUX_PASS_IO, bounce, total, mbuf,
				       mbuf_nbytes);
	if (!err && (dir & 0x2)) {
		xnvme_be_linux_iov_copy(dvec, dvec_cnt, bounce, false);
	}
	free(bounce);
	return err;
}

static int
nvme_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	     void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_be_linux_state *state = ctx->dev->state;
	size_t total = xnvme_be_linux_iov_total(dvec, dvec_cnt);
	int err;

	(void)dvec_nbytes; /* advisory; the iovec lengths define the transfer (libxnvme_cmd.h) */

	/* No data, a payload defined by the command (DSM ranges), or one segment: plain path */
	if (dvec_cnt <= 1 || xnvme_be_linux_nvme_payload_nbytes(ctx, total) != total) {
		return nvme_cmd_io(ctx, dvec_cnt ? dvec[0].iov_base : NULL,
				   dvec_cnt ? dvec[0].iov_len : 0, mbuf, mbuf_nbytes);
	}
	xnvme_be_linux_nvme_buf(&mbuf, &mbuf_nbytes);
	if (total > UINT32_MAX || dvec_cnt > UINT32_MAX) {
		return xnvme_be_linux_errno(ctx, EINVAL);
	}
	if (!(__atomic_load_n(&state->quirks, __ATOMIC_RELAXED) & XNVME_BE_LINUX_NO_IO64_VEC)) {
		err = xnvme_be_linux_nvme_pass(ctx, XNVME_BE_LINUX_PASS_IO_VEC, dvec, dvec_cnt,
					       mbuf, mbuf_nbytes);
		if (err != -ENOTTY) {
			return err;
		}
		__atomic_fetch_or(&state->quirks, XNVME_BE_LINUX_NO_IO64_VEC, __ATOMIC_RELAXED);
		memset(&ctx->cpl, 0, sizeof(ctx->cpl));
	}
	return nvme_cmd_iov_bounce(ctx, dvec, dvec_cnt, total, mbuf, mbuf_nbytes);
}

const struct xnvme_be_sync xnvme_be_linux_sync_nvme = {
	.name = "nvme",
	.check_support = xnvme_be_linux_nvme_check,
	.cmd_io = nvme_cmd_io,
	.cmd_iov = nvme_cmd_iov,
};
