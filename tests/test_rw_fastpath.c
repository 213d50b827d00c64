// SPDX-License-Identifier: BSD-3-Clause
/*
 * The per-I/O path of queue clients (xnvme_nvm_read/write on a pooled context, poke, put) keeps
 * every rule of libxnvme_queue.h and libxnvme_cmd.h, on the ramdisk with the emu, thrpool and
 * nil mechanisms:
 *  - a device is identified when it gets its first queue or synchronous context, not at open
 *    nor by a buffer, and never by a command; multi-block transfers move whole blocks (data
 *    written is read back and compared);
 *  - a full queue refuses with -EBUSY, no callback, outstanding unchanged;
 *  - cpl is cleared before submission (nil never writes it: stale bytes would show);
 *  - a pooled context whose device or queue is NULL gives -EINVAL, one switched to synchronous
 *    completes synchronously, one with opts 0 gives -EINVAL;
 *  - put refuses NULL, misaligned, below- and past-the-pool contexts and double puts;
 *  - a mechanism's refusal (thrpool: a context outside the pool) leaves outstanding as
 *    it was (the core counts before handing over and takes the count back);
 *  - nil: callbacks that submit and poke nest exactly 8 pokes deep, the 9th returns 0 without
 *    reaping; drain/term from the deepest callback give -EDEADLK, and after it all the queue
 *    is back at the top level (drain 0, term 0). The queue's depth, which the Linux
 *    mechanisms read in their poke to wait only at the top level, is 1 + the callbacks running
 *    (linked with the static library for lib/xnvme_dev.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>
#include "xnvme_dev.h"
#include "xnvme_test.h"

#define NLB 4u /* blocks per multi-block command */
#define NCMD 16u
#define DEPTH_MAX 8 /* nesting bound documented in libxnvme_queue.h */

struct counter {
	unsigned calls;
	unsigned errors;
};

static void
count_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct counter *c = arg;

	c->calls++;
	c->errors += xnvme_cmd_ctx_cpl_status(ctx) != 0;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static uint8_t
pattern(uint64_t lba, size_t i)
{
	return (uint8_t)(lba * 31u + i * 7u + 1u);
}

/* A pooled context whose device is NULL is refused (-EINVAL) and goes back to the pool */
static void
check_null_dev(struct xnvme_queue *q, struct xnvme_dev *dev, uint32_t nsid, void *buf)
{
	struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

	CHECK(ctx);
	if (!ctx) {
		return;
	}
	ctx->dev = NULL;
	CHECK_EQ(xnvme_nvm_read(ctx, nsid, 0, 0, buf, NULL), -EINVAL);
	ctx->dev = dev;
	CHECK_EQ(xnvme_queue_put_cmd_ctx(q, ctx), 0);
	CHECK_EQ(xnvme_queue_get_outstanding(q), 0);
}

/* Writes NCMD commands of NLB blocks through the queue, reads them back, compares */
static void
test_settled_geometry(const char *mech)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_queue *q = NULL;
	struct counter c = {0};
	struct xnvme_cmd_ctx *ctx;
	struct xnvme_dev *dev;
	const struct xnvme_geo *geo;
	uint8_t *buf;
	size_t lba = 512, nbytes = (size_t)NCMD * NLB * 512;
	uint32_t nsid;

	opts.async = mech;
	dev = xnvme_dev_open("1GB", &opts);
	CHECK(dev);
	if (!dev) {
		return;
	}
	nsid = dev->ident.nsid; /* set by the open; xnvme_dev_get_nsid() would settle */
	/* no getter: open and buffers leave identification to the first queue */
	CHECK(!xnvme_dev_settled(dev));
	buf = xnvme_buf_alloc(dev, nbytes);
	CHECK(buf);
	CHECK(!xnvme_dev_settled(dev));
	CHECK_EQ(xnvme_queue_init(dev, 8, 0, &q), 0);
	CHECK(xnvme_dev_settled(dev));
	CHECK_EQ(dev->geo.lba_nbytes, lba);
	if (!buf || !q) {
		goto exit;
	}
	xnvme_queue_set_cb(q, count_cb, &c);
	/* a context without device is refused */
	check_null_dev(q, dev, nsid, buf);

	for (size_t i = 0; i < nbytes; ++i) {
		buf[i] = pattern(i / lba, i);
	}
	for (uint32_t i = 0; i < NCMD; ++i) {
		ctx = xnvme_queue_get_cmd_ctx(q);
		CHECK_EQ(xnvme_nvm_write(ctx, nsid, (uint64_t)i * NLB, NLB - 1,
					 buf + (size_t)i * NLB * lba, NULL),
			 0);
		if (xnvme_queue_get_outstanding(q) == 8) {
			CHECK(xnvme_queue_drain(q) >= 0);
		}
	}
	CHECK(xnvme_queue_drain(q) >= 0);
	geo = xnvme_dev_get_geo(dev);
	CHECK(geo && geo->lba_nbytes == lba);

	memset(buf, 0, nbytes);
	for (uint32_t i = 0; i < NCMD; ++i) {
		ctx = xnvme_queue_get_cmd_ctx(q);
		CHECK_EQ(xnvme_nvm_read(ctx, nsid, (uint64_t)i * NLB, NLB - 1,
					buf + (size_t)i * NLB * lba, NULL),
			 0);
		CHECK(xnvme_queue_drain(q) >= 0);
	}
	CHECK_EQ(c.calls, 2 * NCMD);
	CHECK_EQ(c.errors, 0);
	if (strcmp(mech, "nil")) {
		size_t bad = 0;

		for (size_t i = 0; i < nbytes; ++i) {
			bad += buf[i] != pattern(i / lba, i);
		}
		CHECKF(bad == 0, "%s: %zu of %zu bytes differ", mech, bad, nbytes);
	}
