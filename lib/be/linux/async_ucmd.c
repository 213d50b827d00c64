// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "io_uring_cmd": NVMe passthrough over io_uring on a generic NVMe namespace
 * char device (/dev/ngXnY). One ring per queue with 128-byte SQEs and 32-byte CQEs; each
 * command is an IORING_OP_URING_CMD whose 80-byte command area carries the kernel's struct
 * nvme_uring_cmd built from ctx->cmd (opcode, nsid, cdw2-3, cdw10-15, data and metadata
 * buffers), with cmd_op NVME_URING_CMD_IO, or NVME_URING_CMD_IO_VEC for vectors of more than
 * one entry. Any I/O opcode passes: the device decides. Payload sizes of Dataset Management
 * and Copy come from the command (the caller's count is advisory there); opcodes without data
 * pass none. liburing 2.3 has no helper for such SQEs, so they are filled field by field, the
 * command area as the ioctls' command is (be_linux_nvme.h).
 *
 * opts.register_buffers (Linux 6.1+, where passthrough takes IORING_URING_CMD_FIXED): the data
 * buffer of a non-vectored command, when it is one the library handed out, is passed as a
 * registered buffer (be_linux_uring.h, xnvme_be_linux_uring_fixed_buf()); metadata and
 * vectors are passed as they are. On older kernels the option has no effect here.
 *
 * Every command carries the handle's I/O timeout (opts.command_timeout, be_linux_nvme.h) in
 * timeout_ms, fixed at queue init.
 *
 * Completion: cqe->res < 0 is an OS error (sct 7, sc errno; EINTR, the driver's cancellation
 * of a command whose timeout expired, becomes ETIMEDOUT); res >= 0 is the NVMe status as
 * the kernel reports it (sc bits 0-7, sct 8-10, crd, more, dnr 14), folded into cpl.status as
 * the sync "nvme" mechanism does; big_cqe[0] is the 64-bit command result (the LBA a Zone
 * Append wrote).
 *
 * Batching, setup flags, IOPOLL/SQPOLL, registered file, poke rules and the completion fd are
 * those of "io_uring" (be_linux_uring.h, uring.c). Vectors up to
 * XNVME_BE_LINUX_URING_IOV_INLINE entries are copied into per-command storage, which lives
 * until completion: the kernel may read the vector again when it retries a command from a
 * worker. Longer vectors are used in place and must stay valid until the callback runs.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "../common/async_stubs.h"
#include "be_linux.h"
#include "be_linux_nvme.h"
#include "be_linux_uring.h"

/* Why `dev` is no device for io_uring_cmd, or NULL when it is one */
static const char *
uc_device_reason(const struct xnvme_dev *dev)
{
	const struct xnvme_be_linux_state *state = xnvme_be_linux_state(dev);

	if (!state) {
		return "it was not opened by the Linux backend";
	}
	switch (state->ftype) {
	case XNVME_BE_LINUX_FILE:
		return "it is a regular file";
	case XNVME_BE_LINUX_BLOCK:
		return state->nvme ? "it is the block device of an NVMe namespace; use its "
				     "generic char device"
				   : "it is a block device";
	case XNVME_BE_LINUX_CHAR:
		if (!state->nvme) {
			return "it is a char device of no NVMe namespace";
		}
		if (state->ctrlr || dev->ident.dtype != 2) {
			return "it is an NVMe controller node, not a namespace";
		}
		return NULL;
	default:
		return "it is of unknown type";
	}
}

/* NULL when the kernel can do NVMe passthrough over io_uring, else what it lacks (and *err) */
static const char *
uc_kernel_reason(int *err)
{
#ifdef XNVME_HAVE_LIBURING
	const struct xnvme_be_linux_uring_caps *c = xnvme_be_linux_uring_caps();

	*err = -ENOTSUP;
	if (!c->ring) {
		return "the kernel refuses io_uring";
	}
	if (!c->op_uring_cmd) {
		return "the kernel lacks IORING_OP_URING_CMD";
	}
	if (!c->big) {
		return "the kernel refuses rings with 128-byte SQEs and 32-byte CQEs";
	}
	return NULL;
#else
	*err = -ENOSYS;
	return "built without liburing";
#endif
}

bool
xnvme_be_linux_ucmd_supported(struct xnvme_dev *dev)
{
	int err;

	return !uc_device_reason(dev) && !uc_kernel_reason(&err);
}

static int
uc_check_support(struct xnvme_dev *dev)
{
	const char *why = uc_device_reason(dev);
	int err;

	if (why) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP,
					    "io_uring_cmd needs an NVMe generic char device "
					    "/dev/ngXnY; '%s': %s",
					    dev->ident.uri, why);
	}
	why = uc_kernel_reason(&err);
	if (why) {
		return xnvme_dev_set_errmsg(dev, err, "io_uring_cmd: %s", why);
	}
	return 0;
}

