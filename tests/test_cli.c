// SPDX-License-Identifier: BSD-3-Clause
/*
 * The CLI builder: parsing into args/given, strict value conversion, usage, exit statuses,
 * messages, generated man page and completion, xnvme_cli_to_opts() and the small helpers.
 * Uses the public API plus the internal parser header (links the static library).
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <libxnvme.h>
#include "cli/cli_parse.h"
#include "xnvme_test.h"
#include "cli_capture.h"

static int g_calls;
static int g_ret;
static struct xnvme_dev *g_dev_seen;

static int
sub_cmd(struct xnvme_cli *cli)
{
	g_calls++;
	g_dev_seen = cli->args.dev;
	return g_ret;
}

static struct xnvme_cli_sub g_subs[] = {
	{
		"write",
		"Write blocks",
		"Write nlb + 1 blocks starting at slba",
		sub_cmd,
		{
			{XNVME_CLI_OPT_POSA_TITLE, XNVME_CLI_SKIP},
			{XNVME_CLI_OPT_URI, XNVME_CLI_POSA},
			{XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP},
			{XNVME_CLI_OPT_SLBA, XNVME_CLI_LREQ},
			{XNVME_CLI_OPT_NLB, XNVME_CLI_LREQ},
			{XNVME_CLI_OPT_NSID, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_DATA_INPUT, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_ALL, XNVME_CLI_LFLG},
			{XNVME_CLI_OPT_VERBOSE, XNVME_CLI_LFLG},
			XNVME_CLI_SYNC_OPTS,
		},
	},
	{
		"enum",
		"Enumerate devices",
		NULL,
		sub_cmd,
		{
			{XNVME_CLI_OPT_SYS_URI, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_FLAGS, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_CSS, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_SHM_ID, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_PRCHK, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_RDONLY, XNVME_CLI_LOPT},
			XNVME_CLI_CORE_OPTS,
		},
	},
	{
		"copy-sync",
		"Copy a file",
		"Copy data-input to data-output",
		sub_cmd,
		{
			{XNVME_CLI_OPT_DATA_INPUT, XNVME_CLI_POSA},
			{XNVME_CLI_OPT_DATA_OUTPUT, XNVME_CLI_POSA},
			{XNVME_CLI_OPT_DATA_NBYTES, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_IOSIZE, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_DIRECT, XNVME_CLI_LFLG},
		},
	},
};

static struct xnvme_cli g_cli = {
	.title = "testcli",
	.descr_short = "A tool for testing the CLI builder",
	.descr_long = NULL,
	.nsubs = sizeof(g_subs) / sizeof(g_subs[0]),
	.subs = g_subs,
};

/* argv of the last run (args point into it until the next run) and its output */
static struct cli_capture g_cap;
#define g_out (g_cap.out)
#define g_err (g_cap.err)

/* Runs `testcli <args...>` with stdout and stderr captured into g_out and g_err */
static int
run(int opts, ...)
{
	va_list ap;
	int ret;

	va_start(ap, opts);
	cli_capture_args(&g_cap, "/usr/bin/testcli", ap);
	va_end(ap);
	cli_capture_begin(&g_cap);
	ret = xnvme_cli_run(&g_cli, g_cap.argc, g_cap.argv, opts);
	cli_capture_end(&g_cap);
	return ret;
}

#define HAS(buf, s) ((buf) && strstr((buf), (s)) != NULL)

