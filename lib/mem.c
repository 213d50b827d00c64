// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include "xnvme_be.h"
#include "xnvme_bufreg.h"

int
xnvme_mem_map(const struct xnvme_dev *dev, void *vaddr, size_t nbytes)
{
	int err;

	if (!dev || !vaddr || !nbytes) {
		return -EINVAL;
	}
	err = dev->mem->mem_map(dev, vaddr, nbytes);
	if (!err) {
		xnvme_bufreg_add(vaddr, nbytes);
	}
	return err;
}

int
xnvme_mem_unmap(const struct xnvme_dev *dev, void *buf)
{
	if (!dev || !buf) {
		return -EINVAL;
	}
	xnvme_bufreg_del(buf);
	return dev->mem->mem_unmap(dev, buf);
}
