// SPDX-License-Identifier: BSD-3-Clause
/*
 * Shadow doorbells (dbbuf.h): one DMA allocation of two pages, the doorbell page then the
 * event index page, so that a plain 8 KiB payload gives PRP1 and PRP2 of the command.
 */
#include <string.h>

#include "ctrl.h"
#include "dbbuf.h"

#define OPC_DBBUF_CONFIG 0x7C
#define OACS_DBBUF (1u << 8)
#define DBBUF_PAGE 4096u

void
vfio_dbbuf_enable(struct vfio_ctrl *ctrl)
{
	struct xnvme_spec_cmd cmd = {0};
	struct xnvme_spec_cpl cpl = {0};
	uint16_t oacs = (uint16_t)(ctrl->idfy[256] | ctrl->idfy[257] << 8);
	uint8_t *pages;

	if (!(oacs & OACS_DBBUF) || ctrl->page_shift != 12) {
		return;
	}
	pages = vfio_dma_alloc(&ctrl->dma, 2 * DBBUF_PAGE, NULL);
	if (!pages) {
		return;
	}
	memset(pages, 0, 2 * DBBUF_PAGE);
	cmd.common.opcode = OPC_DBBUF_CONFIG;
	if (vfio_ctrl_admin(ctrl, &cmd, pages, 2 * DBBUF_PAGE, &cpl)) {
		vfio_dma_free(&ctrl->dma, pages);
		return;
	}
	ctrl->dbbuf = pages;
	/* the admin queue keeps ringing the register; its slots mirror the values for
	 * controllers that read them for every queue */
	{
		uint32_t *db = (uint32_t *)pages;

		db[0] = ctrl->adminq->sq_tail;
		db[ctrl->dstrd / 4] = ctrl->adminq->cq_head;
		ctrl->adminq->sq_shadow = (struct vfio_dbbuf_slot){
			.db = &db[0], .ei = &db[DBBUF_PAGE / 4], .always = true};
		ctrl->adminq->cq_shadow = (struct vfio_dbbuf_slot){
			.db = &db[ctrl->dstrd / 4], .ei = &db[DBBUF_PAGE / 4 + ctrl->dstrd / 4],
			.always = true};
	}
}

void
vfio_dbbuf_attach(struct vfio_ctrl *ctrl, struct vfio_qpair *qp)
{
	uint32_t stride = ctrl->dstrd / 4, sq = 2u * qp->qid * stride, cq = sq + stride;
	uint32_t *db = (uint32_t *)ctrl->dbbuf, *ei = (uint32_t *)(ctrl->dbbuf + DBBUF_PAGE);

	if (!ctrl->dbbuf || !qp->qid || cq >= DBBUF_PAGE / 4) {
		return;
	}
	/* a queue id used before keeps its last values: a new queue starts from 0 */
	db[sq] = db[cq] = ei[sq] = ei[cq] = 0;
	qp->sq_shadow = (struct vfio_dbbuf_slot){.db = &db[sq], .ei = &ei[sq]};
	qp->cq_shadow = (struct vfio_dbbuf_slot){.db = &db[cq], .ei = &ei[cq]};
}
