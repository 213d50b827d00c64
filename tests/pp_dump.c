// SPDX-License-Identifier: BSD-3-Clause
/*
 * Helper of test_printers_yaml.py: prints the output of every printer, each section preceded
 * by a line "=== <section>", for the in-memory device "1GB" (identify data, geometry, handle,
 * options, logs and features as far as the device answers them) and for synthetic structures
 * covering the command sets the ramdisk does not have (zoned, KV, FDP, directives), including
 * strings that need YAML quoting.
 *
 * Usage: pp_dump [uri]   (default "1GB"); exit 0, or 1 when the device cannot be opened.
 */
#include <errno.h>
#include <string.h>
#include <libxnvme.h>

static void
section(const char *name)
{
	fflush(stdout);
	printf("=== %s\n", name);
}

/* Strings with YAML indicators, quotes, leading/trailing spaces and a non-printable byte */
#define NASTY_STR " it's: #1 - [x] {y} &a *b !c %d @e `f | > ? \x01\x7f,'' "

static void
dump_device(struct xnvme_dev *dev)
{
	const struct xnvme_ident *ident = xnvme_dev_get_ident(dev);
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	struct xnvme_lba_range range;
	struct xnvme_spec_feat feat = {0};
	struct xnvme_spec_ctrlr_bar *bar;
	void *buf;

	section("ident");
	xnvme_ident_pr(ident, XNVME_PR_DEF);

	section("ident_flow");
	printf("{");
	xnvme_ident_yaml(stdout, ident, 0, ", ", 0);
	printf("}\n");

	section("dev");
	xnvme_dev_pr(dev, XNVME_PR_DEF);

	section("geo");
	xnvme_geo_pr(xnvme_dev_get_geo(dev), XNVME_PR_YAML);

	section("opts");
	xnvme_opts_pr(xnvme_dev_get_opts(dev), XNVME_PR_DEF);

	section("idfy_ctrlr");
	xnvme_spec_idfy_ctrlr_pr(xnvme_dev_get_ctrlr(dev), XNVME_PR_DEF);

	section("idfy_ns");
	xnvme_spec_idfy_ns_pr(xnvme_dev_get_ns(dev), XNVME_PR_DEF);

	section("nvm_idfy_ctrlr");
	xnvme_spec_nvm_idfy_ctrlr_pr((void *)xnvme_dev_get_ctrlr_css(dev), XNVME_PR_DEF);

	section("nvm_idfy_ns");
	xnvme_spec_nvm_idfy_ns_pr((void *)xnvme_dev_get_ns_css(dev), XNVME_PR_DEF);

	range = xnvme_lba_range_from_slba_naddrs(dev, 0x10, 8);
	section("lba_range");
	xnvme_lba_range_pr(&range, XNVME_PR_DEF);

	/* logs and features: the device's answer, or zeroes when it has none */
	buf = xnvme_buf_alloc(dev, 4096);
	if (!buf) {
		return;
	}

	memset(buf, 0, 4096);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_adm_log(&ctx, XNVME_SPEC_LOG_HEALTH, 0, 0, xnvme_dev_get_nsid(dev), 0, buf, 512);
	section("health");
	xnvme_spec_log_health_pr(buf, XNVME_PR_DEF);

	memset(buf, 0, 4096);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_adm_log(&ctx, XNVME_SPEC_LOG_ERRI, 0, 0, xnvme_dev_get_nsid(dev), 0, buf, 4 * 64);
	section("erri");
	xnvme_spec_log_erri_pr(buf, 4, XNVME_PR_DEF);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	if (!xnvme_adm_gfeat(&ctx, 0, XNVME_SPEC_FEAT_NQUEUES, XNVME_SPEC_FEAT_SEL_CURRENT, NULL,
			     0)) {
		feat.val = ctx.cpl.cdw0;
	}
	section("feat_nqueues");
	xnvme_spec_feat_pr(XNVME_SPEC_FEAT_NQUEUES, feat, XNVME_PR_DEF);

	section("cmd_ctx");
	xnvme_cmd_ctx_pr(&ctx, XNVME_PR_DEF);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, xnvme_dev_get_nsid(dev), 0x10, 7);
	section("spec_cmd");
	xnvme_spec_cmd_pr(&ctx.cmd, XNVME_PR_DEF);

	bar = buf;
	memset(buf, 0, 4096);
	if (xnvme_controller_get_registers(dev, bar)) {
		bar->cap = 0x4000000000ffULL;
		bar->vs = 0x10400;
	}
	section("ctrlr_bar");
	xnvme_spec_ctrlr_bar_pp(bar, XNVME_PR_DEF);

	xnvme_buf_free(dev, buf);
}

