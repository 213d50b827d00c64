/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * NVMe/TCP transport PDUs and the NVMe over Fabrics commands the initiator sends (not
 * installed). All multi-byte fields are little-endian on the wire; the backend is built only
 * for little-endian hosts, so fields are used as they are.
 */
#ifndef XNVME_TCP_SPEC_H
#define XNVME_TCP_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include <libxnvme_spec.h>

enum xnvme_tcp_pdu_type {
	XNVME_TCP_PDU_ICREQ = 0x00,
	XNVME_TCP_PDU_ICRESP = 0x01,
	XNVME_TCP_PDU_H2C_TERM = 0x02,
	XNVME_TCP_PDU_C2H_TERM = 0x03,
	XNVME_TCP_PDU_CAPSULE_CMD = 0x04,
	XNVME_TCP_PDU_CAPSULE_RESP = 0x05,
	XNVME_TCP_PDU_H2C_DATA = 0x06,
	XNVME_TCP_PDU_C2H_DATA = 0x07,
	XNVME_TCP_PDU_R2T = 0x09,
};

/* Common-header flags */
#define XNVME_TCP_F_HDGST 0x01   ///< a header digest follows the header
#define XNVME_TCP_F_DDGST 0x02   ///< a data digest follows the data
#define XNVME_TCP_F_LAST 0x04    ///< last data PDU of a transfer (H2C/C2H data)
#define XNVME_TCP_F_SUCCESS 0x08 ///< C2H data: the command succeeded, no response capsule

/* ICReq/ICResp digest bits */
#define XNVME_TCP_DGST_HDR 0x01
#define XNVME_TCP_DGST_DATA 0x02

#define XNVME_TCP_DIGEST_LEN 4
#define XNVME_TCP_TERM_DATA_MAX 128 ///< header bytes a termination PDU may echo

/** Common header of every PDU */
struct xnvme_tcp_ch {
	uint8_t type;
	uint8_t flags;
	uint8_t hlen;  ///< header length, without the header digest
	uint8_t pdo;   ///< PDU data offset: where data starts (0: no data)
	uint32_t plen; ///< whole PDU: header, digests, padding, data
};
_Static_assert(sizeof(struct xnvme_tcp_ch) == 8, "tcp common header");

struct xnvme_tcp_icreq {
	struct xnvme_tcp_ch ch;
	uint16_t pfv;    ///< PDU format version: 0
	uint8_t hpda;    ///< host PDU data alignment, in dwords minus one
	uint8_t dgst;    ///< XNVME_TCP_DGST_*
	uint32_t maxr2t; ///< outstanding R2Ts per command, zero-based
	uint8_t rsvd[112];
};
_Static_assert(sizeof(struct xnvme_tcp_icreq) == 128, "icreq");
_Static_assert(offsetof(struct xnvme_tcp_icreq, maxr2t) == 12, "icreq maxr2t");

struct xnvme_tcp_icresp {
	struct xnvme_tcp_ch ch;
	uint16_t pfv;
	uint8_t cpda; ///< controller PDU data alignment, in dwords minus one
	uint8_t dgst;
	uint32_t maxh2cdata; ///< largest H2C data PDU payload, bytes
	uint8_t rsvd[112];
};
_Static_assert(sizeof(struct xnvme_tcp_icresp) == 128, "icresp");
_Static_assert(offsetof(struct xnvme_tcp_icresp, maxh2cdata) == 12, "icresp maxh2cdata");

struct xnvme_tcp_cmd_pdu {
	struct xnvme_tcp_ch ch;
	uint8_t sqe[64];
};
_Static_assert(sizeof(struct xnvme_tcp_cmd_pdu) == 72, "capsule cmd");

struct xnvme_tcp_rsp_pdu {
	struct xnvme_tcp_ch ch;
	struct xnvme_spec_cpl cqe;
};
_Static_assert(sizeof(struct xnvme_tcp_rsp_pdu) == 24, "capsule resp");

/** H2CData and C2HData */
struct xnvme_tcp_data_pdu {
	struct xnvme_tcp_ch ch;
	uint16_t cccid; ///< command capsule CID
	uint16_t ttag;  ///< transfer tag (H2C: from the R2T)
	uint32_t datao; ///< offset of this PDU's data in the command's data
	uint32_t datal;
	uint8_t rsvd[4];
};
_Static_assert(sizeof(struct xnvme_tcp_data_pdu) == 24, "data pdu");
_Static_assert(offsetof(struct xnvme_tcp_data_pdu, datal) == 16, "data pdu datal");

struct xnvme_tcp_r2t_pdu {
	struct xnvme_tcp_ch ch;
	uint16_t cccid;
	uint16_t ttag;
	uint32_t r2to; ///< offset of the requested data
	uint32_t r2tl; ///< length of the requested data
	uint8_t rsvd[4];
};
_Static_assert(sizeof(struct xnvme_tcp_r2t_pdu) == 24, "r2t pdu");

