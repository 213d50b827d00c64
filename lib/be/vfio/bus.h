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
	/**
	 * removes every mapping that lies inside [iova, iova+len): the one made at `iova`, or all
	 * those of a window (a primary reclaiming a dead secondary's); 0 or negative errno
	 */
	int (*dma_unmap)(struct vfio_bus *bus, uint64_t iova, size_t len);
	/**
	 * optional: an eventfd signalled by MSI-X `vector` (owned by the bus, closed with it), or
	 * negative errno; NULL: the bus has no interrupts
	 */
	int (*irq_eventfd)(struct vfio_bus *bus, uint16_t vector);
	/** optional (NULL on hardware): lets a simulated controller run, called by idle polls */
	void (*idle)(struct vfio_bus *bus);
	/**
	 * optional: an eventfd (owned by the bus) that the OS signals when it wants the device
	 * back (hot removal, unbind); negative errno when there is none
	 */
	int (*req_eventfd)(struct vfio_bus *bus);
	/**
	 * optional: lets go of the device at once, from any thread: afterwards every register
	 * reads all-ones and writes are dropped, as for a device that is gone
	 */
	void (*release)(struct vfio_bus *bus);
	/**
	 * optional, multi-process primary: the descriptors another process needs to reach the
	 * device (sent to its secondaries), at most `max` into fds; their count or negative errno
	 */
	int (*share)(struct vfio_bus *bus, int *fds, int max);
	/**
	 * optional, multi-process primary: MSI-X `vector` signals eventfd `fd` (of a secondary's
	 * queue), or nothing when fd is -1; 0 or negative errno
	 */
	int (*irq_set)(struct vfio_bus *bus, uint16_t vector, int fd);
	/** optional: frees a bus that a secondary made from shared descriptors (bus_import) */
	void (*destroy)(struct vfio_bus *bus);
};

/** A range of bus addresses [start, end) */
struct vfio_bus_range {
	uint64_t start;
	uint64_t end;
};

struct vfio_bus {
	const struct vfio_bus_ops *ops;
	uint64_t iova_base;  ///< first IOVA handed out (above the low reserved ranges)
	uint64_t iova_limit; ///< one past the last usable IOVA (IOMMU address width)
	uint64_t bar_size;   ///< bytes of BAR0 the bus can access (doorbells must lie below)
	/**
	 * IOVA ranges never handed out, in any order: PCI memory (BARs), where a DMA address
	 * may reach a device's registers instead of the IOMMU (a controller refuses its own)
	 */
	const struct vfio_bus_range *reserved;
	size_t nreserved;
};

/**
 * Makes a bus in a secondary from the descriptors its primary shared (ops->share) and the size
 * of BAR0: 0 with *out (freed by ops->destroy, which closes the descriptors), or negative errno
 * with the reason in errmsg (the descriptors are closed then too)
 */
typedef int (*vfio_bus_import_fn)(const int *fds, int nfds, uint64_t bar_size,
				  struct vfio_bus **out, char *errmsg, size_t errmsg_len);

/*
 * Orders the CPU's earlier stores to normal (write-back) memory, the queue entries, before a
 * following store to the device's BAR, the doorbell. x86-64 keeps stores in program order, also
 * between write-back memory and an uncached mapping, so stopping the compiler is enough. Weakly
 * ordered CPUs need a store barrier that covers device memory (as Linux's wmb()): arm64
 * "dmb oshst", POWER "sync"; elsewhere a full fence is the portable fallback.
 */
static inline void
vfio_bus_wmb(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#elif defined(__aarch64__)
	__asm__ __volatile__("dmb oshst" ::: "memory");
#elif defined(__powerpc64__) || defined(__powerpc__)
	__asm__ __volatile__("sync" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline uint32_t
vfio_bus_read32(struct vfio_bus *bus, uint32_t off)
{
	return bus->ops->read32(bus, off);
}

static inline void
vfio_bus_write32(struct vfio_bus *bus, uint32_t off, uint32_t val)
{
	vfio_bus_wmb(); /* queue entries visible before the doorbell */
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
