// SPDX-License-Identifier: BSD-3-Clause
/* The Linux UAPI the library was built against, for xnvme_libconf_fpr() */
#include <linux/nvme_ioctl.h>
#include <linux/version.h>
#include "xnvme_plat.h"

int
xnvme_plat_libconf_fpr(FILE *stream)
{
	int wrtn = 0;

	wrtn += fprintf(stream, "  - '3p: linux;LINUX_VERSION_CODE-UAPI/%d-%d.%d.%d'\n",
			LINUX_VERSION_CODE, (LINUX_VERSION_CODE >> 16) & 0xFF,
			(LINUX_VERSION_CODE >> 8) & 0xFF, LINUX_VERSION_CODE & 0xFF);
#ifdef NVME_IOCTL_IO64_CMD
	wrtn += fprintf(stream, "  - '3p: linux;NVME_IOCTL_IO64_CMD'\n");
#endif
#ifdef NVME_IOCTL_IO64_CMD_VEC
	wrtn += fprintf(stream, "  - '3p: linux;NVME_IOCTL_IO64_CMD_VEC'\n");
#endif
	return wrtn;
}
