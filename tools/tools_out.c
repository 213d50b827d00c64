// SPDX-License-Identifier: BSD-3-Clause
/**
 * Outputs of the tools, kept safe from failed and interrupted runs (tools_common.h, "Outputs").
 *
 * A regular file (existing, or to be created) is never written where it is: the run writes a
 * new file beside it, `.<name>.xnvme-<random>` in the same directory, and tool_outs_commit()
 * renames that over the target once the subcommand succeeded and the data is on stable
 * storage, with the mode, owner and group of the file it replaces. A failure or a signal
 * before that removes the new file: the target keeps every byte it had. A symbolic link is
 * followed to the file it names, which is replaced; the link stays.
 *
 * Block and character devices, FIFOs and sockets cannot be replaced: they are written in
 * place, only after every check passed, and the byte ranges written are kept so that every
 * error line printed afterwards says exactly what was written (tool_out_notes()).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libxnvme.h>
#include "tools_common.h"
#include "tools_plat.h"

/* Longest path the tools build (the directory of a target and the name of a new file) */
#define OUT_PATH_MAX 4096
/* Ranges named in a message before "and N more" */
#define OUT_NOTE_RANGES 4

struct out_range {
	uint64_t lo; ///< first unit written
	uint64_t hi; ///< one past the last
};

struct tool_out {
	struct tool_out *next;
	const struct xnvme_cli *cli;
	enum xnvme_cli_opt opt;
	const char *path; ///< as the user wrote it
	enum tool_out_kind kind;
	char target[OUT_PATH_MAX]; ///< NEW, REPLACE: the file the result becomes (links followed)
	char dir[OUT_PATH_MAX];    ///< NEW, REPLACE: the directory of `target`
	char tmp[OUT_PATH_MAX];    ///< NEW, REPLACE: the file written until the commit
	int fd;                    ///< of `tmp`, for syncing and its attributes; -1 when none
	struct stat st;            ///< REPLACE: the target before the run

	/* DEVICE, STREAM: what was written, in `unit` (bytes, or LBAs of `unit_nbytes`) */
	const char *unit;
	bool unit_hex;
	struct out_range *runs;
	uint32_t nruns;
	uint32_t cap;
	uint64_t nunits;
};

/* Outputs of the running subcommand, committed or removed when it ends */
static struct tool_out *g_outs;

enum tool_out_kind
tool_out_kind(const struct tool_out *o)
{
	return o->kind;
}

const char *
tool_out_path(const struct tool_out *o)
{
	return o->tmp[0] ? o->tmp : o->path;
}

const char *
tool_out_name(const struct tool_out *o)
{
	return o->path;
}

/* The last directory separator of `path`, NULL when it has none */
static const char *
last_sep(const char *path)
{
	const char *sep = NULL;

	for (const char *p = path; *p; ++p) {
		if (strchr(TOOL_PATH_SEPS, *p)) {
			sep = p;
		}
	}
	return sep;
}

