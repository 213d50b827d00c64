/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Command-line interface builder used by the bundled tools: a tool declares its subcommands
 * and their options, and xnvme_cli_run() parses argv, opens the device and runs the handler.
 */
#ifndef LIBXNVME_CLI_H
#define LIBXNVME_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "libxnvme_util.h"
#include "libxnvme_opts.h"
#include "libxnvme_ident.h"
#include "libxnvme_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Entries of xnvme_cli_sub.opts */
#define XNVME_CLI_SUB_OPTS_LEN 200
#define XNVME_CLI_SUB_NAME_LEN_MAX 30

/** Options known to the CLI builder; 94 is unused, values are ABI (they index cli->given) */
enum xnvme_cli_opt {
	XNVME_CLI_OPT_NONE = 0,
	XNVME_CLI_OPT_CDW00 = 1,
	XNVME_CLI_OPT_CDW01 = 2,
	XNVME_CLI_OPT_CDW02 = 3,
	XNVME_CLI_OPT_CDW03 = 4,
	XNVME_CLI_OPT_CDW04 = 5,
	XNVME_CLI_OPT_CDW05 = 6,
	XNVME_CLI_OPT_CDW06 = 7,
	XNVME_CLI_OPT_CDW07 = 8,
	XNVME_CLI_OPT_CDW08 = 9,
	XNVME_CLI_OPT_CDW09 = 10,
	XNVME_CLI_OPT_CDW10 = 11,
	XNVME_CLI_OPT_CDW11 = 12,
	XNVME_CLI_OPT_CDW12 = 13,
	XNVME_CLI_OPT_CDW13 = 14,
	XNVME_CLI_OPT_CDW14 = 15,
	XNVME_CLI_OPT_CDW15 = 16,
	XNVME_CLI_OPT_CMD_INPUT = 17,
	XNVME_CLI_OPT_CMD_OUTPUT = 18,
	XNVME_CLI_OPT_DATA_NBYTES = 19,
	XNVME_CLI_OPT_DATA_INPUT = 20,
	XNVME_CLI_OPT_DATA_OUTPUT = 21,
	XNVME_CLI_OPT_META_NBYTES = 22,
	XNVME_CLI_OPT_META_INPUT = 23,
	XNVME_CLI_OPT_META_OUTPUT = 24,
	XNVME_CLI_OPT_LBAFL = 25,
	XNVME_CLI_OPT_SLBA = 26,
	XNVME_CLI_OPT_ELBA = 27,
	XNVME_CLI_OPT_LBA = 28,
	XNVME_CLI_OPT_NLB = 29,
	XNVME_CLI_OPT_URI = 30,
	XNVME_CLI_OPT_SYS_URI = 31,
	XNVME_CLI_OPT_UUID = 32,
	XNVME_CLI_OPT_NSID = 33,
	XNVME_CLI_OPT_CNS = 34,
	XNVME_CLI_OPT_CSI = 35,
	XNVME_CLI_OPT_INDEX = 36,
	XNVME_CLI_OPT_SETID = 37,
	XNVME_CLI_OPT_CNTID = 38,
	XNVME_CLI_OPT_LID = 39,
	XNVME_CLI_OPT_LSP = 40,
	XNVME_CLI_OPT_LPO_NBYTES = 41,
	XNVME_CLI_OPT_RAE = 42,
	XNVME_CLI_OPT_CLEAR = 43,
	XNVME_CLI_OPT_LBAFU = 44,
	XNVME_CLI_OPT_SES = 45,
	XNVME_CLI_OPT_SEL = 46,
	XNVME_CLI_OPT_MSET = 47,
	XNVME_CLI_OPT_AUSE = 48,
	XNVME_CLI_OPT_OVRPAT = 49,
	XNVME_CLI_OPT_OWPASS = 50,
	XNVME_CLI_OPT_OIPBP = 51,
	XNVME_CLI_OPT_NODAS = 52,
	XNVME_CLI_OPT_SANACT = 53,
	XNVME_CLI_OPT_ZSA = 54,
	XNVME_CLI_OPT_PI = 55,
	XNVME_CLI_OPT_PIL = 56,
	XNVME_CLI_OPT_FID = 57,
	XNVME_CLI_OPT_FEAT = 58,
	XNVME_CLI_OPT_SEED = 59,
	XNVME_CLI_OPT_LIMIT = 60,
	XNVME_CLI_OPT_IOSIZE = 61,
	XNVME_CLI_OPT_QDEPTH = 62,
	XNVME_CLI_OPT_DIRECT = 63,
	XNVME_CLI_OPT_STATUS = 64,
	XNVME_CLI_OPT_SAVE = 65,
	XNVME_CLI_OPT_RESET = 66,
	XNVME_CLI_OPT_VERBOSE = 67,
	XNVME_CLI_OPT_HELP = 68,
	XNVME_CLI_OPT_COUNT = 69,
	XNVME_CLI_OPT_OFFSET = 70,
	XNVME_CLI_OPT_OPCODE = 71,
	XNVME_CLI_OPT_FLAGS = 72,
	XNVME_CLI_OPT_ALL = 73,
	XNVME_CLI_OPT_BE = 74,
	XNVME_CLI_OPT_MEM = 75,
	XNVME_CLI_OPT_SYNC = 76,
	XNVME_CLI_OPT_ASYNC = 77,
	XNVME_CLI_OPT_ADMIN = 78,
	XNVME_CLI_OPT_SHM_ID = 79,
	XNVME_CLI_OPT_MAIN_CORE = 80,
	XNVME_CLI_OPT_CORE_MASK = 81,
	XNVME_CLI_OPT_USE_CMB_SQS = 82,
	XNVME_CLI_OPT_CSS = 83,
	XNVME_CLI_OPT_POLL_IO = 84,
	XNVME_CLI_OPT_POLL_SQ = 85,
	XNVME_CLI_OPT_REGISTER_FILES = 86,
	XNVME_CLI_OPT_REGISTER_BUFFERS = 87,
	XNVME_CLI_OPT_TRUNCATE = 88,
	XNVME_CLI_OPT_RDONLY = 89,
	XNVME_CLI_OPT_WRONLY = 90,
	XNVME_CLI_OPT_RDWR = 91,
	XNVME_CLI_OPT_CREATE = 92,
	XNVME_CLI_OPT_CREATE_MODE = 93,
	XNVME_CLI_OPT_ADRFAM = 95,
	XNVME_CLI_OPT_DEV_NSID = 96,
	XNVME_CLI_OPT_VEC_CNT = 97,
	XNVME_CLI_OPT_SUBNQN = 98,
	XNVME_CLI_OPT_HOSTNQN = 99,
	XNVME_CLI_OPT_DTYPE = 100,
	XNVME_CLI_OPT_DSPEC = 101,
	XNVME_CLI_OPT_DOPER = 102,
	XNVME_CLI_OPT_ENDIR = 103,
	XNVME_CLI_OPT_TGTDIR = 104,
	XNVME_CLI_OPT_NSR = 105,
	XNVME_CLI_OPT_POSA_TITLE = 106,
	XNVME_CLI_OPT_NON_POSA_TITLE = 107,
	XNVME_CLI_OPT_ORCH_TITLE = 108,
	XNVME_CLI_OPT_AD = 109,
	XNVME_CLI_OPT_IDW = 110,
	XNVME_CLI_OPT_IDR = 111,
	XNVME_CLI_OPT_LLB = 112,
	XNVME_CLI_OPT_LSI = 113,
	XNVME_CLI_OPT_PID = 114,
	XNVME_CLI_OPT_KV_KEY = 115,
	XNVME_CLI_OPT_KV_VAL = 116,
	XNVME_CLI_OPT_KV_STORE_UPDATE = 117,
	XNVME_CLI_OPT_KV_STORE_ADD = 118,
	XNVME_CLI_OPT_KV_STORE_COMPRESS = 119,
	XNVME_CLI_OPT_PRACT = 120,
	XNVME_CLI_OPT_PRCHK = 121,
	XNVME_CLI_OPT_APPTAG = 122,
	XNVME_CLI_OPT_APPTAG_MASK = 123,
	XNVME_CLI_OPT_SDLBA = 124,
	XNVME_CLI_OPT_END = 125,
	/**
	 * Not an option: XNVME_CLI_OPT_TOOL + i names entry i of the table of options a tool
	 * defines itself, see xnvme_cli_run_tool_opts() (an addition to the 0.7.5 API)
	 */
	XNVME_CLI_OPT_TOOL = 0x10000,
};

