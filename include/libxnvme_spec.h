/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * NVMe wire and data structures: submission/completion entries with their per-command views,
 * identify data for the NVM, Zoned and Key-Value command sets, log pages, features, Flexible
 * Data Placement, directives and controller registers, plus the spec-level enumerations and the
 * printers for these structures. Layouts are ABI; every size is pinned below.
 */
#ifndef LIBXNVME_SPEC_H
#define LIBXNVME_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "libxnvme_util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XNVME_SPEC_CTRLR_SN_LEN 20
#define XNVME_SPEC_CTRLR_MN_LEN 40
#define XNVME_SPEC_CTRLR_FR_LEN 8

#define XNVME_SPEC_IDFY_CS_IOCSC_LEN 512

#define XNVME_SPEC_NVM_SCOPY_NENTRY_MAX 128

#define ZND_CHANGES_LEN 511

#define XNVME_SPEC_FEAT_ERROR_RECOVERY_DULBE(f) ((f) & (1 << 16))
#define XNVME_SPEC_FEAT_ERROR_RECOVERY_TLER(f) ((f)&0xffff)
#define XNVME_SPEC_FEAT_MEDIA_FEEDBACK_HECC(f) ((f)&0x1)
#define XNVME_SPEC_FEAT_MEDIA_FEEDBACK_VHECC(f) ((f)&0x2)

/* ------------------------------------------------------------------------------------------ */
/* Enumerations                                                                               */
/* ------------------------------------------------------------------------------------------ */

/** Status Code Type (SCT) of a completion */
enum xnvme_spec_status_code_type {
	XNVME_STATUS_CODE_TYPE_GENERIC = 0x0,
	XNVME_STATUS_CODE_TYPE_CMDSPEC = 0x1,
	XNVME_STATUS_CODE_TYPE_MEDIA = 0x2,
	XNVME_STATUS_CODE_TYPE_PATH = 0x3,
	XNVME_STATUS_CODE_TYPE_VENDOR = 0x7,
};

/** Generic status codes (SCT 0) referred to by the library */
enum xnvme_spec_status_code {
	XNVME_STATUS_CODE_INVALID_FIELD = 0x2,
};

/** Command Set Identifiers */
enum xnvme_spec_csi {
	XNVME_SPEC_CSI_NVM = 0x0,
	XNVME_SPEC_CSI_KV = 0x1,
	XNVME_SPEC_CSI_ZONED = 0x2,
};

/** Admin command opcodes */
enum xnvme_spec_adm_opc {
	XNVME_SPEC_ADM_OPC_LOG = 0x02,
	XNVME_SPEC_ADM_OPC_IDFY = 0x06,
	XNVME_SPEC_ADM_OPC_SFEAT = 0x09,
	XNVME_SPEC_ADM_OPC_GFEAT = 0x0A,
	XNVME_SPEC_ADM_OPC_DSEND = 0x19,
	XNVME_SPEC_ADM_OPC_DRECV = 0x1A,
};

/** NVM command set opcodes; FMT and SANITIZE are admin opcodes kept here for compatibility */
enum xnvme_spec_nvm_opc {
	XNVME_SPEC_NVM_OPC_FLUSH = 0x00,
	XNVME_SPEC_NVM_OPC_WRITE = 0x01,
	XNVME_SPEC_NVM_OPC_READ = 0x02,
	XNVME_SPEC_NVM_OPC_WRITE_UNCORRECTABLE = 0x04,
	XNVME_SPEC_NVM_OPC_COMPARE = 0x05,
	XNVME_SPEC_NVM_OPC_WRITE_ZEROES = 0x08,
	XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT = 0x09,
	XNVME_SPEC_NVM_OPC_SCOPY = 0x19,
	XNVME_SPEC_NVM_OPC_IO_MGMT_RECV = 0x12,
	XNVME_SPEC_NVM_OPC_IO_MGMT_SEND = 0x1D,
	XNVME_SPEC_NVM_OPC_FMT = 0x80,
	XNVME_SPEC_NVM_OPC_SANITIZE = 0x84,
};

/** Identify Controller or Namespace Structure (CNS) values */
enum xnvme_spec_idfy_cns {
	XNVME_SPEC_IDFY_NS = 0x0,
	XNVME_SPEC_IDFY_CTRLR = 0x1,
	XNVME_SPEC_IDFY_NSLIST = 0x2,
	XNVME_SPEC_IDFY_NSDSCR = 0x3,
	XNVME_SPEC_IDFY_SETL = 0x4,
	XNVME_SPEC_IDFY_NS_IOCS = 0x5,
	XNVME_SPEC_IDFY_CTRLR_IOCS = 0x6,
	XNVME_SPEC_IDFY_NSLIST_IOCS = 0x7,
	XNVME_SPEC_IDFY_NSLIST_ALLOC = 0x10,
	XNVME_SPEC_IDFY_NS_ALLOC = 0x11,
	XNVME_SPEC_IDFY_CTRLR_NS = 0x12,
	XNVME_SPEC_IDFY_CTRLR_SUB = 0x13,
	XNVME_SPEC_IDFY_CTRLR_PRI = 0x14,
	XNVME_SPEC_IDFY_CTRLR_SEC = 0x15,
	XNVME_SPEC_IDFY_NSGRAN = 0x16,
	XNVME_SPEC_IDFY_UUIDL = 0x17,
	XNVME_SPEC_IDFY_NSLIST_ALLOC_IOCS = 0x1A,
	XNVME_SPEC_IDFY_NS_ALLOC_IOCS = 0x1B,
	XNVME_SPEC_IDFY_IOCS = 0x1C,
};

/** Log page identifiers */
enum xnvme_spec_log_lpi {
	XNVME_SPEC_LOG_RSVD = 0x0,
	XNVME_SPEC_LOG_ERRI = 0x1,
	XNVME_SPEC_LOG_HEALTH = 0x2,
	XNVME_SPEC_LOG_FW = 0x3,
	XNVME_SPEC_LOG_CHNS = 0x4,
	XNVME_SPEC_LOG_CSAE = 0x5,
	XNVME_SPEC_LOG_SELFTEST = 0x6,
	XNVME_SPEC_LOG_TELEHOST = 0x7,
	XNVME_SPEC_LOG_TELECTRLR = 0x8,
	XNVME_SPEC_LOG_FDPCONF = 0x20,
	XNVME_SPEC_LOG_FDPRUHU = 0x21,
	XNVME_SPEC_LOG_FDPSTATS = 0x22,
	XNVME_SPEC_LOG_FDPEVENTS = 0x23,
};

/** Zoned command set log page identifiers */
enum xnvme_spec_znd_log_lid {
	XNVME_SPEC_LOG_ZND_CHANGES = 0xBF,
};

/** Feature identifiers */
enum xnvme_spec_feat_id {
	XNVME_SPEC_FEAT_ARBITRATION = 0x1,
	XNVME_SPEC_FEAT_PWR_MGMT = 0x2,
	XNVME_SPEC_FEAT_LBA_RANGETYPE = 0x3,
	XNVME_SPEC_FEAT_TEMP_THRESHOLD = 0x4,
	XNVME_SPEC_FEAT_ERROR_RECOVERY = 0x5,
	XNVME_SPEC_FEAT_VWCACHE = 0x6,
	XNVME_SPEC_FEAT_NQUEUES = 0x7,
	XNVME_SPEC_FEAT_FDP_MODE = 0x1D,
	XNVME_SPEC_FEAT_FDP_EVENTS = 0x1E,
};

/** Get Features select (SEL) values */
enum xnvme_spec_feat_sel {
	XNVME_SPEC_FEAT_SEL_CURRENT = 0x0,
	XNVME_SPEC_FEAT_SEL_DEFAULT = 0x1,
	XNVME_SPEC_FEAT_SEL_SAVED = 0x2,
	XNVME_SPEC_FEAT_SEL_SUPPORTED = 0x3,
};

/** I/O command flags: CDW12 bits 16..31 expressed as a 16-bit value */
enum xnvme_spec_flag {
	XNVME_SPEC_FLAG_LIMITED_RETRY = 0x8000,
	XNVME_SPEC_FLAG_FORCE_UNIT_ACCESS = 0x4000,
	XNVME_SPEC_FLAG_PRINFO_PRCHK_REF = 0x400,
	XNVME_SPEC_FLAG_PRINFO_PRCHK_APP = 0x800,
	XNVME_SPEC_FLAG_PRINFO_PRCHK_GUARD = 0x1000,
	XNVME_SPEC_FLAG_PRINFO_PRACT = 0x2000,
};

/** I/O Management Receive operations */
enum xnvme_spec_io_mgmt_recv_mo {
	XNVME_SPEC_IO_MGMT_RECV_RUHS = 0x1, ///< Reclaim Unit Handle Status
};

/** I/O Management Send operations */
enum xnvme_spec_io_mgmt_send_mo {
	XNVME_SPEC_IO_MGMT_SEND_RUHU = 0x1, ///< Reclaim Unit Handle Update
};

/** Directive types */
enum xnvme_spec_dir_types {
	XNVME_SPEC_DIR_IDENTIFY = 0x0,
	XNVME_SPEC_DIR_STREAMS = 0x1,
};

/** Directive Send operations of the Identify directive */
enum xnvme_spec_dsend_idfy_doper {
	XNVME_SPEC_DSEND_IDFY_ENDIR = 0x1, ///< enable/disable a directive
};

/** Directive Send operations of the Streams directive */
enum xnvme_spec_dsend_streams_doper {
	XNVME_SPEC_DSEND_STREAMS_RELID = 0x1, ///< release identifier
	XNVME_SPEC_DSEND_STREAMS_RELRS = 0x2, ///< release resources
};

/** Directive Receive operations of the Identify directive */
enum xnvme_spec_drecv_idfy_doper {
	XNVME_SPEC_DRECV_IDFY_RETPR = 0x1, ///< return parameters
};

/** Directive Receive operations of the Streams directive */
enum xnvme_spec_drecv_streams_doper {
	XNVME_SPEC_DRECV_STREAMS_RETPR = 0x1, ///< return parameters
	XNVME_SPEC_DRECV_STREAMS_GETST = 0x2, ///< get status
	XNVME_SPEC_DRECV_STREAMS_ALLRS = 0x3, ///< allocate resources
};

/** SGL descriptor types */
enum xnvme_nvme_sgl_descriptor_type {
	XNVME_SPEC_SGL_DESCR_TYPE_DATA_BLOCK = 0x0,
	XNVME_SPEC_SGL_DESCR_TYPE_BIT_BUCKET = 0x1,
	XNVME_SPEC_SGL_DESCR_TYPE_SEGMENT = 0x2,
	XNVME_SPEC_SGL_DESCR_TYPE_LAST_SEGMENT = 0x3,
	XNVME_SPEC_SGL_DESCR_TYPE_KEYED_DATA_BLOCK = 0x4,
	XNVME_SPEC_SGL_DESCR_TYPE_VENDOR_SPECIFIC = 0xF,
};

/** SGL descriptor sub-types */
enum xnvme_spec_sgl_descriptor_subtype {
	XNVME_SPEC_SGL_DESCR_SUBTYPE_ADDRESS = 0x0,
	XNVME_SPEC_SGL_DESCR_SUBTYPE_OFFSET = 0x1,
};

