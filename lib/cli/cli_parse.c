// SPDX-License-Identifier: BSD-3-Clause
/**
 * The command-line parser: argv -> cli->sub, cli->args, cli->given.
 *
 * Hand-written instead of getopt_long(): getopt keeps global state (optind, nextchar) that
 * leaks between calls and permutes argv, and xnvme_cli_run() may run many times per process.
 * Everything here is bounded by argc and by the NUL of each argument; nothing is allocated.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "cli_parse.h"

/* Longest part of a user-supplied value quoted in a message */
#define MSG_VAL_MAX 64

struct parse_state {
	struct xnvme_cli *cli;
	const struct xnvme_cli_sub *sub; ///< NULL while the subcommand is not known yet
	FILE *errs;
};

enum conv_err {
	CONV_OK = 0,
	CONV_EMPTY,
	CONV_NEGATIVE,
	CONV_GARBAGE,
	CONV_RANGE,
	CONV_HEX_NO_PREFIX, ///< hex digits without 0x: refused rather than guessed
};

/*
 * The options the running tool defines itself (xnvme_cli_run_tool_opts()): a pointer per
 * thread, so that the parser keeps no state shared between threads; the table lives in the
 * frame of the run (a few bytes of thread-local storage: the library is loaded with dlopen)
 */
static _Thread_local struct xnvme_cli_tool_table *g_tool;

int
xnvme_cli_tool_table_init(struct xnvme_cli_tool_table *tab, struct xnvme_cli_tool_opt *opts, int n)
{
	if (n < 0 || n > XNVME_CLI_TOOL_OPTS_MAX || (n && !opts)) {
		return -EINVAL;
	}
	for (int i = 0; i < n; ++i) {
		switch (opts[i].vtype) {
		case XNVME_CLI_OPT_VTYPE_URI:
		case XNVME_CLI_OPT_VTYPE_NUM:
		case XNVME_CLI_OPT_VTYPE_HEX:
		case XNVME_CLI_OPT_VTYPE_FILE:
		case XNVME_CLI_OPT_VTYPE_STR:
			break;
		default:
			return -EINVAL;
		}
		if (!opts[i].name || !opts[i].name[0]) {
			return -EINVAL;
		}
	}
	tab->opts = n ? opts : NULL;
	tab->n = n;
	for (int i = 0; i < n; ++i) {
		struct xnvme_cli_opt_info *info = &tab->info[i];

		memset(info, 0, sizeof(*info));
		info->attr.opt = (enum xnvme_cli_opt)(XNVME_CLI_OPT_TOOL + i);
		info->attr.vtype = opts[i].vtype;
		info->attr.name = opts[i].name;
		info->attr.descr = opts[i].descr;
		info->dest = XNVME_CLI_DEST_TOOL;
		info->max = opts[i].max;
		info->flags = opts[i].flags;
	}
	return 0;
}

struct xnvme_cli_tool_table *
xnvme_cli_tool_table_set(struct xnvme_cli_tool_table *tab)
{
	struct xnvme_cli_tool_table *prev = g_tool;

	g_tool = tab;
	return prev;
}

const struct xnvme_cli_opt_info *
xnvme_cli_tool_opt_info(int opt)
{
	if (!g_tool || opt < XNVME_CLI_OPT_TOOL || opt - XNVME_CLI_OPT_TOOL >= g_tool->n) {
		return NULL;
	}
	return &g_tool->info[opt - XNVME_CLI_OPT_TOOL];
}

struct xnvme_cli_tool_opt *
xnvme_cli_tool_opt_of(const struct xnvme_cli_opt_info *info)
{
	int idx;

	if (!g_tool || !info || info->dest != XNVME_CLI_DEST_TOOL) {
		return NULL;
	}
	idx = (int)info->attr.opt - XNVME_CLI_OPT_TOOL;
	return (idx >= 0 && idx < g_tool->n) ? &g_tool->opts[idx] : NULL;
}

