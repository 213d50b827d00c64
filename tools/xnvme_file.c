// SPDX-License-Identifier: BSD-3-Clause
/**
 * xnvme_file: exercise the file API: write and read back, dump generated data, load and copy
 * files, with synchronous, queued and vectored commands.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"

static void
announce(const char *what, uint64_t nbytes, size_t iosize, uint32_t qdepth, uint32_t vec_cnt)
{
	xnvme_cli_pinf("%s %" PRIu64 " bytes with iosize %zu", what, nbytes, iosize);
	if (qdepth) {
		xnvme_cli_pinf("qdepth: %u", qdepth);
	}
	if (vec_cnt) {
		xnvme_cli_pinf("vec_cnt: %u", vec_cnt);
	}
}

static int
sub_write_read(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	size_t nbytes = args->data_nbytes;
	const struct xnvme_geo *geo;
	struct tool_xfer x;
	uint8_t *wbuf = NULL, *rbuf = NULL;
	size_t iosize, ndiff;
	int err;

	err = tool_check_range(cli, XNVME_CLI_OPT_DATA_NBYTES, nbytes, 1, SIZE_MAX);
	err = err ? err
		  : tool_check_file_room(cli, XNVME_CLI_OPT_DATA_NBYTES, nbytes, nbytes,
					 XNVME_CLI_OPT_URI, args->uri);
	if (err) {
		return err;
	}
	err = tool_xfer_open(&x, cli, XNVME_CLI_OPT_URI, args->uri, TOOL_XFER_IN | TOOL_XFER_OUT,
			     TOOL_IOSIZE_DEF, 0, 0);
	if (err) {
		return err;
	}
	/* One command per MDTS: the largest transfer the device takes */
	geo = xnvme_dev_get_geo(x.dev);
	iosize = (geo && geo->mdts_nbytes) ? geo->mdts_nbytes : TOOL_IOSIZE_DEF;
	x.iosize = iosize;
	err = tool_xfer_check_room(&x, XNVME_CLI_OPT_DATA_NBYTES, nbytes, nbytes);
	err = err ? err : tool_xfer_check_range(&x, XNVME_CLI_OPT_DATA_NBYTES, 0, nbytes);
	if (err) {
		tool_xfer_close(&x);
		return err;
	}

	wbuf = xnvme_buf_alloc(x.dev, nbytes);
	rbuf = xnvme_buf_alloc(x.dev, nbytes);
	if (!wbuf || !rbuf) {
		err = tool_err(cli, -ENOMEM, "cannot allocate two %zu byte buffers", nbytes);
		goto exit;
	}
	tool_pattern_fill(wbuf, nbytes, 0);
	memset(rbuf, 0, nbytes);

	announce("writing and reading back", nbytes, iosize, 0, 0);
	xnvme_cli_timer_start(cli);
	err = tool_xfer_rw(&x, true, wbuf, nbytes, 0);
	if (!err) {
		err = tool_xfer_rw(&x, false, rbuf, nbytes, 0);
	}
	xnvme_cli_timer_stop(cli);
	if (err) {
		goto exit;
	}

	ndiff = xnvme_buf_diff(wbuf, rbuf, nbytes);
	printf("xnvme_file_write_read: {nbytes: %zu, ndiff: %zu}\n", nbytes, ndiff);
	xnvme_cli_timer_bw_pr(cli, "wall-clock", 2 * (uint64_t)nbytes);
	if (ndiff) {
		err = tool_err(cli, -EIO,
			       "%s: %zu of %zu bytes read back differ from those "
			       "written",
			       args->uri, ndiff, nbytes);
	}

exit:
	xnvme_buf_free(x.dev, rbuf);
	xnvme_buf_free(x.dev, wbuf);
	tool_xfer_close(&x);
	return err;
}

/*
 * dump and load: writes generated data to `x` or reads from it, `nbytes` from offset 0, one
 * window at a time
 */
static int
stream(struct xnvme_cli *cli, struct tool_xfer *x, bool write, uint64_t nbytes, uint32_t qdepth)
{
	size_t win = XNVME_MIN_U64(tool_xfer_window(x), nbytes);
	struct tool_progress prog;
	uint64_t done = 0;
	void *buf = NULL;
	int err = 0;

	if (win) {
		buf = xnvme_buf_alloc(x->dev, win);
		if (!buf) {
			return tool_err(cli, -ENOMEM, "cannot allocate a %zu byte buffer", win);
		}
	}

	announce(write ? "dumping" : "loading", nbytes, x->iosize, qdepth, x->vec_cnt);
	tool_progress_start(&prog, cli, nbytes);
	x->prog = &prog;
	xnvme_cli_timer_start(cli);
	while (done < nbytes) {
		size_t n = XNVME_MIN_U64(win, nbytes - done);

		if (write) {
			tool_pattern_fill(buf, n, done);
		}
		x->prog_base = done;
		err = tool_xfer_rw(x, write, buf, n, done);
		if (err) {
			break;
		}
		done += n;
	}
	xnvme_cli_timer_stop(cli);
	tool_progress_end(&prog);
	if (!err) {
		xnvme_cli_timer_bw_pr(cli, "wall-clock", nbytes);
	}

	xnvme_buf_free(x->dev, buf);
	return err;
}