/** How an option appears on the command line */
enum xnvme_cli_opt_type {
	XNVME_CLI_POSA = 0x1, ///< positional argument
	XNVME_CLI_LFLG = 0x2, ///< long flag, no value
	XNVME_CLI_LOPT = 0x3, ///< optional long option with a value
	XNVME_CLI_LREQ = 0x4, ///< required long option with a value
	XNVME_CLI_SKIP = 0x5, ///< section title in the usage text
};

/** How an option value is parsed */
enum xnvme_cli_opt_value_type {
	XNVME_CLI_OPT_VTYPE_URI = 0x1,
	XNVME_CLI_OPT_VTYPE_NUM = 0x2,
	XNVME_CLI_OPT_VTYPE_HEX = 0x3,
	XNVME_CLI_OPT_VTYPE_FILE = 0x4,
	XNVME_CLI_OPT_VTYPE_STR = 0x5,
	XNVME_CLI_OPT_VTYPE_SKIP = 0x6,
};

/** Flags for xnvme_cli_run() */
enum xnvme_cli_opts {
	XNVME_CLI_INIT_NONE = 0x0,     ///< the handler opens what it needs
	XNVME_CLI_INIT_DEV_OPEN = 0x1, ///< open the `uri` positional into args.dev
};

/** Parsed values; each member is named after its option */
struct xnvme_cli_args {
	struct xnvme_dev *dev;
	const char *uri;
	const char *sys_uri;
	const char *subnqn;
	const char *hostnqn;

