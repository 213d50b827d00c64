// SPDX-License-Identifier: BSD-3-Clause
#ifndef XNVME_PLAT_OS_H
#define XNVME_PLAT_OS_H
#define XNVME_PLAT_LIBCONF_BE "conf: XNVME_BE_LINUX_ENABLED"
#endif
