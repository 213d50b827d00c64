// SPDX-License-Identifier: BSD-3-Clause
/**
 * lblk: logical-block commands of the NVM command set (read, write, write zeroes, write
 * uncorrectable, compare, simple copy) and directives.
 *
 * Ranges larger than one command may carry (MDTS for data commands, the 16-bit NLB field, the
 * Write Zeroes / Write Uncorrectable size limits, the Simple Copy limits) are split into several
 * commands; data files are streamed chunk by chunk, so ranges of any size need only one chunk
 * of memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"

/* Most blocks one command addresses: NLB is a 16-bit zero-based field */
#define NLB_FIELD_MAX 65536U

/* The Write Zeroes / Uncorrectable size limits are in units of the minimum memory page size */
#define MPSMIN_NBYTES 4096ULL

#define DRECV_NBYTES 4096U
/* Streams Get Status: the open count and up to 65535 stream identifiers */
#define DRECV_GETST_NBYTES (2U * 65536U)

enum lblk_op {
	LBLK_READ,
	LBLK_WRITE,
	LBLK_WRITE_ZEROES,
	LBLK_WRITE_UNCOR,
	LBLK_COMPARE,
};

struct lblk_op_attr {
	const char *name; ///< in messages
	uint8_t opcode;
	bool to_host;   ///< data flows from the device to --data-output
	bool from_host; ///< data flows from --data-input (or generated) to the device
};

static const struct lblk_op_attr g_ops[] = {
	[LBLK_READ] = {"Read", XNVME_SPEC_NVM_OPC_READ, true, false},
	[LBLK_WRITE] = {"Write", XNVME_SPEC_NVM_OPC_WRITE, false, true},
	[LBLK_WRITE_ZEROES] = {"Write Zeroes", XNVME_SPEC_NVM_OPC_WRITE_ZEROES, false, false},
	[LBLK_WRITE_UNCOR] = {"Write Uncorrectable", XNVME_SPEC_NVM_OPC_WRITE_UNCORRECTABLE, false,
			      false},
	[LBLK_COMPARE] = {"Compare", XNVME_SPEC_NVM_OPC_COMPARE, false, true},
};

static int
sub_enum(struct xnvme_cli *cli)
{
	return tool_enumerate(cli, false);
}

static int
sub_info(struct xnvme_cli *cli)
{
	return tool_dev_info(cli);
}

static int
sub_idfy(struct xnvme_cli *cli)
{
	return tool_idfy_ns(cli);
}

/** The device geometry, or NULL (reported) when it does not describe logical blocks */
static const struct xnvme_geo *
lblk_geo(struct xnvme_cli *cli)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(cli->args.dev);

	if (!geo || !geo->lba_nbytes ||
	    (geo->type != XNVME_GEO_CONVENTIONAL && geo->type != XNVME_GEO_ZONED)) {
		tool_err(cli, -EINVAL, "%s: the device has no logical-block geometry",
			 cli->args.uri);
		return NULL;
	}
	return geo;
}

/**
 * Checks that [slba, slba + nlbas) lies within the namespace. Writes to a regular file may
 * extend it, so only reads and compares are bounded by its size there.
 */
static int
lblk_check_range(struct xnvme_cli *cli, const struct xnvme_geo *geo, enum xnvme_cli_opt opt,
		 uint64_t slba, uint64_t nlbas, bool may_extend)
{
	const struct xnvme_ident *ident = xnvme_dev_get_ident(cli->args.dev);
	bool is_file = ident && ident->dtype == TOOL_DTYPE_FILE;
	uint64_t dev_nlbas;

	if (nlbas > UINT64_MAX - slba) {
		return tool_err(cli, -EINVAL, "%s 0x%" PRIx64 " --nlb %u: the range overflows",
				tool_opt_label(cli, opt), slba, cli->args.nlb);
	}
	if (is_file && may_extend) {
		return 0;
	}
	if (is_file) {
		dev_nlbas = geo->tbytes / geo->lba_nbytes;
	} else {
		dev_nlbas = geo->nsect * geo->nzone * geo->npunit * geo->npugrp;
	}
	if (slba + nlbas > dev_nlbas) {
		return tool_err(cli, -EINVAL,
				"%s 0x%" PRIx64 " --nlb %u: LBAs up to 0x%" PRIx64
				" are beyond the end of the namespace (%" PRIu64 " LBAs)",
				tool_opt_label(cli, opt), slba, cli->args.nlb, slba + nlbas - 1,
				dev_nlbas);
	}
	return 0;
}

