/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * NVM command set: read, write, compare, write zeroes/uncorrectable, dataset management,
 * simple copy and I/O management (FDP). Works with synchronous and queue contexts.
 *
 * Command functions set only their own command fields: callers may pre-set PRINFO, tags,
 * directive type (CDW12) and directive specific (CDW13) before calling them.
 *
 * Thread safety: these build the command in `ctx` and pass it like xnvme_cmd_pass(): with a
 * synchronous context, safe concurrently on one handle (one context per thread); with a queue
 * context, only on the thread that owns the queue.
 * xnvme_prep_nvm() only fills `ctx`.
 */
#ifndef LIBXNVME_NVM_H
#define LIBXNVME_NVM_H

/* The original made this header include the umbrella; clients rely on it (api.md 2.16) */
#include "libxnvme.h"

#include <stdbool.h>
#include <stdint.h>
#include "libxnvme_util.h"
#include "libxnvme_spec.h"
#include "libxnvme_cmd.h"

#ifdef __cplusplus
extern "C" {
#endif

int xnvme_nvm_read(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb, void *dbuf, void *mbuf);
int xnvme_nvm_write(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb, const void *dbuf, const void *mbuf);
int xnvme_nvm_write_uncorrectable(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb);
int xnvme_nvm_write_zeroes(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb);
/** Prepares opcode, nsid, slba and nlb without submitting */
void xnvme_prep_nvm(struct xnvme_cmd_ctx *ctx, uint8_t opcode, uint32_t nsid, uint64_t slba, uint16_t nlb);
int xnvme_nvm_scopy(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t sdlba, struct xnvme_spec_nvm_scopy_fmt_zero *ranges, uint8_t nr, enum xnvme_nvm_scopy_fmt copy_fmt);
int xnvme_nvm_dsm(struct xnvme_cmd_ctx *ctx, uint32_t nsid, struct xnvme_spec_dsm_range *dsm_range, uint8_t nr, bool ad, bool idw, bool idr);
int xnvme_nvm_mgmt_recv(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t mo, uint16_t mos, void *dbuf, uint32_t dbuf_nbytes);
int xnvme_nvm_mgmt_send(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t mo, uint16_t mos, void *dbuf, uint32_t dbuf_nbytes);
int xnvme_nvm_compare(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb, void *dbuf, void *mbuf);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_NVM_H */
