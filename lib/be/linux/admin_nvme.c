// SPDX-License-Identifier: BSD-3-Clause
/*
 * Admin mechanism "nvme": admin commands through the NVMe admin passthrough ioctl on the
 * handle's node (controller, namespace block device or generic char device), and the topology
 * pseudo-commands: controller reset, subsystem reset and namespace rescan are ioctls of the
 * controller node (/dev/nvmeX, found through sysfs from a namespace handle); the controller
 * registers come from the PCI function's BAR0 (sysfs resource0) for PCIe controllers.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/nvme_ioctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "be_linux_nvme.h"

#define REGS_NBYTES 4096

static int
nadmin_cmd_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		 size_t mbuf_nbytes)
{
	xnvme_be_linux_nvme_buf(&dbuf, &dbuf_nbytes);
	xnvme_be_linux_nvme_buf(&mbuf, &mbuf_nbytes);
	return xnvme_be_linux_nvme_pass(ctx, XNVME_BE_LINUX_PASS_ADMIN, dbuf, dbuf_nbytes, mbuf,
					mbuf_nbytes);
}

/* The controller node's fd: the handle's own, or a fresh one the caller closes (*own) */
static int
ctrlr_open(const struct xnvme_be_linux_state *state, bool *own)
{
	char path[XNVME_BE_LINUX_NAME_LEN + 8];
	int fd;

	*own = false;
	if (state->ctrlr) {
		return state->fd;
	}
	if (!state->ctrlr_name[0]) {
		return -ENODEV;
	}
	snprintf(path, sizeof(path), "/dev/%s", state->ctrlr_name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		return -errno;
	}
	*own = true;
	return fd;
}

static int
ctrlr_ioctl(const struct xnvme_be_linux_state *state, unsigned long req)
{
	bool own;
	int fd, err = 0;

	fd = ctrlr_open(state, &own);
	if (fd < 0) {
		return fd;
	}
	if (ioctl(fd, req) < 0) {
		err = -errno;
	}
	if (own) {
		close(fd);
	}
	return err;
}

/*
 * BAR0 through sysfs. The kernel offers read() only for I/O-port BARs, so a memory BAR is
 * mapped; each register is then read with one aligned 32-bit load, as MMIO wants.
 * Mapping fails (EINVAL) on kernels with CONFIG_IO_STRICT_DEVMEM while the nvme driver owns the
 * BAR, unless booted with iomem=relaxed; EPERM under kernel lockdown.
 */
static int
read_registers(const struct xnvme_be_linux_state *state, void *buf, size_t nbytes)
{
	char transport[32] = "", path[128];
	const volatile uint32_t *regs;
	uint32_t *dst = buf;
	void *map;
	int fd, err = 0;

	if (!buf || nbytes < REGS_NBYTES) {
		return -EINVAL;
	}
	if (!state->ctrlr_name[0]) {
		return -ENODEV;
	}
	if (!xnvme_be_linux_sysfs_read(transport, sizeof(transport), "/sys/class/nvme/%s/transport",
				       state->ctrlr_name) &&
	    strcmp(transport, "pcie")) {
		return -ENOSYS; /* fabrics, loop: no register file to read */
	}
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/device/resource0", state->ctrlr_name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return errno == ENOENT ? -ENOSYS : -errno;
	}
	if (pread(fd, buf, REGS_NBYTES, 0) == REGS_NBYTES) {
		close(fd);
		return 0;
	}
	map = mmap(NULL, REGS_NBYTES, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	regs = map;
	for (size_t i = 0; i < REGS_NBYTES / sizeof(uint32_t); ++i) {
		dst[i] = regs[i];
	}
	munmap(map, REGS_NBYTES);
	close(fd);
	return 0;
}

static int
nadmin_pseudo(struct xnvme_dev *dev, enum xnvme_be_pseudo op, void *buf, size_t nbytes)
{
	const struct xnvme_be_linux_state *state = dev->state;

	switch (op) {
	case XNVME_BE_PSEUDO_SUBSYSTEM_RESET:
		return ctrlr_ioctl(state, NVME_IOCTL_SUBSYS_RESET);
	case XNVME_BE_PSEUDO_CONTROLLER_RESET:
		return ctrlr_ioctl(state, NVME_IOCTL_RESET);
	case XNVME_BE_PSEUDO_NAMESPACE_RESCAN:
		return ctrlr_ioctl(state, NVME_IOCTL_RESCAN);
	case XNVME_BE_PSEUDO_GET_REGISTERS:
		return read_registers(state, buf, nbytes);
	default:
		return -ENOSYS;
	}
}

const struct xnvme_be_admin xnvme_be_linux_admin_nvme = {
	.name = "nvme",
	.check_support = xnvme_be_linux_nvme_check,
	.cmd_admin = nadmin_cmd_admin,
	.pseudo = nadmin_pseudo,
};
