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

/**
 * Name of a value of enum xnvme_spec_adm_opc: the constant's name without the XNVME_SPEC_ prefix,
 * or "ENOSYS" for a value that has none. @return a static string, never NULL. Thread safety: safe
 * from any thread.
 */
const char *
xnvme_spec_adm_opc_str(enum xnvme_spec_adm_opc eval);

/**
 * Name of a value of enum xnvme_spec_csi: the constant's name without the XNVME_SPEC_ prefix, or
 * "ENOSYS" for a value that has none. @return a static string, never NULL. Thread safety: safe
 * from any thread.
 */
const char *
xnvme_spec_csi_str(enum xnvme_spec_csi eval);

/**
 * Name of a value of enum xnvme_spec_feat_id: the constant's name without the XNVME_SPEC_ prefix,
 * or "ENOSYS" for a value that has none. @return a static string, never NULL. Thread safety: safe
 * from any thread.
 */
const char *
xnvme_spec_feat_id_str(enum xnvme_spec_feat_id eval);

/**
 * Name of a value of enum xnvme_spec_feat_sel: the constant's name without the XNVME_SPEC_ prefix,
 * or "ENOSYS" for a value that has none. @return a static string, never NULL. Thread safety: safe
 * from any thread.
 */
const char *
xnvme_spec_feat_sel_str(enum xnvme_spec_feat_sel eval);

/**
 * Name of a value of enum xnvme_spec_flag: the constant's name without the XNVME_SPEC_ prefix, or
 * "ENOSYS" for a value that has none. @return a static string, never NULL. Thread safety: safe
 * from any thread.
 */
const char *
xnvme_spec_flag_str(enum xnvme_spec_flag eval);

/**
 * Name of a value of enum xnvme_spec_idfy_cns: the constant's name without the XNVME_SPEC_ prefix,
 * or "ENOSYS" for a value that has none. @return a static string, never NULL. Thread safety: safe
 * from any thread.
 */
const char *
xnvme_spec_idfy_cns_str(enum xnvme_spec_idfy_cns eval);

/**
 * Name of a value of enum xnvme_spec_log_lpi: the constant's name without the XNVME_SPEC_ prefix,
 * or "ENOSYS" for a value that has none. @return a static string, never NULL. Thread safety: safe
 * from any thread.
 */
const char *
xnvme_spec_log_lpi_str(enum xnvme_spec_log_lpi eval);

/**
 * Name of a value of enum xnvme_spec_znd_log_lid: the constant's name without the XNVME_SPEC_
 * prefix, or "ENOSYS" for a value that has none. @return a static string, never NULL. Thread
 * safety: safe from any thread.
 */
const char *
xnvme_spec_znd_log_lid_str(enum xnvme_spec_znd_log_lid eval);

/**
 * Name of a value of enum xnvme_spec_nvm_cmd_cpl_sc: the constant's name without the XNVME_SPEC_
 * prefix, or "ENOSYS" for a value that has none. @return a static string, never NULL. Thread
 * safety: safe from any thread.
 */
const char *
xnvme_spec_nvm_cmd_cpl_sc_str(enum xnvme_spec_nvm_cmd_cpl_sc eval);

/**
 * Name of a value of enum xnvme_spec_nvm_opc: the constant's name without the XNVME_SPEC_ prefix,
 * or "ENOSYS" for a value that has none. @return a static string, never NULL. Thread safety: safe
 * from any thread.
 */
const char *
xnvme_spec_nvm_opc_str(enum xnvme_spec_nvm_opc eval);

/**
 * Name of a value of enum xnvme_spec_psdt: the constant's name without the XNVME_SPEC_ prefix, or
 * "ENOSYS" for a value that has none. @return a static string, never NULL. Thread safety: safe
 * from any thread.
 */
const char *
xnvme_spec_psdt_str(enum xnvme_spec_psdt eval);

/**
 * Name of a value of enum xnvme_spec_sgl_descriptor_subtype: the constant's name without the
 * XNVME_SPEC_ prefix, or "ENOSYS" for a value that has none. @return a static string, never NULL.
 * Thread safety: safe from any thread.
 */
