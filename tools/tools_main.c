// SPDX-License-Identifier: BSD-3-Clause
/**
 * tool_cli_run(), the entry of TOOL_MAIN(): the exit status convention of the tools (0 success,
 * 1 the command failed, 2 usage error), one error line per failure, the device opened here so
 * that an open failure is a failed command naming the reason (xnvme_last_error()), --version,
 * and the man page sections the CLI builder does not write (EXIT STATUS, EXAMPLES).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxnvme.h>
#include "tools_common.h"

/* The subcommand handlers of the table run by tool_cli_run(), in table order */
static struct xnvme_cli_sub *g_run_subs;
static xnvme_cli_subfunc *g_run_cmds;
static int g_run_init;
static bool g_run_failed;

/* Opens the uri positional as xnvme_cli_run() would, reporting a failure with its reason */
static int
dev_open(struct xnvme_cli *cli)
{
	struct xnvme_opts opts = xnvme_opts_default();
	int err;

	xnvme_cli_to_opts(cli, &opts);
	errno = 0;
	cli->args.dev = xnvme_dev_open(cli->args.uri, &opts);
	if (cli->args.dev) {
		return 0;
	}
	err = errno ? -errno : -ENODEV;
	return tool_err(cli, err, "cannot open %s: %s", cli->args.uri,
			xnvme_last_error()[0] ? xnvme_last_error() : strerror(-err));
}

/*
 * Runs the handler; always returns 0 to xnvme_cli_run(), which would print a second, generic
 * error line for a non-zero return, and notes the failure for tool_cli_run() instead
 */
static int
run_checked(struct xnvme_cli *cli)
{
	xnvme_cli_subfunc cmd = g_run_cmds[cli->sub - g_run_subs];
	unsigned int nerr = tool_err_count();
	int err = 0;

	if ((g_run_init & XNVME_CLI_INIT_DEV_OPEN) && tool_sub_has_opt(cli, XNVME_CLI_OPT_URI) &&
	    cli->args.uri) {
		err = dev_open(cli);
	}
	if (!err) {
		err = tool_check_files(cli);
	}
	if (!err) {
		err = cmd(cli);
	}
	if (err) {
		if (tool_err_count() == nerr) {
			tool_err(cli, err, "failed");
		}
		g_run_failed = true;
	}
	return 0;
}

void
tool_man_exit_status(FILE *stream)
{
	fputs(".SH EXIT STATUS\n"
	      ".TP\n.B 0\nSuccess, or usage or the version was printed.\n"
	      ".TP\n.B 1\nThe command failed: the device could not be opened, or a command or a "
	      "file operation failed. One line on stderr starting with '# ERR:' names the "
	      "subcommand, what failed and why: the errno, the NVMe status, or the reason "
	      "the library gave for refusing a device or mechanism.\n"
	      ".TP\n.B 2\nUsage error: an unknown subcommand or option, a missing argument, or "
	      "a value that does not parse or is out of range; the message points to --help.\n",
	      stream);
}

void
tool_man_examples(FILE *stream, const char *tool)
{
	const struct tool_example *ex = tool_examples(tool);

	if (!ex || !ex->cmd) {
		return;
	}
	fputs(".SH EXAMPLES\n", stream);
	for (; ex->cmd; ++ex) {
		fputs(".TP\n.B ", stream);
		for (const char *p = ex->cmd; *p; ++p) {
			if (*p == '-' || *p == '\\') {
				fputc('\\', stream);
			}
			fputc(*p, stream);
		}
		fprintf(stream, "\n%s\n", ex->descr);
	}
}

/*
 * The man page of the CLI builder with the sections of the tools' conventions: --version in the
 * synopsis, the tools' EXIT STATUS instead of the builder's, and EXAMPLES
 */
static int
gen_man(struct xnvme_cli *cli, int argc, char **argv)
{
	FILE *tmp = tmpfile();
	char *page = NULL;
	const char *exit_sec, *see_sec, *descr_sec;
	long len;
	int saved, ret;

	if (!tmp) {
		return 1;
	}
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) {
		fclose(tmp);
		return 1;
	}
	ret = xnvme_cli_run(cli, argc, argv, XNVME_CLI_INIT_NONE);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);

	len = ftell(tmp);
	if (ret || len <= 0 || fseek(tmp, 0, SEEK_SET) || !(page = calloc(1, (size_t)len + 1)) ||
	    fread(page, 1, (size_t)len, tmp) != (size_t)len) {
		free(page);
		fclose(tmp);
		return 1;
	}
	fclose(tmp);

	descr_sec = strstr(page, ".SH DESCRIPTION\n");
	exit_sec = strstr(page, ".SH EXIT STATUS\n");
	see_sec = strstr(page, ".SH SEE ALSO\n");
	if (!descr_sec || !exit_sec || !see_sec || exit_sec > see_sec || descr_sec > exit_sec) {
		fputs(page, stdout); /* an unexpected layout: the builder's page as it is */
	} else {
		fwrite(page, 1, (size_t)(descr_sec - page), stdout);
		printf(".br\n\\fB%s\\fR \\fB\\-\\-version\\fR\n", cli->title);
		fwrite(descr_sec, 1, (size_t)(exit_sec - descr_sec), stdout);
		tool_man_exit_status(stdout);
		tool_man_examples(stdout, cli->title);
		/* the builder's list ends "...(1)\n": continue it with xnvmeperf */
		fwrite(see_sec, 1, strlen(see_sec) - (see_sec[strlen(see_sec) - 1] == '\n'),
		       stdout);
		puts(",\n\\fBxnvmeperf\\fR(1)");
	}
	free(page);
	return fflush(stdout) ? 1 : 0;
}

int
tool_version_pr(const char *tool)
{
	printf("%s %d.%d.%d\n", tool, xnvme_ver_major(), xnvme_ver_minor(), xnvme_ver_patch());
	return fflush(stdout) ? TOOL_EXIT_FAILED : TOOL_EXIT_OK;
}

int
tool_cli_run(struct xnvme_cli *cli, int argc, char **argv, int init)
{
	int ret;

	tool_plat_init();
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		return tool_version_pr(cli->title);
	}
	if (argc == 2 && !strcmp(argv[1], "--gen-man")) {
		return gen_man(cli, argc, argv);
	}

	g_run_cmds = calloc(cli->nsubs > 0 ? (size_t)cli->nsubs : 1, sizeof(*g_run_cmds));
	if (!g_run_cmds) {
		fprintf(stderr, "# ERR: '%s': {errno: %d, msg: 'out of memory'}\n", cli->title,
			-ENOMEM);
		return TOOL_EXIT_FAILED;
	}
	g_run_subs = cli->subs;
	g_run_init = init;
	g_run_failed = false;
	for (int i = 0; i < cli->nsubs; ++i) {
		g_run_cmds[i] = cli->subs[i].command;
		if (cli->subs[i].command) {
			cli->subs[i].command = run_checked;
		}
	}

	/* the device is opened by run_checked(), so that its failure is a failed command */
	ret = xnvme_cli_run(cli, argc, argv, init & ~XNVME_CLI_INIT_DEV_OPEN);

	for (int i = 0; i < cli->nsubs; ++i) {
		cli->subs[i].command = g_run_cmds[i];
	}
	free(g_run_cmds);
	g_run_cmds = NULL;
	g_run_subs = NULL;

	if (ret < 0 || (g_run_failed && tool_usage_err_seen())) {
		return TOOL_EXIT_USAGE;
	}
	return (ret || g_run_failed) ? TOOL_EXIT_FAILED : TOOL_EXIT_OK;
}
