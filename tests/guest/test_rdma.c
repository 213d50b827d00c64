// SPDX-License-Identifier: BSD-3-Clause
/*
 * The "rdma" backend's own paths against a kernel NVMe/RDMA target (tests/guest/rdma_target.sh;
 * tests/test_tcp.c --be rdma runs the transport-independent checks). Writes and reads back, sync
 * and through an async queue, from every kind of memory: buffers of xnvme_buf_alloc()
 * (registered: the target moves the data itself), memory registered with xnvme_mem_map(),
 * plain heap memory at an odd offset and the stack (bounced), vectored transfers (bounced), at
 * sizes in and beyond the capsule up to MDTS, with and without memory windows ("?mw=0");
 * registration refusals; Keep Alive keeping an idle controller alive past its KATO. With
 * --slow NQN (a subsystem whose namespace 1 answers after seconds): the fd of a queue whose
 * commands time out wakes with no poke, every command fails once with ETIMEDOUT, the queue
 * refuses new ones; a sync command times out the same way; a fresh open of the other
 * subsystem works.
 *
 *   usage: test_rdma <traddr:trsvcid> <subnqn> [--slow <subnqn>]
 * Exit 0 pass, 1 fail. It overwrites LBAs 0..16383 of namespace 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tcp_target.h"
#include "../xnvme_test.h"

#define SLBA 2048U
#define KATO_MS 1000U
#define SLOW_TIMEOUT_US 1000000U

static struct xnvme_dev *
open_dev(const char *uri, const char *subnqn, const char *query, uint32_t kato_ms,
	 uint64_t timeout_us)
{
	struct xnvme_opts opts = xnvme_opts_default();
	char u[512];

	snprintf(u, sizeof(u), "%s%s", uri, query);
	opts.be = "rdma";
	opts.subnqn = subnqn;
	opts.keep_alive_timeout_ms = kato_ms;
	if (timeout_us) {
		opts.command_timeout = timeout_us;
	}
	return xnvme_test_open(u, &opts);
}

/* Writes `n` bytes of wbuf at SLBA and reads them into rbuf, sync or through queue `q` */
static void
rw(struct xnvme_dev *dev, struct xnvme_queue *q, uint8_t *wbuf, uint8_t *rbuf, uint32_t n,
   uint32_t lba_nbytes, const char *what)
{
	uint16_t nlb = (uint16_t)(n / lba_nbytes - 1);
	struct tt_counts cnt = {0};
	int err;

	tt_fill(wbuf, n, n ^ (uint32_t)(uintptr_t)wbuf);
	memset(rbuf, 0xEE, n);
	if (!q) {
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);

		err = xnvme_nvm_write(&ctx, 1, SLBA, nlb, wbuf, NULL);
		CHECK_AT(what, "sync write", !err && !xnvme_cmd_ctx_cpl_status(&ctx),
			 "%u bytes: %d", n, err);
		ctx = xnvme_cmd_ctx_from_dev(dev);
		err = xnvme_nvm_read(&ctx, 1, SLBA, nlb, rbuf, NULL);
		CHECK_AT(what, "sync read", !err && !xnvme_cmd_ctx_cpl_status(&ctx), "%u bytes: %d",
			 n, err);
	} else {
		struct xnvme_cmd_ctx *ctx;

		xnvme_queue_set_cb(q, tt_count_cb, &cnt);
		ctx = xnvme_queue_get_cmd_ctx(q);
		err = xnvme_nvm_write(ctx, 1, SLBA, nlb, wbuf, NULL);
		CHECK_AT(what, "async write", !err, "%u bytes: %d", n, err);
		CHECK_EQ(xnvme_queue_drain(q), 1);
		ctx = xnvme_queue_get_cmd_ctx(q);
		err = xnvme_nvm_read(ctx, 1, SLBA, nlb, rbuf, NULL);
		CHECK_AT(what, "async read", !err, "%u bytes: %d", n, err);
		CHECK_EQ(xnvme_queue_drain(q), 1);
		CHECK_AT(what, "async", cnt.ok == 2 && !cnt.bad, "%u bytes: %d ok, %d failed", n,
			 cnt.ok, cnt.bad);
	}
	CHECK_AT(what, q ? "async compare" : "sync compare", !memcmp(wbuf, rbuf, n),
		 "%u bytes differ", n);
}

