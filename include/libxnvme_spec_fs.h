/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * The private "file" command set (CSI 0x1F): opcodes used on file-backed devices and the
 * identify data describing a file system and a file. Self-contained; does not need
 * libxnvme_spec.h.
 */
#ifndef LIBXNVME_SPEC_FS_H
#define LIBXNVME_SPEC_FS_H

#include <stddef.h>
#include <stdint.h>
#include "libxnvme_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Command Set Identifier reported by file-backed devices */
#define XNVME_SPEC_CSI_FS 0x1F

/** Opcodes of the file command set; nvm.slba carries a byte offset for these */
enum xnvme_spec_fs_opcs {
	XNVME_SPEC_FS_OPC_FLUSH = 0xAD, ///< flush (fsync) the file
	XNVME_SPEC_FS_OPC_WRITE = 0xAC, ///< write bytes at a byte offset
	XNVME_SPEC_FS_OPC_READ = 0xDC,  ///< read bytes at a byte offset
};

/** File-system capabilities and limits, shaped as Identify Controller data */
struct xnvme_spec_fs_idfy_ctrlr {
	uint8_t byte0_519[520];

	struct {
		uint64_t direct : 1; ///< I/O may bypass the OS page cache
		uint64_t rsvd : 63;
	} caps;

	struct {
		uint64_t file_data_size;  ///< largest file content, in bytes
		uint64_t file_name_len;   ///< longest file name, in bytes
		uint64_t path_name_len;   ///< longest path, in bytes
		uint64_t number_of_files; ///< most files the file system holds
	} limits;

	struct {
		uint64_t permissions_posix : 1;
		uint64_t permissions_acl : 1;
		uint64_t stamp_creation : 1;
		uint64_t stamp_access : 1;
		uint64_t stamp_change : 1;
		uint64_t stamp_archive : 1;
		uint64_t hardlinks : 1;
		uint64_t symlinks : 1;
		uint64_t case_sensitive : 1;
		uint64_t case_preserving : 1;
		uint64_t journaling_block : 1;
		uint64_t journaling_meta : 1;
		uint64_t snapshotting : 1;
		uint64_t compressed : 1;
		uint64_t encrypted : 1;
		uint64_t rsvd : 48; ///< bits 15..62; bit 63 is unused
	} properties;

	struct {
		uint32_t min; ///< smallest I/O size, in bytes
		uint32_t max; ///< largest I/O size, in bytes
		uint32_t opt; ///< preferred I/O size, in bytes
	} iosizes;

	uint8_t rsvd[3509];

	uint8_t ac; ///< validity marker, 0xAC
	uint8_t dc; ///< validity marker, 0xDC
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_fs_idfy_ctrlr) == 4096, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_fs_idfy_ctrlr, caps) == 520, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_fs_idfy_ctrlr, limits) == 528, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_fs_idfy_ctrlr, properties) == 560,
		    "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_fs_idfy_ctrlr, iosizes) == 568, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_fs_idfy_ctrlr, rsvd) == 580, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_fs_idfy_ctrlr, ac) == 4089, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_fs_idfy_ctrlr, dc) == 4090, "Incorrect offset")

/** File properties shaped as Identify Namespace data; sizes are in bytes */
struct xnvme_spec_fs_idfy_ns {
	uint64_t nsze; ///< size of the file system, in bytes
	uint64_t ncap; ///< bytes that can be allocated to the file
	uint64_t nuse; ///< current file size, in bytes

	uint8_t rsvd[3816];

	uint8_t vendor_specific[254];

	uint8_t ac; ///< validity marker, 0xAC
	uint8_t dc; ///< validity marker, 0xDC
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_fs_idfy_ns) == 4096, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_fs_idfy_ns, vendor_specific) == 3840,
		    "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_fs_idfy_ns, ac) == 4094, "Incorrect offset")

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_SPEC_FS_H */
