// SPDX-License-Identifier: BSD-3-Clause
/*
 * Printers of the CLI builder's enumeration list (libxnvme_cli.h): the list with its counters
 * (fpr/pr) and the bare list of identifiers (fpp/pp, the output of "xnvme enum").
 */
#include <inttypes.h>
#include <libxnvme.h>
#include "pp.h"

int
xnvme_cli_enumeration_fpr(FILE *stream, struct xnvme_cli_enumeration *list, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_cli_enumeration", list, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "capacity", list->capacity);
	wrtn += xnvme_pp_dec(stream, 2, "nentries", list->nentries);
	if (!list->nentries) {
		wrtn += fprintf(stream, "  entries: []\n");
		return wrtn;
	}

	wrtn += xnvme_pp_head(stream, 2, "entries");
	for (uint32_t i = 0; i < list->nentries; ++i) {
		wrtn += fprintf(stream, "    - {");
		wrtn += xnvme_ident_yaml(stream, &list->entries[i], 0, ", ", 0);
		wrtn += fprintf(stream, "}\n");
	}

	return wrtn;
}

int
xnvme_cli_enumeration_pr(struct xnvme_cli_enumeration *list, int opts)
{
	return xnvme_cli_enumeration_fpr(stdout, list, opts);
}

/*
 * The pretty form used by "xnvme enum": the key, then one flow mapping of identifier fields per
 * entry, or "~" for an empty list.
 */
int
xnvme_cli_enumeration_fpp(FILE *stream, struct xnvme_cli_enumeration *list, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_is_yaml(opts)) {
		return xnvme_pp_nosys(stream, opts);
	}
	if (!list || !list->nentries) {
		return xnvme_pp_null(stream, 0, "xnvme_cli_enumeration");
	}

	wrtn += xnvme_pp_head(stream, 0, "xnvme_cli_enumeration");
	for (uint32_t i = 0; i < list->nentries; ++i) {
		wrtn += fprintf(stream, "  - {");
		wrtn += xnvme_ident_yaml(stream, &list->entries[i], 0, ", ", 0);
		wrtn += fprintf(stream, "}\n");
	}

	return wrtn;
}

int
xnvme_cli_enumeration_pp(struct xnvme_cli_enumeration *list, int opts)
{
	return xnvme_cli_enumeration_fpp(stdout, list, opts);
}
