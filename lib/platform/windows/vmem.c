// SPDX-License-Identifier: BSD-3-Clause
/*
 * Lazily committed memory on Windows: committed pages are zero-filled on first touch, so the
 * physical cost follows what is written (the commit charge is the whole size).
 */
#include <errno.h>
#include <windows.h>
#include "xnvme_plat.h"

void *
xnvme_plat_vmem_alloc(size_t nbytes)
{
	void *mem = VirtualAlloc(NULL, nbytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);

	if (!mem) {
		errno = ENOMEM;
	}
	return mem;
}

void
xnvme_plat_vmem_free(void *mem, size_t nbytes)
{
	(void)nbytes; /* MEM_RELEASE frees the whole reservation */
	if (mem) {
		VirtualFree(mem, 0, MEM_RELEASE);
	}
}

int
xnvme_plat_vmem_discard(void *addr, size_t nbytes)
{
	/* Decommitted then recommitted pages read as zeroes */
	if (!VirtualFree(addr, nbytes, MEM_DECOMMIT)) {
		return -EINVAL;
	}
	if (!VirtualAlloc(addr, nbytes, MEM_COMMIT, PAGE_READWRITE)) {
		return -ENOMEM;
	}
	return 0;
}
