// SPDX-License-Identifier: BSD-3-Clause
/*
 * LBA data and metadata of a ramdisk namespace, and end-to-end protection information.
 *
 * Data lives in rd->mem, metadata apart in rd->meta (cfg.ms bytes per LBA) whatever the host
 * layout: mset=1 interleaves metadata after each LBA's data in the data buffer (extended LBA),
 * mset=0 passes it in the separate metadata buffer. A transfer with metadata goes through a
 * bounce buffer holding each LBA as [data | metadata], the layout of an interleaved format, so
 * PI is generated and checked with the library's own xnvme_pi_* on one layout only. The guard
 * covers the same bytes in both host layouts (data, then metadata before the tuple), so the
 * result is what a device computes.
 *
 * Never-written and deallocated LBAs read as zeroes with all-ones PI (the escape values, which
 * disable checking): metadata is stored XOR `rd->blank`, so untouched anonymous memory (zeroes)
 * decodes to exactly that.
 */
#include <stdlib.h>
#include <string.h>

#include "ramdisk.h"

#define SCT_GENERIC XNVME_STATUS_CODE_TYPE_GENERIC
#define SCT_CMDSPEC XNVME_STATUS_CODE_TYPE_CMDSPEC
#define SCT_MEDIA XNVME_STATUS_CODE_TYPE_MEDIA

#define PRINFO_PRACT 0x8
#define PRINFO_PRCHK 0x7

/* Bytes of one LBA in the bounce buffer */
static inline size_t
span_of(const struct ramdisk *rd)
{
	return (size_t)rd->lba_nbytes + rd->cfg.ms;
}

static inline uint8_t *
data_at(const struct ramdisk *rd, uint64_t lba)
{
	return rd->mem + (lba << rd->lba_shift);
}

static void
md_store(const struct ramdisk *rd, uint64_t lba, const uint8_t *src)
{
	uint8_t *dst = rd->meta + lba * rd->cfg.ms;

	for (size_t i = 0; i < rd->cfg.ms; ++i) {
		dst[i] = src[i] ^ rd->blank[i];
	}
}

static void
md_load(const struct ramdisk *rd, uint64_t lba, uint8_t *dst)
{
	const uint8_t *src = rd->meta + lba * rd->cfg.ms;

	for (size_t i = 0; i < rd->cfg.ms; ++i) {
		dst[i] = src[i] ^ rd->blank[i];
	}
}

/* Reference and application tags of a command: ILBRT (+ CDW3 bits 47:32 with 64-bit guards) */
static void
cmd_tags(const struct ramdisk *rd, const struct xnvme_cmd_ctx *ctx, struct ramdisk_xfer *x)
{
	x->reftag = ctx->cmd.nvm.ilbrt;
	if (rd->cfg.pif == XNVME_SPEC_NVM_NS_64B_GUARD) {
		x->reftag |= (uint64_t)(ctx->cmd.common.cdw03 & 0xFFFF) << 32;
	}
	x->apptag = (uint16_t)ctx->cmd.nvm.lbat;
	x->appmask = (uint16_t)ctx->cmd.nvm.lbatm;
}

/*
 * A PI context over canonical [data | metadata] blocks. xnvme_pi_ctx_init refuses the reference
 * tag flag with Type 3 (hosts cannot check it); the controller still generates that tag, so the
 * flags are set after validation.
 */
static void
pi_ctx(const struct ramdisk *rd, const struct ramdisk_xfer *x, uint32_t flags,
       struct xnvme_pi_ctx *pc)
{
	uint32_t init_flags = flags;

	if (rd->cfg.pi == XNVME_PI_TYPE3) {
		init_flags &= ~(uint32_t)XNVME_PI_FLAGS_REFTAG_CHECK;
	}
	xnvme_pi_ctx_init(pc, (uint32_t)span_of(rd), rd->cfg.ms, true, rd->cfg.pil,
			  (enum xnvme_pi_type)rd->cfg.pi, init_flags, 0, x->appmask, x->apptag,
			  (enum xnvme_spec_nvm_ns_pif)rd->cfg.pif);
	pc->pi_flags = flags;
	pc->init_ref_tag = x->reftag;
}

static void
pi_generate(const struct ramdisk *rd, struct ramdisk_xfer *x)
{
	struct xnvme_pi_ctx pc;

	pi_ctx(rd, x,
	       XNVME_PI_FLAGS_GUARD_CHECK | XNVME_PI_FLAGS_APPTAG_CHECK |
		       XNVME_PI_FLAGS_REFTAG_CHECK,
	       &pc);
	xnvme_pi_generate(&pc, x->bounce, NULL, (uint32_t)x->nlbas);
}

