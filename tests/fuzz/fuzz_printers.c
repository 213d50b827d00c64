// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer harness of the printers (lib/pp/, lib/cmdset/znd_pp.c): every struct printer of
 * libxnvme_pp.h, libxnvme_spec_pp.h, libxnvme_spec.h and libxnvme_znd.h prints a struct filled
 * from the input (identify controller/namespace/command sets, health, error, FDP and zoned logs,
 * features, commands, directives, copy ranges, zone descriptors and reports, registers, idents,
 * geometry, LBA ranges, options, backend lists, enumerations), and the enum-to-string helpers
 * name arbitrary values.
 *
 * Input: byte 0 is the print mode (0 or 1: YAML, anything else: a mode the printers must answer
 * with an ENOSYS comment), byte 1 picks one printer (0xFF: all of them, in turn), then up to
 * 8 KiB that fill the structs (zeroes after the input).
 * Counts the printers trust (limit arguments, open stream count, event count, ...) come from
 * the input too, and each struct is passed in a buffer allocated at exactly the size its
 * count implies, so that reading past it is an ASan (or valgrind) error.
 *
 * Checked: the output of each printer in YAML mode parses as YAML with libyaml, its return
 * value is the number of characters written, strings round-trip (identify sn/mn/fr/subnqn and
 * ident uri/subnqn parse back to the documented sanitised text: up to the NUL, trailing spaces
 * trimmed, non-printable bytes as '?'), and enum names are plain scalars.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <libxnvme.h>
#include "fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PAGE_NBYTES 8192

#define FAIL(...) fuzz_fail("fuzz_printers", __VA_ARGS__)

static uint8_t g_page[PAGE_NBYTES];
static int g_opts;

/* A copy of the first n bytes of the page (zeroes past it) in an allocation of exactly n */
static void *
dup_exact(size_t n)
{
	uint8_t *buf = malloc(n ? n : 1);

	if (!buf) {
		abort();
	}
	for (size_t i = 0; i < n; ++i) {
		buf[i] = i < sizeof(g_page) ? g_page[i] : 0;
	}
	return buf;
}

static uint32_t
page_u32(size_t off)
{
	uint32_t v;

	memcpy(&v, g_page + off, sizeof(v));
	return v;
}

/* --- YAML checks ----------------------------------------------------------------------- */

struct text {
	char *buf;
	size_t len;
	int ret; ///< the printer's return value; -1: not checked
};

static const yaml_node_t *
find_key(yaml_document_t *doc, const yaml_node_t *node, const char *key, int depth)
{
	if (!node || depth > 8) {
		return NULL;
	}
	if (node->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
		     p < node->data.mapping.pairs.top; ++p) {
			const yaml_node_t *k = yaml_document_get_node(doc, p->key);
			const yaml_node_t *v = yaml_document_get_node(doc, p->value);
			const yaml_node_t *found;

			if (k && k->type == YAML_SCALAR_NODE &&
			    !strcmp((const char *)k->data.scalar.value, key)) {
				return v;
			}
			found = find_key(doc, v, key, depth + 1);
			if (found) {
				return found;
			}
		}
	} else if (node->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *i = node->data.sequence.items.start;
		     i < node->data.sequence.items.top; ++i) {
			const yaml_node_t *found =
				find_key(doc, yaml_document_get_node(doc, *i), key, depth + 1);

			if (found) {
				return found;
			}
		}
	}
	return NULL;
}

struct expect {
	const char *key;
	const char *val; ///< NULL: none
};

