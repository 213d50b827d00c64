// SPDX-License-Identifier: BSD-3-Clause
/*
 * The checks and targets of tests/async_kernel_common.h, compiled once into the static test
 * library (tests/meson.build) that test_io_uring, test_libaio and the guest's test_uring_cmd
 * link.
 */
#include "async_kernel_common.h"

double
akt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int
akt_drain(struct xnvme_queue *q)
{
	double end = akt_now() + AKT_DEADLINE_S;

	while (xnvme_queue_get_outstanding(q)) {
		int ret = xnvme_queue_poke(q, 0);

		if (ret < 0) {
			return ret;
		}
		if (akt_now() > end) {
			return -ETIMEDOUT;
		}
	}
	return 0;
}

void
akt_fill(uint8_t *buf, size_t nbytes, uint64_t pos, uint32_t seed)
{
	for (size_t i = 0; i < nbytes; ++i) {
		uint64_t x = pos + i;

		buf[i] = (uint8_t)((x * 2654435761u + seed + (x >> 9) * 7) >> 3);
	}
}

void
akt_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct akt_rec *r = arg;

	r->calls++;
	r->status = xnvme_cmd_ctx_cpl_status(ctx);
	r->sct = (uint8_t)ctx->cpl.status.sct;
	r->sc = (uint8_t)ctx->cpl.status.sc;
	r->result = ctx->cpl.result;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

void
akt_prep(struct xnvme_cmd_ctx *ctx, uint8_t opc, uint64_t slba, uint32_t nlb0, struct akt_rec *r)
{
	ctx->cmd.common.opcode = opc;
	ctx->cmd.common.nsid = xnvme_dev_get_nsid(ctx->dev);
	ctx->cmd.nvm.slba = slba;
	ctx->cmd.nvm.nlb = (uint16_t)nlb0;
	ctx->async.cb_arg = r;
}

struct xnvme_dev *
akt_open(struct akt *t, struct xnvme_opts *extra)
{
	struct xnvme_opts opts = xnvme_opts_default();

	if (extra) {
		opts = *extra;
	}
	opts.async = t->mech;
	opts.direct = t->direct;
	return xnvme_dev_open(t->uri, &opts);
}

void
akt_rw_qd(struct akt *t, uint16_t qd, uint64_t slba, uint32_t ncmd, uint32_t seed)
{
	struct xnvme_queue *q = NULL;
	struct akt_rec *recs = calloc(ncmd, sizeof(*recs));
	uint64_t *lbas = calloc(ncmd, sizeof(*lbas));
	uint32_t *nlbs = calloc(ncmd, sizeof(*nlbs));
	uint64_t total = 0;
	uint8_t *wbuf, *rbuf;
	int err;

	for (uint32_t i = 0; i < ncmd; ++i) {
		nlbs[i] = 1 + (i * 7 + seed) % 4;
		lbas[i] = slba + total;
		total += nlbs[i];
	}
	wbuf = xnvme_buf_alloc(t->dev, total * t->lba);
	rbuf = xnvme_buf_alloc(t->dev, total * t->lba);
	ACHECK(t, wbuf && rbuf && recs, "alloc");
	if (!wbuf || !rbuf || !recs) {
		goto out;
	}
	akt_fill(wbuf, total * t->lba, slba * t->lba, seed);
	memset(rbuf, 0xA5, total * t->lba);

	err = xnvme_queue_init(t->dev, qd, t->qopts, &q);
	ACHECK(t, !err, "queue_init(%u): %d", qd, err);
	if (err) {
		goto out;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);

	for (int pass = 0; pass < 2; ++pass) {
		uint8_t opc = pass ? XNVME_SPEC_NVM_OPC_READ : XNVME_SPEC_NVM_OPC_WRITE;
		uint8_t *buf = pass ? rbuf : wbuf;
		double end = akt_now() + AKT_DEADLINE_S;

		memset(recs, 0, ncmd * sizeof(*recs));
		for (uint32_t i = 0; i < ncmd; ++i) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

			akt_prep(ctx, opc, lbas[i], nlbs[i] - 1, &recs[i]);
			for (;;) {
				err = xnvme_cmd_pass(ctx, buf + (lbas[i] - slba) * t->lba,
						     nlbs[i] * t->lba, NULL, 0);
				if (err != -EBUSY && err != -EAGAIN) {
					break;
				}
				err = xnvme_queue_poke(q, 0);
				if (err < 0) {
					ACHECK(t, err >= 0, "poke=%d", err);
					break;
				}
				if (akt_now() > end) {
					err = -ETIMEDOUT;
					break;
				}
			}
			ACHECK(t, !err, "submit %u: %d", i, err);
			if (err) {
				xnvme_queue_put_cmd_ctx(q, ctx);
				break;
			}
		}
		err = akt_drain(q);
		ACHECK(t, !err, "drain: %d", err);
		for (uint32_t i = 0; i < ncmd; ++i) {
			ACHECK(t,
			       recs[i].calls == 1 && !recs[i].status &&
				       recs[i].result ==
					       (t->passthru ? 0 : (uint64_t)nlbs[i] * t->lba),
			       "qd %u pass %d cmd %u: calls=%u status=%d sct=%u sc=%u result=%llu",
			       qd, pass, i, recs[i].calls, recs[i].status, recs[i].sct, recs[i].sc,
			       (unsigned long long)recs[i].result);
		}
	}
	ACHECK(t, !memcmp(wbuf, rbuf, total * t->lba), "qd %u: data mismatch", qd);
	ACHECK(t, xnvme_queue_term(q) == 0, "term");
