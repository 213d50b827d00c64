// SPDX-License-Identifier: BSD-3-Clause
/*
 * Topology pseudo-commands, executed by the admin mechanism (never sent as NVMe commands).
 */
#include <errno.h>
#include "xnvme_be.h"

static int
pseudo(struct xnvme_dev *dev, enum xnvme_be_pseudo op, void *buf, size_t nbytes)
{
	if (!dev) {
		return -EINVAL;
	}
	return dev->admin->pseudo(dev, op, buf, nbytes);
}

int
xnvme_subsystem_reset(struct xnvme_dev *dev)
{
	return pseudo(dev, XNVME_BE_PSEUDO_SUBSYSTEM_RESET, NULL, 0);
}

int
xnvme_controller_reset(struct xnvme_dev *dev)
{
	return pseudo(dev, XNVME_BE_PSEUDO_CONTROLLER_RESET, NULL, 0);
}

int
xnvme_namespace_rescan(struct xnvme_dev *dev)
{
	return pseudo(dev, XNVME_BE_PSEUDO_NAMESPACE_RESCAN, NULL, 0);
}

int
xnvme_controller_get_registers(struct xnvme_dev *dev, struct xnvme_spec_ctrlr_bar *bar)
{
	if (!bar) {
		return -EINVAL;
	}
	return pseudo(dev, XNVME_BE_PSEUDO_GET_REGISTERS, bar, sizeof(*bar));
}
