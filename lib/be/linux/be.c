// SPDX-License-Identifier: BSD-3-Clause
/*
 * The Linux backend: files, block devices and NVMe nodes through the kernel.
 *
 * The lists name every mechanism of the backend, also those whose library is absent from the
 * build (they answer -ENOSYS when chosen). Their order is the order listings show and picks
 * nothing: a mechanism the caller names is found by name, and for the kinds left automatic
 * dev.c (pick_defaults) chooses by device type (docs/linux.md, docs/backends.md).
 */
#include "be_linux.h"

static const struct xnvme_be_mem *const linux_mem[] = {
	&xnvme_be_mem_posix,
	&xnvme_be_mem_hugepage,
	NULL,
};

static const struct xnvme_be_admin *const linux_admin[] = {
	&xnvme_be_linux_admin_nvme,
	&xnvme_be_linux_admin_block,
	&xnvme_be_linux_admin_file,
	NULL,
};

static const struct xnvme_be_sync *const linux_sync[] = {
	&xnvme_be_linux_sync_nvme,
	&xnvme_be_linux_sync_psync,
	&xnvme_be_linux_sync_block,
	NULL,
};

static const struct xnvme_be_async *const linux_async[] = {
	&xnvme_be_async_emu,         &xnvme_be_linux_async_liburing,
	&xnvme_be_linux_async_ucmd,  &xnvme_be_linux_async_libaio,
	&xnvme_be_linux_async_posix, &xnvme_be_async_thrpool,
	&xnvme_be_async_nil,         NULL,
};

const struct xnvme_be xnvme_be_linux = {
	.name = "linux",
	.enabled = true,
	.dev = &xnvme_be_linux_dev,
	.mem = linux_mem,
	.admin = linux_admin,
	.sync = linux_sync,
	.async = linux_async,
};