out:
	xnvme_buf_free(t->dev, wbuf);
	xnvme_buf_free(t->dev, rbuf);
	free(recs);
	free(lbas);
	free(nlbs);
}

int
akt_one(struct akt *t, struct xnvme_queue *q, uint8_t opc, uint64_t slba, uint32_t nlb0, void *buf,
	size_t nbytes, struct akt_rec *r)
{
	struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);
	int err;

	memset(r, 0, sizeof(*r));
	akt_prep(ctx, opc, slba, nlb0, r);
	err = xnvme_cmd_pass(ctx, buf, nbytes, NULL, 0);
	if (err) {
		xnvme_queue_put_cmd_ctx(q, ctx);
		return err;
	}
	err = akt_drain(q);
	ACHECK(t, !err, "drain: %d", err);
	return 0;
}

int
akt_read_lba(struct akt *t, struct xnvme_queue *q, uint64_t slba, struct akt_rec *r)
{
	uint8_t *buf = xnvme_buf_alloc(t->dev, t->lba);
	int err = akt_one(t, q, XNVME_SPEC_NVM_OPC_READ, slba, 0, buf, t->lba, r);

	xnvme_buf_free(t->dev, buf);
	return err;
}

int
akt_read_lba_ok(struct akt *t, struct xnvme_queue *q, uint64_t slba)
{
	struct akt_rec r;
	int err = akt_read_lba(t, q, slba, &r);

	if (!err && (r.calls != 1 || r.status)) {
		err = -EIO;
	}
	return err;
}

static int
akt_onev(struct akt *t, struct xnvme_queue *q, uint8_t opc, uint64_t slba, uint32_t nlb0,
	 struct iovec *iov, size_t cnt, struct akt_rec *r)
{
	struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);
	size_t nbytes = 0;
	int err;

	for (size_t i = 0; i < cnt; ++i) {
		nbytes += iov[i].iov_len;
	}
	memset(r, 0, sizeof(*r));
	akt_prep(ctx, opc, slba, nlb0, r);
	err = xnvme_cmd_passv(ctx, iov, cnt, nbytes, NULL, 0, 0);
	if (err) {
		xnvme_queue_put_cmd_ctx(q, ctx);
		return err;
	}
	/* a short vector may go out of scope right after submission: scribble over it */
	if (cnt <= 8) {
		memset(iov, 0, cnt * sizeof(*iov));
	}
	err = akt_drain(q);
	ACHECK(t, !err, "drain: %d", err);
	return 0;
}

