// SPDX-License-Identifier: BSD-3-Clause
/*
 * The Linux VFIO bus of the vfio driver (vfio_pci.h): only the kernel's VFIO UAPI.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfio_pci.h"

#if defined(__linux__) && __has_include(<linux/vfio.h>)
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/pci_regs.h>
#include <linux/vfio.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#define PCI_MAX_IRQS 64

struct vfio_pci {
	struct vfio_bus bus; ///< first: the bus pointer is the function
	int container;
	int group;
	int device;
	volatile uint8_t *bar0;
	size_t bar0_len;
	pthread_mutex_t irq_lock;
	int nirq; ///< MSI-X vectors enabled, each on its eventfd
	int irq_fds[PCI_MAX_IRQS];
	int req_fd; ///< eventfd of the device request interrupt, -1 until asked for
	struct vfio_bus_range *bars; ///< memory BARs of every PCI function: never IOVAs
};

static uint32_t
pci_read32(struct vfio_bus *bus, uint32_t off)
{
	struct vfio_pci *pci = (struct vfio_pci *)bus;

	return *(volatile uint32_t *)(pci->bar0 + off);
}

static void
pci_write32(struct vfio_bus *bus, uint32_t off, uint32_t val)
{
	struct vfio_pci *pci = (struct vfio_pci *)bus;

	*(volatile uint32_t *)(pci->bar0 + off) = val;
}

static int
pci_dma_map(struct vfio_bus *bus, void *vaddr, size_t len, uint64_t iova)
{
	struct vfio_pci *pci = (struct vfio_pci *)bus;
	struct vfio_iommu_type1_dma_map map = {
		.argsz = sizeof(map),
		.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.vaddr = (uintptr_t)vaddr,
		.iova = iova,
		.size = len,
	};

	/* the kernel pins the pages; ENOMEM here usually means RLIMIT_MEMLOCK */
	return ioctl(pci->container, VFIO_IOMMU_MAP_DMA, &map) ? -errno : 0;
}

static int
pci_dma_unmap(struct vfio_bus *bus, uint64_t iova, size_t len)
{
	struct vfio_pci *pci = (struct vfio_pci *)bus;
	struct vfio_iommu_type1_dma_unmap unmap = {
		.argsz = sizeof(unmap),
		.iova = iova,
		.size = len,
	};

	return ioctl(pci->container, VFIO_IOMMU_UNMAP_DMA, &unmap) ? -errno : 0;
}

/* Enables MSI-X once, every vector (up to PCI_MAX_IRQS) on its own eventfd: kernels before
 * dynamic MSI-X allocation cannot add vectors to an enabled set */