/* The dump-* subcommands: with --qdepth through a queue, with --vec-cnt vectored */
static int
sub_dump(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	uint64_t nbytes = args->data_nbytes;
	struct tool_xfer out;
	uint32_t qdepth, vec_cnt;
	size_t iosize;
	int err;

	err = tool_xfer_params(cli, &iosize, &qdepth, &vec_cnt);
	err = err ? err : tool_check_range(cli, XNVME_CLI_OPT_DATA_NBYTES, nbytes, 1, SIZE_MAX);
	/* before the truncating open: an existing file is refused intact */
	err = err ? err
		  : tool_check_file_room(cli, XNVME_CLI_OPT_DATA_NBYTES, nbytes, nbytes,
					 XNVME_CLI_OPT_DATA_OUTPUT, args->data_output);
	if (err) {
		return err;
	}
	err = tool_xfer_open(&out, cli, XNVME_CLI_OPT_DATA_OUTPUT, args->data_output,
			     TOOL_XFER_OUT | TOOL_XFER_TRUNC, iosize, qdepth, vec_cnt);
	if (err) {
		return err;
	}
	err = tool_xfer_check_room(&out, XNVME_CLI_OPT_DATA_NBYTES, nbytes, nbytes);
	err = err ? err : tool_xfer_check_range(&out, XNVME_CLI_OPT_DATA_NBYTES, 0, nbytes);
	err = err ? err : stream(cli, &out, true, nbytes, qdepth);
	tool_xfer_close(&out);
	return err;
}

/* The load-* subcommands */
static int
sub_load(struct xnvme_cli *cli)
{
	struct tool_xfer in;
	uint32_t qdepth, vec_cnt;
	size_t iosize;
	int err;

	err = tool_xfer_params(cli, &iosize, &qdepth, &vec_cnt);
	if (err) {
		return err;
	}
	err = tool_xfer_open(&in, cli, XNVME_CLI_OPT_DATA_INPUT, cli->args.data_input, TOOL_XFER_IN,
			     iosize, qdepth, vec_cnt);
	if (err) {
		return err;
	}
	err = tool_xfer_check_range(&in, XNVME_CLI_OPT_DATA_INPUT, 0, tool_xfer_size(&in));
	err = err ? err : stream(cli, &in, false, tool_xfer_size(&in), qdepth);
	tool_xfer_close(&in);
	return err;
}

/* The copy-* subcommands */
static int
sub_copy(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct tool_xfer in, out;
	uint32_t qdepth, vec_cnt;
	uint64_t nbytes;
	size_t iosize;
	int err;

	err = tool_xfer_params(cli, &iosize, &qdepth, &vec_cnt);
	if (err) {
		return err;
	}
	err = tool_xfer_open(&in, cli, XNVME_CLI_OPT_DATA_INPUT, args->data_input, TOOL_XFER_IN,
			     iosize, qdepth, vec_cnt);
	if (err) {
		return err;
	}
	nbytes = tool_xfer_size(&in);
	err = tool_check_file_room(cli, XNVME_CLI_OPT_DATA_INPUT, nbytes, nbytes,
				   XNVME_CLI_OPT_DATA_OUTPUT, args->data_output);
	if (err) {
		tool_xfer_close(&in);
		return err;
	}
	err = tool_xfer_open(&out, cli, XNVME_CLI_OPT_DATA_OUTPUT, args->data_output,
			     TOOL_XFER_OUT | TOOL_XFER_TRUNC, iosize, qdepth, vec_cnt);
	if (err) {
		tool_xfer_close(&in);
		return err;
	}
	/* every check before the first byte is written */
	err = tool_xfer_check_room(&out, XNVME_CLI_OPT_DATA_INPUT, nbytes, nbytes);
	err = err ? err : tool_xfer_check_range(&in, XNVME_CLI_OPT_DATA_INPUT, 0, nbytes);
	err = err ? err : tool_xfer_check_range(&out, XNVME_CLI_OPT_DATA_INPUT, 0, nbytes);
	if (!err) {
		announce("copying", nbytes, iosize, qdepth, vec_cnt);
		err = tool_xfer_copy(cli, &in, &out, nbytes, 0, 0);
	}
	tool_xfer_close(&out);
	tool_xfer_close(&in);
	return err;
}

#define OPTS_DUMP                                                                                  \
	TOOL_OPTS_POSA, TOOL_POSA(DATA_OUTPUT), TOOL_OPTS_LONG, TOOL_LREQ(DATA_NBYTES),            \
		TOOL_LOPT(IOSIZE)

