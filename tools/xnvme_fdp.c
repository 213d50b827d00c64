// SPDX-License-Identifier: BSD-3-Clause
/*
 * Flexible Data Placement subcommands of the `xnvme` tool: log pages (configurations, reclaim
 * unit handle usage, statistics, events), the FDP events feature, reclaim unit handle status
 * (I/O Management Receive) and update (I/O Management Send).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"
#include "xnvme_fdp.h"

/* Entries of FDP logs and reclaim unit handle lists are counted in 16 bits */
#define FDP_LIMIT_MAX 0xFFFFU

/* Largest FDP configurations log printed whole */
#define FDP_CONF_NBYTES_MAX (1U << 20)

/* Get Features (FDP events) answers with up to 255 two-byte event descriptors */
#define FDP_EVENTS_MAX 0xFFU
#define FDP_EVENTS_NBYTES (FDP_EVENTS_MAX * sizeof(struct xnvme_spec_fdp_event_desc))

/*
 * An FDP log page of the endurance group --lsi: `nbytes` into a fresh buffer, printed by the
 * caller and written to --data-output with tool_log_put()
 */
static void *
fdp_log_get(struct xnvme_cli *cli, uint8_t lid, uint8_t lsp, uint32_t nbytes, int *err)
{
	*err = tool_check_max(cli, XNVME_CLI_OPT_LSI, cli->args.lsi, 0xFFFF);
	if (*err) {
		return NULL;
	}
	return tool_log_get(cli, lid, lsp, (uint16_t)cli->args.lsi, 0, tool_log_nsid(cli), 0,
			    nbytes, err);
}

int
sub_log_fdp_config(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_spec_log_fdp_conf *log;
	uint64_t nbytes = args->data_nbytes;
	int err;

	err = tool_check_range(cli, XNVME_CLI_OPT_DATA_NBYTES, nbytes,
			       sizeof(*log) + sizeof(struct xnvme_spec_fdp_conf_desc), UINT32_MAX);
	if (err) {
		return err;
	}
	if (nbytes % 4) {
		return tool_err(cli, -EINVAL, "--data-nbytes %" PRIu64 ": not a multiple of 4",
				nbytes);
	}

	log = fdp_log_get(cli, XNVME_SPEC_LOG_FDPCONF, 0, (uint32_t)nbytes, &err);
	if (!log) {
		return err;
	}
	if (log->size <= nbytes) {
		/* a log not stating its size is bounded by what was read */
		if (!log->size) {
			log->size = (uint32_t)nbytes;
		}
		xnvme_spec_log_fdp_conf_pr(log, XNVME_PR_DEF);
		return tool_log_put(cli, log, (uint32_t)nbytes);
	}

	/* The printer follows the descriptors as far as the log says it reaches: read it all */
	xnvme_cli_pinf("the log holds %" PRIu32 " bytes, more than --data-nbytes %" PRIu64
		       "; printing all of it",
		       log->size, nbytes);
	if (log->size > FDP_CONF_NBYTES_MAX) {
		err = tool_err(cli, -EFBIG,
			       "the FDP configurations log of %" PRIu32
			       " bytes exceeds the %u bytes this tool prints",
			       log->size, FDP_CONF_NBYTES_MAX);
	} else {
		uint32_t whole_nbytes = (log->size + 3) & ~3U;
		struct xnvme_spec_log_fdp_conf *whole;

		whole = fdp_log_get(cli, XNVME_SPEC_LOG_FDPCONF, 0, whole_nbytes, &err);
		if (whole) {
			whole->size = XNVME_MIN(whole->size, whole_nbytes);
			xnvme_spec_log_fdp_conf_pr(whole, XNVME_PR_DEF);
			xnvme_buf_free(cli->args.dev, whole);
		}
	}
	if (err) {
		xnvme_buf_free(cli->args.dev, log);
		return err;
	}
	return tool_log_put(cli, log, (uint32_t)nbytes);
}

