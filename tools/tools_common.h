/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Helpers shared by the command-line tools (not installed): error reporting that names the
 * subcommand, the argument and the NVMe status, option range checks, data files, outputs that
 * are replaced only when a run succeeds, signals, generated data, progress lines on a terminal,
 * device enumeration, log pages and chunked file/device transfers. Logical-block I/O lives in
 * tools_lblk.h.
 *
 * Implemented, section by section, in: tools_err.c (messages, NVMe status names), tools_cli.c
 * (options, range checks, number syntax), tools_main.c (tool_run(): exit statuses, usage, device
 * open, outputs committed, --version, man page sections), tools_examples.c (man page EXAMPLES),
 * tools_file_check.c (files named by several arguments, what a file can hold), tools_sig.c
 * (signals), tools_out.c (outputs), tools_file.c (data files, generated data),
 * tools_progress.c, tools_dev.c (devices, log pages), tools_mech.c (mechanisms of a device),
 * tools_xfer.c and tools_xfer_rw.c (byte-addressed transfers).
 */
#ifndef XNVME_TOOLS_COMMON_H
#define XNVME_TOOLS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <libxnvme.h>
#include "tools_plat.h"

/** Exit statuses of every tool: success, the command failed, usage error */
#define TOOL_EXIT_OK 0
#define TOOL_EXIT_FAILED 1
#define TOOL_EXIT_USAGE 2

/** Default transfer size of xdd / xnvme_file, and their default queue depth */
#define TOOL_IOSIZE_DEF (128 * 1024)
#define TOOL_QDEPTH_DEF 16
#define TOOL_QDEPTH_MAX 4096
#define TOOL_VEC_CNT_DEF 4
#define TOOL_VEC_CNT_MAX 1024

/** dtype of a regular file opened through the file backend */
#define TOOL_DTYPE_FILE 4

/* ------------------------------------------------------------------------------------------ */
/* Messages                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/**
 * Prints "# ERR: '<tool> <subcommand>: <formatted text><notes>': {errno: ...}" on stderr; the
 * notes name what was already written to devices (tool_out_notes()). A failure a pending signal
 * caused (`err` -EPIPE: the reader of a pipe went away; -EINTR: a wait was cut short) is the
 * interruption: the line printed, once per run, is that of the signal (tool_sig_report()).
 *
 * @return `err` as a negative errno (-EINVAL when `err` is 0), for `return tool_err(...)`;
 * -EINTR for a failure reported as the interruption
 */
int
tool_err(const struct xnvme_cli *cli, int err, const char *fmt, ...)
	__attribute__((format(TOOL_PRINTF, 3, 4)));

/** As tool_err(), printing the line whatever signal is pending (the signal's own line) */
int
tool_err_line(const struct xnvme_cli *cli, int err, const char *fmt, ...)
	__attribute__((format(TOOL_PRINTF, 3, 4)));

/** Number of error lines tool_err() printed so far in this process */
unsigned int
tool_err_count(void);

/**
 * Name of the running subcommand, "?" when there is none. Shared by the helper files: tool_err()
 * messages (tools_err.c) and progress labels (tools_progress.c).
 */
const char *
sub_name(const struct xnvme_cli *cli);

/**
 * Reports a failed command: one error line on stderr naming the NVMe status (and CDW0 of the
 * completion) when the device answered with one, nothing on stdout. `err` is the return value
 * of the command function; a status without an error is reported as -EIO.
 */
int
tool_cmd_err(const struct xnvme_cli *cli, struct xnvme_cmd_ctx *ctx, int err, const char *fmt,
	     ...) __attribute__((format(TOOL_PRINTF, 4, 5)));

/**
 * Name of the NVMe status of a completion, e.g. "Invalid Command Opcode"; status codes specific
 * to a command set are named after the command set of the device the command went to.
 */
const char *
tool_status_str(const struct xnvme_cmd_ctx *ctx);

/** Name of an option as written on the command line, without the dashes */
const char *
tool_opt_name(enum xnvme_cli_opt opt);