/** Most blocks one command of `op` may address on this device */
static uint64_t
lblk_cmd_nlbas(struct xnvme_dev *dev, const struct xnvme_geo *geo, enum lblk_op op)
{
	uint64_t lim = NLB_FIELD_MAX;
	unsigned int exp = 0;

	switch (op) {
	case LBLK_READ:
	case LBLK_WRITE:
	case LBLK_COMPARE:
		if (geo->mdts_nbytes) {
			uint64_t mdts = geo->mdts_nbytes / geo->lba_nbytes;

			lim = mdts ? XNVME_MIN_U64(lim, mdts) : 1;
		}
		return lim;

	case LBLK_WRITE_ZEROES:
	case LBLK_WRITE_UNCOR:
		if (xnvme_dev_get_csi(dev) == XNVME_SPEC_CSI_NVM) {
			const struct xnvme_spec_nvm_idfy_ctrlr *nvm =
				(const struct xnvme_spec_nvm_idfy_ctrlr *)xnvme_dev_get_ctrlr_css(
					dev);

			if (nvm) {
				exp = op == LBLK_WRITE_ZEROES ? nvm->wzsl : nvm->wusl;
			}
		}
		/* 0 means no limit beyond the NLB field; larger exponents exceed it anyway */
		if (exp && exp < 32) {
			uint64_t nlbas = (MPSMIN_NBYTES << exp) / geo->lba_nbytes;

			lim = nlbas ? XNVME_MIN_U64(lim, nlbas) : 1;
		}
		return lim;
	}
	return 1;
}

struct lblk_io {
	struct xnvme_cli *cli;
	struct xnvme_dev *dev;
	const struct xnvme_geo *geo;
	const struct lblk_op_attr *attr;
	enum lblk_op op;
	uint32_t nsid;
	uint64_t slba;
	uint64_t nlbas;     ///< one-based
	uint64_t cmd_nlbas; ///< per command
	size_t meta_blk;    ///< separate metadata bytes per block, 0 when none

	void *dbuf;
	void *mbuf;
	struct tool_file din, dout, min, mout;
};

static int
lblk_io_open_files(struct lblk_io *io)
{
	struct xnvme_cli_args *args = &io->cli->args;
	uint64_t dnbytes = io->nlbas * io->geo->lba_nbytes;
	uint64_t mnbytes = io->nlbas * io->meta_blk;
	int err = 0;

	if (!io->meta_blk && (args->meta_input || args->meta_output)) {
		return tool_err(io->cli, -EINVAL, "--%s %s: the namespace has no separate metadata",
				args->meta_input ? "meta-input" : "meta-output",
				args->meta_input ? args->meta_input : args->meta_output);
	}

	if (io->attr->from_host) {
		if (args->data_input) {
			err = tool_file_open_in(&io->din, io->cli, XNVME_CLI_OPT_DATA_INPUT,
						args->data_input, dnbytes);
		}
		if (!err && args->meta_input) {
			err = tool_file_open_in(&io->min, io->cli, XNVME_CLI_OPT_META_INPUT,
						args->meta_input, mnbytes);
		}
	} else if (io->attr->to_host) {
		if (args->data_output) {
			err = tool_file_open_out(&io->dout, io->cli, XNVME_CLI_OPT_DATA_OUTPUT,
						 args->data_output);
		}
		if (!err && args->meta_output) {
			err = tool_file_open_out(&io->mout, io->cli, XNVME_CLI_OPT_META_OUTPUT,
						 args->meta_output);
		}
	} else if (args->data_input || args->meta_input) {
		xnvme_cli_pinf("%s transfers no data; --data-input/--meta-input are not used",
			       io->attr->name);
	}
	return err;
}

