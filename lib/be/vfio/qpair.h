/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One NVMe submission/completion queue pair, polled. Not thread-safe: one thread at a time per
 * queue pair (the admin and sync pairs are serialised by their owners' locks).
 *
 * - Command identifiers index a table; a CID is free, busy, or abandoned (timed out or failed
 *   by a fatal controller status, still owned by the device). An abandoned CID is only reused
 *   after the device completes it, so a late completion can never reach a recycled context.
 *   A completion whose CID is not busy is counted (bogus/late) and ignored.
 * - Submissions only write the entry; vfio_qpair_ring() writes the SQ tail doorbell once for
 *   the whole batch and stamps the batch's submit time. vfio_qpair_reap() writes the CQ head
 *   doorbell once per reap.
 * - Data pointers are PRPs: one entry, two entries, or a list in per-CID DMA pages (chained
 *   when a transfer needs more than one page of entries). A vector whose inner boundaries are
 *   not page boundaries (the PRP rule) goes as an SGL on I/O queues of controllers that offer
 *   SGLs, and is refused with -EINVAL elsewhere.
 * - Idle reaps check command timeouts every millisecond, and the controller status (CSTS.CFS,
 *   or all-ones when the device is gone) once completions have stopped for a few milliseconds
 *   (an MMIO read is costly under emulation), failing the affected commands instead of hanging.
 *   A timed-out command of an I/O queue is aborted, and when the device still holds it after
 *   a bound the controller is reset (ctrl_fault.c). After a reset (ctrl->epoch moved on) the
 *   owner's next submit or reap recreates the pair's queues and cancels what the reset dropped.
 */
#ifndef XNVME_VFIO_QPAIR_H
#define XNVME_VFIO_QPAIR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include <libxnvme.h>

#include "dma.h"

struct vfio_ctrl;

/** Called once per command with its completion (a copy, phase bit cleared) */
typedef void (*vfio_cpl_fn)(void *arg, const struct xnvme_spec_cpl *cpl);

enum vfio_cid_state {
	VFIO_CID_FREE = 0,
	VFIO_CID_BUSY = 1,
	VFIO_CID_ABANDONED = 2,
};

struct vfio_cid {
	void *arg;
	uint64_t t_submit_us; ///< when the doorbell made it visible (UINT64_MAX: not yet)
	uint8_t state;
	bool abort; ///< abandoned by a timeout, Abort not yet sent
};

struct vfio_qpair_stats {
	uint64_t sq_doorbells; ///< SQ tail doorbell writes
	uint64_t cq_doorbells; ///< CQ head doorbell writes
	uint64_t bogus;        ///< completions with a CID that was never outstanding
	uint64_t late;         ///< completions of abandoned (timed-out) commands
	uint64_t timeouts;     ///< commands failed by the command timeout
	uint64_t cancelled;    ///< commands failed because a controller reset dropped them
};

struct vfio_qpair {
	struct vfio_ctrl *ctrl;
	struct vfio_bus *bus;
	struct vfio_dma *dma;
	uint16_t qid;
	uint32_t qsize; ///< entries of each ring; at most qsize - 1 commands outstanding

	struct xnvme_spec_cmd *sq;
	struct xnvme_spec_cpl *cq;
	uint64_t sq_iova;
	uint64_t cq_iova;
	uint32_t sq_tail;
	uint32_t sq_tail_db; ///< tail last written to the doorbell
	uint32_t cq_head;
	uint32_t cq_head_db;
	uint8_t phase;
	uint32_t sq_db;
	uint32_t cq_db;

	struct vfio_cid *cids;
	uint16_t *cid_free;
	uint32_t ncids;
	uint32_t nfree;
	uint32_t outstanding; ///< busy CIDs
	uint32_t abandoned;   ///< abandoned CIDs (also counted in dma->abandoned)

	uint8_t *prp; ///< per CID: prp_pages pages of PRP list
	uint64_t prp_iova;
	uint32_t prp_pages;
	uint32_t page_shift; ///< controller memory page size (CC.MPS)
	uint32_t max_xfer;   ///< bytes per command
	uint8_t sgls;        ///< SGLs for I/O: 0 none, 1 any alignment, 2 dword-aligned only

	struct vfio_dma_cache cache;
	vfio_cpl_fn cb;
	uint64_t timeout_us; ///< 0: commands never time out
	uint64_t next_check_us;
	uint32_t nreaps;      ///< reaps that delivered completions (paces busy-queue checks)
	uint32_t idle_checks; ///< idle checks since the last completion (paces CSTS reads)
	bool failed;
	bool recovering;   ///< in timeout recovery: nested reaps do no housekeeping
	unsigned epoch;    ///< the controller reset epoch the queues on the device belong to
	uint32_t cq_flags; ///< Create I/O CQ dword 11 (recreated with it after a reset)
	int irq_fd;        ///< eventfd of the CQ's MSI-X vector, -1 when polled only

	struct vfio_qpair_stats stats;
};

/**
 * Allocates the rings and tables (no admin command); NULL with errno (EINVAL also when the
 * doorbells of `qid` lie beyond BAR0, see vfio_ctrl.max_qid)
 */
struct vfio_qpair *
vfio_qpair_alloc(struct vfio_ctrl *ctrl, uint16_t qid, uint32_t qsize, vfio_cpl_fn cb,
		 uint64_t timeout_us);

void
vfio_qpair_free(struct vfio_qpair *qp);

/**
 * Queues `cmd` (copied; CID, PSDT and data/metadata pointers are set here) without ringing.
 * 0, -EBUSY (no free CID), -EINVAL (payload beyond max_xfer or PRP-incompatible), -EFAULT
 * (memory the device cannot reach), -EIO (controller failed).
 */
int
vfio_qpair_submit(struct vfio_qpair *qp, const struct xnvme_spec_cmd *cmd, const struct iovec *dvec,
		  size_t dvec_cnt, void *mbuf, size_t mbuf_nbytes, void *arg);

/** Writes the SQ tail doorbell if entries were queued since the last ring */
void
vfio_qpair_ring(struct vfio_qpair *qp);

/** Processes up to `max` completions (0: all); returns the number delivered */
uint32_t
vfio_qpair_reap(struct vfio_qpair *qp, uint32_t max);

/** Fails every busy command with the given errno status (sct 7); they become abandoned */
void
vfio_qpair_fail_all(struct vfio_qpair *qp, int err);

/**
 * Forgets what the device held after a controller reset: abandoned CIDs are free again, the CQ
 * ring is cleared and the ring indices start over. Busy commands stay busy (see cancel_all).
 */
void
vfio_qpair_restart(struct vfio_qpair *qp);

/** Fails every busy command with sct 7, sc `err`, freeing their CIDs (the device dropped them) */
void
vfio_qpair_cancel_all(struct vfio_qpair *qp, int err);

/** Builds the PRPs of a payload into prp1/prp2 and the list pages (prp.c) */
int
vfio_prp_build(struct vfio_qpair *qp, uint16_t cid, const struct iovec *dvec, size_t dvec_cnt,
	       uint64_t *prp1, uint64_t *prp2);

/** Builds an SGL (sgl.c) for a vector PRPs cannot describe; -EINVAL when it cannot either */
int
vfio_sgl_build(struct vfio_qpair *qp, uint16_t cid, const struct iovec *dvec, size_t dvec_cnt,
	       struct xnvme_spec_sgl_descriptor *dptr);

uint64_t
vfio_now_us(void);

#endif /* XNVME_VFIO_QPAIR_H */
