// SPDX-License-Identifier: BSD-3-Clause
/**
 * xnvmeperf: multi-queue I/O load generator and latency meter over the xnvme API.
 *
 * Several threads, each with its own queue (or synchronous commands with --qdepth 0), spread
 * round-robin over one or more devices; any backend and mechanism options; a fixed duration or a
 * fixed I/O count; random or sequential reads, writes or a mix. Completion latency is recorded
 * per I/O in a log-linear histogram (no allocation per I/O) and reported as mean, min, max and
 * p50/p90/p99/p99.9/p99.99, together with IOPS, MiB/s and the CPU time of the process
 * (getrusage). Text or JSON output; a progress line on stderr when it is a terminal.
 *
 * On the CLI builder like every tool: its options beyond the builder's (thread count, duration,
 * access pattern, read/write mix, output format, several URIs) are options of its own
 * (xnvmeperf_args.c, xnvme_cli_run_tool_opts()); "xnvmeperf <args>" runs its one subcommand,
 * run. Errors are one '# ERR:' line, as in every tool; SIGINT, SIGTERM and SIGHUP stop the
 * threads between two commands, the report shows what ran, and the exit status says which
 * signal.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libxnvme.h>
#include "tools_common.h"
#include "xnvmeperf.h"

/* The running subcommand: error lines name it */
static const struct xnvme_cli *g_cli;

/* ------------------------------------------------------------------------------------------ */
/* Configuration                                                                               */
/* ------------------------------------------------------------------------------------------ */

struct perf_dev {
	const char *uri;
	struct xnvme_dev *dev;
	uint32_t nsid;
	uint32_t lba_nbytes;
	uint64_t nlbas; ///< LBAs in use (size option applied)
	uint32_t nthreads;
};

struct perf_slot {
	uint64_t start_ns;
	bool write;
	struct perf_thread *thr;
};

struct perf_thread {
	int id;
	int local_id; ///< index among the threads of its device
	struct perf_dev *pd;
	const struct perf_conf *conf;
	pthread_t tid;

	struct xnvme_queue *queue;
	void *buf; ///< qdepth (or 1) buffers of iosize
	struct perf_slot *slots;
	uint32_t *free_slots;
	uint32_t nfree;

	uint64_t rng;
	uint64_t seq_lba;        ///< next LBA of a sequential pattern
	uint64_t seq_lo, seq_hi; ///< this thread's slice for sequential access
	uint16_t nlb;            ///< zero-based blocks per I/O
	uint64_t nblocks_io;     ///< I/O-sized units in the device

	uint64_t deadline_ns;
	uint64_t submitted;
	uint64_t reads, writes;
	uint64_t errors;
	volatile uint64_t completed;  ///< read by the progress line
	int err;                      ///< fatal error of the thread
	struct xnvme_cmd_ctx err_ctx; ///< the first failed command, reported after the run
	uint64_t err_slba;
	bool err_write;
	int finished; ///< atomic: set when the thread is done
	uint64_t t_start, t_end;
	struct tool_cpu_times cpu;

	struct hist hist;
};