/** PRP or SGL for Data Transfer (PSDT) values of CDW0 */
enum xnvme_spec_psdt {
	XNVME_SPEC_PSDT_PRP = 0x0,
	XNVME_SPEC_PSDT_SGL_MPTR_CONTIGUOUS = 0x1,
	XNVME_SPEC_PSDT_SGL_MPTR_SGL = 0x2,
};

/** NVM command set specific status codes */
enum xnvme_spec_nvm_cmd_cpl_sc {
	XNVME_SPEC_NVM_CMD_CPL_SC_WRITE_TO_RONLY = 0x82,
};

/** Simple Copy source range formats, as a bit mask */
enum xnvme_nvm_scopy_fmt {
	XNVME_NVM_SCOPY_FMT_ZERO = 0x1,
	XNVME_NVM_SCOPY_FMT_SRCLEN = 0x100,
};

/** Protection Information Format (guard size) of an extended LBA format */
enum xnvme_spec_nvm_ns_pif {
	XNVME_SPEC_NVM_NS_16B_GUARD = 0x0,
	XNVME_SPEC_NVM_NS_32B_GUARD = 0x1,
	XNVME_SPEC_NVM_NS_64B_GUARD = 0x2,
};

/** Zoned command set opcodes */
enum xnvme_spec_znd_opc {
	XNVME_SPEC_ZND_OPC_MGMT_SEND = 0x79,
	XNVME_SPEC_ZND_OPC_MGMT_RECV = 0x7A,
	XNVME_SPEC_ZND_OPC_APPEND = 0x7D,
};

/** Zone Send Actions (ZSA) of Zone Management Send */
enum xnvme_spec_znd_cmd_mgmt_send_action {
	XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE = 0x1,
	XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH = 0x2,
	XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN = 0x3,
	XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET = 0x4,
	XNVME_SPEC_ZND_CMD_MGMT_SEND_OFFLINE = 0x5,
	XNVME_SPEC_ZND_CMD_MGMT_SEND_DESCRIPTOR = 0x10,
	XNVME_SPEC_ZND_CMD_MGMT_SEND_FLUSH = 0x11,
};

/** Zone Send Action Specific options */
enum xnvme_spec_znd_mgmt_send_action_so {
	XNVME_SPEC_ZND_MGMT_OPEN_WITH_ZRWA = 0x1,
};

/** Zone Receive Actions (ZRA) of Zone Management Receive */
enum xnvme_spec_znd_cmd_mgmt_recv_action {
	XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT = 0x0,
	XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT_EXTENDED = 0x1,
};

/** Zone Receive Action Specific field: which zone states to report */
enum xnvme_spec_znd_cmd_mgmt_recv_action_sf {
	XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL = 0x0,
	XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EMPTY = 0x1,
	XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_IOPEN = 0x2,
	XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EOPEN = 0x3,
	XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_CLOSED = 0x4,
	XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_FULL = 0x5,
	XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_RONLY = 0x6,
	XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_OFFLINE = 0x7,
};

/** Zone types */
enum xnvme_spec_znd_type {
	XNVME_SPEC_ZND_TYPE_SEQWR = 0x2, ///< sequential write required
};

/** Zone states, as found in the upper nibble of a zone descriptor's byte 1 */
enum xnvme_spec_znd_state {
	XNVME_SPEC_ZND_STATE_EMPTY = 0x1,
	XNVME_SPEC_ZND_STATE_IOPEN = 0x2,
	XNVME_SPEC_ZND_STATE_EOPEN = 0x3,
	XNVME_SPEC_ZND_STATE_CLOSED = 0x4,
	XNVME_SPEC_ZND_STATE_RONLY = 0xD,
	XNVME_SPEC_ZND_STATE_FULL = 0xE,
	XNVME_SPEC_ZND_STATE_OFFLINE = 0xF,
};

/** Zoned command set specific status codes */
enum xnvme_spec_znd_status_code {
	XNVME_SPEC_ZND_SC_INVALID_FORMAT = 0x7F,
	XNVME_SPEC_ZND_SC_INVALID_ZONE_OP = 0xB6,
	XNVME_SPEC_ZND_SC_NOZRWA = 0xB7,
	XNVME_SPEC_ZND_SC_BOUNDARY_ERROR = 0xB8,
	XNVME_SPEC_ZND_SC_IS_FULL = 0xB9,
	XNVME_SPEC_ZND_SC_IS_READONLY = 0xBA,
	XNVME_SPEC_ZND_SC_IS_OFFLINE = 0xBB,
	XNVME_SPEC_ZND_SC_INVALID_WRITE = 0xBC,
	XNVME_SPEC_ZND_SC_TOO_MANY_ACTIVE = 0xBD,
	XNVME_SPEC_ZND_SC_TOO_MANY_OPEN = 0xBE,
	XNVME_SPEC_ZND_SC_INVALID_TRANS = 0xBF,
};

/** Key-Value command set opcodes */
enum xnvme_spec_kv_opc {
	XNVME_SPEC_KV_OPC_STORE = 0x01,
	XNVME_SPEC_KV_OPC_RETRIEVE = 0x02,
	XNVME_SPEC_KV_OPC_DELETE = 0x10,
	XNVME_SPEC_KV_OPC_EXIST = 0x14,
	XNVME_SPEC_KV_OPC_LIST = 0x06,
};

/** Key-Value command set specific status codes */
enum xnvme_spec_kv_status_code {
	XNVME_SPEC_KV_SC_CAPACITY_EXCEEDED = 0x81,
	XNVME_SPEC_KV_SC_NS_NOT_READY = 0x82,
	XNVME_SPEC_KV_SC_RESERVATION_CONFLICT = 0x83,
	XNVME_SPEC_KV_SC_FORMAT_IN_PROGRESS = 0x84,
	XNVME_SPEC_KV_SC_INVALID_VAL_SIZE = 0x85,
	XNVME_SPEC_KV_SC_INVALID_KEY_SIZE = 0x86,
	XNVME_SPEC_KV_SC_KEY_NOT_EXISTS = 0x87,
	XNVME_SPEC_KV_SC_UNRECOVERED_ERR = 0x88,
	XNVME_SPEC_KV_SC_KEY_EXISTS = 0x89,
};

/* ------------------------------------------------------------------------------------------ */
/* Completion entry                                                                           */
/* ------------------------------------------------------------------------------------------ */

/** Completion status word: phase tag, status code (SC) and type (SCT), more, do-not-retry */
struct xnvme_spec_status {
	__extension__ union {
		__extension__ struct {
			uint16_t p : 1;   ///< phase tag
			uint16_t sc : 8;  ///< status code
			uint16_t sct : 3; ///< status code type
			uint16_t rsvd2 : 2;
			uint16_t m : 1;   ///< more information in the error log
			uint16_t dnr : 1; ///< do not retry
		};
		uint16_t val; ///< the whole word, phase tag included
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_status) == 2, "Incorrect size")

/** Completion queue entry; result overlays DW0-DW1 as the 64-bit command-specific result */
struct xnvme_spec_cpl {
	__extension__ union {
		__extension__ struct {
			uint32_t cdw0;
			uint32_t rsvd1;
		};
		uint64_t result;
	};
	uint16_t sqhd; ///< submission queue head pointer
	uint16_t sqid; ///< submission queue identifier
	uint16_t cid;  ///< command identifier
	struct xnvme_spec_status status;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cpl) == 16, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_cpl, sqhd) == 8, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_cpl, status) == 14, "Incorrect offset")

/* ------------------------------------------------------------------------------------------ */
/* Submission entry and its views                                                             */
/* ------------------------------------------------------------------------------------------ */

/** Scatter-Gather List descriptor, as carried in DPTR */
struct xnvme_spec_sgl_descriptor {
	uint64_t addr;
	__extension__ union {
		struct {
			uint64_t rsvd : 56;
			uint64_t subtype : 4;
			uint64_t type : 4;
		} generic;

		struct {
			uint64_t len : 32;
			uint64_t rsvd : 24;
			uint64_t subtype : 4;
			uint64_t type : 4;
		} unkeyed;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_sgl_descriptor) == 16, "Incorrect size")

/** Common layout of a submission queue entry: CDW0, NSID, MPTR, DPTR and CDW10-15 */
struct xnvme_spec_cmd_common {
	uint16_t opcode : 8;
	uint16_t fuse : 2;
	uint16_t rsvd : 4;
	uint16_t psdt : 2;
	uint16_t cid;

	uint32_t nsid;

	uint32_t cdw02;
	uint32_t cdw03;

	uint64_t mptr;

	union {
		struct {
			uint64_t prp1;
			uint64_t prp2;
		} prp;

		struct xnvme_spec_sgl_descriptor sgl;

		/** Shape used when handing the command to the Linux NVMe passthrough ioctl */
		struct {
			uint64_t data;
			uint32_t metadata_len;
			uint32_t data_len;
		} lnx_ioctl;
	} dptr;

	uint32_t ndt; ///< CDW10
	uint32_t ndm; ///< CDW11

	uint32_t cdw12;
	uint32_t cdw13;
	uint32_t cdw14;
	uint32_t cdw15;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cmd_common) == 64, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_cmd_common, mptr) == 16, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_cmd_common, dptr) == 24, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_cmd_common, ndt) == 40, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_cmd_common, cdw12) == 48, "Incorrect offset")

/** Sanitize command view (admin) */
struct xnvme_spec_cmd_sanitize {
	uint32_t cdw00_09[10];

	uint32_t sanact : 3; ///< sanitize action
	uint32_t ause : 1;   ///< allow unrestricted sanitize exit
	uint32_t owpass : 4; ///< overwrite pass count
	uint32_t oipbp : 1;  ///< overwrite invert pattern between passes
	uint32_t nodas : 1;  ///< no deallocate after sanitize
	uint32_t rsvd : 22;

	uint32_t ovrpat; ///< overwrite pattern

	uint32_t cdw12_15[4];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cmd_sanitize) == 64, "Incorrect size")

/** Format NVM command view (admin) */
struct xnvme_spec_cmd_format {
	uint32_t cdw00_09[10];

	uint32_t lbafl : 4; ///< LBA format index, lower bits
	uint32_t mset : 1;  ///< metadata settings
	uint32_t pi : 3;    ///< protection information type
	uint32_t pil : 1;   ///< protection information location
	uint32_t ses : 3;   ///< secure erase settings
	uint32_t lbafu : 2; ///< LBA format index, upper bits
	uint32_t rsvd : 18;

	uint32_t cdw11_15[5];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cmd_format) == 64, "Incorrect size")

/** Get Log Page command view (admin) */
struct xnvme_spec_cmd_log {
	uint32_t cdw00_09[10];

	uint32_t lid : 8;    ///< log page identifier
	uint32_t lsp : 7;    ///< log specific field
	uint32_t rae : 1;    ///< retain asynchronous event
	uint32_t numdl : 16; ///< number of dwords, lower (zero-based)

	uint32_t numdu : 16; ///< number of dwords, upper
	uint32_t lsi : 16;   ///< log specific identifier

	uint32_t lpol; ///< log page offset, lower
	uint32_t lpou; ///< log page offset, upper

	uint32_t uuidx : 7;
	uint32_t rsvd1 : 16;
	uint32_t ot : 1;  ///< offset type
	uint32_t csi : 8; ///< command set identifier

	uint32_t cdw15;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cmd_log) == 64, "Incorrect size")

/** Get Features command view (admin) */
struct xnvme_spec_cmd_gfeat {
	uint32_t cdw00_09[10];

