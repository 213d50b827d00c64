// SPDX-License-Identifier: BSD-3-Clause
/*
 * The functional suite over the device x mechanism matrix: the same program, options changed
 * only. For each URI and each mechanism ("sync" = the synchronous path, else an async
 * mechanism) it writes, reads back and compares 1 LBA up to MDTS, vectored I/O, many
 * commands in flight, flush, and on devices that speak the NVM command set with a mechanism
 * that carries any opcode: compare (match and miscompare), write zeroes, an LBA beyond the
 * namespace and an invalid opcode, each with its NVMe status.
 *
 *   test_matrix [--uri URI ...] [--mech NAME ...] [--nsid N]
 * Defaults: the ramdisk "1GB" and a temporary file, with every mechanism of this issue.
 * A mechanism the device's backend does not have is reported and skipped (never replaced).
 * Exit: 0 pass, 1 fail, 77 skip (nothing could be opened).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxnvme.h>
#include "xnvme_test.h"

/* The OS backend's own async mechanisms, in the default matrix next to the shared ones */
#ifdef _WIN32
#define OS_MECHS "iocp", "iocp_th"
#else
#define OS_MECHS "posix"
#endif

#define MAX_ARGS 16
#define QDEPTH 16

struct target {
	const char *uri;
	const char *mech;
	struct xnvme_dev *dev;
	struct xnvme_queue *queue;
	const struct xnvme_geo *geo;
	uint32_t nsid;
	bool moves_data; ///< nil does no I/O
	bool any_opcode; ///< NVM command set with a mechanism that carries every opcode
};

struct done {
	int ncalls;
	struct xnvme_spec_cpl cpl;
};

static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	struct done *d = cb_arg;

	d->ncalls++;
	d->cpl = ctx->cpl;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* Runs one command on the target's path; returns the pass result, cpl in *cpl */
static int
run(struct target *t, uint8_t opc, uint64_t slba, uint16_t nlb, void *dbuf, size_t nbytes,
    struct iovec *iov, size_t iovcnt, struct xnvme_spec_cpl *cpl)
{
	struct done d = {0};
	struct xnvme_cmd_ctx sync_ctx;
	struct xnvme_cmd_ctx *ctx;
	int err;

	if (t->queue) {
		ctx = xnvme_queue_get_cmd_ctx(t->queue);
		if (!ctx) {
			return -ENOMEM;
		}
		ctx->async.cb_arg = &d;
	} else {
		sync_ctx = xnvme_cmd_ctx_from_dev(t->dev);
		ctx = &sync_ctx;
	}
	memset(&ctx->cmd, 0, sizeof(ctx->cmd));
	xnvme_prep_nvm(ctx, opc, t->nsid, slba, nlb);

	err = iov ? xnvme_cmd_pass_iov(ctx, iov, iovcnt, nbytes, NULL, 0)
		  : xnvme_cmd_pass(ctx, dbuf, nbytes, NULL, 0);
	if (t->queue) {
		if (err) {
			xnvme_queue_put_cmd_ctx(t->queue, ctx);
			return err;
		}
		CHECK(xnvme_queue_drain(t->queue) >= 0);
		CHECK_EQ(d.ncalls, 1);
		*cpl = d.cpl;
		return 0;
	}
	*cpl = ctx->cpl;
	return err;
}

static void
pattern(uint8_t *buf, size_t nbytes, uint64_t seed)
{
	for (size_t i = 0; i < nbytes; ++i) {
		buf[i] = (uint8_t)((seed * 2654435761u + i * 31 + (i >> 9)) & 0xFF);
	}
}

static bool
ok_cpl(const struct xnvme_spec_cpl *cpl)
{
	return !cpl->status.sc && !cpl->status.sct;
}

