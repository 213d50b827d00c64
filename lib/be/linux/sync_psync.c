// SPDX-License-Identifier: BSD-3-Clause
/*
 * Sync mechanism "psync": pread/pwrite (and the vectored variants) and fsync on the handle's
 * file descriptor. NVM READ/WRITE address LBAs (byte offset slba << ssw); the file opcodes
 * address bytes (offset slba, length as passed). Partial transfers are continued until done
 * or end of file; a short read at end of file is a success with the byte count in cpl.result.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "be_linux.h"
#include "be_linux_rw.h"

/** A decoded READ/WRITE: direction, byte offset and byte count */
struct psync_rw {
	bool write;
	off_t off;
	size_t nbytes;
};

static int
psync_flush(struct xnvme_cmd_ctx *ctx, int fd)
{
	while (fsync(fd)) {
		if (errno != EINTR) {
			return xnvme_be_linux_errno(ctx, errno);
		}
	}
	return 0;
}

/*
 * Decodes the command's transfer (be_linux_rw.h); `avail` is what the caller's buffer holds.
 * A FLUSH is carried out right here. Returns 0 for a transfer to do, 1 when the command is
 * done (flushed), or a negative errno with the status set in cpl.
 */
static int
psync_decode(struct xnvme_cmd_ctx *ctx, int fd, size_t avail, struct psync_rw *rw)
{
	uint64_t off;
	size_t len;
	int kind = xnvme_be_linux_rw_decode(ctx, avail, &off, &len), err;

	switch (kind) {
	case XNVME_BE_LINUX_RW_READ:
	case XNVME_BE_LINUX_RW_WRITE:
		rw->write = kind == XNVME_BE_LINUX_RW_WRITE;
		rw->off = (off_t)off;
		rw->nbytes = len;
		return 0;

	case XNVME_BE_LINUX_RW_FLUSH:
		err = psync_flush(ctx, fd);
		return err ? err : 1;

	case XNVME_BE_LINUX_RW_FAILED:
		/* cpl holds an NVMe status, or the errno the geometry was derived with */
		if (ctx->cpl.status.sct == XNVME_STATUS_CODE_TYPE_VENDOR) {
			return -(int)ctx->cpl.status.sc;
		}
		return -EIO;

	default:
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_OPCODE);
	}
}

/*
 * Moves `nbytes` at `off` until done or end of file; `*done` counts what moved. A short
 * O_DIRECT read at end of file leaves an unaligned remainder that the kernel refuses with
 * EINVAL: that is end of file too, not an error.
 */
static int
psync_xfer(int fd, bool direct, const struct psync_rw *rw, char *buf, size_t nbytes, off_t off,
	   size_t *done)
{
	size_t moved = 0;

	while (moved < nbytes) {
		char *pos = moved ? buf + moved : buf; /* buf may be NULL: the kernel says EFAULT */
		ssize_t ret;

		if (rw->write) {
			ret = pwrite(fd, pos, nbytes - moved, off + (off_t)moved);
		} else {
			ret = pread(fd, pos, nbytes - moved, off + (off_t)moved);
		}
		if (ret < 0) {
			int err = errno;

			if (err == EINTR) {
				continue;
			}
			if (err == EINVAL && direct && !rw->write && (moved || *done)) {
				break;
			}
			*done += moved;
			return -err;
		}
		if (!ret) {
			break; /* end of file (reads); a write that makes no progress stops too */
		}
		moved += (size_t)ret;
	}
	*done += moved;
	return moved < nbytes ? 1 : 0;
}

/* psync_cmd_io_rest()'s `ret` for a command that made no first transfer (not a READ/WRITE) */
#define PSYNC_NO_XFER ((ssize_t)INT64_MIN)

/*
 * What psync_cmd_io() leaves to this. `ret` is PSYNC_NO_XFER when it made no transfer
 * (decoded afresh the long way: FLUSH, refused commands, a geometry not derived yet), else
 * what the first pread/pwrite of a decoded READ/WRITE returned: a byte count short of the
 * transfer, or -errno. Those are continued or folded as psync_xfer() does.
 */
static __attribute__((noinline, cold)) int
psync_cmd_io_rest(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, ssize_t ret)
{
	const struct xnvme_be_linux_state *state = ctx->dev->state;
	struct psync_rw rw;
	size_t done = 0;
	int err;

	if (ret == PSYNC_NO_XFER) {
		/* FLUSH, a refused command, or a first command that derives the geometry */
		err = psync_decode(ctx, state->fd, dbuf_nbytes, &rw);
		if (err) {
			return err < 0 ? err : 0;
		}
		if (!dbuf && rw.nbytes) {
			return xnvme_be_linux_errno(ctx, EFAULT);
		}
		err = psync_xfer(state->fd, state->direct, &rw, dbuf, rw.nbytes, rw.off, &done);
		if (err < 0) {
			return xnvme_be_linux_errno(ctx, err);
		}
		ctx->cpl.result = done;
		return 0;
	}
	/* a READ/WRITE that decoded: decoded again for its offset and length (the same) */
	err = psync_decode(ctx, state->fd, dbuf_nbytes, &rw);
	if (err) {
		return err < 0 ? err : 0;
	}
	if (ret < 0) {
		if (ret != -EINTR) {
			return xnvme_be_linux_errno(ctx, (int)ret);
		}
		ret = 0; /* interrupted before moving anything: psync_xfer() retries */
	} else if (!ret) {
		ctx->cpl.result = 0; /* end of file (reads) */
		return 0;
	}
	done = (size_t)ret;
	err = psync_xfer(state->fd, state->direct, &rw, (char *)dbuf + done, rw.nbytes - done,
			 rw.off + (off_t)done, &done);
	if (err < 0) {
		return xnvme_be_linux_errno(ctx, err);
	}
	ctx->cpl.result = done;
	return 0;
}

