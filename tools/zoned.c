// SPDX-License-Identifier: BSD-3-Clause
/**
 * zoned: the Zoned Namespace command set: identify data, the changed zone list and error log,
 * reads, writes and Zone Append, zone management and zone reports.
 *
 * Writes, appends and management actions end by printing the descriptor of the zone they
 * addressed as the device reports it afterwards, so that one invocation shows the effect: a
 * ramdisk lives no longer than the process that opened it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"
#include "tools_lblk.h"

#define IDFY_NBYTES sizeof(struct xnvme_spec_idfy)

/* The descriptor extension size (zdes) counts 64-byte units */
#define ZND_DEXT_UNIT 64

/* Zoned command set Identify Controller or Namespace, printed */
static int
zoned_idfy(struct xnvme_cli *cli, bool ctrlr)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(cli->args.dev);
	uint32_t nsid = xnvme_dev_get_nsid(cli->args.dev);
	void *idfy;
	int err;

	idfy = tool_dev_buf(cli, IDFY_NBYTES);
	if (!idfy) {
		return -ENOMEM;
	}
	if (ctrlr) {
		err = xnvme_adm_idfy_ctrlr_csi(&ctx, XNVME_SPEC_CSI_ZONED, idfy);
	} else {
		err = xnvme_adm_idfy_ns_csi(&ctx, nsid, XNVME_SPEC_CSI_ZONED, idfy);
	}
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err,
				   "Identify %s of the zoned command set (CNS 0x%x, CSI 0x%x, "
				   "nsid 0x%x) failed",
				   ctrlr ? "Controller" : "Namespace",
				   ctrlr ? XNVME_SPEC_IDFY_CTRLR_IOCS : XNVME_SPEC_IDFY_NS_IOCS,
				   XNVME_SPEC_CSI_ZONED, nsid);
	} else if (ctrlr) {
		xnvme_spec_znd_idfy_ctrlr_pr(idfy, XNVME_PR_DEF);
	} else {
		xnvme_spec_znd_idfy_ns_pr(idfy, XNVME_PR_DEF);
	}
	xnvme_buf_free(cli->args.dev, idfy);
	return err;
}

static int
sub_idfy_ctrlr(struct xnvme_cli *cli)
{
	return zoned_idfy(cli, true);
}

static int
sub_idfy_ns(struct xnvme_cli *cli)
{
	return zoned_idfy(cli, false);
}

static int
sub_changes(struct xnvme_cli *cli)
{
	uint32_t nbytes = sizeof(struct xnvme_spec_znd_log_changes);
	void *log;
	int err;

	log = tool_log_get(cli, XNVME_SPEC_LOG_ZND_CHANGES, 0, 0, 0,
			   xnvme_dev_get_nsid(cli->args.dev), 0, nbytes, &err);
	if (!log) {
		return err;
	}
	xnvme_spec_znd_log_changes_pr(log, XNVME_PR_DEF);
	return tool_log_put(cli, log, nbytes);
}

/*
 * Prints the descriptor of the zone containing `lba`, as the device reports it now. Only for
 * zoned geometries; elsewhere there is no zone to describe.
 */
static int
zoned_descr_pr(struct xnvme_cli *cli, uint64_t lba)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(cli->args.dev);
	struct xnvme_spec_znd_descr descr;
	int err;

	if (!geo || geo->type != XNVME_GEO_ZONED) {
		return 0;
	}
	err = xnvme_znd_descr_from_dev(cli->args.dev, lba, &descr);
	if (err) {
		return tool_err(cli, err, "cannot report the zone containing LBA 0x%" PRIx64, lba);
	}
	xnvme_spec_znd_descr_pr(&descr, XNVME_PR_DEF);
	return 0;
}

/*
 * Refuses, before the first command, a write or append that cannot fit in the zone of --slba:
 * a write must end within the writable part of the zone (its capacity), an append must name the
 * start of a zone and fit in the room left above its write pointer. Otherwise the first commands
 * would land and a later one fail (Zone Is Full, Zone Boundary Error). A namespace without
 * zones has nothing to check.
 */
