// SPDX-License-Identifier: BSD-3-Clause
/*
 * Linux backend against a real NVMe driver: run inside the QEMU guest of tests/qemu/rig.sh,
 *   tests/qemu/rig.sh run --kparam iomem=relaxed -- ./build/tests/guest/test_linux_nvme
 * Device paths come from the rig's environment (XNVME_QEMU_NVM_BLK, ..._CHR, NVM4K, PI, ZNS,
 * XNVME_QEMU_CTRLR); without them (not in the guest) the program exits 77.
 *
 * Covers: open defaults and identity of namespace block/char nodes and the controller node;
 * identify data compared with nvme-cli's JSON; sync "nvme" I/O from 1 LBA to MDTS, vectored,
 * metadata, Write Zeroes, DSM, statuses (LBA Out of Range with DNR) and errno folding (sct 7);
 * the block mechanisms on NVMe block devices; zoned namespaces through passthrough (report
 * with zone capacity below zone size, reset, write at and off the write pointer, append
 * returning the LBA, open/close/finish) and through the block layer (report capacity, state
 * transitions); enumeration; controller reset, namespace rescan, registers.
 * Exit: 0 pass, 1 fail, 77 skip.
 */
#include <errno.h>
#include <libxnvme.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "xnvme_test.h"

#define NSID_CTRLR 0xFFFFFFFFU

struct ns_role {
	const char *name; ///< NVM, NVM4K, PI, ZNS
	const char *blk;
	const char *chr;
	uint32_t nsid;
};

static struct ns_role nvm = {.name = "NVM"}, nvm4k = {.name = "NVM4K"}, pi = {.name = "PI"},
		      zns = {.name = "ZNS"};
static const char *ctrlr_path;

static void
role_env(struct ns_role *role)
{
	char key[64];
	const char *val;

	snprintf(key, sizeof(key), "XNVME_QEMU_%s_BLK", role->name);
	role->blk = getenv(key);
	snprintf(key, sizeof(key), "XNVME_QEMU_%s_CHR", role->name);
	role->chr = getenv(key);
	snprintf(key, sizeof(key), "XNVME_QEMU_%s_NSID", role->name);
	val = getenv(key);
	role->nsid = val ? (uint32_t)strtoul(val, NULL, 0) : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* nvme-cli JSON, searched ad hoc: "key" : value                                             */
/* ---------------------------------------------------------------------------------------- */

static char *
run_capture(const char *cmd)
{
	size_t len = 0, cap = 1 << 16;
	char *out = calloc(1, cap);
	FILE *pipe;
	size_t got;

	pipe = popen(cmd, "r");
	if (!pipe || !out) {
		free(out);
		if (pipe) {
			pclose(pipe);
		}
		return NULL;
	}
	while ((got = fread(out + len, 1, cap - len - 1, pipe)) > 0) {
		len += got;
		if (len == cap - 1) {
			char *grown = realloc(out, cap * 2);

			if (!grown) {
				break;
			}
			out = grown;
			cap *= 2;
		}
	}
	out[len] = '\0';
	if (pclose(pipe)) {
		free(out);
		return NULL;
	}
	return out;
}

static const char *
json_value(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	p = json ? strstr(json, pat) : NULL;
	if (!p) {
		return NULL;
	}
	p += strlen(pat);
	while (*p == ' ' || *p == ':' || *p == '\t') {
		p++;
	}
	return p;
}

static int
json_u64(const char *json, const char *key, uint64_t *val)
{
	const char *p = json_value(json, key);

	if (!p || *p < '0' || *p > '9') {
		return -1;
	}
	*val = strtoull(p, NULL, 10);
	return 0;
}

/* the string value without trailing blanks */
static int
json_str(const char *json, const char *key, char *buf, size_t len)
{
	const char *p = json_value(json, key);
	size_t n = 0;

	if (!p || *p != '"') {
		return -1;
	}
	for (p++; *p && *p != '"' && n + 1 < len; ++p) {
		buf[n++] = *p;
	}
	while (n && buf[n - 1] == ' ') {
		n--;
	}
	buf[n] = '\0';
	return 0;
}

static void
trimmed(char *dst, size_t len, const void *src, size_t src_len)
{
	size_t n = src_len < len - 1 ? src_len : len - 1;

	memcpy(dst, src, n);
	while (n && (dst[n - 1] == ' ' || dst[n - 1] == '\0')) {
		n--;
	}
	dst[n] = '\0';
}

/* ---------------------------------------------------------------------------------------- */
/* helpers                                                                                   */
/* ---------------------------------------------------------------------------------------- */

static void
pattern(uint8_t *buf, size_t nbytes, unsigned int seed)
{
	for (size_t i = 0; i < nbytes; ++i) {
		buf[i] = (uint8_t)((i * 29 + seed * 151 + (i >> 10)) & 0xFF);
	}
}

static void
check_status(const char *what, struct xnvme_cmd_ctx *ctx, int err, int sct, int sc)
{
	if (err != -EIO || ctx->cpl.status.sct != sct || ctx->cpl.status.sc != sc) {
		fprintf(stderr, "FAIL %s: err %d sct 0x%x sc 0x%x, want -EIO sct 0x%x sc 0x%x\n",
			what, err, ctx->cpl.status.sct, ctx->cpl.status.sc, sct, sc);
		xnvme_test_nfail++;
	}
	xnvme_test_ncheck++;
}

/* Write nlb LBAs at slba, read back, compare; returns 0 when all went well */
static int
wrv(struct xnvme_dev *dev, uint64_t slba, uint32_t nlb, unsigned int seed)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	size_t nbytes = (size_t)nlb * geo->lba_nbytes;
	uint8_t *wbuf = xnvme_buf_alloc(dev, nbytes), *rbuf = xnvme_buf_alloc(dev, nbytes);
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	struct xnvme_cmd_ctx ctx;
	int err = -ENOMEM, rc = 1;

	if (!wbuf || !rbuf) {
		goto out;
	}
	pattern(wbuf, nbytes, seed);
	memset(rbuf, 0x5A, nbytes);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write(&ctx, nsid, slba, (uint16_t)(nlb - 1), wbuf, NULL);
	if (err) {
		fprintf(stderr, "# write slba %lu nlb %u: err %d sct %u sc 0x%x\n",
			(unsigned long)slba, nlb, err, ctx.cpl.status.sct, ctx.cpl.status.sc);
		goto out;
	}
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, nsid, slba, (uint16_t)(nlb - 1), rbuf, NULL);
	if (err) {
		fprintf(stderr, "# read slba %lu nlb %u: err %d sct %u sc 0x%x\n",
			(unsigned long)slba, nlb, err, ctx.cpl.status.sct, ctx.cpl.status.sc);
		goto out;
	}
	rc = memcmp(wbuf, rbuf, nbytes) ? 1 : 0;
	if (rc) {
		fprintf(stderr, "# slba %lu nlb %u: data mismatch\n", (unsigned long)slba, nlb);
	}
