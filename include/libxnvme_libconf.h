/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Build configuration: which backends, mechanisms and third-party components are built in.
 */
#ifndef LIBXNVME_LIBCONF_H
#define LIBXNVME_LIBCONF_H

#include <stdio.h>
#include "libxnvme.h"

#ifdef __cplusplus
extern "C" {
#endif

/** NULL-terminated list of "conf: <NAME>" and "3p: <name>;<version>" strings (read-only) */
extern const char *xnvme_libconf[];

/**
 * Prints the list as YAML to `stream`. @return the number of characters written.
 * Thread safety: safe from any thread (reads constant data).
 */
int
xnvme_libconf_fpr(FILE *stream, enum xnvme_pr opts);

/** xnvme_libconf_fpr() on stdout. Thread safety: safe from any thread. */
int
xnvme_libconf_pr(enum xnvme_pr opts);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_LIBCONF_H */
