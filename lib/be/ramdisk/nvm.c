// SPDX-License-Identifier: BSD-3-Clause
/*
 * NVM command set on a ramdisk namespace: Read, Write, Compare, Write Zeroes, Write
 * Uncorrectable, Dataset Management, Simple Copy and Flush, plus the I/O Management commands
 * of FDP. LBA data, metadata and protection information move through media.c. Every check
 * answers with the status an NVMe controller gives; nothing outside the namespace or the
 * caller's buffers is ever touched. Data moves without locks: concurrent commands on
 * overlapping LBAs race like they would on a device.
 */
#include <string.h>

#include "ramdisk.h"

#define SCT_GENERIC XNVME_STATUS_CODE_TYPE_GENERIC
#define SCT_CMDSPEC XNVME_STATUS_CODE_TYPE_CMDSPEC
#define SCT_MEDIA XNVME_STATUS_CODE_TYPE_MEDIA

#define PRINFO_PRACT 0x8

int
xnvme_ramdisk_check_nsid(struct xnvme_cmd_ctx *ctx, bool broadcast_ok)
{
	uint32_t nsid = ctx->cmd.common.nsid;

	if (nsid == RAMDISK_NSID || (broadcast_ok && nsid == 0xFFFFFFFF)) {
		return 0;
	}
	return ramdisk_status(ctx, SCT_GENERIC, RAMDISK_SC_INVALID_NS);
}

/* [slba, slba + nlbas) within the namespace, without overflowing */
static inline bool
range_ok(const struct ramdisk *rd, uint64_t slba, uint64_t nlbas)
{
	return slba < rd->nlbas && nlbas <= rd->nlbas - slba;
}

int
xnvme_ramdisk_check_range(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, uint64_t slba,
			  uint64_t nlbas)
{
	if (!range_ok(rd, slba, nlbas)) {
		return ramdisk_status(ctx, SCT_GENERIC, RAMDISK_SC_LBA_RANGE);
	}
	return 0;
}

int
xnvme_ramdisk_check_readable(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, uint64_t slba,
			     uint64_t nlbas)
{
	if (xnvme_ramdisk_unc_test(rd, slba, nlbas)) {
		ramdisk_stat_add(&rd->stats.media_errs, 1);
		return ramdisk_status(ctx, SCT_MEDIA, RAMDISK_SC_UNRECOVERED_READ);
	}
	return 0;
}

/* Namespace and range of an LBA command */
static int
check_lbas(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, uint64_t slba, uint64_t nlbas)
{
	int err = xnvme_ramdisk_check_nsid(ctx, false);

	if (!err) {
		err = xnvme_ramdisk_check_range(rd, ctx, slba, nlbas);
	}
	return err;
}

/* Namespace and range of an LBA command, then its transfer (buffers, MDTS, PI fields) */
static int
check_xfer(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_io *io,
	   uint64_t slba, uint64_t nlbas, struct ramdisk_xfer *x)
{
	int err;

	memset(x, 0, sizeof(*x));
	err = check_lbas(rd, ctx, slba, nlbas);
	if (!err) {
		err = xnvme_ramdisk_xfer_init(rd, ctx, x, slba, nlbas, io);
	}
	return err;
}

/* As check_xfer(), then the LBAs as stored, for Read and Compare; counted as a host read */
static int
load_xfer(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_io *io, uint64_t slba,
	  uint64_t nlbas, struct ramdisk_xfer *x)
{
	int err = check_xfer(rd, ctx, io, slba, nlbas, x);

	if (!err) {
		err = xnvme_ramdisk_check_readable(rd, ctx, slba, nlbas);
	}
	if (!err) {
		err = xnvme_ramdisk_xfer_load(rd, ctx, x);
	}
	if (!err) {
		ramdisk_stat_read(rd, nlbas << rd->lba_shift);
	}
	return err;
}

static int
nvm_read(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_io *io)
{
	uint64_t nlbas = (uint64_t)ctx->cmd.nvm.nlb + 1;
	struct ramdisk_xfer x;
	int err = load_xfer(rd, ctx, io, ctx->cmd.nvm.slba, nlbas, &x);

	if (!err) {
		xnvme_ramdisk_xfer_to_host(rd, &x, io);
	}
	xnvme_ramdisk_xfer_fini(&x);
	return err;
}