static int
zoned_check_room(struct xnvme_cli *cli, bool append)
{
	const struct xnvme_cli_args *args = &cli->args;
	const struct xnvme_geo *geo = xnvme_dev_get_geo(args->dev);
	uint64_t nlbas = (uint64_t)args->nlb + 1, room;
	struct xnvme_spec_znd_descr d;
	int err;

	if (!geo || geo->type != XNVME_GEO_ZONED) {
		return 0;
	}
	err = tool_lblk_check_range(cli, geo, XNVME_CLI_OPT_SLBA, args->slba, 1);
	if (err) {
		return err;
	}
	err = xnvme_znd_descr_from_dev(args->dev, args->slba, &d);
	if (err) {
		return tool_err(cli, err, "cannot report the zone containing LBA 0x%" PRIx64,
				args->slba);
	}
	if (!append) {
		if (args->slba < d.zslba + d.zcap && nlbas <= d.zslba + d.zcap - args->slba) {
			return 0;
		}
		return tool_err(cli, -EINVAL,
				"--slba 0x%" PRIx64 " --nlb %u: LBAs up to 0x%" PRIx64
				" cross the writable end of the zone at 0x%" PRIx64
				" (capacity %" PRIu64 " LBAs): refused before any command",
				args->slba, args->nlb, args->slba + nlbas - 1, d.zslba, d.zcap);
	}
	if (args->slba != d.zslba) {
		return tool_err(cli, -EINVAL,
				"--slba 0x%" PRIx64 ": not the start of a zone (the zone starts at "
				"0x%" PRIx64 ")",
				args->slba, d.zslba);
	}
	if (d.zs == XNVME_SPEC_ZND_STATE_FULL) {
		room = 0;
	} else if (d.zs == XNVME_SPEC_ZND_STATE_EMPTY || d.wp < d.zslba) {
		room = d.zcap;
	} else {
		room = d.wp - d.zslba < d.zcap ? d.zcap - (d.wp - d.zslba) : 0;
	}
	if (nlbas > room) {
		return tool_err(cli, -EINVAL,
				"--nlb %u: the zone at 0x%" PRIx64 " has room for %" PRIu64
				" more LBAs (capacity %" PRIu64 ", write pointer 0x%" PRIx64
				"): refused before any command",
				args->nlb, d.zslba, room, d.zcap, d.wp);
	}
	return 0;
}

static int
sub_write(struct xnvme_cli *cli)
{
	int err = zoned_check_room(cli, false);

	err = err ? err : tool_lblk_rw(cli, TOOL_LBLK_WRITE);
	return err ? err : zoned_descr_pr(cli, cli->args.slba);
}

static int
sub_append(struct xnvme_cli *cli)
{
	int err = zoned_check_room(cli, true);

	err = err ? err : tool_lblk_rw(cli, TOOL_LBLK_APPEND);
	return err ? err : zoned_descr_pr(cli, cli->args.slba);
}

/* Zone Management Send of action `zsa` to the zone at --slba, or to all zones with --all */
static int
zoned_mgmt(struct xnvme_cli *cli, uint32_t zsa)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_dev *dev = args->dev;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	const struct xnvme_geo *geo;
	uint32_t nsid = tool_nsid(cli);
	void *dext = NULL;
	int err;

	err = tool_check_max(cli, XNVME_CLI_OPT_ZSA, zsa, 0xFF);
	if (err) {
		return err;
	}
	geo = tool_lblk_geo(cli);
	if (!geo) {
		return -EINVAL;
	}
	err = tool_lblk_check_range(cli, geo, XNVME_CLI_OPT_SLBA, args->slba, 1);
	if (err) {
		return err;
	}

	/* Setting a zone descriptor extension is the one action carrying data: zeros here */
	if (zsa == XNVME_SPEC_ZND_CMD_MGMT_SEND_DESCRIPTOR) {
		const struct xnvme_spec_znd_idfy_lbafe *lbafe = xnvme_znd_dev_get_lbafe(dev);

		if (!lbafe || !lbafe->zdes) {
			return tool_err(cli, -EINVAL,
					"--zsa 0x%x: the namespace has no zone descriptor "
					"extension",
					zsa);
		}
		dext = tool_dev_buf(cli, (size_t)lbafe->zdes * ZND_DEXT_UNIT);
		if (!dext) {
			return -ENOMEM;
		}
	}

	err = xnvme_znd_mgmt_send(&ctx, nsid, args->slba, args->all, zsa, 0, dext);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err,
				   "Zone Management Send %s (zsa 0x%x) of the zone at 0x%" PRIx64
				   "%s (nsid 0x%x) failed",
				   xnvme_spec_znd_cmd_mgmt_send_action_str(zsa), zsa, args->slba,
				   args->all ? " and all zones" : "", nsid);
		goto exit;
	}

	printf("xnvme_znd_mgmt_send: {nsid: 0x%x, zslba: 0x%016" PRIx64
	       ", zsa: 0x%x, action: %s, select_all: %u}\n",
	       nsid, args->slba, zsa, xnvme_spec_znd_cmd_mgmt_send_action_str(zsa), args->all);
	err = zoned_descr_pr(cli, args->slba);

exit:
	xnvme_buf_free(dev, dext);
	return err;
}

