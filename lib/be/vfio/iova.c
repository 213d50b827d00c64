// SPDX-License-Identifier: BSD-3-Clause
/*
 * Free IOVA ranges (iova.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iova.h"

int
vfio_iova_init(struct vfio_iova_space *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->holes = malloc(4 * sizeof(*sp->holes));
	if (!sp->holes) {
		return -ENOMEM;
	}
	sp->cap = 4;
	return 0;
}

void
vfio_iova_fini(struct vfio_iova_space *sp)
{
	free(sp->holes);
	memset(sp, 0, sizeof(*sp));
}

static int
hole_insert(struct vfio_iova_space *sp, size_t idx, uint64_t start, uint64_t end)
{
	if (sp->nholes == sp->cap) {
		size_t cap = sp->cap * 2;
		void *mem = realloc(sp->holes, cap * sizeof(*sp->holes));

		if (!mem) {
			return -ENOMEM;
		}
		sp->holes = mem;
		sp->cap = cap;
	}
	memmove(&sp->holes[idx + 1], &sp->holes[idx], (sp->nholes - idx) * sizeof(*sp->holes));
	sp->holes[idx] = (struct vfio_iova_hole){.start = start, .end = end};
	sp->nholes++;
	return 0;
}

static void
hole_remove(struct vfio_iova_space *sp, size_t idx)
{
	memmove(&sp->holes[idx], &sp->holes[idx + 1], (sp->nholes - idx - 1) * sizeof(*sp->holes));
	sp->nholes--;
}

int
vfio_iova_punch(struct vfio_iova_space *sp, uint64_t start, uint64_t end)
{
	size_t i = 0;

	while (i < sp->nholes) {
		struct vfio_iova_hole *h = &sp->holes[i];

		if (h->end <= start || h->start >= end) {
			i++;
		} else if (h->start < start && h->end > end) {
			uint64_t h_end = h->end;

			h->end = start;
			return hole_insert(sp, i + 1, end, h_end);
		} else if (h->start < start) {
			h->end = start;
			i++;
		} else if (h->end > end) {
			h->start = end;
			i++;
		} else {
			hole_remove(sp, i);
		}
	}
	return 0;
}

int
vfio_iova_take(struct vfio_iova_space *sp, uint64_t len, uint64_t align, uint64_t *iova)
{
	for (size_t i = 0; i < sp->nholes; ++i) {
		struct vfio_iova_hole *h = &sp->holes[i];
		uint64_t at = (h->start + align - 1) & ~(align - 1);

		if (at < h->start || at >= h->end || len > h->end - at) {
			continue;
		}
		if (at > h->start && at + len < h->end) {
			/* a range in the middle: the hole splits in two */
			if (hole_insert(sp, i + 1, at + len, h->end)) {
				return -ENOMEM;
			}
			sp->holes[i].end = at;
		} else if (at > h->start) {
			h->end = at;
		} else if (at + len < h->end) {
			h->start = at + len;
		} else {
			hole_remove(sp, i);
		}
		*iova = at;
		return 0;
	}
	return -ENOSPC;
}

int
vfio_iova_put(struct vfio_iova_space *sp, uint64_t iova, uint64_t len)
{
	uint64_t end = iova + len;
	size_t idx = 0;

	while (idx < sp->nholes && sp->holes[idx].start < iova) {
		idx++;
	}
	if (idx && sp->holes[idx - 1].end == iova) {
		sp->holes[idx - 1].end = end;
		if (idx < sp->nholes && sp->holes[idx].start == end) {
			sp->holes[idx - 1].end = sp->holes[idx].end;
			hole_remove(sp, idx);
		}
		return 0;
	}
	if (idx < sp->nholes && sp->holes[idx].start == end) {
		sp->holes[idx].start = iova;
		return 0;
	}
	return hole_insert(sp, idx, iova, end);
}

uint64_t
vfio_iova_free_bytes(const struct vfio_iova_space *sp)
{
	uint64_t n = 0;

	for (size_t i = 0; i < sp->nholes; ++i) {
		n += sp->holes[i].end - sp->holes[i].start;
	}
	return n;
}
