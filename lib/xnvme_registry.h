/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * The backend registry and device open (not installed; no backend includes it). The list is
 * lib/be/registry.def, the registry and its listings lib/registry.c, the open lib/be.c.
 */
#ifndef XNVME_REGISTRY_H
#define XNVME_REGISTRY_H

#include "xnvme_be.h"

/** The backends of lib/be/registry.def, in its order; not-built ones have enabled = false */
extern const struct xnvme_be *const xnvme_be_registry[];
extern const int xnvme_be_registry_len;

/** The kinds of the registry's listings: the backends, and the four kinds of mechanism */
enum xnvme_be_kind {
	XNVME_BE_KIND_BE = 0,
	XNVME_BE_KIND_MEM = 1,
	XNVME_BE_KIND_ADMIN = 2,
	XNVME_BE_KIND_SYNC = 3,
	XNVME_BE_KIND_ASYNC = 4,
	XNVME_BE_KIND_END = 5,
};

/** The NULL-terminated mechanism list of `kind` of a backend (NULL for XNVME_BE_KIND_BE) */
const void *const *
xnvme_be_mech_list(const struct xnvme_be *be, enum xnvme_be_kind kind);

/**
 * Help text of the built backends (XNVME_BE_KIND_BE: "linux, ramdisk, ...") or of their
 * mechanisms of `kind` ("a, b (linux); c, d (ramdisk, tcp)": backends with the same list share
 * a group). Static storage, built once (thread-safe).
 */
const char *
xnvme_be_registry_help(enum xnvme_be_kind kind);

/** The names of xnvme_be_registry_help(), each once, separated by spaces (completion) */
const char *
xnvme_be_registry_values(enum xnvme_be_kind kind);

/**
 * Walks the registry and opens `uri` into `dev` (selection rules in docs/internals.md).
 * On failure dev->errmsg holds the most specific reason.
 */
int
xnvme_be_open(struct xnvme_dev *dev, const char *uri, const struct xnvme_opts *opts);

#endif /* XNVME_REGISTRY_H */
