// SPDX-License-Identifier: BSD-3-Clause
/*
 * The vfio backend on a real (emulated) controller bound to vfio-pci, inside the QEMU guest
 * (tests/guest/vfio.sh binds it and checks the data through the kernel driver afterwards).
 *   test_vfio gen SEED NBYTES FILE    write the pattern of SEED to FILE (for dd)
 *   test_vfio hold BDF SECONDS FILE   keep the function open, FILE created once it is open
 *   test_vfio run BDF                 open, identify, sync and async I/O, sharing, busy,
 *     namespace 2 (4 KiB LBAs) beside namespace 1, namespace 3 with separate metadata, an
 *     inactive namespace refused;
 *     reads LBA 300000.. (written by the kernel with seed 1, 64 KiB) and compares, and leaves
 *     seed 2 (64 KiB) at LBA 310000 for the kernel to read back
 * Exit: 0 pass, 1 fail, 77 skip.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <libxnvme.h>
#include "../xnvme_test.h"

static void
pattern(uint8_t *buf, size_t n, unsigned seed, uint64_t off)
{
	for (size_t i = 0; i < n; ++i) {
		uint64_t x = (off + i) * 2654435761u + seed * 97;

		buf[i] = (uint8_t)(x ^ (x >> 13));
	}
}

static int
gen(unsigned seed, size_t n, const char *path)
{
	uint8_t *buf = malloc(n);
	FILE *fp = fopen(path, "wb");
	int ok;

	if (!buf || !fp) {
		return 1;
	}
	pattern(buf, n, seed, 0);
	ok = fwrite(buf, 1, n, fp) == n;
	fclose(fp);
	free(buf);
	return ok ? 0 : 1;
}

/* sync write and read back of `n` bytes at buf+off */
static void
sync_roundtrip(struct xnvme_dev *dev, uint64_t slba, size_t n, size_t off)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	uint8_t *w = xnvme_buf_alloc(dev, n + off), *r = xnvme_buf_alloc(dev, n + off);
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	uint16_t nlb = (uint16_t)(n / geo->lba_nbytes - 1);
	int err;

	CHECK(w && r);
	if (!w || !r) {
		return;
	}
	pattern(w + off, n, 7, slba + n);
	err = xnvme_nvm_write(&ctx, nsid, slba, nlb, w + off, NULL);
	CHECK_OK(err, ctx);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, nsid, slba, nlb, r + off, NULL);
	CHECK_OK(err, ctx);
	if (memcmp(w + off, r + off, n)) {
		fprintf(stderr, "FAIL: sync read-back mismatch slba %llu n %zu off %zu\n",
			(unsigned long long)slba, n, off);
		CHECK(0);
	}
	xnvme_buf_free(dev, w);
	xnvme_buf_free(dev, r);
}

struct adone {
	int n;
	int nerr;
};

static void
acb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct adone *d = arg;

	d->n++;
	d->nerr += xnvme_cmd_ctx_cpl_status(ctx) != 0;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* 64 x 4 KiB written at queue depth qd, read back at the same depth, compared */
static void
async_qd(struct xnvme_dev *dev, uint16_t qd)
{
	const uint32_t nio = 64, bs = 4096;
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	uint16_t nlb = (uint16_t)(bs / xnvme_dev_get_geo(dev)->lba_nbytes - 1);
	uint8_t *w = xnvme_buf_alloc(dev, (size_t)nio * bs),
		*r = xnvme_buf_alloc(dev, (size_t)nio * bs);
	struct xnvme_queue *queue = NULL;
	struct adone d = {0};
	uint64_t base = 8192; /* clear of the LBAs the other checks use */

	CHECK(w && r);
	CHECK_EQ(xnvme_queue_init(dev, qd, 0, &queue), 0);
	if (!w || !r || !queue) {
		return;
	}
	xnvme_queue_set_cb(queue, acb, &d);
	pattern(w, (size_t)nio * bs, qd, 0);
	memset(r, 0, (size_t)nio * bs);
	for (int pass = 0; pass < 2; ++pass) {
		for (uint32_t i = 0; i < nio; ++i) {
			struct xnvme_cmd_ctx *ctx;
			uint64_t slba = base + (uint64_t)i * (nlb + 1);
			int err;

			while (xnvme_queue_get_outstanding(queue) >= qd) {
				xnvme_queue_poke(queue, 0);
			}
			ctx = xnvme_queue_get_cmd_ctx(queue);
			err = pass ? xnvme_nvm_read(ctx, nsid, slba, nlb, r + (size_t)i * bs, NULL)
				   : xnvme_nvm_write(ctx, nsid, slba, nlb, w + (size_t)i * bs,
						     NULL);
			CHECK_EQ(err, 0);
			if (err) {
				xnvme_queue_put_cmd_ctx(queue, ctx);
			}
		}
		CHECK(xnvme_queue_drain(queue) >= 0);
	}
	CHECK_EQ(d.n, 2 * (int)nio);
	CHECK_EQ(d.nerr, 0);
	if (memcmp(w, r, (size_t)nio * bs)) {
		fprintf(stderr, "FAIL: async read-back mismatch at qd %u\n", qd);
		CHECK(0);
	}
	xnvme_queue_term(queue);
	xnvme_buf_free(dev, w);
	xnvme_buf_free(dev, r);
}

