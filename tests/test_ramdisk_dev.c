// SPDX-License-Identifier: BSD-3-Clause
/*
 * The ramdisk backend as a device through the public API: open and identity, identify data,
 * log pages, features, topology pseudo-commands, queues of each async mechanism and concurrent
 * synchronous I/O. The data path of the NVM opcodes: test_ramdisk_nvm.c.
 */
#include "ramdisk_common.h"

static void
test_open(void)
{
	const char *bad[] = {"GB", "x1GB", "1GBx", "1 GB", "-1GB"};
	/* sizes written another way: refused by the ramdisk, with the accepted form in the reason */
	const char *sizes[] = {"0GB", "1G", "1gb", "1.5GB", "512MB", "2GiB", "1TB"};
	const struct xnvme_ident *ident;
	const struct xnvme_opts *opts;
	const struct xnvme_geo *geo;
	struct xnvme_dev *dev;

	/* URIs that are not "<N>GB" with N >= 1 are not the ramdisk's */
	xnvme_test_open_fails(bad, sizeof(bad) / sizeof(bad[0]), ENXIO);
	xnvme_test_open_fails(sizes, sizeof(sizes) / sizeof(sizes[0]), EINVAL);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
		CHECK(!xnvme_dev_open(sizes[i], NULL));
		CHECK(strstr(xnvme_last_error(), "ramdisk:") != NULL);
		CHECK(strstr(xnvme_last_error(), "<N>GB") != NULL);
		CHECK(strstr(xnvme_last_error(), sizes[i]) != NULL);
	}

	/* automatic backend selection finds the ramdisk too */
	dev = xnvme_dev_open("1GB", NULL);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	ident = xnvme_dev_get_ident(dev);
	CHECK_EQ(ident->dtype, 5);
	CHECK_EQ(ident->nsid, 1);
	CHECK_EQ(ident->csi, XNVME_SPEC_CSI_NVM);
	CHECK_EQ(xnvme_dev_get_nsid(dev), 1);
	CHECK_EQ(xnvme_dev_get_csi(dev), XNVME_SPEC_CSI_NVM);
	CHECK(!strcmp(ident->subnqn, "nqn.2014-08.org.nvmexpress:ramdisk:1GB"));

	opts = xnvme_dev_get_opts(dev);
	CHECK(!strcmp(opts->be, "ramdisk"));
	CHECK(!strcmp(opts->admin, "ramdisk"));
	CHECK(!strcmp(opts->sync, "ramdisk"));
	CHECK(!strcmp(opts->async, "thrpool"));
	CHECK(!strcmp(opts->mem, "posix"));

	geo = xnvme_dev_get_geo(dev);
	CHECK_EQ(geo->type, XNVME_GEO_CONVENTIONAL);
	CHECK_EQ(geo->nbytes, LBA);
	CHECK_EQ(geo->lba_nbytes, LBA);
	CHECK_EQ(geo->nbytes_oob, 0);
	CHECK_EQ(geo->nsect, NSZE_1G);
	CHECK_EQ(geo->tbytes, 1ULL << 30);
	CHECK_EQ(geo->ssw, 9);
	CHECK_EQ(geo->mdts_nbytes, MDTS_NBYTES);
	CHECK_EQ(geo->pi_type, 0);
	xnvme_dev_close(dev);

	/* explicitly chosen mechanisms are kept */
	dev = rd_open("2GB", "emu");
	CHECK(dev != NULL);
	if (dev) {
		CHECK(!strcmp(xnvme_dev_get_opts(dev)->async, "emu"));
		CHECK_EQ(xnvme_dev_get_geo(dev)->tbytes, 2ULL << 30);
		xnvme_dev_close(dev);
	}
}

