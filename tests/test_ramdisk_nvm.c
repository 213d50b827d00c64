// SPDX-License-Identifier: BSD-3-Clause
/*
 * The ramdisk backend's data path through the public API: every NVM opcode (read, write,
 * compare, write uncorrectable, dataset management, write zeroes, simple copy) with its NVMe
 * error statuses, the file opcodes, persistence across handles and transfers of MDTS. The
 * device, its admin side and its queues: test_ramdisk_dev.c.
 */
#include "ramdisk_common.h"

static void
test_rw(struct xnvme_dev *dev)
{
	const uint16_t nlbs[] = {0, 1, 7, 8, 127, 255, MDTS_NLB - 1};
	const uint64_t slbas[] = {0, 1, 4095, 1000003, NSZE_1G - MDTS_NLB};
	struct xnvme_cmd_ctx ctx;
	unsigned int seed = 1;
	uint8_t *buf;
	struct iovec iov[3];
	int err;

	for (size_t i = 0; i < sizeof(nlbs) / sizeof(nlbs[0]); ++i) {
		for (size_t j = 0; j < sizeof(slbas) / sizeof(slbas[0]); ++j, ++seed) {
			err = write_lbas(dev, slbas[j], (size_t)nlbs[i] + 1, seed);
			CHECK_EQ(err, 0);
			CHECK_EQ(read_lbas(dev, slbas[j], (size_t)nlbs[i] + 1, seed, NULL), 0);
		}
	}
	/* last LBA */
	CHECK_EQ(write_lbas(dev, NSZE_1G - 1, 1, 77), 0);
	CHECK_EQ(read_lbas(dev, NSZE_1G - 1, 1, 77, NULL), 0);

	/* never-written LBAs read as zeroes */
	CHECK_EQ(read_lbas(dev, 500000, 16, 0, NULL), 1);

	/* vectored, uneven iovecs */
	buf = xnvme_buf_alloc(dev, 8 * LBA);
	if (!buf) {
		CHECK(buf != NULL);
		return;
	}
	fill(buf, 7000, 8, 9);
	iov[0].iov_base = buf;
	iov[0].iov_len = 100;
	iov[1].iov_base = buf + 100;
	iov[1].iov_len = 3000;
	iov[2].iov_base = buf + 3100;
	iov[2].iov_len = 8 * LBA - 3100;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_WRITE, 1, 7000, 7);
	err = xnvme_cmd_pass_iov(&ctx, iov, 3, 8 * LBA, NULL, 0);
	CHECK_OK(err, ctx);
	CHECK_EQ(read_lbas(dev, 7000, 8, 9, NULL), 0);

	memset(buf, 0, 8 * LBA);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, 1, 7000, 7);
	err = xnvme_cmd_passv(&ctx, iov, 3, 8 * LBA, NULL, 0, 0);
	CHECK_OK(err, ctx);
	CHECK_EQ(verify(buf, 7000, 8, 9), 0);

	/* iovecs shorter than the transfer are refused, nothing beyond them is touched */
	iov[2].iov_len = 8 * LBA - 3100 - 1;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, 1, 7000, 7);
	err = xnvme_cmd_pass_iov(&ctx, iov, 3, 8 * LBA, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);

	/* flush, also broadcast */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_FLUSH, 1, 0, 0);
	err = xnvme_cmd_pass(&ctx, NULL, 0, NULL, 0);
	CHECK_OK(err, ctx);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_FLUSH, 0xFFFFFFFF, 0, 0);
	err = xnvme_cmd_pass(&ctx, NULL, 0, NULL, 0);
	CHECK_OK(err, ctx);

	xnvme_buf_free(dev, buf);
}

