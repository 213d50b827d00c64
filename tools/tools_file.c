// SPDX-License-Identifier: BSD-3-Clause
/**
 * Data files (--data-input, --data-output and friends): opening inputs and outputs without
 * blocking on FIFOs (outputs through tools_out.c: a regular file is replaced only when the
 * subcommand succeeds), exact reads and writes polling streams and stopping at a signal,
 * whole-file load and save; the tools' generated data pattern and the YAML hex dump.
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

static void
file_setup(struct tool_file *f, const struct xnvme_cli *cli, enum xnvme_cli_opt opt,
	   const char *path)
{
	f->cli = cli;
	f->opt = opt;
	f->path = path;
	f->fd = -1;
	f->nbytes = 0;
	f->out = NULL;
	f->stream = false;
	f->regular = false;
}

/* Notes the kind of the open file; streams stay non-blocking (file_io() polls them) */
static int
file_classify(struct tool_file *f, struct stat *st)
{
	if (fstat(f->fd, st)) {
		return -errno;
	}
	f->regular = S_ISREG(st->st_mode);
	f->stream = S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode) || S_ISCHR(st->st_mode);
	return f->stream ? 0 : tool_plat_fd_blocking(f->fd);
}

int
tool_file_open_in(struct tool_file *f, const struct xnvme_cli *cli, enum xnvme_cli_opt opt,
		  const char *path, uint64_t need)
{
	struct stat st;
	int err;

	file_setup(f, cli, opt, path);
	if (!path || !path[0]) {
		return tool_err(cli, -EINVAL, "%s: empty path", tool_opt_label(cli, opt));
	}

	/* Non-blocking: opening a FIFO for reading would otherwise wait for a writer forever */
	f->fd = open(path, O_RDONLY | TOOL_O_NONBLOCK | TOOL_O_CLOEXEC);
	if (f->fd < 0) {
		return tool_err(cli, -errno, "%s %s: cannot open for reading",
				tool_opt_label(cli, opt), path);
	}
	err = file_classify(f, &st);
	if (err) {
		tool_file_close(f);
		return tool_err(cli, err, "%s %s: cannot stat", tool_opt_label(cli, opt), path);
	}
	if (S_ISDIR(st.st_mode)) {
		tool_file_close(f);
		return tool_err(cli, -EISDIR, "%s %s: is a directory", tool_opt_label(cli, opt),
				path);
	}
	/* Pipes and devices have no meaningful size; tool_file_read() catches their end */
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < need) {
		tool_file_close(f);
		return tool_err(cli, -EINVAL,
				"%s %s: file holds %jd bytes, %" PRIu64 " bytes needed",
				tool_opt_label(cli, opt), path, (intmax_t)st.st_size, need);
	}
	return 0;
}

int
tool_file_open_out(struct tool_file *f, const struct xnvme_cli *cli, enum xnvme_cli_opt opt,
		   const char *path)
{
	struct stat st;
	int err;

	file_setup(f, cli, opt, path);
	/* a regular file is written as a new file, put in place when the subcommand succeeded */
	f->out = tool_out_open(cli, opt, path, 0, &err);
	if (!f->out) {
		return err;
	}
	/* Non-blocking: a FIFO without a reader fails with ENXIO instead of waiting */
	f->fd = open(tool_out_path(f->out), O_WRONLY | TOOL_O_NONBLOCK | TOOL_O_CLOEXEC);
	if (f->fd < 0 && errno == ENXIO) {
		return tool_err(cli, -ENXIO, "%s %s: a FIFO without a reader: cannot write",
				tool_opt_label(cli, opt), path);
	}
	if (f->fd < 0) {
		return tool_err(cli, -errno, "%s %s: cannot open for writing",
				tool_opt_label(cli, opt), path);
	}
	err = file_classify(f, &st);
	if (err) {
		tool_file_abort(f);
		return tool_err(cli, err, "%s %s: cannot open for writing",
				tool_opt_label(cli, opt), path);
	}
	return 0;
}