static int
nvm_write(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_io *io)
{
	uint64_t slba = ctx->cmd.nvm.slba;
	uint64_t nlbas = (uint64_t)ctx->cmd.nvm.nlb + 1;
	struct ramdisk_xfer x;
	int err;

	err = check_xfer(rd, ctx, io, slba, nlbas, &x);
	if (!err) {
		err = xnvme_ramdisk_xfer_from_host(rd, ctx, &x, io);
	}
	/* placement last: nothing fails after the reclaim unit is charged */
	if (!err) {
		err = xnvme_ramdisk_fdp_write(rd, ctx, nlbas);
	}
	if (!err) {
		xnvme_ramdisk_xfer_commit(rd, &x, io);
		xnvme_ramdisk_unc_clear(rd, slba, nlbas);
		ramdisk_stat_write(rd, nlbas << rd->lba_shift);
	}
	xnvme_ramdisk_xfer_fini(&x);
	return err;
}

static int
nvm_compare(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_io *io)
{
	uint64_t nlbas = (uint64_t)ctx->cmd.compare.nlb + 1;
	struct ramdisk_xfer x;
	int err = load_xfer(rd, ctx, io, ctx->cmd.compare.slba, nlbas, &x);

	if (!err && !xnvme_ramdisk_xfer_equal(rd, &x, io)) {
		err = ramdisk_status(ctx, SCT_MEDIA, RAMDISK_SC_COMPARE_FAILURE);
	}
	xnvme_ramdisk_xfer_fini(&x);
	return err;
}

/*
 * No data moves: any buffer passed along is ignored, and MDTS does not apply. The LBAs are
 * deallocated (they read as zeroes), or with PRACT on a PI format carry generated PI.
 */
static int
nvm_write_zeroes(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx)
{
	uint64_t slba = ctx->cmd.write_zeroes.slba;
	uint64_t nlbas = (uint64_t)ctx->cmd.write_zeroes.nlb + 1;
	int err = check_lbas(rd, ctx, slba, nlbas);

	if (err) {
		return err;
	}
	if (rd->cfg.pi && (ctx->cmd.write_zeroes.prinfo & PRINFO_PRACT)) {
		xnvme_ramdisk_media_zero_pi(rd, ctx, slba, nlbas);
	} else {
		xnvme_ramdisk_media_zero(rd, slba, nlbas);
	}
	xnvme_ramdisk_unc_clear(rd, slba, nlbas);
	return 0;
}

static int
nvm_write_uncorrectable(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx)
{
	uint64_t slba = ctx->cmd.nvm.slba;
	uint64_t nlbas = (uint64_t)ctx->cmd.nvm.nlb + 1;
	int err = check_lbas(rd, ctx, slba, nlbas);

	if (err) {
		return err;
	}
	err = xnvme_ramdisk_unc_mark(rd, slba, nlbas);
	if (err) {
		xnvme_cpl_set_errno(ctx, err);
		return err;
	}
	return 0;
}

/*
 * The range list length comes from the command (nr), never from the byte count: clients pass
 * the size of the LBA range there. Deallocated LBAs read as zeroes (see DLFEAT).
 */
static int
nvm_dsm(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_payload *pl)
{
	struct xnvme_spec_dsm_range ranges[RAMDISK_DSM_NRANGES_MAX];
	size_t nranges = (size_t)ctx->cmd.dsm.nr + 1;
	size_t nbytes = xnvme_cmd_payload_nbytes(ctx, pl->nbytes);
	int err;

	err = xnvme_ramdisk_check_nsid(ctx, false);
	if (err) {
		return err;
	}
	if (pl->bad || pl->nbytes < nbytes || nbytes != nranges * sizeof(ranges[0])) {
		return ramdisk_invalid_field(ctx);
	}
	xnvme_ramdisk_payload_gather(pl, ranges, nbytes);

	for (size_t i = 0; i < nranges; ++i) {
		if (ranges[i].llb && !range_ok(rd, ranges[i].slba, ranges[i].llb)) {
			return ramdisk_status(ctx, SCT_GENERIC, RAMDISK_SC_LBA_RANGE);
		}
	}
	if (!ctx->cmd.dsm.ad) {
		return 0; /* attributes are hints; nothing to do */
	}
	for (size_t i = 0; i < nranges; ++i) {
		if (!ranges[i].llb) {
			continue;
		}
		xnvme_ramdisk_media_zero(rd, ranges[i].slba, ranges[i].llb);
		xnvme_ramdisk_unc_clear(rd, ranges[i].slba, ranges[i].llb);
	}
	return 0;
}

