// SPDX-License-Identifier: BSD-3-Clause
/*
 * The bound of an idle poke's wait on Linux (lib/be/linux/poke_wait.h, used by io_uring,
 * io_uring_cmd, libaio and posix):
 *  - it starts at 1 ms (a zeroed state included);
 *  - a wait that ran out with nothing completed doubles it, up to 16 ms;
 *  - 16 waits in a row that completions end within a quarter of the bound halve it (down to
 *    1 ms); a single long wait in between restarts that count, and waits at the base bound
 *    leave it alone;
 *  - while xnvme_queue_drain_timeout() runs, every wait keeps the 1 ms base bound: the queue
 *    carries XNVME_BE_QUEUE_DEADLINE then (seen from a callback inside it), and the queue's
 *    flags are restored afterwards, also when a callback's nested drain_timeout was refused.
 */
#include "xnvme_test.h"
#include "be/linux/poke_wait.h"
#include "xnvme_be.h"

#define MS 1000000u

static void
expire(struct xnvme_be_linux_pwait *pw, const struct xnvme_queue *q)
{
	(void)xnvme_be_linux_pwait_begin(pw, q);
	xnvme_be_linux_pwait_end(pw, true);
}

/* A wait a completion ends at once (well within a quarter of any bound >= 1 ms) */
static void
short_wait(struct xnvme_be_linux_pwait *pw, const struct xnvme_queue *q)
{
	(void)xnvme_be_linux_pwait_begin(pw, q);
	xnvme_be_linux_pwait_end(pw, false);
}

/* A wait a completion ends after half its bound */
static void
long_wait(struct xnvme_be_linux_pwait *pw, const struct xnvme_queue *q)
{
	(void)xnvme_be_linux_pwait_begin(pw, q);
	pw->t0 -= pw->ns / 2;
	xnvme_be_linux_pwait_end(pw, false);
}

static void
test_bound_rules(void)
{
	struct xnvme_queue q = {0};
	struct xnvme_be_linux_pwait pw = {0};

	CHECK_EQ(xnvme_be_linux_pwait_begin(&pw, &q), 1 * MS);
	xnvme_be_linux_pwait_end(&pw, false);
	CHECK_EQ(pw.ns, 1 * MS); /* short waits at the base bound: unchanged */

	expire(&pw, &q);
	CHECK_EQ(pw.ns, 2 * MS);
	expire(&pw, &q);
	expire(&pw, &q);
	CHECK_EQ(pw.ns, 8 * MS);
	CHECK_EQ(xnvme_be_linux_pwait_begin(&pw, &q), 8 * MS);
	xnvme_be_linux_pwait_end(&pw, true);
	expire(&pw, &q);
	expire(&pw, &q);
	CHECK_EQ(pw.ns, XNVME_BE_LINUX_POKE_WAIT_MAX_NS);
	CHECK_EQ(XNVME_BE_LINUX_POKE_WAIT_MAX_NS, 16 * MS);

	/* drain_timeout's flag: the base bound, the grown one kept for later */
	q.opts = XNVME_BE_QUEUE_DEADLINE;
	CHECK_EQ(xnvme_be_linux_pwait_begin(&pw, &q), 1 * MS);
	xnvme_be_linux_pwait_end(&pw, true);
	q.opts = 0;
	CHECK_EQ(xnvme_be_linux_pwait_begin(&pw, &q), 16 * MS);
	xnvme_be_linux_pwait_end(&pw, false);

	/* 15 more short waits (16 with the one above) halve it; a long one restarts the count */
	for (int i = 0; i < XNVME_BE_LINUX_POKE_WAIT_SHORT - 2; ++i) {
		short_wait(&pw, &q);
	}
	CHECK_EQ(pw.ns, 16 * MS);
	long_wait(&pw, &q);
	for (int i = 0; i < XNVME_BE_LINUX_POKE_WAIT_SHORT - 1; ++i) {
		short_wait(&pw, &q);
	}
	CHECK_EQ(pw.ns, 16 * MS);
	short_wait(&pw, &q);
	CHECK_EQ(pw.ns, 8 * MS);
	/* a steady device: waits ending after half the bound keep it */
	for (int i = 0; i < 4 * XNVME_BE_LINUX_POKE_WAIT_SHORT; ++i) {
		long_wait(&pw, &q);
	}
	CHECK_EQ(pw.ns, 8 * MS);
	for (int i = 0; i < 8 * XNVME_BE_LINUX_POKE_WAIT_SHORT; ++i) {
		short_wait(&pw, &q);
	}
	CHECK_EQ(pw.ns, 1 * MS);
	expire(&pw, &q); /* an expiry also restarts the short count */
	CHECK_EQ(pw.ns, 2 * MS);
}

/* What the callbacks of a drain_timeout saw: the queue's flags, a nested call's return */
struct seen {
	struct xnvme_queue *q;
	int opts_in_cb, nested, n;
};

static void
seen_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct seen *s = arg;

	s->opts_in_cb = s->q->opts;
	s->nested = xnvme_queue_drain_timeout(s->q, 1000);
	s->n++;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* drain_timeout marks the queue while it pokes and restores its flags */
static void
test_drain_timeout_flag(const char *mech, int qopts)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct seen s = {0};
	struct xnvme_queue *q = NULL;
	struct xnvme_dev *dev;
	void *buf = NULL;

	opts.async = mech;
	dev = xnvme_dev_open("1GB", &opts);
	CHECKF(dev, "%s: open", mech);
	if (!dev) {
		return;
	}
	buf = xnvme_buf_alloc(dev, 4096);
	CHECK_EQ(xnvme_queue_init(dev, 4, qopts, &q), 0);
	if (!buf || !q) {
		goto exit;
	}
	s.q = q;
	xnvme_queue_set_cb(q, seen_cb, &s);
	for (int i = 0; i < 2; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

		CHECK(ctx);
		if (ctx) {
			CHECK_EQ(xnvme_nvm_read(ctx, xnvme_dev_get_nsid(dev), 0, 0, buf, NULL), 0);
		}
	}
	CHECK_EQ(xnvme_queue_drain_timeout(q, 10u * 1000 * 1000), 2);
	CHECK_EQ(s.n, 2);
	CHECKF(s.opts_in_cb & XNVME_BE_QUEUE_DEADLINE, "%s: flag seen in the callback: %#x", mech,
	       (unsigned)s.opts_in_cb);
	CHECK_EQ(s.opts_in_cb & ~XNVME_BE_QUEUE_DEADLINE, qopts);
	CHECK_EQ(s.nested, -EDEADLK);
	CHECK_EQ(q->opts, qopts); /* restored */
	CHECK_EQ(xnvme_queue_drain_timeout(q, 0), 0);
	CHECK_EQ(q->opts, qopts);
	CHECK_EQ(xnvme_queue_drain_timeout(NULL, 0), -EINVAL);
exit:
	if (q) {
		CHECK_EQ(xnvme_queue_term(q), 0);
	}
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
}

int
main(void)
{
	test_bound_rules();
	test_drain_timeout_flag("emu", 0);
	test_drain_timeout_flag("thrpool", XNVME_QUEUE_POKE_SPIN);
	return xnvme_test_result("poke_wait");
}
