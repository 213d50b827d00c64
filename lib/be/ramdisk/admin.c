// SPDX-License-Identifier: BSD-3-Clause
/*
 * The admin mechanism "ramdisk": an in-memory controller answering Identify, Get Log Page,
 * Get/Set Features, Directive Send/Receive, plus the topology pseudo-commands. Other admin
 * opcodes are refused with Invalid Command Opcode, as a controller that does not implement
 * them would.
 */
#include <string.h>

#include "ramdisk.h"

static int
ramdisk_cmd_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		  size_t mbuf_nbytes)
{
	struct ramdisk *rd = ramdisk_of(ctx->dev);
	int err;

	(void)mbuf;
	(void)mbuf_nbytes;

	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_ADM_OPC_IDFY:
		err = xnvme_ramdisk_adm_idfy(rd, ctx, dbuf, dbuf_nbytes);
		break;
	case XNVME_SPEC_ADM_OPC_LOG:
		err = xnvme_ramdisk_adm_log(rd, ctx, dbuf, dbuf_nbytes);
		break;
	case XNVME_SPEC_ADM_OPC_GFEAT:
		err = xnvme_ramdisk_adm_gfeat(rd, ctx, dbuf, dbuf_nbytes);
		break;
	case XNVME_SPEC_ADM_OPC_SFEAT:
		err = xnvme_ramdisk_adm_sfeat(rd, ctx, dbuf, dbuf_nbytes);
		break;
	case XNVME_SPEC_ADM_OPC_DSEND:
		err = xnvme_ramdisk_dir_send(rd, ctx);
		break;
	case XNVME_SPEC_ADM_OPC_DRECV:
		err = xnvme_ramdisk_dir_recv(rd, ctx, dbuf, dbuf_nbytes);
		break;
	default:
		err = ramdisk_invalid_opcode(ctx);
		break;
	}
	if (err) {
		xnvme_ramdisk_errlog_add(rd, ctx, 0, 0);
	}
	return err;
}

/* Registers of an enabled, ready controller matching what Identify reports */
static void
ctrlr_bar_fill(struct xnvme_spec_ctrlr_bar *bar)
{
	const uint64_t mqes = 1023; /* zero-based queue entries */
	const uint64_t to = 20;     /* ready timeout, 500 ms units */
	const uint64_t css = 0x41;  /* NVM + I/O command sets */
	const uint64_t mpsmin = 0;  /* 4 KiB: MDTS is in these units */
	const uint64_t mpsmax = 4;  /* 64 KiB */

	memset(bar, 0, sizeof(*bar));
	bar->cap = mqes | (1ULL << 16) /* CQR */ | (to << 24) | (1ULL << 36) /* NSSRS */ |
		   (css << 37) | (mpsmin << 48) | (mpsmax << 52);
	bar->vs = 0x00020000;
	/* EN, CSS all I/O command sets, MPS 4 KiB, IOSQES 64 B, IOCQES 16 B */
	bar->cc = 1U | (0x6U << 4) | (6U << 16) | (4U << 20);
	bar->csts = 1U; /* RDY */
	bar->aqa = (31U << 16) | 31U;
}

static int
ramdisk_pseudo(struct xnvme_dev *dev, enum xnvme_be_pseudo op, void *buf, size_t nbytes)
{
	switch (op) {
	case XNVME_BE_PSEUDO_SUBSYSTEM_RESET:
	case XNVME_BE_PSEUDO_CONTROLLER_RESET:
	case XNVME_BE_PSEUDO_NAMESPACE_RESCAN:
		/* Nothing is cached outside the ramdisk: there is nothing to reset or rescan */
		(void)dev;
		return 0;

	case XNVME_BE_PSEUDO_GET_REGISTERS:
		if (!buf || nbytes < sizeof(struct xnvme_spec_ctrlr_bar)) {
			return -EINVAL;
		}
		ctrlr_bar_fill(buf);
		return 0;
	}
	return -ENOSYS;
}

const struct xnvme_be_admin xnvme_be_ramdisk_admin = {
	.name = "ramdisk",
	.check_support = xnvme_ramdisk_check_support,
	.cmd_admin = ramdisk_cmd_admin,
	.pseudo = ramdisk_pseudo,
};
