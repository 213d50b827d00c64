/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Linux backend internals shared by its mechanisms (not installed).
 */
#ifndef XNVME_BE_LINUX_H
#define XNVME_BE_LINUX_H

#include <stdbool.h>
#include <stdint.h>
#include "xnvme_be.h"

/** What dev_open found behind the URI */
enum xnvme_be_linux_ftype {
	XNVME_BE_LINUX_FILE = 1,  ///< regular file
	XNVME_BE_LINUX_BLOCK = 2, ///< non-NVMe block device
};

/** dev->state of a handle opened by the Linux backend */
struct xnvme_be_linux_state {
	int fd;
	enum xnvme_be_linux_ftype ftype;
	uint64_t nbytes;     ///< size at open (files grow: the admin shim re-reads it)
	uint32_t lba_nbytes; ///< logical block size: BLKSSZGET for block devices, 512 for files
	bool direct;         ///< opened with O_DIRECT
};

/**
 * The state of `dev` when it was opened by the Linux backend as a file or block device, else
 * NULL (mechanisms use this in check_support and must not be handed other handles).
 */
static inline struct xnvme_be_linux_state *
xnvme_be_linux_state(const struct xnvme_dev *dev)
{
	return dev->be == &xnvme_be_linux ? (struct xnvme_be_linux_state *)dev->state : NULL;
}

extern const struct xnvme_be_dev xnvme_be_linux_dev;
extern const struct xnvme_be_admin xnvme_be_linux_admin_file;
extern const struct xnvme_be_sync xnvme_be_linux_sync_psync;
extern const struct xnvme_be_async xnvme_be_linux_async_posix;

#endif /* XNVME_BE_LINUX_H */
