/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Backend attributes: which backends this library knows and which of them are built in.
 */
#ifndef LIBXNVME_BE_H
#define LIBXNVME_BE_H

#include <stddef.h>
#include <stdint.h>
#include "libxnvme_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Name and availability of one backend */
struct xnvme_be_attr {
	const char *name;
	uint8_t enabled;
	uint8_t _rsvd[15];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_be_attr) == 24, "Incorrect size")

/** List of backend attributes; `capacity` counts unused entries, `count` used ones */
struct xnvme_be_attr_list {
	uint32_t capacity;
	int count;
	__extension__ struct xnvme_be_attr item[XNVME_FLEX];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_be_attr_list) == 8, "Incorrect size")

/**
 * Allocates the list of every registered backend, in registry order; free it with
 * xnvme_buf_virt_free(). Thread safety: safe from any thread (a new list per call).
 * @return 0 or -ENOMEM
 */
int
xnvme_be_attr_list_bundled(struct xnvme_be_attr_list **list);

/**
 * The names of the mechanisms of one kind that a built backend offers: what `opts.mem`,
 * `opts.admin`, `opts.sync` or `opts.async` accept with `opts.be` set to `be`, in the backend's
 * order, separated by single blanks (e.g. "posix hugepage"). An addition to the 0.7.5 API.
 * Thread safety: safe from any thread.
 * @param be a backend name of xnvme_be_attr_list_bundled()
 * @param kind "mem", "admin", "sync" or "async"
 * @return a string in static storage, or NULL with errno EINVAL (NULL, an unknown backend or
 * kind) or ENOSYS (a backend not built into this library)
 */
const char *
xnvme_be_mech_names(const char *be, const char *kind);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_BE_H */