	const char *cmd_input;
	const char *cmd_output;

	size_t data_nbytes;
	const char *data_input;
	const char *data_output;

	size_t meta_nbytes;
	const char *meta_input;
	const char *meta_output;

	uint32_t cdw[16];

	uint64_t lbafl;
	uint64_t lba;
	uint32_t llb;
	uint32_t nlb;
	uint64_t slba;
	uint64_t elba;
	uint32_t uuid;
	uint32_t nsid;
	uint32_t dev_nsid;
	uint32_t cns;
	uint32_t csi;
	uint64_t index;
	uint32_t setid;

	uint64_t cntid;
	uint32_t lid;
	uint32_t lsp;
	uint64_t lpo_nbytes;
	uint32_t rae;
	bool clear;
	uint32_t lbafu;
	uint32_t ses;
	uint32_t sel;
	uint32_t mset;
	bool ause;
	uint32_t ovrpat;
	uint32_t owpass;
	bool oipbp;
	bool nodas;
	uint32_t sanact;
	uint32_t zsa;
	uint32_t pi;
	uint32_t pil;
	uint32_t fid;
	uint32_t feat;
	uint32_t seed;
	uint32_t iosize;
	uint32_t qdepth;
	bool direct;
	uint32_t limit;
	uint64_t count;
	uint64_t offset;
	uint64_t opcode;
	uint64_t flags;
	bool all;
	uint32_t status;
	bool save;
	uint32_t reset;
	bool verbose;
	uint32_t help;

	const char *be;
	const char *mem;
	const char *sync;
	const char *async;
	const char *admin;

	uint64_t shm_id;
	uint32_t main_core;
	const char *core_mask;
	struct xnvme_opts_css css;
	uint32_t use_cmb_sqs;
	const char *adrfam;

	uint32_t poll_io;
	uint32_t poll_sq;
	uint32_t register_files;
	uint32_t register_buffers;
	uint32_t truncate;
	uint32_t rdonly;
	uint32_t wronly;
	uint32_t rdwr;
	uint32_t create;
	uint32_t create_mode;

	uint32_t nr;
	bool ad;
	bool idw;
	bool idr;

	uint32_t vec_cnt;
	uint32_t dtype;
	uint32_t dspec;
	uint32_t doper;
	uint32_t endir;
	uint32_t tgtdir;
	uint32_t nsr;
	uint32_t lsi;
	uint32_t pid;

	const char *kv_key;
	const char *kv_val;
	bool kv_store_add;
	bool kv_store_update;
	bool kv_store_compress;

