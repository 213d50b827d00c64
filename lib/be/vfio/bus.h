/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "bus" the controller layer drives: 32-bit register access to BAR0 and IOMMU mapping of
 * DMA memory. The Linux VFIO function (vfio_pci.c) and the unit suite's in-memory fake
 * controller (tests/) both implement it, so the queue, PRP, phase and CID logic run unchanged
 * on the host without hardware.
 */
#ifndef XNVME_VFIO_BUS_H
#define XNVME_VFIO_BUS_H

#include <stddef.h>
#include <stdint.h>

struct vfio_bus;

struct vfio_bus_ops {
	/** reads the 32-bit register at byte offset `off` of BAR0 */
	uint32_t (*read32)(struct vfio_bus *bus, uint32_t off);
	/** writes the 32-bit register at `off`: doorbells and CC; ordered after prior stores */
	void (*write32)(struct vfio_bus *bus, uint32_t off, uint32_t val);
	/** makes [vaddr, vaddr+len) reachable by the device at `iova`; 0 or negative errno */
	int (*dma_map)(struct vfio_bus *bus, void *vaddr, size_t len, uint64_t iova);
	/** removes the mapping made at `iova` */
	int (*dma_unmap)(struct vfio_bus *bus, uint64_t iova, size_t len);
	/**
	 * optional: an eventfd signalled by MSI-X `vector` (owned by the bus, closed with it), or
	 * negative errno; NULL: the bus has no interrupts
	 */
	int (*irq_eventfd)(struct vfio_bus *bus, uint16_t vector);
	/** optional (NULL on hardware): lets a simulated controller run, called by idle polls */
	void (*idle)(struct vfio_bus *bus);
};

struct vfio_bus {
	const struct vfio_bus_ops *ops;
	uint64_t iova_base;  ///< first IOVA handed out (above the low reserved ranges)
	uint64_t iova_limit; ///< one past the last usable IOVA (IOMMU address width)
};

static inline uint32_t
vfio_bus_read32(struct vfio_bus *bus, uint32_t off)
{
	return bus->ops->read32(bus, off);
}

static inline void
vfio_bus_write32(struct vfio_bus *bus, uint32_t off, uint32_t val)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* queue entries visible before the doorbell */
	bus->ops->write32(bus, off, val);
}

/** 64-bit registers as two 32-bit accesses, low half first (allowed for CAP, ASQ, ACQ) */
static inline uint64_t
vfio_bus_read64(struct vfio_bus *bus, uint32_t off)
{
	uint64_t lo = vfio_bus_read32(bus, off);

	return lo | ((uint64_t)vfio_bus_read32(bus, off + 4) << 32);
}

static inline void
vfio_bus_write64(struct vfio_bus *bus, uint32_t off, uint64_t val)
{
	vfio_bus_write32(bus, off, (uint32_t)val);
	vfio_bus_write32(bus, off + 4, (uint32_t)(val >> 32));
}

#endif /* XNVME_VFIO_BUS_H */
