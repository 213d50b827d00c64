// SPDX-License-Identifier: BSD-3-Clause
/*
 * Options a tool defines itself (xnvme_cli_run_tool_opts(), libxnvme_cli.h): parsed with the
 * same rules as the library's options (number syntax, size units, limits, repeats, flags,
 * required options), a repeated positional collecting its values in order, usage, man page and
 * completion generated from the table, attributes visible while the tool runs and gone after,
 * nested runs restoring the table, and malformed tables refused. Public API only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxnvme.h>
#include "xnvme_test.h"
#include "cli_capture.h"

#define TOPT(i, type)                                                                              \
	{                                                                                          \
		(enum xnvme_cli_opt)(XNVME_CLI_OPT_TOOL + (i)), type                               \
	}

enum { T_DEV, T_MODE, T_PCT, T_SIZE, T_HEXV, T_FAST, T_NAME, T_N };

static const char *g_devs[3];

static struct xnvme_cli_tool_opt g_topts[T_N] = {
	[T_DEV] = {.name = "dev",
		   .descr = "Devices",
		   .vtype = XNVME_CLI_OPT_VTYPE_URI,
		   .flags = XNVME_CLI_TOOL_OPT_REPEAT,
		   .vals = g_devs,
		   .vals_max = 3},
	[T_MODE] = {.name = "mode",
		    .descr = "The mode: fast or slow",
		    .vtype = XNVME_CLI_OPT_VTYPE_STR,
		    .values = "fast slow"},
	[T_PCT] = {.name = "pct",
		   .descr = "A percentage",
		   .vtype = XNVME_CLI_OPT_VTYPE_NUM,
		   .max = 100},
	[T_SIZE] = {.name = "span",
		    .descr = "Bytes",
		    .vtype = XNVME_CLI_OPT_VTYPE_NUM,
		    .flags = XNVME_CLI_TOOL_OPT_SIZE},
	[T_HEXV] = {.name = "mask", .descr = "A mask", .vtype = XNVME_CLI_OPT_VTYPE_HEX},
	[T_FAST] = {.name = "fast", .descr = "Go fast", .vtype = XNVME_CLI_OPT_VTYPE_NUM},
	[T_NAME] = {.name = "label", .descr = "A required label", .vtype = XNVME_CLI_OPT_VTYPE_STR},
};

static int g_calls;
static const char *g_attr_name; ///< the name of tool option T_MODE as seen during the run

static int
sub_cmd(struct xnvme_cli *cli)
{
	const struct xnvme_cli_opt_attr *attr =
		xnvme_cli_get_opt_attr((enum xnvme_cli_opt)(XNVME_CLI_OPT_TOOL + T_MODE));

	(void)cli;
	g_calls++;
	g_attr_name = attr ? attr->name : NULL;
	return 0;
}

static struct xnvme_cli_sub g_subs[] = {
	{
		"run",
		"Run it",
		"Runs on every dev",
		sub_cmd,
		{
			{XNVME_CLI_OPT_POSA_TITLE, XNVME_CLI_SKIP},
			TOPT(T_DEV, XNVME_CLI_POSA),
			{XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP},
			TOPT(T_MODE, XNVME_CLI_LOPT),
			TOPT(T_PCT, XNVME_CLI_LOPT),
			TOPT(T_SIZE, XNVME_CLI_LOPT),
			TOPT(T_HEXV, XNVME_CLI_LOPT),
			TOPT(T_FAST, XNVME_CLI_LFLG),
			{XNVME_CLI_OPT_QDEPTH, XNVME_CLI_LOPT},
			XNVME_CLI_CORE_OPTS,
		},
	},
	{
		"tag",
		"Tag something",
		NULL,
		sub_cmd,
		{
			{XNVME_CLI_OPT_URI, XNVME_CLI_POSA},
			TOPT(T_NAME, XNVME_CLI_LREQ),
		},
	},
};

static struct xnvme_cli g_cli = {
	.title = "tooltest",
	.descr_short = "Options of the tool's own",
	.nsubs = sizeof(g_subs) / sizeof(g_subs[0]),
	.subs = g_subs,
};

/* argv of the last run (values point into it until the next run) and its output */
static struct cli_capture g_cap;
#define g_out (g_cap.out)
#define g_err (g_cap.err)

/* Runs `tooltest <args...>` with `n` tool options, stdout and stderr captured */
static int
run(int n, ...)
{
	va_list ap;
	int ret;

	va_start(ap, n);
	cli_capture_args(&g_cap, "/usr/bin/tooltest", ap);
	va_end(ap);
	cli_capture_begin(&g_cap);
	ret = xnvme_cli_run_tool_opts(&g_cli, g_cap.argc, g_cap.argv, 0, n ? g_topts : NULL, n);
	cli_capture_end(&g_cap);
	return ret;
}

