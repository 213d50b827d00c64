/* SPDX-License-Identifier: BSD-3-Clause */
/** Man page and bash completion of xnvmeperf (xnvmeperf_doc.c) */
#ifndef XNVMEPERF_DOC_H
#define XNVMEPERF_DOC_H

#include <stdio.h>

/** Roff man page to `f`; 0 or 1 on a write error */
int
perf_gen_man(FILE *f);

/** Bash completion function to `f`; 0 or 1 on a write error */
int
perf_gen_bash(FILE *f);

#endif /* XNVMEPERF_DOC_H */
