// SPDX-License-Identifier: BSD-3-Clause
#ifndef XNVME_PLAT_OS_H
#define XNVME_PLAT_OS_H
/* The backend that opens this OS's files (xnvme_buf_to_file(), xnvme_buf_from_file()) */
#define XNVME_PLAT_FILE_BE "windows"

/* Maps a Win32 error code (GetLastError(), a DWORD) to a positive errno (EIO when unknown) */
int
xnvme_plat_windows_errno(unsigned long werr);

#endif
