// SPDX-License-Identifier: BSD-3-Clause
/*
 * Printers of the NVMe structures (libxnvme_spec.h, libxnvme_spec_pp.h): identify data and
 * their command-set variants, log pages, FDP, commands and features, directives and Simple
 * Copy, the zoned structures and the controller registers, on NULL, zeroed and filled objects,
 * with the checks of test_printers.c (printers_common.h). Public API only.
 */
#include "printers_common.h"

static void
test_idfy(void)
{
	struct xnvme_spec_idfy *idfy = calloc(1, sizeof(*idfy));
	struct xnvme_spec_idfy_ctrlr *ctrlr = &idfy->ctrlr;
	struct xnvme_spec_idfy_ns *ns = &idfy->ns;
	struct out out;

	CHECK(idfy);
	if (!idfy) {
		return;
	}

	CHECK_MODES(xnvme_spec_idfy_ctrlr_fpr, "xnvme_spec_idfy_ctrlr", ctrlr);
	CHECK_MODES(xnvme_spec_idfy_ns_fpr, "xnvme_spec_idfy_ns", ns);
	CHECK_MODES(xnvme_spec_idfy_cs_fpr, "xnvme_spec_idfy_cs", &idfy->cs);

	/* zeroed: one power state and one LBA format */
	CAPTURE(out, xnvme_spec_idfy_ctrlr_fpr(stream, ctrlr, XNVME_PR_DEF));
	CHECK_LINE(out.buf, "  sn: ''");
	CHECK_LINE(out.buf, "  psd:");
	CHECK(strstr(out.buf, "    - {mp: 0,"));
	out_free(&out);

	/* space-padded fields, quotes, separators and a non-printable byte */
	memset(ctrlr->sn, ' ', sizeof(ctrlr->sn));
	memcpy(ctrlr->sn, "SN'1: #x", 8);
	memset(ctrlr->mn, ' ', sizeof(ctrlr->mn));
	memcpy(ctrlr->mn, " xNVMe\x01ramdisk", 14);
	memcpy(ctrlr->fr, "0.7.5\0\0\0", 8);
	strcpy((char *)ctrlr->subnqn, "nqn.2014-08.org.nvmexpress:uuid:1");
	ctrlr->vid = 0x1b36;
	ctrlr->ver.val = 0x10400;
	ctrlr->mdts = 7;
	ctrlr->npss = 1;
	ctrlr->psd[1].mp = 25;
	ctrlr->oncs.val = 0x5f;
	ctrlr->tnvmcap[0] = 1ULL << 30;
	ctrlr->ieee[0] = 0x52;

	CAPTURE(out, xnvme_spec_idfy_ctrlr_fpr(stream, ctrlr, XNVME_PR_DEF));
	check_block(out.buf, "xnvme_spec_idfy_ctrlr");
	CHECK_LINE(out.buf, "  vid: 0x1b36");
	CHECK_LINE(out.buf, "  sn: 'SN''1: #x'");
	CHECK_LINE(out.buf, "  mn: ' xNVMe?ramdisk'");
	CHECK_LINE(out.buf, "  fr: '0.7.5'");
	CHECK_LINE(out.buf, "  ieee: [0x52, 0x00, 0x00]");
	CHECK_LINE(out.buf, "  ver: 0x10400");
	CHECK_LINE(out.buf, "  mdts: 7");
	CHECK_LINE(out.buf, "  oncs: 0x5f");
	CHECK_LINE(out.buf, "  tnvmcap: [1073741824, 0]");
	CHECK_LINE(out.buf, "  subnqn: 'nqn.2014-08.org.nvmexpress:uuid:1'");
	CHECK(strstr(out.buf, "    - {mp: 25, mps: 0,"));
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_idfy_ctrlr_fpr(stream, ctrlr, 0),
		      xnvme_spec_idfy_ctrlr_pr(ctrlr, 0));

	memset(idfy, 0, sizeof(*idfy));
	ns->nsze = ns->ncap = ns->nuse = 2097152;
	ns->nlbaf = 1;
	ns->flbas.format = 1;
	ns->lbaf[0].ds = 9;
	ns->lbaf[1].ds = 12;
	ns->lbaf[1].ms = 8;
	ns->nvmcap[0] = 1ULL << 30;
	ns->nguid[15] = 0xab;
	ns->eui64 = 0x1122334455667788ULL;

	CAPTURE(out, xnvme_spec_idfy_ns_fpr(stream, ns, XNVME_PR_DEF));
	check_block(out.buf, "xnvme_spec_idfy_ns");
	CHECK(starts_with(out.buf, "xnvme_spec_idfy_ns:\n  nsze: 2097152\n  ncap: 2097152\n"));
	CHECK_LINE(out.buf, "  nlbaf: 1");
	CHECK_LINE(out.buf, "  flbas:");
	CHECK_LINE(out.buf, "    format: 1");
	CHECK_LINE(out.buf, "  nvmcap: [1073741824, 0]");
	CHECK_LINE(out.buf, "  eui64: 0x1122334455667788");
	CHECK(strstr(out.buf, "  nguid: [0x00, "));
	CHECK(strstr(out.buf, "  lbaf:\n    - {ms: 0, ds: 9, rp: 0}\n"
			      "    - {ms: 8, ds: 12, rp: 0}\n"));
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_idfy_ns_fpr(stream, ns, 0), xnvme_spec_idfy_ns_pr(ns, 0));

	/* command set combinations: only non-zero vectors are listed */
	memset(idfy, 0, sizeof(*idfy));
	CAPTURE(out, xnvme_spec_idfy_cs_fpr(stream, &idfy->cs, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_idfy_cs:\n  iocsc: []\n");
	out_free(&out);
	idfy->cs.iocsc[0].nvm = 1;
	idfy->cs.iocsc[0].zns = 1;
	idfy->cs.iocsc[3].kv = 1;
	CAPTURE(out, xnvme_spec_idfy_cs_fpr(stream, &idfy->cs, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_idfy_cs:\n"
			   "  iocsc:\n"
			   "    - {index: 0, val: 0x5, nvm: 1, kv: 0, zns: 1}\n"
			   "    - {index: 3, val: 0x2, nvm: 0, kv: 1, zns: 0}\n");
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_idfy_cs_fpr(stream, &idfy->cs, 0),
		      xnvme_spec_idfy_cs_pr(&idfy->cs, 0));

	free(idfy);
}

static void
test_idfy_css(void)
{
	struct xnvme_spec_nvm_idfy *nvm = calloc(1, sizeof(*nvm));
	struct xnvme_spec_znd_idfy *znd = calloc(1, sizeof(*znd));
	struct xnvme_spec_kvs_idfy *kvs = calloc(1, sizeof(*kvs));
	struct xnvme_spec_znd_idfy_lbafe lbafe = {.zsze = 4096, .zdes = 1};
	struct out out;

	CHECK(nvm && znd && kvs);
	if (!nvm || !znd || !kvs) {
		goto exit;
	}

	CHECK_MODES(xnvme_spec_nvm_idfy_ctrlr_fpr, "xnvme_spec_nvm_idfy_ctrlr", &nvm->ctrlr);
	nvm->ctrlr.dmrl = 16;
	nvm->ctrlr.dmrsl = 0xffff;
	CAPTURE(out, xnvme_spec_nvm_idfy_ctrlr_fpr(stream, &nvm->ctrlr, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_nvm_idfy_ctrlr:\n  vsl: 0\n  wzsl: 0\n  wusl: 0\n"
			   "  dmrl: 16\n  dmrsl: 65535\n  dmsl: 0\n");
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_nvm_idfy_ctrlr_fpr(stream, &nvm->ctrlr, 0),
		      xnvme_spec_nvm_idfy_ctrlr_pr(&nvm->ctrlr, 0));

	memset(nvm, 0, sizeof(*nvm));
	CHECK_MODES(xnvme_spec_nvm_idfy_ns_fpr, "xnvme_spec_nvm_idfy_ns", &nvm->ns);
	nvm->ns.elbaf[1].pif = 2;
	CAPTURE(out, xnvme_spec_nvm_idfy_ns_fpr(stream, &nvm->ns, XNVME_PR_DEF));
	CHECK(strstr(out.buf, "  elbaf:\n    - {sts: 0, pif: 0}\n    - {sts: 0, pif: 2}\n"));
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_nvm_idfy_ns_fpr(stream, &nvm->ns, 0),
		      xnvme_spec_nvm_idfy_ns_pr(&nvm->ns, 0));

	CHECK_MODES(xnvme_spec_znd_idfy_ctrlr_fpr, "xnvme_spec_znd_idfy_ctrlr", &znd->zctrlr);
	znd->zctrlr.zasl = 5;
	CAPTURE(out, xnvme_spec_znd_idfy_ctrlr_fpr(stream, &znd->zctrlr, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_znd_idfy_ctrlr:\n  zasl: 5\n");
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_znd_idfy_ctrlr_fpr(stream, &znd->zctrlr, 0),
		      xnvme_spec_znd_idfy_ctrlr_pr(&znd->zctrlr, 0));

	memset(znd, 0, sizeof(*znd));
	CHECK_MODES(xnvme_spec_znd_idfy_ns_fpr, "xnvme_spec_znd_idfy_ns", &znd->zns);
	znd->zns.mar = 0xFFFFFFFF;
	znd->zns.lbafe[0].zsze = 32768;
	CAPTURE(out, xnvme_spec_znd_idfy_ns_fpr(stream, &znd->zns, XNVME_PR_DEF));
	CHECK_LINE(out.buf, "  mar: 4294967295");
	CHECK(strstr(out.buf, "  lbafe:\n    - {zsze: 32768, zdes: 0}\n"));
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_znd_idfy_ns_fpr(stream, &znd->zns, 0),
		      xnvme_spec_znd_idfy_ns_pr(&znd->zns, 0));

	CHECK_MODES(xnvme_spec_znd_idfy_lbafe_fpr, "xnvme_spec_znd_idfy_lbafe", &lbafe);
	CAPTURE(out, xnvme_spec_znd_idfy_lbafe_fpr(stream, &lbafe, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_znd_idfy_lbafe:\n  zsze: 4096\n  zdes: 1\n");
	out_free(&out);

	CHECK_MODES(xnvme_spec_kvs_idfy_ns_fpr, "xnvme_spec_kvs_idfy_ns", &kvs->ns);
	kvs->ns.nkvf = 1;
	kvs->ns.kvf[1].kml = 16;
	kvs->ns.kvf[1].vml = 4096;
	CAPTURE(out, xnvme_spec_kvs_idfy_ns_fpr(stream, &kvs->ns, XNVME_PR_DEF));
	CHECK(strstr(out.buf, "  kvf:\n    - {kml: 0, fopt: 0x0, vml: 0, mnk: 0}\n"
			      "    - {kml: 16, fopt: 0x0, vml: 4096, mnk: 0}\n"));
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_kvs_idfy_ns_fpr(stream, &kvs->ns, 0),
		      xnvme_spec_kvs_idfy_ns_pr(&kvs->ns, 0));

exit:
	free(nvm);
	free(znd);
	free(kvs);
}

static void
test_logs(void)
{
	struct xnvme_spec_log_health_entry health;
	struct xnvme_spec_log_erri_entry erri[2];
	struct xnvme_spec_znd_log_changes *changes = calloc(1, sizeof(*changes));
	struct out out;

	memset(&health, 0, sizeof(health));
	CHECK_MODES(xnvme_spec_log_health_fpr, "xnvme_spec_log_health_entry", &health);
	health.comp_temp = 310;
	health.data_units_read[0] = 5;
	health.data_units_read[8] = 1;                                      /* 2^64 + 5 */
	memset(health.host_read_cmds, 0xff, sizeof(health.host_read_cmds)); /* 2^128 - 1 */
	health.temp_sens[1] = 300;
	CAPTURE(out, xnvme_spec_log_health_fpr(stream, &health, XNVME_PR_DEF));
	CHECK_LINE(out.buf, "  comp_temp: 310");
	CHECK_LINE(out.buf, "  data_units_read: 18446744073709551621");
	CHECK_LINE(out.buf, "  data_units_written: 0");
	CHECK_LINE(out.buf, "  host_read_cmds: 340282366920938463463374607431768211455");
	CHECK_LINE(out.buf, "  temp_sens: [0, 300, 0, 0, 0, 0, 0, 0]");
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_log_health_fpr(stream, &health, 0),
		      xnvme_spec_log_health_pr(&health, 0));

	memset(erri, 0, sizeof(erri));
	erri[1].ecnt = 7;
	erri[1].status.sc = 0x2;
	erri[1].lba = 0x10;
	CAPTURE(out, xnvme_spec_log_erri_fpr(stream, erri, 2, XNVME_PR_DEF));
	check_block(out.buf, "xnvme_spec_log_erri_entry");
	CHECK_LINE(out.buf, "  - ecnt: 0");
	CHECK_LINE(out.buf, "  - ecnt: 7");
	CHECK_LINE(out.buf, "    status: {val: 0x4, sc: 0x2, sct: 0x0, m: 0, dnr: 0}");
	CHECK_LINE(out.buf, "    lba: 0x0000000000000010");
	out_free(&out);
	CAPTURE(out, xnvme_spec_log_erri_fpr(stream, erri, 2, XNVME_PR_TERSE));
	CHECK_STR(out.buf, TERSE_NOTE);
	out_free(&out);
	CAPTURE(out, xnvme_spec_log_erri_fpr(stream, NULL, 2, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_log_erri_entry: ~\n");
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_log_erri_fpr(stream, erri, 1, 0),
		      xnvme_spec_log_erri_pr(erri, 1, 0));

	CHECK(changes);
	if (!changes) {
		return;
	}
	CHECK_MODES(xnvme_spec_znd_log_changes_fpr, "xnvme_spec_znd_log_changes", changes);
	CAPTURE(out, xnvme_spec_znd_log_changes_fpr(stream, changes, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_znd_log_changes:\n  nidents: 0\n  idents: []\n");
	out_free(&out);
	changes->nidents = 2;
	changes->idents[1] = 0x8000;
	CAPTURE(out, xnvme_spec_znd_log_changes_fpr(stream, changes, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_znd_log_changes:\n  nidents: 2\n  idents:\n"
			   "    - 0x0000000000000000\n    - 0x0000000000008000\n");
	out_free(&out);
	changes->nidents = 0xFFFF; /* bounded by the array */
	CAPTURE(out, xnvme_spec_znd_log_changes_fpr(stream, changes, XNVME_PR_DEF));
	CHECK_EQ(out.len, strlen("xnvme_spec_znd_log_changes:\n  nidents: 65535\n  idents:\n") +
				  ZND_CHANGES_LEN * strlen("    - 0x0000000000000000\n"));
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_znd_log_changes_fpr(stream, changes, 0),
		      xnvme_spec_znd_log_changes_pr(changes, 0));
	free(changes);
}

static void
test_fdp(void)
{
	uint8_t *buf = calloc(1, 4096);
	struct xnvme_spec_log_fdp_conf *conf = (void *)buf;
	struct xnvme_spec_fdp_conf_desc *desc;
	struct xnvme_spec_log_fdp_stats stats = {0};
	struct xnvme_spec_log_fdp_events *events = (void *)buf;
	struct xnvme_spec_log_ruhu *ruhu = (void *)buf;
	struct xnvme_spec_ruhs *ruhs = (void *)buf;
	struct xnvme_spec_fdp_event_desc *edesc = (void *)buf;
	struct xnvme_spec_feat feat = {0};
	struct out out;

	CHECK(buf);
	if (!buf) {
		return;
	}

	/* two configurations of different sizes, the second one at an odd offset */
	conf->ncfg = 1;
	conf->size = 16 + 72 + 68;
	desc = (void *)(buf + 16);
	desc->ds = 72;
	desc->nruh = 2;
	desc->nrg = 1;
	desc->runs = 1 << 20;
	desc->ruh_desc[0].ruht = 1;
	desc->ruh_desc[1].ruht = 2;
	buf[16 + 72] = 68;    /* ds of the second descriptor, 4 ruh bytes follow the fixed part */
	buf[16 + 72 + 8] = 1; /* its nruh */
	buf[16 + 72 + 64] = 0x1;

	CAPTURE_STDOUT(out, xnvme_spec_log_fdp_conf_pr(conf, XNVME_PR_DEF));
	check_block(out.buf, "xnvme_spec_log_fdp_conf");
	CHECK(strstr(out.buf, "  conf_desc:\n    - ds: 72\n"));
	CHECK(strstr(out.buf, "      ruh_desc:\n        - {ruht: 0x1}\n        - {ruht: 0x2}\n"
			      "    - ds: 68\n"));
	CHECK_LINE(out.buf, "      runs: 1048576");
	out_free(&out);
	CAPTURE_STDOUT(out, xnvme_spec_log_fdp_conf_pr(NULL, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_log_fdp_conf: ~\n");
	out_free(&out);
	CAPTURE_STDOUT(out, xnvme_spec_log_fdp_conf_pr(conf, XNVME_PR_TERSE));
	CHECK_STR(out.buf, TERSE_NOTE);
	out_free(&out);

	/* a descriptor size of 0 must not loop */
	memset(buf, 0, 4096);
	conf->ncfg = 200;
	CAPTURE_STDOUT(out, xnvme_spec_log_fdp_conf_pr(conf, XNVME_PR_DEF));
	CHECK(strstr(out.buf, "    - ds: 0\n"));
	CHECK(!strstr(strstr(out.buf, "    - ds: 0\n") + 1, "    - ds: 0\n"));
	out_free(&out);

	stats.hbmw[0] = 4096;
	stats.mbe[1] = 1;
	CAPTURE_STDOUT(out, xnvme_spec_log_fdp_stats_pr(&stats, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_log_fdp_stats:\n  hbmw: [4096, 0]\n  mbmw: [0, 0]\n"
			   "  mbe: [0, 1]\n");
	out_free(&out);

	memset(buf, 0, 4096);
	events->nevents = 1;
	events->event[0].type = 0x80;
	events->event[0].pid = 0x3;
	CAPTURE_STDOUT(out, xnvme_spec_log_fdp_events_pr(events, 2, XNVME_PR_DEF));
	check_block(out.buf, "xnvme_spec_log_fdp_events");
	CHECK_LINE(out.buf, "  nevents: 1");
	CHECK_LINE(out.buf, "    - type: 0x80");
	CHECK_LINE(out.buf, "      pid: 0x3");
	CHECK_LINE(out.buf, "    - type: 0x0");
	out_free(&out);
	CAPTURE_STDOUT(out, xnvme_spec_log_fdp_events_pr(events, 0, XNVME_PR_DEF));
	CHECK_LINE(out.buf, "  event: []");
	out_free(&out);

	memset(buf, 0, 4096);
	ruhu->nruh = 2;
	ruhu->ruhu_desc[1].ruha = 0x1;
	CAPTURE_STDOUT(out, xnvme_spec_log_ruhu_pr(ruhu, 2, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_log_ruhu:\n  nruh: 2\n  ruhu_desc:\n    - {ruha: 0x0}\n"
			   "    - {ruha: 0x1}\n");
	out_free(&out);

	memset(buf, 0, 4096);
	ruhs->nruhsd = 1;
	ruhs->desc[0].pi = 0x1;
	ruhs->desc[0].ruamw = 1000;
	CAPTURE_STDOUT(out, xnvme_spec_ruhs_pr(ruhs, 1, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_ruhs:\n  nruhsd: 1\n  desc:\n"
			   "    - {pi: 0x1, ruhi: 0x0, earutr: 0, ruamw: 1000}\n");
	out_free(&out);
	CAPTURE_STDOUT(out, xnvme_spec_ruhs_pr(ruhs, 1, XNVME_PR_TERSE));
	CHECK_STR(out.buf, TERSE_NOTE);
	out_free(&out);

	memset(buf, 0, 4096);
	edesc[0].type = 0x0;
	edesc[0].fdpeta.ee = 1;
	edesc[1].type = 0x80;
	feat.val = 2;
	CAPTURE_STDOUT(out, xnvme_spec_feat_fdp_events_pr(buf, feat, XNVME_PR_DEF));
	check_block(out.buf, "xnvme_spec_feat_fdp_events");
	CHECK_LINE(out.buf, "    - {type: 0x0, fdpeta: 0x1, ee: 1}");
	CHECK_LINE(out.buf, "    - {type: 0x80, fdpeta: 0x0, ee: 0}");
	out_free(&out);

	free(buf);
}

static void
test_cmd_feat(void)
{
	struct xnvme_spec_cmd cmd;
	struct xnvme_spec_feat feat = {0};
	struct out out;

	memset(&cmd, 0, sizeof(cmd));
	CHECK_MODES(xnvme_spec_cmd_fpr, "xnvme_spec_cmd", &cmd);
	cmd.common.opcode = XNVME_SPEC_NVM_OPC_READ;
	cmd.common.nsid = 1;
	cmd.nvm.slba = 0x100;
	cmd.nvm.nlb = 7;
	CAPTURE(out, xnvme_spec_cmd_fpr(stream, &cmd, XNVME_PR_DEF));
	CHECK(starts_with(out.buf, "xnvme_spec_cmd:\n  opcode: 0x2\n"));
	CHECK_LINE(out.buf, "  nsid: 0x1");
	CHECK_LINE(out.buf, "  dptr: {prp1: 0x0, prp2: 0x0}");
	CHECK_LINE(out.buf, "  ndt: 0x100");
	CHECK_LINE(out.buf, "  cdw12: 0x7");
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_cmd_fpr(stream, &cmd, 0), xnvme_spec_cmd_pr(&cmd, 0));

	feat.nqueues.nsqa = 63;
	feat.nqueues.ncqa = 31;
	CAPTURE(out, xnvme_spec_feat_fpr(stream, XNVME_SPEC_FEAT_NQUEUES, feat, XNVME_PR_DEF));
	CHECK_STR(out.buf, "feat: { nsqa: 63, ncqa: 31 }\n");
	out_free(&out);
	feat.val = 0;
	feat.error_recovery.dulbe = 1;
	feat.error_recovery.tler = 10;
	CAPTURE(out, xnvme_spec_feat_fpr(stream, XNVME_SPEC_FEAT_ERROR_RECOVERY, feat, 0));
	CHECK_STR(out.buf, "feat: { tler: 10, dulbe: 1 }\n");
	out_free(&out);
	feat.val = 0;
	feat.temp_threshold.tmpth = 350;
	CAPTURE(out, xnvme_spec_feat_fpr(stream, XNVME_SPEC_FEAT_TEMP_THRESHOLD, feat, 0));
	CHECK_STR(out.buf, "feat: { tmpth: 350, tmpsel: 0x0, thsel: 0x0 }\n");
	out_free(&out);
	feat.val = 0x101;
	CAPTURE(out, xnvme_spec_feat_fpr(stream, XNVME_SPEC_FEAT_FDP_MODE, feat, 0));
	CHECK_STR(out.buf, "feat: { fdpe: 1, fdpci: 1 }\n");
	out_free(&out);
	CAPTURE(out, xnvme_spec_feat_fpr(stream, 0x42, feat, 0));
	CHECK_STR(out.buf, "feat: { fid: 0x42, val: 0x101 }\n");
	out_free(&out);
	CAPTURE(out, xnvme_spec_feat_fpr(stream, 0x42, feat, XNVME_PR_TERSE));
	CHECK_STR(out.buf, TERSE_NOTE);
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_feat_fpr(stream, XNVME_SPEC_FEAT_VWCACHE, feat, 0),
		      xnvme_spec_feat_pr(XNVME_SPEC_FEAT_VWCACHE, feat, 0));
}

static void
test_dirs_scopy(void)
{
	struct xnvme_spec_idfy_dir_rp *rp = calloc(1, sizeof(*rp));
	struct xnvme_spec_streams_dir_rp srp = {0};
	struct xnvme_spec_streams_dir_gs *sgs = calloc(1, 64);
	struct xnvme_spec_alloc_resource sar = {0};
	struct xnvme_spec_nvm_scopy_source_range *srange = calloc(1, sizeof(*srange));
	struct out out;

	CHECK(rp && sgs && srange);
	if (!rp || !sgs || !srange) {
		goto exit;
	}

	rp->directives_supported.identify = 1;
	rp->directives_supported.streams = 1;
	rp->directives_enabled.identify = 1;
	CAPTURE_STDOUT(out, xnvme_spec_drecv_idfy_pr(rp, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_idfy_dir_rp:\n"
			   "  directives_supported: {identify: 1, streams: 1, data_placement: 0}\n"
			   "  directives_enabled: {identify: 1, streams: 0, data_placement: 0}\n"
			   "  directives_persistence: "
			   "{identify: 0, streams: 0, data_placement: 0}\n");
	out_free(&out);

	srp.msl = 16;
	srp.sws = 4096;
	CAPTURE_STDOUT(out, xnvme_spec_drecv_srp_pr(&srp, XNVME_PR_DEF));
	check_block(out.buf, "xnvme_spec_streams_dir_rp");
	CHECK_LINE(out.buf, "  msl: 16");
	CHECK_LINE(out.buf, "  sws: 4096");
	out_free(&out);

	sgs->open_sc = 2;
	sgs->sid[0] = 1;
	sgs->sid[1] = 5;
	CAPTURE_STDOUT(out, xnvme_spec_drecv_sgs_pr(sgs, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_streams_dir_gs:\n  open_sc: 2\n  sid:\n    - 0x1\n"
			   "    - 0x5\n");
	out_free(&out);

	sar.bits.nsa = 4;
	CAPTURE_STDOUT(out, xnvme_spec_drecv_sar_pr(sar, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_alloc_resource:\n  nsa: 4\n");
	out_free(&out);
	CAPTURE_STDOUT(out, xnvme_spec_drecv_sar_pr(sar, XNVME_PR_TERSE));
	CHECK_STR(out.buf, TERSE_NOTE);
	out_free(&out);

	CHECK_MODES(xnvme_spec_nvm_scopy_fmt_zero_fpr, "xnvme_spec_nvm_scopy_fmt_zero",
		    &srange->entry[0]);
	srange->entry[0].slba = 0x20;
	srange->entry[0].nlb = 3;
	srange->entry[1].slba = 0x40;
	CAPTURE(out, xnvme_spec_nvm_scopy_fmt_zero_fpr(stream, &srange->entry[0], 0));
	CHECK_STR(out.buf, "xnvme_spec_nvm_scopy_fmt_zero:\n  slba: 0x0000000000000020\n"
			   "  nlb: 3\n  eilbrt: 0x0\n  elbatm: 0x0\n  elbat: 0x0\n");
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_nvm_scopy_fmt_zero_fpr(stream, &srange->entry[0], 0),
		      xnvme_spec_nvm_scopy_fmt_zero_pr(&srange->entry[0], 0));

	CAPTURE(out, xnvme_spec_nvm_scopy_source_range_fpr(stream, srange, 1, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_nvm_scopy_source_range:\n  nr: 1\n  entry:\n"
			   "    - {slba: 0x0000000000000020, nlb: 3, eilbrt: 0x0, elbatm: 0x0, "
			   "elbat: 0x0}\n"
			   "    - {slba: 0x0000000000000040, nlb: 0, eilbrt: 0x0, elbatm: 0x0, "
			   "elbat: 0x0}\n");
	out_free(&out);
	CAPTURE(out, xnvme_spec_nvm_scopy_source_range_fpr(stream, srange, 255, XNVME_PR_DEF));
	CHECK(strstr(out.buf, "  nr: 255\n")); /* at most 128 entries printed */
	out_free(&out);
	CAPTURE(out, xnvme_spec_nvm_scopy_source_range_fpr(stream, NULL, 1, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_nvm_scopy_source_range: ~\n");
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_nvm_scopy_source_range_fpr(stream, srange, 0, 0),
		      xnvme_spec_nvm_scopy_source_range_pr(srange, 0, 0));

exit:
	free(rp);
	free(sgs);
	free(srange);
}

static void
test_znd(void)
{
	struct xnvme_spec_znd_descr descr;
	struct xnvme_spec_znd_report_hdr hdr = {0};
	struct out out;

	memset(&descr, 0, sizeof(descr));
	descr.zslba = 0x8000;
	descr.wp = 0x8010;
	descr.zcap = 28672;
	descr.zt = XNVME_SPEC_ZND_TYPE_SEQWR;
	descr.zs = XNVME_SPEC_ZND_STATE_IOPEN;
	descr.za.zfr = 1;

	CHECK_MODES(xnvme_spec_znd_descr_fpr, "xnvme_spec_znd_descr", &descr);
	CAPTURE(out, xnvme_spec_znd_descr_fpr_yaml(stream, &descr, 0, ", "));
	CHECK_STR(out.buf, "zslba: 0x0000000000008000, wp: 0x0000000000008010, zcap: 28672, "
			   "zt: 0x2, zs: ZND_STATE_IOPEN, za: '0b00000010'");
	out_free(&out);
	CAPTURE(out, xnvme_spec_znd_descr_fpr(stream, &descr, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_znd_descr:\n"
			   "  zslba: 0x0000000000008000\n"
			   "  wp: 0x0000000000008010\n"
			   "  zcap: 28672\n"
			   "  zt: 0x2\n"
			   "  zs: ZND_STATE_IOPEN\n"
			   "  za: '0b00000010'\n");
	out_free(&out);
	descr.zs = 0;
	CAPTURE(out, xnvme_spec_znd_descr_fpr(stream, &descr, XNVME_PR_DEF));
	CHECK_LINE(out.buf, "  zs: ENOSYS");
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_znd_descr_fpr(stream, &descr, 0),
		      xnvme_spec_znd_descr_pr(&descr, 0));

	hdr.nzones = 32;
	CHECK_MODES(xnvme_spec_znd_report_hdr_fpr, "xnvme_spec_znd_report_hdr", &hdr);
	CAPTURE(out, xnvme_spec_znd_report_hdr_fpr(stream, &hdr, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_spec_znd_report_hdr:\n  nzones: 32\n");
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_znd_report_hdr_fpr(stream, &hdr, 0),
		      xnvme_spec_znd_report_hdr_pr(&hdr, 0));
}

static void
test_ctrlr_bar(void)
{
	struct xnvme_spec_ctrlr_bar *bar = calloc(1, sizeof(*bar));
	struct out out;

	CHECK(bar);
	if (!bar) {
		return;
	}
	CHECK_MODES(xnvme_spec_ctrlr_bar_fpr, "xnvme_spec_ctrlr_bar", bar);
	bar->cap = 0x4000ff;
	bar->vs = 0x10400;
	bar->pmrmscu = 0x1;
	CAPTURE(out, xnvme_spec_ctrlr_bar_fpr(stream, bar, XNVME_PR_DEF));
	CHECK(starts_with(out.buf,
			  "xnvme_spec_ctrlr_bar:\n  cap: 0x00000000004000ff\n  vs: 0x10400\n"));
	CHECK_LINE(out.buf, "  pmrmscu: 0x1");
	out_free(&out);
	CHECK_PR_SAME(xnvme_spec_ctrlr_bar_fpr(stream, bar, 0), xnvme_spec_ctrlr_bar_pp(bar, 0));
	free(bar);
}

int
main(void)
{
	test_idfy();
	test_idfy_css();
	test_logs();
	test_fdp();
	test_cmd_feat();
	test_dirs_scopy();
	test_znd();
	test_ctrlr_bar();

	return xnvme_test_result("test_printers_spec");
}
