/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Admin commands: identify, log pages, features, format, sanitize and directives. All are
 * synchronous (xnvme_cmd_pass_admin) and set only the fields they name.
 *
 * Thread safety (every function here): safe concurrently on one handle, one context per
 * thread, also while other threads do I/O; the xnvme_prep_* functions only fill `ctx`. Format
 * and Sanitize change the namespace under every thread's I/O: quiesce it and call
 * xnvme_dev_derive_geo() afterwards.
 */
#ifndef LIBXNVME_ADM_H
#define LIBXNVME_ADM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "libxnvme_util.h"
#include "libxnvme_spec.h"
#include "libxnvme_cmd.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Identify; note that `nsid` is only 8 bits wide (original signature) */
int xnvme_adm_idfy(struct xnvme_cmd_ctx *ctx, uint8_t cns, uint16_t cntid, uint8_t nsid, uint16_t nvmsetid, uint8_t uuid, struct xnvme_spec_idfy *dbuf);
int xnvme_adm_idfy_ctrlr(struct xnvme_cmd_ctx *ctx, struct xnvme_spec_idfy *dbuf);
int xnvme_adm_idfy_ctrlr_csi(struct xnvme_cmd_ctx *ctx, uint8_t csi, struct xnvme_spec_idfy *dbuf);
int xnvme_adm_idfy_ns(struct xnvme_cmd_ctx *ctx, uint32_t nsid, struct xnvme_spec_idfy *dbuf);
int xnvme_adm_idfy_ns_csi(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t csi, struct xnvme_spec_idfy *dbuf);
void xnvme_prep_adm_log(struct xnvme_cmd_ctx *ctx, uint8_t lid, uint8_t lsp, uint64_t lpo_nbytes, uint32_t nsid, uint8_t rae, uint32_t dbuf_nbytes);
/** Get Log Page; -EINVAL for 0 bytes or an offset that is not a multiple of 4 */
int xnvme_adm_log(struct xnvme_cmd_ctx *ctx, uint8_t lid, uint8_t lsp, uint64_t lpo_nbytes, uint32_t nsid, uint8_t rae, void *dbuf, uint32_t dbuf_nbytes);
void xnvme_prep_adm_gfeat(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t fid, uint8_t sel);
void xnvme_prep_adm_sfeat(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t fid, uint32_t feat, uint8_t save);
int xnvme_adm_gfeat(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t fid, uint8_t sel, void *dbuf, size_t dbuf_nbytes);
int xnvme_adm_sfeat(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t fid, uint32_t feat, uint8_t save, const void *dbuf, size_t dbuf_nbytes);
/** Format NVM; `lbaf`/`zf` are the lower 4 and upper 2 bits of the LBA format index */
int xnvme_adm_format(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t lbaf, uint8_t zf, uint8_t mset, uint8_t ses, uint8_t pi, uint8_t pil);
/** Sanitize; an admin command despite its prefix */
int xnvme_nvm_sanitize(struct xnvme_cmd_ctx *ctx, uint8_t sanact, bool ause, uint32_t ovrpat, uint8_t owpass, bool oipbp, bool nodas);
int xnvme_adm_dir_send(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t doper, uint32_t dtype, uint32_t dspec, uint32_t val);
int xnvme_adm_dir_recv(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t doper, uint32_t dtype, uint32_t val, void *dbuf, size_t dbuf_nbytes);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_ADM_H */
