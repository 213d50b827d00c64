// SPDX-License-Identifier: BSD-3-Clause
/*
 * Metadata over the "tcp" backend, against the test target (tests/tcp_target.c). NVMe over
 * Fabrics moves metadata only interleaved with the data (extended LBAs):
 *  - a namespace that reports separate metadata (FLBAS bit 4 clear) is refused at open with
 *    ENOTSUP, and xnvme_last_error() names the reason;
 *  - a namespace of 512 + 8 byte extended LBAs with PI type 1: the geometry says so, blocks
 *    whose PI xnvme_pi_generate() wrote read back equal and pass xnvme_pi_verify(), a flipped
 *    data byte fails it, and a separate metadata buffer is refused with -ENOTSUP on the sync
 *    and the async path.
 */
#include <stdio.h>
#include <string.h>

#include <libxnvme_pi.h>

#include "tcp_target.h"
#include "xnvme_test.h"

#define SUBNQN "nqn.2024-01.io.xnvme:md"
#define NLB 8U
#define LBA (512U + 8U)

static struct xnvme_dev *
open_tt(const struct tt_cfg *cfg, struct tt **tt)
{
	struct xnvme_opts opts = xnvme_opts_default();
	uint16_t port;
	char uri[64];

	*tt = tt_start(cfg, &port);
	snprintf(uri, sizeof(uri), "127.0.0.1:%u", port);
	opts.subnqn = SUBNQN;
	return xnvme_dev_open(uri, &opts);
}

static void
separate(void)
{
	struct tt_cfg cfg = {.nlbas = 1024,
			     .maxh2cdata = 16384,
			     .icd_nbytes = 4096,
			     .c2h_chunk = 8192,
			     .ms = 8,
			     .ms_separate = 1};
	struct tt *tt;
	struct xnvme_dev *dev;

	errno = 0;
	dev = open_tt(&cfg, &tt);
	CHECK(dev == NULL);
	CHECK_EQ(errno, ENOTSUP);
	CHECK(strstr(xnvme_last_error(), "separate") != NULL);
	CHECK(strstr(xnvme_last_error(), "extended LBA") != NULL);
	printf("separate metadata: %s\n", xnvme_last_error());
	xnvme_dev_close(dev);
	tt_stop(tt);
}

static void
extended(void)
{
	struct tt_cfg cfg = {
		.nlbas = 1024, .maxh2cdata = 16384, .icd_nbytes = 4096, .c2h_chunk = 8192, .ms = 8};
	const struct xnvme_geo *geo;
	struct xnvme_pi_ctx pi;
	struct xnvme_queue *q = NULL;
	struct xnvme_cmd_ctx ctx;
	struct tt *tt;
	struct xnvme_dev *dev = open_tt(&cfg, &tt);
	uint8_t *wbuf = NULL, *rbuf = NULL, md[NLB * 8];
	int err;

	CHECK(dev != NULL);
	if (!dev) {
		fprintf(stderr, "open: %s\n", xnvme_last_error());
		tt_stop(tt);
		return;
	}
	geo = xnvme_dev_get_geo(dev);
	CHECK_EQ(geo->lba_nbytes, LBA);
	CHECK_EQ(geo->nbytes_oob, 8);
	CHECK_EQ(geo->lba_extended, 1);
	wbuf = xnvme_buf_alloc(dev, NLB * LBA);
	rbuf = xnvme_buf_alloc(dev, NLB * LBA);
	CHECK(wbuf && rbuf);
	if (!wbuf || !rbuf) {
		goto out;
	}
	for (uint32_t i = 0; i < NLB * LBA; ++i) {
		wbuf[i] = (uint8_t)(i * 7 + 3);
	}
	/* PI type 1 in the last 8 bytes of each block, reference tag = LBA (16) */
	CHECK_EQ(xnvme_pi_ctx_init(&pi, LBA, 8, true, false, XNVME_PI_TYPE1,
				   XNVME_PI_FLAGS_GUARD_CHECK | XNVME_PI_FLAGS_REFTAG_CHECK, 16, 0,
				   0, XNVME_SPEC_NVM_NS_16B_GUARD),
		 0);
	xnvme_pi_generate(&pi, wbuf, NULL, NLB);
	CHECK_EQ(xnvme_pi_verify(&pi, wbuf, NULL, NLB), 0);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write(&ctx, 1, 16, NLB - 1, wbuf, NULL);
	CHECK_OK(err, ctx);
	memset(rbuf, 0, NLB * LBA);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, 1, 16, NLB - 1, rbuf, NULL);
	CHECK_OK(err, ctx);
	CHECK(!memcmp(wbuf, rbuf, NLB * LBA));
	CHECK_EQ(xnvme_pi_verify(&pi, rbuf, NULL, NLB), 0);
	rbuf[LBA + 5] ^= 0x10; /* data of block 1: its guard no longer matches */
	CHECK_EQ(xnvme_pi_verify(&pi, rbuf, NULL, NLB), -EIO);

	/* a separate metadata buffer has no place in a capsule */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_read(&ctx, 1, 16, NLB - 1, rbuf, md), -ENOTSUP);
	CHECK_EQ(xnvme_queue_init(dev, 4, 0, &q), 0);
	if (q) {
		struct xnvme_cmd_ctx *actx;

		xnvme_queue_set_cb(q, NULL, NULL);
		actx = xnvme_queue_get_cmd_ctx(q);
		xnvme_prep_nvm(actx, XNVME_SPEC_NVM_OPC_READ, 1, 16, NLB - 1);
		CHECK_EQ(xnvme_cmd_pass(actx, rbuf, NLB * LBA, md, sizeof(md)), -ENOTSUP);
		xnvme_queue_put_cmd_ctx(q, actx);
		/* the queue is not harmed: the same read without it works */
		actx = xnvme_queue_get_cmd_ctx(q);
		xnvme_prep_nvm(actx, XNVME_SPEC_NVM_OPC_READ, 1, 16, NLB - 1);
		memset(rbuf, 0, NLB * LBA);
		CHECK_EQ(xnvme_cmd_pass(actx, rbuf, NLB * LBA, NULL, 0), 0);
		CHECK_EQ(xnvme_queue_drain(q), 1);
		CHECK_EQ(xnvme_cmd_ctx_cpl_status(actx), 0);
		CHECK(!memcmp(wbuf, rbuf, NLB * LBA));
		xnvme_queue_put_cmd_ctx(q, actx);
		xnvme_queue_term(q);
	}
out:
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
	xnvme_dev_close(dev);
	tt_stop(tt);
}

int
main(void)
{
	separate();
	extended();
	return xnvme_test_result("test_tcp_md");
}