static void
test_parse_values(void)
{
	struct xnvme_cli_args *a = &g_cli.args;

	g_calls = 0;
	CHECK_EQ(
		run(0, "write", "1GB", "--slba", "0x10", "--nlb", "7", "--nsid=0xA", "--all", NULL),
		0);
	CHECK_EQ(g_calls, 1);
	CHECK(g_cli.sub == &g_subs[0]);
	CHECK(a->uri && !strcmp(a->uri, "1GB"));
	CHECK_EQ(a->slba, 0x10);
	CHECK_EQ(a->nlb, 7);
	CHECK_EQ(a->nsid, 0xA);
	CHECK_EQ(a->all, 1);
	CHECK_EQ(g_cli.given[XNVME_CLI_OPT_URI], 1);
	CHECK_EQ(g_cli.given[XNVME_CLI_OPT_SLBA], 1);
	CHECK_EQ(g_cli.given[XNVME_CLI_OPT_NLB], 1);
	CHECK_EQ(g_cli.given[XNVME_CLI_OPT_NSID], 1);
	CHECK_EQ(g_cli.given[XNVME_CLI_OPT_ALL], 1);
	CHECK_EQ(g_cli.given[XNVME_CLI_OPT_DATA_INPUT], 0);
	CHECK_EQ(g_cli.given[XNVME_CLI_OPT_HELP], 0);
	CHECK(a->data_input == NULL);

	/* options before the positional; HEX options are hexadecimal, 0x optional; = form */
	CHECK_EQ(run(0, "write", "--slba", "10", "--nlb=0", "--data-input=/tmp/x y", "1GB", NULL),
		 0);
	CHECK_EQ(a->slba, 0x10);
	CHECK_EQ(a->nlb, 0);
	CHECK(a->data_input && !strcmp(a->data_input, "/tmp/x y"));
	CHECK(a->uri && !strcmp(a->uri, "1GB"));
	CHECK_EQ(run(0, "write", "1GB", "--slba", "0XfF", "--nlb", "00012", NULL), 0);
	CHECK_EQ(a->slba, 0xff);
	CHECK_EQ(a->nlb, 12);
	CHECK_EQ(run(0, "write", "1GB", "--slba", "ff", "--nlb", "0", NULL), 0);
	CHECK_EQ(a->slba, 0xff);
	/* NUM options take 0x-prefixed hexadecimal too */
	CHECK_EQ(run(0, "write", "1GB", "--slba", "0", "--nlb", "0x10", NULL), 0);
	CHECK_EQ(a->nlb, 0x10);
	CHECK_EQ(a->nlb, 16);

	/* sizes take binary units */
	CHECK_EQ(run(0, "copy-sync", "a", "b", "--data-nbytes", "4k", NULL), 0);
	CHECK_EQ(a->data_nbytes, 4096);
	CHECK_EQ(run(0, "copy-sync", "a", "b", "--data-nbytes", "2MiB", NULL), 0);
	CHECK_EQ(a->data_nbytes, 2 << 20);
	CHECK_EQ(run(0, "copy-sync", "a", "b", "--data-nbytes", "1GB", NULL), 0);
	CHECK_EQ(a->data_nbytes, 1 << 30);
	CHECK_EQ(run(0, "copy-sync", "a", "b", "--data-nbytes", "0x1000", NULL), 0);
	CHECK_EQ(a->data_nbytes, 4096);

	/* --direct is a flag; a following 0 or 1 is its value, anything else a positional */
	CHECK_EQ(run(0, "write", "1GB", "--slba", "0", "--nlb", "0", "--direct", NULL), 0);
	CHECK_EQ(a->direct, 1);
	CHECK_EQ(run(0, "write", "--direct", "0", "1GB", "--slba", "0", "--nlb", "0", NULL), 0);
	CHECK_EQ(a->direct, 0);
	CHECK(a->uri && !strcmp(a->uri, "1GB"));
	CHECK_EQ(run(0, "write", "--direct", "1GB", "--slba", "0", "--nlb", "0", NULL), 0);
	CHECK_EQ(a->direct, 1);
	CHECK(a->uri && !strcmp(a->uri, "1GB"));

	/* limits of the member types are accepted */
	CHECK_EQ(run(0, "write", "1GB", "--slba", "0xffffffffffffffff", "--nlb", "4294967295",
		     "--nsid", "0xffffffff", NULL),
		 0);
	CHECK(a->slba == UINT64_MAX);
	CHECK(a->nlb == UINT32_MAX);
	CHECK(a->nsid == UINT32_MAX);

	/* backend group options, a NUM value into a bool member */
	CHECK_EQ(run(0, "write", "1GB", "--slba", "0", "--nlb", "0", "--be", "linux", "--direct",
		     "1", "--dev-nsid", "0x2", NULL),
		 0);
	CHECK(a->be && !strcmp(a->be, "linux"));
	CHECK_EQ(a->direct, 1);
	CHECK_EQ(a->dev_nsid, 2);

	/* two positionals, "--" ends the options, a flag, NUM into size_t */
	CHECK_EQ(run(0, "copy-sync", "--direct", "--data-nbytes", "18446744073709551615", "--",
		     "--in", "-", NULL),
		 0);
	CHECK(a->data_input && !strcmp(a->data_input, "--in"));
	CHECK(a->data_output && !strcmp(a->data_output, "-"));
	CHECK_EQ(a->direct, 1);
	CHECK(a->data_nbytes == SIZE_MAX);
	/* --direct declared as a flag parses its 0/1 value the same way */
	CHECK_EQ(run(0, "copy-sync", "in", "--direct", "0", "out", NULL), 0);
	CHECK_EQ(a->direct, 0);
	CHECK(a->data_output && !strcmp(a->data_output, "out"));
	CHECK_EQ(run(0, "copy-sync", "in", "out", "--direct=1", NULL), 0);
	CHECK_EQ(a->direct, 1);
	CHECK_EQ(g_cli.given[XNVME_CLI_OPT_DATA_INPUT], 1);
	CHECK_EQ(g_cli.given[XNVME_CLI_OPT_DATA_OUTPUT], 1);

	/* SYS_URI is --uri; css sets value and given; u8 and 32-bit-limited members */
	CHECK_EQ(run(0, "enum", "--uri", "10.0.0.1:4420", "--css", "0x7", "--prchk", "0xff",
		     "--shm_id", "0xffffffff", NULL),
		 0);
	CHECK(a->sys_uri && !strcmp(a->sys_uri, "10.0.0.1:4420"));
	CHECK(a->uri == NULL);
	CHECK_EQ(a->css.value, 7);
	CHECK_EQ(a->css.given, 1);
	CHECK_EQ(a->prchk, 0xff);
	CHECK_EQ(a->shm_id, 0xffffffffULL);
}