static void
dump_library(void)
{
	struct xnvme_be_attr_list *list = NULL;
	uint64_t lbas[3] = {0x0, 0x1000, 0xFFFFFFFFFFFFFFFFULL};
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_ident ident;

	if (!xnvme_be_attr_list_bundled(&list)) {
		section("be_attr_list");
		xnvme_be_attr_list_pr(list, XNVME_PR_DEF);

		/* one attribute is shaped as an item of the list, at indent 2 */
		section("be_attr_item");
		printf("  - ");
		xnvme_be_attr_pr(&list->item[0], XNVME_PR_DEF);
		xnvme_buf_virt_free(list);
	}

	section("lba");
	xnvme_lba_pr(0x1000, XNVME_PR_DEF);

	section("lbas");
	xnvme_lba_prn(lbas, 3, XNVME_PR_DEF);

	section("lbas_empty");
	xnvme_lba_prn(lbas, 0, XNVME_PR_DEF);

	opts.be = NASTY_STR;
	opts.core_mask = "0x1";
	opts.adrfam = "'";
	section("opts_nasty");
	xnvme_opts_pr(&opts, XNVME_PR_DEF);

	xnvme_ident_from_uri(NASTY_STR, &ident);
	strcpy(ident.subnqn, "nqn: # it's");
	section("ident_nasty");
	xnvme_ident_pr(&ident, XNVME_PR_DEF);

	section("ident_nasty_flow");
	printf("[{");
	xnvme_ident_yaml(stdout, &ident, 0, ", ", 0);
	printf("}]\n");

	section("null_geo");
	xnvme_geo_pr(NULL, XNVME_PR_DEF);

	section("null_dev");
	xnvme_dev_pr(NULL, XNVME_PR_DEF);

	section("null_cmd_ctx");
	xnvme_cmd_ctx_pr(NULL, XNVME_PR_DEF);

	section("terse_geo");
	xnvme_geo_pr(NULL, XNVME_PR_TERSE);
}

static void
dump_ctrlr_nasty(void)
{
	struct xnvme_spec_idfy *idfy = calloc(1, sizeof(*idfy));

	if (!idfy) {
		return;
	}

	memset(idfy->ctrlr.sn, ' ', sizeof(idfy->ctrlr.sn));
	memcpy(idfy->ctrlr.sn, "'#: x", 5);
	memcpy(idfy->ctrlr.mn, NASTY_STR, sizeof(idfy->ctrlr.mn));
	memcpy(idfy->ctrlr.fr, "- [1]: {", 8);
	memcpy(idfy->ctrlr.subnqn, NASTY_STR, sizeof(NASTY_STR));
	idfy->ctrlr.npss = 31;
	section("idfy_ctrlr_nasty");
	xnvme_spec_idfy_ctrlr_pr(&idfy->ctrlr, XNVME_PR_DEF);

	memset(idfy, 0xFF, sizeof(*idfy));
	section("idfy_ns_ff");
	xnvme_spec_idfy_ns_pr(&idfy->ns, XNVME_PR_DEF);

	memset(idfy, 0, sizeof(*idfy));
	idfy->cs.iocsc[0].nvm = 1;
	idfy->cs.iocsc[0].zns = 1;
	idfy->cs.iocsc[1].kv = 1;
	section("idfy_cs");
	xnvme_spec_idfy_cs_pr(&idfy->cs, XNVME_PR_DEF);

	free(idfy);
}