/**
 * The option as the user wrote it: "--name", or "name" for a positional argument of the running
 * subcommand. Points to one of four rotating static buffers.
 */
const char *
tool_opt_label(const struct xnvme_cli *cli, enum xnvme_cli_opt opt);

/**
 * The tools' number syntax, for tools parsing their own options (xnvmeperf): decimal, or
 * hexadecimal with a 0x prefix; with `size`, a binary unit k, m, g or t, optionally followed by
 * "i" and "B", may follow a decimal number (4k = 4KiB = 4096). Returns 0, -EINVAL or -ERANGE.
 */
int
tool_parse_num(const char *s, bool size, uint64_t *val);

/** Whether a range check failed in this process: the tool then exits TOOL_EXIT_USAGE */
bool
tool_usage_err_seen(void);

/** A usage error found after parsing (a value of the wrong kind): message, and exit status 2 */
int
tool_err_usage(const struct xnvme_cli *cli, const char *fmt, ...)
	__attribute__((format(TOOL_PRINTF, 2, 3)));

/** Fails with a message naming the option when `val > max` */
int
tool_check_max(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, uint64_t val, uint64_t max);

/** Fails with a message naming the option when it was given with a value outside [min, max] */
int
tool_check_range(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, uint64_t val, uint64_t min,
		 uint64_t max);

/** The --nsid value when given, else the namespace of the opened device */
uint32_t
tool_nsid(const struct xnvme_cli *cli);

/** Whether the running subcommand takes option `opt` (its table lists it) */
bool
tool_sub_has_opt(const struct xnvme_cli *cli, enum xnvme_cli_opt opt);

