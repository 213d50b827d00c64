/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Human-readable names of the NVMe enumerations in libxnvme_spec.h and printers of the
 * controller registers. The *_str functions return a static string, never NULL.
 *
 * Thread safety: every function here is safe from any thread (constant strings; the printers
 * only read their argument, output of concurrent calls on one stream may interleave).
 */
#ifndef LIBXNVME_SPEC_PP_H
#define LIBXNVME_SPEC_PP_H

#include <stdio.h>
#include "libxnvme_spec.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *xnvme_spec_adm_opc_str(enum xnvme_spec_adm_opc eval);
const char *xnvme_spec_csi_str(enum xnvme_spec_csi eval);
const char *xnvme_spec_feat_id_str(enum xnvme_spec_feat_id eval);
const char *xnvme_spec_feat_sel_str(enum xnvme_spec_feat_sel eval);
const char *xnvme_spec_flag_str(enum xnvme_spec_flag eval);
const char *xnvme_spec_idfy_cns_str(enum xnvme_spec_idfy_cns eval);
const char *xnvme_spec_log_lpi_str(enum xnvme_spec_log_lpi eval);
const char *xnvme_spec_znd_log_lid_str(enum xnvme_spec_znd_log_lid eval);
const char *xnvme_spec_nvm_cmd_cpl_sc_str(enum xnvme_spec_nvm_cmd_cpl_sc eval);
const char *xnvme_spec_nvm_opc_str(enum xnvme_spec_nvm_opc eval);
const char *xnvme_spec_psdt_str(enum xnvme_spec_psdt eval);
const char *xnvme_spec_sgl_descriptor_subtype_str(enum xnvme_spec_sgl_descriptor_subtype eval);
const char *xnvme_spec_znd_cmd_mgmt_recv_action_str(enum xnvme_spec_znd_cmd_mgmt_recv_action eval);
const char *xnvme_spec_znd_cmd_mgmt_recv_action_sf_str(enum xnvme_spec_znd_cmd_mgmt_recv_action_sf eval);
const char *xnvme_spec_znd_cmd_mgmt_send_action_str(enum xnvme_spec_znd_cmd_mgmt_send_action eval);
const char *xnvme_spec_znd_opc_str(enum xnvme_spec_znd_opc eval);
const char *xnvme_spec_znd_mgmt_send_action_so_str(enum xnvme_spec_znd_mgmt_send_action_so eval);
const char *xnvme_spec_znd_status_code_str(enum xnvme_spec_znd_status_code eval);
const char *xnvme_spec_znd_state_str(enum xnvme_spec_znd_state eval);
const char *xnvme_spec_znd_type_str(enum xnvme_spec_znd_type eval);

/** Prints the controller registers as YAML under the key xnvme_spec_ctrlr_bar */
int xnvme_spec_ctrlr_bar_fpr(FILE *stream, struct xnvme_spec_ctrlr_bar *bar, int opts);
/** Same as xnvme_spec_ctrlr_bar_fpr() on stdout (note the _pp suffix) */
int xnvme_spec_ctrlr_bar_pp(struct xnvme_spec_ctrlr_bar *bar, int opts);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_SPEC_PP_H */
