// SPDX-License-Identifier: BSD-3-Clause
/*
 * The windows backend: files (and volumes) through CreateFile, as one namespace with
 * synthesised identify data. Internal to lib/be/windows/.
 */
#ifndef XNVME_BE_WINDOWS_H
#define XNVME_BE_WINDOWS_H

#include <windows.h>
#include "xnvme_be.h"

struct xnvme_be_windows_state {
	HANDLE h;          ///< opened with FILE_FLAG_OVERLAPPED: every transfer names its offset
	bool direct;       ///< FILE_FLAG_NO_BUFFERING (opts.direct)
	uint32_t lba_nbytes;
};

/** Maps a Win32 error code (GetLastError()) to a positive errno */
int
xnvme_be_windows_errno(DWORD werr);

/** Current size of the opened file in bytes, or a negative errno */
int
xnvme_be_windows_size(const struct xnvme_be_windows_state *state, uint64_t *nbytes);

extern const struct xnvme_be_dev xnvme_be_windows_dev;
extern const struct xnvme_be_mem xnvme_be_windows_mem;
extern const struct xnvme_be_admin xnvme_be_windows_admin_file;
extern const struct xnvme_be_sync xnvme_be_windows_sync_file;

#endif /* XNVME_BE_WINDOWS_H */