/** H2CTermReq and C2HTermReq; up to 128 bytes of the offending header follow */
struct xnvme_tcp_term_pdu {
	struct xnvme_tcp_ch ch;
	uint16_t fes;   ///< fatal error status
	uint8_t fei[4]; ///< fatal error information (unaligned on the wire)
	uint8_t rsvd[10];
};
_Static_assert(sizeof(struct xnvme_tcp_term_pdu) == 24, "term pdu");
_Static_assert(offsetof(struct xnvme_tcp_term_pdu, fei) == 10, "term pdu fei");

/* Fatal error status values of termination PDUs */
#define XNVME_TCP_FES_INVALID_HEADER 0x01
#define XNVME_TCP_FES_PDU_SEQ_ERROR 0x02
#define XNVME_TCP_FES_HDGST_ERROR 0x03
#define XNVME_TCP_FES_DATA_RANGE 0x04

/* ------------------------------------------------------------------------------------------ */
/* NVMe over Fabrics                                                                           */
/* ------------------------------------------------------------------------------------------ */

#define XNVME_FABRICS_OPC 0x7F
#define XNVME_FABRICS_PROP_SET 0x00
#define XNVME_FABRICS_CONNECT 0x01
#define XNVME_FABRICS_PROP_GET 0x04

#define XNVME_ADM_OPC_KEEP_ALIVE 0x18

#define XNVME_FABRICS_DISC_NQN "nqn.2014-08.org.nvmexpress.discovery"

/* SGL descriptor types (byte 15 of the descriptor) the TCP transport uses */
#define XNVME_TCP_SGL_INCAPSULE 0x01 ///< data block, offset into the capsule
#define XNVME_TCP_SGL_TRANSPORT 0x5A ///< transport data block: data moves in data PDUs
#define XNVME_TCP_PSDT_SGL 0x40      ///< SQE byte 1: PSDT = SGL for data and metadata

struct xnvme_tcp_sgl {
	uint64_t addr;
	uint32_t len;
	uint8_t rsvd[3];
	uint8_t type;
};
_Static_assert(sizeof(struct xnvme_tcp_sgl) == 16, "sgl");

struct xnvme_fabrics_connect_cmd {
	uint8_t opcode;
	uint8_t flags;
	uint16_t cid;
	uint8_t fctype;
	uint8_t rsvd1[19];
	struct xnvme_tcp_sgl sgl;
	uint16_t recfmt;
	uint16_t qid;
	uint16_t sqsize; ///< zero-based
	uint8_t cattr;
	uint8_t rsvd2;
	uint32_t kato; ///< keep-alive timeout, ms
	uint8_t rsvd3[12];
};
_Static_assert(sizeof(struct xnvme_fabrics_connect_cmd) == 64, "connect cmd");
_Static_assert(offsetof(struct xnvme_fabrics_connect_cmd, sgl) == 24, "connect sgl");
_Static_assert(offsetof(struct xnvme_fabrics_connect_cmd, qid) == 42, "connect qid");
_Static_assert(offsetof(struct xnvme_fabrics_connect_cmd, kato) == 48, "connect kato");

struct xnvme_fabrics_connect_data {
	uint8_t hostid[16];
	uint16_t cntlid; ///< 0xFFFF on the admin queue (dynamic controller)
	uint8_t rsvd1[238];
	char subnqn[256];
	char hostnqn[256];
	uint8_t rsvd2[256];
};
_Static_assert(sizeof(struct xnvme_fabrics_connect_data) == 1024, "connect data");
_Static_assert(offsetof(struct xnvme_fabrics_connect_data, subnqn) == 256, "connect subnqn");
_Static_assert(offsetof(struct xnvme_fabrics_connect_data, hostnqn) == 512, "connect hostnqn");

/** Property Get and Property Set */
struct xnvme_fabrics_prop_cmd {
	uint8_t opcode;
	uint8_t flags;
	uint16_t cid;
	uint8_t fctype;
	uint8_t rsvd1[35];
	uint8_t attrib; ///< 0: 4-byte property, 1: 8-byte property
	uint8_t rsvd2[3];
	uint32_t ofst;
	uint64_t value; ///< Property Set only
	uint8_t rsvd3[8];
};
_Static_assert(sizeof(struct xnvme_fabrics_prop_cmd) == 64, "prop cmd");
_Static_assert(offsetof(struct xnvme_fabrics_prop_cmd, attrib) == 40, "prop attrib");
_Static_assert(offsetof(struct xnvme_fabrics_prop_cmd, ofst) == 44, "prop ofst");
_Static_assert(offsetof(struct xnvme_fabrics_prop_cmd, value) == 48, "prop value");

/* Controller properties (register offsets) */
#define XNVME_PROP_CAP 0x00
#define XNVME_PROP_VS 0x08
#define XNVME_PROP_CC 0x14
#define XNVME_PROP_CSTS 0x1C

#define XNVME_CC_EN 0x1U
#define XNVME_CC_SHN_NORMAL (0x1U << 14)
#define XNVME_CC_IOSQES (6U << 16)
#define XNVME_CC_IOCQES (4U << 20)
#define XNVME_CSTS_RDY 0x1U
#define XNVME_CSTS_CFS 0x2U
#define XNVME_CSTS_SHST_MASK (0x3U << 2)
#define XNVME_CSTS_SHST_DONE (0x2U << 2)

#endif /* XNVME_TCP_SPEC_H */
