// SPDX-License-Identifier: BSD-3-Clause
/*
 * The windows backend. The first entry of each kind is the default. Mechanisms not built yet
 * (sync/admin "nvme", admin "block", async "iocp_th") are absent from the lists, so naming
 * them fails the open with -ENOSYS; "io_ring" is listed and refuses with its reason.
 */
#include "be_windows.h"

static const struct xnvme_be_mem *const windows_mem[] = {
	&xnvme_be_windows_mem,
	NULL,
};

static const struct xnvme_be_admin *const windows_admin[] = {
	&xnvme_be_windows_admin_file,
	NULL,
};

static const struct xnvme_be_sync *const windows_sync[] = {
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
