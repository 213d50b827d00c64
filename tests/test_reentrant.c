// SPDX-License-Identifier: BSD-3-Clause
/*
 * Queues used from inside their own completion callbacks, and the rules around them
 * (libxnvme_queue.h), on every async mechanism of this build, on the ramdisk ("1GB"), on a
 * regular file in a temp dir and on a loop device (when this host lets us attach one):
 *  - submit N, the first callback submits M more and pokes: every command gets exactly one
 *    callback with the right data, outstanding ends at 0, the pool is intact;
 *  - drain/wait/drain_timeout/term from a callback give -EDEADLK;
 *  - every callback submitting and poking: bounded nesting, no stack growth, all delivered;
 *  - the pool refuses double and foreign puts with -EINVAL;
 *  - NULL on the queue and command entry points gives -EINVAL (errno EINVAL for pointers);
 *  - an unsupported opcode completes with Invalid Command Opcode on every mechanism and sync;
 *  - a regular file enforces its geometry (MDTS, nsid, LBA range) and never grows;
 *  - libaio queue init/term cycles are cheap and a reused AIO context is clean;
 *  - drain_timeout returns -ETIMEDOUT with commands outstanding and loses nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <libxnvme.h>
#include "xnvme_test.h"

#define LBA 512u
#define FILE_NBYTES (16u << 20) /* the regular file's size */
#define NFIRST 8                /* submitted by the test */
#define NMORE 6                 /* submitted by the first callback */
#define NCMD (NFIRST + NMORE)
#define CAPACITY 32
#define CHAIN 3000  /* commands of the submit-and-poke-in-every-callback run */
#define DEPTH_MAX 8 /* nesting bound documented in libxnvme_queue.h */

struct target {
	const char *name; ///< "ramdisk", "file" or "loop"
	const char *uri;
	const char *mech;
	struct xnvme_dev *dev;
	uint32_t nsid;
	bool moves_data; ///< false for "nil"
};

static int
is_mech(const struct target *t, const char *mech)
{
	return !strcmp(t->mech, mech);
}

#define TCHECK(t, cond)                                                                            \
	do {                                                                                       \
		xnvme_test_ncheck++;                                                               \
		if (!(cond)) {                                                                     \
			xnvme_test_nfail++;                                                        \
			fprintf(stderr, "FAIL %s/%s:%d: %s\n", (t)->name, (t)->mech, __LINE__,     \
				#cond);                                                            \
		}                                                                                  \
	} while (0)

/* Stamps LBA `lba` of `buf` with its number and a pattern */
static void
stamp(uint8_t *buf, uint64_t lba)
{
	for (uint32_t i = 0; i < LBA; ++i) {
		buf[i] = (uint8_t)(lba * 7 + i);
	}
	memcpy(buf, &lba, sizeof(lba));
}

static bool
stamped(const uint8_t *buf, uint64_t lba)
{
	uint8_t want[LBA];

	stamp(want, lba);
	return !memcmp(buf, want, LBA);
}

/* Writes the stamps of LBAs 0..n-1 through the sync path */
static int
prefill(struct target *t, uint32_t n)
{
	uint8_t *buf = xnvme_buf_alloc(t->dev, LBA);
	int err = 0;

	if (!buf) {
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n && !err; ++i) {
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(t->dev);

		stamp(buf, i);
		err = xnvme_nvm_write(&ctx, t->nsid, i, 0, buf, NULL);
	}
	xnvme_buf_free(t->dev, buf);
	return err;
}

/* Every capacity + 1 context can be taken, all distinct; one more is refused */
static void
check_pool(struct target *t, struct xnvme_queue *q)
{
	uint32_t n = xnvme_queue_get_capacity(q) + 1;
	struct xnvme_cmd_ctx **got = calloc(n, sizeof(*got));
	bool distinct = true;

	TCHECK(t, got);
	if (!got) {
		return;
	}
	for (uint32_t i = 0; i < n; ++i) {
		got[i] = xnvme_queue_get_cmd_ctx(q);
		TCHECK(t, got[i]);
		for (uint32_t j = 0; j < i && got[i]; ++j) {
			distinct = distinct && got[j] != got[i];
		}
	}
	TCHECK(t, distinct);
	errno = 0;
	TCHECK(t, !xnvme_queue_get_cmd_ctx(q) && errno == ENOMEM);
	for (uint32_t i = 0; i < n; ++i) {
		if (got[i]) {
			TCHECK(t, xnvme_queue_put_cmd_ctx(q, got[i]) == 0);
		}
	}
	free(got);
}

/* ---- 1: submit and poke from a callback ------------------------------------------------ */

struct nest {
	struct target *t;
	struct xnvme_queue *q;
	uint8_t *bufs;
	unsigned calls[NCMD];
	int status[NCMD];
	bool data_ok[NCMD];
	bool nested_done;
	int nested_submit_err;
	int nested_poke;
	int drain_in_cb, wait_in_cb, drain_to_in_cb, term_in_cb;
};

static int
nest_submit(struct nest *n, uint32_t id)
{
	struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(n->q);
	int err;

	if (!ctx) {
		return -errno;
	}
	ctx->async.cb_arg = (void *)(uintptr_t)id;
	err = xnvme_nvm_read(ctx, n->t->nsid, id, 0, n->bufs + (size_t)id * LBA, NULL);
	if (err) {
		xnvme_queue_put_cmd_ctx(n->q, ctx);
	}
	return err;
}

static struct nest *nest_cur;

static void
nest_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct nest *n = nest_cur;
	uint32_t id = (uint32_t)(uintptr_t)arg;

	if (id < NCMD) {
		n->calls[id]++;
		n->status[id] = xnvme_cmd_ctx_cpl_status(ctx);
		n->data_ok[id] = !n->t->moves_data || stamped(n->bufs + (size_t)id * LBA, id);
	}
	xnvme_queue_put_cmd_ctx(n->q, ctx);

	if (!n->nested_done) {
		n->nested_done = true;
		for (uint32_t i = NFIRST; i < NCMD && !n->nested_submit_err; ++i) {
			n->nested_submit_err = nest_submit(n, i);
		}
		n->nested_poke = xnvme_queue_poke(n->q, 0);
		n->drain_in_cb = xnvme_queue_drain(n->q);
		n->wait_in_cb = xnvme_queue_wait(n->q);
		n->drain_to_in_cb = xnvme_queue_drain_timeout(n->q, 1000);
		n->term_in_cb = xnvme_queue_term(n->q);
	}
}

