// SPDX-License-Identifier: BSD-3-Clause
/**
 * xnvme: enumerate devices, inspect them, manage Flexible Data Placement and pass admin and
 * raw commands.
 *
 * Every subcommand is one entry of g_subs[] plus one handler; its usage text, man page and bash
 * completion are generated from the entry. Adding one also needs its name in COVERED
 * (tests/tools_util.py) with a test, and its row in docs/tools.md: docs/internals.md, "A tool
 * subcommand".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libxnvme.h>
#include "tools_common.h"
#include "xnvme_fdp.h"

#define IDFY_NBYTES sizeof(struct xnvme_spec_idfy)
#define LOG_NBYTES_DEF 4096

/* Sanitize Status log page (NVMe base specification) */
#define LOG_SANITIZE_STATUS 0x81
#define LOG_SANITIZE_STATUS_NBYTES 512
#define SANITIZE_SSTAT_NEVER 0x0
#define SANITIZE_SSTAT_DONE 0x1
#define SANITIZE_SSTAT_BUSY 0x2
#define SANITIZE_SSTAT_FAILED 0x3
#define SANITIZE_POLL_NS (250L * 1000 * 1000)

/* CNS values whose data structure describes the namespace in NSID */
static bool
cns_is_per_ns(uint32_t cns)
{
	switch (cns) {
	case XNVME_SPEC_IDFY_NS:
	case XNVME_SPEC_IDFY_NSDSCR:
	case XNVME_SPEC_IDFY_NS_IOCS:
	case XNVME_SPEC_IDFY_NS_ALLOC:
	case XNVME_SPEC_IDFY_NS_ALLOC_IOCS:
		return true;
	default:
		return false;
	}
}

/*
 * Passes the Identify with the fields set in `ctx` (named `what` in messages), prints the data
 * structure (its raw bytes when there is no printer for it and no --data-output) and writes it
 * to --data-output
 */
static int
idfy_pass(struct xnvme_cli *cli, struct xnvme_cmd_ctx *ctx, const char *what)
{
	uint32_t cns = ctx->cmd.idfy.cns, nsid = ctx->cmd.common.nsid;
	struct xnvme_spec_idfy *idfy;
	int err;

	idfy = tool_dev_buf(cli, IDFY_NBYTES);
	if (!idfy) {
		return -ENOMEM;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	err = xnvme_cmd_pass_admin(ctx, idfy, IDFY_NBYTES, NULL, 0);
	if (err || xnvme_cmd_ctx_cpl_status(ctx)) {
		err = tool_cmd_err(cli, ctx, err, "%s failed", what);
		goto exit;
	}

	switch (cns) {
	case XNVME_SPEC_IDFY_NS:
		xnvme_spec_idfy_ns_pr(&idfy->ns, XNVME_PR_DEF);
		break;
	case XNVME_SPEC_IDFY_CTRLR:
		xnvme_spec_idfy_ctrlr_pr(&idfy->ctrlr, XNVME_PR_DEF);
		break;
	case XNVME_SPEC_IDFY_IOCS:
		xnvme_spec_idfy_cs_pr(&idfy->cs, XNVME_PR_DEF);
		break;
	default:
		/* No printer for this structure: the raw bytes, unless they go to a file */
		printf("xnvme_spec_idfy: {cns: 0x%x, nsid: 0x%x, nbytes: %zu}\n", cns, nsid,
		       IDFY_NBYTES);
		if (!cli->args.data_output) {
			tool_hexdump_pr("data", idfy, IDFY_NBYTES);
		}
		break;
	}
	err = tool_data_output(cli, idfy, IDFY_NBYTES);

exit:
	xnvme_buf_free(cli->args.dev, idfy);
	return err;
}

static int
sub_idfy(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(args->dev);
	char what[64];
	uint32_t nsid;
	int err;

	err = tool_check_max(cli, XNVME_CLI_OPT_CNS, args->cns, 0xFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_CNTID, args->cntid, 0xFFFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_SETID, args->setid, 0xFFFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_UUID, args->uuid, 0x7F);
	if (err) {
		return err;
	}
	if (cli->given[XNVME_CLI_OPT_NSID]) {
		nsid = args->nsid;
	} else {
		nsid = cns_is_per_ns(args->cns) ? xnvme_dev_get_nsid(args->dev) : 0;
	}

	/* Built by hand: xnvme_adm_idfy() carries only 8 bits of nsid */
	ctx.cmd.common.nsid = nsid;
	ctx.cmd.idfy.cns = args->cns;
	ctx.cmd.idfy.cntid = args->cntid;
	ctx.cmd.idfy.nvmsetid = args->setid;
	ctx.cmd.idfy.uuid = args->uuid;
	snprintf(what, sizeof(what), "Identify with --cns 0x%x --nsid 0x%x", args->cns, nsid);
	return idfy_pass(cli, &ctx, what);
}

static int
sub_idfy_ctrlr(struct xnvme_cli *cli)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(cli->args.dev);

	ctx.cmd.idfy.cns = XNVME_SPEC_IDFY_CTRLR;
	return idfy_pass(cli, &ctx, "Identify Controller");
}