static int
lblk_io_close_files(struct lblk_io *io)
{
	int err = 0, ret;

	tool_file_close(&io->din);
	tool_file_close(&io->min);
	/* A failing close of an output may be the first sign of lost data */
	ret = tool_file_close(&io->dout);
	err = err ? err : ret;
	ret = tool_file_close(&io->mout);
	err = err ? err : ret;
	return err;
}

/* Fills the buffers of one command from the inputs or the generated pattern */
static int
lblk_io_fill(struct lblk_io *io, uint64_t done, uint64_t n)
{
	size_t dnbytes = n * io->geo->lba_nbytes;
	size_t mnbytes = n * io->meta_blk;
	int err;

	if (tool_file_is_open(&io->din)) {
		err = tool_file_read(&io->din, io->dbuf, dnbytes);
		if (err) {
			return err;
		}
	} else {
		tool_pattern_fill(io->dbuf, dnbytes, done * io->geo->lba_nbytes);
	}
	if (io->mbuf) {
		if (tool_file_is_open(&io->min)) {
			return tool_file_read(&io->min, io->mbuf, mnbytes);
		}
		memset(io->mbuf, 0, mnbytes);
	}
	return 0;
}

static int
lblk_io_drain(struct lblk_io *io, uint64_t n)
{
	int err = 0;

	if (tool_file_is_open(&io->dout)) {
		err = tool_file_write(&io->dout, io->dbuf, n * io->geo->lba_nbytes);
	}
	if (!err && tool_file_is_open(&io->mout)) {
		err = tool_file_write(&io->mout, io->mbuf, n * io->meta_blk);
	}
	return err;
}

static int
lblk_io_cmd(struct lblk_io *io, uint64_t slba, uint64_t n)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(io->dev);
	uint16_t nlb = (uint16_t)(n - 1);
	int err;

	switch (io->op) {
	case LBLK_READ:
		err = xnvme_nvm_read(&ctx, io->nsid, slba, nlb, io->dbuf, io->mbuf);
		break;
	case LBLK_WRITE:
		err = xnvme_nvm_write(&ctx, io->nsid, slba, nlb, io->dbuf, io->mbuf);
		break;
	case LBLK_COMPARE:
		err = xnvme_nvm_compare(&ctx, io->nsid, slba, nlb, io->dbuf, io->mbuf);
		break;
	case LBLK_WRITE_ZEROES:
		err = xnvme_nvm_write_zeroes(&ctx, io->nsid, slba, nlb);
		break;
	case LBLK_WRITE_UNCOR:
		err = xnvme_nvm_write_uncorrectable(&ctx, io->nsid, slba, nlb);
		break;
	default:
		return -EINVAL;
	}
	if (!err && !xnvme_cmd_ctx_cpl_status(&ctx)) {
		return 0;
	}

	if (io->op == LBLK_COMPARE && ctx.cpl.status.sct == XNVME_STATUS_CODE_TYPE_MEDIA &&
	    ctx.cpl.status.sc == 0x85) {
		return tool_cmd_err(io->cli, &ctx, err,
				    "Compare: the data differs from the device within LBAs "
				    "0x%" PRIx64 "-0x%" PRIx64,
				    slba, slba + n - 1);
	}
	return tool_cmd_err(io->cli, &ctx, err,
			    "%s of LBAs 0x%" PRIx64 "-0x%" PRIx64 " (nsid 0x%x) failed",
			    io->attr->name, slba, slba + n - 1, io->nsid);
}

