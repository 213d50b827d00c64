// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "io_uring": one ring per queue, sized to the queue capacity, on the
 * handle's file descriptor (regular files and block devices). NVM READ/WRITE (byte offset
 * slba << ssw, length (nlb + 1) << ssw, never beyond the caller's buffer: else Invalid Field),
 * the file opcodes READ/WRITE (byte offset slba, length as passed), READV/WRITEV for vectors
 * of more than one entry, FSYNC for both FLUSH opcodes. Other opcodes are refused with
 * -ENOSYS, metadata with -ENOTSUP. Completions: res < 0 folds the errno into cpl (sct 7), else
 * cpl.result is the byte count (a short transfer is a success).
 *
 * Submission only fills an SQE (no allocation, lock or system call); poke submits and reaps
 * (be_linux_uring.h: batching, setup flags, transient errors; the queue itself is in uring.c).
 * A command the decoding fails (Invalid Field, geometry error) still completes through the
 * ring, as a NOP, with its status preset in cpl.
 *
 * Vectors: up to XNVME_BE_LINUX_URING_IOV_INLINE entries are copied into per-command storage,
 * so the caller's array may be reused as soon as the submission returns; longer arrays are
 * handed to the kernel as they are and must stay valid until the command's callback runs.
 *
 * opts.register_files (and SQPOLL) register the fd and use IOSQE_FIXED_FILE.
 * opts.register_buffers registers a sparse buffer table with the ring; a READ/WRITE whose
 * buffer lies in one the library handed out (xnvme_buf_alloc, xnvme_buf_realloc,
 * xnvme_mem_map) uses READ_FIXED/WRITE_FIXED, registering that buffer on first use. Buffers
 * are recognised by address and a generation that changes when they are freed, so a freed
 * and re-allocated range is registered afresh, never used through the stale registration.
 * Any other buffer (malloc, the stack, vectors) goes the ordinary way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "../common/async_stubs.h"
#include "be_linux.h"
#include "be_linux_rw.h"
#include "be_linux_uring.h"

#ifdef XNVME_HAVE_LIBURING

static int
lu_check_support(struct xnvme_dev *dev)
{
	const struct xnvme_be_linux_uring_caps *c;
	int err = xnvme_be_linux_check_file_or_block_for(dev, "io_uring");

	if (err) {
		return err;
	}
	c = xnvme_be_linux_uring_caps();
	if (!c->ring) {
		return xnvme_dev_set_errmsg(dev, -c->err, "the kernel refuses io_uring: %s",
					    strerror(c->err));
	}
	if (!c->op_read_write) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP,
					    "the kernel lacks IORING_OP_READ/IORING_OP_WRITE");
	}
	return 0;
}

static int
lu_init(struct xnvme_queue *queue, int opts)
{
	return xnvme_be_linux_uring_queue_init(queue, opts, "io_uring", 0);
}

/* Queues `sqe` (already prepared) under the context, on the handle's file */
static inline int
lu_queue(struct xnvme_be_linux_uring *u, struct io_uring_sqe *sqe, struct xnvme_cmd_ctx *ctx)
{
	sqe->flags = u->sqe_flags;
	return xnvme_be_linux_uring_queue_sqe(u, sqe, ctx);
}

/* Completes a context whose cpl already holds its verdict, through the ring */
static int
lu_queue_nop(struct xnvme_be_linux_uring *u, struct xnvme_cmd_ctx *ctx)
{
	struct io_uring_sqe *sqe = xnvme_be_linux_uring_get_sqe(u, 0);

	if (!sqe) {
		return -EBUSY;
	}
	return xnvme_be_linux_uring_queue_nop(u, sqe, ctx);
}

/*
 * Fills `sqe` as io_uring_prep_rw() and lu_queue() would, each field once, and queues it;
 * `buf_index` is the registered buffer of the *_FIXED opcodes (else 0)
 */
static inline int
lu_queue_rw(struct xnvme_be_linux_uring *u, struct io_uring_sqe *sqe, uint8_t op, const void *addr,
	    uint32_t len, uint64_t off, uint16_t buf_index, struct xnvme_cmd_ctx *ctx)
{
	xnvme_be_linux_uring_sqe_head(u, sqe, op);
	sqe->off = off;
	sqe->addr = (uint64_t)(uintptr_t)addr;
	sqe->len = len;
	sqe->rw_flags = 0;
	sqe->user_data = (uint64_t)(uintptr_t)ctx;
	sqe->buf_index = buf_index;
	sqe->personality = 0;
	sqe->file_index = 0;
	sqe->addr3 = 0;
	sqe->__pad2[0] = 0;
	if (__builtin_expect(!u->batching, 0)) {
		xnvme_be_linux_uring_flush(u);
	}
	return 0;
}

static const uint8_t lu_op_plain[] = {IORING_OP_READ, IORING_OP_WRITE};
static const uint8_t lu_op_vec[] = {IORING_OP_READV, IORING_OP_WRITEV};
static const uint8_t lu_op_fixed[] = {IORING_OP_READ_FIXED, IORING_OP_WRITE_FIXED};

