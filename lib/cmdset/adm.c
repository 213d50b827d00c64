/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Admin command builders. Each sets the opcode and the fields it names, and nothing else, so
 * that a caller may pre-set other command dwords; then passes the command synchronously through
 * the admin path.
 */
#include <errno.h>
#include <string.h>
#include <libxnvme.h>

/* Zero-based dword count of a transfer; 0 for transfers shorter than one dword */
static inline uint32_t
numd_of(size_t nbytes)
{
	return nbytes >= 4 ? (uint32_t)(nbytes / 4 - 1) : 0;
}

/* A caller-given nsid of 0 means "this handle's namespace" */
static inline uint32_t
nsid_or_dev(struct xnvme_cmd_ctx *ctx, uint32_t nsid)
{
	return nsid ? nsid : xnvme_dev_get_nsid(ctx->dev);
}

int
xnvme_adm_idfy(struct xnvme_cmd_ctx *ctx, uint8_t cns, uint16_t cntid, uint8_t nsid,
	       uint16_t nvmsetid, uint8_t uuid, struct xnvme_spec_idfy *dbuf)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.idfy.cns = cns;
	ctx->cmd.idfy.cntid = cntid;
	ctx->cmd.idfy.nvmsetid = nvmsetid;
	ctx->cmd.idfy.uuid = uuid;

	return xnvme_cmd_pass_admin(ctx, dbuf, sizeof(*dbuf), NULL, 0);
}

int
xnvme_adm_idfy_ctrlr(struct xnvme_cmd_ctx *ctx, struct xnvme_spec_idfy *dbuf)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	ctx->cmd.idfy.cns = XNVME_SPEC_IDFY_CTRLR;

	return xnvme_cmd_pass_admin(ctx, dbuf, sizeof(*dbuf), NULL, 0);
}

int
xnvme_adm_idfy_ctrlr_csi(struct xnvme_cmd_ctx *ctx, uint8_t csi, struct xnvme_spec_idfy *dbuf)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	ctx->cmd.idfy.cns = XNVME_SPEC_IDFY_CTRLR_IOCS;
	ctx->cmd.idfy.csi = csi;

	return xnvme_cmd_pass_admin(ctx, dbuf, sizeof(*dbuf), NULL, 0);
}

int
xnvme_adm_idfy_ns(struct xnvme_cmd_ctx *ctx, uint32_t nsid, struct xnvme_spec_idfy *dbuf)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	ctx->cmd.common.nsid = nsid_or_dev(ctx, nsid);
	ctx->cmd.idfy.cns = XNVME_SPEC_IDFY_NS;
	ctx->cmd.idfy.csi = 0;

	return xnvme_cmd_pass_admin(ctx, dbuf, sizeof(*dbuf), NULL, 0);
}

int
xnvme_adm_idfy_ns_csi(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t csi,
		      struct xnvme_spec_idfy *dbuf)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	ctx->cmd.common.nsid = nsid_or_dev(ctx, nsid);
	ctx->cmd.idfy.cns = XNVME_SPEC_IDFY_NS_IOCS;
	ctx->cmd.idfy.csi = csi;

	return xnvme_cmd_pass_admin(ctx, dbuf, sizeof(*dbuf), NULL, 0);
}

void
xnvme_prep_adm_log(struct xnvme_cmd_ctx *ctx, uint8_t lid, uint8_t lsp, uint64_t lpo_nbytes,
		   uint32_t nsid, uint8_t rae, uint32_t dbuf_nbytes)
{
	uint32_t numd = numd_of(dbuf_nbytes);

	if (!ctx) {
		return; /* NULL: nothing to prepare */
	}

	ctx->cmd.common.opcode = XNVME_SPEC_ADM_OPC_LOG;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.log.lid = lid;
	ctx->cmd.log.lsp = lsp;
	ctx->cmd.log.rae = rae;
	ctx->cmd.log.numdl = numd & 0xFFFF;
	ctx->cmd.log.numdu = numd >> 16;
	/* the full low dword; the original masked it to 28 bits by mistake */
	ctx->cmd.log.lpol = (uint32_t)lpo_nbytes;
	ctx->cmd.log.lpou = (uint32_t)(lpo_nbytes >> 32);
}

