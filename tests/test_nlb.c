// SPDX-License-Identifier: BSD-3-Clause
/*
 * nlb is zero-based, and a command never moves more than the buffer lengths it is given.
 * xnvme_nvm_read()/write() take no length: nlb=7 must move exactly 8 blocks (a canary block
 * after them stays intact). xnvme_cmd_pass() takes the lengths: a Read or Write of nlb=8 (9
 * blocks) with an 8-block length is refused with NVMe status Invalid Field, without touching
 * the byte after the 8 blocks nor the 9th block on the device; synchronously and through a
 * queue, on the ramdisk and on a regular file.
 */
#include <stdlib.h>
#include <unistd.h>
#include "xnvme_test.h"

#define NBLK 8
#define CANARY 0xA5

struct qres {
	int done;
	struct xnvme_spec_status status;
};

static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	struct qres *res = cb_arg;

	res->done = 1;
	res->status = ctx->cpl.status;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* Read or Write of nlb=NBLK (one block too many) with an NBLK-block length, through a queue */
static void
short_len_async(struct xnvme_dev *dev, uint8_t opc, uint8_t *buf, size_t len)
{
	struct xnvme_queue *queue = NULL;
	struct xnvme_cmd_ctx *ctx;
	struct qres res = {0};
	int err;

	err = xnvme_queue_init(dev, 4, 0, &queue);
	CHECK_EQ(err, 0);
	if (err) {
		return;
	}
	ctx = xnvme_queue_get_cmd_ctx(queue);
	CHECK(ctx != NULL);
	if (ctx) {
		xnvme_cmd_ctx_set_cb(ctx, on_cpl, &res);
		ctx->cmd.common.opcode = opc;
		ctx->cmd.common.nsid = xnvme_dev_get_nsid(dev);
		ctx->cmd.nvm.slba = 0;
		ctx->cmd.nvm.nlb = NBLK;
		err = xnvme_cmd_pass(ctx, buf, len, NULL, 0);
		if (err) {
			/* refused at submission: also fine, as long as nothing moved */
			xnvme_queue_put_cmd_ctx(queue, ctx);
		} else {
			CHECK_EQ(xnvme_queue_drain(queue), 1); /* the number reaped */
			CHECK_EQ(res.done, 1);
			CHECK_EQ(res.status.sct, SCT_GENERIC);
			CHECK_EQ(res.status.sc, SC_INVALID_FIELD);
		}
	}
	CHECK_EQ(xnvme_queue_term(queue), 0);
}

static void
check_dev(const char *uri, struct xnvme_opts *opts)
{
	struct xnvme_dev *dev = xnvme_test_open(uri, opts);
	const struct xnvme_geo *geo;
	struct xnvme_cmd_ctx ctx;
	uint32_t nsid;
	size_t bs, len;
	uint8_t *wbuf, *rbuf;
	int err;

	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	geo = xnvme_dev_get_geo(dev);
	nsid = xnvme_dev_get_nsid(dev);
	bs = geo->lba_nbytes;
	len = NBLK * bs;
	/* one block more than the commands may touch: its content is the canary */
	wbuf = xnvme_buf_alloc(dev, len + bs);
	rbuf = xnvme_buf_alloc(dev, len + bs);
	CHECK(wbuf && rbuf);
	if (!wbuf || !rbuf) {
		goto out;
	}

	/* the 9th block on the device holds a known pattern */
	memset(wbuf, 0x3C, len + bs);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_OK(xnvme_nvm_write(&ctx, nsid, 0, NBLK, wbuf, NULL), ctx);

	/* nlb = NBLK - 1 moves exactly NBLK blocks */
	xnvme_buf_fill(wbuf, len, "anum");
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_OK(xnvme_nvm_write(&ctx, nsid, 0, NBLK - 1, wbuf, NULL), ctx);
	memset(rbuf, CANARY, len + bs);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_OK(xnvme_nvm_read(&ctx, nsid, 0, NBLK - 1, rbuf, NULL), ctx);
	CHECK_EQ(xnvme_buf_diff(wbuf, rbuf, len), 0);
	CHECK_EQ(rbuf[len], CANARY);
	CHECK_EQ(rbuf[len + bs - 1], CANARY);

	/* a read of NBLK + 1 blocks into an NBLK-block length is refused, nothing is written */
	memset(rbuf, CANARY, len + bs);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, nsid, 0, NBLK);
	err = xnvme_cmd_pass(&ctx, rbuf, len, NULL, 0);
	CHECK_STATUS(err, ctx, SCT_GENERIC, SC_INVALID_FIELD);
	CHECK_EQ(rbuf[len], CANARY);

	/* a write of NBLK + 1 blocks from an NBLK-block length is refused: block NBLK unchanged */
	memset(wbuf + len, 0x77, bs);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_WRITE, nsid, 0, NBLK);
	err = xnvme_cmd_pass(&ctx, wbuf, len, NULL, 0);
	CHECK_STATUS(err, ctx, SCT_GENERIC, SC_INVALID_FIELD);

	/* the same through a queue */
	memset(rbuf, CANARY, len + bs);
	short_len_async(dev, XNVME_SPEC_NVM_OPC_READ, rbuf, len);
	CHECK_EQ(rbuf[len], CANARY);
	short_len_async(dev, XNVME_SPEC_NVM_OPC_WRITE, wbuf, len);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_OK(xnvme_nvm_read(&ctx, nsid, NBLK, 0, rbuf, NULL), ctx);
	CHECK_EQ(rbuf[0], 0x3C);
	CHECK_EQ(rbuf[bs - 1], 0x3C);

out:
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
	xnvme_dev_close(dev);
}

int
main(void)
{
	struct xnvme_opts opts = xnvme_opts_default();
	char path[] = "/tmp/xnvme-test-nlb-XXXXXX";
	int fd;

	opts.be = "ramdisk";
	check_dev("1GB", &opts);

	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK_EQ(ftruncate(fd, 1 << 20), 0);
		close(fd);
		opts = xnvme_opts_default();
		check_dev(path, &opts);
		opts = xnvme_opts_default();
		opts.async = "thrpool";
		check_dev(path, &opts);
		unlink(path);
	}
	return xnvme_test_result("nlb");
}
