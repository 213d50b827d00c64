// SPDX-License-Identifier: BSD-3-Clause
/*
 * Memory mechanism "windows": VirtualAlloc'd buffers, page-aligned (64 KiB allocation
 * granularity), so they satisfy the sector alignment FILE_FLAG_NO_BUFFERING asks for.
 * No physical addresses and no mem-map.
 */
#include <errno.h>
#include "be_windows.h"

static int
mem_check_support(struct xnvme_dev *dev)
{
	(void)dev;
	return 0;
}

static void *
mem_alloc(const struct xnvme_dev *dev, size_t nbytes, uint64_t *phys)
{
	void *buf;

	(void)dev;
	(void)phys;
	if (!nbytes) {
		errno = EINVAL;
		return NULL;
	}
	buf = VirtualAlloc(NULL, nbytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
	if (!buf) {
		errno = ENOMEM;
	}
	return buf;
}

static void *
mem_realloc(const struct xnvme_dev *dev, void *buf, size_t nbytes, uint64_t *phys)
{
	(void)dev;
	(void)buf;
	(void)nbytes;
	(void)phys;
	errno = ENOSYS; /* as mem "posix": a moved buffer would lose its alignment guarantee */
	return NULL;
}

static void
mem_free(const struct xnvme_dev *dev, void *buf)
{
	(void)dev;
	if (buf) {
		VirtualFree(buf, 0, MEM_RELEASE);
	}
}

static int
mem_vtophys(const struct xnvme_dev *dev, void *buf, uint64_t *phys)
{
	(void)dev;
	(void)buf;
	(void)phys;
	return -ENOSYS;
}

static int
mem_map(const struct xnvme_dev *dev, void *vaddr, size_t nbytes)
{
	(void)dev;
	(void)vaddr;
	(void)nbytes;
	return -ENOSYS;
}

static int
mem_unmap(const struct xnvme_dev *dev, void *buf)
{
	(void)dev;
	(void)buf;
	return -ENOSYS;
}

const struct xnvme_be_mem xnvme_be_windows_mem = {
	.name = "windows",
	.check_support = mem_check_support,
	.buf_alloc = mem_alloc,
	.buf_realloc = mem_realloc,
	.buf_free = mem_free,
	.buf_vtophys = mem_vtophys,
	.mem_map = mem_map,
	.mem_unmap = mem_unmap,
};
