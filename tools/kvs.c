// SPDX-License-Identifier: BSD-3-Clause
/**
 * kvs: the Key-Value command set: identify data, and storing, retrieving, deleting, testing
 * and listing keys.
 *
 * Keys and values are given as strings on the command line; a key is 1 to 16 bytes. Every
 * command is refused unless the device is a key-value namespace: the KV opcodes overlap those
 * of the NVM command set (KV Store is Write), so sending them elsewhere could destroy data.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"

#define IDFY_NBYTES sizeof(struct xnvme_spec_idfy)

#define KVS_KEY_NBYTES_MAX 16

/* Retrieve and List buffers when the namespace does not state a maximum value length */
#define KVS_BUF_NBYTES_DEF 4096U
#define KVS_LIST_NBYTES 4096U

/* List data: the number of keys, then per key its 2-byte length and bytes, 4-byte aligned */
#define KVS_LIST_HDR_NBYTES 4
#define KVS_LIST_KL_NBYTES 2

/* Prints `nbytes` of `buf` as a single-quoted YAML scalar */
static void
yaml_squote_pr(const uint8_t *buf, size_t nbytes)
{
	putchar('\'');
	for (size_t i = 0; i < nbytes; ++i) {
		if (buf[i] == '\'') {
			putchar('\'');
		}
		putchar(buf[i]);
	}
	putchar('\'');
}

static bool
is_printable(const uint8_t *buf, size_t nbytes)
{
	for (size_t i = 0; i < nbytes; ++i) {
		if (buf[i] < 0x20 || buf[i] > 0x7E) {
			return false;
		}
	}
	return true;
}

/* A key as a flow-sequence of hex bytes unless it is printable text */
static void
key_pr(const uint8_t *key, size_t nbytes)
{
	if (is_printable(key, nbytes)) {
		yaml_squote_pr(key, nbytes);
		return;
	}
	putchar('[');
	for (size_t i = 0; i < nbytes; ++i) {
		printf("%s0x%02x", i ? ", " : "", key[i]);
	}
	putchar(']');
}

/*
 * Checks that the device is a key-value namespace and that --key (when given) has a length
 * the command set can carry; returns the key length
 */
static int
kvs_check(struct xnvme_cli *cli, size_t *key_len)
{
	struct xnvme_cli_args *args = &cli->args;
	uint8_t csi = xnvme_dev_get_csi(args->dev);

	if (key_len) {
		*key_len = 0; /* defined on every return: gcc -O3 warns otherwise */
	}
	if (csi != XNVME_SPEC_CSI_KV) {
		return tool_err(cli, -EINVAL,
				"%s: not a key-value namespace (command set identifier 0x%x, "
				"expected 0x%x)",
				args->uri, csi, XNVME_SPEC_CSI_KV);
	}
	if (!key_len) {
		return 0;
	}
	*key_len = args->kv_key ? strlen(args->kv_key) : 0;
	if (*key_len < 1 || *key_len > KVS_KEY_NBYTES_MAX) {
		return tool_err(cli, -EINVAL, "--key \"%s\": %zu bytes; a key is 1 to %d bytes",
				args->kv_key ? args->kv_key : "", *key_len, KVS_KEY_NBYTES_MAX);
	}
	return 0;
}

/* The value buffer of Retrieve: the largest value of the namespace, within one transfer */
static uint32_t
kvs_value_nbytes(struct xnvme_dev *dev)
{
	const struct xnvme_spec_kvs_idfy_ns *ns =
		(const struct xnvme_spec_kvs_idfy_ns *)xnvme_dev_get_ns_css(dev);
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	uint32_t nbytes = KVS_BUF_NBYTES_DEF;

	if (ns && ns->kvf[0].vml) {
		nbytes = ns->kvf[0].vml;
	}
	if (geo && geo->mdts_nbytes && geo->mdts_nbytes < nbytes) {
		nbytes = geo->mdts_nbytes;
	}
	return nbytes;
}