static void
test_nested(struct target *t)
{
	struct nest n;
	int err, acc = 0;

	memset(&n, 0, sizeof(n));
	n.t = t;
	nest_cur = &n;
	n.bufs = xnvme_buf_alloc(t->dev, (size_t)NCMD * LBA);
	TCHECK(t, n.bufs);
	if (!n.bufs) {
		return;
	}
	memset(n.bufs, 0xEE, (size_t)NCMD * LBA);
	err = xnvme_queue_init(t->dev, CAPACITY, 0, &n.q);
	TCHECK(t, !err);
	if (err) {
		xnvme_buf_free(t->dev, n.bufs);
		return;
	}
	TCHECK(t, xnvme_queue_set_cb(n.q, nest_cb, NULL) == 0);
	for (uint32_t i = 0; i < NFIRST; ++i) {
		TCHECK(t, nest_submit(&n, i) == 0);
	}
	/* a busy-polling client: poke until everything came back */
	for (int spins = 0; xnvme_queue_get_outstanding(n.q) && spins < 10000000; ++spins) {
		int ret = xnvme_queue_poke(n.q, 0);

		TCHECK(t, ret >= 0);
		if (ret < 0) {
			break;
		}
		acc += ret;
	}
	TCHECK(t, n.nested_done);
	TCHECK(t, n.nested_submit_err == 0);
	TCHECK(t, n.nested_poke >= 0);
	TCHECK(t, n.drain_in_cb == -EDEADLK);
	TCHECK(t, n.wait_in_cb == -EDEADLK);
	TCHECK(t, n.drain_to_in_cb == -EDEADLK);
	TCHECK(t, n.term_in_cb == -EDEADLK);
	for (uint32_t i = 0; i < NCMD; ++i) {
		if (n.calls[i] != 1 || n.status[i] || !n.data_ok[i]) {
			fprintf(stderr, "# %s/%s: command %u: calls=%u status=%d data=%d\n",
				t->name, t->mech, i, n.calls[i], n.status[i], n.data_ok[i]);
		}
		TCHECK(t, n.calls[i] == 1);
		TCHECK(t, !n.status[i]);
		TCHECK(t, n.data_ok[i]);
	}
	TCHECK(t, acc + n.nested_poke == NCMD);
	TCHECK(t, xnvme_queue_get_outstanding(n.q) == 0);
	TCHECK(t, xnvme_queue_drain(n.q) == 0);
	check_pool(t, n.q);
	TCHECK(t, xnvme_queue_term(n.q) == 0);
	xnvme_buf_free(t->dev, n.bufs);
}