out:
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
	return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* conventional namespaces                                                                   */
/* ---------------------------------------------------------------------------------------- */

static void
check_identify_vs_cli(struct xnvme_dev *dev, const char *uri)
{
	const struct xnvme_spec_idfy_ctrlr *ctrlr = xnvme_dev_get_ctrlr(dev);
	const struct xnvme_spec_idfy_ns *ns = xnvme_dev_get_ns(dev);
	char cmd[256], str[64], mine[64];
	uint64_t val;
	char *json;

	snprintf(cmd, sizeof(cmd), "nvme id-ctrl %s -o json 2>/dev/null", ctrlr_path);
	json = run_capture(cmd);
	CHECK(json != NULL);
	if (json) {
		CHECK(!json_str(json, "mn", str, sizeof(str)));
		trimmed(mine, sizeof(mine), ctrlr->mn, sizeof(ctrlr->mn));
		CHECK(!strcmp(str, mine));
		CHECK(!json_str(json, "sn", str, sizeof(str)));
		trimmed(mine, sizeof(mine), ctrlr->sn, sizeof(ctrlr->sn));
		CHECK(!strcmp(str, mine));
		CHECK(!json_u64(json, "mdts", &val));
		CHECK_EQ(val, ctrlr->mdts);
		CHECK(!json_u64(json, "vid", &val));
		CHECK_EQ(val, ctrlr->vid);
		free(json);
	}

	snprintf(cmd, sizeof(cmd), "nvme id-ns %s -o json 2>/dev/null", uri);
	json = run_capture(cmd);
	CHECK(json != NULL);
	if (json) {
		CHECK(!json_u64(json, "nsze", &val));
		CHECK_EQ(val, ns->nsze);
		CHECK(!json_u64(json, "ncap", &val));
		CHECK_EQ(val, ns->ncap);
		CHECK(!json_u64(json, "flbas", &val));
		CHECK_EQ(val, *(const uint8_t *)&ns->flbas);
		CHECK(!json_u64(json, "nlbaf", &val));
		CHECK_EQ(val, ns->nlbaf);
		free(json);
	}
}

static void
test_errno_folding(struct xnvme_dev *dev)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	int err;

	/* an unmapped user address: the kernel refuses with EFAULT, folded as sct 7 */
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, xnvme_dev_get_nsid(dev), 0, 0);
	err = xnvme_cmd_pass(&ctx, (void *)(uintptr_t)0x1000, 4096, NULL, 0);
	CHECK_EQ(err, -EFAULT);
	CHECK_EQ(ctx.cpl.status.sct, 7);
	CHECK_EQ(ctx.cpl.status.sc, EFAULT);

	/* a read without a buffer never reaches the device */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, xnvme_dev_get_nsid(dev), 0, 0);
	err = xnvme_cmd_pass(&ctx, NULL, 0, NULL, 0);
	CHECK_EQ(err, -EFAULT);
	CHECK_EQ(ctx.cpl.status.sct, 7);
}

