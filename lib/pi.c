/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * End-to-end protection information in software.
 *
 * Guards are CRC-16/T10-DIF (16-bit guard format) and the NVMe CRC-64 (64-bit guard format),
 * both computed slice-by-8 from tables built once on first use. PI tuples are big-endian on the
 * medium, so all tuple accesses go through byte-wise load/store helpers (no alignment or
 * host-endianness assumptions).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <libxnvme_pi.h>

#define CRC16_T10DIF_POLY 0x8BB7U
#define CRC64_NVME_POLY_REFLECTED 0x9A6C9329AC4BC9B5ULL

/* Offsets within a tuple; the 64-bit format splits its 48-bit reference tag at byte 10 */
#define PI16_APP_OFS 2
#define PI16_REF_OFS 4
#define PI64_APP_OFS 8
#define PI64_REF_HI_OFS 10
#define PI64_REF_LO_OFS 12

#define REFTAG_48_MASK 0x0000FFFFFFFFFFFFULL

static uint16_t crc16_tab[8][256];
static uint64_t crc64_tab[8][256];
static pthread_once_t crc_tab_once = PTHREAD_ONCE_INIT;

static void
crc_tab_init(void)
{
	for (unsigned int b = 0; b < 256; ++b) {
		uint32_t c16 = b << 8;
		uint64_t c64 = b;

		for (int i = 0; i < 8; ++i) {
			c16 = (c16 & 0x8000) ? (c16 << 1) ^ CRC16_T10DIF_POLY : c16 << 1;
			c64 = (c64 & 1) ? (c64 >> 1) ^ CRC64_NVME_POLY_REFLECTED : c64 >> 1;
		}
		crc16_tab[0][b] = (uint16_t)c16;
		crc64_tab[0][b] = c64;
	}

	/* tab[k][b]: the CRC of byte b followed by k zero bytes */
	for (int k = 1; k < 8; ++k) {
		for (unsigned int b = 0; b < 256; ++b) {
			uint16_t p16 = crc16_tab[k - 1][b];
			uint64_t p64 = crc64_tab[k - 1][b];

			crc16_tab[k][b] = (uint16_t)((p16 << 8) ^ crc16_tab[0][p16 >> 8]);
			crc64_tab[k][b] = (p64 >> 8) ^ crc64_tab[0][p64 & 0xFF];
		}
	}
}

static inline void
crc_tab_ensure(void)
{
	pthread_once(&crc_tab_once, crc_tab_init);
}

/* MSB-first, init 0, no final XOR: `crc` is the running value, 0 to start */
static uint16_t
crc16_t10dif(uint16_t crc, const uint8_t *buf, size_t len)
{
	while (len >= 8) {
		crc = crc16_tab[7][buf[0] ^ (crc >> 8)] ^ crc16_tab[6][buf[1] ^ (crc & 0xFF)] ^
		      crc16_tab[5][buf[2]] ^ crc16_tab[4][buf[3]] ^ crc16_tab[3][buf[4]] ^
		      crc16_tab[2][buf[5]] ^ crc16_tab[1][buf[6]] ^ crc16_tab[0][buf[7]];
		buf += 8;
		len -= 8;
	}
	while (len--) {
		crc = (uint16_t)((crc << 8) ^ crc16_tab[0][((crc >> 8) ^ *buf++) & 0xFF]);
	}

	return crc;
}

/* Reflected, init and final XOR all ones: `crc` is a finished value, 0 to start, chainable */
static uint64_t
crc64_nvme(uint64_t crc, const uint8_t *buf, size_t len)
{
	crc = ~crc;
	while (len >= 8) {
		uint64_t x = crc;

		for (int i = 0; i < 8; ++i) {
			x ^= (uint64_t)buf[i] << (8 * i);
		}
		crc = crc64_tab[7][x & 0xFF] ^ crc64_tab[6][(x >> 8) & 0xFF] ^
		      crc64_tab[5][(x >> 16) & 0xFF] ^ crc64_tab[4][(x >> 24) & 0xFF] ^
		      crc64_tab[3][(x >> 32) & 0xFF] ^ crc64_tab[2][(x >> 40) & 0xFF] ^
		      crc64_tab[1][(x >> 48) & 0xFF] ^ crc64_tab[0][x >> 56];
		buf += 8;
		len -= 8;
	}
	while (len--) {
		crc = (crc >> 8) ^ crc64_tab[0][(crc ^ *buf++) & 0xFF];
	}

	return ~crc;
}

static inline uint64_t
load_be(const uint8_t *p, int nbytes)
{
	uint64_t val = 0;

	for (int i = 0; i < nbytes; ++i) {
		val = (val << 8) | p[i];
	}
	return val;
}

