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

/* How a subcommand issues its commands */
enum file_mode {
	FILE_SYNC = 0x0,
	FILE_QUEUED = 0x1,
	FILE_VECTORED = 0x2,
};

static int
params(struct xnvme_cli *cli, int mode, size_t *iosize, uint32_t *qdepth, uint32_t *vec_cnt)
{
	return tool_xfer_params(cli, mode & FILE_QUEUED, mode & FILE_VECTORED, iosize, qdepth,
				vec_cnt);
}

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
		err = tool_err(cli, -EIO, "%s: %zu of %zu bytes read back differ from those "
			       "written", args->uri, ndiff, nbytes);
	}

exit:
	xnvme_buf_free(x.dev, rbuf);
	xnvme_buf_free(x.dev, wbuf);
	tool_xfer_close(&x);
	return err;
}

static int
dump(struct xnvme_cli *cli, int mode)
{
	struct xnvme_cli_args *args = &cli->args;
	uint64_t nbytes = args->data_nbytes, done = 0;
	struct tool_progress prog;
	struct tool_xfer out;
	uint32_t qdepth, vec_cnt;
	size_t iosize, win;
	void *buf;
	int err;

	err = params(cli, mode, &iosize, &qdepth, &vec_cnt);
	err = err ? err : tool_check_range(cli, XNVME_CLI_OPT_DATA_NBYTES, nbytes, 1, SIZE_MAX);
	if (err) {
		return err;
	}
	err = tool_xfer_open(&out, cli, XNVME_CLI_OPT_DATA_OUTPUT, args->data_output,
			     TOOL_XFER_OUT | TOOL_XFER_TRUNC, iosize, qdepth, vec_cnt);
	if (err) {
		return err;
	}
	win = XNVME_MIN_U64(tool_xfer_window(&out), nbytes);
	buf = xnvme_buf_alloc(out.dev, win);
	if (!buf) {
		err = tool_err(cli, -ENOMEM, "cannot allocate a %zu byte buffer", win);
		goto exit;
	}

	announce("dumping", nbytes, iosize, qdepth, vec_cnt);
	tool_progress_start(&prog, cli, nbytes);
	out.prog = &prog;
	xnvme_cli_timer_start(cli);
	while (done < nbytes) {
		size_t n = XNVME_MIN_U64(win, nbytes - done);

		tool_pattern_fill(buf, n, done);
		out.prog_base = done;
		err = tool_xfer_rw(&out, true, buf, n, done);
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
	xnvme_buf_free(out.dev, buf);

exit:
	tool_xfer_close(&out);
	return err;
}

static int
load(struct xnvme_cli *cli, int mode)
{
	struct xnvme_cli_args *args = &cli->args;
	struct tool_progress prog;
	struct tool_xfer in;
	uint64_t nbytes, done = 0;
	uint32_t qdepth, vec_cnt;
	size_t iosize, win;
	void *buf = NULL;
	int err;

	err = params(cli, mode, &iosize, &qdepth, &vec_cnt);
	if (err) {
		return err;
	}
	err = tool_xfer_open(&in, cli, XNVME_CLI_OPT_DATA_INPUT, args->data_input, TOOL_XFER_IN,
			     iosize, qdepth, vec_cnt);
	if (err) {
		return err;
	}
	nbytes = tool_xfer_size(&in);
	win = XNVME_MIN_U64(tool_xfer_window(&in), nbytes);
	if (win) {
		buf = xnvme_buf_alloc(in.dev, win);
		if (!buf) {
			err = tool_err(cli, -ENOMEM, "cannot allocate a %zu byte buffer", win);
			goto exit;
		}
	}

	announce("loading", nbytes, iosize, qdepth, vec_cnt);
	tool_progress_start(&prog, cli, nbytes);
	in.prog = &prog;
	xnvme_cli_timer_start(cli);
	while (done < nbytes) {
		size_t n = XNVME_MIN_U64(win, nbytes - done);

		in.prog_base = done;
		err = tool_xfer_rw(&in, false, buf, n, done);
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

exit:
	xnvme_buf_free(in.dev, buf);
	tool_xfer_close(&in);
	return err;
}

static int
copy(struct xnvme_cli *cli, int mode)
{
	struct xnvme_cli_args *args = &cli->args;
	struct tool_xfer in, out;
	uint32_t qdepth, vec_cnt;
	uint64_t nbytes;
	size_t iosize;
	int err;

	err = params(cli, mode, &iosize, &qdepth, &vec_cnt);
	if (err) {
		return err;
	}
	err = tool_xfer_open(&in, cli, XNVME_CLI_OPT_DATA_INPUT, args->data_input, TOOL_XFER_IN,
			     iosize, qdepth, vec_cnt);
	if (err) {
		return err;
	}
	err = tool_xfer_open(&out, cli, XNVME_CLI_OPT_DATA_OUTPUT, args->data_output,
			     TOOL_XFER_OUT | TOOL_XFER_TRUNC, iosize, qdepth, vec_cnt);
	if (err) {
		tool_xfer_close(&in);
		return err;
	}
	nbytes = tool_xfer_size(&in);

	announce("copying", nbytes, iosize, qdepth, vec_cnt);
	xnvme_cli_timer_start(cli);
	err = tool_xfer_copy(&in, &out, nbytes, 0, 0);
	xnvme_cli_timer_stop(cli);
	if (!err) {
		xnvme_cli_timer_bw_pr(cli, "wall-clock", nbytes);
	}

	tool_xfer_close(&out);
	tool_xfer_close(&in);
	return err;
}

static int
sub_dump_sync(struct xnvme_cli *cli)
{
	return dump(cli, FILE_SYNC);
}

static int
sub_dump_sync_iovec(struct xnvme_cli *cli)
{
	return dump(cli, FILE_SYNC | FILE_VECTORED);
}

static int
sub_dump_async(struct xnvme_cli *cli)
{
	return dump(cli, FILE_QUEUED);
}

static int
sub_dump_async_iovec(struct xnvme_cli *cli)
{
	return dump(cli, FILE_QUEUED | FILE_VECTORED);
}

static int
sub_load_sync(struct xnvme_cli *cli)
{
	return load(cli, FILE_SYNC);
}

static int
sub_load_async(struct xnvme_cli *cli)
{
	return load(cli, FILE_QUEUED);
}

static int
sub_copy_sync(struct xnvme_cli *cli)
{
	return copy(cli, FILE_SYNC);
}

static int
sub_copy_async(struct xnvme_cli *cli)
{
	return copy(cli, FILE_QUEUED);
}

#define OPTS_DUMP                                       \
	{XNVME_CLI_OPT_POSA_TITLE, XNVME_CLI_SKIP},     \
	{XNVME_CLI_OPT_DATA_OUTPUT, XNVME_CLI_POSA},    \
	{XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP}, \
	{XNVME_CLI_OPT_DATA_NBYTES, XNVME_CLI_LREQ},    \
	{XNVME_CLI_OPT_IOSIZE, XNVME_CLI_LOPT},         \
	{XNVME_CLI_OPT_DIRECT, XNVME_CLI_LFLG}

#define OPTS_LOAD                                       \
	{XNVME_CLI_OPT_POSA_TITLE, XNVME_CLI_SKIP},     \
	{XNVME_CLI_OPT_DATA_INPUT, XNVME_CLI_POSA},     \
	{XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP}, \
	{XNVME_CLI_OPT_IOSIZE, XNVME_CLI_LOPT},         \
	{XNVME_CLI_OPT_DIRECT, XNVME_CLI_LFLG}

#define OPTS_COPY                                       \
	{XNVME_CLI_OPT_POSA_TITLE, XNVME_CLI_SKIP},     \
	{XNVME_CLI_OPT_DATA_INPUT, XNVME_CLI_POSA},     \
	{XNVME_CLI_OPT_DATA_OUTPUT, XNVME_CLI_POSA},    \
	{XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP}, \
	{XNVME_CLI_OPT_IOSIZE, XNVME_CLI_LOPT},         \
	{XNVME_CLI_OPT_DIRECT, XNVME_CLI_LFLG}

static struct xnvme_cli_sub g_subs[] = {
	{
		.name = "write-read",
		.descr_short = "Write then read back data-nbytes bytes of a file or device",
		.descr_long = "Writes data-nbytes bytes of generated data at offset 0 of uri (a "
			      "file, created when missing, or a device), reads them back and "
			      "compares; fails when any byte differs",
		.command = sub_write_read,
		.opts = {
			{XNVME_CLI_OPT_POSA_TITLE, XNVME_CLI_SKIP},
			{XNVME_CLI_OPT_URI, XNVME_CLI_POSA},
			{XNVME_CLI_OPT_DATA_NBYTES, XNVME_CLI_POSA},
		},
	},
	{
		.name = "dump-sync",
		.descr_short = "Write generated data to a file, synchronously",
		.descr_long = "Writes --data-nbytes bytes of generated data (byte k is "
			      "'A' + k % 26) to data-output, created or truncated, --iosize bytes "
			      "(default 131072) per command",
		.command = sub_dump_sync,
		.opts = {OPTS_DUMP},
	},
	{
		.name = "dump-sync-iovec",
		.descr_short = "As dump-sync, with vectored commands",
		.descr_long = "As dump-sync, each command scattering its --iosize bytes over "
			      "--vec-cnt (default 4) vector elements",
		.command = sub_dump_sync_iovec,
		.opts = {
			OPTS_DUMP,
			{XNVME_CLI_OPT_SYNC, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_BE, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_VEC_CNT, XNVME_CLI_LOPT},
		},
	},
	{
		.name = "dump-async",
		.descr_short = "Write generated data to a file through a queue",
		.descr_long = "As dump-sync, with up to --qdepth (default 16) commands in flight",
		.command = sub_dump_async,
		.opts = {
			OPTS_DUMP,
			{XNVME_CLI_OPT_QDEPTH, XNVME_CLI_LOPT},
		},
	},
	{
		.name = "dump-async-iovec",
		.descr_short = "As dump-async, with vectored commands",
		.descr_long = "As dump-async, each command scattering its --iosize bytes over "
			      "--vec-cnt (default 4) vector elements",
		.command = sub_dump_async_iovec,
		.opts = {
			OPTS_DUMP,
			{XNVME_CLI_OPT_QDEPTH, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_ASYNC, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_BE, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_VEC_CNT, XNVME_CLI_LOPT},
		},
	},
	{
		.name = "load-sync",
		.descr_short = "Read a whole file, synchronously",
		.descr_long = "Reads all of data-input, --iosize bytes (default 131072) per "
			      "command, and reports the throughput",
		.command = sub_load_sync,
		.opts = {OPTS_LOAD},
	},
	{
		.name = "load-async",
		.descr_short = "Read a whole file through a queue",
		.descr_long = "As load-sync, with up to --qdepth (default 16) commands in flight",
		.command = sub_load_async,
		.opts = {
			OPTS_LOAD,
			{XNVME_CLI_OPT_QDEPTH, XNVME_CLI_LOPT},
		},
	},
	{
		.name = "copy-sync",
		.descr_short = "Copy one file to another, synchronously",
		.descr_long = "Copies all of data-input to data-output (created or truncated), "
			      "--iosize bytes (default 131072) per command",
		.command = sub_copy_sync,
		.opts = {OPTS_COPY},
	},
	{
		.name = "copy-async",
		.descr_short = "Copy one file to another through queues",
		.descr_long = "As copy-sync, with up to --qdepth (default 16) commands in flight "
			      "on each file",
		.command = sub_copy_async,
		.opts = {
			OPTS_COPY,
			{XNVME_CLI_OPT_QDEPTH, XNVME_CLI_LOPT},
		},
	},
};

static struct xnvme_cli g_cli = {
	.title = "xnvme_file",
	.descr_short = "Exercise the file API",
	.descr_long = "Writes, reads, dumps, loads and copies files through the library's file "
		      "API with synchronous, queued and vectored commands",
	.nsubs = sizeof(g_subs) / sizeof(g_subs[0]),
	.subs = g_subs,
};

int
main(int argc, char **argv)
{
	return xnvme_cli_run(&g_cli, argc, argv, XNVME_CLI_INIT_NONE);
}
