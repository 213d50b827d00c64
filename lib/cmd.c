// SPDX-License-Identifier: BSD-3-Clause
/*
 * The pass functions: every command of the library goes through here. The context's opts word
 * picks the synchronous mechanism of the device or the asynchronous mechanism of the queue.
 * Also the two builders of the per-I/O path, xnvme_nvm_read() and xnvme_nvm_write(), which
 * inline the pass (the other command builders are in lib/cmdset/, on the public API).
 */
#include <errno.h>
#include <string.h>
#include "xnvme_dev.h"
#include "xnvme_queue.h"

struct xnvme_cmd_ctx
xnvme_cmd_ctx_from_dev(struct xnvme_dev *dev)
{
	struct xnvme_cmd_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.dev = dev;
	ctx.opts = XNVME_CMD_SYNC;
	/* a synchronous context is the other way commands start: the geometry is settled first */
	if (dev) {
		xnvme_dev_settle(dev);
	}
	return ctx;
}

void
xnvme_cmd_ctx_clear(struct xnvme_cmd_ctx *ctx)
{
	if (ctx) {
		memset(ctx, 0, sizeof(*ctx));
	}
}

static inline void
cpl_clear(struct xnvme_cmd_ctx *ctx)
{
	memset(&ctx->cpl, 0, sizeof(ctx->cpl));
}

/* A synchronous command that completed with a status must not report success */
static inline int
sync_verdict(struct xnvme_cmd_ctx *ctx, int err)
{
	if (!err && xnvme_cmd_ctx_cpl_status(ctx)) {
		return -EIO;
	}
	return err;
}

/* The synchronous branch of xnvme_cmd_pass(), out of line: the asynchronous one needs no frame */
__attribute__((noinline)) static int
cmd_pass_sync(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	      size_t mbuf_nbytes)
{
	int err;

	if (ctx->opts != XNVME_CMD_SYNC || !ctx->dev) {
		return -EINVAL;
	}
	cpl_clear(ctx);
	err = ctx->dev->sync->cmd_io(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);
	return sync_verdict(ctx, err);
}

/* xnvme_cmd_pass() on a context known to be non-NULL */
static inline int
cmd_pass(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	/* asynchronous first: the per-I/O path of queue clients */
	if (XNVME_BE_LIKELY(ctx->opts == XNVME_CMD_ASYNC)) {
		return xnvme_cmd_pass_async(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);
	}
	return cmd_pass_sync(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);
}

int
xnvme_cmd_pass(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	       size_t mbuf_nbytes)
{
	if (XNVME_BE_UNLIKELY(!ctx)) {
		return -EINVAL;
	}
	return cmd_pass(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);
}

/*
 * Read and write: the opcode, nsid, slba and nlb (nothing else: clients pre-set the other
 * fields), then the pass with the transfer sizes of nlb + 1 blocks from the geometry, which
 * is settled before the context existed (xnvme_queue_init(), xnvme_cmd_ctx_from_dev()).
 */
static inline size_t
rw_nbytes(const void *buf, uint16_t nlb, uint32_t unit)
{
	return buf ? ((size_t)nlb + 1) * unit : 0;
}

/*
 * Anything but a pooled context (fields stored): synchronous, or refused in cmd_pass_sync().
 * It takes the arguments of read/write as they came, so that the fast path moves none of them
 * before its branch here.
 */
__attribute__((noinline)) static int
rw_other(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb, const void *dbuf,
	 const void *mbuf)
{
	const struct xnvme_dev *dev = ctx->dev;

	(void)nsid;
	(void)slba;
	if (!dev) {
		return -EINVAL;
	}
	return cmd_pass_sync(ctx, (void *)dbuf, rw_nbytes(dbuf, nlb, dev->geo.lba_nbytes),
			     (void *)mbuf, rw_nbytes(mbuf, nlb, dev->geo.nbytes_oob));
}

