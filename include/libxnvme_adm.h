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

/*
 * Common to the commands below: `ctx` comes from xnvme_cmd_ctx_from_dev() (admin commands are
 * synchronous). They return 0 when the command completed with success, -EIO when it completed
 * with an NVMe status (in ctx->cpl), another negative errno when it could not be issued
 * (-EINVAL for a NULL ctx). Buffers are allocated by the caller, preferably with
 * xnvme_buf_alloc().
 */

/**
 * Identify with Controller or Namespace Structure `cns`, controller id `cntid`, NVM set id
 * `nvmsetid` and UUID index `uuid`, into the 4096-byte `dbuf`. Note that `nsid` is only 8 bits
 * wide here (the 0.7.5 signature): use xnvme_adm_idfy_ns() for larger namespace ids.
 * Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_adm_idfy(struct xnvme_cmd_ctx *ctx, uint8_t cns, uint16_t cntid, uint8_t nsid,
	       uint16_t nvmsetid, uint8_t uuid, struct xnvme_spec_idfy *dbuf);

/**
 * Identify Controller (CNS 0x01) into the 4096-byte `dbuf`.
 * Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_adm_idfy_ctrlr(struct xnvme_cmd_ctx *ctx, struct xnvme_spec_idfy *dbuf);

/**
 * I/O command set specific Identify Controller (CNS 0x06) for command set `csi`
 * (enum xnvme_spec_csi) into the 4096-byte `dbuf`.
 * Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_adm_idfy_ctrlr_csi(struct xnvme_cmd_ctx *ctx, uint8_t csi, struct xnvme_spec_idfy *dbuf);

/**
 * Identify Namespace (CNS 0x00) of `nsid` (0: the handle's namespace) into the 4096-byte
 * `dbuf`. Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_adm_idfy_ns(struct xnvme_cmd_ctx *ctx, uint32_t nsid, struct xnvme_spec_idfy *dbuf);

/**
 * I/O command set specific Identify Namespace (CNS 0x05) of `nsid` (0: the handle's
 * namespace) for command set `csi` into the 4096-byte `dbuf`.
 * Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_adm_idfy_ns_csi(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t csi,
		      struct xnvme_spec_idfy *dbuf);

/**
 * Prepares a Get Log Page command in ctx->cmd without submitting: log id `lid`, log specific
 * field `lsp`, byte offset `lpo_nbytes`, `nsid`, retain asynchronous event `rae` and the dword
 * count derived from `dbuf_nbytes` (bytes). A NULL ctx is ignored.
 * Thread safety: touches only `ctx`.
 */
void
xnvme_prep_adm_log(struct xnvme_cmd_ctx *ctx, uint8_t lid, uint8_t lsp, uint64_t lpo_nbytes,
		   uint32_t nsid, uint8_t rae, uint32_t dbuf_nbytes);

/**
 * Get Log Page `lid` (log specific field `lsp`) of `nsid` from byte offset `lpo_nbytes` into
 * `dbuf` of `dbuf_nbytes` bytes, which is zeroed first; `rae` 1 retains the asynchronous event.
 * @return as the common rules above; -EINVAL for a NULL dbuf, fewer than 4 bytes or an offset
 * that is not a multiple of 4. Thread safety: see the header comment.
 */
int
xnvme_adm_log(struct xnvme_cmd_ctx *ctx, uint8_t lid, uint8_t lsp, uint64_t lpo_nbytes,
	      uint32_t nsid, uint8_t rae, void *dbuf, uint32_t dbuf_nbytes);

/**
 * Prepares Get Features of feature `fid` with select `sel` (0 current, 1 default, 2 saved,
 * 3 supported capabilities) in ctx->cmd without submitting. A NULL ctx is ignored.
 * Thread safety: touches only `ctx`.
 */
void
xnvme_prep_adm_gfeat(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t fid, uint8_t sel);

/**
 * Prepares Set Features of feature `fid` to value `feat` (CDW11), `save` 1 to persist, in
 * ctx->cmd without submitting. A NULL ctx is ignored. Thread safety: touches only `ctx`.
 */
void
xnvme_prep_adm_sfeat(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t fid, uint32_t feat,
		     uint8_t save);

/**
 * Get Features `fid` with select `sel` (see xnvme_prep_adm_gfeat()); the value is in
 * ctx->cpl.cdw0, a feature with a data structure fills `dbuf` of `dbuf_nbytes` (NULL for none).
 * Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_adm_gfeat(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t fid, uint8_t sel, void *dbuf,
		size_t dbuf_nbytes);

/**
 * Set Features `fid` to `feat` (CDW11), `save` 1 to persist; `dbuf` of `dbuf_nbytes` (NULL
 * for none) is sent for features with a data structure and only read.
 * Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_adm_sfeat(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t fid, uint32_t feat, uint8_t save,
		const void *dbuf, size_t dbuf_nbytes);

/**
 * Format NVM of `nsid`: `lbaf`/`zf` are the lower 4 and upper 2 bits of the LBA format index,
 * `mset` 1 for metadata in the LBA (extended), `ses` secure erase setting (0 none, 1 user
 * data, 2 cryptographic), `pi` protection information type (0-3) and `pil` its location (1
 * first bytes of the metadata). Destroys the data; call xnvme_dev_derive_geo() afterwards.
 * Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_adm_format(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t lbaf, uint8_t zf, uint8_t mset,
		 uint8_t ses, uint8_t pi, uint8_t pil);

/**
 * Sanitize (an admin command despite its prefix): action `sanact` (1 exit failure mode, 2
 * block erase, 3 overwrite, 4 crypto erase), `ause` allow unrestricted exit, overwrite
 * pattern `ovrpat`, `owpass` overwrite pass count, `oipbp` invert pattern between passes,
 * `nodas` no deallocate after sanitize. Destroys the data of every namespace.
 * Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_nvm_sanitize(struct xnvme_cmd_ctx *ctx, uint8_t sanact, bool ause, uint32_t ovrpat,
		   uint8_t owpass, bool oipbp, bool nodas);

/**
 * Directive Send without data: operation `doper` on directive type `dtype` (0 identify,
 * 1 streams, 2 data placement) with directive specific `dspec` and CDW12 value `val` (e.g.
 * the enable bit and the type to enable). Returns as the common rules above.
 * Thread safety: see the header comment.
 */
int
xnvme_adm_dir_send(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t doper, uint32_t dtype,
		   uint32_t dspec, uint32_t val);

/**
 * Directive Receive: operation `doper` on directive type `dtype`, CDW12 value `val`, into
 * `dbuf` of `dbuf_nbytes` bytes (NULL: no data; the dword count is derived from the size).
 * Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_adm_dir_recv(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t doper, uint32_t dtype,
		   uint32_t val, void *dbuf, size_t dbuf_nbytes);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_ADM_H */
