// SPDX-License-Identifier: BSD-3-Clause
/*
 * Printers of identify data: base controller/namespace/command-set structures and the NVM,
 * Zoned and Key-Value command-set specific ones.
 *
 * Bit-field unions that carry a `val` member are printed as that raw value in hex; plain
 * bit-field structs are printed as a nested mapping of their bits. Reserved and vendor-specific
 * areas are not printed.
 */
#include <inttypes.h>
#include <libxnvme.h>
#include "pp.h"

/* NVMe 128-bit little-endian capacities are stored as two 64-bit words */
static int
pp_u64x2(FILE *stream, int indent, const char *key, const uint64_t *vals)
{
	return xnvme_pp_u64s(stream, indent, key, vals, 2);
}

int
xnvme_spec_idfy_ns_fpr(FILE *stream, const struct xnvme_spec_idfy_ns *idfy, int opts)
{
	int nlbaf;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_idfy_ns", idfy, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "nsze", idfy->nsze);
	wrtn += xnvme_pp_dec(stream, 2, "ncap", idfy->ncap);
	wrtn += xnvme_pp_dec(stream, 2, "nuse", idfy->nuse);

	wrtn += xnvme_pp_head(stream, 2, "nsfeat");
	wrtn += xnvme_pp_dec(stream, 4, "thin_prov", idfy->nsfeat.thin_prov);
	wrtn += xnvme_pp_dec(stream, 4, "ns_atomic_write_unit", idfy->nsfeat.ns_atomic_write_unit);
	wrtn += xnvme_pp_dec(stream, 4, "dealloc_or_unwritten_error",
			     idfy->nsfeat.dealloc_or_unwritten_error);
	wrtn += xnvme_pp_dec(stream, 4, "guid_never_reused", idfy->nsfeat.guid_never_reused);
	wrtn += xnvme_pp_dec(stream, 4, "optimal_performance", idfy->nsfeat.optimal_performance);

	wrtn += xnvme_pp_dec(stream, 2, "nlbaf", idfy->nlbaf);

	wrtn += xnvme_pp_head(stream, 2, "flbas");
	wrtn += xnvme_pp_dec(stream, 4, "format", idfy->flbas.format);
	wrtn += xnvme_pp_dec(stream, 4, "extended", idfy->flbas.extended);
	wrtn += xnvme_pp_dec(stream, 4, "format_msb", idfy->flbas.format_msb);

	wrtn += xnvme_pp_head(stream, 2, "mc");
	wrtn += xnvme_pp_dec(stream, 4, "extended", idfy->mc.extended);
	wrtn += xnvme_pp_dec(stream, 4, "pointer", idfy->mc.pointer);

	wrtn += xnvme_pp_hex(stream, 2, "dpc", idfy->dpc.val);
	wrtn += xnvme_pp_hex(stream, 2, "dps", idfy->dps.val);

	wrtn += xnvme_pp_head(stream, 2, "nmic");
	wrtn += xnvme_pp_dec(stream, 4, "can_share", idfy->nmic.can_share);

	wrtn += xnvme_pp_hex(stream, 2, "nsrescap", idfy->nsrescap.val);
	wrtn += xnvme_pp_hex(stream, 2, "fpi", idfy->fpi.val);
	wrtn += xnvme_pp_hex(stream, 2, "dlfeat", idfy->dlfeat.val);
	wrtn += xnvme_pp_dec(stream, 2, "nawun", idfy->nawun);
	wrtn += xnvme_pp_dec(stream, 2, "nawupf", idfy->nawupf);
	wrtn += xnvme_pp_dec(stream, 2, "nacwu", idfy->nacwu);
	wrtn += xnvme_pp_dec(stream, 2, "nabsn", idfy->nabsn);
	wrtn += xnvme_pp_dec(stream, 2, "nabo", idfy->nabo);
	wrtn += xnvme_pp_dec(stream, 2, "nabspf", idfy->nabspf);
	wrtn += xnvme_pp_dec(stream, 2, "noiob", idfy->noiob);
	wrtn += pp_u64x2(stream, 2, "nvmcap", idfy->nvmcap);
	wrtn += xnvme_pp_dec(stream, 2, "npwg", idfy->npwg);
	wrtn += xnvme_pp_dec(stream, 2, "npwa", idfy->npwa);
	wrtn += xnvme_pp_dec(stream, 2, "npdg", idfy->npdg);
	wrtn += xnvme_pp_dec(stream, 2, "npda", idfy->npda);
	wrtn += xnvme_pp_dec(stream, 2, "nows", idfy->nows);
	wrtn += xnvme_pp_dec(stream, 2, "mssrl", idfy->mssrl);
	wrtn += xnvme_pp_dec(stream, 2, "mcl", idfy->mcl);
	wrtn += xnvme_pp_dec(stream, 2, "msrc", idfy->msrc);
	wrtn += xnvme_pp_hex(stream, 2, "anagrpid", idfy->anagrpid);
	wrtn += xnvme_pp_hex(stream, 2, "nsattr", idfy->nsattr);
	wrtn += xnvme_pp_hex(stream, 2, "nvmsetid", idfy->nvmsetid);
	wrtn += xnvme_pp_hex(stream, 2, "endgid", idfy->endgid);
	wrtn += xnvme_pp_bytes(stream, 2, "nguid", idfy->nguid, sizeof(idfy->nguid));
	wrtn += xnvme_pp_hex64(stream, 2, "eui64", idfy->eui64);

	/* nlbaf is zero-based; the array holds at most 64 formats */
	nlbaf = XNVME_MIN(idfy->nlbaf + 1, 64);
	wrtn += xnvme_pp_head(stream, 2, "lbaf");
	for (int i = 0; i < nlbaf; ++i) {
		const struct xnvme_spec_lbaf *lbaf = &idfy->lbaf[i];

		wrtn += fprintf(stream, "    - {ms: %u, ds: %u, rp: %u}\n", (unsigned int)lbaf->ms,
				(unsigned int)lbaf->ds, (unsigned int)lbaf->rp);
	}

	return wrtn;
}

