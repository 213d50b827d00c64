// SPDX-License-Identifier: BSD-3-Clause
/**
 * Byte-addressed transfers through the file API (xdd, xnvme_file), setting up: opening a file
 * or device with the backend options of the command line (an NVMe namespace reached through
 * the "nvme" passthrough mechanism is moved in whole LBAs), the transfer parameters, room
 * checks, closing and removing a created output on failure. The transfers themselves are in
 * tools_xfer_rw.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libxnvme.h>
#include "tools_common.h"
#include "tools_plat.h"
#include "tools_lblk.h"

static const char *
file_kind(mode_t mode)
{
	if (S_ISFIFO(mode)) {
		return "a FIFO";
	}
	if (S_ISSOCK(mode)) {
		return "a socket";
	}
	if (S_ISCHR(mode)) {
		return "a character device";
	}
	if (S_ISDIR(mode)) {
		return "a directory";
	}
	if (S_ISBLK(mode)) {
		return "a block device";
	}
	return "a regular file";
}

/* The options of the command line with the open flags of `mode` */
static struct xnvme_opts
xfer_opts(const struct xnvme_cli *cli, int mode, bool create)
{
	struct xnvme_opts opts = xnvme_opts_default();

	xnvme_cli_to_opts(cli, &opts);
	opts.rdonly = !(mode & TOOL_XFER_OUT);
	opts.wronly = (mode & TOOL_XFER_OUT) && !(mode & TOOL_XFER_IN);
	opts.rdwr = (mode & TOOL_XFER_OUT) && (mode & TOOL_XFER_IN);
	opts.create = create;
	opts.truncate = (mode & TOOL_XFER_OUT) && (mode & TOOL_XFER_TRUNC);
	return opts;
}

/* xnvme_file_open() without the library's note on stderr about a failed open */
static struct xnvme_dev *
file_open_quiet(const char *path, struct xnvme_opts *opts)
{
	struct xnvme_dev *dev;
	int saved, null, err;

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open(TOOL_DEVNULL, O_WRONLY | TOOL_O_CLOEXEC);
	if (saved < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0) {
		if (saved >= 0) {
			close(saved);
		}
		if (null >= 0) {
			close(null);
		}
		return xnvme_file_open(path, opts);
	}
	dev = xnvme_file_open(path, opts);
	err = errno;
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(null);
	errno = err;
	return dev;
}

/* NVMe passthrough carries no file command set: such a namespace is addressed in LBAs */
static int
xfer_lba_mode(struct tool_xfer *x)
{
	const struct xnvme_opts *opts = xnvme_dev_get_opts(x->dev);
	const struct xnvme_geo *geo;
	uint64_t max;

	if (!opts || !opts->sync || strcmp(opts->sync, "nvme")) {
		return 0;
	}
	geo = xnvme_dev_get_geo(x->dev);
	if (!geo || !geo->lba_nbytes) {
		return tool_err(x->cli, -EINVAL, "%s %s: no namespace geometry",
				tool_opt_label(x->cli, x->opt), x->path);
	}
	/* the most LBAs one command carries: the NLB field and the device's MDTS */
	max = tool_lblk_cmd_nlbas(x->dev, geo, TOOL_LBLK_WRITE);
	if (x->iosize % geo->lba_nbytes || x->iosize / geo->lba_nbytes > max) {
		return tool_err(
			x->cli, -EINVAL,
			"%s %zu: %s is an NVMe namespace of %u-byte LBAs: the transfer size "
			"must be a multiple of that, at most %" PRIu64 " LBAs",
			tool_opt_label(x->cli, XNVME_CLI_OPT_IOSIZE), x->iosize, x->path,
			geo->lba_nbytes, max);
	}
	x->lba_nbytes = geo->lba_nbytes;
	return 0;
}

