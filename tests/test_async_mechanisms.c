// SPDX-License-Identifier: BSD-3-Clause
/*
 * The async mechanisms emu, thrpool, nil and posix on a file and on the ramdisk "1GB" (which
 * has no posix: its open must be refused); io_uring, io_uring_cmd and libaio have their own
 * programs (test_io_uring.c, test_libaio.c, the guest suite). Queue capacities,
 * -EBUSY past capacity, callbacks exactly once, poke limits, context recycling, data
 * round trips (not for "nil"), vectored submissions, submission from callbacks, one queue per
 * thread on one handle, and term without drain (valgrind checks for leaks).
 * Exit: 0 pass, 1 fail, 77 skip.
 */
#include <errno.h>
#include <libxnvme.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xnvme_test.h"

/* The OS backend's own async mechanisms, tested on the file next to the shared ones */
#ifdef _WIN32
#define OS_ASYNCS "iocp", "iocp_th"
#else
#define OS_ASYNCS "posix"
#endif

#define LBA_NBYTES 512
#define NTHREADS 4

/* Every check names the target and the mechanism of `t` */
#define MCHECK(cond, ...) CHECK_AT(t->uri_name, t->mech, cond, __VA_ARGS__)

struct target {
	const char *uri;
	const char *uri_name;
	const char *mech;
	struct xnvme_dev *dev;
	bool verify;    ///< the mechanism moves data ("nil" does not)
	bool multi_iov; ///< accepts more than one data iovec
};

struct rec {
	unsigned int calls;
	int status;
	uint64_t result;
};

static void
cb_put(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct rec *r = arg;

	r->calls++;
	r->status = xnvme_cmd_ctx_cpl_status(ctx);
	r->result = ctx->cpl.result;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static void
fill(uint8_t *buf, uint64_t lba)
{
	for (size_t i = 0; i < LBA_NBYTES; ++i) {
		buf[i] = (uint8_t)((lba * 131 + i * 7 + (lba >> 8)) & 0xFF);
	}
}

static void
prep(struct xnvme_cmd_ctx *ctx, uint8_t opc, uint64_t slba, uint16_t nlb, struct rec *r)
{
	ctx->cmd.common.opcode = opc;
	ctx->cmd.common.nsid = xnvme_dev_get_nsid(ctx->dev);
	ctx->cmd.nvm.slba = slba;
	ctx->cmd.nvm.nlb = nlb;
	ctx->async.cb_arg = r;
}

static void
test_capacities(struct target *t)
{
	static const uint16_t caps[] = {1, 3, 16, 4096};
	struct xnvme_queue *q = NULL;

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); ++i) {
		int err = xnvme_queue_init(t->dev, caps[i], 0, &q);

		MCHECK(!err && q, "init(%u): err=%d", caps[i], err);
		if (err) {
			continue;
		}
		MCHECK(xnvme_queue_get_capacity(q) == caps[i], "capacity");
		MCHECK(xnvme_queue_poke(q, 0) == 0, "idle poke");
		MCHECK(xnvme_queue_poke(q, 1) == 0, "idle poke(1)");
		MCHECK(xnvme_queue_drain(q) == 0, "idle drain");
		MCHECK(xnvme_queue_get_completion_fd(q) == -ENOSYS, "completion fd");
		MCHECK(xnvme_queue_term(q) == 0, "term");
	}
	MCHECK(xnvme_queue_init(t->dev, 0, 0, &q) == -EINVAL, "capacity 0");
	MCHECK(xnvme_queue_init(t->dev, 4097, 0, &q) == -EINVAL, "capacity 4097");
	MCHECK(xnvme_queue_term(NULL) == -EINVAL, "term(NULL)");
}