/* ---- 2: every callback submits one more and pokes ------------------------------------- */

struct chain {
	struct target *t;
	struct xnvme_queue *q;
	uint8_t *buf;
	uint32_t submitted, completed, bad;
	int depth, depth_max;
	int submit_err;
};

static void
chain_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct chain *c = arg;

	c->depth++;
	if (c->depth > c->depth_max) {
		c->depth_max = c->depth;
	}
	c->completed++;
	c->bad += xnvme_cmd_ctx_cpl_status(ctx) != 0;
	xnvme_queue_put_cmd_ctx(c->q, ctx);
	if (c->submitted < CHAIN && !c->submit_err) {
		struct xnvme_cmd_ctx *next = xnvme_queue_get_cmd_ctx(c->q);

		c->submit_err =
			next ? xnvme_nvm_read(next, c->t->nsid, c->submitted % 64, 0, c->buf, NULL)
			     : -ENOMEM;
		if (!c->submit_err) {
			c->submitted++;
		} else if (next) {
			xnvme_queue_put_cmd_ctx(c->q, next);
		}
		if (xnvme_queue_poke(c->q, 0) < 0) {
			c->submit_err = -EIO;
		}
	}
	c->depth--;
}

static void
test_chain(struct target *t)
{
	struct chain c;
	int err;

	memset(&c, 0, sizeof(c));
	c.t = t;
	c.buf = xnvme_buf_alloc(t->dev, LBA);
	err = xnvme_queue_init(t->dev, 4, 0, &c.q);
	TCHECK(t, !err && c.buf);
	if (err || !c.buf) {
		xnvme_buf_free(t->dev, c.buf);
		return;
	}
	xnvme_queue_set_cb(c.q, chain_cb, &c);
	for (int i = 0; i < 2; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(c.q);

		TCHECK(t, ctx && xnvme_nvm_read(ctx, t->nsid, 0, 0, c.buf, NULL) == 0);
		c.submitted++;
	}
	err = xnvme_queue_drain(c.q);
	TCHECK(t, err >= 0);
	TCHECK(t, c.submit_err == 0);
	TCHECK(t, c.submitted == CHAIN);
	TCHECK(t, c.completed == CHAIN);
	TCHECK(t, c.bad == 0);
	TCHECK(t, c.depth == 0);
	TCHECK(t, c.depth_max >= 1 && c.depth_max <= DEPTH_MAX);
	TCHECK(t, xnvme_queue_get_outstanding(c.q) == 0);
	check_pool(t, c.q);
	TCHECK(t, xnvme_queue_term(c.q) == 0);
	xnvme_buf_free(t->dev, c.buf);
}

/* ---- 3: pool double and foreign puts -------------------------------------------------- */

static void
test_pool(struct target *t)
{
	struct xnvme_queue *q, *other;
	struct xnvme_cmd_ctx *a, *b, stack_ctx;

	if (xnvme_queue_init(t->dev, 4, 0, &q)) {
		TCHECK(t, 0);
		return;
	}
	if (xnvme_queue_init(t->dev, 4, 0, &other)) {
		TCHECK(t, 0);
		xnvme_queue_term(q);
		return;
	}
	a = xnvme_queue_get_cmd_ctx(q);
	TCHECK(t, a && xnvme_queue_put_cmd_ctx(q, a) == 0);
	TCHECK(t, xnvme_queue_put_cmd_ctx(q, a) == -EINVAL); /* twice */
	b = xnvme_queue_get_cmd_ctx(q);
	a = xnvme_queue_get_cmd_ctx(q);
	TCHECK(t, a && b && a != b); /* the double put did not duplicate the context */

	stack_ctx = xnvme_cmd_ctx_from_dev(t->dev);
	TCHECK(t, xnvme_queue_put_cmd_ctx(q, &stack_ctx) == -EINVAL);
	TCHECK(t, xnvme_queue_put_cmd_ctx(other, a) == -EINVAL); /* another queue's */
	TCHECK(t, xnvme_queue_put_cmd_ctx(q, (void *)((char *)a + 8)) == -EINVAL); /* inside one */
	TCHECK(t, xnvme_queue_put_cmd_ctx(q, a + 5) == -EINVAL); /* past the pool */
	TCHECK(t, xnvme_queue_put_cmd_ctx(q, a) == 0);
	TCHECK(t, xnvme_queue_put_cmd_ctx(q, b) == 0);
	TCHECK(t, xnvme_queue_put_cmd_ctx(q, b) == -EINVAL);
	check_pool(t, q);
	check_pool(t, other);
	xnvme_queue_term(other);
	xnvme_queue_term(q);
}

