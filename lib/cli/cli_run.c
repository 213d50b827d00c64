// SPDX-License-Identifier: BSD-3-Clause
/**
 * xnvme_cli_run() and xnvme_cli_to_opts() (libxnvme_cli.h).
 *
 * Exit statuses: 0 success or help, 1 the handler failed, -1 parsing or device open failed.
 * Each run starts from cleared args/given, so a process (or a fuzzer) may run many times.
 */
#include <errno.h>
#include <stdio.h>
#include <libxnvme.h>
#include "cli_parse.h"

int
xnvme_cli_to_opts(const struct xnvme_cli *cli, struct xnvme_opts *opts)
{
	const struct xnvme_cli_args *args;
	const int *given;

	if (!cli || !opts) {
		return -EINVAL;
	}
	args = &cli->args;
	given = cli->given;

	if (given[XNVME_CLI_OPT_BE]) {
		opts->be = args->be;
	}
	if (given[XNVME_CLI_OPT_MEM]) {
		opts->mem = args->mem;
	}
	if (given[XNVME_CLI_OPT_SYNC]) {
		opts->sync = args->sync;
	}
	if (given[XNVME_CLI_OPT_ASYNC]) {
		opts->async = args->async;
	}
	if (given[XNVME_CLI_OPT_ADMIN]) {
		opts->admin = args->admin;
	}
	if (given[XNVME_CLI_OPT_DEV_NSID]) {
		opts->nsid = args->dev_nsid;
	}

	/* the open flags are uint8_t in opts: normalise rather than truncate 256 to 0 */
	if (given[XNVME_CLI_OPT_RDONLY]) {
		opts->rdonly = args->rdonly ? 1 : 0;
	}
	if (given[XNVME_CLI_OPT_WRONLY]) {
		opts->wronly = args->wronly ? 1 : 0;
	}
	if (given[XNVME_CLI_OPT_RDWR]) {
		opts->rdwr = args->rdwr ? 1 : 0;
	}
	if (given[XNVME_CLI_OPT_CREATE]) {
		opts->create = args->create ? 1 : 0;
	}
	if (given[XNVME_CLI_OPT_TRUNCATE]) {
		opts->truncate = args->truncate ? 1 : 0;
	}
	if (given[XNVME_CLI_OPT_DIRECT]) {
		opts->direct = args->direct ? 1 : 0;
	}
	if (given[XNVME_CLI_OPT_CREATE_MODE]) {
		opts->create_mode = args->create_mode;
	}
	if (given[XNVME_CLI_OPT_POLL_IO]) {
		opts->poll_io = args->poll_io ? 1 : 0;
	}
	if (given[XNVME_CLI_OPT_POLL_SQ]) {
		opts->poll_sq = args->poll_sq ? 1 : 0;
	}
	if (given[XNVME_CLI_OPT_REGISTER_FILES]) {
		opts->register_files = args->register_files ? 1 : 0;
	}
	if (given[XNVME_CLI_OPT_REGISTER_BUFFERS]) {
		opts->register_buffers = args->register_buffers ? 1 : 0;
	}
	if (given[XNVME_CLI_OPT_CSS]) {
		opts->css.value = args->css.value;
		opts->css.given = 1;
	}
	if (given[XNVME_CLI_OPT_USE_CMB_SQS]) {
		opts->use_cmb_sqs = args->use_cmb_sqs;
	}
	if (given[XNVME_CLI_OPT_SHM_ID]) {
		opts->shm_id = (uint32_t)args->shm_id; /* the parser limits it to 32 bits */
	}
	if (given[XNVME_CLI_OPT_MAIN_CORE]) {
		opts->main_core = args->main_core;
	}
	if (given[XNVME_CLI_OPT_CORE_MASK]) {
		opts->core_mask = args->core_mask;
	}
	if (given[XNVME_CLI_OPT_ADRFAM]) {
		opts->adrfam = args->adrfam;
	}
	if (given[XNVME_CLI_OPT_SUBNQN]) {
		opts->subnqn = args->subnqn;
	}
	if (given[XNVME_CLI_OPT_HOSTNQN]) {
		opts->hostnqn = args->hostnqn;
	}

	return 0;
}

/* "# ERR: '<tool> <sub>': {errno: <n>, msg: 'xnvme_dev_open(<uri>): <reason>'}", the reason
 * from xnvme_last_error() */
