// SPDX-License-Identifier: BSD-3-Clause
/*
 * The vfio driver's controller, queue and PRP logic against the in-memory fake controller (no
 * hardware): bring-up honouring CAP, identify, data written and read back across PRP
 * boundaries, lists and chained lists, vectored (PRP and SGL) and metadata payloads, refusals
 * before the device sees a command, one doorbell per batch, random completion orders, the
 * MSI-X completion eventfd, doorbells limited to BAR0, IOVA reuse, and the backend's open
 * errors.
 */
#include "harness.h"
#include "vfio.h"

static void
test_bringup_and_io(uint8_t dstrd, uint8_t mpsmin, uint8_t mdts, uint32_t cap)
{
	struct vfio_ctrl_opts opts = {.max_xfer_cap = cap};
	struct fake_ctrl fc;
	struct vfio_ctrl ctrl;
	struct vfio_qpair *qp;
	char msg[256] = "";
	size_t page = (size_t)4096 << mpsmin;

	fake_setup(&fc, dstrd, mpsmin, mdts, 0);
	CHECK_EQ(vfio_ctrl_init(&ctrl, &fc.bus, &opts, msg, sizeof(msg)), 0);
	CHECK_EQ((fc.cc_seen >> NVME_CC_MPS_SHIFT) & 0xF, mpsmin);
	CHECK_EQ((fc.cc_seen >> NVME_CC_CSS_SHIFT) & 0x7, NVME_CC_CSS_NVM);
	CHECK_EQ(ctrl.idfy[0], 0x36);
	CHECK_EQ(ctrl.nioq, FAKE_MAXQ - 1);
	cap = cap ? cap : 2u << 20;
	CHECK_EQ(ctrl.max_xfer,
		 mdts && ((uint64_t)page << mdts) < cap ? (uint32_t)((uint64_t)page << mdts) : cap);

	qp = vfio_ctrl_qpair_create(&ctrl, 32, rec_cb, 1000000, false);
	CHECK(qp != NULL);
	if (qp) {
		size_t sizes[] = {512,          1024,     page,     page + 512,
				  2 * page,     3 * page, 8 * page, ctrl.max_xfer - page,
				  ctrl.max_xfer};
		size_t offs[] = {0, 512, page - 512};

		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
			for (size_t j = 0; j < 3; ++j) {
				if (sizes[i] + offs[j] <= ctrl.max_xfer + (offs[j] ? page : 0) &&
				    sizes[i] <= ctrl.max_xfer) {
					roundtrip(&ctrl, qp, offs[j], sizes[i], i * 97 + j * 8);
				}
			}
		}
		vfio_ctrl_qpair_destroy(&ctrl, qp);
	}
	CHECK_EQ(fc.bad_doorbells, 0);
	CHECK_EQ(fc.bad_dma, 0);
	vfio_ctrl_fini(&ctrl);
	CHECK_EQ(fc.shutdowns, 1);
	CHECK_EQ(fc.cc & NVME_CC_EN, 0);
	CHECK_EQ(fc.nmaps, 0);
	fake_ctrl_fini(&fc);
}