int
xnvme_adm_log(struct xnvme_cmd_ctx *ctx, uint8_t lid, uint8_t lsp, uint64_t lpo_nbytes,
	      uint32_t nsid, uint8_t rae, void *dbuf, uint32_t dbuf_nbytes)
{
	if (!ctx) {
		return -EINVAL;
	}
	/* NUMD cannot express less than one dword; a shorter buffer would be overrun */
	if (!dbuf || dbuf_nbytes < 4 || lpo_nbytes % 4) {
		return -EINVAL;
	}

	memset(dbuf, 0, dbuf_nbytes);
	xnvme_prep_adm_log(ctx, lid, lsp, lpo_nbytes, nsid, rae, dbuf_nbytes);

	return xnvme_cmd_pass_admin(ctx, dbuf, dbuf_nbytes, NULL, 0);
}

void
xnvme_prep_adm_gfeat(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t fid, uint8_t sel)
{
	if (!ctx) {
		return; /* NULL: nothing to prepare */
	}
	ctx->cmd.common.opcode = XNVME_SPEC_ADM_OPC_GFEAT;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.gfeat.cdw10.fid = fid;
	ctx->cmd.gfeat.cdw10.sel = sel;
}

void
xnvme_prep_adm_sfeat(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t fid, uint32_t feat,
		     uint8_t save)
{
	if (!ctx) {
		return; /* NULL: nothing to prepare */
	}
	ctx->cmd.common.opcode = XNVME_SPEC_ADM_OPC_SFEAT;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.sfeat.cdw10.fid = fid;
	ctx->cmd.sfeat.cdw10.save = save;
	ctx->cmd.sfeat.feat.val = feat;
}

int
xnvme_adm_gfeat(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t fid, uint8_t sel, void *dbuf,
		size_t dbuf_nbytes)
{
	if (!ctx) {
		return -EINVAL;
	}
	xnvme_prep_adm_gfeat(ctx, nsid, fid, sel);

	return xnvme_cmd_pass_admin(ctx, dbuf, dbuf ? dbuf_nbytes : 0, NULL, 0);
}

int
xnvme_adm_sfeat(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t fid, uint32_t feat, uint8_t save,
		const void *dbuf, size_t dbuf_nbytes)
{
	if (!ctx) {
		return -EINVAL;
	}
	xnvme_prep_adm_sfeat(ctx, nsid, fid, feat, save);

	/* the payload only travels to the device; the pass API is not const-qualified */
	return xnvme_cmd_pass_admin(ctx, (void *)dbuf, dbuf ? dbuf_nbytes : 0, NULL, 0);
}

int
xnvme_adm_format(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t lbaf, uint8_t zf, uint8_t mset,
		 uint8_t ses, uint8_t pi, uint8_t pil)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_FMT;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.format.lbafl = lbaf;
	ctx->cmd.format.lbafu = zf;
	ctx->cmd.format.mset = mset;
	ctx->cmd.format.ses = ses;
	ctx->cmd.format.pi = pi;
	ctx->cmd.format.pil = pil;

	return xnvme_cmd_pass_admin(ctx, NULL, 0, NULL, 0);
}

int
xnvme_nvm_sanitize(struct xnvme_cmd_ctx *ctx, uint8_t sanact, bool ause, uint32_t ovrpat,
		   uint8_t owpass, bool oipbp, bool nodas)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_SANITIZE;
	ctx->cmd.sanitize.sanact = sanact;
	ctx->cmd.sanitize.ause = ause;
	ctx->cmd.sanitize.owpass = owpass;
	ctx->cmd.sanitize.oipbp = oipbp;
	ctx->cmd.sanitize.nodas = nodas;
	ctx->cmd.sanitize.ovrpat = ovrpat;

	return xnvme_cmd_pass_admin(ctx, NULL, 0, NULL, 0);
}

int
xnvme_adm_dir_send(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t doper, uint32_t dtype,
		   uint32_t dspec, uint32_t val)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_ADM_OPC_DSEND;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.dsend.doper = doper;
	ctx->cmd.dsend.dtype = dtype;
	ctx->cmd.dsend.dspec = dspec;
	ctx->cmd.dsend.cdw12.val = val;

	return xnvme_cmd_pass_admin(ctx, NULL, 0, NULL, 0);
}

int
xnvme_adm_dir_recv(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t doper, uint32_t dtype,
		   uint32_t val, void *dbuf, size_t dbuf_nbytes)
{
	if (!ctx) {
		return -EINVAL;
	}
	if (!dbuf) {
		dbuf_nbytes = 0;
	}

	ctx->cmd.common.opcode = XNVME_SPEC_ADM_OPC_DRECV;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.drecv.numd = numd_of(dbuf_nbytes);
	ctx->cmd.drecv.doper = doper;
	ctx->cmd.drecv.dtype = dtype;
	ctx->cmd.drecv.cdw12.val = val;

	return xnvme_cmd_pass_admin(ctx, dbuf, dbuf_nbytes, NULL, 0);
}
