// SPDX-License-Identifier: BSD-3-Clause
#include <libxnvme.h>

#define XNVME_VER_MAJOR 0
#define XNVME_VER_MINOR 7
#define XNVME_VER_PATCH 5

int
xnvme_ver_major(void)
{
	return XNVME_VER_MAJOR;
}

int
xnvme_ver_minor(void)
{
	return XNVME_VER_MINOR;
}

int
xnvme_ver_patch(void)
{
	return XNVME_VER_PATCH;
}

int
xnvme_ver_fpr(FILE *stream, int opts)
{
	int wrtn = 0;

	switch (opts) {
	case XNVME_PR_TERSE:
		wrtn += fprintf(stream, "# ENOSYS: opts(0x%x)", opts);
		return wrtn;
	default:
		break;
	}

	wrtn += fprintf(stream, "ver: {major: %d, minor: %d, patch: %d}", XNVME_VER_MAJOR,
			XNVME_VER_MINOR, XNVME_VER_PATCH);
	return wrtn;
}

int
xnvme_ver_pr(int opts)
{
	return xnvme_ver_fpr(stdout, opts);
}
