// SPDX-License-Identifier: BSD-3-Clause
/*
 * Printer of LBA ranges (libxnvme_lba.h).
 */
#include <inttypes.h>
#include <libxnvme.h>
#include "pp.h"

int
xnvme_lba_range_fpr(FILE *stream, struct xnvme_lba_range *range, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_lba_range", range, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_hex64(stream, 2, "slba", range->slba);
	wrtn += xnvme_pp_hex64(stream, 2, "elba", range->elba);
	wrtn += xnvme_pp_dec(stream, 2, "naddrs", range->naddrs);
	wrtn += xnvme_pp_dec(stream, 2, "nbytes", range->nbytes);
	/* "is_zones" (sic): the key name of the original, kept for compatibility */
	wrtn += fprintf(stream, "  attr: { is_zones: %d, is_valid: %d}\n", range->attr.is_zoned,
			range->attr.is_valid);

	return wrtn;
}

int
xnvme_lba_range_pr(struct xnvme_lba_range *range, int opts)
{
	return xnvme_lba_range_fpr(stdout, range, opts);
}
