// SPDX-License-Identifier: BSD-3-Clause
/*
 * The vfio driver under faults, against the in-memory fake controller (no hardware): hostile
 * completion entries (unknown CID, duplicate, stale phase), a command that never completes
 * (on an idle and on a busy queue: timeout, Abort, its late completion), an Abort that works,
 * an Abort the device ignores (controller reset, queues recreated, data intact afterwards), a
 * reset that fails, a fatal controller status, a device that is gone (registers read
 * all-ones), a removal requested through the request eventfd, admin payloads through the
 * bounce buffer, and a controller that never becomes ready (CAP.TO).
 */
#include <sys/eventfd.h>

#include "harness.h"

/* At the timeout's callback: the device still owns the command and the memory it was given */
struct tmo_rec {
	struct rec r;
	struct vfio_ctrl *ctrl;
	struct vfio_qpair *qp;
	uint8_t *tmp;
	uint64_t t, t_new;
	int abandoned, nfree_ok, reserved;
};

static void
tmo_cb(void *arg, const struct xnvme_spec_cpl *cpl)
{
	struct tmo_rec *t = arg;
	uint64_t t2 = 0;

	rec_cb(&t->r, cpl);
	t->abandoned = (int)t->ctrl->dma.abandoned;
	t->nfree_ok = t->qp->nfree == t->qp->ncids - 1;
	/* ranges freed now stay reserved: the device may still write what it was given */
	vfio_dma_free(&t->ctrl->dma, t->tmp);
	t->tmp = vfio_dma_alloc(&t->ctrl->dma, 4096, &t2);
	t->reserved = t2 != t->t;
	t->t_new = t2;
}

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

/* A command that never completes times out and is aborted; the device answers "not aborted"
 * and completes it late: counted and ignored, no reset; its CID and memory were held till then */
static void
test_timeout(struct fake_ctrl *fc, struct vfio_ctrl *ctrl, struct vfio_qpair *qp)
{
	uint8_t *buf = vfio_dma_alloc(&ctrl->dma, 4096, NULL);
	struct xnvme_spec_cmd cmd = rw_cmd(XNVME_SPEC_NVM_OPC_READ, 77, 4096);
	struct iovec v = {buf, 4096};
	struct tmo_rec t = {.ctrl = ctrl, .qp = qp};
	uint32_t resets = fc->resets;
	uint64_t t2, t3;
	struct rec r;

	/* a freed range is reused at once while no command is abandoned */
	vfio_dma_free(&ctrl->dma, vfio_dma_alloc(&ctrl->dma, 4096, &t.t));
	t.tmp = vfio_dma_alloc(&ctrl->dma, 4096, &t2);
	CHECK_EQ(t2, t.t);

	qp->timeout_us = 20000;
	qp->cb = tmo_cb;
	fc->swallow_slba = 77;
	fc->abort_mode = FAKE_ABORT_LATE;
	CHECK_EQ(vfio_qpair_submit(qp, &cmd, &v, 1, NULL, 0, &t), 0);
	vfio_qpair_ring(qp);
	for (int i = 0; i < 1000000 && !t.r.ncpl; ++i) {
		vfio_qpair_reap(qp, 0);
	}
	qp->cb = rec_cb;
	CHECK_EQ(t.r.ncpl, 1);
	CHECK_EQ(t.r.cpl.status.sct, XNVME_STATUS_CODE_TYPE_VENDOR);
	CHECK_EQ(t.r.cpl.status.sc, ETIMEDOUT);
	CHECK_EQ(t.abandoned, 1);
	CHECK(t.nfree_ok);
	CHECK(t.reserved);
	CHECK_EQ(qp->stats.timeouts, 1);
	/* the Abort named the command; the late completion settled it: no reset */
	CHECK_EQ(fc->aborts, 1);
	CHECK_EQ(fc->last_abort, (uint32_t)qp->qid | ((uint32_t)t.r.cpl.cid << 16));
	CHECK_EQ(qp->stats.late, 1);
	CHECK_EQ(fc->resets, resets);
	CHECK_EQ(ctrl->dma.abandoned, 0);
	CHECK_EQ(qp->nfree, qp->ncids);
	vfio_dma_free(&ctrl->dma, t.tmp);
	t.tmp = vfio_dma_alloc(&ctrl->dma, 4096, &t3);
	CHECK_EQ(t3, t.t_new); /* reused again, the one freed while abandoned never */
	CHECK(t3 != t2);
	vfio_dma_free(&ctrl->dma, t.tmp);
	CHECK_EQ(t.r.ncpl, 1);
	fc->swallow_slba = UINT64_MAX;
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 1, &v, 1, NULL, 0, &r), 0);
	CHECK_EQ(r.cpl.status.val, 0);
	vfio_dma_free(&ctrl->dma, buf);
}