/* A wide doorbell stride in a small BAR0: only the queues whose doorbells fit are used */
static void
test_small_bar(void)
{
	struct vfio_ctrl_opts opts = {0};
	struct vfio_qpair *qp[2];
	struct fake_ctrl fc;
	struct vfio_ctrl ctrl;
	char msg[256] = "";

	fake_setup(&fc, 9, 0, 5, 0); /* 2 KiB stride: queue 2's CQ doorbell ends at 0x3804 */
	fc.bus.bar_size = 0x4000;
	CHECK_EQ(vfio_ctrl_init(&ctrl, &fc.bus, &opts, msg, sizeof(msg)), 0);
	CHECK_EQ(ctrl.max_qid, 2);
	CHECK_EQ(ctrl.nioq, 2);
	qp[0] = vfio_ctrl_qpair_create(&ctrl, 32, rec_cb, 1000000, false);
	qp[1] = vfio_ctrl_qpair_create(&ctrl, 32, rec_cb, 1000000, false);
	CHECK(qp[0] && qp[1]);
	errno = 0;
	CHECK(vfio_ctrl_qpair_create(&ctrl, 32, rec_cb, 1000000, false) == NULL);
	CHECK_EQ(errno, EBUSY);
	errno = 0;
	CHECK(vfio_qpair_alloc(&ctrl, 3, 32, rec_cb, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	if (qp[1]) {
		roundtrip(&ctrl, qp[1], 0, 4096, 5); /* the highest doorbells work */
	}
	vfio_ctrl_qpair_destroy(&ctrl, qp[0]);
	vfio_ctrl_qpair_destroy(&ctrl, qp[1]);
	vfio_ctrl_fini(&ctrl);
	CHECK_EQ(fc.bad_doorbells, 0);
	CHECK_EQ(fc.nmaps, 0);
	fake_ctrl_fini(&fc);

	/* not even one I/O queue fits: bring-up refuses before touching the controller */
	fake_setup(&fc, 12, 0, 5, 0);
	fc.bus.bar_size = 0x4000;
	CHECK_EQ(vfio_ctrl_init(&ctrl, &fc.bus, &opts, msg, sizeof(msg)), -ENOTSUP);
	CHECK(strstr(msg, "BAR0") && strstr(msg, "DSTRD 12"));
	CHECK_EQ(fc.cc_seen, 0);
	CHECK_EQ(fc.nmaps, 0);
	fake_ctrl_fini(&fc);
}

/* Freed IOVA ranges are reused first-fit and merge with their neighbours, so cycles that
 * allocate far more in total than the IOVA window holds keep succeeding; reserved ranges
 * (PCI BARs) are never handed out */
static void
test_iova_reuse(void)
{
	struct fake_ctrl fc;
	struct vfio_dma dma;
	void *buf[32];
	uint64_t iova[32], base, big;
	size_t n = 0;

	fake_setup(&fc, 0, 0, 5, 0);
	base = fc.bus.iova_base;
	fc.bus.iova_limit = base + (1u << 20); /* 16 buffers of 64 KiB */
	CHECK_EQ(vfio_dma_init(&dma, &fc.bus), 0);
	while (n < 32 && (buf[n] = vfio_dma_alloc(&dma, 64 << 10, &iova[n]))) {
		n++;
	}
	CHECK_EQ(n, 16);
	CHECK_EQ(errno, ENOSPC);
	CHECK_EQ(iova[0], base);
	CHECK_EQ(iova[15], base + 15 * (64 << 10));
	if (n == 16) {
		/* all but the last, odd ones first: the holes merge into one */
		for (size_t i = 1; i < 15; i += 2) {
			CHECK_EQ(vfio_dma_free(&dma, buf[i]), 0);
		}
		for (size_t i = 0; i < 15; i += 2) {
			CHECK_EQ(vfio_dma_free(&dma, buf[i]), 0);
		}
		buf[0] = vfio_dma_alloc(&dma, 15 * (64 << 10), &big);
		CHECK(buf[0] != NULL);
		CHECK_EQ(big, base);
		CHECK_EQ(dma.iova.nholes, 0);
		vfio_dma_free(&dma, buf[0]);
		vfio_dma_free(&dma, buf[15]);
		CHECK_EQ(dma.iova.nholes, 1);
	}
	vfio_dma_fini(&dma);

	/* 2 MiB and 64 KiB buffers interleaved: 2 GiB through an 8 MiB window */
	fc.bus.iova_limit = base + (8u << 20);
	CHECK_EQ(vfio_dma_init(&dma, &fc.bus), 0);
	n = 0;
	for (int i = 0; i < 1024; ++i) {
		void *a = vfio_dma_alloc(&dma, 2u << 20, NULL);
		void *b = vfio_dma_alloc(&dma, 64 << 10, NULL);

		n += a && b;
		vfio_dma_free(&dma, a);
		vfio_dma_free(&dma, b);
	}
	CHECK_EQ(n, 1024);
	CHECK_EQ(dma.iova.nholes, 1);
	CHECK_EQ(fc.nmaps, 0);
	vfio_dma_fini(&dma);

	/* reserved ranges (PCI BARs) are never handed out: one inside, one over the start */
	{
		const struct vfio_bus_range bars[] = {{base + 0x3000, base + 0x5000},
						      {base - 0x1000, base + 0x1000}};
		uint64_t at;

		fc.bus.iova_limit = base + (1u << 20);
		fc.bus.reserved = bars;
		fc.bus.nreserved = 2;
		CHECK_EQ(vfio_dma_init(&dma, &fc.bus), 0);
		CHECK_EQ(dma.iova.nholes, 2);
		for (n = 0; n < 8 && (buf[n] = vfio_dma_alloc(&dma, 4096, &at)); ++n) {
			CHECK(at >= base + 0x1000);
			CHECK(at + 4096 <= base + 0x3000 || at >= base + 0x5000);
		}
		CHECK_EQ(n, 8);
		while (n) {
			vfio_dma_free(&dma, buf[--n]);
		}
		vfio_dma_fini(&dma);
		fc.bus.reserved = NULL;
		fc.bus.nreserved = 0;
	}
	fake_ctrl_fini(&fc);
}

/* Refusals before the device sees anything: size, alignment, unreachable memory */
static void
test_refusals(struct fake_ctrl *fc, struct vfio_ctrl *ctrl, struct vfio_qpair *qp)
{
	uint8_t *buf = vfio_dma_alloc(&ctrl->dma, 4 * 4096, NULL);
	uint8_t heap[4096];
	struct iovec bad_inner[2] = {{buf, 1024}, {buf + 4096, 4096}};
	struct iovec good_vec[3] = {{buf + 512, 3584}, {buf + 8192, 4096}, {buf + 4096, 1024}};
	struct iovec big = {buf, (size_t)ctrl->max_xfer + 4096};
	struct iovec unmapped = {heap, sizeof(heap)};
	uint8_t *rd = vfio_dma_alloc(&ctrl->dma, 3 * 4096, NULL);
	struct iovec rv = {rd, 3584 + 4096 + 1024};
	struct rec r;

	uint32_t tail = qp->sq_tail, dbs = fc->sq_db_writes[qp->qid];

	CHECK_EQ(fc->sgls, 0); /* vectors PRPs cannot describe have no fallback here */
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_WRITE, 0, bad_inner, 2, NULL, 0, &r), -EINVAL);
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_WRITE, 0, &big, 1, NULL, 0, &r), -EINVAL);
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_WRITE, 0, &unmapped, 1, NULL, 0, &r), -EFAULT);
	CHECK_EQ(qp->nfree, qp->ncids);
	/* no entry was written to the ring and no doorbell told the device of one */
	CHECK_EQ(qp->sq_tail, tail);
	CHECK_EQ(fc->sq_db_writes[qp->qid], dbs);

	/* vectored: page-aligned inner boundaries, gathered in order */
	fill(buf, 4 * 4096, 5);
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_WRITE, 100, good_vec, 3, NULL, 0, &r), 0);
	CHECK_EQ(r.cpl.status.val, 0);
	CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 100, &rv, 1, NULL, 0, &r), 0);
	CHECK(!memcmp(rd, buf + 512, 3584));
	CHECK(!memcmp(rd + 3584, buf + 8192, 4096));
	CHECK(!memcmp(rd + 3584 + 4096, buf + 4096, 1024));
	vfio_dma_free(&ctrl->dma, buf);
	vfio_dma_free(&ctrl->dma, rd);
}

