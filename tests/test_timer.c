// SPDX-License-Identifier: BSD-3-Clause
/*
 * struct xnvme_timer in a strict ISO C11 client: this file is compiled with -std=c11 -pedantic
 * and no feature macros (so without tests/xnvme_test.h, which needs POSIX). The timer samples
 * CLOCK_MONOTONIC (read by tests/test_timer_posix.c, bracketing the samples): samples never go
 * back, and an interval slept is measured as at least its length.
 * Exit: 0 pass, 1 fail.
 */
#include <stdio.h>
#include <threads.h>
#include <libxnvme.h>

/* CLOCK_MONOTONIC in nanoseconds, from tests/test_timer_posix.c */
uint64_t
test_timer_monotonic_ns(void);

static int nfail;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			nfail++;                                                                   \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);            \
		}                                                                                  \
	} while (0)

int
main(void)
{
	struct timespec nap = {.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000};
	struct xnvme_timer timer;
	uint64_t before = test_timer_monotonic_ns();
	uint64_t prev = xnvme_timer_clock_ns();
	uint64_t after = test_timer_monotonic_ns();

	/* the clock is CLOCK_MONOTONIC, not the wall clock of timespec_get(TIME_UTC) */
	CHECK(before <= prev && prev <= after);

	for (int i = 0; i < 100000; ++i) {
		uint64_t now = xnvme_timer_clock_ns();

		CHECK(now >= prev);
		prev = now;
	}
	xnvme_timer_start(&timer);
	CHECK(thrd_sleep(&nap, NULL) == 0);
	xnvme_timer_stop(&timer);
	CHECK(timer.start >= prev);
	CHECK(timer.stop >= timer.start);
	CHECK(xnvme_timer_elapsed_nsecs(&timer) >= 20 * 1000 * 1000);
	CHECK(xnvme_timer_elapsed_secs(&timer) < 5.0);
	printf("test_timer: %s\n", nfail ? "FAIL" : "ok");
	return nfail ? 1 : 0;
}