static int
lblk_rw(struct xnvme_cli *cli, enum lblk_op op)
{
	struct xnvme_cli_args *args = &cli->args;
	struct lblk_io io = {
		.cli = cli,
		.dev = args->dev,
		.attr = &g_ops[op],
		.op = op,
		.slba = args->slba,
		.nlbas = (uint64_t)args->nlb + 1,
		.din = TOOL_FILE_INIT,
		.dout = TOOL_FILE_INIT,
		.min = TOOL_FILE_INIT,
		.mout = TOOL_FILE_INIT,
	};
	struct tool_progress prog;
	bool has_data = io.attr->to_host || io.attr->from_host;
	uint64_t ncmds = 0, done = 0, nbytes;
	int err, ret;

	io.geo = lblk_geo(cli);
	if (!io.geo) {
		return -EINVAL;
	}
	io.nsid = tool_nsid(cli);
	io.meta_blk = (io.geo->nbytes_oob && !io.geo->lba_extended) ? io.geo->nbytes_oob : 0;
	io.cmd_nlbas = lblk_cmd_nlbas(io.dev, io.geo, op);
	nbytes = io.nlbas * io.geo->lba_nbytes;

	err = lblk_check_range(cli, io.geo, XNVME_CLI_OPT_SLBA, io.slba, io.nlbas,
			       op == LBLK_WRITE || op == LBLK_WRITE_ZEROES);
	if (err) {
		return err;
	}
	err = lblk_io_open_files(&io);
	if (err) {
		goto exit;
	}

	if (has_data) {
		size_t chunk = XNVME_MIN_U64(io.cmd_nlbas, io.nlbas);

		io.dbuf = xnvme_buf_alloc(io.dev, chunk * io.geo->lba_nbytes);
		if (io.meta_blk) {
			io.mbuf = xnvme_buf_alloc(io.dev, chunk * io.meta_blk);
		}
		if (!io.dbuf || (io.meta_blk && !io.mbuf)) {
			err = tool_err(cli, -ENOMEM, "cannot allocate a buffer for %zu LBAs",
				       chunk);
			goto exit;
		}
	}

	xnvme_cli_pinf("%s: nsid: 0x%x, slba: 0x%016" PRIx64
		       ", nlb: %u, in commands of up to %" PRIu64 " LBAs",
		       io.attr->name, io.nsid, io.slba, args->nlb, io.cmd_nlbas);

	tool_progress_start(&prog, cli, nbytes);
	xnvme_cli_timer_start(cli);
	while (done < io.nlbas) {
		uint64_t n = XNVME_MIN_U64(io.cmd_nlbas, io.nlbas - done);

		if (io.attr->from_host) {
			err = lblk_io_fill(&io, done, n);
			if (err) {
				break;
			}
		}
		err = lblk_io_cmd(&io, io.slba + done, n);
		if (err) {
			break;
		}
		if (io.attr->to_host) {
			err = lblk_io_drain(&io, n);
			if (err) {
				break;
			}
		}
		done += n;
		ncmds += 1;
		tool_progress_update(&prog, done * io.geo->lba_nbytes);
	}
	xnvme_cli_timer_stop(cli);
	tool_progress_end(&prog);

	ret = lblk_io_close_files(&io);
	err = err ? err : ret;
	if (err) {
		goto exit;
	}

	printf("xnvme_lblk_io: {op: '%s', opcode: 0x%x, nsid: 0x%x, slba: 0x%016" PRIx64
	       ", elba: 0x%016" PRIx64 ", nlb: %u, nbytes: %" PRIu64 ", ncmds: %" PRIu64 "}\n",
	       io.attr->name, io.attr->opcode, io.nsid, io.slba, io.slba + io.nlbas - 1, args->nlb,
	       has_data ? nbytes : 0, ncmds);
	xnvme_cli_timer_bw_pr(cli, "wall-clock", has_data ? nbytes : 0);
	if (args->data_output && io.attr->to_host) {
		xnvme_cli_pinf("wrote %" PRIu64 " bytes to '%s'", nbytes, args->data_output);
	}

exit:
	lblk_io_close_files(&io);
	xnvme_buf_free(io.dev, io.mbuf);
	xnvme_buf_free(io.dev, io.dbuf);
	return err;
}

static int
sub_read(struct xnvme_cli *cli)
{
	return lblk_rw(cli, LBLK_READ);
}

static int
sub_write(struct xnvme_cli *cli)
{
	return lblk_rw(cli, LBLK_WRITE);
}

static int
sub_write_zeros(struct xnvme_cli *cli)
{
	return lblk_rw(cli, LBLK_WRITE_ZEROES);
}

static int
sub_write_uncor(struct xnvme_cli *cli)
{
	return lblk_rw(cli, LBLK_WRITE_UNCOR);
}

