// SPDX-License-Identifier: BSD-3-Clause
/*
 * Printers of the library's own objects (libxnvme_pp.h): backend attributes, LBAs, device
 * identifiers, device handles, geometry, command contexts and options.
 *
 * The device printer uses only the public getters, so the printers do not depend on library
 * internals.
 */
#include <inttypes.h>
#include <stdint.h>
#include <libxnvme.h>
#include "pp.h"

int
xnvme_be_attr_fpr(FILE *stream, const struct xnvme_be_attr *attr, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_is_yaml(opts)) {
		return xnvme_pp_nosys(stream, opts);
	}
	if (!attr) {
		return fprintf(stream, "~\n");
	}

	/* shaped as an item of xnvme_be_attr_list: the second member is indented by 4 */
	wrtn += fprintf(stream, "name: ");
	wrtn += xnvme_pp_qstr(stream, attr->name, SIZE_MAX);
	wrtn += fprintf(stream, "\n    enabled: %u\n", (unsigned int)attr->enabled);

	return wrtn;
}

int
xnvme_be_attr_pr(const struct xnvme_be_attr *attr, int opts)
{
	return xnvme_be_attr_fpr(stdout, attr, opts);
}

int
xnvme_be_attr_list_fpr(FILE *stream, const struct xnvme_be_attr_list *list, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_be_attr_list", list, &wrtn)) {
		return wrtn;
	}

	wrtn += fprintf(stream, "  count: %d\n", list->count);
	wrtn += fprintf(stream, "  capacity: %" PRIu32 "\n", list->capacity);
	if (list->count <= 0) {
		wrtn += fprintf(stream, "  items: []\n");
		return wrtn;
	}

	wrtn += xnvme_pp_head(stream, 2, "items");
	for (int i = 0; i < list->count; ++i) {
		wrtn += fprintf(stream, "  - ");
		wrtn += xnvme_be_attr_fpr(stream, &list->item[i], opts);
	}

	return wrtn;
}

int
xnvme_be_attr_list_pr(const struct xnvme_be_attr_list *list, int opts)
{
	return xnvme_be_attr_list_fpr(stdout, list, opts);
}

int
xnvme_lba_fpr(FILE *stream, uint64_t lba, enum xnvme_pr opts)
{
	switch ((int)opts) {
	case XNVME_PR_DEF:
	case XNVME_PR_YAML:
		return fprintf(stream, "lba: 0x%016" PRIx64 "\n", lba);
	case XNVME_PR_TERSE:
		return fprintf(stream, "0x%016" PRIx64 "\n", lba);
	}

	return xnvme_pp_nosys(stream, opts);
}

int
xnvme_lba_pr(uint64_t lba, enum xnvme_pr opts)
{
	return xnvme_lba_fpr(stdout, lba, opts);
}

int
xnvme_lba_fprn(FILE *stream, const uint64_t *lba, uint16_t nlb, enum xnvme_pr opts)
{
	int wrtn = 0;

	if (!xnvme_pp_is_yaml(opts)) {
		return xnvme_pp_nosys(stream, opts);
	}

	wrtn += xnvme_pp_dec(stream, 0, "nlbas", nlb);
	if (!lba) {
		wrtn += xnvme_pp_null(stream, 0, "lbas");
		return wrtn;
	}
	if (!nlb) {
		wrtn += fprintf(stream, "lbas: []\n");
		return wrtn;
	}

	wrtn += xnvme_pp_head(stream, 0, "lbas");
	for (int i = 0; i < nlb; ++i) {
		wrtn += fprintf(stream, "  - 0x%016" PRIx64 "\n", lba[i]);
	}

	return wrtn;
}

int
xnvme_lba_prn(const uint64_t *lba, uint16_t nlb, enum xnvme_pr opts)
{
	return xnvme_lba_fprn(stdout, lba, nlb, opts);
}

/*
 * Members are separated by `sep` (not terminated): "\n" gives block style, ", " the inside of
 * a flow mapping. With `head`, "xnvme_ident:" comes first and the members are indented by two
 * more. No trailing newline.
 */
int
xnvme_ident_yaml(FILE *stream, const struct xnvme_ident *ident, int indent, const char *sep,
		 int head)
{
	int wrtn = 0;

	if (!sep) {
		sep = "\n";
	}
	if (head) {
		wrtn += fprintf(stream, "%*sxnvme_ident:", indent, "");
		indent += 2;
	}
	if (!ident) {
		if (head) {
			wrtn += fprintf(stream, " ~");
		} else {
			wrtn += fprintf(stream, "%*s~", indent, "");
		}
		return wrtn;
	}
	if (head) {
		wrtn += fprintf(stream, "\n");
	}

	wrtn += fprintf(stream, "%*suri: ", indent, "");
	wrtn += xnvme_pp_qstr(stream, ident->uri, sizeof(ident->uri));
	wrtn += fprintf(stream, "%s", sep);
	wrtn += fprintf(stream, "%*sdtype: 0x%" PRIx32 "%s", indent, "", ident->dtype, sep);
	wrtn += fprintf(stream, "%*snsid: 0x%" PRIx32 "%s", indent, "", ident->nsid, sep);
	wrtn += fprintf(stream, "%*scsi: 0x%x%s", indent, "", (unsigned int)ident->csi, sep);
	wrtn += fprintf(stream, "%*ssubnqn: ", indent, "");
	wrtn += xnvme_pp_qstr(stream, ident->subnqn, sizeof(ident->subnqn));

	return wrtn;
}