/* Vectors: 1, 3 and 12 segments, a vector longer than its command, flush, bad commands */
static void
akt_vectors_and_edges(struct akt *t, uint64_t slba)
{
	const uint32_t lba = t->lba;
	struct xnvme_queue *q;
	struct akt_rec r;
	struct iovec iov[16];
	uint8_t *wbuf = xnvme_buf_alloc(t->dev, 16 * lba);
	uint8_t *rbuf = xnvme_buf_alloc(t->dev, 20 * lba);
	uint8_t mbuf[64];
	int err;

	err = xnvme_queue_init(t->dev, 8, 0, &q);
	ACHECK(t, !err, "queue_init: %d", err);
	if (err) {
		goto out;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);
	akt_fill(wbuf, 16 * lba, slba * lba, 77);

	/* one segment */
	iov[0] = (struct iovec){wbuf, 4 * lba};
	err = akt_onev(t, q, XNVME_SPEC_NVM_OPC_WRITE, slba, 3, iov, 1, &r);
	ACHECK(t, !err && r.calls == 1 && !r.status && r.result == 4 * lba,
	       "1 seg: err=%d st=%d res=%llu", err, r.status, (unsigned long long)r.result);

	/* three segments, block-sized (O_DIRECT needs aligned segments) */
	iov[0] = (struct iovec){wbuf + 4 * lba, lba};
	iov[1] = (struct iovec){wbuf + 5 * lba, 2 * lba};
	iov[2] = (struct iovec){wbuf + 7 * lba, lba};
	err = akt_onev(t, q, XNVME_SPEC_NVM_OPC_WRITE, slba + 4, 3, iov, 3, &r);
	ACHECK(t, !err && r.calls == 1 && !r.status && r.result == 4 * lba,
	       "3 seg: err=%d st=%d sc=%u res=%llu", err, r.status, r.sc,
	       (unsigned long long)r.result);

	/* eight segments */
	for (int i = 0; i < 8; ++i) {
		iov[i] = (struct iovec){wbuf + (8 + i) * lba, lba};
	}
	err = akt_onev(t, q, XNVME_SPEC_NVM_OPC_WRITE, slba + 8, 7, iov, 8, &r);
	ACHECK(t, !err && !r.status && r.result == 8 * lba, "8 seg: err=%d st=%d", err, r.status);

	/* twelve segments: longer than the mechanisms' inline copies, used in place */
	memset(rbuf, 0, 20 * lba);
	for (int i = 0; i < 12; ++i) {
		iov[i] = (struct iovec){rbuf + i * lba, lba};
	}
	err = akt_onev(t, q, XNVME_SPEC_NVM_OPC_READ, slba, 11, iov, 12, &r);
	ACHECK(t, !err && !r.status && r.result == 12 * lba, "12 seg read: err=%d st=%d sc=%u", err,
	       r.status, r.sc);
	/* the rest through a vector longer than the command: 4 blocks asked, 6 offered */
	iov[0] = (struct iovec){rbuf + 12 * lba, 2 * lba};
	iov[1] = (struct iovec){rbuf + 14 * lba, 4 * lba};
	err = akt_onev(t, q, XNVME_SPEC_NVM_OPC_READ, slba + 12, 3, iov, 2, &r);
	ACHECK(t, !err && !r.status && r.result == 4 * lba, "trimmed vector: err=%d st=%d res=%llu",
	       err, r.status, (unsigned long long)r.result);
	for (int i = 16; i < 18; ++i) {
		ACHECK(t, rbuf[i * lba] == 0, "trimmed vector wrote beyond the command");
	}
	ACHECK(t, !memcmp(wbuf, rbuf, 16 * lba), "vector data mismatch");

	/* a vector shorter than its command: Invalid Field */
	iov[0] = (struct iovec){rbuf, lba};
	err = akt_onev(t, q, XNVME_SPEC_NVM_OPC_READ, slba, 1, iov, 1, &r);
	ACHECK(t, !err && r.calls == 1 && r.sct == 0 && r.sc == XNVME_STATUS_CODE_INVALID_FIELD,
	       "short vector: err=%d sct=%u sc=%u", err, r.sct, r.sc);
	/* and a buffer shorter than the command */
	err = akt_one(t, q, XNVME_SPEC_NVM_OPC_READ, slba, 3, rbuf, 2 * lba, &r);
	ACHECK(t, !err && r.calls == 1 && r.sct == 0 && r.sc == XNVME_STATUS_CODE_INVALID_FIELD,
	       "short buffer: err=%d sct=%u sc=%u", err, r.sct, r.sc);
	/* a larger buffer moves only what the command says */
	err = akt_one(t, q, XNVME_SPEC_NVM_OPC_READ, slba, 0, rbuf, 16 * lba, &r);
	ACHECK(t, !err && !r.status && r.result == lba, "big buffer: err=%d res=%llu", err,
	       (unsigned long long)r.result);

	/* flush, both opcodes; data pointers are ignored */
	err = akt_one(t, q, XNVME_SPEC_NVM_OPC_FLUSH, 0, 0, NULL, 0, &r);
	ACHECK(t, !err && r.calls == 1 && !r.status, "nvm flush: err=%d st=%d sc=%u", err, r.status,
	       r.sc);
	err = akt_one(t, q, XNVME_SPEC_FS_OPC_FLUSH, 0, 0, rbuf, lba, &r);
	ACHECK(t, !err && r.calls == 1 && !r.status, "fs flush: err=%d st=%d", err, r.status);
	iov[0] = (struct iovec){rbuf, lba};
	err = akt_onev(t, q, XNVME_SPEC_NVM_OPC_FLUSH, 0, 0, iov, 1, &r);
	ACHECK(t, !err && r.calls == 1 && !r.status, "flush via passv: err=%d", err);

	/* file opcodes: byte offsets and counts */
	err = akt_one(t, q, XNVME_SPEC_FS_OPC_READ, (slba + 2) * lba, 0, rbuf, 3 * lba, &r);
	ACHECK(t, !err && !r.status && r.result == 3 * lba, "fs read: err=%d res=%llu", err,
	       (unsigned long long)r.result);
	ACHECK(t, !memcmp(rbuf, wbuf + 2 * lba, 3 * lba), "fs read data");

	/* an opcode the mechanism does not carry completes with Invalid Command Opcode */
	err = akt_one(t, q, XNVME_SPEC_NVM_OPC_WRITE_ZEROES, slba, 0, NULL, 0, &r);
	ACHECK(t, !err && r.calls == 1 && r.status && r.sc == 0x01,
	       "write zeroes: err=%d calls=%u sc=%u", err, r.calls, r.sc);

	/* refused submissions leave the context with the caller and make no callback */
	{
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

		memset(&r, 0, sizeof(r));
		akt_prep(ctx, XNVME_SPEC_NVM_OPC_READ, slba, 0, &r);
		err = xnvme_cmd_pass(ctx, rbuf, lba, mbuf, sizeof(mbuf));
		ACHECK(t, err == -ENOTSUP, "metadata: %d", err);
		ACHECK(t, xnvme_queue_get_outstanding(q) == 0, "nothing outstanding");
		ACHECK(t, xnvme_queue_poke(q, 0) == 0 && r.calls == 0, "no callback");
		xnvme_queue_put_cmd_ctx(q, ctx);
	}
	ACHECK(t, xnvme_queue_term(q) == 0, "term");
out:
	xnvme_buf_free(t->dev, wbuf);
	xnvme_buf_free(t->dev, rbuf);
}

