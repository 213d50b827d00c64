// SPDX-License-Identifier: BSD-3-Clause
/*
 * Printers of the library's own objects: every *_fpr/_pr of libxnvme_pp.h, libxnvme_lba.h and
 * the CLI enumeration printers (enums as strings, ident, geometry, options, command contexts,
 * backend attributes, LBA ranges, enumeration lists, device handles), on NULL, zeroed and
 * filled objects. The NVMe structures of libxnvme_spec.h / libxnvme_spec_pp.h:
 * test_printers_spec.c.
 *
 * Checks that the return value equals the number of bytes written, that DEF and YAML print the
 * same text and TERSE the one-line ENOSYS note, and the key lines and values of each shape:
 * head line "<struct name>:", "~" for NULL, quoting of strings, enum names. The *_pr variants
 * are checked to print the same text to stdout. Public API only.
 */
#include "printers_common.h"

static void
test_enum_str(void)
{
	CHECK_STR(xnvme_spec_znd_state_str(XNVME_SPEC_ZND_STATE_EMPTY), "ZND_STATE_EMPTY");
	CHECK_STR(xnvme_spec_znd_state_str(XNVME_SPEC_ZND_STATE_OFFLINE), "ZND_STATE_OFFLINE");
	CHECK_STR(xnvme_spec_znd_state_str(0), "ENOSYS");
	CHECK_STR(xnvme_spec_csi_str(XNVME_SPEC_CSI_NVM), "CSI_NVM");
	CHECK_STR(xnvme_spec_csi_str(XNVME_SPEC_CSI_ZONED), "CSI_ZONED");
	CHECK_STR(xnvme_spec_csi_str((enum xnvme_spec_csi)0x1F), "ENOSYS");
	CHECK_STR(xnvme_spec_adm_opc_str(XNVME_SPEC_ADM_OPC_IDFY), "ADM_OPC_IDFY");
	CHECK_STR(xnvme_spec_feat_id_str(XNVME_SPEC_FEAT_NQUEUES), "FEAT_NQUEUES");
	CHECK_STR(xnvme_spec_feat_sel_str(XNVME_SPEC_FEAT_SEL_SUPPORTED), "FEAT_SEL_SUPPORTED");
	CHECK_STR(xnvme_spec_flag_str(XNVME_SPEC_FLAG_PRINFO_PRACT), "FLAG_PRINFO_PRACT");
	CHECK_STR(xnvme_spec_idfy_cns_str(XNVME_SPEC_IDFY_IOCS), "IDFY_IOCS");
	CHECK_STR(xnvme_spec_log_lpi_str(XNVME_SPEC_LOG_FDPEVENTS), "LOG_FDPEVENTS");
	CHECK_STR(xnvme_spec_znd_log_lid_str(XNVME_SPEC_LOG_ZND_CHANGES), "LOG_ZND_CHANGES");
	CHECK_STR(xnvme_spec_nvm_cmd_cpl_sc_str(XNVME_SPEC_NVM_CMD_CPL_SC_WRITE_TO_RONLY),
		  "NVM_CMD_CPL_SC_WRITE_TO_RONLY");
	CHECK_STR(xnvme_spec_nvm_opc_str(XNVME_SPEC_NVM_OPC_WRITE_ZEROES), "NVM_OPC_WRITE_ZEROES");
	CHECK_STR(xnvme_spec_nvm_opc_str(XNVME_SPEC_NVM_OPC_FLUSH), "NVM_OPC_FLUSH");
	CHECK_STR(xnvme_spec_psdt_str(XNVME_SPEC_PSDT_SGL_MPTR_SGL), "PSDT_SGL_MPTR_SGL");
	CHECK_STR(xnvme_spec_sgl_descriptor_subtype_str(XNVME_SPEC_SGL_DESCR_SUBTYPE_OFFSET),
		  "SGL_DESCR_SUBTYPE_OFFSET");
	CHECK_STR(xnvme_spec_znd_cmd_mgmt_recv_action_str(
			  XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT_EXTENDED),
		  "ZND_CMD_MGMT_RECV_ACTION_REPORT_EXTENDED");
	CHECK_STR(xnvme_spec_znd_cmd_mgmt_recv_action_sf_str(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_FULL),
		  "ZND_CMD_MGMT_RECV_SF_FULL");
	CHECK_STR(xnvme_spec_znd_cmd_mgmt_send_action_str(XNVME_SPEC_ZND_CMD_MGMT_SEND_FLUSH),
		  "ZND_CMD_MGMT_SEND_FLUSH");
	CHECK_STR(xnvme_spec_znd_opc_str(XNVME_SPEC_ZND_OPC_APPEND), "ZND_OPC_APPEND");
	CHECK_STR(xnvme_spec_znd_mgmt_send_action_so_str(XNVME_SPEC_ZND_MGMT_OPEN_WITH_ZRWA),
		  "ZND_MGMT_OPEN_WITH_ZRWA");
	CHECK_STR(xnvme_spec_znd_status_code_str(XNVME_SPEC_ZND_SC_INVALID_TRANS),
		  "ZND_SC_INVALID_TRANS");
	CHECK_STR(xnvme_spec_znd_type_str(XNVME_SPEC_ZND_TYPE_SEQWR), "ZND_TYPE_SEQWR");

	/* never NULL, for any value */
	for (int v = -2; v < 0x10000; v += 7) {
		CHECK(xnvme_spec_adm_opc_str(v) && xnvme_spec_csi_str(v) &&
		      xnvme_spec_feat_id_str(v) && xnvme_spec_feat_sel_str(v) &&
		      xnvme_spec_flag_str(v) && xnvme_spec_idfy_cns_str(v) &&
		      xnvme_spec_log_lpi_str(v) && xnvme_spec_znd_log_lid_str(v) &&
		      xnvme_spec_nvm_cmd_cpl_sc_str(v) && xnvme_spec_nvm_opc_str(v) &&
		      xnvme_spec_psdt_str(v) && xnvme_spec_sgl_descriptor_subtype_str(v) &&
		      xnvme_spec_znd_cmd_mgmt_recv_action_str(v) &&
		      xnvme_spec_znd_cmd_mgmt_recv_action_sf_str(v) &&
		      xnvme_spec_znd_cmd_mgmt_send_action_str(v) && xnvme_spec_znd_opc_str(v) &&
		      xnvme_spec_znd_mgmt_send_action_so_str(v) &&
		      xnvme_spec_znd_status_code_str(v) && xnvme_spec_znd_state_str(v) &&
		      xnvme_spec_znd_type_str(v));
	}
}

