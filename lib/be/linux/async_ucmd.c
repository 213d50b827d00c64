// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "io_uring_cmd": NVMe passthrough over io_uring on a generic NVMe namespace
 * char device (/dev/ngXnY). One ring per queue with 128-byte SQEs and 32-byte CQEs; each
 * command is an IORING_OP_URING_CMD whose 80-byte command area carries the kernel's struct
 * nvme_uring_cmd built from ctx->cmd (opcode, nsid, cdw2-3, cdw10-15, data and metadata
 * buffers), with cmd_op NVME_URING_CMD_IO, or NVME_URING_CMD_IO_VEC for vectors of more than
 * one entry. Any I/O opcode passes: the device decides. Payload sizes of Dataset Management
 * and Copy come from the command (the caller's count is advisory there); opcodes without data
 * pass none. liburing 2.3 has no helper for such SQEs, so they are filled here field by field.
 *
 * Completion: cqe->res < 0 is an OS error (sct 7, sc errno); res >= 0 is the NVMe status as
 * the kernel reports it (sc bits 0-7, sct 8-10, crd, more, dnr 14), folded into cpl.status as
 * the sync "nvme" mechanism does; big_cqe[0] is the 64-bit command result (the LBA a Zone
 * Append wrote).
 *
 * Batching, setup flags, IOPOLL/SQPOLL, registered file, poke rules and the completion fd are
 * those of "io_uring" (be_linux_uring.h). Vectors up to UC_IOV_INLINE entries are copied into
 * per-command storage, which lives until completion: the kernel may read the vector again
 * when it retries a command from a worker. Longer vectors are used in place and must stay
 * valid until the callback runs.
 */
#include <errno.h>
#include <linux/nvme_ioctl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "be_linux.h"
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

#ifdef XNVME_HAVE_LIBURING

#define UC_IOV_INLINE 8

_Static_assert(sizeof(struct nvme_uring_cmd) <= 80, "nvme_uring_cmd exceeds the SQE128 area");

struct uc_iov {
	struct iovec v[UC_IOV_INLINE];
};

struct uc_state {
	struct xnvme_be_linux_uring u; ///< first: see xnvme_be_linux_uring_queue_flags()
	struct uc_iov *iov;            ///< per pooled context, indexed by xnvme_queue_ctx_idx()
};

/* NULL when the kernel can do NVMe passthrough over io_uring, else what it lacks */
static const char *
uc_kernel_reason(void)
{
	const struct xnvme_be_linux_uring_caps *c = xnvme_be_linux_uring_caps();

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
}

bool
xnvme_be_linux_ucmd_supported(struct xnvme_dev *dev)
{
	return !uc_device_reason(dev) && !uc_kernel_reason();
}

static int
uc_check_support(struct xnvme_dev *dev)
{
	const char *why = uc_device_reason(dev);

	if (why) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP,
					    "io_uring_cmd needs an NVMe generic char device "
					    "/dev/ngXnY; '%s': %s",
					    dev->ident.uri, why);
	}
	why = uc_kernel_reason();
	if (why) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP, "io_uring_cmd: %s", why);
	}
	return 0;
}

static int
uc_term(struct xnvme_queue *queue)
{
	struct uc_state *state = queue->state;

	if (state) {
		xnvme_be_linux_uring_term(&state->u, queue->outstanding);
		free(state->iov);
		free(state);
	}
	queue->state = NULL;
	return 0;
}

