// SPDX-License-Identifier: BSD-3-Clause
/**
 * What the file arguments of a subcommand may be: tool_check_files() refusing two arguments
 * that name the same file when one is written, and the size limits of a regular file (largest
 * file size, room on its file system) for tool_check_file_room().
 */
#include <errno.h>
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

/* A file argument of the running subcommand, identified for tool_check_files() */
struct file_arg {
	enum xnvme_cli_opt opt;
	const char *path;
	bool written;
	bool exists; ///< a regular file or block device: `dev`, `ino` (and `rdev`) identify it
	bool is_blk;
	bool absent; ///< an output not existing yet: `dir_dev`, `dir_ino` and `base` name it
	uint64_t dev;
	uint64_t ino;
	uint64_t rdev;
	uint64_t dir_dev;
	uint64_t dir_ino;
	const char *base;
};

static void
file_arg_identify(struct file_arg *a)
{
	char dir[4096];
	const char *slash;
	struct tool_file_id id;
	size_t len;
	int err;

	err = tool_plat_file_id(a->path, &id);
	if (!err) {
		a->exists = id.reg || id.blk;
		a->is_blk = id.blk;
		a->dev = id.dev;
		a->ino = id.ino;
		a->rdev = id.rdev;
		return;
	}
	/* A device URI is never created: only an output may be a file still to be made */
	if (err != -ENOENT || !a->written || a->opt == XNVME_CLI_OPT_URI) {
		return;
	}
	/* An output to be created: the directory entry it would be */
	slash = strrchr(a->path, '/');
	a->base = slash ? slash + 1 : a->path;
	len = slash ? (size_t)(slash - a->path) : 0;
	if (!a->base[0] || len >= sizeof(dir)) {
		return;
	}
	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
	} else if (!len) {
		snprintf(dir, sizeof(dir), "/");
	} else {
		memcpy(dir, a->path, len);
		dir[len] = '\0';
	}
	if (tool_plat_file_id(dir, &id) || !id.dir) {
		return;
	}
	a->absent = true;
	a->dir_dev = id.dev;
	a->dir_ino = id.ino;
}

static bool
file_arg_same(const struct file_arg *a, const struct file_arg *b)
{
	if (a->exists && b->exists) {
		if (a->is_blk && b->is_blk && a->rdev == b->rdev) {
			return true; /* two nodes of one block device */
		}
		return a->dev == b->dev && a->ino == b->ino;
	}
	return a->absent && b->absent && a->dir_dev == b->dir_dev && a->dir_ino == b->dir_ino &&
	       !strcmp(a->base, b->base);
}

int
tool_check_files(const struct xnvme_cli *cli)
{
	const struct xnvme_cli_args *args = &cli->args;
	const struct {
		enum xnvme_cli_opt opt;
		const char *path;
		bool written;
	} cand[] = {
		/* the device: read by some subcommands, written by others */
		{XNVME_CLI_OPT_URI, args->uri, true},
		{XNVME_CLI_OPT_DATA_INPUT, args->data_input, false},
		{XNVME_CLI_OPT_META_INPUT, args->meta_input, false},
		{XNVME_CLI_OPT_CMD_INPUT, args->cmd_input, false},
		{XNVME_CLI_OPT_DATA_OUTPUT, args->data_output, true},
		{XNVME_CLI_OPT_META_OUTPUT, args->meta_output, true},
		{XNVME_CLI_OPT_CMD_OUTPUT, args->cmd_output, true},
	};
	struct file_arg files[sizeof(cand) / sizeof(cand[0])];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); ++i) {
		if (!cand[i].path || !cand[i].path[0] || !tool_sub_has_opt(cli, cand[i].opt)) {
			continue;
		}
		memset(&files[n], 0, sizeof(files[n]));
		files[n].opt = cand[i].opt;
		files[n].path = cand[i].path;
		files[n].written = cand[i].written;
		file_arg_identify(&files[n]);
		n++;
	}

	for (size_t i = 0; i < n; ++i) {
		for (size_t j = i + 1; j < n; ++j) {
			const struct file_arg *a = &files[i], *b = &files[j];

			if ((!a->written && !b->written) || !file_arg_same(a, b)) {
				continue;
			}
			return tool_err(
				cli, -EINVAL, "%s %s and %s %s are the same file: %s",
				tool_opt_label(cli, a->opt), a->path, tool_opt_label(cli, b->opt),
				b->path,
				(a->written && b->written)
					? "refusing to have one overwrite the other"
					: "refusing to overwrite the input with the output");
		}
	}
	return 0;
}

/* The path itself when it exists, else its directory: where a new file would be */
static const char *
file_or_dir(const char *path, char *buf, size_t len)
{
	const char *slash;
	struct stat st;

	if (!stat(path, &st)) {
		return path;
	}
	slash = strrchr(path, '/');
	if (!slash) {
		return ".";
	}
	if (slash == path) {
		return "/";
	}
	if ((size_t)(slash - path) >= len) {
		return NULL;
	}
	memcpy(buf, path, slash - path);
	buf[slash - path] = '\0';
	return buf;
}

uint64_t
tool_file_size_max(const char *path)
{
	uint64_t max = INT64_MAX; /* off_t */
	const char *where;
	char buf[4096];
	long bits;

	where = file_or_dir(path, buf, sizeof(buf));
	if (!where) {
		return max;
	}
	/* bits of a signed integer holding the largest file size of that file system */
	bits = tool_plat_file_size_bits(where);
	if (bits > 1 && bits < 64) {
		max = (1ULL << (bits - 1)) - 1;
	}
	return max;
}

/* Bytes the file system holding `path` (or its directory) has in all; 0 when unknown */
static uint64_t
file_fs_nbytes(const char *path)
{
	const char *where;
	char buf[4096];

	where = file_or_dir(path, buf, sizeof(buf));
	return where ? tool_plat_fs_nbytes(where) : 0;
}

int
tool_check_file_room(const struct xnvme_cli *cli, enum xnvme_cli_opt nopt, uint64_t nbytes,
		     uint64_t end, enum xnvme_cli_opt fopt, const char *path)
{
	return tool_check_file_room_at(cli, nopt, nbytes, end, fopt, path, path);
}

int
tool_check_file_room_at(const struct xnvme_cli *cli, enum xnvme_cli_opt nopt, uint64_t nbytes,
			uint64_t end, enum xnvme_cli_opt fopt, const char *path, const char *where)
{
	uint64_t fs_nbytes, size_max;
	struct stat st;

	if (!path || !where || stat(where, &st) || !S_ISREG(st.st_mode)) {
		return 0;
	}
	fs_nbytes = file_fs_nbytes(where);
	if (fs_nbytes && nbytes > fs_nbytes) {
		return tool_err(cli, -EFBIG,
				"%s %" PRIu64 ": more than %s %s can hold: its file system holds "
				"%" PRIu64 " bytes in all",
				tool_opt_label(cli, nopt), nbytes, tool_opt_label(cli, fopt), path,
				fs_nbytes);
	}
	size_max = tool_file_size_max(where);
	if (end > size_max) {
		return tool_err(cli, -EFBIG,
				"%s %" PRIu64 ": %s %s would end at byte %" PRIu64
				", past the largest file size of its file system (%" PRIu64
				" bytes)",
				tool_opt_label(cli, nopt), nbytes, tool_opt_label(cli, fopt), path,
				end, size_max);
	}
	return 0;
}