/* Parses every document of the text; fails on a YAML error or a mismatching expectation */
static void
check_yaml(const char *what, const struct text *t, const struct expect *exp, int nexp)
{
	yaml_parser_t parser;
	bool first = true;

	if (!yaml_parser_initialize(&parser)) {
		abort();
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)t->buf, t->len);
	/* nothing to look up: the event parser checks the syntax in linear time */
	while (!nexp) {
		yaml_event_t ev;
		bool end;

		if (!yaml_parser_parse(&parser, &ev)) {
			FAIL("%s: not YAML: %s at line %zu column %zu:\n%.*s", what,
			     parser.problem ? parser.problem : "?", parser.problem_mark.line + 1,
			     parser.problem_mark.column + 1, (int)t->len, t->buf);
		}
		end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		if (end) {
			yaml_parser_delete(&parser);
			return;
		}
	}
	for (;;) {
		yaml_document_t doc;
		yaml_node_t *root;

		if (!yaml_parser_load(&parser, &doc)) {
			FAIL("%s: not YAML: %s at line %zu column %zu:\n%.*s", what,
			     parser.problem ? parser.problem : "?", parser.problem_mark.line + 1,
			     parser.problem_mark.column + 1, (int)t->len, t->buf);
		}
		root = yaml_document_get_root_node(&doc);
		if (!root) {
			yaml_document_delete(&doc);
			break;
		}
		for (int i = 0; first && i < nexp; ++i) {
			const yaml_node_t *v = find_key(&doc, root, exp[i].key, 0);

			if (!v || v->type != YAML_SCALAR_NODE ||
			    strcmp((const char *)v->data.scalar.value, exp[i].val)) {
				FAIL("%s: key '%s' should parse back as '%s', got '%s':\n%.*s",
				     what, exp[i].key, exp[i].val,
				     v && v->type == YAML_SCALAR_NODE
					     ? (const char *)v->data.scalar.value
					     : "(no scalar)",
				     (int)t->len, t->buf);
			}
		}
		first = false;
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
}

/* The documented sanitised form of a string field */
static void
sanitise(const void *src, size_t maxlen, char *dst)
{
	const char *s = src;
	size_t len = strnlen(s, maxlen);

	while (len && s[len - 1] == ' ') {
		len--;
	}
	for (size_t i = 0; i < len; ++i) {
		unsigned char c = (unsigned char)s[i];

		dst[i] = (c < 0x20 || c > 0x7e) ? '?' : (char)c;
	}
	dst[len] = '\0';
}

/* --- printers -------------------------------------------------------------------------- */

typedef int (*printer_fn)(FILE *stream, struct expect *exp, int *nexp, char strs[][1024]);

#define PR_FIXED(fname, type)                                                                      \
	static int pr_##fname(FILE *s, struct expect *e, int *n, char strs[][1024])                \
	{                                                                                          \
		type *obj = dup_exact(sizeof(*obj));                                               \
		int ret = xnvme_##fname##_fpr(s, obj, g_opts);                                     \
		(void)e;                                                                           \
		(void)n;                                                                           \
		(void)strs;                                                                        \
		free(obj);                                                                         \
		return ret;                                                                        \
	}

PR_FIXED(spec_idfy_ns, struct xnvme_spec_idfy_ns)
PR_FIXED(spec_idfy_cs, struct xnvme_spec_idfy_cs)
PR_FIXED(spec_nvm_idfy_ctrlr, struct xnvme_spec_nvm_idfy_ctrlr)
PR_FIXED(spec_nvm_idfy_ns, struct xnvme_spec_nvm_idfy_ns)
PR_FIXED(spec_znd_idfy_ctrlr, struct xnvme_spec_znd_idfy_ctrlr)
PR_FIXED(spec_znd_idfy_ns, struct xnvme_spec_znd_idfy_ns)
PR_FIXED(spec_znd_idfy_lbafe, struct xnvme_spec_znd_idfy_lbafe)
PR_FIXED(spec_kvs_idfy_ns, struct xnvme_spec_kvs_idfy_ns)
PR_FIXED(spec_log_health, struct xnvme_spec_log_health_entry)
PR_FIXED(spec_znd_log_changes, struct xnvme_spec_znd_log_changes)
PR_FIXED(spec_cmd, struct xnvme_spec_cmd)
PR_FIXED(spec_nvm_scopy_fmt_zero, struct xnvme_spec_nvm_scopy_fmt_zero)
PR_FIXED(spec_znd_descr, struct xnvme_spec_znd_descr)
PR_FIXED(spec_znd_report_hdr, struct xnvme_spec_znd_report_hdr)
PR_FIXED(spec_ctrlr_bar, struct xnvme_spec_ctrlr_bar)
PR_FIXED(geo, struct xnvme_geo)

