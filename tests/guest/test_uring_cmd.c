// SPDX-License-Identifier: BSD-3-Clause
/*
 * Kernel-async mechanisms against a real NVMe driver: run inside the QEMU guest of
 * tests/qemu/rig.sh,
 *   tests/qemu/rig.sh run -- ./build/tests/guest/test_uring_cmd
 * Device paths come from the rig's environment (XNVME_QEMU_NVM_CHR/_BLK, NVM4K, PI, ZNS);
 * without them (not in the guest) the program exits 77.
 *
 * io_uring_cmd on the generic char devices of the 512 B and 4 KiB namespaces: the default
 * async mechanism there, write/read/verify at QD 1..64, vectors (copied and in place),
 * -EBUSY past capacity, capacity 1, one queue per thread, completion fd, term with commands in
 * flight, a queue driven by another thread, LBA Out of Range (sct 0, sc 0x80) for a read
 * beyond the namespace, Flush, Write Zeroes, DSM, IOPOLL (the rig gives the driver poll
 * queues) and SQPOLL; separate metadata on the PI namespace; Zone Append returning the
 * assigned LBA, zone management send and receive on the zoned namespace. io_uring and libaio
 * with O_DIRECT on the block device (IOPOLL must work there); io_uring_cmd refused on the
 * block device.
 * Exit: 0 pass, 1 fail, 77 skip.
 */
#include "async_kernel_common.h"

static const char *
env(const char *role, const char *kind)
{
	char name[64];
	const char *val;

	snprintf(name, sizeof(name), "XNVME_QEMU_%s_%s", role, kind);
	val = getenv(name);
	return val && *val ? val : NULL;
}

static bool
open_target(struct akt *t, struct xnvme_opts *opts)
{
	t->dev = akt_open(t, opts);
	if (!t->dev) {
		fprintf(stderr, "FAIL %s/%s: open('%s'): %s\n", t->mech, t->name, t->uri,
			strerror(errno));
		xnvme_test_nfail++;
		return false;
	}
	t->lba = xnvme_dev_get_geo(t->dev)->lba_nbytes;
	t->nlba = xnvme_dev_get_ns(t->dev)->nsze;
	return true;
}

/* One command through a queue of capacity 4, waited for */
static int
one_ctx(struct akt *t, struct xnvme_queue *q, struct akt_rec *r,
	int (*issue)(struct xnvme_cmd_ctx *ctx, void *arg), void *arg)
{
	struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);
	int err;

	memset(r, 0, sizeof(*r));
	ctx->async.cb_arg = r;
	err = issue(ctx, arg);
	if (err) {
		xnvme_queue_put_cmd_ctx(q, ctx);
		return err;
	}
	err = akt_drain(q);
	ACHECK(t, !err, "drain: %d", err);
	return 0;
}

struct vec_arg {
	struct akt *t;
	uint8_t opc;
	uint64_t slba;
	uint32_t nlb0;
	struct iovec *iov;
	size_t cnt;
};

static int
issue_vec(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct vec_arg *a = arg;
	size_t nbytes = 0;
	int err;

	for (size_t i = 0; i < a->cnt; ++i) {
		nbytes += a->iov[i].iov_len;
	}
	akt_prep(ctx, a->opc, a->slba, a->nlb0, ctx->async.cb_arg);
	err = xnvme_cmd_passv(ctx, a->iov, a->cnt, nbytes, NULL, 0, 0);
	if (!err && a->cnt <= 8) {
		memset(a->iov, 0, a->cnt * sizeof(*a->iov)); /* copied at submission */
	}
	return err;
}

