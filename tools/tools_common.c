// SPDX-License-Identifier: BSD-3-Clause
/**
 * Helpers shared by the command-line tools; see tools_common.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <libxnvme.h>
#include "tools_common.h"
#include "tools_lblk.h"

#define TOOL_MSG_LEN 1024

/* Most Error Information log entries one command fetches (ELPE is 8 bits, zero-based) */
#define TOOL_LOG_ERRI_LIMIT_MAX 4096

/* Progress: redraw period, and what makes a transfer worth a progress line */
#define PROG_PERIOD_NS (250ULL * 1000 * 1000)
#define PROG_DELAY_NS (500ULL * 1000 * 1000)
#define PROG_MIN_NBYTES (8ULL << 20)

static const char *
sub_name(const struct xnvme_cli *cli)
{
	return (cli && cli->sub && cli->sub->name) ? cli->sub->name : "?";
}

static int
neg_err(int err)
{
	if (err > 0) {
		return -err;
	}
	return err ? err : -EINVAL;
}

static int
tool_verr(const struct xnvme_cli *cli, int err, const char *fmt, va_list ap)
{
	char msg[TOOL_MSG_LEN];
	int len;

	len = snprintf(msg, sizeof(msg), "%s %s: ", (cli && cli->title) ? cli->title : "?",
		       sub_name(cli));
	if (len < 0 || (size_t)len >= sizeof(msg)) {
		len = 0;
	}
	vsnprintf(msg + len, sizeof(msg) - len, fmt, ap);

	err = neg_err(err);
	fflush(stdout);
	xnvme_cli_perr(msg, err);
	return err;
}

int
tool_err(const struct xnvme_cli *cli, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = tool_verr(cli, err, fmt, ap);
	va_end(ap);
	return err;
}

/* NVMe status names: generic (SCT 0), command specific (SCT 1), media and data integrity (SCT 2) */
struct status_name {
	uint8_t sct;
	uint8_t sc;
	const char *name;
};

static const struct status_name g_status_any[] = {
	{0x0, 0x00, "Successful Completion"},
	{0x0, 0x01, "Invalid Command Opcode"},
	{0x0, 0x02, "Invalid Field in Command"},
	{0x0, 0x03, "Command ID Conflict"},
	{0x0, 0x04, "Data Transfer Error"},
	{0x0, 0x05, "Commands Aborted due to Power Loss Notification"},
	{0x0, 0x06, "Internal Error"},
	{0x0, 0x07, "Command Abort Requested"},
	{0x0, 0x08, "Command Aborted due to SQ Deletion"},
	{0x0, 0x09, "Command Aborted due to Failed Fused Command"},
	{0x0, 0x0A, "Command Aborted due to Missing Fused Command"},
	{0x0, 0x0B, "Invalid Namespace or Format"},
	{0x0, 0x0C, "Command Sequence Error"},
	{0x0, 0x0D, "Invalid SGL Segment Descriptor"},
	{0x0, 0x0E, "Invalid Number of SGL Descriptors"},
	{0x0, 0x0F, "Data SGL Length Invalid"},
	{0x0, 0x10, "Metadata SGL Length Invalid"},
	{0x0, 0x11, "SGL Descriptor Type Invalid"},
	{0x0, 0x12, "Invalid Use of Controller Memory Buffer"},
	{0x0, 0x13, "PRP Offset Invalid"},
	{0x0, 0x14, "Atomic Write Unit Exceeded"},
	{0x0, 0x15, "Operation Denied"},
	{0x0, 0x16, "SGL Offset Invalid"},
	{0x0, 0x18, "Host Identifier Inconsistent Format"},
	{0x0, 0x19, "Keep Alive Timer Expired"},
	{0x0, 0x1A, "Keep Alive Timeout Invalid"},
	{0x0, 0x1B, "Command Aborted due to Preempt and Abort"},
	{0x0, 0x1C, "Sanitize Failed"},
	{0x0, 0x1D, "Sanitize In Progress"},
	{0x0, 0x1E, "SGL Data Block Granularity Invalid"},
	{0x0, 0x1F, "Command Not Supported for Queue in CMB"},
	{0x0, 0x20, "Namespace is Write Protected"},
	{0x0, 0x21, "Command Interrupted"},
	{0x0, 0x22, "Transient Transport Error"},
	{0x0, 0x23, "Command Prohibited by Command and Feature Lockdown"},
	{0x0, 0x24, "Admin Command Media Not Ready"},
	{0x0, 0x29, "FDP Disabled"},
	{0x0, 0x2A, "Invalid Placement Handle List"},
	{0x1, 0x00, "Completion Queue Invalid"},
	{0x1, 0x01, "Invalid Queue Identifier"},
	{0x1, 0x02, "Invalid Queue Size"},
	{0x1, 0x03, "Abort Command Limit Exceeded"},
	{0x1, 0x05, "Asynchronous Event Request Limit Exceeded"},
	{0x1, 0x06, "Invalid Firmware Slot"},
	{0x1, 0x07, "Invalid Firmware Image"},
	{0x1, 0x08, "Invalid Interrupt Vector"},
	{0x1, 0x09, "Invalid Log Page"},
	{0x1, 0x0A, "Invalid Format"},
	{0x1, 0x0B, "Firmware Activation Requires Conventional Reset"},
	{0x1, 0x0C, "Invalid Queue Deletion"},
	{0x1, 0x0D, "Feature Identifier Not Saveable"},
	{0x1, 0x0E, "Feature Not Changeable"},
	{0x1, 0x0F, "Feature Not Namespace Specific"},
	{0x1, 0x14, "Overlapping Range"},
	{0x1, 0x15, "Namespace Insufficient Capacity"},
	{0x1, 0x16, "Namespace Identifier Unavailable"},
	{0x1, 0x18, "Namespace Already Attached"},
	{0x1, 0x19, "Namespace Is Private"},
	{0x1, 0x1A, "Namespace Not Attached"},
	{0x1, 0x1B, "Thin Provisioning Not Supported"},
	{0x1, 0x1C, "Controller List Invalid"},
	{0x1, 0x1D, "Device Self-test In Progress"},
	{0x1, 0x1F, "Invalid Controller Identifier"},
	{0x1, 0x29, "I/O Command Set Not Supported"},
	{0x1, 0x2A, "I/O Command Set Not Enabled"},
	{0x1, 0x2B, "I/O Command Set Combination Rejected"},
	{0x1, 0x2C, "Invalid I/O Command Set"},
	{0x1, 0x2D, "Identifier Unavailable"},
	{0x2, 0x80, "Write Fault"},
	{0x2, 0x81, "Unrecovered Read Error"},
	{0x2, 0x82, "End-to-end Guard Check Error"},
	{0x2, 0x83, "End-to-end Application Tag Check Error"},
	{0x2, 0x84, "End-to-end Reference Tag Check Error"},
	{0x2, 0x85, "Compare Failure"},
	{0x2, 0x86, "Access Denied"},
	{0x2, 0x87, "Deallocated or Unwritten Logical Block"},
	{0x3, 0x00, "Internal Path Error"},
	{0x3, 0x01, "Asymmetric Access Persistent Loss"},
	{0x3, 0x02, "Asymmetric Access Inaccessible"},
	{0x3, 0x03, "Asymmetric Access Transition"},
	{0x3, 0x60, "Controller Pathing Error"},
	{0x3, 0x70, "Host Pathing Error"},
	{0x3, 0x71, "Command Aborted By Host"},
};

/* The 0x80.. codes depend on the command set of the namespace */
static const struct status_name g_status_nvm[] = {
	{0x0, 0x80, "LBA Out of Range"},
	{0x0, 0x81, "Capacity Exceeded"},
	{0x0, 0x82, "Namespace Not Ready"},
	{0x0, 0x83, "Reservation Conflict"},
	{0x0, 0x84, "Format In Progress"},
	{0x1, 0x80, "Conflicting Attributes"},
	{0x1, 0x81, "Invalid Protection Information"},
	{0x1, 0x82, "Attempted Write to Read Only Range"},
	{0x1, 0x83, "Command Size Limit Exceeded"},
};

