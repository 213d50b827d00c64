// SPDX-License-Identifier: BSD-3-Clause
/*
 * Opening files and volumes: CreateFile with FILE_FLAG_OVERLAPPED (every transfer carries its
 * offset) and FILE_FLAG_NO_BUFFERING for opts.direct. A path that does not exist is "not mine"
 * (-ENOENT) unless opts.create, so "<N>GB" falls through to the ramdisk.
 */
#include <errno.h>
#include <stdlib.h>
#include "be_windows.h"

int
xnvme_be_windows_errno(DWORD werr)
{
	switch (werr) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
		return EACCES;
	case ERROR_FILE_EXISTS:
	case ERROR_ALREADY_EXISTS:
		return EEXIST;
	case ERROR_INVALID_PARAMETER:
		return EINVAL;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		return ENOSPC;
	case ERROR_NOT_SUPPORTED:
	case ERROR_CALL_NOT_IMPLEMENTED:
		return ENOSYS;
	default:
		return EIO;
	}
}

int
xnvme_be_windows_size(const struct xnvme_be_windows_state *state, uint64_t *nbytes)
{
	LARGE_INTEGER size;

	if (!GetFileSizeEx(state->h, &size)) {
		return -xnvme_be_windows_errno(GetLastError());
	}
	*nbytes = (uint64_t)size.QuadPart;
	return 0;
}

static DWORD
open_disposition(const struct xnvme_opts *opts)
{
	if (opts->create) {
		return opts->truncate ? CREATE_ALWAYS : OPEN_ALWAYS;
	}
	return opts->truncate ? TRUNCATE_EXISTING : OPEN_EXISTING;
}

static DWORD
open_access(const struct xnvme_opts *opts)
{
	if (opts->rdonly && !opts->wronly) {
		return GENERIC_READ;
	}
	if (opts->wronly && !opts->rdonly) {
		return GENERIC_WRITE;
	}
	return GENERIC_READ | GENERIC_WRITE;
}

static int
windows_dev_open(struct xnvme_dev *dev)
{
	const char *uri = dev->ident.uri;
	DWORD flags = FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OVERLAPPED;
	struct xnvme_be_windows_state *state;
	int err;

	if (!dev->opts.create && GetFileAttributesA(uri) == INVALID_FILE_ATTRIBUTES) {
		return xnvme_dev_set_errmsg(dev, -ENOENT, "'%s' does not exist (no opts.create)",
					    uri);
	}
	state = calloc(1, sizeof(*state));
	if (!state) {
		return -ENOMEM;
	}
	flags |= dev->opts.direct ? FILE_FLAG_NO_BUFFERING : 0;
	state->h = CreateFileA(uri, open_access(&dev->opts), FILE_SHARE_READ | FILE_SHARE_WRITE,
			       NULL, open_disposition(&dev->opts), flags, NULL);
	if (state->h == INVALID_HANDLE_VALUE) {
		DWORD werr = GetLastError();

		free(state);
		err = xnvme_be_windows_errno(werr);
		return xnvme_dev_set_errmsg(dev, -err, "CreateFile('%s'): Win32 error %lu", uri,
					    (unsigned long)werr);
	}
	state->direct = dev->opts.direct;
	state->access = open_access(&dev->opts);
	state->flags = flags;
	state->lba_nbytes = 512;
	dev->ident.dtype = 4; /* a file: the file-system command set */
	dev->ident.nsid = 1;
	dev->ident.csi = XNVME_SPEC_CSI_FS;
	dev->state = state;

	err = xnvme_be_pick_default(dev, "windows", "file", "file", "emu");
	if (err) {
		dev->state = NULL;
		CloseHandle(state->h);
		free(state);
		return err;
	}
	return 0;
}

static void
windows_dev_close(struct xnvme_dev *dev)
{
	struct xnvme_be_windows_state *state = dev->state;

	if (!state) {
		return;
	}
	CloseHandle(state->h);
	free(state);
	dev->state = NULL;
}

static int
windows_enumerate(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
		  void *cb_args)
{
	(void)sys_uri;
	(void)opts;
	(void)cb_func;
	(void)cb_args;
	return -ENOSYS; /* \\.\PhysicalDriveN enumeration comes with the nvme mechanisms */
}

const struct xnvme_be_dev xnvme_be_windows_dev = {
	.enumerate = windows_enumerate,
	.dev_open = windows_dev_open,
	.dev_close = windows_dev_close,
};