/* Checks per LBA in the order guard, application tag, reference tag; the first failure wins */
static int
pi_check(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, struct ramdisk_xfer *x)
{
	static const struct {
		uint32_t flag;
		uint8_t sc;
	} checks[] = {
		{XNVME_PI_FLAGS_GUARD_CHECK, RAMDISK_SC_GUARD_CHECK},
		{XNVME_PI_FLAGS_APPTAG_CHECK, RAMDISK_SC_APPTAG_CHECK},
		{XNVME_PI_FLAGS_REFTAG_CHECK, RAMDISK_SC_REFTAG_CHECK},
	};
	struct xnvme_pi_ctx pc[3];
	size_t span = span_of(rd);

	if (!x->prchk) {
		return 0;
	}
	for (int c = 0; c < 3; ++c) {
		pi_ctx(rd, x, checks[c].flag, &pc[c]);
	}
	for (uint64_t i = 0; i < x->nlbas; ++i) {
		uint8_t *blk = x->bounce + i * span;

		for (int c = 0; c < 3; ++c) {
			if (!(x->prchk & checks[c].flag)) {
				continue;
			}
			/* Type 3 reference tags are opaque to the controller */
			if (checks[c].flag == XNVME_PI_FLAGS_REFTAG_CHECK &&
			    rd->cfg.pi == XNVME_PI_TYPE3) {
				continue;
			}
			pc[c].init_ref_tag = x->reftag + i;
			if (xnvme_pi_verify(&pc[c], blk, NULL, 1)) {
				ramdisk_stat_add(&rd->stats.media_errs, 1);
				return ramdisk_status(ctx, SCT_MEDIA, checks[c].sc);
			}
		}
	}
	return 0;
}

int
xnvme_ramdisk_xfer_init(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, struct ramdisk_xfer *x,
			uint64_t slba, uint64_t nlbas, const struct ramdisk_io *io)
{
	const struct ramdisk_cfg *cfg = &rd->cfg;
	size_t per_lba;

	memset(x, 0, sizeof(*x));
	x->slba = slba;
	x->nlbas = nlbas;

	if (cfg->pi) {
		uint8_t prinfo = (uint8_t)ctx->cmd.nvm.prinfo;
		uint64_t mask =
			cfg->pif == XNVME_SPEC_NVM_NS_16B_GUARD ? 0xFFFFFFFFULL : 0xFFFFFFFFFFFFULL;

		x->pract = prinfo & PRINFO_PRACT;
		x->prchk = prinfo & PRINFO_PRCHK;
		x->strip = x->pract && cfg->ms == rd->pi_nbytes;
		cmd_tags(rd, ctx, x);

		/* Type 1 reference tags are the LBA: checking against another is a host error */
		if (cfg->pi == XNVME_PI_TYPE1 && (x->prchk & XNVME_PI_FLAGS_REFTAG_CHECK) &&
		    x->reftag != (slba & mask)) {
			return ramdisk_status(ctx, SCT_CMDSPEC, RAMDISK_SC_INVALID_PI);
		}
	}

	per_lba = rd->lba_nbytes + (cfg->mset && !x->strip ? cfg->ms : 0);
	x->dnbytes = (size_t)nlbas * per_lba;
	if (cfg->ms && !cfg->mset && !x->strip && io->meta.nbytes) {
		x->mnbytes = (size_t)nlbas * cfg->ms;
	}
	if (x->dnbytes > RAMDISK_MDTS_NBYTES || io->data.bad || io->data.nbytes < x->dnbytes ||
	    io->meta.bad || io->meta.nbytes < x->mnbytes) {
		return ramdisk_invalid_field(ctx);
	}

	if (cfg->ms) {
		x->bounce = malloc((size_t)nlbas * span_of(rd));
		if (!x->bounce) {
			xnvme_cpl_set_errno(ctx, ENOMEM);
			return -ENOMEM;
		}
	}
	return 0;
}

void
xnvme_ramdisk_xfer_fini(struct ramdisk_xfer *x)
{
	free(x->bounce);
	x->bounce = NULL;
}

/*
 * Without a metadata buffer on a separate-metadata format the host sends no metadata: the LBAs
 * get zeroed metadata (and fail PI checks, as they would on a device)
 */
int
xnvme_ramdisk_xfer_from_host(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, struct ramdisk_xfer *x,
			     const struct ramdisk_io *io)
{
	const struct ramdisk_cfg *cfg = &rd->cfg;
	struct ramdisk_cursor dcur, mcur;
	size_t span = span_of(rd);

	if (!x->bounce) {
		return 0;
	}
	xnvme_ramdisk_cursor_init(&dcur, &io->data);
	xnvme_ramdisk_cursor_init(&mcur, &io->meta);
	for (uint64_t i = 0; i < x->nlbas; ++i) {
		uint8_t *blk = x->bounce + i * span;

		xnvme_ramdisk_cursor_get(&dcur, blk, rd->lba_nbytes);
		if (x->strip || (!cfg->mset && !x->mnbytes)) {
			memset(blk + rd->lba_nbytes, 0, cfg->ms);
		} else {
			xnvme_ramdisk_cursor_get(cfg->mset ? &dcur : &mcur, blk + rd->lba_nbytes,
						 cfg->ms);
		}
	}
	if (!cfg->pi) {
		return 0;
	}
	if (x->pract) {
		pi_generate(rd, x);
		return 0;
	}
	return pi_check(rd, ctx, x);
}