/* bool members hold 0 or 1 in any valid object: the input picks which */
static int
pr_lba_range(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	struct xnvme_lba_range *range = dup_exact(sizeof(*range));
	int ret;

	(void)e, (void)n, (void)strs;
	range->attr.is_zoned = g_page[28] & 0x1;
	range->attr.is_valid = g_page[28] & 0x2;
	ret = xnvme_lba_range_fpr(s, range, g_opts);
	free(range);
	return ret;
}

static int
pr_idfy_ctrlr(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	struct xnvme_spec_idfy_ctrlr *obj = dup_exact(sizeof(*obj));
	int ret = xnvme_spec_idfy_ctrlr_fpr(s, obj, g_opts);

	sanitise(obj->sn, sizeof(obj->sn), strs[0]);
	sanitise(obj->mn, sizeof(obj->mn), strs[1]);
	sanitise(obj->fr, sizeof(obj->fr), strs[2]);
	sanitise(obj->subnqn, sizeof(obj->subnqn), strs[3]);
	e[0] = (struct expect){"sn", strs[0]};
	e[1] = (struct expect){"mn", strs[1]};
	e[2] = (struct expect){"fr", strs[2]};
	e[3] = (struct expect){"subnqn", strs[3]};
	*n = 4;
	free(obj);
	return ret;
}

static int
pr_ident(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	struct xnvme_ident *obj = dup_exact(sizeof(*obj));
	int ret = xnvme_ident_fpr(s, obj, g_opts);

	sanitise(obj->uri, sizeof(obj->uri), strs[0]);
	sanitise(obj->subnqn, sizeof(obj->subnqn), strs[1]);
	e[0] = (struct expect){"uri", strs[0]};
	e[1] = (struct expect){"subnqn", strs[1]};
	*n = 2;
	free(obj);
	return ret;
}

/* The ident as the inside of a flow mapping, and as a block with its head */
static int
pr_ident_yaml(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	struct xnvme_ident *obj = dup_exact(sizeof(*obj));
	int ret = 0;

	ret += fprintf(s, "flow: [{");
	ret += xnvme_ident_yaml(s, obj, 0, ", ", 0);
	ret += fprintf(s, "}]\nblock:\n");
	ret += xnvme_ident_yaml(s, obj, 2, "\n", 1);
	ret += fprintf(s, "\n");
	sanitise(obj->uri, sizeof(obj->uri), strs[0]);
	e[0] = (struct expect){"uri", strs[0]};
	*n = 1;
	free(obj);
	return ret;
}

static int
pr_erri(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	int limit = (int8_t)g_page[0] % 64;
	struct xnvme_spec_log_erri_entry *log =
		dup_exact((limit > 0 ? (size_t)limit : 1) * sizeof(*log));
	int ret = xnvme_spec_log_erri_fpr(s, log, limit, g_opts);

	(void)e, (void)n, (void)strs;
	free(log);
	return ret;
}

/* printers that only write to stdout: stdout points at the stream meanwhile */
#define WITH_STDOUT(s, expr)                                                                       \
	({                                                                                         \
		FILE *saved_ = stdout;                                                             \
		int ret_;                                                                          \
		stdout = (s);                                                                      \
		ret_ = (expr);                                                                     \
		fflush(stdout);                                                                    \
		stdout = saved_;                                                                   \
		ret_;                                                                              \
	})

/*
 * The configuration log. With its `size` set the buffer holds `size` bytes; a log not stating
 * its size (0) is walked by the descriptors' own sizes, so the caller provides the bytes they
 * claim (tools/xnvme.c sets `size` to the bytes read instead)
 */