static void
test_rw_sizes(struct target *t, uint8_t *wbuf, uint8_t *rbuf)
{
	uint32_t lba = t->geo->lba_nbytes;
	uint32_t max_nlb = t->geo->mdts_nbytes / lba;
	uint32_t sizes[] = {1, 2, 7, 8, max_nlb / 2, max_nlb};
	struct xnvme_spec_cpl cpl;

	if (max_nlb > 65536) {
		max_nlb = 65536;
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
		uint32_t n = sizes[i] ? sizes[i] : 1;
		uint64_t slba = (i * 997) % (t->geo->tbytes / lba - n);
		size_t nbytes = (size_t)n * lba;

		pattern(wbuf, nbytes, slba + n);
		CHECK_EQ(run(t, XNVME_SPEC_NVM_OPC_WRITE, slba, n - 1, wbuf, nbytes, NULL, 0, &cpl),
			 0);
		CHECK(ok_cpl(&cpl));
		memset(rbuf, 0, nbytes);
		CHECK_EQ(run(t, XNVME_SPEC_NVM_OPC_READ, slba, n - 1, rbuf, nbytes, NULL, 0, &cpl),
			 0);
		CHECK(ok_cpl(&cpl));
		if (t->moves_data) {
			CHECK_EQ(xnvme_buf_diff(wbuf, rbuf, nbytes), 0);
		}
	}
}

static void
test_vectored(struct target *t, uint8_t *wbuf, uint8_t *rbuf)
{
	uint32_t lba = t->geo->lba_nbytes;
	struct iovec iov[3] = {
		{wbuf, lba}, {wbuf + lba, 2 * (size_t)lba}, {wbuf + 3 * (size_t)lba, lba}};
	struct iovec riov = {rbuf, 4 * (size_t)lba};
	struct xnvme_spec_cpl cpl;
	int err;

	pattern(wbuf, 4 * (size_t)lba, 77);
	err = run(t, XNVME_SPEC_NVM_OPC_WRITE, 64, 3, NULL, 4 * (size_t)lba, iov, 3, &cpl);
	if (err == -ENOTSUP) { /* posix aio takes a single iovec, and says so */
		iov[0].iov_len = 4 * (size_t)lba;
		err = run(t, XNVME_SPEC_NVM_OPC_WRITE, 64, 3, NULL, 4 * (size_t)lba, iov, 1, &cpl);
	}
	CHECK_EQ(err, 0);
	CHECK(ok_cpl(&cpl));
	memset(rbuf, 0, 4 * (size_t)lba);
	CHECK_EQ(run(t, XNVME_SPEC_NVM_OPC_READ, 64, 3, NULL, 4 * (size_t)lba, &riov, 1, &cpl), 0);
	CHECK(ok_cpl(&cpl));
	if (t->moves_data) {
		CHECK_EQ(xnvme_buf_diff(wbuf, rbuf, 4 * (size_t)lba), 0);
	}
}

/* QDEPTH commands in flight at once, each on its own LBA, then all read back */
static void
test_in_flight(struct target *t, uint8_t *wbuf, uint8_t *rbuf)
{
	uint32_t lba = t->geo->lba_nbytes;
	struct done d[QDEPTH];

	if (!t->queue) {
		return;
	}
	for (int pass = 0; pass < 2; ++pass) {
		uint8_t opc = pass ? XNVME_SPEC_NVM_OPC_READ : XNVME_SPEC_NVM_OPC_WRITE;
		uint8_t *buf = pass ? rbuf : wbuf;

		if (!pass) {
			pattern(wbuf, (size_t)QDEPTH * lba, 4242);
		} else {
			memset(rbuf, 0, (size_t)QDEPTH * lba);
		}
		memset(d, 0, sizeof(d));
		for (int i = 0; i < QDEPTH; ++i) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(t->queue);

			CHECK(ctx);
			if (!ctx) {
				return;
			}
			memset(&ctx->cmd, 0, sizeof(ctx->cmd));
			xnvme_prep_nvm(ctx, opc, t->nsid, 1000 + i, 0);
			ctx->async.cb_arg = &d[i];
			CHECK_EQ(xnvme_cmd_pass(ctx, buf + (size_t)i * lba, lba, NULL, 0), 0);
		}
		CHECK_EQ(xnvme_queue_get_outstanding(t->queue), QDEPTH);
		CHECK_EQ(xnvme_queue_drain(t->queue), QDEPTH);
		for (int i = 0; i < QDEPTH; ++i) {
			CHECK_EQ(d[i].ncalls, 1);
			CHECK(ok_cpl(&d[i].cpl));
		}
	}
	if (t->moves_data) {
		CHECK_EQ(xnvme_buf_diff(wbuf, rbuf, (size_t)QDEPTH * lba), 0);
	}
}