/** `a * b` into `*res`; false (and `*res` UINT64_MAX) when the product does not fit */
static inline bool
tool_mul_u64(uint64_t a, uint64_t b, uint64_t *res)
{
	if (__builtin_mul_overflow(a, b, res)) {
		*res = UINT64_MAX;
		return false;
	}
	return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Files named by several arguments, and what a file can hold                                 */
/* ------------------------------------------------------------------------------------------ */

/**
 * Refuses (-EINVAL, a message naming both arguments) to run when two file arguments of the
 * running subcommand name the same file and at least one of them is written: the device URI
 * (read and written), --data-input, --meta-input, --cmd-input (read), --data-output,
 * --meta-output and --cmd-output (written). Same file means same device and inode, whatever
 * the paths (symbolic and hard links); two outputs not yet existing are the same file when
 * they name the same entry of the same directory. Only regular files and block devices are
 * compared: character devices, FIFOs and sockets may well be named twice (/dev/null).
 * tool_run() calls it before every subcommand, before any output is opened.
 */
int
tool_check_files(const struct xnvme_cli *cli);

/** A tool as tool_run() runs it: TOOL_MAIN() defines one, xnvmeperf its own */
struct tool_def {
	struct xnvme_cli *cli;
	int init; ///< XNVME_CLI_INIT_DEV_OPEN: the uri positional is opened before the subcommand
	/**
	 * The subcommands that write the device of their uri positional, NULL-terminated: the
	 * device is opened read-write for them and read-only for every other subcommand
	 */
	const char *const *writers;
	struct xnvme_cli_tool_opt *opts; ///< the tool's own options (xnvme_cli_run_tool_opts())
	int nopts;
	/** Run when the first argument names no subcommand (a tool of one command); NULL: none */
	const char *dflt_sub;
};

/**
 * Runs a tool on the CLI builder: handles --version and --gen-man (adding EXIT STATUS and
 * EXAMPLES); prints usage on stderr with exit status 2 when no subcommand or a required
 * argument is missing; opens the device itself (read-only unless the subcommand is a writer,
 * reporting a failure with the reason from xnvme_last_error()); runs tool_check_files() and
 * tool_check_outputs() before the subcommand; commits the outputs of a successful run and
 * removes those of a failed one (tool_outs_commit()); prints one error line per failure.
 * Returns TOOL_EXIT_OK, TOOL_EXIT_FAILED, TOOL_EXIT_USAGE, or 128 + the number of the signal
 * (SIGINT, SIGTERM, SIGPIPE, SIGHUP) that stopped the run.
 */
int
tool_run(const struct tool_def *def, int argc, char **argv);

/** Prints "<tool> <major>.<minor>.<patch>" for --version; returns the exit status */
int
tool_version_pr(const char *tool);

/** One example invocation of a tool, for its man page */
struct tool_example {
	const char *cmd;
	const char *descr;
};

/** The examples of `tool`, terminated by an entry with cmd NULL; NULL for an unknown tool */
const struct tool_example *
tool_examples(const char *tool);

/** Man page section EXIT STATUS of the tools' convention (roff) */
void
tool_man_exit_status(FILE *stream);

/** Man page section EXAMPLES of `tool` (roff); nothing when it has none */
void
tool_man_examples(FILE *stream, const char *tool);

/**
 * Fails, naming the size argument `nopt` and the limit, when a regular file `path` (existing,
 * or to be created; named by `fopt`) cannot hold `nbytes` bytes of data ending at byte `end`:
 * more data than its file system holds, or an end past the largest file size there. Paths that
 * are not regular files (devices, URIs) pass: check those against tool_xfer_size() once open.
 */
int
tool_check_file_room(const struct xnvme_cli *cli, enum xnvme_cli_opt nopt, uint64_t nbytes,
		     uint64_t end, enum xnvme_cli_opt fopt, const char *path);

/** As tool_check_file_room(), examining the file `where` and naming `path` */
int
tool_check_file_room_at(const struct xnvme_cli *cli, enum xnvme_cli_opt nopt, uint64_t nbytes,
			uint64_t end, enum xnvme_cli_opt fopt, const char *path, const char *where);

/** The largest size a regular file at `path` (existing or to be created) may have */
uint64_t
tool_file_size_max(const char *path);

/* ------------------------------------------------------------------------------------------ */
/* Signals (tools_sig.c)                                                                      */
/* ------------------------------------------------------------------------------------------ */

/** Catches SIGINT, SIGTERM, SIGPIPE and SIGHUP from here on (tool_run() calls it) */
void
tool_sig_init(void);

/** The signal that asked the run to stop, 0 when none did or the outputs are committed */
int
tool_sig_pending(void);

/** "SIGINT", "SIGTERM", "SIGPIPE", "SIGHUP" */
const char *
tool_sig_name(int sig);

/**
 * When a signal asked the run to stop: prints (once) the error line saying so and returns
 * -EINTR; else 0. Loops call it between two commands and stop on a non-zero return.
 */
int
tool_sig_check(const struct xnvme_cli *cli);

/** As tool_sig_check(), but prints the line whenever a signal is pending (tool_run()) */
int
tool_sig_report(const struct xnvme_cli *cli);

/**
 * The point of no return of a run: fails as tool_sig_check() when a signal is pending, else
 * from now on signals are ignored (the outputs are being put in place)
 */
int
tool_sig_commit(const struct xnvme_cli *cli);

/** 128 + the pending signal, or 0 */
int
tool_sig_exit_status(void);

/* ------------------------------------------------------------------------------------------ */
/* Outputs: replaced only on success (tools_out.c)                                            */
/* ------------------------------------------------------------------------------------------ */

/** What an output is, and so how it is written */
enum tool_out_kind {
	TOOL_OUT_NEW,     ///< a regular file to create: written as a new file, renamed at the end
	TOOL_OUT_REPLACE, ///< an existing regular file: the same, renamed over it at the end
	TOOL_OUT_DEVICE,  ///< a block or character device: written in place, ranges noted
	TOOL_OUT_STREAM,  ///< a FIFO or socket: written in place, ranges noted
};

/** tool_out_open() flags */
enum tool_out_flags {
	TOOL_OUT_KEEP = 0x1, ///< REPLACE: start from the bytes of the target (a range is written)
};

struct tool_out;

/**
 * Checks, creating nothing, that the output `path` of option `opt` can be written safely: its
 * directory exists and takes new files, an existing file is writable and its owner and group
 * can be kept, it is no directory. Prints the reason and returns negative errno otherwise.
 */
int
tool_out_check(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path);

/**
 * Starts writing the output `path`: a regular file is written as a new file beside it (empty,
 * or with TOOL_OUT_KEEP a copy of the existing file), a device or stream in place. The output
 * belongs to the running subcommand: tool_run() commits it when the subcommand succeeds and
 * removes the new file otherwise. NULL (reported, *err set) on failure.
 */
struct tool_out *
tool_out_open(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path, int flags,
	      int *err);

/**
 * Notes the device of the uri positional (or another device written in place) as an output
 * whose written ranges, in `unit` ("bytes", "LBAs"; hexadecimal with `unit_hex`), error lines
 * name
 */
struct tool_out *
tool_out_device(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path,
		const char *unit, bool unit_hex);

/** The path to write to: the new file, or the device or stream itself */
const char *
tool_out_path(const struct tool_out *o);

/** The output as the user named it */
const char *
tool_out_name(const struct tool_out *o);

enum tool_out_kind
tool_out_kind(const struct tool_out *o);

/** Notes that `n` units from `off` reached a device or stream (nothing for files) */
void
tool_out_wrote(struct tool_out *o, uint64_t off, uint64_t n);

/**
 * "; <option> <path>: bytes A-B, C-D were written" for every device or stream written to so
 * far, for the end of an error line; returns the length
 */
size_t
tool_out_notes(char *buf, size_t len);

/**
 * Puts the outputs of the run in place: the point of no return (tool_sig_commit()), then each
 * new file synced, given the mode, owner and group of the file it replaces, and renamed over
 * it. On failure every new file is removed and the targets are as before.
 */
int
tool_outs_commit(const struct xnvme_cli *cli);

/** Removes the new files of the run; the targets keep their bytes */
void
tool_outs_abort(void);

/**
 * Checks the output files named on the command line (--data-output, --meta-output,
 * --cmd-output) with tool_out_check(); tool_run() calls it before the subcommands of the
 * tools whose outputs are always files (those opening a device: XNVME_CLI_INIT_DEV_OPEN)
 */
int
tool_check_outputs(const struct xnvme_cli *cli);

/* ------------------------------------------------------------------------------------------ */
/* Subcommand tables                                                                          */
/* ------------------------------------------------------------------------------------------ */

/** Entries of xnvme_cli_sub.opts: `o` is the option name without XNVME_CLI_OPT_, e.g. NSID */
#define TOOL_LOPT(o) {XNVME_CLI_OPT_##o, XNVME_CLI_LOPT} ///< optional
#define TOOL_LREQ(o) {XNVME_CLI_OPT_##o, XNVME_CLI_LREQ} ///< required
#define TOOL_LFLG(o) {XNVME_CLI_OPT_##o, XNVME_CLI_LFLG} ///< flag
#define TOOL_POSA(o) {XNVME_CLI_OPT_##o, XNVME_CLI_POSA} ///< positional

/** Entries of xnvme_cli_sub.opts naming option `i` of the tool's own table (struct tool_def) */
#define TOOL_TOPT(i, type) {(enum xnvme_cli_opt)(XNVME_CLI_OPT_TOOL + (i)), XNVME_CLI_##type}

/**
 * The library's option groups (XNVME_CLI_CORE_OPTS ... XNVME_CLI_ASYNC_OPTS) plus --shm_id, so
 * that every subcommand that opens a device can attach to a vfio multi-process primary
 */
#define TOOL_CORE_OPTS XNVME_CLI_CORE_OPTS, TOOL_LOPT(SHM_ID)
#define TOOL_ADMIN_OPTS XNVME_CLI_ADMIN_OPTS, TOOL_LOPT(SHM_ID)
#define TOOL_SYNC_OPTS XNVME_CLI_SYNC_OPTS, TOOL_LOPT(SHM_ID)
#define TOOL_ASYNC_OPTS XNVME_CLI_ASYNC_OPTS, TOOL_LOPT(SHM_ID)

/** The positional arguments title; then the options of TOOL_POSA() */
#define TOOL_OPTS_POSA {XNVME_CLI_OPT_POSA_TITLE, XNVME_CLI_SKIP}

/** The options title; then the options of TOOL_LOPT(), TOOL_LREQ() and TOOL_LFLG() */
#define TOOL_OPTS_LONG {XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP}

/** The device URI as the one positional argument */
#define TOOL_OPTS_URI TOOL_OPTS_POSA, TOOL_POSA(URI)

/** The device URI, then the options given, e.g. TOOL_OPTS_DEV(TOOL_LOPT(NSID)) */
#define TOOL_OPTS_DEV(...) TOOL_OPTS_URI, TOOL_OPTS_LONG, __VA_ARGS__

/** What TOOL_SUB_ENUM() prints without a more specific description */
#define TOOL_ENUM_DESCR                                                                          \
	"Enumerates the devices of every enabled backend and prints the identifier of each (as " \
	"'xnvme enum')"

/** The options of enumeration (tool_enum(), tool_list()), then the backend options given */
#define TOOL_OPTS_ENUM(...) TOOL_OPTS_LONG, TOOL_LOPT(SYS_URI), TOOL_LOPT(FLAGS), __VA_ARGS__

/**
 * The subcommand "enum" (tool_enum()) of description `descr_long`; the arguments that follow
 * are the backend options it takes
 */
#define TOOL_SUB_ENUM(descr_long_, ...)                                                     \
	{                                                                                   \
		.name = "enum", .descr_short = "Enumerate the devices found on the system", \
		.descr_long = descr_long_, .command = tool_enum,                            \
		.opts = {TOOL_OPTS_ENUM(__VA_ARGS__)},                                      \
	}

/** The subcommand "info" (tool_dev_info()) of description `descr_long` */
#define TOOL_SUB_INFO(descr_long_)                                                              \
	{                                                                                       \
		.name = "info",                                                                 \
		.descr_short = "Print the device handle: identity, backend, options, geometry", \
		.descr_long = descr_long_, .command = tool_dev_info,                            \
		.opts = {TOOL_OPTS_URI, TOOL_ASYNC_OPTS},                                  \
	}

/** The Identify Namespace subcommand (tool_idfy_ns()) of `name` */
#define TOOL_SUB_IDFY_NS(name_, descr_short_)                                                \
	{                                                                                    \
		.name = name_, .descr_short = descr_short_,                                  \
		.descr_long = "Prints the Identify Namespace data of --nsid (default: the "  \
			      "device namespace); --data-output also writes the 4096 bytes " \
			      "to a file",                                                   \
		.command = tool_idfy_ns,                                                     \
		.opts = {TOOL_OPTS_DEV(TOOL_LOPT(NSID), TOOL_LOPT(DATA_OUTPUT)),             \
			 TOOL_ASYNC_OPTS},                                              \
	}

/**
 * Defines main() of a tool of `title` and the descriptions given: runs the subcommand named on
 * the command line, from the table `subs`, with tool_run() and `init` (XNVME_CLI_INIT_DEV_OPEN:
 * the subcommand gets the device URI opened, read-write for the subcommands named in the
 * NULL-terminated array `writers`, read-only for the others)
 */
#define TOOL_MAIN(subs_, init_, writers_, title_, descr_short_, descr_long_) \
	int main(int argc, char **argv)                                      \
	{                                                                    \
		static struct xnvme_cli cli = {                              \
			.title = title_,                                     \
			.descr_short = descr_short_,                         \
			.descr_long = descr_long_,                           \
			.nsubs = (int)(sizeof(subs_) / sizeof((subs_)[0])),  \
			.subs = subs_,                                       \
		};                                                           \
		static const struct tool_def def = {                         \
			.cli = &cli,                                         \
			.init = init_,                                       \
			.writers = writers_,                                 \
		};                                                           \
                                                                             \
		return tool_run(&def, argc, argv);                           \
	}

/* ------------------------------------------------------------------------------------------ */
/* Data files and generated data                                                              */
/* ------------------------------------------------------------------------------------------ */

/** A plain file used for --data-input, --data-output and friends; init with TOOL_FILE_INIT */
struct tool_file {
	const struct xnvme_cli *cli;
	enum xnvme_cli_opt opt; ///< the option naming the file, for messages
	const char *path;
	int fd;
	uint64_t nbytes;      ///< bytes transferred so far
	struct tool_out *out; ///< outputs: where the bytes go until the subcommand ends
	bool stream;          ///< a FIFO, socket or character device: read without a known size
	bool regular;    ///< a regular file
};

#define TOOL_FILE_INIT {.fd = -1}

/**
 * Opens `path` for reading; a regular file holding fewer than `need` bytes is rejected up
 * front, so that nothing is sent to a device before the input is known to be complete.
 * The open never blocks: a FIFO is read as far as its writer provides data, and one without a
 * writer fails at once with a message naming the argument.
 */
int
tool_file_open_in(struct tool_file *f, const struct xnvme_cli *cli, enum xnvme_cli_opt opt,
		  const char *path, uint64_t need);

/**
 * Opens the output `path` for writing (tool_out_open()): a regular file is written as a new
 * file that replaces it, or becomes it, only when the subcommand succeeds; a device or FIFO is
 * written in place. A FIFO without a reader fails at once rather than blocking.
 */
int
tool_file_open_out(struct tool_file *f, const struct xnvme_cli *cli, enum xnvme_cli_opt opt,
		   const char *path);

/** Reads exactly `nbytes`; running out of data is an error naming the file */
int
tool_file_read(struct tool_file *f, void *buf, size_t nbytes);

/** Writes exactly `nbytes` */
int
tool_file_write(struct tool_file *f, const void *buf, size_t nbytes);

/** Closes the file if open; for outputs reports a failing close (e.g. a full disk) */
int
tool_file_close(struct tool_file *f);

/**
 * Closes a file after a failure; an output is then removed (a new file) or left as it was
 * when the subcommand ends
 */
void
tool_file_abort(struct tool_file *f);

/** Whether the file is open */
static inline bool
tool_file_is_open(const struct tool_file *f)
{
	return f->fd >= 0;
}

/** Fills `buf` with `nbytes` of `path`, which must hold at least that much */
int
tool_data_load(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path, void *buf,
	       size_t nbytes);

/** Writes `nbytes` of `buf` to the output `path` (tool_file_open_out()) */
int
tool_data_save(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path,
	       const void *buf, size_t nbytes);

/** Writes `nbytes` of `buf` to --data-output when that was given (noting it on stdout) */
int
tool_data_output(const struct xnvme_cli *cli, const void *buf, size_t nbytes);

/**
 * The tools' generated data: byte k of a transfer is 'A' + k % 26, as xnvme_buf_fill() "anum"
 * would produce over the whole transfer. `pos` is the offset of `buf` within the transfer, so
 * that chunked transfers produce the same bytes as one large one.
 */
void
tool_pattern_fill(void *buf, size_t nbytes, uint64_t pos);

/** Prints `nbytes` of `buf` as YAML: `<key>:` and rows of 16 hex bytes as flow sequences */
void
tool_hexdump_pr(const char *key, const void *buf, size_t nbytes);

/* ------------------------------------------------------------------------------------------ */
/* Progress                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/**
 * A progress line on stderr, redrawn in place with '\r' at most four times a second. It is
 * drawn only when stderr is a terminal, and only for transfers that are large or slow enough to
 * deserve one; otherwise every call is a no-op.
 */
struct tool_progress {
	char label[64]; ///< "<tool> <subcommand>"
	uint64_t total; ///< bytes; 0 when unknown (elapsed time only)
	uint64_t done;
	uint64_t start_ns;
	uint64_t last_ns;
	bool tty;
	bool shown;
};

void
tool_progress_start(struct tool_progress *p, const struct xnvme_cli *cli, uint64_t total);

void
tool_progress_update(struct tool_progress *p, uint64_t done);

/** Draws the final state and ends the line, if anything was drawn */
void
tool_progress_end(struct tool_progress *p);

/**
 * Ends the progress line the calling thread drew, if any, without drawing it again: the error
 * line that follows starts a line of its own (tool_err() calls it)
 */
void
tool_progress_break(void);

/**
 * An elapsed-time progress line for one long blocking call (Format NVM): a helper thread redraws
 * it until tool_ticker_stop(). Does nothing when stderr is not a terminal.
 */
struct tool_ticker;

struct tool_ticker *
tool_ticker_start(const struct xnvme_cli *cli);

void
tool_ticker_stop(struct tool_ticker *t);

/* ------------------------------------------------------------------------------------------ */
/* Devices                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/**
 * Enumerates devices with the CORE options and --uri of the command line and prints every
 * identifier as a flow mapping (`enum`)
 */
int
tool_enum(struct xnvme_cli *cli);

/** As tool_enum(), printing each distinct URI once (`list`) */
int
tool_list(struct xnvme_cli *cli);

/** Identify Namespace (--nsid or the device's) printed or dumped to --data-output */
int
tool_idfy_ns(struct xnvme_cli *cli);

/** Prints `s` as a YAML single-quoted scalar (quotes doubled, control bytes as blanks) */
void
tool_yaml_squote_pr(const char *s);

/**
 * Prints `xnvme_mechanisms:`: per kind (mem, admin, sync, async) every mechanism of the device's
 * backend as in use, available or refused with the library's reason (tools_mech.c)
 */
int
tool_mech_pr(struct xnvme_cli *cli);

/** Prints the device handle (identification, backend, options, geometry) and tool_mech_pr() */
int
tool_dev_info(struct xnvme_cli *cli);

/** `nbytes` zeroed bytes from the allocator of the device, or NULL (reported) */
void *
tool_dev_buf(struct xnvme_cli *cli, size_t nbytes);

/** The nsid of log pages when --nsid is not given: the controller-wide 0xFFFFFFFF */
#define TOOL_NSID_ALL 0xFFFFFFFF

/** --nsid when given, else TOOL_NSID_ALL */
uint32_t
tool_log_nsid(const struct xnvme_cli *cli);

/**
 * Get Log Page of `nbytes` into a fresh device buffer, with the log specific identifier `lsi`
 * (CDW11 bits 31:16; 0 when unused). Returns NULL (reported, *err set) when the command fails;
 * free the buffer with xnvme_buf_free().
 */
void *
tool_log_get(struct xnvme_cli *cli, uint8_t lid, uint8_t lsp, uint16_t lsi, uint64_t lpo,
	     uint32_t nsid, uint8_t rae, uint32_t nbytes, int *err);

/** Writes the log from tool_log_get() to --data-output when given, and frees it */
int
tool_log_put(struct xnvme_cli *cli, void *log, uint32_t nbytes);

/**
 * Error Information log: --limit entries (default: as many as the controller keeps) of --nsid
 * (default: controller-wide), printed and written to --data-output when given
 */
int
tool_log_erri(struct xnvme_cli *cli);

/* ------------------------------------------------------------------------------------------ */
/* Byte-addressed transfers through the file API (xdd, xnvme_file)                            */
/* ------------------------------------------------------------------------------------------ */

/** How tool_xfer_open() opens its file */
enum tool_xfer_mode {
	TOOL_XFER_IN = 0x1,    ///< read-only
	TOOL_XFER_OUT = 0x2,   ///< write-only, created when missing
	TOOL_XFER_TRUNC = 0x4, ///< with TOOL_XFER_OUT: truncate on open
};

/** One end of a transfer: a handle from xnvme_file_open() and how to issue commands on it */
struct tool_xfer {
	const struct xnvme_cli *cli;
	struct xnvme_dev *dev;
	enum xnvme_cli_opt opt;     ///< the argument naming it, for messages
	const char *path;
	struct xnvme_queue *queue;  ///< NULL: synchronous commands
	size_t iosize;              ///< bytes per command
	uint32_t vec_cnt;           ///< 0: contiguous buffers, else iovec elements per command
	uint32_t lba_nbytes;        ///< non-zero: an NVMe namespace, moved with NVM Read/Write
	struct tool_progress *prog; ///< optional; advanced by every completed byte
	uint64_t prog_base;         ///< added to the bytes of this call when reporting progress
	struct tool_out *out;       ///< an output: where the bytes go (tools_out.c)
	bool is_file;               ///< a regular file (its size is the file size, not a capacity)
	bool direct;                ///< opened with O_DIRECT (--direct)
	uint32_t dio_mem;           ///< with direct: buffer alignment the OS needs, 0 unknown
	uint32_t dio_off;           ///< with direct: offset and size alignment, 0 unknown
};

/**
 * Opens `path` (named by option `opt`) with the backend options of the command line and the
 * open flags of `mode` (both IN and OUT: read-write), and prepares synchronous
 * (`qdepth == 0`) or queued transfers of `iosize` bytes. Files, block devices and the ramdisk
 * take the byte-addressed file commands; an NVMe namespace reached through passthrough (sync
 * mechanism "nvme") has no file command set and is moved with NVM Read/Write in whole LBAs.
 * An output (OUT without IN) that is a regular file, existing or not, is never opened itself:
 * a new file beside it is written (starting as a copy of it without TOOL_XFER_TRUNC) and put in
 * place when the subcommand succeeds (tools_out.c); devices are written in place.
 */
int
tool_xfer_open(struct tool_xfer *x, const struct xnvme_cli *cli, enum xnvme_cli_opt opt,
	       const char *path, int mode, size_t iosize, uint32_t qdepth, uint32_t vec_cnt);

void
tool_xfer_close(struct tool_xfer *x);


/**
 * Fails, naming the size argument `nopt`, when `x` cannot take `nbytes` bytes ending at byte
 * `end`: a device holding fewer than `end` bytes, a regular file as tool_check_file_room()
 */
int
tool_xfer_check_room(const struct tool_xfer *x, enum xnvme_cli_opt nopt, uint64_t nbytes,
		     uint64_t end);

/**
 * Fails, naming the size argument `nopt`, when a transfer of `nbytes` from byte `offset` of
 * `x` could not be carried out in whole: an NVMe namespace moved in LBAs needs whole LBAs,
 * and with --direct the transfer size, offset, size and vector elements must be multiples of
 * the alignment the operating system reports for the file or device. Run before any write.
 */
int
tool_xfer_check_range(const struct tool_xfer *x, enum xnvme_cli_opt nopt, uint64_t offset,
		      uint64_t nbytes);

/**
 * The transfer parameters of the command line with their defaults, range-checked: --iosize
 * (bytes per command), --qdepth and --vec-cnt. A subcommand that takes --qdepth issues its
 * commands through a queue, one that takes --vec-cnt vectored commands; for the others the
 * value is 0.
 */
int
tool_xfer_params(const struct xnvme_cli *cli, size_t *iosize, uint32_t *qdepth,
		 uint32_t *vec_cnt);

/** Size of what `x` was opened on (file size, device capacity) */
uint64_t
tool_xfer_size(const struct tool_xfer *x);

/**
 * Reads or writes `nbytes` of `buf` at byte `offset` in commands of at most `iosize` bytes,
 * keeping the queue (if any) full. A read that hits the end of the input is an error naming it.
 */
int
tool_xfer_rw(struct tool_xfer *x, bool write, void *buf, size_t nbytes, uint64_t offset);

/** Bytes a tool moves per round: iosize, or iosize * capacity with a queue */
size_t
tool_xfer_window(const struct tool_xfer *x);

/**
 * Copies `nbytes` from `in` at `in_off` to `out` at `out_off`, one window at a time, with a
 * progress line labelled by the subcommand, and prints the wall-clock line of the copy
 */
int
tool_xfer_copy(struct xnvme_cli *cli, struct tool_xfer *in, struct tool_xfer *out,
	       uint64_t nbytes, uint64_t in_off, uint64_t out_off);

#endif /* XNVME_TOOLS_COMMON_H */