/* ---- 5: an opcode the target cannot execute ------------------------------------------- */

struct one {
	unsigned calls;
	uint8_t sct, sc;
	int status;
};

static void
one_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct one *o = arg;

	o->calls++;
	o->status = xnvme_cmd_ctx_cpl_status(ctx);
	o->sct = (uint8_t)ctx->cpl.status.sct;
	o->sc = (uint8_t)ctx->cpl.status.sc;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* Submits one command on a fresh queue and drains; the submission's result */
static int
async_one(struct target *t, uint8_t opc, uint32_t nsid, uint64_t slba, uint16_t nlb, void *buf,
	  size_t nbytes, struct one *o)
{
	struct xnvme_queue *q;
	struct xnvme_cmd_ctx *ctx;
	int err = xnvme_queue_init(t->dev, 2, 0, &q);

	memset(o, 0, sizeof(*o));
	if (err) {
		return err;
	}
	ctx = xnvme_queue_get_cmd_ctx(q);
	ctx->async.cb = one_cb;
	ctx->async.cb_arg = o;
	xnvme_prep_nvm(ctx, opc, nsid, slba, nlb);
	err = xnvme_cmd_pass(ctx, buf, nbytes, NULL, 0);
	if (!err) {
		int ret = xnvme_queue_drain(q);

		TCHECK(t, ret == 1);
	}
	xnvme_queue_term(q);
	return err;
}

static void
test_bad_opcode(struct target *t)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(t->dev);
	struct one o;
	int err;

	err = async_one(t, 0x7F, t->nsid, 0, 0, NULL, 0, &o);
	TCHECK(t, err == 0);
	TCHECK(t, o.calls == 1);
	if (t->moves_data) {
		TCHECK(t, o.status && o.sct == SCT_GENERIC && o.sc == SC_INVALID_OPCODE);
	} else {
		TCHECK(t, !o.status); /* nil completes everything without looking */
	}
	/* the sync path says the same */
	xnvme_prep_nvm(&ctx, 0x7F, t->nsid, 0, 0);
	err = xnvme_cmd_pass(&ctx, NULL, 0, NULL, 0);
	TCHECK(t, err == -EIO && ctx.cpl.status.sct == SCT_GENERIC &&
			  ctx.cpl.status.sc == SC_INVALID_OPCODE);
}

/* ---- 6: a regular file holds commands to the geometry it reports ---------------------- */

static long long
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

static void
geo_expect(struct target *t, uint8_t opc, uint32_t nsid, uint64_t slba, uint32_t nlbas,
	   uint8_t *buf, uint8_t sc)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(t->dev);
	size_t nbytes = (size_t)nlbas * LBA;
	struct one o;
	int err;

	/* sync */
	xnvme_prep_nvm(&ctx, opc, nsid, slba, (uint16_t)(nlbas - 1));
	err = xnvme_cmd_pass(&ctx, buf, nbytes, NULL, 0);
	if (sc) {
		TCHECK(t,
		       err == -EIO && ctx.cpl.status.sct == SCT_GENERIC && ctx.cpl.status.sc == sc);
	} else {
		TCHECK(t, err == 0 && ctx.cpl.result == nbytes);
	}
	/* through the queue */
	err = async_one(t, opc, nsid, slba, (uint16_t)(nlbas - 1), buf, nbytes, &o);
	TCHECK(t, err == 0 && o.calls == 1);
	if (sc) {
		TCHECK(t, o.status && o.sct == SCT_GENERIC && o.sc == sc);
		if (o.sc != sc) {
			fprintf(stderr,
				"# %s/%s: opc %#x nsid %u slba %llu nlbas %u: sc %#x, want "
				"%#x\n",
				t->name, t->mech, opc, nsid, (unsigned long long)slba, nlbas, o.sc,
				sc);
		}
	} else {
		TCHECK(t, !o.status);
	}
}