static void
test_idfy(struct xnvme_dev *dev)
{
	const struct xnvme_spec_idfy_ctrlr *ctrlr = xnvme_dev_get_ctrlr(dev);
	const struct xnvme_spec_idfy_ns *ns = xnvme_dev_get_ns(dev);
	const struct xnvme_spec_nvm_idfy_ctrlr *nvm = (const void *)xnvme_dev_get_ctrlr_css(dev);
	struct xnvme_spec_idfy *buf = xnvme_buf_alloc(dev, sizeof(*buf));
	struct xnvme_cmd_ctx ctx;
	const uint8_t *raw;
	int err;

	CHECK(!memcmp(ctrlr->mn, "xnvme ramdisk", 13));
	CHECK_EQ(ctrlr->mn[13], ' ');
	CHECK_EQ(ctrlr->mn[39], ' ');
	CHECK(ctrlr->sn[0] != ' ' && ctrlr->sn[0] != 0);
	CHECK_EQ(ctrlr->mdts, 7);
	CHECK_EQ(ctrlr->ver.val, 0x00020000);
	CHECK_EQ(ctrlr->nn, 1);
	CHECK(ctrlr->oncs.compare && ctrlr->oncs.write_unc && ctrlr->oncs.dsm);
	CHECK(ctrlr->oncs.write_zeroes && ctrlr->oncs.copy);
	CHECK_EQ(ctrlr->vwc.present, 1);
	CHECK_EQ(ctrlr->sqes.val, 0x66);
	CHECK_EQ(ctrlr->cqes.val, 0x44);
	CHECK(!strcmp((const char *)ctrlr->subnqn, "nqn.2014-08.org.nvmexpress:ramdisk:1GB"));

	CHECK_EQ(ns->nsze, NSZE_1G);
	CHECK_EQ(ns->ncap, NSZE_1G);
	CHECK_EQ(ns->nuse, NSZE_1G);
	CHECK_EQ(ns->nlbaf, 0);
	CHECK_EQ(ns->flbas.format, 0);
	CHECK_EQ(ns->lbaf[0].ds, 9);
	CHECK_EQ(ns->lbaf[0].ms, 0);
	CHECK_EQ(ns->dlfeat.bits.read_value, 1);
	CHECK_EQ(ns->mssrl, 128);
	CHECK_EQ(ns->mcl, 128);
	CHECK_EQ(ns->msrc, 127);
	CHECK(nvm->dmrl > 0 && nvm->dmrsl > 0);

	if (!buf) {
		CHECK(buf != NULL);
		return;
	}

	/* active namespace list */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy(&ctx, XNVME_SPEC_IDFY_NSLIST, 0, 0, 0, 0, buf);
	CHECK_OK(err, ctx);
	CHECK_EQ(((uint32_t *)buf)[0], 1);
	CHECK_EQ(((uint32_t *)buf)[1], 0);

	/* I/O command set list */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy(&ctx, XNVME_SPEC_IDFY_IOCS, 0, 0, 0, 0, buf);
	CHECK_OK(err, ctx);
	CHECK_EQ(buf->cs.iocsc[0].nvm, 1);
	CHECK_EQ(buf->cs.iocsc[0].zns, 0);

	/* namespace identification descriptors end with the CSI */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy(&ctx, XNVME_SPEC_IDFY_NSDSCR, 0, 1, 0, 0, buf);
	CHECK_OK(err, ctx);
	raw = (const uint8_t *)buf;
	CHECK_EQ(raw[0], 1);
	CHECK_EQ(raw[1], 8);

	/* the file-system and zoned sets are refused: the core settles on NVM */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy_ns_csi(&ctx, 1, 0x1F, buf);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy_ctrlr_csi(&ctx, XNVME_SPEC_CSI_ZONED, buf);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy_ns_csi(&ctx, 1, XNVME_SPEC_CSI_NVM, buf);
	CHECK_OK(err, ctx);

	/* unknown CNS, unknown namespace, short buffer, unknown admin opcode */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy(&ctx, 0x10, 0, 1, 0, 0, buf);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy_ns(&ctx, 2, buf);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x0B);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	ctx.cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	ctx.cmd.idfy.cns = XNVME_SPEC_IDFY_CTRLR;
	err = xnvme_cmd_pass_admin(&ctx, buf, 512, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	ctx.cmd.common.opcode = 0xC3;
	err = xnvme_cmd_pass_admin(&ctx, NULL, 0, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x01);

	xnvme_buf_free(dev, buf);
}

/* The low 64 bits of a little-endian 128-bit log counter */
static uint64_t
u128_lo(const uint8_t *v)
{
	uint64_t val = 0;

	for (int i = 7; i >= 0; --i) {
		val = val << 8 | v[i];
	}
	return val;
}

static int
get_health(struct xnvme_dev *dev, struct xnvme_spec_log_health_entry *log)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);

	return xnvme_adm_log(&ctx, XNVME_SPEC_LOG_HEALTH, 0, 0, 0xFFFFFFFF, 0, log, sizeof(*log));
}