/* Regular files: reads across end of file are short successes */
static void
akt_short_eof(struct akt *t)
{
	struct xnvme_queue *q;
	struct akt_rec r;
	uint8_t *buf = xnvme_buf_alloc(t->dev, 8192);
	size_t fsize = 4096 + 1000;
	int fd, err;

	/* a separate small file, sized outside the library */
	char path[512];

	snprintf(path, sizeof(path), "%s.eof", t->uri);
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	ACHECK(t, fd >= 0 && !ftruncate(fd, (off_t)fsize), "eof file");
	if (fd >= 0) {
		close(fd);
	}
	{
		struct akt eof = *t;
		struct xnvme_dev *dev;

		eof.uri = path;
		dev = akt_open(&eof, NULL);
		ACHECK(t, dev, "open eof file: %d", errno);
		if (!dev) {
			goto out;
		}
		err = xnvme_queue_init(dev, 4, 0, &q);
		ACHECK(t, !err, "init: %d", err);
		if (!err) {
			xnvme_queue_set_cb(q, akt_cb, NULL);
			err = akt_one(t, q, XNVME_SPEC_FS_OPC_READ, 4096, 0, buf, 4096, &r);
			ACHECK(t, !err && r.calls == 1 && !r.status && r.result == 1000,
			       "fs read at eof: err=%d st=%d sc=%u res=%llu", err, r.status, r.sc,
			       (unsigned long long)r.result);
			/* NVM reads may cover the partial LBA at the end, nothing beyond it */
			err = akt_one(t, q, XNVME_SPEC_NVM_OPC_READ, 8, 1, buf, 1024, &r);
			ACHECK(t, !err && !r.status && r.result == 1000,
			       "nvm read of the partial last lba: st=%d sc=%u res=%llu", r.status,
			       r.sc, (unsigned long long)r.result);
			err = akt_one(t, q, XNVME_SPEC_NVM_OPC_READ, 8, 7, buf, 4096, &r);
			ACHECK(t, !err && r.status && r.sc == 0x80,
			       "nvm read across eof: LBA Out of Range: st=%d sc=%u", r.status,
			       r.sc);
			err = akt_one(t, q, XNVME_SPEC_NVM_OPC_READ, 16, 7, buf, 4096, &r);
			ACHECK(t, !err && r.status && r.sc == 0x80, "read past eof: sc=%u", r.sc);
			xnvme_queue_term(q);
		}
		xnvme_dev_close(dev);
	}
out:
	unlink(path);
	xnvme_buf_free(t->dev, buf);
}