/* The submission of a read, write or flush, inlined into both entries below */
static inline __attribute__((always_inline)) int
lu_rw(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_be_linux_uring *u = ctx->async.queue->state;
	struct io_uring_sqe *sqe;
	uint64_t off;
	size_t len;
	int rw;

	if (__builtin_expect(mbuf || mbuf_nbytes, 0)) {
		return -ENOTSUP;
	}
	rw = xnvme_be_linux_rw_decode(ctx, dbuf_nbytes, &off, &len);
	if (__builtin_expect(rw < 0, 0)) {
		return rw;
	}
	if (__builtin_expect(rw <= XNVME_BE_LINUX_RW_WRITE && len > UINT32_MAX, 0)) {
		xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
				     XNVME_STATUS_CODE_INVALID_FIELD);
		rw = XNVME_BE_LINUX_RW_FAILED;
	}
	if (__builtin_expect(rw > XNVME_BE_LINUX_RW_WRITE, 0)) {
		if (rw == XNVME_BE_LINUX_RW_FAILED) {
			return lu_queue_nop(u, ctx);
		}
		sqe = xnvme_be_linux_uring_get_sqe(u, 0);
		if (!sqe) {
			return -EBUSY;
		}
		io_uring_prep_fsync(sqe, u->fd, 0);
		return lu_queue(u, sqe, ctx);
	}
	sqe = xnvme_be_linux_uring_get_sqe(u, 0);
	if (__builtin_expect(!sqe, 0)) {
		return -EBUSY; /* cannot happen: the ring has room for `capacity` commands */
	}
	if (u->fixed_bufs) {
		uint16_t idx;

		if (xnvme_be_linux_uring_fixed_buf(u, dbuf, len, &idx)) {
			return lu_queue_rw(u, sqe, lu_op_fixed[rw], dbuf, (uint32_t)len, off, idx,
					   ctx);
		}
	}
	return lu_queue_rw(u, sqe, lu_op_plain[rw], dbuf, (uint32_t)len, off, 0, ctx);
}

/* Rule 4: the command is already counted, a refusal takes the count back */
static int
lu_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	int err = lu_rw(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);

	return __builtin_expect(err != 0, 0) ? xnvme_be_cmd_refused(ctx, err) : 0;
}

static inline int
lu_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
       void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_queue *queue = ctx->async.queue;
	struct xnvme_be_linux_uring *u = queue->state;
	uint32_t idx = xnvme_queue_ctx_idx(queue, ctx);
	const struct iovec *vec = dvec;
	struct io_uring_sqe *sqe;
	size_t total, cnt = dvec_cnt, len, acc = 0;
	uint64_t off;
	int rw;

	(void)dvec_nbytes; /* advisory; the iovec lengths define the transfer (libxnvme_cmd.h) */

	if (mbuf || mbuf_nbytes) {
		return -ENOTSUP;
	}
	if (idx > queue->capacity) {
		return -EINVAL; /* not a context of this queue's pool */
	}
	total = xnvme_be_linux_iov_total(dvec, dvec_cnt);
	rw = xnvme_be_linux_rw_decode(ctx, total, &off, &len);
	if (rw < 0) {
		return rw;
	}
	if (rw == XNVME_BE_LINUX_RW_FAILED) {
		return lu_queue_nop(u, ctx);
	}
	if (rw == XNVME_BE_LINUX_RW_FLUSH) {
		return lu_rw(ctx, NULL, 0, NULL, 0);
	}

	if (len > UINT32_MAX) {
		goto invalid; /* out of reach of one SQE */
	}
	if (dvec_cnt <= XNVME_BE_LINUX_URING_IOV_INLINE) {
		/* own copy, trimmed to the command's length (decoding ensured len <= total) */
		vec = u->iov[idx].v;
		cnt = xnvme_be_linux_iov_trim(u->iov[idx].v, XNVME_BE_LINUX_URING_IOV_INLINE, dvec,
					      dvec_cnt, len);
	} else if (len < total) {
		/* a long vector, used in place: only a prefix of exactly `len` bytes will do */
		for (cnt = 0; cnt < dvec_cnt && acc < len; ++cnt) {
			acc += dvec[cnt].iov_len;
		}
		if (acc != len) {
			goto invalid;
		}
	}

	sqe = xnvme_be_linux_uring_get_sqe(u, 0);
	if (!sqe) {
		return -EBUSY;
	}
	if (cnt <= 1) {
		/* one segment needs no vector: the plain opcode skips the kernel's iovec import */
		return lu_queue_rw(u, sqe, lu_op_plain[rw], cnt ? vec[0].iov_base : NULL,
				   cnt ? (uint32_t)vec[0].iov_len : 0, off, 0, ctx);
	}
	return lu_queue_rw(u, sqe, lu_op_vec[rw], vec, (uint32_t)cnt, off, 0, ctx);

invalid:
	xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_STATUS_CODE_INVALID_FIELD);
	return lu_queue_nop(u, ctx);
}

static int
lu_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	   void *mbuf, size_t mbuf_nbytes)
{
	int err = lu_iov(ctx, dvec, dvec_cnt, dvec_nbytes, mbuf, mbuf_nbytes);

	return err ? xnvme_be_cmd_refused(ctx, err) : 0;
}

const struct xnvme_be_async xnvme_be_linux_async_liburing = {
	.name = "io_uring",
	.check_support = lu_check_support,
	.init = lu_init,
	.term = xnvme_be_linux_uring_queue_term,
	.poke = xnvme_be_linux_uring_poke_rw,
	.cmd_io = lu_cmd_io,
	.cmd_iov = lu_cmd_iov,
	.get_completion_fd = xnvme_be_linux_uring_queue_completion_fd,
};

#else /* !XNVME_HAVE_LIBURING */

static int
lu_check_support(struct xnvme_dev *dev)
{
	return xnvme_dev_set_errmsg(dev, -ENOSYS, "built without liburing");
}

static int
lu_init(struct xnvme_queue *queue, int opts)
{
	(void)queue;
	(void)opts;
	xnvme_last_error_set("linux: async mechanism 'io_uring': built without liburing");
	return -ENOSYS;
}

const struct xnvme_be_async xnvme_be_linux_async_liburing =
	XNVME_BE_ASYNC_ABSENT("io_uring", lu_check_support, lu_init);

#endif /* XNVME_HAVE_LIBURING */
