// SPDX-License-Identifier: BSD-3-Clause
/*
 * Build configuration as strings. The entries come from the build system (xnvme_config.h).
 */
#include <libxnvme.h>
#include "xnvme_be_built.h"
#include "xnvme_config.h"
#include "xnvme_plat.h"

#define XNVME_STR_(x) #x
#define XNVME_STR(x) XNVME_STR_(x)

const char *xnvme_libconf[] = {
	XNVME_BE_BUILT_LIBCONF, /* "conf: XNVME_BE_<NAME>_ENABLED" of each built backend */
	"conf: XNVME_BE_ASYNC_ENABLED",
#ifdef XNVME_HAVE_LIBURING
	"conf: XNVME_BE_LINUX_LIBURING_ENABLED",
	"3p: liburing;" XNVME_LIBURING_VERSION,
#endif
#ifdef XNVME_HAVE_LIBAIO
	"conf: XNVME_BE_LINUX_LIBAIO_ENABLED",
	"3p: libaio;" XNVME_LIBAIO_VERSION,
#endif
#ifdef XNVME_HAVE_RDMA
	"3p: rdma-core;librdmacm-" XNVME_RDMA_VERSION,
#endif
	NULL,
};

int
xnvme_libconf_fpr(FILE *stream, enum xnvme_pr opts)
{
	int wrtn = 0;

	if (opts == XNVME_PR_TERSE) {
		return fprintf(stream, "# ENOSYS: opts(0x%x)\n", opts);
	}

	wrtn += fprintf(stream, "xnvme_libconf:\n");
	for (int i = 0; xnvme_libconf[i]; ++i) {
		wrtn += fprintf(stream, "  - '%s'\n", xnvme_libconf[i]);
	}
	wrtn += xnvme_plat_libconf_fpr(stream);
	return wrtn;
}

int
xnvme_libconf_pr(enum xnvme_pr opts)
{
	return xnvme_libconf_fpr(stdout, opts);
}