static void
dev_open_err(const struct xnvme_cli *cli, int err)
{
	fputs("# ERR: '", stderr);
	xnvme_cli_fput_sanitized(stderr, xnvme_cli_tool_name(cli), SIZE_MAX, SIZE_MAX);
	fputc(' ', stderr);
	xnvme_cli_fput_sanitized(stderr, cli->sub->name, SIZE_MAX, SIZE_MAX);
	fprintf(stderr, "': {errno: %d, msg: 'xnvme_dev_open(", -err);
	xnvme_cli_fput_sanitized(stderr, cli->args.uri, SIZE_MAX, SIZE_MAX);
	fputs("): ", stderr);
	xnvme_cli_fput_sanitized(stderr, xnvme_last_error()[0] ? xnvme_last_error() : strerror(err),
				 SIZE_MAX, SIZE_MAX);
	fputs("'}\n", stderr);
	fflush(stderr);
}

static int
cli_run(struct xnvme_cli *cli, int argc, char **argv, int opts)
{
	int err;
	cli->argc = argc;
	cli->argv = argv;
	if (!cli->ver_pr) {
		cli->ver_pr = xnvme_ver_pr;
	}

	switch (xnvme_cli_parse(cli, argc, argv, stderr)) {
	case XNVME_CLI_PARSE_RUN:
		break;
	case XNVME_CLI_PARSE_TOOL_HELP:
		xnvme_cli_usage_tool(stdout, cli);
		fflush(stdout);
		return 0;
	case XNVME_CLI_PARSE_SUB_HELP:
		xnvme_cli_usage_sub(stdout, cli, cli->sub);
		fflush(stdout);
		return 0;
	case XNVME_CLI_PARSE_GEN_MAN:
		err = xnvme_cli_gen_man(stdout, cli);
		return (fflush(stdout) || err) ? -1 : 0;
	case XNVME_CLI_PARSE_GEN_BASH:
		err = xnvme_cli_gen_bash(stdout, cli);
		return (fflush(stdout) || err) ? -1 : 0;
	default:
		return -1;
	}

	if ((opts & XNVME_CLI_INIT_DEV_OPEN) &&
	    xnvme_cli_sub_has(cli->sub, XNVME_CLI_OPT_URI, XNVME_CLI_POSA) && cli->args.uri) {
		struct xnvme_opts dev_opts = xnvme_opts_default();

		xnvme_cli_to_opts(cli, &dev_opts);
		errno = 0;
		cli->args.dev = xnvme_dev_open(cli->args.uri, &dev_opts);
		if (!cli->args.dev) {
			dev_open_err(cli, errno ? errno : ENODEV);
			return -1;
		}
	}

	if (cli->sub->command) {
		err = cli->sub->command(cli);
	} else {
		err = -ENOSYS; /* a table without a handler: report rather than crash */
	}
	if (err) {
		xnvme_cli_perr(cli->sub->name, err);
	}

	if (cli->args.verbose) {
		xnvme_cli_args_pr(&cli->args, XNVME_PR_DEF);
	}

	xnvme_dev_close(cli->args.dev);
	cli->args.dev = NULL;

	return err ? 1 : 0;
}

int
xnvme_cli_run(struct xnvme_cli *cli, int argc, char **argv, int opts)
{
	return xnvme_cli_run_tool_opts(cli, argc, argv, opts, NULL, 0);
}

int
xnvme_cli_run_tool_opts(struct xnvme_cli *cli, int argc, char **argv, int opts,
			struct xnvme_cli_tool_opt *tool_opts, int ntool_opts)
{
	struct xnvme_cli_tool_table tab, *prev;
	int ret;

	if (!cli) {
		xnvme_cli_perr("xnvme_cli_run(): cli == NULL", -EINVAL);
		return -EINVAL;
	}
	if (xnvme_cli_tool_table_init(&tab, tool_opts, ntool_opts)) {
		xnvme_cli_perr("xnvme_cli_run_tool_opts(): more than 64 tool options, or one "
			       "without a name or with an unknown value type",
			       -EINVAL);
		return -EINVAL;
	}
	/* the table is the calling thread's while the tool runs; a nested run restores it */
	prev = xnvme_cli_tool_table_set(ntool_opts ? &tab : NULL);
	ret = cli_run(cli, argc, argv, opts);
	xnvme_cli_tool_table_set(prev);
	return ret;
}
