// SPDX-License-Identifier: BSD-3-Clause
/**
 * The option table: long name, value type and description of every enum xnvme_cli_opt value,
 * plus where (and as which C type) the parser stores it in struct xnvme_cli_args. One table so
 * that parsing, usage, man page and completion can never disagree.
 */
#include <stddef.h>
#include <stdint.h>
#include "cli_parse.h"
#include "xnvme_plat_os.h" /* the backend and mechanism names of this build */

#define ARGS_OFS(member) offsetof(struct xnvme_cli_args, member)

#define OPT(o, vt, nm, member, dst, ds)                                                            \
	[XNVME_CLI_OPT_##o] = {                                                                    \
		.attr = {XNVME_CLI_OPT_##o, XNVME_CLI_OPT_VTYPE_##vt, nm, ds, 0},                  \
		.offset = ARGS_OFS(member),                                                        \
		.dest = XNVME_CLI_DEST_##dst,                                                      \
	}

/* Options whose only consumer is narrower than their args member (xnvme_cli_to_opts) */
#define OPTM(o, vt, nm, member, dst, mx, ds)                                                       \
	[XNVME_CLI_OPT_##o] = {                                                                    \
		.attr = {XNVME_CLI_OPT_##o, XNVME_CLI_OPT_VTYPE_##vt, nm, ds, 0},                  \
		.offset = ARGS_OFS(member),                                                        \
		.dest = XNVME_CLI_DEST_##dst,                                                      \
		.max = (mx),                                                                       \
	}

/* cdw[] elements; offsetof() with an array index is not portable C */
#define CDW(n, nm)                                                                                 \
	[XNVME_CLI_OPT_CDW00 + (n)] = {                                                            \
		.attr = {XNVME_CLI_OPT_CDW00 + (n), XNVME_CLI_OPT_VTYPE_HEX, nm,                   \
			 "Command dword " #n, 0},                                                  \
		.offset = ARGS_OFS(cdw) + (n) * sizeof(uint32_t),                                  \
		.dest = XNVME_CLI_DEST_U32,                                                        \
	}

#define TITLE(o, nm, ds)                                                                           \
	[XNVME_CLI_OPT_##o] = {                                                                    \
		.attr = {XNVME_CLI_OPT_##o, XNVME_CLI_OPT_VTYPE_SKIP, nm, ds, 0},                  \
		.dest = XNVME_CLI_DEST_NONE,                                                       \
	}

static const struct xnvme_cli_opt_info g_opts[XNVME_CLI_OPT_END] = {
	CDW(0, "cdw0"),
	CDW(1, "cdw1"),
	CDW(2, "cdw2"),
	CDW(3, "cdw3"),
	CDW(4, "cdw4"),
	CDW(5, "cdw5"),
	CDW(6, "cdw6"),
	CDW(7, "cdw7"),
	CDW(8, "cdw8"),
	CDW(9, "cdw9"),
	CDW(10, "cdw10"),
	CDW(11, "cdw11"),
	CDW(12, "cdw12"),
	CDW(13, "cdw13"),
	CDW(14, "cdw14"),
	CDW(15, "cdw15"),
	OPT(CMD_INPUT, FILE, "cmd-input", cmd_input, STR, "Path to a file holding a command"),
	OPT(CMD_OUTPUT, FILE, "cmd-output", cmd_output, STR, "Path to write the command to"),
	OPT(DATA_NBYTES, NUM, "data-nbytes", data_nbytes, SIZE, "Size of the data in bytes"),
	OPT(DATA_INPUT, FILE, "data-input", data_input, STR, "Path to a file to read data from"),
	OPT(DATA_OUTPUT, FILE, "data-output", data_output, STR, "Path to a file to write data to"),
	OPT(META_NBYTES, NUM, "meta-nbytes", meta_nbytes, SIZE, "Size of the metadata in bytes"),
	OPT(META_INPUT, FILE, "meta-input", meta_input, STR,
	    "Path to a file to read metadata from"),
	OPT(META_OUTPUT, FILE, "meta-output", meta_output, STR,
	    "Path to a file to write metadata to"),
	OPT(LBAFL, HEX, "lbafl", lbafl, U64, "LBA format, lower bits"),
	OPT(SLBA, HEX, "slba", slba, U64, "Start logical block address"),
	OPT(ELBA, HEX, "elba", elba, U64, "End logical block address"),
	OPT(LBA, HEX, "lba", lba, U64, "Logical block address"),
	OPT(NLB, NUM, "nlb", nlb, U32,
	    "Number of logical blocks minus one (zero-based: 0 is one block)"),
	OPT(URI, URI, "uri", uri, STR, "Device URI, e.g. '/dev/nvme0n1', '0000:01:00.1' or '1GB'"),
	OPT(SYS_URI, URI, "uri", sys_uri, STR, "System URI, e.g. a fabrics target to discover"),
	OPT(UUID, HEX, "uuid", uuid, U32, "UUID index"),
	OPT(NSID, HEX, "nsid", nsid, U32, "Namespace identifier for command construction"),
	OPT(CNS, HEX, "cns", cns, U32, "Controller or namespace structure (identify)"),
	OPT(CSI, HEX, "csi", csi, U32, "Command set identifier"),
	OPT(INDEX, HEX, "index", index, U64, "Index"),
	OPT(SETID, HEX, "setid", setid, U32, "NVM set identifier"),
	OPT(CNTID, HEX, "cntid", cntid, U64, "Controller identifier"),
	OPT(LID, HEX, "lid", lid, U32, "Log page identifier"),
	OPT(LSP, HEX, "lsp", lsp, U32, "Log specific field"),
	OPT(LPO_NBYTES, NUM, "lpo-nbytes", lpo_nbytes, U64, "Log page offset in bytes"),
	OPT(RAE, HEX, "rae", rae, U32, "Retain asynchronous event"),
	OPT(CLEAR, HEX, "clear", clear, BOOL, "Clear"),
	OPT(LBAFU, HEX, "lbafu", lbafu, U32, "LBA format, upper bits"),
	OPT(SES, HEX, "ses", ses, U32, "Secure erase settings"),
	OPT(SEL, HEX, "sel", sel, U32, "Select which feature value to get"),
	OPT(MSET, HEX, "mset", mset, U32, "Metadata settings"),
	OPT(AUSE, HEX, "ause", ause, BOOL, "Allow unrestricted sanitize exit"),
	OPT(OVRPAT, HEX, "ovrpat", ovrpat, U32, "Overwrite pattern"),
	OPT(OWPASS, HEX, "owpass", owpass, U32, "Overwrite pass count"),
	OPT(OIPBP, HEX, "oipbp", oipbp, BOOL, "Overwrite invert pattern between passes"),
	OPT(NODAS, HEX, "nodas", nodas, BOOL, "No deallocate after sanitize"),
	OPT(SANACT, HEX, "sanact", sanact, U32, "Sanitize action"),
	OPT(ZSA, HEX, "zsa", zsa, U32, "Zone send action"),
	OPT(PI, HEX, "pi", pi, U32, "Protection information type"),
	OPT(PIL, HEX, "pil", pil, U32, "Protection information location"),
	OPT(FID, HEX, "fid", fid, U32, "Feature identifier"),
	OPT(FEAT, HEX, "feat", feat, U32, "Feature value"),
	OPT(SEED, NUM, "seed", seed, U32, "Seed for generated data"),
	OPT(LIMIT, NUM, "limit", limit, U32, "Maximum number of entries"),
	OPT(IOSIZE, NUM, "iosize", iosize, U32, "Size of each I/O in bytes"),
	OPT(QDEPTH, NUM, "qdepth", qdepth, U32, "Queue depth"),
	OPT(DIRECT, NUM, "direct", direct, BOOL,
	    "Flag: bypass the OS page cache (O_DIRECT); offsets and sizes must then be block-aligned"),
	OPT(STATUS, NUM, "status", status, U32, "Status"),
	OPT(SAVE, NUM, "save", save, BOOL, "Make the feature value persist across resets"),
	OPT(RESET, NUM, "reset", reset, U32, "Reset"),
	OPT(VERBOSE, NUM, "verbose", verbose, BOOL, "Print the parsed arguments"),
	OPT(HELP, NUM, "help", help, U32, "Show usage / help"),
	OPT(COUNT, NUM, "count", count, U64, "Number of items"),
	OPT(OFFSET, NUM, "offset", offset, U64, "Offset in bytes"),
	OPT(OPCODE, HEX, "opcode", opcode, U64, "Command opcode"),
	OPT(FLAGS, HEX, "flags", flags, U64, "Flags"),
	OPT(ALL, HEX, "all", all, BOOL, "Apply to all zones"),
	OPT(BE, STR, "be", be, STR,
	    "Backend: " XNVME_PLAT_CLI_BE " (default: the first that recognises the URI)"),
	OPT(MEM, STR, "mem", mem, STR, "Memory allocator: " XNVME_PLAT_CLI_MEM),
	OPT(SYNC, STR, "sync", sync, STR,
	    "Synchronous I/O mechanism: " XNVME_PLAT_CLI_SYNC " (default: automatic; see info)"),
	OPT(ASYNC, STR, "async", async, STR,
	    "Queue mechanism: " XNVME_PLAT_CLI_ASYNC " (default: automatic; see info)"),
	OPT(ADMIN, STR, "admin", admin, STR,
	    "Admin mechanism: " XNVME_PLAT_CLI_ADMIN " (default: automatic; see info)"),
	OPTM(SHM_ID, HEX, "shm_id", shm_id, U64, UINT32_MAX, "SPDK shared memory group id"),
	OPT(MAIN_CORE, HEX, "main_core", main_core, U32, "SPDK main core"),
	OPT(CORE_MASK, STR, "core_mask", core_mask, STR, "SPDK core mask"),
	OPT(USE_CMB_SQS, NUM, "use_cmb_sqs", use_cmb_sqs, U32,
	    "Place submission queues in the CMB"),
	OPT(CSS, HEX, "css", css, CSS, "Controller command sets to enable"),
	OPT(POLL_IO, NUM, "poll_io", poll_io, U32, "io_uring: poll for completions"),
	OPT(POLL_SQ, NUM, "poll_sq", poll_sq, U32, "io_uring: kernel-side submission polling"),
	OPT(REGISTER_FILES, NUM, "register_files", register_files, U32,
	    "io_uring: register the file"),
	OPT(REGISTER_BUFFERS, NUM, "register_buffers", register_buffers, U32,
	    "io_uring: register buffers"),
	OPT(TRUNCATE, NUM, "truncate", truncate, U32, "Truncate the file on open"),
	OPT(RDONLY, NUM, "rdonly", rdonly, U32, "Open read-only"),
	OPT(WRONLY, NUM, "wronly", wronly, U32, "Open write-only"),
	OPT(RDWR, NUM, "rdwr", rdwr, U32, "Open for reading and writing"),
	OPT(CREATE, NUM, "create", create, U32, "Create the file when missing"),
	OPT(CREATE_MODE, HEX, "create_mode", create_mode, U32, "Permission bits of a created file"),
	OPT(ADRFAM, STR, "adrfam", adrfam, STR, "Fabrics address family, e.g. 'IPv4'"),
	OPT(DEV_NSID, HEX, "dev-nsid", dev_nsid, U32, "Namespace to open, for user-space drivers"),
	OPT(VEC_CNT, NUM, "vec-cnt", vec_cnt, U32, "Number of vector elements"),
	OPT(SUBNQN, STR, "subnqn", subnqn, STR, "Subsystem NQN of a fabrics target"),
	OPT(HOSTNQN, STR, "hostnqn", hostnqn, STR, "Host NQN to connect as"),
	OPT(DTYPE, HEX, "dtype", dtype, U32, "Directive type"),
	OPT(DSPEC, HEX, "dspec", dspec, U32, "Directive specific value"),
	OPT(DOPER, HEX, "doper", doper, U32, "Directive operation"),
	OPT(ENDIR, HEX, "endir", endir, U32, "Enable (1) or disable (0) the directive"),
	OPT(TGTDIR, HEX, "tgtdir", tgtdir, U32, "Target directive type"),
	OPT(NSR, HEX, "nsr", nsr, U32, "Number of streams requested"),
	TITLE(POSA_TITLE, "posa_title", "Positional arguments:"),
	TITLE(NON_POSA_TITLE, "non_posa_title", "Options:"),
	TITLE(ORCH_TITLE, "orch_title", "Backend options:"),
	OPT(AD, NUM, "ad", ad, BOOL, "Attribute: deallocate"),
	OPT(IDW, NUM, "idw", idw, BOOL, "Attribute: integral dataset for write"),
	OPT(IDR, NUM, "idr", idr, BOOL, "Attribute: integral dataset for read"),
	OPT(LLB, NUM, "llb", llb, U32,
	    "Number of logical blocks (one-based: 1 is one block, unlike --nlb)"),
	OPT(LSI, HEX, "lsi", lsi, U32, "Log specific identifier"),
	OPT(PID, HEX, "pid", pid, U32, "Placement identifier"),
	OPT(KV_KEY, STR, "key", kv_key, STR, "KV key"),
	OPT(KV_VAL, STR, "value", kv_val, STR, "KV value"),
	OPT(KV_STORE_UPDATE, NUM, "only-update", kv_store_update, BOOL,
	    "Store only when the key exists"),
	OPT(KV_STORE_ADD, NUM, "only-add", kv_store_add, BOOL,
	    "Store only when the key does not exist"),
	OPT(KV_STORE_COMPRESS, NUM, "compress", kv_store_compress, BOOL,
	    "Let the device compress the value"),
	OPT(PRACT, NUM, "pract", pract, BOOL, "Protection information action"),
	OPT(PRCHK, HEX, "prchk", prchk, U8, "Protection information check bits"),
	OPT(APPTAG, HEX, "apptag", apptag, U32, "Application tag"),
	OPT(APPTAG_MASK, HEX, "apptag_mask", apptag_mask, U32, "Application tag mask"),
	OPT(SDLBA, HEX, "sdlba", sdlba, U64, "Destination start LBA of a copy"),
};

const struct xnvme_cli_opt_info *
xnvme_cli_opt_info(int opt)
{
	if (opt <= XNVME_CLI_OPT_NONE || opt >= XNVME_CLI_OPT_END) {
		return NULL;
	}
	if (!g_opts[opt].attr.name) {
		return NULL; /* the gap at 94 */
	}
	return &g_opts[opt];
}

const struct xnvme_cli_opt_attr *
xnvme_cli_get_opt_attr(enum xnvme_cli_opt opt)
{
	const struct xnvme_cli_opt_info *info = xnvme_cli_opt_info((int)opt);

	return info ? &info->attr : NULL;
}

const char *
xnvme_cli_vtype_str(int vtype)
{
	switch (vtype) {
	case XNVME_CLI_OPT_VTYPE_URI:
		return "URI";
	case XNVME_CLI_OPT_VTYPE_NUM:
		return "NUM";
	case XNVME_CLI_OPT_VTYPE_HEX:
		return "HEX";
	case XNVME_CLI_OPT_VTYPE_FILE:
		return "FILE";
	case XNVME_CLI_OPT_VTYPE_STR:
		return "STR";
	default:
		return "";
	}
}

uint64_t
xnvme_cli_opt_limit(const struct xnvme_cli_opt_info *info)
{
	uint64_t lim;

	switch (info->dest) {
	case XNVME_CLI_DEST_BOOL:
		lim = 1;
		break;
	case XNVME_CLI_DEST_U8:
		lim = UINT8_MAX;
		break;
	case XNVME_CLI_DEST_U32:
	case XNVME_CLI_DEST_CSS:
		lim = UINT32_MAX;
		break;
	case XNVME_CLI_DEST_SIZE:
		lim = SIZE_MAX;
		break;
	case XNVME_CLI_DEST_U64:
		lim = UINT64_MAX;
		break;
	default:
		lim = 0;
		break;
	}
	if (info->max && info->max < lim) {
		lim = info->max;
	}
	return lim;
}

int
xnvme_cli_sub_nopts(const struct xnvme_cli_sub *sub)
{
	int n;

	if (!sub) {
		return 0;
	}
	for (n = 0; n < XNVME_CLI_SUB_OPTS_LEN; ++n) {
		if (sub->opts[n].opt == XNVME_CLI_OPT_NONE ||
		    sub->opts[n].opt == XNVME_CLI_OPT_END) {
			break;
		}
	}
	return n;
}

const struct xnvme_cli_opt_info *
xnvme_cli_sub_opt_info(const struct xnvme_cli_sub *sub, int idx)
{
	const struct xnvme_cli_sub_opt *so;

	if (!sub || idx < 0 || idx >= XNVME_CLI_SUB_OPTS_LEN) {
		return NULL;
	}
	so = &sub->opts[idx];
	switch (so->type) {
	case XNVME_CLI_POSA:
	case XNVME_CLI_LFLG:
	case XNVME_CLI_LOPT:
	case XNVME_CLI_LREQ:
	case XNVME_CLI_SKIP:
		return xnvme_cli_opt_info((int)so->opt);
	default:
		return NULL;
	}
}

int
xnvme_cli_sub_has(const struct xnvme_cli_sub *sub, enum xnvme_cli_opt opt,
		  enum xnvme_cli_opt_type type)
{
	int nopts = xnvme_cli_sub_nopts(sub);

	for (int i = 0; i < nopts; ++i) {
		if (sub->opts[i].opt == opt && sub->opts[i].type == type) {
			return 1;
		}
	}
	return 0;
}

int
xnvme_cli_opt_is_flag(const struct xnvme_cli_sub *sub, int idx)
{
	if (idx < 0 || idx >= XNVME_CLI_SUB_OPTS_LEN) {
		return 0;
	}
	return sub->opts[idx].type == XNVME_CLI_LFLG ||
	       (sub->opts[idx].opt == XNVME_CLI_OPT_DIRECT &&
		(sub->opts[idx].type == XNVME_CLI_LOPT || sub->opts[idx].type == XNVME_CLI_LREQ));
}

enum xnvme_cli_opt_type
xnvme_cli_sub_opt_type(const struct xnvme_cli_sub *sub, int idx)
{
	return xnvme_cli_opt_is_flag(sub, idx) ? XNVME_CLI_LFLG : sub->opts[idx].type;
}

const char *
xnvme_cli_opt_values(enum xnvme_cli_opt opt)
{
	switch (opt) {
	case XNVME_CLI_OPT_BE:
		return "linux ramdisk vfio tcp rdma";
	case XNVME_CLI_OPT_MEM:
		return "posix hugepage vfio";
	case XNVME_CLI_OPT_ADMIN:
		return "nvme block file_as_ns ramdisk vfio tcp rdma";
	case XNVME_CLI_OPT_SYNC:
		return "nvme psync block ramdisk vfio tcp rdma";
	case XNVME_CLI_OPT_ASYNC:
		return "io_uring io_uring_cmd libaio posix thrpool emu nil vfio tcp rdma";
	default:
		return NULL;
	}
}