static void
test_vectored(struct xnvme_dev *dev, unsigned int seed)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	size_t lba = geo->lba_nbytes, total = 8 * lba, seg[3] = {lba, 4 * lba, 3 * lba};
	uint8_t *wbuf = xnvme_buf_alloc(dev, total), *rbuf = xnvme_buf_alloc(dev, total);
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	struct xnvme_cmd_ctx ctx;
	struct iovec iov[3];
	int err;

	CHECK(wbuf && rbuf);
	if (!wbuf || !rbuf) {
		goto out;
	}
	pattern(wbuf, total, seed);
	memset(rbuf, 0, total);
	xnvme_test_iov(iov, wbuf, seg, 3);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_WRITE, nsid, 64, 7);
	err = xnvme_cmd_pass_iov(&ctx, iov, 3, total, NULL, 0);
	CHECK_EQ(err, 0);
	xnvme_test_iov(iov, rbuf, seg, 3);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, nsid, 64, 7);
	err = xnvme_cmd_passv(&ctx, iov, 3, total, NULL, 0, 0);
	CHECK_EQ(err, 0);
	CHECK(!memcmp(wbuf, rbuf, total));
out:
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
}

static void
test_zeroes_dsm(struct xnvme_dev *dev, unsigned int seed)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	size_t nbytes = 16 * geo->lba_nbytes;
	uint8_t *buf = xnvme_buf_alloc(dev, nbytes);
	struct xnvme_spec_dsm_range *range = xnvme_buf_alloc(dev, sizeof(*range));
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	struct xnvme_cmd_ctx ctx;
	struct iovec iov;

	CHECK(buf && range);
	if (!buf || !range) {
		goto out;
	}
	CHECK_EQ(wrv(dev, 200, 16, seed), 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_write_zeroes(&ctx, nsid, 200, 15), 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	memset(buf, 0x5A, nbytes);
	CHECK_EQ(xnvme_nvm_read(&ctx, nsid, 200, 15, buf, NULL), 0);
	CHECK(xnvme_test_all_zero(buf, nbytes));

	/* DSM the way fio submits it: passv with the LBA range size as dvec_nbytes */
	CHECK_EQ(wrv(dev, 400, 16, seed + 1), 0);
	memset(range, 0, sizeof(*range));
	range->slba = 400;
	range->llb = 16;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	ctx.cmd.common.opcode = XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT;
	ctx.cmd.common.nsid = nsid;
	ctx.cmd.dsm.nr = 0;
	ctx.cmd.dsm.ad = 1;
	iov.iov_base = range;
	iov.iov_len = sizeof(*range);
	CHECK_EQ(xnvme_cmd_passv(&ctx, &iov, 1, nbytes, NULL, 0, 0), 0);
	CHECK_EQ(xnvme_cmd_ctx_cpl_status(&ctx), 0);
out:
	xnvme_buf_free(dev, buf);
	xnvme_buf_free(dev, range);
}

static void
queue_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	int *ndone = arg;

	*ndone += xnvme_cmd_ctx_cpl_status(ctx) ? 1000 : 1;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* Write and read back through a queue of the handle's default async mechanism */
static void
test_queue(struct xnvme_dev *dev, unsigned int seed)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	size_t nbytes = 4 * geo->lba_nbytes;
	uint8_t *wbuf = xnvme_buf_alloc(dev, nbytes), *rbuf = xnvme_buf_alloc(dev, nbytes);
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	struct xnvme_queue *queue = NULL;
	struct xnvme_cmd_ctx *ctx;
	int ndone = 0;

	CHECK(wbuf && rbuf);
	CHECK_EQ(xnvme_queue_init(dev, 8, 0, &queue), 0);
	if (!queue || !wbuf || !rbuf) {
		goto out;
	}
	pattern(wbuf, nbytes, seed);
	memset(rbuf, 0, nbytes);
	xnvme_queue_set_cb(queue, queue_cb, &ndone);
	ctx = xnvme_queue_get_cmd_ctx(queue);
	CHECK_EQ(xnvme_nvm_write(ctx, nsid, 500, 3, wbuf, NULL), 0);
	CHECK_EQ(xnvme_queue_drain(queue), 1);
	ctx = xnvme_queue_get_cmd_ctx(queue);
	CHECK_EQ(xnvme_nvm_read(ctx, nsid, 500, 3, rbuf, NULL), 0);
	CHECK_EQ(xnvme_queue_drain(queue), 1);
	CHECK_EQ(ndone, 2);
	CHECK(!memcmp(wbuf, rbuf, nbytes));
out:
	xnvme_queue_term(queue);
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
}