static const struct status_name g_status_zoned[] = {
	{0x1, 0x7F, "Invalid Format"},
	{0x1, 0xB6, "Invalid Zone Operation Request"},
	{0x1, 0xB7, "ZRWA Resources Unavailable"},
	{0x1, 0xB8, "Zone Boundary Error"},
	{0x1, 0xB9, "Zone Is Full"},
	{0x1, 0xBA, "Zone Is Read Only"},
	{0x1, 0xBB, "Zone Is Offline"},
	{0x1, 0xBC, "Zone Invalid Write"},
	{0x1, 0xBD, "Too Many Active Zones"},
	{0x1, 0xBE, "Too Many Open Zones"},
	{0x1, 0xBF, "Invalid Zone State Transition"},
};

static const struct status_name g_status_kv[] = {
	{0x0, 0x81, "Capacity Exceeded"},
	{0x0, 0x82, "Namespace Not Ready"},
	{0x0, 0x83, "Reservation Conflict"},
	{0x0, 0x84, "Format In Progress"},
	{0x0, 0x85, "Invalid Value Size"},
	{0x0, 0x86, "Invalid Key Size"},
	{0x0, 0x87, "KV Key Does Not Exist"},
	{0x0, 0x88, "Unrecovered Error"},
	{0x0, 0x89, "KV Key Exists"},
};

static const char *
status_lookup(const struct status_name *tab, size_t n, unsigned int sct, unsigned int sc)
{
	for (size_t i = 0; i < n; ++i) {
		if (tab[i].sct == sct && tab[i].sc == sc) {
			return tab[i].name;
		}
	}
	return NULL;
}

#define STATUS_LOOKUP(tab, sct, sc) status_lookup(tab, sizeof(tab) / sizeof(tab[0]), sct, sc)

const char *
tool_status_str(const struct xnvme_cmd_ctx *ctx)
{
	unsigned int sct = ctx->cpl.status.sct, sc = ctx->cpl.status.sc;
	const char *name = NULL;

	switch (ctx->dev ? xnvme_dev_get_csi(ctx->dev) : XNVME_SPEC_CSI_NVM) {
	case XNVME_SPEC_CSI_KV:
		name = STATUS_LOOKUP(g_status_kv, sct, sc);
		break;
	case XNVME_SPEC_CSI_ZONED:
		/* a zoned namespace is also an NVM namespace: its codes apply as well */
		name = STATUS_LOOKUP(g_status_zoned, sct, sc);
		if (!name) {
			name = STATUS_LOOKUP(g_status_nvm, sct, sc);
		}
		break;
	default:
		name = STATUS_LOOKUP(g_status_nvm, sct, sc);
		break;
	}
	if (!name) {
		name = STATUS_LOOKUP(g_status_any, sct, sc);
	}
	if (name) {
		return name;
	}
	return sct == 0x7 ? "Vendor Specific" : "Unknown Status";
}

int
tool_cmd_err(const struct xnvme_cli *cli, struct xnvme_cmd_ctx *ctx, int err, const char *fmt,
	     ...)
{
	char msg[TOOL_MSG_LEN];
	va_list ap;

	/* A device status without a failing return still fails the subcommand */
	if (!err) {
		err = -EIO;
	}
	if (ctx) {
		xnvme_cmd_ctx_pr(ctx, XNVME_PR_DEF);
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	/* Name the status the device answered with, if it answered at all */
	if (ctx && xnvme_cmd_ctx_cpl_status(ctx)) {
		return tool_err(cli, err, "%s: %s (sct 0x%x, sc 0x%x)", msg,
				tool_status_str(ctx), (unsigned int)ctx->cpl.status.sct,
				(unsigned int)ctx->cpl.status.sc);
	}
	return tool_err(cli, err, "%s", msg);
}

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

int
tool_check_range(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, uint64_t val, uint64_t min,
		 uint64_t max)
{
	if (val >= min && val <= max) {
		return 0;
	}
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

/* ------------------------------------------------------------------------------------------ */
/* Files named by several arguments, and what a file can hold                                 */
/* ------------------------------------------------------------------------------------------ */

/* A file argument of the running subcommand, identified for tool_check_files() */
struct file_arg {
	enum xnvme_cli_opt opt;
	const char *path;
	bool written;
	bool exists; ///< a regular file or block device: `dev`, `ino` (and `rdev`) identify it
	bool is_blk;
	bool absent; ///< an output not existing yet: `dir_dev`, `dir_ino` and `base` name it
	dev_t dev;
	ino_t ino;
	dev_t rdev;
	dev_t dir_dev;
	ino_t dir_ino;
	const char *base;
};

static void
file_arg_identify(struct file_arg *a)
{
	char dir[4096];
	const char *slash;
	struct stat st;
	size_t len;

	if (!stat(a->path, &st)) {
		a->exists = S_ISREG(st.st_mode) || S_ISBLK(st.st_mode);
		a->is_blk = S_ISBLK(st.st_mode);
		a->dev = st.st_dev;
		a->ino = st.st_ino;
		a->rdev = st.st_rdev;
		return;
	}
	/* A device URI is never created: only an output may be a file still to be made */
	if (errno != ENOENT || !a->written || a->opt == XNVME_CLI_OPT_URI) {
		return;
	}
	/* An output to be created: the directory entry it would be */
	slash = strrchr(a->path, '/');
	a->base = slash ? slash + 1 : a->path;
	len = slash ? (size_t)(slash - a->path) : 0;
	if (!a->base[0] || len >= sizeof(dir)) {
		return;
	}
	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
	} else if (!len) {
		snprintf(dir, sizeof(dir), "/");
	} else {
		memcpy(dir, a->path, len);
		dir[len] = '\0';
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		return;
	}
	a->absent = true;
	a->dir_dev = st.st_dev;
	a->dir_ino = st.st_ino;
}

static bool
file_arg_same(const struct file_arg *a, const struct file_arg *b)
{
	if (a->exists && b->exists) {
		if (a->is_blk && b->is_blk && a->rdev == b->rdev) {
			return true; /* two nodes of one block device */
		}
		return a->dev == b->dev && a->ino == b->ino;
	}
	return a->absent && b->absent && a->dir_dev == b->dir_dev && a->dir_ino == b->dir_ino &&
	       !strcmp(a->base, b->base);
}

int
tool_check_files(const struct xnvme_cli *cli)
{
	const struct xnvme_cli_args *args = &cli->args;
	const struct {
		enum xnvme_cli_opt opt;
		const char *path;
		bool written;
	} cand[] = {
		/* the device: read by some subcommands, written by others */
		{XNVME_CLI_OPT_URI, args->uri, true},
		{XNVME_CLI_OPT_DATA_INPUT, args->data_input, false},
		{XNVME_CLI_OPT_META_INPUT, args->meta_input, false},
		{XNVME_CLI_OPT_CMD_INPUT, args->cmd_input, false},
		{XNVME_CLI_OPT_DATA_OUTPUT, args->data_output, true},
		{XNVME_CLI_OPT_META_OUTPUT, args->meta_output, true},
		{XNVME_CLI_OPT_CMD_OUTPUT, args->cmd_output, true},
	};
	struct file_arg files[sizeof(cand) / sizeof(cand[0])];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); ++i) {
		if (!cand[i].path || !cand[i].path[0] || !tool_sub_has_opt(cli, cand[i].opt)) {
			continue;
		}
		memset(&files[n], 0, sizeof(files[n]));
		files[n].opt = cand[i].opt;
		files[n].path = cand[i].path;
		files[n].written = cand[i].written;
		file_arg_identify(&files[n]);
		n++;
	}

	for (size_t i = 0; i < n; ++i) {
		for (size_t j = i + 1; j < n; ++j) {
			const struct file_arg *a = &files[i], *b = &files[j];

			if ((!a->written && !b->written) || !file_arg_same(a, b)) {
				continue;
			}
			return tool_err(cli, -EINVAL,
					"%s %s and %s %s are the same file: %s",
					tool_opt_label(cli, a->opt), a->path,
					tool_opt_label(cli, b->opt), b->path,
					(a->written && b->written)
						? "refusing to have one overwrite the other"
						: "refusing to overwrite the input with the output");
		}
	}
	return 0;
}

