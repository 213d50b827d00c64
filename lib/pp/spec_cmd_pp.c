// SPDX-License-Identifier: BSD-3-Clause
/*
 * Printers of commands and command payloads: submission entries, feature values, directive
 * data, simple-copy source ranges and zone descriptors / report headers.
 */
#include <inttypes.h>
#include <libxnvme.h>
#include "pp.h"

/* The common view of a submission entry */
int
xnvme_spec_cmd_fpr(FILE *stream, struct xnvme_spec_cmd *cmd, int opts)
{
	const struct xnvme_spec_cmd_common *common;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_cmd", cmd, &wrtn)) {
		return wrtn;
	}
	common = &cmd->common;

	wrtn += xnvme_pp_hex(stream, 2, "opcode", common->opcode);
	wrtn += xnvme_pp_hex(stream, 2, "fuse", common->fuse);
	wrtn += xnvme_pp_hex(stream, 2, "psdt", common->psdt);
	wrtn += xnvme_pp_hex(stream, 2, "cid", common->cid);
	wrtn += xnvme_pp_hex(stream, 2, "nsid", common->nsid);
	wrtn += xnvme_pp_hex(stream, 2, "cdw02", common->cdw02);
	wrtn += xnvme_pp_hex(stream, 2, "cdw03", common->cdw03);
	wrtn += xnvme_pp_hex(stream, 2, "mptr", common->mptr);
	wrtn += fprintf(stream, "  dptr: {prp1: 0x%" PRIx64 ", prp2: 0x%" PRIx64 "}\n",
			common->dptr.prp.prp1, common->dptr.prp.prp2);
	wrtn += xnvme_pp_hex(stream, 2, "ndt", common->ndt);
	wrtn += xnvme_pp_hex(stream, 2, "ndm", common->ndm);
	wrtn += xnvme_pp_hex(stream, 2, "cdw12", common->cdw12);
	wrtn += xnvme_pp_hex(stream, 2, "cdw13", common->cdw13);
	wrtn += xnvme_pp_hex(stream, 2, "cdw14", common->cdw14);
	wrtn += xnvme_pp_hex(stream, 2, "cdw15", common->cdw15);

	return wrtn;
}

int
xnvme_spec_cmd_pr(struct xnvme_spec_cmd *cmd, int opts)
{
	return xnvme_spec_cmd_fpr(stdout, cmd, opts);
}

/* The feature value decoded according to `fid`, on one line: "feat: { nsqa: 63, ncqa: 63 }" */
int
xnvme_spec_feat_fpr(FILE *stream, uint8_t fid, struct xnvme_spec_feat feat, int opts)
{
	uint32_t val = feat.val;

	if (!xnvme_pp_is_yaml(opts)) {
		return xnvme_pp_nosys(stream, opts);
	}

	switch (fid) {
	case XNVME_SPEC_FEAT_ARBITRATION:
		return fprintf(stream, "feat: { ab: %u, lpw: %u, mpw: %u, hpw: %u }\n", val & 0x7,
			       (val >> 8) & 0xff, (val >> 16) & 0xff, (val >> 24) & 0xff);
	case XNVME_SPEC_FEAT_PWR_MGMT:
		return fprintf(stream, "feat: { ps: %u, wh: %u }\n", val & 0x1f, (val >> 5) & 0x7);
	case XNVME_SPEC_FEAT_TEMP_THRESHOLD:
		return fprintf(stream, "feat: { tmpth: %u, tmpsel: 0x%x, thsel: 0x%x }\n",
			       (unsigned int)feat.temp_threshold.tmpth,
			       (unsigned int)feat.temp_threshold.tmpsel,
			       (unsigned int)feat.temp_threshold.thsel);
	case XNVME_SPEC_FEAT_ERROR_RECOVERY:
		return fprintf(stream, "feat: { tler: %u, dulbe: %u }\n",
			       (unsigned int)feat.error_recovery.tler,
			       (unsigned int)feat.error_recovery.dulbe);
	case XNVME_SPEC_FEAT_VWCACHE:
		return fprintf(stream, "feat: { wce: %u }\n", val & 0x1);
	case XNVME_SPEC_FEAT_NQUEUES:
		return fprintf(stream, "feat: { nsqa: %u, ncqa: %u }\n",
			       (unsigned int)feat.nqueues.nsqa, (unsigned int)feat.nqueues.ncqa);
	case XNVME_SPEC_FEAT_FDP_MODE:
		return fprintf(stream, "feat: { fdpe: %u, fdpci: %u }\n",
			       (unsigned int)feat.fdp_mode.fdpe, (unsigned int)feat.fdp_mode.fdpci);
	}

	return fprintf(stream, "feat: { fid: 0x%x, val: 0x%" PRIx32 " }\n", (unsigned int)fid, val);
}