/* One pread/pwrite: the byte count or -errno (xnvme_be_linux_sys4(): no cancellation point) */
static inline ssize_t
psync_rw1(int fd, bool write, void *buf, size_t len, off_t off)
{
	return xnvme_be_linux_sys4(write ? SYS_pwrite64 : SYS_pread64, fd, (long)(uintptr_t)buf,
				   (long)len, (long)off);
}

/*
 * The common case inline: a READ/WRITE that one pread/pwrite moves entirely. Partial
 * transfers, errors, FLUSH and refused commands go to psync_cmd_io_rest().
 */
static int
psync_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	     size_t mbuf_nbytes)
{
	const struct xnvme_be_linux_state *state = ctx->dev->state;
	uint64_t off = 0;
	size_t len = 0;
	ssize_t ret;
	int kind;

	(void)mbuf; /* files and these block devices carry no metadata */
	(void)mbuf_nbytes;

	kind = xnvme_be_linux_rw_decode(ctx, dbuf_nbytes, &off, &len);
	if (XNVME_BE_UNLIKELY(kind != XNVME_BE_LINUX_RW_READ && kind != XNVME_BE_LINUX_RW_WRITE)) {
		return psync_cmd_io_rest(ctx, dbuf, dbuf_nbytes, PSYNC_NO_XFER);
	}
	if (XNVME_BE_UNLIKELY(!dbuf && len)) {
		return xnvme_be_linux_errno(ctx, EFAULT);
	}
	ret = psync_rw1(state->fd, kind == XNVME_BE_LINUX_RW_WRITE, dbuf, len, (off_t)off);
	if (XNVME_BE_LIKELY((size_t)ret == len)) {
		ctx->cpl.result = len;
		return 0;
	}
	return psync_cmd_io_rest(ctx, dbuf, dbuf_nbytes, ret);
}

/*
 * One preadv/pwritev when the vector is exactly the transfer (the usual case); segment by
 * segment otherwise, and to continue after a partial vectored transfer. The caller's iovec
 * array is never modified.
 */
static int
psync_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	      void *mbuf, size_t mbuf_nbytes)
{
	const struct xnvme_be_linux_state *state = ctx->dev->state;
	size_t total = xnvme_be_linux_iov_total(dvec, dvec_cnt), done = 0, pos = 0;
	struct psync_rw rw;
	int err;

	(void)dvec_nbytes; /* advisory; the iovec lengths define the transfer (libxnvme_cmd.h) */
	(void)mbuf;
	(void)mbuf_nbytes;

	err = psync_decode(ctx, state->fd, total, &rw);
	if (err) {
		return err < 0 ? err : 0;
	}

	if (total == rw.nbytes && dvec_cnt <= IOV_MAX) {
		ssize_t ret;

		do {
			if (rw.write) {
				ret = pwritev(state->fd, dvec, (int)dvec_cnt, rw.off);
			} else {
				ret = preadv(state->fd, dvec, (int)dvec_cnt, rw.off);
			}
		} while (ret < 0 && errno == EINTR);
		if (ret < 0) {
			return xnvme_be_linux_errno(ctx, errno);
		}
		done = (size_t)ret;
		if (done == rw.nbytes || !ret) {
			ctx->cpl.result = done;
			return 0;
		}
	}

	/* Segment-wise from `done` on, up to rw.nbytes */
	for (size_t i = 0; i < dvec_cnt && done < rw.nbytes; ++i) {
		size_t len = dvec[i].iov_len, skip = 0, want;
		char *base = dvec[i].iov_base;

		if (pos + len <= done) {
			pos += len;
			continue;
		}
		skip = done > pos ? done - pos : 0;
		want = len - skip;
		if (want > rw.nbytes - done) {
			want = rw.nbytes - done;
		}
		err = psync_xfer(state->fd, state->direct, &rw, skip ? base + skip : base, want,
				 rw.off + (off_t)done, &done);
		if (err < 0) {
			return xnvme_be_linux_errno(ctx, err);
		}
		if (err == 1) {
			break; /* end of file */
		}
		pos += len;
	}
	ctx->cpl.result = done;
	return 0;
}

const struct xnvme_be_sync xnvme_be_linux_sync_psync = {
	.name = "psync",
	.check_support = xnvme_be_linux_check_file_or_block,
	.cmd_io = psync_cmd_io,
	.cmd_iov = psync_cmd_iov,
};
