/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Logical-block I/O shared by the tools addressing blocks (lblk, zoned): geometry and range
 * checks, per-command size limits, and a transfer engine that splits a range into commands,
 * streams --data-input/--meta-input in and --data-output/--meta-output out chunk by chunk, and
 * prints one summary line.
 */
#ifndef XNVME_TOOLS_LBLK_H
#define XNVME_TOOLS_LBLK_H

#include <stdbool.h>
#include <stdint.h>
#include <libxnvme.h>
#include "tools_common.h"

/** Most blocks one command addresses: NLB is a 16-bit zero-based field */
#define TOOL_NLB_FIELD_MAX 65536U

enum tool_lblk_op {
	TOOL_LBLK_READ,
	TOOL_LBLK_WRITE,
	TOOL_LBLK_WRITE_ZEROES,
	TOOL_LBLK_WRITE_UNCOR,
	TOOL_LBLK_COMPARE,
	TOOL_LBLK_WRITE_DIR, ///< Write with --dtype in CDW12 and --dspec in CDW13
	TOOL_LBLK_APPEND,    ///< Zone Append to the zone starting at --slba
	TOOL_LBLK_WRITE_PI,  ///< Write then Read with protection information (lblk write-read-pi)
};

struct tool_lblk_op_attr {
	const char *name; ///< in messages and in the summary line
	uint8_t opcode;
	bool to_host;   ///< data flows from the device to --data-output
	bool from_host; ///< data flows from --data-input (or generated) to the device
	bool writes;    ///< writes the device: the blocks written are named in error lines
};

/** One range transfer; set up with tool_lblk_io_setup(), released with tool_lblk_io_teardown() */
struct tool_lblk_io {
	struct xnvme_cli *cli;
	struct xnvme_dev *dev;
	const struct xnvme_geo *geo;
	const struct tool_lblk_op_attr *attr;
	enum tool_lblk_op op;
	uint32_t nsid;
	uint64_t slba;
	uint64_t nlbas;     ///< one-based
	uint64_t cmd_nlbas; ///< per command
	size_t meta_blk;    ///< separate metadata bytes per block, 0 when none

	void *dbuf; ///< one command's data: cmd_nlbas * lba_nbytes bytes
	void *mbuf; ///< one command's separate metadata, NULL when none
	struct tool_file din, dout, min, mout;

	uint64_t alba; ///< Zone Append: LBA assigned to the first block
	uint64_t elba; ///< Zone Append: LBA assigned to the last block

	struct tool_out *dev_out; ///< ops writing the device: the LBAs written so far
};

/** The device geometry, or NULL (reported) when it does not describe logical blocks */
const struct xnvme_geo *
tool_lblk_geo(struct xnvme_cli *cli);

/**
 * Checks that [slba, slba + nlbas) lies within the namespace, naming option `opt` otherwise; a
 * regular file is a namespace of the size it has, for writes too
 */
int
tool_lblk_check_range(struct xnvme_cli *cli, const struct xnvme_geo *geo, enum xnvme_cli_opt opt,
		      uint64_t slba, uint64_t nlbas);

/** Most blocks one command of `op` may address on this device */
uint64_t
tool_lblk_cmd_nlbas(struct xnvme_dev *dev, const struct xnvme_geo *geo, enum tool_lblk_op op);

/**
 * Prepares a transfer of --nlb + 1 blocks from --slba for `op`: geometry, range check, data and
 * metadata files, and buffers for one command. On failure everything is released.
 */
int
tool_lblk_io_setup(struct tool_lblk_io *io, struct xnvme_cli *cli, enum tool_lblk_op op);

/**
 * Fills the buffers of one command of `n` blocks, the `done`-th block of the range first, from
 * the inputs or the generated pattern (separate metadata: zeros without --meta-input)
 */
int
tool_lblk_io_fill(struct tool_lblk_io *io, uint64_t done, uint64_t n);

/**
 * Closes the files and frees the buffers; returns `err`, else the first failure to close an
 * output. With `err` set (the transfer failed), outputs this run created are removed.
 */
int
tool_lblk_io_teardown(struct tool_lblk_io *io, int err);

/**
 * Runs `op` over --nlb + 1 blocks from --slba in commands of at most the device limit and
 * prints the summary line and the wall-clock line
 */
int
tool_lblk_rw(struct xnvme_cli *cli, enum tool_lblk_op op);

/** The subcommand "read": tool_lblk_rw() of TOOL_LBLK_READ */
int
tool_lblk_read(struct xnvme_cli *cli);

/* ------------------------------------------------------------------------------------------ */
/* Subcommand tables                                                                          */
/* ------------------------------------------------------------------------------------------ */

/** Block range commands: uri, --slba, --nlb and --nsid; then the options given */
#define TOOL_OPTS_RANGE(...) \
	TOOL_OPTS_DEV(TOOL_LREQ(SLBA), TOOL_LREQ(NLB), TOOL_LOPT(NSID), __VA_ARGS__)

/** The data and metadata inputs of the commands writing data */
#define TOOL_OPTS_INPUTS TOOL_LOPT(DATA_INPUT), TOOL_LOPT(META_INPUT)

/** The subcommand "read" (tool_lblk_read()) */
#define TOOL_LBLK_SUB_READ                                                                     \
	{                                                                                      \
		.name = "read", .descr_short = "Read nlb+1 blocks from slba",                  \
		.descr_long = "Reads --nlb + 1 logical blocks from --slba, in commands of at " \
			      "most MDTS bytes, writing the data to --data-output and "        \
			      "separate metadata to --meta-output when given",                 \
		.command = tool_lblk_read,                                                     \
		.opts = {TOOL_OPTS_RANGE(TOOL_LOPT(DATA_OUTPUT), TOOL_LOPT(META_OUTPUT)),      \
			 TOOL_ASYNC_OPTS},                                                 \
	}

#endif /* XNVME_TOOLS_LBLK_H */
