/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared helpers of the vfio driver's host tests: a fake controller set up with given CAP and
 * Identify values, a controller brought up on it, commands built, submitted and waited for.
 */
#ifndef XNVME_TEST_VFIO_HARNESS_H
#define XNVME_TEST_VFIO_HARNESS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctrl.h"
#include "fake_ctrl.h"
#include "xnvme_test.h"

#define NLBAS 65536

static uint8_t g_sgls; /* SGL support of the next fake */

struct rec {
	int ncpl;
	struct xnvme_spec_cpl cpl;
};

static inline void
rec_cb(void *arg, const struct xnvme_spec_cpl *cpl)
{
	struct rec *r = arg;

	r->ncpl++;
	r->cpl = *cpl;
}

static inline void
fake_setup(struct fake_ctrl *fc, uint8_t dstrd, uint8_t mpsmin, uint8_t mdts, uint16_t ms)
{
	memset(fc, 0, sizeof(*fc));
	fc->mqes = 63;
	fc->dstrd = dstrd;
	fc->to = 1;
	fc->mpsmin = mpsmin;
	fc->css = NVME_CAP_CSS_NVM;
	fc->mdts = mdts;
	fc->lba_nbytes = 512;
	fc->ms = ms;
	fc->nlbas = NLBAS;
	fc->swallow_slba = UINT64_MAX;
	fc->sgls = g_sgls;
	CHECK_EQ(fake_ctrl_init(fc), 0);
}

static inline void
fill(uint8_t *buf, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; ++i) {
		buf[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 9));
	}
}

static inline struct xnvme_spec_cmd
rw_cmd(uint8_t opc, uint64_t slba, size_t nbytes)
{
	struct xnvme_spec_cmd cmd = {0};

	cmd.common.opcode = opc;
	cmd.common.nsid = 1;
	cmd.nvm.slba = slba;
	cmd.nvm.nlb = (uint16_t)(nbytes / 512 - 1);
	return cmd;
}

/* Submit one command, ring, reap until it completes; returns the command's submit error */
static inline int
io(struct vfio_qpair *qp, uint8_t opc, uint64_t slba, const struct iovec *iov, size_t cnt,
   void *mbuf, size_t mlen, struct rec *r)
{
	size_t n = 0;
	struct xnvme_spec_cmd cmd;
	int err;

	for (size_t i = 0; i < cnt; ++i) {
		n += iov[i].iov_len;
	}
	cmd = rw_cmd(opc, slba, n);
	memset(r, 0, sizeof(*r));
	err = vfio_qpair_submit(qp, &cmd, iov, cnt, mbuf, mlen, r);
	if (err) {
		return err;
	}
	vfio_qpair_ring(qp);
	for (int spins = 0; !r->ncpl && spins < 1000000; ++spins) {
		vfio_qpair_reap(qp, 0);
	}
	return 0;
}

/* Writes `n` bytes at buf+off to `slba`, reads them back into another buffer, compares */
static inline void
roundtrip(struct vfio_ctrl *ctrl, struct vfio_qpair *qp, size_t off, size_t n, uint64_t slba)
{
	uint8_t *wbuf = vfio_dma_alloc(&ctrl->dma, off + n, NULL);
	uint8_t *rbuf = vfio_dma_alloc(&ctrl->dma, off + n, NULL);
	struct iovec wv = {wbuf + off, n}, rv = {rbuf + off, n};
	struct rec r;

	CHECK(wbuf && rbuf);
	if (!wbuf || !rbuf) {
		return;
	}
	fill(wbuf + off, n, (unsigned)(n + off));
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_WRITE, slba, &wv, 1, NULL, 0, &r), 0);
	CHECK_EQ(r.ncpl, 1);
	CHECK_EQ(r.cpl.status.val, 0);
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, slba, &rv, 1, NULL, 0, &r), 0);
	CHECK_EQ(r.ncpl, 1);
	CHECK_EQ(r.cpl.status.val, 0);
	if (memcmp(wbuf + off, rbuf + off, n)) {
		fprintf(stderr, "mismatch off %zu n %zu\n", off, n);
		CHECK(0);
	}
	vfio_dma_free(&ctrl->dma, wbuf);
	vfio_dma_free(&ctrl->dma, rbuf);
}

/* A fake with metadata `ms`, the controller up, and one I/O queue pair of `qsize` */
static inline struct vfio_qpair *
ctrl_up(struct fake_ctrl *fc, struct vfio_ctrl *ctrl, uint16_t ms, uint32_t qsize)
{
	struct vfio_ctrl_opts opts = {0};
	struct vfio_qpair *qp;
	char msg[256] = "";

	fake_setup(fc, 0, 0, 5, ms);
	if (vfio_ctrl_init(ctrl, &fc->bus, &opts, msg, sizeof(msg))) {
		fprintf(stderr, "FAIL: controller bring-up: %s\n", msg);
		exit(1);
	}
	qp = vfio_ctrl_qpair_create(ctrl, qsize, rec_cb, 1000000, false);
	CHECK(qp != NULL);
	return qp;
}

/* Destroys the queue pair, shuts the controller down, checks every mapping went, frees the fake */
static inline void
ctrl_down(struct fake_ctrl *fc, struct vfio_ctrl *ctrl, struct vfio_qpair *qp)
{
	vfio_ctrl_qpair_destroy(ctrl, qp);
	vfio_ctrl_fini(ctrl);
	CHECK_EQ(fc->nmaps, 0);
	fake_ctrl_fini(fc);
}

typedef void (*qp_test_fn)(struct fake_ctrl *fc, struct vfio_ctrl *ctrl, struct vfio_qpair *qp);

/* Runs the tests in order on one queue pair of 32 entries; checks the fake saw only mapped
 * memory and that teardown unmaps everything */
static inline void
run_on_queue(const qp_test_fn *fns, size_t n)
{
	struct fake_ctrl fc;
	struct vfio_ctrl ctrl;
	struct vfio_qpair *qp = ctrl_up(&fc, &ctrl, 0, 32);

	for (size_t i = 0; qp && i < n; ++i) {
		fns[i](&fc, &ctrl, qp);
	}
	CHECK_EQ(fc.bad_dma, 0);
	ctrl_down(&fc, &ctrl, qp);
}

#endif /* XNVME_TEST_VFIO_HARNESS_H */
