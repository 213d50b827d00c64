// SPDX-License-Identifier: BSD-3-Clause
/*
 * Edge cases of vectored commands on the ramdisk, synchronous and through every async
 * mechanism it offers (xnvme_cmd_passv()): iovec elements of zero bytes with a NULL base are
 * skipped, never handed to memcpy()/memcmp() (which UBSan reports even for zero lengths); an
 * element with a NULL base and a non-zero length is refused with -EINVAL (a completion of
 * status EINVAL through a queue) and leaves the device unchanged. NVM Read/Write/Compare and
 * the byte-addressed file opcodes take different copy paths of the ramdisk; both are covered.
 */
#include <errno.h>
#include <libxnvme.h>

#include "xnvme_test.h"

#define LBA 512
#define NLBAS 8
#define NBYTES (NLBAS * LBA)
#define QDEPTH 4

static const char *const g_async[] = {"thrpool", "emu", "nil"};

static struct xnvme_dev *
rd_open(const char *async)
{
	struct xnvme_opts opts = xnvme_opts_default();

	opts.be = "ramdisk";
	opts.async = async;
	return xnvme_test_open("1GB", &opts);
}

static void
fill(uint8_t *buf, size_t nbytes, unsigned int seed)
{
	for (size_t i = 0; i < nbytes; ++i) {
		buf[i] = (uint8_t)(i * 7 + seed * 31 + (i >> 9));
	}
}

/* Prepares `ctx` for `opc` of NBYTES at the start of the namespace (LBAs, or bytes for files) */
static void
prep(struct xnvme_dev *dev, struct xnvme_cmd_ctx *ctx, uint8_t opc)
{
	bool fs = opc == XNVME_SPEC_FS_OPC_WRITE || opc == XNVME_SPEC_FS_OPC_READ;

	ctx->cmd.common.opcode = opc;
	ctx->cmd.common.nsid = xnvme_dev_get_nsid(dev);
	ctx->cmd.nvm.slba = 0;
	ctx->cmd.nvm.nlb = fs ? 0 : NLBAS - 1;
}

/* Data split over non-empty pieces with zero-length NULL-base elements around and between */
static size_t
iov_holey(struct iovec *iov, uint8_t *buf)
{
	size_t n = 0;

	iov[n++] = (struct iovec){NULL, 0};
	iov[n++] = (struct iovec){buf, 1000};
	iov[n++] = (struct iovec){NULL, 0};
	iov[n++] = (struct iovec){NULL, 0};
	iov[n++] = (struct iovec){buf + 1000, NBYTES - 1000};
	iov[n++] = (struct iovec){NULL, 0};
	return n;
}

/* The same data with one element of a NULL base and a non-zero length */
static size_t
iov_bad(struct iovec *iov, uint8_t *buf)
{
	size_t n = 0;

	iov[n++] = (struct iovec){buf, 1024};
	iov[n++] = (struct iovec){NULL, 1024};
	iov[n++] = (struct iovec){buf + 2048, NBYTES - 2048};
	return n;
}

static int
sync_passv(struct xnvme_dev *dev, uint8_t opc, struct iovec *iov, size_t cnt,
	   struct xnvme_cmd_ctx *ctx)
{
	*ctx = xnvme_cmd_ctx_from_dev(dev);
	prep(dev, ctx, opc);
	return xnvme_cmd_passv(ctx, iov, cnt, NBYTES, NULL, 0, 0);
}