void
akt_busy(struct akt *t, uint16_t cap, uint64_t slba)
{
	struct xnvme_cmd_ctx *ctxs[65];
	struct akt_rec recs[65];
	struct xnvme_queue *q;
	uint8_t *buf = xnvme_buf_alloc(t->dev, (size_t)(cap + 1) * t->lba);
	uint32_t reaped = 0, bad = 0;
	double end;
	int err;

	err = xnvme_queue_init(t->dev, cap, 0, &q);
	ACHECK(t, !err, "init(%u): %d", cap, err);
	if (err) {
		xnvme_buf_free(t->dev, buf);
		return;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);
	memset(recs, 0, sizeof(recs));
	for (uint32_t i = 0; i <= cap; ++i) {
		ctxs[i] = xnvme_queue_get_cmd_ctx(q);
		ACHECK(t, ctxs[i], "get %u", i);
		akt_prep(ctxs[i], XNVME_SPEC_NVM_OPC_READ, slba + i, 0, &recs[i]);
	}
	for (uint32_t i = 0; i < cap; ++i) {
		err = xnvme_cmd_pass(ctxs[i], buf + (size_t)i * t->lba, t->lba, NULL, 0);
		ACHECK(t, !err, "submit %u: %d", i, err);
	}
	err = xnvme_cmd_pass(ctxs[cap], buf + (size_t)cap * t->lba, t->lba, NULL, 0);
	ACHECK(t, err == -EBUSY, "one past capacity: %d", err);
	ACHECK(t, xnvme_queue_get_outstanding(q) == cap, "outstanding %u",
	       xnvme_queue_get_outstanding(q));
	/* reap one at a time */
	end = akt_now() + AKT_DEADLINE_S;
	while (xnvme_queue_get_outstanding(q) && akt_now() < end) {
		int n = xnvme_queue_poke(q, 1);

		bad += n != 0 && n != 1;
		reaped += n > 0 ? (uint32_t)n : 0;
	}
	ACHECK(t, reaped == cap && !bad, "reaped %u of %u, %u pokes not 0 or 1", reaped, cap, bad);
	for (uint32_t i = 0; i < cap; ++i) {
		ACHECK(t, recs[i].calls == 1 && !recs[i].status, "cmd %u calls=%u st=%d", i,
		       recs[i].calls, recs[i].status);
	}
	ACHECK(t, recs[cap].calls == 0, "refused one called back");
	/* the refused context submits fine now */
	err = xnvme_cmd_pass(ctxs[cap], buf, t->lba, NULL, 0);
	ACHECK(t, !err, "resubmit: %d", err);
	ACHECK(t, akt_drain(q) == 0 && recs[cap].calls == 1, "resubmitted one done");
	ACHECK(t, xnvme_queue_term(q) == 0, "term");
	xnvme_buf_free(t->dev, buf);
}