static void
test_conventional(const struct ns_role *role, const char *uri, bool chr)
{
	const struct xnvme_geo *geo;
	const struct xnvme_opts *opts;
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *dev;
	uint32_t max_nlb;
	uint8_t *buf;
	int err;

	printf("# %s %s\n", role->name, uri);
	dev = xnvme_dev_open(uri, NULL);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	opts = xnvme_dev_get_opts(dev);
	CHECK(!strcmp(opts->admin, "nvme"));
	CHECK(!strcmp(opts->sync, "nvme"));
	CHECK(!strcmp(opts->async, "emu") || (chr && !strcmp(opts->async, "io_uring_cmd")));
	CHECK_EQ(xnvme_dev_get_ident(dev)->dtype, 2);
	CHECK_EQ(xnvme_dev_get_nsid(dev), role->nsid);
	CHECK_EQ(xnvme_dev_get_csi(dev), XNVME_SPEC_CSI_NVM);
	check_identify_vs_cli(dev, uri);

	geo = xnvme_dev_get_geo(dev);
	CHECK_EQ(geo->type, XNVME_GEO_CONVENTIONAL);
	CHECK_EQ(geo->nsect, xnvme_dev_get_ns(dev)->nsze);
	CHECK(geo->mdts_nbytes > 0 && geo->mdts_nbytes <= (512 << 10));
	CHECK_EQ(geo->mdts_nbytes % geo->lba_nbytes, 0);
	printf("#   lba %u, mdts_nbytes %u, async %s\n", geo->lba_nbytes, geo->mdts_nbytes,
	       opts->async);

	/* 1 LBA, a few, and the largest transfer the geometry promises */
	max_nlb = geo->mdts_nbytes / geo->lba_nbytes;
	CHECK_EQ(wrv(dev, 0, 1, 1), 0);
	CHECK_EQ(wrv(dev, 17, 8, 2), 0);
	CHECK_EQ(wrv(dev, 1024, max_nlb, 3), 0);
	CHECK_EQ(wrv(dev, geo->nsect - max_nlb, max_nlb, 4), 0);
	test_vectored(dev, 5);
	test_zeroes_dsm(dev, 6);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_FLUSH, role->nsid, 0, 0);
	CHECK_EQ(xnvme_cmd_pass(&ctx, NULL, 0, NULL, 0), 0);

	/* beyond the namespace: the device's LBA Out of Range, with DNR */
	buf = xnvme_buf_alloc(dev, 2 * geo->lba_nbytes);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, role->nsid, geo->nsect - 1, 1, buf, NULL);
	check_status("read beyond the namespace", &ctx, err, 0, 0x80);
	CHECK_EQ(ctx.cpl.status.dnr, 1);
	xnvme_buf_free(dev, buf);

	/* admin passthrough: number of queues */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_adm_gfeat(&ctx, 0, XNVME_SPEC_FEAT_NQUEUES, 0, NULL, 0), 0);
	CHECK(ctx.cpl.cdw0 != 0);

	test_errno_folding(dev);
	test_queue(dev, 10);
	xnvme_dev_close(dev);

	/* other mechanisms on the same node */
	if (chr) {
		dev = xnvme_test_open_with(uri, NULL, "psync", NULL, 0);
		CHECK(dev == NULL && errno == ENOTSUP);
		xnvme_dev_close(dev);
		dev = xnvme_test_open_with(uri, NULL, "block", NULL, 0);
		CHECK(dev == NULL && errno == ENOTSUP);
		xnvme_dev_close(dev);
		/* O_DIRECT has no meaning for char nodes: visible fallback */
		dev = xnvme_test_open_with(uri, NULL, NULL, NULL, 1);
		CHECK(dev != NULL);
		if (dev) {
			CHECK_EQ(xnvme_dev_get_opts(dev)->direct, 0);
			CHECK_EQ(wrv(dev, 8, 1, 7), 0);
			xnvme_dev_close(dev);
		}
	} else {
		dev = xnvme_test_open_with(uri, NULL, "psync", NULL, 1);
		CHECK(dev != NULL);
		if (dev) {
			CHECK(!strcmp(xnvme_dev_get_opts(dev)->admin, "nvme"));
			CHECK_EQ(wrv(dev, 8, 4, 8), 0);
			xnvme_dev_close(dev);
		}
		dev = xnvme_test_open_with(uri, "block", "block", NULL, 1);
		CHECK(dev != NULL);
		if (dev) {
			geo = xnvme_dev_get_geo(dev);
			CHECK_EQ(xnvme_dev_get_ident(dev)->dtype, 2);
			CHECK_EQ(geo->nsect, xnvme_dev_get_ns(dev)->nsze);
			CHECK_EQ(wrv(dev, 8, 16, 9), 0);
			buf = xnvme_buf_alloc(dev, 2 * geo->lba_nbytes);
			ctx = xnvme_cmd_ctx_from_dev(dev);
			err = xnvme_nvm_read(&ctx, role->nsid, geo->nsect - 1, 1, buf, NULL);
			check_status("block: read beyond the end", &ctx, err, 0, 0x80);
			xnvme_buf_free(dev, buf);
			xnvme_dev_close(dev);
		}
	}
}

