// SPDX-License-Identifier: BSD-3-Clause
/**
 * Error messages of the command-line tools: tool_err() naming the tool and subcommand, and
 * tool_cmd_err() reporting a failed command with the name of its NVMe status
 * (tool_status_str(), from the generic and command-set specific status tables).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"

#define TOOL_MSG_LEN 1024

const char *
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

/* Error lines printed so far: tool_run() prints a generic one only when none was */
static unsigned int g_nerr;

unsigned int
tool_err_count(void)
{
	return g_nerr;
}

/* Doubles single quotes in place (cut at the end of `size`): the message is a YAML scalar */
static void
yaml_quote(char *msg, size_t size)
{
	char tmp[TOOL_MSG_LEN];
	size_t o = 0;

	for (size_t i = 0; msg[i] && o + 2 < sizeof(tmp) && o + 2 < size; ++i) {
		if (msg[i] == '\'') {
			tmp[o++] = '\'';
		}
		tmp[o++] = msg[i];
	}
	tmp[o] = '\0';
	memcpy(msg, tmp, o + 1);
}

static int __attribute__((format(TOOL_PRINTF, 3, 0)))
tool_verr(const struct xnvme_cli *cli, int err, const char *fmt, va_list ap)
{
	char msg[TOOL_MSG_LEN];
	int len;

	g_nerr += 1;
	/* a tool without subcommands (xnvmeperf) passes a cli with only the title */
	len = snprintf(msg, sizeof(msg), "%s%s%s: ", (cli && cli->title) ? cli->title : "?",
		       (cli && cli->sub) ? " " : "", (cli && cli->sub) ? sub_name(cli) : "");
	if (len < 0 || (size_t)len >= sizeof(msg)) {
		len = 0;
	}
	vsnprintf(msg + len, sizeof(msg) - len, fmt, ap);
	/* what already reached a device: every error line after the first write says so */
	len = (int)strlen(msg);
	tool_out_notes(msg + len, sizeof(msg) - (size_t)len);
	yaml_quote(msg, sizeof(msg));

	err = neg_err(err);
	fflush(stdout);
	tool_progress_break();
	xnvme_cli_perr(msg, err);
	return err;
}

int
tool_err_line(const struct xnvme_cli *cli, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = tool_verr(cli, err, fmt, ap);
	va_end(ap);
	return err;
}

int
tool_err(const struct xnvme_cli *cli, int err, const char *fmt, ...)
{
	va_list ap;

	/* EPIPE after SIGPIPE, EINTR after any: one line, naming the signal that stopped the run */
	if ((neg_err(err) == -EPIPE || neg_err(err) == -EINTR) && tool_sig_pending()) {
		return tool_sig_report(cli);
	}
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
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	/* The library folds an OS error into sct 7 (vendor specific) with the errno as sc */
	if (ctx && ctx->cpl.status.sct == XNVME_STATUS_CODE_TYPE_VENDOR && ctx->cpl.status.sc) {
		int oserr = ctx->cpl.status.sc;
		bool direct = cli && cli->given[XNVME_CLI_OPT_DIRECT] && cli->args.direct;

		if (oserr == EINVAL && direct) {
			return tool_err(cli, -oserr,
					"%s: alignment error: with --direct, offsets, sizes "
					"(--data-nbytes, --iosize, --offset) and buffers must be "
					"multiples of the logical block size of the file system or "
					"device (512 or 4096 bytes)",
					msg);
		}
		return tool_err(cli, -oserr, "%s: the operating system refused it: %s", msg,
				strerror(oserr));
	}
	/* Name the status the device answered with, if it answered at all */
	if (ctx && xnvme_cmd_ctx_cpl_status(ctx)) {
		return tool_err(cli, err, "%s: %s (sct 0x%x, sc 0x%x, cdw0 0x%x)", msg,
				tool_status_str(ctx), (unsigned int)ctx->cpl.status.sct,
				(unsigned int)ctx->cpl.status.sc, (unsigned int)ctx->cpl.cdw0);
	}
	return tool_err(cli, err, "%s", msg);
}