static inline void
store_be(uint8_t *p, uint64_t val, int nbytes)
{
	for (int i = nbytes - 1; i >= 0; --i) {
		p[i] = (uint8_t)val;
		val >>= 8;
	}
}

size_t
xnvme_pi_size(enum xnvme_spec_nvm_ns_pif pi_format)
{
	return pi_format == XNVME_SPEC_NVM_NS_16B_GUARD ? 8 : 16;
}

int
xnvme_pi_ctx_init(struct xnvme_pi_ctx *ctx, uint32_t block_size, uint32_t md_size,
		  bool md_interleave, bool pi_loc, enum xnvme_pi_type pi_type, uint32_t pi_flags,
		  uint32_t init_ref_tag, uint16_t apptag_mask, uint16_t app_tag,
		  enum xnvme_spec_nvm_ns_pif pi_format)
{
	uint32_t pi_size;

	if (!ctx) {
		return -EINVAL;
	}
	if (pi_format != XNVME_SPEC_NVM_NS_16B_GUARD && pi_format != XNVME_SPEC_NVM_NS_64B_GUARD) {
		return -EINVAL;
	}
	pi_size = (uint32_t)xnvme_pi_size(pi_format);
	if (md_size < pi_size) {
		return -EINVAL;
	}
	if (md_interleave) {
		if (block_size < md_size) {
			return -EINVAL;
		}
	} else {
		uint32_t align = pi_format == XNVME_SPEC_NVM_NS_16B_GUARD ? 512 : 4096;

		if (!block_size || block_size % align) {
			return -EINVAL;
		}
	}
	if ((unsigned int)pi_type > XNVME_PI_TYPE3) {
		return -EINVAL;
	}
	if (pi_type == XNVME_PI_TYPE3 && (pi_flags & XNVME_PI_FLAGS_REFTAG_CHECK)) {
		return -EINVAL;
	}

	ctx->block_size = block_size;
	ctx->md_size = md_size;
	ctx->md_interleave = md_interleave;
	ctx->pi_format = (uint16_t)pi_format;
	ctx->pi_type = (uint16_t)pi_type;
	ctx->pi_flags = pi_flags;
	ctx->init_ref_tag = init_ref_tag;
	ctx->apptag_mask = apptag_mask;
	ctx->app_tag = app_tag;
	if (pi_loc) {
		ctx->guard_interval = md_interleave ? block_size - md_size : 0;
	} else {
		ctx->guard_interval = (md_interleave ? block_size : md_size) - pi_size;
	}

	return 0;
}

/* Per-block view: the PI tuple and the guard computed over this block's protected bytes */
struct pi_blk {
	uint8_t *tuple;
	uint64_t guard;
};

static void
pi_blk_get(const struct xnvme_pi_ctx *ctx, uint8_t *data_buf, uint8_t *md_buf, uint32_t idx,
	   bool want_guard, struct pi_blk *blk)
{
	uint8_t *data = data_buf + (size_t)idx * ctx->block_size;
	uint8_t *md = NULL;
	bool g16 = ctx->pi_format == XNVME_SPEC_NVM_NS_16B_GUARD;

	if (ctx->md_interleave) {
		blk->tuple = data + ctx->guard_interval;
	} else {
		md = md_buf + (size_t)idx * ctx->md_size;
		blk->tuple = md + ctx->guard_interval;
	}

	blk->guard = 0;
	if (!want_guard) {
		return;
	}

	/* interleaved: bytes before the tuple; separate: the data, then metadata before it */
	if (ctx->md_interleave) {
		blk->guard = g16 ? crc16_t10dif(0, data, ctx->guard_interval)
				 : crc64_nvme(0, data, ctx->guard_interval);
	} else if (g16) {
		blk->guard = crc16_t10dif(crc16_t10dif(0, data, ctx->block_size), md,
					  ctx->guard_interval);
	} else {
		blk->guard =
			crc64_nvme(crc64_nvme(0, data, ctx->block_size), md, ctx->guard_interval);
	}
}

static inline uint64_t
pi_ref_expected(const struct xnvme_pi_ctx *ctx, uint32_t idx)
{
	uint64_t ref = ctx->init_ref_tag;

	if (ctx->pi_type != XNVME_PI_TYPE3) {
		ref += idx;
	}
	return ctx->pi_format == XNVME_SPEC_NVM_NS_16B_GUARD ? ref & 0xFFFFFFFFULL
							     : ref & REFTAG_48_MASK;
}

static inline uint64_t
pi_ref_load(const struct xnvme_pi_ctx *ctx, const uint8_t *tuple)
{
	if (ctx->pi_format == XNVME_SPEC_NVM_NS_16B_GUARD) {
		return load_be(tuple + PI16_REF_OFS, 4);
	}
	return load_be(tuple + PI64_REF_HI_OFS, 6);
}

