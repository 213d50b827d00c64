/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Topology operations executed by the admin mechanism (not NVMe commands): subsystem and
 * controller reset, namespace rescan and reading the controller registers.
 */
#ifndef LIBXNVME_TOPOLOGY_H
#define LIBXNVME_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>
#include "libxnvme_util.h"
#include "libxnvme_spec.h"
#include "libxnvme_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Declared for compatibility; no function uses these three */
struct xnvme_subsystem {
	struct xnvme_dev *dev;
	struct xnvme_dev *controllers;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_subsystem) == 16, "Incorrect size")

struct xnvme_controller {
	struct xnvme_dev *dev;
	struct xnvme_dev *namespaces;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_controller) == 16, "Incorrect size")

struct xnvme_namespace {
	struct xnvme_dev *dev;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_namespace) == 8, "Incorrect size")

/*
 * Thread safety: safe to call from any thread, also while others use the handle, but the
 * resets and the rescan act on the whole controller or subsystem: commands of every handle
 * in flight may fail, so quiesce I/O first and re-derive the geometry afterwards. Reading the
 * registers is safe concurrently with anything.
 */
/**
 * NVM Subsystem Reset of the subsystem behind `dev` (Linux NVMe: an ioctl of the controller node
 * /dev/nvmeX). @return 0, -EINVAL for a NULL dev, -ENOSYS where the admin mechanism has no such
 * operation (block devices, files), -ENODEV without a controller node, or the negative errno of
 * the ioctl (e.g. -EACCES). The ramdisk accepts it and does nothing. Thread safety: see above.
 */
int
xnvme_subsystem_reset(struct xnvme_dev *dev);

/**
 * Controller Reset of the controller behind `dev`. @return as xnvme_subsystem_reset(). Thread
 * safety: see above.
 */
int
xnvme_controller_reset(struct xnvme_dev *dev);

/**
 * Asks the driver to rescan the controller's namespaces (new, removed or reformatted namespaces
 * appear). @return as xnvme_subsystem_reset(). Thread safety: see above.
 */
int
xnvme_namespace_rescan(struct xnvme_dev *dev);

/**
 * Reads the 4096-byte controller register block (BAR0: CAP, VS, CC, CSTS, ...) into `bar`; Linux
 * NVMe reads it from the PCI function's sysfs resource0 (root only), the ramdisk returns emulated
 * registers. @return 0, -EINVAL for a NULL argument, -ENOSYS where there are no registers to read
 * (block devices, files, fabrics), or a negative errno (e.g. -EACCES, -EPERM under kernel
 * lockdown). Thread safety: see above.
 */
int
xnvme_controller_get_registers(struct xnvme_dev *dev, struct xnvme_spec_ctrlr_bar *bar);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_TOPOLOGY_H */
