// SPDX-License-Identifier: BSD-3-Clause
/*
 * Printers: every *_fpr/_pr of libxnvme_pp.h, libxnvme_spec.h, libxnvme_spec_pp.h,
 * libxnvme_lba.h and the CLI enumeration printers, on NULL, zeroed and filled objects.
 *
 * Checks that the return value equals the number of bytes written, that DEF and YAML print the
 * same text and TERSE the one-line ENOSYS note, and the key lines and values of each shape:
 * head line "<struct name>:", "~" for NULL, quoting of strings, enum names. The *_pr variants
 * are checked to print the same text to stdout. Public API only.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <libxnvme.h>
#include "xnvme_test.h"

#define TERSE_NOTE "# ENOSYS: opts(0x2)\n"

/* Output of one printer call, NUL-terminated, and the call's return value */
struct out {
	char *buf;
	size_t len;
	int ret;
};

static void
out_free(struct out *out)
{
	free(out->buf);
	out->buf = NULL;
}

/*
 * Runs `call`, which prints to `stream`, into a memory stream; checks that the return value
 * equals the number of bytes written.
 */
#define CAPTURE(out, call)                                                                         \
	do {                                                                                       \
		FILE *stream;                                                                      \
		(out).buf = NULL;                                                                  \
		(out).len = 0;                                                                     \
		stream = open_memstream(&(out).buf, &(out).len);                                   \
		CHECK(stream);                                                                     \
		if (!stream) {                                                                     \
			exit(1);                                                                   \
		}                                                                                  \
		(out).ret = (call);                                                                \
		fclose(stream);                                                                    \
		CHECK_EQ((out).ret, (out).len);                                                    \
	} while (0)

/* Redirection of stdout into a temporary file, for the *_pr variants */
struct stdout_cap {
	int saved;
	FILE *tmp;
};

static void
stdout_begin(struct stdout_cap *cap)
{
	fflush(stdout);
	cap->tmp = tmpfile();
	if (!cap->tmp) {
		perror("tmpfile");
		exit(1);
	}
	cap->saved = dup(STDOUT_FILENO);
	dup2(fileno(cap->tmp), STDOUT_FILENO);
}

static void
stdout_end(struct stdout_cap *cap, struct out *out)
{
	long len;

	fflush(stdout);
	dup2(cap->saved, STDOUT_FILENO);
	close(cap->saved);

	len = ftell(cap->tmp);
	out->len = len > 0 ? (size_t)len : 0;
	out->buf = calloc(1, out->len + 1);
	rewind(cap->tmp);
	if (out->len && fread(out->buf, 1, out->len, cap->tmp) != out->len) {
		CHECK(0);
	}
	fclose(cap->tmp);
}

/* Runs `call`, which prints to stdout, and checks its return value against the bytes written */
#define CAPTURE_STDOUT(out, call)                                                                  \
	do {                                                                                       \
		struct stdout_cap cap_;                                                            \
		stdout_begin(&cap_);                                                               \
		(out).ret = (call);                                                                \
		stdout_end(&cap_, &(out));                                                         \
		CHECK_EQ((out).ret, (out).len);                                                    \
	} while (0)

/* Same for the void xnvme_cmd_ctx_pr() */
#define CAPTURE_STDOUT_VOID(out, call)                                                             \
	do {                                                                                       \
		struct stdout_cap cap_;                                                            \
		stdout_begin(&cap_);                                                               \
		call;                                                                              \
		stdout_end(&cap_, &(out));                                                         \
	} while (0)

/* `text` begins with `prefix` */
static int
starts_with(const char *text, const char *prefix)
{
	return !strncmp(text, prefix, strlen(prefix));
}

/* `line` (without newline) is one complete line of `text` */
static int
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n') {
			return 1;
		}
		p += 1;
	}
	return 0;
}

#define CHECK_LINE(text, line)                                                                     \
	do {                                                                                       \
		xnvme_test_ncheck++;                                                               \
		if (!has_line(text, line)) {                                                       \
			xnvme_test_nfail++;                                                        \
			fprintf(stderr, "FAIL %s:%d: no line \"%s\" in:\n%s\n", __FILE__,          \
				__LINE__, line, text);                                             \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		xnvme_test_ncheck++;                                                               \
		if (strcmp(a, b)) {                                                                \
			xnvme_test_nfail++;                                                        \
			fprintf(stderr, "FAIL %s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, a,   \
				b);                                                                \
		}                                                                                  \
	} while (0)

/* Block-style shape: first line "<name>:", every further line indented by two or more */
static void
check_block(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	CHECK(!strncmp(text, name, n) && text[n] == ':' && text[n + 1] == '\n');
	p = strchr(text, '\n');
	while (p && p[1]) {
		CHECK(p[1] == ' ' && p[2] == ' ');
		p = strchr(p + 1, '\n');
	}
	CHECK(text[strlen(text) - 1] == '\n');
}

/* Checks the NULL, TERSE and DEF==YAML behaviour of a printer of the form f(stream, obj, opts) */
#define CHECK_MODES(fn, name, obj)                                                                 \
	do {                                                                                       \
		struct out def_, yaml_, terse_, null_;                                             \
		CAPTURE(def_, fn(stream, obj, XNVME_PR_DEF));                                      \
		CAPTURE(yaml_, fn(stream, obj, XNVME_PR_YAML));                                    \
		CAPTURE(terse_, fn(stream, obj, XNVME_PR_TERSE));                                  \
		CAPTURE(null_, fn(stream, NULL, XNVME_PR_DEF));                                    \
		CHECK_STR(def_.buf, yaml_.buf);                                                    \
		CHECK_STR(terse_.buf, TERSE_NOTE);                                                 \
		CHECK_STR(null_.buf, name ": ~\n");                                                \
		check_block(def_.buf, name);                                                       \
		out_free(&def_);                                                                   \
		out_free(&yaml_);                                                                  \
		out_free(&terse_);                                                                 \
		out_free(&null_);                                                                  \
	} while (0)

/* Checks that `pr` prints to stdout what `fpr` prints to a stream */
#define CHECK_PR_SAME(fpr_call, pr_call)                                                           \
	do {                                                                                       \
		struct out f_, p_;                                                                 \
		CAPTURE(f_, fpr_call);                                                             \
		CAPTURE_STDOUT(p_, pr_call);                                                       \
		CHECK_STR(f_.buf, p_.buf);                                                         \
		out_free(&f_);                                                                     \
		out_free(&p_);                                                                     \
	} while (0)

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
		CAPTURE(out, xnvme_be_attr_list_fpr(stream, list, XNVME_PR_DEF));
		CHECK_LINE(out.buf, "  count: 9");
		CHECK_LINE(out.buf, "  - name: 'ramdisk'");
		CHECK_LINE(out.buf, "  - name: 'tcp'");
		CHECK_LINE(out.buf, "  - name: 'rdma'");
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
	test_idfy();
	test_idfy_css();
	test_logs();
	test_fdp();
	test_cmd_feat();
	test_dirs_scopy();
	test_znd();
	test_ctrlr_bar();
	test_enumeration();
	test_dev();
	test_other_modes();

	return xnvme_test_result("test_printers");
}
