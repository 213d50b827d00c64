// SPDX-License-Identifier: BSD-3-Clause
/**
 * Byte-addressed transfers through the file API (xdd, xnvme_file), setting up: opening a file
 * or device with the backend options of the command line (an NVMe namespace reached through
 * the "nvme" passthrough mechanism is moved in whole LBAs; an output file is written as a new
 * file, tools_out.c), the transfer parameters, and the checks of room and alignment that run
 * before anything is written. The transfers themselves are in tools_xfer_rw.c.
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

/* The O_DIRECT alignment of what `x` writes to or reads from, when the OS says */
static void
xfer_dio_align(struct tool_xfer *x, const char *path)
{
	const struct xnvme_cli *cli = x->cli;

	x->direct = cli->given[XNVME_CLI_OPT_DIRECT] && cli->args.direct;
	if (x->direct && tool_plat_dio_align(path, &x->dio_mem, &x->dio_off)) {
		x->dio_mem = 0;
		x->dio_off = 0;
	}
}

/*
 * The output end of a transfer: a regular file (existing, or to be created) is written as a
 * new file that tool_run() puts in place when the subcommand succeeds; a device, or a URI the
 * library opens, in place. A file opened both ways (write-read's uri) is a device.
 */
static int
xfer_open_out(struct tool_xfer *x, int mode, struct xnvme_opts *opts)
{
	const struct xnvme_cli *cli = x->cli;
	const char *path = x->path;
	struct stat st;
	int err;

	if (stat(path, &st) && errno == ENOENT) {
		/*
		 * Nothing of that name: a URI the library opens (a ramdisk, a PCI address), or a
		 * file to create. With create set, the first backend handling paths would make a
		 * file of a device URI such as "1GB": try without first. ENOSYS too: a backend
		 * lacking a named mechanism outranks the file backend's ENOENT.
		 */
		x->dev = file_open_quiet(path, opts);
		if (x->dev) {
			x->out = tool_out_device(cli, x->opt, path, "bytes", false);
			return x->out ? 0 : -ENOMEM;
		}
		if (errno != ENOENT && errno != ENOSYS) {
			return tool_err(cli, -errno, "%s %s: cannot open for writing: %s",
					tool_opt_label(cli, x->opt), path, xnvme_last_error());
		}
	} else if (S_ISREG(st.st_mode) && (mode & TOOL_XFER_IN)) {
		/* read and written: the file is the device of the subcommand, used in place */
		x->out = tool_out_device(cli, x->opt, path, "bytes", false);
		if (!x->out) {
			return -ENOMEM;
		}
		x->dev = xnvme_file_open(path, opts);
		return x->dev ? 0
			      : tool_err(cli, -errno, "%s %s: cannot open for writing: %s",
					 tool_opt_label(cli, x->opt), path, xnvme_last_error());
	}

	x->out = tool_out_open(cli, x->opt, path, (mode & TOOL_XFER_TRUNC) ? 0 : TOOL_OUT_KEEP,
			       &err);
	if (!x->out) {
		return err;
	}
	x->dev = xnvme_file_open(tool_out_path(x->out), opts);
	if (!x->dev) {
		return tool_err(cli, -errno, "%s %s: cannot open %s for writing: %s",
				tool_opt_label(cli, x->opt), path, tool_out_path(x->out),
				xnvme_last_error());
	}
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
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		return tool_err(cli, -EISDIR, "%s %s: is a directory", tool_opt_label(cli, opt),
				path);
	}

	/* the file itself is never created nor truncated: a new file replaces it (tools_out.c) */
	opts = xfer_opts(cli, mode, false);
	opts.truncate = 0;
	if (mode & TOOL_XFER_OUT) {
		err = xfer_open_out(x, mode, &opts);
		if (err) {
			tool_xfer_close(x);
			return err;
		}
	} else {
		x->dev = xnvme_file_open(path, &opts);
		if (!x->dev) {
			return tool_err(cli, -errno, "%s %s: cannot open: %s",
					tool_opt_label(cli, opt), path, xnvme_last_error());
		}
	}
	{
		const struct xnvme_ident *ident = xnvme_dev_get_ident(x->dev);

		x->is_file = ident && ident->dtype == TOOL_DTYPE_FILE;
	}
	xfer_dio_align(x, x->out ? tool_out_path(x->out) : path);

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

int
tool_xfer_check_room(const struct tool_xfer *x, enum xnvme_cli_opt nopt, uint64_t nbytes,
		     uint64_t end)
{
	const struct xnvme_cli *cli = x->cli;
	uint64_t size;

	if (x->is_file) {
		/* a new file is written beside the target: that one exists, on the same file system */
		return tool_check_file_room_at(cli, nopt, nbytes, end, x->opt, x->path,
					       x->out ? tool_out_path(x->out) : x->path);
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

/* Whether a command of `n` bytes spread over `vec_cnt` elements (iov_split()) keeps `align` */
static bool
vec_aligned(uint64_t n, uint32_t vec_cnt, uint64_t align)
{
	uint64_t cnt = vec_cnt < n ? vec_cnt : n;

	return !vec_cnt || !n || !((n / cnt) % align);
}

int
tool_xfer_check_range(const struct tool_xfer *x, enum xnvme_cli_opt nopt, uint64_t offset,
		      uint64_t nbytes)
{
	const struct xnvme_cli *cli = x->cli;
	char what[128];
	uint64_t align;

	if (x->lba_nbytes && (offset % x->lba_nbytes || nbytes % x->lba_nbytes)) {
		return tool_err(cli, -EINVAL,
				"%s %s: an NVMe namespace, read and written in whole %u-byte "
				"LBAs: offset %" PRIu64 " and %" PRIu64 " bytes (%s) are not; "
				"nothing was written",
				tool_opt_label(cli, x->opt), x->path, x->lba_nbytes, offset, nbytes,
				tool_opt_label(cli, nopt));
	}
	if (!x->direct || !x->dio_off) {
		return 0;
	}
	align = x->dio_off;
	if (x->iosize % align) {
		snprintf(what, sizeof(what), "the transfer size (--iosize %zu)", x->iosize);
	} else if (offset % align) {
		snprintf(what, sizeof(what), "the offset (--offset %" PRIu64 ")", offset);
	} else if (nbytes % align) {
		snprintf(what, sizeof(what), "the size (%s: %" PRIu64 " bytes)",
			 tool_opt_label(cli, nopt), nbytes);
	} else if (!vec_aligned(x->iosize, x->vec_cnt, align) ||
		   !vec_aligned(nbytes % x->iosize, x->vec_cnt, align)) {
		snprintf(what, sizeof(what), "each vector element (--iosize %zu / --vec-cnt %u)",
			 x->iosize, x->vec_cnt);
	} else {
		return 0;
	}
	return tool_err(cli, -EINVAL,
			"%s %s: with --direct, %s must be a multiple of %" PRIu64
			" bytes, the direct I/O alignment there; nothing was written",
			tool_opt_label(cli, x->opt), x->path, what, align);
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