/* Vectored: written in three pieces of `base`, read back in two pieces of `base2` */
static void
rw_vec(struct xnvme_dev *dev, struct xnvme_queue *q, uint8_t *base, uint8_t *base2,
       uint32_t lba_nbytes, const char *what)
{
	const uint32_t n = 65536;
	struct iovec wv[3] = {{base, 1000}, {base + 1000, 40000}, {base + 41000, n - 41000}};
	struct iovec rv[2] = {{base2, 12345}, {base2 + 12345, n - 12345}};
	struct xnvme_cmd_ctx sctx = xnvme_cmd_ctx_from_dev(dev), *ctx = &sctx;
	struct tt_counts cnt = {0};
	int err;

	tt_fill(base, n, 4242);
	memset(base2, 0, n);
	if (q) {
		xnvme_queue_set_cb(q, tt_count_cb, &cnt);
		ctx = xnvme_queue_get_cmd_ctx(q);
	}
	xnvme_prep_nvm(ctx, XNVME_SPEC_NVM_OPC_WRITE, 1, SLBA, (uint16_t)(n / lba_nbytes - 1));
	err = xnvme_cmd_pass_iov(ctx, wv, 3, n, NULL, 0);
	CHECK_AT(what, "vectored write", !err, "%d", err);
	if (q) {
		CHECK_EQ(xnvme_queue_drain(q), 1);
		ctx = xnvme_queue_get_cmd_ctx(q);
	} else {
		sctx = xnvme_cmd_ctx_from_dev(dev);
	}
	xnvme_prep_nvm(ctx, XNVME_SPEC_NVM_OPC_READ, 1, SLBA, (uint16_t)(n / lba_nbytes - 1));
	err = xnvme_cmd_pass_iov(ctx, rv, 2, n, NULL, 0);
	CHECK_AT(what, "vectored read", !err, "%d", err);
	if (q) {
		CHECK_EQ(xnvme_queue_drain(q), 1);
		CHECK_EQ(cnt.ok, 2);
	}
	CHECK_AT(what, "vectored compare", !memcmp(base, base2, n), "%s", q ? "async" : "sync");
}

struct kind {
	const char *name;
	uint8_t *w; ///< written from
	uint8_t *r; ///< read into
	size_t max;
};

/* Every kind of memory, every size up to MDTS (at most 1 MiB), sync and async */
static void
memory_kinds(struct xnvme_dev *dev, const char *label)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	uint32_t lba = geo->lba_nbytes;
	uint32_t mdts =
		geo->mdts_nbytes && geo->mdts_nbytes < (1U << 20) ? geo->mdts_nbytes : (1U << 20);
	const uint32_t sizes[] = {lba, 4096, 8192, 65536, mdts};
	size_t big = (size_t)mdts * 2;
	uint8_t *reg = xnvme_buf_alloc(dev, big);
	uint8_t *heap = malloc(big + 200);
	uint8_t *mapped = NULL, stack[2][4096];
	struct xnvme_queue *q = NULL;
	struct kind kinds[4];

	CHECK(reg && heap && mdts >= 65536);
	CHECK_EQ(posix_memalign((void **)&mapped, 4096, big), 0);
	if (!reg || !heap || !mapped || mdts < 65536) {
		goto out;
	}
	CHECK_EQ(xnvme_mem_map(dev, mapped, big), 0);
	/* an overlapping mapping and the unmapping of an allocation are refused */
	CHECK_EQ(xnvme_mem_map(dev, mapped + 4096, 4096), -EEXIST);
	CHECK_EQ(xnvme_mem_unmap(dev, reg), -EINVAL);
	kinds[0] = (struct kind){"xnvme_buf_alloc", reg, reg + mdts, mdts};
	kinds[1] = (struct kind){"xnvme_mem_map", mapped, mapped + mdts, mdts};
	kinds[2] = (struct kind){"heap+100 (bounced)", heap + 100, heap + 100 + mdts, mdts};
	kinds[3] = (struct kind){"stack (bounced)", stack[0], stack[1], sizeof(stack[0])};
	CHECK_EQ(xnvme_queue_init(dev, 8, 0, &q), 0);
	for (int k = 0; k < 4; ++k) {
		char what[96];

		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
			if (sizes[i] > kinds[k].max || sizes[i] % lba) {
				continue;
			}
			snprintf(what, sizeof(what), "%s %s", label, kinds[k].name);
			rw(dev, NULL, kinds[k].w, kinds[k].r, sizes[i], lba, what);
			if (q) {
				rw(dev, q, kinds[k].w, kinds[k].r, sizes[i], lba, what);
			}
		}
		if (kinds[k].max >= 2 * 65536) {
			snprintf(what, sizeof(what), "%s %s", label, kinds[k].name);
			rw_vec(dev, NULL, kinds[k].w, kinds[k].w + 65536, lba, what);
			if (q) {
				rw_vec(dev, q, kinds[k].w, kinds[k].w + 65536, lba, what);
			}
		}
	}
	printf("%s: every kind of memory and size written and read back\n", label);
