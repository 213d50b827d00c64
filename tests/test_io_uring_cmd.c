// SPDX-License-Identifier: BSD-3-Clause
/*
 * The Linux async mechanism "io_uring_cmd" without NVMe hardware: on a regular file the open
 * fails naming the mechanism and the library prints nothing; the passthrough plumbing
 * (SQE128/CQE32 ring, SQE contents, batching, res 0 completions) against /dev/null, whose
 * uring_cmd handler completes every command with 0, through a mocked device (lib/xnvme_dev.h).
 * The NVMe side runs in the QEMU guest (tests/guest/). Exit: 0 pass, 1 fail, 77 skip.
 */
#include "uring_common.h"
#include "xnvme_dev.h" /* a mocked device: the core's part too */

/* Runs `fn` with stderr captured into `out` */
static void
capture_stderr(char *out, size_t len, void (*fn)(void *), void *arg)
{
	char path[] = "/tmp/xnvme-stderr-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
}

struct open_try {
	const char *uri;
	struct xnvme_dev *dev;
	int err;
	char why[1024]; ///< xnvme_last_error() right after the open
};

static void
open_ucmd(void *arg)
{
	struct open_try *o = arg;
	struct xnvme_opts opts = xnvme_opts_default();

	opts.async = "io_uring_cmd";
	o->dev = xnvme_dev_open(o->uri, &opts);
	o->err = errno;
	snprintf(o->why, sizeof(o->why), "%s", xnvme_last_error());
}

static void
test_ucmd_refused(struct akt *t)
{
	struct open_try o = {.uri = t->uri};
	char msg[2048];

	capture_stderr(msg, sizeof(msg), open_ucmd, &o);
	ACHECK(t, !o.dev && o.err == ENOTSUP, "open with io_uring_cmd: dev=%p errno=%d",
	       (void *)o.dev, o.err);
	ACHECK(t,
	       strstr(o.why, "io_uring_cmd") && strstr(o.why, "/dev/ngXnY") &&
		       strstr(o.why, "regular file"),
	       "reason names the mechanism: '%s'", o.why);
	ACHECK(t, !msg[0], "the library prints nothing on a refused open: '%s'", msg);
	xnvme_dev_close(o.dev);
	ACHECK(t, !xnvme_be_linux_ucmd_supported(t->dev), "ucmd_supported on a file");
}

/* ---------------------------------------------------------------------------------------- */
/* io_uring_cmd plumbing on /dev/null                                                          */
/* ---------------------------------------------------------------------------------------- */

static struct nvme_uring_cmd *
sqe_cmd(struct io_uring *ring, unsigned int i)
{
	struct io_uring_sqe *sqe = &ring->sq.sqes[(i & ring->sq.ring_mask) << 1];

	return (struct nvme_uring_cmd *)((uintptr_t)sqe + offsetof(struct io_uring_sqe, cmd));
}

static struct io_uring_sqe *
sqe_at(struct io_uring *ring, unsigned int i)
{
	return &ring->sq.sqes[(i & ring->sq.ring_mask) << 1];
}