static int
sub_idfy_cs(struct xnvme_cli *cli)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(cli->args.dev);

	ctx.cmd.idfy.cns = XNVME_SPEC_IDFY_IOCS;
	return idfy_pass(cli, &ctx, "Identify I/O Command Set (CNS 0x1C)");
}

static int
sub_log(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	uint64_t nbytes = LOG_NBYTES_DEF;
	uint32_t nsid = tool_log_nsid(cli);
	void *buf;
	int err;

	if (cli->given[XNVME_CLI_OPT_DATA_NBYTES]) {
		nbytes = args->data_nbytes;
	}
	err = tool_check_max(cli, XNVME_CLI_OPT_LID, args->lid, 0xFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_LSP, args->lsp, 0x7F);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_RAE, args->rae, 1);
	err = err ? err : tool_check_range(cli, XNVME_CLI_OPT_DATA_NBYTES, nbytes, 4, UINT32_MAX);
	if (err) {
		return err;
	}
	if (nbytes % 4) {
		return tool_err(cli, -EINVAL, "--data-nbytes %" PRIu64 ": not a multiple of 4",
				nbytes);
	}
	if (args->lpo_nbytes % 4) {
		return tool_err(cli, -EINVAL, "--lpo-nbytes %" PRIu64 ": not a multiple of 4",
				args->lpo_nbytes);
	}

	buf = tool_log_get(cli, args->lid, args->lsp, 0, args->lpo_nbytes, nsid, args->rae, nbytes,
			   &err);
	if (!buf) {
		return err;
	}

	printf("xnvme_adm_log: {lid: 0x%x, lsp: 0x%x, lpo_nbytes: %" PRIu64
	       ", nsid: 0x%x, rae: %u, nbytes: %" PRIu64 "}\n",
	       args->lid, args->lsp, args->lpo_nbytes, nsid, args->rae, nbytes);
	if (args->data_output) {
		err = tool_data_output(cli, buf, nbytes);
	} else {
		tool_hexdump_pr("data", buf, nbytes);
	}

	xnvme_buf_free(args->dev, buf);
	return err;
}

static int
sub_log_health(struct xnvme_cli *cli)
{
	uint32_t nbytes = sizeof(struct xnvme_spec_log_health_entry);
	void *buf;
	int err;

	buf = tool_log_get(cli, XNVME_SPEC_LOG_HEALTH, 0, 0, 0, tool_log_nsid(cli), 0, nbytes,
			   &err);
	if (!buf) {
		return err;
	}
	xnvme_spec_log_health_pr(buf, XNVME_PR_DEF);
	return tool_log_put(cli, buf, nbytes);
}

/* A zeroed device buffer of `nbytes` (NULL for none) filled from `path` (option `opt`) if given */
static int
payload_in(struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path, size_t nbytes,
	   void **buf)
{
	*buf = NULL;
	if (!nbytes) {
		return 0;
	}
	*buf = tool_dev_buf(cli, nbytes);
	if (!*buf) {
		return -ENOMEM;
	}
	return path ? tool_data_load(cli, opt, path, *buf, nbytes) : 0;
}

static int
sub_feature_get(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(args->dev);
	size_t nbytes = cli->given[XNVME_CLI_OPT_DATA_NBYTES] ? args->data_nbytes : 0;
	void *buf = NULL;
	int err;

	err = tool_check_max(cli, XNVME_CLI_OPT_FID, args->fid, 0xFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_SEL, args->sel, 0x7);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_DATA_NBYTES, nbytes, UINT32_MAX);
	if (err) {
		return err;
	}
	if (args->data_output && !nbytes) {
		return tool_err(cli, -EINVAL, "--data-output needs a non-zero --data-nbytes");
	}
	err = payload_in(cli, XNVME_CLI_OPT_NONE, NULL, nbytes, &buf);
	if (err) {
		return err;
	}

	xnvme_prep_adm_gfeat(&ctx, tool_nsid(cli), args->fid, args->sel);
	if (cli->given[XNVME_CLI_OPT_CDW11]) {
		ctx.cmd.gfeat.cdw11 = args->cdw[11];
	}
	err = xnvme_cmd_pass_admin(&ctx, buf, nbytes, NULL, 0);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err, "Get Features --fid 0x%x --sel 0x%x failed",
				   args->fid, args->sel);
		goto exit;
	}

	if (args->sel == XNVME_SPEC_FEAT_SEL_SUPPORTED) {
		uint32_t cap = ctx.cpl.cdw0;

		printf("xnvme_spec_feat_capabilities: {fid: 0x%x, saveable: %u, ns_specific: %u, "
		       "changeable: %u}\n",
		       args->fid, cap & 0x1, (cap >> 1) & 0x1, (cap >> 2) & 0x1);
	} else {
		struct xnvme_spec_feat feat = {.val = ctx.cpl.cdw0};

		xnvme_spec_feat_pr(args->fid, feat, XNVME_PR_DEF);
	}
	if (nbytes) {
		if (args->data_output) {
			err = tool_data_output(cli, buf, nbytes);
		} else if (args->fid == XNVME_SPEC_FEAT_FDP_EVENTS &&
			   args->sel != XNVME_SPEC_FEAT_SEL_SUPPORTED) {
			struct xnvme_spec_feat feat = {.val = ctx.cpl.cdw0};

			/* the count in the completion may exceed what the buffer holds */
			if ((feat.val & 0xFF) > nbytes / sizeof(struct xnvme_spec_fdp_event_desc)) {
				feat.val = nbytes / sizeof(struct xnvme_spec_fdp_event_desc);
			}
			xnvme_spec_feat_fdp_events_pr(buf, feat, XNVME_PR_DEF);
		} else {
			tool_hexdump_pr("data", buf, nbytes);
		}
	}