#define HAS(buf, s) ((buf) && strstr((buf), (s)) != NULL)
#define FAILS(needle, ...)                                                                         \
	do {                                                                                       \
		g_calls = 0;                                                                       \
		CHECK_EQ(run(T_N, __VA_ARGS__, NULL), -1);                                         \
		CHECK_EQ(g_calls, 0);                                                              \
		if (!HAS(g_err, needle)) {                                                         \
			fprintf(stderr, "FAIL: '%s' not in: %s\n", needle, g_err ? g_err : "");    \
			CHECK(0);                                                                  \
		}                                                                                  \
	} while (0)

static void
test_values(void)
{
	struct xnvme_cli_tool_opt *t = g_topts;

	g_calls = 0;
	CHECK_EQ(run(T_N, "run", "1GB", "--mode", "fast", "2GB", "--pct", "0x64", "--span", "4k",
		     "--mask", "ff", "--fast", "--qdepth", "8", "3GB", NULL),
		 0);
	CHECK_EQ(g_calls, 1);
	/* the repeated positional: every value, in command-line order */
	CHECK_EQ(t[T_DEV].given, 3);
	CHECK(t[T_DEV].str && !strcmp(t[T_DEV].str, "1GB"));
	CHECK(g_devs[0] && !strcmp(g_devs[0], "1GB"));
	CHECK(g_devs[1] && !strcmp(g_devs[1], "2GB"));
	CHECK(g_devs[2] && !strcmp(g_devs[2], "3GB"));
	CHECK_EQ(t[T_MODE].given, 1);
	CHECK(!strcmp(t[T_MODE].str, "fast"));
	CHECK_EQ(t[T_PCT].num, 100);
	CHECK_EQ(t[T_SIZE].num, 4096);
	CHECK_EQ(t[T_HEXV].num, 0xff);
	CHECK_EQ(t[T_FAST].given, 1);
	CHECK_EQ(t[T_FAST].num, 1);
	/* the library's options of the same subcommand still land in args */
	CHECK_EQ(g_cli.given[XNVME_CLI_OPT_QDEPTH], 1);
	CHECK_EQ(g_cli.args.qdepth, 8);
	/* while the tool ran, its option was known by its value */
	CHECK(g_attr_name && !strcmp(g_attr_name, "mode"));
	/* and is not afterwards */
	CHECK(xnvme_cli_get_opt_attr((enum xnvme_cli_opt)(XNVME_CLI_OPT_TOOL + T_MODE)) == NULL);

	/* every run starts from cleared values */
	CHECK_EQ(run(T_N, "run", "1GB", NULL), 0);
	CHECK_EQ(t[T_DEV].given, 1);
	CHECK_EQ(t[T_MODE].given, 0);
	CHECK(t[T_MODE].str == NULL);
	CHECK_EQ(t[T_PCT].num, 0);
	CHECK_EQ(t[T_FAST].given, 0);
	CHECK_EQ(g_cli.given[XNVME_CLI_OPT_QDEPTH], 0);

	/* --name=value, and values after "--" are positionals */
	CHECK_EQ(run(T_N, "run", "--pct=7", "--", "--dev-named-oddly", NULL), 0);
	CHECK_EQ(t[T_PCT].num, 7);
	CHECK(!strcmp(g_devs[0], "--dev-named-oddly"));

	CHECK_EQ(run(T_N, "tag", "1GB", "--label", "x", NULL), 0);
	CHECK(!strcmp(t[T_NAME].str, "x"));
}

static void
test_refusals(void)
{
	FAILS("option --pct: value \"101\" out of range (max 100)", "run", "1GB", "--pct", "101");
	FAILS("0x prefix", "run", "1GB", "--pct", "ff");
	FAILS("--pct", "run", "1GB", "--pct", "1k"); /* no unit: not a size */
	FAILS("--span", "run", "1GB", "--span", "1q");
	FAILS("given more than once", "run", "1GB", "--mode", "a", "--mode", "b");
	FAILS("is a flag and takes no value", "run", "1GB", "--fast=1");
	FAILS("requires a STR value", "run", "1GB", "--mode");
	FAILS("at most 3 <dev> values", "run", "a", "b", "c", "d");
	FAILS("missing positional argument <dev>", "run", "--pct", "1");
	FAILS("Usage: tooltest run <dev>...", "run", "--pct", "1");
	FAILS("missing required option --label", "tag", "1GB");
	FAILS("empty value", "run", "");
	FAILS("unknown option \"--label\"", "run", "1GB", "--label", "x");
	/* without the table the option values name nothing: the entries are skipped */
	CHECK_EQ(run(0, "run", NULL), 0);
	CHECK_EQ(run(0, "run", "1GB", NULL), -1);
	CHECK(HAS(g_err, "unexpected argument"));
}