static void
test_nvm_opcodes(struct target *t, uint8_t *wbuf, uint8_t *rbuf)
{
	uint32_t lba = t->geo->lba_nbytes;
	uint64_t nlbas = t->geo->tbytes / lba;
	struct xnvme_spec_cpl cpl;

	CHECK_EQ(run(t, XNVME_SPEC_NVM_OPC_FLUSH, 0, 0, NULL, 0, NULL, 0, &cpl), 0);
	CHECK(ok_cpl(&cpl));
	if (!t->any_opcode) {
		return;
	}

	pattern(wbuf, 2 * (size_t)lba, 9);
	CHECK_EQ(run(t, XNVME_SPEC_NVM_OPC_WRITE, 200, 1, wbuf, 2 * (size_t)lba, NULL, 0, &cpl), 0);
	CHECK_EQ(run(t, XNVME_SPEC_NVM_OPC_COMPARE, 200, 1, wbuf, 2 * (size_t)lba, NULL, 0, &cpl),
		 0);
	CHECK(ok_cpl(&cpl));
	wbuf[lba + 3] ^= 0xFF;
	run(t, XNVME_SPEC_NVM_OPC_COMPARE, 200, 1, wbuf, 2 * (size_t)lba, NULL, 0, &cpl);
	CHECK_EQ(cpl.status.sct, XNVME_STATUS_CODE_TYPE_MEDIA);
	CHECK_EQ(cpl.status.sc, 0x85);

	CHECK_EQ(run(t, XNVME_SPEC_NVM_OPC_WRITE_ZEROES, 200, 1, NULL, 0, NULL, 0, &cpl), 0);
	CHECK(ok_cpl(&cpl));
	memset(rbuf, 0xAA, 2 * (size_t)lba);
	CHECK_EQ(run(t, XNVME_SPEC_NVM_OPC_READ, 200, 1, rbuf, 2 * (size_t)lba, NULL, 0, &cpl), 0);
	memset(wbuf, 0, 2 * (size_t)lba);
	CHECK_EQ(xnvme_buf_diff(wbuf, rbuf, 2 * (size_t)lba), 0);

	/* the last LBA works, one past it is out of range, nothing written outside */
	CHECK_EQ(run(t, XNVME_SPEC_NVM_OPC_READ, nlbas - 1, 0, rbuf, lba, NULL, 0, &cpl), 0);
	CHECK(ok_cpl(&cpl));
	run(t, XNVME_SPEC_NVM_OPC_WRITE, nlbas - 1, 1, wbuf, 2 * (size_t)lba, NULL, 0, &cpl);
	CHECK_EQ(cpl.status.sct, XNVME_STATUS_CODE_TYPE_GENERIC);
	CHECK_EQ(cpl.status.sc, 0x80);
	run(t, XNVME_SPEC_NVM_OPC_READ, nlbas, 0, rbuf, lba, NULL, 0, &cpl);
	CHECK_EQ(cpl.status.sc, 0x80);

	/* an opcode the NVM command set does not define */
	run(t, 0x7F, 0, 0, NULL, 0, NULL, 0, &cpl);
	CHECK_EQ(cpl.status.sct, XNVME_STATUS_CODE_TYPE_GENERIC);
	CHECK_EQ(cpl.status.sc, 0x01);
}

static bool
mech_carries_any_opcode(const char *mech)
{
	const char *any[] = {"sync", "emu", "thrpool", "io_uring_cmd", "vfio"};

	for (size_t i = 0; i < sizeof(any) / sizeof(any[0]); ++i) {
		if (!strcmp(mech, any[i])) {
			return true;
		}
	}
	return false;
}

