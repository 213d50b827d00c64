// SPDX-License-Identifier: BSD-3-Clause
/*
 * Enum-to-string functions of libxnvme_spec_pp.h and the controller register printer.
 *
 * Each *_str returns the constant's name without the XNVME_SPEC_ prefix, or "ENOSYS" for a
 * value without a name; never NULL. The tables are built from the constants themselves, so a
 * name cannot drift from its value.
 */
#include <stddef.h>
#include <libxnvme.h>
#include "pp.h"

struct pp_enum_name {
	int val;
	const char *name;
};

/* Table entry for XNVME_SPEC_<suffix>, named "<suffix>" */
#define E(suffix) {XNVME_SPEC_##suffix, #suffix}

#define LOOKUP(tbl, eval) pp_enum_lookup(tbl, sizeof(tbl) / sizeof(tbl[0]), (int)(eval))

static const char *
pp_enum_lookup(const struct pp_enum_name *tbl, size_t nentries, int val)
{
	for (size_t i = 0; i < nentries; ++i) {
		if (tbl[i].val == val) {
			return tbl[i].name;
		}
	}

	return "ENOSYS";
}

static const struct pp_enum_name adm_opc[] = {
	E(ADM_OPC_LOG),
	E(ADM_OPC_IDFY),
	E(ADM_OPC_SFEAT),
	E(ADM_OPC_GFEAT),
	E(ADM_OPC_DSEND),
	E(ADM_OPC_DRECV),
};

static const struct pp_enum_name csi[] = {
	E(CSI_NVM),
	E(CSI_KV),
	E(CSI_ZONED),
};

static const struct pp_enum_name feat_id[] = {
	E(FEAT_ARBITRATION),
	E(FEAT_PWR_MGMT),
	E(FEAT_LBA_RANGETYPE),
	E(FEAT_TEMP_THRESHOLD),
	E(FEAT_ERROR_RECOVERY),
	E(FEAT_VWCACHE),
	E(FEAT_NQUEUES),
	E(FEAT_FDP_MODE),
	E(FEAT_FDP_EVENTS),
};

static const struct pp_enum_name feat_sel[] = {
	E(FEAT_SEL_CURRENT),
	E(FEAT_SEL_DEFAULT),
	E(FEAT_SEL_SAVED),
	E(FEAT_SEL_SUPPORTED),
};

static const struct pp_enum_name flag[] = {
	E(FLAG_LIMITED_RETRY),
	E(FLAG_FORCE_UNIT_ACCESS),
	E(FLAG_PRINFO_PRCHK_REF),
	E(FLAG_PRINFO_PRCHK_APP),
	E(FLAG_PRINFO_PRCHK_GUARD),
	E(FLAG_PRINFO_PRACT),
};

static const struct pp_enum_name idfy_cns[] = {
	E(IDFY_NS),
	E(IDFY_CTRLR),
	E(IDFY_NSLIST),
	E(IDFY_NSDSCR),
	E(IDFY_SETL),
	E(IDFY_NS_IOCS),
	E(IDFY_CTRLR_IOCS),
	E(IDFY_NSLIST_IOCS),
	E(IDFY_NSLIST_ALLOC),
	E(IDFY_NS_ALLOC),
	E(IDFY_CTRLR_NS),
	E(IDFY_CTRLR_SUB),
	E(IDFY_CTRLR_PRI),
	E(IDFY_CTRLR_SEC),
	E(IDFY_NSGRAN),
	E(IDFY_UUIDL),
	E(IDFY_NSLIST_ALLOC_IOCS),
	E(IDFY_NS_ALLOC_IOCS),
	E(IDFY_IOCS),
};

static const struct pp_enum_name log_lpi[] = {
	E(LOG_RSVD),
	E(LOG_ERRI),
	E(LOG_HEALTH),
	E(LOG_FW),
	E(LOG_CHNS),
	E(LOG_CSAE),
	E(LOG_SELFTEST),
	E(LOG_TELEHOST),
	E(LOG_TELECTRLR),
	E(LOG_FDPCONF),
	E(LOG_FDPRUHU),
	E(LOG_FDPSTATS),
	E(LOG_FDPEVENTS),
};

static const struct pp_enum_name znd_log_lid[] = {
	E(LOG_ZND_CHANGES),
};

static const struct pp_enum_name nvm_cmd_cpl_sc[] = {
	E(NVM_CMD_CPL_SC_WRITE_TO_RONLY),
};

static const struct pp_enum_name nvm_opc[] = {
	E(NVM_OPC_FLUSH),
	E(NVM_OPC_WRITE),
	E(NVM_OPC_READ),
	E(NVM_OPC_WRITE_UNCORRECTABLE),
	E(NVM_OPC_COMPARE),
	E(NVM_OPC_WRITE_ZEROES),
	E(NVM_OPC_DATASET_MANAGEMENT),
	E(NVM_OPC_SCOPY),
	E(NVM_OPC_IO_MGMT_RECV),
	E(NVM_OPC_IO_MGMT_SEND),
	E(NVM_OPC_FMT),
	E(NVM_OPC_SANITIZE),
};

