/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * The backend registry and device open (not installed; no backend includes it). lib/be.c owns
 * both; the list itself is lib/be/registry.def.
 */
#ifndef XNVME_REGISTRY_H
#define XNVME_REGISTRY_H

#include "xnvme_be.h"

/** The backends of lib/be/registry.def, in its order; not-built ones have enabled = false */
extern const struct xnvme_be *const xnvme_be_registry[];
extern const int xnvme_be_registry_len;

/**
 * Walks the registry and opens `uri` into `dev` (selection rules in docs/internals.md).
 * On failure dev->errmsg holds the most specific reason.
 */
int
xnvme_be_open(struct xnvme_dev *dev, const char *uri, const struct xnvme_opts *opts);

#endif /* XNVME_REGISTRY_H */
