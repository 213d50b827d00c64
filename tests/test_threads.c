// SPDX-License-Identifier: BSD-3-Clause
/*
 * One device handle shared by many threads, the way clients use it, on the ramdisk "1GB" and a
 * regular file (or the --uri targets):
 *
 * - io: for every async mechanism of the build (emu, thrpool, nil, posix, io_uring, libaio,
 *   io_uring_cmd; one the target does not offer is skipped with a note, except the ones it
 *   must offer), 8 threads each with its own queue and 4 threads issuing synchronous commands,
 *   all at once on one handle. Every thread writes its own LBA range with a pattern encoding
 *   thread, round and LBA, reads it back and verifies it ("nil" moves no data: completions
 *   only).
 * - derive: xnvme_dev_derive_geo() called in a loop while 3 threads read the geometry and the
 *   identify data through the pointers the getters returned (as clients cache them) and one
 *   thread does verified synchronous I/O. No reader may ever see a field differ from its value
 *   (the old implementation zeroed the identify data and geometry while re-deriving them), no
 *   I/O may fail.
 * - grow (the temporary file only): the same while the file grows under the handle; readers see
 *   the size only grow, whole, and every other field unchanged.
 *
 *   test_threads [--uri URI ...] [--seconds S] [--rounds N]
 * Each io combination stops after N rounds (default 4) or S seconds (default 2), whichever is
 * first; derive and grow run for S / 4 seconds. Under valgrind: 1 round of a quarter of the
 * LBAs, S / 8 seconds and one worker thread per thrpool queue.
 * Exit: 0 pass, 1 fail, 77 skip.
 */
#include <inttypes.h>
#include <sys/stat.h>
#include "conc_common.h"

#define NQ_THREADS 8    ///< threads with a queue each
#define NSYNC_THREADS 4 ///< threads issuing synchronous commands
#define QDEPTH 8
#define SPAN 256 ///< LBAs of each thread's range

static double g_seconds = 2.0;
static int g_rounds = 4;
static uint64_t g_span = SPAN; ///< LBAs each thread moves per round (<= SPAN)

/* The word `w` of LBA `lba` written by thread `tid` in round `round` */
static inline uint64_t
pattern_word(unsigned tid, unsigned round, uint64_t lba, size_t w)
{
	return 0xC0ULL << 56 | (uint64_t)(tid & 0xFF) << 48 | (uint64_t)(round & 0xFFFF) << 32 |
	       (lba & 0xFFFFFFULL) << 8 | (w & 0xFF);
}

static void
pattern_fill(uint8_t *buf, uint32_t lba_nbytes, uint64_t slba, uint64_t nlbas, unsigned tid,
	     unsigned round)
{
	for (uint64_t l = 0; l < nlbas; ++l) {
		for (size_t w = 0; w < lba_nbytes / 8; ++w) {
			uint64_t v = pattern_word(tid, round, slba + l, w);

			memcpy(buf + l * lba_nbytes + w * 8, &v, 8);
		}
	}
}

/* Index of the first LBA of `buf` that does not hold its pattern, or nlbas; *got its word */
static uint64_t
pattern_check(const uint8_t *buf, uint32_t lba_nbytes, uint64_t slba, uint64_t nlbas, unsigned tid,
	      unsigned round, uint64_t *want, uint64_t *got)
{
	for (uint64_t l = 0; l < nlbas; ++l) {
		for (size_t w = 0; w < lba_nbytes / 8; ++w) {
			uint64_t v;

			*want = pattern_word(tid, round, slba + l, w);
			memcpy(&v, buf + l * lba_nbytes + w * 8, 8);
			if (v != *want) {
				*got = v;
				return l;
			}
		}
	}
	return nlbas;
}

struct io_run {
	const struct conc_target *t;
	const char *mech;
	struct xnvme_dev *dev;
	uint32_t lba_nbytes;
	uint32_t nsid;
	bool moves_data;
	double deadline;
};

struct io_thread {
	struct io_run *run;
	unsigned tid;
	pthread_t th;
	uint64_t verified; ///< bytes read back and verified
	unsigned rounds;
};

struct rec {
	unsigned calls;
	int status;
};