/* Set when a thread could not start: the others stop */
static volatile int g_stop;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline uint64_t
rng_next(uint64_t *s)
{
	/* xorshift64* */
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* ------------------------------------------------------------------------------------------ */
/* The I/O loop                                                                                */
/* ------------------------------------------------------------------------------------------ */

static inline uint64_t
next_slba(struct perf_thread *t)
{
	uint64_t unit;

	if (t->conf->random) {
		unit = rng_next(&t->rng) % t->nblocks_io;
		return unit * ((uint64_t)t->nlb + 1);
	}
	unit = t->seq_lba;
	t->seq_lba += (uint64_t)t->nlb + 1;
	if (t->seq_lba + t->nlb >= t->seq_hi) {
		t->seq_lba = t->seq_lo;
	}
	return unit;
}

static inline bool
next_is_write(struct perf_thread *t)
{
	switch (t->conf->rw) {
	case RW_READ:
		return false;
	case RW_WRITE:
		return true;
	default:
		return (rng_next(&t->rng) % 100) >= t->conf->rwmix_read;
	}
}

static inline void
account(struct perf_thread *t, struct perf_slot *slot, struct xnvme_cmd_ctx *ctx, uint64_t end)
{
	hist_add(&t->hist, end - slot->start_ns);
	if (xnvme_cmd_ctx_cpl_status(ctx)) {
		/* the first one is reported once the threads are done: no output from here */
		if (!t->errors) {
			t->err_ctx = *ctx;
			t->err_write = slot->write;
			t->err_slba = ctx->cmd.nvm.slba;
		}
		t->errors += 1;
	}
	if (slot->write) {
		t->writes += 1;
	} else {
		t->reads += 1;
	}
	t->completed += 1;
}

static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	struct perf_slot *slot = cb_arg;
	struct perf_thread *t = slot->thr;

	account(t, slot, ctx, now_ns());
	t->free_slots[t->nfree++] = (uint32_t)(slot - t->slots);
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static inline bool
thread_done(struct perf_thread *t, uint64_t now)
{
	/* a signal stops every thread between two commands */
	if (g_stop || tool_sig_pending()) {
		return true;
	}
	if (t->conf->count) {
		return t->submitted >= t->conf->count;
	}
	return now >= t->deadline_ns;
}

static int
run_sync(struct perf_thread *t)
{
	struct perf_slot *slot = &t->slots[0];
	uint64_t now = now_ns();

	while (!thread_done(t, now)) {
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(t->pd->dev);
		uint64_t slba = next_slba(t);
		int err;

		slot->write = next_is_write(t);
		slot->start_ns = now;
		if (slot->write) {
			err = xnvme_nvm_write(&ctx, t->pd->nsid, slba, t->nlb, t->buf, NULL);
		} else {
			err = xnvme_nvm_read(&ctx, t->pd->nsid, slba, t->nlb, t->buf, NULL);
		}
		t->submitted += 1;
		now = now_ns();
		if (err && !xnvme_cmd_ctx_cpl_status(&ctx)) {
			/* an OS-level failure without a status: fold it in for the report */
			ctx.cpl.status.sct = 7;
			ctx.cpl.status.sc = (uint16_t)((err < 0 ? -err : err) & 0xFF);
		}
		account(t, slot, &ctx, now);
		if (t->errors) {
			return -EIO;
		}
	}
	return 0;
}

static int
run_async(struct perf_thread *t)
{
	const struct perf_conf *conf = t->conf;
	uint64_t now = now_ns();
	bool done = false;
	int err_poke;

	while (!done || xnvme_queue_get_outstanding(t->queue)) {
		done = done || thread_done(t, now);
		while (!done && t->nfree) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(t->queue);
			uint32_t si = t->free_slots[t->nfree - 1];
			struct perf_slot *slot = &t->slots[si];
			void *buf = (char *)t->buf + (size_t)si * conf->iosize;
			uint64_t slba = next_slba(t);
			int err;

			ctx->async.cb_arg = slot;
			slot->write = next_is_write(t);
			slot->start_ns = now_ns();
			if (slot->write) {
				err = xnvme_nvm_write(ctx, t->pd->nsid, slba, t->nlb, buf, NULL);
			} else {
				err = xnvme_nvm_read(ctx, t->pd->nsid, slba, t->nlb, buf, NULL);
			}
			if (err == -EBUSY || err == -EAGAIN) {
				xnvme_queue_put_cmd_ctx(t->queue, ctx);
				break;
			}
			if (err) {
				xnvme_queue_put_cmd_ctx(t->queue, ctx);
				t->err = err; /* reported after the run */
				done = true;
				break;
			}
			t->nfree -= 1;
			t->submitted += 1;
			if (conf->count && t->submitted >= conf->count) {
				done = true;
			}
		}
		err_poke = xnvme_queue_poke(t->queue, 0);
		if (err_poke < 0) {
			t->err = err_poke; /* reported after the run */
			xnvme_queue_drain(t->queue);
			break;
		}
		if (t->errors && !done) {
			done = true; /* stop submitting at the first failed command, then drain */
		}
		now = now_ns();
	}
	return t->err ? t->err : (t->errors ? -EIO : 0);
}

