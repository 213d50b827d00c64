// SPDX-License-Identifier: BSD-3-Clause
/**
 * lblk: logical-block commands of the NVM command set (read, write, write zeroes, write
 * uncorrectable, compare, simple copy), writes with directives, end-to-end protection
 * information, and directive management.
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
#include "tools_lblk.h"

#define DRECV_NBYTES 4096U
/* Streams Get Status: the open count and up to 65535 stream identifiers */
#define DRECV_GETST_NBYTES (2U * 65536U)

static int
sub_write(struct xnvme_cli *cli)
{
	return tool_lblk_rw(cli, TOOL_LBLK_WRITE);
}

static int
sub_write_zeros(struct xnvme_cli *cli)
{
	return tool_lblk_rw(cli, TOOL_LBLK_WRITE_ZEROES);
}

static int
sub_write_uncor(struct xnvme_cli *cli)
{
	return tool_lblk_rw(cli, TOOL_LBLK_WRITE_UNCOR);
}

static int
sub_compare(struct xnvme_cli *cli)
{
	return tool_lblk_rw(cli, TOOL_LBLK_COMPARE);
}

static int
sub_write_dir(struct xnvme_cli *cli)
{
	int err;

	/* DTYPE is a 4-bit field of the I/O commands (CDW12), DSPEC 16 bits of CDW13 */
	err = tool_check_max(cli, XNVME_CLI_OPT_DTYPE, cli->args.dtype, 0xF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_DSPEC, cli->args.dspec, 0xFFFF);
	if (err) {
		return err;
	}
	return tool_lblk_rw(cli, TOOL_LBLK_WRITE_DIR);
}

/* PRINFO of the I/O commands: PRCHK in bits 2:0, PRACT in bit 3 */
#define PRINFO_PRACT 0x8
#define PRCHK_ALL                                                                                  \
	(XNVME_PI_FLAGS_GUARD_CHECK | XNVME_PI_FLAGS_APPTAG_CHECK | XNVME_PI_FLAGS_REFTAG_CHECK)

/** State of write-read-pi beyond the shared transfer */
struct lblk_pi {
	struct xnvme_pi_ctx pi; ///< generates and verifies the tuples of one command
	uint32_t prchk;
	uint32_t apptag;
	uint32_t apptag_mask;
	size_t pi_nbytes;
	size_t blk_nbytes; ///< bytes per block in the data buffer: with interleaved metadata or not
	bool pract;
	bool strip;  ///< PRACT with PI as the whole metadata: the host transfers no metadata
	void *rdbuf; ///< read-back data of one command
	void *rmbuf; ///< read-back separate metadata of one command
	uint64_t nverified;
	uint64_t ndiff;
	uint64_t first_diff;
};

