// SPDX-License-Identifier: BSD-3-Clause
/*
 * The vfio driver under faults, against the in-memory fake controller (no hardware): hostile
 * completion entries (unknown CID, duplicate, stale phase), a command that never completes
 * (on an idle and on a busy queue, then its late completion), a fatal controller status, a
 * device that is gone (registers read all-ones), admin payloads through the bounce buffer,
 * and a controller that never becomes ready (CAP.TO).
 */
#include "harness.h"

/* Unknown and duplicate CIDs are counted and ignored; a stale-phase entry is not consumed */
static void
test_hostile(struct fake_ctrl *fc, struct vfio_ctrl *ctrl, struct vfio_qpair *qp)
{
	uint8_t *buf = vfio_dma_alloc(&ctrl->dma, 4096, NULL);
	struct iovec v = {buf, 4096};
	uint64_t bogus = qp->stats.bogus;
	struct rec r;

	fake_ctrl_inject(fc, qp->qid, 5000, false); /* beyond the CID table */
	fake_ctrl_inject(fc, qp->qid, 3, false);    /* in range, not outstanding */
	CHECK_EQ(vfio_qpair_reap(qp, 0), 0);
	CHECK_EQ(qp->stats.bogus, bogus + 2);

	fc->duplicate_next = true;
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 0, &v, 1, NULL, 0, &r), 0);
	CHECK_EQ(r.ncpl, 1);
	vfio_qpair_reap(qp, 0);
	CHECK_EQ(r.ncpl, 1);
	CHECK_EQ(qp->stats.bogus, bogus + 3);

	/* an entry whose phase says "old" at the head: must wait for the real one */
	fake_ctrl_inject(fc, qp->qid, 0, true);
	CHECK_EQ(vfio_qpair_reap(qp, 0), 0);
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 0, &v, 1, NULL, 0, &r), 0);
	CHECK_EQ(r.ncpl, 1);
	CHECK_EQ(r.cpl.status.val, 0);
	CHECK_EQ(qp->stats.bogus, bogus + 3);
	CHECK_EQ(qp->nfree, qp->ncids);
	vfio_dma_free(&ctrl->dma, buf);
}

/* A command that never completes times out; its late completion is counted and ignored */
static void
test_timeout(struct fake_ctrl *fc, struct vfio_ctrl *ctrl, struct vfio_qpair *qp)
{
	uint8_t *buf = vfio_dma_alloc(&ctrl->dma, 4096, NULL);
	struct iovec v = {buf, 4096};
	uint64_t t, t2, t3;
	uint8_t *tmp;
	struct rec r;

	/* a freed range is reused at once while no command is abandoned */
	vfio_dma_free(&ctrl->dma, vfio_dma_alloc(&ctrl->dma, 4096, &t));
	tmp = vfio_dma_alloc(&ctrl->dma, 4096, &t2);
	CHECK_EQ(t2, t);

	qp->timeout_us = 20000;
	fc->swallow_slba = 77;
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 77, &v, 1, NULL, 0, &r), 0);
	CHECK_EQ(r.ncpl, 1);
	CHECK_EQ(r.cpl.status.sct, XNVME_STATUS_CODE_TYPE_VENDOR);
	CHECK_EQ(r.cpl.status.sc, ETIMEDOUT);
	CHECK_EQ(qp->stats.timeouts, 1);
	CHECK_EQ(qp->nfree, qp->ncids - 1); /* the device still owns the CID */
	CHECK_EQ(ctrl->dma.abandoned, 1);
	/* the device may still write what it was given: ranges freed now stay reserved */
	vfio_dma_free(&ctrl->dma, tmp);
	tmp = vfio_dma_alloc(&ctrl->dma, 4096, &t2);
	CHECK(t2 != t);
	fc->swallow_slba = UINT64_MAX;
	fake_ctrl_release(fc);
	vfio_qpair_reap(qp, 0);
	CHECK_EQ(qp->stats.late, 1);
	CHECK_EQ(ctrl->dma.abandoned, 0);
	vfio_dma_free(&ctrl->dma, tmp);
	tmp = vfio_dma_alloc(&ctrl->dma, 4096, &t3);
	CHECK_EQ(t3, t2); /* reused again, the reserved one never */
	vfio_dma_free(&ctrl->dma, tmp);
	CHECK_EQ(r.ncpl, 1);
	CHECK_EQ(qp->nfree, qp->ncids);
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 1, &v, 1, NULL, 0, &r), 0);
	CHECK_EQ(r.cpl.status.val, 0);
	vfio_dma_free(&ctrl->dma, buf);
}

/* A stuck command times out even while the queue never runs idle (others keep completing) */
static void
test_timeout_busy(struct fake_ctrl *fc, struct vfio_ctrl *ctrl, struct vfio_qpair *qp)
{
	uint8_t *buf = vfio_dma_alloc(&ctrl->dma, 8192, NULL);
	struct iovec v = {buf, 4096}, v2 = {buf + 4096, 4096};
	struct xnvme_spec_cmd cmd = rw_cmd(XNVME_SPEC_NVM_OPC_READ, 77, 4096);
	uint64_t t0 = vfio_now_us(), timeouts = qp->stats.timeouts;
	struct rec stuck = {0}, r;

	qp->timeout_us = 20000;
	fc->swallow_slba = 77;
	CHECK_EQ(vfio_qpair_submit(qp, &cmd, &v, 1, NULL, 0, &stuck), 0);
	while (!stuck.ncpl && vfio_now_us() - t0 < 2000000) {
		CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 2, &v2, 1, NULL, 0, &r), 0);
		CHECK_EQ(r.ncpl, 1);
	}
	CHECK_EQ(stuck.ncpl, 1);
	CHECK_EQ(stuck.cpl.status.sc, ETIMEDOUT);
	CHECK_EQ(qp->stats.timeouts, timeouts + 1);
	fc->swallow_slba = UINT64_MAX;
	fake_ctrl_release(fc);
	vfio_qpair_reap(qp, 0);
	CHECK_EQ(qp->nfree, qp->ncids);
	vfio_dma_free(&ctrl->dma, buf);
}

