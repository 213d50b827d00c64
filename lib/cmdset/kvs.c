/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Key-Value command set builders. A key of up to 16 bytes is packed into the command: bytes
 * 0..7 into CDW2-3 and bytes 8..15 into CDW14-15. Longer keys are rejected rather than
 * silently truncated as the original did.
 */
#include <errno.h>
#include <string.h>
#include <libxnvme.h>

#define KVS_KEY_LO_NBYTES 8
#define KVS_KEY_NBYTES_MAX 16

static int
kvs_set_key(struct xnvme_spec_cmd *cmd, const void *key, uint8_t key_len)
{
	const uint8_t *bytes = key;
	uint8_t lo_nbytes = key_len < KVS_KEY_LO_NBYTES ? key_len : KVS_KEY_LO_NBYTES;

	if (key_len > KVS_KEY_NBYTES_MAX || (key_len && !key)) {
		return -EINVAL;
	}

	cmd->kvs.cdw11.kl = key_len;
	/* clear first: a reused context must not leak bytes of an earlier, longer key */
	cmd->kvs.key = 0;
	memcpy(&cmd->kvs.key, bytes, lo_nbytes);
	if (key_len > KVS_KEY_LO_NBYTES) {
		cmd->kvs.key_hi = 0;
		memcpy(&cmd->kvs.key_hi, bytes + KVS_KEY_LO_NBYTES, key_len - KVS_KEY_LO_NBYTES);
	}

	return 0;
}

/* Opcode, nsid and key of every KV command; nothing is written when the key is invalid */
static int
kvs_prep(struct xnvme_cmd_ctx *ctx, uint8_t opcode, uint32_t nsid, const void *key, uint8_t key_len)
{
	int err;

	if (!ctx) {
		return -EINVAL;
	}
	err = kvs_set_key(&ctx->cmd, key, key_len);
	if (err) {
		return err;
	}
	ctx->cmd.common.opcode = opcode;
	ctx->cmd.common.nsid = nsid;

	return 0;
}

int
xnvme_kvs_retrieve(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len,
		   const void *vbuf, uint32_t vbuf_nbytes, uint8_t opt)
{
	int err = kvs_prep(ctx, XNVME_SPEC_KV_OPC_RETRIEVE, nsid, key, key_len);

	if (err) {
		return err;
	}
	ctx->cmd.kvs.cdw10 = vbuf_nbytes;
	if (opt & XNVME_KVS_RETRIEVE_OPT_RETRIEVE_RAW) {
		ctx->cmd.kvs.cdw11.ro = opt;
	}

	/* the value is written into vbuf although the original declared it const */
	return xnvme_cmd_pass(ctx, (void *)vbuf, vbuf_nbytes, NULL, 0);
}

int
xnvme_kvs_store(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len,
		const void *vbuf, uint32_t vbuf_nbytes, uint8_t opt)
{
	const uint8_t cond = XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_NOT_EXISTS |
			     XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_EXISTS;
	int err = kvs_prep(ctx, XNVME_SPEC_KV_OPC_STORE, nsid, key, key_len);

	if (err) {
		return err;
	}
	ctx->cmd.kvs.cdw10 = vbuf_nbytes;
	if (opt & cond) {
		ctx->cmd.kvs.cdw11.ro = opt;
	}
	if (opt & XNVME_KVS_STORE_OPT_COMPRESS) {
		ctx->cmd.kvs.cdw11.ro |= XNVME_KVS_STORE_OPT_COMPRESS;
	}

	return xnvme_cmd_pass(ctx, (void *)vbuf, vbuf_nbytes, NULL, 0);
}

int
xnvme_kvs_delete(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len)
{
	int err = kvs_prep(ctx, XNVME_SPEC_KV_OPC_DELETE, nsid, key, key_len);

	if (err) {
		return err;
	}

	return xnvme_cmd_pass(ctx, NULL, 0, NULL, 0);
}

int
xnvme_kvs_exist(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len)
{
	int err = kvs_prep(ctx, XNVME_SPEC_KV_OPC_EXIST, nsid, key, key_len);

	if (err) {
		return err;
	}

	return xnvme_cmd_pass(ctx, NULL, 0, NULL, 0);
}

int
xnvme_kvs_list(struct xnvme_cmd_ctx *ctx, uint32_t nsid, const void *key, uint8_t key_len,
	       const void *vbuf, uint32_t vbuf_nbytes)
{
	int err = kvs_prep(ctx, XNVME_SPEC_KV_OPC_LIST, nsid, key, key_len);

	if (err) {
		return err;
	}
	ctx->cmd.kvs.cdw10 = vbuf_nbytes;

	/* the key list is written into vbuf although the original declared it const */
	return xnvme_cmd_pass(ctx, (void *)vbuf, vbuf_nbytes, NULL, 0);
}