static void
test_help(void)
{
	g_calls = 0;
	CHECK_EQ(run(0, NULL), 0);
	CHECK(HAS(g_out, "write") && HAS(g_out, "enum") && HAS(g_out, "copy-sync"));
	CHECK(HAS(g_out, "testcli <command> --help"));
	CHECK(HAS(g_out, "testcli -- ver: {major: 0, minor: 7, patch: 5}"));
	CHECK_EQ(run(0, "--help", NULL), 0);
	CHECK(HAS(g_out, "Enumerate devices"));
	CHECK_EQ(run(0, "-h", NULL), 0);
	CHECK(HAS(g_out, "copy-sync"));

	/* --help wins over missing and bad arguments */
	CHECK_EQ(run(0, "write", "--help", NULL), 0);
	CHECK(HAS(g_out, "Usage: testcli write <uri>"));
	CHECK(HAS(g_out, "Write nlb + 1 blocks starting at slba"));
	CHECK(HAS(g_out, "--slba HEX"));
	CHECK(HAS(g_out, "--nlb NUM"));
	CHECK(HAS(g_out, "[ --nsid HEX ]"));
	CHECK(HAS(g_out, "[ --data-input FILE ]"));
	CHECK(HAS(g_out, "[ --all ]"));
	CHECK(HAS(g_out, "[ --be STR ]"));
	CHECK(HAS(g_out, "[ --help ]"));
	CHECK(HAS(g_out, "; Start logical block address"));
	CHECK(HAS(g_out, "testcli -- ver: {major: 0, minor: 7, patch: 5}"));
	CHECK_EQ(run(0, "write", "1GB", "--slba", "zz", "--help", NULL), 0);
	CHECK_EQ(run(0, "copy-sync", "--help", NULL), 0);
	CHECK(HAS(g_out, "<data-input> <data-output>"));
	CHECK_EQ(run(0, "enum", "--help", NULL), 0);
	CHECK_EQ(g_calls, 0);

	/* after "--" it is a positional; --help takes no value */
	CHECK_EQ(run(0, "copy-sync", "a", "--", "--help", NULL), 0);
	CHECK_EQ(g_calls, 1);
	CHECK_EQ(run(0, "enum", "--help=1", NULL), -1);
	CHECK(HAS(g_err, "--help"));
}

/* Expects -1, no handler call, and every needle in the error output */
static void
expect_fail(const char *n1, const char *n2)
{
	CHECK(HAS(g_err, "# ERR: 'testcli"));
	if (n1 && !HAS(g_err, n1)) {
		fprintf(stderr, "FAIL: '%s' not in: %s", n1, g_err ? g_err : "");
		CHECK(0);
	}
	if (n2 && !HAS(g_err, n2)) {
		fprintf(stderr, "FAIL: '%s' not in: %s", n2, g_err ? g_err : "");
		CHECK(0);
	}
}

#define FAILS(n1, n2, ...)                                                                         \
	do {                                                                                       \
		g_calls = 0;                                                                       \
		CHECK_EQ(run(0, __VA_ARGS__, NULL), -1);                                           \
		CHECK_EQ(g_calls, 0);                                                              \
		expect_fail(n1, n2);                                                               \
	} while (0)

