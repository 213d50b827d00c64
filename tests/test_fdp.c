// SPDX-License-Identifier: BSD-3-Clause
/*
 * Flexible Data Placement through the public API: detection the way clients do it (Get Features
 * 0x1D with a clean synchronous context, cdw0 bit 0), reclaim unit handle status with fio's
 * buffer sizing, placement writes charging reclaim units and the statistics, handle updates,
 * the FDP log pages, events, the data placement directive, invalid placement identifiers, and a
 * namespace without FDP.
 *
 * Usage: test_fdp [--uri URI] [--be NAME] [--mech NAME]
 *
 * Without --uri it runs against the FDP ramdisk below and checks exact values; with --uri (e.g.
 * a QEMU FDP namespace) only what the FDP model mandates. It writes to the first LBAs.
 */
#include <errno.h>
#include <string.h>
#include <libxnvme.h>

#include "xnvme_test.h"

#define RD_URI "1GB?fdp=1,nruh=4,runs=1M"
#define RD_NRUH 4
#define RD_RU_NLBAS 2048

#define SC_INVALID_LOG_PAGE 0x09

static struct {
	struct xnvme_dev *dev;
	const struct xnvme_geo *geo;
	bool ramdisk;
	uint32_t nsid;
	uint16_t endgid;
	uint16_t nruhsd;
	uint64_t ru_nlbas; ///< reclaim unit size in LBAs, from the configuration log
	uint8_t *buf;      ///< 4 KiB + MDTS
	uint8_t *small;    ///< 4 KiB for small payloads (device-reachable memory, as for vfio)
} t;

/* FDP mode as clients detect it: cdw0 stays 0 when the command fails */
static uint32_t
fdp_mode(struct xnvme_dev *dev, uint32_t cdw11)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);

	xnvme_prep_adm_gfeat(&ctx, xnvme_dev_get_nsid(dev), XNVME_SPEC_FEAT_FDP_MODE,
			     XNVME_SPEC_FEAT_SEL_CURRENT);
	ctx.cmd.gfeat.cdw11 = cdw11;
	xnvme_cmd_pass_admin(&ctx, NULL, 0, NULL, 0);
	return ctx.cpl.cdw0;
}

/* Reclaim unit handle status as fio fetches it: header first, then all descriptors */
static struct xnvme_spec_ruhs *
ruhs_fetch(void)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(t.dev);
	struct xnvme_spec_ruhs hdr;
	struct xnvme_spec_ruhs *ruhs;
	uint32_t nbytes;
	int err;

	memset(t.small, 0, sizeof(hdr));
	err = xnvme_nvm_mgmt_recv(&ctx, t.nsid, XNVME_SPEC_IO_MGMT_RECV_RUHS, 0, t.small,
				  sizeof(hdr));
	CHECK_OK(err, ctx);
	memcpy(&hdr, t.small, sizeof(hdr));
	if (err || !hdr.nruhsd) {
		return NULL;
	}
	nbytes = sizeof(*ruhs) + hdr.nruhsd * sizeof(struct xnvme_spec_ruhs_desc);
	ruhs = xnvme_buf_alloc(t.dev, nbytes);
	if (!ruhs) {
		return NULL;
	}
	memset(ruhs, 0, nbytes);
	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	err = xnvme_nvm_mgmt_recv(&ctx, t.nsid, XNVME_SPEC_IO_MGMT_RECV_RUHS, 0, ruhs, nbytes);
	CHECK_OK(err, ctx);
	CHECK_EQ(ruhs->nruhsd, hdr.nruhsd);
	return ruhs;
}

static uint64_t
ruamw(uint16_t pid)
{
	struct xnvme_spec_ruhs *ruhs = ruhs_fetch();
	uint64_t val = 0;

	for (uint16_t i = 0; ruhs && i < ruhs->nruhsd; ++i) {
		if (ruhs->desc[i].pi == pid) {
			val = ruhs->desc[i].ruamw;
		}
	}
	xnvme_buf_free(t.dev, ruhs);
	return val;
}

