// SPDX-License-Identifier: BSD-3-Clause
/*
 * The out-of-line part of libxnvme_util.h: the clock of struct xnvme_timer. In the library so
 * that the header needs no POSIX declarations (a strict ISO C client has none of them).
 */
#include <time.h>
#include <libxnvme.h>

uint64_t
xnvme_timer_clock_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC cannot fail here: the clock exists and &ts is valid */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