/* The subcommand handlers of the table run by tool_cli_run(), in table order */
static struct xnvme_cli_sub *g_run_subs;
static xnvme_cli_subfunc *g_run_cmds;

static int
run_checked(struct xnvme_cli *cli)
{
	xnvme_cli_subfunc cmd = g_run_cmds[cli->sub - g_run_subs];
	int err;

	err = tool_check_files(cli);
	if (err) {
		return err;
	}
	return cmd(cli);
}

int
tool_cli_run(struct xnvme_cli *cli, int argc, char **argv, int init)
{
	int ret;

	g_run_cmds = calloc(cli->nsubs > 0 ? (size_t)cli->nsubs : 1, sizeof(*g_run_cmds));
	if (!g_run_cmds) {
		return xnvme_cli_run(cli, argc, argv, init);
	}
	g_run_subs = cli->subs;
	for (int i = 0; i < cli->nsubs; ++i) {
		g_run_cmds[i] = cli->subs[i].command;
		if (cli->subs[i].command) {
			cli->subs[i].command = run_checked;
		}
	}

	ret = xnvme_cli_run(cli, argc, argv, init);

	for (int i = 0; i < cli->nsubs; ++i) {
		cli->subs[i].command = g_run_cmds[i];
	}
	free(g_run_cmds);
	g_run_cmds = NULL;
	g_run_subs = NULL;
	return ret;
}

/* The path itself when it exists, else its directory: where a new file would be */
static const char *
file_or_dir(const char *path, char *buf, size_t len)
{
	const char *slash;
	struct stat st;

	if (!stat(path, &st)) {
		return path;
	}
	slash = strrchr(path, '/');
	if (!slash) {
		return ".";
	}
	if (slash == path) {
		return "/";
	}
	if ((size_t)(slash - path) >= len) {
		return NULL;
	}
	memcpy(buf, path, slash - path);
	buf[slash - path] = '\0';
	return buf;
}

uint64_t
tool_file_size_max(const char *path)
{
	uint64_t max = INT64_MAX; /* off_t */
	const char *where;
	char buf[4096];
	long bits;

	where = file_or_dir(path, buf, sizeof(buf));
	if (!where) {
		return max;
	}
	/* bits of a signed integer holding the largest file size of that file system */
	bits = pathconf(where, _PC_FILESIZEBITS);
	if (bits > 1 && bits < 64) {
		max = (1ULL << (bits - 1)) - 1;
	}
	return max;
}

/* Bytes the file system holding `path` (or its directory) has in all; 0 when unknown */
static uint64_t
file_fs_nbytes(const char *path)
{
	struct statvfs vfs;
	const char *where;
	char buf[4096];
	uint64_t nbytes;

	where = file_or_dir(path, buf, sizeof(buf));
	if (!where || statvfs(where, &vfs) || !vfs.f_blocks) {
		return 0;
	}
	tool_mul_u64(vfs.f_blocks, vfs.f_frsize ? vfs.f_frsize : vfs.f_bsize, &nbytes);
	return nbytes;
}

int
tool_check_file_room(const struct xnvme_cli *cli, enum xnvme_cli_opt nopt, uint64_t nbytes,
		     uint64_t end, enum xnvme_cli_opt fopt, const char *path)
{
	uint64_t fs_nbytes, size_max;
	struct stat st;

	if (!path || stat(path, &st) || !S_ISREG(st.st_mode)) {
		return 0;
	}
	fs_nbytes = file_fs_nbytes(path);
	if (fs_nbytes && nbytes > fs_nbytes) {
		return tool_err(cli, -EFBIG,
				"%s %" PRIu64 ": more than %s %s can hold: its file system holds "
				"%" PRIu64 " bytes in all",
				tool_opt_label(cli, nopt), nbytes, tool_opt_label(cli, fopt), path,
				fs_nbytes);
	}
	size_max = tool_file_size_max(path);
	if (end > size_max) {
		return tool_err(cli, -EFBIG,
				"%s %" PRIu64 ": %s %s would end at byte %" PRIu64
				", past the largest file size of its file system (%" PRIu64 " bytes)",
				tool_opt_label(cli, nopt), nbytes, tool_opt_label(cli, fopt), path, end,
				size_max);
	}
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Data files and generated data                                                              */
/* ------------------------------------------------------------------------------------------ */

static void
file_setup(struct tool_file *f, const struct xnvme_cli *cli, enum xnvme_cli_opt opt,
	   const char *path)
{
	f->cli = cli;
	f->opt = opt;
	f->path = path;
	f->fd = -1;
	f->nbytes = 0;
	f->created = false;
	f->stream = false;
	f->regular = false;
}

static const char *
file_kind(mode_t mode)
{
	if (S_ISFIFO(mode)) {
		return "a FIFO";
	}
	if (S_ISSOCK(mode)) {
		return "a socket";
	}
	if (S_ISCHR(mode)) {
		return "a character device";
	}
	if (S_ISDIR(mode)) {
		return "a directory";
	}
	if (S_ISBLK(mode)) {
		return "a block device";
	}
	return "a regular file";
}

/* Notes the kind of the open file; streams stay non-blocking (file_io() polls them) */
static int
file_classify(struct tool_file *f, struct stat *st)
{
	if (fstat(f->fd, st)) {
		return -errno;
	}
	f->regular = S_ISREG(st->st_mode);
	f->stream = S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode) || S_ISCHR(st->st_mode);
	if (!f->stream) {
		int flags = fcntl(f->fd, F_GETFL);

		if (flags < 0 || fcntl(f->fd, F_SETFL, flags & ~O_NONBLOCK)) {
			return -errno;
		}
	}
	return 0;
}

int
tool_file_open_in(struct tool_file *f, const struct xnvme_cli *cli, enum xnvme_cli_opt opt,
		  const char *path, uint64_t need)
{
	struct stat st;
	int err;

	file_setup(f, cli, opt, path);
	if (!path || !path[0]) {
		return tool_err(cli, -EINVAL, "%s: empty path", tool_opt_label(cli, opt));
	}

	/* Non-blocking: opening a FIFO for reading would otherwise wait for a writer forever */
	f->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (f->fd < 0) {
		return tool_err(cli, -errno, "%s %s: cannot open for reading",
				tool_opt_label(cli, opt), path);
	}
	err = file_classify(f, &st);
	if (err) {
		tool_file_close(f);
		return tool_err(cli, err, "%s %s: cannot stat", tool_opt_label(cli, opt), path);
	}
	if (S_ISDIR(st.st_mode)) {
		tool_file_close(f);
		return tool_err(cli, -EISDIR, "%s %s: is a directory", tool_opt_label(cli, opt),
				path);
	}
	/* Pipes and devices have no meaningful size; tool_file_read() catches their end */
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < need) {
		tool_file_close(f);
		return tool_err(cli, -EINVAL,
				"%s %s: file holds %jd bytes, %" PRIu64 " bytes needed",
				tool_opt_label(cli, opt), path, (intmax_t)st.st_size, need);
	}
	return 0;
}

