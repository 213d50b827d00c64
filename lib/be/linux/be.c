// SPDX-License-Identifier: BSD-3-Clause
/*
 * The Linux backend: files, block devices and NVMe nodes through the kernel.
 *
 * List order matters: with no option given, the first entry of a kind is the generic choice
 * (backends.md §2). The full lists, as the mechanisms get built, are
 *   async: emu, io_uring, io_uring_cmd, libaio, posix, thrpool, nil
 *   sync:  nvme, psync, block
 *   admin: nvme, block, file_as_ns
 * dev_open then applies the per-device-type defaults (§3.3).
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
	&xnvme_be_async_emu,
	&xnvme_be_linux_async_liburing,
	&xnvme_be_linux_async_ucmd,
	&xnvme_be_linux_async_libaio,
	&xnvme_be_linux_async_posix,
	&xnvme_be_async_thrpool,
	&xnvme_be_async_nil,
	NULL,
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