int
xnvme_spec_idfy_ns_pr(const struct xnvme_spec_idfy_ns *idfy, int opts)
{
	return xnvme_spec_idfy_ns_fpr(stdout, idfy, opts);
}

/* One power state descriptor as a flow mapping, as an item of the `psd` list */
static int
power_state_fpr(FILE *stream, const struct xnvme_spec_power_state *psd)
{
	return fprintf(stream,
		       "    - {mp: %u, mps: %u, nops: %u, enlat: %" PRIu32 ", exlat: %" PRIu32
		       ", rrt: %u, rrl: %u, rwt: %u, rwl: %u, idlp: %u, ips: %u, actp: %u, "
		       "apw: %u, aps: %u}\n",
		       (unsigned int)psd->mp, (unsigned int)psd->mps, (unsigned int)psd->nops,
		       psd->enlat, psd->exlat, (unsigned int)psd->rrt, (unsigned int)psd->rrl,
		       (unsigned int)psd->rwt, (unsigned int)psd->rwl, (unsigned int)psd->idlp,
		       (unsigned int)psd->ips, (unsigned int)psd->actp, (unsigned int)psd->apw,
		       (unsigned int)psd->aps);
}

int
xnvme_spec_idfy_ctrlr_fpr(FILE *stream, const struct xnvme_spec_idfy_ctrlr *idfy, int opts)
{
	int npsd;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_idfy_ctrlr", idfy, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_hex(stream, 2, "vid", idfy->vid);
	wrtn += xnvme_pp_hex(stream, 2, "ssvid", idfy->ssvid);
	wrtn += xnvme_pp_str(stream, 2, "sn", idfy->sn, sizeof(idfy->sn));
	wrtn += xnvme_pp_str(stream, 2, "mn", idfy->mn, sizeof(idfy->mn));
	wrtn += xnvme_pp_str(stream, 2, "fr", idfy->fr, sizeof(idfy->fr));
	wrtn += xnvme_pp_dec(stream, 2, "rab", idfy->rab);
	wrtn += xnvme_pp_bytes(stream, 2, "ieee", idfy->ieee, sizeof(idfy->ieee));
	wrtn += xnvme_pp_hex(stream, 2, "cmic", idfy->cmic.val);
	wrtn += xnvme_pp_dec(stream, 2, "mdts", idfy->mdts);
	wrtn += xnvme_pp_hex(stream, 2, "cntlid", idfy->cntlid);
	wrtn += xnvme_pp_hex(stream, 2, "ver", idfy->ver.val);
	wrtn += xnvme_pp_dec(stream, 2, "rtd3r", idfy->rtd3r);
	wrtn += xnvme_pp_dec(stream, 2, "rtd3e", idfy->rtd3e);
	wrtn += xnvme_pp_hex(stream, 2, "oaes", idfy->oaes.val);
	wrtn += xnvme_pp_hex(stream, 2, "ctratt", idfy->ctratt.val);
	wrtn += xnvme_pp_hex(stream, 2, "rrls", idfy->rrls);
	wrtn += xnvme_pp_hex(stream, 2, "cntrltype", idfy->cntrltype);
	wrtn += xnvme_pp_bytes(stream, 2, "fguid", idfy->fguid, sizeof(idfy->fguid));
	wrtn += xnvme_pp_dec(stream, 2, "crdt1", idfy->crdt1);
	wrtn += xnvme_pp_dec(stream, 2, "crdt2", idfy->crdt2);
	wrtn += xnvme_pp_dec(stream, 2, "crdt3", idfy->crdt3);
	wrtn += xnvme_pp_hex(stream, 2, "nvmsr", idfy->nvmsr.val);
	wrtn += xnvme_pp_hex(stream, 2, "vwci", idfy->vwci.val);
	wrtn += xnvme_pp_hex(stream, 2, "mec", idfy->mec.val);

	wrtn += xnvme_pp_hex(stream, 2, "oacs", idfy->oacs.val);
	wrtn += xnvme_pp_dec(stream, 2, "acl", idfy->acl);
	wrtn += xnvme_pp_dec(stream, 2, "aerl", idfy->aerl);
	wrtn += xnvme_pp_hex(stream, 2, "frmw", idfy->frmw.val);
	wrtn += xnvme_pp_hex(stream, 2, "lpa", idfy->lpa.val);
	wrtn += xnvme_pp_dec(stream, 2, "elpe", idfy->elpe);
	wrtn += xnvme_pp_dec(stream, 2, "npss", idfy->npss);
	wrtn += xnvme_pp_hex(stream, 2, "avscc", idfy->avscc.val);
	wrtn += xnvme_pp_hex(stream, 2, "apsta", idfy->apsta.val);
	wrtn += xnvme_pp_dec(stream, 2, "wctemp", idfy->wctemp);
	wrtn += xnvme_pp_dec(stream, 2, "cctemp", idfy->cctemp);
	wrtn += xnvme_pp_dec(stream, 2, "mtfa", idfy->mtfa);
	wrtn += xnvme_pp_dec(stream, 2, "hmpre", idfy->hmpre);
	wrtn += xnvme_pp_dec(stream, 2, "hmmin", idfy->hmmin);
	wrtn += pp_u64x2(stream, 2, "tnvmcap", idfy->tnvmcap);
	wrtn += pp_u64x2(stream, 2, "unvmcap", idfy->unvmcap);
	wrtn += xnvme_pp_hex(stream, 2, "rpmbs", idfy->rpmbs.val);
	wrtn += xnvme_pp_dec(stream, 2, "edstt", idfy->edstt);
	wrtn += xnvme_pp_hex(stream, 2, "dsto", idfy->dsto.val);
	wrtn += xnvme_pp_dec(stream, 2, "fwug", idfy->fwug);
	wrtn += xnvme_pp_dec(stream, 2, "kas", idfy->kas);
	wrtn += xnvme_pp_hex(stream, 2, "hctma", idfy->hctma.val);
	wrtn += xnvme_pp_dec(stream, 2, "mntmt", idfy->mntmt);
	wrtn += xnvme_pp_dec(stream, 2, "mxtmt", idfy->mxtmt);
	wrtn += xnvme_pp_hex(stream, 2, "sanicap", idfy->sanicap.val);
	wrtn += xnvme_pp_dec(stream, 2, "hmminds", idfy->hmminds);
	wrtn += xnvme_pp_dec(stream, 2, "hmmaxd", idfy->hmmaxd);
	wrtn += xnvme_pp_hex(stream, 2, "nsetidmax", idfy->nsetidmax);
	wrtn += xnvme_pp_hex(stream, 2, "endgidmax", idfy->endgidmax);
	wrtn += xnvme_pp_dec(stream, 2, "anatt", idfy->anatt);
	wrtn += xnvme_pp_hex(stream, 2, "anacap", idfy->anacap.val);
	wrtn += xnvme_pp_hex(stream, 2, "anagrpmax", idfy->anagrpmax);
	wrtn += xnvme_pp_dec(stream, 2, "nanagrpid", idfy->nanagrpid);
	wrtn += xnvme_pp_dec(stream, 2, "pels", idfy->pels);
	wrtn += xnvme_pp_hex(stream, 2, "domain_identifier", idfy->domain_identifier);
	wrtn += pp_u64x2(stream, 2, "megcap", idfy->megcap);

	wrtn += xnvme_pp_hex(stream, 2, "sqes", idfy->sqes.val);
	wrtn += xnvme_pp_hex(stream, 2, "cqes", idfy->cqes.val);
	wrtn += xnvme_pp_dec(stream, 2, "maxcmd", idfy->maxcmd);
	wrtn += xnvme_pp_dec(stream, 2, "nn", idfy->nn);
	wrtn += xnvme_pp_hex(stream, 2, "oncs", idfy->oncs.val);
	wrtn += xnvme_pp_hex(stream, 2, "fuses", idfy->fuses);
	wrtn += xnvme_pp_hex(stream, 2, "fna", idfy->fna.val);
	wrtn += xnvme_pp_hex(stream, 2, "vwc", idfy->vwc.val);
	wrtn += xnvme_pp_dec(stream, 2, "awun", idfy->awun);
	wrtn += xnvme_pp_dec(stream, 2, "awupf", idfy->awupf);
	wrtn += xnvme_pp_hex(stream, 2, "nvscc", idfy->nvscc);
	wrtn += xnvme_pp_hex(stream, 2, "nwpc", idfy->nwpc);
	wrtn += xnvme_pp_dec(stream, 2, "acwu", idfy->acwu);
	wrtn += xnvme_pp_hex(stream, 2, "cdfs", idfy->cdfs.val);
	wrtn += xnvme_pp_hex(stream, 2, "sgls", idfy->sgls.val);
	wrtn += xnvme_pp_dec(stream, 2, "mnan", idfy->mnan);
	wrtn += pp_u64x2(stream, 2, "maxdna", idfy->maxdna);
	wrtn += xnvme_pp_dec(stream, 2, "maxcna", idfy->maxcna);
	wrtn += xnvme_pp_str(stream, 2, "subnqn", idfy->subnqn, sizeof(idfy->subnqn));

	wrtn += xnvme_pp_head(stream, 2, "nvmf_specific");
	wrtn += xnvme_pp_dec(stream, 4, "ioccsz", idfy->nvmf_specific.ioccsz);
	wrtn += xnvme_pp_dec(stream, 4, "iorcsz", idfy->nvmf_specific.iorcsz);
	wrtn += xnvme_pp_dec(stream, 4, "icdoff", idfy->nvmf_specific.icdoff);
	wrtn += xnvme_pp_head(stream, 4, "ctrattr");
	wrtn += xnvme_pp_dec(stream, 6, "ctrlr_model", idfy->nvmf_specific.ctrattr.ctrlr_model);
	wrtn += xnvme_pp_dec(stream, 4, "msdbd", idfy->nvmf_specific.msdbd);
	wrtn += xnvme_pp_head(stream, 4, "ofcs");
	wrtn += xnvme_pp_dec(stream, 6, "disc_del", idfy->nvmf_specific.ofcs.disc_del);

	/* npss is zero-based; the array holds at most 32 descriptors */
	npsd = XNVME_MIN(idfy->npss + 1, 32);
	wrtn += xnvme_pp_head(stream, 2, "psd");
	for (int i = 0; i < npsd; ++i) {
		wrtn += power_state_fpr(stream, &idfy->psd[i]);
	}

	return wrtn;
}