static void
test_docs(void)
{
	CHECK_EQ(run(T_N, "run", "--help", NULL), 0);
	CHECK(HAS(g_out, "Usage: tooltest run <dev>... [<args>]"));
	CHECK(HAS(g_out, "[ --mode STR ]"));
	CHECK(HAS(g_out, "; The mode: fast or slow"));
	CHECK(HAS(g_out, "[ --fast ]"));
	CHECK(HAS(g_out, "[ --span NUM ]"));
	CHECK(HAS(g_out, "[ --mask HEX ]"));

	CHECK_EQ(run(T_N, "--gen-man", NULL), 0);
	CHECK(HAS(g_out, "\\fIdev\\fR .\\|.\\|."));
	CHECK(HAS(g_out, "[\\fB\\-\\-mode\\fR \\fISTR\\fR]"));
	CHECK(HAS(g_out, "\\-\\-label"));

	CHECK_EQ(run(T_N, "--gen-bash-completion", NULL), 0);
	CHECK(HAS(g_out, "--mode)\n\t\tCOMPREPLY=( $(compgen -W \"fast slow\""));
	CHECK(HAS(g_out, "--fast"));
	CHECK(HAS(g_out, "--pct"));
}

static struct xnvme_cli_tool_opt g_inner[1] = {
	{.name = "inner", .descr = "Inner", .vtype = XNVME_CLI_OPT_VTYPE_STR},
};

static int
sub_nested(struct xnvme_cli *cli)
{
	static struct xnvme_cli_sub subs[] = {
		{"in", "Inner", NULL, sub_cmd, {TOPT(0, XNVME_CLI_LOPT)}},
	};
	static struct xnvme_cli inner = {.title = "inner", .nsubs = 1, .subs = subs};
	char *argv[] = {"inner", "in", "--inner", "v", NULL};
	const struct xnvme_cli_opt_attr *attr;

	(void)cli;
	CHECK_EQ(xnvme_cli_run_tool_opts(&inner, 4, argv, 0, g_inner, 1), 0);
	CHECK(!strcmp(g_inner[0].str, "v"));
	/* the outer table is back */
	attr = xnvme_cli_get_opt_attr((enum xnvme_cli_opt)XNVME_CLI_OPT_TOOL);
	CHECK(attr && !strcmp(attr->name, "dev"));
	return 0;
}

static void
test_nesting_and_tables(void)
{
	struct xnvme_cli_tool_opt bad[2] = {
		{.name = "ok", .vtype = XNVME_CLI_OPT_VTYPE_NUM},
		{.name = NULL, .vtype = XNVME_CLI_OPT_VTYPE_NUM},
	};
	struct xnvme_cli_tool_opt badtype[1] = {{.name = "x", .vtype = XNVME_CLI_OPT_VTYPE_SKIP}};
	xnvme_cli_subfunc saved = g_subs[0].command;
	char *argv[] = {"tooltest", "run", "1GB", NULL};

	g_subs[0].command = sub_nested;
	CHECK_EQ(run(T_N, "run", "1GB", NULL), 0);
	g_subs[0].command = saved;

	CHECK_EQ(xnvme_cli_run_tool_opts(&g_cli, 3, argv, 0, bad, 2), -EINVAL);
	CHECK_EQ(xnvme_cli_run_tool_opts(&g_cli, 3, argv, 0, badtype, 1), -EINVAL);
	CHECK_EQ(xnvme_cli_run_tool_opts(&g_cli, 3, argv, 0, g_topts, XNVME_CLI_TOOL_OPTS_MAX + 1),
		 -EINVAL);
	CHECK_EQ(xnvme_cli_run_tool_opts(&g_cli, 3, argv, 0, NULL, 1), -EINVAL);
	CHECK_EQ(xnvme_cli_run_tool_opts(NULL, 3, argv, 0, g_topts, T_N), -EINVAL);
	/* a refused table left nothing behind */
	CHECK(xnvme_cli_get_opt_attr((enum xnvme_cli_opt)XNVME_CLI_OPT_TOOL) == NULL);
}

int
main(void)
{
	test_values();
	test_refusals();
	test_docs();
	test_nesting_and_tables();
	cli_capture_free(&g_cap);
	return xnvme_test_result("cli_tool_opts");
}
