// SPDX-License-Identifier: BSD-3-Clause
/**
 * Device helpers: enumeration (`enum`, `list`), Identify Namespace, the device handle, device
 * buffers and log pages (Get Log Page, the Error Information log).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"

/* Most Error Information log entries one command fetches (ELPE is 8 bits, zero-based) */
#define TOOL_LOG_ERRI_LIMIT_MAX 4096

struct enum_state {
	struct xnvme_cli_enumeration *list;
	bool uris_only;
	int err;
};

static bool
ident_equal(const struct xnvme_ident *a, const struct xnvme_ident *b)
{
	return !strcmp(a->uri, b->uri) && a->nsid == b->nsid && a->csi == b->csi &&
	       a->dtype == b->dtype;
}

static int
enum_grow(struct enum_state *st)
{
	struct xnvme_cli_enumeration *old = st->list, *list;
	uint32_t capacity = old->nentries ? old->nentries * 2 : 64;
	int err;

	err = xnvme_cli_enumeration_alloc(&list, capacity);
	if (err) {
		return err;
	}
	for (uint32_t i = 0; i < old->nentries; ++i) {
		err = xnvme_cli_enumeration_append(list, &old->entries[i]);
		if (err) {
			xnvme_cli_enumeration_free(list);
			return err;
		}
	}
	xnvme_cli_enumeration_free(old);
	st->list = list;
	return 0;
}

static int
enum_cb(struct xnvme_dev *dev, void *cb_args)
{
	struct enum_state *st = cb_args;
	const struct xnvme_ident *ident = xnvme_dev_get_ident(dev);

	if (!ident || st->err) {
		return XNVME_ENUMERATE_DEV_CLOSE;
	}
	if (st->uris_only) {
		for (uint32_t i = 0; i < st->list->nentries; ++i) {
			if (ident_equal(&st->list->entries[i], ident)) {
				return XNVME_ENUMERATE_DEV_CLOSE;
			}
		}
	}
	if (!st->list->capacity) {
		st->err = enum_grow(st);
		if (st->err) {
			return XNVME_ENUMERATE_DEV_CLOSE;
		}
	}
	st->err = xnvme_cli_enumeration_append(st->list, ident);
	return XNVME_ENUMERATE_DEV_CLOSE;
}

void
tool_yaml_squote_pr(const char *s)
{
	putchar('\'');
	for (; *s; ++s) {
		if (*s == '\'') {
			putchar('\'');
		}
		putchar((unsigned char)*s >= 0x20 ? *s : ' '); /* a scalar stays on its line */
	}
	putchar('\'');
}

static int
enumerate(struct xnvme_cli *cli, bool uris_only)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct enum_state st = {.uris_only = uris_only};
	int err;

	xnvme_cli_to_opts(cli, &opts);

	err = xnvme_cli_enumeration_alloc(&st.list, 64);
	if (err) {
		return tool_err(cli, err, "cannot allocate the device list");
	}

	err = xnvme_enumerate(cli->args.sys_uri, &opts, enum_cb, &st);
	if (err || st.err) {
		err = tool_err(cli, err ? err : st.err, "enumeration failed%s%s",
			       cli->args.sys_uri ? " for --uri " : "",
			       cli->args.sys_uri ? cli->args.sys_uri : "");
		xnvme_cli_enumeration_free(st.list);
		return err;
	}

	if (!st.list->nentries) {
		/* nothing found is an empty list, not a missing one */
		printf("xnvme_cli_enumeration: []\n");
	} else if (uris_only) {
		printf("xnvme_cli_enumeration:\n");
		for (uint32_t i = 0; i < st.list->nentries; ++i) {
			printf("%s  - uri: ", i ? "\n" : "");
			tool_yaml_squote_pr(st.list->entries[i].uri);
			putchar('\n');
		}
	} else {
		xnvme_cli_enumeration_pp(st.list, XNVME_PR_DEF);
	}
	fflush(stdout);

	xnvme_cli_enumeration_free(st.list);
	return 0;
}

int
tool_enum(struct xnvme_cli *cli)
{
	return enumerate(cli, false);
}

int
tool_list(struct xnvme_cli *cli)
{
	return enumerate(cli, true);
}