exit:
	xnvme_queue_term(q);
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
}

/* Full queue, cleared cpl, NULL device/queue, opts switched, put's refusals */
/* The synchronous context is the other first use: it settles, the read needs no more */
static void
test_settled_sync(void)
{
	struct xnvme_dev *dev = xnvme_dev_open("1GB", NULL);
	struct xnvme_cmd_ctx ctx;
	uint8_t *buf;

	CHECK(dev);
	if (!dev) {
		return;
	}
	buf = xnvme_buf_alloc(dev, 2 * 512);
	CHECK(buf);
	CHECK(!xnvme_dev_settled(dev));
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK(xnvme_dev_settled(dev));
	if (buf) {
		memset(buf, 0xA5, 2 * 512);
		CHECK_EQ(xnvme_nvm_write(&ctx, dev->ident.nsid, 3, 1, buf, NULL), 0);
		memset(buf, 0, 2 * 512);
		CHECK_EQ(xnvme_nvm_read(&ctx, dev->ident.nsid, 3, 1, buf, NULL), 0);
		CHECK(buf[0] == 0xA5 && buf[2 * 512 - 1] == 0xA5);
	}
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
}

static void
test_rules(struct xnvme_dev *dev, const char *mech)
{
	struct xnvme_cmd_ctx *ctxs[5], *ctx, sctx;
	struct xnvme_queue *q = NULL;
	struct counter c = {0};
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	uint8_t *buf = xnvme_buf_alloc(dev, 512), *back = xnvme_buf_alloc(dev, 512);
	int err;

	CHECK(buf && back);
	CHECK_EQ(xnvme_queue_init(dev, 4, 0, &q), 0);
	if (!buf || !back || !q) {
		goto exit;
	}
	xnvme_queue_set_cb(q, count_cb, &c);

	/* four in flight, the spare context's read is refused without side effects */
	for (int i = 0; i < 5; ++i) {
		ctxs[i] = xnvme_queue_get_cmd_ctx(q);
		CHECK(ctxs[i]);
		if (!ctxs[i]) {
			goto exit;
		}
		memset(&ctxs[i]->cpl, 0xFF, sizeof(ctxs[i]->cpl));
	}
	for (int i = 0; i < 4; ++i) {
		CHECK_EQ(xnvme_nvm_read(ctxs[i], nsid, (uint64_t)i, 0, buf, NULL), 0);
		CHECK(!xnvme_cmd_ctx_cpl_status(ctxs[i]) && !ctxs[i]->cpl.result);
	}
	CHECK_EQ(xnvme_nvm_read(ctxs[4], nsid, 9, 0, buf, NULL), -EBUSY);
	CHECK_EQ(xnvme_nvm_write(ctxs[4], nsid, 9, 0, buf, NULL), -EBUSY);
	CHECK_EQ(xnvme_queue_get_outstanding(q), 4);
	CHECK_EQ(xnvme_queue_drain(q), 4);
	CHECK_EQ(c.calls, 4);
	CHECK_EQ(c.errors, 0);
	CHECK_EQ(xnvme_queue_put_cmd_ctx(q, ctxs[4]), 0);

	/* a pooled context without device or queue: refused, nothing outstanding */
	check_null_dev(q, dev, nsid, buf);
	ctx = xnvme_queue_get_cmd_ctx(q);
	CHECK(ctx);
	if (!ctx) {
		goto exit;
	}
	ctx->async.queue = NULL;
	CHECK_EQ(xnvme_nvm_write(ctx, nsid, 0, 0, buf, NULL), -EINVAL);
	ctx->async.queue = q;
	ctx->opts = 0;
	CHECK_EQ(xnvme_nvm_read(ctx, nsid, 0, 0, buf, NULL), -EINVAL);
	CHECK_EQ(xnvme_queue_get_outstanding(q), 0);

	/* switched to synchronous: completes inside the call, no callback */
	ctx->opts = XNVME_CMD_SYNC;
	memset(buf, 0xA5, 512);
	err = xnvme_nvm_write(ctx, nsid, 100, 0, buf, NULL);
	CHECK_EQ(err, 0);
	CHECK_EQ(xnvme_queue_get_outstanding(q), 0);
	CHECK_EQ(c.calls, 4);
	if (strcmp(mech, "nil")) {
		sctx = xnvme_cmd_ctx_from_dev(dev);
		memset(back, 0, 512);
		CHECK_EQ(xnvme_nvm_read(&sctx, nsid, 100, 0, back, NULL), 0);
		CHECK(!memcmp(buf, back, 512));
	}
	ctx->opts = XNVME_CMD_ASYNC;
	CHECK_EQ(xnvme_nvm_read(ctx, nsid, 100, 0, back, NULL), 0);
	CHECK_EQ(xnvme_queue_drain(q), 1);
	CHECK_EQ(c.calls, 5);

	/*
	 * a copy outside the pool takes the fast path (same device and queue): thrpool refuses
	 * it, and the count the core made before handing it over is taken back
	 */
	if (!strcmp(mech, "thrpool")) {
		sctx = *ctx;
		CHECK_EQ(xnvme_nvm_read(&sctx, nsid, 0, 0, buf, NULL), -EINVAL);
		CHECK_EQ(xnvme_queue_get_outstanding(q), 0);
		if (xnvme_queue_get_outstanding(q)) {
			goto exit; /* a drain would wait for a command nobody holds */
		}
	}

	/* put: only a taken context of this pool, once */
	ctx = xnvme_queue_get_cmd_ctx(q);
	CHECK(ctx);
	if (!ctx) {
		goto exit;
	}
	CHECK_EQ(xnvme_queue_put_cmd_ctx(q, NULL), -EINVAL);
	CHECK_EQ(xnvme_queue_put_cmd_ctx(q, (void *)((char *)ctx + 1)), -EINVAL);
	CHECK_EQ(xnvme_queue_put_cmd_ctx(q, (void *)((char *)ctx + 64)), -EINVAL);
	CHECK_EQ(xnvme_queue_put_cmd_ctx(q, (void *)((char *)ctx - 8)), -EINVAL);
	sctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_queue_put_cmd_ctx(q, &sctx), -EINVAL);
	CHECK_EQ(xnvme_queue_put_cmd_ctx(q, ctx), 0);
	CHECK_EQ(xnvme_queue_put_cmd_ctx(q, ctx), -EINVAL);
	/* the whole pool (capacity + 1) comes back out once, in range at both ends */
	for (int i = 0; i < 5; ++i) {
		ctxs[i] = xnvme_queue_get_cmd_ctx(q);
		CHECK(ctxs[i]);
	}
	CHECK(!xnvme_queue_get_cmd_ctx(q) && errno == ENOMEM);
	for (int i = 0; i < 5; ++i) {
		for (int j = 0; j < i; ++j) {
			CHECK(ctxs[i] != ctxs[j]);
		}
	}
	for (int i = 0; i < 5; ++i) {
		CHECK_EQ(xnvme_queue_put_cmd_ctx(q, ctxs[i]), 0);
	}
	CHECK_EQ(xnvme_queue_put_cmd_ctx(q, ctxs[0] + 5), -EINVAL); /* one past the pool */
	CHECK_EQ(xnvme_queue_put_cmd_ctx(q, ctxs[0] - 5), -EINVAL); /* below it */