/* Checks the options against the protection settings of the namespace and fills `lp` */
static int
lblk_pi_args(struct xnvme_cli *cli, const struct xnvme_geo *geo, struct lblk_pi *lp)
{
	struct xnvme_cli_args *args = &cli->args;
	uint64_t nlbas = (uint64_t)args->nlb + 1;
	uint32_t gen;
	int err;

	if (!geo->pi_type) {
		return tool_err(cli, -EINVAL,
				"%s: the namespace is not formatted with protection information "
				"(pi_type 0)",
				args->uri);
	}
	if (geo->pi_format != XNVME_SPEC_NVM_NS_16B_GUARD &&
	    geo->pi_format != XNVME_SPEC_NVM_NS_64B_GUARD) {
		return tool_err(cli, -ENOTSUP,
				"%s: protection information format %u is not supported; only the "
				"16-bit (0) and 64-bit (2) guard formats are",
				args->uri, geo->pi_format);
	}
	lp->pi_nbytes = xnvme_pi_size(geo->pi_format);
	if (geo->nbytes_oob < lp->pi_nbytes) {
		return tool_err(cli, -EINVAL,
				"%s: %u bytes of metadata per LBA cannot hold a %zu byte PI tuple",
				args->uri, geo->nbytes_oob, lp->pi_nbytes);
	}
	/* xnvme_pi_ctx_init() takes a 32-bit initial reference tag */
	if (geo->pi_format == XNVME_SPEC_NVM_NS_64B_GUARD && args->slba + nlbas > (1ULL << 32)) {
		return tool_err(cli, -EINVAL,
				"--slba 0x%" PRIx64 " --nlb %u: reference tags beyond 32 bits are "
				"not supported",
				args->slba, args->nlb);
	}

	lp->pract = args->pract;
	lp->prchk = PRCHK_ALL;
	if (geo->pi_type == XNVME_PI_TYPE3) {
		lp->prchk &= ~XNVME_PI_FLAGS_REFTAG_CHECK;
	}
	if (cli->given[XNVME_CLI_OPT_PRCHK]) {
		lp->prchk = args->prchk;
	}
	lp->apptag = cli->given[XNVME_CLI_OPT_APPTAG] ? args->apptag : 0;
	lp->apptag_mask = cli->given[XNVME_CLI_OPT_APPTAG_MASK] ? args->apptag_mask : 0xFFFF;

	err = tool_check_max(cli, XNVME_CLI_OPT_PRCHK, lp->prchk, PRCHK_ALL);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_APPTAG, lp->apptag, 0xFFFF);
	err = err ? err : tool_check_max(cli, XNVME_CLI_OPT_APPTAG_MASK, lp->apptag_mask, 0xFFFF);
	if (err) {
		return err;
	}
	if (geo->pi_type == XNVME_PI_TYPE3 && (lp->prchk & XNVME_PI_FLAGS_REFTAG_CHECK)) {
		return tool_err(cli, -EINVAL,
				"--prchk 0x%x: type 3 protection has no reference tag to check",
				lp->prchk);
	}
	if (lp->apptag == XNVME_APPTAG_IGNORE) {
		return tool_err(cli, -EINVAL,
				"--apptag 0x%x: an application tag of all ones turns off the "
				"checks of every block",
				lp->apptag);
	}

	/*
	 * The host generates and verifies every field the protection type defines, whatever the
	 * device is asked to check (--prchk)
	 */
	gen = PRCHK_ALL;
	if (geo->pi_type == XNVME_PI_TYPE3) {
		gen &= ~XNVME_PI_FLAGS_REFTAG_CHECK;
	}
	lp->blk_nbytes = geo->lba_extended ? geo->lba_nbytes : geo->nbytes;
	err = xnvme_pi_ctx_init(&lp->pi, lp->blk_nbytes, geo->nbytes_oob, geo->lba_extended,
				geo->pi_loc, geo->pi_type, gen, (uint32_t)args->slba,
				(uint16_t)lp->apptag_mask, (uint16_t)lp->apptag, geo->pi_format);
	if (err) {
		return tool_err(cli, err,
				"%s: xnvme_pi_ctx_init() rejects the format (%u+%u bytes per LBA, "
				"%s metadata, pi_type %u, pi_format %u)",
				args->uri, geo->nbytes, geo->nbytes_oob,
				geo->lba_extended ? "interleaved" : "separate", geo->pi_type,
				geo->pi_format);
	}
	lp->strip = lp->pract && geo->nbytes_oob == lp->pi_nbytes;
	return 0;
}

/* The protection fields of a Read or Write of the blocks from `slba` */
static void
lblk_pi_prep(const struct lblk_pi *lp, struct xnvme_cmd_ctx *ctx, uint64_t slba, bool pract)
{
	ctx->cmd.nvm.prinfo = lp->prchk | (pract ? PRINFO_PRACT : 0);
	ctx->cmd.nvm.ilbrt = (uint32_t)slba;
	ctx->cmd.nvm.lbat = lp->apptag;
	ctx->cmd.nvm.lbatm = lp->apptag_mask;
}

