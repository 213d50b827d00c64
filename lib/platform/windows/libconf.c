// SPDX-License-Identifier: BSD-3-Clause
/* The Windows SDK the library was built against, for xnvme_libconf_fpr() */
#include <windows.h>
#include "xnvme_plat.h"

int
xnvme_plat_libconf_fpr(FILE *stream)
{
	return fprintf(stream, "  - '3p: windows;_WIN32_WINNT/0x%04x'\n", (unsigned)_WIN32_WINNT);
}
