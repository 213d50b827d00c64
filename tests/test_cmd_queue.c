// SPDX-License-Identifier: BSD-3-Clause
/*
 * Command contexts and queue semantics clients rely on: the capacity + 1 pool,
 * -EBUSY without side effects, pre-bound contexts, callbacks exactly once, set_cb on handed-out
 * contexts, idle poke, clean sync contexts, no stale statuses, the generic DSM path.
 */
#include <errno.h>
#include <string.h>
#include <libxnvme.h>
#include "xnvme_test.h"

struct counter {
	int ncalls;
	int nerr;
};

static void
count_cb(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	struct counter *c = cb_arg;

	c->ncalls++;
	c->nerr += xnvme_cmd_ctx_cpl_status(ctx) != 0;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static void
test_pool(struct xnvme_dev *dev, uint16_t capacity)
{
	struct xnvme_cmd_ctx *ctxs[4098];
	struct xnvme_queue *queue;
	struct counter cnt = {0};
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	int err;

	err = xnvme_queue_init(dev, capacity, 0, &queue);
	CHECK_EQ(err, 0);
	if (err) {
		return;
	}
	CHECK_EQ(xnvme_queue_get_capacity(queue), capacity);
	CHECK_EQ(xnvme_queue_get_outstanding(queue), 0);
	CHECK_EQ(xnvme_queue_poke(queue, 0), 0); /* idle: 0, never -EAGAIN */
	CHECK_EQ(xnvme_queue_get_completion_fd(queue), -ENOSYS);

	/* capacity + 1 contexts, then NULL with ENOMEM */
	for (uint32_t i = 0; i <= capacity; ++i) {
		ctxs[i] = xnvme_queue_get_cmd_ctx(queue);
		CHECK(ctxs[i] != NULL);
		if (!ctxs[i]) {
			return;
		}
		CHECK(ctxs[i]->dev == dev);
		CHECK(ctxs[i]->async.queue == queue);
		CHECK_EQ(ctxs[i]->opts, 2);
	}
	errno = 0;
	CHECK(xnvme_queue_get_cmd_ctx(queue) == NULL);
	CHECK_EQ(errno, ENOMEM);

	/* set_cb reaches contexts that are handed out */
	CHECK_EQ(xnvme_queue_set_cb(queue, count_cb, &cnt), 0);
	for (uint32_t i = 0; i <= capacity; ++i) {
		CHECK(ctxs[i]->async.cb == count_cb);
	}

	/* submit capacity commands; the spare context's submission is refused with -EBUSY */
	for (uint32_t i = 0; i < capacity; ++i) {
		xnvme_prep_nvm(ctxs[i], XNVME_SPEC_NVM_OPC_FLUSH, nsid, 0, 0);
		CHECK_EQ(xnvme_cmd_pass(ctxs[i], NULL, 0, NULL, 0), 0);
	}
	CHECK_EQ(xnvme_queue_get_outstanding(queue), capacity);
	xnvme_prep_nvm(ctxs[capacity], XNVME_SPEC_NVM_OPC_FLUSH, nsid, 0, 0);
	CHECK_EQ(xnvme_cmd_pass(ctxs[capacity], NULL, 0, NULL, 0), -EBUSY);
	CHECK_EQ(xnvme_queue_get_outstanding(queue), capacity);
	CHECK_EQ(xnvme_queue_put_cmd_ctx(queue, ctxs[capacity]), 0);

	CHECK_EQ(xnvme_queue_drain(queue), capacity);
	CHECK_EQ(cnt.ncalls, capacity);
	CHECK_EQ(cnt.nerr, 0);
	CHECK_EQ(xnvme_queue_get_outstanding(queue), 0);

	/* every context came back: the pool is full again */
	for (uint32_t i = 0; i <= capacity; ++i) {
		ctxs[i] = xnvme_queue_get_cmd_ctx(queue);
		CHECK(ctxs[i] != NULL);
	}
	for (uint32_t i = 0; i <= capacity; ++i) {
		xnvme_queue_put_cmd_ctx(queue, ctxs[i]);
	}
	CHECK_EQ(xnvme_queue_term(queue), 0);
}

static void
test_capacity_limits(struct xnvme_dev *dev)
{
	struct xnvme_queue *queue = NULL;

	CHECK_EQ(xnvme_queue_init(dev, 0, 0, &queue), -EINVAL);
	CHECK_EQ(xnvme_queue_init(dev, 4097, 0, &queue), -EINVAL);
	CHECK_EQ(xnvme_queue_init(dev, 4096, 0, &queue), 0);
	CHECK_EQ(xnvme_queue_term(queue), 0);
	CHECK_EQ(xnvme_queue_init(dev, 3, 0, &queue), 0); /* not a power of two: accepted */
	CHECK_EQ(xnvme_queue_term(queue), 0);
}

/* A per-command cb_arg set after get survives; a stale error status does not */
static void
test_cb_arg_and_stale_status(struct xnvme_dev *dev)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	struct xnvme_queue *queue;
	struct xnvme_cmd_ctx *ctx;
	struct counter a = {0}, b = {0};
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	void *buf = xnvme_buf_alloc(dev, geo->lba_nbytes);

	CHECK(buf);
	CHECK_EQ(xnvme_queue_init(dev, 1, 0, &queue), 0);
	xnvme_queue_set_cb(queue, count_cb, &a);

	ctx = xnvme_queue_get_cmd_ctx(queue);
	ctx->async.cb_arg = &b;
	CHECK_EQ(xnvme_nvm_read(ctx, nsid, geo->nsect, 0, buf, NULL), 0); /* beyond the end */
	CHECK_EQ(xnvme_queue_drain(queue), 1);
	CHECK_EQ(b.ncalls, 1);
	CHECK_EQ(b.nerr, 1);
	CHECK_EQ(a.ncalls, 0);
	CHECK(ctx->async.cb_arg == &b);
	CHECK_EQ(ctx->cpl.status.sct, 0);
	CHECK_EQ(ctx->cpl.status.sc, 0x80); /* LBA out of range */

	ctx = xnvme_queue_get_cmd_ctx(queue); /* the same context again: queue of one */
	CHECK_EQ(xnvme_nvm_read(ctx, nsid, 0, 0, buf, NULL), 0);
	CHECK_EQ(xnvme_queue_drain(queue), 1);
	CHECK_EQ(b.ncalls, 2);
	CHECK_EQ(b.nerr, 1); /* the earlier status did not survive */

	xnvme_queue_term(queue);
	xnvme_buf_free(dev, buf);
}