int
xnvme_spec_idfy_ctrlr_pr(const struct xnvme_spec_idfy_ctrlr *idfy, int opts)
{
	return xnvme_spec_idfy_ctrlr_fpr(stdout, idfy, opts);
}

/* Lists only the non-zero command-set combinations, each with its index */
int
xnvme_spec_idfy_cs_fpr(FILE *stream, const struct xnvme_spec_idfy_cs *idfy, int opts)
{
	int nvecs = 0;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_idfy_cs", idfy, &wrtn)) {
		return wrtn;
	}

	for (int i = 0; i < XNVME_SPEC_IDFY_CS_IOCSC_LEN; ++i) {
		nvecs += idfy->iocsc[i].val ? 1 : 0;
	}
	if (!nvecs) {
		wrtn += fprintf(stream, "  iocsc: []\n");
		return wrtn;
	}

	wrtn += xnvme_pp_head(stream, 2, "iocsc");
	for (int i = 0; i < XNVME_SPEC_IDFY_CS_IOCSC_LEN; ++i) {
		const struct xnvme_spec_cs_vector *vec = &idfy->iocsc[i];

		if (!vec->val) {
			continue;
		}
		wrtn += fprintf(stream,
				"    - {index: %d, val: 0x%" PRIx64 ", nvm: %u, kv: %u, zns: %u}\n",
				i, (uint64_t)vec->val, (unsigned int)vec->nvm,
				(unsigned int)vec->kv, (unsigned int)vec->zns);
	}

	return wrtn;
}

