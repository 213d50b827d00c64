/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * NVMe passthrough shared by the "nvme" sync and admin mechanisms (ioctls, nvme_pass.c) and
 * by "io_uring_cmd" (not installed): which buffers a command carries, the kernel's command
 * built from ctx->cmd, and the folding of the status the kernel reports.
 */
#ifndef XNVME_BE_LINUX_NVME_H
#define XNVME_BE_LINUX_NVME_H

#include <errno.h>
#include <linux/nvme_ioctl.h>
#include <stdint.h>
#include "be_linux.h"

/**
 * Command timeouts. opts.admin_timeout and opts.command_timeout (microseconds) become the
 * timeout_ms of every passthrough command: admin commands through the admin ioctl carry
 * admin_timeout, I/O commands through the I/O ioctls and io_uring_cmd carry command_timeout.
 * Microseconds are rounded up to whole milliseconds. 0, and the values xnvme_opts_default()
 * sets (60 s admin, 30 s I/O: the Linux driver's own defaults), give timeout_ms 0: the
 * driver's timeout applies (nvme_core.admin_timeout / nvme_core.io_timeout, 60 s and 30 s
 * unless the system changed them), so a system that raised them keeps its setting.
 *
 * When a command's timeout expires the driver aborts the command (I/O queues: Abort is sent,
 * the timeout re-armed) and, when it is still outstanding at the next expiry (at once for the
 * admin queue), resets the controller, which cancels it and every other command outstanding
 * on that controller. Expiry is checked on whole-second timer ticks, and the reset completes
 * only once the controller has let go of its commands. A cancelled command completes with
 * EINTR (ioctl and io_uring_cmd alike): see xnvme_be_linux_nvme_errno(). Measured in the QEMU
 * guest (kernel 6.1, 1 s timeouts, a namespace answering after 6 s; tests/guest/test_timeout.c):
 * I/O: Abort at 2.0 s, reset at 4.3 s, the command back with the error at 6.0 s (QEMU's reset
 * waits for the delayed request); admin: reset and the error at 2.1-2.3 s.
 */
#define XNVME_BE_LINUX_ADMIN_TIMEOUT_US_DEFAULT 60000000U ///< xnvme_opts_default()'s admin_timeout
#define XNVME_BE_LINUX_IO_TIMEOUT_US_DEFAULT 30000000U ///< xnvme_opts_default()'s command_timeout

/** timeout_ms for a timeout option of `us` microseconds whose default is `default_us` */
static inline uint32_t
xnvme_be_linux_timeout_ms(uint32_t us, uint32_t default_us)
{
	if (us == default_us) {
		return 0;
	}
	return us / 1000 + (us % 1000 != 0);
}

/**
 * Folds an OS error of a passthrough command (positive errno) into cpl and returns it negated.
 * The NVMe driver's passthrough waits cannot be interrupted by signals: EINTR means the driver
 * cancelled the command (NVME_REQ_CANCELLED) because its timeout expired and the controller
 * was reset, or because a controller reset or removal cancelled it while outstanding. The
 * device did not complete it: -ETIMEDOUT (cpl: sct 7, sc ETIMEDOUT).
 */
static inline int
xnvme_be_linux_nvme_errno(struct xnvme_cmd_ctx *ctx, int err)
{
	if (err == EINTR) {
		err = ETIMEDOUT;
	}
	return xnvme_be_linux_errno(ctx, err);
}

/** What xnvme_be_linux_nvme_pass() issues */
enum xnvme_be_linux_pass {
	XNVME_BE_LINUX_PASS_IO = 0, ///< NVME_IOCTL_IO64_CMD, else NVME_IOCTL_IO_CMD
	XNVME_BE_LINUX_PASS_IO_VEC =
		1, ///< NVME_IOCTL_IO64_CMD_VEC; -ENOTTY (cpl untouched) if absent
	XNVME_BE_LINUX_PASS_ADMIN = 2, ///< NVME_IOCTL_ADMIN64_CMD, else NVME_IOCTL_ADMIN_CMD
};

/**
 * Executes ctx->cmd through an NVMe passthrough ioctl on the handle's node. `data`/`dlen` are
 * the data buffer and its byte count, or for PASS_IO_VEC an iovec array and its entry count.
 * The command carries the handle's admin timeout (PASS_ADMIN) or I/O timeout.
 * Status folding as described in nvme_pass.c; returns 0, -EIO (NVMe status), -ETIMEDOUT
 * (the driver cancelled the command, xnvme_be_linux_nvme_errno()) or -errno.
 */
int
xnvme_be_linux_nvme_pass(struct xnvme_cmd_ctx *ctx, enum xnvme_be_linux_pass kind, void *data,
			 size_t dlen, void *mbuf, size_t mlen);

/** A buffer without a size, or a size without a buffer, is no buffer */
static inline void
xnvme_be_linux_nvme_buf(void **buf, size_t *nbytes)
{
	if (!*buf || !*nbytes) {
		*buf = NULL;
		*nbytes = 0;
	}
}

