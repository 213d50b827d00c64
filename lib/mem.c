// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include "xnvme_be.h"

int
xnvme_mem_map(const struct xnvme_dev *dev, void *vaddr, size_t nbytes)
{
	if (!dev || !vaddr || !nbytes) {
		return -EINVAL;
	}
	return dev->mem->mem_map(dev, vaddr, nbytes);
}

int
xnvme_mem_unmap(const struct xnvme_dev *dev, void *buf)
{
	if (!dev || !buf) {
		return -EINVAL;
	}
	return dev->mem->mem_unmap(dev, buf);
}