static void
ucmd_vectors(struct akt *t, uint64_t slba)
{
	const uint32_t lba = t->lba;
	uint8_t *wbuf = xnvme_buf_alloc(t->dev, 16 * lba),
		*rbuf = xnvme_buf_alloc(t->dev, 16 * lba);
	struct iovec iov[12];
	struct vec_arg a = {.t = t, .iov = iov};
	struct xnvme_queue *q;
	struct akt_rec r;
	int err;

	err = xnvme_queue_init(t->dev, 4, 0, &q);
	ACHECK(t, !err, "init: %d", err);
	if (err) {
		goto out;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);
	akt_fill(wbuf, 16 * lba, slba * lba, 31);
	memset(rbuf, 0, 16 * lba);

	/* write 4 blocks from 3 segments, 12 blocks from 12 */
	iov[0] = (struct iovec){wbuf, lba};
	iov[1] = (struct iovec){wbuf + lba, 2 * lba};
	iov[2] = (struct iovec){wbuf + 3 * lba, lba};
	a = (struct vec_arg){t, XNVME_SPEC_NVM_OPC_WRITE, slba, 3, iov, 3};
	err = one_ctx(t, q, &r, issue_vec, &a);
	ACHECK(t, !err && r.calls == 1 && !r.status, "3-seg write: err=%d sct=%u sc=%u", err, r.sct,
	       r.sc);
	for (int i = 0; i < 12; ++i) {
		iov[i] = (struct iovec){wbuf + (4 + i) * lba, lba};
	}
	a = (struct vec_arg){t, XNVME_SPEC_NVM_OPC_WRITE, slba + 4, 11, iov, 12};
	err = one_ctx(t, q, &r, issue_vec, &a);
	ACHECK(t, !err && r.calls == 1 && !r.status, "12-seg write: err=%d sct=%u sc=%u", err,
	       r.sct, r.sc);

	/* read all 16 back through 2 segments */
	iov[0] = (struct iovec){rbuf, 5 * lba};
	iov[1] = (struct iovec){rbuf + 5 * lba, 11 * lba};
	a = (struct vec_arg){t, XNVME_SPEC_NVM_OPC_READ, slba, 15, iov, 2};
	err = one_ctx(t, q, &r, issue_vec, &a);
	ACHECK(t, !err && r.calls == 1 && !r.status, "2-seg read: err=%d sct=%u sc=%u", err, r.sct,
	       r.sc);
	ACHECK(t, !memcmp(wbuf, rbuf, 16 * lba), "vector data");
	xnvme_queue_term(q);
out:
	xnvme_buf_free(t->dev, wbuf);
	xnvme_buf_free(t->dev, rbuf);
}

struct nvm_arg {
	uint32_t nsid;
	uint64_t slba;
	uint16_t nlb;
	void *buf;
	void *meta;
	struct xnvme_spec_dsm_range *range;
};

static int
issue_read(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct nvm_arg *a = arg;

	return xnvme_nvm_read(ctx, a->nsid, a->slba, a->nlb, a->buf, a->meta);
}

static int
issue_write(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct nvm_arg *a = arg;

	return xnvme_nvm_write(ctx, a->nsid, a->slba, a->nlb, a->buf, a->meta);
}

static int
issue_flush(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct nvm_arg *a = arg;

	xnvme_prep_nvm(ctx, XNVME_SPEC_NVM_OPC_FLUSH, a->nsid, 0, 0);
	return xnvme_cmd_pass(ctx, NULL, 0, NULL, 0);
}

static int
issue_wzeroes(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct nvm_arg *a = arg;

	return xnvme_nvm_write_zeroes(ctx, a->nsid, a->slba, a->nlb);
}

static int
issue_dsm(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct nvm_arg *a = arg;

	return xnvme_nvm_dsm(ctx, a->nsid, a->range, 0, true, false, false);
}

