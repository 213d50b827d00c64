/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * NVM command set builders. They write only the opcode, nsid and the fields each command names:
 * clients pre-set PRINFO, tags, the directive type (CDW12) and directive specific (CDW13) before
 * calling, and those must reach the device. Transfer sizes come from the device geometry, never
 * from the caller's idea of its buffer size.
 */
#include <errno.h>
#include <libxnvme.h>
/* xnvme_nvm_read() and _write(), the per-I/O path, are in lib/cmd.c: they inline the pass */

/* Zero-based dword count of a transfer; 0 for transfers shorter than one dword */
static inline uint32_t
numd_of(size_t nbytes)
{
	return nbytes >= 4 ? (uint32_t)(nbytes / 4 - 1) : 0;
}

/* Data and metadata byte counts of `nlb + 1` blocks; 0 for an absent buffer */
static int
lba_xfer_nbytes(struct xnvme_cmd_ctx *ctx, uint16_t nlb, const void *dbuf, const void *mbuf,
		size_t *dbuf_nbytes, size_t *mbuf_nbytes)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(ctx->dev);
	size_t nblocks = (size_t)nlb + 1;

	if (!geo) {
		return -EINVAL;
	}
	*dbuf_nbytes = dbuf ? nblocks * geo->lba_nbytes : 0;
	*mbuf_nbytes = mbuf ? nblocks * geo->nbytes_oob : 0;

	return 0;
}

/* Pass an LBA-addressed data command; const payloads only travel to the device */
static int
pass_lba_data(struct xnvme_cmd_ctx *ctx, uint16_t nlb, const void *dbuf, const void *mbuf)
{
	size_t dbuf_nbytes, mbuf_nbytes;
	int err;

	err = lba_xfer_nbytes(ctx, nlb, dbuf, mbuf, &dbuf_nbytes, &mbuf_nbytes);
	if (err) {
		return err;
	}

	return xnvme_cmd_pass(ctx, (void *)dbuf, dbuf_nbytes, (void *)mbuf, mbuf_nbytes);
}

void
xnvme_prep_nvm(struct xnvme_cmd_ctx *ctx, uint8_t opcode, uint32_t nsid, uint64_t slba,
	       uint16_t nlb)
{
	if (!ctx) {
		return; /* NULL: nothing to prepare */
	}
	ctx->cmd.common.opcode = opcode;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.nvm.slba = slba;
	ctx->cmd.nvm.nlb = nlb;
}

int
xnvme_nvm_compare(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb, void *dbuf,
		  void *mbuf)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_COMPARE;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.compare.slba = slba;
	ctx->cmd.compare.nlb = nlb;

	return pass_lba_data(ctx, nlb, dbuf, mbuf);
}

int
xnvme_nvm_write_uncorrectable(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb)
{
	if (!ctx) {
		return -EINVAL;
	}
	xnvme_prep_nvm(ctx, XNVME_SPEC_NVM_OPC_WRITE_UNCORRECTABLE, nsid, slba, nlb);

	return xnvme_cmd_pass(ctx, NULL, 0, NULL, 0);
}

int
xnvme_nvm_write_zeroes(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_WRITE_ZEROES;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.write_zeroes.slba = slba;
	ctx->cmd.write_zeroes.nlb = nlb;

	return xnvme_cmd_pass(ctx, NULL, 0, NULL, 0);
}

int
xnvme_nvm_dsm(struct xnvme_cmd_ctx *ctx, uint32_t nsid, struct xnvme_spec_dsm_range *dsm_range,
	      uint8_t nr, bool ad, bool idw, bool idr)
{
	size_t nbytes = sizeof(*dsm_range) * ((size_t)nr + 1);

	if (!ctx) {
		return -EINVAL;
	}

	ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.dsm.nr = nr;
	ctx->cmd.dsm.ad = ad;
	ctx->cmd.dsm.idw = idw;
	ctx->cmd.dsm.idr = idr;

	return xnvme_cmd_pass(ctx, dsm_range, nbytes, NULL, 0);
}

int
xnvme_nvm_scopy(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t sdlba,
		struct xnvme_spec_nvm_scopy_fmt_zero *ranges, uint8_t nr,
		enum xnvme_nvm_scopy_fmt copy_fmt)
{
	size_t entry_nbytes = sizeof(struct xnvme_spec_nvm_scopy_fmt_zero);

	if (!ctx) {
		return -EINVAL;
	}

	/* start/length entries win when both formats are flagged */
	if (copy_fmt & XNVME_NVM_SCOPY_FMT_SRCLEN) {
		entry_nbytes = sizeof(struct xnvme_spec_nvm_cmd_scopy_fmt_srclen);
	}

	ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_SCOPY;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.scopy.sdlba = sdlba;
	ctx->cmd.scopy.nr = nr;

	return xnvme_cmd_pass(ctx, ranges, entry_nbytes * ((size_t)nr + 1), NULL, 0);
}

int
xnvme_nvm_mgmt_recv(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t mo, uint16_t mos, void *dbuf,
		    uint32_t dbuf_nbytes)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_IO_MGMT_RECV;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.mgmt.mgmt_recv.mo = mo;
	ctx->cmd.mgmt.mgmt_recv.mos = mos;
	ctx->cmd.mgmt.mgmt_recv.numd = numd_of(dbuf_nbytes);

	return xnvme_cmd_pass(ctx, dbuf, dbuf_nbytes, NULL, 0);
}

int
xnvme_nvm_mgmt_send(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t mo, uint16_t mos, void *dbuf,
		    uint32_t dbuf_nbytes)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_IO_MGMT_SEND;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.mgmt.mgmt_send.mo = mo;
	ctx->cmd.mgmt.mgmt_send.mos = mos;

	return xnvme_cmd_pass(ctx, dbuf, dbuf_nbytes, NULL, 0);
}
