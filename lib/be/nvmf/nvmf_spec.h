/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * NVMe over Fabrics commands, properties and the discovery log, as every transport carries
 * them (not installed). Multi-byte fields are little-endian on the wire; the fabrics backends
 * are built for little-endian hosts only, so fields are used as they are.
 */
#ifndef XNVME_NVMF_SPEC_H
#define XNVME_NVMF_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include <libxnvme_spec.h>

#define XNVME_FABRICS_OPC 0x7F
#define XNVME_FABRICS_PROP_SET 0x00
#define XNVME_FABRICS_CONNECT 0x01
#define XNVME_FABRICS_PROP_GET 0x04

#define XNVME_ADM_OPC_KEEP_ALIVE 0x18

#define XNVME_FABRICS_DISC_NQN "nqn.2014-08.org.nvmexpress.discovery"

#define XNVME_NVMF_PSDT_SGL 0x40 ///< SQE byte 1: PSDT = SGL for data and metadata

/** An SGL descriptor in an SQE (bytes 24..39); the transports give `type` its meaning */
struct xnvme_nvmf_sgl {
	uint64_t addr;
	uint32_t len;
	uint8_t rsvd[3];
	uint8_t type; ///< descriptor type (high nibble) and sub type (low nibble)
};
_Static_assert(sizeof(struct xnvme_nvmf_sgl) == 16, "sgl");

struct xnvme_fabrics_connect_cmd {
	uint8_t opcode;
	uint8_t flags;
	uint16_t cid;
	uint8_t fctype;
	uint8_t rsvd1[19];
	struct xnvme_nvmf_sgl sgl;
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

/* ------------------------------------------------------------------------------------------ */
/* Discovery log page (Get Log Page 0x70)                                                       */
/* ------------------------------------------------------------------------------------------ */

#define XNVME_NVMF_DISC_LID 0x70
#define XNVME_NVMF_DISC_ENTRY_NBYTES 1024

struct xnvme_nvmf_disc_entry {
	uint8_t trtype; ///< XNVME_NVMF_TRTYPE_*
	uint8_t adrfam; ///< XNVME_NVMF_ADRFAM_*
	uint8_t subtype;
	uint8_t treq;
	uint16_t portid;
	uint16_t cntlid;
	uint16_t asqsz;
	uint8_t rsvd1[22];
	char trsvcid[32];
	uint8_t rsvd2[192];
	char subnqn[256];
	char traddr[256];
	uint8_t tsas[256];
};
_Static_assert(sizeof(struct xnvme_nvmf_disc_entry) == XNVME_NVMF_DISC_ENTRY_NBYTES,
	       "discovery log entry");
_Static_assert(offsetof(struct xnvme_nvmf_disc_entry, trsvcid) == 32, "entry trsvcid");
_Static_assert(offsetof(struct xnvme_nvmf_disc_entry, subnqn) == 256, "entry subnqn");
_Static_assert(offsetof(struct xnvme_nvmf_disc_entry, traddr) == 512, "entry traddr");

#define XNVME_NVMF_TRTYPE_RDMA 1
#define XNVME_NVMF_TRTYPE_TCP 3
#define XNVME_NVMF_ADRFAM_IPV4 1
#define XNVME_NVMF_ADRFAM_IPV6 2
#define XNVME_NVMF_SUBTYPE_NVM 2

#endif /* XNVME_NVMF_SPEC_H */