int
tool_idfy_ns(struct xnvme_cli *cli)
{
	struct xnvme_dev *dev = cli->args.dev;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	struct xnvme_spec_idfy *idfy;
	uint32_t nsid = tool_nsid(cli);
	int err;

	idfy = xnvme_buf_alloc(dev, sizeof(*idfy));
	if (!idfy) {
		return tool_err(cli, -errno, "cannot allocate the identify buffer");
	}
	memset(idfy, 0, sizeof(*idfy));

	err = xnvme_adm_idfy_ns(&ctx, nsid, idfy);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err, "Identify Namespace of nsid 0x%x failed", nsid);
		goto exit;
	}

	xnvme_spec_idfy_ns_pr(&idfy->ns, XNVME_PR_DEF);
	err = tool_data_output(cli, idfy, sizeof(*idfy));

exit:
	xnvme_buf_free(dev, idfy);
	return err;
}

int
tool_dev_info(struct xnvme_cli *cli)
{
	xnvme_dev_pr(cli->args.dev, XNVME_PR_DEF);
	return tool_mech_pr(cli);
}

void *
tool_dev_buf(struct xnvme_cli *cli, size_t nbytes)
{
	void *buf = xnvme_buf_alloc(cli->args.dev, nbytes);

	if (!buf) {
		tool_err(cli, -errno, "cannot allocate a %zu byte buffer", nbytes);
		return NULL;
	}
	memset(buf, 0, nbytes);
	return buf;
}

uint32_t
tool_log_nsid(const struct xnvme_cli *cli)
{
	return cli->given[XNVME_CLI_OPT_NSID] ? cli->args.nsid : TOOL_NSID_ALL;
}

void *
tool_log_get(struct xnvme_cli *cli, uint8_t lid, uint8_t lsp, uint16_t lsi, uint64_t lpo,
	     uint32_t nsid, uint8_t rae, uint32_t nbytes, int *err)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(cli->args.dev);
	void *buf;

	if (!nbytes || nbytes % 4 || lpo % 4) {
		*err = tool_err(cli, -EINVAL,
				"log page 0x%x: %u bytes at offset %" PRIu64
				": both must be multiples of 4 and the size non-zero",
				lid, nbytes, lpo);
		return NULL;
	}
	buf = tool_dev_buf(cli, nbytes);
	if (!buf) {
		*err = -ENOMEM;
		return NULL;
	}

	/* Prepared by hand: xnvme_adm_log() has no parameter for the log specific identifier */
	xnvme_prep_adm_log(&ctx, lid, lsp, lpo, nsid, rae, nbytes);
	ctx.cmd.log.lsi = lsi;
	*err = xnvme_cmd_pass_admin(&ctx, buf, nbytes, NULL, 0);
	if (*err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		*err = tool_cmd_err(cli, &ctx, *err,
				    "Get Log Page --lid 0x%x --nsid 0x%x of %u bytes failed", lid,
				    nsid, nbytes);
		xnvme_buf_free(cli->args.dev, buf);
		return NULL;
	}
	return buf;
}

int
tool_log_put(struct xnvme_cli *cli, void *log, uint32_t nbytes)
{
	int err = tool_data_output(cli, log, nbytes);

	xnvme_buf_free(cli->args.dev, log);
	return err;
}

int
tool_log_erri(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	uint32_t limit = args->limit;
	uint32_t nbytes;
	void *buf;
	int err;

	if (cli->given[XNVME_CLI_OPT_LIMIT]) {
		err = tool_check_range(cli, XNVME_CLI_OPT_LIMIT, limit, 1, TOOL_LOG_ERRI_LIMIT_MAX);
		if (err) {
			return err;
		}
	} else {
		const struct xnvme_spec_idfy_ctrlr *ctrlr = xnvme_dev_get_ctrlr(args->dev);

		limit = ctrlr ? ctrlr->elpe + 1U : 1;
	}
	nbytes = limit * sizeof(struct xnvme_spec_log_erri_entry);

	buf = tool_log_get(cli, XNVME_SPEC_LOG_ERRI, 0, 0, 0, tool_log_nsid(cli), 0, nbytes, &err);
	if (!buf) {
		return err;
	}
	xnvme_spec_log_erri_pr(buf, (int)limit, XNVME_PR_DEF);
	return tool_log_put(cli, buf, nbytes);
}
