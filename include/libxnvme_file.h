/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * File API: files are devices speaking a byte-addressed command set (CSI 0x1F) whose READ,
 * WRITE and FLUSH opcodes take a byte offset in nvm.slba and return the byte count in cpl.result.
 */
#ifndef LIBXNVME_FILE_H
#define LIBXNVME_FILE_H

#include <stddef.h>
#include <sys/types.h>
#include "libxnvme_cmd.h"
#include "libxnvme_opts.h"
#include "libxnvme_spec_fs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct xnvme_dev;

/**
 * Same as xnvme_dev_open(); NULL with errno set on failure.
 * Thread safety: as xnvme_dev_open() (safe from several threads, not with a shared `opts`).
 */
struct xnvme_dev *
xnvme_file_open(const char *pathname, struct xnvme_opts *opts);

/** Same as xnvme_dev_close(); returns 0. Thread safety: as xnvme_dev_close(). */
int
xnvme_file_close(struct xnvme_dev *fh);

/**
 * Reads up to `count` bytes at byte `offset` into `buf`; the number read lands in
 * ctx->cpl.result (short at end of file, 0 beyond it). @return 0, or a negative errno.
 * Thread safety: safe concurrently on one handle, one context per thread.
 */
int
xnvme_file_pread(struct xnvme_cmd_ctx *ctx, void *buf, size_t count, off_t offset);

/**
 * Writes `count` bytes of `buf` at byte `offset` (a write past the end grows the file); the
 * number written lands in ctx->cpl.result. @return 0, or a negative errno.
 * Thread safety: safe concurrently on one handle, one context per thread.
 */
int
xnvme_file_pwrite(struct xnvme_cmd_ctx *ctx, void *buf, size_t count, off_t offset);

/** fsync; 0 or negative errno. Thread safety: safe concurrently on one handle. */
int
xnvme_file_sync(struct xnvme_dev *fh);

/** Same as xnvme_cmd_ctx_from_dev(). Thread safety: safe from any thread. */
struct xnvme_cmd_ctx
xnvme_file_get_cmd_ctx(struct xnvme_dev *fh);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_FILE_H */