void
akt_cap1(struct akt *t, uint64_t slba, uint32_t n)
{
	struct xnvme_queue *q;
	struct akt_rec r;
	uint8_t *buf = xnvme_buf_alloc(t->dev, t->lba);
	uint32_t done = 0, bad = 0;
	double end = akt_now() + AKT_DEADLINE_S;
	int err;

	err = xnvme_queue_init(t->dev, 1, 0, &q);
	ACHECK(t, !err, "init(1): %d", err);
	if (err) {
		xnvme_buf_free(t->dev, buf);
		return;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);
	memset(&r, 0, sizeof(r));
	memset(buf, 0x5A, t->lba);
	for (uint32_t i = 0; i < n && akt_now() < end; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

		akt_prep(ctx, i & 1 ? XNVME_SPEC_NVM_OPC_READ : XNVME_SPEC_NVM_OPC_WRITE,
			 slba + i % 64, 0, &r);
		while ((err = xnvme_cmd_pass(ctx, buf, t->lba, NULL, 0)) == -EBUSY ||
		       err == -EAGAIN) {
			bad += xnvme_queue_poke(q, 1) < 0;
		}
		if (err) {
			xnvme_queue_put_cmd_ctx(q, ctx);
			break;
		}
		while (xnvme_queue_get_outstanding(q) && akt_now() < end) {
			int ret = xnvme_queue_poke(q, 1);

			bad += ret < 0;
			done += ret > 0 ? (uint32_t)ret : 0;
		}
	}
	ACHECK(t, !err && !bad && done == n && r.calls == n && !r.status,
	       "err=%d bad pokes=%u done=%u calls=%u status=%d", err, bad, done, r.calls, r.status);
	xnvme_queue_term(q);
	xnvme_buf_free(t->dev, buf);
}

/* One queue per thread on one handle */
struct akt_worker {
	struct akt *t;
	uint64_t slba;
	uint32_t seed;
};

static void *
akt_worker_main(void *arg)
{
	struct akt_worker *w = arg;

	akt_rw_qd(w->t, 8, w->slba, 64, w->seed);
	return NULL;
}

void
akt_threads(struct akt *t, uint64_t slba)
{
	pthread_t th[AKT_NTHREADS];
	struct akt_worker w[AKT_NTHREADS];

	for (int i = 0; i < AKT_NTHREADS; ++i) {
		w[i] = (struct akt_worker){
			.t = t, .slba = slba + (uint64_t)i * 256, .seed = 100 + i};
		ACHECK(t, !pthread_create(&th[i], NULL, akt_worker_main, &w[i]), "thread %d", i);
	}
	for (int i = 0; i < AKT_NTHREADS; ++i) {
		pthread_join(th[i], NULL);
	}
}

void
akt_completion_fd(struct akt *t, uint64_t slba)
{
	struct xnvme_queue *q;
	struct xnvme_cmd_ctx *ctx;
	struct akt_rec r = {0};
	uint8_t *buf = xnvme_buf_alloc(t->dev, t->lba);
	struct pollfd pfd;
	uint64_t cnt;
	int fd, err, ret;

	err = xnvme_queue_init(t->dev, 4, 0, &q);
	ACHECK(t, !err, "init: %d", err);
	if (err) {
		xnvme_buf_free(t->dev, buf);
		return;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);
	fd = xnvme_queue_get_completion_fd(q);
	ACHECK(t, fd >= 0, "completion fd: %d", fd);
	ACHECK(t, xnvme_queue_get_completion_fd(q) == fd, "same fd twice");
	if (fd < 0) {
		goto out;
	}
	pfd = (struct pollfd){.fd = fd, .events = POLLIN};
	ACHECK(t, poll(&pfd, 1, 0) == 0, "idle fd not readable");

	ctx = xnvme_queue_get_cmd_ctx(q);
	akt_prep(ctx, XNVME_SPEC_NVM_OPC_READ, slba, 0, &r);
	err = xnvme_cmd_pass(ctx, buf, t->lba, NULL, 0);
	ACHECK(t, !err, "submit: %d", err);
	/* batching mechanisms hand the command to the kernel in poke */
	ret = xnvme_queue_poke(q, 0);
	ACHECK(t, ret >= 0, "poke: %d", ret);
	if (!r.calls) {
		ret = poll(&pfd, 1, (int)(AKT_DEADLINE_S * 1000));
		ACHECK(t, ret == 1 && (pfd.revents & POLLIN), "fd readable: ret=%d", ret);
		ACHECK(t, read(fd, &cnt, sizeof(cnt)) == sizeof(cnt) && cnt >= 1, "counter");
	}
	ACHECK(t, akt_drain(q) == 0 && r.calls == 1 && !r.status, "done: calls=%u st=%d", r.calls,
	       r.status);
out:
	xnvme_queue_term(q);
	xnvme_buf_free(t->dev, buf);
}

