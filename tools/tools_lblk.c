// SPDX-License-Identifier: BSD-3-Clause
/**
 * Logical-block I/O shared by lblk and zoned; see tools_lblk.h.
 *
 * Ranges larger than one command may carry (MDTS for data commands, the 16-bit NLB field, the
 * Write Zeroes / Write Uncorrectable size limits) are split into several commands; data files
 * are streamed chunk by chunk, so ranges of any size need only one chunk of memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"
#include "tools_lblk.h"

/* The Write Zeroes / Uncorrectable size limits are in units of the minimum memory page size */
#define MPSMIN_NBYTES 4096ULL

static const struct tool_lblk_op_attr g_ops[] = {
	[TOOL_LBLK_READ] = {"Read", XNVME_SPEC_NVM_OPC_READ, true, false, false},
	[TOOL_LBLK_WRITE] = {"Write", XNVME_SPEC_NVM_OPC_WRITE, false, true, true},
	[TOOL_LBLK_WRITE_ZEROES] = {"Write Zeroes", XNVME_SPEC_NVM_OPC_WRITE_ZEROES, false, false,
				    true},
	[TOOL_LBLK_WRITE_UNCOR] = {"Write Uncorrectable", XNVME_SPEC_NVM_OPC_WRITE_UNCORRECTABLE,
				   false, false, true},
	[TOOL_LBLK_COMPARE] = {"Compare", XNVME_SPEC_NVM_OPC_COMPARE, false, true, false},
	[TOOL_LBLK_WRITE_DIR] = {"Write", XNVME_SPEC_NVM_OPC_WRITE, false, true, true},
	[TOOL_LBLK_APPEND] = {"Zone Append", XNVME_SPEC_ZND_OPC_APPEND, false, true, true},
	[TOOL_LBLK_WRITE_PI] = {"Write and Read with PI", XNVME_SPEC_NVM_OPC_WRITE, false, true,
				true},
};

const struct xnvme_geo *
tool_lblk_geo(struct xnvme_cli *cli)
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

int
tool_lblk_check_range(struct xnvme_cli *cli, const struct xnvme_geo *geo, enum xnvme_cli_opt opt,
		      uint64_t slba, uint64_t nlbas)
{
	const struct xnvme_ident *ident = xnvme_dev_get_ident(cli->args.dev);
	bool is_file = ident && ident->dtype == TOOL_DTYPE_FILE;
	uint64_t dev_nlbas;
	char nlb[32] = "";

	/* Subcommands addressing one LBA (zone management) have no --nlb to quote */
	if (cli->given[XNVME_CLI_OPT_NLB]) {
		snprintf(nlb, sizeof(nlb), " --nlb %u", cli->args.nlb);
	}
	if (nlbas > UINT64_MAX - slba) {
		return tool_err(cli, -EINVAL, "%s 0x%" PRIx64 "%s: the range overflows",
				tool_opt_label(cli, opt), slba, nlb);
	}
	/*
	 * A file is a namespace of the size it had when opened: the library refuses NVM commands
	 * beyond it (LBA Out of Range), writes included, so they are refused here before any
	 */
	if (is_file) {
		dev_nlbas = geo->tbytes / geo->lba_nbytes;
	} else {
		dev_nlbas = geo->nsect * geo->nzone * geo->npunit * geo->npugrp;
	}
	if (slba + nlbas > dev_nlbas) {
		return tool_err(cli, -EINVAL,
				"%s 0x%" PRIx64 "%s: LBAs up to 0x%" PRIx64
				" are beyond the end of the namespace (%" PRIu64
				" LBAs): refused before any command",
				tool_opt_label(cli, opt), slba, nlb, slba + nlbas - 1, dev_nlbas);
	}
	return 0;
}

