/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Decoding of the commands the mechanisms that move bytes of files and block devices serve
 * ("psync", "posix", "io_uring", "libaio"; not installed): READ/WRITE of the NVM set address
 * LBAs (byte offset slba << ssw, length (nlb + 1) << ssw from the geometry), the file opcodes
 * address bytes (offset slba, length as passed), and both FLUSH opcodes sync the file.
 *
 * This is the one place where these mechanisms judge a command, so they all agree:
 * - any other opcode completes with Invalid Command Opcode (SCT 0, SC 0x01), through the
 *   callback on a queue and as -EIO from the sync path, as a controller would answer;
 * - an NVM READ/WRITE whose nsid is not the device's namespace (dev->ident.nsid: the
 *   namespace of an NVMe block device, 1 for other block devices and files) completes with
 *   Invalid Namespace or Format (0x0B) before any I/O, on files and block devices alike;
 * - on a regular file the NVM READ/WRITE commands are held to the geometry the file reports:
 *   a transfer above MDTS Invalid Field (0x02), LBAs past the end of the file LBA Out of
 *   Range (0x80), all before any I/O. The end is the size the geometry was derived from (tbytes): a read
 *   may cover the partial LBA at the end (a short read), a write must end within the size,
 *   so an NVM write never grows the file. The byte-addressed file opcodes keep file
 *   semantics (a write past the end extends the file).
 */
#ifndef XNVME_BE_LINUX_RW_H
#define XNVME_BE_LINUX_RW_H

#include <stdint.h>
#include "be_linux.h"

enum xnvme_be_linux_rw {
	XNVME_BE_LINUX_RW_READ = 0,
	XNVME_BE_LINUX_RW_WRITE = 1,
	XNVME_BE_LINUX_RW_FLUSH = 2,
	XNVME_BE_LINUX_RW_FAILED = 3, ///< decoding failed: cpl holds the status, complete as is
};

/*
 * The geometry checks of an NVM READ/WRITE on a regular file; false with the status in cpl.
 * A read may cover the partial LBA at the end of the file (a short read, as before); a write
 * must end within the file's size.
 */
static inline bool
xnvme_be_linux_rw_file_ok(struct xnvme_cmd_ctx *ctx, uint64_t slba, uint64_t nbytes, bool write)
{
	const struct xnvme_dev *dev = ctx->dev;
	uint64_t ssw = dev->geo.ssw;
	/* a growing file's size is updated by xnvme_dev_derive_geo() meanwhile: read it once */
	uint64_t tbytes = __atomic_load_n(&dev->geo.tbytes, __ATOMIC_RELAXED);
	/*
	 * In bytes, no LBA count per command: the transfer ends at `end`, a multiple of the LBA
	 * size (decoding bounded slba, so no overflow). A write must end within the file; a read
	 * must not start its last LBA at or past the end (it may cover the partial LBA there).
	 */
	uint64_t end = (slba << ssw) + nbytes;
	uint8_t sc;

	if (dev->geo.mdts_nbytes && nbytes > dev->geo.mdts_nbytes) {
		sc = XNVME_BE_LINUX_SC_INVALID_FIELD;
	} else if (write ? end > tbytes : end - (1ULL << ssw) >= tbytes) {
		sc = XNVME_BE_LINUX_SC_LBA_RANGE;
	} else {
		return true;
	}
	xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, sc);
	return false;
}

/**
 * Decodes ctx->cmd; `avail` is the byte count of the caller's buffer. Returns an enum
 * xnvme_be_linux_rw with *off / *len set for transfers, or XNVME_BE_LINUX_RW_FAILED with the
 * status in cpl (other opcodes: Invalid Command Opcode; another nsid: Invalid Namespace or
 * Format; files: the geometry checks above). The transfer of an NVM command never exceeds the
 * caller's buffer (Invalid Field) nor what an off_t can address. The geometry is read as final (rule 1 of xnvme_be.h): no call, so a
 * caller's fast path needs no stack frame.
 */
