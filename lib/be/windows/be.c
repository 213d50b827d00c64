// SPDX-License-Identifier: BSD-3-Clause
/*
 * The windows backend. The device open picks the defaults per device kind ("nvme" for disks,
 * "block" with sync "file" for disks that answer no NVMe query, "file" for files); "io_ring"
 * refuses with its reason where the OS lacks it.
 */
#include "be_windows.h"

static const struct xnvme_be_mem *const windows_mem[] = {
	&xnvme_be_windows_mem,
	NULL,
};

static const struct xnvme_be_admin *const windows_admin[] = {
	&xnvme_be_windows_admin_nvme,
	&xnvme_be_windows_admin_block,
	&xnvme_be_windows_admin_file,
	NULL,
};

static const struct xnvme_be_sync *const windows_sync[] = {
	&xnvme_be_windows_sync_nvme,
	&xnvme_be_windows_sync_file,
	NULL,
};

static const struct xnvme_be_async *const windows_async[] = {
	&xnvme_be_async_emu,
	&xnvme_be_async_thrpool,
	&xnvme_be_windows_async_iocp,
	&xnvme_be_windows_async_iocp_th,
	&xnvme_be_windows_async_ioring,
	&xnvme_be_async_nil,
	NULL,
};

const struct xnvme_be xnvme_be_windows = {
	.name = "windows",
	.enabled = true,
	.dev = &xnvme_be_windows_dev,
	.mem = windows_mem,
	.admin = windows_admin,
	.sync = windows_sync,
	.async = windows_async,
};
