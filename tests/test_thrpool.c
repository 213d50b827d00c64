// SPDX-License-Identifier: BSD-3-Clause
/*
 * The "thrpool" async mechanism on the ramdisk "1GB":
 * - many: 16 workers (more than the default 4 and than the CPUs here) on a queue of 64; 1024
 *   blocks written and read back at full depth, each command completed exactly once, data
 *   compared;
 * - knob: XNVME_BE_CBI_ASYNC_THRPOOL_NTHREADS sets the workers of the next queue (counted in
 *   /proc/self/task where it exists): in range as given, at most the queue's capacity,
 *   malformed or out of range the default 4;
 * - poke_max: finished commands wait on the mechanism's ready list when a poke's `max` is
 *   smaller than what is ready; pokes of 1 deliver them one each, each exactly once;
 * - term: a queue terminated with commands queued and running returns 0 without waiting for
 *   a callback, and the device serves a new queue afterwards (data compared).
 */
#include "xnvme_test.h"

#define ENV_NTHREADS "XNVME_BE_CBI_ASYNC_THRPOOL_NTHREADS"
#define NBLOCKS 1024
#define QD 64

struct rec {
	uint32_t *done; ///< completions per block
	uint32_t *bad;  ///< completions with a non-zero status
};

static void
cb_count(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct rec *r = arg;
	uint64_t blk = ctx->cmd.nvm.slba;

	if (blk < NBLOCKS) {
		r->done[blk]++;
		r->bad[blk] += xnvme_cmd_ctx_cpl_status(ctx) != 0;
	}
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static void
fill(uint8_t *buf, size_t nbytes, uint64_t blk, uint32_t seed)
{
	for (size_t i = 0; i < nbytes; ++i) {
		buf[i] = (uint8_t)(blk * 131 + i * 7 + seed);
	}
}

/* Threads of this process, or -1 where /proc/self/task is not there */
static int
nthreads_count(void)
{
	return xnvme_test_dir_entries("/proc/self/task");
}

/*
 * The count once it equals `expect`, or after a second: a joined thread can stay listed for a
 * moment after pthread_join() returned (the kernel releases it after waking the joiner)
 */
static int
nthreads_settled(int expect)
{
	struct timespec nap = {0, 1000000};
	int n = nthreads_count();

	for (int i = 0; i < 1000 && n != expect; ++i) {
		nanosleep(&nap, NULL);
		n = nthreads_count();
	}
	return n;
}

/* Writes (or reads back and compares) blocks [0, NBLOCKS) at depth QD; every one once */
static void
pass_rw(struct xnvme_dev *dev, struct xnvme_queue *q, uint8_t *buf, size_t bs, bool write,
	uint32_t seed)
{
	uint32_t done[NBLOCKS] = {0}, bad[NBLOCKS] = {0};
	struct rec r = {done, bad};
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	uint8_t *expect = malloc(bs);

	xnvme_queue_set_cb(q, cb_count, &r);
	for (uint64_t blk = 0; blk < NBLOCKS; ++blk) {
		uint8_t *slot = buf + blk * bs;
		struct xnvme_cmd_ctx *ctx;
		int err;

		while (xnvme_queue_get_outstanding(q) == QD) {
			CHECK(xnvme_queue_poke(q, 0) >= 0);
		}
		ctx = xnvme_queue_get_cmd_ctx(q);
		CHECK(ctx);
		if (!ctx) {
			break;
		}
		if (write) {
			fill(slot, bs, blk, seed);
			err = xnvme_nvm_write(ctx, nsid, blk, 0, slot, NULL);
		} else {
			memset(slot, 0, bs);
			err = xnvme_nvm_read(ctx, nsid, blk, 0, slot, NULL);
		}
		if (err) {
			fprintf(stderr, "block %llu: submit: %d\n", (unsigned long long)blk, err);
			CHECK(!err);
			xnvme_queue_put_cmd_ctx(q, ctx);
		}
	}
	CHECK(xnvme_queue_drain(q) >= 0);
	CHECK(xnvme_queue_get_outstanding(q) == 0);
	for (uint64_t blk = 0; blk < NBLOCKS; ++blk) {
		if (done[blk] != 1 || bad[blk]) {
			fprintf(stderr, "block %llu: %u completions, %u failed\n",
				(unsigned long long)blk, done[blk], bad[blk]);
			CHECK(done[blk] == 1 && !bad[blk]);
			break;
		}
		if (!write) {
			fill(expect, bs, blk, seed);
			if (memcmp(expect, buf + blk * bs, bs)) {
				fprintf(stderr, "block %llu: data differs\n",
					(unsigned long long)blk);
				CHECK(!"data read back equals data written");
				break;
			}
		}
	}
	free(expect);
}

static void
test_many(struct xnvme_dev *dev, size_t bs)
{
	struct xnvme_queue *q;
	uint8_t *buf = xnvme_buf_alloc(dev, NBLOCKS * bs);
	int before, err;

	/* what the warm-up queue of main() left listed is gone after a moment */
	nanosleep(&(struct timespec){0, 20000000}, NULL);
	before = nthreads_count();
	setenv(ENV_NTHREADS, "16", 1);
	err = xnvme_queue_init(dev, QD, 0, &q);
	CHECK(!err && buf);
	if (err || !buf) {
		xnvme_buf_free(dev, buf);
		return;
	}
	if (before >= 0) {
		CHECK(nthreads_settled(before + 16) == before + 16);
	}
	for (uint32_t round = 0; round < 2; ++round) {
		pass_rw(dev, q, buf, bs, true, round);
		pass_rw(dev, q, buf, bs, false, round);
	}
	CHECK(xnvme_queue_term(q) == 0);
	if (before >= 0) {
		CHECK(nthreads_settled(before) == before);
	}
	xnvme_buf_free(dev, buf);
}

static void
test_knob(struct xnvme_dev *dev)
{
	static const struct {
		const char *env;
		uint32_t capacity;
		int expect;
	} cases[] = {
		{"1", 8, 1},    {"3", 8, 3}, {"8", 2, 2},  {"0", 8, 4},
		{"-2", 8, 4},   {"x", 8, 4}, {"3x", 8, 4}, {"1024", 8, 4},
		{"1023", 4, 4}, {"", 8, 4},  {NULL, 8, 4}, {"6", 16, 6},
	};
	int before = nthreads_count();

	if (before < 0) {
		printf("# skip knob: no /proc/self/task to count threads in\n");
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		struct xnvme_queue *q;
		int err, n;

		if (cases[i].env) {
			setenv(ENV_NTHREADS, cases[i].env, 1);
		} else {
			unsetenv(ENV_NTHREADS);
		}
		err = xnvme_queue_init(dev, cases[i].capacity, 0, &q);
		CHECK(!err);
		if (err) {
			continue;
		}
		n = nthreads_settled(before + cases[i].expect) - before;
		if (n != cases[i].expect) {
			fprintf(stderr, "%s=%s capacity %u: %d workers, expected %d\n",
				ENV_NTHREADS, cases[i].env ? cases[i].env : "(unset)",
				cases[i].capacity, n, cases[i].expect);
			CHECK(!"worker count");
		}
		CHECK(xnvme_queue_term(q) == 0);
	}
}

static void
test_poke_max(struct xnvme_dev *dev, size_t bs)
{
	uint32_t done[NBLOCKS] = {0}, bad[NBLOCKS] = {0}, n = 0;
	struct rec r = {done, bad};
	struct xnvme_queue *q = NULL;
	uint8_t *buf = xnvme_buf_alloc(dev, 32 * bs);
	struct timespec nap = {0, 2000000};

	setenv(ENV_NTHREADS, "4", 1);
	CHECK(buf && !xnvme_queue_init(dev, 32, 0, &q));
	if (!buf || !q) {
		xnvme_buf_free(dev, buf);
		return;
	}
	xnvme_queue_set_cb(q, cb_count, &r);
	for (uint32_t i = 0; i < 32; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

		CHECK(ctx &&
		      !xnvme_nvm_read(ctx, xnvme_dev_get_nsid(dev), i, 0, buf + i * bs, NULL));
	}
	/* let the workers finish most of them, so that the first poke finds several ready */
	nanosleep(&nap, NULL);
	for (uint32_t spins = 0; n < 32 && spins < 10000000; ++spins) {
		int got = xnvme_queue_poke(q, 1);

		CHECK(got == 0 || got == 1);
		if (got < 0 || got > 1) {
			break;
		}
		n += (uint32_t)got;
		CHECK(xnvme_queue_get_outstanding(q) == 32 - n);
	}
	CHECK(n == 32);
	for (uint32_t i = 0; i < 32; ++i) {
		CHECK(done[i] == 1 && !bad[i]);
	}
	CHECK(xnvme_queue_poke(q, 1) == 0);
	CHECK(xnvme_queue_term(q) == 0);
	xnvme_buf_free(dev, buf);
}

static void
cb_never(struct xnvme_cmd_ctx *ctx, void *arg)
{
	(void)ctx;
	(*(int *)arg)++;
}

static void
test_term_in_flight(struct xnvme_dev *dev, size_t bs)
{
	uint8_t *buf = xnvme_buf_alloc(dev, NBLOCKS * bs);
	struct xnvme_queue *q = NULL;
	int calls = 0;

	setenv(ENV_NTHREADS, "2", 1);
	for (uint32_t round = 0; round < 20 && buf; ++round) {
		CHECK(!xnvme_queue_init(dev, QD, 0, &q));
		if (!q) {
			break;
		}
		xnvme_queue_set_cb(q, cb_never, &calls);
		for (uint32_t i = 0; i < QD; ++i) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

			fill(buf + i * bs, bs, i, 99);
			CHECK(ctx && !xnvme_nvm_write(ctx, xnvme_dev_get_nsid(dev), i, 0,
						      buf + i * bs, NULL));
		}
		CHECK(xnvme_queue_get_outstanding(q) == QD);
		CHECK(xnvme_queue_term(q) == 0);
	}
	CHECK(calls == 0);
	/* the device serves a new queue: write and read back every block */
	setenv(ENV_NTHREADS, "4", 1);
	if (buf && !xnvme_queue_init(dev, QD, 0, &q)) {
		pass_rw(dev, q, buf, bs, true, 7);
		pass_rw(dev, q, buf, bs, false, 7);
		CHECK(xnvme_queue_term(q) == 0);
	}
	xnvme_buf_free(dev, buf);
}

int
main(void)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;
	size_t bs;

	opts.async = "thrpool";
	dev = xnvme_dev_open("1GB", &opts);
	CHECK(dev);
	if (!dev) {
		return xnvme_test_result("test_thrpool");
	}
	bs = xnvme_dev_get_geo(dev)->lba_nbytes;
	/* a first queue starts whatever helper threads the runtime adds (sanitizers do) */
	{
		struct xnvme_queue *q;

		CHECK(!xnvme_queue_init(dev, 4, 0, &q) && !xnvme_queue_term(q));
	}
	test_many(dev, bs);
	test_knob(dev);
	test_poke_max(dev, bs);
	test_term_in_flight(dev, bs);
	xnvme_dev_close(dev);
	return xnvme_test_result("test_thrpool");
}