int
xnvme_spec_idfy_cs_pr(const struct xnvme_spec_idfy_cs *idfy, int opts)
{
	return xnvme_spec_idfy_cs_fpr(stdout, idfy, opts);
}

int
xnvme_spec_nvm_idfy_ctrlr_fpr(FILE *stream, struct xnvme_spec_nvm_idfy_ctrlr *idfy, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_nvm_idfy_ctrlr", idfy, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "vsl", idfy->vsl);
	wrtn += xnvme_pp_dec(stream, 2, "wzsl", idfy->wzsl);
	wrtn += xnvme_pp_dec(stream, 2, "wusl", idfy->wusl);
	wrtn += xnvme_pp_dec(stream, 2, "dmrl", idfy->dmrl);
	wrtn += xnvme_pp_dec(stream, 2, "dmrsl", idfy->dmrsl);
	wrtn += xnvme_pp_dec(stream, 2, "dmsl", idfy->dmsl);

	return wrtn;
}

int
xnvme_spec_nvm_idfy_ctrlr_pr(struct xnvme_spec_nvm_idfy_ctrlr *idfy, int opts)
{
	return xnvme_spec_nvm_idfy_ctrlr_fpr(stdout, idfy, opts);
}

/* The structure does not carry the format count, so all 64 extended formats are listed */
int
xnvme_spec_nvm_idfy_ns_fpr(FILE *stream, struct xnvme_spec_nvm_idfy_ns *idfy, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_nvm_idfy_ns", idfy, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_hex(stream, 2, "lbstm", idfy->lbstm);
	wrtn += xnvme_pp_hex(stream, 2, "pic", idfy->pic.val);

	wrtn += xnvme_pp_head(stream, 2, "elbaf");
	for (int i = 0; i < 64; ++i) {
		const struct xnvme_spec_elbaf *elbaf = &idfy->elbaf[i];

		wrtn += fprintf(stream, "    - {sts: %u, pif: %u}\n", (unsigned int)elbaf->sts,
				(unsigned int)elbaf->pif);
	}

	return wrtn;
}

