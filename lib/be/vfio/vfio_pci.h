/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PCI function bound to vfio-pci as a bus (bus.h): VFIO container with the type1 IOMMU, the
 * function's IOMMU group and device, BAR0 mapped, bus mastering on. Linux only; elsewhere
 * vfio_pci_open() answers -ENOSYS.
 */
#ifndef XNVME_VFIO_PCI_H
#define XNVME_VFIO_PCI_H

#include <stddef.h>
#include <stdint.h>

#include "bus.h"

struct vfio_pci;

/** The bus of an opened function: valid until vfio_pci_close() */
struct vfio_bus *
vfio_pci_bus(struct vfio_pci *pci);

/**
 * Opens `bdf` ("DDDD:BB:DD.F"). -ENODEV: no such function or not bound to vfio-pci; -EBUSY:
 * its IOMMU group is open in another process; -EACCES: no permission on /dev/vfio/<group>;
 * reasons in errmsg.
 */
int
vfio_pci_open(const char *bdf, struct vfio_pci **out, char *errmsg, size_t errmsg_len);

/**
 * A secondary's bus (vfio_bus_import_fn) from the container and device descriptors its primary
 * shared: BAR0 mapped, IOMMU mappings made through the shared container. Interrupt routing and
 * the removal request stay with the primary.
 */
int
vfio_pci_import(const int *fds, int nfds, uint64_t bar_size, struct vfio_bus **out, char *errmsg,
		size_t errmsg_len);

void
vfio_pci_close(struct vfio_pci *pci);

#endif /* XNVME_VFIO_PCI_H */