static void
test_logs(void)
{
	struct xnvme_dev *dev = rd_open("4GB", NULL);
	struct xnvme_spec_log_health_entry *h0, *h1;
	struct xnvme_spec_log_erri_entry *erri;
	struct xnvme_cmd_ctx ctx;
	uint32_t *effects;
	uint8_t *part;
	int err;

	if (!dev) {
		CHECK(dev != NULL);
		return;
	}
	h0 = xnvme_buf_alloc(dev, sizeof(*h0));
	h1 = xnvme_buf_alloc(dev, sizeof(*h1));
	erri = xnvme_buf_alloc(dev, 64 * sizeof(*erri));
	effects = xnvme_buf_alloc(dev, 4096);
	part = xnvme_buf_alloc(dev, 64);
	if (!h0 || !h1 || !erri || !effects || !part) {
		CHECK(0);
		goto exit;
	}

	CHECK_EQ(get_health(dev, h0), 0);
	CHECK_EQ(h0->comp_temp, 300);
	CHECK_EQ(h0->avail_spare, 100);
	CHECK_EQ(u128_lo(h0->data_units_written), 0);

	/* 1000 LBAs of 512 bytes are one data unit; then one more LBA rounds up to two */
	for (int i = 0; i < 10; ++i) {
		CHECK_EQ(write_lbas(dev, 100u * (unsigned)i, 100, 1), 0);
	}
	CHECK_EQ(read_lbas(dev, 0, 100, 1, NULL), 0);
	CHECK_EQ(get_health(dev, h1), 0);
	CHECK_EQ(u128_lo(h1->host_write_cmds) - u128_lo(h0->host_write_cmds), 10);
	CHECK_EQ(u128_lo(h1->host_read_cmds) - u128_lo(h0->host_read_cmds), 1);
	CHECK_EQ(u128_lo(h1->data_units_written), 1);
	CHECK_EQ(u128_lo(h1->data_units_read), 1);
	CHECK_EQ(write_lbas(dev, 5000, 1, 1), 0);
	CHECK_EQ(get_health(dev, h1), 0);
	CHECK_EQ(u128_lo(h1->data_units_written), 2);

	/* a window of the page: offset and length */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_log(&ctx, XNVME_SPEC_LOG_HEALTH, 0, 48, 0xFFFFFFFF, 0, part, 32);
	CHECK_OK(err, ctx);
	CHECK(!memcmp(part, h1->data_units_written, 16));
	CHECK(!memcmp(part + 16, h1->host_read_cmds, 16));

	/* a failure lands at the head of the error log and in the SMART count */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, 1, 1ULL << 40, 0, part, NULL);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x80);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_log(&ctx, XNVME_SPEC_LOG_ERRI, 0, 0, 0xFFFFFFFF, 0, erri,
			    64 * sizeof(*erri));
	CHECK_OK(err, ctx);
	CHECK(erri[0].ecnt > 0);
	CHECK_EQ(erri[0].status.sc, 0x80);
	CHECK_EQ(erri[0].status.sct, 0);
	CHECK_EQ(erri[0].lba, 1ULL << 40);
	CHECK_EQ(erri[0].nsid, 1);
	CHECK(erri[1].ecnt == 0 || erri[1].ecnt == erri[0].ecnt - 1);
	CHECK_EQ(get_health(dev, h1), 0);
	CHECK_EQ(u128_lo(h1->nr_err_logs), erri[0].ecnt);

	/* commands supported and effects */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_log(&ctx, XNVME_SPEC_LOG_CSAE, 0, 0, 0, 0, effects, 4096);
	CHECK_OK(err, ctx);
	CHECK(effects[XNVME_SPEC_ADM_OPC_IDFY] & 1);
	CHECK(effects[XNVME_SPEC_ADM_OPC_LOG] & 1);
	CHECK(effects[256 + XNVME_SPEC_NVM_OPC_READ] & 1);
	CHECK_EQ(effects[256 + XNVME_SPEC_NVM_OPC_WRITE] & 3, 3);
	CHECK_EQ(effects[256 + XNVME_SPEC_NVM_OPC_SCOPY] & 3, 3);
	CHECK_EQ(effects[256 + 0x7F], 0);

	/* unknown log page, offset past the page, misaligned offset */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_log(&ctx, 0x7F, 0, 0, 0, 0, part, 64);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, 0x09);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_adm_log(&ctx, XNVME_SPEC_LOG_HEALTH, 0, 1024, 0xFFFFFFFF, 0, 64);
	err = xnvme_cmd_pass_admin(&ctx, part, 64, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_adm_log(&ctx, XNVME_SPEC_LOG_HEALTH, 0, 2, 0xFFFFFFFF, 0, 64);
	err = xnvme_cmd_pass_admin(&ctx, part, 64, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);

exit:
	xnvme_buf_free(dev, h0);
	xnvme_buf_free(dev, h1);
	xnvme_buf_free(dev, erri);
	xnvme_buf_free(dev, effects);
	xnvme_buf_free(dev, part);
	xnvme_dev_close(dev);
}