static int
uc_init(struct xnvme_queue *queue, int opts)
{
	const struct xnvme_be_linux_state *lstate = xnvme_be_linux_state(queue->dev);
	const char *why = uc_kernel_reason();
	struct uc_state *state;
	int err;

	if (!lstate) {
		return -ENOTSUP;
	}
	if (why) {
		fprintf(stderr, "# xnvme_queue_init(io_uring_cmd): %s\n", why);
		return -ENOTSUP;
	}
	state = calloc(1, sizeof(*state));
	if (!state) {
		return -ENOMEM;
	}
	state->iov = calloc((size_t)queue->capacity + 1, sizeof(*state->iov));
	if (!state->iov) {
		free(state);
		return -ENOMEM;
	}
	err = xnvme_be_linux_uring_init(&state->u, queue, "io_uring_cmd",
					IORING_SETUP_SQE128 | IORING_SETUP_CQE32, lstate->fd, opts);
	if (err) {
		free(state->iov);
		free(state);
		return err;
	}
	queue->state = state;
	return 0;
}

static inline void
uc_cpl(struct xnvme_cmd_ctx *ctx, const struct io_uring_cqe *cqe)
{
	int res = cqe->res;

	if (__builtin_expect(res >= 0, 1)) {
		ctx->cpl.result = cqe->big_cqe[0];
		if (res) {
			ctx->cpl.status.val = (uint16_t)((res & 0x7FFF) << 1);
		}
	} else {
		xnvme_cpl_set_errno(ctx, res);
	}
}

/* poke beyond the idle check: submit, let the kernel post, reap */
static __attribute__((noinline)) int
uc_poke_work(struct xnvme_queue *queue, uint32_t max)
{
	struct uc_state *state = queue->state;
	struct xnvme_cmd_ctx **reap = state->u.reap;
	struct io_uring *ring = &state->u.ring;
	struct io_uring_cqe *cqe;
	uint32_t n = 0, lim;
	unsigned int head;
	int err;

	err = xnvme_be_linux_uring_flush(&state->u);
	if (__builtin_expect(err != 0, 0)) {
		return err;
	}
	lim = (max && max < queue->outstanding) ? max : queue->outstanding;
	if (!lim) {
		return 0;
	}
	io_uring_for_each_cqe(ring, head, cqe) {
		struct xnvme_cmd_ctx *ctx = (struct xnvme_cmd_ctx *)(uintptr_t)cqe->user_data;

		uc_cpl(ctx, cqe);
		reap[n] = ctx;
		if (++n == lim) {
			break;
		}
	}
	io_uring_cq_advance(ring, n);

	/* after the ring is consistent: callbacks may submit */
	for (uint32_t i = 0; i < n; ++i) {
		xnvme_queue_complete(queue, reap[i]);
	}
	return (int)n;
}

static int
uc_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct uc_state *state = queue->state;

	if (xnvme_be_linux_uring_idle(&state->u)) {
		return 0;
	}
	return uc_poke_work(queue, max);
}

/* Zone Management Send carries data only to set a descriptor extension */
static size_t
uc_payload_nbytes(const struct xnvme_cmd_ctx *ctx, size_t given)
{
	if (ctx->cmd.common.opcode == XNVME_SPEC_ZND_OPC_MGMT_SEND &&
	    ctx->cmd.znd.mgmt_send.zsa != XNVME_SPEC_ZND_CMD_MGMT_SEND_DESCRIPTOR) {
		return 0;
	}
	return xnvme_cmd_payload_nbytes(ctx, given);
}

/* Opcodes that always move data: without a buffer the device would DMA to address 0 */
static bool
uc_needs_data(uint8_t opcode)
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

/* The 80 bytes behind the first 48 of a 128-byte SQE */
static inline struct nvme_uring_cmd *
uc_area(struct io_uring_sqe *sqe)
{
	return (struct nvme_uring_cmd *)((uintptr_t)sqe + offsetof(struct io_uring_sqe, cmd));
}