int
xnvme_spec_nvm_idfy_ns_pr(struct xnvme_spec_nvm_idfy_ns *idfy, int opts)
{
	return xnvme_spec_nvm_idfy_ns_fpr(stdout, idfy, opts);
}

int
xnvme_spec_znd_idfy_ctrlr_fpr(FILE *stream, struct xnvme_spec_znd_idfy_ctrlr *zctrlr, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_znd_idfy_ctrlr", zctrlr, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "zasl", zctrlr->zasl);

	return wrtn;
}

int
xnvme_spec_znd_idfy_ctrlr_pr(struct xnvme_spec_znd_idfy_ctrlr *zctrlr, int opts)
{
	return xnvme_spec_znd_idfy_ctrlr_fpr(stdout, zctrlr, opts);
}

int
xnvme_spec_znd_idfy_lbafe_fpr(FILE *stream, struct xnvme_spec_znd_idfy_lbafe *zonef, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_znd_idfy_lbafe", zonef, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "zsze", zonef->zsze);
	wrtn += xnvme_pp_dec(stream, 2, "zdes", zonef->zdes);

	return wrtn;
}

/* The structure does not carry the format count, so all 16 format extensions are listed */
int
xnvme_spec_znd_idfy_ns_fpr(FILE *stream, struct xnvme_spec_znd_idfy_ns *zns, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_znd_idfy_ns", zns, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_hex(stream, 2, "zoc", zns->zoc.val);
	wrtn += xnvme_pp_hex(stream, 2, "ozcs", zns->ozcs.val);
	wrtn += xnvme_pp_dec(stream, 2, "mar", zns->mar);
	wrtn += xnvme_pp_dec(stream, 2, "mor", zns->mor);
	wrtn += xnvme_pp_dec(stream, 2, "rrl", zns->rrl);
	wrtn += xnvme_pp_dec(stream, 2, "frl", zns->frl);
	wrtn += xnvme_pp_dec(stream, 2, "numzrwa", zns->numzrwa);
	wrtn += xnvme_pp_dec(stream, 2, "zrwafg", zns->zrwafg);
	wrtn += xnvme_pp_dec(stream, 2, "zrwas", zns->zrwas);
	wrtn += xnvme_pp_hex(stream, 2, "zrwacap", zns->zrwacap.val);

	wrtn += xnvme_pp_head(stream, 2, "lbafe");
	for (int i = 0; i < 16; ++i) {
		wrtn += fprintf(stream, "    - {zsze: %" PRIu64 ", zdes: %u}\n", zns->lbafe[i].zsze,
				(unsigned int)zns->lbafe[i].zdes);
	}

	return wrtn;
}

