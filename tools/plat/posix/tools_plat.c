// SPDX-License-Identifier: BSD-3-Clause
/* tools_plat.h on POSIX systems */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif
#include "tools_plat.h"

void
tool_plat_init(void)
{
}

int
tool_plat_fd_blocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)) {
		return -errno;
	}
	return 0;
}

int
tool_plat_fd_wait(int fd, bool out)
{
	struct pollfd pfd = {.fd = fd, .events = out ? POLLOUT : POLLIN};

	/* A FIFO whose writer is slow: wait for data, or for its end (POLLHUP) */
	if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
		return -errno;
	}
	return 0;
}

int
tool_plat_file_id(const char *path, struct tool_file_id *id)
{
	struct stat st;

	if (stat(path, &st)) {
		return -errno;
	}
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->rdev = st.st_rdev;
	id->reg = S_ISREG(st.st_mode);
	id->blk = S_ISBLK(st.st_mode);
	id->dir = S_ISDIR(st.st_mode);
	return 0;
}

long
tool_plat_file_size_bits(const char *dir)
{
	return pathconf(dir, _PC_FILESIZEBITS);
}

uint64_t
tool_plat_fs_nbytes(const char *dir)
{
	struct statvfs vfs;

	if (statvfs(dir, &vfs) || !vfs.f_blocks) {
		return 0;
	}
	return (uint64_t)vfs.f_blocks * (vfs.f_frsize ? vfs.f_frsize : vfs.f_bsize);
}

static double
tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

void
tool_plat_cpu_times(struct tool_cpu_times *t, bool thread)
{
	struct rusage ru = {0};

	getrusage(thread ? RUSAGE_THREAD : RUSAGE_SELF, &ru);
	t->user_s = tv_s(ru.ru_utime);
	t->sys_s = tv_s(ru.ru_stime);
}

void
tool_plat_sig_install(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: a blocking wait returns EINTR and the loop looks */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* The logical block size of the block device `dev` (a disk or a partition), from sysfs */
static uint32_t
sysfs_lbs(dev_t dev)
{
	char path[128];
	unsigned int lbs = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/logical_block_size", major(dev),
		 minor(dev));
	f = fopen(path, "r");
	if (!f) {
		/* a partition: the queue is its disk's */
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/logical_block_size",
			 major(dev), minor(dev));
		f = fopen(path, "r");
	}
	if (!f) {
		return 0;
	}
	if (fscanf(f, "%u", &lbs) != 1) {
		lbs = 0;
	}
	fclose(f);
	return lbs;
}

int
tool_plat_dio_align(const char *path, uint32_t *mem, uint32_t *off)
{
	struct stat st;

	*mem = 0;
	*off = 0;
#if defined(__linux__) && defined(STATX_DIOALIGN)
	{
		struct statx stx;

		if (statx(AT_FDCWD, path, 0, STATX_DIOALIGN | STATX_TYPE, &stx)) {
			return -errno;
		}
		if ((stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align) {
			*mem = stx.stx_dio_mem_align;
			*off = stx.stx_dio_offset_align;
			return 0;
		}
	}
#endif
	if (stat(path, &st)) {
		return -errno;
	}
	/* without statx: the logical block size of the device (of the file system) */
	*off = sysfs_lbs(S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev);
	*mem = *off;
	return 0;
}

int
tool_plat_link_target(const char *path, char *out, size_t len)
{
	char cur[PATH_MAX], link[PATH_MAX];
	struct stat st;
	bool is_link = false;

	if (strlen(path) >= sizeof(cur)) {
		return -ENAMETOOLONG;
	}
	strcpy(cur, path);
	for (int hops = 0; hops < 40; ++hops) {
		ssize_t n;

		if (lstat(cur, &st) || !S_ISLNK(st.st_mode)) {
			break;
		}
		is_link = true;
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0) {
			return -errno;
		}
		link[n] = '\0';
		if (link[0] == '/') {
			strcpy(cur, link);
		} else {
			/* relative to the directory holding the link */
			char *slash = strrchr(cur, '/');
			size_t dlen = slash ? (size_t)(slash - cur) + 1 : 0;

			if (dlen + (size_t)n >= sizeof(cur)) {
				return -ENAMETOOLONG;
			}
			memmove(cur + dlen, link, (size_t)n + 1);
		}
		if (hops == 39) {
			return -ELOOP;
		}
	}
	if (!is_link) {
		return 0;
	}
	if (strlen(cur) >= len) {
		return -ENAMETOOLONG;
	}
	strcpy(out, cur);
	return 1;
}