static inline int
rw(struct xnvme_cmd_ctx *ctx, uint8_t opcode, uint32_t nsid, uint64_t slba, uint16_t nlb,
   const void *dbuf, const void *mbuf)
{
	const struct xnvme_dev *dev;

	if (XNVME_BE_UNLIKELY(!ctx)) {
		return -EINVAL;
	}
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.nvm.slba = slba;
	ctx->cmd.nvm.nlb = nlb;
	ctx->cmd.common.opcode = opcode;
	if (XNVME_BE_UNLIKELY(ctx->opts != XNVME_CMD_ASYNC)) {
		return rw_other(ctx, nsid, slba, nlb, dbuf, mbuf);
	}
	dev = ctx->dev;
	if (XNVME_BE_UNLIKELY(!dev)) {
		return -EINVAL;
	}
	return xnvme_cmd_pass_async(
		ctx, (void *)dbuf,
		XNVME_BE_LIKELY(dbuf != NULL) ? ((size_t)nlb + 1) * dev->geo.lba_nbytes : 0,
		(void *)mbuf,
		XNVME_BE_UNLIKELY(mbuf != NULL) ? ((size_t)nlb + 1) * dev->geo.nbytes_oob : 0);
}

int
xnvme_nvm_read(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb, void *dbuf,
	       void *mbuf)
{
	return rw(ctx, XNVME_SPEC_NVM_OPC_READ, nsid, slba, nlb, dbuf, mbuf);
}

int
xnvme_nvm_write(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb,
		const void *dbuf, const void *mbuf)
{
	return rw(ctx, XNVME_SPEC_NVM_OPC_WRITE, nsid, slba, nlb, dbuf, mbuf);
}

int
xnvme_cmd_pass_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
		   size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_queue *queue;
	int err;

	if (!ctx || (dvec_cnt && !dvec)) {
		return -EINVAL;
	}
	switch (ctx->opts) {
	case XNVME_CMD_ASYNC:
		/* counted before the call, as cmd_io (rule 4 of lib/be/xnvme_be.h) */
		queue = ctx->async.queue;
		if (!queue) {
			return -EINVAL;
		}
		if (queue->outstanding >= queue->capacity) {
			return -EBUSY;
		}
		cpl_clear(ctx);
		queue->outstanding++;
		return xnvme_queue_core(queue)->async->cmd_iov(ctx, dvec, dvec_cnt, dvec_nbytes,
							       mbuf, mbuf_nbytes);

	case XNVME_CMD_SYNC:
		if (!ctx->dev) {
			return -EINVAL;
		}
		cpl_clear(ctx);
		err = ctx->dev->sync->cmd_iov(ctx, dvec, dvec_cnt, dvec_nbytes, mbuf, mbuf_nbytes);
		return sync_verdict(ctx, err);

	default:
		return -EINVAL;
	}
}

int
xnvme_cmd_passv(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
		struct iovec *mvec, size_t mvec_cnt, size_t mvec_nbytes)
{
	if (mvec_cnt > 1) {
		return -EINVAL;
	}
	return xnvme_cmd_pass_iov(ctx, dvec, dvec_cnt, dvec_nbytes,
				  (mvec && mvec_cnt) ? mvec[0].iov_base : NULL, mvec_nbytes);
}

int
xnvme_cmd_pass_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		     size_t mbuf_nbytes)
{
	int err;

	if (!ctx || !ctx->dev || (ctx->opts & XNVME_CMD_ASYNC)) {
		return -EINVAL;
	}
	cpl_clear(ctx);
	err = ctx->dev->admin->cmd_admin(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);
	return sync_verdict(ctx, err);
}

size_t
xnvme_cmd_payload_nbytes(const struct xnvme_cmd_ctx *ctx, size_t given)
{
	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT:
		return (ctx->cmd.dsm.nr + 1) * sizeof(struct xnvme_spec_dsm_range);
	case XNVME_SPEC_NVM_OPC_SCOPY:
		/* descriptor format 0 entries are 32 bytes */
		return (ctx->cmd.scopy.nr + 1) * sizeof(struct xnvme_spec_nvm_scopy_fmt_zero);
	case XNVME_SPEC_NVM_OPC_FLUSH:
	case XNVME_SPEC_NVM_OPC_WRITE_ZEROES:
	case XNVME_SPEC_NVM_OPC_WRITE_UNCORRECTABLE:
		return 0;
	default:
		return given;
	}
}