/* Separate metadata through the passthrough ioctl: written and read back as is */
static void
test_metadata(void)
{
	struct xnvme_cmd_ctx ctx;
	const struct xnvme_geo *geo;
	struct xnvme_dev *dev;
	uint8_t *data, *meta, *rmeta;

	if (!pi.chr) {
		return;
	}
	printf("# PI %s\n", pi.chr);
	dev = xnvme_dev_open(pi.chr, NULL);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	geo = xnvme_dev_get_geo(dev);
	CHECK_EQ(geo->nbytes_oob, 8);
	CHECK_EQ(geo->pi_type, 1);
	data = xnvme_buf_alloc(dev, 2 * geo->lba_nbytes);
	meta = xnvme_buf_alloc(dev, 2 * geo->nbytes_oob);
	rmeta = xnvme_buf_alloc(dev, 2 * geo->nbytes_oob);
	pattern(data, 2 * geo->lba_nbytes, 21);
	pattern(meta, 2 * geo->nbytes_oob, 22);
	memset(rmeta, 0, 2 * geo->nbytes_oob);

	/* no PI checks requested (PRCHK 0, PRACT 0): the metadata travels untouched */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_write(&ctx, pi.nsid, 32, 1, data, meta), 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_read(&ctx, pi.nsid, 32, 1, data, rmeta), 0);
	CHECK(!memcmp(meta, rmeta, 2 * geo->nbytes_oob));

	xnvme_buf_free(dev, data);
	xnvme_buf_free(dev, meta);
	xnvme_buf_free(dev, rmeta);
	xnvme_dev_close(dev);
}

/* ---------------------------------------------------------------------------------------- */
/* zoned namespace                                                                           */
/* ---------------------------------------------------------------------------------------- */

static int
zone_descr(struct xnvme_dev *dev, uint64_t zslba, struct xnvme_spec_znd_descr *d)
{
	int err = xnvme_znd_descr_from_dev(dev, zslba, d);

	if (err) {
		fprintf(stderr, "# zone report of %lu: %d\n", (unsigned long)zslba, err);
	}
	return err;
}

static int
zone_send(struct xnvme_dev *dev, uint64_t zslba, bool all, uint8_t zsa)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	int err;

	err = xnvme_znd_mgmt_send(&ctx, xnvme_dev_get_nsid(dev), zslba, all, zsa, 0, NULL);
	if (err) {
		fprintf(stderr, "# zone send 0x%x on %lu: err %d sct %u sc 0x%x\n", zsa,
			(unsigned long)zslba, err, ctx.cpl.status.sct, ctx.cpl.status.sc);
	}
	return err;
}

/* Report of the whole namespace: every zone sequential, capacity 12 MiB of 16 MiB */
static void
check_report(struct xnvme_dev *dev, uint64_t zsze, uint64_t zcap)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	struct xnvme_znd_report *report;
	uint32_t bad = 0;

	report = xnvme_znd_report_from_dev(dev, 0, 0, 0);
	CHECK(report != NULL);
	if (!report) {
		return;
	}
	CHECK_EQ(report->nentries, geo->nzone);
	for (uint32_t i = 0; i < report->nentries; ++i) {
		struct xnvme_spec_znd_descr *d = XNVME_ZND_REPORT_DESCR(report, i);

		bad += d->zt != XNVME_SPEC_ZND_TYPE_SEQWR || d->zslba != i * zsze ||
		       d->zcap != zcap;
	}
	CHECK_EQ(bad, 0);
	xnvme_buf_virt_free(report);
}