static void
test_sync_ctx(struct xnvme_dev *dev)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	struct xnvme_cmd_ctx zero;
	struct iovec mvec[2];
	uint8_t buf[4096];
	uint32_t nsid = xnvme_dev_get_nsid(dev);

	memset(&zero, 0, sizeof(zero));
	CHECK(ctx.dev == dev);
	CHECK_EQ(ctx.opts, 1);
	CHECK(!memcmp(&ctx.cmd, &zero.cmd, sizeof(ctx.cmd)));
	CHECK(!memcmp(&ctx.cpl, &zero.cpl, sizeof(ctx.cpl)));
	CHECK(!memcmp(&ctx.async, &zero.async, sizeof(ctx.async)));

	/* FDP detection as clients do it: a failed Get Features leaves cdw0 at 0 */
	xnvme_prep_adm_gfeat(&ctx, nsid, XNVME_SPEC_FEAT_FDP_MODE, 0);
	CHECK(xnvme_cmd_pass_admin(&ctx, NULL, 0, NULL, 0) != 0);
	CHECK_EQ(ctx.cpl.cdw0 & 1, 0);
	CHECK(xnvme_cmd_ctx_cpl_status(&ctx));

	/* number of queues */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_adm_gfeat(&ctx, nsid, XNVME_SPEC_FEAT_NQUEUES, 0, NULL, 0), 0);
	CHECK_EQ(ctx.cpl.cdw0, 63 | (63 << 16));

	/* admin commands are synchronous only; neither bit set is invalid */
	ctx.opts = 2;
	CHECK_EQ(xnvme_cmd_pass_admin(&ctx, NULL, 0, NULL, 0), -EINVAL);
	ctx.opts = 0;
	CHECK_EQ(xnvme_cmd_pass(&ctx, NULL, 0, NULL, 0), -EINVAL);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_cmd_passv(&ctx, NULL, 0, 0, mvec, 2, 0), -EINVAL);

	/* a no-data opcode ignores a data pointer and length passed along */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_WRITE_ZEROES, nsid, 0, 7);
	CHECK_EQ(xnvme_cmd_pass(&ctx, buf, sizeof(buf), NULL, 0), 0);

	/* a failing synchronous command returns non-zero and keeps the status */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	ctx.cmd.common.opcode = 0x7F; /* not an NVM opcode */
	ctx.cmd.common.nsid = nsid;
	CHECK(xnvme_cmd_pass(&ctx, NULL, 0, NULL, 0) < 0);
	CHECK_EQ(ctx.cpl.status.sc, 0x01); /* invalid command opcode */

	xnvme_cmd_ctx_clear(&ctx);
	CHECK(!memcmp(&ctx, &zero, sizeof(ctx)));
}