static int
irqs_enable(struct vfio_pci *pci)
{
	struct vfio_irq_info info = {.argsz = sizeof(info), .index = VFIO_PCI_MSIX_IRQ_INDEX};
	struct vfio_irq_set *set;
	int n, err = 0;

	if (ioctl(pci->device, VFIO_DEVICE_GET_IRQ_INFO, &info) || !info.count) {
		return -ENOTSUP;
	}
	n = info.count < PCI_MAX_IRQS ? (int)info.count : PCI_MAX_IRQS;
	set = calloc(1, sizeof(*set) + (size_t)n * sizeof(int));
	if (!set) {
		return -ENOMEM;
	}
	for (int i = 0; i < n && !err; ++i) {
		pci->irq_fds[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		err = pci->irq_fds[i] < 0 ? -errno : 0;
	}
	set->argsz = (uint32_t)(sizeof(*set) + (size_t)n * sizeof(int));
	set->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->index = VFIO_PCI_MSIX_IRQ_INDEX;
	set->start = 0;
	set->count = (uint32_t)n;
	memcpy(set->data, pci->irq_fds, (size_t)n * sizeof(int));
	if (!err && ioctl(pci->device, VFIO_DEVICE_SET_IRQS, set)) {
		err = -errno;
	}
	free(set);
	if (err) {
		for (int i = 0; i < n; ++i) {
			if (pci->irq_fds[i] >= 0) {
				close(pci->irq_fds[i]);
			}
			pci->irq_fds[i] = -1;
		}
		return err;
	}
	pci->nirq = n;
	return 0;
}

/* Points MSI-X `vector` of an enabled set at eventfd `fd` (-1: at nothing) */
static int
irq_set_one(struct vfio_pci *pci, uint16_t vector, int fd)
{
	char buf[sizeof(struct vfio_irq_set) + sizeof(int)];
	struct vfio_irq_set *set = (struct vfio_irq_set *)buf;

	set->argsz = sizeof(buf);
	set->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->index = VFIO_PCI_MSIX_IRQ_INDEX;
	set->start = vector;
	set->count = 1;
	memcpy(set->data, &fd, sizeof(fd));
	return ioctl(pci->device, VFIO_DEVICE_SET_IRQS, set) ? -errno : 0;
}

static int
pci_irq_eventfd(struct vfio_bus *bus, uint16_t vector)
{
	struct vfio_pci *pci = (struct vfio_pci *)bus;
	int ret = 0;

	pthread_mutex_lock(&pci->irq_lock);
	if (!pci->nirq) {
		ret = irqs_enable(pci);
	}
	if (!ret && vector >= pci->nirq) {
		ret = -ENOTSUP;
	}
	if (!ret && pci->irq_fds[vector] < 0) {
		/* MSI-X enabled by pci_irq_set(): this vector has no eventfd of ours yet */
		int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

		ret = fd < 0 ? -errno : irq_set_one(pci, vector, fd);
		if (!ret) {
			pci->irq_fds[vector] = fd;
		} else if (fd >= 0) {
			close(fd);
		}
	}
	if (!ret) {
		ret = pci->irq_fds[vector];
	}
	pthread_mutex_unlock(&pci->irq_lock);
	return ret;
}

/* A secondary's completion eventfd on `vector`: MSI-X is enabled first (every vector, none
 * pointing anywhere) when it is not yet; VFIO keeps its own reference to the eventfd */
static int
pci_irq_set(struct vfio_bus *bus, uint16_t vector, int fd)
{
	struct vfio_pci *pci = (struct vfio_pci *)bus;
	struct vfio_irq_info info = {.argsz = sizeof(info), .index = VFIO_PCI_MSIX_IRQ_INDEX};
	int ret = 0;

	pthread_mutex_lock(&pci->irq_lock);
	if (!pci->nirq) {
		struct vfio_irq_set *set;
		int n;

		if (ioctl(pci->device, VFIO_DEVICE_GET_IRQ_INFO, &info) || !info.count) {
			ret = -ENOTSUP;
			goto out;
		}
		n = info.count < PCI_MAX_IRQS ? (int)info.count : PCI_MAX_IRQS;
		if (vector >= n) {
			ret = -ENOTSUP;
			goto out;
		}
		set = calloc(1, sizeof(*set) + (size_t)n * sizeof(int));
		if (!set) {
			ret = -ENOMEM;
			goto out;
		}
		set->argsz = (uint32_t)(sizeof(*set) + (size_t)n * sizeof(int));
		set->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
		set->index = VFIO_PCI_MSIX_IRQ_INDEX;
		set->count = (uint32_t)n;
		for (int i = 0; i < n; ++i) {
			int one = i == vector ? fd : -1;

			memcpy(set->data + (size_t)i * sizeof(int), &one, sizeof(int));
		}
		ret = ioctl(pci->device, VFIO_DEVICE_SET_IRQS, set) ? -errno : 0;
		free(set);
		if (!ret) {
			pci->nirq = n;
		}
		goto out;
	}
	if (vector >= pci->nirq || pci->irq_fds[vector] >= 0) {
		ret = vector >= pci->nirq ? -ENOTSUP : -EBUSY; /* the vector is this process's */
		goto out;
	}
	ret = irq_set_one(pci, vector, fd);
out:
	pthread_mutex_unlock(&pci->irq_lock);
	return ret;
}

/* The kernel signals VFIO_PCI_REQ_IRQ_INDEX when it wants the function back (hot removal,
 * unbind) and waits until every user has closed it: without this channel it waits forever */
static int
pci_req_eventfd(struct vfio_bus *bus)
{
	struct vfio_pci *pci = (struct vfio_pci *)bus;
	struct vfio_irq_info info = {.argsz = sizeof(info), .index = VFIO_PCI_REQ_IRQ_INDEX};
	struct vfio_irq_set *set;
	int fd, err = 0;

	if (pci->req_fd >= 0) {
		return pci->req_fd;
	}
	if (ioctl(pci->device, VFIO_DEVICE_GET_IRQ_INFO, &info) || !info.count) {
		return -ENOTSUP;
	}
	set = calloc(1, sizeof(*set) + sizeof(int));
	fd = eventfd(0, EFD_CLOEXEC);
	if (!set || fd < 0) {
		err = set ? -errno : -ENOMEM;
		goto out;
	}
	set->argsz = (uint32_t)(sizeof(*set) + sizeof(int));
	set->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->index = VFIO_PCI_REQ_IRQ_INDEX;
	set->start = 0;
	set->count = 1;
	memcpy(set->data, &fd, sizeof(fd));
	if (ioctl(pci->device, VFIO_DEVICE_SET_IRQS, set)) {
		err = -errno;
	}
out:
	free(set);
	if (err) {
		if (fd >= 0) {
			close(fd);
		}
		return err;
	}
	pci->req_fd = fd;
	return fd;
}

/*
 * Lets go of the function while other threads may still touch it: BAR0's mapping is replaced in
 * one step by private memory that reads all-ones (as a removed device does), and the device fd
 * by /dev/null (the fd number stays valid for the other threads); the last reference to the
 * VFIO device goes with them, so the kernel's removal proceeds.
 */
static void
pci_release(struct vfio_bus *bus)
{
	struct vfio_pci *pci = (struct vfio_pci *)bus;
	void *ones = mmap(NULL, pci->bar0_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	int null;

	if (ones == MAP_FAILED) {
		return; /* nothing can be released safely: the removal waits for the close */
	}
	memset(ones, 0xff, pci->bar0_len);
	if (mremap(ones, pci->bar0_len, pci->bar0_len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)pci->bar0) == MAP_FAILED) {
		munmap(ones, pci->bar0_len);
		return;
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, pci->device);
		close(null);
	}
}

