// SPDX-License-Identifier: BSD-3-Clause
/**
 * xdd: copy bytes between files or devices through the file API, with synchronous commands or
 * through a queue.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <libxnvme.h>
#include "tools_common.h"

static int
xdd_copy(struct xnvme_cli *cli, bool queued)
{
	struct xnvme_cli_args *args = &cli->args;
	struct tool_xfer in, out;
	uint64_t in_size, nbytes = args->data_nbytes;
	uint32_t qdepth, vec_cnt;
	size_t iosize;
	int err;

	err = tool_xfer_params(cli, queued, false, &iosize, &qdepth, &vec_cnt);
	err = err ? err : tool_check_range(cli, XNVME_CLI_OPT_DATA_NBYTES, nbytes, 1, SIZE_MAX);
	if (err) {
		return err;
	}
	if (args->offset > UINT64_MAX - nbytes) {
		return tool_err(cli, -EINVAL, "--offset %" PRIu64 " --data-nbytes %" PRIu64
				": the range overflows", args->offset, nbytes);
	}

	err = tool_xfer_open(&in, cli, XNVME_CLI_OPT_DATA_INPUT, args->data_input, TOOL_XFER_IN,
			     iosize, qdepth, vec_cnt);
	if (err) {
		return err;
	}
	/* Refuse before writing anything when the input cannot provide the range */
	in_size = tool_xfer_size(&in);
	if (in_size && in_size < args->offset + nbytes) {
		err = tool_err(cli, -EINVAL,
			       "--data-input %s: holds %" PRIu64 " bytes, --offset %" PRIu64
			       " + --data-nbytes %" PRIu64 " needed",
			       args->data_input, in_size, args->offset, nbytes);
		tool_xfer_close(&in);
		return err;
	}
	err = tool_xfer_open(&out, cli, XNVME_CLI_OPT_DATA_OUTPUT, args->data_output,
			     TOOL_XFER_OUT, iosize, qdepth, vec_cnt);
	if (err) {
		tool_xfer_close(&in);
		return err;
	}

	xnvme_cli_pinf("copying %" PRIu64 " bytes with iosize %zu%s", nbytes, iosize,
		       queued ? " through queues" : "");
	if (queued) {
		xnvme_cli_pinf("qdepth: %u", qdepth);
	}

	xnvme_cli_timer_start(cli);
	err = tool_xfer_copy(&in, &out, nbytes, args->offset, args->offset);
	xnvme_cli_timer_stop(cli);
	if (!err) {
		xnvme_cli_timer_bw_pr(cli, "wall-clock", nbytes);
	}

	tool_xfer_close(&out);
	tool_xfer_close(&in);
	return err;
}

static int
sub_sync(struct xnvme_cli *cli)
{
	return xdd_copy(cli, false);
}

static int
sub_async(struct xnvme_cli *cli)
{
	return xdd_copy(cli, true);
}

#define OPTS_COPY                                       \
	{XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP}, \
	{XNVME_CLI_OPT_DATA_INPUT, XNVME_CLI_LREQ},     \
	{XNVME_CLI_OPT_DATA_OUTPUT, XNVME_CLI_LREQ},    \
	{XNVME_CLI_OPT_DATA_NBYTES, XNVME_CLI_LREQ},    \
	{XNVME_CLI_OPT_IOSIZE, XNVME_CLI_LOPT},         \
	{XNVME_CLI_OPT_DIRECT, XNVME_CLI_LFLG},         \
	{XNVME_CLI_OPT_OFFSET, XNVME_CLI_LOPT}

static struct xnvme_cli_sub g_subs[] = {
	{
		.name = "sync",
		.descr_short = "Copy with synchronous commands",
		.descr_long = "Copies --data-nbytes bytes starting at byte --offset of "
			      "--data-input to the same offset of --data-output (created when "
			      "missing, not truncated), --iosize bytes (default 131072) per "
			      "command; --direct opens both with O_DIRECT. Inputs and outputs are "
			      "files or device URIs",
		.command = sub_sync,
		.opts = {OPTS_COPY},
	},
	{
		.name = "async",
		.descr_short = "Copy through queues of depth qdepth",
		.descr_long = "As 'sync', with up to --qdepth (default 16) commands of --iosize "
			      "bytes in flight on a queue of each end",
		.command = sub_async,
		.opts = {
			OPTS_COPY,
			{XNVME_CLI_OPT_QDEPTH, XNVME_CLI_LOPT},
		},
	},
};

static struct xnvme_cli g_cli = {
	.title = "xdd",
	.descr_short = "Copy data between files and devices",
	.descr_long = "Copies a byte range from one file or device to another through the "
		      "library's file API and reports the throughput",
	.nsubs = sizeof(g_subs) / sizeof(g_subs[0]),
	.subs = g_subs,
};

int
main(int argc, char **argv)
{
	return xnvme_cli_run(&g_cli, argc, argv, XNVME_CLI_INIT_NONE);
}
