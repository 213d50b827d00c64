/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Library version: the API level this library provides (0.7.5).
 * Thread safety: every function here is safe from any thread (constants and printing).
 */
#ifndef LIBXNVME_VER_H
#define LIBXNVME_VER_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Major version of the API this library provides: 0. Thread safety: safe from any thread. */
int
xnvme_ver_major(void);

/** Minor version of the API this library provides: 7. Thread safety: safe from any thread. */
int
xnvme_ver_minor(void);

/** Patch version of the API this library provides: 5. Thread safety: safe from any thread. */
int
xnvme_ver_patch(void);

/** Prints `ver: {major: 0, minor: 7, patch: 5}` without a newline. Thread safety: any thread. */
int
xnvme_ver_fpr(FILE *stream, int opts);

/** xnvme_ver_fpr() on stdout. Thread safety: safe from any thread. */
int
xnvme_ver_pr(int opts);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_VER_H */