static void *
thread_main(void *arg)
{
	struct perf_thread *t = arg;

	t->t_start = now_ns();
	t->deadline_ns = t->t_start + (uint64_t)(t->conf->runtime_s * 1e9);
	t->err = t->conf->qdepth ? run_async(t) : run_sync(t);
	t->t_end = now_ns();
	tool_plat_cpu_times(&t->cpu, true);
	__atomic_store_n(&t->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Setup and teardown                                                                          */
/* ------------------------------------------------------------------------------------------ */

static int
thread_setup(struct perf_thread *t)
{
	const struct perf_conf *conf = t->conf;
	struct perf_dev *pd = t->pd;
	uint32_t nslots = conf->qdepth ? conf->qdepth : 1;
	uint64_t nunits, slice;
	int err;

	hist_init(&t->hist);
	t->nlb = (uint16_t)(conf->iosize / pd->lba_nbytes - 1);
	nunits = pd->nlbas / ((uint64_t)t->nlb + 1);
	t->nblocks_io = nunits;
	slice = nunits / pd->nthreads;
	slice = slice ? slice : 1;
	t->seq_lo = (uint64_t)t->local_id * slice * ((uint64_t)t->nlb + 1);
	t->seq_hi = t->seq_lo + slice * ((uint64_t)t->nlb + 1);
	if (t->seq_hi > pd->nlbas) {
		t->seq_lo = 0;
		t->seq_hi = pd->nlbas;
	}
	t->seq_lba = t->seq_lo;
	t->rng = conf->seed * 0x9E3779B97F4A7C15ULL + (uint64_t)t->id + 1;
	if (!t->rng) {
		t->rng = 1;
	}

	t->slots = calloc(nslots, sizeof(*t->slots));
	t->free_slots = calloc(nslots, sizeof(*t->free_slots));
	if (!t->slots || !t->free_slots) {
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nslots; ++i) {
		t->slots[i].thr = t;
		t->free_slots[i] = nslots - 1 - i;
	}
	t->nfree = nslots;

	t->buf = xnvme_buf_alloc(pd->dev, (size_t)nslots * conf->iosize);
	if (!t->buf) {
		return tool_err(g_cli, -ENOMEM, "%s: cannot allocate a buffer of %zu bytes",
				pd->uri, (size_t)nslots * conf->iosize);
	}
	/* written data: a recognisable pattern, not zeros (some targets compress) */
	for (size_t i = 0; i < (size_t)nslots * conf->iosize; ++i) {
		((uint8_t *)t->buf)[i] = (uint8_t)('A' + (i + (size_t)t->id) % 26);
	}

	if (conf->qdepth) {
		err = xnvme_queue_init(pd->dev, (uint16_t)conf->qdepth, 0, &t->queue);
		if (err) {
			return tool_err(g_cli, err, "%s: no queue of depth %u: %s", pd->uri,
					conf->qdepth, xnvme_last_error());
		}
		xnvme_queue_set_cb(t->queue, on_cpl, NULL);
	}
	return 0;
}

static void
thread_teardown(struct perf_thread *t)
{
	xnvme_queue_term(t->queue);
	if (t->buf) {
		xnvme_buf_free(t->pd->dev, t->buf);
	}
	free(t->slots);
	free(t->free_slots);
}

static int
dev_setup(struct perf_dev *pd, const struct perf_conf *conf)
{
	struct xnvme_opts opts = conf->opts;
	const struct xnvme_geo *geo;

	pd->dev = xnvme_dev_open(pd->uri, &opts);
	if (!pd->dev) {
		int err = errno ? errno : EIO;

		return tool_err(g_cli, -err, "cannot open %s: %s", pd->uri,
				xnvme_last_error()[0] ? xnvme_last_error() : strerror(err));
	}
	geo = xnvme_dev_get_geo(pd->dev);
	pd->nsid = conf->opts.nsid ? conf->opts.nsid : xnvme_dev_get_nsid(pd->dev);
	pd->lba_nbytes = geo->lba_nbytes;
	if (!pd->lba_nbytes || !geo->tbytes) {
		return tool_err(g_cli, -EINVAL, "%s: the device has no logical-block geometry",
				pd->uri);
	}
	if (conf->iosize % pd->lba_nbytes) {
		return tool_err(g_cli, -EINVAL,
				"--iosize %zu: not a multiple of the LBA size of %s (%u)",
				conf->iosize, pd->uri, pd->lba_nbytes);
	}
	if (conf->iosize / pd->lba_nbytes > 65536) {
		return tool_err(g_cli, -EINVAL, "--iosize %zu: more than 65536 LBAs of %s",
				conf->iosize, pd->uri);
	}
	if (geo->mdts_nbytes && conf->iosize > geo->mdts_nbytes) {
		return tool_err(
			g_cli, -EINVAL,
			"--iosize %zu: more than the largest transfer of %s (MDTS, %u bytes)",
			conf->iosize, pd->uri, geo->mdts_nbytes);
	}
	pd->nlbas = geo->tbytes / pd->lba_nbytes;
	/* a region that cannot be used as asked for is refused, never cut to fit */
	if (conf->size) {
		if (conf->size > geo->tbytes) {
			return tool_err(g_cli, -EINVAL,
					"--size %" PRIu64 ": %s holds %" PRIu64 " bytes",
					conf->size, pd->uri, geo->tbytes);
		}
		if (conf->size % pd->lba_nbytes) {
			return tool_err(g_cli, -EINVAL,
					"--size %" PRIu64
					": not a multiple of the LBA size of %s (%u)",
					conf->size, pd->uri, pd->lba_nbytes);
		}
		pd->nlbas = conf->size / pd->lba_nbytes;
	}
	if (pd->nlbas < conf->iosize / pd->lba_nbytes) {
		return tool_err(g_cli, -EINVAL,
				"--iosize %zu: more than the %" PRIu64 " bytes of %s in use",
				conf->iosize, pd->nlbas * pd->lba_nbytes, pd->uri);
	}
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Output                                                                                      */
/* ------------------------------------------------------------------------------------------ */

struct perf_sum {
	uint64_t ios, reads, writes, errors;
	double elapsed_s;
	double iops, mib_s;
	double user_s, sys_s, cpu_pct;
	struct hist hist;
};

static void
sum_threads(struct perf_thread *thr, int n, const struct perf_conf *conf, struct perf_sum *s,
	    const struct tool_cpu_times *ru0, const struct tool_cpu_times *ru1)
{
	uint64_t t0 = UINT64_MAX, t1 = 0;

	memset(s, 0, sizeof(*s));
	hist_init(&s->hist);
	for (int i = 0; i < n; ++i) {
		s->ios += thr[i].completed;
		s->reads += thr[i].reads;
		s->writes += thr[i].writes;
		s->errors += thr[i].errors;
		hist_merge(&s->hist, &thr[i].hist);
		t0 = thr[i].t_start < t0 ? thr[i].t_start : t0;
		t1 = thr[i].t_end > t1 ? thr[i].t_end : t1;
	}
	s->elapsed_s = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;
	s->iops = s->elapsed_s > 0 ? (double)s->ios / s->elapsed_s : 0;
	s->mib_s = s->iops * (double)conf->iosize / (1024.0 * 1024.0);
	s->user_s = ru1->user_s - ru0->user_s;
	s->sys_s = ru1->sys_s - ru0->sys_s;
	s->cpu_pct = s->elapsed_s > 0 ? 100.0 * (s->user_s + s->sys_s) / s->elapsed_s : 0;
}

static const double g_quantiles[] = {0.5, 0.9, 0.99, 0.999, 0.9999};
static const char *g_qnames[] = {"p50", "p90", "p99", "p99_9", "p99_99"};
#define NQ (sizeof(g_quantiles) / sizeof(g_quantiles[0]))

static void
pr_lat_json(const struct hist *h)
{
	printf("{\"mean\": %.1f, \"min\": %" PRIu64 ", \"max\": %" PRIu64,
	       h->count ? (double)h->sum / (double)h->count : 0.0, h->count ? h->min : 0, h->max);
	for (size_t i = 0; i < NQ; ++i) {
		printf(", \"%s\": %.1f", g_qnames[i], hist_quantile(h, g_quantiles[i]));
	}
	printf("}");
}

static void
pr_lat_text(const char *indent, const struct hist *h)
{
	printf("%slat_ns: {mean: %.1f, min: %" PRIu64 ", max: %" PRIu64, indent,
	       h->count ? (double)h->sum / (double)h->count : 0.0, h->count ? h->min : 0, h->max);
	for (size_t i = 0; i < NQ; ++i) {
		printf(", %s: %.1f", g_qnames[i], hist_quantile(h, g_quantiles[i]));
	}
	printf("}\n");
}

static void
json_str(const char *s)
{
	putchar('"');
	for (; s && *s; ++s) {
		if (*s == '"' || *s == '\\') {
			putchar('\\');
		}
		if ((unsigned char)*s < 0x20) {
			printf("\\u%04x", *s);
			continue;
		}
		putchar(*s);
	}
	putchar('"');
}

static void
report(const struct perf_conf *conf, struct perf_dev *devs, struct perf_thread *thr,
       const struct perf_sum *s)
{
	const struct xnvme_opts *o = xnvme_dev_get_opts(devs[0].dev);

	if (conf->json) {
		printf("{\"tool\": \"xnvmeperf\", \"version\": \"%d.%d.%d\",\n", xnvme_ver_major(),
		       xnvme_ver_minor(), xnvme_ver_patch());
		printf(" \"config\": {\"rw\": \"%s\", \"iosize\": %zu, \"qdepth\": %u, "
		       "\"threads\": %d, \"runtime_s\": %.3f, \"count\": %" PRIu64
		       ", \"rwmix_read\": %u, \"be\": ",
		       conf->rw_name, conf->iosize, conf->qdepth, conf->nthreads, conf->runtime_s,
		       conf->count, conf->rwmix_read);
		json_str(o->be);
		printf(", \"async\": ");
		json_str(conf->qdepth ? o->async : "(sync)");
		printf(", \"sync\": ");
		json_str(o->sync);
		printf("},\n \"devices\": [");
		for (int i = 0; i < conf->ndevs; ++i) {
			printf("%s{\"uri\": ", i ? ", " : "");
			json_str(devs[i].uri);
			printf(", \"nsid\": %u, \"lba_nbytes\": %u, \"nlbas\": %" PRIu64
			       ", \"threads\": %u}",
			       devs[i].nsid, devs[i].lba_nbytes, devs[i].nlbas, devs[i].nthreads);
		}
		printf("],\n \"threads\": [");
		for (int i = 0; i < conf->nthreads; ++i) {
			double el = (double)(thr[i].t_end - thr[i].t_start) / 1e9;

			printf("%s\n  {\"id\": %d, \"uri\": ", i ? "," : "", thr[i].id);
			json_str(thr[i].pd->uri);
			printf(", \"ios\": %" PRIu64 ", \"iops\": %.1f, \"user_s\": %.3f, "
			       "\"sys_s\": %.3f, \"lat_ns\": ",
			       (uint64_t)thr[i].completed,
			       el > 0 ? (double)thr[i].completed / el : 0.0, thr[i].cpu.user_s,
			       thr[i].cpu.sys_s);
			pr_lat_json(&thr[i].hist);
			printf("}");
		}
		printf("],\n \"total\": {\"ios\": %" PRIu64 ", \"reads\": %" PRIu64
		       ", \"writes\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"elapsed_s\": %.6f, "
		       "\"iops\": %.1f, \"mib_s\": %.2f, \"ns_per_io\": %.2f,\n  \"cpu\": {\"user_s\": "
		       "%.3f, \"sys_s\": %.3f, \"util_pct\": %.1f},\n  \"lat_ns\": ",
		       s->ios, s->reads, s->writes, s->errors, s->elapsed_s, s->iops, s->mib_s,
		       s->iops > 0 ? 1e9 / s->iops : 0.0, s->user_s, s->sys_s, s->cpu_pct);
		pr_lat_json(&s->hist);
		printf("}}\n");
		return;
	}

	printf("xnvmeperf:\n");
	printf("  config: {rw: %s, iosize: %zu, qdepth: %u, threads: %d, runtime_s: %.3f, "
	       "count: %" PRIu64 ", be: %s, async: %s}\n",
	       conf->rw_name, conf->iosize, conf->qdepth, conf->nthreads, conf->runtime_s,
	       conf->count, o->be ? o->be : "?",
	       conf->qdepth ? (o->async ? o->async : "?") : "(sync)");
	for (int i = 0; i < conf->ndevs; ++i) {
		printf("  device: {uri: '%s', nsid: %u, lba_nbytes: %u, nlbas: %" PRIu64
		       ", threads: %u}\n",
		       devs[i].uri, devs[i].nsid, devs[i].lba_nbytes, devs[i].nlbas,
		       devs[i].nthreads);
	}
	if (conf->nthreads > 1) {
		for (int i = 0; i < conf->nthreads; ++i) {
			double el = (double)(thr[i].t_end - thr[i].t_start) / 1e9;

			printf("  thread%d: {uri: '%s', ios: %" PRIu64
			       ", iops: %.0f, p50_ns: %.0f, "
			       "p99_ns: %.0f}\n",
			       thr[i].id, thr[i].pd->uri, (uint64_t)thr[i].completed,
			       el > 0 ? (double)thr[i].completed / el : 0.0,
			       hist_quantile(&thr[i].hist, 0.5), hist_quantile(&thr[i].hist, 0.99));
		}
	}
	printf("  total: {ios: %" PRIu64 ", reads: %" PRIu64 ", writes: %" PRIu64
	       ", errors: %" PRIu64 ", elapsed_s: %.3f}\n",
	       s->ios, s->reads, s->writes, s->errors, s->elapsed_s);
	printf("  iops: %.1f\n  mib_s: %.2f\n  ns_per_io: %.2f\n", s->iops, s->mib_s,
	       s->iops > 0 ? 1e9 / s->iops : 0.0);
	printf("  cpu: {user_s: %.3f, sys_s: %.3f, util_pct: %.1f}\n", s->user_s, s->sys_s,
	       s->cpu_pct);
	pr_lat_text("  ", &s->hist);
}

static void
progress_line(const struct perf_conf *conf, struct perf_thread *thr, uint64_t t0,
	      uint64_t *last_ios, uint64_t *last_ns, bool final)
{
	uint64_t ios = 0, now = now_ns();
	double dt = (double)(now - *last_ns) / 1e9, el = (double)(now - t0) / 1e9;
	double iops;

	for (int i = 0; i < conf->nthreads; ++i) {
		ios += thr[i].completed;
	}
	iops = dt > 0 ? (double)(ios - *last_ios) / dt : 0;
	if (conf->count) {
		fprintf(stderr,
			"\rxnvmeperf: %5.1f s  %" PRIu64 "/%" PRIu64 " I/Os  %10.0f IOPS  "
			"%9.2f MiB/s%s",
			el, ios, conf->count * (uint64_t)conf->nthreads, iops,
			iops * (double)conf->iosize / 1048576.0, final ? "\n" : "   ");
	} else {
		fprintf(stderr, "\rxnvmeperf: %5.1f/%.1f s  %10.0f IOPS  %9.2f MiB/s%s", el,
			conf->runtime_s, iops, iops * (double)conf->iosize / 1048576.0,
			final ? "\n" : "   ");
	}
	*last_ios = ios;
	*last_ns = now;
}

/* The first failure of any thread, as one error line; 0 when every command succeeded */
static int
run_errors(const struct perf_conf *conf, struct perf_thread *thr)
{
	uint64_t nerr = 0, ios = 0;
	struct perf_thread *first = NULL;

	for (int i = 0; i < conf->nthreads; ++i) {
		nerr += thr[i].errors;
		ios += thr[i].completed;
		if (!first && (thr[i].err || thr[i].errors)) {
			first = &thr[i];
		}
	}
	if (!first) {
		return 0;
	}
	if (first->errors) {
		return tool_cmd_err(g_cli, &first->err_ctx, -EIO,
				    "%" PRIu64 " of %" PRIu64 " commands failed; the first: %s of "
				    "LBA 0x%" PRIx64 " on %s (thread %d)",
				    nerr, ios, first->err_write ? "Write" : "Read", first->err_slba,
				    first->pd->uri, first->id);
	}
	return tool_err(g_cli, first->err, "%s (thread %d): %s", first->pd->uri, first->id,
			conf->qdepth ? "the queue refused a command" : "a command failed");
}

static int
sub_run(struct xnvme_cli *cli)
{
	struct perf_conf conf;
	struct perf_dev *devs = NULL;
	struct perf_thread *thr = NULL;
	struct tool_cpu_times ru0, ru1;
	struct perf_sum sum;
	int nstarted = 0, err;
	bool progress;

	g_cli = cli;
	err = perf_conf_from_cli(cli, &conf);
	if (err) {
		return err;
	}
	progress = conf.progress < 0 ? isatty(STDERR_FILENO) : conf.progress;

	devs = calloc((size_t)conf.ndevs, sizeof(*devs));
	thr = calloc((size_t)conf.nthreads, sizeof(*thr));
	if (!devs || !thr) {
		err = tool_err(cli, -ENOMEM, "out of memory");
		goto exit;
	}
	for (int i = 0; i < conf.ndevs; ++i) {
		devs[i].uri = conf.uris[i];
	}
	for (int i = 0; i < conf.nthreads; ++i) {
		thr[i].id = i;
		thr[i].conf = &conf;
		thr[i].pd = &devs[i % conf.ndevs];
		thr[i].local_id = (int)thr[i].pd->nthreads++;
	}
	for (int i = 0; i < conf.ndevs && !err; ++i) {
		err = dev_setup(&devs[i], &conf);
	}
	for (int i = 0; i < conf.nthreads && !err; ++i) {
		err = thread_setup(&thr[i]);
	}
	err = err ? err : tool_sig_check(cli);
	if (err) {
		goto exit;
	}

	tool_plat_cpu_times(&ru0, false);
	for (nstarted = 0; nstarted < conf.nthreads; ++nstarted) {
		err = pthread_create(&thr[nstarted].tid, NULL, thread_main, &thr[nstarted]);
		if (err) {
			g_stop = 1;
			err = tool_err(cli, -err, "cannot start thread %d", nstarted);
			break;
		}
	}
	if (progress && nstarted == conf.nthreads) {
		uint64_t t0 = now_ns(), last_ns = t0, last_ios = 0;

		for (uint64_t tick = 1;; ++tick) {
			bool all_done = true;

			usleep(10000);
			for (int i = 0; i < conf.nthreads; ++i) {
				all_done = all_done &&
					   __atomic_load_n(&thr[i].finished, __ATOMIC_ACQUIRE);
			}
			if (all_done) {
				break;
			}
			if (!(tick % 25)) {
				progress_line(&conf, thr, t0, &last_ios, &last_ns, false);
			}
		}
		progress_line(&conf, thr, t0, &last_ios, &last_ns, true);
	}
	for (int i = 0; i < nstarted; ++i) {
		pthread_join(thr[i].tid, NULL);
	}
	tool_plat_cpu_times(&ru1, false);
	if (nstarted != conf.nthreads) {
		goto exit;
	}

	/* what ran is reported, also when a signal stopped it (tool_run() then says so) */
	sum_threads(thr, conf.nthreads, &conf, &sum, &ru0, &ru1);
	report(&conf, devs, thr, &sum);
	err = run_errors(&conf, thr);

exit:
	if (thr) {
		for (int i = 0; i < conf.nthreads; ++i) {
			if (thr[i].pd && thr[i].pd->dev) {
				thread_teardown(&thr[i]);
			}
		}
	}
	if (devs) {
		for (int i = 0; i < conf.ndevs; ++i) {
			xnvme_dev_close(devs[i].dev);
		}
	}
	free(thr);
	free(devs);
	return err;
}

static struct xnvme_cli_sub g_subs[] = {
	{
		.name = "run",
		.descr_short = "Run I/O on devices and report IOPS and latency (the default)",
		.descr_long =
			"Runs I/O on one or more devices with --threads threads (default: one per "
			"device) spread round-robin over them, each with its own queue of depth "
			"--qdepth (default 1; 0: synchronous commands, 1..4096) issuing commands of "
			"--iosize bytes (default 4096, a multiple of the LBA size), for --runtime "
			"seconds (default 5) or --count I/Os per thread, and reports IOPS, MiB/s, CPU "
			"time and completion latency percentiles as text or JSON. 'xnvmeperf <args>' "
			"is 'xnvmeperf run <args>'. Reading patterns open the devices read-only; "
			"writing patterns overwrite them within --size. SIGINT, SIGTERM or SIGHUP "
			"stop the threads between two commands: the report shows what ran, the "
			"exit status is 130, 143 or 129",
		.command = sub_run,
		.opts = {TOOL_OPTS_POSA,
			 TOOL_TOPT(P_URI, POSA),
			 TOOL_OPTS_LONG,
			 TOOL_TOPT(P_RW, LOPT),
			 TOOL_TOPT(P_RWMIX, LOPT),
			 TOOL_LOPT(IOSIZE),
			 TOOL_LOPT(QDEPTH),
			 TOOL_TOPT(P_THREADS, LOPT),
			 TOOL_TOPT(P_RUNTIME, LOPT),
			 TOOL_TOPT(P_COUNT, LOPT),
			 TOOL_TOPT(P_SIZE, LOPT),
			 TOOL_TOPT(P_SEED, LOPT),
			 TOOL_TOPT(P_OUTPUT, LOPT),
			 TOOL_TOPT(P_JSON, LFLG),
			 TOOL_TOPT(P_PROGRESS, LFLG),
			 TOOL_TOPT(P_NO_PROGRESS, LFLG),
			 TOOL_TOPT(P_POLL_IO, LFLG),
			 TOOL_TOPT(P_POLL_SQ, LFLG),
			 TOOL_TOPT(P_REGF, LFLG),
			 TOOL_TOPT(P_REGB, LFLG),
			 TOOL_LFLG(RDONLY),
			 TOOL_ASYNC_OPTS},
	},
};

int
main(int argc, char **argv)
{
	static struct xnvme_cli cli = {
		.title = "xnvmeperf",
		.descr_short = "Multi-queue I/O load generator and latency meter",
		.descr_long = "Runs I/O on devices through any backend and mechanism of the "
			      "library and reports IOPS, bandwidth, CPU time and latency "
			      "percentiles",
		.nsubs = (int)(sizeof(g_subs) / sizeof(g_subs[0])),
		.subs = g_subs,
	};
	static const struct tool_def def = {
		.cli = &cli,
		.init = XNVME_CLI_INIT_NONE,
		.opts = g_perf_opts,
		.nopts = P_NOPTS,
		.dflt_sub = "run",
	};

	return tool_run(&def, argc, argv);
}