exit:
	xnvme_buf_free(args->dev, buf);
	return err;
}

static int
sub_feature_set(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(args->dev);
	size_t nbytes = cli->given[XNVME_CLI_OPT_DATA_NBYTES] ? args->data_nbytes : 0;
	struct xnvme_spec_feat feat = {.val = args->feat};
	void *buf = NULL;
	int err;

	err = tool_check_max(cli, XNVME_CLI_OPT_FID, args->fid, 0xFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_DATA_NBYTES, nbytes, UINT32_MAX);
	if (err) {
		return err;
	}
	if (args->data_input && !nbytes) {
		return tool_err(cli, -EINVAL, "--data-input %s needs a non-zero --data-nbytes",
				args->data_input);
	}
	err = payload_in(cli, XNVME_CLI_OPT_DATA_INPUT, args->data_input, nbytes, &buf);
	if (err) {
		goto exit;
	}

	xnvme_prep_adm_sfeat(&ctx, tool_nsid(cli), args->fid, args->feat, args->save);
	if (cli->given[XNVME_CLI_OPT_CDW12]) {
		ctx.cmd.common.cdw12 = args->cdw[12];
	}
	err = xnvme_cmd_pass_admin(&ctx, buf, nbytes, NULL, 0);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err, "Set Features --fid 0x%x --feat 0x%x failed",
				   args->fid, args->feat);
		goto exit;
	}
	xnvme_cli_pinf("feature 0x%x set%s", args->fid, args->save ? " and saved" : "");
	xnvme_spec_feat_pr(args->fid, feat, XNVME_PR_DEF);

exit:
	xnvme_buf_free(args->dev, buf);
	return err;
}

static int
sub_format(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(args->dev);
	const struct xnvme_spec_idfy_ns *ns = xnvme_dev_get_ns(args->dev);
	uint32_t nsid = tool_nsid(cli);
	uint64_t lbafl = args->lbafl;
	uint32_t lbafu = args->lbafu, mset = args->mset, pi = args->pi, pil = args->pil;
	struct tool_ticker *ticker;
	int err;

	/* What was not asked for keeps the namespace's current setting */
	if (ns) {
		uint32_t fmt = ns->flbas.format | (ns->flbas.format_msb << 4);

		lbafl = cli->given[XNVME_CLI_OPT_LBAFL] ? lbafl : (fmt & 0xF);
		lbafu = cli->given[XNVME_CLI_OPT_LBAFU] ? lbafu : (fmt >> 4);
		mset = cli->given[XNVME_CLI_OPT_MSET] ? mset : ns->flbas.extended;
		pi = cli->given[XNVME_CLI_OPT_PI] ? pi : ns->dps.pit;
		pil = cli->given[XNVME_CLI_OPT_PIL] ? pil : ns->dps.md_start;
	}

	err = tool_check_max(cli, XNVME_CLI_OPT_LBAFL, lbafl, 0xF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_LBAFU, lbafu, 0x3);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_MSET, mset, 0x1);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_SES, args->ses, 0x7);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_PI, pi, 0x7);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_PIL, pil, 0x1);
	if (err) {
		return err;
	}

	xnvme_cli_pinf("formatting nsid 0x%x with LBA format %u", nsid,
		       (unsigned int)(lbafl | (lbafu << 4)));
	ticker = tool_ticker_start(cli);
	err = xnvme_adm_format(&ctx, nsid, lbafl, lbafu, mset, args->ses, pi, pil);
	tool_ticker_stop(ticker);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		return tool_cmd_err(cli, &ctx, err, "Format NVM of nsid 0x%x failed", nsid);
	}

	printf("xnvme_adm_format: {nsid: 0x%x, lbafl: 0x%x, lbafu: 0x%x, mset: %u, ses: %u, "
	       "pi: %u, pil: %u}\n",
	       nsid, (unsigned int)lbafl, lbafu, mset, args->ses, pi, pil);
	return 0;
}

static uint16_t
le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

