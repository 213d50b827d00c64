// SPDX-License-Identifier: BSD-3-Clause
/**
 * tool_run(), the entry of every tool: the exit status convention of the tools (0 success,
 * 1 the command failed, 2 usage error, 128 + the signal that stopped the run), one error line
 * per failure, usage on stderr for a missing subcommand, the device opened here (read-only
 * unless the subcommand writes it) so that an open failure is a failed command naming the
 * reason (xnvme_last_error()), the outputs committed or removed when the subcommand ends,
 * --version, and the man page sections the CLI builder does not write (EXIT STATUS, EXAMPLES).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxnvme.h>
#include "tools_common.h"

/* The tool being run, and its subcommand handlers in table order */
static const struct tool_def *g_def;
static xnvme_cli_subfunc *g_run_cmds;
static bool g_run_failed;

/* Whether the running subcommand writes the device of its uri positional */
static bool
sub_writes(const struct xnvme_cli *cli)
{
	for (const char *const *w = g_def->writers; w && *w; ++w) {
		if (!strcmp(*w, sub_name(cli))) {
			return true;
		}
	}
	return false;
}

/*
 * Opens the uri positional as xnvme_cli_run() would, reporting a failure with its reason;
 * read-only unless the subcommand writes the device, so that reading works on what the user
 * may only read
 */
static int
dev_open(struct xnvme_cli *cli)
{
	struct xnvme_opts opts = xnvme_opts_default();
	int err;

	xnvme_cli_to_opts(cli, &opts);
	if (!sub_writes(cli) && !cli->given[XNVME_CLI_OPT_RDWR] &&
	    !cli->given[XNVME_CLI_OPT_WRONLY]) {
		opts.rdonly = 1;
		opts.rdwr = 0;
	}
	errno = 0;
	cli->args.dev = xnvme_dev_open(cli->args.uri, &opts);
	if (cli->args.dev) {
		return 0;
	}
	err = errno ? -errno : -ENODEV;
	return tool_err(cli, err, "cannot open %s%s: %s", cli->args.uri,
			sub_writes(cli) ? "" : " (read-only)",
			xnvme_last_error()[0] ? xnvme_last_error() : strerror(-err));
}

int
tool_check_outputs(const struct xnvme_cli *cli)
{
	static const enum xnvme_cli_opt outs[] = {
		XNVME_CLI_OPT_DATA_OUTPUT,
		XNVME_CLI_OPT_META_OUTPUT,
		XNVME_CLI_OPT_CMD_OUTPUT,
	};
	const struct xnvme_cli_args *args = &cli->args;
	const char *paths[] = {args->data_output, args->meta_output, args->cmd_output};
	int err = 0;

	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]) && !err; ++i) {
		if (paths[i] && tool_sub_has_opt(cli, outs[i])) {
			err = tool_out_check(cli, outs[i], paths[i]);
		}
	}
	return err;
}

/*
 * Runs the handler; always returns 0 to xnvme_cli_run(), which would print a second, generic
 * error line for a non-zero return, and notes the failure for tool_run() instead. The outputs
 * of the subcommand are put in place when it succeeded, removed when it failed.
 */