	bool pract;
	uint8_t prchk;
	uint32_t apptag;
	uint32_t apptag_mask;
	uint64_t sdlba;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_cli_args) == 632, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli_args, cdw) == 104, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli_args, index) == 232, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli_args, cntid) == 248, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli_args, clear) == 276, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli_args, limit) == 352, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli_args, be) == 416, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli_args, css) == 480, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli_args, nr) == 544, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli_args, kv_key) == 592, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli_args, prchk) == 612, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli_args, sdlba) == 624, "Incorrect offset")

struct xnvme_cli;

/** Subcommand handler; a non-zero return marks failure */
typedef int (*xnvme_cli_subfunc)(struct xnvme_cli *);

/** One entry of a subcommand's option list */
struct xnvme_cli_sub_opt {
	enum xnvme_cli_opt opt;
	enum xnvme_cli_opt_type type;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_cli_sub_opt) == 8, "Incorrect size")

/** A subcommand; `opts` ends at the first XNVME_CLI_OPT_NONE or XNVME_CLI_OPT_END entry */
struct xnvme_cli_sub {
	const char *name;
	const char *descr_short;
	const char *descr_long;
	xnvme_cli_subfunc command;
	struct xnvme_cli_sub_opt opts[XNVME_CLI_SUB_OPTS_LEN];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_cli_sub) == 1632, "Incorrect size")

/** A tool: set title, descriptions and subs; the rest is filled by xnvme_cli_run() */
struct xnvme_cli {
	const char *title;
	const char *descr_short;
	const char *descr_long;

	int nsubs;
	struct xnvme_cli_sub *subs;

	int (*ver_pr)(int);

	int argc;
	char **argv;

	struct xnvme_cli_args args;
	int given[XNVME_CLI_OPT_END]; ///< given[opt] is 1 when `opt` was on the command line

	struct xnvme_cli_sub *sub; ///< the subcommand being run

	struct xnvme_timer timer;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_cli) == 1224, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli, args) == 64, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli, given) == 696, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_cli, sub) == 1200, "Incorrect offset")

/** Name, value type and description of an option */
struct xnvme_cli_opt_attr {
	enum xnvme_cli_opt opt;
	enum xnvme_cli_opt_value_type vtype;
	const char *name;
	const char *descr;
	char getoptval; ///< parser scratch space
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_cli_opt_attr) == 32, "Incorrect size")

/** A list of device identifiers; `capacity` counts the remaining free entries */
struct xnvme_cli_enumeration {
	uint32_t capacity;
	uint32_t nentries;
	__extension__ struct xnvme_ident entries[XNVME_FLEX];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_cli_enumeration) == 8, "Incorrect size")

/**
 * Option-group initialisers for a subcommand's option list: CORE is a section title, --subnqn,
 * --hostnqn and --be; ADMIN adds --dev-nsid, --admin, --mem and --direct; SYNC adds --sync;
 * ASYNC adds --async. A subcommand that should also take --shm_id (the vfio backend's
 * multi-process group, opts.shm_id) lists XNVME_CLI_OPT_SHM_ID itself, as the bundled tools do.
 */
#define XNVME_CLI_CORE_OPTS                         \
	{XNVME_CLI_OPT_ORCH_TITLE, XNVME_CLI_SKIP}, \
	{XNVME_CLI_OPT_SUBNQN, XNVME_CLI_LOPT},     \
	{XNVME_CLI_OPT_HOSTNQN, XNVME_CLI_LOPT},    \
	{XNVME_CLI_OPT_BE, XNVME_CLI_LOPT}

#define XNVME_CLI_ADMIN_OPTS                     \
	XNVME_CLI_CORE_OPTS,                     \
	{XNVME_CLI_OPT_DEV_NSID, XNVME_CLI_LOPT}, \
	{XNVME_CLI_OPT_ADMIN, XNVME_CLI_LOPT},    \
	{XNVME_CLI_OPT_MEM, XNVME_CLI_LOPT},      \
	{XNVME_CLI_OPT_DIRECT, XNVME_CLI_LOPT}

#define XNVME_CLI_SYNC_OPTS  \
	XNVME_CLI_ADMIN_OPTS, \
	{XNVME_CLI_OPT_SYNC, XNVME_CLI_LOPT}

#define XNVME_CLI_ASYNC_OPTS \
	XNVME_CLI_SYNC_OPTS,  \
	{XNVME_CLI_OPT_ASYNC, XNVME_CLI_LOPT}