/* Follows the Sanitize Status log until the operation is no longer in progress */
static int
sanitize_wait(struct xnvme_cli *cli, unsigned int *sstat)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(cli->args.dev);
	uint64_t total = (geo && geo->tbytes) ? geo->tbytes : 65536;
	struct tool_progress prog;
	uint8_t *log;
	int err = 0;

	log = tool_dev_buf(cli, LOG_SANITIZE_STATUS_NBYTES);
	if (!log) {
		return -ENOMEM;
	}

	tool_progress_start(&prog, cli, total);
	for (;;) {
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(cli->args.dev);
		struct timespec pause = {.tv_sec = 0, .tv_nsec = SANITIZE_POLL_NS};
		uint16_t sprog;

		err = xnvme_adm_log(&ctx, LOG_SANITIZE_STATUS, 0, 0, TOOL_NSID_ALL, 0, log,
				    LOG_SANITIZE_STATUS_NBYTES);
		if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
			/* The command was accepted; without the log there is nothing to wait on */
			xnvme_cli_pinf("sanitize status log unavailable; not waiting for the end");
			err = 0;
			*sstat = SANITIZE_SSTAT_NEVER;
			break;
		}
		sprog = le16(&log[0]);
		*sstat = le16(&log[2]) & 0x7;
		if (*sstat != SANITIZE_SSTAT_BUSY) {
			tool_progress_update(&prog, total);
			break;
		}
		tool_progress_update(&prog, total * sprog / 65536);
		nanosleep(&pause, NULL);
	}
	tool_progress_end(&prog);

	xnvme_buf_free(cli->args.dev, log);
	return err;
}

static int
sub_sanitize(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(args->dev);
	unsigned int sstat = SANITIZE_SSTAT_NEVER;
	int err;

	err = tool_check_max(cli, XNVME_CLI_OPT_SANACT, args->sanact, 0x7);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_OWPASS, args->owpass, 0xF);
	if (err) {
		return err;
	}

	err = xnvme_nvm_sanitize(&ctx, args->sanact, args->ause, args->ovrpat, args->owpass,
				 args->oipbp, args->nodas);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		return tool_cmd_err(cli, &ctx, err, "Sanitize --sanact 0x%x failed", args->sanact);
	}

	err = sanitize_wait(cli, &sstat);
	if (err) {
		return err;
	}
	printf("xnvme_adm_sanitize: {sanact: 0x%x, ause: %u, ovrpat: 0x%x, owpass: %u, oipbp: %u, "
	       "nodas: %u, sstat: 0x%x}\n",
	       args->sanact, args->ause, args->ovrpat, args->owpass, args->oipbp, args->nodas,
	       sstat);
	if (sstat == SANITIZE_SSTAT_FAILED) {
		return tool_err(cli, -EIO, "the device reports that the sanitize operation failed");
	}
	return 0;
}

/** pioc and padc: a raw command from --cdwNN, --opcode and --nsid, with optional payloads */
static int
passthru(struct xnvme_cli *cli, bool admin)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(args->dev);
	size_t dnbytes = args->data_nbytes, mnbytes = args->meta_nbytes;
	uint32_t dwords[16] = {0};
	void *dbuf = NULL, *mbuf = NULL;
	int err;

	/* A command's data length is a 32-bit quantity: larger sizes are refused, not allocated */
	err = tool_check_max(cli, XNVME_CLI_OPT_OPCODE, args->opcode, 0xFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_DATA_NBYTES, dnbytes, UINT32_MAX);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_META_NBYTES, mnbytes, UINT32_MAX);
	if (err) {
		return err;
	}
	if ((args->data_input || args->data_output) && !dnbytes) {
		return tool_err(cli, -EINVAL,
				"--data-input/--data-output need a non-zero "
				"--data-nbytes");
	}
	if ((args->meta_input || args->meta_output) && !mnbytes) {
		return tool_err(cli, -EINVAL,
				"--meta-input/--meta-output need a non-zero "
				"--meta-nbytes");
	}

	for (int i = 0; i < 16; ++i) {
		if (cli->given[XNVME_CLI_OPT_CDW00 + i]) {
			dwords[i] = args->cdw[i];
		}
	}
	memcpy(&ctx.cmd, dwords, sizeof(dwords));
	if (cli->given[XNVME_CLI_OPT_OPCODE]) {
		ctx.cmd.common.opcode = args->opcode;
	}
	if (cli->given[XNVME_CLI_OPT_NSID]) {
		ctx.cmd.common.nsid = args->nsid;
	} else if (!admin && !cli->given[XNVME_CLI_OPT_CDW01]) {
		ctx.cmd.common.nsid = xnvme_dev_get_nsid(args->dev);
	}

	err = payload_in(cli, XNVME_CLI_OPT_DATA_INPUT, args->data_input, dnbytes, &dbuf);
	if (!err) {
		err = payload_in(cli, XNVME_CLI_OPT_META_INPUT, args->meta_input, mnbytes, &mbuf);
	}
	if (err) {
		goto exit;
	}

	if (args->verbose) {
		xnvme_spec_cmd_pr(&ctx.cmd, XNVME_PR_DEF);
	}
	if (admin) {
		err = xnvme_cmd_pass_admin(&ctx, dbuf, dnbytes, mbuf, mnbytes);
	} else {
		err = xnvme_cmd_pass(&ctx, dbuf, dnbytes, mbuf, mnbytes);
	}
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err, "%s command with opcode 0x%x failed",
				   admin ? "admin" : "I/O", ctx.cmd.common.opcode);
		goto exit;
	}
	xnvme_cmd_ctx_pr(&ctx, XNVME_PR_DEF);

	err = tool_data_output(cli, dbuf, dnbytes);
	if (!err && args->meta_output) {
		err = tool_data_save(cli, XNVME_CLI_OPT_META_OUTPUT, args->meta_output, mbuf,
				     mnbytes);
		if (!err) {
			xnvme_cli_pinf("wrote %zu bytes to '%s'", mnbytes, args->meta_output);
		}
	}