/* A write of nlbas LBAs at slba with the given directive type and placement identifier */
static int
pwrite(uint64_t slba, uint32_t nlbas, uint8_t dtype, uint16_t pid, struct xnvme_cmd_ctx *ctx)
{
	*ctx = xnvme_cmd_ctx_from_dev(t.dev);
	ctx->cmd.nvm.dtype = dtype;
	ctx->cmd.nvm.cdw13.dspec = pid;
	memset(t.buf, 0x77, (size_t)nlbas * t.geo->lba_nbytes);
	return xnvme_nvm_write(ctx, t.nsid, slba, (uint16_t)(nlbas - 1), t.buf, NULL);
}

static int
ruh_update(uint16_t pid, struct xnvme_cmd_ctx *ctx)
{
	uint16_t pids[2] = {pid, 0};

	memcpy(t.small, pids, sizeof(pids));
	*ctx = xnvme_cmd_ctx_from_dev(t.dev);
	return xnvme_nvm_mgmt_send(ctx, t.nsid, XNVME_SPEC_IO_MGMT_SEND_RUHU, 0, t.small,
				   sizeof(pids));
}

static int
log_get(uint8_t lid, uint8_t lsp, uint32_t nbytes, struct xnvme_cmd_ctx *ctx)
{
	*ctx = xnvme_cmd_ctx_from_dev(t.dev);
	ctx->cmd.log.lsi = t.endgid;
	return xnvme_adm_log(ctx, lid, lsp, 0, t.nsid, 0, t.buf, nbytes);
}

static uint64_t
hbmw(void)
{
	struct xnvme_cmd_ctx ctx;
	int err =
		log_get(XNVME_SPEC_LOG_FDPSTATS, 0, sizeof(struct xnvme_spec_log_fdp_stats), &ctx);

	CHECK_OK(err, ctx);
	return ((struct xnvme_spec_log_fdp_stats *)t.buf)->hbmw[0];
}

static void
test_detect(void)
{
	CHECK_EQ(xnvme_dev_get_ctrlr(t.dev)->ctratt.flexible_data_placement, 1);
	CHECK_EQ(fdp_mode(t.dev, t.endgid) & 1, 1);
	if (t.ramdisk) {
		CHECK_EQ(t.endgid, 1);
		CHECK_EQ(fdp_mode(t.dev, 0) & 1, 1);
	}
}

static void
test_logs(void)
{
	const struct xnvme_spec_log_fdp_conf *conf = (const void *)t.buf;
	const struct xnvme_spec_log_ruhu *ruhu = (const void *)t.buf;
	const struct xnvme_spec_fdp_conf_desc *desc;
	struct xnvme_cmd_ctx ctx;
	int err;

	err = log_get(XNVME_SPEC_LOG_FDPCONF, 0, 4096, &ctx);
	CHECK_OK(err, ctx);
	desc = conf->conf_desc;
	CHECK_EQ(conf->ncfg, 0);
	CHECK(conf->size >= sizeof(*conf) + sizeof(*desc));
	CHECK_EQ(desc->fdpa.fdpcv, 1);
	CHECK(desc->nrg >= 1);
	CHECK(desc->nruh >= 1);
	CHECK(desc->runs > 0);
	CHECK(desc->ds >= sizeof(*desc) + desc->nruh * sizeof(desc->ruh_desc[0]));
	t.ru_nlbas = desc->runs / t.geo->lba_nbytes;
	if (t.ramdisk) {
		CHECK_EQ(desc->nrg, 1);
		CHECK_EQ(desc->nruh, RD_NRUH);
		CHECK_EQ(desc->maxpids, RD_NRUH - 1);
		CHECK_EQ(desc->runs, 1 << 20);
		CHECK_EQ(desc->ruh_desc[RD_NRUH - 1].ruht, 1);
		CHECK_EQ(conf->size, 16 + 64 + 4 * RD_NRUH);
	}

	err = log_get(XNVME_SPEC_LOG_FDPRUHU, 0, 4096, &ctx);
	CHECK_OK(err, ctx);
	CHECK(ruhu->nruh >= 1);
	if (t.ramdisk) {
		CHECK_EQ(ruhu->nruh, RD_NRUH);
		CHECK_EQ(ruhu->ruhu_desc[0].ruha, 1);
	}

	if (t.ramdisk) {
		ctx = xnvme_cmd_ctx_from_dev(t.dev);
		ctx.cmd.log.lsi = 7;
		err = xnvme_adm_log(&ctx, XNVME_SPEC_LOG_FDPCONF, 0, 0, t.nsid, 0, t.buf, 4096);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
			     XNVME_STATUS_CODE_INVALID_FIELD);
	}
}