static void
test_zoned_nvme(void)
{
	const struct xnvme_spec_znd_idfy_ns *zns_ns;
	const struct xnvme_geo *geo;
	struct xnvme_spec_znd_descr d;
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *dev;
	uint64_t zsze, zslba, zcap;
	uint8_t *buf, *rbuf;
	size_t lba;
	int err;

	printf("# ZNS %s (sync nvme)\n", zns.chr);
	dev = xnvme_dev_open(zns.chr, NULL);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	geo = xnvme_dev_get_geo(dev);
	CHECK_EQ(geo->type, XNVME_GEO_ZONED);
	CHECK_EQ(xnvme_dev_get_csi(dev), XNVME_SPEC_CSI_ZONED);
	lba = geo->lba_nbytes;
	zsze = (16ULL << 20) / lba;
	zcap = (12ULL << 20) / lba;
	CHECK_EQ(geo->nsect, zsze);
	zns_ns = xnvme_znd_dev_get_ns(dev);
	CHECK(zns_ns != NULL);
	if (zns_ns) {
		CHECK_EQ(zns_ns->mor, 7);
		CHECK_EQ(zns_ns->mar, 11);
	}
	check_report(dev, zsze, zcap);

	buf = xnvme_buf_alloc(dev, 8 * lba);
	rbuf = xnvme_buf_alloc(dev, 8 * lba);
	pattern(buf, 8 * lba, 31);
	zslba = zsze; /* zone 1 */

	CHECK_EQ(zone_send(dev, zslba, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET), 0);
	CHECK_EQ(zone_descr(dev, zslba, &d), 0);
	CHECK_EQ(d.zs, XNVME_SPEC_ZND_STATE_EMPTY);
	CHECK_EQ(d.wp, zslba);
	CHECK_EQ(d.zcap, zcap);

	/* at the write pointer, then off it: Zone Invalid Write (sct 1, sc 0xBC) */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_write(&ctx, zns.nsid, zslba, 7, buf, NULL), 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write(&ctx, zns.nsid, zslba + 100, 0, buf, NULL);
	check_status("write off the write pointer", &ctx, err, 1, 0xBC);
	CHECK_EQ(zone_descr(dev, zslba, &d), 0);
	CHECK_EQ(d.wp, zslba + 8);
	CHECK_EQ(d.zs, XNVME_SPEC_ZND_STATE_IOPEN);

	/* append: the assigned LBA comes back in the 64-bit result */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_znd_append(&ctx, zns.nsid, zslba, 3, buf, NULL);
	CHECK_EQ(err, 0);
	CHECK_EQ(ctx.cpl.result, zslba + 8);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_znd_append(&ctx, zns.nsid, zslba, 0, buf + 4 * lba, NULL);
	CHECK_EQ(err, 0);
	CHECK_EQ(ctx.cpl.result, zslba + 12);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_read(&ctx, zns.nsid, zslba + 8, 3, rbuf, NULL), 0);
	CHECK(!memcmp(buf, rbuf, 4 * lba));

	/* close, open, finish, reset */
	CHECK_EQ(zone_send(dev, zslba, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE), 0);
	CHECK_EQ(zone_descr(dev, zslba, &d), 0);
	CHECK_EQ(d.zs, XNVME_SPEC_ZND_STATE_CLOSED);
	CHECK_EQ(zone_send(dev, zslba, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN), 0);
	CHECK_EQ(zone_descr(dev, zslba, &d), 0);
	CHECK_EQ(d.zs, XNVME_SPEC_ZND_STATE_EOPEN);
	CHECK_EQ(zone_send(dev, zslba, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH), 0);
	CHECK_EQ(zone_descr(dev, zslba, &d), 0);
	CHECK_EQ(d.zs, XNVME_SPEC_ZND_STATE_FULL);
	CHECK_EQ(zone_send(dev, zslba, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET), 0);
	CHECK_EQ(zone_descr(dev, zslba, &d), 0);
	CHECK_EQ(d.zs, XNVME_SPEC_ZND_STATE_EMPTY);

	xnvme_buf_free(dev, buf);
	xnvme_buf_free(dev, rbuf);
	xnvme_dev_close(dev);
}