int
tool_xfer_open(struct tool_xfer *x, const struct xnvme_cli *cli, enum xnvme_cli_opt opt,
	       const char *path, int mode, size_t iosize, uint32_t qdepth, uint32_t vec_cnt)
{
	struct xnvme_opts opts;
	struct stat st;
	int err;

	memset(x, 0, sizeof(*x));
	x->cli = cli;
	x->opt = opt;
	x->path = path;
	x->iosize = iosize;
	x->vec_cnt = vec_cnt;

	if (!path || !path[0]) {
		return tool_err(cli, -EINVAL, "%s: empty path", tool_opt_label(cli, opt));
	}
	/* Commands address byte offsets: a stream has none, and opening one may block */
	if (!stat(path, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
		return tool_err(cli, -EINVAL,
				"%s %s: is %s: a regular file or a device is needed, as data is "
				"moved at byte offsets",
				tool_opt_label(cli, opt), path, file_kind(st.st_mode));
	}

	/*
	 * An output is created only when nothing answers to its name: with create set, the first
	 * backend handling paths would make a file of a device URI such as "1GB".
	 */
	opts = xfer_opts(cli, mode, false);
	if ((mode & TOOL_XFER_OUT) && stat(path, &st) && errno == ENOENT) {
		x->dev = file_open_quiet(path, &opts);
		/*
		 * ENOSYS too: a backend lacking a named mechanism (the ramdisk has no io_uring or
		 * iocp) outranks the file backend's ENOENT; with create, a backend that has the
		 * mechanism makes the file, and no backend creates one it cannot serve.
		 */
		if (!x->dev && (errno == ENOENT || errno == ENOSYS)) {
			opts = xfer_opts(cli, mode, true);
			x->dev = xnvme_file_open(path, &opts);
			x->created = x->dev != NULL;
		}
	} else {
		x->dev = xnvme_file_open(path, &opts);
	}
	if (!x->dev) {
		return tool_err(cli, -errno, "%s %s: cannot open%s: %s", tool_opt_label(cli, opt),
				path, (mode & TOOL_XFER_OUT) ? " for writing" : "",
				xnvme_last_error());
	}
	{
		const struct xnvme_ident *ident = xnvme_dev_get_ident(x->dev);

		x->is_file = ident && ident->dtype == TOOL_DTYPE_FILE;
		x->truncated = x->is_file && !x->created && (mode & TOOL_XFER_OUT) &&
			       (mode & TOOL_XFER_TRUNC);
	}

	err = xfer_lba_mode(x);
	if (err) {
		tool_xfer_close(x);
		return err;
	}
	if (qdepth) {
		err = xnvme_queue_init(x->dev, (uint16_t)qdepth, 0, &x->queue);
		if (err) {
			x->queue = NULL;
			tool_xfer_close(x);
			return tool_err(cli, err, "%s %s: cannot create a queue of depth %u: %s",
					tool_opt_label(cli, opt), path, qdepth, xnvme_last_error());
		}
	}
	return 0;
}

int
tool_xfer_params(const struct xnvme_cli *cli, size_t *iosize, uint32_t *qdepth, uint32_t *vec_cnt)
{
	const struct xnvme_cli_args *args = &cli->args;
	bool queued = tool_sub_has_opt(cli, XNVME_CLI_OPT_QDEPTH);
	bool vectored = tool_sub_has_opt(cli, XNVME_CLI_OPT_VEC_CNT);
	int err;

	*iosize = cli->given[XNVME_CLI_OPT_IOSIZE] ? args->iosize : TOOL_IOSIZE_DEF;
	*qdepth = 0;
	*vec_cnt = 0;

	err = tool_check_range(cli, XNVME_CLI_OPT_IOSIZE, *iosize, 1, UINT32_MAX);
	if (err) {
		return err;
	}
	if (queued) {
		*qdepth = cli->given[XNVME_CLI_OPT_QDEPTH] ? args->qdepth : TOOL_QDEPTH_DEF;
		err = tool_check_range(cli, XNVME_CLI_OPT_QDEPTH, *qdepth, 1, TOOL_QDEPTH_MAX);
		if (err) {
			return err;
		}
	}
	if (vectored) {
		*vec_cnt = cli->given[XNVME_CLI_OPT_VEC_CNT] ? args->vec_cnt : TOOL_VEC_CNT_DEF;
		err = tool_check_range(cli, XNVME_CLI_OPT_VEC_CNT, *vec_cnt, 1, TOOL_VEC_CNT_MAX);
		if (err) {
			return err;
		}
	}
	return 0;
}

void
tool_xfer_close(struct tool_xfer *x)
{
	if (x->queue) {
		xnvme_queue_term(x->queue);
		x->queue = NULL;
	}
	if (x->dev) {
		xnvme_file_close(x->dev);
		x->dev = NULL;
	}
}

void
tool_xfer_abort(struct tool_xfer *x)
{
	bool created = x->created, truncated = x->truncated;

	tool_xfer_close(x);
	if (created) {
		if (unlink(x->path) && errno != ENOENT) {
			tool_err(x->cli, -errno, "%s %s: cannot remove the incomplete output",
				 tool_opt_label(x->cli, x->opt), x->path);
		}
		x->created = false;
		return;
	}
	if (truncated) {
		tool_err(
			x->cli, -EIO,
			"%s %s: the file existed before and was truncated: it holds only the %" PRIu64
			" bytes written before the failure",
			tool_opt_label(x->cli, x->opt), x->path, x->nwritten);
	} else if (x->nwritten) {
		tool_err(x->cli, -EIO,
			 "%s %s: %" PRIu64 " bytes were written before the failure: the output is "
			 "incomplete",
			 tool_opt_label(x->cli, x->opt), x->path, x->nwritten);
	}
}

int
tool_xfer_check_room(const struct tool_xfer *x, enum xnvme_cli_opt nopt, uint64_t nbytes,
		     uint64_t end)
{
	const struct xnvme_cli *cli = x->cli;
	uint64_t size;

	if (x->is_file) {
		return tool_check_file_room(cli, nopt, nbytes, end, x->opt, x->path);
	}
	size = tool_xfer_size(x);
	if (end > size) {
		return tool_err(cli, -EFBIG,
				"%s %" PRIu64 ": %s %s holds %" PRIu64
				" bytes, the transfer would end at byte %" PRIu64,
				tool_opt_label(cli, nopt), nbytes, tool_opt_label(cli, x->opt),
				x->path, size, end);
	}
	return 0;
}

uint64_t
tool_xfer_size(const struct tool_xfer *x)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(x->dev);

	return geo ? geo->tbytes : 0;
}

size_t
tool_xfer_window(const struct tool_xfer *x)
{
	return x->iosize * (x->queue ? xnvme_queue_get_capacity(x->queue) : 1);
}