/* Fill to capacity, one more is -EBUSY, reap one at a time */
static void
test_busy(struct target *t, uint16_t cap)
{
	struct xnvme_cmd_ctx *ctxs[4097 + 1];
	struct xnvme_queue *q;
	struct rec *recs;
	uint8_t *buf;
	uint32_t reaped = 0;
	int err;

	err = xnvme_queue_init(t->dev, cap, 0, &q);
	MCHECK(!err, "init(%u): err=%d", cap, err);
	if (err) {
		return;
	}
	xnvme_queue_set_cb(q, cb_put, NULL);
	recs = calloc(cap + 1, sizeof(*recs));
	buf = xnvme_buf_alloc(t->dev, (size_t)(cap + 1) * LBA_NBYTES);

	/* all capacity + 1 contexts can be taken, then the pool is empty */
	for (uint32_t i = 0; i <= cap; ++i) {
		ctxs[i] = xnvme_queue_get_cmd_ctx(q);
		MCHECK(ctxs[i], "get %u", i);
	}
	errno = 0;
	MCHECK(!xnvme_queue_get_cmd_ctx(q) && errno == ENOMEM, "empty pool: errno=%d", errno);

	for (uint32_t i = 0; i < cap; ++i) {
		fill(buf + (size_t)i * LBA_NBYTES, i);
		prep(ctxs[i], XNVME_SPEC_NVM_OPC_WRITE, i, 0, &recs[i]);
		err = xnvme_cmd_pass(ctxs[i], buf + (size_t)i * LBA_NBYTES, LBA_NBYTES, NULL, 0);
		MCHECK(!err, "submit %u: err=%d", i, err);
	}
	MCHECK(xnvme_queue_get_outstanding(q) == cap, "outstanding=%u",
	       xnvme_queue_get_outstanding(q));
	prep(ctxs[cap], XNVME_SPEC_NVM_OPC_WRITE, cap, 0, &recs[cap]);
	err = xnvme_cmd_pass(ctxs[cap], buf, LBA_NBYTES, NULL, 0);
	MCHECK(err == -EBUSY, "submit past capacity: err=%d", err);
	MCHECK(xnvme_queue_get_outstanding(q) == cap, "outstanding after -EBUSY");
	xnvme_queue_put_cmd_ctx(q, ctxs[cap]);

	while (xnvme_queue_get_outstanding(q)) {
		int n = xnvme_queue_poke(q, 1);

		MCHECK(n == 0 || n == 1, "poke(1)=%d", n);
		if (n < 0) {
			break;
		}
		reaped += (uint32_t)n;
	}
	MCHECK(reaped == cap, "reaped=%u", reaped);
	for (uint32_t i = 0; i <= cap; ++i) {
		unsigned int want = i < cap ? 1 : 0;

		MCHECK(recs[i].calls == want && !recs[i].status, "rec %u: calls=%u status=%d", i,
		       recs[i].calls, recs[i].status);
	}
	MCHECK(xnvme_queue_poke(q, 0) == 0, "idle poke");

	/* every context is back: capacity + 1 gets succeed again */
	for (uint32_t i = 0; i <= cap; ++i) {
		ctxs[i] = xnvme_queue_get_cmd_ctx(q);
		MCHECK(ctxs[i], "get again %u", i);
	}
	for (uint32_t i = 0; i <= cap; ++i) {
		xnvme_queue_put_cmd_ctx(q, ctxs[i]);
	}

	xnvme_buf_free(t->dev, buf);
	free(recs);
	MCHECK(xnvme_queue_term(q) == 0, "term");
}

/* Many rounds of writes then reads of distinct LBAs through recycled contexts */
static void
test_rounds(struct target *t, uint16_t cap, uint32_t rounds, uint64_t base)
{
	struct xnvme_queue *q;
	struct rec *recs;
	uint8_t *buf, *expect;
	uint64_t total = 0;
	int err;

	err = xnvme_queue_init(t->dev, cap, 0, &q);
	MCHECK(!err, "init(%u): err=%d", cap, err);
	if (err) {
		return;
	}
	xnvme_queue_set_cb(q, cb_put, NULL);
	recs = calloc((size_t)cap * rounds * 2, sizeof(*recs));
	buf = xnvme_buf_alloc(t->dev, (size_t)cap * LBA_NBYTES);
	expect = malloc(LBA_NBYTES);

	for (uint32_t pass = 0; pass < 2; ++pass) {
		uint8_t opc = pass ? XNVME_SPEC_NVM_OPC_READ : XNVME_SPEC_NVM_OPC_WRITE;

		for (uint32_t r = 0; r < rounds; ++r) {
			for (uint32_t i = 0; i < cap; ++i) {
				struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);
				uint64_t lba = base + (uint64_t)r * cap + i;
				uint8_t *slot = buf + (size_t)i * LBA_NBYTES;

				if (!ctx) {
					MCHECK(0, "get");
					break;
				}
				if (pass) {
					memset(slot, 0, LBA_NBYTES);
				} else {
					fill(slot, lba);
				}
				prep(ctx, opc, lba, 0, &recs[total]);
				err = xnvme_cmd_pass(ctx, slot, LBA_NBYTES, NULL, 0);
				MCHECK(!err, "submit: err=%d", err);
				total += !err;
			}
			/* reap with a limit smaller than the batch */
			while (xnvme_queue_get_outstanding(q)) {
				int n = xnvme_queue_poke(q, 5);

				MCHECK(n >= 0 && n <= 5, "poke(5)=%d", n);
				if (n < 0) {
					break;
				}
			}
			if (!pass || !t->verify) {
				continue;
			}
			for (uint32_t i = 0; i < cap; ++i) {
				uint64_t lba = base + (uint64_t)r * cap + i;

				fill(expect, lba);
				MCHECK(!memcmp(expect, buf + (size_t)i * LBA_NBYTES, LBA_NBYTES),
				       "data of lba %" PRIu64, lba);
			}
		}
	}
	for (uint64_t i = 0; i < total; ++i) {
		MCHECK(recs[i].calls == 1 && !recs[i].status, "rec %" PRIu64 ": calls=%u status=%d",
		       i, recs[i].calls, recs[i].status);
		if (t->verify) {
			MCHECK(recs[i].result == LBA_NBYTES || !strcmp(t->uri_name, "ramdisk"),
			       "result=%" PRIu64, recs[i].result);
		}
	}
	MCHECK(total == (uint64_t)cap * rounds * 2, "total=%" PRIu64, total);

	free(expect);
	xnvme_buf_free(t->dev, buf);
	free(recs);
	MCHECK(xnvme_queue_term(q) == 0, "term");
}