int
xnvme_spec_znd_idfy_ns_pr(struct xnvme_spec_znd_idfy_ns *zns, int opts)
{
	return xnvme_spec_znd_idfy_ns_fpr(stdout, zns, opts);
}

int
xnvme_spec_kvs_idfy_ns_fpr(FILE *stream, const struct xnvme_spec_kvs_idfy_ns *idfy, int opts)
{
	int nkvf;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_kvs_idfy_ns", idfy, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "nsze", idfy->nsze);
	wrtn += xnvme_pp_dec(stream, 2, "nuse", idfy->nuse);
	wrtn += xnvme_pp_hex(stream, 2, "nsfeat", idfy->nsfeat);
	wrtn += xnvme_pp_dec(stream, 2, "nkvf", idfy->nkvf);
	wrtn += xnvme_pp_hex(stream, 2, "nmic", idfy->nmic);
	wrtn += xnvme_pp_hex(stream, 2, "rescap", idfy->rescap);
	wrtn += xnvme_pp_hex(stream, 2, "fpi", idfy->fpi);
	wrtn += xnvme_pp_dec(stream, 2, "novg", idfy->novg);
	wrtn += xnvme_pp_hex(stream, 2, "anagrpid", idfy->anagrpid);
	wrtn += xnvme_pp_hex(stream, 2, "nsattr", idfy->nsattr);
	wrtn += xnvme_pp_hex(stream, 2, "nvmsetid", idfy->nvmsetid);
	wrtn += xnvme_pp_hex(stream, 2, "endgid", idfy->endgid);
	wrtn += fprintf(stream, "  nguid: [0x%016" PRIx64 ", 0x%016" PRIx64 "]\n", idfy->nguid[0],
			idfy->nguid[1]);
	wrtn += xnvme_pp_hex64(stream, 2, "eui64", idfy->eui64);

	/* nkvf is zero-based; the array holds at most 16 formats */
	nkvf = XNVME_MIN(idfy->nkvf + 1, 16);
	wrtn += xnvme_pp_head(stream, 2, "kvf");
	for (int i = 0; i < nkvf; ++i) {
		const struct xnvme_spec_kvs_idfy_ns_format *kvf = &idfy->kvf[i];

		wrtn += fprintf(
			stream, "    - {kml: %u, fopt: 0x%x, vml: %" PRIu32 ", mnk: %" PRIu32 "}\n",
			(unsigned int)kvf->kml, (unsigned int)kvf->fopt, kvf->vml, kvf->mnk);
	}

	return wrtn;
}

int
xnvme_spec_kvs_idfy_ns_pr(const struct xnvme_spec_kvs_idfy_ns *idfy, int opts)
{
	return xnvme_spec_kvs_idfy_ns_fpr(stdout, idfy, opts);
}