/* Statuses and the no-data / payload-defined commands */
static void
ucmd_commands(struct akt *t)
{
	uint32_t nsid = xnvme_dev_get_nsid(t->dev);
	uint8_t *buf = xnvme_buf_alloc(t->dev, 8 * t->lba);
	struct xnvme_spec_dsm_range *range = xnvme_buf_alloc(t->dev, 4096);
	struct nvm_arg a = {.nsid = nsid, .buf = buf, .range = range};
	struct xnvme_queue *q;
	struct akt_rec r;
	int err;

	err = xnvme_queue_init(t->dev, 4, 0, &q);
	ACHECK(t, !err, "init: %d", err);
	if (err) {
		goto out;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);

	/* beyond the namespace: LBA Out of Range from the device */
	a.slba = t->nlba;
	a.nlb = 0;
	err = one_ctx(t, q, &r, issue_read, &a);
	ACHECK(t, !err && r.calls == 1 && r.sct == 0 && r.sc == 0x80,
	       "read beyond the namespace: err=%d sct=%u sc=0x%x", err, r.sct, r.sc);
	a.slba = t->nlba - 1;
	a.nlb = 1;
	err = one_ctx(t, q, &r, issue_read, &a);
	ACHECK(t, !err && r.sct == 0 && r.sc == 0x80, "read across the end: sct=%u sc=0x%x", r.sct,
	       r.sc);
	a.nlb = 0;
	err = one_ctx(t, q, &r, issue_read, &a);
	ACHECK(t, !err && !r.status, "read of the last LBA: sct=%u sc=0x%x", r.sct, r.sc);

	/* write, zero, check; deallocate; flush */
	akt_fill(buf, 8 * t->lba, 1, 5);
	a.slba = 64;
	a.nlb = 7;
	err = one_ctx(t, q, &r, issue_write, &a);
	ACHECK(t, !err && !r.status, "write: sct=%u sc=0x%x", r.sct, r.sc);
	err = one_ctx(t, q, &r, issue_wzeroes, &a);
	ACHECK(t, !err && r.calls == 1 && !r.status, "write zeroes: err=%d sct=%u sc=0x%x", err,
	       r.sct, r.sc);
	memset(buf, 0xEE, 8 * t->lba);
	err = one_ctx(t, q, &r, issue_read, &a);
	ACHECK(t, !err && !r.status && buf[0] == 0 && buf[8 * t->lba - 1] == 0, "zeroes read back");

	memset(range, 0, 4096);
	range[0].slba = 64;
	range[0].llb = 8;
	err = one_ctx(t, q, &r, issue_dsm, &a);
	ACHECK(t, !err && r.calls == 1 && !r.status, "dsm: err=%d sct=%u sc=0x%x", err, r.sct,
	       r.sc);

	err = one_ctx(t, q, &r, issue_flush, &a);
	ACHECK(t, !err && r.calls == 1 && !r.status, "flush: err=%d sct=%u sc=0x%x", err, r.sct,
	       r.sc);
	xnvme_queue_term(q);
out:
	xnvme_buf_free(t->dev, buf);
	xnvme_buf_free(t->dev, range);
}

/* IOPOLL (needs the driver's poll queues) and SQPOLL, briefly */
static void
ucmd_polling(struct akt *t)
{
	struct akt p = *t;
	struct xnvme_opts opts = xnvme_opts_default();

	p.qopts = XNVME_QUEUE_IOPOLL;
	akt_rw_qd(&p, 1, 5000, 16, 41);
	akt_rw_qd(&p, 16, 5100, 64, 42);

	opts.poll_sq = 1;
	p.qopts = 0;
	p.dev = akt_open(t, &opts);
	ACHECK(t, p.dev, "open with poll_sq: %d", errno);
	if (p.dev) {
		akt_rw_qd(&p, 8, 5200, 32, 43);
		xnvme_dev_close(p.dev);
	}
}

