// SPDX-License-Identifier: BSD-3-Clause
/*
 * The "tcp" backend: a user-space NVMe/TCP initiator for URIs "traddr:trsvcid" and
 * "[v6addr]:trsvcid" (docs/fabrics.md). Async queues are NVMe I/O queues on their own
 * connections; the thread-pool and emulated queues drive the synchronous connection instead.
 */
#include "tcp.h"

static const struct xnvme_be_mem *const tcp_mem[] = {
	&xnvme_be_mem_posix,
	&xnvme_be_mem_hugepage,
	NULL,
};

static const struct xnvme_be_admin *const tcp_admin[] = {
	&xnvme_be_tcp_admin,
	NULL,
};

static const struct xnvme_be_sync *const tcp_sync[] = {
	&xnvme_be_tcp_sync,
	NULL,
};

static const struct xnvme_be_async *const tcp_async[] = {
	&xnvme_be_tcp_async,
	&xnvme_be_async_thrpool,
	&xnvme_be_async_emu,
	&xnvme_be_async_nil,
	NULL,
};

const struct xnvme_be xnvme_be_tcp = {
	.name = "tcp",
	.enabled = true,
	.dev = &xnvme_be_tcp_dev,
	.mem = tcp_mem,
	.admin = tcp_admin,
	.sync = tcp_sync,
	.async = tcp_async,
};

int
xnvme_be_tcp_check_support(struct xnvme_dev *dev)
{
	if (dev->be != &xnvme_be_tcp || !dev->state) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP, "the device is not opened through tcp");
	}
	return 0;
}
