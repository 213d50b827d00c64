/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Unit test of the software protection-information implementation (lib/pi.c).
 *
 * Stand-alone: gcc -std=c11 -Iinclude tests/test_pi.c lib/pi.c && ./a.out
 * Guards are checked against bit-by-bit reference CRCs written here, independently of the
 * table-driven ones in the library.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* the public headers' timer helpers use clock_gettime() */
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme_pi.h>
#include "xnvme_test.h"

static uint16_t
ref_crc16(const uint8_t *buf, size_t len, uint16_t crc)
{
	for (size_t i = 0; i < len; ++i) {
		crc ^= (uint16_t)(buf[i] << 8);
		for (int b = 0; b < 8; ++b) {
			crc = (uint16_t)((crc & 0x8000) ? (crc << 1) ^ 0x8BB7 : crc << 1);
		}
	}
	return crc;
}

/* `crc` is the raw register: start with ~0, finish with ~ */
static uint64_t
ref_crc64(const uint8_t *buf, size_t len, uint64_t crc)
{
	for (size_t i = 0; i < len; ++i) {
		crc ^= buf[i];
		for (int b = 0; b < 8; ++b) {
			crc = (crc & 1) ? (crc >> 1) ^ 0x9A6C9329AC4BC9B5ULL : crc >> 1;
		}
	}
	return crc;
}

static uint64_t
be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; ++i) {
		v = (v << 8) | p[i];
	}
	return v;
}

static void
fill_rand(uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; ++i) {
		buf[i] = (uint8_t)rand();
	}
}

static void
test_sizes_and_init(void)
{
	struct xnvme_pi_ctx ctx;
	const enum xnvme_spec_nvm_ns_pif g16 = XNVME_SPEC_NVM_NS_16B_GUARD;
	const enum xnvme_spec_nvm_ns_pif g64 = XNVME_SPEC_NVM_NS_64B_GUARD;

	CHECK(sizeof(struct xnvme_pi_ctx) == 40);
	CHECK(sizeof(struct xnvme_pif) == 16);
	CHECK(xnvme_pi_size(g16) == 8);
	CHECK(xnvme_pi_size(g64) == 16);
	CHECK(xnvme_pi_size(XNVME_SPEC_NVM_NS_32B_GUARD) == 16);

	/* invalid arguments */
	CHECK(xnvme_pi_ctx_init(&ctx, 512, 8, false, false, XNVME_PI_TYPE1, 7, 0, 0, 0,
				XNVME_SPEC_NVM_NS_32B_GUARD) == -EINVAL);
	CHECK(xnvme_pi_ctx_init(&ctx, 512, 8, false, false, XNVME_PI_TYPE1, 7, 0, 0, 0,
				(enum xnvme_spec_nvm_ns_pif)7) == -EINVAL);
	CHECK(xnvme_pi_ctx_init(&ctx, 512, 7, false, false, XNVME_PI_TYPE1, 7, 0, 0, 0, g16) ==
	      -EINVAL);
	CHECK(xnvme_pi_ctx_init(&ctx, 4096, 8, false, false, XNVME_PI_TYPE1, 7, 0, 0, 0, g64) ==
	      -EINVAL);
	CHECK(xnvme_pi_ctx_init(&ctx, 7, 8, true, false, XNVME_PI_TYPE1, 7, 0, 0, 0, g16) ==
	      -EINVAL);
	CHECK(xnvme_pi_ctx_init(&ctx, 0, 8, false, false, XNVME_PI_TYPE1, 7, 0, 0, 0, g16) ==
	      -EINVAL);
	CHECK(xnvme_pi_ctx_init(&ctx, 520, 8, false, false, XNVME_PI_TYPE1, 7, 0, 0, 0, g16) ==
	      -EINVAL);
	CHECK(xnvme_pi_ctx_init(&ctx, 512, 16, false, false, XNVME_PI_TYPE1, 7, 0, 0, 0, g64) ==
	      -EINVAL);
	CHECK(xnvme_pi_ctx_init(&ctx, 512, 8, false, false, (enum xnvme_pi_type)4, 7, 0, 0, 0,
				g16) == -EINVAL);
	CHECK(xnvme_pi_ctx_init(&ctx, 512, 8, false, false, XNVME_PI_TYPE3,
				XNVME_PI_FLAGS_REFTAG_CHECK, 0, 0, 0, g16) == -EINVAL);

	/* valid corner cases */
	CHECK(xnvme_pi_ctx_init(&ctx, 8, 8, true, false, XNVME_PI_TYPE1, 7, 0, 0, 0, g16) == 0);
	CHECK(xnvme_pi_ctx_init(&ctx, 512, 8, false, false, XNVME_PI_DISABLE, 0, 0, 0, 0, g16) ==
	      0);
	CHECK(xnvme_pi_ctx_init(&ctx, 4096, 16, false, false, XNVME_PI_TYPE3,
				XNVME_PI_FLAGS_GUARD_CHECK | XNVME_PI_FLAGS_APPTAG_CHECK, 0, 0, 0,
				g64) == 0);

	/* stored fields; pi_flags verbatim, PRACT (bit 3) included */
	CHECK(xnvme_pi_ctx_init(&ctx, 520, 8, true, false, XNVME_PI_TYPE2, 0x8 | 0x7, 0xABCD,
				0xF0F0, 0x1234, g16) == 0);
	CHECK(ctx.block_size == 520 && ctx.md_size == 8 && ctx.md_interleave);
	CHECK(ctx.pi_flags == 0xF && ctx.pi_flags >> 3 == 1);
	CHECK(ctx.pi_type == XNVME_PI_TYPE2 && ctx.pi_format == g16);
	CHECK(ctx.init_ref_tag == 0xABCD && ctx.apptag_mask == 0xF0F0 && ctx.app_tag == 0x1234);
	CHECK(ctx.guard_interval == 512);

	/* guard_interval for each PI location and metadata layout */
	CHECK(xnvme_pi_ctx_init(&ctx, 528, 16, true, true, XNVME_PI_TYPE1, 7, 0, 0, 0, g16) == 0);
	CHECK(ctx.guard_interval == 512);
	CHECK(xnvme_pi_ctx_init(&ctx, 528, 16, true, false, XNVME_PI_TYPE1, 7, 0, 0, 0, g16) == 0);
	CHECK(ctx.guard_interval == 520);
	CHECK(xnvme_pi_ctx_init(&ctx, 512, 16, false, false, XNVME_PI_TYPE1, 7, 0, 0, 0, g16) == 0);
	CHECK(ctx.guard_interval == 8);
	CHECK(xnvme_pi_ctx_init(&ctx, 512, 16, false, true, XNVME_PI_TYPE1, 7, 0, 0, 0, g16) == 0);
	CHECK(ctx.guard_interval == 0);
	CHECK(xnvme_pi_ctx_init(&ctx, 4096, 64, false, false, XNVME_PI_TYPE1, 7, 0, 0, 0, g64) ==
	      0);
	CHECK(ctx.guard_interval == 48);
}