static void
ucmd_target(const char *role, const char *chr)
{
	struct akt t = {.name = role, .uri = chr, .mech = "io_uring_cmd", .passthru = true};
	struct xnvme_dev *dflt;

	printf("# io_uring_cmd on %s (%s)\n", chr, role);
	dflt = xnvme_dev_open(chr, NULL);
	if (!dflt) {
		fprintf(stderr, "FAIL %s: default open: %s\n", chr, strerror(errno));
		xnvme_test_nfail++;
	} else {
		ACHECK(&t, !strcmp(xnvme_dev_get_opts(dflt)->async, "io_uring_cmd"),
		       "default async on a generic node: %s", xnvme_dev_get_opts(dflt)->async);
		xnvme_dev_close(dflt);
	}
	if (!open_target(&t, NULL)) {
		return;
	}
	ACHECK(&t, !strcmp(xnvme_dev_get_opts(t.dev)->async, "io_uring_cmd"), "reported async");

	{
		static const uint16_t qds[] = {1, 2, 4, 16, 64};

		for (size_t i = 0; i < sizeof(qds) / sizeof(qds[0]); ++i) {
			akt_rw_qd(&t, qds[i], i * 256, qds[i] < 8 ? 32 : 96, (uint32_t)i);
		}
	}
	ucmd_vectors(&t, 2048);
	akt_busy(&t, 16, 0);
	akt_cap1(&t, 0, 200);
	akt_threads(&t, 3000);
	akt_completion_fd(&t, 0);
	akt_term_inflight(&t, 4096);
	akt_handoff(&t, 0);
	ucmd_commands(&t);
	ucmd_polling(&t);
	xnvme_dev_close(t.dev);
}

/* Separate metadata: written and read back untouched (no PI checks requested) */
static void
ucmd_metadata(const char *chr)
{
	struct akt t = {.name = "PI", .uri = chr, .mech = "io_uring_cmd", .passthru = true};
	const struct xnvme_geo *geo;
	struct xnvme_queue *q;
	struct nvm_arg a;
	struct akt_rec r;
	uint8_t *data, *meta, *rmeta;
	int err;

	printf("# io_uring_cmd with metadata on %s\n", chr);
	if (!open_target(&t, NULL)) {
		return;
	}
	geo = xnvme_dev_get_geo(t.dev);
	data = xnvme_buf_alloc(t.dev, 2 * geo->lba_nbytes);
	meta = xnvme_buf_alloc(t.dev, 2 * geo->nbytes_oob);
	rmeta = xnvme_buf_alloc(t.dev, 2 * geo->nbytes_oob);
	akt_fill(data, 2 * geo->lba_nbytes, 0, 3);
	akt_fill(meta, 2 * geo->nbytes_oob, 0, 4);
	memset(rmeta, 0, 2 * geo->nbytes_oob);
	ACHECK(&t, geo->nbytes_oob == 8, "8 B metadata: %u", geo->nbytes_oob);

	err = xnvme_queue_init(t.dev, 4, 0, &q);
	ACHECK(&t, !err, "init: %d", err);
	if (!err) {
		xnvme_queue_set_cb(q, akt_cb, NULL);
		a = (struct nvm_arg){.nsid = xnvme_dev_get_nsid(t.dev),
				     .slba = 40,
				     .nlb = 1,
				     .buf = data,
				     .meta = meta};
		err = one_ctx(&t, q, &r, issue_write, &a);
		ACHECK(&t, !err && r.calls == 1 && !r.status, "write with metadata: sct=%u sc=0x%x",
		       r.sct, r.sc);
		a.meta = rmeta;
		memset(data, 0, 2 * geo->lba_nbytes);
		err = one_ctx(&t, q, &r, issue_read, &a);
		ACHECK(&t, !err && r.calls == 1 && !r.status, "read with metadata: sct=%u sc=0x%x",
		       r.sct, r.sc);
		ACHECK(&t, !memcmp(meta, rmeta, 2 * geo->nbytes_oob), "metadata round trip");
		xnvme_queue_term(q);
	}
	xnvme_buf_free(t.dev, data);
	xnvme_buf_free(t.dev, meta);
	xnvme_buf_free(t.dev, rmeta);
	xnvme_dev_close(t.dev);
}

struct znd_arg {
	uint32_t nsid;
	uint64_t zslba;
	enum xnvme_spec_znd_cmd_mgmt_send_action zsa;
	void *buf;
	uint32_t nbytes;
};