	union {
		__extension__ struct {
			uint32_t fid : 8; ///< feature identifier
			uint32_t sel : 3; ///< select, see enum xnvme_spec_feat_sel
			uint32_t rsvd10 : 21;
		};
		uint32_t val;
	} cdw10;

	uint32_t cdw11;

	uint32_t cdw12_15[4];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cmd_gfeat) == 64, "Incorrect size")

/** Feature value (CDW11 of Set Features, DW0 of a Get Features completion) */
struct xnvme_spec_feat {
	__extension__ union {
		struct {
			uint32_t tmpth : 16; ///< temperature threshold, in Kelvin
			uint32_t tmpsel : 4; ///< threshold temperature select
			uint32_t thsel : 3;  ///< threshold type select
			uint32_t rsvd : 9;
		} temp_threshold;

		struct {
			uint32_t tler : 16; ///< time limited error recovery
			uint32_t dulbe : 1; ///< deallocated or unwritten logical block error enable
			uint32_t rsvd : 15;
		} error_recovery;

		struct {
			uint32_t nsqa : 16; ///< number of submission queues allocated
			uint32_t ncqa : 16; ///< number of completion queues allocated
		} nqueues;

		struct {
			uint32_t fdpe : 1; ///< flexible data placement enable
			uint32_t rsvd1 : 7;
			uint32_t fdpci : 8; ///< FDP configuration index
			uint32_t rsvd2 : 16;
		} fdp_mode;

		uint32_t val;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_feat) == 4, "Incorrect size")

/** Set Features command view (admin) */
struct xnvme_spec_cmd_sfeat {
	uint32_t cdw00_09[10];

	union {
		__extension__ struct {
			uint32_t fid : 8; ///< feature identifier
			uint32_t rsvd10 : 23;
			uint32_t save : 1; ///< make the value persistent
		};
		uint32_t val;
	} cdw10;

	struct xnvme_spec_feat feat; ///< CDW11

	uint32_t cdw12;

	uint32_t cdw13_15[3];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cmd_sfeat) == 64, "Incorrect size")

/** Identify command view (admin) */
struct xnvme_spec_cmd_idfy {
	uint32_t cdw00_09[10];

	uint32_t cns : 8; ///< controller or namespace structure
	uint32_t rsvd1 : 8;
	uint32_t cntid : 16; ///< controller identifier

	uint32_t nvmsetid : 16; ///< NVM set identifier
	uint32_t rsvd2 : 8;
	uint32_t csi : 8; ///< command set identifier

	uint32_t cdw12_13[2];

	uint32_t uuid : 7; ///< UUID index
	uint32_t rsvd3 : 25;

	uint32_t cdw15;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cmd_idfy) == 64, "Incorrect size")

/** Directive Send command view (admin) */
struct xnvme_spec_cmd_dsend {
	uint32_t cdw00_09[10];

	uint32_t numd; ///< number of dwords (zero-based)

	uint32_t doper : 8;  ///< directive operation
	uint32_t dtype : 8;  ///< directive type
	uint32_t dspec : 16; ///< directive specific

	union {
		__extension__ struct {
			uint32_t endir : 1; ///< enable directive
			uint32_t rsvd1 : 7;
			uint32_t tdtype : 8; ///< target directive type
			uint32_t rsvd2 : 16;
		};
		uint32_t val;
	} cdw12;

	uint32_t cdw13_15[3];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cmd_dsend) == 64, "Incorrect size")

/** Directive Receive command view (admin) */
struct xnvme_spec_cmd_drecv {
	uint32_t cdw00_09[10];

	uint32_t numd; ///< number of dwords (zero-based)

	uint32_t doper : 8;  ///< directive operation
	uint32_t dtype : 8;  ///< directive type
	uint32_t dspec : 16; ///< directive specific

	union {
		__extension__ struct {
			uint32_t nsr : 16; ///< number of streams requested
			uint32_t rsvd : 16;
		};
		uint32_t val;
	} cdw12;

	uint32_t cdw13_15[3];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cmd_drecv) == 64, "Incorrect size")

/** Read/Write (and file command set) view: SLBA, NLB, directives and protection fields */
struct xnvme_spec_cmd_nvm {
	uint32_t cdw00_09[10];

	uint64_t slba; ///< starting LBA (a byte offset for the file command set)

	uint32_t nlb : 16; ///< number of logical blocks (zero-based)
	uint32_t rsvd : 4;
	uint32_t dtype : 4; ///< directive type
	uint32_t rsvd2 : 2;
	uint32_t prinfo : 4; ///< PRACT (bit 3) and PRCHK (bits 2..0)
	uint32_t fua : 1;    ///< force unit access
	uint32_t lr : 1;     ///< limited retry

	union {
		__extension__ struct {
			uint32_t af : 4;    ///< access frequency
			uint32_t al : 2;    ///< access latency
			uint32_t sr : 1;    ///< sequential request
			uint32_t incom : 1; ///< incompressible
			uint32_t rsvd3 : 8;
			uint32_t dspec : 16; ///< directive specific (e.g. placement handle)
		};
		uint32_t val;
	} cdw13;

	uint32_t ilbrt : 32; ///< initial logical block reference tag (lower 32 bits)

	uint32_t lbat : 16;  ///< logical block application tag
	uint32_t lbatm : 16; ///< logical block application tag mask
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cmd_nvm) == 64, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_cmd_nvm, slba) == 40, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_cmd_nvm, cdw13) == 52, "Incorrect offset")

/** Dataset Management command view */
struct xnvme_spec_cmd_dsm {
	uint32_t cdw00_09[10];

	uint32_t nr : 8; ///< number of ranges (zero-based)
	uint32_t rsvd1 : 24;

	uint32_t idr : 1; ///< integral dataset for read
	uint32_t idw : 1; ///< integral dataset for write
	uint32_t ad : 1;  ///< deallocate
	uint32_t rsvd2 : 29;

	uint32_t cdw12_15[4];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cmd_dsm) == 64, "Incorrect size")

/** Simple Copy command view */
struct xnvme_spec_nvm_cmd_scopy {
	uint32_t cdw00_09[10];

	uint64_t sdlba; ///< starting destination LBA

	uint32_t nr : 8;      ///< number of source ranges (zero-based)
	uint32_t df : 4;      ///< descriptor format
	uint32_t prinfor : 4; ///< protection information for reads
	uint32_t rsvd1 : 4;
	uint32_t dtype : 4; ///< directive type
	uint32_t rsvd2 : 2;
	uint32_t prinfow : 4; ///< protection information for writes
	uint32_t fua : 1;
	uint32_t lr : 1;

	uint32_t rsvd3 : 16;
	uint32_t dspec : 16; ///< directive specific

	uint32_t ilbrt; ///< initial logical block reference tag

	uint32_t lbat : 16;
	uint32_t lbatm : 16;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_nvm_cmd_scopy) == 64, "Incorrect size")

/** Container of NVM command set views that are not part of the generic views */
struct xnvme_spec_nvm_cmd {
	__extension__ union {
		struct xnvme_spec_nvm_cmd_scopy scopy;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_nvm_cmd) == 64, "Incorrect size")

/** Write Zeroes command view */
struct xnvme_spec_nvm_write_zeroes {
	uint32_t cdw00_09[10];

	uint64_t slba;

	uint32_t nlb : 16; ///< number of logical blocks (zero-based)
	uint32_t rsvd1 : 8;
	uint32_t stc : 1;  ///< storage tag check
	uint32_t deac : 1; ///< deallocate
	uint32_t prinfo : 4;
	uint32_t fua : 1;
	uint32_t lr : 1;

	uint32_t cdw_13;

	uint32_t ilbrt : 32;

	uint32_t lbat : 16;
	uint32_t lbatm : 16;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_nvm_write_zeroes) == 64, "Incorrect size")

/** Compare command view */
struct xnvme_spec_nvm_compare {
	uint32_t cdw00_09[10];

	uint64_t slba;

	uint32_t nlb : 16; ///< number of logical blocks (zero-based)
	uint32_t rsvd1 : 8;
	uint32_t stc : 1; ///< storage tag check
	uint32_t rsvd2 : 1;
	uint32_t prinfo : 4;
	uint32_t fua : 1;
	uint32_t lr : 1;

	uint32_t cdw_13;

	uint32_t ilbrt : 32;

	uint32_t lbat : 16;
	uint32_t lbatm : 16;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_nvm_compare) == 64, "Incorrect size")

/** Zone Management Send command view */
struct xnvme_spec_znd_cmd_mgmt_send {
	uint32_t cdw00_09[10];

	uint64_t slba;

	uint32_t nrange; ///< CDW12

	uint32_t zsa : 8;        ///< zone send action
	uint32_t select_all : 1; ///< apply to all zones
	uint32_t zsaso : 1;      ///< zone send action specific option
	uint32_t rsvd : 22;

	uint32_t cdw14_15[2];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_znd_cmd_mgmt_send) == 64, "Incorrect size")

/** Zone Management Receive command view */
struct xnvme_spec_znd_cmd_mgmt_recv {
	uint32_t cdw00_09[10];

	uint64_t slba;

	uint32_t ndwords; ///< number of dwords (zero-based)

	uint32_t zra : 8;     ///< zone receive action
	uint32_t zrasf : 8;   ///< zone receive action specific field
	uint32_t partial : 1; ///< partial report
	uint32_t rsvd : 15;

	uint64_t addrs_dst;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_znd_cmd_mgmt_recv) == 64, "Incorrect size")

/** Zone Append command view; prinfo sits at bits 24..27 here, kept as-is for ABI */
struct xnvme_spec_znd_cmd_append {
	uint32_t cdw00_09[10];

	uint64_t zslba; ///< zone start LBA

	uint32_t nlb : 16; ///< number of logical blocks (zero-based)
	uint32_t rsvd : 4;
	uint32_t dtype : 4;
	uint32_t prinfo : 4;
	uint32_t rsvd2 : 2;
	uint32_t fua : 1;
	uint32_t lr : 1;

	uint32_t cdw13_15[3];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_znd_cmd_append) == 64, "Incorrect size")

/** Zoned command set views */
struct xnvme_spec_znd_cmd {
	__extension__ union {
		struct xnvme_spec_znd_cmd_mgmt_send mgmt_send;
		struct xnvme_spec_znd_cmd_mgmt_recv mgmt_recv;
		struct xnvme_spec_znd_cmd_append append;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_znd_cmd) == 64, "Incorrect size")

/** I/O Management Receive command view */
struct xnvme_spec_io_mgmt_recv_cmd {
	uint32_t cdw00_09[10];

	uint32_t mo : 8; ///< management operation
	uint32_t rsvd : 8;
	uint32_t mos : 16; ///< management operation specific

	uint32_t numd; ///< number of dwords (zero-based)

	uint32_t cdw12_15[4];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_io_mgmt_recv_cmd) == 64, "Incorrect size")

/** I/O Management Send command view */
struct xnvme_spec_io_mgmt_send_cmd {
	uint32_t cdw00_09[10];

	uint32_t mo : 8; ///< management operation
	uint32_t rsvd : 8;
	uint32_t mos : 16; ///< management operation specific

	uint32_t cdw11_15[5];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_io_mgmt_send_cmd) == 64, "Incorrect size")