static void
test_rw_errors(struct xnvme_dev *dev)
{
	uint8_t *buf = xnvme_buf_alloc(dev, MDTS_NBYTES + LBA);
	struct xnvme_cmd_ctx ctx;
	int err;

	if (!buf) {
		CHECK(buf != NULL);
		return;
	}

	/* LBA out of range: past the end, straddling the end, 64-bit wrap */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, 1, NSZE_1G, 0, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x80);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write(&ctx, 1, NSZE_1G - 1, 1, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x80);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, 1, UINT64_MAX, 1, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x80);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write_zeroes(&ctx, 1, NSZE_1G - 2, 2);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x80);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write_uncorrectable(&ctx, 1, NSZE_1G, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x80);

	/* beyond MDTS */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write(&ctx, 1, 0, MDTS_NLB, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);

	/* invalid namespace */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, 2, 0, 0, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x0B);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write(&ctx, 0xFFFFFFFF, 0, 0, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x0B);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, 0, 0, 0, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x0B);

	/* invalid opcode */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, 0x7F, 1, 0, 0);
	err = xnvme_cmd_pass(&ctx, buf, LBA, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x01);

	/* buffer missing or shorter than the transfer */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, 1, 0, 0, NULL, NULL);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, 1, 0, 1);
	err = xnvme_cmd_pass(&ctx, buf, LBA, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_WRITE, 1, 0, 0);
	err = xnvme_cmd_pass(&ctx, NULL, LBA, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);

	/* a stale status never survives into the next successful completion */
	err = xnvme_nvm_read(&ctx, 1, 0, 0, buf, NULL);
	CHECK_OK(err, ctx);

	xnvme_buf_free(dev, buf);
}

static void
test_compare(struct xnvme_dev *dev)
{
	uint8_t *buf = xnvme_buf_alloc(dev, 4 * LBA);
	struct xnvme_cmd_ctx ctx;
	int err;

	if (!buf) {
		CHECK(buf != NULL);
		return;
	}
	CHECK_EQ(write_lbas(dev, 9000, 4, 3), 0);
	fill(buf, 9000, 4, 3);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_compare(&ctx, 1, 9000, 3, buf, NULL);
	CHECK_OK(err, ctx);

	buf[3 * LBA + 511] ^= 0x1;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_compare(&ctx, 1, 9000, 3, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_MEDIA, 0x85);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_compare(&ctx, 1, NSZE_1G, 0, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x80);
	xnvme_buf_free(dev, buf);
}