/* Callbacks resubmit their own context until a budget is spent */
struct chain {
	uint32_t remaining;
	uint32_t done;
	uint64_t next_lba;
	uint8_t *buf;
	int errors;
};

static void
cb_chain(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct chain *c = arg;

	c->done++;
	c->errors += xnvme_cmd_ctx_cpl_status(ctx) != 0;
	if (!c->remaining) {
		xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
		return;
	}
	c->remaining--;
	ctx->cmd.nvm.slba = c->next_lba++;
	if (xnvme_cmd_pass(ctx, c->buf, LBA_NBYTES, NULL, 0)) {
		c->errors++;
		xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
	}
}

static void
test_chain(struct target *t)
{
	struct chain c = {.remaining = 200, .next_lba = 5000};
	struct xnvme_queue *q;
	int err, total = 0;

	err = xnvme_queue_init(t->dev, 4, 0, &q);
	MCHECK(!err, "init: err=%d", err);
	if (err) {
		return;
	}
	c.buf = xnvme_buf_alloc(t->dev, LBA_NBYTES);
	memset(c.buf, 0xAB, LBA_NBYTES);
	for (int i = 0; i < 4; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

		xnvme_cmd_ctx_set_cb(ctx, cb_chain, &c);
		ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_WRITE;
		ctx->cmd.common.nsid = xnvme_dev_get_nsid(t->dev);
		ctx->cmd.nvm.nlb = 0;
		ctx->cmd.nvm.slba = c.next_lba++;
		MCHECK(!xnvme_cmd_pass(ctx, c.buf, LBA_NBYTES, NULL, 0), "submit");
	}
	err = xnvme_queue_drain(q);
	MCHECK(err >= 0, "drain: err=%d", err);
	total = err;
	MCHECK(c.done == 204 && (uint32_t)total == c.done && !c.errors,
	       "done=%u drained=%d errors=%d", c.done, total, c.errors);
	MCHECK(xnvme_queue_get_outstanding(q) == 0, "outstanding");
	xnvme_buf_free(t->dev, c.buf);
	MCHECK(xnvme_queue_term(q) == 0, "term");
}