/* The device refused a KV command: the completion, and an error naming key and status */
static int
kvs_cmd_err(struct xnvme_cli *cli, struct xnvme_cmd_ctx *ctx, int err, const char *what)
{
	return tool_cmd_err(cli, ctx, err, "%s of --key \"%s\" (nsid 0x%x) failed", what,
			    cli->args.kv_key, tool_nsid(cli));
}

static int
sub_idfy_ns(struct xnvme_cli *cli)
{
	struct xnvme_dev *dev = cli->args.dev;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	uint32_t nsid = tool_nsid(cli);
	struct xnvme_spec_idfy *idfy;
	int err;

	idfy = tool_dev_buf(cli, IDFY_NBYTES);
	if (!idfy) {
		return -ENOMEM;
	}
	err = xnvme_adm_idfy_ns_csi(&ctx, nsid, XNVME_SPEC_CSI_KV, idfy);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err,
				   "Identify Namespace of the key-value command set (CNS 0x%x, "
				   "CSI 0x%x, nsid 0x%x) failed",
				   XNVME_SPEC_IDFY_NS_IOCS, XNVME_SPEC_CSI_KV, nsid);
		goto exit;
	}
	xnvme_spec_kvs_idfy_ns_pr((const struct xnvme_spec_kvs_idfy_ns *)idfy, XNVME_PR_DEF);

exit:
	xnvme_buf_free(dev, idfy);
	return err;
}

static int
sub_store(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_dev *dev = args->dev;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	uint32_t nsid = tool_nsid(cli);
	size_t key_len, val_len;
	uint8_t opt = 0;
	void *vbuf;
	int err;

	err = kvs_check(cli, &key_len);
	if (err) {
		return err;
	}
	if (args->kv_store_add && args->kv_store_update) {
		return tool_err(cli, -EINVAL,
				"--only-add and --only-update exclude each other: a key cannot "
				"both exist and not exist");
	}
	val_len = strlen(args->kv_val);
	if (val_len > UINT32_MAX) {
		return tool_err(cli, -EINVAL, "--value: %zu bytes is too large", val_len);
	}
	if (args->kv_store_update) {
		opt |= XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_NOT_EXISTS;
	}
	if (args->kv_store_add) {
		opt |= XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_EXISTS;
	}
	if (args->kv_store_compress) {
		opt |= XNVME_KVS_STORE_OPT_COMPRESS;
	}

	/* at least one byte: an empty value still needs a buffer to point at */
	vbuf = tool_dev_buf(cli, val_len ? val_len : 1);
	if (!vbuf) {
		return -ENOMEM;
	}
	memcpy(vbuf, args->kv_val, val_len);

	err = xnvme_kvs_store(&ctx, nsid, args->kv_key, (uint8_t)key_len, vbuf, (uint32_t)val_len,
			      opt);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = kvs_cmd_err(cli, &ctx, err, "KV Store");
		goto exit;
	}
	printf("xnvme_kvs_store: {nsid: 0x%x, key: ", nsid);
	key_pr((const uint8_t *)args->kv_key, key_len);
	printf(", value_nbytes: %zu, only_add: %u, only_update: %u, compress: %u}\n", val_len,
	       args->kv_store_add, args->kv_store_update, args->kv_store_compress);

exit:
	xnvme_buf_free(dev, vbuf);
	return err;
}

