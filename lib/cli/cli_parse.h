/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Internal interface of the CLI builder (not installed).
 *
 * The parser core (argv -> cli->args / cli->given) depends on libc only, so that tests and the
 * fuzz harness can link cli_opts.c + cli_parse.c (+ cli_usage.c, cli_gen.c, ver.c) directly.
 * Nothing here allocates; every printer takes the stream to write to.
 */
#ifndef XNVME_CLI_PARSE_H
#define XNVME_CLI_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <libxnvme_cli.h>

/** The C type of the struct xnvme_cli_args member an option lands in */
enum xnvme_cli_dest {
	XNVME_CLI_DEST_NONE = 0, ///< section titles: nothing is stored
	XNVME_CLI_DEST_STR,      ///< const char *, points into argv
	XNVME_CLI_DEST_BOOL,     ///< bool: flags store true, values must be 0 or 1
	XNVME_CLI_DEST_U8,
	XNVME_CLI_DEST_U32,
	XNVME_CLI_DEST_U64,
	XNVME_CLI_DEST_SIZE, ///< size_t
	XNVME_CLI_DEST_CSS,  ///< struct xnvme_opts_css: value, and given = 1
	XNVME_CLI_DEST_TOOL, ///< struct xnvme_cli_tool_opt of the running tool: str, num, given
};

/** Everything the library knows about one option */
struct xnvme_cli_opt_info {
	struct xnvme_cli_opt_attr attr; ///< the public part, see xnvme_cli_get_opt_attr()
	size_t offset;                  ///< of the member in struct xnvme_cli_args
	enum xnvme_cli_dest dest;
	uint64_t
		max; ///< tighter limit than the member's type, when the consumer is narrower; 0: none
	uint32_t flags; ///< options of a tool: enum xnvme_cli_tool_opt_flags; 0 for the others
};

/**
 * The entry of `opt`, or NULL for 0, 94, END and anything out of range; XNVME_CLI_OPT_TOOL + i
 * is entry i of the calling thread's tool options (xnvme_cli_tool_opts_set())
 */
const struct xnvme_cli_opt_info *
xnvme_cli_opt_info(int opt);

/** The options a tool defines itself, as the parser sees them while the tool runs */
struct xnvme_cli_tool_table {
	struct xnvme_cli_tool_opt *opts;
	int n;
	struct xnvme_cli_opt_info info[XNVME_CLI_TOOL_OPTS_MAX];
};

/**
 * Fills `tab` with the options `opts[0 .. n - 1]`. @return 0, or -EINVAL for more than
 * XNVME_CLI_TOOL_OPTS_MAX entries, an entry without a name or of a value type other than NUM,
 * HEX, STR, FILE and URI
 */
int
xnvme_cli_tool_table_init(struct xnvme_cli_tool_table *tab, struct xnvme_cli_tool_opt *opts, int n);

/** Makes `tab` (NULL: none) the tool options of the calling thread; returns the previous one */
struct xnvme_cli_tool_table *
xnvme_cli_tool_table_set(struct xnvme_cli_tool_table *tab);

/** The info of tool option `opt` (XNVME_CLI_OPT_TOOL + i) of the calling thread, or NULL */
const struct xnvme_cli_opt_info *
xnvme_cli_tool_opt_info(int opt);

/** The tool option of `info` (dest XNVME_CLI_DEST_TOOL), else NULL */
struct xnvme_cli_tool_opt *
xnvme_cli_tool_opt_of(const struct xnvme_cli_opt_info *info);

/** Whether the option of `info` was given on the command line parsed into `cli` */
int
xnvme_cli_opt_given(const struct xnvme_cli *cli, const struct xnvme_cli_opt_info *info);

/** "NUM", "HEX", "STR", "FILE", "URI"; "" for anything else */
const char *
xnvme_cli_vtype_str(int vtype);

/** Largest value the member of `info` can hold (the tighter `max` when set) */
uint64_t
xnvme_cli_opt_limit(const struct xnvme_cli_opt_info *info);

