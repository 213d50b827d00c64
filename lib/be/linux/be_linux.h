/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Linux backend internals shared by its mechanisms (not installed).
 */
#ifndef XNVME_BE_LINUX_H
#define XNVME_BE_LINUX_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "xnvme_be.h"

/** What dev_open found behind the URI */
enum xnvme_be_linux_ftype {
	XNVME_BE_LINUX_FILE = 1,  ///< regular file
	XNVME_BE_LINUX_BLOCK = 2, ///< block device: NVMe namespace (state->nvme) or any other
	XNVME_BE_LINUX_CHAR = 3,  ///< NVMe char device: controller or generic namespace node
};

/** Run-time fallbacks of the NVMe passthrough ioctls, remembered per handle (atomic bits) */
enum xnvme_be_linux_nvme_quirk {
	XNVME_BE_LINUX_NO_IO64 = 1 << 0,     ///< NVME_IOCTL_IO64_CMD answered ENOTTY
	XNVME_BE_LINUX_NO_IO64_VEC = 1 << 1, ///< NVME_IOCTL_IO64_CMD_VEC answered ENOTTY
	XNVME_BE_LINUX_NO_ADMIN64 = 1 << 2,  ///< NVME_IOCTL_ADMIN64_CMD answered ENOTTY
};

/** Length of kernel device names kept in the state (nvme0n1, ng0n1, nvme0, loop0, ...) */
#define XNVME_BE_LINUX_NAME_LEN 64

/** dev->state of a handle opened by the Linux backend */
struct xnvme_be_linux_state {
	int fd;
	enum xnvme_be_linux_ftype ftype;
	uint64_t nbytes;     ///< size at open (files grow: the admin shim re-reads it)
	uint32_t lba_nbytes; ///< logical block size: BLKSSZGET for block devices, 512 otherwise
	bool direct;         ///< opened with O_DIRECT

	bool nvme;       ///< answers the NVMe passthrough ioctls (NVME_IOCTL_ID)
	bool ctrlr;      ///< NVMe controller node (/dev/nvmeX)
	int nvme_id_err; ///< errno of the NVME_IOCTL_ID probe when !nvme (for refusals)
	int quirks;      ///< enum xnvme_be_linux_nvme_quirk bits, accessed atomically
	uint32_t
		admin_timeout_ms; ///< timeout_ms of admin passthrough (be_linux_nvme.h); 0: driver's
	uint32_t io_timeout_ms;   ///< timeout_ms of I/O passthrough and io_uring_cmd; 0: driver's

	uint32_t nsid;       ///< NVMe namespace id; 0xFFFFFFFF for a controller node
	uint64_t zone_nsect; ///< zoned block device: zone size in 512 B sectors (0: conventional)
	uint32_t nzones;     ///< zoned block device: number of zones

	char name[XNVME_BE_LINUX_NAME_LEN]; ///< kernel name of the node ("" for files)
	char disk[XNVME_BE_LINUX_NAME_LEN]; ///< block disk whose queue limits apply ("" if none)
	char ctrlr_name[XNVME_BE_LINUX_NAME_LEN]; ///< NVMe: controller (nvmeX) for topology ops
};

/** The backend (lib/be/registry.def) */
extern const struct xnvme_be xnvme_be_linux;

/**
 * The state of `dev` when it was opened by the Linux backend, else NULL (mechanisms use this
 * in check_support and must not be handed other handles).
 */
static inline struct xnvme_be_linux_state *
xnvme_be_linux_state(const struct xnvme_dev *dev)
{
	return dev->be == &xnvme_be_linux ? (struct xnvme_be_linux_state *)dev->state : NULL;
}

/**
 * Reads a small sysfs attribute at the printf-formatted path into `buf` (NUL-terminated,
 * trailing newline stripped). Returns 0 or a negative errno.
 */
int
xnvme_be_linux_sysfs_read(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** As xnvme_be_linux_sysfs_read() for an unsigned decimal value */
int
xnvme_be_linux_sysfs_u64(uint64_t *val, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * Parses kernel NVMe names: "<prefix>X" gives 1 (controller-like), "<prefix>XnY" gives 2
 * (namespace-like), anything else 0 (e.g. hidden multipath paths nvmeXcYnZ, partitions).
 */
int
xnvme_be_linux_nvme_name(const char *name, const char *prefix, uint32_t *x, uint32_t *y);

/**
 * Calls `cb` with every device URI enumeration visits under the sysfs tree at `sysfs_root`
 * ("/sys" on a live system): NVMe controllers (/dev/nvmeX), then namespace block devices
 * (/dev/nvmeXnY, hidden multipath paths nvmeXcYnZ skipped), then generic namespace char
 * devices (/dev/ngXnY), each group in numeric order. Stops when `cb` returns non-zero and
 * returns that value; 0 when all were listed; a negative errno when the tree is unreadable.
 */
int
xnvme_be_linux_enum_uris(const char *sysfs_root, int (*cb)(const char *uri, void *arg), void *arg);

/**
 * A system call of the per-I/O path (io_submit, pread/pwrite, io_uring_enter), made here: on
 * x86_64 the syscall instruction itself, which clobbers only rcx and r11, so a caller keeps
 * its values in registers across it and needs no stack frame (glibc's syscall() shuffles its
 * arguments and sets errno; its pread/pwrite switch the cancellation type around the call);
 * elsewhere syscall(). Returns the result or -errno.
 */
static inline long
xnvme_be_linux_sys6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#else
	long ret = syscall(nr, a1, a2, a3, a4, a5, a6);

	return ret < 0 ? -errno : ret;
#endif
}

/** xnvme_be_linux_sys6() of a call of four arguments (no registers set for the others) */
static inline long
xnvme_be_linux_sys4(long nr, long a1, long a2, long a3, long a4)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = a4;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
#else
	return xnvme_be_linux_sys6(nr, a1, a2, a3, a4, 0, 0);
#endif
}