static void
test_ruhs_and_writes(void)
{
	struct xnvme_spec_ruhs *ruhs = ruhs_fetch();
	uint16_t pid;
	uint64_t before, stats;
	struct xnvme_cmd_ctx ctx;
	int err;

	CHECK(ruhs != NULL);
	if (!ruhs) {
		return;
	}
	t.nruhsd = ruhs->nruhsd;
	for (uint16_t i = 0; i < ruhs->nruhsd; ++i) {
		CHECK(ruhs->desc[i].ruamw > 0);
		CHECK(ruhs->desc[i].ruamw <= t.ru_nlbas);
	}
	if (t.ramdisk) {
		CHECK_EQ(ruhs->nruhsd, RD_NRUH);
		CHECK_EQ(ruhs->desc[2].pi, 2);
		CHECK_EQ(ruhs->desc[2].ruamw, RD_RU_NLBAS);
	}
	pid = ruhs->desc[ruhs->nruhsd - 1].pi;
	xnvme_buf_free(t.dev, ruhs);

	/* a placement write charges its handle's reclaim unit, and only that one */
	err = ruh_update(pid, &ctx);
	CHECK_OK(err, ctx);
	before = ruamw(pid);
	CHECK_EQ(before, t.ru_nlbas);
	stats = hbmw();
	err = pwrite(0, 8, 2, pid, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(ruamw(pid), before - 8);
	CHECK_EQ(hbmw() - stats, 8ULL * t.geo->lba_nbytes);
	if (t.ramdisk) {
		struct xnvme_spec_log_fdp_stats *st = (void *)t.buf;

		CHECK_EQ(ruamw(0), RD_RU_NLBAS);
		CHECK_EQ(st->mbmw[0], st->hbmw[0]);
	}

	/* the handle update moves the handle to a fresh reclaim unit */
	err = ruh_update(pid, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(ruamw(pid), t.ru_nlbas);

	/* filling a reclaim unit starts the next one */
	if (t.ru_nlbas * t.geo->lba_nbytes <= (16U << 20)) {
		uint32_t chunk = t.geo->mdts_nbytes / t.geo->lba_nbytes;
		uint64_t left = t.ru_nlbas + 3;
		uint64_t slba = 0;

		while (left) {
			uint32_t n = left < chunk ? (uint32_t)left : chunk;

			err = pwrite(slba, n, 2, pid, &ctx);
			CHECK_OK(err, ctx);
			slba += n;
			left -= n;
		}
		CHECK_EQ(ruamw(pid), t.ru_nlbas - 3);
	}

	/* writes without a directive go to placement identifier 0 */
	err = ruh_update(0, &ctx);
	CHECK_OK(err, ctx);
	err = pwrite(0, 5, 0, 0, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(ruamw(0), t.ru_nlbas - 5);

	/* handle updates of identifiers that do not exist */
	err = ruh_update(0xFFFF, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_STATUS_CODE_INVALID_FIELD);

	/* an unknown management operation */
	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	err = xnvme_nvm_mgmt_recv(&ctx, t.nsid, 0x7, 0, t.buf, 64);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_STATUS_CODE_INVALID_FIELD);
}

static void
test_events(void)
{
	const struct xnvme_spec_log_fdp_events *log = (const void *)t.buf;
	uint8_t types[2] = {0x00, 0x03};
	const uint8_t *desc = t.buf;
	struct xnvme_cmd_ctx ctx;
	uint16_t bad_pid = t.nruhsd ? t.nruhsd : 1;
	int err;

	/* enable "reclaim unit not written fully" and "invalid placement identifier" on handle 0 */
	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	ctx.cmd.sfeat.cdw12 = 1;
	err = xnvme_adm_sfeat(&ctx, t.nsid, XNVME_SPEC_FEAT_FDP_EVENTS, 0 | 2 << 16, 0, types,
			      sizeof(types));
	CHECK_OK(err, ctx);

	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	ctx.cmd.gfeat.cdw11 = 0 | 16 << 16;
	memset(t.buf, 0xEE, 64);
	err = xnvme_adm_gfeat(&ctx, t.nsid, XNVME_SPEC_FEAT_FDP_EVENTS, 0, t.buf, 32);
	CHECK_OK(err, ctx);
	CHECK(ctx.cpl.cdw0 >= 2 && ctx.cpl.cdw0 <= 16);
	for (uint32_t i = 0; !err && i < ctx.cpl.cdw0; ++i) {
		if (desc[2 * i] == 0x00 || desc[2 * i] == 0x03) {
			CHECK_EQ(desc[2 * i + 1] & 1, 1);
		}
	}

	/* a write with an invalid placement identifier lands with handle 0 */
	err = pwrite(0, 1, 2, bad_pid, &ctx);
	CHECK_OK(err, ctx);
	err = pwrite(0, 1, 0, 0, &ctx);
	CHECK_OK(err, ctx);
	err = ruh_update(0, &ctx);
	CHECK_OK(err, ctx);

	err = log_get(XNVME_SPEC_LOG_FDPEVENTS, 0, 4096, &ctx);
	CHECK_OK(err, ctx);
	CHECK(log->nevents <= (4096 - 64) / 64);
	if (t.ramdisk) {
		CHECK_EQ(log->nevents, 2);
		CHECK_EQ(log->event[0].type, 0x03);
		CHECK_EQ(log->event[0].pid, bad_pid);
		CHECK_EQ(log->event[1].type, 0x00);
		CHECK_EQ(log->event[1].pid, 0);
		CHECK_EQ(log->event[1].nsid, t.nsid);
		CHECK_EQ(log->event[1].fdpef.nsidv, 1);
		CHECK(log->event[1].timestamp != 0);
		/* controller events: none */
		err = log_get(XNVME_SPEC_LOG_FDPEVENTS, 1, 4096, &ctx);
		CHECK_OK(err, ctx);
		CHECK_EQ(log->nevents, 0);
	}
}

static void
test_directives(void)
{
	struct xnvme_spec_idfy_dir_rp *rp = (void *)t.buf;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(t.dev);
	int err;

	err = xnvme_adm_dir_recv(&ctx, t.nsid, XNVME_SPEC_DRECV_IDFY_RETPR, XNVME_SPEC_DIR_IDENTIFY,
				 0, rp, 4096);
	CHECK_OK(err, ctx);
	CHECK_EQ(rp->directives_supported.identify, 1);
	CHECK_EQ(rp->directives_supported.data_placement, 1);
	CHECK_EQ(rp->directives_enabled.data_placement, 1);
}

/* A ramdisk without FDP refuses every part of it */
static void
test_disabled(void)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_spec_idfy_dir_rp *rp;
	struct xnvme_spec_ruhs hdr;
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *dev;
	uint8_t *buf;
	int err;

	opts.be = "ramdisk";
	dev = xnvme_dev_open("1GB", &opts);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	buf = xnvme_buf_alloc(dev, 4096);
	CHECK(buf != NULL);
	CHECK_EQ(xnvme_dev_get_ctrlr(dev)->ctratt.flexible_data_placement, 0);
	CHECK_EQ(fdp_mode(dev, 0), 0);
	CHECK_EQ(fdp_mode(dev, 1), 0);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 1, XNVME_SPEC_FEAT_FDP_MODE, 0, NULL, 0);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_STATUS_CODE_INVALID_FIELD);
	CHECK_EQ(ctx.cpl.cdw0, 0);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_mgmt_recv(&ctx, 1, XNVME_SPEC_IO_MGMT_RECV_RUHS, 0, &hdr, sizeof(hdr));
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, SC_INVALID_OPCODE);

	if (buf) {
		ctx = xnvme_cmd_ctx_from_dev(dev);
		err = xnvme_adm_log(&ctx, XNVME_SPEC_LOG_FDPCONF, 0, 0, 1, 0, buf, 4096);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, SC_INVALID_LOG_PAGE);

		/* the data placement directive is not enabled: writes carrying it fail */
		ctx = xnvme_cmd_ctx_from_dev(dev);
		ctx.cmd.nvm.dtype = 2;
		err = xnvme_nvm_write(&ctx, 1, 0, 0, buf, NULL);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
			     XNVME_STATUS_CODE_INVALID_FIELD);

		ctx = xnvme_cmd_ctx_from_dev(dev);
		err = xnvme_adm_dir_recv(&ctx, 1, XNVME_SPEC_DRECV_IDFY_RETPR,
					 XNVME_SPEC_DIR_IDENTIFY, 0, buf, 4096);
		CHECK_OK(err, ctx);
		rp = (void *)buf;
		CHECK_EQ(rp->directives_supported.data_placement, 0);
	}
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
}