int
sub_log_ruhu(struct xnvme_cli *cli)
{
	struct xnvme_spec_log_ruhu *log;
	uint32_t limit = cli->args.limit, nbytes;
	int err;

	err = tool_check_range(cli, XNVME_CLI_OPT_LIMIT, limit, 1, FDP_LIMIT_MAX);
	if (err) {
		return err;
	}
	nbytes = sizeof(*log) + limit * sizeof(struct xnvme_spec_ruhu_desc);

	log = fdp_log_get(cli, XNVME_SPEC_LOG_FDPRUHU, 0, nbytes, &err);
	if (!log) {
		return err;
	}
	xnvme_spec_log_ruhu_pr(log, (int)XNVME_MIN(limit, log->nruh), XNVME_PR_DEF);
	return tool_log_put(cli, log, nbytes);
}

int
sub_log_fdp_stats(struct xnvme_cli *cli)
{
	uint32_t nbytes = sizeof(struct xnvme_spec_log_fdp_stats);
	void *log;
	int err;

	log = fdp_log_get(cli, XNVME_SPEC_LOG_FDPSTATS, 0, nbytes, &err);
	if (!log) {
		return err;
	}
	xnvme_spec_log_fdp_stats_pr(log, XNVME_PR_DEF);
	return tool_log_put(cli, log, nbytes);
}

int
sub_log_fdp_events(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_spec_log_fdp_events *log;
	uint32_t limit = args->limit, nbytes;
	int err;

	err = tool_check_range(cli, XNVME_CLI_OPT_LIMIT, limit, 1, FDP_LIMIT_MAX);
	/* LSP bit 0 selects host (0) or controller (1) events */
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_LSP, args->lsp, 0x1);
	if (err) {
		return err;
	}
	nbytes = sizeof(*log) + limit * sizeof(struct xnvme_spec_fdp_event);

	log = fdp_log_get(cli, XNVME_SPEC_LOG_FDPEVENTS, (uint8_t)args->lsp, nbytes, &err);
	if (!log) {
		return err;
	}
	xnvme_spec_log_fdp_events_pr(log, (int)XNVME_MIN(limit, log->nevents), XNVME_PR_DEF);
	return tool_log_put(cli, log, nbytes);
}

/* Get Features (FDP events) of placement handle `ph`: descriptors in `buf`, count returned */
static int
fdp_events_get(struct xnvme_cli *cli, uint32_t nsid, uint16_t ph, void *buf,
	       struct xnvme_spec_feat *feat)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(cli->args.dev);
	int err;

	memset(buf, 0, FDP_EVENTS_NBYTES);
	xnvme_prep_adm_gfeat(&ctx, nsid, XNVME_SPEC_FEAT_FDP_EVENTS, XNVME_SPEC_FEAT_SEL_CURRENT);
	/* CDW11: the placement handle, and the most event types to return in bits 23:16 */
	ctx.cmd.gfeat.cdw11 = ph | (FDP_EVENTS_MAX << 16);
	err = xnvme_cmd_pass_admin(&ctx, buf, FDP_EVENTS_NBYTES, NULL, 0);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		return tool_cmd_err(cli, &ctx, err,
				    "Get Features (FDP events) of placement handle 0x%x failed",
				    ph);
	}
	feat->val = ctx.cpl.cdw0;
	if ((feat->val & 0xFF) > FDP_EVENTS_MAX) {
		feat->val = FDP_EVENTS_MAX;
	}
	return 0;
}

