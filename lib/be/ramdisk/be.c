// SPDX-License-Identifier: BSD-3-Clause
/*
 * The ramdisk backend: an in-memory NVMe controller with one NVM namespace of <N> GiB, for
 * URIs of the form "<N>GB". Buffers come from the shared allocators; asynchronous queues are
 * the shared emulations driving the synchronous "ramdisk" mechanism.
 */
#include "ramdisk.h"

static const struct xnvme_be_mem *const ramdisk_mem[] = {
	&xnvme_be_mem_posix,
	&xnvme_be_mem_hugepage,
	NULL,
};

static const struct xnvme_be_admin *const ramdisk_admin[] = {
	&xnvme_be_ramdisk_admin,
	NULL,
};

static const struct xnvme_be_sync *const ramdisk_sync[] = {
	&xnvme_be_ramdisk_sync,
	NULL,
};

static const struct xnvme_be_async *const ramdisk_async[] = {
	&xnvme_be_async_nil,
	&xnvme_be_async_thrpool,
	&xnvme_be_async_emu,
	NULL,
};

const struct xnvme_be xnvme_be_ramdisk = {
	.name = "ramdisk",
	.enabled = true,
	.dev = &xnvme_be_ramdisk_dev,
	.mem = ramdisk_mem,
	.admin = ramdisk_admin,
	.sync = ramdisk_sync,
	.async = ramdisk_async,
};