exit:
	xnvme_queue_term(q);
	xnvme_buf_free(dev, buf);
	xnvme_buf_free(dev, back);
}

/* ---- nil: nesting exactly DEPTH_MAX pokes deep ---------------------------------------- */

struct nest {
	struct xnvme_queue *q;
	uint32_t nsid;
	void *buf;
	int level, level_max;
	unsigned calls;
	unsigned depth_bad;       ///< callbacks that saw queue->nested != level
	int refused_poke;         ///< poke from the deepest callback
	uint32_t refused_pending; ///< outstanding after it
	int drain_deep, term_deep;
};

static void
nest_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct nest *n = arg;
	struct xnvme_cmd_ctx *next;

	n->level++;
	n->calls++;
	n->depth_bad += n->q->nested != (uint32_t)n->level;
	if (n->level > n->level_max) {
		n->level_max = n->level;
	}
	xnvme_queue_put_cmd_ctx(n->q, ctx);
	/* each callback submits one more and pokes: nil completes it in that nested poke */
	next = n->calls < 100 ? xnvme_queue_get_cmd_ctx(n->q) : NULL;
	if (next && !xnvme_nvm_read(next, n->nsid, 0, 0, n->buf, NULL)) {
		int ret = xnvme_queue_poke(n->q, 0);

		if (n->level == DEPTH_MAX && !n->refused_pending) {
			n->refused_poke = ret;
			n->refused_pending = xnvme_queue_get_outstanding(n->q);
			n->drain_deep = xnvme_queue_drain(n->q);
			n->term_deep = xnvme_queue_term(n->q);
		}
	}
	n->level--;
}