static void
test_zoned_block(void)
{
	const struct xnvme_spec_znd_idfy_ns *zns_ns;
	struct xnvme_spec_znd_descr d;
	const struct xnvme_geo *geo;
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *dev;
	uint64_t zsze, zcap, zslba, nzones = 0;
	uint8_t *buf;
	size_t lba;
	int err;

	printf("# ZNS %s (admin block, sync block)\n", zns.blk);
	dev = xnvme_test_open_with(zns.blk, "block", "block", NULL, 1);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	geo = xnvme_dev_get_geo(dev);
	CHECK_EQ(geo->type, XNVME_GEO_ZONED);
	lba = geo->lba_nbytes;
	zsze = (16ULL << 20) / lba;
	zcap = (12ULL << 20) / lba;
	CHECK_EQ(geo->nsect, zsze);
	zns_ns = xnvme_znd_dev_get_ns(dev);
	CHECK(zns_ns != NULL);
	if (zns_ns) {
		CHECK_EQ(zns_ns->mor, 7); /* /sys/block/X/queue/max_open_zones - 1 */
		CHECK_EQ(zns_ns->mar, 11);
	}
	/* capacity from the kernel's report (BLK_ZONE_REP_CAPACITY), not the zone size */
	check_report(dev, zsze, zcap);

	buf = xnvme_buf_alloc(dev, 8 * lba);
	pattern(buf, 8 * lba, 41);
	zslba = 2 * zsze;
	CHECK_EQ(zone_send(dev, zslba, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET), 0);
	CHECK_EQ(zone_send(dev, zslba, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN), 0);
	CHECK_EQ(zone_descr(dev, zslba, &d), 0);
	CHECK_EQ(d.zs, XNVME_SPEC_ZND_STATE_EOPEN);
	CHECK_EQ(d.zcap, zcap);
	CHECK_EQ(wrv(dev, zslba, 8, 42), 0);
	CHECK_EQ(zone_descr(dev, zslba, &d), 0);
	CHECK_EQ(d.wp, zslba + 8);
	CHECK_EQ(xnvme_znd_stat(dev, XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EOPEN, &nzones), 0);
	CHECK_EQ(nzones, 1);
	CHECK_EQ(zone_send(dev, zslba, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE), 0);
	CHECK_EQ(zone_descr(dev, zslba, &d), 0);
	CHECK_EQ(d.zs, XNVME_SPEC_ZND_STATE_CLOSED);
	CHECK_EQ(zone_send(dev, zslba, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH), 0);
	CHECK_EQ(zone_descr(dev, zslba, &d), 0);
	CHECK_EQ(d.zs, XNVME_SPEC_ZND_STATE_FULL);
	CHECK_EQ(xnvme_znd_stat(dev, XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_FULL, &nzones), 0);
	CHECK_EQ(nzones, 1);
	CHECK_EQ(zone_send(dev, zslba, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET), 0);
	CHECK_EQ(zone_descr(dev, zslba, &d), 0);
	CHECK_EQ(d.zs, XNVME_SPEC_ZND_STATE_EMPTY);
	CHECK_EQ(d.wp, zslba);

	/* Select All: close every open zone, then reset everything */
	CHECK_EQ(wrv(dev, zslba, 1, 43), 0);
	CHECK_EQ(wrv(dev, zslba + zsze, 1, 44), 0);
	CHECK_EQ(zone_send(dev, 0, true, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE), 0);
	CHECK_EQ(xnvme_znd_stat(dev, XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_CLOSED, &nzones), 0);
	CHECK_EQ(nzones, 2);
	CHECK_EQ(zone_send(dev, 0, true, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET), 0);
	CHECK_EQ(xnvme_znd_stat(dev, XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EMPTY, &nzones), 0);
	CHECK_EQ(nzones, geo->nzone);

	/* not a zone start: Invalid Field; append: Invalid Opcode; off the wp: the kernel's EIO */
	err = zone_send(dev, zslba + 1, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET);
	CHECK_EQ(err, -EIO);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_znd_append(&ctx, zns.nsid, zslba, 0, buf, NULL);
	check_status("block: append", &ctx, err, 0, 0x01);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write(&ctx, zns.nsid, zslba + 100, 0, buf, NULL);
	CHECK(err < 0);
	CHECK_EQ(ctx.cpl.status.sct, 7);

	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);

	/* the block sync mechanism under the default (passthrough) admin mechanism */
	dev = xnvme_test_open_with(zns.blk, NULL, "block", NULL, 1);
	CHECK(dev != NULL);
	if (dev) {
		CHECK(!strcmp(xnvme_dev_get_opts(dev)->admin, "nvme"));
		check_report(dev, zsze, zcap);
		xnvme_dev_close(dev);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* controller, enumeration, topology                                                         */
/* ---------------------------------------------------------------------------------------- */

static void
test_controller(void)
{
	const struct xnvme_spec_idfy_ctrlr *ctrlr;
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *dev;
	struct iovec iov[2];
	uint8_t *buf;
	int err;

	printf("# controller %s\n", ctrlr_path);
	dev = xnvme_dev_open(ctrlr_path, NULL);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	CHECK_EQ(xnvme_dev_get_ident(dev)->dtype, 1);
	CHECK_EQ(xnvme_dev_get_nsid(dev), NSID_CTRLR);
	CHECK(!strcmp(xnvme_dev_get_opts(dev)->admin, "nvme"));
	ctrlr = xnvme_dev_get_ctrlr(dev);
	CHECK(!memcmp(ctrlr->mn, "QEMU NVMe Ctrl", 14));
	CHECK(ctrlr->nn >= 4);
	CHECK_EQ(xnvme_dev_get_geo(dev)->type, XNVME_GEO_UNKNOWN);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_adm_gfeat(&ctx, 0, XNVME_SPEC_FEAT_NQUEUES, 0, NULL, 0), 0);

	/*
	 * I/O through the controller node exercises the run-time fallbacks: the node has no
	 * 64-bit (nor vectored) I/O ioctl (ENOTTY), and the 32-bit one refuses controllers with
	 * several namespaces (EINVAL), which comes back folded as sct 7.
	 */
	buf = xnvme_buf_alloc(dev, 4096);
	for (int round = 0; round < 2 && buf; ++round) {
		ctx = xnvme_cmd_ctx_from_dev(dev);
		xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, nvm.nsid, 0, 0);
		err = xnvme_cmd_pass(&ctx, buf, 512, NULL, 0);
		CHECK_EQ(err, -EINVAL);
		CHECK_EQ(ctx.cpl.status.sct, 7);
		CHECK_EQ(ctx.cpl.status.sc, EINVAL);

		iov[0].iov_base = buf;
		iov[0].iov_len = 256;
		iov[1].iov_base = buf + 256;
		iov[1].iov_len = 256;
		ctx = xnvme_cmd_ctx_from_dev(dev);
		xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, nvm.nsid, 0, 0);
		err = xnvme_cmd_pass_iov(&ctx, iov, 2, 512, NULL, 0);
		CHECK_EQ(err, -EINVAL);
		CHECK_EQ(ctx.cpl.status.sct, 7);
	}
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
}

