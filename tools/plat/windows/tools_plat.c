// SPDX-License-Identifier: BSD-3-Clause
/* tools_plat.h on Windows */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <windows.h>
#include "tools_plat.h"

void
tool_plat_init(void)
{
	/* Data piped through stdin/stdout must not gain or lose carriage returns */
	_setmode(_fileno(stdin), _O_BINARY);
	_setmode(_fileno(stdout), _O_BINARY);
}

int
tool_plat_fd_blocking(int fd)
{
	(void)fd;
	return 0;
}

int
tool_plat_fd_wait(int fd, bool out)
{
	(void)fd;
	(void)out;
	return 0;
}

/* The C runtime's st_ino is always 0: the volume serial and file index identify a file */
int
tool_plat_file_id(const char *path, struct tool_file_id *id)
{
	BY_HANDLE_FILE_INFORMATION info;
	HANDLE h;
	DWORD err;

	/* No access rights needed to read the identity; BACKUP_SEMANTICS opens directories */
	h = CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		err = GetLastError();
		return (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND) ? -ENOENT
										    : -EIO;
	}
	if (!GetFileInformationByHandle(h, &info)) {
		CloseHandle(h);
		return -EIO;
	}
	CloseHandle(h);
	id->dev = info.dwVolumeSerialNumber;
	id->ino = ((uint64_t)info.nFileIndexHigh << 32) | info.nFileIndexLow;
	id->rdev = 0;
	id->dir = info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY;
	id->reg = !id->dir;
	id->blk = false;
	return 0;
}

long
tool_plat_file_size_bits(const char *dir)
{
	(void)dir; /* no per-volume query: the size check falls back to off_t's range */
	return -1;
}

uint64_t
tool_plat_fs_nbytes(const char *dir)
{
	ULARGE_INTEGER total;

	if (!GetDiskFreeSpaceExA(dir, NULL, &total, NULL)) {
		return 0;
	}
	return total.QuadPart;
}

/* FILETIME counts 100 ns units */
static double
ft_s(FILETIME ft)
{
	return (double)(((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime) / 1e7;
}

void
tool_plat_cpu_times(struct tool_cpu_times *t, bool thread)
{
	FILETIME created, exited, kernel = {0}, user = {0};

	if (thread) {
		GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user);
	} else {
		GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user);
	}
	t->user_s = ft_s(user);
	t->sys_s = ft_s(kernel);
}

void
tool_plat_sig_install(void (*handler)(int))
{
	/* Ctrl-C and termination requests; a write to a closed pipe fails with EPIPE instead */
	signal(SIGINT, handler);
	signal(SIGTERM, handler);
}

int
tool_plat_dio_align(const char *path, uint32_t *mem, uint32_t *off)
{
	(void)path; /* the file backend of Windows opens without FILE_FLAG_NO_BUFFERING */
	*mem = 0;
	*off = 0;
	return 0;
}

int
tool_plat_link_target(const char *path, char *out, size_t len)
{
	(void)path; /* the C runtime follows no symbolic links of its own */
	(void)out;
	(void)len;
	return 0;
}

int
tool_plat_file_writable(const char *path)
{
	DWORD attrs = GetFileAttributesA(path);

	if (attrs == INVALID_FILE_ATTRIBUTES) {
		return -ENOENT;
	}
	return (attrs & FILE_ATTRIBUTE_READONLY) ? -EACCES : 0;
}

int
tool_plat_dir_writable(const char *dir)
{
	DWORD attrs = GetFileAttributesA(dir);

	if (attrs == INVALID_FILE_ATTRIBUTES) {
		return -ENOENT;
	}
	return (attrs & FILE_ATTRIBUTE_DIRECTORY) ? 0 : -ENOTDIR;
}

int
tool_plat_tmp_create(const char *dir, const char *base, char *out, size_t len)
{
	for (int tries = 0; tries < 100; ++tries) {
		int n = snprintf(out, len, "%s\\.%s.xnvme-%08lx%04x", dir, base,
				 (unsigned long)GetTickCount(), (unsigned int)(rand() & 0xFFFF));
		int fd;

		if (n < 0 || (size_t)n >= len) {
			return -ENAMETOOLONG;
		}
		fd = _open(out, _O_CREAT | _O_EXCL | _O_RDWR | _O_BINARY | _O_NOINHERIT,
			   _S_IREAD | _S_IWRITE);
		if (fd >= 0) {
			return fd;
		}
		if (errno != EEXIST) {
			return -errno;
		}
	}
	return -EEXIST;
}

int
tool_plat_owner_keepable(const void *st)
{
	(void)st; /* a new file of the caller's, as the old one was */
	return 0;
}

int
tool_plat_attrs_copy(int fd, const void *stv)
{
	(void)fd;
	(void)stv; /* read-only files are refused before: the attributes of a new file fit */
	return 0;
}

int
tool_plat_attrs_new(int fd)
{
	(void)fd;
	return 0;
}

int
tool_plat_fsync(int fd)
{
	return _commit(fd) ? -errno : 0;
}

int
tool_plat_fsync_dir(const char *dir)
{
	(void)dir; /* MoveFileEx(MOVEFILE_WRITE_THROUGH) returns once the rename is on disk */
	return 0;
}

int
tool_plat_replace(const char *src, const char *target)
{
	if (!MoveFileExA(src, target, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
		return GetLastError() == ERROR_ACCESS_DENIED ? -EACCES : -EIO;
	}
	return 0;
}

#define COPY_CHUNK (8u << 20)

int
tool_plat_copy(int in, int out, uint64_t nbytes, int (*tick)(void *), void *arg)
{
	char *buf = malloc(COPY_CHUNK);
	uint64_t done = 0;
	int err = 0;

	if (!buf) {
		return -ENOMEM;
	}
	if (_lseeki64(in, 0, SEEK_SET) < 0 || _lseeki64(out, 0, SEEK_SET) < 0) {
		free(buf);
		return -errno;
	}
	while (done < nbytes && !err) {
		unsigned int want =
			nbytes - done < COPY_CHUNK ? (unsigned int)(nbytes - done) : COPY_CHUNK;
		int n;

		err = tick ? tick(arg) : 0;
		if (err) {
			break;
		}
		n = _read(in, buf, want);
		if (n < 0) {
			err = -errno;
		} else if (n == 0) {
			break;
		} else if (_write(out, buf, (unsigned int)n) != n) {
			err = -EIO;
		} else {
			done += (uint64_t)n;
		}
	}
	free(buf);
	return err;
}
