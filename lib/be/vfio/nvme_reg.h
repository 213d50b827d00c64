/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe over PCIe wire layout used by the vfio driver: the controller registers of BAR0, their
 * fields, and the admin opcodes the driver issues itself. Submission and completion entries are
 * struct xnvme_spec_cmd (64 bytes) and struct xnvme_spec_cpl (16 bytes) of libxnvme_spec.h.
 */
#ifndef XNVME_VFIO_NVME_REG_H
#define XNVME_VFIO_NVME_REG_H

#include <stddef.h>
#include <stdint.h>

#include <libxnvme.h>

/** BAR0 registers up to the doorbells (NVMe base specification, "Controller Registers") */
struct vfio_nvme_regs {
	uint64_t cap;   ///< 0x00 capabilities
	uint32_t vs;    ///< 0x08 version
	uint32_t intms; ///< 0x0C interrupt mask set
	uint32_t intmc; ///< 0x10 interrupt mask clear
	uint32_t cc;    ///< 0x14 controller configuration
	uint32_t rsvd1;
	uint32_t csts; ///< 0x1C controller status
	uint32_t nssr; ///< 0x20 NVM subsystem reset
	uint32_t aqa;  ///< 0x24 admin queue attributes
	uint64_t asq;  ///< 0x28 admin submission queue base
	uint64_t acq;  ///< 0x30 admin completion queue base
};
_Static_assert(sizeof(struct vfio_nvme_regs) == 0x38, "NVMe register block size");
_Static_assert(offsetof(struct vfio_nvme_regs, cc) == 0x14, "CC offset");
_Static_assert(offsetof(struct vfio_nvme_regs, csts) == 0x1C, "CSTS offset");
_Static_assert(offsetof(struct vfio_nvme_regs, aqa) == 0x24, "AQA offset");
_Static_assert(offsetof(struct vfio_nvme_regs, asq) == 0x28, "ASQ offset");
_Static_assert(offsetof(struct vfio_nvme_regs, acq) == 0x30, "ACQ offset");
_Static_assert(sizeof(struct xnvme_spec_cmd) == 64, "submission entry size");
_Static_assert(sizeof(struct xnvme_spec_cpl) == 16, "completion entry size");

#define NVME_REG_CAP offsetof(struct vfio_nvme_regs, cap)
#define NVME_REG_VS offsetof(struct vfio_nvme_regs, vs)
#define NVME_REG_INTMS offsetof(struct vfio_nvme_regs, intms)
#define NVME_REG_CC offsetof(struct vfio_nvme_regs, cc)
#define NVME_REG_CSTS offsetof(struct vfio_nvme_regs, csts)
#define NVME_REG_AQA offsetof(struct vfio_nvme_regs, aqa)
#define NVME_REG_ASQ offsetof(struct vfio_nvme_regs, asq)
#define NVME_REG_ACQ offsetof(struct vfio_nvme_regs, acq)
#define NVME_REG_DBS 0x1000 ///< first doorbell

/* CAP fields */
#define NVME_CAP_MQES(cap) ((uint32_t)((cap)&0xFFFF))          ///< zero-based max queue entries
#define NVME_CAP_TO(cap) ((uint32_t)(((cap) >> 24) & 0xFF))    ///< ready timeout, 500 ms units
#define NVME_CAP_DSTRD(cap) ((uint32_t)(((cap) >> 32) & 0xF))  ///< doorbell stride 2^(2+n)
#define NVME_CAP_CSS(cap) ((uint32_t)(((cap) >> 37) & 0xFF))   ///< command sets supported
#define NVME_CAP_MPSMIN(cap) ((uint32_t)(((cap) >> 48) & 0xF)) ///< min page size 2^(12+n)
#define NVME_CAP_MPSMAX(cap) ((uint32_t)(((cap) >> 52) & 0xF))

#define NVME_CAP_CSS_NVM 0x01  ///< NVM command set
#define NVME_CAP_CSS_IOCS 0x40 ///< one or more I/O command sets (CC.CSS = 110b)
#define NVME_CAP_CSS_NOIO 0x80 ///< admin only

/* CC fields */
#define NVME_CC_EN 0x1u
#define NVME_CC_CSS_SHIFT 4
#define NVME_CC_CSS_NVM 0u
#define NVME_CC_CSS_ALL 6u
#define NVME_CC_MPS_SHIFT 7
#define NVME_CC_SHN_NORMAL (1u << 14)
#define NVME_CC_SHN_MASK (3u << 14)
#define NVME_CC_IOSQES (6u << 16) ///< 64-byte submission entries
#define NVME_CC_IOCQES (4u << 20) ///< 16-byte completion entries

/* CSTS fields */
#define NVME_CSTS_RDY 0x1u
#define NVME_CSTS_CFS 0x2u
#define NVME_CSTS_SHST_MASK (3u << 2)
#define NVME_CSTS_SHST_DONE (2u << 2)

/* Admin opcodes the driver issues during bring-up and teardown */
#define NVME_ADM_DELETE_SQ 0x00
#define NVME_ADM_CREATE_SQ 0x01
#define NVME_ADM_DELETE_CQ 0x04
#define NVME_ADM_CREATE_CQ 0x05
#define NVME_ADM_IDENTIFY 0x06
#define NVME_ADM_ABORT 0x08
#define NVME_ADM_SET_FEATURES 0x09
#define NVME_FEAT_NUM_QUEUES 0x07

#endif /* XNVME_VFIO_NVME_REG_H */