static inline void
uc_prep(struct uc_state *state, struct io_uring_sqe *sqe, struct xnvme_cmd_ctx *ctx,
	uint32_t cmd_op, const void *data, uint32_t dlen, const void *meta, uint32_t mlen)
{
	const struct xnvme_spec_cmd_common *c = &ctx->cmd.common;
	struct nvme_uring_cmd *uc = uc_area(sqe);

	sqe->opcode = IORING_OP_URING_CMD;
	sqe->flags = state->u.sqe_flags;
	sqe->ioprio = 0;
	sqe->fd = state->u.fd;
	sqe->cmd_op = cmd_op;
	sqe->__pad1 = 0;
	sqe->addr = 0;
	sqe->len = 0;
	sqe->uring_cmd_flags = 0;
	sqe->user_data = (uintptr_t)ctx;
	sqe->buf_index = 0;
	sqe->personality = 0;
	sqe->file_index = 0;

	uc->opcode = (uint8_t)c->opcode;
	uc->flags = (uint8_t)c->fuse; /* PSDT and the command id belong to the driver */
	uc->rsvd1 = 0;
	uc->nsid = c->nsid;
	uc->cdw2 = c->cdw02;
	uc->cdw3 = c->cdw03;
	uc->metadata = (uintptr_t)meta;
	uc->addr = (uintptr_t)data;
	uc->metadata_len = mlen;
	uc->data_len = dlen; /* the entry count for NVME_URING_CMD_IO_VEC */
	uc->cdw10 = c->ndt;
	uc->cdw11 = c->ndm;
	uc->cdw12 = c->cdw12;
	uc->cdw13 = c->cdw13;
	uc->cdw14 = c->cdw14;
	uc->cdw15 = c->cdw15;
	uc->timeout_ms = 0; /* the driver's default */
	uc->rsvd2 = 0;
}

static inline int
uc_queued(struct uc_state *state)
{
	if (__builtin_expect(!state->u.batching, 0)) {
		xnvme_be_linux_uring_flush(&state->u); /* failures resurface in poke */
	}
	return 0;
}

/* Completes a context with an OS error through the ring (a NOP), without reaching the device */
static int
uc_queue_errno(struct uc_state *state, struct io_uring_sqe *sqe, struct xnvme_cmd_ctx *ctx,
	       int err)
{
	xnvme_cpl_set_errno(ctx, err);
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data(sqe, ctx);
	return uc_queued(state);
}

static int
uc_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	  size_t mbuf_nbytes)
{
	struct uc_state *state = ctx->async.queue->state;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&state->u.ring);
	size_t dlen = uc_payload_nbytes(ctx, dbuf_nbytes);

	if (__builtin_expect(!sqe, 0)) {
		return -EBUSY; /* cannot happen: the ring has room for `capacity` commands */
	}
	if (__builtin_expect(!dbuf || !dlen, 0)) {
		if (uc_needs_data((uint8_t)ctx->cmd.common.opcode)) {
			return uc_queue_errno(state, sqe, ctx, EFAULT);
		}
		dbuf = NULL;
		dlen = 0;
	}
	if (!mbuf || !mbuf_nbytes) {
		mbuf = NULL;
		mbuf_nbytes = 0;
	}
	if (__builtin_expect(dlen > UINT32_MAX || mbuf_nbytes > UINT32_MAX, 0)) {
		return uc_queue_errno(state, sqe, ctx, EINVAL);
	}
	uc_prep(state, sqe, ctx, NVME_URING_CMD_IO, dbuf, (uint32_t)dlen, mbuf,
		(uint32_t)mbuf_nbytes);
	return uc_queued(state);
}

#ifdef NVME_URING_CMD_IO_VEC
static int
uc_cmd_vec(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, void *mbuf,
	   size_t mbuf_nbytes)
{
	struct xnvme_queue *queue = ctx->async.queue;
	struct uc_state *state = queue->state;
	uint32_t idx = xnvme_queue_ctx_idx(queue, ctx);
	const struct iovec *vec = dvec;
	struct io_uring_sqe *sqe;

	if (idx > queue->capacity) {
		return -EINVAL; /* not a context of this queue's pool */
	}
	sqe = io_uring_get_sqe(&state->u.ring);
	if (!sqe) {
		return -EBUSY;
	}
	if (!mbuf || !mbuf_nbytes) {
		mbuf = NULL;
		mbuf_nbytes = 0;
	}
	if (dvec_cnt > UINT32_MAX || mbuf_nbytes > UINT32_MAX) {
		return uc_queue_errno(state, sqe, ctx, EINVAL);
	}
	if (dvec_cnt <= UC_IOV_INLINE) {
		memcpy(state->iov[idx].v, dvec, dvec_cnt * sizeof(*dvec));
		vec = state->iov[idx].v;
	}
	uc_prep(state, sqe, ctx, NVME_URING_CMD_IO_VEC, vec, (uint32_t)dvec_cnt, mbuf,
		(uint32_t)mbuf_nbytes);
	return uc_queued(state);
}
#endif