static void
test_errors(void)
{
	/* unknown subcommand and options */
	FAILS("bogus", NULL, "bogus");
	FAILS("--verbose", NULL, "--verbose", "write");
	FAILS("--bogus", "write", "write", "1GB", "--slba", "0", "--nlb", "0", "--bogus");
	FAILS("\"--bogus\"", NULL, "write", "1GB", "--slba", "0", "--nlb", "0", "--bogus=1");
	FAILS("-x", NULL, "write", "1GB", "--slba", "0", "--nlb", "0", "-x");
	FAILS("--flags", NULL, "write", "1GB", "--slba", "0", "--nlb", "0", "--flags", "1");

	/* missing required option, positional, value */
	/* a missing argument: the message, then the usage of the subcommand, on stderr */
	FAILS("--nlb", "Usage: testcli write <uri>", "write", "1GB", "--slba", "0");
	CHECK(!HAS(g_out, "Usage"));
	FAILS("<uri>", "Where <args> include", "write", "--slba", "0", "--nlb", "0");
	FAILS("<uri>", NULL, "write", "--slba", "0", "--nlb", "0");
	FAILS("<data-output>", NULL, "copy-sync", "in");
	FAILS("--slba", NULL, "write", "1GB", "--nlb", "0", "--slba");
	FAILS("--slba", NULL, "write", "1GB", "--slba", "--nlb", "0");

	/* positional count */
	FAILS("extra", NULL, "write", "1GB", "extra", "--slba", "0", "--nlb", "0");
	FAILS("c", NULL, "copy-sync", "a", "b", "c");

	/* overflow of the member's type */
	FAILS("--nsid", "0x1ffffffff", "write", "1GB", "--slba", "0", "--nlb", "0", "--nsid",
	      "0x1ffffffff");
	FAILS("--nlb", "99999999999", "write", "1GB", "--slba", "0", "--nlb", "99999999999");
	FAILS("--nlb", "4294967296", "write", "1GB", "--slba", "0", "--nlb", "4294967296");
	FAILS("--slba", NULL, "write", "1GB", "--slba", "0x10000000000000000", "--nlb", "0");
	FAILS("--slba", NULL, "write", "1GB", "--slba", "99999999999999999999999", "--nlb", "0");
	FAILS("--prchk", NULL, "enum", "--prchk", "0x100");
	FAILS("--shm_id", NULL, "enum", "--shm_id", "0x100000000");
	FAILS("--direct", NULL, "write", "1GB", "--slba", "0", "--nlb", "0", "--direct=2");
	FAILS("\"2\"", NULL, "write", "1GB", "--slba", "0", "--nlb", "0", "--direct", "2");
	FAILS("--data-nbytes", NULL, "copy-sync", "a", "b", "--data-nbytes", "17179869184g");
	FAILS("--data-nbytes", NULL, "copy-sync", "a", "b", "--data-nbytes", "4x");
	FAILS("--nlb", NULL, "write", "1GB", "--slba", "0", "--nlb", "4k"); /* not a size */
	FAILS("--data-nbytes", NULL, "copy-sync", "a", "b", "--data-nbytes",
	      "18446744073709551616");

	/* garbage */
	FAILS("--slba", "0xZZ", "write", "1GB", "--slba", "0xZZ", "--nlb", "0");
	FAILS("--slba", NULL, "write", "1GB", "--slba", "0x", "--nlb", "0");
	FAILS("--slba", NULL, "write", "1GB", "--slba", "0x1g", "--nlb", "0");
	FAILS("--nlb", "12abc", "write", "1GB", "--slba", "0", "--nlb", "12abc");
	FAILS("--nlb", "-1", "write", "1GB", "--slba", "0", "--nlb", "-1");
	FAILS("--nlb", "empty", "write", "1GB", "--slba", "0", "--nlb", "");
	FAILS("--nlb", "empty", "write", "1GB", "--slba", "0", "--nlb=");
	FAILS("--slba", "fg", "write", "1GB", "--slba", "fg", "--nlb", "0");
	FAILS("0x prefix", "\"ff\"", "write", "1GB", "--slba", "0", "--nlb", "ff");
	FAILS("0x prefix", NULL, "write", "1GB", "--slba", "0", "--nlb", "7f");
	FAILS("--nlb", NULL, "write", "1GB", "--slba", "0", "--nlb", " 1");
	FAILS("--nlb", NULL, "write", "1GB", "--slba", "0", "--nlb", "+1");
	FAILS("--nlb", NULL, "write", "1GB", "--slba", "0", "--nlb", "1 ");
	FAILS("<uri>", "empty", "write", "", "--slba", "0", "--nlb", "0");
	FAILS("--data-input", "empty", "write", "1GB", "--slba", "0", "--nlb", "0",
	      "--data-input=");

	/* flags take no value; repeats are refused */
	FAILS("--all", "no value", "write", "1GB", "--slba", "0", "--nlb", "0", "--all=1");
	FAILS("1", NULL, "write", "1GB", "--slba", "0", "--nlb", "0", "--all", "1");
	FAILS("--slba", "more than once", "write", "1GB", "--slba", "0", "--nlb", "0", "--slba",
	      "1");

	/* hostile bytes are quoted, not echoed raw */
	FAILS("\\x01", NULL, "write", "1GB", "--slba", "\x01'", "--nlb", "0");
	CHECK(!HAS(g_err, "\x01"));

	/* generators take no arguments */
	FAILS("--gen-man", NULL, "--gen-man", "extra");
}

