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

/* The 0.7.5 header includes the umbrella header; clients rely on it */
#include "libxnvme.h"

#include <stdbool.h>
#include <stdint.h>
#include "libxnvme_util.h"
#include "libxnvme_spec.h"
#include "libxnvme_cmd.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Common to the LBA commands below. `nsid`: namespace, usually xnvme_dev_get_nsid(). `slba`:
 * first logical block. `nlb`: ZERO-BASED number of logical blocks, as on the wire: nlb=0 moves
 * one block, nlb=7 moves 8. `dbuf` must hold (nlb + 1) * geo->lba_nbytes bytes and `mbuf` (or
 * NULL) (nlb + 1) * geo->nbytes_oob bytes (struct xnvme_geo): these functions take no buffer
 * length, so the library cannot check it and a smaller buffer is overrun (passing the block
 * count, nlb=8 for an 8-block buffer, writes one block past its end). xnvme_cmd_pass() takes
 * the lengths: the ramdisk and the file and block mechanisms refuse a command that moves more
 * than them (NVMe status Invalid Field, nothing written), NVMe passthrough maps only them.
 * Returns: synchronous context: 0 when the command completed with success, -EIO when it
 * completed with an NVMe status (in ctx->cpl), another negative errno when it could not be
 * issued (-EINVAL for a NULL ctx). Queue context: 0 when queued (the result arrives in the
 * callback), -EBUSY/-EAGAIN when the queue is full.
 */

/**
 * Read `nlb + 1` blocks (nlb zero-based) from `slba` into `dbuf` (and metadata into `mbuf`,
 * or NULL). See the common rules above for buffer sizes and return values.
 * Thread safety: see the header comment.
 */
int
xnvme_nvm_read(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb, void *dbuf,
	       void *mbuf);

/**
 * Write `nlb + 1` blocks (nlb zero-based) from `dbuf` (and metadata from `mbuf`, or NULL) to
 * `slba`; the buffers are only read. See the common rules above for sizes and return values.
 * Thread safety: see the header comment.
 */
int
xnvme_nvm_write(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb,
		const void *dbuf, const void *mbuf);

/**
 * Write Uncorrectable: marks `nlb + 1` blocks (nlb zero-based) from `slba` so that reading them
 * fails with an NVMe media error until they are written again. No data buffer. Returns as the
 * common rules above (-EIO with Invalid Opcode where the device lacks the command).
 * Thread safety: see the header comment.
 */
int
xnvme_nvm_write_uncorrectable(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba,
			      uint16_t nlb);

/**
 * Write Zeroes: `nlb + 1` blocks (nlb zero-based) from `slba` read back as zeroes. No data
 * buffer. Returns as the common rules above.
 * Thread safety: see the header comment.
 */
int
xnvme_nvm_write_zeroes(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb);

/**
 * Prepares opcode, nsid, slba and nlb (zero-based) in ctx->cmd without submitting; the other
 * command fields are left as they are. A NULL ctx is ignored.
 * Thread safety: touches only `ctx`.
 */
void
xnvme_prep_nvm(struct xnvme_cmd_ctx *ctx, uint8_t opcode, uint32_t nsid, uint64_t slba,
	       uint16_t nlb);

/**
 * Simple Copy to `sdlba` from the source ranges in `ranges`; `nr` is the ZERO-BASED number of
 * ranges (nr=0 copies one range), and each range's nlb is zero-based too. `copy_fmt` selects
 * the entry format (XNVME_NVM_SCOPY_FMT_SRCLEN: 16-byte start/length entries; otherwise
 * 32-byte format zero entries). The range list is sent as a (nr + 1)-entry data buffer.
 * Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_nvm_scopy(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t sdlba,
		struct xnvme_spec_nvm_scopy_fmt_zero *ranges, uint8_t nr,
		enum xnvme_nvm_scopy_fmt copy_fmt);

/**
 * Dataset Management over `nr + 1` ranges (nr ZERO-BASED) in `dsm_range` (each range has a
 * starting LBA and a ONE-BASED block count `llb`, as in the NVMe range format). Attributes:
 * `ad` deallocate (trim), `idw` integral dataset for write, `idr` for read.
 * Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_nvm_dsm(struct xnvme_cmd_ctx *ctx, uint32_t nsid, struct xnvme_spec_dsm_range *dsm_range,
	      uint8_t nr, bool ad, bool idw, bool idr);

/**
 * I/O Management Receive (FDP): management operation `mo` (1: reclaim unit handle status)
 * with operation specific `mos`, into `dbuf` of `dbuf_nbytes` bytes (the dword count is
 * derived from it). Returns as the common rules above. Thread safety: see the header comment.
 */
int
xnvme_nvm_mgmt_recv(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t mo, uint16_t mos, void *dbuf,
		    uint32_t dbuf_nbytes);

/**
 * I/O Management Send (FDP): management operation `mo` (1: reclaim unit handle update) with
 * `mos` (zero-based number of entries), sending `dbuf` of `dbuf_nbytes` bytes (e.g. an array
 * of uint16_t placement identifiers). Returns as the common rules above.
 * Thread safety: see the header comment.
 */
int
xnvme_nvm_mgmt_send(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint8_t mo, uint16_t mos, void *dbuf,
		    uint32_t dbuf_nbytes);

/**
 * Compare: the device compares `nlb + 1` blocks (nlb zero-based) from `slba` with `dbuf` (and
 * `mbuf`, or NULL); a mismatch completes with NVMe status Compare Failure (-EIO, status in
 * ctx->cpl). Buffer sizes and returns as the common rules above.
 * Thread safety: see the header comment.
 */
int
xnvme_nvm_compare(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba, uint16_t nlb, void *dbuf,
		  void *mbuf);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_NVM_H */