static void
test_sync(void)
{
	struct xnvme_dev *dev = rd_open(NULL);
	const uint8_t opcs[][2] = {
		{XNVME_SPEC_NVM_OPC_WRITE, XNVME_SPEC_NVM_OPC_READ},
		{XNVME_SPEC_FS_OPC_WRITE, XNVME_SPEC_FS_OPC_READ},
	};
	struct iovec iov[8];
	struct xnvme_cmd_ctx ctx;
	uint8_t *wbuf, *rbuf;
	size_t cnt;
	int err;

	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	wbuf = xnvme_buf_alloc(dev, NBYTES);
	rbuf = xnvme_buf_alloc(dev, NBYTES);
	CHECK(wbuf && rbuf);
	if (!wbuf || !rbuf) {
		goto exit;
	}

	for (size_t k = 0; k < sizeof(opcs) / sizeof(opcs[0]); ++k) {
		/* zero-length NULL-base elements: the data moves around them */
		fill(wbuf, NBYTES, (unsigned int)k + 1);
		cnt = iov_holey(iov, wbuf);
		err = sync_passv(dev, opcs[k][0], iov, cnt, &ctx);
		CHECK_OK(err, ctx);

		memset(rbuf, 0, NBYTES);
		cnt = iov_holey(iov, rbuf);
		err = sync_passv(dev, opcs[k][1], iov, cnt, &ctx);
		CHECK_OK(err, ctx);
		CHECK(!memcmp(wbuf, rbuf, NBYTES));
		if (opcs[k][1] == XNVME_SPEC_FS_OPC_READ) {
			CHECK_EQ(ctx.cpl.result, NBYTES);
		}

		/* Compare walks the vector too */
		if (opcs[k][0] == XNVME_SPEC_NVM_OPC_WRITE) {
			cnt = iov_holey(iov, wbuf);
			err = sync_passv(dev, XNVME_SPEC_NVM_OPC_COMPARE, iov, cnt, &ctx);
			CHECK_OK(err, ctx);
		}

		/* only empty elements: a write of nothing through the file opcodes */
		if (opcs[k][0] == XNVME_SPEC_FS_OPC_WRITE) {
			iov[0] = (struct iovec){NULL, 0};
			iov[1] = (struct iovec){NULL, 0};
			ctx = xnvme_cmd_ctx_from_dev(dev);
			prep(dev, &ctx, XNVME_SPEC_FS_OPC_WRITE);
			err = xnvme_cmd_passv(&ctx, iov, 2, 0, NULL, 0, 0);
			CHECK_OK(err, ctx);
			CHECK_EQ(ctx.cpl.result, 0);
		}

		/* a NULL base of non-zero length: -EINVAL, and nothing written */
		memset(rbuf, 0xAB, NBYTES);
		cnt = iov_bad(iov, rbuf);
		err = sync_passv(dev, opcs[k][0], iov, cnt, &ctx);
		CHECK_EQ(err, -EINVAL);
		cnt = iov_bad(iov, rbuf);
		err = sync_passv(dev, opcs[k][1], iov, cnt, &ctx);
		CHECK_EQ(err, -EINVAL);
		CHECK(rbuf[0] == 0xAB && rbuf[NBYTES - 1] == 0xAB);

		memset(rbuf, 0, NBYTES);
		cnt = iov_holey(iov, rbuf);
		err = sync_passv(dev, opcs[k][1], iov, cnt, &ctx);
		CHECK_OK(err, ctx);
		CHECK(!memcmp(wbuf, rbuf, NBYTES));
	}

exit:
	xnvme_buf_free(dev, rbuf);
	xnvme_buf_free(dev, wbuf);
	xnvme_dev_close(dev);
}

struct cb_state {
	int ncpl;
	struct xnvme_spec_cpl cpl;
};

static void
cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct cb_state *st = arg;

	st->ncpl++;
	st->cpl = ctx->cpl;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* Submits one vectored command through `queue` and reaps it; returns the submission's error */
static int
async_passv(struct xnvme_dev *dev, struct xnvme_queue *queue, uint8_t opc, struct iovec *iov,
	    size_t cnt, struct cb_state *st)
{
	struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(queue);
	int err;

	memset(st, 0, sizeof(*st));
	if (!ctx) {
		return -ENOMEM;
	}
	xnvme_cmd_ctx_set_cb(ctx, cb, st);
	prep(dev, ctx, opc);
	err = xnvme_cmd_passv(ctx, iov, cnt, NBYTES, NULL, 0, 0);
	if (err) {
		xnvme_queue_put_cmd_ctx(queue, ctx);
		return err;
	}
	CHECK(xnvme_queue_drain(queue) >= 0);
	CHECK_EQ(st->ncpl, 1);
	return 0;
}

