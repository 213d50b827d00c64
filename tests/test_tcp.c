// SPDX-License-Identifier: BSD-3-Clause
/*
 * The "tcp" backend against the test target (tests/tcp_target.c) on 127.0.0.1, or against any
 * NVMe over Fabrics target given as --uri ADDR:PORT --subnqn NQN [--be tcp|rdma] (the guest
 * runs it on the kernel's nvmet-tcp and nvmet-rdma; the namespace's first 16 MiB are
 * overwritten; rdma runs with and without memory windows instead of digests). For each of: no
 * digests, header and data digests (with C2H SUCCESS and small data PDUs): open with no backend
 * named,
 * Identify and geometry, sync writes read back and compared at sizes that go in-capsule and
 * through R2T/H2CData, iovecs, an invalid admin opcode's status, and async queues of depth 1,
 * 8 and 32 writing and reading back through the completion fd. Also: the iovec lengths, not
 * the caller's total, define a vectored transfer; an iovec array reused right after an async
 * submission; a read moving less than its buffer (own target); Keep Alive only after the open.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tcp_target.h"
#include "xnvme_test.h"

#define NLBAS 32768U /* 16 MiB */
#define SUBNQN "nqn.2024-01.io.xnvme:test"

static void
sync_rw(struct xnvme_dev *dev, uint32_t nsid, uint32_t lba_nbytes)
{
	static const uint32_t sizes[] = {512, 4096, 8192, 65536, 131072};
	size_t max = 131072;
	uint8_t *wbuf = xnvme_buf_alloc(dev, max), *rbuf = xnvme_buf_alloc(dev, max);

	CHECK(wbuf && rbuf);
	if (!wbuf || !rbuf) {
		return;
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
		uint32_t n = sizes[i];
		uint64_t slba = 64 * i;
		int err;

		if (n < lba_nbytes || n > xnvme_dev_get_geo(dev)->mdts_nbytes) {
			continue;
		}
		tt_fill(wbuf, n, (uint32_t)i + 1);
		err = xnvme_nvm_write(&ctx, nsid, slba, (uint16_t)(n / lba_nbytes - 1), wbuf, NULL);
		CHECK_OK(err, ctx);
		memset(rbuf, 0, n);
		ctx = xnvme_cmd_ctx_from_dev(dev);
		err = xnvme_nvm_read(&ctx, nsid, slba, (uint16_t)(n / lba_nbytes - 1), rbuf, NULL);
		CHECK_OK(err, ctx);
		CHECK(!memcmp(wbuf, rbuf, n));
	}

	/* vectored: written in three segments, read back in two other ones */
	{
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
		struct iovec wv[3] = {{wbuf, 1024}, {wbuf + 1024, 16384}, {wbuf + 17408, 15360}};
		struct iovec rv[2] = {{rbuf, 20000}, {rbuf + 20000, 12768}};
		int err;

		tt_fill(wbuf, 32768, 99);
		xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_WRITE, nsid, 1000,
			       (uint16_t)(32768 / lba_nbytes - 1));
		err = xnvme_cmd_pass_iov(&ctx, wv, 3, 32768, NULL, 0);
		CHECK_OK(err, ctx);
		memset(rbuf, 0, 32768);
		ctx = xnvme_cmd_ctx_from_dev(dev);
		xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, nsid, 1000,
			       (uint16_t)(32768 / lba_nbytes - 1));
		err = xnvme_cmd_pass_iov(&ctx, rv, 2, 32768, NULL, 0);
		CHECK_OK(err, ctx);
		CHECK(!memcmp(wbuf, rbuf, 32768));

		/* the iovec lengths define the transfer, not the caller's (advisory) total */
		tt_fill(wbuf, 32768, 98);
		ctx = xnvme_cmd_ctx_from_dev(dev);
		xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_WRITE, nsid, 1000,
			       (uint16_t)(32768 / lba_nbytes - 1));
		err = xnvme_cmd_passv(&ctx, wv, 3, 512, NULL, 0, 0);
		CHECK_OK(err, ctx);
		memset(rbuf, 0, 32768);
		ctx = xnvme_cmd_ctx_from_dev(dev);
		xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, nsid, 1000,
			       (uint16_t)(32768 / lba_nbytes - 1));
		err = xnvme_cmd_passv(&ctx, rv, 2, 1 << 20, NULL, 0, 0);
		CHECK_OK(err, ctx);
		CHECK(!memcmp(wbuf, rbuf, 32768));
	}
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
}