/* @return 1 when the combination ran, 0 when the device has no such mechanism */
static int
run_target(const char *uri, const char *mech, uint32_t nsid)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct target t = {.uri = uri, .mech = mech};
	uint8_t *wbuf, *rbuf;
	size_t bufsz;
	int nfail_before = xnvme_test_nfail;

	opts.async = strcmp(mech, "sync") ? mech : NULL;
	if (nsid) {
		opts.nsid = nsid; /* a namespace of a PCI function (vfio) */
	}
	t.dev = xnvme_dev_open(uri, &opts);
	if (!t.dev) {
		printf("  - {uri: '%s', mechanism: %s, ran: false, errno: %d}\n", uri, mech, errno);
		return 0;
	}
	t.geo = xnvme_dev_get_geo(t.dev);
	t.nsid = xnvme_dev_get_nsid(t.dev);
	t.moves_data = strcmp(mech, "nil") != 0;
	/* a fabrics target decides which opcodes it serves and how it reports a range error (the
	 * kernel's nvmet on a block device: no Compare, Internal Error past the end) */
	t.any_opcode = t.moves_data && mech_carries_any_opcode(mech) &&
		       xnvme_dev_get_csi(t.dev) == XNVME_SPEC_CSI_NVM &&
		       strcmp(xnvme_dev_get_opts(t.dev)->be, "tcp") &&
		       strcmp(xnvme_dev_get_opts(t.dev)->be, "rdma");

	bufsz = t.geo->mdts_nbytes > (size_t)QDEPTH * t.geo->lba_nbytes
			? t.geo->mdts_nbytes
			: (size_t)QDEPTH * t.geo->lba_nbytes;
	wbuf = xnvme_buf_alloc(t.dev, bufsz);
	rbuf = xnvme_buf_alloc(t.dev, bufsz);
	CHECK(wbuf && rbuf);
	if (strcmp(mech, "sync")) {
		CHECK_EQ(xnvme_queue_init(t.dev, QDEPTH, 0, &t.queue), 0);
		if (t.queue) {
			xnvme_queue_set_cb(t.queue, on_cpl, NULL);
		}
	}
	if (wbuf && rbuf && (t.queue || !strcmp(mech, "sync"))) {
		test_rw_sizes(&t, wbuf, rbuf);
		test_vectored(&t, wbuf, rbuf);
		test_in_flight(&t, wbuf, rbuf);
		test_nvm_opcodes(&t, wbuf, rbuf);
	}
	printf("  - {uri: '%s', mechanism: %s, ran: true, verified: %s, nvm_opcodes: %s, "
	       "failures: %d, nsid: %u}\n",
	       uri, mech, t.moves_data ? "true" : "false", t.any_opcode ? "true" : "false",
	       xnvme_test_nfail - nfail_before, t.nsid);
	xnvme_queue_term(t.queue);
	xnvme_buf_free(t.dev, wbuf);
	xnvme_buf_free(t.dev, rbuf);
	xnvme_dev_close(t.dev);
	return 1;
}

int
main(int argc, char **argv)
{
	const char *uris[MAX_ARGS], *mechs[MAX_ARGS];
	const char *default_mechs[] = {"sync", "emu", "thrpool", OS_MECHS, "nil"};
	int nuris = 0, nmechs = 0, nran = 0;
	uint32_t nsid = 0;
	char path[] = "/tmp/xnvme-test-matrix-XXXXXX";
	int fd = -1;

	for (int i = 1; i + 1 < argc && nuris < MAX_ARGS && nmechs < MAX_ARGS; i += 2) {
		if (!strcmp(argv[i], "--uri")) {
			uris[nuris++] = argv[i + 1];
		} else if (!strcmp(argv[i], "--mech")) {
			mechs[nmechs++] = argv[i + 1];
		} else if (!strcmp(argv[i], "--nsid")) {
			nsid = (uint32_t)strtoul(argv[i + 1], NULL, 0);
		} else {
			fprintf(stderr, "usage: %s [--uri URI ...] [--mech NAME ...] [--nsid N]\n",
				argv[0]);
			return 1;
		}
	}
	if (!nuris) {
		fd = mkstemp(path);
		if (fd < 0 || ftruncate(fd, 64 << 20)) {
			perror("temporary file");
			return 1;
		}
		/* closed before the opens: Windows refuses to share a file mkstemp() holds */
		close(fd);
		uris[nuris++] = "1GB";
		uris[nuris++] = path;
	}
	if (!nmechs) {
		for (size_t i = 0; i < sizeof(default_mechs) / sizeof(default_mechs[0]); ++i) {
			mechs[nmechs++] = default_mechs[i];
		}
	}

	printf("test_matrix:\n");
	for (int u = 0; u < nuris; ++u) {
		int nran_uri = 0;

		for (int m = 0; m < nmechs; ++m) {
			nran_uri += run_target(uris[u], mechs[m], nsid);
		}
		/* the temporary file is the OS backend's own: it must open with some mechanism */
		CHECK(nran_uri > 0 || fd < 0 || uris[u] != path);
		nran += nran_uri;
	}
	if (fd >= 0) {
		unlink(path);
	}
	if (!nran) {
		return XNVME_TEST_SKIP;
	}
	return xnvme_test_result("test_matrix");
}