static long
meminfo(const char *key)
{
	char line[128];
	long val = -1;
	FILE *fp = fopen("/proc/meminfo", "r");

	while (fp && fgets(line, sizeof(line), fp)) {
		if (!strncmp(line, key, strlen(key))) {
			val = atol(line + strlen(key));
		}
	}
	if (fp) {
		fclose(fp);
	}
	return val;
}

/* with hugepages reserved, a 2 MiB buffer takes one (pinned by the IOMMU mapping) and works */
static void
hugepages(struct xnvme_dev *dev)
{
	long before = meminfo("HugePages_Free:"), after;
	uint8_t *buf;

	if (meminfo("HugePages_Total:") <= 0) {
		printf("# no hugepages reserved: the hugepage allocation is not exercised\n");
		return;
	}
	buf = xnvme_buf_alloc(dev, 2u << 20);
	after = meminfo("HugePages_Free:");
	CHECK(buf != NULL);
	CHECK_EQ(after, before - 1);
	xnvme_buf_free(dev, buf);
	CHECK_EQ(meminfo("HugePages_Free:"), before);
	sync_roundtrip(dev, 600, xnvme_dev_get_geo(dev)->mdts_nbytes, (1u << 20) + 512);
}

/* the completion fd: an eventfd signalled by the queue's MSI-X vector */
static void
completion_fd(struct xnvme_dev *dev)
{
	uint8_t *buf = xnvme_buf_alloc(dev, 4096);
	struct xnvme_queue *queue = NULL;
	struct xnvme_cmd_ctx *ctx;
	struct adone d = {0};
	struct pollfd pfd = {.events = POLLIN};
	uint64_t cnt = 0;
	int fd;

	CHECK_EQ(xnvme_queue_init(dev, 4, 0, &queue), 0);
	if (!queue || !buf) {
		return;
	}
	xnvme_queue_set_cb(queue, acb, &d);
	fd = xnvme_queue_get_completion_fd(queue);
	CHECK(fd >= 0);
	CHECK_EQ(xnvme_queue_get_completion_fd(queue), fd);
	pfd.fd = fd;
	CHECK_EQ(poll(&pfd, 1, 0), 0); /* nothing completed yet */
	pattern(buf, 4096, 3, 0);
	ctx = xnvme_queue_get_cmd_ctx(queue);
	CHECK_EQ(xnvme_nvm_write(ctx, xnvme_dev_get_nsid(dev), 9000,
				 (uint16_t)(4096 / xnvme_dev_get_geo(dev)->lba_nbytes - 1), buf,
				 NULL),
		 0);
	for (int i = 0; i < 1000000 && !d.n; ++i) {
		xnvme_queue_poke(queue, 0);
	}
	CHECK_EQ(d.n, 1);
	CHECK_EQ(d.nerr, 0);
	CHECK_EQ(poll(&pfd, 1, 2000), 1); /* the interrupt of that completion */
	CHECK_EQ(read(fd, &cnt, sizeof(cnt)), (ssize_t)sizeof(cnt));
	CHECK(cnt >= 1);
	xnvme_queue_term(queue);
	xnvme_buf_free(dev, buf);
}

/* the kernel's data (seed 1) readable through vfio; ours (seed 2) left for the kernel */
static void
cross_check(struct xnvme_dev *dev)
{
	const size_t n = 65536;
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	uint8_t *buf = xnvme_buf_alloc(dev, n), *exp = malloc(n);
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	int err;

	CHECK(buf && exp);
	if (!buf || !exp) {
		return;
	}
	pattern(exp, n, 1, 0);
	err = xnvme_nvm_read(&ctx, nsid, 300000, (uint16_t)(n / 512 - 1), buf, NULL);
	CHECK_OK(err, ctx);
	CHECK(!memcmp(buf, exp, n));
	pattern(buf, n, 2, 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write(&ctx, nsid, 310000, (uint16_t)(n / 512 - 1), buf, NULL);
	CHECK_OK(err, ctx);
	xnvme_buf_free(dev, buf);
	free(exp);
}

/* namespace 2 (4 KiB LBAs) of the same controller, open beside namespace 1 */
static void
second_ns(const char *bdf)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;
	const struct xnvme_geo *geo;

	opts.nsid = 2;
	dev = xnvme_dev_open(bdf, &opts);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	geo = xnvme_dev_get_geo(dev);
	CHECK_EQ(xnvme_dev_get_nsid(dev), 2);
	CHECK_EQ(geo->lba_nbytes, 4096);
	sync_roundtrip(dev, 10, 4096, 0);
	sync_roundtrip(dev, 20, geo->mdts_nbytes, 0);
	async_qd(dev, 8);
	xnvme_dev_close(dev);

	opts.nsid = 9; /* not an active namespace */
	errno = 0;
	dev = xnvme_dev_open(bdf, &opts);
	CHECK(dev == NULL);
	CHECK_EQ(errno, ENODEV);
}