int
xnvme_spec_feat_pr(uint8_t fid, struct xnvme_spec_feat feat, int opts)
{
	return xnvme_spec_feat_fpr(stdout, fid, feat, opts);
}

/*
 * The FDP event descriptors returned by Get Features (FDP events) in `buf`; their number is the
 * low byte of the completion value `feat`.
 */
int
xnvme_spec_feat_fdp_events_pr(void *buf, struct xnvme_spec_feat feat, int opts)
{
	const struct xnvme_spec_fdp_event_desc *desc = buf;
	FILE *stream = stdout;
	unsigned int nevents = feat.val & 0xff;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_feat_fdp_events", buf, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "nevents", nevents);
	if (!nevents) {
		wrtn += fprintf(stream, "  event_desc: []\n");
		return wrtn;
	}

	wrtn += xnvme_pp_head(stream, 2, "event_desc");
	for (unsigned int i = 0; i < nevents; ++i) {
		wrtn += fprintf(stream, "    - {type: 0x%x, fdpeta: 0x%x, ee: %u}\n",
				(unsigned int)desc[i].type, (unsigned int)desc[i].fdpeta.val,
				(unsigned int)desc[i].fdpeta.ee);
	}

	return wrtn;
}

/* "<key>: {identify: N, streams: N, data_placement: N}" for one directives bitmap */
#define DIR_FLAGS_FPR(stream, key, dirs)                                                           \
	fprintf(stream, "  %s: {identify: %u, streams: %u, data_placement: %u}\n", key,            \
		(unsigned int)(dirs).identify, (unsigned int)(dirs).streams,                       \
		(unsigned int)(dirs).data_placement)

int
xnvme_spec_drecv_idfy_pr(struct xnvme_spec_idfy_dir_rp *idfy, int opts)
{
	FILE *stream = stdout;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_idfy_dir_rp", idfy, &wrtn)) {
		return wrtn;
	}

	wrtn += DIR_FLAGS_FPR(stream, "directives_supported", idfy->directives_supported);
	wrtn += DIR_FLAGS_FPR(stream, "directives_enabled", idfy->directives_enabled);
	wrtn += DIR_FLAGS_FPR(stream, "directives_persistence", idfy->directives_persistence);

	return wrtn;
}

int
xnvme_spec_drecv_srp_pr(struct xnvme_spec_streams_dir_rp *srp, int opts)
{
	FILE *stream = stdout;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_streams_dir_rp", srp, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "msl", srp->msl);
	wrtn += xnvme_pp_dec(stream, 2, "nssa", srp->nssa);
	wrtn += xnvme_pp_dec(stream, 2, "nsso", srp->nsso);
	wrtn += xnvme_pp_hex(stream, 2, "nssc", srp->nssc.val);
	wrtn += xnvme_pp_dec(stream, 2, "sws", srp->sws);
	wrtn += xnvme_pp_dec(stream, 2, "sgs", srp->sgs);
	wrtn += xnvme_pp_dec(stream, 2, "nsa", srp->nsa);
	wrtn += xnvme_pp_dec(stream, 2, "nso", srp->nso);

	return wrtn;
}

/* The open stream count and that many stream identifiers */
int
xnvme_spec_drecv_sgs_pr(struct xnvme_spec_streams_dir_gs *sgs, int opts)
{
	FILE *stream = stdout;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_streams_dir_gs", sgs, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "open_sc", sgs->open_sc);
	if (!sgs->open_sc) {
		wrtn += fprintf(stream, "  sid: []\n");
		return wrtn;
	}

	wrtn += xnvme_pp_head(stream, 2, "sid");
	for (int i = 0; i < sgs->open_sc; ++i) {
		wrtn += fprintf(stream, "    - 0x%x\n", (unsigned int)sgs->sid[i]);
	}

	return wrtn;
}

int
xnvme_spec_drecv_sar_pr(struct xnvme_spec_alloc_resource sar, int opts)
{
	FILE *stream = stdout;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_alloc_resource", &sar, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "nsa", sar.bits.nsa);

	return wrtn;
}

/* The members of one source range entry as the inside of a flow mapping */
static int
scopy_fmt_zero_flow(FILE *stream, const struct xnvme_spec_nvm_scopy_fmt_zero *entry)
{
	return fprintf(stream,
		       "slba: 0x%016" PRIx64 ", nlb: %u, eilbrt: 0x%" PRIx32 ", elbatm: 0x%" PRIx32
		       ", elbat: 0x%" PRIx32,
		       entry->slba, (unsigned int)entry->nlb, entry->eilbrt, entry->elbatm,
		       entry->elbat);
}