/* The guard of an interleaved block with the PI first covers exactly the bytes before it */
static void
test_check_values(void)
{
	uint8_t blk[32];
	struct xnvme_pi_ctx ctx;

	memset(blk, 0, sizeof(blk));
	memcpy(blk, "123456789", 9);
	CHECK(xnvme_pi_ctx_init(&ctx, 9 + 8, 8, true, true, XNVME_PI_TYPE1,
				XNVME_PI_FLAGS_GUARD_CHECK, 0, 0, 0,
				XNVME_SPEC_NVM_NS_16B_GUARD) == 0);
	xnvme_pi_generate(&ctx, blk, NULL, 1);
	CHECK(be(blk + 9, 2) == 0xD0DB);
	CHECK(be(blk + 11, 6) == 0); /* unflagged tags are not written */

	memset(blk, 0, sizeof(blk));
	memcpy(blk, "123456789", 9);
	CHECK(xnvme_pi_ctx_init(&ctx, 9 + 16, 16, true, true, XNVME_PI_TYPE1,
				XNVME_PI_FLAGS_GUARD_CHECK, 0, 0, 0,
				XNVME_SPEC_NVM_NS_64B_GUARD) == 0);
	xnvme_pi_generate(&ctx, blk, NULL, 1);
	CHECK(be(blk + 9, 8) == 0xAE8B14860A799888ULL);
	CHECK(be(blk + 17, 8) == 0);

	/* and the reference implementations agree with the check values */
	CHECK(ref_crc16((const uint8_t *)"123456789", 9, 0) == 0xD0DB);
	CHECK(~ref_crc64((const uint8_t *)"123456789", 9, ~0ULL) == 0xAE8B14860A799888ULL);
}

struct layout {
	uint32_t lba;    ///< data bytes per block
	uint32_t md;     ///< metadata bytes per block
	bool interleave; ///< extended LBA
	bool pi_loc;     ///< PI at the start of metadata
	enum xnvme_spec_nvm_ns_pif pif;
	enum xnvme_pi_type type;
};