/* One doorbell per batch, random completion order, every command completed exactly once */
static void
test_batches_random(struct fake_ctrl *fc, struct vfio_ctrl *ctrl, struct vfio_qpair *qp)
{
	static struct rec recs[31];
	uint8_t *buf = vfio_dma_alloc(&ctrl->dma, 31 * 4096, NULL);
	uint8_t *chk = vfio_dma_alloc(&ctrl->dma, 4096, NULL);
	uint32_t sq0 = fc->sq_db_writes[qp->qid];
	struct rec r;

	fc->random_order = true;
	for (int round = 0; round < 20; ++round) {
		int qd = 1 + round % 31, done = 0;

		memset(recs, 0, sizeof(recs));
		for (int i = 0; i < qd; ++i) {
			struct xnvme_spec_cmd cmd = rw_cmd(XNVME_SPEC_NVM_OPC_WRITE, 8u * i, 4096);
			struct iovec v = {buf + i * 4096, 4096};

			fill(buf + i * 4096, 4096, (unsigned)(round * 100 + i));
			CHECK_EQ(vfio_qpair_submit(qp, &cmd, &v, 1, NULL, 0, &recs[i]), 0);
		}
		vfio_qpair_ring(qp);
		CHECK_EQ(fc->sq_db_writes[qp->qid], sq0 + (uint32_t)round + 1);
		for (int spins = 0; done < qd && spins < 100000; ++spins) {
			done += (int)vfio_qpair_reap(qp, 0);
		}
		CHECK_EQ(done, qd);
		for (int i = 0; i < qd; ++i) {
			CHECK_EQ(recs[i].ncpl, 1);
			CHECK_EQ(recs[i].cpl.status.val, 0);
		}
		CHECK_EQ(qp->outstanding, 0);
	}
	fc->random_order = false;
	sq0 = fc->sq_db_writes[qp->qid];
	for (int i = 0; i < 11; ++i) { /* the last round had QD 20: check what it wrote */
		struct iovec v = {chk, 4096};

		CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 8u * i, &v, 1, NULL, 0, &r), 0);
		CHECK(!memcmp(chk, buf + i * 4096, 4096));
	}
	CHECK_EQ(fc->sq_db_writes[qp->qid], sq0 + 11);
	CHECK(qp->stats.cq_doorbells <= qp->stats.sq_doorbells + 200);
	vfio_dma_free(&ctrl->dma, buf);
	vfio_dma_free(&ctrl->dma, chk);
}