static bool
cpl_ok(const struct xnvme_spec_cpl *cpl)
{
	return !cpl->status.sct && !cpl->status.sc;
}

static void
test_async(const char *mech)
{
	struct xnvme_dev *dev = rd_open(mech);
	bool nil = !strcmp(mech, "nil");
	struct xnvme_queue *queue = NULL;
	struct iovec iov[8];
	struct cb_state st;
	uint8_t *wbuf = NULL, *rbuf = NULL;
	size_t cnt;
	int err;

	CHECK(dev != NULL);
	if (!dev) {
		fprintf(stderr, "  async mechanism %s\n", mech);
		return;
	}
	err = xnvme_queue_init(dev, QDEPTH, 0, &queue);
	CHECK_EQ(err, 0);
	wbuf = xnvme_buf_alloc(dev, NBYTES);
	rbuf = xnvme_buf_alloc(dev, NBYTES);
	CHECK(wbuf && rbuf);
	if (err || !wbuf || !rbuf) {
		goto exit;
	}

	fill(wbuf, NBYTES, 9);
	cnt = iov_holey(iov, wbuf);
	CHECK_EQ(async_passv(dev, queue, XNVME_SPEC_NVM_OPC_WRITE, iov, cnt, &st), 0);
	CHECK(cpl_ok(&st.cpl));

	memset(rbuf, 0, NBYTES);
	cnt = iov_holey(iov, rbuf);
	CHECK_EQ(async_passv(dev, queue, XNVME_SPEC_NVM_OPC_READ, iov, cnt, &st), 0);
	CHECK(cpl_ok(&st.cpl));
	if (!nil) { /* nil completes without moving data */
		CHECK(!memcmp(wbuf, rbuf, NBYTES));
	}

	cnt = iov_holey(iov, rbuf);
	CHECK_EQ(async_passv(dev, queue, XNVME_SPEC_FS_OPC_READ, iov, cnt, &st), 0);
	CHECK(cpl_ok(&st.cpl));

	/*
	 * A NULL base of non-zero length: refused at submission with -EINVAL, or completed with
	 * the status of EINVAL; nil touches no data, so for it only the absence of a crash counts
	 */
	memset(rbuf, 0xAB, NBYTES);
	cnt = iov_bad(iov, rbuf);
	err = async_passv(dev, queue, XNVME_SPEC_NVM_OPC_WRITE, iov, cnt, &st);
	if (!nil) {
		CHECK(err == -EINVAL || (st.cpl.status.sct == XNVME_STATUS_CODE_TYPE_VENDOR &&
					 st.cpl.status.sc == EINVAL));
	}
	cnt = iov_bad(iov, rbuf);
	err = async_passv(dev, queue, XNVME_SPEC_FS_OPC_READ, iov, cnt, &st);
	if (!nil) {
		CHECK(err == -EINVAL || (st.cpl.status.sct == XNVME_STATUS_CODE_TYPE_VENDOR &&
					 st.cpl.status.sc == EINVAL));
	}
	CHECK(rbuf[0] == 0xAB && rbuf[NBYTES - 1] == 0xAB);

	if (!nil) { /* the refused write changed nothing */
		memset(rbuf, 0, NBYTES);
		cnt = iov_holey(iov, rbuf);
		CHECK_EQ(async_passv(dev, queue, XNVME_SPEC_NVM_OPC_READ, iov, cnt, &st), 0);
		CHECK(cpl_ok(&st.cpl));
		CHECK(!memcmp(wbuf, rbuf, NBYTES));
	}

exit:
	if (queue) {
		xnvme_queue_term(queue);
	}
	xnvme_buf_free(dev, rbuf);
	xnvme_buf_free(dev, wbuf);
	xnvme_dev_close(dev);
	if (xnvme_test_nfail) {
		fprintf(stderr, "  (failures so far; last async mechanism %s)\n", mech);
	}
}

int
main(void)
{
	test_sync();
	for (size_t i = 0; i < sizeof(g_async) / sizeof(g_async[0]); ++i) {
		test_async(g_async[i]);
	}
	return xnvme_test_result("iovec_edge");
}