/* Reads (`out` false) or writes exactly `nbytes`; running out of input is an error */
static int
file_io(struct tool_file *f, bool out, uint8_t *buf, size_t nbytes)
{
	size_t left = nbytes;

	while (left) {
		ssize_t ret = out ? write(f->fd, buf, left) : read(f->fd, buf, left);

		if (ret < 0 && errno == EINTR) {
			/* a signal: stop here if it asks the run to stop */
			int err = tool_sig_check(f->cli);

			if (err) {
				return err;
			}
			continue;
		}
		if (ret < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && f->stream) {
			int err = tool_plat_fd_wait(f->fd, out);

			err = err ? err : tool_sig_check(f->cli);
			if (err == -EINTR) {
				return err;
			}
			if (err) {
				return tool_err(f->cli, err, "%s %s: poll failed",
						tool_opt_label(f->cli, f->opt), f->path);
			}
			continue;
		}
		if (ret < 0) {
			return tool_err(f->cli, -errno, "%s %s: %s failed",
					tool_opt_label(f->cli, f->opt), f->path,
					out ? "write" : "read");
		}
		if (ret == 0 && out) { /* no progress: never loop on it */
			return tool_err(f->cli, -EIO, "%s %s: write made no progress",
					tool_opt_label(f->cli, f->opt), f->path);
		}
		if (ret == 0) {
			return tool_err(
				f->cli, -EINVAL,
				"%s %s: ended after %" PRIu64 " bytes, %" PRIu64 " bytes needed%s",
				tool_opt_label(f->cli, f->opt), f->path, f->nbytes,
				f->nbytes + left,
				(f->stream && !f->nbytes)
					? " (a FIFO or device with nothing to read: no writer?)"
					: "");
		}
		if (out) {
			tool_out_wrote(f->out, f->nbytes, (uint64_t)ret);
		}
		buf += ret;
		left -= ret;
		f->nbytes += ret;
	}
	return 0;
}

int
tool_file_read(struct tool_file *f, void *buf, size_t nbytes)
{
	return file_io(f, false, buf, nbytes);
}

int
tool_file_write(struct tool_file *f, const void *buf, size_t nbytes)
{
	/* not written to: file_io() only reads into buffers when `out` is false */
	return file_io(f, true, (uint8_t *)buf, nbytes);
}

int
tool_file_close(struct tool_file *f)
{
	int err = 0;

	if (f->fd < 0) {
		return 0;
	}
	if (close(f->fd)) {
		err = tool_err(f->cli, -errno, "%s %s: close failed",
			       tool_opt_label(f->cli, f->opt), f->path);
	}
	f->fd = -1;
	return err;
}

void
tool_file_abort(struct tool_file *f)
{
	/* the output itself is removed or left as it was when the subcommand ends (tool_run()) */
	if (f->fd >= 0) {
		close(f->fd);
		f->fd = -1;
	}
}

int
tool_data_load(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path, void *buf,
	       size_t nbytes)
{
	struct tool_file f = TOOL_FILE_INIT;
	int err;

	err = tool_file_open_in(&f, cli, opt, path, nbytes);
	if (err) {
		return err;
	}
	err = tool_file_read(&f, buf, nbytes);
	tool_file_close(&f);
	return err;
}

int
tool_data_save(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path,
	       const void *buf, size_t nbytes)
{
	struct tool_file f = TOOL_FILE_INIT;
	int err, err_close;

	err = tool_file_open_out(&f, cli, opt, path);
	if (err) {
		return err;
	}
	err = tool_file_write(&f, buf, nbytes);
	if (err) {
		tool_file_abort(&f);
		return err;
	}
	err_close = tool_file_close(&f);
	return err_close;
}

int
tool_data_output(const struct xnvme_cli *cli, const void *buf, size_t nbytes)
{
	int err;

	if (!cli->args.data_output) {
		return 0;
	}
	err = tool_data_save(cli, XNVME_CLI_OPT_DATA_OUTPUT, cli->args.data_output, buf, nbytes);
	if (!err) {
		xnvme_cli_pinf("wrote %zu bytes to '%s'", nbytes, cli->args.data_output);
	}
	return err;
}

void
tool_pattern_fill(void *buf, size_t nbytes, uint64_t pos)
{
	uint8_t *cur = buf;
	unsigned int k = pos % 26;
	size_t seed = XNVME_MIN_U64(nbytes, 26 * 64);

	for (size_t i = 0; i < seed; ++i) {
		cur[i] = 'A' + k;
		k = (k == 25) ? 0 : k + 1;
	}
	/* The pattern repeats every 26 bytes: keep doubling a prefix whose length is a multiple */
	for (size_t len = seed; len < nbytes; len *= 2) {
		memcpy(cur + len, cur, XNVME_MIN_U64(len, nbytes - len));
	}
}

void
tool_hexdump_pr(const char *key, const void *buf, size_t nbytes)
{
	const uint8_t *bytes = buf;

	if (!nbytes) {
		printf("%s: []\n", key);
		return;
	}
	printf("%s:\n", key);
	for (size_t row = 0; row < nbytes; row += 16) {
		printf("  - [");
		for (size_t i = row; i < nbytes && i < row + 16; ++i) {
			printf("%s0x%02x", i == row ? "" : ", ", bytes[i]);
		}
		printf("]\n");
	}
}