/* PRP refusals, vectors, batches and random completion orders on one queue pair */
static void
test_io_suite(void)
{
	const qp_test_fn fns[] = {test_refusals, test_batches_random};

	run_on_queue(fns, sizeof(fns) / sizeof(fns[0]));
}

static void
test_metadata(void)
{
	struct fake_ctrl fc;
	struct vfio_ctrl ctrl;
	struct vfio_qpair *qp = ctrl_up(&fc, &ctrl, 8, 8);

	if (qp) {
		uint8_t *d = vfio_dma_alloc(&ctrl.dma, 8192, NULL);
		uint8_t *m = vfio_dma_alloc(&ctrl.dma, 64, NULL);
		struct iovec v = {d, 4096};
		struct rec r;

		fill(m, 64, 9);
		CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_WRITE, 40, &v, 1, m, 64, &r), 0);
		memset(m, 0, 64);
		CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 40, &v, 1, m, 64, &r), 0);
		CHECK_EQ(r.cpl.status.val, 0);
		CHECK(!memcmp(m, fc.meta + 40 * 8, 64));
		CHECK_EQ(m[0], (uint8_t)(9 * 31));
		vfio_ctrl_qpair_destroy(&ctrl, qp);
	}
	vfio_ctrl_fini(&ctrl);
	fake_ctrl_fini(&fc);
}

/* Vectors PRPs cannot describe go as SGLs when the controller offers them */
static void
test_sgl(void)
{
	struct fake_ctrl fc;
	struct vfio_ctrl ctrl;
	struct vfio_qpair *qp;

	g_sgls = 1;
	qp = ctrl_up(&fc, &ctrl, 0, 8);
	g_sgls = 0;
	if (qp) {
		uint8_t *w = vfio_dma_alloc(&ctrl.dma, 8192, NULL);
		uint8_t *r = vfio_dma_alloc(&ctrl.dma, 8192, NULL);
		struct iovec wv[3] = {{w, 512}, {w + 512, 1024}, {w + 1536, 512}};
		struct iovec rv[2] = {{r + 100 * 4, 1536}, {r + 4096, 512}};
		struct rec rc;

		CHECK_EQ(ctrl.sgls, 1);
		fill(w, 2048, 3);
		CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_WRITE, 50, wv, 3, NULL, 0, &rc), 0);
		CHECK_EQ(rc.cpl.status.val, 0);
		CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_READ, 50, rv, 2, NULL, 0, &rc), 0);
		CHECK_EQ(rc.cpl.status.val, 0);
		CHECK(!memcmp(r + 400, w, 1536));
		CHECK(!memcmp(r + 4096, w + 1536, 512));
		CHECK_EQ(fc.bad_dma, 0);
		vfio_ctrl_qpair_destroy(&ctrl, qp);
	}
	vfio_ctrl_fini(&ctrl);
	fake_ctrl_fini(&fc);
}

