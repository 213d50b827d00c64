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

/* sync and async: a subcommand taking --qdepth copies through queues */
static int
sub_copy(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct tool_xfer in, out;
	uint64_t in_size, nbytes = args->data_nbytes;
	uint32_t qdepth, vec_cnt;
	size_t iosize;
	int err;

	err = tool_xfer_params(cli, &iosize, &qdepth, &vec_cnt);
	err = err ? err : tool_check_range(cli, XNVME_CLI_OPT_DATA_NBYTES, nbytes, 1, SIZE_MAX);
	if (err) {
		return err;
	}
	if (args->offset > UINT64_MAX - nbytes) {
		return tool_err(cli, -EINVAL,
				"--offset %" PRIu64 " --data-nbytes %" PRIu64
				": the range overflows",
				args->offset, nbytes);
	}

	err = tool_xfer_open(&in, cli, XNVME_CLI_OPT_DATA_INPUT, args->data_input, TOOL_XFER_IN,
			     iosize, qdepth, vec_cnt);
	if (err) {
		return err;
	}
	/* Refuse before writing anything when the input cannot provide the range */
	in_size = tool_xfer_size(&in);
	if ((in.is_file || in_size) && in_size < args->offset + nbytes) {
		err = tool_err(cli, -EINVAL,
			       "--data-input %s: holds %" PRIu64 " bytes, --offset %" PRIu64
			       " + --data-nbytes %" PRIu64 " needed",
			       args->data_input, in_size, args->offset, nbytes);
		tool_xfer_close(&in);
		return err;
	}
	err = tool_check_file_room(cli, XNVME_CLI_OPT_DATA_NBYTES, nbytes, args->offset + nbytes,
				   XNVME_CLI_OPT_DATA_OUTPUT, args->data_output);
	if (err) {
		tool_xfer_close(&in);
		return err;
	}
	err = tool_xfer_open(&out, cli, XNVME_CLI_OPT_DATA_OUTPUT, args->data_output, TOOL_XFER_OUT,
			     iosize, qdepth, vec_cnt);
	if (err) {
		tool_xfer_close(&in);
		return err;
	}
	/* every check before the first byte is written */
	err = tool_xfer_check_room(&out, XNVME_CLI_OPT_DATA_NBYTES, nbytes, args->offset + nbytes);
	err = err ? err
		  : tool_xfer_check_range(&in, XNVME_CLI_OPT_DATA_NBYTES, args->offset, nbytes);
	err = err ? err
		  : tool_xfer_check_range(&out, XNVME_CLI_OPT_DATA_NBYTES, args->offset, nbytes);
	if (err) {
		tool_xfer_close(&out);
		tool_xfer_close(&in);
		return err;
	}

	xnvme_cli_pinf("copying %" PRIu64 " bytes with iosize %zu%s", nbytes, iosize,
		       qdepth ? " through queues" : "");
	if (qdepth) {
		xnvme_cli_pinf("qdepth: %u", qdepth);
	}

	err = tool_xfer_copy(cli, &in, &out, nbytes, args->offset, args->offset);
	tool_xfer_close(&out);
	tool_xfer_close(&in);
	return err;
}

#define OPTS_COPY                                                                                  \
	TOOL_OPTS_LONG, TOOL_LREQ(DATA_INPUT), TOOL_LREQ(DATA_OUTPUT), TOOL_LREQ(DATA_NBYTES),     \
		TOOL_LOPT(IOSIZE), TOOL_LOPT(OFFSET)

static struct xnvme_cli_sub g_subs[] = {
	{
		.name = "sync",
		.descr_short = "Copy with synchronous commands",
		.descr_long = "Copies --data-nbytes bytes starting at byte --offset of "
			      "--data-input to the same offset of --data-output (created when "
			      "missing, its other bytes kept), --iosize bytes (default 131072) per "
			      "command; --direct opens both with O_DIRECT. Inputs and outputs are "
			      "regular files or device URIs (not FIFOs), and different files "
			      "(checked by device and inode). The range must lie within the input "
			      "and fit in the output (a device's capacity, a file's file system), "
			      "and with --direct be aligned as the OS requires: checked before "
			      "anything is written. A regular file is written as a new file (a "
			      "copy of it, then the range) that replaces it only when complete and "
			      "synced",
		.command = sub_copy,
		.opts = {OPTS_COPY, TOOL_ASYNC_OPTS},
	},
	{
		.name = "async",
		.descr_short = "Copy through queues of depth qdepth",
		.descr_long = "As 'sync', with up to --qdepth (default 16) commands of --iosize "
			      "bytes in flight on a queue of each end",
		.command = sub_copy,
		.opts = {OPTS_COPY, TOOL_LOPT(QDEPTH), TOOL_ASYNC_OPTS},
	},
};

TOOL_MAIN(g_subs, XNVME_CLI_INIT_NONE, NULL, "xdd", "Copy data between files and devices",
	  "Copies a byte range from one file or device to another through the "
	  "library's file API and reports the throughput")