/* Simple Copy with format-0 source ranges, within the limits reported by Identify Namespace */
static int
nvm_scopy(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_payload *pl)
{
	struct xnvme_spec_nvm_scopy_fmt_zero entries[RAMDISK_MSRC + 1];
	size_t nranges = (size_t)ctx->cmd.scopy.nr + 1;
	uint64_t sdlba = ctx->cmd.scopy.sdlba;
	uint64_t total = 0, dst;
	size_t nbytes;
	int err;

	err = xnvme_ramdisk_check_nsid(ctx, false);
	if (err) {
		return err;
	}
	if (ctx->cmd.scopy.df != 0) {
		return ramdisk_invalid_field(ctx);
	}
	if (nranges > RAMDISK_MSRC + 1) {
		return ramdisk_status(ctx, SCT_CMDSPEC, RAMDISK_SC_CMD_SIZE_LIMIT);
	}
	nbytes = xnvme_cmd_payload_nbytes(ctx, pl->nbytes);
	if (pl->bad || pl->nbytes < nbytes || nbytes != nranges * sizeof(entries[0])) {
		return ramdisk_invalid_field(ctx);
	}
	xnvme_ramdisk_payload_gather(pl, entries, nbytes);

	for (size_t i = 0; i < nranges; ++i) {
		uint64_t nlbas = (uint64_t)entries[i].nlb + 1;

		if (nlbas > RAMDISK_MSSRL) {
			return ramdisk_status(ctx, SCT_CMDSPEC, RAMDISK_SC_CMD_SIZE_LIMIT);
		}
		total += nlbas;
	}
	if (total > RAMDISK_MCL) {
		return ramdisk_status(ctx, SCT_CMDSPEC, RAMDISK_SC_CMD_SIZE_LIMIT);
	}
	for (size_t i = 0; i < nranges; ++i) {
		err = xnvme_ramdisk_check_range(rd, ctx, entries[i].slba,
						(uint64_t)entries[i].nlb + 1);
		if (err) {
			return err;
		}
	}
	err = xnvme_ramdisk_check_range(rd, ctx, sdlba, total);
	if (err) {
		return err;
	}
	for (size_t i = 0; i < nranges; ++i) {
		err = xnvme_ramdisk_check_readable(rd, ctx, entries[i].slba,
						   (uint64_t)entries[i].nlb + 1);
		if (err) {
			return err;
		}
	}

	/* Ranges are copied in order; memmove keeps overlapping source and destination sane */
	dst = sdlba;
	for (size_t i = 0; i < nranges; ++i) {
		uint64_t nlbas = (uint64_t)entries[i].nlb + 1;

		xnvme_ramdisk_media_move(rd, dst, entries[i].slba, nlbas);
		dst += nlbas;
	}
	xnvme_ramdisk_unc_clear(rd, sdlba, total);

	ramdisk_stat_write(rd, total << rd->lba_shift);
	return 0;
}

static int
nvm_flush(struct xnvme_cmd_ctx *ctx)
{
	return xnvme_ramdisk_check_nsid(ctx, true);
}