/*
 * Thread safety: the option table is constant and the parser keeps no global state, so every
 * function here may be called from any thread; an object (struct xnvme_cli, an enumeration
 * list) belongs to one thread at a time. xnvme_cli_run() is meant for a program's main thread:
 * it prints usage to stdout and runs the subcommand on the calling thread.
 */
/**
 * Prints every parsed argument, keyed by its option's long name, as YAML on stdout; NULL prints
 * "xnvme_cli_args: ~". `opts` XNVME_PR_DEF or XNVME_PR_YAML; others print a "# ENOSYS" note.
 * Thread safety: see above.
 */
void
xnvme_cli_args_pr(struct xnvme_cli_args *args, int opts);

/**
 * Attributes (long name, value type, description) of option `opt`. @return a pointer to constant
 * data, or NULL for a value that names no option. Thread safety: see above.
 */
const struct xnvme_cli_opt_attr *
xnvme_cli_get_opt_attr(enum xnvme_cli_opt opt);

/**
 * Allocates an enumeration list with room for `capacity` identifiers into *list (NULL on failure);
 * free it with xnvme_cli_enumeration_free(). @return 0, -EINVAL for a NULL list, or -ENOMEM.
 * Thread safety: see above.
 */
int
xnvme_cli_enumeration_alloc(struct xnvme_cli_enumeration **list, uint32_t capacity);

/**
 * Frees a list of xnvme_cli_enumeration_alloc(); NULL is a no-op. Thread safety: see above.
 */
void
xnvme_cli_enumeration_free(struct xnvme_cli_enumeration *list);

/**
 * Copies `entry` to the end of the list; `capacity` counts the free entries left. @return 0,
 * -EINVAL for NULL arguments, -ENOMEM when the list is full. Thread safety: see above.
 */
int
xnvme_cli_enumeration_append(struct xnvme_cli_enumeration *list, const struct xnvme_ident *entry);

/**
 * Prints the list (capacity, nentries, each identifier as a block mapping) as YAML to `stream`;
 * NULL prints "xnvme_cli_enumeration: ~". `opts` XNVME_PR_DEF or XNVME_PR_YAML; others print a "#
 * ENOSYS" note. @return the number of characters written. Thread safety: see above.
 */
int
xnvme_cli_enumeration_fpr(FILE *stream, struct xnvme_cli_enumeration *list, int opts);

/**
 * Prints the list in the compact form of "xnvme enum" (one flow mapping per identifier) to
 * `stream`; an empty or NULL list prints "xnvme_cli_enumeration: ~". @return the number of
 * characters written. Thread safety: see above.
 */
int
xnvme_cli_enumeration_fpp(FILE *stream, struct xnvme_cli_enumeration *list, int opts);

/**
 * xnvme_cli_enumeration_fpp() on stdout. @return the number of characters written. Thread safety:
 * see above.
 */
int
xnvme_cli_enumeration_pp(struct xnvme_cli_enumeration *list, int opts);

/**
 * xnvme_cli_enumeration_fpr() on stdout. @return the number of characters written. Thread safety:
 * see above.
 */
int
xnvme_cli_enumeration_pr(struct xnvme_cli_enumeration *list, int opts);

/**
 * Starts the timer of `cli`. @return the start time in nanoseconds (CLOCK_MONOTONIC), 0 for a
 * NULL cli. Thread safety: see above.
 */
uint64_t
xnvme_cli_timer_start(struct xnvme_cli *cli);

/**
 * Stops the timer of `cli`. @return the stop time in nanoseconds, 0 for a NULL cli. Thread safety:
 * see above.
 */
uint64_t
xnvme_cli_timer_stop(struct xnvme_cli *cli);

/**
 * Prints the elapsed time of the timer of `cli` and the bandwidth of `nbytes` bytes over it
 * (MiB/s), labelled with `prefix`, on stdout; a NULL cli is a no-op. Thread safety: see above.
 */
void
xnvme_cli_timer_bw_pr(struct xnvme_cli *cli, const char *prefix, size_t nbytes);

/**
 * Prints "# ", the printf-style formatted text and a newline to stdout, and flushes. Thread
 * safety: see above.
 */
void
xnvme_cli_pinf(const char *format, ...);

