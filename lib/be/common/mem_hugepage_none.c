// SPDX-License-Identifier: BSD-3-Clause
/*
 * Memory mechanism "hugepage" where there is no hugetlbfs (Windows): the table of
 * mem_hugepage.c, refusing every device (check_support), every entry point defined.
 */
#include <errno.h>
#include "xnvme_be.h"

static int
none_check_support(struct xnvme_dev *dev)
{
	return xnvme_dev_set_errmsg(dev, -ENOSYS, "mem 'hugepage' needs Linux hugetlbfs");
}

static void *
none_alloc(const struct xnvme_dev *dev, size_t nbytes, uint64_t *phys)
{
	(void)dev;
	(void)nbytes;
	(void)phys;
	errno = ENOSYS;
	return NULL;
}

static void *
none_realloc(const struct xnvme_dev *dev, void *buf, size_t nbytes, uint64_t *phys)
{
	(void)buf;
	return none_alloc(dev, nbytes, phys);
}

static void
none_free(const struct xnvme_dev *dev, void *buf)
{
	(void)dev;
	(void)buf;
}

static int
none_vtophys(const struct xnvme_dev *dev, void *buf, uint64_t *phys)
{
	(void)dev;
	(void)buf;
	(void)phys;
	return -ENOSYS;
}

static int
none_map(const struct xnvme_dev *dev, void *vaddr, size_t nbytes)
{
	(void)dev;
	(void)vaddr;
	(void)nbytes;
	return -ENOSYS;
}

static int
none_unmap(const struct xnvme_dev *dev, void *buf)
{
	(void)dev;
	(void)buf;
	return -ENOSYS;
}

const struct xnvme_be_mem xnvme_be_mem_hugepage = {
	.name = "hugepage",
	.check_support = none_check_support,
	.buf_alloc = none_alloc,
	.buf_realloc = none_realloc,
	.buf_free = none_free,
	.buf_vtophys = none_vtophys,
	.mem_map = none_map,
	.mem_unmap = none_unmap,
};
