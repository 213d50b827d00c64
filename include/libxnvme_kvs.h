/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Key-Value command set (CSI 1): store, retrieve, delete, exist and list. Keys are at most
 * 16 bytes; longer keys are rejected with -EINVAL.
 *
 * Thread safety: these build the command in `ctx` and pass it like xnvme_cmd_pass(): with a
 * synchronous context, safe concurrently on one handle (one context per thread); with a queue
 * context, only on the thread that owns the queue.
 */
#ifndef LIBXNVME_KVS_H
#define LIBXNVME_KVS_H

#include <stdint.h>
#include "libxnvme_util.h"
#include "libxnvme_spec.h"
#include "libxnvme_cmd.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of xnvme_kvs_retrieve() */
enum xnvme_retrieve_opts {
	XNVME_KVS_RETRIEVE_OPT_RETRIEVE_RAW = 0x1,
};

/** Options of xnvme_kvs_store() */
enum xnvme_store_opts {
	XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_NOT_EXISTS = 0x1, ///< only update existing keys
	XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_EXISTS = 0x2,     ///< only add new keys
	XNVME_KVS_STORE_OPT_COMPRESS = 0x4,
};

/*
 * Common to the commands below: `key` of `key_len` bytes (1-16; more, or a NULL key with a
 * nonzero length, gives -EINVAL before anything is sent). They return 0 on success, -EIO when
 * the command completed with an NVMe status (in ctx->cpl: e.g. the KV "key does not exist"
 * status), another negative errno when it could not be issued; with a queue context 0 means
 * queued.
 */

/**
 * Retrieve the value of `key` into `vbuf` of `vbuf_nbytes` bytes; `vbuf` receives the value
 * although it is declared const (0.7.5 signature). `opt`: enum xnvme_retrieve_opts. The
 * value's full size is reported in ctx->cpl.cdw0. Returns as the common rules above.
 * Thread safety: see the header comment.
 */
int
xnvme_kvs_retrieve(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len,
		   const void *vbuf, uint32_t vbuf_nbytes, uint8_t opt);

/**
 * Store `vbuf_nbytes` bytes of `vbuf` as the value of `key`; `opt`: enum xnvme_store_opts
 * (only add, only update, compress). Returns as the common rules above.
 * Thread safety: see the header comment.
 */
int
xnvme_kvs_store(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len,
		const void *vbuf, uint32_t vbuf_nbytes, uint8_t opt);

/**
 * Delete `key` and its value. Returns as the common rules above.
 * Thread safety: see the header comment.
 */
int
xnvme_kvs_delete(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len);

/**
 * Exist: 0 when `key` exists, -EIO with the KV "key does not exist" status when not.
 * Thread safety: see the header comment.
 */
int
xnvme_kvs_exist(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len);

/**
 * List the keys starting at `key` into `vbuf` of `vbuf_nbytes` bytes (a 4-byte key count,
 * then per key a 2-byte length and the key, each pair padded to 4 bytes; keys in byte order;
 * ctx->cpl.cdw0 is the number listed); `vbuf` receives the list
 * although it is declared const. Returns as the common rules above.
 * Thread safety: see the header comment.
 */
int
xnvme_kvs_list(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len,
	       const void *vbuf, uint32_t vbuf_nbytes);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_KVS_H */