int
tool_file_open_out(struct tool_file *f, const struct xnvme_cli *cli, enum xnvme_cli_opt opt,
		   const char *path)
{
	struct stat st;
	int err;

	file_setup(f, cli, opt, path);
	if (!path || !path[0]) {
		return tool_err(cli, -EINVAL, "%s: empty path", tool_opt_label(cli, opt));
	}

	/* Created here, or existing: only a file this run created may be removed on failure */
	f->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (f->fd >= 0) {
		f->created = true;
	} else if (errno == EEXIST) {
		/* Non-blocking: a FIFO without a reader fails with ENXIO instead of waiting */
		f->fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (f->fd < 0 && errno == ENXIO) {
			return tool_err(cli, -ENXIO, "%s %s: a FIFO without a reader: cannot write",
					tool_opt_label(cli, opt), path);
		}
		if (f->fd < 0 && errno == ENOENT) { /* a dangling symbolic link: create its target */
			f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		}
	}
	if (f->fd < 0) {
		return tool_err(cli, -errno, "%s %s: cannot open for writing",
				tool_opt_label(cli, opt), path);
	}
	err = file_classify(f, &st);
	if (!err && f->regular && !f->created && ftruncate(f->fd, 0)) {
		err = -errno;
	}
	if (err) {
		f->regular = false; /* not truncated: nothing to report but the error */
		tool_file_abort(f);
		return tool_err(cli, err, "%s %s: cannot open for writing",
				tool_opt_label(cli, opt), path);
	}
	return 0;
}

/* Reads (`out` false) or writes exactly `nbytes`; running out of input is an error */
static int
file_io(struct tool_file *f, bool out, uint8_t *buf, size_t nbytes)
{
	size_t left = nbytes;

	while (left) {
		ssize_t ret = out ? write(f->fd, buf, left) : read(f->fd, buf, left);

		if (ret < 0 && errno == EINTR) {
			continue;
		}
		if (ret < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && f->stream) {
			struct pollfd pfd = {.fd = f->fd, .events = out ? POLLOUT : POLLIN};

			/* A FIFO whose writer is slow: wait for data, or for its end (POLLHUP) */
			if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
				return tool_err(f->cli, -errno, "%s %s: poll failed",
						tool_opt_label(f->cli, f->opt), f->path);
			}
			continue;
		}
		if (ret < 0) {
			return tool_err(f->cli, -errno, "%s %s: %s failed",
					tool_opt_label(f->cli, f->opt), f->path, out ? "write" : "read");
		}
		if (ret == 0 && out) { /* no progress: never loop on it */
			return tool_err(f->cli, -EIO, "%s %s: write made no progress",
					tool_opt_label(f->cli, f->opt), f->path);
		}
		if (ret == 0) {
			return tool_err(f->cli, -EINVAL,
					"%s %s: ended after %" PRIu64 " bytes, %" PRIu64
					" bytes needed%s",
					tool_opt_label(f->cli, f->opt), f->path, f->nbytes,
					f->nbytes + left,
					(f->stream && !f->nbytes)
						? " (a FIFO or device with nothing to read: no writer?)"
						: "");
		}
		buf += ret;
		left -= ret;
		f->nbytes += ret;
	}
	return 0;
}

int
tool_file_read(struct tool_file *f, void *buf, size_t nbytes)
{
	return file_io(f, false, buf, nbytes);
}

int
tool_file_write(struct tool_file *f, const void *buf, size_t nbytes)
{
	/* not written to: file_io() only reads into buffers when `out` is false */
	return file_io(f, true, (uint8_t *)buf, nbytes);
}

int
tool_file_close(struct tool_file *f)
{
	int err = 0;

	if (f->fd < 0) {
		return 0;
	}
	if (close(f->fd)) {
		err = tool_err(f->cli, -errno, "%s %s: close failed",
			       tool_opt_label(f->cli, f->opt), f->path);
	}
	f->fd = -1;
	return err;
}

void
tool_file_abort(struct tool_file *f)
{
	if (f->fd < 0) {
		return;
	}
	close(f->fd);
	f->fd = -1;
	if (f->created) {
		if (unlink(f->path) && errno != ENOENT) {
			tool_err(f->cli, -errno, "%s %s: cannot remove the incomplete output",
				 tool_opt_label(f->cli, f->opt), f->path);
		}
		return;
	}
	if (f->regular) {
		tool_err(f->cli, -EIO,
			 "%s %s: the file existed before and was truncated: it holds only the %" PRIu64
			 " bytes written before the failure",
			 tool_opt_label(f->cli, f->opt), f->path, f->nbytes);
	}
}

int
tool_data_load(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path, void *buf,
	       size_t nbytes)
{
	struct tool_file f = TOOL_FILE_INIT;
	int err;

	err = tool_file_open_in(&f, cli, opt, path, nbytes);
	if (err) {
		return err;
	}
	err = tool_file_read(&f, buf, nbytes);
	tool_file_close(&f);
	return err;
}

int
tool_data_save(const struct xnvme_cli *cli, enum xnvme_cli_opt opt, const char *path,
	       const void *buf, size_t nbytes)
{
	struct tool_file f = TOOL_FILE_INIT;
	int err, err_close;

	err = tool_file_open_out(&f, cli, opt, path);
	if (err) {
		return err;
	}
	err = tool_file_write(&f, buf, nbytes);
	if (err) {
		tool_file_abort(&f);
		return err;
	}
	err_close = tool_file_close(&f);
	if (err_close && f.created) {
		unlink(path);
	}
	return err_close;
}

int
tool_data_output(const struct xnvme_cli *cli, const void *buf, size_t nbytes)
{
	int err;

	if (!cli->args.data_output) {
		return 0;
	}
	err = tool_data_save(cli, XNVME_CLI_OPT_DATA_OUTPUT, cli->args.data_output, buf, nbytes);
	if (!err) {
		xnvme_cli_pinf("wrote %zu bytes to '%s'", nbytes, cli->args.data_output);
	}
	return err;
}

void
tool_pattern_fill(void *buf, size_t nbytes, uint64_t pos)
{
	uint8_t *cur = buf;
	unsigned int k = pos % 26;
	size_t seed = XNVME_MIN_U64(nbytes, 26 * 64);

	for (size_t i = 0; i < seed; ++i) {
		cur[i] = 'A' + k;
		k = (k == 25) ? 0 : k + 1;
	}
	/* The pattern repeats every 26 bytes: keep doubling a prefix whose length is a multiple */
	for (size_t len = seed; len < nbytes; len *= 2) {
		memcpy(cur + len, cur, XNVME_MIN_U64(len, nbytes - len));
	}
}