/**
 * The data size of an I/O command: the one the command defines (DSM ranges, Copy source
 * ranges; none for no-data opcodes, and for Zone Management Send except when it sets a
 * descriptor extension), else `given`.
 */
static inline size_t
xnvme_be_linux_nvme_payload_nbytes(const struct xnvme_cmd_ctx *ctx, size_t given)
{
	if (ctx->cmd.common.opcode == XNVME_SPEC_ZND_OPC_MGMT_SEND &&
	    ctx->cmd.znd.mgmt_send.zsa != XNVME_SPEC_ZND_CMD_MGMT_SEND_DESCRIPTOR) {
		return 0;
	}
	return xnvme_cmd_payload_nbytes(ctx, given);
}

/**
 * Settles the buffers of an I/O command: the data size as xnvme_be_linux_nvme_payload_nbytes()
 * says, and each buffer only with a non-zero size.
 * Returns 0, EFAULT when an opcode that always moves data (Read, Write, Compare, Zone Append,
 * Zone Management Receive: the device would DMA to address 0) has no buffer, or EINVAL when a
 * size exceeds the kernel command's 32 bits.
 */
static inline int
xnvme_be_linux_nvme_io_bufs(const struct xnvme_cmd_ctx *ctx, void **dbuf, size_t *dlen, void **mbuf,
			    size_t *mlen)
{
	*dlen = xnvme_be_linux_nvme_payload_nbytes(ctx, *dlen);
	if (XNVME_BE_UNLIKELY(!*dbuf || !*dlen)) {
		switch ((uint8_t)ctx->cmd.common.opcode) {
		case XNVME_SPEC_NVM_OPC_READ:
		case XNVME_SPEC_NVM_OPC_WRITE:
		case XNVME_SPEC_NVM_OPC_COMPARE:
		case XNVME_SPEC_ZND_OPC_APPEND:
		case XNVME_SPEC_ZND_OPC_MGMT_RECV:
			return EFAULT;
		default:
			*dbuf = NULL;
			*dlen = 0;
			break;
		}
	}
	xnvme_be_linux_nvme_buf(mbuf, mlen);
	if (XNVME_BE_UNLIKELY(*dlen > UINT32_MAX || *mlen > UINT32_MAX)) {
		return EINVAL;
	}
	return 0;
}

/**
 * Fills the kernel's passthrough command from ctx->cmd, every field but the result. `k` is a
 * struct nvme_passthru_cmd64 for the ioctls or, laid out alike up to the result, the struct
 * nvme_uring_cmd in a 128-byte SQE (async_ucmd.c checks the layouts). `dlen` is the entry
 * count of a vectored command. `timeout_ms` as xnvme_be_linux_timeout_ms() gives it (0: the
 * driver's default).
 */
static inline void
xnvme_be_linux_nvme_build(struct nvme_passthru_cmd64 *k, const struct xnvme_cmd_ctx *ctx,
			  const void *data, uint32_t dlen, const void *meta, uint32_t mlen,
			  uint32_t timeout_ms)
{
	const struct xnvme_spec_cmd_common *c = &ctx->cmd.common;

	k->opcode = (uint8_t)c->opcode;
	k->flags = (uint8_t)c->fuse; /* PSDT and the command id belong to the driver */
	k->rsvd1 = 0;
	k->nsid = c->nsid;
	k->cdw2 = c->cdw02;
	k->cdw3 = c->cdw03;
	k->metadata = (uintptr_t)meta;
	k->addr = (uintptr_t)data;
	k->metadata_len = mlen;
	k->data_len = dlen;
	k->cdw10 = c->ndt;
	k->cdw11 = c->ndm;
	k->cdw12 = c->cdw12;
	k->cdw13 = c->cdw13;
	k->cdw14 = c->cdw14;
	k->cdw15 = c->cdw15;
	k->timeout_ms = timeout_ms;
	k->rsvd2 = 0;
}

/**
 * Builds in `k` the command xnvme_be_linux_nvme_pass() issues for `kind`: the passthrough
 * command as the kernel receives it, timeout included (tests/test_nvme_timeout.c reads it).
 */
void
xnvme_be_linux_nvme_prep(struct nvme_passthru_cmd64 *k, struct xnvme_cmd_ctx *ctx,
			 enum xnvme_be_linux_pass kind, void *data, uint32_t dlen, void *mbuf,
			 uint32_t mlen);

/**
 * Folds a command the device completed: `status` as the kernel reports it (0 for success, else
 * the status field without the phase bit: sc bits 0-7, sct 8-10, crd 11-12, more 13, dnr 14)
 * and the command's result.
 */
static inline void
xnvme_be_linux_nvme_cpl(struct xnvme_cmd_ctx *ctx, int status, uint64_t result)
{
	ctx->cpl.result = result;
	if (status) {
		ctx->cpl.status.val = (uint16_t)((status & 0x7FFF) << 1);
	}
}

#endif /* XNVME_BE_LINUX_NVME_H */