/**
 * Number of entries of sub->opts before its terminator (NONE, END or the end of the array).
 * Entries in that range whose opt has no info or whose type is unknown are skipped by every
 * user; use xnvme_cli_sub_opt_info() to get the info of a usable entry.
 */
int
xnvme_cli_sub_nopts(const struct xnvme_cli_sub *sub);

/** Info of sub->opts[idx] when the entry is usable (known opt, known type), else NULL */
const struct xnvme_cli_opt_info *
xnvme_cli_sub_opt_info(const struct xnvme_cli_sub *sub, int idx);

/**
 * Whether sub->opts[idx] is shown and parsed as a flag: declared XNVME_CLI_LFLG, or --direct,
 * which is a flag whatever its declaration (a following 0 or 1 is still taken as its value)
 */
int
xnvme_cli_opt_is_flag(const struct xnvme_cli_sub *sub, int idx);

/** The type sub->opts[idx] is shown and parsed as: XNVME_CLI_LFLG for flags (above) */
enum xnvme_cli_opt_type
xnvme_cli_sub_opt_type(const struct xnvme_cli_sub *sub, int idx);

/**
 * The values option `opt` accepts, blank-separated, for completion: the backend and mechanism
 * names of the backends built here, from the registry (lib/registry.c); NULL for options
 * taking anything
 */
const char *
xnvme_cli_opt_values(enum xnvme_cli_opt opt);

/** Whether the sub declares `opt` with `type` */
int
xnvme_cli_sub_has(const struct xnvme_cli_sub *sub, enum xnvme_cli_opt opt,
		  enum xnvme_cli_opt_type type);

/** What xnvme_cli_parse() found on the command line */
enum xnvme_cli_parse_status {
	XNVME_CLI_PARSE_ERROR = -1,    ///< a message was printed; exit status -1
	XNVME_CLI_PARSE_RUN = 0,       ///< cli->sub, cli->args and cli->given are ready
	XNVME_CLI_PARSE_TOOL_HELP = 1, ///< no subcommand, -h or --help
	XNVME_CLI_PARSE_SUB_HELP = 2,  ///< --help on cli->sub
	XNVME_CLI_PARSE_GEN_MAN = 3,   ///< hidden: <tool> --gen-man
	XNVME_CLI_PARSE_GEN_BASH = 4,  ///< hidden: <tool> --gen-bash-completion
};

#define XNVME_CLI_GEN_MAN_ARG "--gen-man"
#define XNVME_CLI_GEN_BASH_ARG "--gen-bash-completion"

/**
 * Parses a whole command line (argv[0] is the tool) into cli: stores argc/argv, clears args,
 * given and sub, finds the subcommand, converts and range-checks every value. Error messages
 * name the subcommand and the offending argument; they go to `errs` (NULL: silent).
 * Never reads beyond argv[argc - 1] nor beyond the NUL of any argument; keeps no state.
 *
 * @return an enum xnvme_cli_parse_status value
 */
int
xnvme_cli_parse(struct xnvme_cli *cli, int argc, char **argv, FILE *errs);

/** The name the tool was invoked as: basename of argv[0], else the title, else "xnvme" */
const char *
xnvme_cli_tool_name(const struct xnvme_cli *cli);

/**
 * Prints the first `len` bytes of `s` (up to its NUL) for a message: quotes doubled, control
 * bytes as \xNN, cut with "..." after `max` bytes
 */
void
xnvme_cli_fput_sanitized(FILE *stream, const char *s, size_t len, size_t max);

/** Tool usage (subcommand list) to `stream` */
int
xnvme_cli_usage_tool(FILE *stream, const struct xnvme_cli *cli);

/** Subcommand usage (synopsis, description, one line per option) to `stream` */
int
xnvme_cli_usage_sub(FILE *stream, const struct xnvme_cli *cli, const struct xnvme_cli_sub *sub);

/** Roff man page of the tool; 0 or -EIO */
int
xnvme_cli_gen_man(FILE *stream, const struct xnvme_cli *cli);

/** Bash completion function for the tool; 0 or -EIO */
int
xnvme_cli_gen_bash(FILE *stream, const struct xnvme_cli *cli);

#endif /* XNVME_CLI_PARSE_H */
