// SPDX-License-Identifier: BSD-3-Clause
/*
 * The vfio backend: the library's own user-space NVMe PCIe driver on Linux VFIO. Enabled where
 * the VFIO UAPI exists; elsewhere it stays in the registry disabled.
 */
#include "vfio.h"

static const struct xnvme_be_mem *const vfio_mem[] = {&xnvme_be_vfio_mem, NULL};
static const struct xnvme_be_admin *const vfio_admin[] = {&xnvme_be_vfio_admin, NULL};
static const struct xnvme_be_sync *const vfio_sync[] = {&xnvme_be_vfio_sync, NULL};
static const struct xnvme_be_async *const vfio_async[] = {&xnvme_be_vfio_async, NULL};

const struct xnvme_be xnvme_be_vfio = {
	.name = "vfio",
#if defined(__linux__) && __has_include(<linux/vfio.h>)
	.enabled = true,
#else
	.enabled = false,
#endif
	.dev = &xnvme_be_vfio_dev,
	.mem = vfio_mem,
	.admin = vfio_admin,
	.sync = vfio_sync,
	.async = vfio_async,
};

int
vfio_check_support(struct xnvme_dev *dev)
{
	if (dev->be != &xnvme_be_vfio || !dev->state) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP, "the device is not opened through vfio");
	}
	return 0;
}