static int
nvm_cmd_io(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_io *io)
{
	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_NVM_OPC_READ:
		return nvm_read(rd, ctx, io);
	case XNVME_SPEC_NVM_OPC_WRITE:
		return nvm_write(rd, ctx, io);
	case XNVME_SPEC_NVM_OPC_COMPARE:
		return nvm_compare(rd, ctx, io);
	case XNVME_SPEC_NVM_OPC_WRITE_ZEROES:
		return nvm_write_zeroes(rd, ctx);
	case XNVME_SPEC_NVM_OPC_WRITE_UNCORRECTABLE:
		return nvm_write_uncorrectable(rd, ctx);
	case XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT:
		return nvm_dsm(rd, ctx, &io->data);
	case XNVME_SPEC_NVM_OPC_SCOPY:
		return nvm_scopy(rd, ctx, &io->data);
	case XNVME_SPEC_NVM_OPC_FLUSH:
		return nvm_flush(ctx);
	case XNVME_SPEC_NVM_OPC_IO_MGMT_RECV:
		if (!rd->fdp) {
			break;
		}
		return xnvme_ramdisk_fdp_mgmt_recv(rd, ctx, &io->data);
	case XNVME_SPEC_NVM_OPC_IO_MGMT_SEND:
		if (!rd->fdp) {
			break;
		}
		return xnvme_ramdisk_fdp_mgmt_send(rd, ctx, &io->data);
	default:
		break;
	}
	return ramdisk_invalid_opcode(ctx);
}

static void
nvm_idfy_ns_css(const struct ramdisk *rd, void *buf)
{
	struct xnvme_spec_nvm_idfy_ns *ns = buf;

	memset(ns, 0, sizeof(*ns));
	/* one LBA format without storage tag; its guard size from the URI */
	ns->elbaf[0].sts = 0;
	ns->elbaf[0].pif = rd->cfg.pif;
}

static void
nvm_idfy_ctrlr_css(const struct ramdisk *rd, void *buf)
{
	struct xnvme_spec_nvm_idfy_ctrlr *ctrlr = buf;

	memset(ctrlr, 0, sizeof(*ctrlr));
	ctrlr->vsl = 0;  /* no Verify */
	ctrlr->wzsl = 0; /* Write Zeroes: no limit */
	ctrlr->wusl = 0; /* Write Uncorrectable: no limit */
	ctrlr->dmrl = RAMDISK_DSM_NRANGES_MAX - 1;
	ctrlr->dmrsl = rd->nlbas < UINT32_MAX ? (uint32_t)rd->nlbas : UINT32_MAX;
	ctrlr->dmsl = rd->nlbas;
}

static void
nvm_effects(const struct ramdisk *rd, uint32_t *iocs)
{
	iocs[XNVME_SPEC_NVM_OPC_FLUSH] = RAMDISK_EFFECT_CSUPP;
	iocs[XNVME_SPEC_NVM_OPC_WRITE] = RAMDISK_EFFECT_CSUPP | RAMDISK_EFFECT_LBCC;
	iocs[XNVME_SPEC_NVM_OPC_READ] = RAMDISK_EFFECT_CSUPP;
	iocs[XNVME_SPEC_NVM_OPC_WRITE_UNCORRECTABLE] = RAMDISK_EFFECT_CSUPP | RAMDISK_EFFECT_LBCC;
	iocs[XNVME_SPEC_NVM_OPC_COMPARE] = RAMDISK_EFFECT_CSUPP;
	iocs[XNVME_SPEC_NVM_OPC_WRITE_ZEROES] = RAMDISK_EFFECT_CSUPP | RAMDISK_EFFECT_LBCC;
	iocs[XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT] = RAMDISK_EFFECT_CSUPP | RAMDISK_EFFECT_LBCC;
	iocs[XNVME_SPEC_NVM_OPC_SCOPY] = RAMDISK_EFFECT_CSUPP | RAMDISK_EFFECT_LBCC;
	if (rd->fdp) {
		iocs[XNVME_SPEC_NVM_OPC_IO_MGMT_RECV] = RAMDISK_EFFECT_CSUPP;
		iocs[XNVME_SPEC_NVM_OPC_IO_MGMT_SEND] = RAMDISK_EFFECT_CSUPP;
	}
	xnvme_ramdisk_fs_effects(iocs);
}

const struct ramdisk_ns_ops xnvme_ramdisk_ns_nvm = {
	.csi = XNVME_SPEC_CSI_NVM,
	.cmd_io = nvm_cmd_io,
	.idfy_ns_css = nvm_idfy_ns_css,
	.idfy_ctrlr_css = nvm_idfy_ctrlr_css,
	.effects = nvm_effects,
};