void
tool_hexdump_pr(const char *key, const void *buf, size_t nbytes)
{
	const uint8_t *bytes = buf;

	if (!nbytes) {
		printf("%s: []\n", key);
		return;
	}
	printf("%s:\n", key);
	for (size_t row = 0; row < nbytes; row += 16) {
		printf("  - [");
		for (size_t i = row; i < nbytes && i < row + 16; ++i) {
			printf("%s0x%02x", i == row ? "" : ", ", bytes[i]);
		}
		printf("]\n");
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Progress                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void
progress_draw(struct tool_progress *p, uint64_t now)
{
	double secs = (now - p->start_ns) / 1e9;
	double mib = p->done / 1048576.0;
	double mib_sec = secs > 0 ? mib / secs : 0;

	if (!p->total && !p->done) {
		fprintf(stderr, "\r# %s: %.1f s elapsed\033[K", p->label, secs);
	} else if (!p->total) {
		fprintf(stderr, "\r# %s: %.1f MiB, %.1f MiB/s, %.1f s elapsed\033[K", p->label,
			mib, mib_sec, secs);
	} else {
		double pct = 100.0 * p->done / p->total;
		double left = (p->total - (p->done < p->total ? p->done : p->total)) / 1048576.0;
		unsigned long eta = mib_sec > 0 ? (unsigned long)(left / mib_sec + 0.5) : 0;

		fprintf(stderr,
			"\r# %s: %.1f/%.1f MiB (%.0f%%), %.1f MiB/s, ETA %lu:%02lu:%02lu\033[K",
			p->label, mib, p->total / 1048576.0, pct, mib_sec, eta / 3600,
			(eta / 60) % 60, eta % 60);
	}
	fflush(stderr);
	p->shown = true;
	p->last_ns = now;
}

void
tool_progress_start(struct tool_progress *p, const struct xnvme_cli *cli, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->label, sizeof(p->label), "%s %s", (cli && cli->title) ? cli->title : "?",
		 sub_name(cli));
	p->total = total;
	p->tty = isatty(STDERR_FILENO) == 1;
	p->start_ns = now_ns();
}

void
tool_progress_update(struct tool_progress *p, uint64_t done)
{
	uint64_t now;

	if (!p || !p->tty) {
		return;
	}
	p->done = done;

	now = now_ns();
	if (!p->shown && p->total < PROG_MIN_NBYTES && now - p->start_ns < PROG_DELAY_NS) {
		return;
	}
	if (p->shown && now - p->last_ns < PROG_PERIOD_NS) {
		return;
	}
	progress_draw(p, now);
}

void
tool_progress_end(struct tool_progress *p)
{
	if (!p || !p->tty || !p->shown) {
		return;
	}
	progress_draw(p, now_ns());
	fputc('\n', stderr);
	fflush(stderr);
}

struct tool_ticker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct tool_progress prog;
};

static void *
ticker_main(void *arg)
{
	struct tool_ticker *t = arg;

	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += PROG_PERIOD_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec += 1;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&t->cond, &t->lock, &ts);
		if (!t->stop) {
			tool_progress_update(&t->prog, 0);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

struct tool_ticker *
tool_ticker_start(const struct xnvme_cli *cli)
{
	struct tool_ticker *t;

	if (isatty(STDERR_FILENO) != 1) {
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		return NULL; /* progress is a nicety; the command runs without it */
	}
	tool_progress_start(&t->prog, cli, 0);
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	if (pthread_create(&t->thread, NULL, ticker_main, t)) {
		pthread_cond_destroy(&t->cond);
		pthread_mutex_destroy(&t->lock);
		free(t);
		return NULL;
	}
	return t;
}

void
tool_ticker_stop(struct tool_ticker *t)
{
	if (!t) {
		return;
	}
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);

	tool_progress_end(&t->prog);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* ------------------------------------------------------------------------------------------ */
/* Devices                                                                                    */
/* ------------------------------------------------------------------------------------------ */

struct enum_state {
	struct xnvme_cli_enumeration *list;
	bool uris_only;
	int err;
};

static bool
ident_equal(const struct xnvme_ident *a, const struct xnvme_ident *b)
{
	return !strcmp(a->uri, b->uri) && a->nsid == b->nsid && a->csi == b->csi &&
	       a->dtype == b->dtype;
}

static int
enum_grow(struct enum_state *st)
{
	struct xnvme_cli_enumeration *old = st->list, *list;
	uint32_t capacity = old->nentries ? old->nentries * 2 : 64;
	int err;

	err = xnvme_cli_enumeration_alloc(&list, capacity);
	if (err) {
		return err;
	}
	for (uint32_t i = 0; i < old->nentries; ++i) {
		err = xnvme_cli_enumeration_append(list, &old->entries[i]);
		if (err) {
			xnvme_cli_enumeration_free(list);
			return err;
		}
	}
	xnvme_cli_enumeration_free(old);
	st->list = list;
	return 0;
}

static int
enum_cb(struct xnvme_dev *dev, void *cb_args)
{
	struct enum_state *st = cb_args;
	const struct xnvme_ident *ident = xnvme_dev_get_ident(dev);

	if (!ident || st->err) {
		return XNVME_ENUMERATE_DEV_CLOSE;
	}
	if (st->uris_only) {
		for (uint32_t i = 0; i < st->list->nentries; ++i) {
			if (ident_equal(&st->list->entries[i], ident)) {
				return XNVME_ENUMERATE_DEV_CLOSE;
			}
		}
	}
	if (!st->list->capacity) {
		st->err = enum_grow(st);
		if (st->err) {
			return XNVME_ENUMERATE_DEV_CLOSE;
		}
	}
	st->err = xnvme_cli_enumeration_append(st->list, ident);
	return XNVME_ENUMERATE_DEV_CLOSE;
}

static void
yaml_squote_pr(const char *s)
{
	putchar('\'');
	for (; *s; ++s) {
		if (*s == '\'') {
			putchar('\'');
		}
		putchar(*s);
	}
	putchar('\'');
}

static int
enumerate(struct xnvme_cli *cli, bool uris_only)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct enum_state st = {.uris_only = uris_only};
	int err;

	xnvme_cli_to_opts(cli, &opts);

	err = xnvme_cli_enumeration_alloc(&st.list, 64);
	if (err) {
		return tool_err(cli, err, "cannot allocate the device list");
	}

	err = xnvme_enumerate(cli->args.sys_uri, &opts, enum_cb, &st);
	if (err || st.err) {
		err = tool_err(cli, err ? err : st.err, "enumeration failed%s%s",
			       cli->args.sys_uri ? " for --uri " : "",
			       cli->args.sys_uri ? cli->args.sys_uri : "");
		xnvme_cli_enumeration_free(st.list);
		return err;
	}

	if (!st.list->nentries) {
		printf("xnvme_cli_enumeration: ~\n");
	} else if (uris_only) {
		printf("xnvme_cli_enumeration:\n");
		for (uint32_t i = 0; i < st.list->nentries; ++i) {
			printf("%s  - uri: ", i ? "\n" : "");
			yaml_squote_pr(st.list->entries[i].uri);
			putchar('\n');
		}
	} else {
		xnvme_cli_enumeration_pp(st.list, XNVME_PR_DEF);
	}
	fflush(stdout);

	xnvme_cli_enumeration_free(st.list);
	return 0;
}

int
tool_enum(struct xnvme_cli *cli)
{
	return enumerate(cli, false);
}

int
tool_list(struct xnvme_cli *cli)
{
	return enumerate(cli, true);
}

int
tool_idfy_ns(struct xnvme_cli *cli)
{
	struct xnvme_dev *dev = cli->args.dev;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	struct xnvme_spec_idfy *idfy;
	uint32_t nsid = tool_nsid(cli);
	int err;

	idfy = xnvme_buf_alloc(dev, sizeof(*idfy));
	if (!idfy) {
		return tool_err(cli, -errno, "cannot allocate the identify buffer");
	}
	memset(idfy, 0, sizeof(*idfy));

	err = xnvme_adm_idfy_ns(&ctx, nsid, idfy);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err, "Identify Namespace of nsid 0x%x failed", nsid);
		goto exit;
	}

	xnvme_spec_idfy_ns_pr(&idfy->ns, XNVME_PR_DEF);
	err = tool_data_output(cli, idfy, sizeof(*idfy));

exit:
	xnvme_buf_free(dev, idfy);
	return err;
}

int
tool_dev_info(struct xnvme_cli *cli)
{
	xnvme_dev_pr(cli->args.dev, XNVME_PR_DEF);
	return 0;
}

void *
tool_dev_buf(struct xnvme_cli *cli, size_t nbytes)
{
	void *buf = xnvme_buf_alloc(cli->args.dev, nbytes);

	if (!buf) {
		tool_err(cli, -errno, "cannot allocate a %zu byte buffer", nbytes);
		return NULL;
	}
	memset(buf, 0, nbytes);
	return buf;
}

uint32_t
tool_log_nsid(const struct xnvme_cli *cli)
{
	return cli->given[XNVME_CLI_OPT_NSID] ? cli->args.nsid : TOOL_NSID_ALL;
}

