// SPDX-License-Identifier: BSD-3-Clause
/**
 * The command line of the tools: option names and labels as the user wrote them, range checks
 * of option values and --nsid.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"

const char *
tool_opt_name(enum xnvme_cli_opt opt)
{
	const struct xnvme_cli_opt_attr *attr = xnvme_cli_get_opt_attr(opt);

	return (attr && attr->name) ? attr->name : "?";
}

/* The entry of `opt` in the option table of the running subcommand, NULL when it has none */
static const struct xnvme_cli_sub_opt *
sub_opt(const struct xnvme_cli *cli, enum xnvme_cli_opt opt)
{
	for (int i = 0; cli && cli->sub && i < XNVME_CLI_SUB_OPTS_LEN; ++i) {
		const struct xnvme_cli_sub_opt *so = &cli->sub->opts[i];

		if (so->opt == XNVME_CLI_OPT_NONE || so->opt == XNVME_CLI_OPT_END) {
			break;
		}
		if (so->opt == opt) {
			return so;
		}
	}
	return NULL;
}

bool
tool_sub_has_opt(const struct xnvme_cli *cli, enum xnvme_cli_opt opt)
{
	return sub_opt(cli, opt) != NULL;
}

const char *
tool_opt_label(const struct xnvme_cli *cli, enum xnvme_cli_opt opt)
{
	static char bufs[4][64];
	static unsigned int next;
	char *buf = bufs[next++ % 4];
	const struct xnvme_cli_sub_opt *so = sub_opt(cli, opt);
	bool posa = so && so->type == XNVME_CLI_POSA;

	snprintf(buf, sizeof(bufs[0]), "%s%s", posa ? "" : "--", tool_opt_name(opt));
	return buf;
}

static bool
opt_is_hex(enum xnvme_cli_opt opt)
{
	const struct xnvme_cli_opt_attr *attr = xnvme_cli_get_opt_attr(opt);

	return attr && attr->vtype == XNVME_CLI_OPT_VTYPE_HEX;
}

static bool g_usage_err;

bool
tool_usage_err_seen(void)
{
	return g_usage_err;
}

int
tool_check_range(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, uint64_t val, uint64_t min,
		 uint64_t max)
{
	if (val >= min && val <= max) {
		return 0;
	}
	g_usage_err = true; /* a value out of range is a usage error: exit status 2 */
	if (val < min && (max == UINT64_MAX || max == SIZE_MAX || max == UINT32_MAX)) {
		return tool_err(cli, -EINVAL, "%s %" PRIu64 ": must be at least %" PRIu64,
				tool_opt_label(cli, opt), val, min);
	}
	if (opt_is_hex(opt)) {
		return tool_err(cli, -EINVAL,
				"%s 0x%" PRIx64 ": out of range [0x%" PRIx64 ", 0x%" PRIx64 "]",
				tool_opt_label(cli, opt), val, min, max);
	}
	return tool_err(cli, -EINVAL, "%s %" PRIu64 ": out of range [%" PRIu64 ", %" PRIu64 "]",
			tool_opt_label(cli, opt), val, min, max);
}

int
tool_err_usage(const struct xnvme_cli *cli, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	g_usage_err = true;
	return tool_err(cli, -EINVAL, "%s", msg);
}

int
tool_check_max(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, uint64_t val, uint64_t max)
{
	return tool_check_range(cli, opt, val, 0, max);
}

uint32_t
tool_nsid(const struct xnvme_cli *cli)
{
	if (cli->given[XNVME_CLI_OPT_NSID]) {
		return cli->args.nsid;
	}
	return xnvme_dev_get_nsid(cli->args.dev);
}

int
tool_parse_num(const char *s, bool size, uint64_t *val)
{
	unsigned int base = 10, shift = 0;
	uint64_t v = 0;

	if (!s || !s[0]) {
		return -EINVAL;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!s[0]) {
			return -EINVAL;
		}
	}
	for (; *s; ++s) {
		unsigned int d;

		if (*s >= '0' && *s <= '9') {
			d = (unsigned int)(*s - '0');
		} else if (base == 16 && ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')) {
			d = (unsigned int)((*s | 0x20) - 'a' + 10);
		} else {
			break;
		}
		if (v > (UINT64_MAX - d) / base) {
			return -ERANGE;
		}
		v = v * base + d;
	}
	if (*s && size && base == 10 && strchr("kmgt", *s | 0x20)) {
		shift = 10 * (unsigned int)(strchr("kmgt", *s | 0x20) - "kmgt" + 1);
		s += 1;
		s += *s == 'i';
		s += *s == 'B' || *s == 'b';
	}
	if (*s) {
		return -EINVAL;
	}
	if (shift && v > (UINT64_MAX >> shift)) {
		return -ERANGE;
	}
	*val = v << shift;
	return 0;
}
