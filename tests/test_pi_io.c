// SPDX-License-Identifier: BSD-3-Clause
/*
 * Metadata and end-to-end protection information on the data path: for ramdisks with 8 bytes
 * of metadata (PI types 1-3, at either end, interleaved or separate), 16 bytes with the 64-bit
 * guard, PI inside larger metadata and metadata without PI: geometry, host-generated PI
 * written and read with PRCHK and checked with xnvme_pi_verify, PRACT (insert and strip), the
 * guard, application and reference tag check errors, unwritten LBAs and Write Zeroes.
 *
 * Usage: test_pi_io [--uri URI] [--be NAME] [--mech NAME]
 *
 * With --uri the format is taken from the device's geometry and only the spec-mandated checks
 * run on it (LBAs 0..63 are overwritten).
 */
#include <errno.h>
#include <string.h>
#include <libxnvme.h>

#include "xnvme_test.h"

#define NLB 4
#define APPTAG 0x1234

#define SC_INVALID_PI 0x81
#define SC_GUARD 0x82
#define SC_APPTAG 0x83
#define SC_REFTAG 0x84

#define PRACT 0x8
#define CHK_ALL                                                                                    \
	(XNVME_PI_FLAGS_GUARD_CHECK | XNVME_PI_FLAGS_APPTAG_CHECK | XNVME_PI_FLAGS_REFTAG_CHECK)

struct fmt {
	uint8_t lbads;
	uint16_t ms;
	uint8_t mset;
	uint8_t pi;
	uint8_t pil;
	uint8_t pif;
};

static struct {
	struct xnvme_dev *dev;
	const struct xnvme_geo *geo;
	struct fmt f;
	uint32_t nsid;
	uint8_t *dbuf; ///< NLB LBAs as the host lays them out
	uint8_t *mbuf; ///< NLB metadata, separate formats
	uint8_t *rbuf;
	uint8_t *rmbuf;
} t;

/* The checks the host may ask for: Type 3 has no reference tag to check */
static uint32_t
chk_all(void)
{
	return t.f.pi == XNVME_PI_TYPE3 ? CHK_ALL & ~XNVME_PI_FLAGS_REFTAG_CHECK : CHK_ALL;
}

static int
io(bool write, uint64_t slba, uint8_t prinfo, uint64_t ref, uint16_t lbat, uint16_t lbatm,
   void *dbuf, void *mbuf, struct xnvme_cmd_ctx *ctx)
{
	*ctx = xnvme_cmd_ctx_from_dev(t.dev);
	ctx->cmd.nvm.prinfo = prinfo;
	ctx->cmd.nvm.ilbrt = (uint32_t)ref;
	ctx->cmd.common.cdw03 = (uint32_t)(ref >> 32) & 0xFFFF;
	ctx->cmd.nvm.lbat = lbat;
	ctx->cmd.nvm.lbatm = lbatm;
	if (write) {
		return xnvme_nvm_write(ctx, t.nsid, slba, NLB - 1, dbuf, mbuf);
	}
	return xnvme_nvm_read(ctx, t.nsid, slba, NLB - 1, dbuf, mbuf);
}

static int
host_pi(uint32_t flags, uint32_t ref, uint16_t app, struct xnvme_pi_ctx *pc)
{
	return xnvme_pi_ctx_init(pc, t.geo->lba_nbytes, t.f.ms, t.f.mset, t.f.pil,
				 (enum xnvme_pi_type)t.f.pi, flags, ref, 0xFFFF, app,
				 (enum xnvme_spec_nvm_ns_pif)t.f.pif);
}

/* Data and (non-PI) metadata bytes of the host buffers; the PI is generated on top */
static void
fill(uint64_t slba)
{
	for (size_t i = 0; i < (size_t)NLB * t.geo->lba_nbytes; ++i) {
		t.dbuf[i] = (uint8_t)(slba * 31 + i * 13 + 1);
	}
	for (size_t i = 0; t.mbuf && i < (size_t)NLB * t.f.ms; ++i) {
		t.mbuf[i] = (uint8_t)(i * 3 + 7);
	}
}