uint64_t
tool_lblk_cmd_nlbas(struct xnvme_dev *dev, const struct xnvme_geo *geo, enum tool_lblk_op op)
{
	uint64_t lim = TOOL_NLB_FIELD_MAX;
	unsigned int exp = 0;

	switch (op) {
	case TOOL_LBLK_READ:
	case TOOL_LBLK_WRITE:
	case TOOL_LBLK_COMPARE:
	case TOOL_LBLK_WRITE_DIR:
	case TOOL_LBLK_APPEND:
	case TOOL_LBLK_WRITE_PI:
		if (geo->mdts_nbytes) {
			uint64_t mdts = geo->mdts_nbytes / geo->lba_nbytes;

			lim = mdts ? XNVME_MIN_U64(lim, mdts) : 1;
		}
		/* Zone Append has its own, possibly smaller, limit (ZASL, in MPSMIN units) */
		if (op == TOOL_LBLK_APPEND && xnvme_dev_get_csi(dev) == XNVME_SPEC_CSI_ZONED) {
			const struct xnvme_spec_znd_idfy_ctrlr *zc = xnvme_znd_dev_get_ctrlr(dev);

			exp = zc ? zc->zasl : 0;
			if (exp && exp < 32) {
				uint64_t nlbas = (MPSMIN_NBYTES << exp) / geo->lba_nbytes;

				lim = nlbas ? XNVME_MIN_U64(lim, nlbas) : 1;
			}
		}
		return lim;

	case TOOL_LBLK_WRITE_ZEROES:
	case TOOL_LBLK_WRITE_UNCOR:
		if (xnvme_dev_get_csi(dev) == XNVME_SPEC_CSI_NVM) {
			const struct xnvme_spec_nvm_idfy_ctrlr *nvm =
				(const struct xnvme_spec_nvm_idfy_ctrlr *)xnvme_dev_get_ctrlr_css(
					dev);

			if (nvm) {
				exp = op == TOOL_LBLK_WRITE_ZEROES ? nvm->wzsl : nvm->wusl;
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

static int
lblk_io_open_files(struct tool_lblk_io *io)
{
	struct xnvme_cli_args *args = &io->cli->args;
	uint64_t dnbytes, mnbytes;
	int err = 0;

	if (!tool_mul_u64(io->nlbas, io->geo->lba_nbytes, &dnbytes) ||
	    !tool_mul_u64(io->nlbas, io->meta_blk, &mnbytes)) {
		return tool_err(io->cli, -EINVAL, "--nlb %u: the byte count overflows", args->nlb);
	}

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

int
tool_lblk_io_teardown(struct tool_lblk_io *io, int err)
{
	int ret;

	tool_file_close(&io->din);
	tool_file_close(&io->min);
	if (err) {
		/* outputs are removed or left as they were when the subcommand ends */
		tool_file_abort(&io->dout);
		tool_file_abort(&io->mout);
	} else {
		/* A failing close of an output may be the first sign of lost data */
		ret = tool_file_close(&io->dout);
		err = err ? err : ret;
		ret = tool_file_close(&io->mout);
		err = err ? err : ret;
	}

	xnvme_buf_free(io->dev, io->mbuf);
	xnvme_buf_free(io->dev, io->dbuf);
	io->mbuf = NULL;
	io->dbuf = NULL;
	return err;
}

int
tool_lblk_io_setup(struct tool_lblk_io *io, struct xnvme_cli *cli, enum tool_lblk_op op)
{
	struct xnvme_cli_args *args = &cli->args;
	bool has_data;
	int err;

	memset(io, 0, sizeof(*io));
	io->cli = cli;
	io->dev = args->dev;
	io->attr = &g_ops[op];
	io->op = op;
	io->slba = args->slba;
	io->nlbas = (uint64_t)args->nlb + 1;
	io->din.fd = -1;
	io->dout.fd = -1;
	io->min.fd = -1;
	io->mout.fd = -1;
	has_data = io->attr->to_host || io->attr->from_host;

	io->geo = tool_lblk_geo(cli);
	if (!io->geo) {
		return -EINVAL;
	}
	io->nsid = tool_nsid(cli);
	io->meta_blk = (io->geo->nbytes_oob && !io->geo->lba_extended) ? io->geo->nbytes_oob : 0;
	io->cmd_nlbas = tool_lblk_cmd_nlbas(io->dev, io->geo, op);

	err = tool_lblk_check_range(cli, io->geo, XNVME_CLI_OPT_SLBA, io->slba, io->nlbas);
	if (err) {
		return err;
	}
	err = lblk_io_open_files(io);
	if (err) {
		goto fail;
	}
	/* the blocks written: every error line from now on names them */
	if (io->attr->writes) {
		io->dev_out = tool_out_device(cli, XNVME_CLI_OPT_URI, args->uri, "LBAs", true);
		if (!io->dev_out) {
			err = -ENOMEM;
			goto fail;
		}
	}

	if (has_data) {
		size_t chunk = XNVME_MIN_U64(io->cmd_nlbas, io->nlbas);

		io->dbuf = xnvme_buf_alloc(io->dev, chunk * io->geo->lba_nbytes);
		if (io->meta_blk) {
			io->mbuf = xnvme_buf_alloc(io->dev, chunk * io->meta_blk);
		}
		if (!io->dbuf || (io->meta_blk && !io->mbuf)) {
			err = tool_err(cli, -ENOMEM, "cannot allocate a buffer for %zu LBAs",
				       chunk);
			goto fail;
		}
	}
	return 0;

fail:
	tool_lblk_io_teardown(io, err);
	return err;
}

int
tool_lblk_io_fill(struct tool_lblk_io *io, uint64_t done, uint64_t n)
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
lblk_io_drain(struct tool_lblk_io *io, uint64_t n)
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
lblk_io_cmd(struct tool_lblk_io *io, uint64_t slba, uint64_t n)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(io->dev);
	uint16_t nlb = (uint16_t)(n - 1);
	int err;

	switch (io->op) {
	case TOOL_LBLK_READ:
		err = xnvme_nvm_read(&ctx, io->nsid, slba, nlb, io->dbuf, io->mbuf);
		break;
	case TOOL_LBLK_WRITE:
		err = xnvme_nvm_write(&ctx, io->nsid, slba, nlb, io->dbuf, io->mbuf);
		break;
	case TOOL_LBLK_WRITE_DIR:
		/* xnvme_nvm_write() leaves the directive fields as they are set here */
		ctx.cmd.nvm.dtype = io->cli->args.dtype;
		ctx.cmd.nvm.cdw13.dspec = io->cli->args.dspec;
		err = xnvme_nvm_write(&ctx, io->nsid, slba, nlb, io->dbuf, io->mbuf);
		break;
	case TOOL_LBLK_APPEND:
		/* every command appends to the same zone: its start, not the LBA reached */
		err = xnvme_znd_append(&ctx, io->nsid, io->slba, nlb, io->dbuf, io->mbuf);
		break;
	case TOOL_LBLK_COMPARE:
		err = xnvme_nvm_compare(&ctx, io->nsid, slba, nlb, io->dbuf, io->mbuf);
		break;
	case TOOL_LBLK_WRITE_ZEROES:
		err = xnvme_nvm_write_zeroes(&ctx, io->nsid, slba, nlb);
		break;
	case TOOL_LBLK_WRITE_UNCOR:
		err = xnvme_nvm_write_uncorrectable(&ctx, io->nsid, slba, nlb);
		break;
	default:
		return -EINVAL;
	}
	if (!err && !xnvme_cmd_ctx_cpl_status(&ctx)) {
		if (io->op == TOOL_LBLK_APPEND) {
			if (slba == io->slba) {
				io->alba = ctx.cpl.result;
			}
			io->elba = ctx.cpl.result + n - 1;
		}
		return 0;
	}

	if (io->op == TOOL_LBLK_COMPARE && ctx.cpl.status.sct == XNVME_STATUS_CODE_TYPE_MEDIA &&
	    ctx.cpl.status.sc == 0x85) {
		return tool_cmd_err(io->cli, &ctx, err,
				    "Compare: the data differs from the device within LBAs "
				    "0x%" PRIx64 "-0x%" PRIx64,
				    slba, slba + n - 1);
	}
	if (io->op == TOOL_LBLK_APPEND) {
		return tool_cmd_err(io->cli, &ctx, err,
				    "Zone Append of %" PRIu64 " LBAs to the zone at 0x%" PRIx64
				    " (nsid 0x%x) failed",
				    n, io->slba, io->nsid);
	}
	return tool_cmd_err(io->cli, &ctx, err,
			    "%s of LBAs 0x%" PRIx64 "-0x%" PRIx64 " (nsid 0x%x) failed",
			    io->attr->name, slba, slba + n - 1, io->nsid);
}

/* The summary line of a completed transfer */
static void
lblk_io_pr(const struct tool_lblk_io *io, uint64_t nbytes, uint64_t ncmds)
{
	const struct xnvme_cli_args *args = &io->cli->args;

	if (io->op == TOOL_LBLK_APPEND) {
		printf("xnvme_znd_append: {nsid: 0x%x, zslba: 0x%016" PRIx64 ", lba: 0x%016" PRIx64
		       ", elba: 0x%016" PRIx64 ", nlb: %u, nbytes: %" PRIu64 ", ncmds: %" PRIu64
		       "}\n",
		       io->nsid, io->slba, io->alba, io->elba, args->nlb, nbytes, ncmds);
		return;
	}
	printf("xnvme_lblk_io: {op: '%s', opcode: 0x%x, nsid: 0x%x, slba: 0x%016" PRIx64
	       ", elba: 0x%016" PRIx64 ", nlb: %u, nbytes: %" PRIu64 ", ncmds: %" PRIu64 "}\n",
	       io->attr->name, io->attr->opcode, io->nsid, io->slba, io->slba + io->nlbas - 1,
	       args->nlb, nbytes, ncmds);
	if (io->op == TOOL_LBLK_WRITE_DIR) {
		printf("xnvme_lblk_dir: {dtype: 0x%x, dspec: 0x%x}\n", args->dtype, args->dspec);
	}
}

int
tool_lblk_rw(struct xnvme_cli *cli, enum tool_lblk_op op)
{
	struct xnvme_cli_args *args = &cli->args;
	struct tool_lblk_io io;
	struct tool_progress prog;
	bool has_data;
	uint64_t ncmds = 0, done = 0, nbytes;
	int err, ret;

	err = tool_lblk_io_setup(&io, cli, op);
	if (err) {
		return err;
	}
	has_data = io.attr->to_host || io.attr->from_host;
	nbytes = io.nlbas * io.geo->lba_nbytes;

	xnvme_cli_pinf("%s: nsid: 0x%x, slba: 0x%016" PRIx64
		       ", nlb: %u, in commands of up to %" PRIu64 " LBAs",
		       io.attr->name, io.nsid, io.slba, args->nlb, io.cmd_nlbas);

	tool_progress_start(&prog, cli, nbytes);
	xnvme_cli_timer_start(cli);
	while (done < io.nlbas) {
		uint64_t n = XNVME_MIN_U64(io.cmd_nlbas, io.nlbas - done);

		/* between two commands: a signal stops the transfer here */
		err = tool_sig_check(cli);
		if (err) {
			break;
		}
		if (io.attr->from_host) {
			err = tool_lblk_io_fill(&io, done, n);
			if (err) {
				break;
			}
		}
		err = lblk_io_cmd(&io, io.slba + done, n);
		if (err) {
			break;
		}
		tool_out_wrote(io.dev_out,
			       io.op == TOOL_LBLK_APPEND ? io.elba + 1 - n : io.slba + done, n);
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

	ret = tool_lblk_io_teardown(&io, err);
	err = err ? err : ret;
	if (err) {
		return err;
	}

	lblk_io_pr(&io, has_data ? nbytes : 0, ncmds);
	xnvme_cli_timer_bw_pr(cli, "wall-clock", has_data ? nbytes : 0);
	if (args->data_output && io.attr->to_host) {
		xnvme_cli_pinf("wrote %" PRIu64 " bytes to '%s'", nbytes, args->data_output);
	}
	return 0;
}

int
tool_lblk_read(struct xnvme_cli *cli)
{
	return tool_lblk_rw(cli, TOOL_LBLK_READ);
}