static int
issue_zsend(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct znd_arg *a = arg;

	return xnvme_znd_mgmt_send(ctx, a->nsid, a->zslba, false, a->zsa, 0, NULL);
}

static int
issue_zrecv(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct znd_arg *a = arg;

	return xnvme_znd_mgmt_recv(ctx, a->nsid, a->zslba,
				   XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT,
				   XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL, 0, a->buf, a->nbytes);
}

static int
issue_append(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct znd_arg *a = arg;

	return xnvme_znd_append(ctx, a->nsid, a->zslba, 0, a->buf, NULL);
}

/* The first zone's descriptor, through an async Zone Management Receive */
static bool
zone_descr(struct akt *t, struct xnvme_queue *q, struct znd_arg *a,
	   struct xnvme_spec_znd_descr *descr)
{
	struct akt_rec r;
	uint8_t *rep = a->buf;
	int err;

	memset(rep, 0xFF, a->nbytes);
	err = one_ctx(t, q, &r, issue_zrecv, a);
	ACHECK(t, !err && r.calls == 1 && !r.status, "zone report: err=%d sct=%u sc=0x%x", err,
	       r.sct, r.sc);
	if (err || r.status) {
		return false;
	}
	ACHECK(t, *(uint64_t *)rep >= 1, "zone report count %llu",
	       (unsigned long long)*(uint64_t *)rep);
	memcpy(descr, rep + sizeof(struct xnvme_spec_znd_report_hdr), sizeof(*descr));
	return true;
}

static void
ucmd_zoned(const char *chr)
{
	struct akt t = {.name = "ZNS", .uri = chr, .mech = "io_uring_cmd", .passthru = true};
	struct xnvme_spec_znd_descr d;
	struct xnvme_queue *q;
	struct znd_arg a;
	struct akt_rec r;
	uint8_t *data, *rep;
	uint64_t zslba;
	int err;

	printf("# io_uring_cmd on the zoned namespace %s\n", chr);
	if (!open_target(&t, NULL)) {
		return;
	}
	ACHECK(&t, xnvme_dev_get_geo(t.dev)->type == XNVME_GEO_ZONED, "zoned geometry");
	data = xnvme_buf_alloc(t.dev, t.lba);
	rep = xnvme_buf_alloc(t.dev, 4096);
	err = xnvme_queue_init(t.dev, 8, 0, &q);
	ACHECK(&t, !err, "init: %d", err);
	if (err) {
		goto out;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);
	zslba = xnvme_dev_get_geo(t.dev)->nsect; /* the second zone */
	a = (struct znd_arg){
		.nsid = xnvme_dev_get_nsid(t.dev), .zslba = zslba, .buf = rep, .nbytes = 4096};

	a.zsa = XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET;
	err = one_ctx(&t, q, &r, issue_zsend, &a);
	ACHECK(&t, !err && r.calls == 1 && !r.status, "zone reset: err=%d sct=%u sc=0x%x", err,
	       r.sct, r.sc);
	if (zone_descr(&t, q, &a, &d)) {
		ACHECK(&t, d.zslba == zslba && d.wp == zslba && d.zs == XNVME_SPEC_ZND_STATE_EMPTY,
		       "reset zone: zslba=%llu wp=%llu zs=0x%x", (unsigned long long)d.zslba,
		       (unsigned long long)d.wp, d.zs);
	}

	/* appends: each completion carries the LBA it was written to */
	a.buf = data;
	for (uint64_t i = 0; i < 3; ++i) {
		akt_fill(data, t.lba, i, 9);
		err = one_ctx(&t, q, &r, issue_append, &a);
		ACHECK(&t, !err && r.calls == 1 && !r.status && r.result == zslba + i,
		       "append %llu: err=%d sct=%u sc=0x%x result=%llu", (unsigned long long)i, err,
		       r.sct, r.sc, (unsigned long long)r.result);
	}
	a.buf = rep;
	if (zone_descr(&t, q, &a, &d)) {
		ACHECK(&t, d.wp == zslba + 3 && d.zs == XNVME_SPEC_ZND_STATE_IOPEN,
		       "after appends: wp=%llu zs=0x%x", (unsigned long long)d.wp, d.zs);
	}
	/* the appended data reads back */
	{
		struct nvm_arg na = {.nsid = a.nsid, .slba = zslba + 1, .nlb = 0, .buf = data};
		uint8_t *want = malloc(t.lba);

		akt_fill(want, t.lba, 1, 9);
		err = one_ctx(&t, q, &r, issue_read, &na);
		ACHECK(&t, !err && !r.status && !memcmp(want, data, t.lba), "appended data");
		free(want);
	}

	a.zsa = XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH;
	err = one_ctx(&t, q, &r, issue_zsend, &a);
	ACHECK(&t, !err && !r.status, "zone finish: sct=%u sc=0x%x", r.sct, r.sc);
	if (zone_descr(&t, q, &a, &d)) {
		ACHECK(&t, d.zs == XNVME_SPEC_ZND_STATE_FULL, "finished zone: zs=0x%x", d.zs);
	}
	a.zsa = XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET;
	err = one_ctx(&t, q, &r, issue_zsend, &a);
	ACHECK(&t, !err && !r.status, "zone reset again: sct=%u sc=0x%x", r.sct, r.sc);
	if (zone_descr(&t, q, &a, &d)) {
		ACHECK(&t, d.zs == XNVME_SPEC_ZND_STATE_EMPTY && d.wp == zslba,
		       "reset again: zs=0x%x", d.zs);
	}
	xnvme_queue_term(q);
out:
	xnvme_buf_free(t.dev, data);
	xnvme_buf_free(t.dev, rep);
	xnvme_dev_close(t.dev);
}