static void
clear_read_bufs(void)
{
	memset(t.rbuf, 0xEE, (size_t)NLB * t.geo->lba_nbytes);
	if (t.rmbuf) {
		memset(t.rmbuf, 0xEE, (size_t)NLB * t.f.ms);
	}
}

/* Reads the LBAs at `slba` back with every check; their PI must verify as the host's */
static void
read_verified(uint64_t slba)
{
	struct xnvme_pi_ctx pc;
	struct xnvme_cmd_ctx ctx;
	int err;

	clear_read_bufs();
	err = io(false, slba, (uint8_t)chk_all(), slba, APPTAG, 0xFFFF, t.rbuf, t.rmbuf, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(host_pi(chk_all(), (uint32_t)slba, APPTAG, &pc), 0);
	CHECK_EQ(xnvme_pi_verify(&pc, t.rbuf, t.rmbuf, NLB), 0);
}

static bool
bufs_equal(void)
{
	return !memcmp(t.dbuf, t.rbuf, (size_t)NLB * t.geo->lba_nbytes) &&
	       (!t.mbuf || !memcmp(t.mbuf, t.rmbuf, (size_t)NLB * t.f.ms));
}

static void
test_geometry(bool ramdisk)
{
	const struct xnvme_geo *geo = t.geo;

	CHECK_EQ(geo->nbytes, 1U << t.f.lbads);
	CHECK_EQ(geo->nbytes_oob, t.f.ms);
	CHECK_EQ(geo->lba_extended, t.f.mset);
	CHECK_EQ(geo->lba_nbytes, geo->nbytes + (t.f.mset ? t.f.ms : 0));
	CHECK_EQ(geo->pi_type, t.f.pi);
	if (t.f.pi) {
		CHECK_EQ(geo->pi_loc, t.f.pil);
		CHECK_EQ(geo->pi_format, t.f.pif);
		CHECK(xnvme_pi_size((enum xnvme_spec_nvm_ns_pif)geo->pi_format) <= geo->nbytes_oob);
	}
	if (ramdisk) {
		const struct xnvme_spec_idfy_ns *ns = xnvme_dev_get_ns(t.dev);

		CHECK_EQ(ns->lbaf[0].ms, t.f.ms);
		CHECK_EQ(ns->flbas.extended, t.f.mset);
		CHECK_EQ(ns->dps.pit, t.f.pi);
		CHECK_EQ(ns->dps.md_start, t.f.pi ? t.f.pil : 0);
	}
}

/* Metadata without PI: it round-trips, interleaved or separate */
static void
test_metadata(void)
{
	struct xnvme_cmd_ctx ctx;
	int err;

	fill(16);
	err = io(true, 16, 0, 0, 0, 0, t.dbuf, t.mbuf, &ctx);
	CHECK_OK(err, ctx);
	clear_read_bufs();
	err = io(false, 16, 0, 0, 0, 0, t.rbuf, t.rmbuf, &ctx);
	CHECK_OK(err, ctx);
	CHECK(bufs_equal());
}

/* Host-generated PI, written and read with every check, verified by the library */
static void
test_host_pi(void)
{
	struct xnvme_pi_ctx pc;
	struct xnvme_cmd_ctx ctx;
	uint64_t slba = 8;
	int err;

	CHECK_EQ(host_pi(chk_all(), (uint32_t)slba, APPTAG, &pc), 0);
	fill(slba);
	xnvme_pi_generate(&pc, t.dbuf, t.mbuf, NLB);
	err = io(true, slba, (uint8_t)chk_all(), slba, APPTAG, 0xFFFF, t.dbuf, t.mbuf, &ctx);
	CHECK_OK(err, ctx);

	clear_read_bufs();
	err = io(false, slba, (uint8_t)chk_all(), slba, APPTAG, 0xFFFF, t.rbuf, t.rmbuf, &ctx);
	CHECK_OK(err, ctx);
	CHECK(bufs_equal());
	CHECK_EQ(xnvme_pi_verify(&pc, t.rbuf, t.rmbuf, NLB), 0);

	/* an application tag outside the mask is not compared */
	err = io(false, slba, XNVME_PI_FLAGS_APPTAG_CHECK, slba, APPTAG ^ 0xFF00, 0x00FF, t.rbuf,
		 t.rmbuf, &ctx);
	CHECK_OK(err, ctx);
	err = io(false, slba, XNVME_PI_FLAGS_APPTAG_CHECK, slba, 0x4321, 0xFFFF, t.rbuf, t.rmbuf,
		 &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_MEDIA, SC_APPTAG);

	/* a corrupted guard: refused on write, and on read when stored unchecked */
	t.dbuf[t.geo->lba_nbytes + 3] ^= 0x01;
	err = io(true, slba, (uint8_t)chk_all(), slba, APPTAG, 0xFFFF, t.dbuf, t.mbuf, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_MEDIA, SC_GUARD);
	err = io(true, slba, XNVME_PI_FLAGS_APPTAG_CHECK, slba, APPTAG, 0xFFFF, t.dbuf, t.mbuf,
		 &ctx);
	CHECK_OK(err, ctx);
	err = io(false, slba, XNVME_PI_FLAGS_GUARD_CHECK, slba, APPTAG, 0xFFFF, t.rbuf, t.rmbuf,
		 &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_MEDIA, SC_GUARD);
	/* without checks the data is returned as stored */
	err = io(false, slba, 0, slba, 0, 0, t.rbuf, t.rmbuf, &ctx);
	CHECK_OK(err, ctx);
	CHECK(bufs_equal());
}

/* Reference tags: stored for other LBAs, or a Type 1 ILBRT that is not the LBA */
static void
test_reftag(void)
{
	uint32_t chk = XNVME_PI_FLAGS_GUARD_CHECK | XNVME_PI_FLAGS_APPTAG_CHECK;
	struct xnvme_pi_ctx pc;
	struct xnvme_cmd_ctx ctx;
	uint64_t slba = 24;
	int err;

	if (t.f.pi == XNVME_PI_TYPE3) {
		return;
	}
	CHECK_EQ(host_pi(chk | XNVME_PI_FLAGS_REFTAG_CHECK, (uint32_t)slba + 100, APPTAG, &pc), 0);
	fill(slba);
	xnvme_pi_generate(&pc, t.dbuf, t.mbuf, NLB);
	err = io(true, slba, (uint8_t)chk, slba, APPTAG, 0xFFFF, t.dbuf, t.mbuf, &ctx);
	CHECK_OK(err, ctx);
	err = io(false, slba, XNVME_PI_FLAGS_REFTAG_CHECK, slba, APPTAG, 0xFFFF, t.rbuf, t.rmbuf,
		 &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_MEDIA, SC_REFTAG);

	/* Type 2 takes any initial tag: the stored one matches */
	if (t.f.pi == XNVME_PI_TYPE2) {
		err = io(false, slba, XNVME_PI_FLAGS_REFTAG_CHECK, slba + 100, APPTAG, 0xFFFF,
			 t.rbuf, t.rmbuf, &ctx);
		CHECK_OK(err, ctx);
	}
	if (t.f.pi == XNVME_PI_TYPE1) {
		err = io(false, slba, XNVME_PI_FLAGS_REFTAG_CHECK, slba + 100, APPTAG, 0xFFFF,
			 t.rbuf, t.rmbuf, &ctx);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, SC_INVALID_PI);
	}
}