static void
test_features(struct xnvme_dev *dev)
{
	struct xnvme_cmd_ctx ctx;
	int err;

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 0, XNVME_SPEC_FEAT_VWCACHE, XNVME_SPEC_FEAT_SEL_CURRENT, NULL,
			      0);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.cdw0, 1);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_sfeat(&ctx, 0, XNVME_SPEC_FEAT_VWCACHE, 0, 0, NULL, 0);
	CHECK_OK(err, ctx);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 0, XNVME_SPEC_FEAT_VWCACHE, XNVME_SPEC_FEAT_SEL_CURRENT, NULL,
			      0);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.cdw0, 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 0, XNVME_SPEC_FEAT_VWCACHE, XNVME_SPEC_FEAT_SEL_DEFAULT, NULL,
			      0);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.cdw0, 1);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 0, XNVME_SPEC_FEAT_VWCACHE, XNVME_SPEC_FEAT_SEL_SUPPORTED, NULL,
			      0);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.cdw0, 0x4);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_sfeat(&ctx, 0, XNVME_SPEC_FEAT_VWCACHE, 1, 0, NULL, 0);
	CHECK_OK(err, ctx);

	/* nothing is saveable */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_sfeat(&ctx, 0, XNVME_SPEC_FEAT_VWCACHE, 1, 1, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, 0x0D);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 0, XNVME_SPEC_FEAT_NQUEUES, 0, NULL, 0);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.cdw0, 63 | 63 << 16);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 0, XNVME_SPEC_FEAT_TEMP_THRESHOLD, 0, NULL, 0);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.cdw0 & 0xFFFF, 343);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_sfeat(&ctx, 0, XNVME_SPEC_FEAT_TEMP_THRESHOLD, 350, 0, NULL, 0);
	CHECK_OK(err, ctx);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 0, XNVME_SPEC_FEAT_TEMP_THRESHOLD, 0, NULL, 0);
	CHECK_EQ(ctx.cpl.cdw0 & 0xFFFF, 350);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_sfeat(&ctx, 0, XNVME_SPEC_FEAT_ARBITRATION, 0x01020303, 0, NULL, 0);
	CHECK_OK(err, ctx);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 0, XNVME_SPEC_FEAT_ARBITRATION, 0, NULL, 0);
	CHECK_EQ(ctx.cpl.cdw0, 0x01020303);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 1, XNVME_SPEC_FEAT_ERROR_RECOVERY, 0, NULL, 0);
	CHECK_OK(err, ctx);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_sfeat(&ctx, 1, XNVME_SPEC_FEAT_ERROR_RECOVERY, 1 << 16, 0, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_sfeat(&ctx, 0, XNVME_SPEC_FEAT_PWR_MGMT, 1, 0, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);

	/* FDP detection as clients do it: failure leaves cdw0 at 0 */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_adm_gfeat(&ctx, 1, XNVME_SPEC_FEAT_FDP_MODE, 0);
	err = xnvme_cmd_pass_admin(&ctx, NULL, 0, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, 0x02);
	CHECK_EQ(ctx.cpl.cdw0 & 1, 0);
}

static void
test_topology(struct xnvme_dev *dev)
{
	struct xnvme_spec_ctrlr_bar *bar = xnvme_buf_alloc(dev, sizeof(*bar));

	CHECK_EQ(xnvme_controller_reset(dev), 0);
	CHECK_EQ(xnvme_subsystem_reset(dev), 0);
	CHECK_EQ(xnvme_namespace_rescan(dev), 0);
	if (!bar) {
		CHECK(bar != NULL);
		return;
	}
	CHECK_EQ(xnvme_controller_get_registers(dev, bar), 0);
	CHECK_EQ(bar->vs, 0x00020000);
	CHECK_EQ(bar->csts & 1, 1);
	CHECK_EQ(bar->cc & 1, 1);
	CHECK_EQ((bar->cap >> 37) & 1, 1);
	CHECK((bar->cap & 0xFFFF) > 0);
	xnvme_buf_free(dev, bar);
}