static void
test_run_status(void)
{
	CHECK_EQ(xnvme_cli_run(NULL, 0, NULL, 0), -EINVAL);

	g_ret = -EIO;
	CHECK_EQ(run(0, "enum", NULL), 1);
	CHECK(HAS(g_err, "# ERR: 'enum': {errno: -5"));
	g_ret = 0;

	/* --verbose prints the arguments after the handler */
	CHECK_EQ(run(0, "write", "1GB", "--slba", "0x5", "--nlb", "0", "--verbose", NULL), 0);
	CHECK(HAS(g_out, "xnvme_cli_args:"));
	CHECK(HAS(g_out, "slba: 0x5"));

	/* repeated runs start from scratch */
	for (int i = 0; i < 200; ++i) {
		CHECK_EQ(run(0, "write", "1GB", "--slba", "1", "--nlb", "2", "--nsid", "3", NULL),
			 0);
		CHECK_EQ(g_cli.given[XNVME_CLI_OPT_NSID], 1);
		CHECK_EQ(run(0, "write", "1GB", "--nlb", "2", "--slba", "1", NULL), 0);
		CHECK_EQ(g_cli.given[XNVME_CLI_OPT_NSID], 0);
		CHECK_EQ(g_cli.args.nsid, 0);
		CHECK_EQ(run(0, "write", "1GB", "--nlb", "x", "--slba", "1", NULL), -1);
	}
	CHECK_EQ(run(0, "write", "1GB", "--slba", "1", "--nlb", "2", NULL), 0);

	/* device open through the ramdisk backend, and a failing open */
	g_dev_seen = NULL;
	CHECK_EQ(run(XNVME_CLI_INIT_DEV_OPEN, "write", "1GB", "--slba", "0", "--nlb", "0", NULL),
		 0);
	CHECK(g_dev_seen != NULL);
	CHECK(g_cli.args.dev == NULL);
	g_calls = 0;
	CHECK_EQ(run(XNVME_CLI_INIT_DEV_OPEN, "write", "/nonexistent/cli-test-dev", "--slba", "0",
		     "--nlb", "0", NULL),
		 -1);
	CHECK_EQ(g_calls, 0);
	CHECK(HAS(g_err, "/nonexistent/cli-test-dev"));
	/* INIT_DEV_OPEN without a uri positional does not open */
	g_dev_seen = NULL;
	CHECK_EQ(run(XNVME_CLI_INIT_DEV_OPEN, "enum", NULL), 0);
	CHECK(g_dev_seen == NULL);
}

