/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * NVMe/RDMA transport binding (not installed): the RDMA-CM private data of connection
 * requests, replies and rejects, and the SGL descriptors of command capsules. Multi-byte
 * fields are little-endian on the wire; the backend is built for little-endian hosts only.
 * The fabrics commands themselves are in ../nvmf/nvmf_spec.h.
 */
#ifndef XNVME_RDMA_SPEC_H
#define XNVME_RDMA_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "../nvmf/nvmf_spec.h"

/** Private data of the host's RDMA_CM connect request */
struct xnvme_rdma_cm_req {
	uint16_t recfmt;  ///< record format: 0
	uint16_t qid;     ///< the NVMe queue this connection carries
	uint16_t hrqsize; ///< receive entries the host posted for responses
	uint16_t hsqsize; ///< submission queue entries, zero-based (as Connect's SQSIZE)
	uint16_t cntlid;  ///< I/O queues: the controller of the admin queue; else 0xFFFF
	uint8_t rsvd[22];
};
_Static_assert(sizeof(struct xnvme_rdma_cm_req) == 32, "cm req");
_Static_assert(offsetof(struct xnvme_rdma_cm_req, hsqsize) == 6, "cm req hsqsize");

/** Private data of the controller's accept */
struct xnvme_rdma_cm_rep {
	uint16_t recfmt;
	uint16_t crqsize; ///< receive entries of the controller: commands it takes at once
	uint8_t rsvd[28];
};
_Static_assert(sizeof(struct xnvme_rdma_cm_rep) == 32, "cm rep");

/** Private data of the controller's reject */
struct xnvme_rdma_cm_rej {
	uint16_t recfmt;
	uint16_t sts; ///< XNVME_RDMA_CM_*
};
_Static_assert(sizeof(struct xnvme_rdma_cm_rej) == 4, "cm rej");

/* Reject status codes */
#define XNVME_RDMA_CM_INVALID_LEN 0x01
#define XNVME_RDMA_CM_INVALID_RECFMT 0x02
#define XNVME_RDMA_CM_INVALID_QID 0x03
#define XNVME_RDMA_CM_INVALID_HSQSIZE 0x04
#define XNVME_RDMA_CM_INVALID_HRQSIZE 0x05
#define XNVME_RDMA_CM_NO_RSC 0x06
#define XNVME_RDMA_CM_INVALID_IRD 0x07
#define XNVME_RDMA_CM_INVALID_ORD 0x08
#define XNVME_RDMA_CM_INVALID_CNTLID 0x09

/**
 * Keyed SGL data block descriptor (SQE bytes 24..39): the controller moves the data with RDMA
 * READ or WRITE at `addr` under `key`; 24-bit length
 */
struct xnvme_rdma_sgl_keyed {
	uint64_t addr;
	uint8_t len[3];
	uint8_t key[4]; ///< unaligned on the wire
	uint8_t type;   ///< XNVME_RDMA_SGL_KEYED or XNVME_RDMA_SGL_KEYED_INV
};
_Static_assert(sizeof(struct xnvme_rdma_sgl_keyed) == 16, "keyed sgl");
_Static_assert(offsetof(struct xnvme_rdma_sgl_keyed, key) == 11, "keyed sgl key");

#define XNVME_RDMA_SGL_KEYED 0x40     ///< keyed data block, sub type address
#define XNVME_RDMA_SGL_KEYED_INV 0x4F ///< keyed data block, sub type invalidate key
#define XNVME_RDMA_SGL_INCAPSULE 0x01 ///< data block, sub type offset: data in the capsule
#define XNVME_RDMA_SGL_LEN_MAX 0xFFFFFFU

/** A response capsule: the completion queue entry, nothing else */
#define XNVME_RDMA_RSP_NBYTES 16

#endif /* XNVME_RDMA_SPEC_H */
