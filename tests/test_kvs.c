// SPDX-License-Identifier: BSD-3-Clause
/*
 * Key-Value namespaces through the public API, on a KV ramdisk: identify and geometry, Store
 * (with its options), Retrieve (also into a short buffer), Exist, Delete, List, key and value
 * size limits, capacity, the KV statuses, and a command through a queue.
 */
#include <errno.h>
#include <string.h>
#include <libxnvme.h>

#include "xnvme_test.h"

#define URI "1GB?csi=kv,vmax=4096,nkeys=8"
#define VMAX 4096
#define NKEYS 8

static struct xnvme_dev *g_dev;
static uint8_t *g_buf;

static int
store(const char *key, const void *val, uint32_t vlen, uint8_t opt, struct xnvme_cmd_ctx *ctx)
{
	*ctx = xnvme_cmd_ctx_from_dev(g_dev);
	memcpy(g_buf, val, vlen);
	return xnvme_kvs_store(ctx, 1, key, (uint8_t)strlen(key), g_buf, vlen, opt);
}

static int
retrieve(const char *key, uint32_t nbytes, struct xnvme_cmd_ctx *ctx)
{
	*ctx = xnvme_cmd_ctx_from_dev(g_dev);
	memset(g_buf, 0xEE, VMAX + 1);
	return xnvme_kvs_retrieve(ctx, 1, key, (uint8_t)strlen(key), g_buf, nbytes, 0);
}

static int
exist(const char *key, struct xnvme_cmd_ctx *ctx)
{
	*ctx = xnvme_cmd_ctx_from_dev(g_dev);
	return xnvme_kvs_exist(ctx, 1, key, (uint8_t)strlen(key));
}

static int delete (const char *key, struct xnvme_cmd_ctx *ctx)
{
	*ctx = xnvme_cmd_ctx_from_dev(g_dev);
	return xnvme_kvs_delete(ctx, 1, key, (uint8_t)strlen(key));
}

static void
test_identify(void)
{
	const struct xnvme_spec_kvs_idfy_ns *ns = (const void *)xnvme_dev_get_ns_css(g_dev);
	const struct xnvme_geo *geo = xnvme_dev_get_geo(g_dev);

	CHECK_EQ(xnvme_dev_get_csi(g_dev), XNVME_SPEC_CSI_KV);
	CHECK_EQ(geo->type, XNVME_GEO_KV);
	CHECK_EQ(geo->tbytes, 0);
	CHECK_EQ(ns->nsze, 1ULL << 30);
	CHECK(ns->nkvf != 0);
	CHECK_EQ(ns->kvf[0].kml, 16);
	CHECK_EQ(ns->kvf[0].vml, VMAX);
	CHECK_EQ(ns->kvf[0].mnk, NKEYS);
	CHECK_EQ(xnvme_dev_get_ctrlr(g_dev)->oncs.compare, 0);
}

static void
test_store_retrieve(void)
{
	struct xnvme_cmd_ctx ctx;
	int err;

	err = store("alpha", "one", 3, 0, &ctx);
	CHECK_OK(err, ctx);
	err = retrieve("alpha", VMAX, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.cdw0, 3);
	CHECK(!memcmp(g_buf, "one", 3));

	/* a short buffer gets the start of the value, dword 0 the full size */
	err = store("alpha", "0123456789", 10, 0, &ctx);
	CHECK_OK(err, ctx);
	err = retrieve("alpha", 4, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.cdw0, 10);
	CHECK(!memcmp(g_buf, "0123", 4));
	CHECK_EQ(g_buf[4], 0xEE);

	/* an empty value is a value */
	err = store("empty", "", 0, 0, &ctx);
	CHECK_OK(err, ctx);
	err = retrieve("empty", 16, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.cdw0, 0);

	err = retrieve("missing", 16, &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_SPEC_KV_SC_KEY_NOT_EXISTS);

	/* the largest value, and one byte more */
	memset(g_buf, 0x3C, VMAX);
	ctx = xnvme_cmd_ctx_from_dev(g_dev);
	err = xnvme_kvs_store(&ctx, 1, "big", 3, g_buf, VMAX, 0);
	CHECK_OK(err, ctx);
	err = retrieve("big", VMAX, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.cdw0, VMAX);
	CHECK(g_buf[0] == 0x3C && g_buf[VMAX - 1] == 0x3C);
	ctx = xnvme_cmd_ctx_from_dev(g_dev);
	err = xnvme_kvs_store(&ctx, 1, "big", 3, g_buf, VMAX + 1, 0);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
			 XNVME_SPEC_KV_SC_INVALID_VAL_SIZE);

	err = delete ("big", &ctx);
	CHECK_OK(err, ctx);
	err = delete ("empty", &ctx);
	CHECK_OK(err, ctx);
}