exit:
	xnvme_buf_free(args->dev, mbuf);
	xnvme_buf_free(args->dev, dbuf);
	return err;
}

static int
sub_pioc(struct xnvme_cli *cli)
{
	return passthru(cli, false);
}

static int
sub_padc(struct xnvme_cli *cli)
{
	return passthru(cli, true);
}

static int
sub_library_info(struct xnvme_cli *cli)
{
	struct xnvme_be_attr_list *list = NULL;
	int err;

	xnvme_cli_pinf("library information");
	xnvme_ver_pr(XNVME_PR_DEF);
	printf("\n");
	xnvme_libconf_pr(XNVME_PR_DEF);

	err = xnvme_be_attr_list_bundled(&list);
	if (err) {
		return tool_err(cli, err, "cannot list the backends");
	}
	xnvme_be_attr_list_pr(list, XNVME_PR_DEF);
	xnvme_buf_virt_free(list);
	return 0;
}

static int
sub_dsm(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(args->dev);
	struct xnvme_spec_dsm_range *range;
	int err;

	err = tool_check_range(cli, XNVME_CLI_OPT_LLB, args->llb, 1, UINT32_MAX);
	if (err) {
		return err;
	}
	range = tool_dev_buf(cli, sizeof(*range));
	if (!range) {
		return -ENOMEM;
	}
	range->slba = args->slba;
	range->llb = args->llb; /* the range length is one-based, like --llb */

	err = xnvme_nvm_dsm(&ctx, args->nsid, range, 0, args->ad, args->idw, args->idr);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err,
				   "Dataset Management of --slba 0x%" PRIx64 " --llb %u failed",
				   args->slba, args->llb);
		goto exit;
	}
	printf("xnvme_spec_dsm_range: {cattr: 0x%x, llb: %u, slba: 0x%016" PRIx64
	       ", ad: %u, idw: %u, idr: %u}\n",
	       range->cattr, range->llb, range->slba, args->ad, args->idw, args->idr);

exit:
	xnvme_buf_free(args->dev, range);
	return err;
}

static int
topology_op(struct xnvme_cli *cli, int (*op)(struct xnvme_dev *), const char *what)
{
	int err = op(cli->args.dev);

	if (err) {
		return tool_err(cli, err, "%s failed", what);
	}
	xnvme_cli_pinf("%s: done", what);
	return 0;
}

static int
sub_subsystem_reset(struct xnvme_cli *cli)
{
	return topology_op(cli, xnvme_subsystem_reset, "NVM subsystem reset");
}

static int
sub_ctrlr_reset(struct xnvme_cli *cli)
{
	return topology_op(cli, xnvme_controller_reset, "controller reset");
}

static int
sub_ns_rescan(struct xnvme_cli *cli)
{
	return topology_op(cli, xnvme_namespace_rescan, "namespace rescan");
}

static int
sub_show_regs(struct xnvme_cli *cli)
{
	struct xnvme_spec_ctrlr_bar *bar;
	int err;

	bar = xnvme_buf_virt_alloc(4096, sizeof(*bar));
	if (!bar) {
		return tool_err(cli, -errno, "cannot allocate the register buffer");
	}
	memset(bar, 0, sizeof(*bar));

	err = xnvme_controller_get_registers(cli->args.dev, bar);
	if (err) {
		err = tool_err(cli, err, "reading the controller registers failed");
	} else {
		xnvme_spec_ctrlr_bar_pp(bar, XNVME_PR_DEF);
	}
	xnvme_buf_virt_free(bar);
	return err;
}

/* The raw command of pioc and padc: --cdw0 .. --cdw15, --opcode, --nsid and the payloads */
#define OPTS_PASSTHRU                                                                              \
	TOOL_OPTS_DEV(TOOL_LOPT(CDW00), TOOL_LOPT(CDW01), TOOL_LOPT(CDW02), TOOL_LOPT(CDW03),      \
		      TOOL_LOPT(CDW04), TOOL_LOPT(CDW05), TOOL_LOPT(CDW06), TOOL_LOPT(CDW07),      \
		      TOOL_LOPT(CDW08), TOOL_LOPT(CDW09), TOOL_LOPT(CDW10), TOOL_LOPT(CDW11),      \
		      TOOL_LOPT(CDW12), TOOL_LOPT(CDW13), TOOL_LOPT(CDW14), TOOL_LOPT(CDW15),      \
		      TOOL_LOPT(OPCODE), TOOL_LOPT(NSID), TOOL_LOPT(DATA_INPUT),                   \
		      TOOL_LOPT(DATA_OUTPUT), TOOL_LOPT(DATA_NBYTES), TOOL_LOPT(META_INPUT),       \
		      TOOL_LOPT(META_OUTPUT), TOOL_LOPT(META_NBYTES), TOOL_LFLG(VERBOSE)),         \
		TOOL_ASYNC_OPTS