static int
sub_mgmt_open(struct xnvme_cli *cli)
{
	return zoned_mgmt(cli, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN);
}

static int
sub_mgmt_close(struct xnvme_cli *cli)
{
	return zoned_mgmt(cli, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE);
}

static int
sub_mgmt_finish(struct xnvme_cli *cli)
{
	return zoned_mgmt(cli, XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH);
}

static int
sub_mgmt_reset(struct xnvme_cli *cli)
{
	return zoned_mgmt(cli, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET);
}

static int
sub_mgmt(struct xnvme_cli *cli)
{
	return zoned_mgmt(cli, cli->args.zsa);
}

static int
sub_report(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_dev *dev = args->dev;
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	struct xnvme_znd_report *report;
	uint64_t zidx, zslba, avail, limit;
	int err;

	if (!geo || geo->type != XNVME_GEO_ZONED || !geo->nsect) {
		return tool_err(cli, -EINVAL,
				"%s: not a zoned namespace (command set identifier 0x%x)",
				args->uri, xnvme_dev_get_csi(dev));
	}
	zidx = args->slba / geo->nsect;
	if (zidx >= geo->nzone) {
		return tool_err(cli, -EINVAL,
				"--slba 0x%" PRIx64 ": beyond the last zone (%u zones of %" PRIu64
				" LBAs)",
				args->slba, geo->nzone, (uint64_t)geo->nsect);
	}
	zslba = zidx * geo->nsect;
	avail = geo->nzone - zidx;
	limit = cli->given[XNVME_CLI_OPT_LIMIT] ? args->limit : avail;
	err = tool_check_range(cli, XNVME_CLI_OPT_LIMIT, limit, 1, avail);
	if (err) {
		return err;
	}

	report = xnvme_znd_report_from_dev(dev, zslba, limit, 0);
	if (!report) {
		return tool_err(cli, -errno,
				"zone report of %" PRIu64 " zones from LBA 0x%" PRIx64 " failed",
				limit, zslba);
	}

	if (zslba != args->slba) {
		xnvme_cli_pinf("--slba 0x%" PRIx64 " lies in the zone starting at 0x%" PRIx64,
			       args->slba, zslba);
	}
	xnvme_cli_pinf("zone report of %" PRIu64 " zones from LBA 0x%" PRIx64, limit, zslba);
	xnvme_znd_report_pr(report, XNVME_PR_DEF);
	err = tool_data_output(cli, report, report->report_nbytes);

	xnvme_buf_virt_free(report);
	return err;
}

/* Zone management: uri, --slba, then the options given, --nsid and --all */
#define OPTS_MGMT(...)                                                                             \
	TOOL_OPTS_DEV(TOOL_LREQ(SLBA), __VA_ARGS__ TOOL_LOPT(NSID), TOOL_LFLG(ALL)), TOOL_ASYNC_OPTS

