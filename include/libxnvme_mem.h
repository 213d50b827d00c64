/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Registering existing memory for DMA with user-space driver backends.
 */
#ifndef LIBXNVME_MEM_H
#define LIBXNVME_MEM_H

#include <stddef.h>
#include "libxnvme_util.h"

#ifdef __cplusplus
extern "C" {
#endif

struct xnvme_dev;

/**
 * @return 0, or -ENOSYS for backends without DMA memory registration.
 * Thread safety: safe to call concurrently on one handle.
 */
int
xnvme_mem_map(const struct xnvme_dev *dev, void *vaddr, size_t nbytes);

/**
 * @return 0, or -ENOSYS for backends without DMA memory registration.
 * Thread safety: safe to call concurrently on one handle, once no command uses the memory.
 */
int
xnvme_mem_unmap(const struct xnvme_dev *dev, void *buf);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_MEM_H */