/* PRACT: the controller inserts PI; with PI-only metadata none crosses the interface */
static void
test_pract(void)
{
	bool strip = t.f.ms == xnvme_pi_size((enum xnvme_spec_nvm_ns_pif)t.f.pif);
	size_t nbytes = t.geo->nbytes;
	struct xnvme_cmd_ctx ctx;
	uint64_t slba = 40;
	int err;

	fill(slba);
	err = io(true, slba, PRACT | (uint8_t)chk_all(), slba, APPTAG, 0xFFFF, t.dbuf,
		 strip ? NULL : t.mbuf, &ctx);
	CHECK_OK(err, ctx);

	/* read back with the PI: it is the controller's */
	read_verified(slba);
	/* what the host sent was data only, LBAs back to back */
	for (size_t l = 0; strip && l < NLB; ++l) {
		CHECK(!memcmp(t.rbuf + l * t.geo->lba_nbytes, t.dbuf + l * nbytes, nbytes));
	}

	/* read with PRACT: checked and, PI-only, stripped: data LBAs back to back */
	if (strip) {
		memset(t.rbuf, 0xEE, (size_t)NLB * t.geo->lba_nbytes);
		err = io(false, slba, PRACT | (uint8_t)chk_all(), slba, APPTAG, 0xFFFF, t.rbuf,
			 NULL, &ctx);
		CHECK_OK(err, ctx);
		CHECK(!memcmp(t.rbuf, t.dbuf, NLB * nbytes));
		if (t.f.mset) {
			CHECK_EQ(t.rbuf[NLB * nbytes], 0xEE);
		}
	}
}

