/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Printers of the library's own objects as YAML-like text; `*_pr` prints to stdout and every
 * printer returns the number of characters written.
 *
 * Thread safety: every printer is safe from any thread; it only reads its object (the device
 * printers use the getters, safe concurrently on one handle). Output of concurrent calls on one
 * stream may interleave.
 */
#ifndef LIBXNVME_PP_H
#define LIBXNVME_PP_H

#include <stdint.h>
#include <stdio.h>
#include "libxnvme_be.h"
#include "libxnvme_cmd.h"
#include "libxnvme_dev.h"
#include "libxnvme_geo.h"
#include "libxnvme_ident.h"
#include "libxnvme_opts.h"
#include "libxnvme_util.h"

#ifdef __cplusplus
extern "C" {
#endif

int xnvme_be_attr_fpr(FILE *stream, const struct xnvme_be_attr *attr, int opts);
int xnvme_be_attr_pr(const struct xnvme_be_attr *attr, int opts);
int xnvme_be_attr_list_fpr(FILE *stream, const struct xnvme_be_attr_list *list, int opts);
int xnvme_be_attr_list_pr(const struct xnvme_be_attr_list *list, int opts);
int xnvme_lba_fpr(FILE *stream, uint64_t lba, enum xnvme_pr opts);
int xnvme_lba_pr(uint64_t lba, enum xnvme_pr opts);
int xnvme_lba_fprn(FILE *stream, const uint64_t *lba, uint16_t nlb, enum xnvme_pr opts);
int xnvme_lba_prn(const uint64_t *lba, uint16_t nlb, enum xnvme_pr opts);
int xnvme_ident_yaml(FILE *stream, const struct xnvme_ident *ident, int indent, const char *sep, int head);
int xnvme_ident_fpr(FILE *stream, const struct xnvme_ident *ident, int opts);
int xnvme_ident_pr(const struct xnvme_ident *ident, int opts);
int xnvme_dev_fpr(FILE *stream, const struct xnvme_dev *dev, int opts);
int xnvme_dev_pr(const struct xnvme_dev *dev, int opts);
int xnvme_geo_fpr(FILE *stream, const struct xnvme_geo *geo, int opts);
int xnvme_geo_pr(const struct xnvme_geo *geo, int opts);
void xnvme_cmd_ctx_pr(const struct xnvme_cmd_ctx *ctx, int opts);
int xnvme_opts_pr(const struct xnvme_opts *opts, int pr_opts);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_PP_H */