static void
test_drain_and_vectors(struct target *t)
{
	struct xnvme_cmd_ctx *ctx;
	struct xnvme_queue *q;
	struct rec recs[16] = {{0}};
	struct iovec iov[4];
	uint8_t *buf, *rbuf, *expect;
	int err;

	err = xnvme_queue_init(t->dev, 16, 0, &q);
	MCHECK(!err, "init: err=%d", err);
	if (err) {
		return;
	}
	xnvme_queue_set_cb(q, cb_put, NULL);
	buf = xnvme_buf_alloc(t->dev, 8 * LBA_NBYTES);
	rbuf = xnvme_buf_alloc(t->dev, 8 * LBA_NBYTES);
	expect = malloc(LBA_NBYTES);

	/* drain returns the number reaped */
	for (int i = 0; i < 7; ++i) {
		ctx = xnvme_queue_get_cmd_ctx(q);
		prep(ctx, XNVME_SPEC_NVM_OPC_READ, 9000 + i, 0, &recs[i]);
		MCHECK(!xnvme_cmd_pass(ctx, rbuf + i * LBA_NBYTES, LBA_NBYTES, NULL, 0), "submit");
	}
	err = xnvme_queue_drain(q);
	MCHECK(err == 7, "drain=%d", err);
	MCHECK(xnvme_queue_wait(q) == 0, "wait on idle queue");

	/* one iovec: write 4 LBAs at 2000 */
	for (int i = 0; i < 4; ++i) {
		fill(buf + i * LBA_NBYTES, 2000 + i);
	}
	iov[0] = (struct iovec){.iov_base = buf, .iov_len = 4 * LBA_NBYTES};
	ctx = xnvme_queue_get_cmd_ctx(q);
	prep(ctx, XNVME_SPEC_NVM_OPC_WRITE, 2000, 3, &recs[8]);
	err = xnvme_cmd_passv(ctx, iov, 1, 4 * LBA_NBYTES, NULL, 0, 0);
	MCHECK(!err, "passv 1 iovec: err=%d", err);
	MCHECK(xnvme_queue_drain(q) == 1 && recs[8].calls == 1 && !recs[8].status, "passv 1 done");

	/* several iovecs: write 4 LBAs at 2004 from 3 segments of odd split */
	for (int i = 0; i < 4; ++i) {
		fill(buf + i * LBA_NBYTES, 2004 + i);
	}
	iov[0] = (struct iovec){.iov_base = buf, .iov_len = 100};
	iov[1] = (struct iovec){.iov_base = buf + 100, .iov_len = 1500};
	iov[2] = (struct iovec){.iov_base = buf + 1600, .iov_len = 4 * LBA_NBYTES - 1600};
	ctx = xnvme_queue_get_cmd_ctx(q);
	prep(ctx, XNVME_SPEC_NVM_OPC_WRITE, 2004, 3, &recs[9]);
	err = xnvme_cmd_passv(ctx, iov, 3, 4 * LBA_NBYTES, NULL, 0, 0);
	if (t->multi_iov) {
		MCHECK(!err, "passv 3 iovecs: err=%d", err);
		MCHECK(xnvme_queue_drain(q) == 1 && recs[9].calls == 1 && !recs[9].status,
		       "passv 3 done: status=%d", recs[9].status);
	} else {
		MCHECK(err == -ENOTSUP, "passv 3 iovecs refused: err=%d", err);
		xnvme_queue_put_cmd_ctx(q, ctx);
	}

	/* read all 8 back through 4 iovecs */
	memset(rbuf, 0, 8 * LBA_NBYTES);
	for (int i = 0; i < 4; ++i) {
		iov[i] = (struct iovec){.iov_base = rbuf + i * 2 * LBA_NBYTES,
					.iov_len = 2 * LBA_NBYTES};
	}
	ctx = xnvme_queue_get_cmd_ctx(q);
	prep(ctx, XNVME_SPEC_NVM_OPC_READ, 2000, 7, &recs[10]);
	err = xnvme_cmd_pass_iov(ctx, iov, t->multi_iov ? 4 : 1,
				 (t->multi_iov ? 8 : 2) * LBA_NBYTES, NULL, 0);
	if (!t->multi_iov) {
		/* a single 2-LBA iovec for 8 LBAs: the buffer is too small */
		MCHECK(!err, "pass_iov submit: err=%d", err);
		MCHECK(xnvme_queue_drain(q) == 1 && recs[10].calls == 1 && recs[10].status,
		       "short iovec must fail with a status");
		ctx = xnvme_queue_get_cmd_ctx(q);
		iov[0] = (struct iovec){.iov_base = rbuf, .iov_len = 4 * LBA_NBYTES};
		prep(ctx, XNVME_SPEC_NVM_OPC_READ, 2000, 3, &recs[11]);
		err = xnvme_cmd_pass_iov(ctx, iov, 1, 4 * LBA_NBYTES, NULL, 0);
	}
	MCHECK(!err, "pass_iov read: err=%d", err);
	MCHECK(xnvme_queue_drain(q) == 1, "read drained");
	if (t->verify) {
		uint32_t n = t->multi_iov ? 8 : 4;

		for (uint32_t i = 0; i < n; ++i) {
			fill(expect, 2000 + i);
			MCHECK(!memcmp(expect, rbuf + i * LBA_NBYTES, LBA_NBYTES), "vector lba %u",
			       2000 + i);
		}
	}

	free(expect);
	xnvme_buf_free(t->dev, rbuf);
	xnvme_buf_free(t->dev, buf);
	MCHECK(xnvme_queue_term(q) == 0, "term");
}

