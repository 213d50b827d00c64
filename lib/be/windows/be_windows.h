// SPDX-License-Identifier: BSD-3-Clause
/*
 * The windows backend: files (and volumes) through CreateFile, as one namespace with
 * synthesised identify data. Internal to lib/be/windows/.
 */
#ifndef XNVME_BE_WINDOWS_H
#define XNVME_BE_WINDOWS_H

#include <errno.h>
#include <windows.h>
#include "xnvme_be.h"

struct xnvme_be_windows_state {
	HANDLE h;    ///< opened with FILE_FLAG_OVERLAPPED: every transfer names its offset
	bool direct; ///< FILE_FLAG_NO_BUFFERING (opts.direct)
	uint32_t lba_nbytes;
	DWORD access; ///< CreateFile access and flags, for the per-queue handles of "iocp"
	DWORD flags;
	bool disk; ///< \\.\PhysicalDriveN: admin "block" serves it (disk geometry)
	bool nvme; ///< the disk answers NVMe queries: the "nvme" mechanisms serve it
};

/**
 * Decodes a READ/WRITE/FLUSH of the NVM or file command set into byte offset, length and
 * direction; `avail` is what the caller's buffers hold. Returns 0 for a transfer, 1 when the
 * command is done (a FLUSH, carried out here), or a negative errno with the status in cpl.
 */
int
xnvme_be_windows_rw_decode(struct xnvme_cmd_ctx *ctx, size_t avail, uint64_t *off, uint64_t *len,
			   bool *write);

/** Sets a generic NVMe status in cpl; returns -EIO, as a sync mechanism does for a status */
static inline int
xnvme_be_windows_status(struct xnvme_cmd_ctx *ctx, uint8_t sc)
{
	xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, sc);
	return -EIO;
}

/** Maps a Win32 error code (GetLastError()) to a positive errno */
int
xnvme_be_windows_errno(DWORD werr);

/**
 * An admin command on the NVMe disk `h`: Identify, Get Log Page and Get Features as property
 * queries, the others through IOCTL_STORAGE_PROTOCOL_COMMAND. 0 or negative errno (-EIO with
 * the NVMe status in cpl).
 */
int
xnvme_be_windows_nvme_admin(HANDLE h, struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes);

/**
 * DeviceIoControl on the overlapped handle `h`, waited for: `buf` carries `nbytes` in and the
 * answer out (`returned` bytes). 0 or negative errno.
 */
int
xnvme_be_windows_ioctl(HANDLE h, DWORD code, void *buf, DWORD nbytes, DWORD *returned);

/**
 * Geometry of the disk `h` (IOCTL_DISK_GET_DRIVE_GEOMETRY_EX): logical sector size and size in
 * bytes. 0 or negative errno.
 */
int
xnvme_be_windows_geometry(HANDLE h, uint32_t *sector_nbytes, uint64_t *nbytes);

/** A serial number that tells files and disks apart: volume serial and file index */
void
xnvme_be_windows_serial(const struct xnvme_dev *dev, char *sn, size_t len);

/** Whether `uri` names a physical disk, \\.\PhysicalDriveN (case-insensitive) */
bool
xnvme_be_windows_is_disk(const char *uri);

/** Current size of the opened file in bytes, or a negative errno */
int
xnvme_be_windows_size(const struct xnvme_be_windows_state *state, uint64_t *nbytes);

/** The backend (lib/be/registry.def) and its mechanisms */
extern const struct xnvme_be xnvme_be_windows;
extern const struct xnvme_be_dev xnvme_be_windows_dev;
extern const struct xnvme_be_mem xnvme_be_windows_mem;
extern const struct xnvme_be_admin xnvme_be_windows_admin_file;
extern const struct xnvme_be_admin xnvme_be_windows_admin_nvme;
extern const struct xnvme_be_admin xnvme_be_windows_admin_block;
extern const struct xnvme_be_sync xnvme_be_windows_sync_nvme;
extern const struct xnvme_be_sync xnvme_be_windows_sync_file;
extern const struct xnvme_be_async xnvme_be_windows_async_iocp;
extern const struct xnvme_be_async xnvme_be_windows_async_iocp_th;
extern const struct xnvme_be_async xnvme_be_windows_async_ioring;

#endif /* XNVME_BE_WINDOWS_H */
