// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer harness of the protection-information helpers (libxnvme_pi.h, lib/pi.c).
 *
 * The input gives the arguments of xnvme_pi_ctx_init() (any block and metadata size, layout,
 * PI location, type, format and flags, tags) and the block contents. Checked:
 *  - xnvme_pi_ctx_init() accepts exactly the argument sets the header documents as valid;
 *  - xnvme_pi_verify() on arbitrary blocks returns 0 or -EIO and stays inside the buffers;
 *  - xnvme_pi_generate() then xnvme_pi_verify() passes;
 *  - the generated guard equals a bit-by-bit CRC (CRC-16/T10-DIF, NVMe CRC-64) over the
 *    protected bytes, the tags are the ones asked for, big-endian at the documented offsets;
 *  - a bit flipped in a protected byte, or a wrong initial reference tag, fails verification
 *    unless the block holds the escape tags.
 * Buffers are allocated at their exact size so that ASan (or valgrind in the replay test) sees
 * any access past them. tests/fuzz/replay.c provides main() for replaying a corpus.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>
#include "fuzz_common.h"
#include <libxnvme_pi.h>

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HDR_NBYTES 16
#define MAX_NBYTES (256U << 10)

#define FAIL(...) fuzz_fail("fuzz_pi", __VA_ARGS__)

/* Bit-by-bit references, independent of the table-driven code under test */
static uint16_t
ref_crc16(uint16_t crc, const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; ++i) {
		crc ^= (uint16_t)(buf[i] << 8);
		for (int b = 0; b < 8; ++b) {
			crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x8BB7)
					     : (uint16_t)(crc << 1);
		}
	}
	return crc;
}

/* NVMe CRC-64 (Rocksoft): reflected, init and final XOR all ones; chained like the library */
static uint64_t
ref_crc64(uint64_t crc, const uint8_t *buf, size_t len)
{
	crc = ~crc;
	for (size_t i = 0; i < len; ++i) {
		crc ^= buf[i];
		for (int b = 0; b < 8; ++b) {
			crc = (crc & 1) ? (crc >> 1) ^ 0x9A6C9329AC4BC9B5ULL : crc >> 1;
		}
	}
	return ~crc;
}

static uint64_t
be_load(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; ++i) {
		v = (v << 8) | p[i];
	}
	return v;
}

struct params {
	uint32_t block_size;
	uint32_t md_size;
	bool interleave;
	bool pi_loc;
	uint32_t pi_type;
	uint32_t pi_flags;
	uint32_t pif;
	uint32_t ref;
	uint16_t apptag_mask;
	uint16_t apptag;
	uint32_t nblocks;
};

/* What the header documents as valid arguments of xnvme_pi_ctx_init() */
static bool
model_valid(const struct params *p)
{
	uint32_t pi_size = p->pif == XNVME_SPEC_NVM_NS_16B_GUARD ? 8 : 16;

	if (p->pif != XNVME_SPEC_NVM_NS_16B_GUARD && p->pif != XNVME_SPEC_NVM_NS_64B_GUARD) {
		return false;
	}
	if (p->md_size < pi_size) {
		return false;
	}
	if (p->interleave ? p->block_size < p->md_size
			  : (!p->block_size || p->block_size % (pi_size == 8 ? 512 : 4096))) {
		return false;
	}
	if (p->pi_type > XNVME_PI_TYPE3) {
		return false;
	}
	return !(p->pi_type == XNVME_PI_TYPE3 && (p->pi_flags & XNVME_PI_FLAGS_REFTAG_CHECK));
}

static void
params_from(const uint8_t *h, struct params *p)
{
	static const uint32_t bsizes[] = {512, 4096, 520, 528, 4104, 4160, 16, 0};
	static const uint32_t pifs[] = {0, 2, 0, 2, 0, 2, 1, 3};

	memset(p, 0, sizeof(*p));
	p->interleave = h[0] & 0x1;
	p->pi_loc = h[0] & 0x2;
	p->pi_type = (h[0] >> 2) & 0x3;
	if (h[1] & 0x80) {
		p->pi_type = h[1] & 0x7F; /* out of range on purpose */
	}
	p->pi_flags = (h[0] >> 4) & 0x7;
	p->pif = pifs[h[2] & 0x7];
	p->block_size = bsizes[(h[2] >> 3) & 0x7];
	if (!p->block_size) {
		p->block_size = (uint32_t)h[3] | ((uint32_t)h[4] << 8);
	}
	p->md_size = h[5];
	if (h[6] & 0x1) {
		p->md_size += 256;
	}
	p->ref = (uint32_t)h[7] | ((uint32_t)h[8] << 8) | ((uint32_t)h[9] << 16) |
		 ((uint32_t)h[10] << 24);
	p->apptag_mask = (uint16_t)(h[11] | (h[12] << 8));
	p->apptag = (uint16_t)(h[13] | (h[14] << 8));
	p->nblocks = h[15] & 0x3F;
}

