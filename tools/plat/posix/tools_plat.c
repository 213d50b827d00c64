// SPDX-License-Identifier: BSD-3-Clause
/* tools_plat.h on POSIX systems */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
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
