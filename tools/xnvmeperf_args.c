// SPDX-License-Identifier: BSD-3-Clause
/*
 * xnvmeperf's command line: getopt_long over its own option set (see the comment at the top of
 * xnvmeperf.c for why not the CLI builder), values checked and turned into a struct perf_conf.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"
#include "xnvmeperf.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: xnvmeperf [options] <uri> [<uri> ...]\n"
		"\n"
		"Multi-queue I/O load and latency over the xnvme API: --threads threads (default:\n"
		"one per device) spread round-robin over the devices, each with its own queue.\n"
		"\n"
		"Workload:\n"
		"  --rw PATTERN          randread (default), randwrite, randrw, read, write, rw\n"
		"  --rwmixread PCT       percent reads of randrw/rw (default 50)\n"
		"  --iosize BYTES        bytes per I/O, a multiple of the LBA size (default 4096;\n"
		"                        k/m suffixes)\n"
		"  --qdepth N            commands in flight per thread, 1..4096 (default 1);\n"
		"                        0 = synchronous commands\n"
		"  --threads N           threads, one queue each (default: number of devices)\n"
		"  --runtime SECONDS     duration (default 5; fractions allowed)\n"
		"  --count N             I/Os per thread instead of a duration\n"
		"  --size BYTES          use only the first BYTES of each device\n"
		"  --seed N              seed of the random offsets and the read/write mix\n"
		"\n"
		"Backend and mechanisms (as xnvme_opts; unset = automatic):\n"
		"  --be NAME  --mem NAME  --sync NAME  --async NAME  --admin NAME\n"
		"  --dev-nsid N  --direct  --poll-io  --poll-sq  --register-files\n"
		"  --register-buffers  --rdonly\n"
		"  --shm-id N            vfio: attach to the multi-process primary with this id\n"
		"                        (xnvme-driver serve; hexadecimal, as on the other tools)\n"
		"\n"
		"Output:\n"
		"  --output text|json    report format (default text)\n"
		"  --json                same as --output json\n"
		"  --progress / --no-progress\n"
		"                        progress line on stderr (default: when it is a terminal)\n"
		"  --version             print the version and exit\n"
		"  -h, --help\n"
		"\n"
		"Numbers are decimal or 0x-prefixed hex; sizes take k/m/g/t units (4k = 4096).\n"
		"Exit status: 0 success, 1 the run failed, 2 usage error.\n");
}

/* The tools' number syntax (tool_parse_num()): decimal or 0x hex, binary units on sizes */
static int
parse_size(const char *s, uint64_t *out)
{
	return tool_parse_num(s, true, out);
}

enum {
	O_RW = 256,
	O_RWMIX,
	O_IOSIZE,
	O_QDEPTH,
	O_THREADS,
	O_RUNTIME,
	O_COUNT,
	O_SIZE,
	O_SEED,
	O_BE,
	O_MEM,
	O_SYNC,
	O_ASYNC,
	O_ADMIN,
	O_NSID,
	O_DIRECT,
	O_POLL_IO,
	O_POLL_SQ,
	O_REGF,
	O_REGB,
	O_RDONLY,
	O_SHM_ID,
	O_OUTPUT,
	O_JSON,
	O_PROGRESS,
	O_NO_PROGRESS,
	O_VERSION,
};