/* A queue pair with interrupts: its CQ signals the eventfd of MSI-X vector qid */
static void
test_irq(void)
{
	struct fake_ctrl fc;
	struct vfio_ctrl ctrl;
	struct vfio_qpair *polled = ctrl_up(&fc, &ctrl, 0, 8), *qp;
	uint64_t cnt = 0;

	qp = vfio_ctrl_qpair_create(&ctrl, 8, rec_cb, 1000000, true);
	CHECK(qp != NULL && polled != NULL);
	if (qp && polled) {
		uint8_t *buf = vfio_dma_alloc(&ctrl.dma, 4096, NULL);
		struct iovec v = {buf, 4096};
		struct rec r;

		CHECK_EQ(polled->irq_fd, -1);
		CHECK(qp->irq_fd >= 0);
		CHECK_EQ(fc.cq[qp->qid].iv, qp->qid);
		CHECK(read(qp->irq_fd, &cnt, sizeof(cnt)) < 0); /* nothing signalled yet */
		CHECK_EQ(io(qp, XNVME_SPEC_NVM_OPC_WRITE, 5, &v, 1, NULL, 0, &r), 0);
		CHECK_EQ(r.ncpl, 1);
		CHECK_EQ(read(qp->irq_fd, &cnt, sizeof(cnt)), (ssize_t)sizeof(cnt));
		CHECK_EQ(cnt, 1);
		CHECK_EQ(io(polled, XNVME_SPEC_NVM_OPC_READ, 5, &v, 1, NULL, 0, &r), 0);
		CHECK(read(qp->irq_fd, &cnt, sizeof(cnt)) <
		      0); /* the polled pair signals nothing */
	}
	vfio_ctrl_qpair_destroy(&ctrl, qp);
	vfio_ctrl_qpair_destroy(&ctrl, polled);
	vfio_ctrl_fini(&ctrl);
	fake_ctrl_fini(&fc);
}

/* The backend's open: URIs it does not own, and a PCI address that is not a vfio function */
static void
test_open_errors(void)
{
	struct xnvme_opts opts = xnvme_opts_default();
	char bdf[16];
	struct xnvme_dev *dev;

	CHECK_EQ(vfio_uri_parse("0000:03:00.0", bdf, sizeof(bdf)), 0);
	CHECK(!strcmp(bdf, "0000:03:00.0"));
	CHECK_EQ(vfio_uri_parse("3B:00.1", bdf, sizeof(bdf)), 0);
	CHECK(!strcmp(bdf, "0000:3b:00.1"));
	CHECK_EQ(vfio_uri_parse("/dev/nvme0n1", bdf, sizeof(bdf)), -ENXIO);
	CHECK_EQ(vfio_uri_parse("0000:03:00.8", bdf, sizeof(bdf)), -ENXIO);
	CHECK_EQ(vfio_uri_parse("0000:03:00.0x", bdf, sizeof(bdf)), -ENXIO);

	opts.be = "vfio";
	errno = 0;
	dev = xnvme_dev_open("0000:ff:1f.7", &opts);
	CHECK(dev == NULL);
	CHECK(errno == ENODEV || errno == ENOSYS);
	if (dev) {
		xnvme_dev_close(dev);
	}
	errno = 0;
	dev = xnvme_dev_open("not-a-pci-address", &opts);
	CHECK(dev == NULL);
	CHECK_EQ(errno, ENXIO);
}

int
main(void)
{
	test_open_errors();
	test_bringup_and_io(0, 0, 5, 0);        /* 128 KiB MDTS: list in one page */
	test_bringup_and_io(1, 0, 0, 4u << 20); /* no MDTS, 4 MiB cap: chained lists */
	test_bringup_and_io(2, 1, 4, 0);        /* 8 KiB pages, 16-byte doorbell stride */
	test_small_bar();
	test_iova_reuse();
	test_metadata();
	test_io_suite();
	test_irq();
	test_sgl();
	return xnvme_test_result("test_vfio_core");
}
