/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Device identifiers: the URI a device was opened with, plus the type, namespace and command
 * set the backend found behind it.
 */
#ifndef LIBXNVME_IDENT_H
#define LIBXNVME_IDENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "libxnvme_util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XNVME_IDENT_URI_LEN 384
#define XNVME_IDENT_SCHM_LEN 5
#define XNVME_IDENT_TRGT_LEN 155
#define XNVME_IDENT_OPTS_LEN 160
#define XNVME_IDENT_OPTS_SEP '?'
#define XNVME_IDENT_OPT_MAX 20
#define XNVME_IDENT_URI_LEN_MIN (XNVME_IDENT_SCHM_LEN + 1)

/** Identifier of a device; dtype 0 unknown, 1 controller, 2 namespace, 3 block, 4 file, 5 ramdisk */
struct xnvme_ident {
	char subnqn[256];
	char uri[XNVME_IDENT_URI_LEN];
	uint32_t dtype;
	uint32_t nsid;
	uint8_t csi;
	uint8_t rsvd[55];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_ident) == 704, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_ident, uri) == 256, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_ident, dtype) == 640, "Incorrect offset")

/**
 * Fills `ident` from `uri` without parsing it (dtype 0, nsid 0xFFFFFFFF, csi 0xFF).
 * Thread safety: safe from any thread (writes only `ident`).
 * @return 0 on success, -EINVAL when the URI is NULL or not shorter than XNVME_IDENT_URI_LEN
 */
int
xnvme_ident_from_uri(const char *uri, struct xnvme_ident *ident);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_IDENT_H */