static void
test_options(void)
{
	struct xnvme_cmd_ctx ctx;
	int err;

	err = store("alpha", "xyz", 3, XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_EXISTS, &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_SPEC_KV_SC_KEY_EXISTS);
	err = store("beta", "b", 1, XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_EXISTS, &ctx);
	CHECK_OK(err, ctx);

	err = store("gamma", "g", 1, XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_NOT_EXISTS, &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_SPEC_KV_SC_KEY_NOT_EXISTS);
	err = exist("gamma", &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_SPEC_KV_SC_KEY_NOT_EXISTS);
	err = store("beta", "bb", 2, XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_NOT_EXISTS, &ctx);
	CHECK_OK(err, ctx);
	err = retrieve("beta", 16, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.cdw0, 2);

	err = store("beta", "ccc", 3, XNVME_KVS_STORE_OPT_COMPRESS, &ctx);
	CHECK_OK(err, ctx);
	err = retrieve("beta", 16, &ctx);
	CHECK_OK(err, ctx);
	CHECK(!memcmp(g_buf, "ccc", 3));
}

static void
test_exist_delete(void)
{
	struct xnvme_cmd_ctx ctx;
	int err;

	err = exist("alpha", &ctx);
	CHECK_OK(err, ctx);
	err = delete ("alpha", &ctx);
	CHECK_OK(err, ctx);
	err = exist("alpha", &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_SPEC_KV_SC_KEY_NOT_EXISTS);
	err = delete ("alpha", &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_SPEC_KV_SC_KEY_NOT_EXISTS);
}

static void
test_key_sizes(void)
{
	const char key17[] = "0123456789abcdefg";
	struct xnvme_cmd_ctx ctx;
	int err;

	/* 1 and 16 bytes are keys; 16-byte keys differing in the last byte are distinct */
	err = store("k", "1", 1, 0, &ctx);
	CHECK_OK(err, ctx);
	err = store("0123456789abcdef", "16", 2, 0, &ctx);
	CHECK_OK(err, ctx);
	err = exist("0123456789abcdee", &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_SPEC_KV_SC_KEY_NOT_EXISTS);
	err = retrieve("0123456789abcdef", 16, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.cdw0, 2);

	/* 17 bytes: refused by the helper, nothing is submitted */
	ctx = xnvme_cmd_ctx_from_dev(g_dev);
	err = xnvme_kvs_store(&ctx, 1, key17, 17, g_buf, 1, 0);
	CHECK_EQ(err, -EINVAL);
	CHECK_EQ(xnvme_cmd_ctx_cpl_status(&ctx), 0);
	ctx = xnvme_cmd_ctx_from_dev(g_dev);
	err = xnvme_kvs_exist(&ctx, 1, key17, 17);
	CHECK_EQ(err, -EINVAL);

	/* 0 bytes: the device refuses it */
	ctx = xnvme_cmd_ctx_from_dev(g_dev);
	err = xnvme_kvs_store(&ctx, 1, "", 0, g_buf, 1, 0);
	CHECK(err != 0);
	if (err == -EIO) {
		CHECK_EQ(ctx.cpl.status.sc, XNVME_SPEC_KV_SC_INVALID_KEY_SIZE);
	}
	ctx = xnvme_cmd_ctx_from_dev(g_dev);
	err = xnvme_kvs_exist(&ctx, 1, "", 0);
	CHECK(err != 0);
	if (err == -EIO) {
		CHECK_EQ(ctx.cpl.status.sc, XNVME_SPEC_KV_SC_INVALID_KEY_SIZE);
	}
}

/* A list entry: 2-byte length, key, padding to 4 bytes */
static const uint8_t *
list_entry(const uint8_t *p, char *key)
{
	uint16_t klen;

	memcpy(&klen, p, sizeof(klen));
	memcpy(key, p + 2, klen);
	key[klen] = '\0';
	return p + ((2 + klen + 3) & ~3);
}