int
xnvme_ident_fpr(FILE *stream, const struct xnvme_ident *ident, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_is_yaml(opts)) {
		return xnvme_pp_nosys(stream, opts);
	}

	wrtn += xnvme_ident_yaml(stream, ident, 0, "\n", 1);
	wrtn += fprintf(stream, "\n");

	return wrtn;
}

int
xnvme_ident_pr(const struct xnvme_ident *ident, int opts)
{
	return xnvme_ident_fpr(stdout, ident, opts);
}

static const char *
geo_type_str(enum xnvme_geo_type type)
{
	switch (type) {
	case XNVME_GEO_UNKNOWN:
		return "XNVME_GEO_UNKNOWN";
	case XNVME_GEO_CONVENTIONAL:
		return "XNVME_GEO_CONVENTIONAL";
	case XNVME_GEO_ZONED:
		return "XNVME_GEO_ZONED";
	case XNVME_GEO_KV:
		return "XNVME_GEO_KV";
	}

	return "XNVME_GEO_ENOSYS";
}

/* "xnvme_geo:" at `indent` and its members two deeper; "xnvme_geo: ~" for NULL */
static int
geo_yaml(FILE *stream, const struct xnvme_geo *geo, int indent)
{
	int wrtn = 0;

	if (!geo) {
		return xnvme_pp_null(stream, indent, "xnvme_geo");
	}

	wrtn += xnvme_pp_head(stream, indent, "xnvme_geo");
	indent += 2;
	wrtn += xnvme_pp_name(stream, indent, "type", geo_type_str(geo->type));
	wrtn += xnvme_pp_dec(stream, indent, "npugrp", geo->npugrp);
	wrtn += xnvme_pp_dec(stream, indent, "npunit", geo->npunit);
	wrtn += xnvme_pp_dec(stream, indent, "nzone", geo->nzone);
	wrtn += xnvme_pp_dec(stream, indent, "nsect", geo->nsect);
	wrtn += xnvme_pp_dec(stream, indent, "nbytes", geo->nbytes);
	wrtn += xnvme_pp_dec(stream, indent, "nbytes_oob", geo->nbytes_oob);
	wrtn += xnvme_pp_dec(stream, indent, "tbytes", geo->tbytes);
	wrtn += xnvme_pp_dec(stream, indent, "mdts_nbytes", geo->mdts_nbytes);
	wrtn += xnvme_pp_dec(stream, indent, "lba_nbytes", geo->lba_nbytes);
	wrtn += xnvme_pp_dec(stream, indent, "lba_extended", geo->lba_extended);
	wrtn += xnvme_pp_dec(stream, indent, "ssw", geo->ssw);
	wrtn += xnvme_pp_dec(stream, indent, "pi_type", geo->pi_type);
	wrtn += xnvme_pp_dec(stream, indent, "pi_loc", geo->pi_loc);
	wrtn += xnvme_pp_dec(stream, indent, "pi_format", geo->pi_format);

	return wrtn;
}

int
xnvme_geo_fpr(FILE *stream, const struct xnvme_geo *geo, int opts)
{
	if (!xnvme_pp_is_yaml(opts)) {
		return xnvme_pp_nosys(stream, opts);
	}

	return geo_yaml(stream, geo, 0);
}

int
xnvme_geo_pr(const struct xnvme_geo *geo, int opts)
{
	return xnvme_geo_fpr(stdout, geo, opts);
}

/* "<key>: {<field>: '<name>'}" */
static int
flow_name(FILE *stream, int indent, const char *key, const char *field, const char *name)
{
	int wrtn = 0;

	wrtn += fprintf(stream, "%*s%s: {%s: ", indent, "", key, field);
	wrtn += xnvme_pp_qstr(stream, name, SIZE_MAX);
	wrtn += fprintf(stream, "}\n");

	return wrtn;
}