static void
test_file_geometry(struct target *t)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(t->dev);
	uint64_t nlbas = FILE_NBYTES / LBA;
	size_t big = 2u << 20;
	uint8_t *buf = xnvme_buf_alloc(t->dev, big);

	TCHECK(t, buf && geo);
	if (!buf || !geo) {
		xnvme_buf_free(t->dev, buf);
		return;
	}
	TCHECK(t, geo->mdts_nbytes == 1u << 20);
	TCHECK(t, geo->tbytes == FILE_NBYTES);
	memset(buf, 0x5A, big);

	geo_expect(t, XNVME_SPEC_NVM_OPC_READ, t->nsid, 0, (uint32_t)(big / LBA), buf,
		   SC_INVALID_FIELD); /* 2 MiB > MDTS */
	geo_expect(t, XNVME_SPEC_NVM_OPC_WRITE, t->nsid, 0, (uint32_t)(big / LBA), buf,
		   SC_INVALID_FIELD);
	geo_expect(t, XNVME_SPEC_NVM_OPC_READ, 0, 0, 1, buf, 0x0B); /* Invalid Namespace */
	geo_expect(t, XNVME_SPEC_NVM_OPC_WRITE, 7, 0, 1, buf, 0x0B);
	geo_expect(t, XNVME_SPEC_NVM_OPC_WRITE, t->nsid, nlbas - 1, 2, buf, 0x80); /* across */
	geo_expect(t, XNVME_SPEC_NVM_OPC_WRITE, t->nsid, nlbas, 1, buf, 0x80);     /* past */
	geo_expect(t, XNVME_SPEC_NVM_OPC_READ, t->nsid, nlbas, 1, buf, 0x80);
	geo_expect(t, XNVME_SPEC_NVM_OPC_WRITE, t->nsid, nlbas - 1, 1, buf, 0); /* the last LBA */
	geo_expect(t, XNVME_SPEC_NVM_OPC_READ, t->nsid, 0, (1u << 20) / LBA, buf, 0); /* = MDTS */
	TCHECK(t, file_size(t->uri) == FILE_NBYTES);
	xnvme_buf_free(t->dev, buf);
}

/* ---- 8: drain_timeout ----------------------------------------------------------------- */

static void
count_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	(*(unsigned *)arg)++;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static void
count_ok_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	unsigned *counts = arg;

	counts[0]++;
	counts[1] += xnvme_cmd_ctx_cpl_status(ctx) != 0;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* thrpool on the ramdisk: commands of MDTS size take the workers a while */
static void
test_drain_timeout(struct target *t)
{
	const uint32_t nlb = xnvme_dev_get_geo(t->dev)->mdts_nbytes / LBA, ncmd = 16;
	struct xnvme_queue *q;
	unsigned counts[2] = {0, 0}, submitted = 0;
	int timeouts = 0, err, ret;
	uint8_t *buf = xnvme_buf_alloc(t->dev, (size_t)nlb * LBA);

	TCHECK(t, buf);
	if (!buf || xnvme_queue_init(t->dev, 32, 0, &q)) {
		TCHECK(t, 0);
		xnvme_buf_free(t->dev, buf);
		return;
	}
	xnvme_queue_set_cb(q, count_ok_cb, counts);
	for (int round = 0; round < 20 && !timeouts; ++round) {
		for (uint32_t i = 0; i < ncmd; ++i) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

			err = xnvme_nvm_read(ctx, t->nsid, (uint64_t)i * nlb, (uint16_t)(nlb - 1),
					     buf, NULL);
			TCHECK(t, err == 0);
			submitted += !err;
		}
		ret = xnvme_queue_drain_timeout(q, 0);
		TCHECK(t, ret >= 0 || ret == -ETIMEDOUT);
		if (ret == -ETIMEDOUT) {
			timeouts++;
			TCHECK(t, xnvme_queue_get_outstanding(q) > 0);
			TCHECK(t, counts[0] + xnvme_queue_get_outstanding(q) == submitted);
		}
		ret = xnvme_queue_drain_timeout(q, 10u * 1000 * 1000); /* generous */
		TCHECK(t, ret >= 0);
		TCHECK(t, xnvme_queue_get_outstanding(q) == 0);
		TCHECK(t, counts[0] == submitted); /* nothing lost, nothing twice */
		TCHECK(t, counts[1] == 0);
	}
	printf("# %s/%s: drain_timeout(0) timed out %d time(s), %u commands\n", t->name, t->mech,
	       timeouts, submitted);
	TCHECK(t, timeouts > 0);
	TCHECK(t, xnvme_queue_drain_timeout(q, 0) == 0); /* nothing outstanding */
	check_pool(t, q);
	xnvme_queue_term(q);
	xnvme_buf_free(t->dev, buf);
}