/*
 * Verifies the read-back tuples block by block, to name the first bad one, and compares the
 * data of every block with what was written
 */
static int
lblk_pi_check(struct tool_lblk_io *io, struct lblk_pi *lp, uint64_t slba, uint64_t n)
{
	const struct xnvme_geo *geo = io->geo;
	/* without metadata in the host buffer the written blocks lie packed */
	size_t wstride = (lp->strip && geo->lba_extended) ? geo->nbytes : geo->lba_nbytes;
	uint8_t *rd = lp->rdbuf, *rm = lp->rmbuf, *wd = io->dbuf;

	for (uint64_t i = 0; i < n; ++i) {
		lp->pi.init_ref_tag = (uint32_t)(slba + i);
		if (xnvme_pi_verify(&lp->pi, rd + i * geo->lba_nbytes,
				    rm ? rm + i * io->meta_blk : NULL, 1)) {
			return tool_err(io->cli, -EIO,
					"the protection information read back from LBA 0x%" PRIx64
					" does not verify (pi_type %u, guard, application tag 0x%x "
					"mask 0x%x, reference tag 0x%x)",
					slba + i, geo->pi_type, lp->apptag, lp->apptag_mask,
					(uint32_t)(slba + i));
		}
		lp->nverified += 1;
		if (memcmp(rd + i * geo->lba_nbytes, wd + i * wstride, geo->nbytes)) {
			if (!lp->ndiff) {
				lp->first_diff = slba + i;
			}
			lp->ndiff += 1;
		}
	}
	return 0;
}

/* Write, read back and check the `n` blocks from the `done`-th block of the range */
static int
lblk_pi_chunk(struct tool_lblk_io *io, struct lblk_pi *lp, uint64_t done, uint64_t n)
{
	const struct xnvme_geo *geo = io->geo;
	uint64_t slba = io->slba + done;
	uint16_t nlb = (uint16_t)(n - 1);
	struct xnvme_cmd_ctx ctx;
	uint8_t *d = io->dbuf;
	int err;

	err = tool_lblk_io_fill(io, done, n);
	if (err) {
		return err;
	}
	if (!lp->pract) {
		lp->pi.init_ref_tag = (uint32_t)slba;
		xnvme_pi_generate(&lp->pi, io->dbuf, io->mbuf, (uint32_t)n);
	} else if (lp->strip && geo->lba_extended) {
		/* Only data travels: pack the blocks; each moves towards the buffer start */
		for (uint64_t i = 1; i < n; ++i) {
			memmove(d + i * geo->nbytes, d + i * geo->lba_nbytes, geo->nbytes);
		}
	}

	ctx = xnvme_cmd_ctx_from_dev(io->dev);
	lblk_pi_prep(lp, &ctx, slba, lp->pract);
	err = xnvme_nvm_write(&ctx, io->nsid, slba, nlb, io->dbuf, lp->strip ? NULL : io->mbuf);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		return tool_cmd_err(io->cli, &ctx, err,
				    "Write with PRINFO 0x%x of LBAs 0x%" PRIx64 "-0x%" PRIx64
				    " failed",
				    (unsigned int)ctx.cmd.nvm.prinfo, slba, slba + n - 1);
	}
	tool_out_wrote(io->dev_out, slba, n);

	/* Read back with the tuples (no PRACT), checked by the device as --prchk asks */
	ctx = xnvme_cmd_ctx_from_dev(io->dev);
	lblk_pi_prep(lp, &ctx, slba, false);
	err = xnvme_nvm_read(&ctx, io->nsid, slba, nlb, lp->rdbuf, lp->rmbuf);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		return tool_cmd_err(io->cli, &ctx, err,
				    "Read with PRINFO 0x%x of LBAs 0x%" PRIx64 "-0x%" PRIx64
				    " failed",
				    (unsigned int)ctx.cmd.nvm.prinfo, slba, slba + n - 1);
	}

	return lblk_pi_check(io, lp, slba, n);
}