/* Admin subcommands: the device URI, the options given, the admin backend options */
#define OPTS_ADMIN(...) TOOL_OPTS_DEV(__VA_ARGS__), TOOL_ASYNC_OPTS

static struct xnvme_cli_sub g_subs[] = {
	{
		.name = "list",
		.descr_short = "List the URIs of the devices found on the system",
		.descr_long = "Enumerates the devices of every enabled backend and prints each "
			      "distinct URI once (entries equal in uri, nsid, csi and dtype are "
			      "merged); --uri selects a remote system for fabrics discovery",
		.command = tool_list,
		.opts = {TOOL_OPTS_ENUM(TOOL_ASYNC_OPTS)},
	},
	TOOL_SUB_ENUM("Enumerates the devices of every enabled backend and prints the identifier "
		      "(uri, dtype, nsid, csi, subnqn) of each; --uri selects a remote system "
		      "for fabrics discovery",
		      TOOL_ASYNC_OPTS),
	TOOL_SUB_INFO("Opens the device, derives its identify data and geometry and prints the "
		      "handle"),
	{
		.name = "idfy",
		.descr_short = "Identify with a caller-chosen CNS",
		.descr_long = "Issues an Identify command for --cns (with --cntid, --nsid, "
			      "--setid, --uuid) and prints the result when a printer exists for "
			      "the structure (CNS 0x0, 0x1, 0x1C), else its raw bytes; "
			      "--data-output writes the 4096 bytes to a file. --nsid defaults to "
			      "the device namespace for namespace structures, else 0",
		.command = sub_idfy,
		.opts = {OPTS_ADMIN(TOOL_LREQ(CNS), TOOL_LOPT(CNTID), TOOL_LOPT(NSID),
				    TOOL_LOPT(SETID), TOOL_LOPT(UUID), TOOL_LOPT(DATA_OUTPUT))},
	},
	TOOL_SUB_IDFY_NS("idfy-ns", "Identify Namespace (CNS 0x0)"),
	{
		.name = "idfy-ctrlr",
		.descr_short = "Identify Controller (CNS 0x1)",
		.descr_long = "Prints the Identify Controller data; --data-output also writes the "
			      "4096 bytes to a file",
		.command = sub_idfy_ctrlr,
		.opts = {OPTS_ADMIN(TOOL_LOPT(DATA_OUTPUT))},
	},
	{
		.name = "idfy-cs",
		.descr_short = "Identify I/O Command Set data structure (CNS 0x1C)",
		.descr_long = "Prints the I/O command set combinations supported by the "
			      "controller; --data-output also writes the 4096 bytes to a file",
		.command = sub_idfy_cs,
		.opts = {OPTS_ADMIN(TOOL_LOPT(DATA_OUTPUT))},
	},
	{
		.name = "log",
		.descr_short = "Get Log Page with a caller-chosen log identifier",
		.descr_long = "Retrieves --data-nbytes (default 4096, a multiple of 4) bytes of "
			      "log page --lid from offset --lpo-nbytes; --nsid defaults to "
			      "0xFFFFFFFF. The log is not decoded: it is written to --data-output, "
			      "or printed as raw bytes",
		.command = sub_log,
		.opts = {OPTS_ADMIN(TOOL_LREQ(LID), TOOL_LOPT(LSP), TOOL_LOPT(LPO_NBYTES),
				    TOOL_LOPT(NSID), TOOL_LOPT(RAE), TOOL_LOPT(DATA_NBYTES),
				    TOOL_LOPT(DATA_OUTPUT))},
	},
	{
		.name = "log-erri",
		.descr_short = "Error Information log page (0x01)",
		.descr_long = "Prints --limit entries (default: as many as the controller keeps) "
			      "of the Error Information log; --nsid defaults to 0xFFFFFFFF",
		.command = tool_log_erri,
		.opts = {OPTS_ADMIN(TOOL_LOPT(NSID), TOOL_LOPT(LIMIT), TOOL_LOPT(DATA_OUTPUT))},
	},
	{
		.name = "log-health",
		.descr_short = "SMART / Health Information log page (0x02)",
		.descr_long = "Prints the SMART / Health Information log; --nsid defaults to "
			      "0xFFFFFFFF (controller-wide)",
		.command = sub_log_health,
		.opts = {OPTS_ADMIN(TOOL_LOPT(NSID), TOOL_LOPT(DATA_OUTPUT))},
	},
	{
		.name = "log-fdp-config",
		.descr_short = "FDP Configurations log page (0x20)",
		.descr_long = "Prints the Flexible Data Placement configurations of endurance "
			      "group --lsi: --data-nbytes (a multiple of 4) of the log are read; "
			      "--data-output also writes them to a file",
		.command = sub_log_fdp_config,
		.opts = {OPTS_ADMIN(TOOL_LREQ(DATA_NBYTES), TOOL_LREQ(LSI), TOOL_LOPT(NSID),
				    TOOL_LOPT(DATA_OUTPUT))},
	},
	{
		.name = "log-ruhu",
		.descr_short = "Reclaim Unit Handle Usage log page (0x21)",
		.descr_long = "Prints up to --limit reclaim unit handle usage descriptors of "
			      "endurance group --lsi; --data-output also writes the log to a file",
		.command = sub_log_ruhu,
		.opts = {OPTS_ADMIN(TOOL_LREQ(LIMIT), TOOL_LREQ(LSI), TOOL_LOPT(NSID),
				    TOOL_LOPT(DATA_OUTPUT))},
	},
	{
		.name = "log-fdp-stats",
		.descr_short = "FDP Statistics log page (0x22)",
		.descr_long = "Prints the host and media bytes written and the media bytes erased "
			      "of endurance group --lsi; --data-output also writes the log to a "
			      "file",
		.command = sub_log_fdp_stats,
		.opts = {OPTS_ADMIN(TOOL_LREQ(LSI), TOOL_LOPT(NSID), TOOL_LOPT(DATA_OUTPUT))},
	},
	{
		.name = "log-fdp-events",
		.descr_short = "FDP Events log page (0x23)",
		.descr_long = "Prints up to --limit FDP events of endurance group --lsi: host "
			      "events with --lsp 0, controller events with --lsp 1; --data-output "
			      "also writes the log to a file",
		.command = sub_log_fdp_events,
		.opts = {OPTS_ADMIN(TOOL_LREQ(LIMIT), TOOL_LREQ(LSI), TOOL_LREQ(LSP),
				    TOOL_LOPT(NSID), TOOL_LOPT(DATA_OUTPUT))},
	},
	{
		.name = "feature-get",
		.descr_short = "Get Features; prints the decoded feature value",
		.descr_long = "Retrieves feature --fid with select --sel (0: current, 1: default, "
			      "2: saved, 3: capabilities); --cdw11 is passed as is; with "
			      "--data-nbytes the feature data is received too, printed or written "
			      "to --data-output",
		.command = sub_feature_get,
		.opts = {OPTS_ADMIN(TOOL_LREQ(FID), TOOL_LOPT(NSID), TOOL_LOPT(SEL),
				    TOOL_LOPT(CDW11), TOOL_LOPT(DATA_OUTPUT),
				    TOOL_LOPT(DATA_NBYTES))},
	},
	{
		.name = "feature-set",
		.descr_short = "Set Features",
		.descr_long = "Sets feature --fid to --feat (CDW11), optionally --cdw12, saved "
			      "across resets with --save; feature data of --data-nbytes bytes is "
			      "read from --data-input (zeros without it)",
		.command = sub_feature_set,
		.opts = {OPTS_ADMIN(TOOL_LREQ(FID), TOOL_LREQ(FEAT), TOOL_LOPT(NSID),
				    TOOL_LFLG(SAVE), TOOL_LOPT(CDW12), TOOL_LOPT(DATA_INPUT),
				    TOOL_LOPT(DATA_NBYTES))},
	},
	{
		.name = "set-fdp-events",
		.descr_short = "Enable or disable all FDP event types of a placement handle",
		.descr_long = "Sets the FDP events feature (--fid 0x1e) of the placement handle in "
			      "bits 15:0 of --feat for every event type the handle supports "
			      "(read with Get Features): --cdw12 1 enables them, 0 disables them; "
			      "--save keeps the setting across resets. Prints the event types "
			      "afterwards",
		.command = sub_set_fdp_events,
		.opts = {OPTS_ADMIN(TOOL_LREQ(FID), TOOL_LREQ(FEAT), TOOL_LREQ(CDW12),
				    TOOL_LOPT(NSID), TOOL_LFLG(SAVE))},
	},
	{
		.name = "format",
		.descr_short = "Format NVM",
		.descr_long = "Formats namespace --nsid (default: the device namespace) with LBA "
			      "format --lbafl/--lbafu, metadata setting --mset, secure erase "
			      "--ses and protection --pi/--pil; settings not given keep the "
			      "namespace's current value. Destroys all data of the namespace",
		.command = sub_format,
		.opts = {OPTS_ADMIN(TOOL_LOPT(NSID), TOOL_LOPT(LBAFL), TOOL_LOPT(LBAFU),
				    TOOL_LOPT(MSET), TOOL_LOPT(SES), TOOL_LOPT(PI),
				    TOOL_LOPT(PIL))},
	},
	{
		.name = "sanitize",
		.descr_short = "Sanitize the NVM subsystem",
		.descr_long = "Starts sanitize action --sanact (1: exit failure mode, 2: block "
			      "erase, 3: overwrite, 4: crypto erase) and waits, following the "
			      "Sanitize Status log, until it is no longer in progress. Destroys "
			      "all data",
		.command = sub_sanitize,
		.opts = {OPTS_ADMIN(TOOL_LREQ(SANACT), TOOL_LFLG(AUSE), TOOL_LOPT(OVRPAT),
				    TOOL_LOPT(OWPASS), TOOL_LFLG(OIPBP), TOOL_LFLG(NODAS))},
	},
	{
		.name = "fdp-ruhs",
		.descr_short = "Reclaim Unit Handle Status (I/O Management Receive)",
		.descr_long = "Prints up to --limit reclaim unit handle status descriptors of "
			      "--nsid (default: the device namespace): placement identifier, "
			      "handle, and the media writes left in the active reclaim unit",
		.command = sub_fdp_ruhs,
		.opts = {OPTS_ADMIN(TOOL_LREQ(LIMIT), TOOL_LOPT(NSID))},
	},
	{
		.name = "fdp-ruhu",
		.descr_short = "Reclaim Unit Handle Update (I/O Management Send)",
		.descr_long = "Has the reclaim unit handle of placement identifier --pid of --nsid "
			      "(default: the device namespace) reference a new, empty reclaim unit",
		.command = sub_fdp_ruhu,
		.opts = {OPTS_ADMIN(TOOL_LREQ(PID), TOOL_LOPT(NSID))},
	},
	{
		.name = "pioc",
		.descr_short = "Pass a raw I/O command",
		.descr_long = "Builds a command from --cdw0 .. --cdw15 (--opcode and --nsid "
			      "override dwords 0 and 1; nsid defaults to the device namespace), "
			      "passes it with --data-nbytes/--meta-nbytes buffers filled from "
			      "--data-input/--meta-input (zeros otherwise), and prints the "
			      "completion; buffers are written to --data-output/--meta-output. "
			      "An input may be a FIFO: one without a writer fails at once",
		.command = sub_pioc,
		.opts = {OPTS_PASSTHRU},
	},
	{
		.name = "padc",
		.descr_short = "Pass a raw admin command",
		.descr_long = "Builds an admin command from --cdw0 .. --cdw15 (--opcode and --nsid "
			      "override dwords 0 and 1), passes it with "
			      "--data-nbytes/--meta-nbytes buffers filled from "
			      "--data-input/--meta-input (zeros otherwise), and prints the "
			      "completion; buffers are written to --data-output/--meta-output",
		.command = sub_padc,
		.opts = {OPTS_PASSTHRU},
	},
	{
		.name = "library-info",
		.descr_short = "Print the library version, build configuration and backends",
		.descr_long = "Prints the version, the build configuration and the list of "
			      "backends with whether each is enabled; opens no device",
		.command = sub_library_info,
		.opts = {{XNVME_CLI_OPT_NONE, 0}},
	},
	{
		.name = "dsm",
		.descr_short = "Dataset Management of one LBA range",
		.descr_long = "Sends Dataset Management for the range of --llb (one-based) blocks "
			      "from --slba with the attributes --ad (deallocate), --idw, --idr",
		.command = sub_dsm,
		.opts = {OPTS_ADMIN(TOOL_LREQ(NSID), TOOL_LREQ(SLBA), TOOL_LREQ(LLB), TOOL_LFLG(AD),
				    TOOL_LFLG(IDW), TOOL_LFLG(IDR))},
	},
	{
		.name = "subsystem-reset",
		.descr_short = "NVM subsystem reset",
		.descr_long = "Resets the NVM subsystem the device belongs to",
		.command = sub_subsystem_reset,
		.opts = {TOOL_OPTS_URI, TOOL_ASYNC_OPTS},
	},
	{
		.name = "show-regs",
		.descr_short = "Print the controller registers (BAR0)",
		.descr_long = "Reads and prints the controller register block",
		.command = sub_show_regs,
		.opts = {TOOL_OPTS_URI, TOOL_ASYNC_OPTS},
	},
	{
		.name = "ctrlr-reset",
		.descr_short = "Controller reset",
		.descr_long = "Resets the controller of the device",
		.command = sub_ctrlr_reset,
		.opts = {TOOL_OPTS_URI, TOOL_ASYNC_OPTS},
	},
	{
		.name = "ns-rescan",
		.descr_short = "Namespace rescan",
		.descr_long = "Asks the operating system to rescan the namespaces of the "
			      "controller",
		.command = sub_ns_rescan,
		.opts = {TOOL_OPTS_URI, TOOL_ASYNC_OPTS},
	},
};

/* The subcommands that write the device; every other one opens it read-only */
static const char *const g_writers[] = {
	"feature-set", "set-fdp-events",  "format",      "sanitize",  "fdp-ruhu", "pioc", "padc",
	"dsm",         "subsystem-reset", "ctrlr-reset", "ns-rescan", NULL};

TOOL_MAIN(g_subs, XNVME_CLI_INIT_DEV_OPEN, g_writers, "xnvme",
	  "Enumerate, inspect and manage NVMe devices",
	  "Enumerates devices, prints their identify data, logs and features, and "
	  "passes admin and raw commands, through any backend of the library")