/* One queue per thread on one handle */
struct worker {
	struct target *t;
	uint64_t base;
};

static void *
worker_main(void *arg)
{
	struct worker *w = arg;

	test_rounds(w->t, 8, 16, w->base);
	return NULL;
}

static void
test_threads(struct target *t)
{
	pthread_t th[NTHREADS];
	struct worker w[NTHREADS];

	for (int i = 0; i < NTHREADS; ++i) {
		w[i] = (struct worker){.t = t, .base = 100000 + (uint64_t)i * 1000};
		if (pthread_create(&th[i], NULL, worker_main, &w[i])) {
			MCHECK(0, "pthread_create");
			th[i] = 0;
		}
	}
	for (int i = 0; i < NTHREADS; ++i) {
		if (th[i]) {
			pthread_join(th[i], NULL);
		}
	}
}

/* Terminate with commands outstanding: nothing may leak or run after term */
static void
test_term_undrained(struct target *t)
{
	struct xnvme_queue *q;
	struct rec recs[16] = {{0}};
	uint8_t *buf;
	int err;

	err = xnvme_queue_init(t->dev, 16, 0, &q);
	MCHECK(!err, "init: err=%d", err);
	if (err) {
		return;
	}
	xnvme_queue_set_cb(q, cb_put, NULL);
	buf = xnvme_buf_alloc(t->dev, 16 * LBA_NBYTES);
	for (int i = 0; i < 16; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

		fill(buf + i * LBA_NBYTES, 7000 + i);
		prep(ctx, XNVME_SPEC_NVM_OPC_WRITE, 7000 + i, 0, &recs[i]);
		MCHECK(!xnvme_cmd_pass(ctx, buf + i * LBA_NBYTES, LBA_NBYTES, NULL, 0), "submit");
	}
	if (xnvme_queue_poke(q, 3) < 0) {
		MCHECK(0, "poke");
	}
	MCHECK(xnvme_queue_term(q) == 0, "term with outstanding commands");
	for (int i = 0; i < 16; ++i) {
		MCHECK(recs[i].calls <= 1, "rec %d calls=%u", i, recs[i].calls);
	}
	xnvme_buf_free(t->dev, buf);
}

static void
run(struct target *t)
{
	struct xnvme_opts opts = xnvme_opts_default();
	bool is_file = strcmp(t->uri, "1GB") != 0;

	opts.async = t->mech;
	opts.create = is_file;
	t->dev = xnvme_dev_open(t->uri, &opts);
	if (!t->dev) {
		/* the ramdisk has no OS mechanism: refusing the named mechanism is right */
		MCHECK(!is_file && strcmp(t->mech, "emu") && strcmp(t->mech, "thrpool") &&
			       strcmp(t->mech, "nil"),
		       "open: errno=%d", errno);
		return;
	}
	MCHECK(!strcmp(xnvme_dev_get_opts(t->dev)->async, t->mech), "reported async=%s",
	       xnvme_dev_get_opts(t->dev)->async);
	t->verify = strcmp(t->mech, "nil") != 0;
	t->multi_iov = strcmp(t->mech, "posix") != 0;

	test_capacities(t);
	test_busy(t, 1);
	test_busy(t, 3);
	test_busy(t, 16);
	test_busy(t, 4096);
	test_rounds(t, 16, 32, 0);
	test_rounds(t, 1, 8, 3000);
	test_chain(t);
	test_drain_and_vectors(t);
	test_threads(t);
	test_term_undrained(t);

	xnvme_dev_close(t->dev);
}

int
main(void)
{
	static const char *mechs[] = {"emu", "thrpool", "nil", OS_ASYNCS};
	const char *tmp = getenv("TMPDIR");
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/xnvme-test-async-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1; /* the test's own setup: a failure, never a skip (xnvme_test.h) */
	}
	/* NVM commands address the LBAs of the file's size (sparse) and never grow it */
	if (ftruncate(fd, 64 << 20)) {
		perror("ftruncate");
		close(fd);
		unlink(path);
		return 1;
	}
	close(fd);

	for (size_t m = 0; m < sizeof(mechs) / sizeof(mechs[0]); ++m) {
		struct target file = {.uri = path, .uri_name = "file", .mech = mechs[m]};
		struct target ram = {.uri = "1GB", .uri_name = "ramdisk", .mech = mechs[m]};

		run(&file);
		run(&ram);
	}

	unlink(path);
	return xnvme_test_result("test_async_mechanisms");
}