static size_t
fdp_conf_extent(const uint8_t *buf)
{
	struct xnvme_spec_log_fdp_conf log;
	size_t off = sizeof(log), end = sizeof(log);

	memcpy(&log, buf, sizeof(log));
	for (int i = 0; i <= log.ncfg; ++i) {
		struct xnvme_spec_fdp_conf_desc desc;
		size_t nruh = 0;

		if (off + sizeof(desc) > PAGE_NBYTES) {
			return SIZE_MAX;
		}
		memcpy(&desc, buf + off, sizeof(desc));
		if (desc.ds >= sizeof(desc)) {
			nruh = desc.nruh < (desc.ds - sizeof(desc)) / sizeof(desc.ruh_desc[0])
				       ? desc.nruh
				       : (desc.ds - sizeof(desc)) / sizeof(desc.ruh_desc[0]);
		}
		if (off + sizeof(desc) + nruh * sizeof(desc.ruh_desc[0]) > end) {
			end = off + sizeof(desc) + nruh * sizeof(desc.ruh_desc[0]);
		}
		if (!desc.ds) {
			break;
		}
		off += desc.ds;
	}
	return end;
}

static int
pr_fdp_conf(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	uint32_t lsize = page_u32(4) % (PAGE_NBYTES + 1);
	struct xnvme_spec_log_fdp_conf *log;
	size_t nbytes;
	int ret;

	(void)e, (void)n, (void)strs;
	if (lsize) {
		nbytes = lsize < sizeof(*log) ? sizeof(*log) : lsize;
	} else {
		nbytes = fdp_conf_extent(g_page);
		if (nbytes > PAGE_NBYTES) {
			return 0; /* claims more than the input can hold: nothing to check */
		}
	}
	log = dup_exact(nbytes);
	log->size = lsize;
	ret = WITH_STDOUT(s, xnvme_spec_log_fdp_conf_pr(log, g_opts));
	free(log);
	return ret;
}

static int
pr_fdp_stats(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	struct xnvme_spec_log_fdp_stats *log = dup_exact(sizeof(*log));
	int ret = WITH_STDOUT(s, xnvme_spec_log_fdp_stats_pr(log, g_opts));

	(void)e, (void)n, (void)strs;
	free(log);
	return ret;
}

static int
pr_fdp_events(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	int limit = (int8_t)g_page[1] % 64;
	struct xnvme_spec_log_fdp_events *log =
		dup_exact(sizeof(*log) + (limit > 0 ? (size_t)limit : 0) * sizeof(log->event[0]));
	int ret = WITH_STDOUT(s, xnvme_spec_log_fdp_events_pr(log, limit, g_opts));

	(void)e, (void)n, (void)strs;
	free(log);
	return ret;
}

static int
pr_ruhu(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	int limit = (int8_t)g_page[2];
	struct xnvme_spec_log_ruhu *log = dup_exact(
		sizeof(*log) + (limit > 0 ? (size_t)limit : 0) * sizeof(log->ruhu_desc[0]));
	int ret = WITH_STDOUT(s, xnvme_spec_log_ruhu_pr(log, limit, g_opts));

	(void)e, (void)n, (void)strs;
	free(log);
	return ret;
}

static int
pr_ruhs(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	int limit = (int8_t)g_page[3];
	struct xnvme_spec_ruhs *ruhs =
		dup_exact(sizeof(*ruhs) + (limit > 0 ? (size_t)limit : 0) * sizeof(ruhs->desc[0]));
	int ret = WITH_STDOUT(s, xnvme_spec_ruhs_pr(ruhs, limit, g_opts));

	(void)e, (void)n, (void)strs;
	free(ruhs);
	return ret;
}

static int
pr_feat(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	struct xnvme_spec_feat feat;

	(void)e, (void)n, (void)strs;
	feat.val = page_u32(8);
	return xnvme_spec_feat_fpr(s, g_page[12], feat, g_opts);
}

/* The descriptors of Get Features (FDP events): as many as the low byte of the value says */
static int
pr_feat_fdp_events(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	struct xnvme_spec_feat feat;
	void *buf;
	int ret;

	(void)e, (void)n, (void)strs;
	feat.val = page_u32(16);
	buf = dup_exact((feat.val & 0xFF) * sizeof(struct xnvme_spec_fdp_event_desc));
	ret = WITH_STDOUT(s, xnvme_spec_feat_fdp_events_pr(buf, feat, g_opts));
	free(buf);
	return ret;
}