static int
uc_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	   void *mbuf, size_t mbuf_nbytes)
{
	(void)dvec_nbytes; /* advisory; the iovec lengths define the transfer (api.md §2.7) */

	if (!uc_payload_nbytes(ctx, 1)) {
		dvec_cnt = 0; /* no-data opcodes ignore any buffer */
	}
	if (dvec_cnt <= 1) {
		return uc_cmd_io(ctx, dvec_cnt ? dvec[0].iov_base : NULL,
				 dvec_cnt ? dvec[0].iov_len : 0, mbuf, mbuf_nbytes);
	}
#ifdef NVME_URING_CMD_IO_VEC
	return uc_cmd_vec(ctx, dvec, dvec_cnt, mbuf, mbuf_nbytes);
#else
	return -ENOTSUP; /* UAPI headers without vectored passthrough */
#endif
}

static int
uc_get_completion_fd(struct xnvme_queue *queue)
{
	struct uc_state *state = queue->state;

	return xnvme_be_linux_uring_completion_fd(&state->u);
}

#else /* !XNVME_HAVE_LIBURING */

bool
xnvme_be_linux_ucmd_supported(struct xnvme_dev *dev)
{
	(void)dev;
	return false;
}

static int
uc_check_support(struct xnvme_dev *dev)
{
	const char *why = uc_device_reason(dev);

	if (why) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP,
					    "io_uring_cmd needs an NVMe generic char device "
					    "/dev/ngXnY; '%s': %s",
					    dev->ident.uri, why);
	}
	return xnvme_dev_set_errmsg(dev, -ENOSYS, "io_uring_cmd: built without liburing");
}

static int
uc_init(struct xnvme_queue *queue, int opts)
{
	(void)queue;
	(void)opts;
	fprintf(stderr, "# xnvme_queue_init(io_uring_cmd): built without liburing\n");
	return -ENOSYS;
}

static int
uc_term(struct xnvme_queue *queue)
{
	queue->state = NULL;
	return 0;
}

static int
uc_poke(struct xnvme_queue *queue, uint32_t max)
{
	(void)queue;
	(void)max;
	return -ENOSYS;
}

static int
uc_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	  size_t mbuf_nbytes)
{
	(void)ctx;
	(void)dbuf;
	(void)dbuf_nbytes;
	(void)mbuf;
	(void)mbuf_nbytes;
	return -ENOSYS;
}

static int
uc_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	   void *mbuf, size_t mbuf_nbytes)
{
	(void)ctx;
	(void)dvec;
	(void)dvec_cnt;
	(void)dvec_nbytes;
	(void)mbuf;
	(void)mbuf_nbytes;
	return -ENOSYS;
}

static int
uc_get_completion_fd(struct xnvme_queue *queue)
{
	(void)queue;
	return -ENOSYS;
}

#endif /* XNVME_HAVE_LIBURING */

const struct xnvme_be_async xnvme_be_linux_async_ucmd = {
	.name = "io_uring_cmd",
	.check_support = uc_check_support,
	.init = uc_init,
	.term = uc_term,
	.poke = uc_poke,
	.cmd_io = uc_cmd_io,
	.cmd_iov = uc_cmd_iov,
	.get_completion_fd = uc_get_completion_fd,
};