static const struct option g_lopts[] = {
	{"rw", required_argument, NULL, O_RW},
	{"rwmixread", required_argument, NULL, O_RWMIX},
	{"iosize", required_argument, NULL, O_IOSIZE},
	{"bs", required_argument, NULL, O_IOSIZE},
	{"qdepth", required_argument, NULL, O_QDEPTH},
	{"iodepth", required_argument, NULL, O_QDEPTH},
	{"threads", required_argument, NULL, O_THREADS},
	{"runtime", required_argument, NULL, O_RUNTIME},
	{"count", required_argument, NULL, O_COUNT},
	{"size", required_argument, NULL, O_SIZE},
	{"seed", required_argument, NULL, O_SEED},
	{"be", required_argument, NULL, O_BE},
	{"mem", required_argument, NULL, O_MEM},
	{"sync", required_argument, NULL, O_SYNC},
	{"async", required_argument, NULL, O_ASYNC},
	{"admin", required_argument, NULL, O_ADMIN},
	{"dev-nsid", required_argument, NULL, O_NSID},
	{"direct", optional_argument, NULL, O_DIRECT},
	{"poll-io", no_argument, NULL, O_POLL_IO},
	{"poll-sq", no_argument, NULL, O_POLL_SQ},
	{"register-files", no_argument, NULL, O_REGF},
	{"register-buffers", no_argument, NULL, O_REGB},
	{"rdonly", no_argument, NULL, O_RDONLY},
	{"shm-id", required_argument, NULL, O_SHM_ID},
	{"shm_id", required_argument, NULL, O_SHM_ID},
	{"output", required_argument, NULL, O_OUTPUT},
	{"json", no_argument, NULL, O_JSON},
	{"progress", no_argument, NULL, O_PROGRESS},
	{"no-progress", no_argument, NULL, O_NO_PROGRESS},
	{"version", no_argument, NULL, O_VERSION},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* A usage error without an option value: "# ERR: 'xnvmeperf: <what><arg>': ..." */
static int
usage_err(const char *what, const char *arg)
{
	return tool_err(&g_perf_cli, -EINVAL, "%s%s", what, arg);
}

static int
bad(const char *opt, const char *val, const char *why)
{
	return tool_err(&g_perf_cli, -EINVAL, "--%s %s: %s", opt, val, why);
}

int
perf_parse_args(int argc, char **argv, struct perf_conf *c)
{
	uint64_t v;
	int opt;

	memset(c, 0, sizeof(*c));
	c->opts = xnvme_opts_default();
	c->qdepth = 1;
	c->iosize = 4096;
	c->rw = RW_READ;
	c->random = true;
	c->rw_name = "randread";
	c->rwmix_read = 50;
	c->runtime_s = -1;
	c->progress = -1;
	c->seed = 1;

	opterr = 0; /* one error line of our own instead of getopt's */
	while ((opt = getopt_long(argc, argv, "h", g_lopts, NULL)) != -1) {
		switch (opt) {
		case O_RW:
			c->rw_name = optarg;
			if (!strcmp(optarg, "randread")) {
				c->rw = RW_READ, c->random = true;
			} else if (!strcmp(optarg, "randwrite")) {
				c->rw = RW_WRITE, c->random = true;
			} else if (!strcmp(optarg, "randrw")) {
				c->rw = RW_MIX, c->random = true;
			} else if (!strcmp(optarg, "read")) {
				c->rw = RW_READ, c->random = false;
			} else if (!strcmp(optarg, "write")) {
				c->rw = RW_WRITE, c->random = false;
			} else if (!strcmp(optarg, "rw")) {
				c->rw = RW_MIX, c->random = false;
			} else {
				return bad("rw", optarg,
					   "expected randread, randwrite, randrw, read, "
					   "write or rw");
			}
			break;
		case O_RWMIX:
			if (parse_size(optarg, &v) || v > 100) {
				return bad("rwmixread", optarg, "expected 0..100");
			}
			c->rwmix_read = (uint32_t)v;
			break;
		case O_IOSIZE:
			if (parse_size(optarg, &v) || !v || v > (1u << 30)) {
				return bad("iosize", optarg, "expected 1..1G bytes");
			}
			c->iosize = (size_t)v;
			break;
		case O_QDEPTH:
			if (parse_size(optarg, &v) || v > PERF_QDEPTH_MAX) {
				return bad("qdepth", optarg, "expected 0..4096");
			}
			c->qdepth = (uint32_t)v;
			break;
		case O_THREADS:
			if (parse_size(optarg, &v) || !v || v > PERF_MAX_THREADS) {
				return bad("threads", optarg, "expected 1..256");
			}
			c->nthreads = (int)v;
			break;
		case O_RUNTIME: {
			char *end;

			c->runtime_s = strtod(optarg, &end);
			if (*end || end == optarg || !(c->runtime_s > 0) || c->runtime_s > 1e6) {
				return bad("runtime", optarg, "expected seconds > 0");
			}
			break;
		}
		case O_COUNT:
			if (parse_size(optarg, &v) || !v) {
				return bad("count", optarg, "expected a count >= 1");
			}
			c->count = v;
			break;
		case O_SIZE:
			if (parse_size(optarg, &v) || !v) {
				return bad("size", optarg, "expected bytes >= 1");
			}
			c->size = v;
			break;
		case O_SEED:
			if (parse_size(optarg, &v)) {
				return bad("seed", optarg, "expected a number");
			}
			c->seed = v;
			break;
		case O_BE:
			c->opts.be = optarg;
			break;
		case O_MEM:
			c->opts.mem = optarg;
			break;
		case O_SYNC:
			c->opts.sync = optarg;
			break;
		case O_ASYNC:
			c->opts.async = optarg;
			break;
		case O_ADMIN:
			c->opts.admin = optarg;
			break;
		case O_NSID:
			if (parse_size(optarg, &v) || v > UINT32_MAX) {
				return bad("dev-nsid", optarg, "expected a namespace id");
			}
			c->opts.nsid = (uint32_t)v;
			break;
		case O_DIRECT:
			/* a flag, as on every tool; a following 0 or 1 is still its value */
			c->opts.direct = 1;
			if (optarg) {
				if (strcmp(optarg, "0") && strcmp(optarg, "1")) {
					return bad("direct", optarg,
						   "expected 0 or 1 (or no value)");
				}
				c->opts.direct = optarg[0] == '1';
			} else if (optind < argc &&
				   (!strcmp(argv[optind], "0") || !strcmp(argv[optind], "1"))) {
				c->opts.direct = argv[optind][0] == '1';
				optind++;
			}
			break;
		case O_VERSION:
			exit(tool_version_pr("xnvmeperf"));
		case O_POLL_IO:
			c->opts.poll_io = 1;
			break;
		case O_POLL_SQ:
			c->opts.poll_sq = 1;
			break;
		case O_REGF:
			c->opts.register_files = 1;
			break;
		case O_REGB:
			c->opts.register_buffers = 1;
			break;
		case O_RDONLY:
			c->opts.rdonly = 1;
			break;
		case O_SHM_ID: {
			/* hexadecimal with 0x optional, as the CLI builder's --shm_id */
			const char *h = strncmp(optarg, "0x", 2) ? optarg : optarg + 2;
			char *end;

			errno = 0;
			v = strtoull(h, &end, 16);
			if (!*h || *end || errno || v > UINT32_MAX ||
			    !isxdigit((unsigned char)*h)) {
				return bad("shm-id", optarg, "expected a hexadecimal id");
			}
			c->opts.shm_id = (uint32_t)v;
			break;
		}
		case O_OUTPUT:
			if (!strcmp(optarg, "json")) {
				c->json = true;
			} else if (!strcmp(optarg, "text")) {
				c->json = false;
			} else {
				return bad("output", optarg, "expected text or json");
			}
			break;
		case O_JSON:
			c->json = true;
			break;
		case O_PROGRESS:
			c->progress = 1;
			break;
		case O_NO_PROGRESS:
			c->progress = 0;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return usage_err("unknown option or missing value (see xnvmeperf --help): ",
					 optind > 0 && optind <= argc ? argv[optind - 1] : "?");
		}
	}
	for (int i = optind; i < argc; ++i) {
		if (c->ndevs == PERF_MAX_DEVS) {
			fprintf(stderr, "xnvmeperf: at most %d devices\n", PERF_MAX_DEVS);
			return -EINVAL;
		}
		c->uris[c->ndevs++] = argv[i];
	}
	if (!c->ndevs) {
		usage(stderr);
		return usage_err("no device URI given", "");
	}
	if (c->rw != RW_READ && c->opts.rdonly) {
		fprintf(stderr, "xnvmeperf: --rw %s writes; drop --rdonly\n", c->rw_name);
		return -EINVAL;
	}
	if (!c->nthreads) {
		c->nthreads = c->ndevs;
	}
	if (c->runtime_s < 0) {
		c->runtime_s = c->count ? 0 : 5;
	} else if (c->count) {
		fprintf(stderr, "xnvmeperf: give --runtime or --count, not both\n");
		return -EINVAL;
	}
	return 0;
}