static void
test_ucmd_devnull(void)
{
	struct akt tl = {.name = "/dev/null", .mech = "io_uring_cmd"}, *t = &tl;
	struct xnvme_be_linux_state lstate = {0};
	struct xnvme_dev_core *dc = calloc(1, sizeof(*dc));
	struct xnvme_dev *dev = &dc->dev;
	struct akt_rec recs[16];
	struct xnvme_queue *q;
	struct io_uring *ring;
	struct iovec iov[3];
	uint8_t data[4096], meta[64];
	unsigned int tail0;
	int err;

	lstate.fd = open("/dev/null", O_RDWR);
	lstate.ftype = XNVME_BE_LINUX_CHAR;
	lstate.nvme = true;
	lstate.nsid = 1;
	dev->be = &xnvme_be_linux;
	dev->async = &xnvme_be_linux_async_ucmd;
	dev->state = &lstate;
	dev->opts = xnvme_opts_default();
	dev->ident.dtype = 2;
	dev->ident.nsid = 1;
	dc->settled = 1; /* nothing to identify behind /dev/null */
	pthread_mutex_init(&dc->lock, NULL);
	ACHECK(t, lstate.fd >= 0, "open /dev/null");
	ACHECK(t, xnvme_be_linux_ucmd_supported(dev), "a generic NVMe namespace node (mocked)");

	err = xnvme_queue_init(dev, 16, 0, &q);
	ACHECK(t, !err, "init: %d", err);
	if (err) {
		goto out;
	}
	ring = &ring_of(q)->ring;
	ACHECK(t,
	       (ring->flags & (IORING_SETUP_SQE128 | IORING_SETUP_CQE32)) ==
		       (IORING_SETUP_SQE128 | IORING_SETUP_CQE32),
	       "SQE128|CQE32 ring: 0x%x", ring->flags);
	xnvme_queue_set_cb(q, akt_cb, NULL);
	memset(recs, 0, sizeof(recs));
	tail0 = ring->sq.sqe_tail;

	for (int i = 0; i < 16; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

		akt_prep(ctx, XNVME_SPEC_NVM_OPC_READ, 0x1122334455ULL + i, 7, &recs[i]);
		ctx->cmd.common.cdw02 = 0xC2;
		ctx->cmd.common.cdw03 = 0xC3;
		ctx->cmd.common.cdw13 = 0xABCD0000;
		ctx->cmd.common.cdw14 = 0xE14;
		ctx->cmd.common.cdw15 = 0xF15;
		switch (i) {
		case 1: /* metadata */
			err = xnvme_cmd_pass(ctx, data, 4096, meta, sizeof(meta));
			break;
		case 2: /* vector, copied: the caller's array is scribbled over afterwards */
			iov[0] = (struct iovec){data, 512};
			iov[1] = (struct iovec){data + 512, 1024};
			iov[2] = (struct iovec){data + 1536, 2560};
			err = xnvme_cmd_passv(ctx, iov, 3, 4096, NULL, 0, 0);
			memset(iov, 0, sizeof(iov));
			break;
		case 3: /* DSM: payload from nr, not from the caller's count */
			ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT;
			ctx->cmd.dsm.nr = 2;
			ctx->cmd.dsm.ad = 1;
			err = xnvme_cmd_pass(ctx, data, 1 << 20, NULL, 0);
			break;
		case 4: /* no-data opcode: buffer ignored */
			ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_FLUSH;
			err = xnvme_cmd_pass(ctx, data, 4096, NULL, 0);
			break;
		case 5: /* a read without a buffer never reaches the device */
			err = xnvme_cmd_pass(ctx, NULL, 0, NULL, 0);
			break;
		default:
			err = xnvme_cmd_pass(ctx, data, 4096, NULL, 0);
			break;
		}
		ACHECK(t, !err, "submit %d: %d", i, err);
	}
	ACHECK(t, io_uring_sq_ready(ring) == 16, "batched until poke: %u", io_uring_sq_ready(ring));

	/* the SQEs as the kernel will see them */
	for (unsigned int i = 0; i < 16; ++i) {
		struct io_uring_sqe *sqe = sqe_at(ring, tail0 + i);
		struct nvme_uring_cmd *uc = sqe_cmd(ring, tail0 + i);

		if (i == 5) {
			ACHECK(t, sqe->opcode == IORING_OP_NOP, "EFAULT command is a NOP");
			continue;
		}
		ACHECK(t,
		       sqe->opcode == IORING_OP_URING_CMD && sqe->fd == lstate.fd &&
			       sqe->__pad1 == 0 && sqe->uring_cmd_flags == 0,
		       "sqe %u header", i);
		ACHECK(t, sqe->cmd_op == (i == 2 ? NVME_URING_CMD_IO_VEC : NVME_URING_CMD_IO),
		       "sqe %u cmd_op 0x%x", i, sqe->cmd_op);
		ACHECK(t,
		       uc->nsid == 1 && uc->cdw2 == 0xC2 && uc->cdw3 == 0xC3 &&
			       uc->cdw13 == 0xABCD0000 && uc->cdw14 == 0xE14 &&
			       uc->cdw15 == 0xF15 && uc->timeout_ms == 0 && uc->flags == 0,
		       "sqe %u dwords", i);
		switch (i) {
		case 1:
			ACHECK(t,
			       uc->metadata == (uintptr_t)meta && uc->metadata_len == 64 &&
				       uc->addr == (uintptr_t)data && uc->data_len == 4096,
			       "metadata sqe");
			break;
		case 2: {
			const struct iovec *v = (const struct iovec *)(uintptr_t)uc->addr;

			ACHECK(t,
			       uc->data_len == 3 && v != iov && v[0].iov_base == data &&
				       v[1].iov_len == 1024 && v[2].iov_len == 2560,
			       "vector sqe: own copy of 3 entries");
			break;
		}
		case 3:
			ACHECK(t,
			       uc->opcode == XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT &&
				       uc->data_len == 3 * 16 && (uc->cdw10 & 0xFF) == 2 &&
				       (uc->cdw11 & 0x4),
			       "dsm sqe: data_len=%u", uc->data_len);
			break;
		case 4:
			ACHECK(t, uc->opcode == 0 && uc->addr == 0 && uc->data_len == 0,
			       "flush sqe: no data");
			break;
		default:
			ACHECK(t,
			       uc->opcode == XNVME_SPEC_NVM_OPC_READ &&
				       uc->cdw10 == (uint32_t)(0x1122334455ULL + i) &&
				       uc->cdw11 == 0x11 && (uc->cdw12 & 0xFFFF) == 7 &&
				       uc->addr == (uintptr_t)data && uc->data_len == 4096 &&
				       uc->metadata == 0 && uc->metadata_len == 0,
			       "read sqe %u", i);
			break;
		}
	}

	ACHECK(t, akt_drain(q) == 0, "drain");
	ACHECK(t, io_uring_sq_ready(ring) == 0, "all submitted");
	for (int i = 0; i < 16; ++i) {
		if (i == 5) {
			ACHECK(t, recs[i].calls == 1 && recs[i].sct == 7 && recs[i].sc == EFAULT,
			       "no buffer: sct=%u sc=%u", recs[i].sct, recs[i].sc);
			continue;
		}
		ACHECK(t, recs[i].calls == 1 && !recs[i].status && recs[i].result == 0,
		       "cmd %d: calls=%u status=%d", i, recs[i].calls, recs[i].status);
	}

	/* many small batches through a capacity-1 queue */
	xnvme_queue_term(q);
	err = xnvme_queue_init(dev, 1, 0, &q);
	ACHECK(t, !err, "init(1): %d", err);
	if (!err) {
		struct akt_rec r = {0};
		int bad = 0;

		xnvme_queue_set_cb(q, akt_cb, NULL);
		for (int i = 0; i < 2000; ++i) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

			akt_prep(ctx, XNVME_SPEC_NVM_OPC_WRITE, (uint64_t)i, 0, &r);
			bad += xnvme_cmd_pass(ctx, data, 512, NULL, 0) != 0;
			bad += akt_drain(q) != 0;
		}
		ACHECK(t, !bad && r.calls == 2000 && !r.status, "2000 x QD1: bad=%d calls=%u", bad,
		       r.calls);
		xnvme_queue_term(q);
	}
out:
	close(lstate.fd);
	pthread_mutex_destroy(&dc->lock);
	free(dc);
}

int
main(void)
{
	struct akt_paths p;
	int skip;

	setvbuf(stdout, NULL, _IOLBF, 0);
	akt_paths_init(&p, "uring-cmd");
	skip = uring_skip();
	if (skip) {
		return skip;
	}
	test_ucmd_devnull();
	uring_disk_file(&p, test_ucmd_refused);
	return xnvme_test_result("io_uring_cmd");
}