void *
tool_log_get(struct xnvme_cli *cli, uint8_t lid, uint8_t lsp, uint16_t lsi, uint64_t lpo,
	     uint32_t nsid, uint8_t rae, uint32_t nbytes, int *err)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(cli->args.dev);
	void *buf;

	if (!nbytes || nbytes % 4 || lpo % 4) {
		*err = tool_err(cli, -EINVAL,
				"log page 0x%x: %u bytes at offset %" PRIu64
				": both must be multiples of 4 and the size non-zero",
				lid, nbytes, lpo);
		return NULL;
	}
	buf = tool_dev_buf(cli, nbytes);
	if (!buf) {
		*err = -ENOMEM;
		return NULL;
	}

	/* Prepared by hand: xnvme_adm_log() has no parameter for the log specific identifier */
	xnvme_prep_adm_log(&ctx, lid, lsp, lpo, nsid, rae, nbytes);
	ctx.cmd.log.lsi = lsi;
	*err = xnvme_cmd_pass_admin(&ctx, buf, nbytes, NULL, 0);
	if (*err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		*err = tool_cmd_err(cli, &ctx, *err,
				    "Get Log Page --lid 0x%x --nsid 0x%x of %u bytes failed", lid,
				    nsid, nbytes);
		xnvme_buf_free(cli->args.dev, buf);
		return NULL;
	}
	return buf;
}

int
tool_log_put(struct xnvme_cli *cli, void *log, uint32_t nbytes)
{
	int err = tool_data_output(cli, log, nbytes);

	xnvme_buf_free(cli->args.dev, log);
	return err;
}

int
tool_log_erri(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	uint32_t limit = args->limit;
	uint32_t nbytes;
	void *buf;
	int err;

	if (cli->given[XNVME_CLI_OPT_LIMIT]) {
		err = tool_check_range(cli, XNVME_CLI_OPT_LIMIT, limit, 1, TOOL_LOG_ERRI_LIMIT_MAX);
		if (err) {
			return err;
		}
	} else {
		const struct xnvme_spec_idfy_ctrlr *ctrlr = xnvme_dev_get_ctrlr(args->dev);

		limit = ctrlr ? ctrlr->elpe + 1U : 1;
	}
	nbytes = limit * sizeof(struct xnvme_spec_log_erri_entry);

	buf = tool_log_get(cli, XNVME_SPEC_LOG_ERRI, 0, 0, 0, tool_log_nsid(cli), 0, nbytes, &err);
	if (!buf) {
		return err;
	}
	xnvme_spec_log_erri_pr(buf, (int)limit, XNVME_PR_DEF);
	return tool_log_put(cli, buf, nbytes);
}

/* ------------------------------------------------------------------------------------------ */
/* Byte-addressed transfers through the file API                                              */
/* ------------------------------------------------------------------------------------------ */

/* The options of the command line with the open flags of `mode` */
static struct xnvme_opts
xfer_opts(const struct xnvme_cli *cli, int mode, bool create)
{
	struct xnvme_opts opts = xnvme_opts_default();

	xnvme_cli_to_opts(cli, &opts);
	opts.rdonly = !(mode & TOOL_XFER_OUT);
	opts.wronly = (mode & TOOL_XFER_OUT) && !(mode & TOOL_XFER_IN);
	opts.rdwr = (mode & TOOL_XFER_OUT) && (mode & TOOL_XFER_IN);
	opts.create = create;
	opts.truncate = (mode & TOOL_XFER_OUT) && (mode & TOOL_XFER_TRUNC);
	return opts;
}

/* xnvme_file_open() without the library's note on stderr about a failed open */
static struct xnvme_dev *
file_open_quiet(const char *path, struct xnvme_opts *opts)
{
	struct xnvme_dev *dev;
	int saved, null, err;

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0) {
		if (saved >= 0) {
			close(saved);
		}
		if (null >= 0) {
			close(null);
		}
		return xnvme_file_open(path, opts);
	}
	dev = xnvme_file_open(path, opts);
	err = errno;
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(null);
	errno = err;
	return dev;
}

/* NVMe passthrough carries no file command set: such a namespace is addressed in LBAs */
static int
xfer_lba_mode(struct tool_xfer *x)
{
	const struct xnvme_opts *opts = xnvme_dev_get_opts(x->dev);
	const struct xnvme_geo *geo;
	uint64_t max;

	if (!opts || !opts->sync || strcmp(opts->sync, "nvme")) {
		return 0;
	}
	geo = xnvme_dev_get_geo(x->dev);
	if (!geo || !geo->lba_nbytes) {
		return tool_err(x->cli, -EINVAL, "%s %s: no namespace geometry",
				tool_opt_label(x->cli, x->opt), x->path);
	}
	/* the most LBAs one command carries: the NLB field and the device's MDTS */
	max = tool_lblk_cmd_nlbas(x->dev, geo, TOOL_LBLK_WRITE);
	if (x->iosize % geo->lba_nbytes || x->iosize / geo->lba_nbytes > max) {
		return tool_err(x->cli, -EINVAL,
				"%s %zu: %s is an NVMe namespace of %u-byte LBAs: the transfer size "
				"must be a multiple of that, at most %" PRIu64 " LBAs",
				tool_opt_label(x->cli, XNVME_CLI_OPT_IOSIZE), x->iosize, x->path,
				geo->lba_nbytes, max);
	}
	x->lba_nbytes = geo->lba_nbytes;
	return 0;
}