/* A queue created on one thread and driven by another */
struct akt_handoff {
	struct akt *t;
	struct xnvme_queue *q;
	uint64_t slba;
	int err;
};

static void *
akt_handoff_main(void *arg)
{
	struct akt_handoff *h = arg;

	h->err = akt_read_lba_ok(h->t, h->q, h->slba);
	return NULL;
}

void
akt_term_inflight(struct akt *t, uint64_t slba)
{
	const size_t chunk = 128 * 1024, nchunk = 8;
	uint8_t *wbuf = xnvme_buf_alloc(t->dev, chunk * nchunk);
	uint8_t *rbuf = xnvme_buf_alloc(t->dev, chunk * nchunk);
	struct xnvme_cmd_ctx sctx = xnvme_cmd_ctx_from_dev(t->dev);
	struct akt_rec recs[8];
	struct xnvme_queue *q;
	int err;

	akt_fill(wbuf, chunk * nchunk, slba * t->lba, 61);
	for (size_t i = 0; i < nchunk; ++i) {
		/* chunks: passthrough transfers are bounded by MDTS */
		err = xnvme_nvm_write(&sctx, xnvme_dev_get_nsid(t->dev), slba + i * chunk / t->lba,
				      (uint16_t)(chunk / t->lba - 1), wbuf + i * chunk, NULL);
		ACHECK(t, !err, "sync write %zu: %d", i, err);
	}
	memset(rbuf, 0, chunk * nchunk);
	memset(recs, 0, sizeof(recs));

	err = xnvme_queue_init(t->dev, 8, 0, &q);
	ACHECK(t, !err, "init: %d", err);
	if (err) {
		goto out;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);
	for (size_t i = 0; i < nchunk; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

		akt_prep(ctx, XNVME_SPEC_NVM_OPC_READ, slba + i * chunk / t->lba,
			 (uint32_t)(chunk / t->lba - 1), &recs[i]);
		err = xnvme_cmd_pass(ctx, rbuf + i * chunk, chunk, NULL, 0);
		ACHECK(t, !err, "submit %zu: %d", i, err);
	}
	err = xnvme_queue_poke(q, 1); /* hands them to the kernel (batching) and reaps one */
	ACHECK(t, err >= 0, "poke: %d", err);
	ACHECK(t, xnvme_queue_term(q) == 0, "term with commands in flight");
	for (size_t i = 1; i < nchunk; ++i) {
		ACHECK(t, recs[i].calls <= 1, "no callbacks at term");
	}
	ACHECK(t, !memcmp(wbuf, rbuf, chunk * nchunk), "reads landed before term returned");
out:
	xnvme_buf_free(t->dev, wbuf);
	xnvme_buf_free(t->dev, rbuf);
}

void
akt_handoff(struct akt *t, uint64_t slba)
{
	struct akt_handoff h = {.t = t, .slba = slba};
	pthread_t th;
	int err = xnvme_queue_init(t->dev, 4, 0, &h.q);

	ACHECK(t, !err, "init: %d", err);
	if (!err) {
		xnvme_queue_set_cb(h.q, akt_cb, NULL);
		pthread_create(&th, NULL, akt_handoff_main, &h);
		pthread_join(th, NULL);
		ACHECK(t, !h.err, "queue used by a thread other than its creator: %d", h.err);
		xnvme_queue_term(h.q);
	}
}

void
akt_suite(struct akt *t, uint64_t slba)
{
	static const uint16_t qds[] = {1, 2, 3, 8, 16, 32, 64};

	for (size_t i = 0; i < sizeof(qds) / sizeof(qds[0]); ++i) {
		akt_rw_qd(t, qds[i], slba + i * 256, qds[i] < 8 ? 48 : 96, (uint32_t)i);
	}
	akt_vectors_and_edges(t, slba + 2048);
	akt_busy(t, 1, slba);
	akt_busy(t, 16, slba);
	akt_busy(t, 64, slba);
	akt_cap1(t, slba, 300);
	akt_threads(t, slba + 2048 + 64);
	akt_completion_fd(t, slba);
	akt_term_inflight(t, slba + 4096);
	if (t->is_file) {
		akt_short_eof(t);
	}
	akt_handoff(t, slba);
}