/* Submits `n` commands of `nbytes` each (opcode write or read), waiting on the fd when full */
static void
async_pass(struct xnvme_queue *q, struct xnvme_dev *dev, uint8_t opc, uint8_t *buf, int n,
	   uint32_t nbytes, uint32_t lba_nbytes, uint32_t nsid)
{
	struct tt_counts cnt = {0};
	int fd = xnvme_queue_get_completion_fd(q);

	CHECK(fd >= 0);
	xnvme_queue_set_cb(q, tt_count_cb, &cnt);
	for (int i = 0; i < n; ++i) {
		struct xnvme_cmd_ctx *ctx;
		int err;

		while (xnvme_queue_get_outstanding(q) >= xnvme_queue_get_capacity(q)) {
			struct pollfd pfd = {.fd = fd, .events = POLLIN};
			/* one at a time: completions left in the staging buffer must wake the fd */
			int ret = xnvme_queue_poke(q, 1);

			CHECK(ret >= 0);
			if (ret == 0) {
				/*
				 * readable when a completion is there, and also when the data of
				 * R2Ts a full socket held back can go out (large writes)
				 */
				CHECK(poll(&pfd, 1, 10000) == 1);
			}
		}
		ctx = xnvme_queue_get_cmd_ctx(q);
		CHECK(ctx != NULL);
		if (!ctx) {
			break;
		}
		xnvme_prep_nvm(ctx, opc, nsid, (uint64_t)i * (nbytes / lba_nbytes) + 2048,
			       (uint16_t)(nbytes / lba_nbytes - 1));
		err = xnvme_cmd_pass(ctx, buf + (size_t)i * nbytes, nbytes, NULL, 0);
		CHECK_EQ(err, 0);
		if (err) {
			xnvme_queue_put_cmd_ctx(q, ctx);
		}
	}
	CHECK(xnvme_queue_drain(q) >= 0);
	CHECK_EQ(cnt.ok, n);
	CHECK_EQ(cnt.bad, 0);
	(void)dev;
}

static void
async_rw(struct xnvme_dev *dev, uint16_t qd, uint32_t lba_nbytes, uint32_t nsid)
{
	const int n = 48;
	const uint32_t nbytes = qd == 8 ? 65536 : 8192; /* qd 8: writes through R2T */
	size_t total = (size_t)n * nbytes;
	uint8_t *wbuf = xnvme_buf_alloc(dev, total), *rbuf = xnvme_buf_alloc(dev, total);
	struct xnvme_queue *q = NULL;
	int err;

	err = xnvme_queue_init(dev, qd, 0, &q);
	CHECK_EQ(err, 0);
	CHECK(wbuf && rbuf);
	if (!err && wbuf && rbuf) {
		tt_fill(wbuf, total, qd);
		memset(rbuf, 0, total);
		async_pass(q, dev, XNVME_SPEC_NVM_OPC_WRITE, wbuf, n, nbytes, lba_nbytes, nsid);
		async_pass(q, dev, XNVME_SPEC_NVM_OPC_READ, rbuf, n, nbytes, lba_nbytes, nsid);
		CHECK(!memcmp(wbuf, rbuf, total));
	}
	xnvme_queue_term(q);
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
}

/*
 * Completions a poke left in the connection's buffer (stopped by `max`) make the completion fd
 * readable although the socket has nothing new: reads of one LBA, all answered before the
 * first reaping poke, then reaped one per poke, the fd checked with a zero timeout each time.
 * rdma's fd is the completion channel's, which announces completions that arrive after a poke
 * left none behind (libxnvme_queue.h): there the pokes go on until one finds nothing, and the
 * fd must then wake for what comes.
 */