static int
sub_compare(struct xnvme_cli *cli)
{
	return lblk_rw(cli, LBLK_COMPARE);
}

/* The Simple Copy limits of the namespace; a zero limit is left to the device to enforce */
static void
scopy_limits(struct xnvme_dev *dev, uint64_t *range_nlbas, uint64_t *cmd_nlbas,
	     uint32_t *nranges)
{
	const struct xnvme_spec_idfy_ns *ns = xnvme_dev_get_ns(dev);

	*range_nlbas = NLB_FIELD_MAX;
	*cmd_nlbas = UINT32_MAX;
	*nranges = XNVME_SPEC_NVM_SCOPY_NENTRY_MAX;
	if (!ns) {
		return;
	}
	if (ns->mssrl) {
		*range_nlbas = XNVME_MIN_U64(*range_nlbas, ns->mssrl);
	}
	if (ns->mcl) {
		*cmd_nlbas = ns->mcl;
	}
	*nranges = XNVME_MIN(*nranges, ns->msrc + 1);
}

static int
sub_scopy(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_dev *dev = args->dev;
	struct xnvme_spec_nvm_scopy_source_range *src;
	const struct xnvme_geo *geo;
	uint64_t nlbas = (uint64_t)args->nlb + 1;
	uint64_t range_nlbas, cmd_nlbas, chunk, nchunks;
	uint32_t nranges, nsid = tool_nsid(cli);
	bool backwards;
	int err = 0;

	geo = lblk_geo(cli);
	if (!geo) {
		return -EINVAL;
	}
	err = lblk_check_range(cli, geo, XNVME_CLI_OPT_SLBA, args->slba, nlbas, false);
	if (!err) {
		err = lblk_check_range(cli, geo, XNVME_CLI_OPT_SDLBA, args->sdlba, nlbas, false);
	}
	if (err) {
		return err;
	}

	scopy_limits(dev, &range_nlbas, &cmd_nlbas, &nranges);
	chunk = XNVME_MIN_U64(cmd_nlbas, range_nlbas * nranges);
	nchunks = (nlbas + chunk - 1) / chunk;
	/* Like memmove(): a destination overlapping the source from above is copied tail first */
	backwards = args->sdlba > args->slba && args->sdlba < args->slba + nlbas;

	src = xnvme_buf_alloc(dev, sizeof(*src));
	if (!src) {
		return tool_err(cli, -errno, "cannot allocate the source range list");
	}

	xnvme_cli_pinf("Simple Copy: nsid: 0x%x, slba: 0x%016" PRIx64 ", sdlba: 0x%016" PRIx64
		       ", nlb: %u in %" PRIu64 " command(s)",
		       nsid, args->slba, args->sdlba, args->nlb, nchunks);

	xnvme_cli_timer_start(cli);
	for (uint64_t i = 0; i < nchunks; ++i) {
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
		uint64_t k = backwards ? nchunks - 1 - i : i;
		uint64_t first = k * chunk;
		uint64_t n = XNVME_MIN_U64(chunk, nlbas - first);
		uint32_t nr = 0;

		memset(src, 0, sizeof(*src));
		for (uint64_t pos = 0; pos < n; ++nr) {
			uint64_t len = XNVME_MIN_U64(range_nlbas, n - pos);

			src->entry[nr].slba = args->slba + first + pos;
			src->entry[nr].nlb = (uint16_t)(len - 1);
			pos += len;
		}

		err = xnvme_nvm_scopy(&ctx, nsid, args->sdlba + first, src->entry,
				      (uint8_t)(nr - 1), XNVME_NVM_SCOPY_FMT_ZERO);
		if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
			err = tool_cmd_err(cli, &ctx, err,
					   "Simple Copy of LBAs 0x%" PRIx64 "-0x%" PRIx64
					   " to 0x%" PRIx64 " failed",
					   args->slba + first, args->slba + first + n - 1,
					   args->sdlba + first);
			break;
		}
	}
	xnvme_cli_timer_stop(cli);

	if (!err) {
		printf("xnvme_lblk_scopy: {nsid: 0x%x, slba: 0x%016" PRIx64 ", sdlba: 0x%016" PRIx64
		       ", nlb: %u, ncmds: %" PRIu64 "}\n",
		       nsid, args->slba, args->sdlba, args->nlb, nchunks);
		xnvme_cli_timer_bw_pr(cli, "wall-clock", nlbas * geo->nbytes);
	}
	xnvme_buf_free(dev, src);
	return err;
}

