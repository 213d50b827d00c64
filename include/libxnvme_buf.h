/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * I/O buffers. Device buffers come from the device's memory mechanism (page-aligned, rounded
 * up to whole pages); virtual buffers are plain aligned allocations independent of devices.
 *
 * Thread safety: every function here may be called from any thread, concurrently on one
 * handle. A buffer is the caller's: do not free it, nor write into it (by hand or with a read
 * command), while a command or another thread uses it.
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

/**
 * @return buffer of at least nbytes (rounded up to pages), or NULL with errno set.
 * Thread safety: safe to call concurrently on one handle (the allocators are thread-safe).
 */
void *
xnvme_buf_alloc(const struct xnvme_dev *dev, size_t nbytes);

/**
 * @return resized buffer, or NULL with errno set (ENOSYS where the allocator cannot).
 * Thread safety: safe concurrently on one handle; not on the same buffer.
 */
void *
xnvme_buf_realloc(const struct xnvme_dev *dev, void *buf, size_t nbytes);

/**
 * Frees a buffer of xnvme_buf_alloc() with the same device; NULL is a no-op.
 * Thread safety: safe concurrently on one handle, once no command uses the buffer.
 */
void
xnvme_buf_free(const struct xnvme_dev *dev, void *buf);

/**
 * Like xnvme_buf_alloc() and stores the bus address in *phys where the allocator has one.
 * Thread safety: safe to call concurrently on one handle (the allocators are thread-safe).
 */
void *
xnvme_buf_phys_alloc(const struct xnvme_dev *dev, size_t nbytes, uint64_t *phys);

/** Same as xnvme_buf_free(). Thread safety: as xnvme_buf_free(). */
void
xnvme_buf_phys_free(const struct xnvme_dev *dev, void *buf);

/** Like xnvme_buf_realloc(), with the bus address. Thread safety: as xnvme_buf_realloc(). */
void *
xnvme_buf_phys_realloc(const struct xnvme_dev *dev, void *buf, size_t nbytes, uint64_t *phys);

/**
 * @return 0, or -ENOSYS where the allocator has no physical addresses.
 * Thread safety: safe concurrently on one handle.
 */
int
xnvme_buf_vtophys(const struct xnvme_dev *dev, void *buf, uint64_t *phys);

/**
 * nbytes rounded up to a multiple of alignment (a power of two); NULL with errno set on error.
 * Thread safety: safe from any thread (posix_memalign).
 */
void *
xnvme_buf_virt_alloc(size_t alignment, size_t nbytes);

/** NULL is a no-op. Thread safety: safe from any thread (free). */
void
xnvme_buf_virt_free(void *buf);

/**
 * Fills `nbytes` of `buf` with `content`: "anum"/"ascii" (the letters A-Z repeated), "rand-k"
 * (pseudo-random letters, the same sequence every call), "rand-t" (seeded from the time),
 * "zero", or else the content of the file at the path `content` (xnvme_buf_from_file()).
 * @return 0, -EINVAL for a NULL argument, or the errors of xnvme_buf_from_file().
 * Thread safety: safe from any thread on buffers no one else uses (no shared random state).
 */
int
xnvme_buf_fill(void *buf, size_t nbytes, const char *content);

/** Zero-fills; returns buf. Thread safety: safe from any thread on a buffer it alone uses. */
void *
xnvme_buf_clear(void *buf, size_t nbytes);

/** @return the number of differing bytes. Thread safety: safe from any thread (reads only). */
size_t
xnvme_buf_diff(const void *expected, const void *actual, size_t nbytes);

/**
 * Prints the differing bytes on stdout. Thread safety: safe from any thread; output of
 * concurrent calls may interleave line by line.
 */
void
xnvme_buf_diff_pr(const void *expected, const void *actual, size_t nbytes, int opts);

/**
 * Writes the `nbytes` of the buffer to the file at `path` through the file API, so that the
 * file then holds exactly them. An existing regular file (also through a symbolic link, which
 * stays) is replaced only whole: the bytes go to a new file beside it, with its mode, owner
 * and group, which is synced and then renamed over it; after any failure the file holds its
 * old bytes. Any other path is created, or written as it is (a device, a FIFO).
 * @return 0, -EINVAL for a NULL argument, -EACCES when the file is not writable or its
 * directory takes no new file, -EPERM when its owner or group cannot be kept, or the negative
 * errno of the open, write (e.g. -ENOSPC), sync or rename.
 * Thread safety: safe from any thread; of concurrent calls on one path, one's bytes stay.
 */
int
xnvme_buf_to_file(void *buf, size_t nbytes, const char *path);

/**
 * Reads the file at `path` into the buffer (up to nbytes; a shorter file is not an error, the
 * rest of the buffer is left as it was). @return 0, -EINVAL for a NULL argument, or the
 * negative errno of the open or read. Thread safety: safe from any thread on a buffer it alone uses.
 */
int
xnvme_buf_from_file(void *buf, size_t nbytes, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_BUF_H */