static int
pr_drecv(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	struct xnvme_spec_idfy_dir_rp *idfy = dup_exact(sizeof(*idfy));
	struct xnvme_spec_streams_dir_rp *srp = dup_exact(sizeof(*srp));
	struct xnvme_spec_alloc_resource sar;
	int ret = 0;

	(void)e, (void)n, (void)strs;
	sar.val = page_u32(20);
	/* one mapping each: as separate documents */
	ret += WITH_STDOUT(s, xnvme_spec_drecv_idfy_pr(idfy, g_opts));
	ret += fprintf(s, "---\n");
	ret += WITH_STDOUT(s, xnvme_spec_drecv_srp_pr(srp, g_opts));
	ret += fprintf(s, "---\n");
	ret += WITH_STDOUT(s, xnvme_spec_drecv_sar_pr(sar, g_opts));
	free(idfy);
	free(srp);
	return ret;
}

/* The stream identifiers: as many as the open count says */
static int
pr_drecv_sgs(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	uint16_t open_sc;
	struct xnvme_spec_streams_dir_gs *sgs;
	int ret;

	(void)e, (void)n, (void)strs;
	/* up to 511 identifiers: 65535 would print and parse 600 KiB per input for one loop */
	memcpy(&open_sc, g_page, sizeof(open_sc));
	open_sc %= 512;
	sgs = dup_exact(sizeof(*sgs) + (size_t)open_sc * sizeof(sgs->sid[0]));
	sgs->open_sc = open_sc;
	ret = WITH_STDOUT(s, xnvme_spec_drecv_sgs_pr(sgs, g_opts));
	free(sgs);
	return ret;
}

static int
pr_scopy_range(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	struct xnvme_spec_nvm_scopy_source_range *srange = dup_exact(sizeof(*srange));
	int ret = xnvme_spec_nvm_scopy_source_range_fpr(s, srange, g_page[24], g_opts);

	(void)e, (void)n, (void)strs;
	free(srange);
	return ret;
}

static int
pr_znd_descr_flow(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	struct xnvme_spec_znd_descr *descr = dup_exact(sizeof(*descr));
	int ret = 0;

	(void)e, (void)n, (void)strs;
	ret += fprintf(s, "- {");
	ret += xnvme_spec_znd_descr_fpr_yaml(s, descr, 0, ", ");
	ret += fprintf(s, "}\n");
	free(descr);
	return ret;
}

/* A report whose sizes agree with its entries; up to 16 entries with extensions */
static int
pr_znd_report(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	uint32_t nentries = g_page[25] % 17;
	uint32_t zdext = (uint32_t)(g_page[26] % 4) * 64;
	size_t zrent = sizeof(struct xnvme_spec_znd_descr) + zdext;
	struct xnvme_znd_report *rprt = dup_exact(sizeof(*rprt) + nentries * zrent);
	int ret;

	(void)e, (void)n, (void)strs;
	rprt->nentries = nentries;
	rprt->zd_nbytes = sizeof(struct xnvme_spec_znd_descr);
	rprt->zdext_nbytes = zdext;
	rprt->extended = zdext != 0;
	rprt->zrent_nbytes = zrent;
	rprt->entries_nbytes = nentries * zrent;
	rprt->report_nbytes = sizeof(*rprt) + rprt->entries_nbytes;
	ret = xnvme_znd_report_fpr(s, rprt, g_opts);
	free(rprt);
	return ret;
}

static int
pr_lba(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	uint16_t nlb = g_page[27] % 40;
	uint64_t *lbas = dup_exact(nlb * sizeof(uint64_t));
	uint64_t lba;
	int ret = 0;

	(void)e, (void)n, (void)strs;
	memcpy(&lba, g_page + 32, sizeof(lba));
	ret += fprintf(s, "---\n");
	ret += xnvme_lba_fpr(s, lba, (enum xnvme_pr)g_opts);
	ret += fprintf(s, "---\n");
	ret += xnvme_lba_fprn(s, lbas, nlb, (enum xnvme_pr)g_opts);
	free(lbas);
	return ret;
}