out:
	if (q) {
		xnvme_queue_term(q);
	}
	if (mapped) {
		CHECK_EQ(xnvme_mem_unmap(dev, mapped), 0);
		free(mapped);
	}
	xnvme_buf_free(dev, reg);
	free(heap);
}

/* KATO 1 s, idle 2.5 s: the keep-alive thread holds the controller; I/O works after */
static void
keep_alive(const char *uri, const char *subnqn)
{
	struct xnvme_dev *dev = open_dev(uri, subnqn, "", KATO_MS, 0);
	uint8_t *buf;
	struct xnvme_cmd_ctx ctx;
	int err;

	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	buf = xnvme_buf_alloc(dev, 4096);
	usleep(2500 * 1000);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, 1, 0, 7, buf, NULL);
	CHECK_OK(err, ctx);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy_ctrlr(&ctx, (struct xnvme_spec_idfy *)buf);
	CHECK_OK(err, ctx);
	printf("keep-alive: an idle controller (KATO %u ms) answers after 2.5 s\n", KATO_MS);
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
}

/* The target stops answering: queue and sync path time out; a fresh open works */
static void
slow(const char *uri, const char *slow_nqn, const char *subnqn)
{
	struct xnvme_dev *dev = open_dev(uri, slow_nqn, "", 0, SLOW_TIMEOUT_US);
	struct xnvme_queue *q = tt_queue_or_close(dev);
	struct xnvme_cmd_ctx ctx;
	uint8_t *buf;
	double t0 = tt_now_s(), t1;
	int err;

	CHECK(q != NULL);
	if (!q) {
		return;
	}
	buf = xnvme_buf_alloc(dev, 8 * 65536);
	tt_silent_wait(q, buf, 4, 7, SLOW_TIMEOUT_US, 5.0, 30);
	xnvme_queue_term(q);
	printf("slow: queue done at +%.1f s\n", tt_now_s() - t0);
	/* the sync path: the command fails at its timeout, the connection refuses the next */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	t1 = tt_now_s();
	err = xnvme_nvm_read(&ctx, 1, 0, 7, buf, NULL);
	CHECKF(err == -ETIMEDOUT && tt_now_s() - t1 < SLOW_TIMEOUT_US / 1e6 + 5.0,
	       "sync read on a silent target: %d after %.2f s", err, tt_now_s() - t1);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_read(&ctx, 1, 0, 7, buf, NULL), -ENOTCONN);
	xnvme_buf_free(dev, buf);
	printf("slow: sync done at +%.1f s\n", tt_now_s() - t0);
	xnvme_dev_close(dev);
	printf("slow: closed at +%.1f s\n", tt_now_s() - t0);

	dev = open_dev(uri, subnqn, "", 0, 0);
	CHECK(dev != NULL);
	if (dev) {
		buf = xnvme_buf_alloc(dev, 4096);
		ctx = xnvme_cmd_ctx_from_dev(dev);
		err = xnvme_nvm_read(&ctx, 1, 0, 7, buf, NULL);
		CHECK_OK(err, ctx);
		xnvme_buf_free(dev, buf);
		xnvme_dev_close(dev);
	}
}

int
main(int argc, char **argv)
{
	const char *slow_nqn = NULL;
	struct xnvme_dev *dev;
	double t0 = tt_now_s();

	if (argc != 3 && !(argc == 5 && !strcmp(argv[3], "--slow"))) {
		fprintf(stderr, "usage: %s <traddr:trsvcid> <subnqn> [--slow <subnqn>]\n", argv[0]);
		return 1;
	}
	slow_nqn = argc == 5 ? argv[4] : NULL;
	for (int v = 0; v < 2; ++v) {
		const char *query = v ? "?mw=0" : "";

		dev = open_dev(argv[1], argv[2], query, 0, 0);
		CHECK(dev != NULL);
		if (dev) {
			CHECK(!strcmp(xnvme_dev_get_opts(dev)->be, "rdma"));
			CHECK(!strcmp(xnvme_dev_get_opts(dev)->mem, "posix"));
			memory_kinds(dev, v ? "mw=0" : "windows");
			xnvme_dev_close(dev);
		}
	}
	printf("test_rdma: memory kinds done at %.1f s\n", tt_now_s() - t0);
	keep_alive(argv[1], argv[2]);
	if (slow_nqn) {
		slow(argv[1], slow_nqn, argv[2]);
	}
	printf("test_rdma: done at %.1f s\n", tt_now_s() - t0);
	printf("test_rdma: %d checks, %d failed\n", xnvme_test_ncheck, xnvme_test_nfail);
	return xnvme_test_nfail ? 1 : 0;
}
