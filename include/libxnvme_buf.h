/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * I/O buffers. Device buffers come from the device's memory mechanism (page-aligned, rounded
 * up to whole pages); virtual buffers are plain aligned allocations independent of devices.
 */
#ifndef LIBXNVME_BUF_H
#define LIBXNVME_BUF_H

#include <stddef.h>
#include <stdint.h>
#include "libxnvme_util.h"

#ifdef __cplusplus
extern "C" {
#endif

struct xnvme_dev;

/** @return buffer of at least nbytes (rounded up to pages), or NULL with errno set */
void *
xnvme_buf_alloc(const struct xnvme_dev *dev, size_t nbytes);

/** @return resized buffer, or NULL with errno set (ENOSYS where the allocator cannot) */
void *
xnvme_buf_realloc(const struct xnvme_dev *dev, void *buf, size_t nbytes);

/** Frees a buffer of xnvme_buf_alloc() with the same device; NULL is a no-op */
void
xnvme_buf_free(const struct xnvme_dev *dev, void *buf);

/** Like xnvme_buf_alloc() and stores the bus address in *phys where the allocator has one */
void *
xnvme_buf_phys_alloc(const struct xnvme_dev *dev, size_t nbytes, uint64_t *phys);

void
xnvme_buf_phys_free(const struct xnvme_dev *dev, void *buf);

void *
xnvme_buf_phys_realloc(const struct xnvme_dev *dev, void *buf, size_t nbytes, uint64_t *phys);

/** @return 0, or -ENOSYS where the allocator has no physical addresses */
int
xnvme_buf_vtophys(const struct xnvme_dev *dev, void *buf, uint64_t *phys);

/** nbytes rounded up to a multiple of alignment (a power of two); NULL with errno set on error */
void *
xnvme_buf_virt_alloc(size_t alignment, size_t nbytes);

/** NULL is a no-op */
void
xnvme_buf_virt_free(void *buf);

/** Fills with "anum"/"ascii", "rand-k", "rand-t", "zero" or the content of a file path */
int
xnvme_buf_fill(void *buf, size_t nbytes, const char *content);

void *
xnvme_buf_clear(void *buf, size_t nbytes);

/** @return the number of differing bytes */
size_t
xnvme_buf_diff(const void *expected, const void *actual, size_t nbytes);

void
xnvme_buf_diff_pr(const void *expected, const void *actual, size_t nbytes, int opts);

int
xnvme_buf_to_file(void *buf, size_t nbytes, const char *path);

int
xnvme_buf_from_file(void *buf, size_t nbytes, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_BUF_H */