static void
test_write_uncorrectable(struct xnvme_dev *dev)
{
	struct xnvme_spec_dsm_range *range = xnvme_buf_alloc(dev, sizeof(*range));
	uint8_t *buf = xnvme_buf_alloc(dev, 4 * LBA);
	struct xnvme_cmd_ctx ctx;
	int err;

	if (!buf || !range) {
		CHECK(buf && range);
		return;
	}
	CHECK_EQ(write_lbas(dev, 100, 4, 5), 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write_uncorrectable(&ctx, 1, 101, 1);
	CHECK_OK(err, ctx);

	/* reads overlapping marked LBAs fail; neighbours are fine */
	CHECK_EQ(read_lbas(dev, 100, 1, 5, NULL), 0);
	CHECK_EQ(read_lbas(dev, 103, 1, 5, NULL), 0);
	err = read_lbas(dev, 100, 4, 5, &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_MEDIA, 0x81);
	err = read_lbas(dev, 102, 1, 5, &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_MEDIA, 0x81);
	fill(buf, 101, 1, 5);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_compare(&ctx, 1, 101, 0, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_MEDIA, 0x81);

	/* a write clears LBA 101; Write Zeroes clears LBA 102 */
	CHECK_EQ(write_lbas(dev, 101, 1, 6), 0);
	CHECK_EQ(read_lbas(dev, 101, 1, 6, NULL), 0);
	err = read_lbas(dev, 102, 1, 5, &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_MEDIA, 0x81);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write_zeroes(&ctx, 1, 102, 0);
	CHECK_OK(err, ctx);
	CHECK_EQ(read_lbas(dev, 102, 1, 0, NULL), 1);
	CHECK_EQ(read_lbas(dev, 103, 1, 5, NULL), 0);

	/* deallocation clears too, across 64-bit bitmap words */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write_uncorrectable(&ctx, 1, 200, 199);
	CHECK_OK(err, ctx);
	range->cattr = 0;
	range->slba = 250;
	range->llb = 100;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_dsm(&ctx, 1, range, 0, true, false, false);
	CHECK_OK(err, ctx);
	CHECK_EQ(read_lbas(dev, 250, 100, 0, NULL), 1);
	err = read_lbas(dev, 249, 1, 0, &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_MEDIA, 0x81);
	err = read_lbas(dev, 350, 1, 0, &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_MEDIA, 0x81);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write_zeroes(&ctx, 1, 200, 199);
	CHECK_OK(err, ctx);
	CHECK_EQ(read_lbas(dev, 200, 200, 0, NULL), 1);

	xnvme_buf_free(dev, buf);
	xnvme_buf_free(dev, range);
}

static void
test_dsm_write_zeroes(struct xnvme_dev *dev)
{
	struct xnvme_spec_dsm_range *ranges = xnvme_buf_alloc(dev, 2 * sizeof(*ranges));
	uint8_t *buf = xnvme_buf_alloc(dev, 16 * LBA);
	struct xnvme_cmd_ctx ctx;
	struct iovec iov;
	int err;

	if (!buf || !ranges) {
		CHECK(buf && ranges);
		return;
	}
	CHECK_EQ(write_lbas(dev, 1000, 16, 11), 0);

	/* two ranges, one of them empty */
	ranges[0].cattr = 0;
	ranges[0].slba = 1004;
	ranges[0].llb = 4;
	ranges[1].cattr = 0;
	ranges[1].slba = 0;
	ranges[1].llb = 0;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_dsm(&ctx, 1, ranges, 1, true, false, false);
	CHECK_OK(err, ctx);
	CHECK_EQ(read_lbas(dev, 1000, 4, 11, NULL), 0);
	CHECK_EQ(read_lbas(dev, 1004, 4, 0, NULL), 1);
	CHECK_EQ(read_lbas(dev, 1008, 8, 11, NULL), 0);

	/* without AD the attributes are hints only */
	ranges[0].slba = 1008;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_dsm(&ctx, 1, ranges, 0, false, true, true);
	CHECK_OK(err, ctx);
	CHECK_EQ(read_lbas(dev, 1008, 4, 11, NULL), 0);

	/* the generic path with the LBA-range size as byte count (fio's trim) */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT, 1, 1008, 3);
	ctx.cmd.dsm.nr = 0;
	ctx.cmd.dsm.ad = 1;
	iov.iov_base = ranges;
	iov.iov_len = sizeof(*ranges);
	err = xnvme_cmd_passv(&ctx, &iov, 1, 4 * LBA, NULL, 0, 0);
	CHECK_OK(err, ctx);
	CHECK_EQ(read_lbas(dev, 1008, 4, 0, NULL), 1);
	CHECK_EQ(read_lbas(dev, 1012, 4, 11, NULL), 0);

	/* a range list longer than the buffer, a range past the end */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT, 1, 0, 0);
	ctx.cmd.dsm.nr = 1;
	ctx.cmd.dsm.ad = 1;
	err = xnvme_cmd_passv(&ctx, &iov, 1, 16 * LBA, NULL, 0, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);
	ranges[0].slba = NSZE_1G - 2;
	ranges[0].llb = 3;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_dsm(&ctx, 1, ranges, 0, true, false, false);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x80);

	/* a large deallocation: 256 MiB */
	CHECK_EQ(write_lbas(dev, 600000, 16, 12), 0);
	ranges[0].slba = 600001;
	ranges[0].llb = 1 << 19;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_dsm(&ctx, 1, ranges, 0, true, false, false);
	CHECK_OK(err, ctx);
	CHECK_EQ(read_lbas(dev, 600000, 1, 12, NULL), 0);
	CHECK_EQ(read_lbas(dev, 600001, 15, 0, NULL), 1);

	/* Write Zeroes ignores a data buffer passed along */
	CHECK_EQ(write_lbas(dev, 3000, 16, 13), 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_WRITE_ZEROES, 1, 3002, 9);
	err = xnvme_cmd_pass(&ctx, buf, 16 * LBA, NULL, 0);
	CHECK_OK(err, ctx);
	CHECK_EQ(read_lbas(dev, 3000, 2, 13, NULL), 0);
	CHECK_EQ(read_lbas(dev, 3002, 10, 0, NULL), 1);
	CHECK_EQ(read_lbas(dev, 3012, 4, 13, NULL), 0);

	xnvme_buf_free(dev, buf);
	xnvme_buf_free(dev, ranges);
}