/* ---- 9: libaio init/term cycles ------------------------------------------------------- */

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void
test_libaio_cycles(struct target *t)
{
	const int ncycles = 100;
	uint8_t *buf = xnvme_buf_alloc(t->dev, 8 * LBA);
	struct xnvme_queue *q;
	unsigned calls = 0;
	double t0, avg;

	TCHECK(t, buf);
	if (!buf) {
		return;
	}
	/* term with reads in flight, then a queue that may reuse the same AIO context */
	for (int round = 0; round < 4; ++round) {
		if (xnvme_queue_init(t->dev, 16, 0, &q)) {
			TCHECK(t, 0);
			break;
		}
		xnvme_queue_set_cb(q, count_cb, &calls);
		for (uint32_t i = 0; i < 8; ++i) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

			TCHECK(t, xnvme_nvm_read(ctx, t->nsid, i, 0, buf + i * LBA, NULL) == 0);
		}
		TCHECK(t, xnvme_queue_term(q) == 0);
	}
	calls = 0;
	if (!xnvme_queue_init(t->dev, 16, 0, &q)) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

		xnvme_queue_set_cb(q, count_cb, &calls);
		memset(buf, 0, LBA);
		TCHECK(t, xnvme_nvm_read(ctx, t->nsid, 3, 0, buf, NULL) == 0);
		TCHECK(t, xnvme_queue_drain(q) == 1); /* no stale event of an earlier queue */
		TCHECK(t, calls == 1 && stamped(buf, 3));
		TCHECK(t, xnvme_queue_poke(q, 0) == 0);
		TCHECK(t, xnvme_queue_term(q) == 0);
	}

	t0 = now_ms();
	for (int i = 0; i < ncycles; ++i) {
		if (xnvme_queue_init(t->dev, 64, 0, &q)) {
			TCHECK(t, 0);
			break;
		}
		xnvme_queue_term(q);
	}
	avg = (now_ms() - t0) / ncycles;
	printf("# libaio: queue init+term %.3f ms on average\n", avg);
	TCHECK(t, avg < 3.0); /* io_destroy alone took ~30 ms */
	xnvme_buf_free(t->dev, buf);
}

/* ---- 4: NULL ------------------------------------------------------------------------- */