/* Expected guard of block `i`, from the reference CRCs */
static uint64_t
expected_guard(const struct layout *l, const struct xnvme_pi_ctx *ctx, const uint8_t *data,
	       const uint8_t *md, uint32_t i)
{
	bool g16 = l->pif == XNVME_SPEC_NVM_NS_16B_GUARD;

	if (l->interleave) {
		const uint8_t *b = data + (size_t)i * ctx->block_size;

		return g16 ? ref_crc16(b, ctx->guard_interval, 0)
			   : ~ref_crc64(b, ctx->guard_interval, ~0ULL);
	}
	if (g16) {
		return ref_crc16(md + (size_t)i * l->md, ctx->guard_interval,
				 ref_crc16(data + (size_t)i * l->lba, l->lba, 0));
	}
	return ~ref_crc64(md + (size_t)i * l->md, ctx->guard_interval,
			  ref_crc64(data + (size_t)i * l->lba, l->lba, ~0ULL));
}

static void
test_layout(const struct layout *l)
{
	const uint32_t nblocks = 8;
	const uint32_t ref0 = 0x10203040;
	const uint16_t app = 0x5A3C;
	bool g16 = l->pif == XNVME_SPEC_NVM_NS_16B_GUARD;
	uint32_t flags = XNVME_PI_FLAGS_GUARD_CHECK | XNVME_PI_FLAGS_APPTAG_CHECK;
	uint32_t bs = l->interleave ? l->lba + l->md : l->lba;
	struct xnvme_pi_ctx ctx;
	uint8_t *data, *md, *tuple;
	int fails_before = xnvme_test_nfail;

	if (l->type != XNVME_PI_TYPE3) {
		flags |= XNVME_PI_FLAGS_REFTAG_CHECK;
	}
	flags |= 0x8; /* PRACT as fio sets it: must be ignored */

	data = calloc(nblocks, bs);
	md = calloc(nblocks, l->md);
	fill_rand(data, (size_t)nblocks * bs);
	fill_rand(md, (size_t)nblocks * l->md);

	CHECK(xnvme_pi_ctx_init(&ctx, bs, l->md, l->interleave, l->pi_loc, l->type, flags, ref0,
				0xFFFF, app, l->pif) == 0);
	xnvme_pi_generate(&ctx, data, l->interleave ? NULL : md, nblocks);
	CHECK(xnvme_pi_verify(&ctx, data, l->interleave ? NULL : md, nblocks) == 0);

	/* the stored tuples, big-endian */
	for (uint32_t i = 0; i < nblocks; ++i) {
		uint64_t ref = l->type == XNVME_PI_TYPE3 ? ref0 : (uint64_t)ref0 + i;

		tuple = (l->interleave ? data + (size_t)i * bs : md + (size_t)i * l->md) +
			ctx.guard_interval;
		CHECK(be(tuple, g16 ? 2 : 8) == expected_guard(l, &ctx, data, md, i));
		CHECK(be(tuple + (g16 ? 2 : 8), 2) == app);
		if (l->type != XNVME_PI_TYPE3) {
			CHECK(be(tuple + (g16 ? 4 : 10), g16 ? 4 : 6) == ref);
		}
	}

	/* corrupt each field of the last block in turn */
	tuple = (l->interleave ? data + (size_t)(nblocks - 1) * bs
			       : md + (size_t)(nblocks - 1) * l->md) +
		ctx.guard_interval;

	tuple[1] ^= 0x01; /* guard */
	CHECK(xnvme_pi_verify(&ctx, data, md, nblocks) < 0);
	tuple[1] ^= 0x01;
	CHECK(xnvme_pi_verify(&ctx, data, md, nblocks) == 0);

	tuple[g16 ? 3 : 9] ^= 0x10; /* app tag */
	CHECK(xnvme_pi_verify(&ctx, data, md, nblocks) < 0);
	tuple[g16 ? 3 : 9] ^= 0x10;

	tuple[g16 ? 7 : 15] ^= 0x04; /* ref tag */
	if (l->type == XNVME_PI_TYPE3) {
		CHECK(xnvme_pi_verify(&ctx, data, md, nblocks) == 0);
	} else {
		CHECK(xnvme_pi_verify(&ctx, data, md, nblocks) < 0);
	}
	tuple[g16 ? 7 : 15] ^= 0x04;

	/* corrupted data: the guard covers it */
	data[(size_t)(nblocks - 1) * bs] ^= 0x80;
	CHECK(xnvme_pi_verify(&ctx, data, md, nblocks) < 0);
	data[(size_t)(nblocks - 1) * bs] ^= 0x80;
	CHECK(xnvme_pi_verify(&ctx, data, md, nblocks) == 0);

	if (xnvme_test_nfail != fails_before) {
		fprintf(stderr, "  layout: lba %u md %u interleave %d pi_loc %d pif %d type %d\n",
			l->lba, l->md, l->interleave, l->pi_loc, l->pif, l->type);
	}
	free(data);
	free(md);
}

