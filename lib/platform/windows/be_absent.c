// SPDX-License-Identifier: BSD-3-Clause
/*
 * What is not built on Windows: the Linux backend, the vfio driver (the kernel's VFIO UAPI),
 * the tcp initiator (POSIX sockets) and the hugepage memory mechanism (hugetlbfs). Each is
 * registered by name and refuses use.
 */
#include <errno.h>
#include "xnvme_be.h"

const struct xnvme_be xnvme_be_linux = {.name = "linux", .enabled = false};
const struct xnvme_be xnvme_be_vfio = {.name = "vfio", .enabled = false};
const struct xnvme_be xnvme_be_tcp = {.name = "tcp", .enabled = false};

static int
hugepage_absent(struct xnvme_dev *dev)
{
	return xnvme_dev_set_errmsg(dev, -ENOSYS, "mem 'hugepage' needs Linux hugetlbfs");
}

const struct xnvme_be_mem xnvme_be_mem_hugepage = {
	.name = "hugepage",
	.check_support = hugepage_absent,
};
