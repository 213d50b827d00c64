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

/** Retrieve; `vbuf` receives the value although it is declared const */
int xnvme_kvs_retrieve(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len, const void *vbuf, uint32_t vbuf_nbytes, uint8_t opt);
int xnvme_kvs_store(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len, const void *vbuf, uint32_t vbuf_nbytes, uint8_t opt);
int xnvme_kvs_delete(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len);
int xnvme_kvs_exist(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len);
/** List keys starting at `key`; `vbuf` receives the list although it is declared const */
int xnvme_kvs_list(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len, const void *vbuf, uint32_t vbuf_nbytes);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_KVS_H */