static inline __attribute__((always_inline)) int
xnvme_be_linux_rw_decode(struct xnvme_cmd_ctx *ctx, size_t avail, uint64_t *off, size_t *len)
{
	uint64_t slba = ctx->cmd.nvm.slba, nbytes;
	uint8_t opc = (uint8_t)ctx->cmd.common.opcode;
	uint32_t ssw;

	/* NVM WRITE (0x01) and READ (0x02) first: one compare instead of the switch's tree */
	_Static_assert(XNVME_SPEC_NVM_OPC_WRITE == 1 && XNVME_SPEC_NVM_OPC_READ == 2,
		       "NVM write and read opcodes");
	if (XNVME_BE_LIKELY((uint8_t)(opc - 1) <= 1)) {
		ssw = ctx->dev->geo.ssw;
		nbytes = ((uint64_t)ctx->cmd.nvm.nlb + 1) << ssw;
		if (__builtin_expect(nbytes > avail || slba > ((uint64_t)INT64_MAX >> ssw), 0)) {
			xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
					     XNVME_STATUS_CODE_INVALID_FIELD);
			return XNVME_BE_LINUX_RW_FAILED;
		}
		/* one compare: another namespace's LBAs are never this file's or device's */
		if (XNVME_BE_UNLIKELY(ctx->cmd.common.nsid != ctx->dev->ident.nsid)) {
			xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
					     XNVME_BE_LINUX_SC_INVALID_NS);
			return XNVME_BE_LINUX_RW_FAILED;
		}
		if (XNVME_BE_UNLIKELY(
			    ((const struct xnvme_be_linux_state *)ctx->dev->state)->ftype ==
			    XNVME_BE_LINUX_FILE) &&
		    !xnvme_be_linux_rw_file_ok(ctx, slba, nbytes,
					       opc == XNVME_SPEC_NVM_OPC_WRITE)) {
			return XNVME_BE_LINUX_RW_FAILED;
		}
		*off = slba << ssw;
		*len = (size_t)nbytes;
		return opc == XNVME_SPEC_NVM_OPC_WRITE;
	}

	switch (opc) {
	case XNVME_SPEC_FS_OPC_READ:
	case XNVME_SPEC_FS_OPC_WRITE:
		if (__builtin_expect(slba > INT64_MAX, 0)) {
			xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
					     XNVME_STATUS_CODE_INVALID_FIELD);
			return XNVME_BE_LINUX_RW_FAILED;
		}
		*off = slba;
		*len = avail;
		return opc == XNVME_SPEC_FS_OPC_WRITE;

	case XNVME_SPEC_NVM_OPC_FLUSH:
	case XNVME_SPEC_FS_OPC_FLUSH:
		*off = 0;
		*len = 0;
		return XNVME_BE_LINUX_RW_FLUSH;

	default:
		xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
				     XNVME_BE_LINUX_SC_INVALID_OPCODE);
		return XNVME_BE_LINUX_RW_FAILED;
	}
}

/** Folds the completion of a transfer: res >= 0 is the byte count, else a negative errno */
static inline void
xnvme_be_linux_rw_cpl(struct xnvme_cmd_ctx *ctx, long res)
{
	if (__builtin_expect(res >= 0, 1)) {
		ctx->cpl.result = (uint64_t)res;
	} else {
		xnvme_cpl_set_errno(ctx, (int)res);
	}
}

/**
 * Copies the first `len` bytes' worth of `src` (which holds at least that much) into `dst`
 * of room `room`, the last entry shortened. Returns the entry count, or 0 when it needs more
 * than `room` entries.
 */
static inline size_t
xnvme_be_linux_iov_trim(struct iovec *dst, size_t room, const struct iovec *src, size_t cnt,
			size_t len)
{
	size_t acc = 0, i;

	for (i = 0; i < cnt && acc < len; ++i) {
		size_t seg = src[i].iov_len;

		if (i == room) {
			return 0;
		}
		if (seg > len - acc) {
			seg = len - acc;
		}
		dst[i].iov_base = src[i].iov_base;
		dst[i].iov_len = seg;
		acc += seg;
	}
	return i;
}

#endif /* XNVME_BE_LINUX_RW_H */