int
tool_plat_file_writable(const char *path)
{
	return access(path, W_OK) ? -errno : 0;
}

int
tool_plat_dir_writable(const char *dir)
{
	return access(dir, W_OK | X_OK) ? -errno : 0;
}

int
tool_plat_tmp_create(const char *dir, const char *base, char *out, size_t len)
{
	int fd, n;

	n = snprintf(out, len, "%s/.%s.xnvme-XXXXXX", dir, base);
	if (n < 0 || (size_t)n >= len) {
		return -ENAMETOOLONG;
	}
	fd = mkostemp(out, O_CLOEXEC); /* mode 0600 */
	return fd < 0 ? -errno : fd;
}

int
tool_plat_owner_keepable(const void *stv)
{
	const struct stat *st = stv;
	gid_t groups[NGROUPS_MAX];
	int n;

	if (geteuid() == 0) {
		return 0;
	}
	if (st->st_uid != geteuid()) {
		return -EPERM;
	}
	if (st->st_gid == getegid()) {
		return 0;
	}
	n = getgroups(NGROUPS_MAX, groups);
	for (int i = 0; i < n; ++i) {
		if (groups[i] == st->st_gid) {
			return 0;
		}
	}
	return -EPERM;
}

int
tool_plat_attrs_copy(int fd, const void *stv)
{
	const struct stat *st = stv;
	struct stat cur;

	if (fstat(fd, &cur)) {
		return -errno;
	}
	if ((cur.st_uid != st->st_uid || cur.st_gid != st->st_gid) &&
	    fchown(fd, st->st_uid, st->st_gid)) {
		return -errno;
	}
	/* after chown, which clears the set-id bits */
	return fchmod(fd, st->st_mode & 07777) ? -errno : 0;
}

int
tool_plat_attrs_new(int fd)
{
	mode_t mask = umask(0);

	umask(mask);
	return fchmod(fd, 0666 & ~mask) ? -errno : 0;
}

int
tool_plat_fsync(int fd)
{
	return fsync(fd) ? -errno : 0;
}

int
tool_plat_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = 0;

	if (fd < 0) {
		return -errno;
	}
	if (fsync(fd) && errno != EINVAL) { /* EINVAL: a file system without directory sync */
		err = -errno;
	}
	close(fd);
	return err;
}

int
tool_plat_replace(const char *src, const char *target)
{
	return rename(src, target) ? -errno : 0;
}

#define COPY_CHUNK (8u << 20)

int
tool_plat_copy(int in, int out, uint64_t nbytes, int (*tick)(void *), void *arg)
{
	uint64_t done = 0;
	char *buf = NULL;
	int err = 0;

#ifdef FICLONE
	/* a file system with shared extents copies nothing at all */
	if (!ioctl(out, FICLONE, in)) {
		return 0;
	}
#endif
	while (done < nbytes && !err) {
		size_t want = nbytes - done < COPY_CHUNK ? (size_t)(nbytes - done) : COPY_CHUNK;
		off_t ioff = (off_t)done, ooff = (off_t)done;
		ssize_t n = -1;

		err = tick ? tick(arg) : 0;
		if (err) {
			break;
		}
#ifdef __linux__
		if (!buf) {
			n = copy_file_range(in, &ioff, out, &ooff, want, 0);
		}
#endif
		if (n < 0) {
			if (!buf && !(buf = malloc(COPY_CHUNK))) {
				return -ENOMEM;
			}
			n = pread(in, buf, want, (off_t)done);
			if (n > 0 && pwrite(out, buf, (size_t)n, (off_t)done) != n) {
				errno = errno ? errno : EIO;
				n = -1;
			}
		}
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			err = -errno;
		} else if (n == 0) {
			break; /* the source ended early: it shrank meanwhile */
		} else {
			done += (uint64_t)n;
		}
	}
	free(buf);
	return err;
}