static inline uint16_t
pi_app_load(const struct xnvme_pi_ctx *ctx, const uint8_t *tuple)
{
	bool g16 = ctx->pi_format == XNVME_SPEC_NVM_NS_16B_GUARD;

	return (uint16_t)load_be(tuple + (g16 ? PI16_APP_OFS : PI64_APP_OFS), 2);
}

void
xnvme_pi_generate(struct xnvme_pi_ctx *ctx, uint8_t *data_buf, uint8_t *md_buf, uint32_t num_blocks)
{
	bool g16;
	bool want_guard;

	if (!ctx || !data_buf || (!ctx->md_interleave && !md_buf)) {
		return;
	}
	crc_tab_ensure();

	g16 = ctx->pi_format == XNVME_SPEC_NVM_NS_16B_GUARD;
	want_guard = ctx->pi_flags & XNVME_PI_FLAGS_GUARD_CHECK;

	for (uint32_t idx = 0; idx < num_blocks; ++idx) {
		struct pi_blk blk;

		pi_blk_get(ctx, data_buf, md_buf, idx, want_guard, &blk);

		if (want_guard) {
			store_be(blk.tuple, blk.guard, g16 ? 2 : 8);
		}
		if (ctx->pi_flags & XNVME_PI_FLAGS_APPTAG_CHECK) {
			store_be(blk.tuple + (g16 ? PI16_APP_OFS : PI64_APP_OFS), ctx->app_tag, 2);
		}
		if (ctx->pi_flags & XNVME_PI_FLAGS_REFTAG_CHECK) {
			uint64_t ref = pi_ref_expected(ctx, idx);

			if (g16) {
				store_be(blk.tuple + PI16_REF_OFS, ref, 4);
			} else {
				store_be(blk.tuple + PI64_REF_HI_OFS, ref, 6);
			}
		}
	}
}

/* A block whose tags hold the escape values is not checked at all */
static bool
pi_blk_escaped(const struct xnvme_pi_ctx *ctx, const uint8_t *tuple)
{
	uint64_t ref_ones;

	if (pi_app_load(ctx, tuple) != XNVME_APPTAG_IGNORE) {
		return false;
	}

	switch (ctx->pi_type) {
	case XNVME_PI_TYPE1:
	case XNVME_PI_TYPE2:
		return true;
	case XNVME_PI_TYPE3:
		ref_ones = ctx->pi_format == XNVME_SPEC_NVM_NS_16B_GUARD ? 0xFFFFFFFFULL
									 : REFTAG_48_MASK;
		return pi_ref_load(ctx, tuple) == ref_ones;
	default:
		return false;
	}
}

int
xnvme_pi_verify(struct xnvme_pi_ctx *ctx, uint8_t *data_buf, uint8_t *md_buf, uint32_t num_blocks)
{
	bool g16;
	bool want_guard;

	if (!ctx || !data_buf || (!ctx->md_interleave && !md_buf)) {
		return -EINVAL;
	}
	crc_tab_ensure();

	g16 = ctx->pi_format == XNVME_SPEC_NVM_NS_16B_GUARD;
	want_guard = ctx->pi_flags & XNVME_PI_FLAGS_GUARD_CHECK;

	for (uint32_t idx = 0; idx < num_blocks; ++idx) {
		struct pi_blk blk;

		/* locate the tuple first: escaped blocks are skipped without computing a CRC */
		pi_blk_get(ctx, data_buf, md_buf, idx, false, &blk);
		if (pi_blk_escaped(ctx, blk.tuple)) {
			continue;
		}

		if (want_guard) {
			pi_blk_get(ctx, data_buf, md_buf, idx, true, &blk);
			if (load_be(blk.tuple, g16 ? 2 : 8) != blk.guard) {
				return -EIO;
			}
		}
		if (ctx->pi_flags & XNVME_PI_FLAGS_APPTAG_CHECK) {
			uint16_t app = pi_app_load(ctx, blk.tuple);

			if ((app & ctx->apptag_mask) != (ctx->app_tag & ctx->apptag_mask)) {
				return -EIO;
			}
		}
		if ((ctx->pi_flags & XNVME_PI_FLAGS_REFTAG_CHECK) &&
		    (ctx->pi_type == XNVME_PI_TYPE1 || ctx->pi_type == XNVME_PI_TYPE2)) {
			if (pi_ref_load(ctx, blk.tuple) != pi_ref_expected(ctx, idx)) {
				return -EIO;
			}
		}
	}

	return 0;
}
