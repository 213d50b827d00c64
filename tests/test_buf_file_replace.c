// SPDX-License-Identifier: BSD-3-Clause
/*
 * xnvme_buf_to_file() on an existing regular file replaces it only whole (POSIX): a write that
 * fails midway (RLIMIT_FSIZE: EFBIG after the first bytes, as a full file system would fail
 * with ENOSPC) leaves the old bytes and no file beside them; a success keeps the file's mode,
 * replaces the file a symbolic link names and keeps the link; a file that is not writable, or
 * a directory that takes no new file, is refused before anything changes (not as root, whose
 * writes no permission stops). The files go to a fresh directory under $TMPDIR or /tmp.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libxnvme.h>
#include "xnvme_test.h"

#define OLD_NBYTES 3000
#define NEW_NBYTES (64 * 1024)

static char g_dir[PATH_MAX];
static uint8_t g_old[OLD_NBYTES], g_new[NEW_NBYTES], g_got[NEW_NBYTES];

/* The number of entries of the test directory besides "." and ".." */
static int
dir_entries(void)
{
	DIR *d = opendir(g_dir);
	struct dirent *e;
	int n = 0;

	if (!d) {
		return -1;
	}
	while ((e = readdir(d))) {
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	}
	closedir(d);
	return n;
}

/* The file at path holds exactly the nbytes of want */
static bool
holds(const char *path, const uint8_t *want, size_t nbytes)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		return false;
	}
	n = fread(g_got, 1, sizeof(g_got), f);
	fclose(f);
	return n == nbytes && !memcmp(g_got, want, nbytes);
}

static void
old_file(const char *path, mode_t mode)
{
	FILE *f = fopen(path, "wb");

	CHECK(f && fwrite(g_old, 1, sizeof(g_old), f) == sizeof(g_old));
	if (f) {
		fclose(f);
	}
	CHECK_EQ(chmod(path, mode), 0);
}

/* A write that fails after its first bytes: the old file stays as it was, nothing beside it */
static void
test_failure_keeps_the_old_bytes(const char *path)
{
	struct rlimit saved, lim;
	int err;

	old_file(path, 0640);
	CHECK_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
	lim = saved;
	lim.rlim_cur = 4096; /* the new file may grow to 4 KiB: the 64 KiB write fails midway */
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
	err = xnvme_buf_to_file(g_new, sizeof(g_new), path);
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);
	CHECKF(err == -EFBIG, "err %d", err);
	CHECK(holds(path, g_old, sizeof(g_old)));
	CHECK_EQ(dir_entries(), 1);
}

static void
test_success_keeps_mode_and_link(const char *path)
{
	char link[PATH_MAX + 16];
	struct stat st;

	old_file(path, 0604);
	CHECK_EQ(xnvme_buf_to_file(g_new, sizeof(g_new), path), 0);
	CHECK(holds(path, g_new, sizeof(g_new)));
	CHECK(!stat(path, &st) && (st.st_mode & 07777) == 0604);
	CHECK_EQ(dir_entries(), 1);

	/* through a link: the file it names gets the bytes, the link stays a link */
	snprintf(link, sizeof(link), "%s/link", g_dir);
	CHECK_EQ(symlink(path, link), 0);
	CHECK_EQ(xnvme_buf_to_file(g_old, sizeof(g_old), link), 0);
	CHECK(!lstat(link, &st) && S_ISLNK(st.st_mode));
	CHECK(holds(path, g_old, sizeof(g_old)));
	CHECK_EQ(dir_entries(), 2);
	CHECK_EQ(unlink(link), 0);
}

/* Refusals by permission, before any change (root is not refused: skipped) */
static void
test_refusals(const char *path)
{
	if (geteuid() == 0) {
		printf("# running as root: the permission refusals are not checked\n");
		return;
	}
	old_file(path, 0444);
	CHECK_EQ(xnvme_buf_to_file(g_new, sizeof(g_new), path), -EACCES);
	CHECK(holds(path, g_old, sizeof(g_old)));
	CHECK_EQ(chmod(path, 0644), 0);

	CHECK_EQ(chmod(g_dir, 0555), 0);
	CHECK_EQ(xnvme_buf_to_file(g_new, sizeof(g_new), path), -EACCES);
	CHECK_EQ(chmod(g_dir, 0755), 0);
	CHECK(holds(path, g_old, sizeof(g_old)));
	CHECK_EQ(dir_entries(), 1);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[PATH_MAX + 16];

	signal(SIGXFSZ, SIG_IGN); /* a write past RLIMIT_FSIZE: EFBIG, not the signal */
	snprintf(g_dir, sizeof(g_dir), "%s/xnvme-buf-replace-XXXXXX", tmp);
	if (!mkdtemp(g_dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/file.bin", g_dir);
	xnvme_buf_fill(g_old, sizeof(g_old), "anum");
	xnvme_buf_fill(g_new, sizeof(g_new), "rand-k");

	test_failure_keeps_the_old_bytes(path);
	test_success_keeps_mode_and_link(path);
	test_refusals(path);

	unlink(path);
	rmdir(g_dir);
	return xnvme_test_result("test_buf_file_replace");
}