/** I/O Management command views */
struct xnvme_spec_io_mgmt_cmd {
	__extension__ union {
		struct xnvme_spec_io_mgmt_recv_cmd mgmt_recv;
		struct xnvme_spec_io_mgmt_send_cmd mgmt_send;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_io_mgmt_cmd) == 64, "Incorrect size")

/** Key-Value command view: key bytes 0-7 in CDW2-3, 8-15 in CDW14-15 */
struct xnvme_spec_kvs_cmd {
	uint32_t cdw0;
	uint32_t nsid;
	uint64_t key; ///< key bytes 0..7
	uint64_t mptr;
	uint32_t cdw06;
	uint32_t cdw07;
	uint32_t cdw08;
	uint32_t cdw09;
	uint32_t cdw10; ///< value size / host buffer size

	struct {
		uint8_t kl; ///< key length
		uint8_t ro; ///< store/retrieve options
		uint16_t rsvd;
	} cdw11;

	uint32_t cdw12;
	uint32_t cdw13;
	uint64_t key_hi; ///< key bytes 8..15
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_kvs_cmd) == 64, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_kvs_cmd, cdw11) == 44, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_kvs_cmd, key_hi) == 56, "Incorrect offset")

/** Submission queue entry: one 64-byte command seen through every command view */
struct xnvme_spec_cmd {
	__extension__ union {
		struct xnvme_spec_cmd_common common;
		struct xnvme_spec_cmd_sanitize sanitize;
		struct xnvme_spec_cmd_format format;
		struct xnvme_spec_cmd_log log;
		struct xnvme_spec_cmd_gfeat gfeat;
		struct xnvme_spec_cmd_sfeat sfeat;
		struct xnvme_spec_cmd_idfy idfy;
		struct xnvme_spec_cmd_dsend dsend;
		struct xnvme_spec_cmd_drecv drecv;
		struct xnvme_spec_cmd_nvm nvm;
		struct xnvme_spec_cmd_dsm dsm;
		struct xnvme_spec_nvm_cmd_scopy scopy;
		struct xnvme_spec_nvm_write_zeroes write_zeroes;
		struct xnvme_spec_znd_cmd znd;
		struct xnvme_spec_io_mgmt_cmd mgmt;
		struct xnvme_spec_kvs_cmd kvs;
		struct xnvme_spec_nvm_compare compare;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cmd) == 64, "Incorrect size")

/* ------------------------------------------------------------------------------------------ */
/* Identify data                                                                              */
/* ------------------------------------------------------------------------------------------ */

/** LBA Format: metadata size, data size (log2) and relative performance */
struct xnvme_spec_lbaf {
	uint16_t ms;    ///< metadata bytes per LBA
	uint8_t ds;     ///< LBA data size, as a power of two
	uint8_t rp : 2; ///< relative performance
	uint8_t rsvd : 6;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_lbaf) == 4, "Incorrect size")

/** Extended LBA Format: storage tag size and protection information format */
struct xnvme_spec_elbaf {
	uint32_t sts : 7; ///< storage tag size
	uint32_t pif : 2; ///< protection information format, see enum xnvme_spec_nvm_ns_pif
	uint32_t rsvd : 23;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_elbaf) == 4, "Incorrect size")

/** Identify Namespace data structure (CNS 0x00) */
struct xnvme_spec_idfy_ns {
	uint64_t nsze; ///< namespace size, in LBAs
	uint64_t ncap; ///< namespace capacity, in LBAs
	uint64_t nuse; ///< namespace utilization, in LBAs

	struct {
		uint8_t thin_prov : 1;
		uint8_t ns_atomic_write_unit : 1;
		uint8_t dealloc_or_unwritten_error : 1;
		uint8_t guid_never_reused : 1;
		uint8_t optimal_performance : 1;
		uint8_t reserved1 : 3;
	} nsfeat;

	uint8_t nlbaf; ///< number of LBA formats (zero-based)

	struct {
		uint8_t format : 4;     ///< active LBA format index, lower 4 bits
		uint8_t extended : 1;   ///< metadata interleaved with data
		uint8_t format_msb : 2; ///< active LBA format index, upper 2 bits
		uint8_t reserved2 : 1;
	} flbas;

	struct {
		uint8_t extended : 1;
		uint8_t pointer : 1;
		uint8_t reserved3 : 6;
	} mc;

	union {
		__extension__ struct {
			uint8_t pit1 : 1;
			uint8_t pit2 : 1;
			uint8_t pit3 : 1;
			uint8_t md_start : 1;
			uint8_t md_end : 1;
			uint8_t reserved : 3;
		};
		uint8_t val;
	} dpc;

	union {
		__extension__ struct {
			uint8_t pit : 3;      ///< protection type (0 = none)
			uint8_t md_start : 1; ///< PI in the first bytes of the metadata
			uint8_t reserved4 : 4;
		};
		uint8_t val;
	} dps;

	struct {
		uint8_t can_share : 1;
		uint8_t reserved : 7;
	} nmic;

	union {
		__extension__ struct {
			uint8_t persist : 1;
			uint8_t write_exclusive : 1;
			uint8_t exclusive_access : 1;
			uint8_t write_exclusive_reg_only : 1;
			uint8_t exclusive_access_reg_only : 1;
			uint8_t write_exclusive_all_reg : 1;
			uint8_t exclusive_access_all_reg : 1;
			uint8_t ignore_existing_key : 1;
		};
		uint8_t val;
	} nsrescap;

	union {
		__extension__ struct {
			uint8_t percentage_remaining : 7;
			uint8_t fpi_supported : 1;
		};
		uint8_t val;
	} fpi;

	union {
		struct {
			uint8_t read_value : 3;
			uint8_t write_zero_deallocate : 1;
			uint8_t guard_value : 1;
			uint8_t reserved : 3;
		} bits;
		uint8_t val;
	} dlfeat;

	uint16_t nawun;
	uint16_t nawupf;
	uint16_t nacwu;
	uint16_t nabsn;
	uint16_t nabo;
	uint16_t nabspf;
	uint16_t noiob;

	uint64_t nvmcap[2];

	uint16_t npwg;
	uint16_t npwa;
	uint16_t npdg;
	uint16_t npda;
	uint16_t nows;

	uint16_t mssrl; ///< maximum single source range length (simple copy)
	uint32_t mcl;   ///< maximum copy length
	uint8_t msrc;   ///< maximum source range count (zero-based)

	uint8_t reserved81[11];

	uint32_t anagrpid;

	uint8_t reserved96[3];

	uint8_t nsattr;
	uint16_t nvmsetid;
	uint16_t endgid;
	uint8_t nguid[16];
	uint64_t eui64;

	struct xnvme_spec_lbaf lbaf[64];

	uint8_t vendor_specific[3712];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_idfy_ns) == 4096, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ns, dlfeat) == 33, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ns, nvmcap) == 48, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ns, anagrpid) == 92, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ns, eui64) == 120, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ns, lbaf) == 128, "Incorrect offset")

/** Version register / VER field: major, minor and tertiary version */
union xnvme_spec_vs_register {
	struct {
		uint32_t ter : 8;  ///< tertiary
		uint32_t mnr : 8;  ///< minor
		uint32_t mjr : 16; ///< major
	} bits;
	uint32_t val;
};
XNVME_STATIC_ASSERT(sizeof(union xnvme_spec_vs_register) == 4, "Incorrect size")

/** Power State Descriptor of Identify Controller */
struct xnvme_spec_power_state {
	uint16_t mp; ///< maximum power
	uint8_t reserved1;

	uint8_t mps : 1;  ///< max power scale
	uint8_t nops : 1; ///< non-operational state
	uint8_t reserved2 : 6;

	uint32_t enlat; ///< entry latency
	uint32_t exlat; ///< exit latency

	uint8_t rrt : 5; ///< relative read throughput
	uint8_t reserved3 : 3;

	uint8_t rrl : 5; ///< relative read latency
	uint8_t reserved4 : 3;

	uint8_t rwt : 5; ///< relative write throughput
	uint8_t reserved5 : 3;

	uint8_t rwl : 5; ///< relative write latency
	uint8_t reserved6 : 3;

	uint16_t idlp; ///< idle power

	uint8_t reserved7 : 6;
	uint8_t ips : 2; ///< idle power scale

	uint8_t reserved8;

	uint16_t actp; ///< active power

	uint8_t apw : 3; ///< active power workload
	uint8_t reserved9 : 3;
	uint8_t aps : 2; ///< active power scale

	uint8_t reserved10[9];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_power_state) == 32, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_power_state, idlp) == 16, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_power_state, actp) == 20, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_power_state, reserved10) == 23, "Incorrect offset")

/** Identify Controller data structure (CNS 0x01) */
struct xnvme_spec_idfy_ctrlr {
	uint16_t vid;   ///< PCI vendor id
	uint16_t ssvid; ///< PCI subsystem vendor id

	int8_t sn[XNVME_SPEC_CTRLR_SN_LEN];  ///< serial number, space padded
	int8_t mn[XNVME_SPEC_CTRLR_MN_LEN];  ///< model number, space padded
	uint8_t fr[XNVME_SPEC_CTRLR_FR_LEN]; ///< firmware revision

	uint8_t rab; ///< recommended arbitration burst
	uint8_t ieee[3];

	union {
		__extension__ struct {
			uint8_t multi_port : 1;
			uint8_t multi_host : 1;
			uint8_t sr_iov : 1;
			uint8_t ana_rprt : 1;
			uint8_t reserved : 4;
		};
		uint8_t val;
	} cmic;

	uint8_t mdts; ///< maximum data transfer size, log2 of minimum page size units
	uint16_t cntlid;

	union xnvme_spec_vs_register ver;

	uint32_t rtd3r; ///< RTD3 resume latency
	uint32_t rtd3e; ///< RTD3 entry latency

	union {
		__extension__ struct {
			uint32_t reserved1 : 8;
			uint32_t ns_attribute_notices : 1;
			uint32_t fw_activation_notices : 1;
			uint32_t reserved2 : 1;
			uint32_t ana_notices : 1;
			uint32_t pleal_notices : 1;
			uint32_t lba_sia_notices : 1;
			uint32_t egea_notices : 1;
			uint32_t normal_nvm_ss : 1;
			uint32_t reserved3 : 11;
			uint32_t zone_changes : 1;
			uint32_t reserved4 : 3;
			uint32_t discovery_log_notices : 1;
		};
		uint32_t val;
	} oaes;

	union {
		__extension__ struct {
			uint32_t host_id_exhid_supported : 1;
			uint32_t non_operational_power_state_permissive_mode : 1;
			uint32_t nvm_sets : 1;
			uint32_t read_recovery_levels : 1;
			uint32_t endurance_groups : 1;
			uint32_t predictable_latency_mode : 1;
			uint32_t tbkas : 1;
			uint32_t namespace_granularity : 1;
			uint32_t sq_associations : 1;
			uint32_t uuid_list : 1;
			uint32_t multi_domain_subsystem : 1;
			uint32_t fixed_capacity_management : 1;
			uint32_t variable_capacity_management : 1;
			uint32_t delete_endurance_group : 1;
			uint32_t delete_nvm_set : 1;
			uint32_t extended_lba_formats : 1;
			uint32_t reserved1 : 3;
			uint32_t flexible_data_placement : 1;
			uint32_t reserved2 : 12;
		};
		uint32_t val;
	} ctratt;

	uint16_t rrls; ///< read recovery levels supported

	uint8_t reserved_102[9];