static void
test_scopy(struct xnvme_dev *dev)
{
	struct xnvme_spec_nvm_scopy_source_range *src = xnvme_buf_alloc(dev, sizeof(*src));
	uint8_t *buf = xnvme_buf_alloc(dev, 6 * LBA);
	struct xnvme_cmd_ctx ctx;
	int err;

	if (!buf || !src) {
		CHECK(buf && src);
		return;
	}
	memset(src, 0, sizeof(*src));
	CHECK_EQ(write_lbas(dev, 20000, 4, 21), 0);
	CHECK_EQ(write_lbas(dev, 30000, 2, 22), 0);

	src->entry[0].slba = 20000;
	src->entry[0].nlb = 3;
	src->entry[1].slba = 30000;
	src->entry[1].nlb = 1;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_scopy(&ctx, 1, 50000, src->entry, 1, XNVME_NVM_SCOPY_FMT_ZERO);
	CHECK_OK(err, ctx);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, 1, 50000, 5, buf, NULL);
	CHECK_OK(err, ctx);
	{
		uint8_t *exp = xnvme_buf_alloc(dev, 6 * LBA);

		if (exp) {
			fill(exp, 20000, 4, 21);
			fill(exp + 4 * LBA, 30000, 2, 22);
			CHECK(!memcmp(buf, exp, 6 * LBA));
			ctx = xnvme_cmd_ctx_from_dev(dev);
			err = xnvme_nvm_compare(&ctx, 1, 50000, 5, exp, NULL);
			CHECK_OK(err, ctx);
			xnvme_buf_free(dev, exp);
		}
	}

	/* limits: MSSRL, MCL, MSRC */
	src->entry[0].nlb = 128;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_scopy(&ctx, 1, 50000, src->entry, 0, XNVME_NVM_SCOPY_FMT_ZERO);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, 0x83);
	src->entry[0].nlb = 100;
	src->entry[1].nlb = 30;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_scopy(&ctx, 1, 50000, src->entry, 1, XNVME_NVM_SCOPY_FMT_ZERO);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, 0x83);
	{
		struct xnvme_spec_nvm_scopy_fmt_zero *many = xnvme_buf_alloc(dev, 129 * 32);

		if (many) {
			memset(many, 0, 129 * 32);
			ctx = xnvme_cmd_ctx_from_dev(dev);
			err = xnvme_nvm_scopy(&ctx, 1, 50000, many, 128, XNVME_NVM_SCOPY_FMT_ZERO);
			CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, 0x83);
			xnvme_buf_free(dev, many);
		}
	}

	/* source and destination out of range */
	src->entry[0].slba = NSZE_1G - 1;
	src->entry[0].nlb = 1;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_scopy(&ctx, 1, 50000, src->entry, 0, XNVME_NVM_SCOPY_FMT_ZERO);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x80);
	src->entry[0].slba = 0;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_scopy(&ctx, 1, NSZE_1G - 1, src->entry, 0, XNVME_NVM_SCOPY_FMT_ZERO);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x80);

	xnvme_buf_free(dev, buf);
	xnvme_buf_free(dev, src);
}

