// SPDX-License-Identifier: BSD-3-Clause
/**
 * Usage texts of a tool and of its subcommands. Column widths are computed
 * from the tables and applied with printf field widths: no intermediate buffers.
 */
#include <errno.h>
#include <string.h>
#include <libxnvme_util.h>
#include <libxnvme_ver.h>
#include "cli_parse.h"

static const char *
str_or(const char *s, const char *alt)
{
	return s ? s : alt;
}

/* "<title> -- ver: {...}"; through the tool's ver_pr when printing to stdout */
static void
ver_line(FILE *stream, const struct xnvme_cli *cli)
{
	fprintf(stream, "%s -- ", cli->title ? cli->title : xnvme_cli_tool_name(cli));
	if (stream == stdout && cli->ver_pr) {
		fflush(stream);
		cli->ver_pr(XNVME_PR_DEF);
		fflush(stdout);
	} else {
		xnvme_ver_fpr(stream, XNVME_PR_DEF);
	}
	fputc('\n', stream);
}

int
xnvme_cli_usage_tool(FILE *stream, const struct xnvme_cli *cli)
{
	const char *tool = xnvme_cli_tool_name(cli);
	int width = 0;

	fprintf(stream, "Usage: %s <command> [<args>]\n\n", tool);
	if (cli->descr_long || cli->descr_short) {
		fprintf(stream, "%s\n\n", str_or(cli->descr_long, cli->descr_short));
	}

	for (int i = 0; cli->subs && i < cli->nsubs; ++i) {
		if (cli->subs[i].name && (int)strlen(cli->subs[i].name) > width) {
			width = (int)strlen(cli->subs[i].name);
		}
	}
	fprintf(stream, "Where <command> is one of:\n\n");
	for (int i = 0; cli->subs && i < cli->nsubs; ++i) {
		const struct xnvme_cli_sub *sub = &cli->subs[i];

		if (!sub->name) {
			continue;
		}
		fprintf(stream, "  %-*s | %s\n", width, sub->name, str_or(sub->descr_short, ""));
	}
	fprintf(stream, "\nSee '%s <command> --help' for the description of [<args>]\n\n", tool);
	ver_line(stream, cli);

	return ferror(stream) ? -EIO : 0;
}

/* Left column of an option line; returns its length, prints it when stream != NULL */
static int
opt_left(FILE *stream, enum xnvme_cli_opt_type type, const struct xnvme_cli_opt_attr *attr)
{
	const char *vt = xnvme_cli_vtype_str(attr->vtype);
	int len = 0;

	switch (type) {
	case XNVME_CLI_POSA:
		len = (int)strlen(attr->name);
		if (stream) {
			fputs(attr->name, stream);
		}
		break;
	case XNVME_CLI_LREQ:
		len = 2 + (int)strlen(attr->name) + 1 + (int)strlen(vt);
		if (stream) {
			fprintf(stream, "--%s %s", attr->name, vt);
		}
		break;
	case XNVME_CLI_LOPT:
		len = 4 + (int)strlen(attr->name) + 1 + (int)strlen(vt) + 2;
		if (stream) {
			fprintf(stream, "[ --%s %s ]", attr->name, vt);
		}
		break;
	case XNVME_CLI_LFLG:
		len = 4 + (int)strlen(attr->name) + 2;
		if (stream) {
			fprintf(stream, "[ --%s ]", attr->name);
		}
		break;
	default:
		break;
	}
	return len;
}

static void
opt_line(FILE *stream, enum xnvme_cli_opt_type type, const struct xnvme_cli_opt_attr *attr,
	 int width)
{
	int len;

	fputs("  ", stream);
	len = opt_left(stream, type, attr);
	fprintf(stream, "%*s ; %s\n", width - len, "", str_or(attr->descr, ""));
}

int
xnvme_cli_usage_sub(FILE *stream, const struct xnvme_cli *cli, const struct xnvme_cli_sub *sub)
{
	const struct xnvme_cli_opt_attr *help = xnvme_cli_get_opt_attr(XNVME_CLI_OPT_HELP);
	int nopts = xnvme_cli_sub_nopts(sub);
	int width = opt_left(NULL, XNVME_CLI_LFLG, help);
	int nlines = 0;

	fprintf(stream, "Usage: %s %s", xnvme_cli_tool_name(cli), sub->name);
	for (int i = 0; i < nopts; ++i) {
		const struct xnvme_cli_opt_info *info = xnvme_cli_sub_opt_info(sub, i);

		if (info && sub->opts[i].type == XNVME_CLI_POSA &&
		    info->attr.vtype != XNVME_CLI_OPT_VTYPE_SKIP) {
			fprintf(stream, " <%s>%s", info->attr.name,
				(info->flags & XNVME_CLI_TOOL_OPT_REPEAT) ? "..." : "");
		}
	}
	fprintf(stream, " [<args>]\n\n");
	if (sub->descr_long || sub->descr_short) {
		fprintf(stream, "%s\n\n", str_or(sub->descr_long, sub->descr_short));
	}

	for (int i = 0; i < nopts; ++i) {
		const struct xnvme_cli_opt_info *info = xnvme_cli_sub_opt_info(sub, i);
		int len;

		if (!info || info->attr.vtype == XNVME_CLI_OPT_VTYPE_SKIP) {
			continue;
		}
		len = opt_left(NULL, xnvme_cli_sub_opt_type(sub, i), &info->attr);
		width = len > width ? len : width;
	}

	fprintf(stream, "Where <args> include:\n");
	for (int i = 0; i < nopts; ++i) {
		const struct xnvme_cli_opt_info *info = xnvme_cli_sub_opt_info(sub, i);

		if (!info) {
			continue;
		}
		if (sub->opts[i].type == XNVME_CLI_SKIP ||
		    info->attr.vtype == XNVME_CLI_OPT_VTYPE_SKIP) {
			fprintf(stream, "\n%s\n", str_or(info->attr.descr, ""));
			nlines = 1;
			continue;
		}
		if (!nlines++) {
			fputc('\n', stream); /* no title before the first option */
		}
		opt_line(stream, xnvme_cli_sub_opt_type(sub, i), &info->attr, width);
	}
	/* the implicit --help every subcommand accepts */
	if (!xnvme_cli_sub_has(sub, XNVME_CLI_OPT_HELP, XNVME_CLI_LFLG)) {
		if (!nlines) {
			fputc('\n', stream);
		}
		opt_line(stream, XNVME_CLI_LFLG, help, width);
	}
	fputc('\n', stream);
	ver_line(stream, cli);

	return ferror(stream) ? -EIO : 0;
}