int
xnvme_cli_opt_given(const struct xnvme_cli *cli, const struct xnvme_cli_opt_info *info)
{
	const struct xnvme_cli_tool_opt *topt = xnvme_cli_tool_opt_of(info);

	if (topt) {
		return topt->given != 0;
	}
	return info->attr.opt > XNVME_CLI_OPT_NONE && info->attr.opt < XNVME_CLI_OPT_END &&
	       cli->given[info->attr.opt];
}

/* Notes that the option of `info` was given; tool options count their values */
static void
opt_set_given(struct xnvme_cli *cli, const struct xnvme_cli_opt_info *info)
{
	struct xnvme_cli_tool_opt *topt = xnvme_cli_tool_opt_of(info);

	if (topt) {
		topt->given += 1;
	} else if (info->attr.opt > XNVME_CLI_OPT_NONE && info->attr.opt < XNVME_CLI_OPT_END) {
		cli->given[info->attr.opt] = 1;
	}
}

const char *
xnvme_cli_tool_name(const struct xnvme_cli *cli)
{
	if (cli && cli->argv && cli->argc > 0 && cli->argv[0] && cli->argv[0][0]) {
		const char *slash = strrchr(cli->argv[0], '/');
		const char *base = slash ? slash + 1 : cli->argv[0];

		if (base[0]) {
			return base;
		}
	}
	if (cli && cli->title && cli->title[0]) {
		return cli->title;
	}
	return "xnvme";
}

void
xnvme_cli_fput_sanitized(FILE *stream, const char *s, size_t len, size_t max)
{
	size_t i;

	if (!s) {
		fputs("(null)", stream);
		return;
	}
	for (i = 0; i < len && s[i]; ++i) {
		unsigned char c = (unsigned char)s[i];

		if (i >= max) {
			fputs("...", stream);
			break;
		}
		if (c == '\'') {
			fputs("''", stream); /* messages are YAML single-quoted scalars */
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(stream, "\\x%02x", c);
		} else {
			fputc(c, stream);
		}
	}
}

/* "# ERR: '<tool>[ <sub>]': {errno: <err>, msg: '" */
static void
err_head(const struct parse_state *st, int err)
{
	fputs("# ERR: '", st->errs);
	xnvme_cli_fput_sanitized(st->errs, xnvme_cli_tool_name(st->cli), SIZE_MAX, SIZE_MAX);
	if (st->sub) {
		fputc(' ', st->errs);
		xnvme_cli_fput_sanitized(st->errs, st->sub->name, SIZE_MAX, SIZE_MAX);
	}
	fprintf(st->errs, "': {errno: %d, msg: '", -err); /* negative, as the library reports */
}

static void
err_text(const struct parse_state *st, const char *text)
{
	xnvme_cli_fput_sanitized(st->errs, text, SIZE_MAX, SIZE_MAX);
}

/* A user-supplied value: quoted and bounded */
static void
err_val(const struct parse_state *st, const char *val)
{
	fputc('"', st->errs);
	xnvme_cli_fput_sanitized(st->errs, val, SIZE_MAX, MSG_VAL_MAX);
	fputc('"', st->errs);
}

/* The option or positional a message is about: --name or <name> */
static void
err_subject(const struct parse_state *st, const struct xnvme_cli_opt_info *info, bool posa)
{
	err_text(st, posa ? "positional argument <" : "option --");
	err_text(st, info->attr.name);
	if (posa) {
		err_text(st, ">");
	}
}

/* Closes the message and points to the matching --help */
static void
err_tail(const struct parse_state *st)
{
	fputs("'}\n# see '", st->errs);
	xnvme_cli_fput_sanitized(st->errs, xnvme_cli_tool_name(st->cli), SIZE_MAX, SIZE_MAX);
	if (st->sub) {
		fputc(' ', st->errs);
		xnvme_cli_fput_sanitized(st->errs, st->sub->name, SIZE_MAX, SIZE_MAX);
	}
	fputs(" --help' for usage\n", st->errs);
	fflush(st->errs);
}

/* Closes the message of a missing argument and prints the usage of the subcommand after it */
static void
err_tail_usage(const struct parse_state *st)
{
	fputs("'}\n", st->errs);
	xnvme_cli_usage_sub(st->errs, st->cli, st->sub);
	fflush(st->errs);
}