static int
sub_dir_send(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(args->dev);
	uint32_t nsid = tool_nsid(cli);
	uint32_t dtype = cli->given[XNVME_CLI_OPT_DTYPE] ? args->dtype : XNVME_SPEC_DIR_IDENTIFY;
	uint32_t doper = cli->given[XNVME_CLI_OPT_DOPER] ? args->doper
							  : XNVME_SPEC_DSEND_IDFY_ENDIR;
	uint32_t tgtdir = cli->given[XNVME_CLI_OPT_TGTDIR] ? args->tgtdir : XNVME_SPEC_DIR_STREAMS;
	uint32_t val;
	int err;

	err = tool_check_max(cli, XNVME_CLI_OPT_DTYPE, dtype, 0xFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_DOPER, doper, 0xFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_DSPEC, args->dspec, 0xFFFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_ENDIR, args->endir, 0x1);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_TGTDIR, tgtdir, 0xFF);
	if (err) {
		return err;
	}

	/* CDW12 of Enable Directive: ENDIR in bit 0, the target directive type in bits 15:8 */
	val = args->endir | (tgtdir << 8);
	err = xnvme_adm_dir_send(&ctx, nsid, doper, dtype, args->dspec, val);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		return tool_cmd_err(cli, &ctx, err,
				    "Directive Send --dtype 0x%x --doper 0x%x failed", dtype,
				    doper);
	}
	printf("xnvme_adm_dir_send: {nsid: 0x%x, dtype: 0x%x, doper: 0x%x, dspec: 0x%x, "
	       "endir: %u, tgtdir: 0x%x}\n",
	       nsid, dtype, doper, args->dspec, args->endir, tgtdir);
	return 0;
}

static int
sub_dir_receive(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct xnvme_dev *dev = args->dev;
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	uint32_t nsid = tool_nsid(cli);
	uint32_t dtype = cli->given[XNVME_CLI_OPT_DTYPE] ? args->dtype : XNVME_SPEC_DIR_IDENTIFY;
	uint32_t doper = cli->given[XNVME_CLI_OPT_DOPER] ? args->doper
							  : XNVME_SPEC_DRECV_IDFY_RETPR;
	bool streams = dtype == XNVME_SPEC_DIR_STREAMS;
	bool alloc = streams && doper == XNVME_SPEC_DRECV_STREAMS_ALLRS;
	size_t nbytes = DRECV_NBYTES;
	void *buf = NULL;
	int err;

	err = tool_check_max(cli, XNVME_CLI_OPT_DTYPE, dtype, 0xFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_DOPER, doper, 0xFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_NSR, args->nsr, 0xFFFF);
	if (err) {
		return err;
	}

	if (streams && doper == XNVME_SPEC_DRECV_STREAMS_GETST) {
		const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);

		nbytes = DRECV_GETST_NBYTES;
		if (geo && geo->mdts_nbytes && geo->mdts_nbytes < nbytes) {
			nbytes = geo->mdts_nbytes;
		}
	}
	if (!alloc) {
		buf = xnvme_buf_alloc(dev, nbytes);
		if (!buf) {
			return tool_err(cli, -errno, "cannot allocate a %zu byte buffer", nbytes);
		}
		memset(buf, 0, nbytes);
	}

	err = xnvme_adm_dir_recv(&ctx, nsid, doper, dtype, alloc ? args->nsr : 0, buf,
				 alloc ? 0 : nbytes);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = tool_cmd_err(cli, &ctx, err,
				   "Directive Receive --dtype 0x%x --doper 0x%x failed", dtype,
				   doper);
		goto exit;
	}

	if (dtype == XNVME_SPEC_DIR_IDENTIFY && doper == XNVME_SPEC_DRECV_IDFY_RETPR) {
		xnvme_spec_drecv_idfy_pr(buf, XNVME_PR_DEF);
	} else if (streams && doper == XNVME_SPEC_DRECV_STREAMS_RETPR) {
		xnvme_spec_drecv_srp_pr(buf, XNVME_PR_DEF);
	} else if (streams && doper == XNVME_SPEC_DRECV_STREAMS_GETST) {
		xnvme_spec_drecv_sgs_pr(buf, XNVME_PR_DEF);
	} else if (alloc) {
		struct xnvme_spec_alloc_resource sar = {.val = ctx.cpl.cdw0};

		xnvme_spec_drecv_sar_pr(sar, XNVME_PR_DEF);
	} else {
		printf("xnvme_adm_dir_recv: {nsid: 0x%x, dtype: 0x%x, doper: 0x%x, nbytes: %zu}\n",
		       nsid, dtype, doper, nbytes);
		tool_hexdump_pr("data", buf, nbytes);
	}