/* namespace 3: 8 bytes of metadata per LBA in a separate buffer (the command's MPTR) */
static void
metadata_ns(const char *bdf)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;
	struct xnvme_cmd_ctx ctx;
	uint8_t *d, *m, *rd, *rm;
	int err;

	opts.nsid = 3;
	dev = xnvme_dev_open(bdf, &opts);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	CHECK_EQ(xnvme_dev_get_geo(dev)->nbytes_oob, 8);
	d = xnvme_buf_alloc(dev, 4096);
	m = xnvme_buf_alloc(dev, 64);
	rd = xnvme_buf_alloc(dev, 4096);
	rm = xnvme_buf_alloc(dev, 64);
	CHECK(d && m && rd && rm);
	if (d && m && rd && rm) {
		pattern(d, 4096, 5, 0);
		pattern(m, 64, 6, 0);
		memset(rm, 0, 64);
		ctx = xnvme_cmd_ctx_from_dev(dev);
		err = xnvme_nvm_write(&ctx, 3, 40, 7, d, m);
		CHECK_OK(err, ctx);
		ctx = xnvme_cmd_ctx_from_dev(dev);
		err = xnvme_nvm_read(&ctx, 3, 40, 7, rd, rm);
		CHECK_OK(err, ctx);
		CHECK(!memcmp(d, rd, 4096));
		CHECK(!memcmp(m, rm, 64));
	}
	xnvme_buf_free(dev, d);
	xnvme_buf_free(dev, m);
	xnvme_buf_free(dev, rd);
	xnvme_buf_free(dev, rm);
	xnvme_dev_close(dev);
}

/* a second handle shares the controller; another process gets EBUSY */
static void
sharing(const char *bdf, struct xnvme_dev *dev)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev2 = xnvme_dev_open(bdf, &opts);
	pid_t pid;
	int status = 0;

	CHECK(dev2 != NULL);
	if (dev2) {
		sync_roundtrip(dev2, 300, 4096, 0);
		xnvme_dev_close(dev2);
	}
	sync_roundtrip(dev, 310, 4096, 0); /* still alive after the other handle closed */

	pid = fork();
	if (!pid) {
		struct xnvme_dev *d = xnvme_dev_open(bdf, &opts);

		_exit(!d && errno == EBUSY ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int
run(const char *bdf)
{
	struct xnvme_opts opts = xnvme_opts_default();
	const struct xnvme_opts *eff;
	const struct xnvme_geo *geo;
	struct xnvme_dev *dev;
	uint16_t qds[] = {1, 2, 4, 8, 16, 32};

	dev = xnvme_dev_open(bdf, &opts);
	if (!dev) {
		fprintf(stderr, "FAIL: xnvme_dev_open(%s): %s\n", bdf, strerror(errno));
		return 1;
	}
	eff = xnvme_dev_get_opts(dev);
	CHECK(!strcmp(eff->be, "vfio") && !strcmp(eff->async, "vfio") &&
	      !strcmp(eff->sync, "vfio") && !strcmp(eff->admin, "vfio") &&
	      !strcmp(eff->mem, "vfio"));
	CHECK_EQ(xnvme_dev_get_nsid(dev), 1);
	geo = xnvme_dev_get_geo(dev);
	CHECK(geo != NULL);
	if (!geo) {
		xnvme_dev_close(dev);
		return 1;
	}
	CHECK_EQ(geo->lba_nbytes, 512);
	CHECK(geo->mdts_nbytes >= 4096);
	xnvme_dev_pr(dev, XNVME_PR_DEF);
	cross_check(dev);
	sync_roundtrip(dev, 100, 512, 0);
	sync_roundtrip(dev, 110, 4096, 512);
	sync_roundtrip(dev, 200, geo->mdts_nbytes, 0);
	sync_roundtrip(dev, 400, geo->mdts_nbytes - 4096, 3584);
	for (size_t i = 0; i < sizeof(qds) / sizeof(qds[0]); ++i) {
		async_qd(dev, qds[i]);
	}
	completion_fd(dev);
	hugepages(dev);
	sharing(bdf, dev);
	second_ns(bdf);
	metadata_ns(bdf);
	xnvme_dev_close(dev);
	return xnvme_test_result("test_vfio run");
}

int
main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "gen")) {
		return gen((unsigned)atoi(argv[2]), (size_t)atol(argv[3]), argv[4]);
	}
	if (argc == 3 && !strcmp(argv[1], "run")) {
		return run(argv[2]);
	}
	if (argc == 5 && !strcmp(argv[1], "hold")) { /* keeps the function open for a while */
		struct xnvme_opts opts = xnvme_opts_default();
		struct xnvme_dev *dev = xnvme_dev_open(argv[2], &opts);
		FILE *ready;

		if (!dev) {
			return 1;
		}
		ready = fopen(argv[4], "w");
		if (ready) {
			fclose(ready);
		}
		sleep((unsigned)atoi(argv[3]));
		xnvme_dev_close(dev);
		return 0;
	}
	fprintf(stderr,
		"usage: test_vfio gen SEED NBYTES FILE | run BDF | hold BDF SECONDS FILE\n");
	return 77;
}
