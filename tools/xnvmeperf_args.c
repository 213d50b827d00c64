// SPDX-License-Identifier: BSD-3-Clause
/*
 * xnvmeperf's command line on the CLI builder: its own options (xnvme_cli_run_tool_opts()),
 * the builder's backend options, and the values checked and turned into a struct perf_conf.
 * Usage, man page and completion come from the builder like those of every other tool.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"
#include "xnvmeperf.h"

static const char *g_uris[PERF_MAX_DEVS];

#define NUM XNVME_CLI_OPT_VTYPE_NUM
#define STR XNVME_CLI_OPT_VTYPE_STR

struct xnvme_cli_tool_opt g_perf_opts[P_NOPTS] = {
	[P_URI] = {.name = "uri",
		   .descr = "Device URI, e.g. '1GB', '/dev/ng0n1' or a file; several: the threads "
			    "are spread over them round-robin",
		   .vtype = XNVME_CLI_OPT_VTYPE_URI,
		   .flags = XNVME_CLI_TOOL_OPT_REPEAT,
		   .vals = g_uris,
		   .vals_max = PERF_MAX_DEVS},
	[P_RW] = {.name = "rw",
		  .descr = "Pattern: randread (default), randwrite, randrw, read, write or rw",
		  .vtype = STR,
		  .values = "randread randwrite randrw read write rw"},
	[P_RWMIX] = {.name = "rwmixread",
		     .descr = "Percent reads of randrw and rw (default 50)",
		     .vtype = NUM,
		     .max = 100},
	[P_THREADS] = {.name = "threads",
		       .descr = "Threads, one queue each (default: one per device), at most 256",
		       .vtype = NUM,
		       .max = PERF_MAX_THREADS},
	[P_RUNTIME] = {.name = "runtime",
		       .descr = "Duration in seconds, fractions allowed (default 5)",
		       .vtype = STR},
	[P_COUNT] = {.name = "count",
		     .descr = "I/Os per thread instead of a duration",
		     .vtype = NUM},
	[P_SIZE] = {.name = "size",
		    .descr = "Use only the first bytes of each device (k, m, g, t units); more "
			     "than a device holds is refused",
		    .vtype = NUM,
		    .flags = XNVME_CLI_TOOL_OPT_SIZE},
	[P_SEED] = {.name = "seed",
		    .descr = "Seed of the random offsets and of the read/write mix (default 1)",
		    .vtype = NUM},
	[P_OUTPUT] = {.name = "output",
		      .descr = "Report format: text (default) or json",
		      .vtype = STR,
		      .values = "text json"},
	[P_JSON] = {.name = "json", .descr = "Flag: the same as --output json", .vtype = NUM},
	[P_PROGRESS] = {.name = "progress",
			.descr = "Flag: a progress line on stderr (default: when it is a terminal)",
			.vtype = NUM},
	[P_NO_PROGRESS] = {.name = "no-progress", .descr = "Flag: no progress line", .vtype = NUM},
	[P_POLL_IO] = {.name = "poll-io",
		       .descr = "Flag: io_uring polls for completions",
		       .vtype = NUM},
	[P_POLL_SQ] = {.name = "poll-sq",
		       .descr = "Flag: io_uring's kernel thread polls the submission queue",
		       .vtype = NUM},
	[P_REGF] = {.name = "register-files",
		    .descr = "Flag: io_uring registers the file",
		    .vtype = NUM},
	[P_REGB] = {.name = "register-buffers",
		    .descr = "Flag: io_uring registers the buffers",
		    .vtype = NUM},
};

static int
bad(const struct xnvme_cli *cli, enum perf_opt opt, const char *why)
{
	return tool_err_usage(cli, "--%s %s: %s", g_perf_opts[opt].name, g_perf_opts[opt].str, why);
}

int
perf_conf_from_cli(const struct xnvme_cli *cli, struct perf_conf *c)
{
	const struct xnvme_cli_args *args = &cli->args;
	struct xnvme_cli_tool_opt *o = g_perf_opts;
	int err;

	memset(c, 0, sizeof(*c));
	c->opts = xnvme_opts_default();
	xnvme_cli_to_opts(cli, &c->opts);
	c->qdepth = cli->given[XNVME_CLI_OPT_QDEPTH] ? args->qdepth : 1;
	c->iosize = cli->given[XNVME_CLI_OPT_IOSIZE] ? args->iosize : 4096;
	c->rw = RW_READ;
	c->random = true;
	c->rw_name = "randread";
	c->rwmix_read = o[P_RWMIX].given ? (uint32_t)o[P_RWMIX].num : 50;
	c->runtime_s = -1;
	c->progress = -1;
	c->seed = o[P_SEED].given ? o[P_SEED].num : 1;

	err = tool_check_range(cli, XNVME_CLI_OPT_IOSIZE, c->iosize, 1, 1u << 30);
	err = err ? err
		  : tool_check_range(cli, XNVME_CLI_OPT_QDEPTH, c->qdepth, 0, PERF_QDEPTH_MAX);
	if (err) {
		return err;
	}

	if (o[P_RW].given) {
		static const struct {
			const char *name;
			enum perf_rw rw;
			bool random;
		} pats[] = {
			{"randread", RW_READ, true}, {"randwrite", RW_WRITE, true},
			{"randrw", RW_MIX, true},    {"read", RW_READ, false},
			{"write", RW_WRITE, false},  {"rw", RW_MIX, false},
		};
		size_t i;

		for (i = 0; i < sizeof(pats) / sizeof(pats[0]); ++i) {
			if (!strcmp(o[P_RW].str, pats[i].name)) {
				break;
			}
		}
		if (i == sizeof(pats) / sizeof(pats[0])) {
			return bad(cli, P_RW,
				   "expected randread, randwrite, randrw, read, write or rw");
		}
		c->rw = pats[i].rw;
		c->random = pats[i].random;
		c->rw_name = pats[i].name;
	}
	if (o[P_THREADS].given && !o[P_THREADS].num) {
		return bad(cli, P_THREADS, "expected 1..256");
	}
	c->nthreads = (int)o[P_THREADS].num;
	if (o[P_RUNTIME].given) {
		char *end;

		c->runtime_s = strtod(o[P_RUNTIME].str, &end);
		if (*end || end == o[P_RUNTIME].str || !(c->runtime_s > 0) || c->runtime_s > 1e6) {
			return bad(cli, P_RUNTIME, "expected seconds > 0, e.g. 0.5 or 10");
		}
	}
	if (o[P_COUNT].given && !o[P_COUNT].num) {
		return bad(cli, P_COUNT, "expected a count >= 1");
	}
	c->count = o[P_COUNT].num;
	if (o[P_SIZE].given && !o[P_SIZE].num) {
		return bad(cli, P_SIZE, "expected bytes >= 1");
	}
	c->size = o[P_SIZE].num;
	if (o[P_OUTPUT].given) {
		if (strcmp(o[P_OUTPUT].str, "json") && strcmp(o[P_OUTPUT].str, "text")) {
			return bad(cli, P_OUTPUT, "expected text or json");
		}
		c->json = !strcmp(o[P_OUTPUT].str, "json");
		if (o[P_JSON].given && !c->json) {
			return tool_err_usage(cli, "--json and --output text: give one of them");
		}
	}
	c->json = c->json || o[P_JSON].given;
	if (o[P_PROGRESS].given && o[P_NO_PROGRESS].given) {
		return tool_err_usage(cli, "--progress and --no-progress: give one of them");
	}
	c->progress = o[P_PROGRESS].given ? 1 : (o[P_NO_PROGRESS].given ? 0 : -1);
	c->opts.poll_io = o[P_POLL_IO].given ? 1 : 0;
	c->opts.poll_sq = o[P_POLL_SQ].given ? 1 : 0;
	c->opts.register_files = o[P_REGF].given ? 1 : 0;
	c->opts.register_buffers = o[P_REGB].given ? 1 : 0;
	/*
	 * the device is opened for reads only when nothing is written, as every reading tool
	 * does: a device or file the user may only read can be measured
	 */
	if (cli->given[XNVME_CLI_OPT_RDONLY] && args->rdonly && c->rw != RW_READ) {
		return tool_err_usage(cli, "--rw %s writes: drop --rdonly", c->rw_name);
	}
	c->opts.rdonly = c->rw == RW_READ;
	c->opts.rdwr = c->rw != RW_READ;

	for (uint32_t i = 0; i < o[P_URI].given && i < PERF_MAX_DEVS; ++i) {
		c->uris[c->ndevs++] = g_uris[i];
	}
	if (!c->nthreads) {
		c->nthreads = c->ndevs;
	}
	if (c->runtime_s < 0) {
		c->runtime_s = c->count ? 0 : 5;
	} else if (c->count) {
		return tool_err_usage(cli, "--runtime %s and --count %" PRIu64 ": give one of them",
				      o[P_RUNTIME].str, c->count);
	}
	return 0;
}