static struct xnvme_cli_sub g_subs[] = {
	TOOL_SUB_ENUM(TOOL_ENUM_DESCR "; zoned namespaces have csi 0x2", TOOL_ASYNC_OPTS),
	TOOL_SUB_INFO("Opens the device and prints the handle (as 'xnvme info'); a zoned "
		      "namespace has the geometry type XNVME_GEO_ZONED with nzone zones of "
		      "nsect LBAs"),
	{
		.name = "idfy-ctrlr",
		.descr_short = "Identify Controller of the zoned command set",
		.descr_long = "Prints the zoned command set specific Identify Controller data "
			      "(CNS 0x06, CSI 0x02): the zone append size limit",
		.command = sub_idfy_ctrlr,
		.opts = {TOOL_OPTS_URI, TOOL_ASYNC_OPTS},
	},
	{
		.name = "idfy-ns",
		.descr_short = "Identify Namespace of the zoned command set",
		.descr_long = "Prints the zoned command set specific Identify Namespace data (CNS "
			      "0x05, CSI 0x02) of the device namespace: zone limits and the zone "
			      "format of every LBA format",
		.command = sub_idfy_ns,
		.opts = {TOOL_OPTS_URI, TOOL_ASYNC_OPTS},
	},
	{
		.name = "changes",
		.descr_short = "Changed Zone List log page (0xBF)",
		.descr_long = "Prints the zones whose attributes the device changed (the Changed "
			      "Zone List log of the device namespace); --data-output also writes "
			      "the 4096 bytes to a file",
		.command = sub_changes,
		.opts = {TOOL_OPTS_DEV(TOOL_LOPT(DATA_OUTPUT)), TOOL_ASYNC_OPTS},
	},
	{
		.name = "errors",
		.descr_short = "Error Information log page (0x01)",
		.descr_long = "Prints as many entries of the Error Information log as the "
			      "controller keeps; --nsid defaults to 0xFFFFFFFF",
		.command = tool_log_erri,
		.opts = {TOOL_OPTS_DEV(TOOL_LOPT(NSID), TOOL_LOPT(DATA_OUTPUT)), TOOL_ASYNC_OPTS},
	},
	TOOL_LBLK_SUB_READ,
	{
		.name = "write",
		.descr_short = "Write nlb+1 blocks at slba, the write pointer of a zone",
		.descr_long = "Writes --nlb + 1 logical blocks at --slba, which must be the write "
			      "pointer of the zone, in commands of at most MDTS bytes; the blocks "
			      "must end within the capacity of that zone (refused before any "
			      "command otherwise). The data comes from --data-input or is "
			      "generated (byte k is 'A' + k % 26). Prints the zone afterwards",
		.command = sub_write,
		.opts = {TOOL_OPTS_RANGE(TOOL_OPTS_INPUTS), TOOL_ASYNC_OPTS},
	},
	{
		.name = "append",
		.descr_short = "Zone Append nlb+1 blocks to the zone at slba",
		.descr_long = "Appends --nlb + 1 logical blocks to the zone starting at --slba, in "
			      "commands of at most the zone append size limit, and prints the LBA "
			      "the device assigned to the first (lba) and the last (elba) block, "
			      "then the zone. The blocks must fit in the room above the zone's "
			      "write pointer (refused before any command otherwise). Data as for "
			      "'write'",
		.command = sub_append,
		.opts = {TOOL_OPTS_RANGE(TOOL_OPTS_INPUTS), TOOL_ASYNC_OPTS},
	},
	{
		.name = "mgmt-open",
		.descr_short = "Open the zone at slba (or all closed zones with --all)",
		.descr_long = "Explicitly opens the zone starting at --slba; with --all, every "
			      "closed zone. Prints the zone at --slba afterwards",
		.command = sub_mgmt_open,
		.opts = {OPTS_MGMT()},
	},
	{
		.name = "mgmt-close",
		.descr_short = "Close the zone at slba (or all open zones with --all)",
		.descr_long = "Closes the open zone starting at --slba; with --all, every open "
			      "zone. Prints the zone at --slba afterwards",
		.command = sub_mgmt_close,
		.opts = {OPTS_MGMT()},
	},
	{
		.name = "mgmt-finish",
		.descr_short = "Finish the zone at slba (or all open and closed zones with --all)",
		.descr_long = "Transitions the zone starting at --slba to full; with --all, every "
			      "open or closed zone. Prints the zone at --slba afterwards",
		.command = sub_mgmt_finish,
		.opts = {OPTS_MGMT()},
	},
	{
		.name = "mgmt-reset",
		.descr_short = "Reset the zone at slba (or all zones with --all)",
		.descr_long = "Resets the write pointer of the zone starting at --slba, making it "
			      "empty; with --all, every open, closed or full zone. Prints the zone "
			      "at --slba afterwards",
		.command = sub_mgmt_reset,
		.opts = {OPTS_MGMT()},
	},
	{
		.name = "mgmt",
		.descr_short = "Zone Management Send with an explicit action",
		.descr_long = "Sends Zone Management Send with action --zsa (1: close, 2: finish, "
			      "3: open, 4: reset, 5: offline, 0x10: set the zone descriptor "
			      "extension, zero-filled) to the zone starting at --slba, or to all "
			      "zones with --all. Prints the zone at --slba afterwards",
		.command = sub_mgmt,
		.opts = {OPTS_MGMT(TOOL_LREQ(ZSA), )},
	},
	{
		.name = "report",
		.descr_short = "Zone report of limit zones from slba",
		.descr_long = "Prints the descriptors of --limit zones (default: all that follow) "
			      "from the zone containing --slba (default 0); --data-output also "
			      "writes the report (a 64-byte header and the descriptors) to a file",
		.command = sub_report,
		.opts = {TOOL_OPTS_DEV(TOOL_LOPT(SLBA), TOOL_LOPT(LIMIT), TOOL_LOPT(DATA_OUTPUT)),
			 TOOL_ASYNC_OPTS},
	},
};

/* The subcommands that write the device; every other one opens it read-only */
static const char *const g_writers[] = {"write",       "append",     "mgmt-open", "mgmt-close",
					"mgmt-finish", "mgmt-reset", "mgmt",      NULL};

TOOL_MAIN(g_subs, XNVME_CLI_INIT_DEV_OPEN, g_writers, "zoned", "Zoned Namespace command set",
	  "Reports, opens, closes, finishes and resets zones, and reads, writes and "
	  "appends to them")