/* A NUL-terminated string of up to 60 input bytes from `off` */
static char *
page_str(size_t off, char *dst)
{
	size_t len = g_page[off] % 61;

	memcpy(dst, g_page + off + 1, len);
	dst[len] = '\0';
	return dst;
}

static int
pr_be_attr_list(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	int count = (int8_t)g_page[40] % 9;
	struct xnvme_be_attr_list *list =
		dup_exact(sizeof(*list) + (count > 0 ? (size_t)count : 0) * sizeof(list->item[0]));
	int ret;

	list->count = count;
	for (int i = 0; i < count; ++i) {
		list->item[i].name = page_str(64 + 64 * (size_t)i, strs[i]);
	}
	ret = xnvme_be_attr_list_fpr(s, list, g_opts);
	if (count > 0) {
		sanitise(list->item[0].name, SIZE_MAX, strs[10]);
		e[0] = (struct expect){"name", strs[10]};
		*n = 1;
	}
	free(list);
	return ret;
}

static int
pr_opts(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	struct xnvme_opts *opts = dup_exact(sizeof(*opts));
	int ret;

	opts->be = page_str(600, strs[0]);
	opts->dev = NULL;
	opts->mem = page_str(700, strs[1]);
	opts->sync = NULL;
	opts->async = page_str(800, strs[2]);
	opts->admin = page_str(900, strs[3]);
	opts->core_mask = page_str(1000, strs[4]);
	opts->adrfam = NULL;
	opts->subnqn = page_str(1100, strs[5]);
	opts->hostnqn = page_str(1200, strs[6]);
	ret = WITH_STDOUT(s, xnvme_opts_pr(opts, g_opts));
	sanitise(opts->be, SIZE_MAX, strs[8]);
	e[0] = (struct expect){"be", strs[8]};
	*n = 1;
	free(opts);
	return ret;
}

static int
pr_enumeration(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	uint32_t nentries = g_page[41] % 5;
	struct xnvme_cli_enumeration *list =
		dup_exact(sizeof(*list) + nentries * sizeof(list->entries[0]));
	int ret;

	(void)e, (void)n, (void)strs;
	list->nentries = nentries;
	ret = xnvme_cli_enumeration_fpr(s, list, g_opts);
	free(list);
	return ret;
}

/* Enum names for arbitrary values: plain scalars that parse back as themselves */
static int
pr_strs(FILE *s, struct expect *e, int *n, char strs[][1024])
{
	uint8_t v = g_page[42];
	const char *names[] = {
		xnvme_spec_adm_opc_str(v),
		xnvme_spec_csi_str(v),
		xnvme_spec_feat_id_str(v),
		xnvme_spec_feat_sel_str(v),
		xnvme_spec_flag_str(v),
		xnvme_spec_idfy_cns_str(v),
		xnvme_spec_log_lpi_str(v),
		xnvme_spec_znd_log_lid_str(v),
		xnvme_spec_nvm_cmd_cpl_sc_str(v),
		xnvme_spec_nvm_opc_str(v),
		xnvme_spec_psdt_str(v),
		xnvme_spec_sgl_descriptor_subtype_str(v),
		xnvme_spec_znd_cmd_mgmt_recv_action_str(v),
		xnvme_spec_znd_cmd_mgmt_recv_action_sf_str(v),
		xnvme_spec_znd_cmd_mgmt_send_action_str(v),
		xnvme_spec_znd_opc_str(v),
		xnvme_spec_znd_mgmt_send_action_so_str(v),
		xnvme_spec_znd_status_code_str(v),
		xnvme_spec_znd_state_str(v),
		xnvme_spec_znd_type_str(v),
	};
	int nnames = (int)(sizeof(names) / sizeof(names[0]));
	int ret = 0;

	for (int i = 0; i < nnames; ++i) {
		if (!names[i] || !names[i][0]) {
			FAIL("enum string %d of value 0x%x is empty", i, v);
		}
		snprintf(strs[i], 64, "k%d", i);
		ret += fprintf(s, "%s: %s\n", strs[i], names[i]);
		e[i] = (struct expect){strs[i], names[i]};
	}
	*n = nnames;
	return ret;
}