static void
test_nil_depth(struct xnvme_dev *dev)
{
	struct nest n = {0};
	struct xnvme_cmd_ctx *ctx;

	n.nsid = xnvme_dev_get_nsid(dev);
	n.buf = xnvme_buf_alloc(dev, 512);
	CHECK_EQ(xnvme_queue_init(dev, 4, 0, &n.q), 0);
	if (!n.q || !n.buf) {
		xnvme_buf_free(dev, n.buf);
		return;
	}
	xnvme_queue_set_cb(n.q, nest_cb, &n);
	CHECK_EQ(n.q->nested, 0);
	ctx = xnvme_queue_get_cmd_ctx(n.q);
	CHECK_EQ(xnvme_nvm_read(ctx, n.nsid, 0, 0, n.buf, NULL), 0);
	CHECK_EQ(xnvme_queue_poke(n.q, 0), 1);
	CHECK_EQ(n.level, 0);
	CHECK_EQ(n.level_max, DEPTH_MAX);
	CHECK_EQ(n.refused_poke, 0);
	CHECK_EQ(n.refused_pending, 1);
	CHECK_EQ(n.drain_deep, -EDEADLK);
	CHECK_EQ(n.term_deep, -EDEADLK);
	CHECK_EQ(n.depth_bad, 0);
	CHECK_EQ(n.q->nested, 0);
	/* the command the refused poke left behind, and the chain from it, at the top level */
	CHECK(xnvme_queue_drain(n.q) > 0);
	CHECK_EQ(xnvme_queue_get_outstanding(n.q), 0);
	CHECK_EQ(xnvme_queue_drain(n.q), 0);
	CHECK_EQ(xnvme_queue_term(n.q), 0);
	xnvme_buf_free(dev, n.buf);
}

int
main(void)
{
	const char *mechs[] = {"emu", "thrpool", "nil"};

	test_settled_sync();
	for (size_t i = 0; i < sizeof(mechs) / sizeof(mechs[0]); ++i) {
		struct xnvme_opts opts = xnvme_opts_default();
		struct xnvme_dev *dev;

		test_settled_geometry(mechs[i]);
		opts.async = mechs[i];
		dev = xnvme_dev_open("1GB", &opts);
		CHECK(dev);
		if (!dev) {
			continue;
		}
		test_rules(dev, mechs[i]);
		if (!strcmp(mechs[i], "nil")) {
			test_nil_depth(dev);
		}
		xnvme_dev_close(dev);
	}
	return xnvme_test_result("test_rw_fastpath");
}