static void
dump_zoned_kv(void)
{
	struct xnvme_spec_znd_idfy *znd = calloc(1, sizeof(*znd));
	struct xnvme_spec_kvs_idfy *kvs = calloc(1, sizeof(*kvs));
	struct xnvme_spec_znd_log_changes *changes = calloc(1, sizeof(*changes));
	struct xnvme_spec_znd_report_hdr hdr = {.nzones = 32};
	struct xnvme_spec_znd_descr descr;

	if (!znd || !kvs || !changes) {
		goto exit;
	}

	znd->zctrlr.zasl = 5;
	section("znd_idfy_ctrlr");
	xnvme_spec_znd_idfy_ctrlr_pr(&znd->zctrlr, XNVME_PR_DEF);

	memset(znd, 0, sizeof(*znd));
	znd->zns.mar = 0xFFFFFFFF;
	znd->zns.mor = 13;
	znd->zns.lbafe[0].zsze = 32768;
	znd->zns.lbafe[0].zdes = 1;
	section("znd_idfy_ns");
	xnvme_spec_znd_idfy_ns_pr(&znd->zns, XNVME_PR_DEF);

	section("znd_idfy_lbafe");
	xnvme_spec_znd_idfy_lbafe_fpr(stdout, &znd->zns.lbafe[0], XNVME_PR_DEF);

	memset(&descr, 0, sizeof(descr));
	descr.zslba = 0x8000;
	descr.wp = 0x8010;
	descr.zcap = 28672;
	descr.zt = XNVME_SPEC_ZND_TYPE_SEQWR;
	descr.zs = XNVME_SPEC_ZND_STATE_IOPEN;
	descr.za.zdev = 1;
	section("znd_descr");
	xnvme_spec_znd_descr_pr(&descr, XNVME_PR_DEF);

	section("znd_descr_flow");
	printf("- {");
	xnvme_spec_znd_descr_fpr_yaml(stdout, &descr, 0, ", ");
	printf("}\n");

	section("znd_report_hdr");
	xnvme_spec_znd_report_hdr_pr(&hdr, XNVME_PR_DEF);

	changes->nidents = 2;
	changes->idents[0] = 0x0;
	changes->idents[1] = 0x8000;
	section("znd_log_changes");
	xnvme_spec_znd_log_changes_pr(changes, XNVME_PR_DEF);

	kvs->ns.nsze = 1 << 30;
	kvs->ns.nkvf = 0;
	kvs->ns.kvf[0].kml = 16;
	kvs->ns.kvf[0].vml = 4096;
	kvs->ns.kvf[0].mnk = 1000;
	section("kvs_idfy_ns");
	xnvme_spec_kvs_idfy_ns_pr(&kvs->ns, XNVME_PR_DEF);

exit:
	free(znd);
	free(kvs);
	free(changes);
}