struct qstate {
	int ncompleted;
	int nerrors;
};

static void
qcb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct qstate *st = arg;

	st->ncompleted++;
	if (xnvme_cmd_ctx_cpl_status(ctx)) {
		st->nerrors++;
	}
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* Queued writes through one async mechanism, verified with synchronous reads */
static void
test_queue(const char *async)
{
	const int nio = 64;
	struct xnvme_dev *dev = rd_open("1GB", async);
	struct xnvme_queue *queue = NULL;
	struct qstate st = {0};
	uint8_t *buf;
	int err;

	if (!dev) {
		CHECK(dev != NULL);
		return;
	}
	buf = xnvme_buf_alloc(dev, (size_t)nio * 8 * LBA);
	err = xnvme_queue_init(dev, 16, 0, &queue);
	CHECK_EQ(err, 0);
	if (err || !buf) {
		CHECK(buf != NULL);
		goto exit;
	}
	xnvme_queue_set_cb(queue, qcb, &st);

	for (int i = 0; i < nio; ++i) {
		uint8_t *io = buf + (size_t)i * 8 * LBA;
		uint64_t slba = 40000 + (uint64_t)i * 8;
		struct xnvme_cmd_ctx *ctx;

		fill(io, slba, 8, 41);
		for (;;) {
			ctx = xnvme_queue_get_cmd_ctx(queue);
			err = xnvme_nvm_write(ctx, 1, slba, 7, io, NULL);
			if (err != -EBUSY && err != -EAGAIN) {
				break;
			}
			xnvme_queue_put_cmd_ctx(queue, ctx);
			xnvme_queue_poke(queue, 0);
		}
		CHECK_EQ(err, 0);
	}
	CHECK(xnvme_queue_drain(queue) >= 0);
	CHECK_EQ(st.ncompleted, nio);
	CHECK_EQ(st.nerrors, 0);

	if (strcmp(async, "nil")) {
		for (int i = 0; i < nio; ++i) {
			CHECK_EQ(read_lbas(dev, 40000 + (uint64_t)i * 8, 8, 41, NULL), 0);
		}
	}

exit:
	xnvme_queue_term(queue);
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
}

struct worker {
	struct xnvme_dev *dev;
	uint64_t slba;
	int id;
	int nfail;
};

/* Each thread owns its LBAs; one also exercises the uncorrectable bitmap concurrently */
static void *
worker_run(void *arg)
{
	struct worker *w = arg;

	for (int round = 0; round < 50; ++round) {
		uint64_t slba = w->slba + (uint64_t)(round % 10) * 16;
		unsigned int seed = (unsigned int)(w->id * 1000 + round);
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(w->dev);

		if (write_lbas(w->dev, slba, 16, seed) || read_lbas(w->dev, slba, 16, seed, NULL)) {
			w->nfail++;
		}
		if (w->id == 0) {
			if (xnvme_nvm_write_uncorrectable(&ctx, 1, slba + 3, 2) ||
			    read_lbas(w->dev, slba, 16, seed, NULL) != -EIO ||
			    write_lbas(w->dev, slba, 16, seed)) {
				w->nfail++;
			}
		}
	}
	return NULL;
}

static void
test_threads(void)
{
	struct xnvme_dev *dev = rd_open("1GB", NULL);
	struct worker workers[4];
	pthread_t tids[4];

	if (!dev) {
		CHECK(dev != NULL);
		return;
	}
	for (int i = 0; i < 4; ++i) {
		workers[i].dev = dev;
		workers[i].slba = 100000 + (uint64_t)i * 1000;
		workers[i].id = i;
		workers[i].nfail = 0;
		CHECK_EQ(pthread_create(&tids[i], NULL, worker_run, &workers[i]), 0);
	}
	for (int i = 0; i < 4; ++i) {
		pthread_join(tids[i], NULL);
		CHECK_EQ(workers[i].nfail, 0);
	}
	xnvme_dev_close(dev);
}

int
main(void)
{
	struct xnvme_dev *dev;

	test_open();

	dev = rd_open("1GB", NULL);
	if (!dev) {
		fprintf(stderr, "cannot open the ramdisk\n");
		return 1;
	}
	test_idfy(dev);
	test_features(dev);
	test_topology(dev);
	xnvme_dev_close(dev);

	test_logs();
	test_queue("thrpool");
	test_queue("emu");
	test_queue("nil");
	test_threads();
	return xnvme_test_result("test_ramdisk_dev");
}