static const struct pp_enum_name psdt[] = {
	E(PSDT_PRP),
	E(PSDT_SGL_MPTR_CONTIGUOUS),
	E(PSDT_SGL_MPTR_SGL),
};

static const struct pp_enum_name sgl_descriptor_subtype[] = {
	E(SGL_DESCR_SUBTYPE_ADDRESS),
	E(SGL_DESCR_SUBTYPE_OFFSET),
};

static const struct pp_enum_name znd_cmd_mgmt_recv_action[] = {
	E(ZND_CMD_MGMT_RECV_ACTION_REPORT),
	E(ZND_CMD_MGMT_RECV_ACTION_REPORT_EXTENDED),
};

static const struct pp_enum_name znd_cmd_mgmt_recv_action_sf[] = {
	E(ZND_CMD_MGMT_RECV_SF_ALL),
	E(ZND_CMD_MGMT_RECV_SF_EMPTY),
	E(ZND_CMD_MGMT_RECV_SF_IOPEN),
	E(ZND_CMD_MGMT_RECV_SF_EOPEN),
	E(ZND_CMD_MGMT_RECV_SF_CLOSED),
	E(ZND_CMD_MGMT_RECV_SF_FULL),
	E(ZND_CMD_MGMT_RECV_SF_RONLY),
	E(ZND_CMD_MGMT_RECV_SF_OFFLINE),
};

static const struct pp_enum_name znd_cmd_mgmt_send_action[] = {
	E(ZND_CMD_MGMT_SEND_CLOSE),
	E(ZND_CMD_MGMT_SEND_FINISH),
	E(ZND_CMD_MGMT_SEND_OPEN),
	E(ZND_CMD_MGMT_SEND_RESET),
	E(ZND_CMD_MGMT_SEND_OFFLINE),
	E(ZND_CMD_MGMT_SEND_DESCRIPTOR),
	E(ZND_CMD_MGMT_SEND_FLUSH),
};

static const struct pp_enum_name znd_opc[] = {
	E(ZND_OPC_MGMT_SEND),
	E(ZND_OPC_MGMT_RECV),
	E(ZND_OPC_APPEND),
};

static const struct pp_enum_name znd_mgmt_send_action_so[] = {
	E(ZND_MGMT_OPEN_WITH_ZRWA),
};

static const struct pp_enum_name znd_status_code[] = {
	E(ZND_SC_INVALID_FORMAT),
	E(ZND_SC_INVALID_ZONE_OP),
	E(ZND_SC_NOZRWA),
	E(ZND_SC_BOUNDARY_ERROR),
	E(ZND_SC_IS_FULL),
	E(ZND_SC_IS_READONLY),
	E(ZND_SC_IS_OFFLINE),
	E(ZND_SC_INVALID_WRITE),
	E(ZND_SC_TOO_MANY_ACTIVE),
	E(ZND_SC_TOO_MANY_OPEN),
	E(ZND_SC_INVALID_TRANS),
};

static const struct pp_enum_name znd_state[] = {
	E(ZND_STATE_EMPTY),
	E(ZND_STATE_IOPEN),
	E(ZND_STATE_EOPEN),
	E(ZND_STATE_CLOSED),
	E(ZND_STATE_RONLY),
	E(ZND_STATE_FULL),
	E(ZND_STATE_OFFLINE),
};

static const struct pp_enum_name znd_type[] = {
	E(ZND_TYPE_SEQWR),
};

const char *
xnvme_spec_adm_opc_str(enum xnvme_spec_adm_opc eval)
{
	return LOOKUP(adm_opc, eval);
}

const char *
xnvme_spec_csi_str(enum xnvme_spec_csi eval)
{
	return LOOKUP(csi, eval);
}

const char *
xnvme_spec_feat_id_str(enum xnvme_spec_feat_id eval)
{
	return LOOKUP(feat_id, eval);
}

const char *
xnvme_spec_feat_sel_str(enum xnvme_spec_feat_sel eval)
{
	return LOOKUP(feat_sel, eval);
}

const char *
xnvme_spec_flag_str(enum xnvme_spec_flag eval)
{
	return LOOKUP(flag, eval);
}

const char *
xnvme_spec_idfy_cns_str(enum xnvme_spec_idfy_cns eval)
{
	return LOOKUP(idfy_cns, eval);
}

const char *
xnvme_spec_log_lpi_str(enum xnvme_spec_log_lpi eval)
{
	return LOOKUP(log_lpi, eval);
}

const char *
xnvme_spec_znd_log_lid_str(enum xnvme_spec_znd_log_lid eval)
{
	return LOOKUP(znd_log_lid, eval);
}