exit:
	xnvme_buf_free(dev, buf);
	return err;
}

#define OPTS_URI                                        \
	{XNVME_CLI_OPT_POSA_TITLE, XNVME_CLI_SKIP},     \
	{XNVME_CLI_OPT_URI, XNVME_CLI_POSA}

/* Block range commands: uri, --slba, --nlb and --nsid, then the given extra options */
#define OPTS_RANGE                                      \
	OPTS_URI,                                       \
	{XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP}, \
	{XNVME_CLI_OPT_SLBA, XNVME_CLI_LREQ},           \
	{XNVME_CLI_OPT_NLB, XNVME_CLI_LREQ},            \
	{XNVME_CLI_OPT_NSID, XNVME_CLI_LOPT}

#define OPTS_INPUTS                                     \
	{XNVME_CLI_OPT_DATA_INPUT, XNVME_CLI_LOPT},     \
	{XNVME_CLI_OPT_META_INPUT, XNVME_CLI_LOPT}

static struct xnvme_cli_sub g_subs[] = {
	{
		.name = "enum",
		.descr_short = "Enumerate the devices found on the system",
		.descr_long = "Enumerates the devices of every enabled backend and prints the "
			      "identifier of each (as 'xnvme enum')",
		.command = sub_enum,
		.opts = {
			{XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP},
			{XNVME_CLI_OPT_SYS_URI, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_FLAGS, XNVME_CLI_LOPT},
			XNVME_CLI_CORE_OPTS,
		},
	},
	{
		.name = "info",
		.descr_short = "Print the device handle: identity, backend, options, geometry",
		.descr_long = "Opens the device and prints the handle (as 'xnvme info')",
		.command = sub_info,
		.opts = {OPTS_URI, XNVME_CLI_ADMIN_OPTS},
	},
	{
		.name = "idfy",
		.descr_short = "Identify Namespace",
		.descr_long = "Prints the Identify Namespace data of --nsid (default: the device "
			      "namespace); --data-output also writes the 4096 bytes to a file",
		.command = sub_idfy,
		.opts = {
			OPTS_URI,
			{XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP},
			{XNVME_CLI_OPT_NSID, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_DATA_OUTPUT, XNVME_CLI_LOPT},
			XNVME_CLI_ADMIN_OPTS,
		},
	},
	{
		.name = "dir-send",
		.descr_short = "Directive Send: enable or disable a directive type",
		.descr_long = "Sends Directive Send with --dtype (default 0, identify), --doper "
			      "(default 1, enable directive), --dspec, and for enable directive "
			      "--endir (1 enables, 0 disables) of target directive type --tgtdir "
			      "(default 1, streams)",
		.command = sub_dir_send,
		.opts = {
			OPTS_URI,
			{XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP},
			{XNVME_CLI_OPT_NSID, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_DSPEC, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_DTYPE, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_DOPER, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_ENDIR, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_TGTDIR, XNVME_CLI_LOPT},
			XNVME_CLI_ADMIN_OPTS,
		},
	},
	{
		.name = "dir-receive",
		.descr_short = "Directive Receive: parameters, stream status and resources",
		.descr_long = "Sends Directive Receive with --dtype (default 0, identify) and "
			      "--doper (default 1, return parameters); for streams (--dtype 1), "
			      "--doper 2 gets the stream status and --doper 3 allocates --nsr "
			      "streams",
		.command = sub_dir_receive,
		.opts = {
			OPTS_URI,
			{XNVME_CLI_OPT_NON_POSA_TITLE, XNVME_CLI_SKIP},
			{XNVME_CLI_OPT_NSID, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_DTYPE, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_DOPER, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_NSR, XNVME_CLI_LOPT},
			XNVME_CLI_ADMIN_OPTS,
		},
	},
	{
		.name = "read",
		.descr_short = "Read nlb+1 blocks from slba",
		.descr_long = "Reads --nlb + 1 logical blocks from --slba, in commands of at most "
			      "MDTS bytes, writing the data to --data-output and separate metadata "
			      "to --meta-output when given",
		.command = sub_read,
		.opts = {
			OPTS_RANGE,
			{XNVME_CLI_OPT_DATA_OUTPUT, XNVME_CLI_LOPT},
			{XNVME_CLI_OPT_META_OUTPUT, XNVME_CLI_LOPT},
			XNVME_CLI_SYNC_OPTS,
		},
	},
	{
		.name = "write",
		.descr_short = "Write nlb+1 blocks at slba",
		.descr_long = "Writes --nlb + 1 logical blocks at --slba, in commands of at most "
			      "MDTS bytes; the data comes from --data-input, which must hold "
			      "(nlb + 1) * LBA size bytes, or is generated (byte k is "
			      "'A' + k % 26)",
		.command = sub_write,
		.opts = {OPTS_RANGE, OPTS_INPUTS, XNVME_CLI_SYNC_OPTS},
	},
	{
		.name = "write-zeros",
		.descr_short = "Write Zeroes to nlb+1 blocks at slba",
		.descr_long = "Sends Write Zeroes for --nlb + 1 logical blocks at --slba, split by "
			      "the device's size limit; no data is transferred",
		.command = sub_write_zeros,
		.opts = {OPTS_RANGE, OPTS_INPUTS, XNVME_CLI_SYNC_OPTS},
	},
	{
		.name = "write-uncor",
		.descr_short = "Write Uncorrectable to nlb+1 blocks at slba",
		.descr_long = "Marks --nlb + 1 logical blocks at --slba as uncorrectable, split by "
			      "the device's size limit; no data is transferred",
		.command = sub_write_uncor,
		.opts = {OPTS_RANGE, OPTS_INPUTS, XNVME_CLI_SYNC_OPTS},
	},
	{
		.name = "compare",
		.descr_short = "Compare nlb+1 blocks at slba with data",
		.descr_long = "Has the device compare --nlb + 1 logical blocks at --slba with the "
			      "data of --data-input, or with generated data (as 'write'); a "
			      "mismatch fails with Compare Failure",
		.command = sub_compare,
		.opts = {OPTS_RANGE, OPTS_INPUTS, XNVME_CLI_SYNC_OPTS},
	},
	{
		.name = "scopy",
		.descr_short = "Simple Copy of nlb+1 blocks from slba to sdlba",
		.descr_long = "Copies --nlb + 1 logical blocks from --slba to --sdlba with Simple "
			      "Copy commands within the namespace's copy limits",
		.command = sub_scopy,
		.opts = {
			OPTS_RANGE,
			{XNVME_CLI_OPT_SDLBA, XNVME_CLI_LREQ},
			XNVME_CLI_SYNC_OPTS,
		},
	},
};

static struct xnvme_cli g_cli = {
	.title = "lblk",
	.descr_short = "Logical block commands of the NVM command set",
	.descr_long = "Reads, writes, zeroes, compares and copies logical blocks, and manages "
		      "directives",
	.nsubs = sizeof(g_subs) / sizeof(g_subs[0]),
	.subs = g_subs,
};

int
main(int argc, char **argv)
{
	return xnvme_cli_run(&g_cli, argc, argv, XNVME_CLI_INIT_DEV_OPEN);
}