/* Unwritten LBAs carry escape PI: checks pass. Write Zeroes with PRACT carries real PI */
static void
test_unwritten_and_zeroes(bool ramdisk)
{
	struct xnvme_cmd_ctx ctx;
	uint64_t slba = 1024;
	int err;

	err = io(false, slba, (uint8_t)chk_all(), slba, APPTAG, 0xFFFF, t.rbuf, t.rmbuf, &ctx);
	CHECK_OK(err, ctx);
	if (!ramdisk || !xnvme_dev_get_ctrlr(t.dev)->oncs.write_zeroes) {
		return;
	}
	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	ctx.cmd.write_zeroes.prinfo = PRACT;
	ctx.cmd.write_zeroes.ilbrt = (uint32_t)slba;
	ctx.cmd.write_zeroes.lbat = APPTAG;
	err = xnvme_nvm_write_zeroes(&ctx, t.nsid, slba, NLB - 1);
	CHECK_OK(err, ctx);
	read_verified(slba);
	CHECK_EQ(t.rbuf[0], 0);
}

static void
run(bool ramdisk)
{
	size_t dnbytes = (size_t)NLB * t.geo->lba_nbytes;
	size_t mnbytes = (size_t)NLB * t.f.ms;

	t.nsid = xnvme_dev_get_nsid(t.dev);
	t.dbuf = xnvme_buf_alloc(t.dev, dnbytes);
	t.rbuf = xnvme_buf_alloc(t.dev, dnbytes);
	t.mbuf = t.f.ms && !t.f.mset ? xnvme_buf_alloc(t.dev, mnbytes) : NULL;
	t.rmbuf = t.f.ms && !t.f.mset ? xnvme_buf_alloc(t.dev, mnbytes) : NULL;
	CHECK(t.dbuf && t.rbuf && (!t.f.ms || t.f.mset || (t.mbuf && t.rmbuf)));
	if (t.dbuf && t.rbuf && (!t.f.ms || t.f.mset || (t.mbuf && t.rmbuf))) {
		test_geometry(ramdisk);
		test_metadata();
		if (t.f.pi) {
			test_host_pi();
			test_reftag();
			test_pract();
			test_unwritten_and_zeroes(ramdisk);
		}
	}
	xnvme_buf_free(t.dev, t.dbuf);
	xnvme_buf_free(t.dev, t.rbuf);
	xnvme_buf_free(t.dev, t.mbuf);
	xnvme_buf_free(t.dev, t.rmbuf);
}