/* One-shot message: <pre>"<val>"<post>, each part optional */
static int
fail(const struct parse_state *st, int err, const char *pre, const char *val, const char *post)
{
	if (st->errs) {
		err_head(st, err);
		if (pre) {
			err_text(st, pre);
		}
		if (val) {
			err_val(st, val);
		}
		if (post) {
			err_text(st, post);
		}
		err_tail(st);
	}
	return XNVME_CLI_PARSE_ERROR;
}

static int
digit_val(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

/*
 * The 0.7.5 number syntax: HEX options are hexadecimal with the 0x prefix optional ("10" is
 * 0x10); NUM options are decimal, and take 0x-prefixed hexadecimal too. Hex digits without the
 * prefix on a NUM option are refused rather than guessed. Sizes in bytes (`size`) also take a
 * binary unit: k, m, g, t (x 1024^n), optionally followed by "i" and/or "B"
 * (4k = 4K = 4KiB = 4KB = 4096). No sign, no blanks.
 */
static enum conv_err
conv_u64(const char *s, bool size, bool hex, uint64_t *val)
{
	uint64_t base = hex ? 16 : 10, v = 0;
	bool overflow = false, hexdigit = false;
	unsigned int shift = 0;

	if (!s[0]) {
		return CONV_EMPTY;
	}
	if (s[0] == '-') {
		return CONV_NEGATIVE;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
		if (!s[0]) {
			return CONV_GARBAGE;
		}
	}
	for (; *s; ++s) {
		int d = digit_val(*s);

		if (d < 0 || (uint64_t)d >= base) {
			if (d >= 10) {
				hexdigit = true;
			}
			break;
		}
		/* keep scanning after an overflow so that garbage still reads as garbage */
		if (v > (UINT64_MAX - (uint64_t)d) / base) {
			overflow = true;
		}
		v = v * base + (uint64_t)d;
	}
	if (*s && size && base == 10) {
		const char *units = "kmgt";
		const char *u = strchr(units, *s | 0x20);

		if (u) {
			shift = 10 * (unsigned int)(u - units + 1);
			s += 1;
			s += *s == 'i';
			s += *s == 'B' || *s == 'b';
			hexdigit = false;
		}
	}
	if (*s) {
		return hexdigit && base == 10 ? CONV_HEX_NO_PREFIX : CONV_GARBAGE;
	}
	if (overflow || (shift && v > (UINT64_MAX >> shift))) {
		return CONV_RANGE;
	}
	*val = v << shift;
	return CONV_OK;
}

/* Options holding a size in bytes: these take unit suffixes */
static bool
opt_is_size(const struct xnvme_cli_opt_info *info)
{
	if (info->flags & XNVME_CLI_TOOL_OPT_SIZE) {
		return true;
	}
	switch (info->attr.opt) {
	case XNVME_CLI_OPT_DATA_NBYTES:
	case XNVME_CLI_OPT_META_NBYTES:
	case XNVME_CLI_OPT_LPO_NBYTES:
	case XNVME_CLI_OPT_IOSIZE:
	case XNVME_CLI_OPT_OFFSET:
		return true;
	default:
		return false;
	}
}

static void
store(struct xnvme_cli_args *args, const struct xnvme_cli_opt_info *info, const char *str,
      uint64_t v)
{
	char *mbr = (char *)args + info->offset;

	switch (info->dest) {
	case XNVME_CLI_DEST_STR:
		*(const char **)(void *)mbr = str;
		break;
	case XNVME_CLI_DEST_BOOL:
		*(bool *)(void *)mbr = v != 0;
		break;
	case XNVME_CLI_DEST_U8:
		*(uint8_t *)(void *)mbr = (uint8_t)v;
		break;
	case XNVME_CLI_DEST_U32:
		*(uint32_t *)(void *)mbr = (uint32_t)v;
		break;
	case XNVME_CLI_DEST_U64:
		*(uint64_t *)(void *)mbr = v;
		break;
	case XNVME_CLI_DEST_SIZE:
		*(size_t *)(void *)mbr = (size_t)v;
		break;
	case XNVME_CLI_DEST_CSS:
		((struct xnvme_opts_css *)(void *)mbr)->value = (uint32_t)v;
		((struct xnvme_opts_css *)(void *)mbr)->given = 1;
		break;
	case XNVME_CLI_DEST_TOOL: {
		struct xnvme_cli_tool_opt *topt = xnvme_cli_tool_opt_of(info);

		if (!topt) {
			break;
		}
		/* a repeated positional collects every value; the first one is `str` */
		if ((topt->flags & XNVME_CLI_TOOL_OPT_REPEAT) && topt->vals &&
		    topt->given < topt->vals_max) {
			topt->vals[topt->given] = str;
		}
		if (!topt->given) {
			topt->str = str;
			topt->num = v;
		}
		break;
	}
	case XNVME_CLI_DEST_NONE:
		break;
	}
}

/* Converts `val` by the option's value type, range-checks it against its member, stores it */
static int
convert(const struct parse_state *st, const struct xnvme_cli_opt_info *info, const char *val,
	bool posa)
{
	const char *what;
	uint64_t num = 0, lim;
	bool hex;

	switch (info->attr.vtype) {
	case XNVME_CLI_OPT_VTYPE_URI:
	case XNVME_CLI_OPT_VTYPE_FILE:
		if (!val[0]) {
			goto empty;
		}
		/* fall through */
	case XNVME_CLI_OPT_VTYPE_STR:
		if (info->dest == XNVME_CLI_DEST_STR || info->dest == XNVME_CLI_DEST_TOOL) {
			store(&st->cli->args, info, val, 0);
		}
		return 0;
	case XNVME_CLI_OPT_VTYPE_NUM:
	case XNVME_CLI_OPT_VTYPE_HEX:
		break;
	default:
		return 0;
	}

	hex = info->attr.vtype == XNVME_CLI_OPT_VTYPE_HEX;
	what = opt_is_size(info)
		       ? ": invalid size (decimal or 0x-prefixed hex bytes, optional k/m/g/t unit) "
	       : hex ? ": invalid hexadecimal number (0x prefix optional) "
		     : ": invalid number (decimal, or hexadecimal with a 0x prefix) ";
	switch (conv_u64(val, opt_is_size(info), hex, &num)) {
	case CONV_OK:
		break;
	case CONV_EMPTY:
		goto empty;
	case CONV_HEX_NO_PREFIX:
		what = ": hexadecimal values need the 0x prefix (numbers are decimal otherwise) ";
		goto invalid;
	case CONV_NEGATIVE:
		what = ": negative value ";
		goto invalid;
	case CONV_GARBAGE:
	invalid:
		if (st->errs) {
			err_head(st, EINVAL);
			err_subject(st, info, posa);
			err_text(st, what);
			err_val(st, val);
			err_tail(st);
		}
		return XNVME_CLI_PARSE_ERROR;
	case CONV_RANGE:
		goto range;
	}

	lim = xnvme_cli_opt_limit(info);
	if (info->dest == XNVME_CLI_DEST_STR || info->dest == XNVME_CLI_DEST_NONE) {
		return 0; /* a numeric type on a string member: nothing to store */
	}
	if (num > lim) {
		goto range;
	}
	store(&st->cli->args, info, val, num);
	return 0;

range:
	if (st->errs) {
		lim = xnvme_cli_opt_limit(info);
		err_head(st, ERANGE);
		err_subject(st, info, posa);
		err_text(st, ": value ");
		err_val(st, val);
		if (hex) {
			fprintf(st->errs, " out of range (max 0x%" PRIx64 ")", lim);
		} else {
			fprintf(st->errs, " out of range (max %" PRIu64 ")", lim);
		}
		err_tail(st);
	}
	return XNVME_CLI_PARSE_ERROR;

empty:
	if (st->errs) {
		err_head(st, EINVAL);
		err_subject(st, info, posa);
		err_text(st, ": empty value");
		err_tail(st);
	}
	return XNVME_CLI_PARSE_ERROR;
}

/* Index of the non-positional entry named name[0..len), or -1 */
static int
find_named(const struct xnvme_cli_sub *sub, const char *name, size_t len)
{
	int nopts = xnvme_cli_sub_nopts(sub);

	for (int i = 0; i < nopts; ++i) {
		const struct xnvme_cli_opt_info *info = xnvme_cli_sub_opt_info(sub, i);

		switch (sub->opts[i].type) {
		case XNVME_CLI_LFLG:
		case XNVME_CLI_LOPT:
		case XNVME_CLI_LREQ:
			break;
		default:
			continue;
		}
		if (!info || info->attr.vtype == XNVME_CLI_OPT_VTYPE_SKIP) {
			continue;
		}
		if (strlen(info->attr.name) == len && !strncmp(info->attr.name, name, len)) {
			return i;
		}
	}
	return -1;
}

/* Other spellings of option names: the multi-process docs and xnvme-driver write --shm-id */
static const struct {
	const char *alias;
	const char *name;
} g_aliases[] = {{"shm-id", "shm_id"}};

/* find_named(), also under an alias */
static int
find_named_or_alias(const struct xnvme_cli_sub *sub, const char *name, size_t len)
{
	int idx = find_named(sub, name, len);

	for (size_t a = 0; idx < 0 && a < sizeof(g_aliases) / sizeof(g_aliases[0]); ++a) {
		if (strlen(g_aliases[a].alias) == len && !strncmp(g_aliases[a].alias, name, len)) {
			idx = find_named(sub, g_aliases[a].name, strlen(g_aliases[a].name));
		}
	}
	return idx;
}

static void
set_help(struct xnvme_cli *cli)
{
	cli->given[XNVME_CLI_OPT_HELP] = 1;
	cli->args.help = 1;
}

/* A long option: --name, --name=value or --name value; may consume argv[*i + 1] */
static int
parse_long(struct parse_state *st, int argc, char **argv, int *i)
{
	const struct xnvme_cli_sub *sub = st->sub;
	const char *arg = argv[*i];
	const char *name = arg + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct xnvme_cli_opt_info *info;
	const char *val;
	int idx, err;

	idx = find_named_or_alias(sub, name, len);
	if (idx < 0) {
		if (len == 4 && !strncmp(name, "help", 4)) {
			return fail(st, EINVAL, "option --help is a flag and takes no value", NULL,
				    NULL);
		}
		if (st->errs) {
			err_head(st, EINVAL);
			err_text(st, "unknown option ");
			fputc('"', st->errs);
			xnvme_cli_fput_sanitized(st->errs, arg, len + 2, MSG_VAL_MAX);
			fputc('"', st->errs);
			err_tail(st);
		}
		return XNVME_CLI_PARSE_ERROR;
	}
	info = xnvme_cli_sub_opt_info(sub, idx);

	/* strict: a repeated option is more likely a typo than an intended override */
	if (xnvme_cli_opt_given(st->cli, info)) {
		if (st->errs) {
			err_head(st, EINVAL);
			err_subject(st, info, false);
			err_text(st, " given more than once");
			err_tail(st);
		}
		return XNVME_CLI_PARSE_ERROR;
	}

	/* --direct is a flag everywhere; "--direct 0|1" and "--direct=0|1" still parse */
	if (info->attr.opt == XNVME_CLI_OPT_DIRECT && xnvme_cli_opt_is_flag(sub, idx)) {
		const char *next = *i + 1 < argc ? argv[*i + 1] : NULL;
		const char *dval = eq ? eq + 1 : "1";

		if (!eq && next && (!strcmp(next, "0") || !strcmp(next, "1"))) {
			*i += 1;
			dval = next;
		}
		err = convert(st, info, dval, false);
		if (err) {
			return err;
		}
		opt_set_given(st->cli, info);
		return 0;
	}

	if (sub->opts[idx].type == XNVME_CLI_LFLG) {
		if (eq) {
			if (st->errs) {
				err_head(st, EINVAL);
				err_subject(st, info, false);
				err_text(st, " is a flag and takes no value");
				err_tail(st);
			}
			return XNVME_CLI_PARSE_ERROR;
		}
		store(&st->cli->args, info, arg, 1);
		opt_set_given(st->cli, info);
		return 0;
	}

	if (eq) {
		val = eq + 1;
	} else if (*i + 1 < argc && argv[*i + 1] && strncmp(argv[*i + 1], "--", 2)) {
		*i += 1;
		val = argv[*i];
	} else {
		/* the next word is another option (or nothing): say so rather than eat it */
		if (st->errs) {
			err_head(st, EINVAL);
			err_subject(st, info, false);
			fprintf(st->errs, " requires a %s value",
				xnvme_cli_vtype_str(info->attr.vtype));
			err_tail(st);
		}
		return XNVME_CLI_PARSE_ERROR;
	}

	err = convert(st, info, val, false);
	if (err) {
		return err;
	}
	opt_set_given(st->cli, info);
	return 0;
}

static int
parse_sub(struct parse_state *st, int argc, char **argv)
{
	const struct xnvme_cli_sub *sub = st->sub;
	struct xnvme_cli *cli = st->cli;
	int posa_idx[XNVME_CLI_SUB_OPTS_LEN];
	const char *posa_val[XNVME_CLI_SUB_OPTS_LEN];
	const struct xnvme_cli_opt_info *rep = NULL; ///< the last positional when it repeats
	int nposa = 0, nfixed, nseen = 0, nopts, err;
	bool only_posa = false;

	/* --help wins over everything else, so that usage is reachable from any command line */
	for (int i = 0; i < argc && argv[i]; ++i) {
		if (!strcmp(argv[i], "--")) {
			break;
		}
		if (!strcmp(argv[i], "--help")) {
			set_help(cli);
			return XNVME_CLI_PARSE_SUB_HELP;
		}
	}

	nopts = xnvme_cli_sub_nopts(sub);
	for (int i = 0; i < nopts; ++i) {
		if (sub->opts[i].type == XNVME_CLI_POSA && xnvme_cli_sub_opt_info(sub, i) &&
		    xnvme_cli_sub_opt_info(sub, i)->attr.vtype != XNVME_CLI_OPT_VTYPE_SKIP) {
			posa_idx[nposa++] = i;
		}
	}
	if (nposa &&
	    (xnvme_cli_sub_opt_info(sub, posa_idx[nposa - 1])->flags & XNVME_CLI_TOOL_OPT_REPEAT)) {
		rep = xnvme_cli_sub_opt_info(sub, posa_idx[nposa - 1]);
	}
	nfixed = rep ? nposa - 1 : nposa;

	for (int i = 0; i < argc && argv[i]; ++i) {
		const char *arg = argv[i];

		if (!only_posa && arg[0] == '-' && arg[1] == '-') {
			if (!arg[2]) {
				only_posa = true;
				continue;
			}
			err = parse_long(st, argc, argv, &i);
			if (err) {
				return err;
			}
			continue;
		}
		if (!only_posa && arg[0] == '-' && arg[1]) {
			return fail(st, EINVAL, "unknown option ", arg,
				    " (only long options, e.g. --help, are supported)");
		}
		if (nseen >= nfixed && rep) {
			const struct xnvme_cli_tool_opt *topt = xnvme_cli_tool_opt_of(rep);
			uint32_t max = (topt && topt->vals_max) ? topt->vals_max : 1;

			if (topt && topt->given >= max) {
				if (st->errs) {
					err_head(st, EINVAL);
					err_text(st, "unexpected argument ");
					err_val(st, arg);
					fprintf(st->errs, " (at most %" PRIu32 " <%s> values)", max,
						rep->attr.name);
					err_tail(st);
				}
				return XNVME_CLI_PARSE_ERROR;
			}
			/* in order, as given: the values keep the order of the command line */
			err = convert(st, rep, arg, true);
			if (err) {
				return err;
			}
			opt_set_given(cli, rep);
			nseen++;
			continue;
		}
		if (nseen >= nposa) {
			if (st->errs) {
				err_head(st, EINVAL);
				err_text(st, "unexpected argument ");
				err_val(st, arg);
				fprintf(st->errs, " (takes %d positional argument%s)", nposa,
					nposa == 1 ? "" : "s");
				err_tail(st);
			}
			return XNVME_CLI_PARSE_ERROR;
		}
		posa_val[nseen++] = arg;
	}

	if (nseen < nposa) {
		const struct xnvme_cli_opt_info *info =
			xnvme_cli_sub_opt_info(sub, posa_idx[nseen]);

		if (st->errs) {
			err_head(st, EINVAL);
			err_text(st, "missing ");
			err_subject(st, info, true);
			err_tail_usage(st);
		}
		return XNVME_CLI_PARSE_ERROR;
	}
	for (int k = 0; k < nfixed; ++k) {
		const struct xnvme_cli_opt_info *info = xnvme_cli_sub_opt_info(sub, posa_idx[k]);

		err = convert(st, info, posa_val[k], true);
		if (err) {
			return err;
		}
		opt_set_given(cli, info);
	}

	for (int i = 0; i < nopts; ++i) {
		const struct xnvme_cli_opt_info *info = xnvme_cli_sub_opt_info(sub, i);

		if (sub->opts[i].type != XNVME_CLI_LREQ || !info ||
		    info->attr.vtype == XNVME_CLI_OPT_VTYPE_SKIP ||
		    xnvme_cli_opt_given(cli, info)) {
			continue;
		}
		if (st->errs) {
			err_head(st, EINVAL);
			err_text(st, "missing required ");
			err_subject(st, info, false);
			err_tail_usage(st);
		}
		return XNVME_CLI_PARSE_ERROR;
	}

	return XNVME_CLI_PARSE_RUN;
}

static struct xnvme_cli_sub *
find_sub(const struct xnvme_cli *cli, const char *name)
{
	if (!cli->subs) {
		return NULL;
	}
	for (int i = 0; i < cli->nsubs; ++i) {
		if (cli->subs[i].name && !strcmp(cli->subs[i].name, name)) {
			return &cli->subs[i];
		}
	}
	return NULL;
}

int
xnvme_cli_parse(struct xnvme_cli *cli, int argc, char **argv, FILE *errs)
{
	struct parse_state st = {.cli = cli, .sub = NULL, .errs = errs};
	struct xnvme_cli_sub *sub;
	const char *arg;

	if (!cli) {
		return XNVME_CLI_PARSE_ERROR;
	}
	cli->argc = argc;
	cli->argv = argv;
	memset(&cli->args, 0, sizeof(cli->args));
	memset(cli->given, 0, sizeof(cli->given));
	cli->sub = NULL;
	for (int i = 0; g_tool && i < g_tool->n; ++i) {
		g_tool->opts[i].given = 0;
		g_tool->opts[i].str = NULL;
		g_tool->opts[i].num = 0;
	}

	if (!argv || argc < 2 || !argv[1]) {
		return XNVME_CLI_PARSE_TOOL_HELP;
	}
	arg = argv[1];

	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		set_help(cli);
		return XNVME_CLI_PARSE_TOOL_HELP;
	}
	if (!strcmp(arg, XNVME_CLI_GEN_MAN_ARG) || !strcmp(arg, XNVME_CLI_GEN_BASH_ARG)) {
		if (argc > 2) {
			return fail(&st, EINVAL, NULL, arg, " takes no further arguments");
		}
		return strcmp(arg, XNVME_CLI_GEN_MAN_ARG) ? XNVME_CLI_PARSE_GEN_BASH
							  : XNVME_CLI_PARSE_GEN_MAN;
	}
	if (arg[0] == '-' && arg[1]) {
		return fail(&st, EINVAL, "expected a subcommand before any option, got ", arg,
			    NULL);
	}

	sub = find_sub(cli, arg);
	if (!sub) {
		return fail(&st, EINVAL, "unknown subcommand ", arg, NULL);
	}
	cli->sub = sub;
	st.sub = sub;

	return parse_sub(&st, argc - 2, argv + 2);
}