/* Where block i's PI tuple and protected bytes are */
struct blk_view {
	uint8_t *tuple;
	uint8_t *data; ///< protected data bytes
	size_t data_len;
	uint8_t *md; ///< protected metadata bytes before the tuple (separate layout)
	size_t md_len;
};

static void
blk_view(const struct xnvme_pi_ctx *ctx, uint8_t *dbuf, uint8_t *mbuf, uint32_t i,
	 struct blk_view *v)
{
	uint8_t *blk = dbuf + (size_t)i * ctx->block_size;

	memset(v, 0, sizeof(*v));
	v->data = blk;
	if (ctx->md_interleave) {
		v->tuple = blk + ctx->guard_interval;
		v->data_len = ctx->guard_interval;
	} else {
		v->md = mbuf + (size_t)i * ctx->md_size;
		v->tuple = v->md + ctx->guard_interval;
		v->data_len = ctx->block_size;
		v->md_len = ctx->guard_interval;
	}
}

static bool
blk_escaped(const struct xnvme_pi_ctx *ctx, const struct blk_view *v)
{
	bool g16 = ctx->pi_format == XNVME_SPEC_NVM_NS_16B_GUARD;

	if (be_load(v->tuple + (g16 ? 2 : 8), 2) != XNVME_APPTAG_IGNORE) {
		return false;
	}
	switch (ctx->pi_type) {
	case XNVME_PI_TYPE1:
	case XNVME_PI_TYPE2:
		return true;
	case XNVME_PI_TYPE3:
		return g16 ? be_load(v->tuple + 4, 4) == 0xFFFFFFFFULL
			   : be_load(v->tuple + 10, 6) == 0xFFFFFFFFFFFFULL;
	default:
		return false;
	}
}

/* Tags and guards as generated, against the references */
static void
check_generated(const struct params *p, const struct xnvme_pi_ctx *ctx, uint8_t *dbuf,
		uint8_t *mbuf)
{
	bool g16 = ctx->pi_format == XNVME_SPEC_NVM_NS_16B_GUARD;

	for (uint32_t i = 0; i < p->nblocks; ++i) {
		struct blk_view v;

		blk_view(ctx, dbuf, mbuf, i, &v);
		if (p->pi_flags & XNVME_PI_FLAGS_GUARD_CHECK) {
			uint64_t want, got = be_load(v.tuple, g16 ? 2 : 8);

			if (g16) {
				want = ref_crc16(ref_crc16(0, v.data, v.data_len), v.md, v.md_len);
			} else {
				want = ref_crc64(ref_crc64(0, v.data, v.data_len), v.md, v.md_len);
			}
			if (got != want) {
				FAIL("block %u: guard 0x%llx, reference CRC 0x%llx", i,
				     (unsigned long long)got, (unsigned long long)want);
			}
		}
		if ((p->pi_flags & XNVME_PI_FLAGS_APPTAG_CHECK) &&
		    be_load(v.tuple + (g16 ? 2 : 8), 2) != p->apptag) {
			FAIL("block %u: application tag not generated", i);
		}
		if (p->pi_flags & XNVME_PI_FLAGS_REFTAG_CHECK) {
			uint64_t want = (uint64_t)p->ref + (p->pi_type == XNVME_PI_TYPE3 ? 0 : i);
			uint64_t got = g16 ? be_load(v.tuple + 4, 4) : be_load(v.tuple + 10, 6);

			want &= g16 ? 0xFFFFFFFFULL : 0xFFFFFFFFFFFFULL;
			if (got != want) {
				FAIL("block %u: reference tag 0x%llx, expected 0x%llx", i,
				     (unsigned long long)got, (unsigned long long)want);
			}
		}
	}
}