int
xnvme_dev_fpr(FILE *stream, const struct xnvme_dev *dev, int opts)
{
	const struct xnvme_opts *dopts;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_dev", dev, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_ident_yaml(stream, xnvme_dev_get_ident(dev), 2, "\n", 1);
	wrtn += fprintf(stream, "\n");

	/* the mechanisms in use are the names in the effective options */
	dopts = xnvme_dev_get_opts(dev);
	if (!dopts) {
		wrtn += xnvme_pp_null(stream, 2, "xnvme_be");
		wrtn += xnvme_pp_null(stream, 2, "xnvme_opts");
	} else {
		wrtn += xnvme_pp_head(stream, 2, "xnvme_be");
		wrtn += flow_name(stream, 4, "admin", "id", dopts->admin);
		wrtn += flow_name(stream, 4, "sync", "id", dopts->sync);
		wrtn += flow_name(stream, 4, "async", "id", dopts->async);
		wrtn += flow_name(stream, 4, "attr", "name", dopts->be);

		wrtn += xnvme_pp_head(stream, 2, "xnvme_opts");
		wrtn += xnvme_pp_str(stream, 4, "be", dopts->be, SIZE_MAX);
		wrtn += xnvme_pp_str(stream, 4, "mem", dopts->mem, SIZE_MAX);
		wrtn += xnvme_pp_str(stream, 4, "dev", dopts->dev, SIZE_MAX);
		wrtn += xnvme_pp_str(stream, 4, "admin", dopts->admin, SIZE_MAX);
		wrtn += xnvme_pp_str(stream, 4, "sync", dopts->sync, SIZE_MAX);
		wrtn += xnvme_pp_str(stream, 4, "async", dopts->async, SIZE_MAX);
	}

	wrtn += geo_yaml(stream, xnvme_dev_get_geo(dev), 2);

	return wrtn;
}

int
xnvme_dev_pr(const struct xnvme_dev *dev, int opts)
{
	return xnvme_dev_fpr(stdout, dev, opts);
}

void
xnvme_cmd_ctx_pr(const struct xnvme_cmd_ctx *ctx, int XNVME_UNUSED(opts))
{
	if (!ctx) {
		printf("xnvme_cmd_ctx: ~\n");
		return;
	}

	printf("xnvme_cmd_ctx: {cdw0: 0x%" PRIx32 ", sc: 0x%x, sct: 0x%x}\n", ctx->cpl.cdw0,
	       (unsigned int)ctx->cpl.status.sc, (unsigned int)ctx->cpl.status.sct);
}

static int
opts_fpr(FILE *stream, const struct xnvme_opts *opts, int pr_opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, pr_opts, "xnvme_opts", opts, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_str(stream, 2, "be", opts->be, SIZE_MAX);
	wrtn += xnvme_pp_str(stream, 2, "dev", opts->dev, SIZE_MAX);
	wrtn += xnvme_pp_str(stream, 2, "mem", opts->mem, SIZE_MAX);
	wrtn += xnvme_pp_str(stream, 2, "sync", opts->sync, SIZE_MAX);
	wrtn += xnvme_pp_str(stream, 2, "async", opts->async, SIZE_MAX);
	wrtn += xnvme_pp_str(stream, 2, "admin", opts->admin, SIZE_MAX);
	wrtn += xnvme_pp_hex(stream, 2, "nsid", opts->nsid);
	wrtn += xnvme_pp_dec(stream, 2, "rdonly", opts->rdonly);
	wrtn += xnvme_pp_dec(stream, 2, "wronly", opts->wronly);
	wrtn += xnvme_pp_dec(stream, 2, "rdwr", opts->rdwr);
	wrtn += xnvme_pp_dec(stream, 2, "create", opts->create);
	wrtn += xnvme_pp_dec(stream, 2, "truncate", opts->truncate);
	wrtn += xnvme_pp_dec(stream, 2, "direct", opts->direct);
	wrtn += xnvme_pp_hex(stream, 2, "create_mode", opts->create_mode);
	wrtn += xnvme_pp_dec(stream, 2, "poll_io", opts->poll_io);
	wrtn += xnvme_pp_dec(stream, 2, "poll_sq", opts->poll_sq);
	wrtn += xnvme_pp_dec(stream, 2, "register_files", opts->register_files);
	wrtn += xnvme_pp_dec(stream, 2, "register_buffers", opts->register_buffers);
	wrtn += xnvme_pp_dec(stream, 2, "css.given", opts->css.given);
	wrtn += xnvme_pp_hex(stream, 2, "css.value", opts->css.value);
	wrtn += xnvme_pp_dec(stream, 2, "use_cmb_sqs", opts->use_cmb_sqs);
	wrtn += xnvme_pp_dec(stream, 2, "shm_id", opts->shm_id);
	wrtn += xnvme_pp_dec(stream, 2, "main_core", opts->main_core);
	wrtn += xnvme_pp_str(stream, 2, "core_mask", opts->core_mask, SIZE_MAX);
	wrtn += xnvme_pp_str(stream, 2, "adrfam", opts->adrfam, SIZE_MAX);
	wrtn += xnvme_pp_dec(stream, 2, "spdk_fabrics", opts->spdk_fabrics);

	return wrtn;
}

int
xnvme_opts_pr(const struct xnvme_opts *opts, int pr_opts)
{
	return opts_fpr(stdout, opts, pr_opts);
}