static int
run_checked(struct xnvme_cli *cli)
{
	xnvme_cli_subfunc cmd = g_run_cmds[cli->sub - g_def->cli->subs];
	unsigned int nerr = tool_err_count();
	int err = 0;

	if ((g_def->init & XNVME_CLI_INIT_DEV_OPEN) && tool_sub_has_opt(cli, XNVME_CLI_OPT_URI) &&
	    cli->args.uri) {
		err = dev_open(cli);
	}
	err = err ? err : tool_check_files(cli);
	/* outputs of xdd and xnvme_file may be device URIs: tool_xfer_open() tells them apart */
	if (g_def->init & XNVME_CLI_INIT_DEV_OPEN) {
		err = err ? err : tool_check_outputs(cli);
	}
	err = err ? err : tool_sig_check(cli);
	err = err ? err : cmd(cli);
	err = err ? err : tool_outs_commit(cli);
	if (err) {
		tool_outs_abort();
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
	      "a value that does not parse or is out of range; the message points to --help, "
	      "and a missing subcommand or argument prints the usage on stderr.\n"
	      ".TP\n.B 130, 143, 141, 129\nStopped by SIGINT, SIGTERM, SIGPIPE or SIGHUP (128 + the "
	      "signal number) between two commands: outputs this run created are removed and output "
	      "files that existed are left as they were; one '# ERR:' line says so, and names "
	      "any range already written to a device.\n",
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
gen_man(const struct tool_def *def, int argc, char **argv)
{
	struct xnvme_cli *cli = def->cli;
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
	ret = xnvme_cli_run_tool_opts(cli, argc, argv, XNVME_CLI_INIT_NONE, def->opts, def->nopts);
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
		/* the builder's list ends "...(1)\n": continue it with xnvmeperf, but on its own */
		if (strcmp(cli->title, "xnvmeperf")) {
			fwrite(see_sec, 1, strlen(see_sec) - (see_sec[strlen(see_sec) - 1] == '\n'),
			       stdout);
			puts(",\n\\fBxnvmeperf\\fR(1)");
		} else {
			fputs(see_sec, stdout);
		}
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

/*
 * Runs the builder with stdout on stderr: usage that answers a mistake goes where errors go.
 * Returns the builder's result.
 */
static int
cli_run_to_stderr(const struct tool_def *def, int argc, char **argv)
{
	int saved, ret;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved >= 0 && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		close(saved);
		saved = -1;
	}
	ret = xnvme_cli_run_tool_opts(def->cli, argc, argv, XNVME_CLI_INIT_NONE, def->opts,
				      def->nopts);
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	return ret;
}

/* Whether `arg` names a subcommand of the tool */
static bool
is_sub(const struct xnvme_cli *cli, const char *arg)
{
	for (int i = 0; i < cli->nsubs; ++i) {
		if (cli->subs[i].name && !strcmp(cli->subs[i].name, arg)) {
			return true;
		}
	}
	return false;
}

int
tool_run(const struct tool_def *def, int argc, char **argv)
{
	struct xnvme_cli *cli = def->cli;
	char **args = argv;
	int ret, status;

	tool_plat_init();
	tool_sig_init();
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		return tool_version_pr(cli->title);
	}
	if (argc == 2 && !strcmp(argv[1], "--gen-man")) {
		return gen_man(def, argc, argv);
	}
	/* no subcommand: usage where errors go, as for any other missing argument */
	if (argc < 2) {
		char *help[] = {argv[0], "--help", NULL};

		cli_run_to_stderr(def, 2, help);
		fprintf(stderr, "# ERR: '%s': {errno: %d, msg: 'missing the subcommand'}\n",
			cli->title, -EINVAL);
		return TOOL_EXIT_USAGE;
	}
	/* a tool of one command: "<tool> <args>" runs it, "<tool> --help" shows its usage */
	if (def->dflt_sub && !is_sub(cli, argv[1]) && strcmp(argv[1], "--gen-man") &&
	    strcmp(argv[1], "--gen-bash-completion")) {
		args = calloc((size_t)argc + 2, sizeof(*args));
		if (!args) {
			return TOOL_EXIT_FAILED;
		}
		args[0] = argv[0];
		args[1] = (char *)def->dflt_sub;
		memcpy(&args[2], &argv[1], (size_t)argc * sizeof(*args)); /* with the NULL */
		if (!strcmp(args[2], "-h")) {
			args[2] = "--help"; /* as for the other tools: -h is --help */
		}
		argc += 1;
	}

	g_run_cmds = calloc(cli->nsubs > 0 ? (size_t)cli->nsubs : 1, sizeof(*g_run_cmds));
	if (!g_run_cmds) {
		fprintf(stderr, "# ERR: '%s': {errno: %d, msg: 'out of memory'}\n", cli->title,
			-ENOMEM);
		return TOOL_EXIT_FAILED;
	}
	g_def = def;
	g_run_failed = false;
	for (int i = 0; i < cli->nsubs; ++i) {
		g_run_cmds[i] = cli->subs[i].command;
		if (cli->subs[i].command) {
			cli->subs[i].command = run_checked;
		}
	}

	/* the device is opened by run_checked(), so that its failure is a failed command */
	ret = xnvme_cli_run_tool_opts(cli, argc, args, def->init & ~XNVME_CLI_INIT_DEV_OPEN,
				      def->opts, def->nopts);

	for (int i = 0; i < cli->nsubs; ++i) {
		cli->subs[i].command = g_run_cmds[i];
	}
	free(g_run_cmds);
	g_run_cmds = NULL;
	if (args != argv) {
		free(args);
	}

	/* a signal not seen by a loop: the run is stopped all the same, and says so */
	status = tool_sig_exit_status();
	if (status) {
		tool_outs_abort();
		tool_sig_report(cli);
		return status;
	}
	if (ret < 0 || (g_run_failed && tool_usage_err_seen())) {
		return TOOL_EXIT_USAGE;
	}
	return (ret || g_run_failed) ? TOOL_EXIT_FAILED : TOOL_EXIT_OK;
}
