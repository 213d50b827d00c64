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
#include <linux/nvme_ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include "be_linux.h"

static int
nvme_check_support(struct xnvme_dev *dev)
{
	return xnvme_be_linux_nvme_check(dev);
}

/*
 * Zone Management Send carries data only to set a descriptor extension; the other no-data
 * opcodes are known to the core helper.
 */
static size_t
nvme_payload_nbytes(const struct xnvme_cmd_ctx *ctx, size_t given)
{
	if (ctx->cmd.common.opcode == XNVME_SPEC_ZND_OPC_MGMT_SEND &&
	    ctx->cmd.znd.mgmt_send.zsa != XNVME_SPEC_ZND_CMD_MGMT_SEND_DESCRIPTOR) {
		return 0;
	}
	return xnvme_cmd_payload_nbytes(ctx, given);
}

/* Opcodes that always move data: a missing buffer would make the device DMA to address 0 */
static bool
nvme_needs_data(uint8_t opcode)
{
	switch (opcode) {
	case XNVME_SPEC_NVM_OPC_READ:
	case XNVME_SPEC_NVM_OPC_WRITE:
	case XNVME_SPEC_NVM_OPC_COMPARE:
	case XNVME_SPEC_ZND_OPC_APPEND:
	case XNVME_SPEC_ZND_OPC_MGMT_RECV:
		return true;
	default:
		return false;
	}
}

static int
nvme_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	    size_t mbuf_nbytes)
{
	size_t dlen = nvme_payload_nbytes(ctx, dbuf_nbytes);

	if (!dlen || !dbuf) {
		if (nvme_needs_data(ctx->cmd.common.opcode)) {
			return xnvme_be_linux_nvme_errno(ctx, EFAULT);
		}
		dbuf = NULL;
		dlen = 0;
	}
	if (!mbuf || !mbuf_nbytes) {
		mbuf = NULL;
		mbuf_nbytes = 0;
	}
	return xnvme_be_linux_nvme_pass(ctx, XNVME_BE_LINUX_PASS_IO, dbuf, dlen, mbuf,
					mbuf_nbytes);
}

/* Gathers/scatters between the vector and one buffer, for kernels without the vector ioctl */
static void
iov_copy(struct iovec *dvec, size_t dvec_cnt, char *buf, bool to_buf)
{
	for (size_t i = 0; i < dvec_cnt; ++i) {
		if (dvec[i].iov_len) {
			if (to_buf) {
				memcpy(buf, dvec[i].iov_base, dvec[i].iov_len);
			} else {
				memcpy(dvec[i].iov_base, buf, dvec[i].iov_len);
			}
			buf += dvec[i].iov_len;
		}
	}
}

static int
nvme_cmd_iov_bounce(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t total, void *mbuf,
		    size_t mbuf_nbytes)
{
	uint8_t dir = ctx->cmd.common.opcode & 0x3; /* 1: to the device, 2: from it, 3: both */
	void *bounce = NULL;
	int err;

	/* only on kernels without NVME_IOCTL_IO64_CMD_VEC: allocation is acceptable there */
	if (posix_memalign(&bounce, 4096, total)) {
		return xnvme_be_linux_nvme_errno(ctx, ENOMEM);
	}
	if (dir & 0x1) {
		iov_copy(dvec, dvec_cnt, bounce, true);
	}
	err = xnvme_be_linux_nvme_pass(ctx, XNVME_BE_LINUX_PASS_IO, bounce, total, mbuf,
				       mbuf_nbytes);
	if (!err && (dir & 0x2)) {
		iov_copy(dvec, dvec_cnt, bounce, false);
	}
	free(bounce);
	return err;
}

static int
nvme_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	     void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_be_linux_state *state = ctx->dev->state;
	size_t total = 0;
	int err;

	(void)dvec_nbytes; /* advisory; the iovec lengths define the transfer (api.md §2.7) */

	for (size_t i = 0; i < dvec_cnt; ++i) {
		total += dvec[i].iov_len;
	}
	/* No data, a payload defined by the command (DSM ranges), or one segment: plain path */
	if (dvec_cnt <= 1 || nvme_payload_nbytes(ctx, total) != total) {
		return nvme_cmd_io(ctx, dvec_cnt ? dvec[0].iov_base : NULL,
				   dvec_cnt ? dvec[0].iov_len : 0, mbuf, mbuf_nbytes);
	}
	if (!mbuf || !mbuf_nbytes) {
		mbuf = NULL;
		mbuf_nbytes = 0;
	}
	if (total > UINT32_MAX || dvec_cnt > UINT32_MAX) {
		return xnvme_be_linux_nvme_errno(ctx, EINVAL);
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
	.check_support = nvme_check_support,
	.cmd_io = nvme_cmd_io,
	.cmd_iov = nvme_cmd_iov,
};
