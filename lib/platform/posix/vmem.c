// SPDX-License-Identifier: BSD-3-Clause
/* Lazily committed anonymous memory on POSIX: mmap() and madvise() */
#include <errno.h>
#include <sys/mman.h>
#include "xnvme_plat.h"

#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif

void *
xnvme_plat_vmem_alloc(size_t nbytes)
{
	void *mem = mmap(NULL, nbytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return mem == MAP_FAILED ? NULL : mem;
}

void
xnvme_plat_vmem_free(void *mem, size_t nbytes)
{
	if (mem) {
		munmap(mem, nbytes);
	}
}

int
xnvme_plat_vmem_discard(void *addr, size_t nbytes)
{
#ifdef MADV_DONTNEED
	/* Dropped private anonymous pages read as zeroes */
	return madvise(addr, nbytes, MADV_DONTNEED) ? -errno : 0;
#else
	(void)addr;
	(void)nbytes;
	return -ENOSYS;
#endif
}