static void
test_ident(void)
{
	struct xnvme_ident ident;
	struct out out;

	CHECK_EQ(xnvme_ident_from_uri("/dev/nvme0n1", &ident), 0);
	ident.dtype = 2;
	ident.nsid = 1;
	ident.csi = 0;
	strcpy(ident.subnqn, "nqn.2019-08.org.qemu:it's");

	CHECK_MODES(xnvme_ident_fpr, "xnvme_ident", &ident);

	CAPTURE(out, xnvme_ident_fpr(stream, &ident, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_ident:\n"
			   "  uri: '/dev/nvme0n1'\n"
			   "  dtype: 0x2\n"
			   "  nsid: 0x1\n"
			   "  csi: 0x0\n"
			   "  subnqn: 'nqn.2019-08.org.qemu:it''s'\n");
	out_free(&out);

	/* flow style, no head, no trailing separator */
	CAPTURE(out, xnvme_ident_yaml(stream, &ident, 0, ", ", 0));
	CHECK_STR(out.buf, "uri: '/dev/nvme0n1', dtype: 0x2, nsid: 0x1, csi: 0x0, "
			   "subnqn: 'nqn.2019-08.org.qemu:it''s'");
	out_free(&out);

	CAPTURE(out, xnvme_ident_yaml(stream, &ident, 2, "\n", 1));
	CHECK(starts_with(out.buf, "  xnvme_ident:\n    uri: '/dev/nvme0n1'\n"));
	CHECK(out.buf[out.len - 1] == '\'');
	out_free(&out);

	CAPTURE(out, xnvme_ident_yaml(stream, NULL, 2, "\n", 1));
	CHECK_STR(out.buf, "  xnvme_ident: ~");
	out_free(&out);

	CAPTURE(out, xnvme_ident_yaml(stream, NULL, 0, ", ", 0));
	CHECK_STR(out.buf, "~");
	out_free(&out);

	CHECK_PR_SAME(xnvme_ident_fpr(stream, &ident, 0), xnvme_ident_pr(&ident, 0));
}

static void
test_geo(void)
{
	struct xnvme_geo geo = {0};
	struct out out;

	geo.type = XNVME_GEO_CONVENTIONAL;
	geo.npugrp = geo.npunit = geo.nzone = 1;
	geo.nsect = 2097152;
	geo.nbytes = geo.lba_nbytes = 512;
	geo.tbytes = 1ULL << 30;
	geo.mdts_nbytes = 1 << 20;
	geo.ssw = 9;

	CHECK_MODES(xnvme_geo_fpr, "xnvme_geo", &geo);

	CAPTURE(out, xnvme_geo_fpr(stream, &geo, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_geo:\n"
			   "  type: XNVME_GEO_CONVENTIONAL\n"
			   "  npugrp: 1\n"
			   "  npunit: 1\n"
			   "  nzone: 1\n"
			   "  nsect: 2097152\n"
			   "  nbytes: 512\n"
			   "  nbytes_oob: 0\n"
			   "  tbytes: 1073741824\n"
			   "  mdts_nbytes: 1048576\n"
			   "  lba_nbytes: 512\n"
			   "  lba_extended: 0\n"
			   "  ssw: 9\n"
			   "  pi_type: 0\n"
			   "  pi_loc: 0\n"
			   "  pi_format: 0\n");
	out_free(&out);

	geo.type = XNVME_GEO_KV;
	CAPTURE(out, xnvme_geo_fpr(stream, &geo, XNVME_PR_YAML));
	CHECK_LINE(out.buf, "  type: XNVME_GEO_KV");
	out_free(&out);

	geo.type = XNVME_GEO_ZONED;
	CAPTURE(out, xnvme_geo_fpr(stream, &geo, XNVME_PR_YAML));
	CHECK_LINE(out.buf, "  type: XNVME_GEO_ZONED");
	out_free(&out);

	geo.type = (enum xnvme_geo_type)7;
	CAPTURE(out, xnvme_geo_fpr(stream, &geo, XNVME_PR_YAML));
	CHECK_LINE(out.buf, "  type: XNVME_GEO_ENOSYS");
	out_free(&out);

	CHECK_PR_SAME(xnvme_geo_fpr(stream, &geo, 0), xnvme_geo_pr(&geo, 0));
}

static void
test_opts(void)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct out out;

	opts.be = "ramdisk";
	opts.core_mask = "0x1:'x'";

	CAPTURE_STDOUT(out, xnvme_opts_pr(&opts, XNVME_PR_DEF));
	check_block(out.buf, "xnvme_opts");
	CHECK(strstr(out.buf,
		     "xnvme_opts:\n  be: 'ramdisk'\n  dev: ~\n  mem: ~\n  sync: ~\n"
		     "  async: ~\n  admin: ~\n  nsid: 0x1\n  rdonly: 0\n  wronly: 0\n"
		     "  rdwr: 1\n  create: 0\n  truncate: 0\n  direct: 0\n"
		     "  create_mode: 0x180\n  poll_io: 0\n  poll_sq: 0\n"
		     "  register_files: 0\n  register_buffers: 0\n  css.given: 0\n"
		     "  css.value: 0x0\n  use_cmb_sqs: 0\n  shm_id: 0\n  main_core: 0\n"
		     "  core_mask: '0x1:''x'''\n  adrfam: ~\n  spdk_fabrics: 0\n") == out.buf);
	out_free(&out);

	CAPTURE_STDOUT(out, xnvme_opts_pr(NULL, XNVME_PR_YAML));
	CHECK_STR(out.buf, "xnvme_opts: ~\n");
	out_free(&out);

	CAPTURE_STDOUT(out, xnvme_opts_pr(&opts, XNVME_PR_TERSE));
	CHECK_STR(out.buf, TERSE_NOTE);
	out_free(&out);
}

static void
test_cmd_ctx(void)
{
	struct xnvme_cmd_ctx ctx;
	struct out out;

	memset(&ctx, 0, sizeof(ctx));
	ctx.cpl.cdw0 = 0x1f;
	ctx.cpl.status.sc = 0x2;
	ctx.cpl.status.sct = 0x1;

	CAPTURE_STDOUT_VOID(out, xnvme_cmd_ctx_pr(&ctx, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_cmd_ctx: {cdw0: 0x1f, sc: 0x2, sct: 0x1}\n");
	out_free(&out);

	CAPTURE_STDOUT_VOID(out, xnvme_cmd_ctx_pr(&ctx, XNVME_PR_TERSE)); /* mode ignored */
	CHECK_STR(out.buf, "xnvme_cmd_ctx: {cdw0: 0x1f, sc: 0x2, sct: 0x1}\n");
	out_free(&out);

	CAPTURE_STDOUT_VOID(out, xnvme_cmd_ctx_pr(NULL, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_cmd_ctx: ~\n");
	out_free(&out);
}

static void
test_be_attr(void)
{
	struct xnvme_be_attr_list *list;
	struct xnvme_be_attr attr = {.name = "linux", .enabled = 1};
	struct out out;

	CAPTURE(out, xnvme_be_attr_fpr(stream, &attr, XNVME_PR_DEF));
	CHECK_STR(out.buf, "name: 'linux'\n    enabled: 1\n");
	out_free(&out);
	CAPTURE(out, xnvme_be_attr_fpr(stream, &attr, XNVME_PR_TERSE));
	CHECK_STR(out.buf, TERSE_NOTE);
	out_free(&out);
	CHECK_PR_SAME(xnvme_be_attr_fpr(stream, &attr, 0), xnvme_be_attr_pr(&attr, 0));

	list = calloc(1, sizeof(*list) + 2 * sizeof(list->item[0]));
	CHECK(list);
	if (!list) {
		return;
	}
	list->count = 2;
	list->capacity = 2;
	list->item[0].name = "spdk";
	list->item[1].name = "ramdisk";
	list->item[1].enabled = 1;

	CHECK_MODES(xnvme_be_attr_list_fpr, "xnvme_be_attr_list", list);
	CAPTURE(out, xnvme_be_attr_list_fpr(stream, list, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_be_attr_list:\n"
			   "  count: 2\n"
			   "  capacity: 2\n"
			   "  items:\n"
			   "  - name: 'spdk'\n"
			   "    enabled: 0\n"
			   "  - name: 'ramdisk'\n"
			   "    enabled: 1\n");
	out_free(&out);

	list->count = 0;
	CAPTURE(out, xnvme_be_attr_list_fpr(stream, list, XNVME_PR_DEF));
	CHECK_LINE(out.buf, "  items: []");
	out_free(&out);
	free(list);

	/* the library's own list */
	list = NULL;
	if (!xnvme_be_attr_list_bundled(&list) && list) {
		char count[32];

		snprintf(count, sizeof(count), "  count: %d", list->count);
		CAPTURE(out, xnvme_be_attr_list_fpr(stream, list, XNVME_PR_DEF));
		CHECK(list->count >= 7);
		CHECK_LINE(out.buf, count);
		CHECK_LINE(out.buf, "  - name: 'ramdisk'");
		CHECK_LINE(out.buf, "  - name: 'tcp'");
		out_free(&out);
		CHECK_PR_SAME(xnvme_be_attr_list_fpr(stream, list, 0),
			      xnvme_be_attr_list_pr(list, 0));
		xnvme_buf_virt_free(list);
	}
}

static void
test_lba(void)
{
	uint64_t lbas[3] = {0x0, 0x10, 0xFFFFFFFFFFFFFFFFULL};
	struct xnvme_lba_range range = {0};
	struct out out;

	CAPTURE(out, xnvme_lba_fpr(stream, 0xabcd, XNVME_PR_DEF));
	CHECK_STR(out.buf, "lba: 0x000000000000abcd\n");
	out_free(&out);
	CAPTURE(out, xnvme_lba_fpr(stream, 0xabcd, XNVME_PR_TERSE));
	CHECK_STR(out.buf, "0x000000000000abcd\n");
	out_free(&out);
	CHECK_PR_SAME(xnvme_lba_fpr(stream, 1, XNVME_PR_YAML), xnvme_lba_pr(1, XNVME_PR_YAML));

	CAPTURE(out, xnvme_lba_fprn(stream, lbas, 3, XNVME_PR_DEF));
	CHECK_STR(out.buf, "nlbas: 3\n"
			   "lbas:\n"
			   "  - 0x0000000000000000\n"
			   "  - 0x0000000000000010\n"
			   "  - 0xffffffffffffffff\n");
	out_free(&out);
	CAPTURE(out, xnvme_lba_fprn(stream, lbas, 0, XNVME_PR_DEF));
	CHECK_STR(out.buf, "nlbas: 0\nlbas: []\n");
	out_free(&out);
	CAPTURE(out, xnvme_lba_fprn(stream, lbas, 3, XNVME_PR_TERSE));
	CHECK_STR(out.buf, TERSE_NOTE);
	out_free(&out);
	CHECK_PR_SAME(xnvme_lba_fprn(stream, lbas, 2, XNVME_PR_DEF),
		      xnvme_lba_prn(lbas, 2, XNVME_PR_DEF));

	range.slba = 0x10;
	range.elba = 0x17;
	range.naddrs = 8;
	range.nbytes = 4096;
	range.attr.is_valid = 1;
	CHECK_MODES(xnvme_lba_range_fpr, "xnvme_lba_range", &range);
	CAPTURE(out, xnvme_lba_range_fpr(stream, &range, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_lba_range:\n"
			   "  slba: 0x0000000000000010\n"
			   "  elba: 0x0000000000000017\n"
			   "  naddrs: 8\n"
			   "  nbytes: 4096\n"
			   "  attr: { is_zones: 0, is_valid: 1}\n");
	out_free(&out);
	CHECK_PR_SAME(xnvme_lba_range_fpr(stream, &range, 0), xnvme_lba_range_pr(&range, 0));
}

static void
test_enumeration(void)
{
	struct xnvme_cli_enumeration *list;
	struct out out;

	list = calloc(1, sizeof(*list) + 3 * sizeof(list->entries[0]));
	CHECK(list);
	if (!list) {
		return;
	}

	CAPTURE(out, xnvme_cli_enumeration_fpr(stream, list, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_cli_enumeration:\n  capacity: 0\n  nentries: 0\n  entries: []\n");
	out_free(&out);
	CAPTURE(out, xnvme_cli_enumeration_fpp(stream, list, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_cli_enumeration: ~\n");
	out_free(&out);

	list->nentries = 3;
	xnvme_ident_from_uri("/dev/nvme0n1", &list->entries[0]);
	list->entries[0].dtype = 2;
	list->entries[0].nsid = 1;
	list->entries[0].csi = 0;
	list->entries[1] = list->entries[0]; /* duplicate */
	xnvme_ident_from_uri("/dev/ng0n2", &list->entries[2]);
	list->entries[2].dtype = 2;
	list->entries[2].nsid = 2;
	list->entries[2].csi = 2;
	strcpy(list->entries[2].subnqn, "nqn.2019-08.org.qemu:deadbeef");

	CHECK_MODES(xnvme_cli_enumeration_fpr, "xnvme_cli_enumeration", list);
	CAPTURE(out, xnvme_cli_enumeration_fpr(stream, list, XNVME_PR_DEF));
	CHECK_STR(out.buf,
		  "xnvme_cli_enumeration:\n  capacity: 0\n  nentries: 3\n  entries:\n"
		  "    - {uri: '/dev/nvme0n1', dtype: 0x2, nsid: 0x1, csi: 0x0, subnqn: ''}\n"
		  "    - {uri: '/dev/nvme0n1', dtype: 0x2, nsid: 0x1, csi: 0x0, subnqn: ''}\n"
		  "    - {uri: '/dev/ng0n2', dtype: 0x2, nsid: 0x2, csi: 0x2, "
		  "subnqn: 'nqn.2019-08.org.qemu:deadbeef'}\n");
	out_free(&out);
	CHECK_PR_SAME(xnvme_cli_enumeration_fpr(stream, list, 0),
		      xnvme_cli_enumeration_pr(list, 0));

	CAPTURE(out, xnvme_cli_enumeration_fpp(stream, list, XNVME_PR_DEF));
	CHECK_STR(out.buf,
		  "xnvme_cli_enumeration:\n"
		  "  - {uri: '/dev/nvme0n1', dtype: 0x2, nsid: 0x1, csi: 0x0, subnqn: ''}\n"
		  "  - {uri: '/dev/nvme0n1', dtype: 0x2, nsid: 0x1, csi: 0x0, subnqn: ''}\n"
		  "  - {uri: '/dev/ng0n2', dtype: 0x2, nsid: 0x2, csi: 0x2, "
		  "subnqn: 'nqn.2019-08.org.qemu:deadbeef'}\n");
	out_free(&out);
	CAPTURE(out, xnvme_cli_enumeration_fpp(stream, list, XNVME_PR_TERSE));
	CHECK_STR(out.buf, TERSE_NOTE);
	out_free(&out);
	CHECK_PR_SAME(xnvme_cli_enumeration_fpp(stream, list, 0),
		      xnvme_cli_enumeration_pp(list, 0));

	free(list);
}

static void
test_dev(void)
{
	struct xnvme_dev *dev;
	const struct xnvme_opts *opts;
	char line[128];
	struct out out;

	CAPTURE(out, xnvme_dev_fpr(stream, NULL, XNVME_PR_DEF));
	CHECK_STR(out.buf, "xnvme_dev: ~\n");
	out_free(&out);

	dev = xnvme_dev_open("1GB", NULL);
	if (!dev) {
		fprintf(stderr, "# SKIP: xnvme_dev_open(1GB): %s\n", strerror(errno));
		return;
	}
	opts = xnvme_dev_get_opts(dev);

	CHECK_MODES(xnvme_dev_fpr, "xnvme_dev", dev);
	CAPTURE(out, xnvme_dev_fpr(stream, dev, XNVME_PR_DEF));
	CHECK(starts_with(out.buf, "xnvme_dev:\n  xnvme_ident:\n    uri: '1GB'\n    dtype: 0x5\n"));
	CHECK_LINE(out.buf, "    nsid: 0x1");
	CHECK_LINE(out.buf, "  xnvme_be:");
	snprintf(line, sizeof(line), "    admin: {id: '%s'}", opts->admin);
	CHECK_LINE(out.buf, line);
	snprintf(line, sizeof(line), "    async: {id: '%s'}", opts->async);
	CHECK_LINE(out.buf, line);
	CHECK_LINE(out.buf, "    attr: {name: 'ramdisk'}");
	CHECK_LINE(out.buf, "  xnvme_opts:");
	CHECK_LINE(out.buf, "    be: 'ramdisk'");
	snprintf(line, sizeof(line), "    mem: '%s'", opts->mem);
	CHECK_LINE(out.buf, line);
	CHECK(strstr(out.buf, "  xnvme_geo:\n    type: XNVME_GEO_CONVENTIONAL\n"));
	CHECK_LINE(out.buf, "    tbytes: 1073741824");
	CHECK_LINE(out.buf, "    ssw: 9");
	out_free(&out);
	CHECK_PR_SAME(xnvme_dev_fpr(stream, dev, 0), xnvme_dev_pr(dev, 0));

	xnvme_dev_close(dev);
}

/* Unsupported modes other than TERSE also print the note, with their value */
static void
test_other_modes(void)
{
	struct xnvme_geo geo = {0};
	struct out out;

	CAPTURE(out, xnvme_geo_fpr(stream, &geo, 0x7));
	CHECK_STR(out.buf, "# ENOSYS: opts(0x7)\n");
	out_free(&out);
	CAPTURE(out, xnvme_lba_fpr(stream, 1, (enum xnvme_pr)0x4));
	CHECK_STR(out.buf, "# ENOSYS: opts(0x4)\n");
	out_free(&out);
}

int
main(void)
{
	test_enum_str();
	test_ident();
	test_geo();
	test_opts();
	test_cmd_ctx();
	test_be_attr();
	test_lba();
	test_enumeration();
	test_dev();
	test_other_modes();

	return xnvme_test_result("test_printers");
}
