/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the ramdisk test programs share (test_ramdisk_nvm.c: the data path; test_ramdisk_dev.c:
 * the device, its admin side and its queues): the namespace's numbers, opening the ramdisk,
 * a per-LBA data pattern and synchronous writes and reads of it. Public API only.
 */
#ifndef XNVME_TEST_RAMDISK_COMMON_H
#define XNVME_TEST_RAMDISK_COMMON_H

#include <errno.h>
#include <pthread.h>
#include <libxnvme.h>

#include "xnvme_test.h"

#define LBA 512
#define MDTS_NBYTES (512 * 1024)
#define MDTS_NLB (MDTS_NBYTES / LBA)
#define NSZE_1G ((1ULL << 30) / LBA)

static inline struct xnvme_dev *
rd_open(const char *uri, const char *async)
{
	struct xnvme_opts opts = xnvme_opts_default();

	opts.be = "ramdisk";
	opts.async = async;
	return xnvme_test_open(uri, &opts);
}

/* Byte i of LBA `lba` under `seed`: distinct per LBA, per offset and per seed */
static inline uint8_t
pattern(uint64_t lba, size_t i, unsigned int seed)
{
	return (uint8_t)((lba * 131 + i * 7 + seed * 29 + (i >> 8)) & 0xFF);
}

static inline void
fill(uint8_t *buf, uint64_t slba, size_t nlbas, unsigned int seed)
{
	for (size_t l = 0; l < nlbas; ++l) {
		for (size_t i = 0; i < LBA; ++i) {
			buf[l * LBA + i] = pattern(slba + l, i, seed);
		}
	}
}

static inline int
verify(const uint8_t *buf, uint64_t slba, size_t nlbas, unsigned int seed)
{
	for (size_t l = 0; l < nlbas; ++l) {
		for (size_t i = 0; i < LBA; ++i) {
			if (buf[l * LBA + i] != pattern(slba + l, i, seed)) {
				return -1;
			}
		}
	}
	return 0;
}

static inline int
write_lbas(struct xnvme_dev *dev, uint64_t slba, size_t nlbas, unsigned int seed)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	uint8_t *buf = xnvme_buf_alloc(dev, nlbas * LBA);
	int err;

	if (!buf) {
		return -ENOMEM;
	}
	fill(buf, slba, nlbas, seed);
	err = xnvme_nvm_write(&ctx, 1, slba, (uint16_t)(nlbas - 1), buf, NULL);
	xnvme_buf_free(dev, buf);
	return err;
}

/* Reads and returns 0 when the data matches the pattern, 1 when all zero, -1 otherwise */
static inline int
read_lbas(struct xnvme_dev *dev, uint64_t slba, size_t nlbas, unsigned int seed,
	  struct xnvme_cmd_ctx *ctx_out)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	uint8_t *buf = xnvme_buf_alloc(dev, nlbas * LBA);
	int err;

	if (!buf) {
		return -ENOMEM;
	}
	memset(buf, 0xAA, nlbas * LBA);
	err = xnvme_nvm_read(&ctx, 1, slba, (uint16_t)(nlbas - 1), buf, NULL);
	if (!err) {
		err = !verify(buf, slba, nlbas, seed)
			      ? 0
			      : (xnvme_test_all_zero(buf, nlbas * LBA) ? 1 : -1);
	}
	if (ctx_out) {
		*ctx_out = ctx;
	}
	xnvme_buf_free(dev, buf);
	return err;
}

#endif /* XNVME_TEST_RAMDISK_COMMON_H */