static void
test_layouts(void)
{
	const uint32_t lbas[] = {512, 4096};
	const enum xnvme_pi_type types[] = {XNVME_PI_TYPE1, XNVME_PI_TYPE2, XNVME_PI_TYPE3};

	for (int t = 0; t < 3; ++t) {
		for (int b = 0; b < 2; ++b) {
			for (int loc = 0; loc < 2; ++loc) {
				struct layout l16i = {
					lbas[b], 16, true, loc, XNVME_SPEC_NVM_NS_16B_GUARD,
					types[t]};
				struct layout l16s = {
					lbas[b], 8, false, loc, XNVME_SPEC_NVM_NS_16B_GUARD,
					types[t]};
				struct layout l16m = {
					lbas[b], 64, false, loc, XNVME_SPEC_NVM_NS_16B_GUARD,
					types[t]};
				struct layout l64i = {
					lbas[b], 16, true, loc, XNVME_SPEC_NVM_NS_64B_GUARD,
					types[t]};
				struct layout l64m = {
					lbas[b], 64, true, loc, XNVME_SPEC_NVM_NS_64B_GUARD,
					types[t]};

				test_layout(&l16i);
				test_layout(&l16s);
				test_layout(&l16m);
				test_layout(&l64i);
				test_layout(&l64m);
			}
		}
		/* separate metadata with the 64-bit guard needs 4 KiB blocks */
		for (int loc = 0; loc < 2; ++loc) {
			struct layout l64s = {4096,    16, false, loc, XNVME_SPEC_NVM_NS_64B_GUARD,
					      types[t]};
			struct layout l64m = {4096,    64, false, loc, XNVME_SPEC_NVM_NS_64B_GUARD,
					      types[t]};

			test_layout(&l64s);
			test_layout(&l64m);
		}
	}
}

/* Escaped blocks are skipped individually: later blocks are still verified */
static void
test_escapes(void)
{
	const uint32_t bs = 512 + 8;
	uint8_t data[4 * (512 + 8)];
	struct xnvme_pi_ctx ctx;
	uint8_t *t1 = data + bs + 512;
	uint8_t *t3 = data + 3 * bs + 512;

	fill_rand(data, sizeof(data));
	CHECK(xnvme_pi_ctx_init(&ctx, bs, 8, true, false, XNVME_PI_TYPE1, 7, 100, 0xFFFF, 0x1111,
				XNVME_SPEC_NVM_NS_16B_GUARD) == 0);
	xnvme_pi_generate(&ctx, data, NULL, 4);
	CHECK(xnvme_pi_verify(&ctx, data, NULL, 4) == 0);

	t1[2] = 0xFF; /* app tag 0xFFFF: block 1 escapes despite a bad guard */
	t1[3] = 0xFF;
	t1[0] ^= 0xFF;
	CHECK(xnvme_pi_verify(&ctx, data, NULL, 4) == 0);
	t3[0] ^= 0xFF; /* a later bad block is still found */
	CHECK(xnvme_pi_verify(&ctx, data, NULL, 4) < 0);
	t3[0] ^= 0xFF;

	/* type 3: the app tag alone does not escape; with an all-ones ref tag it does */
	CHECK(xnvme_pi_ctx_init(&ctx, bs, 8, true, false, XNVME_PI_TYPE3, 6, 100, 0xFFFF, 0x1111,
				XNVME_SPEC_NVM_NS_16B_GUARD) == 0);
	xnvme_pi_generate(&ctx, data, NULL, 4);
	CHECK(xnvme_pi_verify(&ctx, data, NULL, 4) == 0);
	t1[2] = 0xFF;
	t1[3] = 0xFF;
	CHECK(xnvme_pi_verify(&ctx, data, NULL, 4) < 0);
	memset(t1 + 4, 0xFF, 4);
	CHECK(xnvme_pi_verify(&ctx, data, NULL, 4) == 0);
	t1[0] ^= 0xFF;
	CHECK(xnvme_pi_verify(&ctx, data, NULL, 4) == 0);
}