int
xnvme_spec_nvm_scopy_fmt_zero_fpr(FILE *stream, const struct xnvme_spec_nvm_scopy_fmt_zero *entry,
				  int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_nvm_scopy_fmt_zero", entry, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_hex64(stream, 2, "slba", entry->slba);
	wrtn += xnvme_pp_dec(stream, 2, "nlb", entry->nlb);
	wrtn += xnvme_pp_hex(stream, 2, "eilbrt", entry->eilbrt);
	wrtn += xnvme_pp_hex(stream, 2, "elbatm", entry->elbatm);
	wrtn += xnvme_pp_hex(stream, 2, "elbat", entry->elbat);

	return wrtn;
}

int
xnvme_spec_nvm_scopy_fmt_zero_pr(const struct xnvme_spec_nvm_scopy_fmt_zero *entry, int opts)
{
	return xnvme_spec_nvm_scopy_fmt_zero_fpr(stdout, entry, opts);
}

/* `nr` is zero-based: nr + 1 entries, at most XNVME_SPEC_NVM_SCOPY_NENTRY_MAX */
int
xnvme_spec_nvm_scopy_source_range_fpr(FILE *stream,
				      const struct xnvme_spec_nvm_scopy_source_range *srange,
				      uint8_t nr, int opts)
{
	int nentries = XNVME_MIN(nr + 1, XNVME_SPEC_NVM_SCOPY_NENTRY_MAX);
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_nvm_scopy_source_range", srange, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "nr", nr);
	wrtn += xnvme_pp_head(stream, 2, "entry");
	for (int i = 0; i < nentries; ++i) {
		wrtn += fprintf(stream, "    - {");
		wrtn += scopy_fmt_zero_flow(stream, &srange->entry[i]);
		wrtn += fprintf(stream, "}\n");
	}

	return wrtn;
}

int
xnvme_spec_nvm_scopy_source_range_pr(const struct xnvme_spec_nvm_scopy_source_range *srange,
				     uint8_t nr, int opts)
{
	return xnvme_spec_nvm_scopy_source_range_fpr(stdout, srange, nr, opts);
}

/*
 * The members zslba, wp, zcap, zt, zs, za, each preceded by `indent` spaces and separated by
 * `sep` (not terminated): "\n" for block style, ", " inside a flow mapping.
 */
int
xnvme_spec_znd_descr_fpr_yaml(FILE *stream, const struct xnvme_spec_znd_descr *descr, int indent,
			      const char *sep)
{
	int wrtn = 0;

	if (!sep) {
		sep = "\n";
	}
	if (!descr) {
		return fprintf(stream, "%*s~", indent, "");
	}

	wrtn += fprintf(stream, "%*szslba: 0x%016" PRIx64 "%s", indent, "", descr->zslba, sep);
	wrtn += fprintf(stream, "%*swp: 0x%016" PRIx64 "%s", indent, "", descr->wp, sep);
	wrtn += fprintf(stream, "%*szcap: %" PRIu64 "%s", indent, "", descr->zcap, sep);
	wrtn += fprintf(stream, "%*szt: 0x%x%s", indent, "", (unsigned int)descr->zt, sep);
	wrtn += fprintf(stream, "%*szs: %s%s", indent, "", xnvme_spec_znd_state_str(descr->zs),
			sep);
	wrtn += fprintf(stream, "%*sza: '0b" XNVME_I8_FMT "'", indent, "",
			XNVME_I8_TO_STR(descr->za.val));

	return wrtn;
}

int
xnvme_spec_znd_descr_fpr(FILE *stream, const struct xnvme_spec_znd_descr *descr, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_znd_descr", descr, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_spec_znd_descr_fpr_yaml(stream, descr, 2, "\n");
	wrtn += fprintf(stream, "\n");

	return wrtn;
}

int
xnvme_spec_znd_descr_pr(const struct xnvme_spec_znd_descr *descr, int opts)
{
	return xnvme_spec_znd_descr_fpr(stdout, descr, opts);
}

int
xnvme_spec_znd_report_hdr_fpr(FILE *stream, const struct xnvme_spec_znd_report_hdr *hdr, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_znd_report_hdr", hdr, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "nzones", hdr->nzones);

	return wrtn;
}

int
xnvme_spec_znd_report_hdr_pr(const struct xnvme_spec_znd_report_hdr *hdr, int opts)
{
	return xnvme_spec_znd_report_hdr_fpr(stdout, hdr, opts);
}