/* The device honours the Abort: the command completes with Command Abort Requested, no reset */
static void
test_abort_ok(struct fake_ctrl *fc, struct vfio_ctrl *ctrl, struct vfio_qpair *qp)
{
	uint8_t *buf = vfio_dma_alloc(&ctrl->dma, 4096, NULL);
	struct iovec v = {buf, 4096};
	uint32_t resets = fc->resets, aborts = fc->aborts;
	uint64_t late = qp->stats.late;
	struct rec r;

	qp->timeout_us = 20000;
	fc->swallow_slba = 78;
	fc->abort_mode = FAKE_ABORT_OK;
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 78, &v, 1, NULL, 0, &r), 0);
	CHECK_EQ(r.ncpl, 1);
	CHECK_EQ(r.cpl.status.sc, ETIMEDOUT);
	CHECK_EQ(fc->aborts, aborts + 1);
	CHECK_EQ(qp->stats.late, late + 1);
	CHECK_EQ(fc->resets, resets);
	CHECK_EQ(qp->nfree, qp->ncids);
	CHECK_EQ(ctrl->dma.abandoned, 0);
	fc->swallow_slba = UINT64_MAX;
	roundtrip(ctrl, qp, 0, 4096, 78);
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
	fc->abort_mode = FAKE_ABORT_LATE;
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
	const qp_test_fn fns[] = {test_hostile, test_timeout, test_abort_ok, test_timeout_busy,
				  test_cfs};

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

/*
 * The device ignores the Abort: after the settle bound the controller is reset. The timed-out
 * command's CID is free again, a command of another queue pair that the reset dropped fails
 * with ECANCELED, both pairs are recreated and move data again, the admin queue works, and a
 * sync-style wait (vfio_qpair_exec) times out and recovers the same way.
 */
static void
test_abort_reset(void)
{
	struct fake_ctrl fc;
	struct vfio_ctrl ctrl;
	struct vfio_qpair *qp = ctrl_up(&fc, &ctrl, 0, 8);
	struct vfio_qpair *qp2 = vfio_ctrl_qpair_create(&ctrl, 8, rec_cb, 0, false);
	struct vfio_qpair *sq = vfio_ctrl_qpair_create(&ctrl, 4, NULL, 20000, false);
	uint8_t *buf = vfio_dma_alloc(&ctrl.dma, 8192, NULL);
	struct xnvme_spec_cmd cmd = rw_cmd(XNVME_SPEC_NVM_OPC_READ, 77, 4096);
	struct iovec v = {buf, 4096}, v2 = {buf + 4096, 4096};
	struct xnvme_spec_cpl cpl;
	struct rec r, r2 = {0};
	uint64_t t0;

	CHECK(qp && qp2 && sq && buf);
	if (!qp || !qp2 || !sq || !buf) {
		exit(1);
	}
	qp->timeout_us = 20000;
	fc.swallow_slba = 77;
	fc.abort_mode = FAKE_ABORT_IGNORE;
	CHECK_EQ(vfio_qpair_submit(qp2, &cmd, &v2, 1, NULL, 0, &r2), 0);
	vfio_qpair_ring(qp2);
	vfio_qpair_reap(qp2, 0);
	t0 = vfio_now_us();
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 77, &v, 1, NULL, 0, &r), 0);
	CHECK(vfio_now_us() - t0 < 2000000);
	CHECK_EQ(r.ncpl, 1);
	CHECK_EQ(r.cpl.status.sc, ETIMEDOUT);
	CHECK_EQ(fc.aborts, 1);
	CHECK_EQ(fc.resets, 1);
	CHECK_EQ(fc.dropped, 2);
	CHECK_EQ(ctrl.resets, 1);
	CHECK_EQ(ctrl.failed, 0);
	CHECK_EQ(qp->nfree, qp->ncids);
	CHECK_EQ(qp->abandoned, 0);
	fc.swallow_slba = UINT64_MAX;
	roundtrip(&ctrl, qp, 0, 4096, 500);

	/* the other pair learns of the reset when used: its dropped command fails, then it works */
	CHECK_EQ(r2.ncpl, 0);
	vfio_qpair_reap(qp2, 0);
	CHECK_EQ(r2.ncpl, 1);
	CHECK_EQ(r2.cpl.status.sct, XNVME_STATUS_CODE_TYPE_VENDOR);
	CHECK_EQ(r2.cpl.status.sc, ECANCELED);
	CHECK_EQ(qp2->stats.cancelled, 1);
	CHECK_EQ(qp2->nfree, qp2->ncids);
	roundtrip(&ctrl, qp2, 0, 4096, 600);
	CHECK_EQ(ctrl.dma.abandoned, 0);

	/* a waiting caller: -ETIMEDOUT, then the next command on the same pair succeeds */
	fc.swallow_slba = 79;
	cmd.nvm.slba = 79;
	CHECK_EQ(vfio_qpair_exec(sq, &cmd, &v, 1, NULL, 0, &cpl), -ETIMEDOUT);
	CHECK_EQ(fc.resets, 2);
	fc.swallow_slba = UINT64_MAX;
	CHECK_EQ(vfio_qpair_exec(sq, &cmd, &v, 1, NULL, 0, &cpl), 0);
	CHECK_EQ(cpl.status.val, 0);
	cmd.common.opcode = NVME_ADM_IDENTIFY;
	cmd.common.ndt = 1;
	CHECK_EQ(vfio_ctrl_admin(&ctrl, &cmd, buf, 4096, &cpl), 0);
	CHECK_EQ(buf[0], 0x36);
	CHECK_EQ(fc.bad_dma, 0);
	CHECK_EQ(fc.bad_doorbells, 0);

	vfio_dma_free(&ctrl.dma, buf);
	vfio_ctrl_qpair_destroy(&ctrl, sq);
	vfio_ctrl_qpair_destroy(&ctrl, qp2);
	ctrl_down(&fc, &ctrl, qp);
}