static void
test_tags(void)
{
	const uint32_t bs = 4096;
	uint8_t *data = calloc(2, bs);
	uint8_t md[2 * 16];
	struct xnvme_pi_ctx ctx;

	/* app tag mask: differences in masked-out bits pass */
	memset(md, 0, sizeof(md));
	CHECK(xnvme_pi_ctx_init(&ctx, bs, 8, false, false, XNVME_PI_TYPE1,
				XNVME_PI_FLAGS_APPTAG_CHECK, 0, 0xFF00, 0x12AB,
				XNVME_SPEC_NVM_NS_16B_GUARD) == 0);
	xnvme_pi_generate(&ctx, data, md, 2);
	CHECK(md[2] == 0x12 && md[3] == 0xAB);
	CHECK(be(md, 2) == 0 && be(md + 4, 4) == 0);
	md[3] = 0x00;
	CHECK(xnvme_pi_verify(&ctx, data, md, 2) == 0);
	md[2] = 0x13;
	CHECK(xnvme_pi_verify(&ctx, data, md, 2) < 0);

	/* 16-bit format: the reference tag wraps at 32 bits */
	memset(md, 0, sizeof(md));
	CHECK(xnvme_pi_ctx_init(&ctx, bs, 8, false, false, XNVME_PI_TYPE1,
				XNVME_PI_FLAGS_REFTAG_CHECK, 0xFFFFFFFF, 0, 0,
				XNVME_SPEC_NVM_NS_16B_GUARD) == 0);
	xnvme_pi_generate(&ctx, data, md, 2);
	CHECK(be(md + 4, 4) == 0xFFFFFFFF && be(md + 8 + 4, 4) == 0);
	CHECK(xnvme_pi_verify(&ctx, data, md, 2) == 0);

	/* 64-bit format: 48-bit reference tag, upper 16 bits at byte 10 */
	memset(md, 0, sizeof(md));
	CHECK(xnvme_pi_ctx_init(&ctx, bs, 16, false, false, XNVME_PI_TYPE2,
				XNVME_PI_FLAGS_REFTAG_CHECK, 0xFFFFFFFF, 0, 0,
				XNVME_SPEC_NVM_NS_64B_GUARD) == 0);
	xnvme_pi_generate(&ctx, data, md, 2);
	CHECK(be(md + 10, 6) == 0xFFFFFFFFULL && be(md + 16 + 10, 6) == 0x100000000ULL);
	CHECK(be(md, 10) == 0);
	CHECK(xnvme_pi_verify(&ctx, data, md, 2) == 0);
	md[16 + 11] ^= 1;
	CHECK(xnvme_pi_verify(&ctx, data, md, 2) < 0);

	free(data);
}

/* Long odd-length data exercises the slice-by-8 body and the byte-wise tail together */
static void
test_long_guards(void)
{
	const uint32_t lens[] = {1, 7, 8, 9, 15, 16, 17, 63, 4095, 4097};
	uint8_t *data = malloc(4097 + 16);
	struct xnvme_pi_ctx ctx;

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); ++i) {
		fill_rand(data, lens[i]);
		CHECK(xnvme_pi_ctx_init(&ctx, lens[i] + 8, 8, true, true, XNVME_PI_TYPE1,
					XNVME_PI_FLAGS_GUARD_CHECK, 0, 0, 0,
					XNVME_SPEC_NVM_NS_16B_GUARD) == 0);
		xnvme_pi_generate(&ctx, data, NULL, 1);
		CHECK(be(data + lens[i], 2) == ref_crc16(data, lens[i], 0));

		CHECK(xnvme_pi_ctx_init(&ctx, lens[i] + 16, 16, true, true, XNVME_PI_TYPE1,
					XNVME_PI_FLAGS_GUARD_CHECK, 0, 0, 0,
					XNVME_SPEC_NVM_NS_64B_GUARD) == 0);
		xnvme_pi_generate(&ctx, data, NULL, 1);
		CHECK(be(data + lens[i], 8) == ~ref_crc64(data, lens[i], ~0ULL));
	}
	free(data);
}

int
main(void)
{
	srand(1);

	test_sizes_and_init();
	test_check_values();
	test_layouts();
	test_escapes();
	test_tags();
	test_long_guards();

	return xnvme_test_result("test_pi");
}