/* ---------------------------------------------------------------------------------------- */
/* Targets                                                                                    */
/* ---------------------------------------------------------------------------------------- */

int
akt_mkfile(const char *path, uint64_t nbytes)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	int err = 0;

	if (fd < 0) {
		return -errno;
	}
	if (ftruncate(fd, (off_t)nbytes)) {
		err = -errno;
	}
	close(fd);
	return err;
}

bool
akt_target_open(struct akt *t)
{
	const struct xnvme_geo *geo;

	t->dev = akt_open(t, NULL);
	if (!t->dev) {
		fprintf(stderr, "# %s/%s: open('%s') failed: %s\n", t->mech, t->name, t->uri,
			strerror(errno));
		return false;
	}
	geo = xnvme_dev_get_geo(t->dev);
	t->lba = geo->lba_nbytes;
	t->nlba = geo->tbytes / geo->lba_nbytes;
	return true;
}

static int akt_loop_holder = -1;

/*
 * Attaches `backing` to a loop device with direct I/O; writes its path into `dev` and returns
 * true, or false when loop devices are not available here (not root, no loop driver). The
 * device is set to autoclear and held open until akt_loop_detach(), so it goes away however
 * the program ends.
 */
static bool
akt_loop_attach(const char *backing, char *dev, size_t len)
{
	struct loop_info64 info;
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "losetup --direct-io=on --find --show '%s' 2>/dev/null",
		 backing);
	p = popen(cmd, "r");
	if (!p) {
		return false;
	}
	if (!fgets(dev, (int)len, p)) {
		pclose(p);
		return false;
	}
	pclose(p);
	dev[strcspn(dev, "\n")] = '\0';
	if (dev[0] != '/') {
		return false;
	}
	akt_loop_holder = open(dev, O_RDONLY | O_CLOEXEC);
	if (akt_loop_holder >= 0 && !ioctl(akt_loop_holder, LOOP_GET_STATUS64, &info)) {
		info.lo_flags |= LO_FLAGS_AUTOCLEAR;
		if (ioctl(akt_loop_holder, LOOP_SET_STATUS64, &info)) {
			fprintf(stderr, "# %s: no autoclear: %s\n", dev, strerror(errno));
		}
	}
	return true;
}

static void
akt_loop_detach(const char *dev)
{
	(void)dev;
	if (akt_loop_holder >= 0) {
		close(akt_loop_holder); /* autoclear: the last close detaches */
		akt_loop_holder = -1;
	}
}

void
akt_paths_init(struct akt_paths *p, const char *tag)
{
	const char *dir = getenv("XNVME_TEST_DIR");
	int pid = (int)getpid();

	if (!dir || !*dir) {
		dir = "/var/tmp";
	}
	snprintf(p->ext4, sizeof(p->ext4), "%s/xnvme-%s-%d.bin", dir, tag, pid);
	snprintf(p->ext4d, sizeof(p->ext4d), "%s/xnvme-%s-direct-%d.bin", dir, tag, pid);
	snprintf(p->shm, sizeof(p->shm), "/dev/shm/xnvme-%s-%d.bin", tag, pid);
	snprintf(p->backing, sizeof(p->backing), "%s/xnvme-%s-loop-%d.bin", dir, tag, pid);
}

void
akt_loop_run(const struct akt_paths *p, const char *mech, void (*run)(struct akt *t))
{
	char loopdev[64];

	if (!akt_mkfile(p->backing, AKT_FILE_NBYTES) &&
	    akt_loop_attach(p->backing, loopdev, sizeof(loopdev))) {
		struct akt t = {.name = "loop-dio", .uri = loopdev, .mech = mech, .direct = true};

		run(&t);
		akt_loop_detach(loopdev);
	} else {
		printf("# loop device part skipped: losetup not permitted here\n");
	}
	unlink(p->backing);
}