	uint8_t cntrltype; ///< controller type

	uint8_t fguid[16];

	uint16_t crdt1; ///< command retry delay times
	uint16_t crdt2;
	uint16_t crdt3;

	uint8_t reserved_134[119];

	union {
		__extension__ struct {
			uint8_t nvmesd : 1;
			uint8_t nvmee : 1;
			uint8_t nvmsr_rsvd : 6;
		};
		uint8_t val;
	} nvmsr;

	union {
		__extension__ struct {
			uint8_t vwcr : 7;
			uint8_t vwcrv : 1;
		};
		uint8_t val;
	} vwci;

	union {
		__extension__ struct {
			uint8_t smbusme : 1;
			uint8_t pcieme : 1;
			uint8_t mec_rsvd : 6;
		};
		uint8_t val;
	} mec;

	/* Admin command set attributes, from byte 256 */

	union {
		__extension__ struct {
			uint16_t security : 1;
			uint16_t format : 1;
			uint16_t firmware : 1;
			uint16_t ns_manage : 1;
			uint16_t device_self_test : 1;
			uint16_t directives : 1;
			uint16_t nvme_mi : 1;
			uint16_t virtualization_management : 1;
			uint16_t doorbell_buffer_config : 1;
			uint16_t lba_status : 1;
			uint16_t cmd_feature_lockdown : 1;
			uint16_t oacs_rsvd : 5;
		};
		uint16_t val;
	} oacs;

	uint8_t acl;  ///< abort command limit
	uint8_t aerl; ///< asynchronous event request limit

	union {
		__extension__ struct {
			uint8_t slot1_ro : 1;
			uint8_t num_slots : 3;
			uint8_t activation_without_reset : 1;
			uint8_t mul_update_detection : 1;
			uint8_t frmw_rsvd : 2;
		};
		uint8_t val;
	} frmw;

	union {
		__extension__ struct {
			uint8_t ns_smart : 1;
			uint8_t celp : 1;
			uint8_t edlp : 1;
			uint8_t telemetry : 1;
			uint8_t pel : 1;
			uint8_t mel : 1;
			uint8_t tel_da4 : 1;
			uint8_t lpa_rsvd : 1;
		};
		uint8_t val;
	} lpa;

	uint8_t elpe; ///< error log page entries (zero-based)
	uint8_t npss; ///< number of power states supported (zero-based)

	union {
		__extension__ struct {
			uint8_t spec_format : 1;
			uint8_t avscc_rsvd : 7;
		};
		uint8_t val;
	} avscc;

	union {
		__extension__ struct {
			uint8_t supported : 1;
			uint8_t apsta_rsvd : 7;
		};
		uint8_t val;
	} apsta;

	uint16_t wctemp; ///< warning composite temperature threshold
	uint16_t cctemp; ///< critical composite temperature threshold
	uint16_t mtfa;   ///< maximum time for firmware activation
	uint32_t hmpre;  ///< host memory buffer preferred size
	uint32_t hmmin;  ///< host memory buffer minimum size

	uint64_t tnvmcap[2]; ///< total NVM capacity, in bytes
	uint64_t unvmcap[2]; ///< unallocated NVM capacity, in bytes

	union {
		__extension__ struct {
			uint8_t num_rpmb_units : 3;
			uint8_t auth_method : 3;
			uint8_t reserved1 : 2;
			uint8_t reserved2;
			uint8_t total_size;
			uint8_t access_size;
		};
		uint32_t val;
	} rpmbs;

	uint16_t edstt; ///< extended device self-test time

	union {
		struct {
			uint8_t one_only : 1;
			uint8_t reserved : 7;
		} bits;
		uint8_t val;
	} dsto;

	uint8_t fwug; ///< firmware update granularity

	uint16_t kas; ///< keep alive support

	union {
		struct {
			uint16_t supported : 1;
			uint16_t reserved : 15;
		} bits;
		uint16_t val;
	} hctma;

	uint16_t mntmt; ///< minimum thermal management temperature
	uint16_t mxtmt; ///< maximum thermal management temperature

	union {
		struct {
			uint32_t crypto_erase : 1;
			uint32_t block_erase : 1;
			uint32_t overwrite : 1;
			uint32_t reserved : 26;
			uint32_t ndi : 1;
			uint32_t nodmmas : 2;
		} bits;
		uint32_t val;
	} sanicap;

	uint32_t hmminds; ///< host memory buffer minimum descriptor entry size
	uint16_t hmmaxd;  ///< host memory maximum descriptors entries

	uint16_t nsetidmax;
	uint16_t endgidmax;

	uint8_t anatt; ///< ANA transition time

	union {
		struct {
			uint8_t optimize : 1;
			uint8_t non_optimize : 1;
			uint8_t inaccessible : 1;
			uint8_t persist_loss : 1;
			uint8_t change : 1;
			uint8_t reserved1 : 1;
			uint8_t ns_anagrpid : 1;
			uint8_t mgt_anagrpid : 1;
		} bits;
		uint8_t val;
	} anacap;

	uint32_t anagrpmax;
	uint32_t nanagrpid;

	uint32_t pels; ///< persistent event log size

	uint16_t domain_identifier;

	uint8_t reserved_358[10];

	uint64_t megcap[2]; ///< max endurance group capacity

	uint8_t reserved_384[128];

	/* NVM command set attributes, from byte 512 */

	union {
		__extension__ struct {
			uint8_t min : 4;
			uint8_t max : 4;
		};
		uint8_t val;
	} sqes;

	union {
		__extension__ struct {
			uint8_t min : 4;
			uint8_t max : 4;
		};
		uint8_t val;
	} cqes;

	uint16_t maxcmd;

	uint32_t nn; ///< number of namespaces

	union {
		__extension__ struct {
			uint16_t compare : 1;
			uint16_t write_unc : 1;
			uint16_t dsm : 1;
			uint16_t write_zeroes : 1;
			uint16_t set_features_save : 1;
			uint16_t reservations : 1;
			uint16_t timestamp : 1;
			uint16_t verify : 1;
			uint16_t copy : 1;
			uint16_t reserved : 7;
		};
		uint16_t val;
	} oncs;

	uint16_t fuses;

	union {
		__extension__ struct {
			uint8_t format_all_ns : 1;
			uint8_t erase_all_ns : 1;
			uint8_t crypto_erase_supported : 1;
			uint8_t nsid_ffffffff : 1;
			uint8_t reserved : 4;
		};
		uint8_t val;
	} fna;

	union {
		__extension__ struct {
			uint8_t present : 1;
			uint8_t flush_broadcast : 2;
			uint8_t reserved : 5;
		};
		uint8_t val;
	} vwc;

	uint16_t awun;
	uint16_t awupf;

	uint8_t nvscc;
	uint8_t nwpc;

	uint16_t acwu;

	union {
		__extension__ struct {
			uint16_t format0 : 1;
			uint16_t format1 : 1;
			uint16_t reserved : 14;
		};
		uint16_t val;
	} cdfs;

	union {
		__extension__ struct {
			uint32_t supported : 2;
			uint32_t keyed_sgl : 1;
			uint32_t reserved1 : 5;
			uint32_t sgl_desc_threshold : 8;
			uint32_t bit_bucket_descriptor : 1;
			uint32_t metadata_pointer : 1;
			uint32_t oversized_sgl : 1;
			uint32_t metadata_address : 1;
			uint32_t sgl_offset : 1;
			uint32_t transport_sgl : 1;
			uint32_t reserved2 : 10;
		};
		uint32_t val;
	} sgls;

	uint32_t mnan; ///< maximum number of allowed namespaces

	uint64_t maxdna[2];

	uint32_t maxcna;

	uint8_t reserved_564[204];

	uint8_t subnqn[256]; ///< NVM subsystem NVMe qualified name

	uint8_t reserved_1024[768];

	struct {
		uint32_t ioccsz;
		uint32_t iorcsz;
		uint16_t icdoff;

		struct {
			uint8_t ctrlr_model : 1;
			uint8_t reserved : 7;
		} ctrattr;

		uint8_t msdbd;

		struct {
			uint16_t disc_del : 1;
			uint16_t reserved : 15;
		} ofcs;

		uint8_t reserved[242];
	} nvmf_specific;

	struct xnvme_spec_power_state psd[32];

	uint8_t vs[1024];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_idfy_ctrlr) == 4096, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ctrlr, ver) == 80, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ctrlr, nvmsr) == 253, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ctrlr, oacs) == 256, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ctrlr, rpmbs) == 312, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ctrlr, sanicap) == 328, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ctrlr, megcap) == 368, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ctrlr, sqes) == 512, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ctrlr, sgls) == 536, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ctrlr, subnqn) == 768, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ctrlr, nvmf_specific) == 1792,
		    "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ctrlr, psd) == 2048, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_ctrlr, vs) == 3072, "Incorrect offset")

/** Command set vector: which I/O command sets a controller combination supports */
struct xnvme_spec_cs_vector {
	__extension__ union {
		__extension__ struct {
			uint64_t nvm : 1;
			uint64_t kv : 1;
			uint64_t zns : 1;
			uint64_t rsvd : 61;
		};
		uint64_t val;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_cs_vector) == 8, "Incorrect size")

/** I/O Command Set data structure (CNS 0x1C): the command set combinations */
struct xnvme_spec_idfy_cs {
	struct xnvme_spec_cs_vector iocsc[XNVME_SPEC_IDFY_CS_IOCSC_LEN];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_idfy_cs) == 4096, "Incorrect size")

/** Any 4096-byte identify buffer: controller, namespace or command-set data */
struct xnvme_spec_idfy {
	__extension__ union {
		struct xnvme_spec_idfy_ctrlr ctrlr;
		struct xnvme_spec_idfy_ns ns;
		struct xnvme_spec_idfy_cs cs;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_idfy) == 4096, "Incorrect size")

/** I/O command set specific Identify Controller data for the NVM command set (CNS 0x06) */
struct xnvme_spec_nvm_idfy_ctrlr {
	uint8_t vsl;    ///< verify size limit
	uint8_t wzsl;   ///< write zeroes size limit
	uint8_t wusl;   ///< write uncorrectable size limit
	uint8_t dmrl;   ///< dataset management ranges limit
	uint32_t dmrsl; ///< dataset management range size limit
	uint64_t dmsl;  ///< dataset management size limit

	uint8_t reserved16[4080];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_nvm_idfy_ctrlr) == 4096, "Incorrect size")

/** I/O command set specific Identify Namespace data for the NVM command set (CNS 0x05) */
struct xnvme_spec_nvm_idfy_ns {
	uint64_t lbstm; ///< logical block storage tag mask

	union {
		__extension__ struct {
			uint8_t gpists : 1; ///< 16b guard PI storage tag support
			uint8_t gpistm : 1; ///< 16b guard PI storage tag mask
			uint8_t stcrs : 1;  ///< storage tag check read support
			uint8_t reserved3 : 5;
		};
		uint8_t val;
	} pic;

	uint8_t reserved9[3];

	struct xnvme_spec_elbaf elbaf[64];

	uint8_t reserved268[3828];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_nvm_idfy_ns) == 4096, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_nvm_idfy_ns, elbaf) == 12, "Incorrect offset")

/** Identify buffer seen as generic or NVM command set specific data */
struct xnvme_spec_nvm_idfy {
	__extension__ union {
		struct xnvme_spec_idfy base;
		struct xnvme_spec_nvm_idfy_ctrlr ctrlr;
		struct xnvme_spec_nvm_idfy_ns ns;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_nvm_idfy) == 4096, "Incorrect size")