static int
sub_write_read_pi(struct xnvme_cli *cli)
{
	struct xnvme_cli_args *args = &cli->args;
	struct lblk_pi lp = {0};
	struct tool_lblk_io io;
	const struct xnvme_geo *geo;
	uint64_t done = 0, ncmds = 0;
	size_t chunk;
	int err, ret;

	geo = tool_lblk_geo(cli);
	if (!geo) {
		return -EINVAL;
	}
	err = lblk_pi_args(cli, geo, &lp);
	if (err) {
		return err;
	}
	err = tool_lblk_io_setup(&io, cli, TOOL_LBLK_WRITE_PI);
	if (err) {
		return err;
	}

	chunk = XNVME_MIN_U64(io.cmd_nlbas, io.nlbas);
	lp.rdbuf = xnvme_buf_alloc(io.dev, chunk * geo->lba_nbytes);
	if (io.meta_blk) {
		lp.rmbuf = xnvme_buf_alloc(io.dev, chunk * io.meta_blk);
	}
	if (!lp.rdbuf || (io.meta_blk && !lp.rmbuf)) {
		err = tool_err(cli, -ENOMEM, "cannot allocate a buffer for %zu LBAs", chunk);
		goto exit;
	}

	xnvme_cli_pinf("Write and Read with PI: nsid: 0x%x, slba: 0x%016" PRIx64
		       ", nlb: %u, pract: %u, prchk: 0x%x, in commands of up to %" PRIu64 " LBAs",
		       io.nsid, io.slba, args->nlb, lp.pract, lp.prchk, io.cmd_nlbas);

	xnvme_cli_timer_start(cli);
	while (done < io.nlbas) {
		uint64_t n = XNVME_MIN_U64(io.cmd_nlbas, io.nlbas - done);

		err = tool_sig_check(cli);
		err = err ? err : lblk_pi_chunk(&io, &lp, done, n);
		if (err) {
			break;
		}
		done += n;
		ncmds += 1;
	}
	xnvme_cli_timer_stop(cli);
	if (err) {
		goto exit;
	}

	printf("xnvme_lblk_pi: {nsid: 0x%x, slba: 0x%016" PRIx64 ", elba: 0x%016" PRIx64
	       ", nlb: %u, pi_type: %u, pi_format: %u, pi_loc: %u, pi_nbytes: %zu, "
	       "md_nbytes: %u, extended: %u, pract: %u, prchk: 0x%x, apptag: 0x%x, "
	       "apptag_mask: 0x%x, ncmds: %" PRIu64 ", nverified: %" PRIu64 ", ndiff: %" PRIu64
	       "}\n",
	       io.nsid, io.slba, io.slba + io.nlbas - 1, args->nlb, geo->pi_type, geo->pi_format,
	       geo->pi_loc, lp.pi_nbytes, geo->nbytes_oob, geo->lba_extended, lp.pract, lp.prchk,
	       lp.apptag, lp.apptag_mask, ncmds, lp.nverified, lp.ndiff);
	xnvme_cli_timer_bw_pr(cli, "wall-clock", 2 * io.nlbas * geo->lba_nbytes);
	if (lp.ndiff) {
		err = tool_err(cli, -EIO,
			       "the data read back differs from the data written in %" PRIu64
			       " LBAs, the first at 0x%" PRIx64,
			       lp.ndiff, lp.first_diff);
	}

exit:
	xnvme_buf_free(io.dev, lp.rmbuf);
	xnvme_buf_free(io.dev, lp.rdbuf);
	ret = tool_lblk_io_teardown(&io, err);
	return err ? err : ret;
}

