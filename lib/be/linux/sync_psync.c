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
#include <sys/uio.h>
#include <unistd.h>
#include "be_linux.h"

enum psync_sc {
	PSYNC_SC_INVALID_OPCODE = 0x1,
	PSYNC_SC_INVALID_FIELD = XNVME_STATUS_CODE_INVALID_FIELD,
};

/** A decoded READ/WRITE: direction, byte offset and byte count */
struct psync_rw {
	bool write;
	off_t off;
	size_t nbytes;
};

static int
psync_check_support(struct xnvme_dev *dev)
{
	const struct xnvme_be_linux_state *state = xnvme_be_linux_state(dev);

	if (!state || state->ftype == XNVME_BE_LINUX_CHAR) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP,
					    "serves regular files and block devices only");
	}
	return 0;
}

static int
psync_status(struct xnvme_cmd_ctx *ctx, uint8_t sc)
{
	xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, sc);
	return -EIO;
}

static int
psync_errno(struct xnvme_cmd_ctx *ctx, int err)
{
	if (err < 0) {
		err = -err;
	}
	xnvme_cpl_set_errno(ctx, err);
	return -err;
}

/*
 * Decodes the command's transfer; `avail` is what the caller's buffer holds. Returns 0, 1 for
 * FLUSH, or a negative errno with the status set in cpl.
 */
static int
psync_decode(struct xnvme_cmd_ctx *ctx, size_t avail, struct psync_rw *rw)
{
	uint64_t slba = ctx->cmd.nvm.slba;
	uint64_t ssw, nbytes;
	int err;

	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_NVM_OPC_FLUSH:
	case XNVME_SPEC_FS_OPC_FLUSH:
		return 1;

	case XNVME_SPEC_FS_OPC_WRITE:
	case XNVME_SPEC_FS_OPC_READ:
		if (slba > INT64_MAX) {
			return psync_status(ctx, PSYNC_SC_INVALID_FIELD);
		}
		rw->write = ctx->cmd.common.opcode == XNVME_SPEC_FS_OPC_WRITE;
		rw->off = (off_t)slba;
		rw->nbytes = avail;
		return 0;

	case XNVME_SPEC_NVM_OPC_WRITE:
	case XNVME_SPEC_NVM_OPC_READ:
		err = xnvme_dev_ensure_geo(ctx->dev);
		if (err) {
			return psync_errno(ctx, err);
		}
		ssw = ctx->dev->geo.ssw;
		nbytes = ((uint64_t)ctx->cmd.nvm.nlb + 1) << ssw;
		/* Never beyond the caller's buffer, nor beyond what off_t can address */
		if (nbytes > avail || slba > ((uint64_t)INT64_MAX >> ssw)) {
			return psync_status(ctx, PSYNC_SC_INVALID_FIELD);
		}
		rw->write = ctx->cmd.common.opcode == XNVME_SPEC_NVM_OPC_WRITE;
		rw->off = (off_t)(slba << ssw);
		rw->nbytes = (size_t)nbytes;
		return 0;

	default:
		return psync_status(ctx, PSYNC_SC_INVALID_OPCODE);
	}
}

/*
 * Moves `nbytes` at `off` until done or end of file; `*done` counts what moved. A short
 * O_DIRECT read at end of file leaves an unaligned remainder that the kernel refuses with
 * EINVAL: that is end of file too, not an error.
 */
static int
psync_xfer(int fd, bool direct, const struct psync_rw *rw, char *buf, size_t nbytes,
	   off_t off, size_t *done)
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

static int
psync_flush(struct xnvme_cmd_ctx *ctx, int fd)
{
	while (fsync(fd)) {
		if (errno != EINTR) {
			return psync_errno(ctx, errno);
		}
	}
	return 0;
}

static int
psync_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	     size_t mbuf_nbytes)
{
	const struct xnvme_be_linux_state *state = ctx->dev->state;
	struct psync_rw rw;
	size_t done = 0;
	int err;

	(void)mbuf; /* files and these block devices carry no metadata */
	(void)mbuf_nbytes;

	err = psync_decode(ctx, dbuf_nbytes, &rw);
	if (err < 0) {
		return err;
	}
	if (err == 1) {
		return psync_flush(ctx, state->fd);
	}
	if (!dbuf && rw.nbytes) {
		return psync_errno(ctx, EFAULT);
	}
	err = psync_xfer(state->fd, state->direct, &rw, dbuf, rw.nbytes, rw.off, &done);
	if (err < 0) {
		return psync_errno(ctx, err);
	}
	ctx->cpl.result = done;
	return 0;
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
	size_t total = 0, done = 0, pos = 0;
	struct psync_rw rw;
	int err;

	(void)dvec_nbytes; /* advisory; the iovec lengths define the transfer (api.md §2.7) */
	(void)mbuf;
	(void)mbuf_nbytes;

	for (size_t i = 0; i < dvec_cnt; ++i) {
		total += dvec[i].iov_len;
	}
	err = psync_decode(ctx, total, &rw);
	if (err < 0) {
		return err;
	}
	if (err == 1) {
		return psync_flush(ctx, state->fd);
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
			return psync_errno(ctx, errno);
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
			return psync_errno(ctx, err);
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
	.check_support = psync_check_support,
	.cmd_io = psync_cmd_io,
	.cmd_iov = psync_cmd_iov,
};
