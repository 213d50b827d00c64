// SPDX-License-Identifier: BSD-3-Clause
/*
 * The file opcodes (write 0xAC, read 0xDC, flush 0xAD) on a ramdisk with an NVM namespace:
 * nvm.slba is a byte offset, the byte count is the caller's buffer size, and cpl.result
 * reports the bytes transferred. Reads are short at the end of the device.
 */
#include "ramdisk.h"

/* File contexts may leave nsid at 0; otherwise it names our namespace or all of them */
static int
check_nsid(struct xnvme_cmd_ctx *ctx)
{
	uint32_t nsid = ctx->cmd.common.nsid;

	if (!nsid || nsid == RAMDISK_NSID || nsid == 0xFFFFFFFF) {
		return 0;
	}
	return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, RAMDISK_SC_INVALID_NS);
}

/* LBAs touched by a byte range; nbytes > 0 */
static inline void
byte_range_lbas(const struct ramdisk *rd, uint64_t off, uint64_t nbytes, uint64_t *slba,
		uint64_t *nlbas)
{
	*slba = off >> rd->lba_shift;
	*nlbas = ((off + nbytes - 1) >> rd->lba_shift) - *slba + 1;
}

/*
 * File write, namespace and payload checked: the device cannot grow, so a write past the end
 * fails as a whole
 */
static int
fs_write(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_payload *pl)
{
	uint64_t off = ctx->cmd.nvm.slba, nbytes = pl->nbytes, slba, nlbas;

	if (off > rd->nbytes || nbytes > rd->nbytes - off) {
		return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, RAMDISK_SC_LBA_RANGE);
	}
	if (nbytes) {
		xnvme_ramdisk_payload_gather(pl, rd->mem + off, (size_t)nbytes);
		byte_range_lbas(rd, off, nbytes, &slba, &nlbas);
		xnvme_ramdisk_unc_clear(rd, slba, nlbas);
	}
	ctx->cpl.result = nbytes;

	ramdisk_stat_write(rd, nbytes);
	return 0;
}

/* File read, namespace and payload checked: short at the end, 0 bytes at or past it */
static int
fs_read(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_payload *pl)
{
	uint64_t off = ctx->cmd.nvm.slba, nbytes = pl->nbytes, slba, nlbas;
	int err;

	if (off >= rd->nbytes) {
		nbytes = 0;
	} else if (nbytes > rd->nbytes - off) {
		nbytes = rd->nbytes - off;
	}
	if (nbytes) {
		byte_range_lbas(rd, off, nbytes, &slba, &nlbas);
		err = xnvme_ramdisk_check_readable(rd, ctx, slba, nlbas);
		if (err) {
			return err;
		}
		xnvme_ramdisk_payload_scatter(pl, rd->mem + off, (size_t)nbytes);
	}
	ctx->cpl.result = nbytes;

	ramdisk_stat_read(rd, nbytes);
	return 0;
}

bool
xnvme_ramdisk_fs_is_opcode(uint8_t opcode)
{
	return opcode == XNVME_SPEC_FS_OPC_WRITE || opcode == XNVME_SPEC_FS_OPC_READ ||
	       opcode == XNVME_SPEC_FS_OPC_FLUSH;
}

int
xnvme_ramdisk_fs_cmd_io(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx,
			const struct ramdisk_payload *pl)
{
	uint8_t opc = (uint8_t)ctx->cmd.common.opcode;
	int err;

	if (!xnvme_ramdisk_fs_is_opcode(opc)) {
		return ramdisk_invalid_opcode(ctx);
	}
	err = check_nsid(ctx);
	if (err || opc == XNVME_SPEC_FS_OPC_FLUSH) {
		return err;
	}
	if (pl->bad) {
		return ramdisk_invalid_field(ctx);
	}
	return opc == XNVME_SPEC_FS_OPC_WRITE ? fs_write(rd, ctx, pl) : fs_read(rd, ctx, pl);
}

/* Commands Supported and Effects entries of the file opcodes */
void
xnvme_ramdisk_fs_effects(uint32_t *iocs)
{
	iocs[XNVME_SPEC_FS_OPC_WRITE] = RAMDISK_EFFECT_CSUPP | RAMDISK_EFFECT_LBCC;
	iocs[XNVME_SPEC_FS_OPC_READ] = RAMDISK_EFFECT_CSUPP;
	iocs[XNVME_SPEC_FS_OPC_FLUSH] = RAMDISK_EFFECT_CSUPP;
}