#define OPTS_LOAD TOOL_OPTS_POSA, TOOL_POSA(DATA_INPUT), TOOL_OPTS_LONG, TOOL_LOPT(IOSIZE)

#define OPTS_COPY                                                                                  \
	TOOL_OPTS_POSA, TOOL_POSA(DATA_INPUT), TOOL_POSA(DATA_OUTPUT), TOOL_OPTS_LONG,             \
		TOOL_LOPT(IOSIZE)

static struct xnvme_cli_sub g_subs[] = {
	{
		.name = "write-read",
		.descr_short = "Write then read back data-nbytes bytes of a file or device",
		.descr_long = "Writes data-nbytes bytes of generated data at offset 0 of uri (a "
			      "device, or a file: written in place, created when missing), reads "
			      "them back and compares; fails when any byte differs",
		.command = sub_write_read,
		.opts = {TOOL_OPTS_URI, TOOL_POSA(DATA_NBYTES), TOOL_ASYNC_OPTS},
	},
	{
		.name = "dump-sync",
		.descr_short = "Write generated data to a file, synchronously",
		.descr_long = "Writes --data-nbytes bytes of generated data (byte k is "
			      "'A' + k % 26) to data-output, --iosize bytes (default 131072) per "
			      "command. A regular file is written as a new file that replaces it "
			      "(or becomes it) only when every byte is written and synced; a size "
			      "its file system (or the capacity of a device) cannot hold, or an "
			      "alignment --direct cannot take, is refused before anything is "
			      "written",
		.command = sub_dump,
		.opts = {OPTS_DUMP, TOOL_ASYNC_OPTS},
	},
	{
		.name = "dump-sync-iovec",
		.descr_short = "As dump-sync, with vectored commands",
		.descr_long = "As dump-sync, each command scattering its --iosize bytes over "
			      "--vec-cnt (default 4) vector elements",
		.command = sub_dump,
		.opts = {OPTS_DUMP, TOOL_LOPT(VEC_CNT), TOOL_ASYNC_OPTS},
	},
	{
		.name = "dump-async",
		.descr_short = "Write generated data to a file through a queue",
		.descr_long = "As dump-sync, with up to --qdepth (default 16) commands in flight",
		.command = sub_dump,
		.opts = {OPTS_DUMP, TOOL_LOPT(QDEPTH), TOOL_ASYNC_OPTS},
	},
	{
		.name = "dump-async-iovec",
		.descr_short = "As dump-async, with vectored commands",
		.descr_long = "As dump-async, each command scattering its --iosize bytes over "
			      "--vec-cnt (default 4) vector elements",
		.command = sub_dump,
		.opts = {OPTS_DUMP, TOOL_LOPT(QDEPTH), TOOL_LOPT(VEC_CNT), TOOL_ASYNC_OPTS},
	},
	{
		.name = "load-sync",
		.descr_short = "Read a whole file, synchronously",
		.descr_long = "Reads all of data-input (a regular file or a device: not a "
			      "FIFO), --iosize bytes (default 131072) per command, and reports the "
			      "throughput",
		.command = sub_load,
		.opts = {OPTS_LOAD, TOOL_ASYNC_OPTS},
	},
	{
		.name = "load-async",
		.descr_short = "Read a whole file through a queue",
		.descr_long = "As load-sync, with up to --qdepth (default 16) commands in flight",
		.command = sub_load,
		.opts = {OPTS_LOAD, TOOL_LOPT(QDEPTH), TOOL_ASYNC_OPTS},
	},
	{
		.name = "copy-sync",
		.descr_short = "Copy one file to another, synchronously",
		.descr_long = "Copies all of data-input to data-output, --iosize bytes (default "
			      "131072) per command. Both are regular files or devices (not FIFOs) "
			      "and must be different files (checked by device and inode, through "
			      "any link). A regular file is written as a new file that replaces "
			      "it (or becomes it) only when the copy is complete and synced; "
			      "sizes and --direct alignments are checked before anything is "
			      "written",
		.command = sub_copy,
		.opts = {OPTS_COPY, TOOL_ASYNC_OPTS},
	},
	{
		.name = "copy-async",
		.descr_short = "Copy one file to another through queues",
		.descr_long = "As copy-sync, with up to --qdepth (default 16) commands in flight "
			      "on each file",
		.command = sub_copy,
		.opts = {OPTS_COPY, TOOL_LOPT(QDEPTH), TOOL_ASYNC_OPTS},
	},
};

TOOL_MAIN(g_subs, XNVME_CLI_INIT_NONE, NULL, "xnvme_file", "Exercise the file API",
	  "Writes, reads, dumps, loads and copies files through the library's file "
	  "API with synchronous, queued and vectored commands")