static void
async_fd_buffered(struct xnvme_dev *dev, uint32_t nsid)
{
	const bool edge = !strcmp(xnvme_dev_get_opts(dev)->be, "rdma");
	const int n = 16;
	uint8_t *buf = xnvme_buf_alloc(dev, 4096);
	struct tt_counts cnt = {0};
	struct xnvme_queue *q = NULL;
	struct timespec pause = {.tv_nsec = 100 * 1000 * 1000};
	int fd, err, reaped = 0;

	err = xnvme_queue_init(dev, n, 0, &q);
	CHECK_EQ(err, 0);
	CHECK(buf != NULL);
	if (err || !buf) {
		xnvme_buf_free(dev, buf);
		return;
	}
	fd = xnvme_queue_get_completion_fd(q);
	CHECK(fd >= 0);
	xnvme_queue_set_cb(q, tt_count_cb, &cnt);
	for (int i = 0; i < n; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

		err = ctx ? xnvme_nvm_read(ctx, nsid, (uint64_t)i, 0, buf, NULL) : -ENOMEM;
		CHECK_EQ(err, 0);
	}
	reaped = xnvme_queue_poke(q, 1); /* sends the capsules */
	CHECK(reaped >= 0);
	nanosleep(&pause, NULL); /* the target answers all of them */
	while (xnvme_queue_get_outstanding(q)) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int ret = xnvme_queue_poke(q, 1);

		CHECK(ret >= 0 && ret <= 1);
		if (ret < 0) {
			break;
		}
		reaped += ret;
		if (xnvme_queue_get_outstanding(q) && edge && ret == 1) {
			continue; /* rdma: the channel announces new completions only: poke on */
		}
		if (xnvme_queue_get_outstanding(q)) {
			/* zero timeout first: buffered completions must be announced at once */
			if (ret == 1) {
				CHECKF(poll(&pfd, 1, 0) == 1,
				       "%d completions left, fd not readable",
				       (int)xnvme_queue_get_outstanding(q));
			}
			CHECK(poll(&pfd, 1, 10000) == 1);
		}
	}
	CHECK_EQ(reaped, n);
	CHECK_EQ(cnt.ok, n);
	xnvme_queue_term(q);
	xnvme_buf_free(dev, buf);
}

/* The caller may reuse its iovec array as soon as the submission returns */
static void
async_iov_reuse(struct xnvme_dev *dev, uint32_t nsid, uint32_t lba_nbytes)
{
	const size_t n = 65536; /* beyond in-capsule data: sent on R2T, after the submission */
	uint8_t *wbuf = xnvme_buf_alloc(dev, n), *rbuf = xnvme_buf_alloc(dev, n);
	struct xnvme_queue *q = NULL;
	struct xnvme_cmd_ctx *ctx, rctx;
	struct tt_counts cnt = {0};
	struct iovec v[2];
	int err;

	CHECK(wbuf && rbuf);
	CHECK_EQ(xnvme_queue_init(dev, 4, 0, &q), 0);
	if (!wbuf || !rbuf || !q) {
		goto out;
	}
	xnvme_queue_set_cb(q, tt_count_cb, &cnt);
	tt_fill(wbuf, n, 77);
	memset(rbuf, 0, n);
	v[0] = (struct iovec){wbuf, n / 2};
	v[1] = (struct iovec){wbuf + n / 2, n / 2};
	ctx = xnvme_queue_get_cmd_ctx(q);
	xnvme_prep_nvm(ctx, XNVME_SPEC_NVM_OPC_WRITE, nsid, 3000, (uint16_t)(n / lba_nbytes - 1));
	CHECK_EQ(xnvme_cmd_pass_iov(ctx, v, 2, n, NULL, 0), 0);
	v[0] = (struct iovec){rbuf, n / 2}; /* zeroes: must not be what is written */
	v[1] = (struct iovec){rbuf + n / 2, n / 2};
	CHECK_EQ(xnvme_queue_drain(q), 1);
	CHECK_EQ(cnt.ok, 1);
	rctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&rctx, nsid, 3000, (uint16_t)(n / lba_nbytes - 1), rbuf, NULL);
	CHECK_OK(err, rctx);
	CHECK(!memcmp(wbuf, rbuf, n));
out:
	if (q) {
		xnvme_queue_term(q);
	}
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
}

/* A read of one LBA into a larger buffer: the target moves less than the SGL; not an error */
static void
short_read(struct xnvme_dev *dev, uint32_t nsid)
{
	uint8_t *wbuf = xnvme_buf_alloc(dev, 4096), *rbuf = xnvme_buf_alloc(dev, 4096);
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	int err;

	CHECK(wbuf && rbuf);
	if (!wbuf || !rbuf) {
		goto out;
	}
	tt_fill(wbuf, 512, 55);
	err = xnvme_nvm_write(&ctx, nsid, 4000, 0, wbuf, NULL);
	CHECK_OK(err, ctx);
	memset(rbuf, 0xAB, 4096);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, nsid, 4000, 0);
	err = xnvme_cmd_pass(&ctx, rbuf, 4096, NULL, 0);
	CHECK_OK(err, ctx);
	CHECK(!memcmp(wbuf, rbuf, 512));
	CHECK_EQ(rbuf[512], 0xAB); /* nothing beyond what the target sent */
	/* the connection is still healthy */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, nsid, 4000, 0, rbuf, NULL);
	CHECK_OK(err, ctx);
out:
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
}

/*
 * Keep Alive every 0.5 ms from the start: the admin commands of the open itself must not
 * race with it (the thread starts once they are done)
 */
