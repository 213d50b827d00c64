// SPDX-License-Identifier: BSD-3-Clause
/* Backends of other operating systems: registered by name, not built here. */
#include "xnvme_be.h"

const struct xnvme_be xnvme_be_windows = {.name = "windows", .enabled = false};