/* The container (IOMMU mappings) and the device (BAR0, config space) */
static int
pci_share(struct vfio_bus *bus, int *fds, int max)
{
	struct vfio_pci *pci = (struct vfio_pci *)bus;

	if (max < 2) {
		return -EINVAL;
	}
	fds[0] = pci->container;
	fds[1] = pci->device;
	return 2;
}

static void
pci_destroy(struct vfio_bus *bus)
{
	vfio_pci_close((struct vfio_pci *)bus);
}

static const struct vfio_bus_ops pci_ops = {
	.read32 = pci_read32,
	.write32 = pci_write32,
	.dma_map = pci_dma_map,
	.dma_unmap = pci_dma_unmap,
	.irq_eventfd = pci_irq_eventfd,
	.idle = NULL,
	.req_eventfd = pci_req_eventfd,
	.release = pci_release,
	.share = pci_share,
	.irq_set = pci_irq_set,
	.destroy = pci_destroy,
};

/* A secondary's view of the function: interrupts and the removal request stay with the primary
 * (it routes a queue's vector to the secondary's eventfd, and relays the request) */
static const struct vfio_bus_ops pci_sec_ops = {
	.read32 = pci_read32,
	.write32 = pci_write32,
	.dma_map = pci_dma_map,
	.dma_unmap = pci_dma_unmap,
	.release = pci_release,
	.destroy = pci_destroy,
};

struct vfio_bus *
vfio_pci_bus(struct vfio_pci *pci)
{
	return &pci->bus;
}

/* The basename of a sysfs link of the function (driver, iommu_group) into `out` */
static int
sysfs_link(const char *bdf, const char *name, char *out, size_t len)
{
	char path[256], target[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, name);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		return -errno;
	}
	target[n] = '\0';
	snprintf(out, len, "%s", basename(target));
	return 0;
}