/* Abort unsupported and the controller does not come back from the reset: failed, with EIO */
static void
test_reset_fails(void)
{
	struct fake_ctrl fc;
	struct vfio_ctrl ctrl;
	struct vfio_qpair *qp = ctrl_up(&fc, &ctrl, 0, 8);
	uint8_t *buf = vfio_dma_alloc(&ctrl.dma, 4096, NULL);
	struct iovec v = {buf, 4096};
	struct xnvme_spec_cmd cmd = {0};
	struct xnvme_spec_cpl cpl;
	struct rec r;

	qp->timeout_us = 20000;
	fc.swallow_slba = 77;
	fc.never_ready = true;
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 77, &v, 1, NULL, 0, &r), 0);
	CHECK_EQ(r.cpl.status.sc, ETIMEDOUT);
	CHECK_EQ(fc.aborts, 0); /* an invalid opcode: straight to the reset */
	CHECK_EQ(fc.resets, 1);
	CHECK_EQ(ctrl.failed, 1);
	CHECK(qp->failed);
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 1, &v, 1, NULL, 0, &r), -EIO);
	cmd.common.opcode = NVME_ADM_IDENTIFY;
	cmd.common.ndt = 1;
	CHECK_EQ(vfio_ctrl_admin(&ctrl, &cmd, NULL, 0, &cpl), -EIO);
	vfio_dma_free(&ctrl.dma, buf);
	ctrl_down(&fc, &ctrl, qp);
}

/*
 * The OS asks for the device back (its request eventfd fires) while a command is outstanding:
 * the driver's thread lets go of the device at once, without the application; the command
 * fails with EIO, later ones are refused, closing neither hangs nor shuts down a gone device.
 */
static void
test_removal_request(void)
{
	struct fake_ctrl fc;
	struct vfio_ctrl ctrl;
	struct vfio_qpair *qp = ctrl_up(&fc, &ctrl, 0, 8);
	uint8_t *buf = vfio_dma_alloc(&ctrl.dma, 4096, NULL);
	struct xnvme_spec_cmd cmd = rw_cmd(XNVME_SPEC_NVM_OPC_READ, 77, 4096);
	struct iovec v = {buf, 4096};
	uint64_t one = 1, t0;
	struct rec r = {0};

	CHECK(fc.req_fd > 0); /* the driver registered for removal requests */
	qp->timeout_us = 0;
	fc.swallow_slba = 77;
	CHECK_EQ(vfio_qpair_submit(qp, &cmd, &v, 1, NULL, 0, &r), 0);
	vfio_qpair_ring(qp);
	vfio_qpair_reap(qp, 0);
	CHECK_EQ(r.ncpl, 0);
	CHECK_EQ(write(fc.req_fd, &one, sizeof(one)), (ssize_t)sizeof(one));
	t0 = vfio_now_us();
	while (!__atomic_load_n(&fc.released, __ATOMIC_ACQUIRE) && vfio_now_us() - t0 < 2000000) {
		usleep(1000);
	}
	CHECK_EQ(fc.released, 1);
	CHECK_EQ(ctrl.removed, 1);
	CHECK_EQ(vfio_bus_read32(&fc.bus, NVME_REG_CSTS), UINT32_MAX);
	for (int i = 0; i < 100000 && !r.ncpl; ++i) {
		vfio_qpair_reap(qp, 0);
	}
	CHECK_EQ(r.ncpl, 1);
	CHECK_EQ(r.cpl.status.sct, XNVME_STATUS_CODE_TYPE_VENDOR);
	CHECK_EQ(r.cpl.status.sc, EIO);
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 1, &v, 1, NULL, 0, &r), -EIO);
	vfio_dma_free(&ctrl.dma, buf);
	ctrl_down(&fc, &ctrl, qp);
	CHECK_EQ(fc.shutdowns, 0);
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
	test_abort_reset();
	test_reset_fails();
	test_removal_request();
	test_never_ready();
	return xnvme_test_result("test_vfio_faults");
}