static void
test_gen(void)
{
	CHECK_EQ(run(0, "--gen-man", NULL), 0);
	CHECK(HAS(g_out, ".TH \"TESTCLI\" 1"));
	CHECK(HAS(g_out, ".SH NAME"));
	CHECK(HAS(g_out, ".SH SYNOPSIS"));
	CHECK(HAS(g_out, ".SH DESCRIPTION"));
	CHECK(HAS(g_out, ".SH COMMANDS"));
	CHECK(HAS(g_out, ".SH EXIT STATUS"));
	CHECK(HAS(g_out, ".SH SEE ALSO"));
	CHECK(HAS(g_out, ".SS \"write\""));
	CHECK(HAS(g_out, ".SS \"enum\""));
	CHECK(HAS(g_out, ".SS \"copy\\-sync\""));
	CHECK(HAS(g_out, "\\-\\-slba"));
	CHECK(HAS(g_out, "\\-\\-data\\-nbytes"));

	CHECK_EQ(run(0, "--gen-bash-completion", NULL), 0);
	CHECK(HAS(g_out, "complete -F _xnvme_cli_complete_testcli 'testcli'"));
	CHECK(HAS(g_out, "write enum copy-sync --help"));
	CHECK(HAS(g_out, "\twrite)"));
	CHECK(HAS(g_out, "\tenum)"));
	CHECK(HAS(g_out, "\tcopy-sync)"));
	CHECK(HAS(g_out, "--slba"));
	CHECK(HAS(g_out, "--uri"));
}

static void
test_to_opts(void)
{
	struct xnvme_opts opts;
	const char *sentinel = "untouched";

	CHECK_EQ(xnvme_cli_to_opts(NULL, &opts), -EINVAL);

	/* values present in args but not given are not copied */
	memset(&g_cli.args, 0, sizeof(g_cli.args));
	memset(g_cli.given, 0, sizeof(g_cli.given));
	g_cli.args.be = "linux";
	g_cli.args.dev_nsid = 9;
	opts = xnvme_opts_default();
	opts.mem = sentinel;
	CHECK_EQ(xnvme_cli_to_opts(&g_cli, &opts), 0);
	CHECK(opts.be == NULL);
	CHECK_EQ(opts.nsid, 1);
	CHECK(opts.mem == sentinel);

	CHECK_EQ(run(0, "write", "1GB", "--slba", "0", "--nlb", "0", "--be", "ramdisk",
		     "--dev-nsid", "0x2", "--direct", "1", "--subnqn", "nqn.x", NULL),
		 0);
	opts = xnvme_opts_default();
	opts.mem = sentinel;
	CHECK_EQ(xnvme_cli_to_opts(&g_cli, &opts), 0);
	CHECK(opts.be && !strcmp(opts.be, "ramdisk"));
	CHECK_EQ(opts.nsid, 2);
	CHECK_EQ(opts.direct, 1);
	CHECK(opts.subnqn && !strcmp(opts.subnqn, "nqn.x"));
	CHECK(opts.mem == sentinel);
	CHECK(opts.sync == NULL);
	CHECK_EQ(opts.css.given, 0);

	CHECK_EQ(run(0, "enum", "--css", "0x3", "--shm_id", "0x10", "--rdonly", "256", NULL), 0);
	opts = xnvme_opts_default();
	CHECK_EQ(xnvme_cli_to_opts(&g_cli, &opts), 0);
	CHECK_EQ(opts.css.value, 3);
	CHECK_EQ(opts.css.given, 1);
	CHECK_EQ(opts.shm_id, 0x10);
	CHECK_EQ(opts.rdonly, 1);
	CHECK_EQ(opts.rdwr, 1);

	/* --shm-id is another spelling of --shm_id (the vfio multi-process docs use it) */
	CHECK_EQ(run(0, "enum", "--shm-id", "7", NULL), 0);
	opts = xnvme_opts_default();
	CHECK_EQ(xnvme_cli_to_opts(&g_cli, &opts), 0);
	CHECK_EQ(opts.shm_id, 7);
	CHECK_EQ(run(0, "enum", "--shm-id=0x1f", NULL), 0);
	opts = xnvme_opts_default();
	CHECK_EQ(xnvme_cli_to_opts(&g_cli, &opts), 0);
	CHECK_EQ(opts.shm_id, 0x1f);
	CHECK(run(0, "enum", "--shm-id", "7", "--shm_id", "8", NULL) != 0); /* one option twice */
}