/* io_uring and libaio with O_DIRECT on the NVMe block device */
static void
block_target(const char *mech, const char *blk)
{
	struct akt t = {.name = "NVM-blk", .uri = blk, .mech = mech, .direct = true};

	printf("# %s on %s\n", mech, blk);
	if (!open_target(&t, NULL)) {
		return;
	}
	akt_suite(&t, 0);
	if (!strcmp(mech, "io_uring")) {
		/* polled completions work here: the driver has poll queues */
		struct akt p = t;

		p.qopts = XNVME_QUEUE_IOPOLL;
		akt_rw_qd(&p, 1, 6000, 16, 51);
		akt_rw_qd(&p, 32, 6100, 96, 52);
	}
	xnvme_dev_close(t.dev);
}

static void
ucmd_refused_on_block(const char *blk)
{
	struct akt t = {.name = "NVM-blk", .uri = blk, .mech = "io_uring_cmd"};
	struct xnvme_dev *dev = akt_open(&t, NULL);

	ACHECK(&t, !dev && errno == ENOTSUP, "io_uring_cmd on the block device: errno=%d", errno);
	xnvme_dev_close(dev);
}

int
main(void)
{
	const char *nvm = env("NVM", "CHR"), *nvm4k = env("NVM4K", "CHR");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!getenv("XNVME_QEMU_GUEST") || !nvm) {
		return xnvme_test_skip("not in the QEMU NVMe guest (tests/qemu/rig.sh run)");
	}
	ucmd_target("NVM", nvm);
	if (nvm4k) {
		ucmd_target("NVM4K", nvm4k);
	}
	if (env("PI", "CHR")) {
		ucmd_metadata(env("PI", "CHR"));
	}
	if (env("ZNS", "CHR")) {
		ucmd_zoned(env("ZNS", "CHR"));
	}
	if (env("NVM", "BLK")) {
		block_target("io_uring", env("NVM", "BLK"));
		block_target("libaio", env("NVM", "BLK"));
		ucmd_refused_on_block(env("NVM", "BLK"));
	}
	if (env("NVM4K", "BLK")) {
		block_target("io_uring", env("NVM4K", "BLK"));
	}
	return xnvme_test_result("test_uring_cmd");
}