/** Zoned command set specific Identify Controller data (CNS 0x06, CSI 0x02) */
struct xnvme_spec_znd_idfy_ctrlr {
	uint8_t zasl; ///< zone append size limit

	uint8_t rsvd8[4095];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_znd_idfy_ctrlr) == 4096, "Incorrect size")

/** Zoned LBA Format Extension: zone size and zone descriptor extension size */
struct xnvme_spec_znd_idfy_lbafe {
	uint64_t zsze; ///< zone size, in LBAs
	uint8_t zdes;  ///< zone descriptor extension size, in 64-byte units
	uint8_t rsvd[7];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_znd_idfy_lbafe) == 16, "Incorrect size")

/** Zoned command set specific Identify Namespace data (CNS 0x05, CSI 0x02) */
struct xnvme_spec_znd_idfy_ns {
	union {
		struct {
			uint16_t vzcap : 1; ///< variable zone capacity
			uint16_t zae : 1;   ///< zone active excursions
			uint16_t rsvd : 14;
		} bits;
		uint16_t val;
	} zoc;

	union {
		struct {
			uint16_t razb : 1;    ///< read across zone boundaries
			uint16_t zrwasup : 1; ///< zone random write area supported
			uint16_t rsvd : 14;
		} bits;
		uint16_t val;
	} ozcs;

	uint32_t mar; ///< maximum active resources (zero-based, 0xFFFFFFFF = no limit)
	uint32_t mor; ///< maximum open resources (zero-based, 0xFFFFFFFF = no limit)
	uint32_t rrl; ///< reset recommended limit
	uint32_t frl; ///< finish recommended limit

	uint8_t rsvd12[24];

	uint32_t numzrwa; ///< number of ZRWA resources
	uint16_t zrwafg;  ///< ZRWA flush granularity
	uint16_t zrwas;   ///< ZRWA size

	union {
		struct {
			uint8_t expflushsup : 1; ///< explicit ZRWA flush supported
			uint8_t rsvd0 : 7;
		} bits;
		uint8_t val;
	} zrwacap;

	uint8_t rsvd53[2763];

	struct xnvme_spec_znd_idfy_lbafe lbafe[16];

	uint8_t rsvd3072[768];

	uint8_t vs[256];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_znd_idfy_ns) == 4096, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_znd_idfy_ns, numzrwa) == 44, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_znd_idfy_ns, lbafe) == 2816, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_znd_idfy_ns, vs) == 3840, "Incorrect offset")

/** Identify buffer seen as generic or Zoned command set specific data */
struct xnvme_spec_znd_idfy {
	__extension__ union {
		struct xnvme_spec_idfy base;
		struct xnvme_spec_znd_idfy_ctrlr zctrlr;
		struct xnvme_spec_znd_idfy_ns zns;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_znd_idfy) == 4096, "Incorrect size")

/** Key-Value format descriptor: key/value size limits of a KV format */
struct xnvme_spec_kvs_idfy_ns_format {
	uint16_t kml; ///< maximum key length
	uint8_t rsvd2;
	uint8_t fopt; ///< format options
	uint32_t vml; ///< maximum value length
	uint32_t mnk; ///< maximum number of keys
	uint8_t rsvd12[4];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_kvs_idfy_ns_format) == 16, "Incorrect size")

/** Key-Value command set specific Identify Namespace data (CNS 0x05, CSI 0x01) */
struct xnvme_spec_kvs_idfy_ns {
	uint64_t nsze; ///< namespace size, in bytes
	uint8_t rsvd8[8];
	uint64_t nuse; ///< namespace utilization, in bytes
	uint8_t nsfeat;
	uint8_t nkvf; ///< number of KV formats (zero-based)
	uint8_t nmic;
	uint8_t rescap;
	uint8_t fpi;
	uint8_t rsvd29[3];
	uint32_t novg; ///< namespace optimal value granularity
	uint32_t anagrpid;
	uint8_t rsvd40[3];
	uint8_t nsattr;
	uint16_t nvmsetid;
	uint16_t endgid;
	uint64_t nguid[2];
	uint64_t eui64;
	struct xnvme_spec_kvs_idfy_ns_format kvf[16];
	uint8_t rsvd328[3512];
	uint8_t vs[256];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_kvs_idfy_ns) == 4096, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_kvs_idfy_ns, kvf) == 72, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_kvs_idfy_ns, vs) == 3840, "Incorrect offset")

/** Identify buffer seen as generic or Key-Value command set specific data */
struct xnvme_spec_kvs_idfy {
	__extension__ union {
		struct xnvme_spec_idfy base;
		struct xnvme_spec_kvs_idfy_ns ns;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_kvs_idfy) == 4096, "Incorrect size")

/* ------------------------------------------------------------------------------------------ */
/* Zoned namespaces                                                                           */
/* ------------------------------------------------------------------------------------------ */

/** Zone Descriptor of a zone report: type, state, attributes, capacity, start and write pointer */
struct xnvme_spec_znd_descr {
	uint8_t zt : 4; ///< zone type, see enum xnvme_spec_znd_type
	uint8_t rsvd0 : 4;

	uint8_t rsvd1 : 4;
	uint8_t zs : 4; ///< zone state, see enum xnvme_spec_znd_state

	union {
		__extension__ struct {
			uint8_t zfc : 1;   ///< zone finished by controller
			uint8_t zfr : 1;   ///< zone finish recommended
			uint8_t rzr : 1;   ///< reset zone recommended
			uint8_t zrwav : 1; ///< zone random write area valid
			uint8_t rsvd3 : 3;
			uint8_t zdev : 1; ///< zone descriptor extension valid
		};
		uint8_t val;
	} za;

	uint8_t rsvd7[5];

	uint64_t zcap;  ///< zone capacity, in LBAs
	uint64_t zslba; ///< zone start LBA
	uint64_t wp;    ///< write pointer

	uint8_t rsvd63[32];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_znd_descr) == 64, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_znd_descr, zcap) == 8, "Incorrect offset")

/** Header of a Zone Management Receive report */
struct xnvme_spec_znd_report_hdr {
	uint64_t nzones; ///< number of zones in the report
	uint8_t rsvd[56];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_znd_report_hdr) == 64, "Incorrect size")

/** Changed Zone List log page (LID 0xBF) */
struct xnvme_spec_znd_log_changes {
	uint16_t nidents; ///< number of zone identifiers
	uint8_t rsvd2[6];
	uint64_t idents[ZND_CHANGES_LEN]; ///< zone start LBAs of changed zones
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_znd_log_changes) == 4096, "Incorrect size")

/* ------------------------------------------------------------------------------------------ */
/* Log pages, dataset management and simple copy                                              */
/* ------------------------------------------------------------------------------------------ */

/** SMART / Health Information log page entry (LID 0x02) */
struct __attribute__((packed)) xnvme_spec_log_health_entry {
	uint8_t crit_warn;  ///< critical warning
	uint16_t comp_temp; ///< composite temperature, in Kelvin
	uint8_t avail_spare;
	uint8_t avail_spare_thresh;
	uint8_t pct_used;
	uint8_t eg_crit_warn_sum; ///< endurance group critical warning summary
	uint8_t rsvd8[25];
	uint8_t data_units_read[16];
	uint8_t data_units_written[16];
	uint8_t host_read_cmds[16];
	uint8_t host_write_cmds[16];
	uint8_t ctrlr_busy_time[16];
	uint8_t pwr_cycles[16];
	uint8_t pwr_on_hours[16];
	uint8_t unsafe_shutdowns[16];
	uint8_t mdi_errs[16]; ///< media and data integrity errors
	uint8_t nr_err_logs[16];
	uint32_t warn_comp_temp_time;
	uint32_t crit_comp_temp_time;
	uint16_t temp_sens[8];
	uint32_t tmt1tc; ///< thermal management temperature 1 transition count
	uint32_t tmt2tc;
	uint32_t tttmt1; ///< total time for thermal management temperature 1
	uint32_t tttmt2;
	uint8_t rsvd[280];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_log_health_entry) == 512, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_log_health_entry, comp_temp) == 1,
		    "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_log_health_entry, warn_comp_temp_time) == 192,
		    "Incorrect offset")

/** Error Information log page entry (LID 0x01) */
struct xnvme_spec_log_erri_entry {
	uint64_t ecnt; ///< error count
	uint16_t sqid;
	uint16_t cid;
	struct xnvme_spec_status status;
	uint16_t eloc; ///< parameter error location
	uint64_t lba;
	uint32_t nsid;
	uint8_t ven_si; ///< vendor specific information available
	uint8_t trtype; ///< transport type
	uint8_t reserved30[2];
	uint64_t cmd_si; ///< command specific information
	uint16_t trtype_si;
	uint8_t reserved42[22];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_log_erri_entry) == 64, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_log_erri_entry, cmd_si) == 32, "Incorrect offset")

/** Dataset Management range definition */
struct xnvme_spec_dsm_range {
	uint32_t cattr; ///< context attributes
	uint32_t llb;   ///< length in logical blocks
	uint64_t slba;  ///< starting LBA
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_dsm_range) == 16, "Incorrect size")

/** Simple Copy source range entry, descriptor format 0 */
struct xnvme_spec_nvm_scopy_fmt_zero {
	uint8_t rsvd0[8];
	uint64_t slba;     ///< starting LBA
	uint32_t nlb : 16; ///< number of logical blocks (zero-based)
	uint32_t rsvd20 : 16;
	uint32_t eilbrt; ///< expected initial logical block reference tag
	uint32_t elbatm; ///< expected logical block application tag mask
	uint32_t elbat;  ///< expected logical block application tag
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_nvm_scopy_fmt_zero) == 32, "Incorrect size")

/** Simple Copy source range list, up to 128 format-0 entries */
struct xnvme_spec_nvm_scopy_source_range {
	struct xnvme_spec_nvm_scopy_fmt_zero entry[XNVME_SPEC_NVM_SCOPY_NENTRY_MAX];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_nvm_scopy_source_range) == 4096, "Incorrect size")

/** Simple Copy source range given as start and length */
struct xnvme_spec_nvm_cmd_scopy_fmt_srclen {
	uint64_t start;
	uint64_t len;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_nvm_cmd_scopy_fmt_srclen) == 16, "Incorrect size")

/* ------------------------------------------------------------------------------------------ */
/* Flexible Data Placement (FDP)                                                              */
/* ------------------------------------------------------------------------------------------ */

/** Reclaim Unit Handle Status descriptor */
struct xnvme_spec_ruhs_desc {
	uint16_t pi;     ///< placement identifier
	uint16_t ruhi;   ///< reclaim unit handle identifier
	uint32_t earutr; ///< estimated active reclaim unit time remaining
	uint64_t ruamw;  ///< reclaim unit available media writes
	uint8_t rsvd[16];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_ruhs_desc) == 32, "Incorrect size")

/** Reclaim Unit Handle Status (I/O Management Receive) header and descriptors */
struct xnvme_spec_ruhs {
	uint8_t rsvd[14];
	uint16_t nruhsd; ///< number of descriptors that follow
	__extension__ struct xnvme_spec_ruhs_desc desc[XNVME_FLEX];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_ruhs) == 16, "Incorrect size")