/* Corruptions that verification must notice on a block without the escape tags */
static void
check_detection(const struct params *p, struct xnvme_pi_ctx *ctx, uint8_t *dbuf, uint8_t *mbuf,
		const uint8_t *sel)
{
	uint32_t nescaped = 0;
	uint32_t blk = sel[0] % p->nblocks;
	struct blk_view v;

	for (uint32_t i = 0; i < p->nblocks; ++i) {
		blk_view(ctx, dbuf, mbuf, i, &v);
		nescaped += blk_escaped(ctx, &v);
	}

	/* one flipped bit in a protected byte of one block */
	blk_view(ctx, dbuf, mbuf, blk, &v);
	if ((p->pi_flags & XNVME_PI_FLAGS_GUARD_CHECK) && !blk_escaped(ctx, &v) &&
	    v.data_len + v.md_len) {
		size_t off = ((size_t)sel[1] << 8 | sel[2]) % (v.data_len + v.md_len);
		uint8_t *byte = off < v.data_len ? v.data + off : v.md + (off - v.data_len);
		uint8_t bit = (uint8_t)(1U << (sel[3] & 7));

		*byte ^= bit;
		if (xnvme_pi_verify(ctx, dbuf, mbuf, p->nblocks) != -EIO) {
			FAIL("a flipped bit in block %u (byte %zu) passed verification", blk, off);
		}
		*byte ^= bit;
	}

	/* every block a reference tag off */
	if ((p->pi_flags & XNVME_PI_FLAGS_REFTAG_CHECK) &&
	    (p->pi_type == XNVME_PI_TYPE1 || p->pi_type == XNVME_PI_TYPE2)) {
		int err;

		ctx->init_ref_tag = (uint64_t)p->ref + 1;
		err = xnvme_pi_verify(ctx, dbuf, mbuf, p->nblocks);
		ctx->init_ref_tag = p->ref;
		if (err != (nescaped < p->nblocks ? -EIO : 0)) {
			FAIL("wrong initial reference tag: verify gave %d (%u of %u blocks escaped)",
			     err, nescaped, p->nblocks);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xnvme_pi_ctx ctx;
	struct params p;
	uint8_t *dbuf = NULL, *mbuf = NULL;
	size_t dlen, mlen = 0;
	const uint8_t *fill;
	size_t fill_len;
	bool valid;
	int err;

	if (size < HDR_NBYTES) {
		return 0;
	}
	params_from(data, &p);
	fill = data + HDR_NBYTES;
	fill_len = size - HDR_NBYTES;

	memset(&ctx, 0xA5, sizeof(ctx));
	err = xnvme_pi_ctx_init(&ctx, p.block_size, p.md_size, p.interleave, p.pi_loc,
				(enum xnvme_pi_type)p.pi_type, p.pi_flags, p.ref, p.apptag_mask,
				p.apptag, (enum xnvme_spec_nvm_ns_pif)p.pif);
	valid = model_valid(&p);
	if (err != (valid ? 0 : -EINVAL)) {
		FAIL("ctx_init(bs %u, ms %u, il %d, loc %d, type %u, flags 0x%x, pif %u) gave %d",
		     p.block_size, p.md_size, p.interleave, p.pi_loc, p.pi_type, p.pi_flags, p.pif,
		     err);
	}
	if (!valid) {
		return 0;
	}
	if (ctx.block_size != p.block_size || ctx.md_size != p.md_size ||
	    ctx.md_interleave != p.interleave || ctx.pi_flags != p.pi_flags ||
	    ctx.init_ref_tag != p.ref || ctx.app_tag != p.apptag ||
	    ctx.apptag_mask != p.apptag_mask || ctx.pi_type != p.pi_type ||
	    ctx.pi_format != p.pif) {
		FAIL("ctx_init did not store its arguments");
	}
	/* the tuple lies within the block (interleaved) or the metadata (separate) */
	if (ctx.guard_interval + (p.pif ? 16U : 8U) > (p.interleave ? p.block_size : p.md_size)) {
		FAIL("guard_interval %u puts the tuple outside the block", ctx.guard_interval);
	}

	dlen = (size_t)p.nblocks * p.block_size;
	if (!p.interleave) {
		mlen = (size_t)p.nblocks * p.md_size;
	}
	if (!p.nblocks || dlen + mlen > MAX_NBYTES) {
		p.nblocks = 0;
		dlen = 0;
		mlen = 0;
	}
	dbuf = malloc(dlen ? dlen : 1);
	mbuf = malloc(mlen ? mlen : 1);
	if (!dbuf || !mbuf) {
		abort();
	}
	for (size_t i = 0; i < dlen; ++i) {
		dbuf[i] = fill_len ? fill[i % fill_len] : (uint8_t)i;
	}
	for (size_t i = 0; i < mlen; ++i) {
		mbuf[i] = fill_len ? fill[(dlen + i) % fill_len] : (uint8_t)~i;
	}

	/* arbitrary blocks: a verdict, nothing else */
	err = xnvme_pi_verify(&ctx, dbuf, p.interleave ? NULL : mbuf, p.nblocks);
	if (err != 0 && err != -EIO) {
		FAIL("verify of arbitrary blocks gave %d", err);
	}

	xnvme_pi_generate(&ctx, dbuf, p.interleave ? NULL : mbuf, p.nblocks);
	err = xnvme_pi_verify(&ctx, dbuf, p.interleave ? NULL : mbuf, p.nblocks);
	if (err) {
		FAIL("generate then verify gave %d", err);
	}
	check_generated(&p, &ctx, dbuf, mbuf);
	if (p.nblocks) {
		uint8_t sel[4] = {0};

		memcpy(sel, fill, fill_len < sizeof(sel) ? fill_len : sizeof(sel));
		check_detection(&p, &ctx, dbuf, mbuf, sel);
	}

	/* the separate layout without a metadata buffer is refused, not dereferenced */
	if (!p.interleave && xnvme_pi_verify(&ctx, dbuf, NULL, p.nblocks) != -EINVAL) {
		FAIL("verify without the metadata buffer was not refused");
	}
	xnvme_pi_generate(&ctx, dbuf, p.interleave ? NULL : mbuf, 0);

	free(dbuf);
	free(mbuf);
	return 0;
}