static int
sub_retrieve(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_dev *dev = args->dev;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	uint32_t nsid = tool_nsid(cli);
	uint32_t buf_nbytes, nbytes;
	size_t key_len;
	uint8_t *vbuf;
	int err;

	err = kvs_check(cli, &key_len);
	if (err) {
		return err;
	}
	buf_nbytes = kvs_value_nbytes(dev);
	vbuf = tool_dev_buf(cli, buf_nbytes);
	if (!vbuf) {
		return -ENOMEM;
	}

	err = xnvme_kvs_retrieve(&ctx, nsid, args->kv_key, (uint8_t)key_len, vbuf, buf_nbytes, 0);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = kvs_cmd_err(cli, &ctx, err, "KV Retrieve");
		goto exit;
	}

	/* Completion dword 0 holds the size of the stored value, which may exceed the buffer */
	nbytes = XNVME_MIN(ctx.cpl.cdw0, buf_nbytes);
	printf("xnvme_kvs_retrieve: {nsid: 0x%x, key: ", nsid);
	key_pr((const uint8_t *)args->kv_key, key_len);
	printf(", value_nbytes: %" PRIu32 ", retrieved_nbytes: %" PRIu32 "}\n", ctx.cpl.cdw0,
	       nbytes);
	if (nbytes < ctx.cpl.cdw0) {
		xnvme_cli_pinf("the value is larger than the %" PRIu32 " bytes retrieved",
			       buf_nbytes);
	}
	if (args->data_output) {
		err = tool_data_output(cli, vbuf, nbytes);
	} else if (is_printable(vbuf, nbytes)) {
		printf("value: ");
		yaml_squote_pr(vbuf, nbytes);
		putchar('\n');
	} else {
		tool_hexdump_pr("value", vbuf, nbytes);
	}

exit:
	xnvme_buf_free(dev, vbuf);
	return err;
}

/* Delete and Exist: a key and no data */
static int
kvs_key_cmd(struct xnvme_cli *cli, bool exist)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(args->dev);
	uint32_t nsid = tool_nsid(cli);
	size_t key_len;
	int err;

	err = kvs_check(cli, &key_len);
	if (err) {
		return err;
	}
	if (exist) {
		err = xnvme_kvs_exist(&ctx, nsid, args->kv_key, (uint8_t)key_len);
	} else {
		err = xnvme_kvs_delete(&ctx, nsid, args->kv_key, (uint8_t)key_len);
	}
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		return kvs_cmd_err(cli, &ctx, err, exist ? "KV Exist" : "KV Delete");
	}
	printf("%s: {nsid: 0x%x, key: ", exist ? "xnvme_kvs_exist" : "xnvme_kvs_delete", nsid);
	key_pr((const uint8_t *)args->kv_key, key_len);
	printf("%s}\n", exist ? ", exists: 1" : "");
	return 0;
}

static int
sub_delete(struct xnvme_cli *cli)
{
	return kvs_key_cmd(cli, false);
}

static int
sub_exist(struct xnvme_cli *cli)
{
	return kvs_key_cmd(cli, true);
}

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t
le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* Prints the keys of a List answer of `nbytes`; stops where an entry would overrun it */
static void
kvs_list_pr(const uint8_t *buf, size_t nbytes, uint32_t nsid)
{
	uint32_t nkeys = le32(buf);
	size_t ofs = KVS_LIST_HDR_NBYTES;
	uint32_t nprinted = 0;

	printf("xnvme_kvs_list: {nsid: 0x%x, nkeys: %" PRIu32 "}\n", nsid, nkeys);
	printf("keys:%s\n", nkeys ? "" : " []");
	for (uint32_t i = 0; i < nkeys; ++i) {
		uint16_t kl;

		if (ofs + KVS_LIST_KL_NBYTES > nbytes) {
			break;
		}
		kl = le16(buf + ofs);
		if (ofs + KVS_LIST_KL_NBYTES + kl > nbytes) {
			break;
		}
		printf("  - ");
		key_pr(buf + ofs + KVS_LIST_KL_NBYTES, kl);
		putchar('\n');
		nprinted += 1;
		ofs += (KVS_LIST_KL_NBYTES + kl + 3) & ~(size_t)3;
	}
	if (nprinted < nkeys) {
		xnvme_cli_pinf("%" PRIu32 " of %" PRIu32 " keys fit into the %zu bytes listed",
			       nprinted, nkeys, nbytes);
	}
}