int
tool_xfer_open(struct tool_xfer *x, const struct xnvme_cli *cli, enum xnvme_cli_opt opt,
	       const char *path, int mode, size_t iosize, uint32_t qdepth, uint32_t vec_cnt)
{
	struct xnvme_opts opts;
	struct stat st;
	int err;

	memset(x, 0, sizeof(*x));
	x->cli = cli;
	x->opt = opt;
	x->path = path;
	x->iosize = iosize;
	x->vec_cnt = vec_cnt;

	if (!path || !path[0]) {
		return tool_err(cli, -EINVAL, "%s: empty path", tool_opt_label(cli, opt));
	}
	/* Commands address byte offsets: a stream has none, and opening one may block */
	if (!stat(path, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
		return tool_err(cli, -EINVAL,
				"%s %s: is %s: a regular file or a device is needed, as data is "
				"moved at byte offsets",
				tool_opt_label(cli, opt), path, file_kind(st.st_mode));
	}

	/*
	 * An output is created only when nothing answers to its name: with create set, the first
	 * backend handling paths would make a file of a device URI such as "1GB".
	 */
	opts = xfer_opts(cli, mode, false);
	if ((mode & TOOL_XFER_OUT) && stat(path, &st) && errno == ENOENT) {
		x->dev = file_open_quiet(path, &opts);
		if (!x->dev && errno == ENOENT) {
			opts = xfer_opts(cli, mode, true);
			x->dev = xnvme_file_open(path, &opts);
			x->created = x->dev != NULL;
		}
	} else {
		x->dev = xnvme_file_open(path, &opts);
	}
	if (!x->dev) {
		return tool_err(cli, -errno, "%s %s: cannot open%s", tool_opt_label(cli, opt), path,
				(mode & TOOL_XFER_OUT) ? " for writing" : "");
	}
	{
		const struct xnvme_ident *ident = xnvme_dev_get_ident(x->dev);

		x->is_file = ident && ident->dtype == TOOL_DTYPE_FILE;
		x->truncated = x->is_file && !x->created && (mode & TOOL_XFER_OUT) &&
			       (mode & TOOL_XFER_TRUNC);
	}

	err = xfer_lba_mode(x);
	if (err) {
		tool_xfer_close(x);
		return err;
	}
	if (qdepth) {
		err = xnvme_queue_init(x->dev, (uint16_t)qdepth, 0, &x->queue);
		if (err) {
			x->queue = NULL;
			tool_xfer_close(x);
			return tool_err(cli, err, "%s %s: cannot create a queue of depth %u",
					tool_opt_label(cli, opt), path, qdepth);
		}
	}
	return 0;
}

int
tool_xfer_params(const struct xnvme_cli *cli, size_t *iosize, uint32_t *qdepth,
		 uint32_t *vec_cnt)
{
	const struct xnvme_cli_args *args = &cli->args;
	bool queued = tool_sub_has_opt(cli, XNVME_CLI_OPT_QDEPTH);
	bool vectored = tool_sub_has_opt(cli, XNVME_CLI_OPT_VEC_CNT);
	int err;

	*iosize = cli->given[XNVME_CLI_OPT_IOSIZE] ? args->iosize : TOOL_IOSIZE_DEF;
	*qdepth = 0;
	*vec_cnt = 0;

	err = tool_check_range(cli, XNVME_CLI_OPT_IOSIZE, *iosize, 1, UINT32_MAX);
	if (err) {
		return err;
	}
	if (queued) {
		*qdepth = cli->given[XNVME_CLI_OPT_QDEPTH] ? args->qdepth : TOOL_QDEPTH_DEF;
		err = tool_check_range(cli, XNVME_CLI_OPT_QDEPTH, *qdepth, 1, TOOL_QDEPTH_MAX);
		if (err) {
			return err;
		}
	}
	if (vectored) {
		*vec_cnt = cli->given[XNVME_CLI_OPT_VEC_CNT] ? args->vec_cnt : TOOL_VEC_CNT_DEF;
		err = tool_check_range(cli, XNVME_CLI_OPT_VEC_CNT, *vec_cnt, 1, TOOL_VEC_CNT_MAX);
		if (err) {
			return err;
		}
	}
	return 0;
}

void
tool_xfer_close(struct tool_xfer *x)
{
	if (x->queue) {
		xnvme_queue_term(x->queue);
		x->queue = NULL;
	}
	if (x->dev) {
		xnvme_file_close(x->dev);
		x->dev = NULL;
	}
}

void
tool_xfer_abort(struct tool_xfer *x)
{
	bool created = x->created, truncated = x->truncated;

	tool_xfer_close(x);
	if (created) {
		if (unlink(x->path) && errno != ENOENT) {
			tool_err(x->cli, -errno, "%s %s: cannot remove the incomplete output",
				 tool_opt_label(x->cli, x->opt), x->path);
		}
		x->created = false;
		return;
	}
	if (truncated) {
		tool_err(x->cli, -EIO,
			 "%s %s: the file existed before and was truncated: it holds only the %" PRIu64
			 " bytes written before the failure",
			 tool_opt_label(x->cli, x->opt), x->path, x->nwritten);
	} else if (x->nwritten) {
		tool_err(x->cli, -EIO,
			 "%s %s: %" PRIu64 " bytes were written before the failure: the output is "
			 "incomplete",
			 tool_opt_label(x->cli, x->opt), x->path, x->nwritten);
	}
}

int
tool_xfer_check_room(const struct tool_xfer *x, enum xnvme_cli_opt nopt, uint64_t nbytes,
		     uint64_t end)
{
	const struct xnvme_cli *cli = x->cli;
	uint64_t size;

	if (x->is_file) {
		return tool_check_file_room(cli, nopt, nbytes, end, x->opt, x->path);
	}
	size = tool_xfer_size(x);
	if (end > size) {
		return tool_err(cli, -EFBIG,
				"%s %" PRIu64 ": %s %s holds %" PRIu64
				" bytes, the transfer would end at byte %" PRIu64,
				tool_opt_label(cli, nopt), nbytes, tool_opt_label(cli, x->opt), x->path,
				size, end);
	}
	return 0;
}

uint64_t
tool_xfer_size(const struct tool_xfer *x)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(x->dev);

	return geo ? geo->tbytes : 0;
}

size_t
tool_xfer_window(const struct tool_xfer *x)
{
	return x->iosize * (x->queue ? xnvme_queue_get_capacity(x->queue) : 1);
}

/* Spreads `nbytes` at `buf` over at most `max` iovec elements; returns the element count */
static size_t
iov_split(struct iovec *iov, uint32_t max, uint8_t *buf, size_t nbytes)
{
	size_t cnt = max < nbytes ? max : nbytes;
	size_t each = nbytes / cnt;

	for (size_t i = 0; i < cnt; ++i) {
		iov[i].iov_base = buf + i * each;
		iov[i].iov_len = (i == cnt - 1) ? nbytes - i * each : each;
	}
	return cnt;
}

/* Submits one command of `x` on `ctx` (synchronous or queued) */
static int
xfer_submit(struct tool_xfer *x, struct xnvme_cmd_ctx *ctx, bool write, uint8_t *buf,
	    size_t nbytes, uint64_t offset, struct iovec *iov)
{
	size_t cnt;

	if (x->lba_nbytes) { /* whole LBAs: tool_xfer_rw() checked the range */
		xnvme_prep_nvm(ctx, write ? XNVME_SPEC_NVM_OPC_WRITE : XNVME_SPEC_NVM_OPC_READ,
			       xnvme_dev_get_nsid(x->dev), offset / x->lba_nbytes,
			       (uint16_t)(nbytes / x->lba_nbytes - 1));
		if (!x->vec_cnt) {
			return xnvme_cmd_pass(ctx, buf, nbytes, NULL, 0);
		}
		cnt = iov_split(iov, x->vec_cnt, buf, nbytes);
		return xnvme_cmd_pass_iov(ctx, iov, cnt, nbytes, NULL, 0);
	}
	if (!x->vec_cnt) {
		return write ? xnvme_file_pwrite(ctx, buf, nbytes, offset)
			     : xnvme_file_pread(ctx, buf, nbytes, offset);
	}

	cnt = iov_split(iov, x->vec_cnt, buf, nbytes);
	ctx->cmd.common.opcode = write ? XNVME_SPEC_FS_OPC_WRITE : XNVME_SPEC_FS_OPC_READ;
	ctx->cmd.common.nsid = xnvme_dev_get_nsid(x->dev);
	ctx->cmd.nvm.slba = offset;
	return xnvme_cmd_pass_iov(ctx, iov, cnt, nbytes, NULL, 0);
}

static int
xfer_short(struct tool_xfer *x, bool write, uint64_t offset, size_t want, uint64_t got)
{
	if (write) {
		return tool_err(x->cli, -EIO,
				"%s %s: short write at offset %" PRIu64 ": %" PRIu64
				" of %zu bytes",
				tool_opt_label(x->cli, x->opt), x->path, offset, got, want);
	}
	return tool_err(x->cli, -EINVAL,
			"%s %s: ends before offset %" PRIu64 ": only %" PRIu64
			" bytes available there, %zu bytes needed",
			tool_opt_label(x->cli, x->opt), x->path, offset + want, got, want);
}

static int
xfer_failed(struct tool_xfer *x, struct xnvme_cmd_ctx *ctx, int err, bool write, uint64_t offset,
	    size_t nbytes)
{
	return tool_cmd_err(x->cli, ctx, err,
			    "%s %s: %s of %zu bytes at offset %" PRIu64 " failed",
			    tool_opt_label(x->cli, x->opt), x->path, write ? "write" : "read",
			    nbytes, offset);
}