static int nenum;
static int nenum_known;

static int
enum_cb(struct xnvme_dev *dev, void *arg)
{
	const char *uri = xnvme_dev_get_ident(dev)->uri;
	const char *const *known = arg;

	nenum++;
	for (; *known; ++known) {
		nenum_known += !strcmp(*known, uri);
	}
	return XNVME_ENUMERATE_DEV_CLOSE;
}

static void
test_enumerate(void)
{
	const char *known[] = {ctrlr_path, nvm.blk, nvm.chr, zns.blk, zns.chr, NULL};

	nenum = nenum_known = 0;
	CHECK_EQ(xnvme_enumerate(NULL, NULL, enum_cb, known), 0);
	printf("# enumerated %d devices\n", nenum);
	CHECK(nenum >= 9); /* one controller, four namespaces as block and char nodes */
	CHECK_EQ(nenum_known, 5);
}

static bool
cmdline_has(const char *word)
{
	char line[4096] = "";
	FILE *fp = fopen("/proc/cmdline", "r");

	if (fp) {
		if (!fgets(line, sizeof(line), fp)) {
			line[0] = '\0';
		}
		fclose(fp);
	}
	return strstr(line, word) != NULL;
}

static void
test_topology(void)
{
	struct xnvme_spec_ctrlr_bar *bar = calloc(1, sizeof(*bar));
	struct xnvme_dev *ctrl, *ns;
	int err;

	ctrl = xnvme_dev_open(ctrlr_path, NULL);
	ns = xnvme_dev_open(nvm.blk, NULL);
	CHECK(ctrl && ns && bar);
	if (!ctrl || !ns || !bar) {
		goto out;
	}

	/* registers, through the controller and through a namespace handle */
	err = xnvme_controller_get_registers(ns, bar);
	if (err && !cmdline_has("iomem=relaxed") && (err == -EINVAL || err == -EPERM)) {
		printf("# registers: %d (CONFIG_IO_STRICT_DEVMEM: boot with iomem=relaxed)\n", err);
	} else {
		CHECK_EQ(err, 0);
		CHECK(bar->cap != 0);
		CHECK_EQ(bar->vs, 0x10400);  /* QEMU's NVMe 1.4 controller */
		CHECK((bar->cc & 1) == 1);   /* enabled */
		CHECK((bar->csts & 1) == 1); /* ready */
		printf("# registers: cap 0x%lx vs 0x%x\n", (unsigned long)bar->cap, bar->vs);
		CHECK_EQ(xnvme_controller_get_registers(ctrl, bar), 0);
		/* without NSSRS in CAP the kernel refuses a subsystem reset */
		if (!((bar->cap >> 36) & 1)) {
			CHECK_EQ(xnvme_subsystem_reset(ctrl), -ENOTTY);
		}
	}

	CHECK_EQ(xnvme_namespace_rescan(ctrl), 0);
	CHECK_EQ(xnvme_namespace_rescan(ns), 0);
	CHECK_EQ(xnvme_controller_reset(ctrl), 0);
	CHECK_EQ(xnvme_controller_reset(ns), 0);
	/* the namespace handle keeps working across the resets */
	CHECK_EQ(wrv(ns, 77, 2, 51), 0);
out:
	free(bar);
	xnvme_dev_close(ns);
	xnvme_dev_close(ctrl);
}

int
main(void)
{
	ctrlr_path = getenv("XNVME_QEMU_CTRLR");
	role_env(&nvm);
	role_env(&nvm4k);
	role_env(&pi);
	role_env(&zns);
	if (!ctrlr_path || !nvm.blk || !nvm.chr || !zns.blk || !zns.chr) {
		printf("linux_nvme: not in the QEMU NVMe guest (XNVME_QEMU_* unset): skipped\n");
		return XNVME_TEST_SKIP;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	test_controller();
	test_conventional(&nvm, nvm.blk, false);
	test_conventional(&nvm, nvm.chr, true);
	if (nvm4k.blk && nvm4k.chr) {
		test_conventional(&nvm4k, nvm4k.blk, false);
		test_conventional(&nvm4k, nvm4k.chr, true);
	}
	test_metadata();
	test_zoned_nvme();
	test_zoned_block();
	test_enumerate();
	test_topology();
	return xnvme_test_result("linux_nvme");
}
