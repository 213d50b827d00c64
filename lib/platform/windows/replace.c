// SPDX-License-Identifier: BSD-3-Clause
/*
 * Replacing a regular file whole on Windows (xnvme_plat_replace_begin() in ../xnvme_plat.h):
 * the new content goes to a file beside it, which ReplaceFile() puts in its place, keeping the
 * replaced file's attributes and security descriptor; a failure leaves the old bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>
#include "xnvme_plat.h"

/* The path of the file `path` names, links followed ("\\?\C:\..." shortened to "C:\...") */
static int
final_path(const char *path, char *target)
{
	HANDLE h = CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			       NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
	DWORD n;

	if (h == INVALID_HANDLE_VALUE) {
		return -xnvme_plat_windows_errno(GetLastError());
	}
	n = GetFinalPathNameByHandleA(h, target, XNVME_PLAT_PATH_MAX, FILE_NAME_NORMALIZED);
	CloseHandle(h);
	if (!n || n >= XNVME_PLAT_PATH_MAX) {
		return n ? -ENAMETOOLONG : -xnvme_plat_windows_errno(GetLastError());
	}
	if (!strncmp(target, "\\\\?\\", 4) && target[4] && target[5] == ':') {
		memmove(target, target + 4, strlen(target + 4) + 1);
	}
	return 0;
}

int
xnvme_plat_replace_begin(const char *path, char *target, char *tmp)
{
	DWORD attrs = GetFileAttributesA(path);
	const char *base, *slash;
	int err;

	if (attrs == INVALID_FILE_ATTRIBUTES || (attrs & FILE_ATTRIBUTE_DIRECTORY) ||
	    !strncmp(path, "\\\\.\\", 4)) {
		return 0; /* absent, a directory or a device: the caller's open decides */
	}
	if (attrs & FILE_ATTRIBUTE_READONLY) {
		return -EACCES;
	}
	err = final_path(path, target);
	if (err) {
		return err;
	}
	base = strrchr(target, '\\');
	slash = strrchr(target, '/');
	base = (slash && (!base || slash > base)) ? slash + 1 : (base ? base + 1 : target);
	for (unsigned int i = 0; i < 100; ++i) {
		unsigned int tag = (unsigned int)(GetTickCount64() * 2654435761u) ^
				   (unsigned int)GetCurrentProcessId() ^ (i * 40503u);
		int n = snprintf(tmp, XNVME_PLAT_PATH_MAX, "%.*s.%s.xnvme-%08x",
				 (int)(base - target), target, base, tag);
		HANDLE h;

		if (n < 0 || n >= XNVME_PLAT_PATH_MAX) {
			return -ENAMETOOLONG;
		}
		h = CreateFileA(tmp, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL,
				NULL);
		if (h != INVALID_HANDLE_VALUE) {
			CloseHandle(h);
			return 1;
		}
		if (GetLastError() != ERROR_FILE_EXISTS) {
			return -xnvme_plat_windows_errno(GetLastError());
		}
	}
	return -EEXIST;
}

int
xnvme_plat_replace_end(const char *tmp, const char *target, int commit)
{
	int err = 0;

	if (commit &&
	    ReplaceFileA(target, tmp, NULL, REPLACEFILE_IGNORE_MERGE_ERRORS, NULL, NULL)) {
		return 0;
	}
	if (commit) {
		err = -xnvme_plat_windows_errno(GetLastError());
		if (GetFileAttributesA(target) == INVALID_FILE_ATTRIBUTES) {
			/* ERROR_UNABLE_TO_MOVE_REPLACEMENT: the old file is gone, keep the new one */
			return MoveFileExA(tmp, target, MOVEFILE_WRITE_THROUGH) ? 0 : err;
		}
	}
	DeleteFileA(tmp);
	return err;
}