static void
test_list(void)
{
	struct xnvme_cmd_ctx ctx;
	const uint8_t *p;
	char key[17];
	uint32_t count;
	int err;

	/* stored now: "0123456789abcdef", "beta", "k" */
	ctx = xnvme_cmd_ctx_from_dev(g_dev);
	memset(g_buf, 0xEE, 256);
	err = xnvme_kvs_list(&ctx, 1, "b", 1, g_buf, 256);
	CHECK_OK(err, ctx);
	memcpy(&count, g_buf, sizeof(count));
	CHECK_EQ(count, 2);
	p = list_entry(g_buf + 4, key);
	CHECK(!strcmp(key, "beta"));
	p = list_entry(p, key);
	CHECK(!strcmp(key, "k"));
	CHECK_EQ(p - g_buf, 4 + 8 + 4);

	ctx = xnvme_cmd_ctx_from_dev(g_dev);
	err = xnvme_kvs_list(&ctx, 1, "0", 1, g_buf, 256);
	CHECK_OK(err, ctx);
	memcpy(&count, g_buf, sizeof(count));
	CHECK_EQ(count, 3);
	list_entry(g_buf + 4, key);
	CHECK(!strcmp(key, "0123456789abcdef"));

	/* only what fits: the header and one 20-byte entry */
	ctx = xnvme_cmd_ctx_from_dev(g_dev);
	err = xnvme_kvs_list(&ctx, 1, "0", 1, g_buf, 4 + 20 + 7);
	CHECK_OK(err, ctx);
	memcpy(&count, g_buf, sizeof(count));
	CHECK_EQ(count, 1);

	ctx = xnvme_cmd_ctx_from_dev(g_dev);
	err = xnvme_kvs_list(&ctx, 1, "z", 1, g_buf, 256);
	CHECK_OK(err, ctx);
	memcpy(&count, g_buf, sizeof(count));
	CHECK_EQ(count, 0);
}

static void
test_capacity(void)
{
	struct xnvme_cmd_ctx ctx;
	char key[8];
	int err;

	/* three keys stored; fill up to NKEYS, then one more */
	for (int i = 0; i < NKEYS - 3; ++i) {
		snprintf(key, sizeof(key), "cap%d", i);
		err = store(key, "v", 1, 0, &ctx);
		CHECK_OK(err, ctx);
	}
	err = store("over", "v", 1, 0, &ctx);
	CHECK_STATUS_EIO(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
			 XNVME_SPEC_KV_SC_CAPACITY_EXCEEDED);
	err = store("cap0", "replaced", 8, 0, &ctx);
	CHECK_OK(err, ctx);
	err = delete ("cap0", &ctx);
	CHECK_OK(err, ctx);
	err = store("over", "v", 1, 0, &ctx);
	CHECK_OK(err, ctx);
}

static int g_done;

static void
cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	(void)arg;
	CHECK_EQ(xnvme_cmd_ctx_cpl_status(ctx), 0);
	CHECK_EQ(ctx->cpl.cdw0, 3);
	g_done = 1;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static void
test_queue(void)
{
	struct xnvme_queue *queue = NULL;
	struct xnvme_cmd_ctx *ctx;
	int err;

	err = xnvme_queue_init(g_dev, 4, 0, &queue);
	CHECK_EQ(err, 0);
	if (err) {
		return;
	}
	xnvme_queue_set_cb(queue, cb, NULL);
	ctx = xnvme_queue_get_cmd_ctx(queue);
	err = xnvme_kvs_retrieve(ctx, 1, "beta", 4, g_buf, 16, 0);
	CHECK_EQ(err, 0);
	while (!err && !g_done) {
		xnvme_queue_poke(queue, 0);
	}
	xnvme_queue_drain(queue);
	xnvme_queue_term(queue);
}

int
main(void)
{
	struct xnvme_opts opts = xnvme_opts_default();
	const char *bad[] = {"1GB?csi=kv,kmax=17", "1GB?csi=kv,ms=8", "1GB?kmax=8",
			     "1GB?csi=kv,nkeys=0", "1GB?csi=kv,vmax=2147483648"};

	xnvme_test_open_fails(bad, sizeof(bad) / sizeof(bad[0]), EINVAL);

	opts.be = "ramdisk";
	g_dev = xnvme_test_open(URI, &opts);
	if (!g_dev) {
		return 1;
	}
	g_buf = xnvme_buf_alloc(g_dev, VMAX + 4096);
	if (!g_buf) {
		xnvme_dev_close(g_dev);
		return 1;
	}
	test_identify();
	test_store_retrieve();
	test_options();
	test_exist_delete();
	test_key_sizes();
	test_list();
	test_capacity();
	test_queue();

	xnvme_buf_free(g_dev, g_buf);
	xnvme_dev_close(g_dev);
	return xnvme_test_result("kvs");
}