static void
test_file_opcodes(struct xnvme_dev *dev)
{
	uint8_t *buf = xnvme_buf_alloc(dev, 4096);
	uint8_t *out = xnvme_buf_alloc(dev, 4096);
	struct xnvme_cmd_ctx ctx;
	int err;

	if (!buf || !out) {
		CHECK(buf && out);
		return;
	}
	for (int i = 0; i < 4096; ++i) {
		buf[i] = (uint8_t)(i * 13 + 1);
	}
	ctx = xnvme_file_get_cmd_ctx(dev);
	err = xnvme_file_pwrite(&ctx, buf, 1000, 12345);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.result, 1000);

	memset(out, 0, 4096);
	ctx = xnvme_file_get_cmd_ctx(dev);
	err = xnvme_file_pread(&ctx, out, 1000, 12345);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.result, 1000);
	CHECK(!memcmp(buf, out, 1000));

	/* short read at the end, nothing past it */
	ctx = xnvme_file_get_cmd_ctx(dev);
	err = xnvme_file_pread(&ctx, out, 1000, (off_t)((1ULL << 30) - 100));
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.result, 100);
	ctx = xnvme_file_get_cmd_ctx(dev);
	err = xnvme_file_pread(&ctx, out, 1000, (off_t)(1ULL << 30));
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.result, 0);

	/* a write cannot grow the device */
	ctx = xnvme_file_get_cmd_ctx(dev);
	err = xnvme_file_pwrite(&ctx, buf, 1000, (off_t)((1ULL << 30) - 100));
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x80);

	CHECK_EQ(xnvme_file_sync(dev), 0);

	xnvme_buf_free(dev, buf);
	xnvme_buf_free(dev, out);
}

/* Data is shared by handles of one URI and survives close while a handle stays open */
static void
test_persistence(void)
{
	struct xnvme_dev *a = rd_open("2GB", NULL);
	struct xnvme_dev *b = rd_open("2GB", "emu");
	struct xnvme_dev *c;

	CHECK(a && b);
	if (!a || !b) {
		xnvme_dev_close(a);
		xnvme_dev_close(b);
		return;
	}
	CHECK_EQ(write_lbas(a, (2ULL << 30) / LBA - 8, 8, 31), 0);
	CHECK_EQ(read_lbas(b, (2ULL << 30) / LBA - 8, 8, 31, NULL), 0);
	xnvme_dev_close(a);

	c = rd_open("2GB", NULL);
	CHECK(c != NULL);
	if (c) {
		CHECK_EQ(read_lbas(c, (2ULL << 30) / LBA - 8, 8, 31, NULL), 0);
		xnvme_dev_close(c);
	}
	/* a different URI is a different device */
	c = rd_open("3GB", NULL);
	CHECK(c != NULL);
	if (c) {
		CHECK_EQ(read_lbas(c, (2ULL << 30) / LBA - 8, 8, 0, NULL), 1);
		xnvme_dev_close(c);
	}
	xnvme_dev_close(b);

	/* the last close released the memory: a new ramdisk starts zeroed */
	c = rd_open("2GB", NULL);
	CHECK(c != NULL);
	if (c) {
		CHECK_EQ(read_lbas(c, (2ULL << 30) / LBA - 8, 8, 0, NULL), 1);
		xnvme_dev_close(c);
	}
}

/* A large ramdisk costs nothing until written */
static void
test_large(void)
{
	struct xnvme_dev *dev = rd_open("64GB", NULL);
	uint64_t nsze = (64ULL << 30) / LBA;

	if (!dev) {
		/* systems refusing the lazy mapping (strict overcommit) are not a failure */
		return;
	}
	CHECK_EQ(xnvme_dev_get_ns(dev)->nsze, nsze);
	CHECK_EQ(write_lbas(dev, nsze - 4, 4, 51), 0);
	CHECK_EQ(read_lbas(dev, nsze - 4, 4, 51, NULL), 0);
	CHECK_EQ(read_lbas(dev, nsze / 2, 4, 0, NULL), 1);
	xnvme_dev_close(dev);
}

int
main(void)
{
	struct xnvme_dev *dev;

	dev = rd_open("1GB", NULL);
	if (!dev) {
		fprintf(stderr, "cannot open the ramdisk\n");
		return 1;
	}
	test_rw(dev);
	test_rw_errors(dev);
	test_compare(dev);
	test_write_uncorrectable(dev);
	test_dsm_write_zeroes(dev);
	test_scopy(dev);
	test_file_opcodes(dev);
	xnvme_dev_close(dev);

	test_persistence();
	test_large();
	return xnvme_test_result("test_ramdisk_nvm");
}
