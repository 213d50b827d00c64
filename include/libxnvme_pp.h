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

/**
 * Prints one backend attribute (name, enabled) as YAML to `stream`, shaped as an item of
 * xnvme_be_attr_list_fpr(); NULL prints "~". `opts` XNVME_PR_DEF or XNVME_PR_YAML (the same YAML);
 * other modes print a "# ENOSYS" note. @return the number of characters written. Thread safety:
 * see the header comment.
 */
int
xnvme_be_attr_fpr(FILE *stream, const struct xnvme_be_attr *attr, int opts);

/**
 * xnvme_be_attr_fpr() on stdout. @return the number of characters written. Thread safety: see the
 * header comment.
 */
int
xnvme_be_attr_pr(const struct xnvme_be_attr *attr, int opts);

/**
 * Prints a backend attribute list (count, capacity, items) as YAML to `stream`; NULL prints
 * "xnvme_be_attr_list: ~". `opts` XNVME_PR_DEF or XNVME_PR_YAML (the same YAML); other modes print
 * a "# ENOSYS" note. @return the number of characters written. Thread safety: see the header
 * comment.
 */
int
xnvme_be_attr_list_fpr(FILE *stream, const struct xnvme_be_attr_list *list, int opts);

/**
 * xnvme_be_attr_list_fpr() on stdout. @return the number of characters written. Thread safety: see
 * the header comment.
 */
int
xnvme_be_attr_list_pr(const struct xnvme_be_attr_list *list, int opts);

/**
 * Prints `lba` as "lba: 0x<16 hex digits>" (XNVME_PR_DEF/YAML) or the bare hex number
 * (XNVME_PR_TERSE) to `stream`; other modes print a "# ENOSYS" note. @return the number of
 * characters written. Thread safety: see the header comment.
 */
int
xnvme_lba_fpr(FILE *stream, uint64_t lba, enum xnvme_pr opts);

/**
 * xnvme_lba_fpr() on stdout. @return the number of characters written. Thread safety: see the
 * header comment.
 */
int
xnvme_lba_pr(uint64_t lba, enum xnvme_pr opts);

/**
 * Prints the `nlb` LBAs of the array `lba` as a YAML list to `stream`. Unlike the command
 * functions, `nlb` here is a plain (one-based) count of array entries: 0 prints an empty list.
 * `opts` XNVME_PR_DEF or XNVME_PR_YAML (the same YAML); other modes print a "# ENOSYS" note.
 * @return the number of characters written. Thread safety: see the header comment.
 */
int
xnvme_lba_fprn(FILE *stream, const uint64_t *lba, uint16_t nlb, enum xnvme_pr opts);

/**
 * xnvme_lba_fprn() on stdout (`nlb` is a one-based count). @return the number of characters
 * written. Thread safety: see the header comment.
 */
int
xnvme_lba_prn(const uint64_t *lba, uint16_t nlb, enum xnvme_pr opts);

/**
 * Prints the members of `ident` (uri, dtype, nsid, csi, subnqn) to `stream` starting at column
 * `indent`, separated by `sep` (NULL: "\n"; ", " gives the inside of a flow mapping), without a
 * trailing separator; `head` nonzero prints "xnvme_ident:" first and indents the members by two
 * more. NULL prints "~". @return the number of characters written. Thread safety: see the header
 * comment.
 */
int
xnvme_ident_yaml(FILE *stream, const struct xnvme_ident *ident, int indent, const char *sep,
		 int head);

/**
 * Prints `ident` as a YAML mapping "xnvme_ident:" to `stream`; NULL prints "~". `opts`
 * XNVME_PR_DEF or XNVME_PR_YAML (the same YAML); other modes print a "# ENOSYS" note. @return the
 * number of characters written. Thread safety: see the header comment.
 */
int
xnvme_ident_fpr(FILE *stream, const struct xnvme_ident *ident, int opts);

/**
 * xnvme_ident_fpr() on stdout. @return the number of characters written. Thread safety: see the
 * header comment.
 */
int
xnvme_ident_pr(const struct xnvme_ident *ident, int opts);

/**
 * Prints a device handle (identifiers, backend and mechanisms in use, geometry) as YAML to
 * `stream`; NULL prints "xnvme_dev: ~". May derive the geometry first (see the getters of
 * libxnvme_dev.h). `opts` XNVME_PR_DEF or XNVME_PR_YAML (the same YAML); other modes print a "#
 * ENOSYS" note. @return the number of characters written. Thread safety: see the header comment.
 */
int
xnvme_dev_fpr(FILE *stream, const struct xnvme_dev *dev, int opts);

/**
 * xnvme_dev_fpr() on stdout. @return the number of characters written. Thread safety: see the
 * header comment.
 */
int
xnvme_dev_pr(const struct xnvme_dev *dev, int opts);

/**
 * Prints a geometry (struct xnvme_geo) as YAML to `stream`; NULL prints "xnvme_geo: ~". `opts`
 * XNVME_PR_DEF or XNVME_PR_YAML (the same YAML); other modes print a "# ENOSYS" note. @return the
 * number of characters written. Thread safety: see the header comment.
 */
int
xnvme_geo_fpr(FILE *stream, const struct xnvme_geo *geo, int opts);

/**
 * xnvme_geo_fpr() on stdout. @return the number of characters written. Thread safety: see the
 * header comment.
 */
int
xnvme_geo_pr(const struct xnvme_geo *geo, int opts);

/**
 * Prints one line with the completion of `ctx` (cdw0, status code and type) on stdout; NULL prints
 * "xnvme_cmd_ctx: ~". `opts` is ignored. Thread safety: see the header comment.
 */
void
xnvme_cmd_ctx_pr(const struct xnvme_cmd_ctx *ctx, int opts);

/**
 * Prints the options (backend, mechanisms, flags, timeouts) as YAML on stdout; NULL prints
 * "xnvme_opts: ~". `pr_opts` XNVME_PR_DEF or XNVME_PR_YAML; others print a "# ENOSYS" note.
 * @return the number of characters written. Thread safety: see the header comment.
 */
int
xnvme_opts_pr(const struct xnvme_opts *opts, int pr_opts);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_PP_H */
