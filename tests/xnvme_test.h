/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Minimal test helpers shared by the C test programs: each program exits 0 (pass), 1 (fail)
 * or 77 (skip: a kernel feature or device is missing).
 */
#ifndef XNVME_TEST_H
#define XNVME_TEST_H

#include <stdio.h>
#include <stdlib.h>

#define XNVME_TEST_SKIP 77

static int xnvme_test_nfail;
static int xnvme_test_ncheck;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		xnvme_test_ncheck++;                                                         \
		if (!(cond)) {                                                               \
			xnvme_test_nfail++;                                                  \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
		}                                                                            \
	} while (0)

#define CHECK_EQ(a, b)                                                                       \
	do {                                                                                 \
		long long a_ = (long long)(a), b_ = (long long)(b);                          \
		xnvme_test_ncheck++;                                                         \
		if (a_ != b_) {                                                              \
			xnvme_test_nfail++;                                                  \
			fprintf(stderr, "FAIL %s:%d: %s == %s (%lld != %lld)\n", __FILE__,    \
				__LINE__, #a, #b, a_, b_);                                   \
		}                                                                            \
	} while (0)

static inline int
xnvme_test_result(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, xnvme_test_ncheck, xnvme_test_nfail);
	return xnvme_test_nfail ? 1 : 0;
}

#endif /* XNVME_TEST_H */