static void
test_null(struct xnvme_dev *dev)
{
	struct xnvme_queue *q = NULL;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	struct xnvme_spec_dsm_range range = {0};
	struct xnvme_spec_idfy idfy;
	struct iovec iov = {NULL, 0};
	char key[4] = "key";

	CHECK_EQ(xnvme_queue_poke(NULL, 0), -EINVAL);
	CHECK_EQ(xnvme_queue_drain(NULL), -EINVAL);
	CHECK_EQ(xnvme_queue_wait(NULL), -EINVAL);
	CHECK_EQ(xnvme_queue_drain_timeout(NULL, 0), -EINVAL);
	CHECK_EQ(xnvme_queue_term(NULL), -EINVAL);
	CHECK_EQ(xnvme_queue_set_cb(NULL, NULL, NULL), -EINVAL);
	CHECK_EQ(xnvme_queue_get_completion_fd(NULL), -EINVAL);
	CHECK_EQ(xnvme_queue_get_capacity(NULL), 0);
	CHECK_EQ(xnvme_queue_get_outstanding(NULL), 0);
	errno = 0;
	CHECK(!xnvme_queue_get_cmd_ctx(NULL) && errno == EINVAL);
	errno = 0;
	CHECK(!xnvme_cmd_ctx_from_queue(NULL) && errno == EINVAL);
	CHECK_EQ(xnvme_queue_init(NULL, 4, 0, &q), -EINVAL);
	CHECK_EQ(xnvme_queue_init(dev, 4, 0, NULL), -EINVAL);

	CHECK_EQ(xnvme_queue_init(dev, 4, 0, &q), 0);
	if (q) {
		CHECK_EQ(xnvme_queue_put_cmd_ctx(NULL, &ctx), -EINVAL);
		CHECK_EQ(xnvme_queue_put_cmd_ctx(q, NULL), -EINVAL);
		check_pool(&(struct target){.name = "null", .mech = "-"}, q);
		xnvme_queue_term(q);
	}

	CHECK_EQ(xnvme_cmd_pass(NULL, NULL, 0, NULL, 0), -EINVAL);
	CHECK_EQ(xnvme_cmd_pass_iov(NULL, &iov, 1, 0, NULL, 0), -EINVAL);
	CHECK_EQ(xnvme_cmd_passv(NULL, &iov, 1, 0, NULL, 0, 0), -EINVAL);
	CHECK_EQ(xnvme_cmd_pass_admin(NULL, NULL, 0, NULL, 0), -EINVAL);
	CHECK_EQ(xnvme_nvm_read(NULL, 1, 0, 0, NULL, NULL), -EINVAL);
	CHECK_EQ(xnvme_nvm_write(NULL, 1, 0, 0, NULL, NULL), -EINVAL);
	CHECK_EQ(xnvme_nvm_compare(NULL, 1, 0, 0, NULL, NULL), -EINVAL);
	CHECK_EQ(xnvme_nvm_write_zeroes(NULL, 1, 0, 0), -EINVAL);
	CHECK_EQ(xnvme_nvm_write_uncorrectable(NULL, 1, 0, 0), -EINVAL);
	CHECK_EQ(xnvme_nvm_dsm(NULL, 1, &range, 0, true, false, false), -EINVAL);
	CHECK_EQ(xnvme_nvm_scopy(NULL, 1, 0, NULL, 0, XNVME_NVM_SCOPY_FMT_ZERO), -EINVAL);
	CHECK_EQ(xnvme_nvm_mgmt_recv(NULL, 1, 0, 0, NULL, 0), -EINVAL);
	CHECK_EQ(xnvme_nvm_mgmt_send(NULL, 1, 0, 0, NULL, 0), -EINVAL);
	CHECK_EQ(xnvme_znd_append(NULL, 1, 0, 0, NULL, NULL), -EINVAL);
	CHECK_EQ(
		xnvme_znd_mgmt_send(NULL, 1, 0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, 0, NULL),
		-EINVAL);
	CHECK_EQ(xnvme_znd_mgmt_recv(NULL, 1, 0, 0, 0, false, NULL, 0), -EINVAL);
	CHECK_EQ(xnvme_znd_zrwa_flush(NULL, 1, 0), -EINVAL);
	CHECK_EQ(xnvme_adm_idfy_ctrlr(NULL, &idfy), -EINVAL);
	CHECK_EQ(xnvme_adm_idfy_ns(NULL, 1, &idfy), -EINVAL);
	CHECK_EQ(xnvme_adm_log(NULL, 1, 0, 0, 0, 0, &idfy, 512), -EINVAL);
	CHECK_EQ(xnvme_adm_gfeat(NULL, 0, 1, 0, NULL, 0), -EINVAL);
	CHECK_EQ(xnvme_adm_format(NULL, 1, 0, 0, 0, 0, 0, 0), -EINVAL);
	CHECK_EQ(xnvme_kvs_store(NULL, 1, key, 3, NULL, 0, 0), -EINVAL);
	CHECK_EQ(xnvme_kvs_retrieve(NULL, 1, key, 3, NULL, 0, 0), -EINVAL);
	CHECK_EQ(xnvme_file_pread(NULL, NULL, 0, 0), -EINVAL);
	CHECK_EQ(xnvme_file_pwrite(NULL, NULL, 0, 0), -EINVAL);
	xnvme_prep_nvm(NULL, 0, 0, 0, 0); /* no crash, nothing to prepare */
	xnvme_prep_adm_gfeat(NULL, 0, 0, 0);

	/* an asynchronous context bound to no queue */
	memset(&ctx, 0, sizeof(ctx));
	ctx.dev = dev;
	ctx.opts = 0x2; /* asynchronous */
	ctx.cmd.common.opcode = XNVME_SPEC_NVM_OPC_FLUSH;
	CHECK_EQ(xnvme_cmd_pass(&ctx, NULL, 0, NULL, 0), -EINVAL);
	CHECK_EQ(xnvme_cmd_pass_iov(&ctx, &iov, 0, 0, NULL, 0), -EINVAL);
}

/* ---- driver -------------------------------------------------------------------------- */

