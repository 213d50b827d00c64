// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer harness of the CLI parser core (lib/cli/cli_parse.h).
 *
 * The input is split on NUL and newline bytes into argv (argv[0] included, so the tool name is
 * fuzzed too) and parsed against a tool table that uses every option type, every value type and
 * every kind of destination member, plus a sub with malformed entries. Usage texts, the man page
 * and the completion script are rendered to /dev/null when the parse asks for them. Beyond
 * "no crash", the harness checks invariants of a successful parse and that parsing is
 * deterministic (no state kept between calls).
 *
 * Needs only cli_opts.c, cli_parse.c, cli_usage.c, cli_gen.c and ver.c; tests/fuzz/replay.c
 * provides a main() that replays a corpus without libFuzzer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme_cli.h>
#include "cli/cli_parse.h"

#define MAX_ARGS 64

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
nop(struct xnvme_cli *cli)
{
	(void)cli;
	return 0;
}

static struct xnvme_cli_sub g_subs[] = {
	{
		"write",
		"Write blocks",
		"Write nlb + 1 blocks",
		nop,
		{
			{XNVME_CLI_OPT_POSA_TITLE, XNVME_CLI_SKIP},
			{XNVME_CLI_OPT_URI, XNVME_CLI_POSA},
			{XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP},
			{XNVME_CLI_OPT_SLBA, XNVME_CLI_LREQ},
			{XNVME_CLI_OPT_NLB, XNVME_CLI_LREQ},
			{XNVME_CLI_OPT_NSID, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_DATA_INPUT, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_ALL, XNVME_CLI_LFLG},
			XNVME_CLI_SYNC_OPTS,
		},
	},
	{
		"copy",
		"Copy a file",
		NULL,
		nop,
		{
			{XNVME_CLI_OPT_DATA_INPUT, XNVME_CLI_POSA},
			{XNVME_CLI_OPT_DATA_OUTPUT, XNVME_CLI_POSA},
			{XNVME_CLI_OPT_DATA_NBYTES, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_IOSIZE, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_DIRECT, XNVME_CLI_LFLG},
		},
	},
	{
		"enum",
		NULL,
		NULL,
		nop,
		{
			{XNVME_CLI_OPT_SYS_URI, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_FLAGS, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_CSS, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_PRCHK, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_AD, XNVME_CLI_LFLG},
			{XNVME_CLI_OPT_CLEAR, XNVME_CLI_LOPT},
			XNVME_CLI_CORE_OPTS,
		},
	},
	{
		"kv",
		"KV store",
		"Store a value",
		nop,
		{
			{XNVME_CLI_OPT_URI, XNVME_CLI_POSA},
			{XNVME_CLI_OPT_KV_KEY, XNVME_CLI_LREQ},
			{XNVME_CLI_OPT_KV_VAL, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_KV_STORE_ADD, XNVME_CLI_LFLG},
			{XNVME_CLI_OPT_KV_STORE_UPDATE, XNVME_CLI_LFLG},
			{XNVME_CLI_OPT_DIRECT, XNVME_CLI_LOPT},
			XNVME_CLI_ASYNC_OPTS,
		},
	},
	{
		"write-read",
		"Numeric positional",
		NULL,
		nop,
		{
			{XNVME_CLI_OPT_URI, XNVME_CLI_POSA},
			{XNVME_CLI_OPT_DATA_NBYTES, XNVME_CLI_POSA},
		},
	},
	{
		"noargs",
		"Nothing at all",
		"",
		NULL,
		{{XNVME_CLI_OPT_END, XNVME_CLI_SKIP}},
	},
	{
		"malformed",
		"Entries a careless table could hold",
		"'quotes' \"dq\" \\back\n.dot -dash",
		nop,
		{
			{(enum xnvme_cli_opt)94, XNVME_CLI_LOPT},
			{(enum xnvme_cli_opt)200, XNVME_CLI_LOPT},
			{(enum xnvme_cli_opt) - 3, XNVME_CLI_LFLG},
			{XNVME_CLI_OPT_NLB, (enum xnvme_cli_opt_type)9},
			{XNVME_CLI_OPT_ORCH_TITLE, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_POSA_TITLE, XNVME_CLI_POSA},
			{XNVME_CLI_OPT_HELP, XNVME_CLI_LFLG},
			{XNVME_CLI_OPT_BE, XNVME_CLI_LFLG},
			{XNVME_CLI_OPT_SLBA, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_SLBA, XNVME_CLI_LREQ},
		},
	},
	{NULL, NULL, NULL, NULL, {{0}}},           /* nameless entries are skipped */
	{"all", "Every option", NULL, nop, {{0}}}, /* filled by fill_all() */
};

static struct xnvme_cli g_cli = {
	.title = "fuzz",
	.descr_short = "CLI parser fuzz target",
	.descr_long = "Parses fuzzed command lines",
	.nsubs = sizeof(g_subs) / sizeof(g_subs[0]),
	.subs = g_subs,
};

static FILE *g_null;