static void
dump_fdp_dirs(void)
{
	uint8_t *buf = calloc(1, 4096);
	struct xnvme_spec_log_fdp_conf *conf = (void *)buf;
	struct xnvme_spec_fdp_conf_desc *desc = (void *)(buf + sizeof(*conf));
	struct xnvme_spec_log_fdp_stats stats = {.hbmw = {4096, 0}, .mbe = {0, 1}};
	struct xnvme_spec_log_fdp_events *events = (void *)buf;
	struct xnvme_spec_log_ruhu *ruhu = (void *)buf;
	struct xnvme_spec_ruhs *ruhs = (void *)buf;
	struct xnvme_spec_fdp_event_desc *edesc = (void *)buf;
	struct xnvme_spec_idfy_dir_rp *rp = (void *)buf;
	struct xnvme_spec_streams_dir_rp srp = {.msl = 16, .nssa = 8, .sws = 4096};
	struct xnvme_spec_streams_dir_gs *sgs = (void *)buf;
	struct xnvme_spec_alloc_resource sar = {.val = 4};
	struct xnvme_spec_nvm_scopy_source_range *srange = (void *)buf;
	struct xnvme_spec_feat feat = {.val = 2};

	if (!buf) {
		return;
	}

	conf->ncfg = 0;
	conf->size = sizeof(*conf) + sizeof(*desc) + 2 * sizeof(desc->ruh_desc[0]);
	desc->ds = sizeof(*desc) + 2 * sizeof(desc->ruh_desc[0]);
	desc->fdpa.fdpcv = 1;
	desc->nrg = 1;
	desc->nruh = 2;
	desc->maxpids = 8;
	desc->runs = 1 << 20;
	desc->ruh_desc[0].ruht = 1;
	desc->ruh_desc[1].ruht = 2;
	section("fdp_conf");
	xnvme_spec_log_fdp_conf_pr(conf, XNVME_PR_DEF);

	section("fdp_stats");
	xnvme_spec_log_fdp_stats_pr(&stats, XNVME_PR_DEF);

	memset(buf, 0, 4096);
	events->nevents = 2;
	events->event[0].type = 0x80;
	events->event[0].pid = 1;
	events->event[1].type = 0x1;
	section("fdp_events");
	xnvme_spec_log_fdp_events_pr(events, 2, XNVME_PR_DEF);

	memset(buf, 0, 4096);
	ruhu->nruh = 2;
	ruhu->ruhu_desc[0].ruha = 1;
	section("ruhu");
	xnvme_spec_log_ruhu_pr(ruhu, 2, XNVME_PR_DEF);

	memset(buf, 0, 4096);
	ruhs->nruhsd = 1;
	ruhs->desc[0].pi = 1;
	ruhs->desc[0].ruamw = 1000;
	section("ruhs");
	xnvme_spec_ruhs_pr(ruhs, 1, XNVME_PR_DEF);

	memset(buf, 0, 4096);
	edesc[0].fdpeta.ee = 1;
	edesc[1].type = 0x80;
	section("feat_fdp_events");
	xnvme_spec_feat_fdp_events_pr(buf, feat, XNVME_PR_DEF);

	memset(buf, 0, 4096);
	rp->directives_supported.identify = 1;
	rp->directives_supported.streams = 1;
	rp->directives_enabled.identify = 1;
	section("drecv_idfy");
	xnvme_spec_drecv_idfy_pr(rp, XNVME_PR_DEF);

	section("drecv_srp");
	xnvme_spec_drecv_srp_pr(&srp, XNVME_PR_DEF);

	memset(buf, 0, 4096);
	sgs->open_sc = 2;
	sgs->sid[0] = 1;
	sgs->sid[1] = 2;
	section("drecv_sgs");
	xnvme_spec_drecv_sgs_pr(sgs, XNVME_PR_DEF);

	section("drecv_sar");
	xnvme_spec_drecv_sar_pr(sar, XNVME_PR_DEF);

	memset(buf, 0, 4096);
	srange->entry[0].slba = 0x20;
	srange->entry[0].nlb = 7;
	srange->entry[1].slba = 0x40;
	section("scopy_fmt_zero");
	xnvme_spec_nvm_scopy_fmt_zero_pr(&srange->entry[0], XNVME_PR_DEF);

	section("scopy_source_range");
	xnvme_spec_nvm_scopy_source_range_pr(srange, 1, XNVME_PR_DEF);

	free(buf);
}

static void
dump_enumeration(void)
{
	struct xnvme_cli_enumeration *list;

	list = calloc(1, sizeof(*list) + 3 * sizeof(list->entries[0]));
	if (!list) {
		return;
	}
	list->capacity = 0;
	list->nentries = 3;
	xnvme_ident_from_uri("/dev/nvme0n1", &list->entries[0]);
	list->entries[0].dtype = 2;
	list->entries[0].nsid = 1;
	list->entries[0].csi = 0;
	list->entries[1] = list->entries[0];
	xnvme_ident_from_uri(NASTY_STR, &list->entries[2]);
	strcpy(list->entries[2].subnqn, "nqn.2019-08.org.qemu:deadbeef");

	section("enumeration");
	xnvme_cli_enumeration_pr(list, XNVME_PR_DEF);

	section("enumeration_pp");
	xnvme_cli_enumeration_pp(list, XNVME_PR_DEF);

	list->nentries = 0;
	section("enumeration_pp_empty");
	xnvme_cli_enumeration_pp(list, XNVME_PR_DEF);

	free(list);
}

int
main(int argc, char **argv)
{
	const char *uri = argc > 1 ? argv[1] : "1GB";
	struct xnvme_dev *dev;

	dev = xnvme_dev_open(uri, NULL);
	if (!dev) {
		fprintf(stderr, "pp_dump: xnvme_dev_open(%s): %s\n", uri, strerror(errno));
		return 1;
	}
	dump_device(dev);
	xnvme_dev_close(dev);

	dump_library();
	dump_ctrlr_nasty();
	dump_zoned_kv();
	dump_fdp_dirs();
	dump_enumeration();

	fflush(stdout);
	return 0;
}