/** Reclaim Unit Handle descriptor of an FDP configuration */
struct xnvme_spec_ruh_desc {
	uint8_t ruht; ///< reclaim unit handle type
	uint8_t rsvd[3];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_ruh_desc) == 4, "Incorrect size")

/** FDP Configuration descriptor, followed by its reclaim unit handle descriptors */
struct xnvme_spec_fdp_conf_desc {
	uint16_t ds; ///< descriptor size

	union {
		__extension__ struct {
			uint8_t rgif : 4;   ///< reclaim group identifier format
			uint8_t fdpvwc : 1; ///< FDP volatile write cache
			uint8_t rsvd1 : 2;
			uint8_t fdpcv : 1; ///< FDP configuration valid
		};
		uint8_t val;
	} fdpa;

	uint8_t vss;      ///< vendor specific size
	uint32_t nrg;     ///< number of reclaim groups
	uint16_t nruh;    ///< number of reclaim unit handles
	uint16_t maxpids; ///< max placement identifiers
	uint32_t nns;     ///< number of namespaces supported
	uint64_t runs;    ///< reclaim unit nominal size
	uint32_t erutl;   ///< estimated reclaim unit time limit
	uint8_t rsvd28[36];
	__extension__ struct xnvme_spec_ruh_desc ruh_desc[XNVME_FLEX];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_fdp_conf_desc) == 64, "Incorrect size")

/** FDP Configurations log page (LID 0x20) header */
struct xnvme_spec_log_fdp_conf {
	uint16_t ncfg; ///< number of configurations (zero-based)
	uint8_t version;
	uint8_t rsvd1;
	uint32_t size;
	uint8_t rsvd2[8];
	__extension__ struct xnvme_spec_fdp_conf_desc conf_desc[XNVME_FLEX];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_log_fdp_conf) == 16, "Incorrect size")

/** Reclaim Unit Handle Usage descriptor */
struct xnvme_spec_ruhu_desc {
	uint8_t ruha; ///< reclaim unit handle attributes
	uint8_t rsvd[7];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_ruhu_desc) == 8, "Incorrect size")

/** Reclaim Unit Handle Usage log page (LID 0x21) header */
struct xnvme_spec_log_ruhu {
	uint16_t nruh; ///< number of reclaim unit handles
	uint8_t rsvd[6];
	__extension__ struct xnvme_spec_ruhu_desc ruhu_desc[XNVME_FLEX];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_log_ruhu) == 8, "Incorrect size")

/** FDP Statistics log page (LID 0x22) */
struct xnvme_spec_log_fdp_stats {
	uint64_t hbmw[2]; ///< host bytes with metadata written
	uint64_t mbmw[2]; ///< media bytes with metadata written
	uint64_t mbe[2];  ///< media bytes erased
	uint8_t rsvd48[16];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_log_fdp_stats) == 64, "Incorrect size")

/** FDP event record */
struct __attribute__((packed)) xnvme_spec_fdp_event {
	uint8_t type;

	union {
		__extension__ struct {
			uint8_t piv : 1;   ///< placement identifier valid
			uint8_t nsidv : 1; ///< namespace identifier valid
			uint8_t lv : 1;    ///< location valid
			uint8_t rsvd1 : 5;
		};
		uint8_t val;
	} fdpef;

	uint16_t pid; ///< placement identifier
	uint64_t timestamp;
	uint32_t nsid;
	uint8_t type_specific[16];
	uint16_t rgid;  ///< reclaim group identifier
	uint16_t ruhid; ///< reclaim unit handle identifier
	uint8_t rsvd1[4];
	uint8_t vs[24];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_fdp_event) == 64, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_fdp_event, timestamp) == 4, "Incorrect offset")

/** FDP Events log page (LID 0x23) header */
struct xnvme_spec_log_fdp_events {
	uint32_t nevents;
	uint8_t rsvd[60];
	__extension__ struct xnvme_spec_fdp_event event[XNVME_FLEX];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_log_fdp_events) == 64, "Incorrect size")

/** Type-specific part of a "media reallocated" FDP event */
struct __attribute__((packed)) xnvme_spec_fdp_event_media_reallocated {
	union {
		__extension__ struct {
			uint8_t lbav : 1; ///< LBA valid
			uint8_t rsvd : 7;
		};
		uint8_t val;
	} sef;

	uint8_t rsvd1;
	uint16_t nlbam; ///< number of LBAs moved
	uint64_t lba;
	uint8_t rsvd2[4];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_fdp_event_media_reallocated) == 16, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_fdp_event_media_reallocated, lba) == 4,
		    "Incorrect offset")

/** Supported FDP event descriptor */
struct xnvme_spec_fdp_event_desc {
	uint8_t type;

	union {
		__extension__ struct {
			uint8_t ee : 1; ///< event enabled
			uint8_t rsvd : 7;
		};
		uint8_t val;
	} fdpeta;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_fdp_event_desc) == 2, "Incorrect size")

/* ------------------------------------------------------------------------------------------ */
/* Controller registers and directives                                                        */
/* ------------------------------------------------------------------------------------------ */

/** Controller registers (BAR0), first 4 KiB */
struct __attribute__((packed)) xnvme_spec_ctrlr_bar {
	uint64_t cap;   ///< controller capabilities
	uint32_t vs;    ///< version
	uint32_t intms; ///< interrupt mask set
	uint32_t intmc; ///< interrupt mask clear
	uint32_t cc;    ///< controller configuration
	uint32_t rsvd24;
	uint32_t csts;   ///< controller status
	uint32_t nssr;   ///< NVM subsystem reset
	uint32_t aqa;    ///< admin queue attributes
	uint64_t asq;    ///< admin submission queue base address
	uint64_t acq;    ///< admin completion queue base address
	uint32_t cmbloc; ///< controller memory buffer location
	uint32_t cmbsz;  ///< controller memory buffer size
	uint32_t bpinfo; ///< boot partition information
	uint32_t bprsel; ///< boot partition read select
	uint64_t bpmbl;  ///< boot partition memory buffer location
	uint64_t cmbmsc; ///< controller memory buffer memory space control
	uint32_t cmbsts; ///< controller memory buffer status
	uint8_t rsvd92[3492];
	uint32_t pmrcap;  ///< persistent memory region capabilities
	uint32_t pmrctl;  ///< persistent memory region control
	uint32_t pmrsts;  ///< persistent memory region status
	uint32_t pmrebs;  ///< persistent memory region elasticity buffer size
	uint32_t pmrswtp; ///< persistent memory region sustained write throughput
	uint32_t pmrmscl; ///< persistent memory region memory space control, lower
	uint32_t pmrmscu; ///< persistent memory region memory space control, upper
	uint8_t css[484]; ///< command set specific
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_ctrlr_bar) == 4096, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_ctrlr_bar, pmrcap) == 3584, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_ctrlr_bar, css) == 3612, "Incorrect offset")

/** Identify directive "return parameters" data: supported/enabled/persistent directives */
struct xnvme_spec_idfy_dir_rp {
	struct {
		uint8_t identify : 1;
		uint8_t streams : 1;
		uint8_t data_placement : 1;
		uint8_t rsvd1 : 5;
		uint8_t rsvd2[31];
	} directives_supported;

	struct {
		uint8_t identify : 1;
		uint8_t streams : 1;
		uint8_t data_placement : 1;
		uint8_t rsvd1 : 5;
		uint8_t rsvd2[31];
	} directives_enabled;

	struct {
		uint8_t identify : 1;
		uint8_t streams : 1;
		uint8_t data_placement : 1;
		uint8_t rsvd1 : 5;
		uint8_t rsvd2[31];
	} directives_persistence;

	uint8_t rsvd4[4000];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_idfy_dir_rp) == 4096, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_dir_rp, directives_enabled) == 32,
		    "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_idfy_dir_rp, rsvd4) == 96, "Incorrect offset")

/** Streams directive "return parameters" data */
struct xnvme_spec_streams_dir_rp {
	uint16_t msl;  ///< max streams limit
	uint16_t nssa; ///< NVM subsystem streams available
	uint16_t nsso; ///< NVM subsystem streams open

	union {
		struct {
			uint8_t multi_host : 1;
			uint8_t reserved : 7;
		} bits;
		uint8_t val;
	} nssc;

	uint8_t reserved1[9];

	uint32_t sws; ///< stream write size
	uint16_t sgs; ///< stream granularity size
	uint16_t nsa; ///< namespace streams allocated
	uint16_t nso; ///< namespace streams open

	uint8_t reserved2[6];
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_streams_dir_rp) == 32, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_spec_streams_dir_rp, sws) == 16, "Incorrect offset")

/** Streams directive "get status" data: open stream count and identifiers */
struct xnvme_spec_streams_dir_gs {
	uint16_t open_sc;                       ///< open stream count
	__extension__ uint16_t sid[XNVME_FLEX]; ///< stream identifiers
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_streams_dir_gs) == 2, "Incorrect size")

/** Streams directive "allocate resources" result (completion DW0) */
struct xnvme_spec_alloc_resource {
	__extension__ union {
		struct {
			uint32_t nsa : 16; ///< namespace streams allocated
			uint32_t rsvd : 16;
		} bits;
		uint32_t val;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_spec_alloc_resource) == 4, "Incorrect size")

/* ------------------------------------------------------------------------------------------ */
/* Printers                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/*
 * Printers of the structures above: YAML to `stream` (the *_pr forms: stdout). `opts`
 * XNVME_PR_DEF or XNVME_PR_YAML (the same YAML); other modes print a "# ENOSYS" note; a NULL
 * object prints "<name>: ~". They return the number of characters written.
 * Thread safety: safe from any thread; they only read their argument (output of concurrent
 * calls on one stream may interleave).
 */
/**
 * Prints a SMART / Health Information log page (log id 0x02) to `stream`. @return the number of
 * characters written. Thread safety: see above.
 */
int
xnvme_spec_log_health_fpr(FILE *stream, const struct xnvme_spec_log_health_entry *log, int opts);

/**
 * xnvme_spec_log_health_fpr() on stdout. @return the number of characters written. Thread safety:
 * see above.
 */
int
xnvme_spec_log_health_pr(const struct xnvme_spec_log_health_entry *log, int opts);

/**
 * Prints the first `limit` entries of an Error Information log page (log id 0x01; `limit` <= 0
 * prints an empty list; the buffer must hold `limit` entries) to `stream`. @return the number of
 * characters written. Thread safety: see above.
 */
int
xnvme_spec_log_erri_fpr(FILE *stream, const struct xnvme_spec_log_erri_entry *log, int limit,
			int opts);

/**
 * xnvme_spec_log_erri_fpr() on stdout. @return the number of characters written. Thread safety:
 * see above.
 */
int
xnvme_spec_log_erri_pr(const struct xnvme_spec_log_erri_entry *log, int limit, int opts);

/**
 * Prints an FDP Configurations log page (log id 0x20) on stdout. @return the number of characters
 * written. Thread safety: see above.
 */
int
xnvme_spec_log_fdp_conf_pr(const struct xnvme_spec_log_fdp_conf *log, int opts);

/**
 * Prints an FDP Statistics log page (log id 0x22) on stdout. @return the number of characters
 * written. Thread safety: see above.
 */
int
xnvme_spec_log_fdp_stats_pr(const struct xnvme_spec_log_fdp_stats *log, int opts);