int
sub_set_fdp_events(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_dev *dev = args->dev;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	struct xnvme_spec_fdp_event_desc *desc;
	struct xnvme_spec_feat feat;
	uint32_t nsid = tool_nsid(cli);
	uint16_t ph = args->feat & 0xFFFF;
	uint8_t *types = NULL;
	unsigned int ntypes;
	int err;

	if (args->fid != XNVME_SPEC_FEAT_FDP_EVENTS) {
		return tool_err(cli, -EINVAL,
				"--fid 0x%x: set-fdp-events sets the FDP events feature (0x%x); "
				"use feature-set for other features",
				args->fid, XNVME_SPEC_FEAT_FDP_EVENTS);
	}
	err = tool_check_max(cli, XNVME_CLI_OPT_CDW12, args->cdw[12], 0x1);
	if (err) {
		return err;
	}

	desc = tool_dev_buf(cli, FDP_EVENTS_NBYTES);
	if (!desc) {
		return -ENOMEM;
	}
	err = fdp_events_get(cli, nsid, ph, desc, &feat);
	if (err) {
		goto exit;
	}
	ntypes = feat.val & 0xFF;
	if (!ntypes) {
		err = tool_err(cli, -ENOENT,
			       "placement handle 0x%x supports no FDP event types to %s", ph,
			       args->cdw[12] ? "enable" : "disable");
		goto exit;
	}

	/* Set Features takes the event types to change, one byte each */
	types = tool_dev_buf(cli, ntypes);
	if (!types) {
		err = -ENOMEM;
		goto exit;
	}
	for (unsigned int i = 0; i < ntypes; ++i) {
		types[i] = desc[i].type;
	}

	/* CDW11: the placement handle and the number of event types; CDW12 bit 0: enable */
	xnvme_prep_adm_sfeat(&ctx, nsid, XNVME_SPEC_FEAT_FDP_EVENTS, ph | (ntypes << 16),
			     args->save);
	ctx.cmd.common.cdw12 = args->cdw[12];
	err = xnvme_cmd_pass_admin(&ctx, types, ntypes, NULL, 0);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err,
				   "Set Features (FDP events) of placement handle 0x%x failed", ph);
		goto exit;
	}
	xnvme_cli_pinf("%s %u FDP event types of placement handle 0x%x%s",
		       args->cdw[12] ? "enabled" : "disabled", ntypes, ph,
		       args->save ? " and saved" : "");

	/* What the device reports now */
	err = fdp_events_get(cli, nsid, ph, desc, &feat);
	if (!err) {
		xnvme_spec_feat_fdp_events_pr(desc, feat, XNVME_PR_DEF);
	}

exit:
	xnvme_buf_free(dev, types);
	xnvme_buf_free(dev, desc);
	return err;
}

int
sub_fdp_ruhs(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(args->dev);
	uint32_t nsid = tool_nsid(cli), limit = args->limit, nbytes;
	struct xnvme_spec_ruhs *ruhs;
	int err;

	err = tool_check_range(cli, XNVME_CLI_OPT_LIMIT, limit, 1, FDP_LIMIT_MAX);
	if (err) {
		return err;
	}
	nbytes = sizeof(*ruhs) + limit * sizeof(struct xnvme_spec_ruhs_desc);
	ruhs = tool_dev_buf(cli, nbytes);
	if (!ruhs) {
		return -ENOMEM;
	}

	err = xnvme_nvm_mgmt_recv(&ctx, nsid, XNVME_SPEC_IO_MGMT_RECV_RUHS, 0, ruhs, nbytes);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err,
				   "I/O Management Receive (reclaim unit handle status) of nsid "
				   "0x%x failed",
				   nsid);
		goto exit;
	}
	xnvme_spec_ruhs_pr(ruhs, (int)XNVME_MIN(limit, ruhs->nruhsd), XNVME_PR_DEF);

exit:
	xnvme_buf_free(args->dev, ruhs);
	return err;
}

int
sub_fdp_ruhu(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(args->dev);
	uint32_t nsid = tool_nsid(cli);
	uint8_t *pids;
	int err;

	err = tool_check_max(cli, XNVME_CLI_OPT_PID, args->pid, 0xFFFF);
	if (err) {
		return err;
	}
	pids = tool_dev_buf(cli, sizeof(uint16_t));
	if (!pids) {
		return -ENOMEM;
	}
	/* The list of placement identifiers is little-endian; MOS is its zero-based length */
	pids[0] = args->pid & 0xFF;
	pids[1] = (args->pid >> 8) & 0xFF;

	err = xnvme_nvm_mgmt_send(&ctx, nsid, XNVME_SPEC_IO_MGMT_SEND_RUHU, 0, pids,
				  sizeof(uint16_t));
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err,
				   "I/O Management Send (reclaim unit handle update) of --pid 0x%x "
				   "failed",
				   args->pid);
		goto exit;
	}
	printf("xnvme_nvm_mgmt_send: {nsid: 0x%x, mo: 0x%x, mos: 0x0, pid: 0x%x}\n", nsid,
	       XNVME_SPEC_IO_MGMT_SEND_RUHU, args->pid);

exit:
	xnvme_buf_free(args->dev, pids);
	return err;
}
