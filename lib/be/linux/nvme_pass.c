// SPDX-License-Identifier: BSD-3-Clause
/*
 * NVMe passthrough ioctls shared by the "nvme" sync and admin mechanisms: builds the kernel's
 * command from ctx->cmd (be_linux_nvme.h), issues the 64-bit-result ioctl with a per-handle
 * fallback to the 32-bit one, and folds the outcome into cpl:
 *   ioctl < 0  -> sct 7 (vendor), sc = errno, return -errno (docs/backends.md; never sct 0);
 *                 EINTR, the driver's cancellation of a command (its timeout expired, or a
 *                 controller reset or removal), becomes ETIMEDOUT (xnvme_be_linux_nvme_errno)
 *   ioctl > 0  -> the NVMe status the kernel returns (status field without the phase bit:
 *                 sc bits 0-7, sct 8-10, crd 11-12, more 13, dnr 14), return -EIO
 *   ioctl == 0 -> success; the command's result into cpl.result (64 bits for Zone Append)
 * Every command carries the handle's timeout: admin_timeout_ms for admin commands,
 * io_timeout_ms for I/O commands (be_linux_nvme.h).
 */
#include <errno.h>
#include <linux/nvme_ioctl.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include "be_linux_nvme.h"

/* The 32-bit command is the 64-bit one up to timeout_ms; only the result differs */
_Static_assert(offsetof(struct nvme_passthru_cmd, timeout_ms) ==
		       offsetof(struct nvme_passthru_cmd64, timeout_ms),
	       "passthru layouts differ");

static int
pass_verdict(struct xnvme_cmd_ctx *ctx, int ret, int err, uint64_t result)
{
	if (ret < 0) {
		return xnvme_be_linux_nvme_errno(ctx, err);
	}
	xnvme_be_linux_nvme_cpl(ctx, ret, result);
	return ret ? -EIO : 0;
}

/* Issues the 64-bit form unless the handle learnt that the kernel lacks it */
static int
pass_ioctl(struct xnvme_cmd_ctx *ctx, struct xnvme_be_linux_state *state, unsigned long req64,
	   unsigned long req32, int quirk, struct nvme_passthru_cmd64 *cmd64)
{
	struct nvme_passthru_cmd cmd32;
	int ret, err;

	if (req64 && !(__atomic_load_n(&state->quirks, __ATOMIC_RELAXED) & quirk)) {
		ret = ioctl(state->fd, req64, cmd64);
		err = errno;
		if (ret >= 0 || err != ENOTTY) {
			return pass_verdict(ctx, ret, err, cmd64->result);
		}
		__atomic_fetch_or(&state->quirks, quirk, __ATOMIC_RELAXED);
	}
	memcpy(&cmd32, cmd64, offsetof(struct nvme_passthru_cmd, timeout_ms));
	cmd32.timeout_ms = cmd64->timeout_ms;
	cmd32.result = 0;
	ret = ioctl(state->fd, req32, &cmd32);
	err = errno;
	return pass_verdict(ctx, ret, err, cmd32.result);
}

void
xnvme_be_linux_nvme_prep(struct nvme_passthru_cmd64 *k, struct xnvme_cmd_ctx *ctx,
			 enum xnvme_be_linux_pass kind, void *data, uint32_t dlen, void *mbuf,
			 uint32_t mlen)
{
	const struct xnvme_be_linux_state *state = ctx->dev->state;

	xnvme_be_linux_nvme_build(k, ctx, data, dlen, mbuf, mlen,
				  kind == XNVME_BE_LINUX_PASS_ADMIN ? state->admin_timeout_ms
								    : state->io_timeout_ms);
	k->result = 0;
}

int
xnvme_be_linux_nvme_pass(struct xnvme_cmd_ctx *ctx, enum xnvme_be_linux_pass kind, void *data,
			 size_t dlen, void *mbuf, size_t mlen)
{
	struct xnvme_be_linux_state *state = ctx->dev->state;
	struct nvme_passthru_cmd64 cmd;

	if (dlen > UINT32_MAX || mlen > UINT32_MAX) {
		return xnvme_be_linux_errno(ctx, EINVAL);
	}
	xnvme_be_linux_nvme_prep(&cmd, ctx, kind, data, (uint32_t)dlen, mbuf, (uint32_t)mlen);

	switch (kind) {
	case XNVME_BE_LINUX_PASS_ADMIN:
#ifdef NVME_IOCTL_ADMIN64_CMD
		return pass_ioctl(ctx, state, NVME_IOCTL_ADMIN64_CMD, NVME_IOCTL_ADMIN_CMD,
				  XNVME_BE_LINUX_NO_ADMIN64, &cmd);
#else
		return pass_ioctl(ctx, state, 0, NVME_IOCTL_ADMIN_CMD, XNVME_BE_LINUX_NO_ADMIN64,
				  &cmd);
#endif

	case XNVME_BE_LINUX_PASS_IO_VEC: {
#ifdef NVME_IOCTL_IO64_CMD_VEC
		int ret, err;

		ret = ioctl(state->fd, NVME_IOCTL_IO64_CMD_VEC, &cmd);
		err = errno;
		if (ret < 0 && err == ENOTTY) {
			return -ENOTTY; /* cpl untouched: the caller falls back */
		}
		return pass_verdict(ctx, ret, err, cmd.result);
#else
		return -ENOTTY;
#endif
	}

	case XNVME_BE_LINUX_PASS_IO:
	default:
#ifdef NVME_IOCTL_IO64_CMD
		return pass_ioctl(ctx, state, NVME_IOCTL_IO64_CMD, NVME_IOCTL_IO_CMD,
				  XNVME_BE_LINUX_NO_IO64, &cmd);
#else
		return pass_ioctl(ctx, state, 0, NVME_IOCTL_IO_CMD, XNVME_BE_LINUX_NO_IO64, &cmd);
#endif
	}
}