/** NVMe generic statuses the Linux mechanisms answer with */
enum xnvme_be_linux_sc {
	XNVME_BE_LINUX_SC_INVALID_OPCODE = 0x01,
	XNVME_BE_LINUX_SC_INVALID_FIELD = XNVME_STATUS_CODE_INVALID_FIELD,
	XNVME_BE_LINUX_SC_INVALID_NS = 0x0B, ///< Invalid Namespace or Format
	XNVME_BE_LINUX_SC_LBA_RANGE = 0x80,
};

/** Sets a generic NVMe status in cpl; returns -EIO, as a sync mechanism does for a status */
static inline int
xnvme_be_linux_status(struct xnvme_cmd_ctx *ctx, uint8_t sc)
{
	xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, sc);
	return -EIO;
}

/** Folds an OS error (positive or negative errno) into cpl (sct 7, sc errno); returns -errno */
static inline int
xnvme_be_linux_errno(struct xnvme_cmd_ctx *ctx, int err)
{
	if (err < 0) {
		err = -err;
	}
	xnvme_cpl_set_errno(ctx, err);
	return -err;
}

/**
 * check_support of the mechanisms that serve block devices only: any other handle is refused
 * with a reason (check.c, as the two below).
 */
int
xnvme_be_linux_check_block(struct xnvme_dev *dev);

/** check_support of the mechanisms that serve regular files and block devices */
int
xnvme_be_linux_check_file_or_block(struct xnvme_dev *dev);

/**
 * As xnvme_be_linux_check_file_or_block(), for the kernel-async mechanism `mech`: its refusal
 * of an NVMe char device points at io_uring_cmd.
 */
int
xnvme_be_linux_check_file_or_block_for(struct xnvme_dev *dev, const char *mech);

/** check_support of the nvme mechanisms: the node answers NVMe ioctls, else a reason */
int
xnvme_be_linux_nvme_check(struct xnvme_dev *dev);

/**
 * The start of an async mechanism's init: the queue is on a handle of the Linux backend (its
 * state in *lstate; else -ENOTSUP) and gets a zeroed state of `size` bytes in queue->state
 * (else -ENOMEM).
 */
static inline int
xnvme_be_linux_queue_state(struct xnvme_queue *queue, size_t size,
			   const struct xnvme_be_linux_state **lstate)
{
	*lstate = xnvme_be_linux_state(queue->dev);
	if (!*lstate) {
		return -ENOTSUP;
	}
	queue->state = calloc(1, size);
	return queue->state ? 0 : -ENOMEM;
}

/** Sum of the entry lengths of an iovec array */
static inline size_t
xnvme_be_linux_iov_total(const struct iovec *dvec, size_t dvec_cnt)
{
	size_t total = 0;

	for (size_t i = 0; i < dvec_cnt; ++i) {
		total += dvec[i].iov_len;
	}
	return total;
}

/** Gathers the vector into `buf` (to_buf), or scatters `buf` over it */
static inline void
xnvme_be_linux_iov_copy(const struct iovec *dvec, size_t dvec_cnt, char *buf, bool to_buf)
{
	for (size_t i = 0; i < dvec_cnt; ++i) {
		if (dvec[i].iov_len) {
			if (to_buf) {
				memcpy(buf, dvec[i].iov_base, dvec[i].iov_len);
			} else {
				memcpy(dvec[i].iov_base, buf, dvec[i].iov_len);
			}
			buf += dvec[i].iov_len;
		}
	}
}

/** The dev mechanism's enumerate (enumerate.c); sys_uri "sysfs:<root>" reads another tree */
int
xnvme_be_linux_enumerate(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
			 void *cb_args);

/**
 * Whether the io_uring_cmd async mechanism can serve `dev` (build and kernel support), defined
 * by async_ucmd.c. The dev mechanism asks it to choose the default async mechanism of generic
 * NVMe char devices.
 */
bool
xnvme_be_linux_ucmd_supported(struct xnvme_dev *dev);

extern const struct xnvme_be_dev xnvme_be_linux_dev;
extern const struct xnvme_be_admin xnvme_be_linux_admin_nvme;
extern const struct xnvme_be_admin xnvme_be_linux_admin_block;
extern const struct xnvme_be_admin xnvme_be_linux_admin_file;
extern const struct xnvme_be_sync xnvme_be_linux_sync_nvme;
extern const struct xnvme_be_sync xnvme_be_linux_sync_psync;
extern const struct xnvme_be_sync xnvme_be_linux_sync_block;
extern const struct xnvme_be_async xnvme_be_linux_async_posix;
extern const struct xnvme_be_async xnvme_be_linux_async_liburing;
extern const struct xnvme_be_async xnvme_be_linux_async_ucmd;
extern const struct xnvme_be_async xnvme_be_linux_async_libaio;

#endif /* XNVME_BE_LINUX_H */