/* DSM as fio/SPDK-style clients submit it: cmd.dsm fields over nvm ones, passv with the size
 * of the LBA range as dvec_nbytes; the range list length must come from nr */
static void
test_dsm_generic_path(struct xnvme_dev *dev)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	struct xnvme_spec_dsm_range *range = xnvme_buf_alloc(dev, sizeof(*range));
	uint8_t *data = xnvme_buf_alloc(dev, 8 * geo->lba_nbytes);
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	struct iovec iov;

	CHECK(range && data);
	if (!range || !data) {
		return;
	}
	memset(data, 0x5A, 8 * geo->lba_nbytes);
	CHECK_EQ(xnvme_nvm_write(&ctx, nsid, 100, 7, data, NULL), 0);

	memset(range, 0, sizeof(*range));
	range->slba = 100;
	range->llb = 8;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	ctx.cmd.common.opcode = XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT;
	ctx.cmd.common.nsid = nsid;
	ctx.cmd.nvm.slba = 100;
	ctx.cmd.nvm.nlb = 7;
	ctx.cmd.dsm.nr = 0;
	ctx.cmd.dsm.ad = 1;
	iov.iov_base = range;
	iov.iov_len = sizeof(*range);
	CHECK_EQ(xnvme_cmd_passv(&ctx, &iov, 1, 8 * geo->lba_nbytes, NULL, 0, 0), 0);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_read(&ctx, nsid, 100, 7, data, NULL), 0);
	for (uint32_t i = 0; i < 8 * geo->lba_nbytes; ++i) {
		if (data[i]) {
			CHECK(!"deallocated blocks read as zeroes");
			break;
		}
	}
	xnvme_buf_free(dev, range);
	xnvme_buf_free(dev, data);
}

int
main(void)
{
	const char *asyncs[] = {"thrpool", "emu", "nil"};

	for (size_t i = 0; i < sizeof(asyncs) / sizeof(asyncs[0]); ++i) {
		struct xnvme_opts opts = xnvme_opts_default();
		struct xnvme_dev *dev;

		opts.async = asyncs[i];
		dev = xnvme_dev_open("1GB", &opts);
		CHECK(dev);
		if (!dev) {
			continue;
		}
		test_pool(dev, 1);
		test_pool(dev, 16);
		test_pool(dev, 100);
		test_capacity_limits(dev);
		if (strcmp(asyncs[i], "nil")) {
			test_cb_arg_and_stale_status(dev);
		}
		test_sync_ctx(dev);
		test_dsm_generic_path(dev);
		xnvme_dev_close(dev);
	}
	return xnvme_test_result("test_cmd_queue");
}