static void
cb_rec(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct rec *r = arg;

	r->calls++;
	r->status = xnvme_cmd_ctx_cpl_status(ctx);
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* Moves [slba, slba + g_span) between `buf` and the device on `q`, commands of 1..4 LBAs */
static int
queue_pass(struct io_thread *it, struct xnvme_queue *q, uint8_t opc, uint64_t slba, uint8_t *buf,
	   struct rec *recs)
{
	struct io_run *run = it->run;
	uint32_t ncmd = 0;
	int err = 0;

	memset(recs, 0, SPAN * sizeof(*recs));
	for (uint64_t off = 0; off < g_span && !err; ncmd++) {
		uint32_t nlb = 1 + (uint32_t)((off * 7 + it->tid + opc) % 4);
		struct xnvme_cmd_ctx *ctx;

		if (nlb > g_span - off) {
			nlb = (uint32_t)(g_span - off);
		}
		ctx = xnvme_queue_get_cmd_ctx(q);
		if (!ctx) {
			return -errno;
		}
		memset(&ctx->cmd, 0, sizeof(ctx->cmd));
		xnvme_prep_nvm(ctx, opc, run->nsid, slba + off, (uint16_t)(nlb - 1));
		ctx->async.cb_arg = &recs[ncmd];
		for (;;) {
			err = xnvme_cmd_pass(ctx, buf + off * run->lba_nbytes,
					     (size_t)nlb * run->lba_nbytes, NULL, 0);
			if (err != -EBUSY && err != -EAGAIN) {
				break;
			}
			err = xnvme_queue_poke(q, 0);
			if (err < 0) {
				break;
			}
		}
		if (err) {
			xnvme_queue_put_cmd_ctx(q, ctx);
		}
		off += nlb;
	}
	if (xnvme_queue_drain(q) < 0 && !err) {
		err = -EIO;
	}
	for (uint32_t i = 0; i < ncmd && !err; ++i) {
		if (recs[i].calls != 1 || recs[i].status) {
			CHECK_AT(run->t->label, run->mech, 0,
				 "thread %u cmd %u: calls=%u status=%d", it->tid, i, recs[i].calls,
				 recs[i].status);
			err = -EIO;
		}
	}
	return err;
}

/* Synchronous form of queue_pass() */
static int
sync_pass(struct io_thread *it, uint8_t opc, uint64_t slba, uint8_t *buf)
{
	struct io_run *run = it->run;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(run->dev);

	for (uint64_t off = 0; off < g_span;) {
		uint32_t nlb = 1 + (uint32_t)((off * 5 + it->tid + opc) % 4);
		void *dbuf;
		int err;

		if (nlb > g_span - off) {
			nlb = (uint32_t)(g_span - off);
		}
		dbuf = buf + off * run->lba_nbytes;
		err = opc == XNVME_SPEC_NVM_OPC_WRITE
			      ? xnvme_nvm_write(&ctx, run->nsid, slba + off, (uint16_t)(nlb - 1),
						dbuf, NULL)
			      : xnvme_nvm_read(&ctx, run->nsid, slba + off, (uint16_t)(nlb - 1),
					       dbuf, NULL);
		if (err) {
			return err;
		}
		off += nlb;
	}
	return 0;
}

static void *
io_main(void *arg)
{
	struct io_thread *it = arg;
	struct io_run *run = it->run;
	bool sync = it->tid >= NQ_THREADS;
	size_t nbytes = (size_t)g_span * run->lba_nbytes;
	uint64_t slba = (uint64_t)it->tid * SPAN;
	struct xnvme_queue *q = NULL;
	struct rec *recs = calloc(SPAN, sizeof(*recs));
	uint8_t *wbuf = xnvme_buf_alloc(run->dev, nbytes);
	uint8_t *rbuf = xnvme_buf_alloc(run->dev, nbytes);
	int err = 0;

	CHECK_AT(run->t->label, run->mech, recs && wbuf && rbuf, "thread %u: alloc", it->tid);
	if (!recs || !wbuf || !rbuf) {
		goto out;
	}
	if (!sync) {
		err = xnvme_queue_init(run->dev, QDEPTH, 0, &q);
		CHECK_AT(run->t->label, run->mech, !err, "thread %u: queue_init: %d", it->tid, err);
		if (err) {
			goto out;
		}
		xnvme_queue_set_cb(q, cb_rec, NULL);
	}
	for (unsigned round = 0; round < (unsigned)g_rounds; ++round) {
		uint64_t want = 0, got = 0, bad;

		if (round && conc_now() > run->deadline) {
			break;
		}
		pattern_fill(wbuf, run->lba_nbytes, slba, g_span, it->tid, round);
		memset(rbuf, 0xA5, nbytes);
		err = sync ? sync_pass(it, XNVME_SPEC_NVM_OPC_WRITE, slba, wbuf)
			   : queue_pass(it, q, XNVME_SPEC_NVM_OPC_WRITE, slba, wbuf, recs);
		CHECK_AT(run->t->label, run->mech, !err, "thread %u%s round %u write: %d", it->tid,
			 sync ? " (sync)" : "", round, err);
		if (!err) {
			err = sync ? sync_pass(it, XNVME_SPEC_NVM_OPC_READ, slba, rbuf)
				   : queue_pass(it, q, XNVME_SPEC_NVM_OPC_READ, slba, rbuf, recs);
			CHECK_AT(run->t->label, run->mech, !err, "thread %u%s round %u read: %d",
				 it->tid, sync ? " (sync)" : "", round, err);
		}
		if (err) {
			break;
		}
		it->rounds++;
		if (!sync && !run->moves_data) {
			continue;
		}
		bad = pattern_check(rbuf, run->lba_nbytes, slba, g_span, it->tid, round, &want,
				    &got);
		CHECK_AT(run->t->label, run->mech, bad == g_span,
			 "thread %u%s round %u: LBA %" PRIu64 " holds 0x%016" PRIx64
			 " (thread %u round %u LBA %" PRIu64 "), want 0x%016" PRIx64,
			 it->tid, sync ? " (sync)" : "", round, slba + bad, got,
			 (unsigned)(got >> 48 & 0xFF), (unsigned)(got >> 32 & 0xFFFF),
			 got >> 8 & 0xFFFFFF, want);
		if (bad != g_span) {
			break;
		}
		it->verified += nbytes;
	}
	if (q) {
		CHECK_AT(run->t->label, run->mech, xnvme_queue_term(q) == 0, "thread %u: term",
			 it->tid);
	}
out:
	xnvme_buf_free(run->dev, wbuf);
	xnvme_buf_free(run->dev, rbuf);
	free(recs);
	return NULL;
}

/* NQ_THREADS queue threads and NSYNC_THREADS sync threads on one handle of `t` with `mech` */
static void
io_phase(const struct conc_target *t, const char *mech)
{
	struct io_thread th[NQ_THREADS + NSYNC_THREADS];
	struct io_run run = {.t = t, .mech = mech};
	const struct xnvme_geo *geo;
	uint64_t verified = 0;
	unsigned rounds = 0;
	double start = conc_now();
	bool skipped;

	run.dev = conc_open(t, mech, &skipped);
	if (!run.dev) {
		return;
	}
	geo = xnvme_dev_get_geo(run.dev);
	run.lba_nbytes = geo->lba_nbytes;
	run.nsid = xnvme_dev_get_nsid(run.dev);
	run.moves_data = strcmp(mech, "nil") != 0;
	run.deadline = start + g_seconds;
	if (!run.lba_nbytes || geo->tbytes / run.lba_nbytes < (uint64_t)SPAN * 12 ||
	    run.lba_nbytes % 8) {
		CHECK_AT(t->label, mech, 0, "geometry: lba_nbytes=%u tbytes=%" PRIu64,
			 run.lba_nbytes, geo->tbytes);
		xnvme_dev_close(run.dev);
		return;
	}
	for (unsigned i = 0; i < NQ_THREADS + NSYNC_THREADS; ++i) {
		th[i] = (struct io_thread){.run = &run, .tid = i};
		if (pthread_create(&th[i].th, NULL, io_main, &th[i])) {
			CHECK_AT(t->label, mech, 0, "pthread_create %u", i);
			th[i].run = NULL;
		}
	}
	for (unsigned i = 0; i < NQ_THREADS + NSYNC_THREADS; ++i) {
		if (th[i].run) {
			pthread_join(th[i].th, NULL);
			verified += th[i].verified;
			rounds += th[i].rounds;
		}
	}
	printf("  - {phase: io, target: %s, mech: %s, threads: %d+%d, rounds: %u, "
	       "verified_kib: %" PRIu64 ", seconds: %.2f}\n",
	       t->label, mech, NQ_THREADS, NSYNC_THREADS, rounds, verified >> 10,
	       conc_now() - start);
	xnvme_dev_close(run.dev);
}

/* derive and grow: a deriving thread, reader threads and one I/O thread */
#define NREADERS 3

struct derive_run {
	const struct conc_target *t;
	const char *phase;
	struct xnvme_dev *dev;
	struct xnvme_geo want; ///< the geometry every reader must see (grow: but tbytes)
	uint64_t want_nsze;    ///< identify namespace nsze (not checked by grow)
	uint8_t want_csi;
	uint32_t want_nsid;
	uint64_t want_ssw;
	const char *grow_path; ///< grow: the file to extend
	int stop;              ///< atomic
	uint64_t nderive;
	uint64_t nderive_err;
	uint64_t final_size;
};

struct reader {
	struct derive_run *run;
	pthread_t th;
	uint64_t nread;
	uint64_t nbad;
	uint64_t nbad_geo; ///< of nbad: the geometry was wrong (else the identify data or a getter)
	char first_bad[160];
};

/* Compares the fields of the cached `geo` one by one, as client code reads them */
static const char *
geo_diff(const struct xnvme_geo *geo, const struct xnvme_geo *want, bool grow)
{
	if (geo->type != want->type) {
		return "type";
	}
	if (geo->npugrp != want->npugrp || geo->npunit != want->npunit ||
	    geo->nzone != want->nzone) {
		return "npugrp/npunit/nzone";
	}
	if (geo->nsect != want->nsect && !grow) {
		return "nsect";
	}
	if (geo->nbytes != want->nbytes) {
		return "nbytes";
	}
	if (geo->lba_nbytes != want->lba_nbytes || geo->nbytes_oob != want->nbytes_oob) {
		return "lba_nbytes/nbytes_oob";
	}
	if (!grow && geo->tbytes != want->tbytes) {
		return "tbytes";
	}
	if (geo->ssw != want->ssw) {
		return "ssw";
	}
	if (geo->mdts_nbytes != want->mdts_nbytes) {
		return "mdts_nbytes";
	}
	if (geo->lba_extended != want->lba_extended || geo->pi_type != want->pi_type) {
		return "lba_extended/pi_type";
	}
	return NULL;
}

static void *
reader_main(void *arg)
{
	struct reader *r = arg;
	struct derive_run *run = r->run;
	const struct xnvme_geo *cached = xnvme_dev_get_geo(run->dev);
	const struct xnvme_spec_idfy_ns *ns = xnvme_dev_get_ns(run->dev);
	bool grow = run->grow_path != NULL;
	uint64_t last_tbytes = 0;

	while (!__atomic_load_n(&run->stop, __ATOMIC_RELAXED)) {
		const struct xnvme_geo *geo = xnvme_dev_get_geo(run->dev);
		const char *bad = geo != cached ? "pointer" : geo_diff(cached, &run->want, grow);
		bool bad_geo;

		if (!bad && grow) {
			/* the one field that changes here: read it as a whole, once */
			uint64_t tbytes = __atomic_load_n(&cached->tbytes, __ATOMIC_RELAXED);

			if (tbytes < last_tbytes || tbytes < run->want.tbytes || tbytes % 4096) {
				bad = "tbytes (shrank or partial)";
			}
			last_tbytes = tbytes;
		}
		bad_geo = bad != NULL;
		if (!bad && !grow && ns->nsze != run->want_nsze) {
			bad = "identify namespace nsze";
		}
		if (!bad && xnvme_dev_get_csi(run->dev) != run->want_csi) {
			bad = "csi";
		}
		if (!bad && xnvme_dev_get_nsid(run->dev) != run->want_nsid) {
			bad = "nsid";
		}
		if (!bad && xnvme_dev_get_ssw(run->dev) != run->want_ssw) {
			bad = "ssw getter";
		}
		r->nread++;
		if (bad) {
			r->nbad_geo += bad_geo;
			if (!r->nbad++) {
				snprintf(r->first_bad, sizeof(r->first_bad),
					 "%s (lba_nbytes=%u tbytes=%" PRIu64 " ssw=%" PRIu64 ")",
					 bad, cached->lba_nbytes, cached->tbytes, cached->ssw);
			}
		}
	}
	return NULL;
}

static void *
deriver_main(void *arg)
{
	struct derive_run *run = arg;
	uint64_t size = run->want.tbytes;

	while (!__atomic_load_n(&run->stop, __ATOMIC_RELAXED)) {
		if (run->grow_path) {
			size += 4096;
			if (truncate(run->grow_path, (off_t)size)) {
				size -= 4096;
			}
		}
		run->nderive_err += xnvme_dev_derive_geo(run->dev) != 0;
		__atomic_fetch_add(&run->nderive, 1, __ATOMIC_RELAXED);
	}
	run->final_size = size;
	return NULL;
}

struct io_worker {
	struct derive_run *run;
	pthread_t th;
	uint64_t verified;
	uint64_t nerr;
	uint64_t nmismatch;
};

/* Synchronous write/read/verify of LBAs 0..63 in a loop: I/O reads the geometry per command */
static void *
derive_io_main(void *arg)
{
	struct io_worker *w = arg;
	struct derive_run *run = w->run;
	uint32_t lba = run->want.lba_nbytes;
	uint8_t *wbuf = xnvme_buf_alloc(run->dev, 64 * (size_t)lba);
	uint8_t *rbuf = xnvme_buf_alloc(run->dev, 64 * (size_t)lba);
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(run->dev);

	for (unsigned round = 0; wbuf && rbuf && !__atomic_load_n(&run->stop, __ATOMIC_RELAXED);
	     ++round) {
		uint64_t want, got;
		int err;

		pattern_fill(wbuf, lba, 0, 64, 99, round);
		memset(rbuf, 0, 64 * (size_t)lba);
		err = xnvme_nvm_write(&ctx, run->want_nsid, 0, 63, wbuf, NULL);
		if (!err) {
			err = xnvme_nvm_read(&ctx, run->want_nsid, 0, 63, rbuf, NULL);
		}
		if (err) {
			w->nerr++;
			continue;
		}
		if (pattern_check(rbuf, lba, 0, 64, 99, round, &want, &got) != 64) {
			w->nmismatch++;
			continue;
		}
		__atomic_fetch_add(&w->verified, 64 * (uint64_t)lba, __ATOMIC_RELAXED);
	}
	xnvme_buf_free(run->dev, wbuf);
	xnvme_buf_free(run->dev, rbuf);
	return NULL;
}

/* derive_geo in a loop against readers and I/O; `grow_path`: the file grows meanwhile */
static void
derive_phase(const struct conc_target *t, const char *grow_path)
{
	struct derive_run run = {
		.t = t, .phase = grow_path ? "grow" : "derive", .grow_path = grow_path};
	struct conc_target gt = {.label = "grow-file", .uri = grow_path, .file = true};
	struct reader readers[NREADERS];
	struct io_worker io = {.run = &run};
	pthread_t deriver;
	uint64_t nread = 0, nbad = 0, nbad_geo = 0;
	double start = conc_now(), secs = g_seconds / 4;
	bool skipped;

	run.dev = conc_open(grow_path ? &gt : t, NULL, &skipped);
	if (!run.dev) {
		return;
	}
	run.want = *xnvme_dev_get_geo(run.dev);
	run.want_nsze = xnvme_dev_get_ns(run.dev)->nsze;
	run.want_csi = xnvme_dev_get_csi(run.dev);
	run.want_nsid = xnvme_dev_get_nsid(run.dev);
	run.want_ssw = xnvme_dev_get_ssw(run.dev);
	if (!run.want.lba_nbytes || run.want.tbytes < 64ULL * run.want.lba_nbytes ||
	    run.want.lba_nbytes % 8) {
		CHECK_AT(t->label, run.phase, 0, "geometry: lba_nbytes=%u tbytes=%" PRIu64,
			 run.want.lba_nbytes, run.want.tbytes);
		xnvme_dev_close(run.dev);
		return;
	}

	for (int i = 0; i < NREADERS; ++i) {
		readers[i] = (struct reader){.run = &run};
		CHECK_AT(t->label, run.phase,
			 !pthread_create(&readers[i].th, NULL, reader_main, &readers[i]),
			 "reader %d", i);
	}
	CHECK_AT(t->label, run.phase, !pthread_create(&io.th, NULL, derive_io_main, &io), "io");
	CHECK_AT(t->label, run.phase, !pthread_create(&deriver, NULL, deriver_main, &run),
		 "deriver");
	/* at least one derivation and one verified I/O round, however slowly threads run */
	while (conc_now() < start + secs || ((!__atomic_load_n(&run.nderive, __ATOMIC_RELAXED) ||
					      !__atomic_load_n(&io.verified, __ATOMIC_RELAXED)) &&
					     conc_now() < start + 60)) {
		usleep(10000);
	}
	__atomic_store_n(&run.stop, 1, __ATOMIC_RELAXED);
	pthread_join(deriver, NULL);
	pthread_join(io.th, NULL);
	for (int i = 0; i < NREADERS; ++i) {
		pthread_join(readers[i].th, NULL);
		nread += readers[i].nread;
		nbad += readers[i].nbad;
		nbad_geo += readers[i].nbad_geo;
		CHECK_AT(t->label, run.phase, !readers[i].nbad,
			 "reader %d: %" PRIu64 " of %" PRIu64 " readings differ (%" PRIu64
			 " in the geometry), first: %s",
			 i, readers[i].nbad, readers[i].nread, readers[i].nbad_geo,
			 readers[i].first_bad);
	}
	CHECK_AT(t->label, run.phase, run.nderive > 0 && !run.nderive_err,
		 "derive_geo: %" PRIu64 " calls, %" PRIu64 " failed", run.nderive, run.nderive_err);
	CHECK_AT(t->label, run.phase, !io.nerr && !io.nmismatch && io.verified,
		 "I/O during derive_geo: %" PRIu64 " errors, %" PRIu64 " mismatches, %" PRIu64
		 " bytes verified",
		 io.nerr, io.nmismatch, io.verified);
	if (grow_path) {
		CHECK_AT(t->label, run.phase, !xnvme_dev_derive_geo(run.dev), "last derive_geo");
		CHECK_AT(t->label, run.phase, xnvme_dev_get_geo(run.dev)->tbytes == run.final_size,
			 "tbytes %" PRIu64 " after growing to %" PRIu64,
			 xnvme_dev_get_geo(run.dev)->tbytes, run.final_size);
	}
	printf("  - {phase: %s, target: %s, derive_geo_calls: %" PRIu64 ", readings: %" PRIu64
	       ", bad_readings: %" PRIu64 ", bad_geometry: %" PRIu64 ", io_verified_kib: %" PRIu64
	       ", seconds: %.2f}\n",
	       run.phase, t->label, run.nderive, nread, nbad, nbad_geo, io.verified >> 10,
	       conc_now() - start);
	xnvme_dev_close(run.dev);
}

int
main(int argc, char **argv)
{
	static const char *const known[] = {"--seconds", "--rounds", NULL};
	struct conc_target targets[CONC_MAX_TARGETS];
	struct conc_tmp tmp;
	char grow[320];
	int ntargets;
	bool own_tmp = !conc_opt(argc, argv, "--uri", NULL);

	memset(&tmp, 0, sizeof(tmp));

	setvbuf(stdout, NULL, _IOLBF, 0);
	g_seconds = atof(conc_opt(argc, argv, "--seconds", "2"));
	g_rounds = atoi(conc_opt(argc, argv, "--rounds", "4"));
	if (conc_under_valgrind()) {
		/* valgrind runs one thread at a time: less work, one worker per thrpool queue */
		g_rounds = 1;
		g_seconds /= 8;
		g_span = SPAN / 4;
		setenv("XNVME_BE_CBI_ASYNC_THRPOOL_NTHREADS", "1", 0);
	}
	if (g_seconds <= 0 || g_rounds < 1) {
		fprintf(stderr, "--seconds and --rounds must be positive\n");
		return 1;
	}
	if (own_tmp && conc_tmp_create(&tmp, "threads")) {
		return 1;
	}
	ntargets = conc_targets(argc, argv, known, targets, &tmp);
	if (ntargets < 0) {
		fprintf(stderr, "usage: %s [--uri URI ...] [--seconds S] [--rounds N]\n", argv[0]);
		return 1;
	}
	snprintf(grow, sizeof(grow), "%s/grow.bin", tmp.dir);

	printf("test_threads:\n");
	for (int i = 0; i < ntargets; ++i) {
		derive_phase(&targets[i], NULL);
		if (targets[i].file) {
			int fd = open(grow, O_CREAT | O_TRUNC | O_RDWR, 0600);

			CHECK_AT("grow-file", "create", fd >= 0 && !ftruncate(fd, 1 << 20), "%s",
				 grow);
			if (fd >= 0) {
				close(fd);
				derive_phase(&targets[i], grow);
				unlink(grow);
			}
		}
		for (size_t m = 0; m < CONC_NMECHS; ++m) {
			io_phase(&targets[i], conc_mechs[m]);
		}
	}
	if (own_tmp) {
		conc_tmp_remove(&tmp);
	}
	return xnvme_test_result("test_threads");
}
