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
int xnvme_subsystem_reset(struct xnvme_dev *dev);
int xnvme_controller_reset(struct xnvme_dev *dev);
int xnvme_namespace_rescan(struct xnvme_dev *dev);
/** Reads the 4096-byte controller register block (BAR0) into `bar` */
int xnvme_controller_get_registers(struct xnvme_dev *dev, struct xnvme_spec_ctrlr_bar *bar);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_TOPOLOGY_H */