static void
keep_alive_open(struct tt *tt, const char *uri)
{
	for (int i = 0; i < 3; ++i) {
		struct xnvme_opts opts = xnvme_opts_default();
		struct xnvme_dev *dev;

		opts.subnqn = SUBNQN;
		opts.keep_alive_timeout_ms = 1;
		dev = xnvme_test_open(uri, &opts);
		CHECK(dev != NULL);
		if (!dev) {
			return;
		}
		xnvme_dev_close(dev);
	}
	CHECK_EQ(tt_nkeepalive_early(tt), 0);
}

static const char *g_be = "tcp"; /* the backend a target is expected to open through */

static void
run(const char *uri, const char *subnqn, bool own_target)
{
	struct xnvme_opts opts = xnvme_opts_default();
	const struct xnvme_geo *geo;
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *dev;
	uint32_t nsid;
	int err;

	opts.subnqn = subnqn;
	opts.be = own_target ? NULL : g_be;
	dev = xnvme_test_open(uri, &opts);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	CHECK(!strcmp(xnvme_dev_get_opts(dev)->be, g_be));
	CHECK(!strcmp(xnvme_dev_get_opts(dev)->async, g_be));
	geo = xnvme_dev_get_geo(dev);
	CHECK(geo != NULL);
	nsid = xnvme_dev_get_nsid(dev);
	if (own_target) {
		CHECK_EQ(geo->lba_nbytes, 512);
		CHECK_EQ(geo->tbytes, (uint64_t)NLBAS * 512);
		CHECK_EQ(geo->mdts_nbytes, 131072);
		CHECK(!strncmp((const char *)xnvme_dev_get_ctrlr(dev)->mn, "xnvme test tcp target",
			       21));
	}
	CHECK(!strcmp(xnvme_dev_get_ident(dev)->subnqn, subnqn));

	sync_rw(dev, nsid, geo->lba_nbytes);
	async_iov_reuse(dev, nsid, geo->lba_nbytes);
	if (own_target) {
		short_read(dev, nsid); /* a kernel target refuses an SGL longer than the data */
	}

	/* an admin opcode the controller does not know: -EIO and Invalid Command Opcode */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	ctx.cmd.common.opcode = 0xC4;
	err = xnvme_cmd_pass_admin(&ctx, NULL, 0, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, SCT_GENERIC, SC_INVALID_OPCODE);

	async_fd_buffered(dev, nsid);
	async_rw(dev, 1, geo->lba_nbytes, nsid);
	async_rw(dev, 8, geo->lba_nbytes, nsid);
	async_rw(dev, 32, geo->lba_nbytes, nsid);
	xnvme_dev_close(dev);
}

static const char *g_subnqn = SUBNQN;

static int
enum_cb(struct xnvme_dev *dev, void *arg)
{
	int *count = arg;

	CHECK(!strcmp(xnvme_dev_get_opts(dev)->be, g_be));
	CHECK(xnvme_dev_get_geo(dev)->tbytes > 0);
	/* a target may list other subsystems too: the one under test counts */
	*count += !strcmp(xnvme_dev_get_opts(dev)->subnqn, g_subnqn);
	return XNVME_ENUMERATE_DEV_CLOSE;
}

/* Keep Alive: KATO goes into the admin Connect, a command every KATO / 2 */
static void
keep_alive(struct tt *tt, const char *uri)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 650000000L};
	struct xnvme_dev *dev;
	uint32_t kato = 0;
	uint64_t before = tt_nkeepalive(tt, &kato);

	opts.subnqn = SUBNQN;
	opts.keep_alive_timeout_ms = 200;
	dev = xnvme_test_open(uri, &opts);
	CHECK(dev != NULL);
	nanosleep(&ts, NULL);
	CHECK(tt_nkeepalive(tt, &kato) - before >= 3);
	CHECK_EQ(kato, 200);
	xnvme_dev_close(dev);
}