/* Fatal status: outstanding commands fail, new ones are refused, teardown does not hang */
static void
test_cfs(struct fake_ctrl *fc, struct vfio_ctrl *ctrl, struct vfio_qpair *qp)
{
	uint8_t *buf = vfio_dma_alloc(&ctrl->dma, 4096, NULL);
	struct iovec v = {buf, 4096};
	struct xnvme_spec_cmd cmd = {0};
	struct xnvme_spec_cpl cpl;
	struct rec r;

	qp->timeout_us = 0;
	fc->csts |= NVME_CSTS_CFS;
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 3, &v, 1, NULL, 0, &r), 0);
	CHECK_EQ(r.ncpl, 1);
	CHECK_EQ(r.cpl.status.sct, XNVME_STATUS_CODE_TYPE_VENDOR);
	CHECK_EQ(r.cpl.status.sc, EIO);
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 3, &v, 1, NULL, 0, &r), -EIO);
	cmd.common.opcode = NVME_ADM_IDENTIFY;
	cmd.common.ndt = 1;
	CHECK_EQ(vfio_ctrl_admin(ctrl, &cmd, NULL, 0, &cpl), -EIO);
	vfio_dma_free(&ctrl->dma, buf);
}

static void
test_faults(void)
{
	const qp_test_fn fns[] = {test_hostile, test_timeout, test_timeout_busy, test_cfs};

	run_on_queue(fns, sizeof(fns) / sizeof(fns[0]));
}

/* Admin payloads in ordinary memory go through a bounce buffer; a removed device fails fast */
static void
test_admin_bounce_and_removal(void)
{
	struct fake_ctrl fc;
	struct vfio_ctrl ctrl;
	struct vfio_qpair *qp = ctrl_up(&fc, &ctrl, 0, 8);
	struct xnvme_spec_cmd cmd = {0};
	struct xnvme_spec_cpl cpl;
	uint8_t *heap = calloc(1, 4096);
	uint64_t nsze = 0;
	int nmaps = fc.nmaps;

	cmd.common.opcode = NVME_ADM_IDENTIFY;
	cmd.common.nsid = 1; /* CNS 0: namespace */
	CHECK(heap != NULL);
	CHECK_EQ(vfio_ctrl_admin(&ctrl, &cmd, heap, 4096, &cpl), 0);
	memcpy(&nsze, heap, sizeof(nsze));
	CHECK_EQ(nsze, NLBAS);
	CHECK_EQ(fc.nmaps, nmaps); /* the bounce buffer is gone again */
	cmd.common.nsid = 9;       /* not a namespace: the status comes back */
	CHECK_EQ(vfio_ctrl_admin(&ctrl, &cmd, heap, 4096, &cpl), -EIO);
	CHECK_EQ(cpl.status.sc, 0x0B);

	if (qp) {
		uint8_t *buf = vfio_dma_alloc(&ctrl.dma, 4096, NULL);
		struct iovec v = {buf, 4096};
		struct rec r;

		qp->timeout_us = 0;
		fc.gone = true;
		CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 1, &v, 1, NULL, 0, &r), 0);
		CHECK_EQ(r.ncpl, 1);
		CHECK_EQ(r.cpl.status.sc, EIO);
		CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 1, &v, 1, NULL, 0, &r), -EIO);
		vfio_ctrl_qpair_destroy(&ctrl, qp);
	}
	vfio_ctrl_fini(&ctrl); /* no shutdown handshake with a device that is gone, no hang */
	CHECK_EQ(fc.shutdowns, 0);
	free(heap);
	fake_ctrl_fini(&fc);
}

static void
test_never_ready(void)
{
	struct vfio_ctrl_opts opts = {0};
	struct fake_ctrl fc;
	struct vfio_ctrl ctrl;
	char msg[256] = "";
	uint64_t t0;

	fake_setup(&fc, 0, 0, 5, 0);
	fc.never_ready = true;
	t0 = vfio_now_us();
	CHECK_EQ(vfio_ctrl_init(&ctrl, &fc.bus, &opts, msg, sizeof(msg)), -ETIMEDOUT);
	CHECK(vfio_now_us() - t0 >= 500000);
	CHECK(strstr(msg, "CAP.TO") != NULL);
	CHECK_EQ(fc.nmaps, 0);
	fake_ctrl_fini(&fc);
}

int
main(void)
{
	test_faults();
	test_admin_bounce_and_removal();
	test_never_ready();
	printf("%d checks, %d failures\n", xnvme_test_ncheck, xnvme_test_nfail);
	return xnvme_test_nfail ? 1 : 0;
}