#ifdef XNVME_HAVE_LIBURING

/* The command area of an SQE is filled as a struct nvme_passthru_cmd64 (be_linux_nvme.h) */
#define UC_SAME_FIELD(f)                                                                           \
	_Static_assert(offsetof(struct nvme_uring_cmd, f) ==                                       \
			       offsetof(struct nvme_passthru_cmd64, f),                            \
		       "nvme_uring_cmd." #f " is not where nvme_passthru_cmd64 has it")
UC_SAME_FIELD(opcode);
UC_SAME_FIELD(flags);
UC_SAME_FIELD(rsvd1);
UC_SAME_FIELD(nsid);
UC_SAME_FIELD(cdw2);
UC_SAME_FIELD(cdw3);
UC_SAME_FIELD(metadata);
UC_SAME_FIELD(addr);
UC_SAME_FIELD(metadata_len);
UC_SAME_FIELD(data_len);
UC_SAME_FIELD(cdw10);
UC_SAME_FIELD(cdw15);
UC_SAME_FIELD(timeout_ms);
UC_SAME_FIELD(rsvd2);
_Static_assert(sizeof(struct nvme_uring_cmd) == offsetof(struct nvme_passthru_cmd64, result),
	       "nvme_uring_cmd and nvme_passthru_cmd64 differ before the result");

static int
uc_init(struct xnvme_queue *queue, int opts)
{
	const char *why;
	int err;

	why = uc_kernel_reason(&err);
	if (why) {
		xnvme_last_error_set("linux: async mechanism 'io_uring_cmd': %s", why);
		return err;
	}
	err = xnvme_be_linux_uring_queue_init(queue, opts, "io_uring_cmd",
					      IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
	if (!err) {
		struct xnvme_be_linux_uring *u = queue->state;

		u->timeout_ms = xnvme_be_linux_state(queue->dev)->io_timeout_ms;
	}
	return err;
}

/* Fills `sqe` with the URING_CMD of ctx->cmd; the command area behind its first 48 bytes */
static inline void
uc_prep(struct xnvme_be_linux_uring *u, struct io_uring_sqe *sqe, struct xnvme_cmd_ctx *ctx,
	uint32_t cmd_op, const void *data, uint32_t dlen, const void *meta, uint32_t mlen)
{
	xnvme_be_linux_uring_sqe_head(u, sqe, IORING_OP_URING_CMD);
	sqe->cmd_op = cmd_op;
	sqe->__pad1 = 0;
	sqe->addr = 0;
	sqe->len = 0;
	sqe->uring_cmd_flags = 0;
	sqe->buf_index = 0;
	sqe->personality = 0;
	sqe->file_index = 0;

	xnvme_be_linux_nvme_build(
		(struct nvme_passthru_cmd64 *)((uintptr_t)sqe + offsetof(struct io_uring_sqe, cmd)),
		ctx, data, dlen, meta, mlen, u->timeout_ms);
}

/* Completes a context with an OS error through the ring (a NOP), without reaching the device */
static int
uc_queue_errno(struct xnvme_be_linux_uring *u, struct io_uring_sqe *sqe, struct xnvme_cmd_ctx *ctx,
	       int err)
{
	xnvme_cpl_set_errno(ctx, err);
	return xnvme_be_linux_uring_queue_nop(u, sqe, ctx);
}

static inline __attribute__((always_inline)) int
uc_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_be_linux_uring *u = ctx->async.queue->state;
	struct io_uring_sqe *sqe = xnvme_be_linux_uring_get_sqe(u, 1); /* SQE128 */
	int err;

	if (__builtin_expect(!sqe, 0)) {
		return -EBUSY; /* cannot happen: the ring has room for `capacity` commands */
	}
	err = xnvme_be_linux_nvme_io_bufs(ctx, &dbuf, &dbuf_nbytes, &mbuf, &mbuf_nbytes);
	if (__builtin_expect(err != 0, 0)) {
		return uc_queue_errno(u, sqe, ctx, err);
	}
	uc_prep(u, sqe, ctx, NVME_URING_CMD_IO, dbuf, (uint32_t)dbuf_nbytes, mbuf,
		(uint32_t)mbuf_nbytes);
	if (u->cmd_fixed && dbuf_nbytes) {
		uint16_t idx;

		if (xnvme_be_linux_uring_fixed_buf(u, dbuf, dbuf_nbytes, &idx)) {
			sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
			sqe->buf_index = idx;
		}
	}
	return xnvme_be_linux_uring_queue_sqe(u, sqe, ctx);
}

#ifdef NVME_URING_CMD_IO_VEC
static int
uc_cmd_vec(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, void *mbuf,
	   size_t mbuf_nbytes)
{
	struct xnvme_queue *queue = ctx->async.queue;
	struct xnvme_be_linux_uring *u = queue->state;
	uint32_t idx = xnvme_queue_ctx_idx(queue, ctx);
	const struct iovec *vec = dvec;
	struct io_uring_sqe *sqe;

	if (idx > queue->capacity) {
		return -EINVAL; /* not a context of this queue's pool */
	}
	sqe = xnvme_be_linux_uring_get_sqe(u, 1); /* SQE128 */
	if (!sqe) {
		return -EBUSY;
	}
	xnvme_be_linux_nvme_buf(&mbuf, &mbuf_nbytes);
	if (dvec_cnt > UINT32_MAX || mbuf_nbytes > UINT32_MAX) {
		return uc_queue_errno(u, sqe, ctx, EINVAL);
	}
	if (dvec_cnt <= XNVME_BE_LINUX_URING_IOV_INLINE) {
		memcpy(u->iov[idx].v, dvec, dvec_cnt * sizeof(*dvec));
		vec = u->iov[idx].v;
	}
	uc_prep(u, sqe, ctx, NVME_URING_CMD_IO_VEC, vec, (uint32_t)dvec_cnt, mbuf,
		(uint32_t)mbuf_nbytes);
	return xnvme_be_linux_uring_queue_sqe(u, sqe, ctx);
}
#endif

/* Rule 4: the command is already counted, a refusal takes the count back */
static int
uc_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	int err = uc_io(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);

	return __builtin_expect(err != 0, 0) ? xnvme_be_cmd_refused(ctx, err) : 0;
}

