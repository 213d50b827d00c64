// SPDX-License-Identifier: BSD-3-Clause
/* The platform interface on Windows (mingw-w64 or MSYS2: winpthreads for threads). */
#include <errno.h>
#include <malloc.h>
#include <windows.h>
#include "xnvme_plat.h"

void *
xnvme_plat_aligned_alloc(size_t alignment, size_t nbytes)
{
	void *buf;

	if (!alignment || (alignment & (alignment - 1))) {
		errno = EINVAL;
		return NULL;
	}
	buf = _aligned_malloc(nbytes ? nbytes : 1, alignment);
	if (!buf) {
		errno = ENOMEM;
	}
	return buf;
}

void
xnvme_plat_aligned_free(void *buf)
{
	_aligned_free(buf);
}

size_t
xnvme_plat_pagesize(void)
{
	SYSTEM_INFO si;

	GetSystemInfo(&si);
	return si.dwPageSize;
}

int
xnvme_plat_thread_create(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	/* Windows delivers console events on a thread of their own: nothing to block */
	return pthread_create(thread, NULL, fn, arg);
}

unsigned int
xnvme_plat_ncpus(void)
{
	SYSTEM_INFO si;

	GetSystemInfo(&si);
	return si.dwNumberOfProcessors ? (unsigned int)si.dwNumberOfProcessors : 1;
}

long
xnvme_plat_thread_nblocked(void)
{
	return -1;
}

int
xnvme_plat_windows_errno(unsigned long werr)
{
	switch (werr) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
	case ERROR_UNABLE_TO_REMOVE_REPLACED:
	case ERROR_UNABLE_TO_MOVE_REPLACEMENT:
		return EACCES;
	case ERROR_WRITE_PROTECT:
		return EROFS;
	case ERROR_FILENAME_EXCED_RANGE:
		return ENAMETOOLONG;
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