static void
test_attrs(void)
{
	const struct xnvme_cli_opt_attr *attr;

	for (int opt = 1; opt < XNVME_CLI_OPT_END; ++opt) {
		attr = xnvme_cli_get_opt_attr((enum xnvme_cli_opt)opt);
		if (opt == 94) {
			CHECK(attr == NULL);
			continue;
		}
		CHECK(attr != NULL);
		if (!attr) {
			continue;
		}
		CHECK_EQ(attr->opt, opt);
		CHECK(attr->name && attr->name[0]);
		CHECK(attr->descr && attr->descr[0]);
		CHECK(attr->vtype >= XNVME_CLI_OPT_VTYPE_URI &&
		      attr->vtype <= XNVME_CLI_OPT_VTYPE_SKIP);
	}
	CHECK(xnvme_cli_get_opt_attr(XNVME_CLI_OPT_NONE) == NULL);
	CHECK(xnvme_cli_get_opt_attr(XNVME_CLI_OPT_END) == NULL);
	CHECK(xnvme_cli_get_opt_attr((enum xnvme_cli_opt) - 1) == NULL);

	attr = xnvme_cli_get_opt_attr(XNVME_CLI_OPT_SLBA);
	CHECK(attr && !strcmp(attr->name, "slba") && attr->vtype == XNVME_CLI_OPT_VTYPE_HEX);
	attr = xnvme_cli_get_opt_attr(XNVME_CLI_OPT_NLB);
	CHECK(attr && !strcmp(attr->name, "nlb") && attr->vtype == XNVME_CLI_OPT_VTYPE_NUM);
	attr = xnvme_cli_get_opt_attr(XNVME_CLI_OPT_SYS_URI);
	CHECK(attr && !strcmp(attr->name, "uri") && attr->vtype == XNVME_CLI_OPT_VTYPE_URI);
	attr = xnvme_cli_get_opt_attr(XNVME_CLI_OPT_KV_STORE_ADD);
	CHECK(attr && !strcmp(attr->name, "only-add"));
	attr = xnvme_cli_get_opt_attr(XNVME_CLI_OPT_CDW15);
	CHECK(attr && !strcmp(attr->name, "cdw15"));
	attr = xnvme_cli_get_opt_attr(XNVME_CLI_OPT_ORCH_TITLE);
	CHECK(attr && attr->vtype == XNVME_CLI_OPT_VTYPE_SKIP);
}

static void
test_misc(void)
{
	struct xnvme_cli_enumeration *list = NULL;
	struct xnvme_ident ident;
	FILE *err = tmpfile(), *out = tmpfile();
	int serr = dup(2), sout = dup(1);
	char *text;

	CHECK_EQ(xnvme_cli_enumeration_alloc(NULL, 1), -EINVAL);
	CHECK_EQ(xnvme_cli_enumeration_alloc(&list, 2), 0);
	CHECK(list != NULL);
	if (list) {
		CHECK_EQ(((uintptr_t)list) % 512, 0);
		CHECK_EQ(list->capacity, 2);
		CHECK_EQ(list->nentries, 0);
		CHECK_EQ(xnvme_ident_from_uri("1GB", &ident), 0);
		CHECK_EQ(xnvme_cli_enumeration_append(list, &ident), 0);
		CHECK_EQ(xnvme_cli_enumeration_append(list, &ident), 0);
		CHECK_EQ(xnvme_cli_enumeration_append(list, &ident), -ENOMEM);
		CHECK_EQ(list->nentries, 2);
		CHECK_EQ(list->capacity, 0);
		CHECK(!strcmp(list->entries[1].uri, "1GB"));
	}
	xnvme_cli_enumeration_free(list);
	xnvme_cli_enumeration_free(NULL);

	fflush(stderr);
	fflush(stdout);
	dup2(fileno(err), 2);
	dup2(fileno(out), 1);
	xnvme_cli_perr("ctx", -EINVAL);
	xnvme_cli_perr("pos", ENOENT);
	xnvme_cli_pinf("hello %d", 42);
	fflush(stderr);
	dup2(serr, 2);
	dup2(sout, 1);
	close(serr);
	close(sout);
	text = cli_capture_slurp(err);
	CHECK(HAS(text, "# ERR: 'ctx': {errno: -22, msg: 'Invalid argument'}\n"));
	CHECK(HAS(text, "# ERR: 'pos': {errno: 2, msg: 'No such file or directory'}\n"));
	free(text);
	text = cli_capture_slurp(out);
	CHECK(text && !strcmp(text, "# hello 42\n"));
	free(text);

	xnvme_cli_timer_start(&g_cli);
	xnvme_cli_timer_stop(&g_cli);
	CHECK(g_cli.timer.stop >= g_cli.timer.start);
}

int
main(void)
{
	test_attrs();
	test_parse_values();
	test_help();
	test_errors();
	test_run_status();
	test_gen();
	test_to_opts();
	test_misc();

	cli_capture_free(&g_cap);

	return xnvme_test_result("test_cli");
}
