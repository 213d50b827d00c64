/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * xnvmeperf (tools/xnvmeperf.c): its configuration, filled from the command line by
 * perf_conf_from_cli() (tools/xnvmeperf_args.c, the tool's own options of the CLI builder), and
 * the latency histogram (tools/xnvmeperf_hist.c) each thread records into.
 */
#ifndef XNVME_TOOLS_XNVMEPERF_H
#define XNVME_TOOLS_XNVMEPERF_H

#include <stdbool.h>
#include <stdint.h>
#include <libxnvme.h>
#include <libxnvme_cli.h>

#define PERF_MAX_DEVS 64
#define PERF_MAX_THREADS 256
#define PERF_QDEPTH_MAX 4096

/*
 * Log-linear latency histogram.
 * Values below 2^HIST_SUB_BITS ns get one bucket each; above, every power of two is split into
 * 2^HIST_SUB_BITS linear sub-buckets, so a bucket is at most 1/32 (3.1 %) of its value wide.
 * 64-bit values need (64 - HIST_SUB_BITS + 1) groups.
 */
#define HIST_SUB_BITS 5
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_NBUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t bucket[HIST_NBUCKETS];
};

static inline uint32_t
hist_idx(uint64_t v)
{
	uint32_t msb, shift;

	if (v < HIST_SUB) {
		return (uint32_t)v;
	}
	msb = 63u - (uint32_t)__builtin_clzll(v);
	shift = msb - HIST_SUB_BITS;
	return (shift + 1) * HIST_SUB + (uint32_t)((v >> shift) & (HIST_SUB - 1));
}

/* Records one sample (ns): runs once per I/O, hence inline */
static inline void
hist_add(struct hist *h, uint64_t v)
{
	h->bucket[hist_idx(v)] += 1;
	h->count += 1;
	h->sum += v;
	if (v < h->min) {
		h->min = v;
	}
	if (v > h->max) {
		h->max = v;
	}
}

/* Empties `h` */
void
hist_init(struct hist *h);

/* Adds the samples of `src` to `dst` */
void
hist_merge(struct hist *dst, const struct hist *src);

/* The value below which a fraction `q` of the samples lie: middle of the bucket, clamped */
double
hist_quantile(const struct hist *h, double q);

/* What xnvmeperf runs, from its command line */
enum perf_rw { RW_READ, RW_WRITE, RW_MIX };

struct perf_conf {
	const char *uris[PERF_MAX_DEVS];
	int ndevs;
	int nthreads;
	uint32_t qdepth; ///< 0: synchronous commands
	size_t iosize;
	enum perf_rw rw;
	bool random;
	uint32_t rwmix_read; ///< percent of reads for RW_MIX
	double runtime_s;    ///< 0 with count set: count-based
	uint64_t count;      ///< I/Os per thread; 0: time-based
	uint64_t size;       ///< bytes of each device used; 0: all
	uint64_t seed;
	bool json;
	int progress; ///< -1 auto (terminal), 0 off, 1 on
	struct xnvme_opts opts;
	const char *rw_name;
};

/* Entries of g_perf_opts[], the options of xnvmeperf's own (xnvme_cli_run_tool_opts()) */
enum perf_opt {
	P_URI,
	P_RW,
	P_RWMIX,
	P_THREADS,
	P_RUNTIME,
	P_COUNT,
	P_SIZE,
	P_SEED,
	P_OUTPUT,
	P_JSON,
	P_PROGRESS,
	P_NO_PROGRESS,
	P_POLL_IO,
	P_POLL_SQ,
	P_REGF,
	P_REGB,
	P_NOPTS,
};

extern struct xnvme_cli_tool_opt g_perf_opts[P_NOPTS];

/*
 * Fills `c` from the parsed command line of `cli` (defaults for what is not given), checking
 * every value; returns 0 or a negative errno after printing why (a usage error)
 */
int
perf_conf_from_cli(const struct xnvme_cli *cli, struct perf_conf *c);

#endif