static void
run_ramdisk(const struct fmt *f)
{
	struct xnvme_opts opts = xnvme_opts_default();
	char uri[128];
	int before = xnvme_test_nfail;

	snprintf(uri, sizeof(uri), "1GB?lbads=%u,ms=%u,mset=%u,pi=%u,pil=%u,pif=%u", f->lbads,
		 f->ms, f->mset, f->pi, f->pil, f->pif);
	opts.be = "ramdisk";
	t.dev = xnvme_dev_open(uri, &opts);
	CHECK(t.dev != NULL);
	if (!t.dev) {
		return;
	}
	t.f = *f;
	t.geo = xnvme_dev_get_geo(t.dev);
	run(true);
	xnvme_dev_close(t.dev);
	if (xnvme_test_nfail != before) {
		fprintf(stderr, "  ... with %s\n", uri);
	}
}

static void
test_uris(void)
{
	const char *bad[] = {"1GB?pi=1",        "1GB?ms=8,pif=2", "1GB?mset=1",    "1GB?ms=257",
			     "1GB?ms=16,pif=1", "1GB?lbads=10",   "1GB?ms=8,pi=4", "1GB?ms=8,pil=2",
			     "1GB?ms=8,,pi=1",  "1GB?ms",         "1GB?",          "1GB?ms=8x"};

	xnvme_test_open_fails(bad, sizeof(bad) / sizeof(bad[0]), EINVAL);
}

int
main(int argc, char **argv)
{
	struct xnvme_opts opts = xnvme_opts_default();
	const char *uri = xnvme_test_args(argc, argv, NULL, &opts);

	if (uri) {
		t.dev = xnvme_test_open(uri, &opts);
		if (!t.dev) {
			return XNVME_TEST_SKIP;
		}
		t.geo = xnvme_dev_get_geo(t.dev);
		t.f.lbads = (uint8_t)t.geo->ssw;
		t.f.ms = (uint16_t)t.geo->nbytes_oob;
		t.f.mset = t.geo->lba_extended;
		t.f.pi = t.geo->pi_type;
		t.f.pil = t.geo->pi_loc;
		t.f.pif = t.geo->pi_format;
		if (t.geo->type != XNVME_GEO_CONVENTIONAL || !t.f.ms) {
			fprintf(stderr, "%s: no metadata\n", uri);
			xnvme_dev_close(t.dev);
			return XNVME_TEST_SKIP;
		}
		run(false);
		xnvme_dev_close(t.dev);
		return xnvme_test_result("pi_io");
	}

	/*
	 * 8-byte metadata: every pair of (type, location, interleaving) values appears (a
	 * pairwise cover, not all twelve: each 1 GiB ramdisk costs seconds under valgrind); the
	 * 64-bit guard; PI within larger metadata; metadata without PI
	 */
	{
		const struct fmt fmts[] = {
			{9, 8, 0, 1, 0, XNVME_SPEC_NVM_NS_16B_GUARD},
			{9, 8, 1, 2, 0, XNVME_SPEC_NVM_NS_16B_GUARD},
			{9, 8, 0, 3, 1, XNVME_SPEC_NVM_NS_16B_GUARD},
			{9, 8, 1, 1, 1, XNVME_SPEC_NVM_NS_16B_GUARD},
			{9, 8, 0, 2, 1, XNVME_SPEC_NVM_NS_16B_GUARD},
			{9, 8, 1, 3, 0, XNVME_SPEC_NVM_NS_16B_GUARD},
			{12, 16, 0, 1, 0, XNVME_SPEC_NVM_NS_64B_GUARD},
			{12, 16, 1, 1, 1, XNVME_SPEC_NVM_NS_64B_GUARD},
			{9, 16, 1, 2, 0, XNVME_SPEC_NVM_NS_64B_GUARD},
			{9, 16, 0, 1, 1, XNVME_SPEC_NVM_NS_16B_GUARD},
			{12, 64, 1, 0, 0, XNVME_SPEC_NVM_NS_16B_GUARD},
		};

		for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); ++i) {
			run_ramdisk(&fmts[i]);
		}
	}
	test_uris();
	return xnvme_test_result("pi_io");
}
