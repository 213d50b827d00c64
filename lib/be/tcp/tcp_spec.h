/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * NVMe/TCP transport PDUs (not installed); the fabrics commands they carry are in
 * ../nvmf/nvmf_spec.h. All multi-byte fields are little-endian on the wire; the backend is
 * built only for little-endian hosts, so fields are used as they are.
 */
#ifndef XNVME_TCP_SPEC_H
#define XNVME_TCP_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include <libxnvme_spec.h>

#include "../nvmf/nvmf_spec.h"

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

/* SGL descriptor types (byte 15 of struct xnvme_nvmf_sgl) the TCP transport uses */
#define XNVME_TCP_SGL_INCAPSULE 0x01 ///< data block, offset into the capsule
#define XNVME_TCP_SGL_TRANSPORT 0x5A ///< transport data block: data moves in data PDUs

#endif /* XNVME_TCP_SPEC_H */