const char *
xnvme_spec_nvm_cmd_cpl_sc_str(enum xnvme_spec_nvm_cmd_cpl_sc eval)
{
	return LOOKUP(nvm_cmd_cpl_sc, eval);
}

const char *
xnvme_spec_nvm_opc_str(enum xnvme_spec_nvm_opc eval)
{
	return LOOKUP(nvm_opc, eval);
}

const char *
xnvme_spec_psdt_str(enum xnvme_spec_psdt eval)
{
	return LOOKUP(psdt, eval);
}

const char *
xnvme_spec_sgl_descriptor_subtype_str(enum xnvme_spec_sgl_descriptor_subtype eval)
{
	return LOOKUP(sgl_descriptor_subtype, eval);
}

const char *
xnvme_spec_znd_cmd_mgmt_recv_action_str(enum xnvme_spec_znd_cmd_mgmt_recv_action eval)
{
	return LOOKUP(znd_cmd_mgmt_recv_action, eval);
}

const char *
xnvme_spec_znd_cmd_mgmt_recv_action_sf_str(enum xnvme_spec_znd_cmd_mgmt_recv_action_sf eval)
{
	return LOOKUP(znd_cmd_mgmt_recv_action_sf, eval);
}

const char *
xnvme_spec_znd_cmd_mgmt_send_action_str(enum xnvme_spec_znd_cmd_mgmt_send_action eval)
{
	return LOOKUP(znd_cmd_mgmt_send_action, eval);
}

const char *
xnvme_spec_znd_opc_str(enum xnvme_spec_znd_opc eval)
{
	return LOOKUP(znd_opc, eval);
}

const char *
xnvme_spec_znd_mgmt_send_action_so_str(enum xnvme_spec_znd_mgmt_send_action_so eval)
{
	return LOOKUP(znd_mgmt_send_action_so, eval);
}

const char *
xnvme_spec_znd_status_code_str(enum xnvme_spec_znd_status_code eval)
{
	return LOOKUP(znd_status_code, eval);
}

const char *
xnvme_spec_znd_state_str(enum xnvme_spec_znd_state eval)
{
	return LOOKUP(znd_state, eval);
}

const char *
xnvme_spec_znd_type_str(enum xnvme_spec_znd_type eval)
{
	return LOOKUP(znd_type, eval);
}

int
xnvme_spec_ctrlr_bar_fpr(FILE *stream, struct xnvme_spec_ctrlr_bar *bar, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_ctrlr_bar", bar, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_hex64(stream, 2, "cap", bar->cap);
	wrtn += xnvme_pp_hex(stream, 2, "vs", bar->vs);
	wrtn += xnvme_pp_hex(stream, 2, "intms", bar->intms);
	wrtn += xnvme_pp_hex(stream, 2, "intmc", bar->intmc);
	wrtn += xnvme_pp_hex(stream, 2, "cc", bar->cc);
	wrtn += xnvme_pp_hex(stream, 2, "csts", bar->csts);
	wrtn += xnvme_pp_hex(stream, 2, "nssr", bar->nssr);
	wrtn += xnvme_pp_hex(stream, 2, "aqa", bar->aqa);
	wrtn += xnvme_pp_hex64(stream, 2, "asq", bar->asq);
	wrtn += xnvme_pp_hex64(stream, 2, "acq", bar->acq);
	wrtn += xnvme_pp_hex(stream, 2, "cmbloc", bar->cmbloc);
	wrtn += xnvme_pp_hex(stream, 2, "cmbsz", bar->cmbsz);
	wrtn += xnvme_pp_hex(stream, 2, "bpinfo", bar->bpinfo);
	wrtn += xnvme_pp_hex(stream, 2, "bprsel", bar->bprsel);
	wrtn += xnvme_pp_hex64(stream, 2, "bpmbl", bar->bpmbl);
	wrtn += xnvme_pp_hex64(stream, 2, "cmbmsc", bar->cmbmsc);
	wrtn += xnvme_pp_hex(stream, 2, "cmbsts", bar->cmbsts);
	wrtn += xnvme_pp_hex(stream, 2, "pmrcap", bar->pmrcap);
	wrtn += xnvme_pp_hex(stream, 2, "pmrctl", bar->pmrctl);
	wrtn += xnvme_pp_hex(stream, 2, "pmrsts", bar->pmrsts);
	wrtn += xnvme_pp_hex(stream, 2, "pmrebs", bar->pmrebs);
	wrtn += xnvme_pp_hex(stream, 2, "pmrswtp", bar->pmrswtp);
	wrtn += xnvme_pp_hex(stream, 2, "pmrmscl", bar->pmrmscl);
	wrtn += xnvme_pp_hex(stream, 2, "pmrmscu", bar->pmrmscu);

	return wrtn;
}

int
xnvme_spec_ctrlr_bar_pp(struct xnvme_spec_ctrlr_bar *bar, int opts)
{
	return xnvme_spec_ctrlr_bar_fpr(stdout, bar, opts);
}