/* URIs and options the backend refuses or leaves to others, and a discovery controller */
static void
uris(uint16_t port)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;
	char uri[128];

	/* nothing listens on port 1: refused quickly, no hang */
	dev = xnvme_dev_open("127.0.0.1:1", &opts);
	CHECK(dev == NULL);
	CHECK(errno != 0);
	snprintf(uri, sizeof(uri), "127.0.0.1:%u?crc=1", port);
	CHECK(xnvme_dev_open(uri, &opts) == NULL);
	CHECK_EQ(errno, EINVAL);
	snprintf(uri, sizeof(uri), "127.0.0.1:%u", port);
	opts.adrfam = "IPX";
	CHECK(xnvme_dev_open(uri, &opts) == NULL);
	CHECK_EQ(errno, EINVAL);
	/* IPv4 literal with IPv6 asked for: no address to connect to */
	opts.adrfam = "IPv6";
	CHECK(xnvme_dev_open(uri, &opts) == NULL);
	opts.adrfam = "IPv4";
	opts.be = "tcp";
	/* not TCP target forms: no backend of that name claims them */
	CHECK(xnvme_dev_open("127.0.0.1:99999", &opts) == NULL);
	CHECK(xnvme_dev_open("/tmp/x:1", &opts) == NULL);
	CHECK(xnvme_dev_open("[::1:4420", &opts) == NULL);
	CHECK(xnvme_dev_open("1GB", &opts) == NULL);

	/* the discovery NQN (no subnqn): admin works, I/O has no queue */
	dev = xnvme_dev_open(uri, &opts);
	CHECK(dev != NULL);
	if (dev) {
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
		struct xnvme_queue *q = NULL;
		uint8_t buf[512];

		CHECK_EQ(xnvme_nvm_read(&ctx, 1, 0, 0, buf, NULL), -ENOTSUP);
		CHECK_EQ(xnvme_queue_init(dev, 4, 0, &q), -ENOTSUP);
		xnvme_dev_close(dev);
	}

	/* the subsystem NQN in the URI, for clients without a subnqn option */
	snprintf(uri, sizeof(uri), "127.0.0.1:%u?subnqn=%s&hdgst=1", port, SUBNQN);
	opts = xnvme_opts_default();
	dev = xnvme_dev_open(uri, &opts);
	CHECK(dev != NULL);
	if (dev) {
		CHECK(!strcmp(xnvme_dev_get_ident(dev)->subnqn, SUBNQN));
		sync_rw(dev, 1, 512);
		xnvme_dev_close(dev);
	}
	snprintf(uri, sizeof(uri), "127.0.0.1:%u", port);

	/* enumerate through the discovery log: the one NVM subsystem, not the referral */
	{
		struct xnvme_opts eopts = xnvme_opts_default();
		int count = 0;

		CHECK_EQ(xnvme_enumerate(uri, &eopts, enum_cb, &count), 0);
		CHECK_EQ(count, 1);
	}
}

int
main(int argc, char **argv)
{
	const char *uri = NULL, *subnqn = SUBNQN;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--uri")) {
			uri = argv[i + 1];
		} else if (!strcmp(argv[i], "--subnqn")) {
			subnqn = argv[i + 1];
		} else if (!strcmp(argv[i], "--be")) {
			g_be = argv[i + 1];
		}
	}
	if (uri) {
		struct xnvme_opts eopts = xnvme_opts_default();
		int count = 0;
		char dg[300];

		/* the discovery log of the target lists the subsystem */
		g_subnqn = subnqn;
		eopts.be = g_be;
		CHECK_EQ(xnvme_enumerate(uri, &eopts, enum_cb, &count), 0);
		CHECK(count >= 1);

		run(uri, subnqn, false);
		/* tcp: with digests; rdma: without memory windows (the regions' own keys) */
		snprintf(dg, sizeof(dg), "%s%s", uri,
			 strcmp(g_be, "rdma") ? "?hdgst=1&ddgst=1" : "?mw=0");
		run(dg, subnqn, false);
	} else {
		struct tt_cfg plain = {
			.nlbas = NLBAS, .maxh2cdata = 8192, .icd_nbytes = 4096, .c2h_chunk = 16384};
		struct tt_cfg dgst = {.nlbas = NLBAS,
				      .maxh2cdata = 16384,
				      .icd_nbytes = 8192,
				      .c2h_chunk = 4096,
				      .c2h_success = 1};
		const struct {
			const struct tt_cfg *cfg;
			const char *query;
		} variants[] = {{&plain, ""}, {&dgst, "?hdgst=1&ddgst=1"}, {&plain, "?hdgst=1"}};

		for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); ++v) {
			char u[128];
			uint16_t port;
			struct tt *tt = tt_start(variants[v].cfg, &port);

			snprintf(u, sizeof(u), "127.0.0.1:%u%s", port, variants[v].query);
			run(u, subnqn, true);
			if (v == 0) {
				uris(port);
				keep_alive(tt, u);
				keep_alive_open(tt, u);
			}
			CHECK(tt_nio(tt) > 0);
			tt_stop(tt);
		}
	}
	return xnvme_test_result("test_tcp");
}
