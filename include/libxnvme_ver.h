/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Library version: the API level this library provides (0.7.5).
 */
#ifndef LIBXNVME_VER_H
#define LIBXNVME_VER_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

int
xnvme_ver_major(void);

int
xnvme_ver_minor(void);

int
xnvme_ver_patch(void);

/** Prints `ver: {major: 0, minor: 7, patch: 5}` without a newline */
int
xnvme_ver_fpr(FILE *stream, int opts);

int
xnvme_ver_pr(int opts);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_VER_H */
