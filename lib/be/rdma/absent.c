// SPDX-License-Identifier: BSD-3-Clause
/*
 * The "rdma" backend in a build without rdma-core (libibverbs, librdmacm and their headers):
 * registered by name, refusing use (-ENOSYS, "backend is not built into this library").
 */
#include "xnvme_be.h"

const struct xnvme_be xnvme_be_rdma = {.name = "rdma", .enabled = false};
