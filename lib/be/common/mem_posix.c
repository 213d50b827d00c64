// SPDX-License-Identifier: BSD-3-Clause
/*
 * Memory mechanism "posix": page-aligned heap buffers for OS backends, which need no
 * physical addresses. Sizes are rounded up to whole pages because clients read a full LBA
 * into buffers they asked a few bytes of (libxnvme_buf.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "xnvme_be.h"
#include "xnvme_plat.h"

static int
mem_posix_check_support(struct xnvme_dev *dev)
{
	(void)dev;
	return 0;
}

static void *
mem_posix_buf_alloc(const struct xnvme_dev *dev, size_t nbytes, uint64_t *phys)
{
	size_t pgsz = xnvme_plat_pagesize();

	(void)dev;
	(void)phys; /* no physical addresses; *phys is left as the caller set it */

	if (!nbytes) {
		errno = EINVAL;
		return NULL;
	}
	if (nbytes > SIZE_MAX - pgsz) {
		errno = ENOMEM;
		return NULL;
	}
	nbytes = (nbytes + pgsz - 1) & ~(pgsz - 1);

	return xnvme_plat_aligned_alloc(pgsz, nbytes);
}

static void *
mem_posix_buf_realloc(const struct xnvme_dev *dev, void *buf, size_t nbytes, uint64_t *phys)
{
	(void)dev;
	(void)buf;
	(void)nbytes;
	(void)phys;

	/* realloc() would lose the page alignment; the original does not offer it either */
	errno = ENOSYS;
	return NULL;
}

static void
mem_posix_buf_free(const struct xnvme_dev *dev, void *buf)
{
	(void)dev;
	xnvme_plat_aligned_free(buf);
}

static int
mem_posix_buf_vtophys(const struct xnvme_dev *dev, void *buf, uint64_t *phys)
{
	(void)dev;
	(void)buf;
	(void)phys;
	return -ENOSYS;
}

static int
mem_posix_mem_map(const struct xnvme_dev *dev, void *vaddr, size_t nbytes)
{
	(void)dev;
	(void)vaddr;
	(void)nbytes;
	return -ENOSYS;
}

static int
mem_posix_mem_unmap(const struct xnvme_dev *dev, void *buf)
{
	(void)dev;
	(void)buf;
	return -ENOSYS;
}

const struct xnvme_be_mem xnvme_be_mem_posix = {
	.name = "posix",
	.check_support = mem_posix_check_support,
	.buf_alloc = mem_posix_buf_alloc,
	.buf_realloc = mem_posix_buf_realloc,
	.buf_free = mem_posix_buf_free,
	.buf_vtophys = mem_posix_buf_vtophys,
	.mem_map = mem_posix_mem_map,
	.mem_unmap = mem_posix_mem_unmap,
};