/**
 * Prints "# ERR: '<msg>': {errno: <err>, msg: '<strerror(|err|)>'}" to stderr and flushes; `err`
 * may be given negative or positive. Thread safety: see above.
 */
void
xnvme_cli_perr(const char *msg, int err);

/**
 * Parses argv against the subcommands and options of `cli`, prints usage for --help (also the
 * hidden --gen-man and --gen-bash-completion generators), opens the `uri` positional into
 * cli->args.dev when `opts` has XNVME_CLI_INIT_DEV_OPEN (using the device options given on the
 * command line), runs the subcommand's handler, prints its error with xnvme_cli_perr() and closes
 * the device. @return 0 on success or after printing help, 1 when the handler failed, -1 for a
 * usage error or a device that could not be opened (both printed on stderr; a missing positional
 * or required option is followed by the usage of the subcommand, on stderr too), -EINVAL for a
 * NULL cli. A program's main typically returns its result as exit status. Thread safety: see
 * above.
 */
int
xnvme_cli_run(struct xnvme_cli *cli, int argc, char **argv, int opts);

/**
 * Copies the device options given on the command line (--be, --mem, --sync, --async, --admin,
 * --dev-nsid, ...) into `opts`, leaving the others untouched. @return 0, or -EINVAL for NULL
 * arguments. Thread safety: see above.
 */
int
xnvme_cli_to_opts(const struct xnvme_cli *cli, struct xnvme_opts *opts);

/**
 * Most options a tool may define itself (struct xnvme_cli_tool_opt, an addition to the 0.7.5
 * API)
 */
#define XNVME_CLI_TOOL_OPTS_MAX 64

/** Flags of struct xnvme_cli_tool_opt */
enum xnvme_cli_tool_opt_flags {
	XNVME_CLI_TOOL_OPT_SIZE = 0x1,   ///< NUM: a size in bytes, which takes a k/m/g/t unit
	XNVME_CLI_TOOL_OPT_REPEAT = 0x2, ///< the last positional: takes 1 to `vals_max` values
};

/**
 * An option a tool defines itself, beyond enum xnvme_cli_opt (an addition to the 0.7.5 API).
 * A subcommand lists entry i of the table given to xnvme_cli_run_tool_opts() in its `opts` as
 * {XNVME_CLI_OPT_TOOL + i, type}, with any type but XNVME_CLI_SKIP; parsing, usage, man page and
 * completion treat it as they treat the library's options. The tool sets the fields up to
 * `vals_max`; the parser clears and fills the rest on every run.
 */
struct xnvme_cli_tool_opt {
	const char *name;  ///< long name without the dashes, or the positional's name
	const char *descr; ///< one line for the usage text and the man page
	enum xnvme_cli_opt_value_type vtype; ///< NUM, HEX, STR, FILE or URI
	uint32_t flags;                      ///< enum xnvme_cli_tool_opt_flags
	uint64_t max;       ///< NUM and HEX: the largest value accepted; 0: UINT64_MAX
	const char *values; ///< blank-separated values offered by the completion; NULL: any
	const char **vals;  ///< XNVME_CLI_TOOL_OPT_REPEAT: room for `vals_max` values
	uint32_t vals_max;

	uint32_t given;  ///< how many times given: 0 or 1, with REPEAT the number of values
	const char *str; ///< the value as written (points into argv), the first with REPEAT
	uint64_t num;    ///< NUM and HEX: the value converted; flags: 1
};

/**
 * xnvme_cli_run() with the options `tool_opts[0 .. ntool_opts - 1]` a tool defines itself (an
 * addition to the 0.7.5 API): while it runs, XNVME_CLI_OPT_TOOL + i names `tool_opts[i]` in the
 * subcommand tables and in xnvme_cli_get_opt_attr(), and parsed values land in the table. A
 * name may not be one the same subcommand takes from the library. @return as xnvme_cli_run(),
 * and -EINVAL (printed) for a table of more than XNVME_CLI_TOOL_OPTS_MAX entries, an entry
 * without a name or of an unknown value type. Thread safety: see above; the table belongs to
 * the calling thread while the call runs.
 */
int
xnvme_cli_run_tool_opts(struct xnvme_cli *cli, int argc, char **argv, int opts,
			struct xnvme_cli_tool_opt *tool_opts, int ntool_opts);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_CLI_H */