/**
 * Prints an FDP Events log page (log id 0x23) header and its first `limit` events (`limit` <= 0:
 * none; the buffer must hold them) on stdout. @return the number of characters written. Thread
 * safety: see above.
 */
int
xnvme_spec_log_fdp_events_pr(const struct xnvme_spec_log_fdp_events *log, int limit, int opts);

/**
 * Prints a Reclaim Unit Handle Usage log page (log id 0x21) header and its first `limit`
 * descriptors (`limit` <= 0: none) on stdout. @return the number of characters written. Thread
 * safety: see above.
 */
int
xnvme_spec_log_ruhu_pr(const struct xnvme_spec_log_ruhu *log, int limit, int opts);

/**
 * Prints a Reclaim Unit Handle Status (xnvme_nvm_mgmt_recv()) header and its first `limit`
 * descriptors (`limit` <= 0: none) on stdout. @return the number of characters written. Thread
 * safety: see above.
 */
int
xnvme_spec_ruhs_pr(const struct xnvme_spec_ruhs *ruhs, int limit, int opts);

/**
 * Prints Identify Namespace data to `stream`. @return the number of characters written. Thread
 * safety: see above.
 */
int
xnvme_spec_idfy_ns_fpr(FILE *stream, const struct xnvme_spec_idfy_ns *idfy, int opts);

/**
 * xnvme_spec_idfy_ns_fpr() on stdout. @return the number of characters written. Thread safety: see
 * above.
 */
int
xnvme_spec_idfy_ns_pr(const struct xnvme_spec_idfy_ns *idfy, int opts);

/**
 * Prints Identify Controller data to `stream`. @return the number of characters written. Thread
 * safety: see above.
 */
int
xnvme_spec_idfy_ctrlr_fpr(FILE *stream, const struct xnvme_spec_idfy_ctrlr *idfy, int opts);

/**
 * xnvme_spec_idfy_ctrlr_fpr() on stdout. @return the number of characters written. Thread safety:
 * see above.
 */
int
xnvme_spec_idfy_ctrlr_pr(const struct xnvme_spec_idfy_ctrlr *idfy, int opts);

/**
 * Prints the I/O Command Set data structure (Identify CNS 0x1C) to `stream`. @return the number of
 * characters written. Thread safety: see above.
 */
int
xnvme_spec_idfy_cs_fpr(FILE *stream, const struct xnvme_spec_idfy_cs *idfy, int opts);

/**
 * xnvme_spec_idfy_cs_fpr() on stdout. @return the number of characters written. Thread safety: see
 * above.
 */
int
xnvme_spec_idfy_cs_pr(const struct xnvme_spec_idfy_cs *idfy, int opts);

/**
 * Prints the value of feature `fid` (from ctx->cpl.cdw0 of Get Features) decoded per feature id to
 * `stream`. @return the number of characters written. Thread safety: see above.
 */
int
xnvme_spec_feat_fpr(FILE *stream, uint8_t fid, struct xnvme_spec_feat feat, int opts);

/**
 * xnvme_spec_feat_fpr() on stdout. @return the number of characters written. Thread safety: see
 * above.
 */
int
xnvme_spec_feat_pr(uint8_t fid, struct xnvme_spec_feat feat, int opts);

/**
 * Prints the FDP event descriptors in `buf` returned by Get Features (FDP events); their number is
 * the low byte of `feat` (ctx->cpl.cdw0) on stdout. @return the number of characters written.
 * Thread safety: see above.
 */
int
xnvme_spec_feat_fdp_events_pr(void *buf, struct xnvme_spec_feat feat, int opts);

/**
 * Prints a submission entry (the 16 command dwords) to `stream`. @return the number of characters
 * written. Thread safety: see above.
 */
int
xnvme_spec_cmd_fpr(FILE *stream, struct xnvme_spec_cmd *cmd, int opts);

/**
 * xnvme_spec_cmd_fpr() on stdout. @return the number of characters written. Thread safety: see
 * above.
 */
int
xnvme_spec_cmd_pr(struct xnvme_spec_cmd *cmd, int opts);

/**
 * Prints the Identify directive return parameters (Directive Receive) on stdout. @return the
 * number of characters written. Thread safety: see above.
 */
int
xnvme_spec_drecv_idfy_pr(struct xnvme_spec_idfy_dir_rp *idfy, int opts);

/**
 * Prints the Streams directive return parameters on stdout. @return the number of characters
 * written. Thread safety: see above.
 */
int
xnvme_spec_drecv_srp_pr(struct xnvme_spec_streams_dir_rp *srp, int opts);

/**
 * Prints the Streams directive get status data on stdout. @return the number of characters
 * written. Thread safety: see above.
 */
int
xnvme_spec_drecv_sgs_pr(struct xnvme_spec_streams_dir_gs *sgs, int opts);

/**
 * Prints the Streams allocated resources (from ctx->cpl.cdw0 of Directive Receive) on stdout.
 * @return the number of characters written. Thread safety: see above.
 */
int
xnvme_spec_drecv_sar_pr(struct xnvme_spec_alloc_resource sar, int opts);

/**
 * Prints one Simple Copy source range entry (format zero) to `stream`. @return the number of
 * characters written. Thread safety: see above.
 */
int
xnvme_spec_nvm_scopy_fmt_zero_fpr(FILE *stream, const struct xnvme_spec_nvm_scopy_fmt_zero *entry,
				  int opts);

/**
 * xnvme_spec_nvm_scopy_fmt_zero_fpr() on stdout. @return the number of characters written. Thread
 * safety: see above.
 */
int
xnvme_spec_nvm_scopy_fmt_zero_pr(const struct xnvme_spec_nvm_scopy_fmt_zero *entry, int opts);

/**
 * Prints the `nr + 1` entries (nr ZERO-BASED, at most 128) of a Simple Copy source range list to
 * `stream`. @return the number of characters written. Thread safety: see above.
 */
int
xnvme_spec_nvm_scopy_source_range_fpr(FILE *stream,
				      const struct xnvme_spec_nvm_scopy_source_range *srange,
				      uint8_t nr, int opts);

/**
 * xnvme_spec_nvm_scopy_source_range_fpr() on stdout. @return the number of characters written.
 * Thread safety: see above.
 */
int
xnvme_spec_nvm_scopy_source_range_pr(const struct xnvme_spec_nvm_scopy_source_range *srange,
				     uint8_t nr, int opts);

/**
 * Prints NVM command set specific Identify Controller data to `stream`. @return the number of
 * characters written. Thread safety: see above.
 */
int
xnvme_spec_nvm_idfy_ctrlr_fpr(FILE *stream, struct xnvme_spec_nvm_idfy_ctrlr *idfy, int opts);

/**
 * xnvme_spec_nvm_idfy_ctrlr_fpr() on stdout. @return the number of characters written. Thread
 * safety: see above.
 */
int
xnvme_spec_nvm_idfy_ctrlr_pr(struct xnvme_spec_nvm_idfy_ctrlr *idfy, int opts);

/**
 * Prints NVM command set specific Identify Namespace data to `stream`. @return the number of
 * characters written. Thread safety: see above.
 */
int
xnvme_spec_nvm_idfy_ns_fpr(FILE *stream, struct xnvme_spec_nvm_idfy_ns *idfy, int opts);

/**
 * xnvme_spec_nvm_idfy_ns_fpr() on stdout. @return the number of characters written. Thread safety:
 * see above.
 */
int
xnvme_spec_nvm_idfy_ns_pr(struct xnvme_spec_nvm_idfy_ns *idfy, int opts);

/**
 * Prints Zoned Identify Controller data to `stream`. @return the number of characters written.
 * Thread safety: see above.
 */
int
xnvme_spec_znd_idfy_ctrlr_fpr(FILE *stream, struct xnvme_spec_znd_idfy_ctrlr *zctrlr, int opts);

/**
 * xnvme_spec_znd_idfy_ctrlr_fpr() on stdout. @return the number of characters written. Thread
 * safety: see above.
 */
int
xnvme_spec_znd_idfy_ctrlr_pr(struct xnvme_spec_znd_idfy_ctrlr *zctrlr, int opts);

/**
 * Prints one zoned LBA format extension (zone size, descriptor extension size) to `stream`.
 * @return the number of characters written. Thread safety: see above.
 */
int
xnvme_spec_znd_idfy_lbafe_fpr(FILE *stream, struct xnvme_spec_znd_idfy_lbafe *zonef, int opts);

/**
 * Prints Zoned Identify Namespace data to `stream`. @return the number of characters written.
 * Thread safety: see above.
 */
int
xnvme_spec_znd_idfy_ns_fpr(FILE *stream, struct xnvme_spec_znd_idfy_ns *zns, int opts);

/**
 * xnvme_spec_znd_idfy_ns_fpr() on stdout. @return the number of characters written. Thread safety:
 * see above.
 */
int
xnvme_spec_znd_idfy_ns_pr(struct xnvme_spec_znd_idfy_ns *zns, int opts);

/**
 * Prints a Changed Zone List log page to `stream`. @return the number of characters written.
 * Thread safety: see above.
 */
int
xnvme_spec_znd_log_changes_fpr(FILE *stream, const struct xnvme_spec_znd_log_changes *changes,
			       int opts);

/**
 * xnvme_spec_znd_log_changes_fpr() on stdout. @return the number of characters written. Thread
 * safety: see above.
 */
int
xnvme_spec_znd_log_changes_pr(const struct xnvme_spec_znd_log_changes *changes, int opts);

/**
 * Prints one zone descriptor to `stream`. @return the number of characters written. Thread safety:
 * see above.
 */
int
xnvme_spec_znd_descr_fpr(FILE *stream, const struct xnvme_spec_znd_descr *descr, int opts);

/**
 * xnvme_spec_znd_descr_fpr() on stdout. @return the number of characters written. Thread safety:
 * see above.
 */
int
xnvme_spec_znd_descr_pr(const struct xnvme_spec_znd_descr *descr, int opts);

/**
 * Prints a zone report header (number of zones) to `stream`. @return the number of characters
 * written. Thread safety: see above.
 */
int
xnvme_spec_znd_report_hdr_fpr(FILE *stream, const struct xnvme_spec_znd_report_hdr *hdr, int opts);

/**
 * xnvme_spec_znd_report_hdr_fpr() on stdout. @return the number of characters written. Thread
 * safety: see above.
 */
int
xnvme_spec_znd_report_hdr_pr(const struct xnvme_spec_znd_report_hdr *hdr, int opts);

/**
 * Prints the members of one zone descriptor to `stream` starting at column `indent`, separated by
 * `sep` (NULL: "\n"; ", " gives the inside of a flow mapping), without a trailing separator; NULL
 * prints "~". @return the number of characters written. Thread safety: see above.
 */
int
xnvme_spec_znd_descr_fpr_yaml(FILE *stream, const struct xnvme_spec_znd_descr *descr, int indent,
			      const char *sep);

/**
 * Prints Key-Value Identify Namespace data to `stream`. @return the number of characters written.
 * Thread safety: see above.
 */
int
xnvme_spec_kvs_idfy_ns_fpr(FILE *stream, const struct xnvme_spec_kvs_idfy_ns *idfy, int opts);

/**
 * xnvme_spec_kvs_idfy_ns_fpr() on stdout. @return the number of characters written. Thread safety:
 * see above.
 */
int
xnvme_spec_kvs_idfy_ns_pr(const struct xnvme_spec_kvs_idfy_ns *idfy, int opts);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_SPEC_H */