void
xnvme_ramdisk_xfer_commit(struct ramdisk *rd, struct ramdisk_xfer *x, const struct ramdisk_io *io)
{
	size_t span = span_of(rd);

	if (!x->bounce) {
		xnvme_ramdisk_payload_gather(&io->data, data_at(rd, x->slba),
					     (size_t)(x->nlbas << rd->lba_shift));
		return;
	}
	for (uint64_t i = 0; i < x->nlbas; ++i) {
		const uint8_t *blk = x->bounce + i * span;

		memcpy(data_at(rd, x->slba + i), blk, rd->lba_nbytes);
		md_store(rd, x->slba + i, blk + rd->lba_nbytes);
	}
}

int
xnvme_ramdisk_xfer_load(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, struct ramdisk_xfer *x)
{
	size_t span = span_of(rd);

	if (!x->bounce) {
		return 0;
	}
	for (uint64_t i = 0; i < x->nlbas; ++i) {
		uint8_t *blk = x->bounce + i * span;

		memcpy(blk, data_at(rd, x->slba + i), rd->lba_nbytes);
		md_load(rd, x->slba + i, blk + rd->lba_nbytes);
	}
	return rd->cfg.pi ? pi_check(rd, ctx, x) : 0;
}

void
xnvme_ramdisk_xfer_to_host(struct ramdisk *rd, struct ramdisk_xfer *x, const struct ramdisk_io *io)
{
	const struct ramdisk_cfg *cfg = &rd->cfg;
	struct ramdisk_cursor dcur, mcur;
	size_t span = span_of(rd);

	if (!x->bounce) {
		xnvme_ramdisk_payload_scatter(&io->data, data_at(rd, x->slba),
					      (size_t)(x->nlbas << rd->lba_shift));
		return;
	}
	xnvme_ramdisk_cursor_init(&dcur, &io->data);
	xnvme_ramdisk_cursor_init(&mcur, &io->meta);
	for (uint64_t i = 0; i < x->nlbas; ++i) {
		const uint8_t *blk = x->bounce + i * span;

		xnvme_ramdisk_cursor_put(&dcur, blk, rd->lba_nbytes);
		if (x->strip || (!cfg->mset && !x->mnbytes)) {
			continue;
		}
		xnvme_ramdisk_cursor_put(cfg->mset ? &dcur : &mcur, blk + rd->lba_nbytes, cfg->ms);
	}
}

bool
xnvme_ramdisk_xfer_equal(struct ramdisk *rd, struct ramdisk_xfer *x, const struct ramdisk_io *io)
{
	const struct ramdisk_cfg *cfg = &rd->cfg;
	struct ramdisk_cursor dcur, mcur;
	size_t span = span_of(rd);

	if (!x->bounce) {
		return xnvme_ramdisk_payload_equal(&io->data, data_at(rd, x->slba),
						   (size_t)(x->nlbas << rd->lba_shift));
	}
	xnvme_ramdisk_cursor_init(&dcur, &io->data);
	xnvme_ramdisk_cursor_init(&mcur, &io->meta);
	for (uint64_t i = 0; i < x->nlbas; ++i) {
		const uint8_t *blk = x->bounce + i * span;

		if (!xnvme_ramdisk_cursor_equal(&dcur, blk, rd->lba_nbytes)) {
			return false;
		}
		if (x->strip || (!cfg->mset && !x->mnbytes)) {
			continue;
		}
		if (!xnvme_ramdisk_cursor_equal(cfg->mset ? &dcur : &mcur, blk + rd->lba_nbytes,
						cfg->ms)) {
			return false;
		}
	}
	return true;
}

void
xnvme_ramdisk_media_zero(struct ramdisk *rd, uint64_t slba, uint64_t nlbas)
{
	xnvme_ramdisk_mem_zero(rd->mem, slba << rd->lba_shift, nlbas << rd->lba_shift);
	if (rd->meta) {
		xnvme_ramdisk_mem_zero(rd->meta, slba * rd->cfg.ms, nlbas * rd->cfg.ms);
	}
}

void
xnvme_ramdisk_media_move(struct ramdisk *rd, uint64_t dst, uint64_t src, uint64_t nlbas)
{
	memmove(data_at(rd, dst), data_at(rd, src), (size_t)(nlbas << rd->lba_shift));
	if (rd->meta) {
		memmove(rd->meta + dst * rd->cfg.ms, rd->meta + src * rd->cfg.ms,
			(size_t)(nlbas * rd->cfg.ms));
	}
}

void
xnvme_ramdisk_media_zero_pi(struct ramdisk *rd, const struct xnvme_cmd_ctx *ctx, uint64_t slba,
			    uint64_t nlbas)
{
	uint8_t blk[(4096 + 256)];
	struct ramdisk_xfer x;

	xnvme_ramdisk_media_zero(rd, slba, nlbas);

	memset(&x, 0, sizeof(x));
	cmd_tags(rd, ctx, &x);
	x.nlbas = 1;
	x.bounce = blk;
	for (uint64_t i = 0; i < nlbas; ++i) {
		memset(blk, 0, span_of(rd));
		pi_generate(rd, &x);
		md_store(rd, slba + i, blk + rd->lba_nbytes);
		if (rd->cfg.pi != XNVME_PI_TYPE3) {
			x.reftag++;
		}
	}
}
