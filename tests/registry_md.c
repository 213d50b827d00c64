// SPDX-License-Identifier: BSD-3-Clause
/*
 * Prints the backend registry of this build as the Markdown table the docs embed between
 * "<!-- registry:begin -->" and "<!-- registry:end -->" (tests/check_registry_docs.py compares
 * and, with --fix, rewrites them): the docs' list of backends and mechanisms comes from the
 * registry, never from a hand-kept copy. Links the static library for lib/xnvme_registry.h.
 */
#include <stdio.h>
#include "xnvme_registry.h"

static void
cell(const struct xnvme_be *be, enum xnvme_be_kind kind)
{
	const void *const *list = xnvme_be_mech_list(be, kind);

	printf(" |");
	for (size_t i = 0; list && list[i]; ++i) {
		printf("%s`%s`", i ? ", " : " ", *(const char *const *)list[i]);
	}
}

int
main(void)
{
	printf("| backend | built | mem | admin | sync | async |\n");
	printf("|---|---|---|---|---|---|\n");
	for (int i = 0; i < xnvme_be_registry_len; ++i) {
		const struct xnvme_be *be = xnvme_be_registry[i];

		printf("| `%s` | %s", be->name, be->enabled ? "yes" : "no");
		if (be->enabled) {
			cell(be, XNVME_BE_KIND_MEM);
			cell(be, XNVME_BE_KIND_ADMIN);
			cell(be, XNVME_BE_KIND_SYNC);
			cell(be, XNVME_BE_KIND_ASYNC);
		} else {
			printf(" | | | |");
		}
		printf(" |\n");
	}
	return 0;
}
