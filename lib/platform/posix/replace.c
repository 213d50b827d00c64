// SPDX-License-Identifier: BSD-3-Clause
/*
 * Replacing a regular file whole on POSIX (xnvme_plat_replace_begin() in ../xnvme_plat.h): the
 * new content goes to a file beside it, which rename(2) puts in its place in one step, so a
 * reader sees the old bytes or the new ones, never a mix, and a failure leaves the old bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "xnvme_plat.h"

/* The new file gets the replaced one's owner and group, then its mode (chown clears set-id) */
static int
attrs_copy(int fd, const struct stat *st)
{
	struct stat cur;

	if (fstat(fd, &cur)) {
		return -errno;
	}
	if ((cur.st_uid != st->st_uid || cur.st_gid != st->st_gid) &&
	    fchown(fd, st->st_uid, st->st_gid)) {
		return errno == EPERM ? -EPERM : -errno;
	}
	return fchmod(fd, st->st_mode & 07777) ? -errno : 0;
}

int
xnvme_plat_replace_begin(const char *path, char *target, char *tmp)
{
	char resolved[PATH_MAX];
	const char *base;
	struct stat st;
	int fd, n, err;

	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		return 0; /* absent or not a regular file: the caller's open decides */
	}
	if (!realpath(path, resolved)) {
		return -errno;
	}
	if (strlen(resolved) >= XNVME_PLAT_PATH_MAX) {
		return -ENAMETOOLONG;
	}
	strcpy(target, resolved);
	if (access(target, W_OK)) {
		return -errno; /* replacing is writing it: its permissions decide */
	}
	base = strrchr(target, '/') + 1; /* realpath() gives an absolute path */
	n = snprintf(tmp, XNVME_PLAT_PATH_MAX, "%.*s.%s.xnvme-XXXXXX", (int)(base - target), target,
		     base);
	if (n < 0 || n >= XNVME_PLAT_PATH_MAX) {
		return -ENAMETOOLONG;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		return -errno;
	}
	err = attrs_copy(fd, &st);
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) && !err) {
		err = -errno;
	}
	close(fd);
	if (err) {
		unlink(tmp);
		return err;
	}
	return 1;
}

int
xnvme_plat_replace_end(const char *tmp, const char *target, int commit)
{
	char dir[XNVME_PLAT_PATH_MAX];
	const char *base = strrchr(target, '/');
	int fd, err = 0;

	if (!commit || rename(tmp, target)) {
		err = commit ? -errno : 0;
		unlink(tmp);
		return err;
	}
	/* the rename itself durable: sync the directory (EINVAL: a file system without that) */
	snprintf(dir, sizeof(dir), "%.*s", base && base != target ? (int)(base - target) : 1,
		 base ? target : ".");
	fd = open(dir, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return -errno;
	}
	if (fsync(fd) && errno != EINVAL) {
		err = -errno;
	}
	close(fd);
	return err;
}