/* Every known option in one sub: URI positional, titles as titles, a mix of flags and values */
static void
fill_all(struct xnvme_cli_sub *sub)
{
	int n = 0;

	for (int opt = 1; opt < XNVME_CLI_OPT_END && n < XNVME_CLI_SUB_OPTS_LEN; ++opt) {
		const struct xnvme_cli_opt_attr *attr = xnvme_cli_get_opt_attr(opt);
		enum xnvme_cli_opt_type type = XNVME_CLI_LOPT;

		if (!attr || opt == XNVME_CLI_OPT_HELP) {
			continue;
		}
		if (attr->vtype == XNVME_CLI_OPT_VTYPE_SKIP) {
			type = XNVME_CLI_SKIP;
		} else if (opt == XNVME_CLI_OPT_URI) {
			type = XNVME_CLI_POSA;
		} else if (opt % 7 == 0) {
			type = XNVME_CLI_LFLG;
		}
		sub->opts[n].opt = (enum xnvme_cli_opt)opt;
		sub->opts[n].type = type;
		n++;
	}
}

static int
ver_nop(int opts)
{
	(void)opts;
	return 0;
}

/* Does p point into (or at the end of) one of the argument strings? */
static int
in_argv(const char *p, int argc, char **argv)
{
	for (int i = 0; i < argc; ++i) {
		size_t len = strlen(argv[i]);

		if (p >= argv[i] && p <= argv[i] + len) {
			return 1;
		}
	}
	return 0;
}

static void
check_run(const struct xnvme_cli *cli, int argc, char **argv)
{
	const struct xnvme_cli_sub *sub = cli->sub;
	int nopts = xnvme_cli_sub_nopts(sub);

	if (!sub || sub < g_subs || sub >= g_subs + g_cli.nsubs || !sub->name) {
		abort();
	}
	if (argc < 2 || strcmp(argv[1], sub->name)) {
		abort();
	}
	for (int opt = 0; opt < XNVME_CLI_OPT_END; ++opt) {
		if (cli->given[opt] != 0 && cli->given[opt] != 1) {
			abort();
		}
		if (cli->given[opt] && !xnvme_cli_opt_info(opt)) {
			abort();
		}
	}
	if (cli->given[XNVME_CLI_OPT_HELP]) {
		abort(); /* help never reaches RUN */
	}
	for (int i = 0; i < nopts; ++i) {
		const struct xnvme_cli_opt_info *info = xnvme_cli_sub_opt_info(sub, i);
		const char *str;

		if (!info || info->attr.vtype == XNVME_CLI_OPT_VTYPE_SKIP) {
			continue;
		}
		if ((sub->opts[i].type == XNVME_CLI_LREQ || sub->opts[i].type == XNVME_CLI_POSA) &&
		    !cli->given[info->attr.opt]) {
			abort();
		}
		if (info->dest != XNVME_CLI_DEST_STR || !cli->given[info->attr.opt]) {
			continue;
		}
		memcpy(&str, (const char *)&cli->args + info->offset, sizeof(str));
		if (sub->opts[i].type != XNVME_CLI_LFLG && (!str || !in_argv(str, argc, argv))) {
			abort();
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xnvme_cli_args args_first;
	static int given_first[XNVME_CLI_OPT_END];
	char *argv[MAX_ARGS + 1];
	int argc = 0;
	size_t start = 0;
	int status;

	if (!g_null) {
		g_null = fopen("/dev/null", "w");
		if (!g_null) {
			abort();
		}
		fill_all(&g_subs[g_cli.nsubs - 1]);
		g_cli.ver_pr = ver_nop;
	}

	/* every token in its own exact-size allocation, so that overreads are caught */
	for (size_t i = 0; i <= size && argc < MAX_ARGS; ++i) {
		if (i == size || data[i] == '\0' || data[i] == '\n') {
			size_t len = i - start;

			argv[argc] = malloc(len + 1);
			if (!argv[argc]) {
				abort();
			}
			memcpy(argv[argc], data + start, len);
			argv[argc][len] = '\0';
			argc++;
			start = i + 1;
		}
	}
	argv[argc] = NULL;

	status = xnvme_cli_parse(&g_cli, argc, argv, g_null);
	memcpy(&args_first, &g_cli.args, sizeof(args_first));
	memcpy(given_first, g_cli.given, sizeof(given_first));

	switch (status) {
	case XNVME_CLI_PARSE_RUN:
		check_run(&g_cli, argc, argv);
		break;
	case XNVME_CLI_PARSE_TOOL_HELP:
		xnvme_cli_usage_tool(g_null, &g_cli);
		break;
	case XNVME_CLI_PARSE_SUB_HELP:
		if (!g_cli.sub) {
			abort();
		}
		xnvme_cli_usage_sub(g_null, &g_cli, g_cli.sub);
		break;
	case XNVME_CLI_PARSE_GEN_MAN:
		xnvme_cli_gen_man(g_null, &g_cli);
		break;
	case XNVME_CLI_PARSE_GEN_BASH:
		xnvme_cli_gen_bash(g_null, &g_cli);
		break;
	case XNVME_CLI_PARSE_ERROR:
		break;
	default:
		abort();
	}

	/* a second parse of the same argv must give the same result: no hidden state */
	if (xnvme_cli_parse(&g_cli, argc, argv, NULL) != status ||
	    memcmp(&args_first, &g_cli.args, sizeof(args_first)) ||
	    memcmp(given_first, g_cli.given, sizeof(given_first))) {
		abort();
	}

	for (int i = 0; i < argc; ++i) {
		free(argv[i]);
	}
	return 0;
}
