// SPDX-License-Identifier: BSD-3-Clause
/* tools_plat.h on Windows */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
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