static const struct {
	const char *name;
	printer_fn fn;
	bool yaml_only; ///< output is YAML only in the YAML modes (everything else: ENOSYS)
} g_printers[] = {
	{"idfy_ctrlr", pr_idfy_ctrlr, true},
	{"idfy_ns", pr_spec_idfy_ns, true},
	{"idfy_cs", pr_spec_idfy_cs, true},
	{"nvm_idfy_ctrlr", pr_spec_nvm_idfy_ctrlr, true},
	{"nvm_idfy_ns", pr_spec_nvm_idfy_ns, true},
	{"znd_idfy_ctrlr", pr_spec_znd_idfy_ctrlr, true},
	{"znd_idfy_ns", pr_spec_znd_idfy_ns, true},
	{"znd_idfy_lbafe", pr_spec_znd_idfy_lbafe, true},
	{"kvs_idfy_ns", pr_spec_kvs_idfy_ns, true},
	{"log_health", pr_spec_log_health, true},
	{"log_erri", pr_erri, true},
	{"znd_log_changes", pr_spec_znd_log_changes, true},
	{"fdp_conf", pr_fdp_conf, true},
	{"fdp_stats", pr_fdp_stats, true},
	{"fdp_events", pr_fdp_events, true},
	{"ruhu", pr_ruhu, true},
	{"ruhs", pr_ruhs, true},
	{"feat", pr_feat, true},
	{"feat_fdp_events", pr_feat_fdp_events, true},
	{"spec_cmd", pr_spec_cmd, true},
	{"drecv", pr_drecv, true},
	{"drecv_sgs", pr_drecv_sgs, true},
	{"scopy_fmt_zero", pr_spec_nvm_scopy_fmt_zero, true},
	{"scopy_range", pr_scopy_range, true},
	{"znd_descr", pr_spec_znd_descr, true},
	{"znd_descr_flow", pr_znd_descr_flow, false},
	{"znd_report_hdr", pr_spec_znd_report_hdr, true},
	{"znd_report", pr_znd_report, true},
	{"ctrlr_bar", pr_spec_ctrlr_bar, true},
	{"ident", pr_ident, true},
	{"ident_yaml", pr_ident_yaml, false},
	{"geo", pr_geo, true},
	{"lba_range", pr_lba_range, true},
	{"lba", pr_lba, true},
	{"be_attr_list", pr_be_attr_list, true},
	{"opts", pr_opts, true},
	{"enumeration", pr_enumeration, true},
	{"enum_strs", pr_strs, false},
};
#define NPRINTERS (sizeof(g_printers) / sizeof(g_printers[0]))

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char strs[32][1024];
	struct expect exp[32];
	bool yaml;

	if (size < 2) {
		return 0;
	}
	g_opts = data[0] < 2 ? data[0] : (int)data[0] - 1;
	yaml = g_opts == XNVME_PR_DEF || g_opts == XNVME_PR_YAML;
	memset(g_page, 0, sizeof(g_page));
	memcpy(g_page, data + 2, size - 2 < sizeof(g_page) ? size - 2 : sizeof(g_page));

	for (size_t i = 0; i < sizeof(g_printers) / sizeof(g_printers[0]); ++i) {
		struct text t = {NULL, 0, 0};
		int nexp = 0;
		FILE *s;

		if (data[1] != 0xFF && data[1] % NPRINTERS != i) {
			continue;
		}
		s = open_memstream(&t.buf, &t.len);
		if (!s) {
			abort();
		}
		t.ret = g_printers[i].fn(s, exp, &nexp, strs);
		if (fclose(s)) {
			abort();
		}
		if ((size_t)t.ret != t.len) {
			FAIL("%s: returned %d, wrote %zu characters:\n%.*s", g_printers[i].name,
			     t.ret, t.len, (int)t.len, t.buf);
		}
		if (yaml || !g_printers[i].yaml_only) {
			check_yaml(g_printers[i].name, &t, exp, yaml ? nexp : 0);
		}
		free(t.buf);
	}
	return 0;
}