/* dirname() and basename() of `path` into dir / base, without modifying it */
static int
split_path(const char *path, char *dir, size_t dlen, const char **base)
{
	const char *slash = last_sep(path);
	size_t n;

	*base = slash ? slash + 1 : path;
	if (!slash) {
		n = (size_t)snprintf(dir, dlen, ".");
	} else if (slash == path) {
		n = (size_t)snprintf(dir, dlen, "/");
	} else {
		n = (size_t)(slash - path);
		if (n >= dlen) {
			return -ENAMETOOLONG;
		}
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	return (n >= dlen || !(*base)[0]) ? -ENAMETOOLONG : 0;
}

/* Where a new file for `o` would go: the directory must exist and take new files */
static int
out_dir_check(struct tool_out *o)
{
	const struct xnvme_cli *cli = o->cli;
	const char *base;
	struct stat st;
	int err;

	if (split_path(o->target, o->dir, sizeof(o->dir), &base)) {
		return tool_err(cli, -ENAMETOOLONG, "%s %s: the path is too long",
				tool_opt_label(cli, o->opt), o->path);
	}
	if (stat(o->dir, &st)) {
		return tool_err(cli, -errno, "%s %s: no directory %s to write it in",
				tool_opt_label(cli, o->opt), o->path, o->dir);
	}
	if (!S_ISDIR(st.st_mode)) {
		return tool_err(cli, -ENOTDIR, "%s %s: %s is not a directory",
				tool_opt_label(cli, o->opt), o->path, o->dir);
	}
	err = tool_plat_dir_writable(o->dir);
	if (err) {
		return tool_err(cli, err,
				"%s %s: cannot create files in %s, where the output is written "
				"first and then renamed into place",
				tool_opt_label(cli, o->opt), o->path, o->dir);
	}
	return 0;
}

/* What `path` is and whether it can be written safely; fills kind, target, dir and st */
static int
out_classify(struct tool_out *o)
{
	const struct xnvme_cli *cli = o->cli;
	const char *label = tool_opt_label(cli, o->opt);
	int err;

	if (!o->path || !o->path[0]) {
		return tool_err(cli, -EINVAL, "%s: empty path", label);
	}
	if (strlen(o->path) >= sizeof(o->target)) {
		return tool_err(cli, -ENAMETOOLONG, "%s %s: the path is too long", label, o->path);
	}
	if (stat(o->path, &o->st)) {
		if (errno != ENOENT) {
			return tool_err(cli, -errno, "%s %s: cannot examine it", label, o->path);
		}
		/* a new file; a dangling symbolic link names the file to create */
		o->kind = TOOL_OUT_NEW;
		err = tool_plat_link_target(o->path, o->target, sizeof(o->target));
		if (err < 0) {
			return tool_err(cli, err, "%s %s: cannot follow the symbolic link", label,
					o->path);
		}
		if (!err) {
			strcpy(o->target, o->path);
		}
		return out_dir_check(o);
	}
	if (S_ISDIR(o->st.st_mode)) {
		return tool_err(cli, -EISDIR, "%s %s: is a directory", label, o->path);
	}
	if (S_ISBLK(o->st.st_mode) || S_ISCHR(o->st.st_mode)) {
		o->kind = TOOL_OUT_DEVICE;
		return 0;
	}
	if (!S_ISREG(o->st.st_mode)) {
		o->kind = TOOL_OUT_STREAM;
		return 0;
	}

	o->kind = TOOL_OUT_REPLACE;
	err = tool_plat_link_target(o->path, o->target, sizeof(o->target));
	if (err < 0) {
		return tool_err(cli, err, "%s %s: cannot follow the symbolic link", label, o->path);
	}
	if (!err) {
		strcpy(o->target, o->path);
	}
	/* replacing a file is writing it: its permissions decide, as they would in place */
	err = tool_plat_file_writable(o->target);
	if (err) {
		return tool_err(cli, err, "%s %s: the file is not writable", label, o->path);
	}
	err = tool_plat_owner_keepable(&o->st);
	if (err) {
		return tool_err(
			cli, err,
			"%s %s: owned by uid %u, gid %u: the new content would be a file of "
			"another owner or group (run as the owner, in its group, or as root)",
			label, o->path, (unsigned int)o->st.st_uid, (unsigned int)o->st.st_gid);
	}
	return out_dir_check(o);
}

int
tool_out_check(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path)
{
	struct tool_out *o = calloc(1, sizeof(*o));
	int err;

	if (!o) {
		return tool_err(cli, -ENOMEM, "out of memory");
	}
	o->cli = cli;
	o->opt = opt;
	o->path = path;
	o->fd = -1;
	err = out_classify(o);
	free(o);
	return err;
}

static void
out_free(struct tool_out *o)
{
	if (o->fd >= 0) {
		close(o->fd);
	}
	if (o->tmp[0]) {
		unlink(o->tmp);
	}
	free(o->runs);
	free(o);
}

static int
copy_tick(void *arg)
{
	return tool_sig_check(arg);
}

/* REPLACE with TOOL_OUT_KEEP: the new file starts as a copy of the target */
static int
out_copy_target(struct tool_out *o)
{
	const struct xnvme_cli *cli = o->cli;
	int in, err;

	in = open(o->target, O_RDONLY | TOOL_O_CLOEXEC);
	if (in < 0) {
		return tool_err(cli, -errno, "%s %s: cannot read it to keep its content",
				tool_opt_label(cli, o->opt), o->path);
	}
	err = tool_plat_copy(in, o->fd, (uint64_t)o->st.st_size, copy_tick, (void *)cli);
	close(in);
	if (err == -EINTR) {
		return err; /* reported by the signal check */
	}
	if (err) {
		return tool_err(cli, err,
				"%s %s: cannot copy it to %s, to keep the bytes outside "
				"the range written",
				tool_opt_label(cli, o->opt), o->path, o->tmp);
	}
	return 0;
}

struct tool_out *
tool_out_open(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path, int flags,
	      int *err)
{
	struct tool_out *o = calloc(1, sizeof(*o));
	const char *base;

	if (!o) {
		*err = tool_err(cli, -ENOMEM, "out of memory");
		return NULL;
	}
	o->cli = cli;
	o->opt = opt;
	o->path = path;
	o->fd = -1;
	o->unit = "bytes";

	*err = out_classify(o);
	if (*err) {
		free(o);
		return NULL;
	}
	if (o->kind == TOOL_OUT_NEW || o->kind == TOOL_OUT_REPLACE) {
		split_path(o->target, o->dir, sizeof(o->dir), &base);
		o->fd = tool_plat_tmp_create(o->dir, base, o->tmp, sizeof(o->tmp));
		if (o->fd < 0) {
			*err = tool_err(cli, o->fd, "%s %s: cannot create a new file in %s",
					tool_opt_label(cli, opt), path, o->dir);
			o->tmp[0] = '\0';
			o->fd = -1;
			free(o);
			return NULL;
		}
		if (o->kind == TOOL_OUT_REPLACE && (flags & TOOL_OUT_KEEP) && o->st.st_size) {
			*err = out_copy_target(o);
			if (*err) {
				out_free(o);
				return NULL;
			}
		}
	}
	o->next = g_outs;
	g_outs = o;
	return o;
}

struct tool_out *
tool_out_device(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path,
		const char *unit, bool unit_hex)
{
	struct tool_out *o = calloc(1, sizeof(*o));

	if (!o) {
		tool_err(cli, -ENOMEM, "out of memory");
		return NULL;
	}
	o->cli = cli;
	o->opt = opt;
	o->path = path;
	o->fd = -1;
	o->kind = TOOL_OUT_DEVICE;
	o->unit = unit;
	o->unit_hex = unit_hex;
	o->next = g_outs;
	g_outs = o;
	return o;
}

void
tool_out_wrote(struct tool_out *o, uint64_t off, uint64_t n)
{
	uint64_t hi = off + n;
	uint32_t i;

	if (!o || !n || (o->kind != TOOL_OUT_DEVICE && o->kind != TOOL_OUT_STREAM)) {
		return;
	}
	o->nunits += n;
	/* runs are kept sorted and disjoint; commands arrive roughly in order */
	for (i = 0; i < o->nruns && o->runs[i].hi < off; ++i) {
	}
	if (i < o->nruns && o->runs[i].lo <= hi) {
		struct out_range *r = &o->runs[i];

		r->lo = off < r->lo ? off : r->lo;
		r->hi = hi > r->hi ? hi : r->hi;
		/* the grown run may now touch the ones after it */
		while (i + 1 < o->nruns && o->runs[i + 1].lo <= r->hi) {
			r->hi = o->runs[i + 1].hi > r->hi ? o->runs[i + 1].hi : r->hi;
			memmove(&o->runs[i + 1], &o->runs[i + 2],
				(o->nruns - i - 2) * sizeof(*o->runs));
			o->nruns -= 1;
		}
		return;
	}
	if (o->nruns == o->cap) {
		uint32_t cap = o->cap ? o->cap * 2 : 8;
		struct out_range *runs = realloc(o->runs, cap * sizeof(*runs));

		if (!runs) {
			return; /* the note then under-reports, never invents */
		}
		o->runs = runs;
		o->cap = cap;
	}
	memmove(&o->runs[i + 1], &o->runs[i], (o->nruns - i) * sizeof(*o->runs));
	o->runs[i].lo = off;
	o->runs[i].hi = hi;
	o->nruns += 1;
}

size_t
tool_out_notes(char *buf, size_t len)
{
	size_t used = 0;

	if (len) {
		buf[0] = '\0';
	}
	for (const struct tool_out *o = g_outs; o; o = o->next) {
		int n;

		if (!o->nruns) {
			continue;
		}
		n = snprintf(buf + used, len - used, "; %s %s: %s ", tool_opt_label(o->cli, o->opt),
			     o->path, o->unit);
		for (uint32_t i = 0; n >= 0 && (size_t)n < len - used && i < o->nruns; ++i) {
			used += (size_t)n;
			if (i == OUT_NOTE_RANGES) {
				n = snprintf(buf + used, len - used,
					     ", and %" PRIu32 " more ranges", o->nruns - i);
				break;
			}
			n = snprintf(buf + used, len - used,
				     o->unit_hex ? "%s0x%" PRIx64 "-0x%" PRIx64
						 : "%s%" PRIu64 "-%" PRIu64,
				     i ? ", " : "", o->runs[i].lo, o->runs[i].hi - 1);
		}
		if (n < 0 || (size_t)n >= len - used) {
			break;
		}
		used += (size_t)n;
		n = snprintf(buf + used, len - used, " were written");
		if (n < 0 || (size_t)n >= len - used) {
			break;
		}
		used += (size_t)n;
	}
	return used;
}

int
tool_outs_commit(const struct xnvme_cli *cli)
{
	int err = 0;

	/* the point of no return: from here on a signal no longer stops the run */
	err = tool_sig_commit(cli);
	for (struct tool_out *o = g_outs; o && !err; o = o->next) {
		const char *label = tool_opt_label(cli, o->opt);

		if (!o->tmp[0]) {
			continue;
		}
		err = tool_plat_fsync(o->fd);
		if (err) {
			err = tool_err(cli, err, "%s %s: writing it to stable storage failed",
				       label, o->path);
			break;
		}
		err = o->kind == TOOL_OUT_REPLACE ? tool_plat_attrs_copy(o->fd, &o->st)
						  : tool_plat_attrs_new(o->fd);
		if (err) {
			err = tool_err(cli, err,
				       "%s %s: cannot give the new file %s the mode and "
				       "owner of the output",
				       label, o->path, o->tmp);
			break;
		}
		/* closed before the rename: Windows renames no file that is open */
		if (close(o->fd)) {
			err = tool_err(cli, -errno, "%s %s: closing the new file %s failed", label,
				       o->path, o->tmp);
		}
		o->fd = -1;
	}
	/* every new file is complete and synced: now rename them all into place */
	for (struct tool_out *o = g_outs; o && !err; o = o->next) {
		if (!o->tmp[0]) {
			continue;
		}
		err = tool_plat_replace(o->tmp, o->target);
		if (err) {
			err = tool_err(cli, err, "%s %s: cannot rename %s to %s",
				       tool_opt_label(cli, o->opt), o->path, o->tmp, o->target);
			break;
		}
		o->tmp[0] = '\0';
		tool_plat_fsync_dir(o->dir);
	}
	if (err) {
		tool_outs_abort();
		return err;
	}
	while (g_outs) {
		struct tool_out *o = g_outs;

		g_outs = o->next;
		out_free(o);
	}
	return 0;
}

void
tool_outs_abort(void)
{
	while (g_outs) {
		struct tool_out *o = g_outs;

		g_outs = o->next;
		out_free(o);
	}
}