const char *
xnvme_spec_sgl_descriptor_subtype_str(enum xnvme_spec_sgl_descriptor_subtype eval);

/**
 * Name of a value of enum xnvme_spec_znd_cmd_mgmt_recv_action: the constant's name without the
 * XNVME_SPEC_ prefix, or "ENOSYS" for a value that has none. @return a static string, never NULL.
 * Thread safety: safe from any thread.
 */
const char *
xnvme_spec_znd_cmd_mgmt_recv_action_str(enum xnvme_spec_znd_cmd_mgmt_recv_action eval);

/**
 * Name of a value of enum xnvme_spec_znd_cmd_mgmt_recv_action_sf: the constant's name without the
 * XNVME_SPEC_ prefix, or "ENOSYS" for a value that has none. @return a static string, never NULL.
 * Thread safety: safe from any thread.
 */
const char *
xnvme_spec_znd_cmd_mgmt_recv_action_sf_str(enum xnvme_spec_znd_cmd_mgmt_recv_action_sf eval);

/**
 * Name of a value of enum xnvme_spec_znd_cmd_mgmt_send_action: the constant's name without the
 * XNVME_SPEC_ prefix, or "ENOSYS" for a value that has none. @return a static string, never NULL.
 * Thread safety: safe from any thread.
 */
const char *
xnvme_spec_znd_cmd_mgmt_send_action_str(enum xnvme_spec_znd_cmd_mgmt_send_action eval);

/**
 * Name of a value of enum xnvme_spec_znd_opc: the constant's name without the XNVME_SPEC_ prefix,
 * or "ENOSYS" for a value that has none. @return a static string, never NULL. Thread safety: safe
 * from any thread.
 */
const char *
xnvme_spec_znd_opc_str(enum xnvme_spec_znd_opc eval);

/**
 * Name of a value of enum xnvme_spec_znd_mgmt_send_action_so: the constant's name without the
 * XNVME_SPEC_ prefix, or "ENOSYS" for a value that has none. @return a static string, never NULL.
 * Thread safety: safe from any thread.
 */
const char *
xnvme_spec_znd_mgmt_send_action_so_str(enum xnvme_spec_znd_mgmt_send_action_so eval);

/**
 * Name of a value of enum xnvme_spec_znd_status_code: the constant's name without the XNVME_SPEC_
 * prefix, or "ENOSYS" for a value that has none. @return a static string, never NULL. Thread
 * safety: safe from any thread.
 */
const char *
xnvme_spec_znd_status_code_str(enum xnvme_spec_znd_status_code eval);

/**
 * Name of a value of enum xnvme_spec_znd_state: the constant's name without the XNVME_SPEC_
 * prefix, or "ENOSYS" for a value that has none. @return a static string, never NULL. Thread
 * safety: safe from any thread.
 */
const char *
xnvme_spec_znd_state_str(enum xnvme_spec_znd_state eval);

/**
 * Name of a value of enum xnvme_spec_znd_type: the constant's name without the XNVME_SPEC_ prefix,
 * or "ENOSYS" for a value that has none. @return a static string, never NULL. Thread safety: safe
 * from any thread.
 */
const char *
xnvme_spec_znd_type_str(enum xnvme_spec_znd_type eval);

/**
 * Prints the controller registers (CAP, VS, CC, CSTS, AQA, ...) as YAML under the key
 * xnvme_spec_ctrlr_bar to `stream`; NULL prints "xnvme_spec_ctrlr_bar: ~". `opts` XNVME_PR_DEF or
 * XNVME_PR_YAML; other modes print a "# ENOSYS" note. @return the number of characters written.
 * Thread safety: safe from any thread.
 */
int
xnvme_spec_ctrlr_bar_fpr(FILE *stream, struct xnvme_spec_ctrlr_bar *bar, int opts);

/**
 * xnvme_spec_ctrlr_bar_fpr() on stdout (note the _pp suffix, as in 0.7.5). @return the number of
 * characters written. Thread safety: safe from any thread.
 */
int
xnvme_spec_ctrlr_bar_pp(struct xnvme_spec_ctrlr_bar *bar, int opts);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_SPEC_PP_H */