static inline int
uc_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, void *mbuf,
       size_t mbuf_nbytes)
{
	if (!xnvme_be_linux_nvme_payload_nbytes(ctx, 1)) {
		dvec_cnt = 0; /* no-data opcodes ignore any buffer */
	}
	if (dvec_cnt <= 1) {
		return uc_io(ctx, dvec_cnt ? dvec[0].iov_base : NULL,
			     dvec_cnt ? dvec[0].iov_len : 0, mbuf, mbuf_nbytes);
	}
#ifdef NVME_URING_CMD_IO_VEC
	return uc_cmd_vec(ctx, dvec, dvec_cnt, mbuf, mbuf_nbytes);
#else
	return -ENOTSUP; /* UAPI headers without vectored passthrough */
#endif
}

static int
uc_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	   void *mbuf, size_t mbuf_nbytes)
{
	int err;

	(void)dvec_nbytes; /* advisory; the iovec lengths define the transfer (libxnvme_cmd.h) */
	err = uc_iov(ctx, dvec, dvec_cnt, mbuf, mbuf_nbytes);
	return err ? xnvme_be_cmd_refused(ctx, err) : 0;
}

const struct xnvme_be_async xnvme_be_linux_async_ucmd = {
	.name = "io_uring_cmd",
	.check_support = uc_check_support,
	.init = uc_init,
	.term = xnvme_be_linux_uring_queue_term,
	.poke = xnvme_be_linux_uring_poke_pass,
	.cmd_io = uc_cmd_io,
	.cmd_iov = uc_cmd_iov,
	.get_completion_fd = xnvme_be_linux_uring_queue_completion_fd,
};

#else /* !XNVME_HAVE_LIBURING */

static int
uc_init(struct xnvme_queue *queue, int opts)
{
	(void)queue;
	(void)opts;
	xnvme_last_error_set("linux: async mechanism 'io_uring_cmd': built without liburing");
	return -ENOSYS;
}

const struct xnvme_be_async xnvme_be_linux_async_ucmd =
	XNVME_BE_ASYNC_ABSENT("io_uring_cmd", uc_check_support, uc_init);

#endif /* XNVME_HAVE_LIBURING */
