// SPDX-License-Identifier: BSD-3-Clause
/*
 * xnvmeperf's log-linear latency histogram: merging the per-thread histograms and reading
 * quantiles (recording, hist_add(), is inline in xnvmeperf.h: it runs once per I/O).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "xnvmeperf.h"

/* Lowest value of bucket `idx` and its width */
static void
hist_bucket_range(uint32_t idx, uint64_t *lo, uint64_t *width)
{
	uint32_t group = idx / HIST_SUB, sub = idx % HIST_SUB;

	if (!group) {
		*lo = sub;
		*width = 1;
		return;
	}
	*width = 1ULL << (group - 1);
	*lo = ((uint64_t)HIST_SUB + sub) << (group - 1);
}

void
hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void
hist_merge(struct hist *dst, const struct hist *src)
{
	for (uint32_t i = 0; i < HIST_NBUCKETS; ++i) {
		dst->bucket[i] += src->bucket[i];
	}
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min) {
		dst->min = src->min;
	}
	if (src->max > dst->max) {
		dst->max = src->max;
	}
}

double
hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, acc = 0;

	if (!h->count) {
		return 0;
	}
	rank = (uint64_t)ceil(q * (double)h->count);
	rank = rank ? rank : 1;
	for (uint32_t i = 0; i < HIST_NBUCKETS; ++i) {
		acc += h->bucket[i];
		if (acc >= rank) {
			uint64_t lo, width;
			double mid;

			hist_bucket_range(i, &lo, &width);
			mid = (double)lo + (double)(width - 1) / 2.0;
			if (mid < (double)h->min) {
				mid = (double)h->min;
			}
			if (mid > (double)h->max) {
				mid = (double)h->max;
			}
			return mid;
		}
	}
	return (double)h->max;
}
