// SPDX-License-Identifier: BSD-3-Clause
/* POSIX half of tests/test_timer.c: CLOCK_MONOTONIC, which that strict C11 file cannot name */
#include <stdint.h>
#include <time.h>

uint64_t
test_timer_monotonic_ns(void);

uint64_t
test_timer_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