/* The Simple Copy limits of the namespace; a zero limit is left to the device to enforce */
static void
scopy_limits(struct xnvme_dev *dev, uint64_t *range_nlbas, uint64_t *cmd_nlbas, uint32_t *nranges)
{
	const struct xnvme_spec_idfy_ns *ns = xnvme_dev_get_ns(dev);

	*range_nlbas = TOOL_NLB_FIELD_MAX;
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
	struct tool_out *dst;
	const struct xnvme_geo *geo;
	uint64_t nlbas = (uint64_t)args->nlb + 1;
	uint64_t range_nlbas, cmd_nlbas, chunk, nchunks;
	uint32_t nranges, nsid = tool_nsid(cli);
	bool backwards;
	int err = 0;

	geo = tool_lblk_geo(cli);
	if (!geo) {
		return -EINVAL;
	}
	err = tool_lblk_check_range(cli, geo, XNVME_CLI_OPT_SLBA, args->slba, nlbas);
	if (!err) {
		err = tool_lblk_check_range(cli, geo, XNVME_CLI_OPT_SDLBA, args->sdlba, nlbas);
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
	/* the destination blocks written: every error line from now on names them */
	dst = tool_out_device(cli, XNVME_CLI_OPT_URI, args->uri, "LBAs", true);
	if (!dst) {
		xnvme_buf_free(dev, src);
		return -ENOMEM;
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

		err = tool_sig_check(cli);
		if (err) {
			break;
		}
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
		tool_out_wrote(dst, args->sdlba + first, n);
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
	uint32_t doper =
		cli->given[XNVME_CLI_OPT_DOPER] ? args->doper : XNVME_SPEC_DSEND_IDFY_ENDIR;
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
	uint32_t doper =
		cli->given[XNVME_CLI_OPT_DOPER] ? args->doper : XNVME_SPEC_DRECV_IDFY_RETPR;
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

/* The range commands writing data */
#define OPTS_WRITE TOOL_OPTS_RANGE(TOOL_OPTS_INPUTS), TOOL_ASYNC_OPTS

static struct xnvme_cli_sub g_subs[] = {
	TOOL_SUB_ENUM(TOOL_ENUM_DESCR, TOOL_ASYNC_OPTS),
	TOOL_SUB_INFO("Opens the device and prints the handle (as 'xnvme info')"),
	TOOL_SUB_IDFY_NS("idfy", "Identify Namespace"),
	{
		.name = "dir-send",
		.descr_short = "Directive Send: enable or disable a directive type",
		.descr_long = "Sends Directive Send with --dtype (default 0, identify), --doper "
			      "(default 1, enable directive), --dspec, and for enable directive "
			      "--endir (1 enables, 0 disables) of target directive type --tgtdir "
			      "(default 1, streams)",
		.command = sub_dir_send,
		.opts = {TOOL_OPTS_DEV(TOOL_LOPT(NSID), TOOL_LOPT(DSPEC), TOOL_LOPT(DTYPE),
				       TOOL_LOPT(DOPER), TOOL_LOPT(ENDIR), TOOL_LOPT(TGTDIR)),
			 TOOL_ASYNC_OPTS},
	},
	{
		.name = "dir-receive",
		.descr_short = "Directive Receive: parameters, stream status and resources",
		.descr_long = "Sends Directive Receive with --dtype (default 0, identify) and "
			      "--doper (default 1, return parameters); for streams (--dtype 1), "
			      "--doper 2 gets the stream status and --doper 3 allocates --nsr "
			      "streams",
		.command = sub_dir_receive,
		.opts = {TOOL_OPTS_DEV(TOOL_LOPT(NSID), TOOL_LOPT(DTYPE), TOOL_LOPT(DOPER),
				       TOOL_LOPT(NSR)),
			 TOOL_ASYNC_OPTS},
	},
	TOOL_LBLK_SUB_READ,
	{
		.name = "write",
		.descr_short = "Write nlb+1 blocks at slba",
		.descr_long = "Writes --nlb + 1 logical blocks at --slba, in commands of at most "
			      "MDTS bytes; the data comes from --data-input, which must hold "
			      "(nlb + 1) * LBA size bytes, or is generated (byte k is "
			      "'A' + k % 26)",
		.command = sub_write,
		.opts = {OPTS_WRITE},
	},
	{
		.name = "write-zeros",
		.descr_short = "Write Zeroes to nlb+1 blocks at slba",
		.descr_long = "Sends Write Zeroes for --nlb + 1 logical blocks at --slba, split by "
			      "the device's size limit; no data is transferred",
		.command = sub_write_zeros,
		.opts = {OPTS_WRITE},
	},
	{
		.name = "write-uncor",
		.descr_short = "Write Uncorrectable to nlb+1 blocks at slba",
		.descr_long = "Marks --nlb + 1 logical blocks at --slba as uncorrectable, split by "
			      "the device's size limit; no data is transferred",
		.command = sub_write_uncor,
		.opts = {OPTS_WRITE},
	},
	{
		.name = "write-dir",
		.descr_short = "Write nlb+1 blocks at slba with a directive",
		.descr_long = "Writes --nlb + 1 logical blocks at --slba like 'write', with the "
			      "directive type --dtype (default 0, none; 1: streams, 2: data "
			      "placement) and the directive specific value --dspec (the stream "
			      "identifier, or the FDP placement handle) in every command",
		.command = sub_write_dir,
		.opts = {TOOL_OPTS_RANGE(TOOL_OPTS_INPUTS, TOOL_LOPT(DTYPE), TOOL_LOPT(DSPEC)),
			 TOOL_ASYNC_OPTS},
	},
	{
		.name = "write-read-pi",
		.descr_short = "Write nlb+1 blocks with protection information, read back, verify",
		.descr_long = "Writes --nlb + 1 logical blocks at --slba with protection "
			      "information generated by the library for the protection type and "
			      "format of the namespace (or, with --pract 1, by the device), reads "
			      "them back with the protection information, verifies every tuple and "
			      "compares the data. --prchk selects the fields the device checks "
			      "(bit 0: reference tag, 1: application tag, 2: guard; default: all "
			      "the type defines), --apptag and --apptag_mask (default 0 and "
			      "0xffff) the application tag. Data comes from --data-input or is "
			      "generated",
		.command = sub_write_read_pi,
		.opts = {TOOL_OPTS_RANGE(TOOL_LOPT(PRACT), TOOL_LOPT(PRCHK), TOOL_LOPT(APPTAG),
					 TOOL_LOPT(APPTAG_MASK), TOOL_OPTS_INPUTS),
			 TOOL_ASYNC_OPTS},
	},
	{
		.name = "compare",
		.descr_short = "Compare nlb+1 blocks at slba with data",
		.descr_long = "Has the device compare --nlb + 1 logical blocks at --slba with the "
			      "data of --data-input, or with generated data (as 'write'); a "
			      "mismatch fails with Compare Failure",
		.command = sub_compare,
		.opts = {OPTS_WRITE},
	},
	{
		.name = "scopy",
		.descr_short = "Simple Copy of nlb+1 blocks from slba to sdlba",
		.descr_long = "Copies --nlb + 1 logical blocks from --slba to --sdlba with Simple "
			      "Copy commands within the namespace's copy limits",
		.command = sub_scopy,
		.opts = {TOOL_OPTS_RANGE(TOOL_LREQ(SDLBA)), TOOL_ASYNC_OPTS},
	},
};

/* The subcommands that write the device; every other one opens it read-only */
static const char *const g_writers[] = {"write",         "write-zeros", "write-uncor", "write-dir",
					"write-read-pi", "scopy",       "dir-send",    NULL};

TOOL_MAIN(g_subs, XNVME_CLI_INIT_DEV_OPEN, g_writers, "lblk",
	  "Logical block commands of the NVM command set",
	  "Reads, writes, zeroes, compares and copies logical blocks, and manages "
	  "directives")