static void
test_uris(void)
{
	const char *bad[] = {"1GB?fdp=1,nruh=0", "1GB?nruh=4",        "1GB?fdp=1,runs=1000",
			     "1GB?fdp=1,nrg=2",  "1GB?fdp=1,runs=1X", "1GB?fdp=1,nruh=129",
			     "1GB?fdp=2",        "1GB?fdp=1,fdp=1"};
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;

	xnvme_test_open_fails(bad, sizeof(bad) / sizeof(bad[0]), EINVAL);
	opts.be = "ramdisk";
	dev = xnvme_dev_open("1GB?fdp=1,runs=64K,lbads=12", &opts);
	CHECK(dev != NULL);
	xnvme_dev_close(dev);
}

int
main(int argc, char **argv)
{
	const char *uri;

	t.dev = xnvme_test_open_args(argc, argv, RD_URI, &uri, &t.ramdisk);
	if (!t.dev) {
		return t.ramdisk ? 1 : XNVME_TEST_SKIP;
	}
	t.geo = xnvme_dev_get_geo(t.dev);
	t.nsid = xnvme_dev_get_nsid(t.dev);
	t.endgid = xnvme_dev_get_ns(t.dev)->endgid;
	t.buf = xnvme_buf_alloc(t.dev, 4096 + t.geo->mdts_nbytes);
	t.small = xnvme_buf_alloc(t.dev, 4096);
	if (!t.buf || !t.small || !xnvme_dev_get_ctrlr(t.dev)->ctratt.flexible_data_placement) {
		fprintf(stderr, "%s: no FDP or no buffer\n", uri);
		xnvme_buf_free(t.dev, t.small);
		xnvme_buf_free(t.dev, t.buf);
		xnvme_dev_close(t.dev);
		return t.ramdisk ? 1 : XNVME_TEST_SKIP;
	}

	test_detect();
	test_logs();
	test_ruhs_and_writes();
	test_events();
	test_directives();

	xnvme_buf_free(t.dev, t.small);
	xnvme_buf_free(t.dev, t.buf);
	xnvme_dev_close(t.dev);
	if (t.ramdisk) {
		test_disabled();
		test_uris();
	}
	return xnvme_test_result("fdp");
}