static int
sub_list(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_dev *dev = args->dev;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	uint32_t nsid = tool_nsid(cli);
	size_t key_len;
	uint8_t *buf;
	int err;

	err = kvs_check(cli, &key_len);
	if (err) {
		return err;
	}
	buf = tool_dev_buf(cli, KVS_LIST_NBYTES);
	if (!buf) {
		return -ENOMEM;
	}

	err = xnvme_kvs_list(&ctx, nsid, args->kv_key, (uint8_t)key_len, buf, KVS_LIST_NBYTES);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = kvs_cmd_err(cli, &ctx, err, "KV List");
		goto exit;
	}
	kvs_list_pr(buf, KVS_LIST_NBYTES, nsid);

exit:
	xnvme_buf_free(dev, buf);
	return err;
}

/* The backend options of every kvs subcommand: the full set, as on every other tool */
#define OPTS_KVS_BE TOOL_ASYNC_OPTS

/* uri, --key (required), --nsid, then the given extra options */
#define OPTS_KEY(...) TOOL_OPTS_DEV(TOOL_LREQ(KV_KEY), __VA_ARGS__ TOOL_LOPT(NSID)), OPTS_KVS_BE

static struct xnvme_cli_sub g_subs[] = {
	TOOL_SUB_ENUM(TOOL_ENUM_DESCR "; key-value namespaces have csi 0x1", OPTS_KVS_BE),
	{
		.name = "idfy-ns",
		.descr_short = "Identify Namespace of the key-value command set",
		.descr_long = "Prints the key-value command set specific Identify Namespace data "
			      "(CNS 0x05, CSI 0x01) of --nsid (default: the device namespace): "
			      "capacity, utilisation and the key and value size limits of every "
			      "KV format",
		.command = sub_idfy_ns,
		.opts = {TOOL_OPTS_DEV(TOOL_LOPT(NSID)), OPTS_KVS_BE},
	},
	{
		.name = "retrieve",
		.descr_short = "KV Retrieve: print the value of a key",
		.descr_long = "Retrieves the value stored under --key and prints it (as text when "
			      "printable, else as bytes), or writes it to --data-output. A key "
			      "that does not exist fails with the status KV Key Does Not Exist",
		.command = sub_retrieve,
		.opts = {OPTS_KEY(TOOL_LOPT(DATA_OUTPUT), )},
	},
	{
		.name = "store",
		.descr_short = "KV Store: store a value under a key",
		.descr_long = "Stores --value under --key; with --only-add only if the key does "
			      "not exist yet (else KV Key Exists), with --only-update only if it "
			      "does (else KV Key Does Not Exist); --compress asks the device to "
			      "compress the value",
		.command = sub_store,
		.opts = {OPTS_KEY(TOOL_LREQ(KV_VAL), TOOL_LFLG(KV_STORE_UPDATE),
				  TOOL_LFLG(KV_STORE_ADD), TOOL_LFLG(KV_STORE_COMPRESS), )},
	},
	{
		.name = "delete",
		.descr_short = "KV Delete: remove a key and its value",
		.descr_long = "Deletes --key; a key that does not exist fails with the status KV "
			      "Key Does Not Exist",
		.command = sub_delete,
		.opts = {OPTS_KEY()},
	},
	{
		.name = "exist",
		.descr_short = "KV Exist: test whether a key exists",
		.descr_long = "Succeeds, printing exists: 1, when --key exists; fails with the "
			      "status KV Key Does Not Exist (exit status 1) when it does not",
		.command = sub_exist,
		.opts = {OPTS_KEY()},
	},
	{
		.name = "list",
		.descr_short = "KV List: list the keys from a key on",
		.descr_long = "Lists the keys of the namespace starting at --key, as many as fit "
			      "into 4096 bytes",
		.command = sub_list,
		.opts = {OPTS_KEY()},
	},
};

/* The subcommands that write the device; every other one opens it read-only */
static const char *const g_writers[] = {"store", "delete", NULL};

TOOL_MAIN(g_subs, XNVME_CLI_INIT_DEV_OPEN, g_writers, "kvs", "Key-Value command set",
	  "Stores, retrieves, deletes, tests and lists keys of a key-value namespace")
