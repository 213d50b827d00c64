/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * The admin mechanisms that synthesise a controller with one namespace over a file or a disk
 * (Linux "file_as_ns" and "block", Windows "file" and "block"; synth.c, not installed): the
 * controller data they share, the namespace of one LBA format, the whole file-as-namespace
 * Identify (CNS 0x00, 0x01 and the file-system command set 0x1F of CNS 0x05/0x06) from facts the
 * platform gathers, Get Features "number of queues", and no topology pseudo-commands.
 */
#ifndef XNVME_BE_SYNTH_H
#define XNVME_BE_SYNTH_H

#include <stdbool.h>
#include <stdint.h>
#include "xnvme_be.h"

/** MDTS of a file as namespace: 2^(8 + 12) = 1 MiB */
#define XNVME_BE_SYNTH_MDTS 8
/** The queues Get Features "number of queues" reports (zero-based) */
#define XNVME_BE_SYNTH_NQUEUES 63

/** Sets a generic NVMe status in cpl; returns -EIO (a command that completed with a status) */
static inline int
xnvme_be_synth_status(struct xnvme_cmd_ctx *ctx, uint8_t sc)
{
	xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, sc);
	return -EIO;
}

/**
 * Identify Controller of a synthesised controller with one namespace: the strings (space
 * padded), `mdts`, NVMe 2.0, an I/O controller with one namespace, 64/16-byte queue entries and
 * the subsystem NQN. The caller sets what differs (ONCS, VWC).
 */
void
xnvme_be_synth_ctrlr(struct xnvme_spec_idfy_ctrlr *ctrlr, const char *sn, const char *mn,
		     const char *fr, uint8_t mdts, const char *subnqn);

/** Identify Namespace of `nsze` blocks (nsze = ncap = nuse) in one LBA format of `lba_nbytes` */
void
xnvme_be_synth_ns(struct xnvme_spec_idfy_ns *ns, uint64_t nsze, uint32_t lba_nbytes);

/** What the platform knows about the file behind a file-as-namespace handle */
struct xnvme_be_synth_file {
	uint32_t lba_nbytes; ///< the LBA size of the NVM view (512, or the block size)
	bool direct;         ///< opened with direct I/O: transfers of whole LBAs only
	bool block;          ///< a block device: namespace sizes in LBAs, no file properties
	bool posix;          ///< POSIX file properties (permissions, stamps, links, case)
	/** the file-system facts of the FS controller data, 0 when unknown */
	uint64_t fs_nbytes;     ///< size of the file system
	uint64_t fs_nfiles;     ///< files it can hold
	uint32_t fs_name_len;   ///< longest file name
	uint32_t fs_path_len;   ///< longest path
	uint32_t fs_opt_nbytes; ///< preferred transfer size
};

/**
 * The platform's part of a file as namespace. Each runs on the Identify that needs it, so that
 * a file that grows is seen at the next Identify.
 */
struct xnvme_be_synth_file_ops {
	const char *mn;       ///< model number, e.g. "xNVMe file as namespace"
	const char *mn_block; ///< model number of a block device as namespace
	/** the facts of struct xnvme_be_synth_file */
	void (*facts)(const struct xnvme_dev *dev, bool fs, struct xnvme_be_synth_file *f);
	/** a serial number that tells files apart (e.g. device and inode) */
	void (*serial)(const struct xnvme_dev *dev, char *sn, size_t len);
	/** the current size in bytes; 0 or a negative errno */
	int (*nbytes)(const struct xnvme_dev *dev, uint64_t *nbytes);
};

/**
 * The admin commands of a file as namespace: Identify Controller and Namespace (files: sizes in
 * bytes, for the geometry takes tbytes from the FS data; block devices: in LBAs), the FS command
 * set's controller and namespace data (CSI 0x1F), Get Features "number of queues"; Invalid Field
 * for other CNS/CSI/FID values, Invalid Command Opcode for other opcodes. The subsystem NQN is
 * nqn.2014-08.io.xnvme:file_as_ns:<uri>.
 */
int
xnvme_be_synth_file_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes,
			  const struct xnvme_be_synth_file_ops *ops);

/** Get Features "number of queues" of a synthesised controller; Invalid Field for other FIDs */
int
xnvme_be_synth_gfeat(struct xnvme_cmd_ctx *ctx);

/** pseudo of an admin mechanism without topology operations (a synthesised controller): -ENOSYS */
int
xnvme_be_pseudo_none(struct xnvme_dev *dev, enum xnvme_be_pseudo op, void *buf, size_t nbytes);

#endif /* XNVME_BE_SYNTH_H */