static int
xfer_rw_sync(struct tool_xfer *x, bool write, uint8_t *buf, size_t nbytes, uint64_t offset)
{
	struct iovec *iov = NULL;
	int err = 0;

	if (x->vec_cnt) {
		iov = calloc(x->vec_cnt, sizeof(*iov));
		if (!iov) {
			return tool_err(x->cli, -ENOMEM, "cannot allocate %u iovecs", x->vec_cnt);
		}
	}

	for (size_t pos = 0; pos < nbytes;) {
		struct xnvme_cmd_ctx ctx = xnvme_file_get_cmd_ctx(x->dev);
		size_t n = nbytes - pos < x->iosize ? nbytes - pos : x->iosize;

		err = xfer_submit(x, &ctx, write, buf + pos, n, offset + pos, iov);
		if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
			err = xfer_failed(x, &ctx, err, write, offset + pos, n);
			break;
		}
		/* NVM Read/Write move all LBAs or fail; file commands report the byte count */
		if (!x->lba_nbytes && ctx.cpl.result != n) {
			err = xfer_short(x, write, offset + pos, n, ctx.cpl.result);
			break;
		}
		pos += n;
		if (write) {
			x->nwritten += n;
		}
		tool_progress_update(x->prog, x->prog_base + pos);
	}

	free(iov);
	return err;
}

struct xfer_async;

struct xfer_slot {
	struct xfer_async *xa;
	struct iovec *iov;
	uint64_t offset;
	size_t nbytes;
	uint32_t idx;
};

struct xfer_async {
	struct tool_xfer *x;
	bool write;
	struct xfer_slot *slots;
	uint32_t *free;
	uint32_t nfree;
	uint64_t done;

	/* The first failure, reported once everything in flight has completed */
	int err;
	bool err_short;
	struct xnvme_cmd_ctx err_ctx;
	uint64_t err_offset;
	size_t err_nbytes;
};

static void
xfer_async_fail(struct xfer_async *xa, struct xnvme_cmd_ctx *ctx, int err, bool is_short,
		struct xfer_slot *slot)
{
	if (xa->err) {
		return;
	}
	xa->err = err;
	xa->err_short = is_short;
	xa->err_ctx = *ctx;
	xa->err_offset = slot->offset;
	xa->err_nbytes = slot->nbytes;
}

static void
xfer_async_cb(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	struct xfer_slot *slot = cb_arg;
	struct xfer_async *xa = slot->xa;

	if (xnvme_cmd_ctx_cpl_status(ctx)) {
		xfer_async_fail(xa, ctx, -EIO, false, slot);
	} else if (!xa->x->lba_nbytes && ctx->cpl.result != slot->nbytes) {
		xfer_async_fail(xa, ctx, -EIO, true, slot);
	} else {
		xa->done += slot->nbytes;
	}
	xa->free[xa->nfree++] = slot->idx;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static int
xfer_rw_async(struct tool_xfer *x, bool write, uint8_t *buf, size_t nbytes, uint64_t offset)
{
	uint32_t depth = xnvme_queue_get_capacity(x->queue);
	struct xfer_async xa = {.x = x, .write = write};
	struct iovec *iovs = NULL;
	size_t pos = 0;
	int err = 0;

	xa.slots = calloc(depth, sizeof(*xa.slots));
	xa.free = calloc(depth, sizeof(*xa.free));
	if (x->vec_cnt) {
		iovs = calloc((size_t)depth * x->vec_cnt, sizeof(*iovs));
	}
	if (!xa.slots || !xa.free || (x->vec_cnt && !iovs)) {
		err = tool_err(x->cli, -ENOMEM, "cannot allocate %u command slots", depth);
		goto exit;
	}
	for (uint32_t i = 0; i < depth; ++i) {
		xa.slots[i].xa = &xa;
		xa.slots[i].idx = i;
		xa.slots[i].iov = iovs ? &iovs[(size_t)i * x->vec_cnt] : NULL;
		xa.free[xa.nfree++] = depth - 1 - i;
	}

	while ((pos < nbytes && !xa.err) || xnvme_queue_get_outstanding(x->queue)) {
		int ret;

		while (pos < nbytes && !xa.err && xa.nfree) {
			struct xfer_slot *slot = &xa.slots[xa.free[xa.nfree - 1]];
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(x->queue);
			size_t n = nbytes - pos < x->iosize ? nbytes - pos : x->iosize;

			if (!ctx) {
				break;
			}
			xa.nfree--;
			slot->offset = offset + pos;
			slot->nbytes = n;
			xnvme_cmd_ctx_set_cb(ctx, xfer_async_cb, slot);

			ret = xfer_submit(x, ctx, write, buf + pos, n, slot->offset, slot->iov);
			if (ret) {
				xa.free[xa.nfree++] = slot->idx;
				if (ret != -EBUSY && ret != -EAGAIN) {
					xfer_async_fail(&xa, ctx, ret, false, slot);
				}
				xnvme_queue_put_cmd_ctx(x->queue, ctx);
				break;
			}
			pos += n;
		}

		ret = xnvme_queue_poke(x->queue, 0);
		if (ret < 0) {
			err = tool_err(x->cli, ret, "%s %s: polling the queue failed",
				       tool_opt_label(x->cli, x->opt), x->path);
			xnvme_queue_drain(x->queue);
			goto exit;
		}
		tool_progress_update(x->prog, x->prog_base + xa.done);
	}

	if (xa.err && xa.err_short) {
		err = xfer_short(x, write, xa.err_offset, xa.err_nbytes, xa.err_ctx.cpl.result);
	} else if (xa.err) {
		err = xfer_failed(x, &xa.err_ctx, xa.err, write, xa.err_offset, xa.err_nbytes);
	}

exit:
	if (write) {
		x->nwritten += xa.done;
	}
	free(iovs);
	free(xa.free);
	free(xa.slots);
	return err;
}

int
tool_xfer_rw(struct tool_xfer *x, bool write, void *buf, size_t nbytes, uint64_t offset)
{
	if (!x->iosize) {
		return tool_err(x->cli, -EINVAL, "%s: transfer size of 0 bytes",
				tool_opt_label(x->cli, XNVME_CLI_OPT_IOSIZE));
	}
	if (x->lba_nbytes && (offset % x->lba_nbytes || nbytes % x->lba_nbytes)) {
		return tool_err(x->cli, -EINVAL,
				"%s %s: an NVMe namespace is read and written in whole %u-byte LBAs: "
				"offset %" PRIu64 " and %zu bytes are not",
				tool_opt_label(x->cli, x->opt), x->path, x->lba_nbytes, offset, nbytes);
	}
	if (x->queue) {
		return xfer_rw_async(x, write, buf, nbytes, offset);
	}
	return xfer_rw_sync(x, write, buf, nbytes, offset);
}

static int
xfer_copy(struct tool_xfer *in, struct tool_xfer *out, uint64_t nbytes, uint64_t in_off,
	  uint64_t out_off)
{
	struct tool_progress prog;
	size_t win = tool_xfer_window(in);
	uint64_t done = 0;
	void *buf;
	int err = 0;

	if (win > nbytes) {
		win = nbytes;
	}
	if (!win) {
		return 0;
	}
	buf = xnvme_buf_alloc(in->dev, win);
	if (!buf) {
		return tool_err(in->cli, -errno, "cannot allocate a %zu byte buffer", win);
	}

	tool_progress_start(&prog, in->cli, nbytes);
	out->prog = &prog;
	while (done < nbytes) {
		size_t n = nbytes - done < win ? nbytes - done : win;

		err = tool_xfer_rw(in, false, buf, n, in_off + done);
		if (err) {
			break;
		}
		out->prog_base = done;
		err = tool_xfer_rw(out, true, buf, n, out_off + done);
		if (err) {
			break;
		}
		done += n;
	}
	tool_progress_end(&prog);
	out->prog = NULL;

	xnvme_buf_free(in->dev, buf);
	return err;
}

int
tool_xfer_copy(struct xnvme_cli *cli, struct tool_xfer *in, struct tool_xfer *out,
	       uint64_t nbytes, uint64_t in_off, uint64_t out_off)
{
	int err;

	xnvme_cli_timer_start(cli);
	err = xfer_copy(in, out, nbytes, in_off, out_off);
	xnvme_cli_timer_stop(cli);
	if (!err) {
		xnvme_cli_timer_bw_pr(cli, "wall-clock", nbytes);
	}
	return err;
}