static int
open_group(const char *bdf, struct vfio_pci *pci, char *errmsg, size_t len)
{
	struct vfio_group_status status = {.argsz = sizeof(status)};
	char drv[64] = "", grp[32], path[64];
	int err;

	if (access("/sys/bus/pci/devices", F_OK) == 0) {
		char dir[128];

		snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", bdf);
		if (access(dir, F_OK)) {
			snprintf(errmsg, len, "no PCI function %s", bdf);
			return -ENODEV;
		}
	}
	sysfs_link(bdf, "driver", drv, sizeof(drv));
	if (strcmp(drv, "vfio-pci")) {
		snprintf(errmsg, len,
			 "%s is bound to '%s', not vfio-pci (bind it: see docs/vfio.md, "
			 "xnvme-driver)",
			 bdf, drv[0] ? drv : "no driver");
		return -ENODEV;
	}
	err = sysfs_link(bdf, "iommu_group", grp, sizeof(grp));
	if (err) {
		snprintf(errmsg, len,
			 "%s has no IOMMU group: is the IOMMU enabled "
			 "(intel_iommu=on / amd_iommu=on)?",
			 bdf);
		return -ENODEV;
	}
	snprintf(path, sizeof(path), "/dev/vfio/%s", grp);
	pci->group = open(path, O_RDWR);
	if (pci->group < 0) {
		err = -errno;
		if (err == -EBUSY) {
			snprintf(errmsg, len,
				 "%s: device busy: IOMMU group %s is in use by another "
				 "process",
				 bdf, grp);
		} else if (err == -ENOENT && access("/dev/vfio/noiommu-0", F_OK) == 0) {
			snprintf(errmsg, len, "%s: only no-IOMMU VFIO groups exist: not supported",
				 bdf);
		} else {
			snprintf(errmsg, len, "%s: cannot open %s: %s", bdf, path, strerror(-err));
		}
		return err;
	}
	if (ioctl(pci->group, VFIO_GROUP_GET_STATUS, &status) ||
	    !(status.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		snprintf(errmsg, len,
			 "IOMMU group %s is not viable: bind every function of the "
			 "group to vfio-pci",
			 grp);
		return -EBUSY;
	}
	return 0;
}

static int
open_container(struct vfio_pci *pci, char *errmsg, size_t len)
{
	unsigned long type = VFIO_TYPE1v2_IOMMU;

	pci->container = open("/dev/vfio/vfio", O_RDWR);
	if (pci->container < 0) {
		int err = -errno;

		snprintf(errmsg, len, "cannot open /dev/vfio/vfio: %s", strerror(-err));
		return err;
	}
	if (ioctl(pci->container, VFIO_GET_API_VERSION) != VFIO_API_VERSION) {
		snprintf(errmsg, len, "unsupported VFIO API version");
		return -ENOTSUP;
	}
	if (ioctl(pci->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) <= 0) {
		type = VFIO_TYPE1_IOMMU;
		if (ioctl(pci->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU) <= 0) {
			snprintf(errmsg, len, "the kernel offers no VFIO type1 IOMMU");
			return -ENOTSUP;
		}
	}
	if (ioctl(pci->group, VFIO_GROUP_SET_CONTAINER, &pci->container) ||
	    ioctl(pci->container, VFIO_SET_IOMMU, type)) {
		int err = -errno;

		snprintf(errmsg, len, "cannot attach the IOMMU group: %s", strerror(-err));
		return err;
	}
	return 0;
}

/*
 * Maps BAR0 and enables memory space and bus mastering. No VFIO_DEVICE_RESET: opening the
 * device fd already reset the function (vfio-pci resets it on the first open and reports
 * VFIO_DEVICE_FLAGS_RESET only when that works), so a second reset would only cost another
 * function-level reset, 100 ms or more each (a third of a bring-up under QEMU).
 */
/* Maps BAR0 of the device fd (also in a secondary, from the descriptor its primary shared) */
static int
map_bar0(const char *bdf, struct vfio_pci *pci, char *errmsg, size_t len)
{
	struct vfio_region_info bar = {.argsz = sizeof(bar), .index = VFIO_PCI_BAR0_REGION_INDEX};
	void *mem;

	if (ioctl(pci->device, VFIO_DEVICE_GET_REGION_INFO, &bar) || bar.size < 0x2000 ||
	    !(bar.flags & VFIO_REGION_INFO_FLAG_MMAP)) {
		snprintf(errmsg, len, "%s: BAR0 is missing, too small or not mappable", bdf);
		return -ENODEV;
	}
	mem = mmap(NULL, bar.size, PROT_READ | PROT_WRITE, MAP_SHARED, pci->device,
		   (off_t)bar.offset);
	if (mem == MAP_FAILED) {
		int err = -errno;

		snprintf(errmsg, len, "cannot map BAR0 of %s: %s", bdf, strerror(-err));
		return err;
	}
	pci->bar0 = mem;
	pci->bar0_len = bar.size;
	pci->bus.bar_size = bar.size;
	return 0;
}

static int
setup_device(const char *bdf, struct vfio_pci *pci, char *errmsg, size_t len)
{
	struct vfio_region_info cfg = {.argsz = sizeof(cfg), .index = VFIO_PCI_CONFIG_REGION_INDEX};
	uint16_t cmd;
	int err;

	pci->device = ioctl(pci->group, VFIO_GROUP_GET_DEVICE_FD, bdf);
	if (pci->device < 0) {
		err = -errno;
		snprintf(errmsg, len, "cannot get the VFIO device of %s: %s", bdf, strerror(-err));
		return err;
	}
	err = map_bar0(bdf, pci, errmsg, len);
	if (err) {
		return err;
	}
	if (ioctl(pci->device, VFIO_DEVICE_GET_REGION_INFO, &cfg)) {
		snprintf(errmsg, len, "%s: no PCI config space region", bdf);
		return -ENODEV;
	}
	if (pread(pci->device, &cmd, sizeof(cmd), (off_t)(cfg.offset + PCI_COMMAND)) !=
	    sizeof(cmd)) {
		snprintf(errmsg, len, "cannot read the PCI command register of %s", bdf);
		return -EIO;
	}
	cmd |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	if (pwrite(pci->device, &cmd, sizeof(cmd), (off_t)(cfg.offset + PCI_COMMAND)) !=
	    sizeof(cmd)) {
		snprintf(errmsg, len, "cannot enable bus mastering on %s", bdf);
		return -EIO;
	}
	return 0;
}

/*
 * The memory BARs of every PCI function (sysfs `resource`): a DMA address inside one may be
 * decoded as that device's registers instead of going through the IOMMU (QEMU's NVMe
 * controller answers "Data Transfer Error" for its own), so IOVAs stay clear of them all
 */
static void
collect_bars(struct vfio_pci *pci)
{
	DIR *dir = opendir("/sys/bus/pci/devices");
	struct dirent *ent;
	size_t n = 0, cap = 0;

	while (dir && (ent = readdir(dir))) {
		unsigned long long start, end, flags;
		char path[300];
		FILE *fp;

		if (ent->d_name[0] == '.') {
			continue;
		}
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", ent->d_name);
		fp = fopen(path, "r");
		while (fp && fscanf(fp, "%llx %llx %llx", &start, &end, &flags) == 3) {
			if (!(flags & 0x200) || !start || end <= start) {
				continue; /* IORESOURCE_MEM only, assigned */
			}
			if (n == cap) {
				void *mem = realloc(pci->bars,
						    (cap ? cap * 2 : 32) * sizeof(*pci->bars));

				if (!mem) {
					break;
				}
				pci->bars = mem;
				cap = cap ? cap * 2 : 32;
			}
			pci->bars[n].start = start & ~0xFFFULL;
			pci->bars[n].end = (end | 0xFFFULL) + 1;
			n++;
		}
		if (fp) {
			fclose(fp);
		}
	}
	if (dir) {
		closedir(dir);
	}
	pci->bus.reserved = pci->bars;
	pci->bus.nreserved = n;
}

static struct vfio_pci *
pci_new(void)
{
	struct vfio_pci *pci = calloc(1, sizeof(*pci));

	if (!pci) {
		return NULL;
	}
	pci->container = pci->group = pci->device = pci->req_fd = -1;
	for (int i = 0; i < PCI_MAX_IRQS; ++i) {
		pci->irq_fds[i] = -1;
	}
	pthread_mutex_init(&pci->irq_lock, NULL);
	return pci;
}

int
vfio_pci_open(const char *bdf, struct vfio_pci **out, char *errmsg, size_t errmsg_len)
{
	struct vfio_pci *pci = pci_new();
	int err;

	if (!pci) {
		return -ENOMEM;
	}
	pci->bus.ops = &pci_ops;
	pci->bus.iova_base = 1ULL << 32;  /* above the low reserved windows (MSI, ISA) */
	pci->bus.iova_limit = 1ULL << 39; /* the smallest common IOMMU address width */
	err = open_group(bdf, pci, errmsg, errmsg_len);
	if (!err) {
		err = open_container(pci, errmsg, errmsg_len);
	}
	if (!err) {
		err = setup_device(bdf, pci, errmsg, errmsg_len);
	}
	if (err) {
		vfio_pci_close(pci);
		return err;
	}
	collect_bars(pci);
	*out = pci;
	return 0;
}

int
vfio_pci_import(const int *fds, int nfds, uint64_t bar_size, struct vfio_bus **out, char *errmsg,
		size_t errmsg_len)
{
	struct vfio_pci *pci = nfds == 2 ? pci_new() : NULL;
	int err;

	if (!pci) {
		for (int i = 0; i < nfds; ++i) {
			close(fds[i]);
		}
		snprintf(errmsg, errmsg_len,
			 "the primary shared %d descriptors, not the 2 expected", nfds);
		return nfds == 2 ? -ENOMEM : -EPROTO;
	}
	pci->container = fds[0];
	pci->device = fds[1];
	pci->bus.ops = &pci_sec_ops;
	err = map_bar0("the shared device", pci, errmsg, errmsg_len);
	if (!err && pci->bar0_len != bar_size) {
		snprintf(errmsg, errmsg_len, "BAR0 of the shared device has %zu bytes, not %llu",
			 pci->bar0_len, (unsigned long long)bar_size);
		err = -EPROTO;
	}
	if (err) {
		vfio_pci_close(pci);
		return err;
	}
	*out = &pci->bus;
	return 0;
}

void
vfio_pci_close(struct vfio_pci *pci)
{
	if (!pci) {
		return;
	}
	if (pci->bar0) {
		munmap((void *)pci->bar0, pci->bar0_len);
	}
	if (pci->device >= 0) {
		close(pci->device);
	}
	if (pci->group >= 0) {
		close(pci->group);
	}
	if (pci->container >= 0) {
		close(pci->container);
	}
	for (int i = 0; i < pci->nirq; ++i) {
		close(pci->irq_fds[i]); /* after the device: its interrupts are off by then */
	}
	if (pci->req_fd >= 0) {
		close(pci->req_fd);
	}
	free(pci->bars);
	pthread_mutex_destroy(&pci->irq_lock);
	free(pci);
}

#else /* no VFIO on this platform */

struct vfio_bus *
vfio_pci_bus(struct vfio_pci *pci)
{
	(void)pci;
	return NULL;
}

int
vfio_pci_open(const char *bdf, struct vfio_pci **out, char *errmsg, size_t errmsg_len)
{
	(void)out;
	snprintf(errmsg, errmsg_len, "%s: VFIO is not available on this platform", bdf);
	return -ENOSYS;
}

int
vfio_pci_import(const int *fds, int nfds, uint64_t bar_size, struct vfio_bus **out, char *errmsg,
		size_t errmsg_len)
{
	(void)bar_size;
	(void)out;
	for (int i = 0; i < nfds; ++i) {
		close(fds[i]);
	}
	snprintf(errmsg, errmsg_len, "VFIO is not available on this platform");
	return -ENOSYS;
}

void
vfio_pci_close(struct vfio_pci *pci)
{
	(void)pci;
}

#endif