/* Attaches `backing` to a free loop device into `dev`; false (skip the target) when impossible */
static bool
loop_attach(const char *backing, char *dev, size_t len)
{
	char cmd[512], out[256] = "";
	FILE *pipe;

	if (access("/dev/loop-control", R_OK | W_OK)) {
		return false;
	}
	snprintf(cmd, sizeof(cmd), "losetup -f --show '%s' 2>/dev/null", backing);
	pipe = popen(cmd, "r");
	if (!pipe) {
		return false;
	}
	if (!fgets(out, sizeof(out), pipe)) {
		out[0] = '\0';
	}
	if (pclose(pipe) || strncmp(out, "/dev/loop", 9)) {
		return false;
	}
	out[strcspn(out, "\r\n")] = '\0';
	return (size_t)snprintf(dev, len, "%s", out) < len;
}

static void
loop_detach(const char *dev)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "losetup -d '%s'", dev);
	if (system(cmd)) {
		fprintf(stderr, "# '%s' failed\n", cmd);
	}
}

static void
run(const char *name, const char *uri, const char *mech, bool file)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct target t = {.name = name, .uri = uri, .mech = mech};

	opts.async = mech;
	t.dev = xnvme_dev_open(uri, &opts);
	if (!t.dev) {
		printf("# %s/%s: not available here (errno %d), skipped\n", name, mech, errno);
		return;
	}
	t.nsid = xnvme_dev_get_nsid(t.dev);
	t.moves_data = strcmp(mech, "nil") != 0;
	TCHECK(&t, prefill(&t, 64) == 0);

	test_nested(&t);
	test_chain(&t);
	test_pool(&t);
	test_bad_opcode(&t);
	if (file && t.moves_data) {
		test_file_geometry(&t);
	}
	if (!strcmp(name, "ramdisk") && is_mech(&t, "thrpool")) {
		test_drain_timeout(&t);
	}
	if (is_mech(&t, "libaio")) {
		test_libaio_cycles(&t);
	}
	printf("# %s/%s: done\n", name, mech);
	xnvme_dev_close(t.dev);
}

/* `--uri URI --mech M`: one device and mechanism only (the QEMU guest: io_uring_cmd on /dev/ng) */
int
main(int argc, char **argv)
{
	static const char *ram_mechs[] = {"emu", "thrpool", "nil"};
	static const char *file_mechs[] = {"emu", "thrpool", "nil", "posix", "io_uring", "libaio"};
	const char *tmp = getenv("TMPDIR");
	char dir[256], path[300], backing[300], loop[64];
	struct xnvme_dev *dev;
	int fd;

	if (argc == 5 && !strcmp(argv[1], "--uri") && !strcmp(argv[3], "--mech")) {
		struct xnvme_opts opts = xnvme_opts_default();

		/* a named device must open: its absence is a failure, not a skip */
		opts.async = argv[4];
		dev = xnvme_dev_open(argv[2], &opts);
		if (!dev) {
			fprintf(stderr, "%s with %s: cannot open (errno %d)\n", argv[2], argv[4],
				errno);
			return 1;
		}
		xnvme_dev_close(dev);
		run("device", argv[2], argv[4], false);
		return xnvme_test_result("reentrant");
	}
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--uri URI --mech MECHANISM]\n", argv[0]);
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/xnvme-test-reent-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1; /* the test's own setup: a failure, never a skip (xnvme_test.h) */
	}
	snprintf(path, sizeof(path), "%s/ns.img", dir);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, FILE_NBYTES)) {
		perror("file");
		return 1;
	}
	close(fd);

	dev = xnvme_dev_open("1GB", NULL);
	CHECK(dev);
	if (dev) {
		test_null(dev);
		xnvme_dev_close(dev);
	}
	for (size_t i = 0; i < sizeof(ram_mechs) / sizeof(ram_mechs[0]); ++i) {
		run("ramdisk", "1GB", ram_mechs[i], false);
	}
	for (size_t i = 0; i < sizeof(file_mechs) / sizeof(file_mechs[0]); ++i) {
		run("file", path, file_mechs[i], true);
	}

	/* a loop device, when this host lets us attach one (the same mechanisms, block paths) */
	snprintf(backing, sizeof(backing), "%s/loop.img", dir);
	fd = open(backing, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd >= 0 && !ftruncate(fd, FILE_NBYTES) && !close(fd) &&
	    loop_attach(backing, loop, sizeof(loop))) {
		for (size_t i = 0; i < sizeof(file_mechs) / sizeof(file_mechs[0]); ++i) {
			run("loop", loop, file_mechs[i], false);
		}
		loop_detach(loop);
	} else {
		printf("# loop device: cannot attach one here, skipped\n");
	}
	unlink(backing);
	unlink(path);
	rmdir(dir);
	return xnvme_test_result("reentrant");
}
