// SPDX-License-Identifier: BSD-3-Clause
/**
 * Byte-addressed transfers through the file API, moving data: tool_xfer_rw() in commands of
 * --iosize bytes, synchronous or keeping a queue full, contiguous or vectored, stopping between
 * two commands when a signal asks (a queue is drained first), and tool_xfer_copy() from one
 * tool_xfer to another with a progress line. Opening and closing are in tools_xfer.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <libxnvme.h>
#include "tools_common.h"

/* Spreads `nbytes` at `buf` over at most `max` iovec elements; returns the element count */
static size_t
iov_split(struct iovec *iov, uint32_t max, uint8_t *buf, size_t nbytes)
{
	size_t cnt = max < nbytes ? max : nbytes;
	size_t each = nbytes / cnt;

	for (size_t i = 0; i < cnt; ++i) {
		iov[i].iov_base = buf + i * each;
		iov[i].iov_len = (i == cnt - 1) ? nbytes - i * each : each;
	}
	return cnt;
}

/* Submits one command of `x` on `ctx` (synchronous or queued) */
static int
xfer_submit(struct tool_xfer *x, struct xnvme_cmd_ctx *ctx, bool write, uint8_t *buf, size_t nbytes,
	    uint64_t offset, struct iovec *iov)
{
	size_t cnt;

	if (x->lba_nbytes) { /* whole LBAs: tool_xfer_rw() checked the range */
		xnvme_prep_nvm(ctx, write ? XNVME_SPEC_NVM_OPC_WRITE : XNVME_SPEC_NVM_OPC_READ,
			       xnvme_dev_get_nsid(x->dev), offset / x->lba_nbytes,
			       (uint16_t)(nbytes / x->lba_nbytes - 1));
		if (!x->vec_cnt) {
			return xnvme_cmd_pass(ctx, buf, nbytes, NULL, 0);
		}
		cnt = iov_split(iov, x->vec_cnt, buf, nbytes);
		return xnvme_cmd_pass_iov(ctx, iov, cnt, nbytes, NULL, 0);
	}
	if (!x->vec_cnt) {
		return write ? xnvme_file_pwrite(ctx, buf, nbytes, offset)
			     : xnvme_file_pread(ctx, buf, nbytes, offset);
	}

	cnt = iov_split(iov, x->vec_cnt, buf, nbytes);
	ctx->cmd.common.opcode = write ? XNVME_SPEC_FS_OPC_WRITE : XNVME_SPEC_FS_OPC_READ;
	ctx->cmd.common.nsid = xnvme_dev_get_nsid(x->dev);
	ctx->cmd.nvm.slba = offset;
	return xnvme_cmd_pass_iov(ctx, iov, cnt, nbytes, NULL, 0);
}

static int
xfer_short(struct tool_xfer *x, bool write, uint64_t offset, size_t want, uint64_t got)
{
	if (write) {
		return tool_err(x->cli, -EIO,
				"%s %s: short write at offset %" PRIu64 ": %" PRIu64
				" of %zu bytes",
				tool_opt_label(x->cli, x->opt), x->path, offset, got, want);
	}
	return tool_err(x->cli, -EINVAL,
			"%s %s: ends before offset %" PRIu64 ": only %" PRIu64
			" bytes available there, %zu bytes needed",
			tool_opt_label(x->cli, x->opt), x->path, offset + want, got, want);
}

static int
xfer_failed(struct tool_xfer *x, struct xnvme_cmd_ctx *ctx, int err, bool write, uint64_t offset,
	    size_t nbytes)
{
	return tool_cmd_err(x->cli, ctx, err, "%s %s: %s of %zu bytes at offset %" PRIu64 " failed",
			    tool_opt_label(x->cli, x->opt), x->path, write ? "write" : "read",
			    nbytes, offset);
}

static int
xfer_rw_sync(struct tool_xfer *x, bool write, uint8_t *buf, size_t nbytes, uint64_t offset)
{
	struct iovec *iov = NULL;
	int err = 0;

	if (x->vec_cnt) {
		iov = calloc(x->vec_cnt, sizeof(*iov));
		if (!iov) {
			return tool_err(x->cli, -ENOMEM, "cannot allocate %u iovecs", x->vec_cnt);
		}
	}

	for (size_t pos = 0; pos < nbytes;) {
		struct xnvme_cmd_ctx ctx = xnvme_file_get_cmd_ctx(x->dev);
		size_t n = nbytes - pos < x->iosize ? nbytes - pos : x->iosize;

		/* between two commands: a signal stops the transfer here */
		err = tool_sig_check(x->cli);
		if (err) {
			break;
		}
		err = xfer_submit(x, &ctx, write, buf + pos, n, offset + pos, iov);
		if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
			err = xfer_failed(x, &ctx, err, write, offset + pos, n);
			break;
		}
		/* NVM Read/Write move all LBAs or fail; file commands report the byte count */
		if (!x->lba_nbytes && ctx.cpl.result != n) {
			err = xfer_short(x, write, offset + pos, n, ctx.cpl.result);
			break;
		}
		if (write) {
			tool_out_wrote(x->out, offset + pos, n);
		}
		pos += n;
		tool_progress_update(x->prog, x->prog_base + pos);
	}

	free(iov);
	return err;
}

struct xfer_async;

struct xfer_slot {
	struct xfer_async *xa;
	struct iovec *iov;
	uint64_t offset;
	size_t nbytes;
	uint32_t idx;
};

struct xfer_async {
	struct tool_xfer *x;
	bool write;
	struct xfer_slot *slots;
	uint32_t *free;
	uint32_t nfree;
	uint64_t done;

	/* The first failure, reported once everything in flight has completed */
	int err;
	bool err_short;
	struct xnvme_cmd_ctx err_ctx;
	uint64_t err_offset;
	size_t err_nbytes;
};

static void
xfer_async_fail(struct xfer_async *xa, struct xnvme_cmd_ctx *ctx, int err, bool is_short,
		struct xfer_slot *slot)
{
	if (xa->err) {
		return;
	}
	xa->err = err;
	xa->err_short = is_short;
	xa->err_ctx = *ctx;
	xa->err_offset = slot->offset;
	xa->err_nbytes = slot->nbytes;
}

static void
xfer_async_cb(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	struct xfer_slot *slot = cb_arg;
	struct xfer_async *xa = slot->xa;

	if (xnvme_cmd_ctx_cpl_status(ctx)) {
		xfer_async_fail(xa, ctx, -EIO, false, slot);
	} else if (!xa->x->lba_nbytes && ctx->cpl.result != slot->nbytes) {
		xfer_async_fail(xa, ctx, -EIO, true, slot);
	} else {
		xa->done += slot->nbytes;
		if (xa->write) {
			tool_out_wrote(xa->x->out, slot->offset, slot->nbytes);
		}
	}
	xa->free[xa->nfree++] = slot->idx;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static int
xfer_rw_async(struct tool_xfer *x, bool write, uint8_t *buf, size_t nbytes, uint64_t offset)
{
	uint32_t depth = xnvme_queue_get_capacity(x->queue);
	struct xfer_async xa = {.x = x, .write = write};
	struct iovec *iovs = NULL;
	bool stop = false;
	size_t pos = 0;
	int err = 0;

	xa.slots = calloc(depth, sizeof(*xa.slots));
	xa.free = calloc(depth, sizeof(*xa.free));
	if (x->vec_cnt) {
		iovs = calloc((size_t)depth * x->vec_cnt, sizeof(*iovs));
	}
	if (!xa.slots || !xa.free || (x->vec_cnt && !iovs)) {
		err = tool_err(x->cli, -ENOMEM, "cannot allocate %u command slots", depth);
		goto exit;
	}
	for (uint32_t i = 0; i < depth; ++i) {
		xa.slots[i].xa = &xa;
		xa.slots[i].idx = i;
		xa.slots[i].iov = iovs ? &iovs[(size_t)i * x->vec_cnt] : NULL;
		xa.free[xa.nfree++] = depth - 1 - i;
	}

	while ((pos < nbytes && !xa.err && !stop) || xnvme_queue_get_outstanding(x->queue)) {
		int ret;

		/* a signal: submit nothing more, let what is in flight complete */
		stop = stop || tool_sig_pending();
		while (pos < nbytes && !xa.err && !stop && xa.nfree) {
			struct xfer_slot *slot = &xa.slots[xa.free[xa.nfree - 1]];
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(x->queue);
			size_t n = nbytes - pos < x->iosize ? nbytes - pos : x->iosize;

			if (!ctx) {
				break;
			}
			xa.nfree--;
			slot->offset = offset + pos;
			slot->nbytes = n;
			xnvme_cmd_ctx_set_cb(ctx, xfer_async_cb, slot);

			ret = xfer_submit(x, ctx, write, buf + pos, n, slot->offset, slot->iov);
			if (ret) {
				xa.free[xa.nfree++] = slot->idx;
				if (ret != -EBUSY && ret != -EAGAIN) {
					xfer_async_fail(&xa, ctx, ret, false, slot);
				}
				xnvme_queue_put_cmd_ctx(x->queue, ctx);
				break;
			}
			pos += n;
		}

		ret = xnvme_queue_poke(x->queue, 0);
		if (ret < 0) {
			err = tool_err(x->cli, ret, "%s %s: polling the queue failed",
				       tool_opt_label(x->cli, x->opt), x->path);
			xnvme_queue_drain(x->queue);
			goto exit;
		}
		tool_progress_update(x->prog, x->prog_base + xa.done);
	}

	if (xa.err && xa.err_short) {
		err = xfer_short(x, write, xa.err_offset, xa.err_nbytes, xa.err_ctx.cpl.result);
	} else if (xa.err) {
		err = xfer_failed(x, &xa.err_ctx, xa.err, write, xa.err_offset, xa.err_nbytes);
	} else if (stop) {
		err = tool_sig_check(x->cli);
	}

exit:
	free(iovs);
	free(xa.free);
	free(xa.slots);
	return err;
}

int
tool_xfer_rw(struct tool_xfer *x, bool write, void *buf, size_t nbytes, uint64_t offset)
{
	if (!x->iosize) {
		return tool_err(x->cli, -EINVAL, "%s: transfer size of 0 bytes",
				tool_opt_label(x->cli, XNVME_CLI_OPT_IOSIZE));
	}
	if (x->lba_nbytes && (offset % x->lba_nbytes || nbytes % x->lba_nbytes)) {
		return tool_err(
			x->cli, -EINVAL,
			"%s %s: an NVMe namespace is read and written in whole %u-byte LBAs: "
			"offset %" PRIu64 " and %zu bytes are not",
			tool_opt_label(x->cli, x->opt), x->path, x->lba_nbytes, offset, nbytes);
	}
	if (x->queue) {
		return xfer_rw_async(x, write, buf, nbytes, offset);
	}
	return xfer_rw_sync(x, write, buf, nbytes, offset);
}

static int
xfer_copy(struct tool_xfer *in, struct tool_xfer *out, uint64_t nbytes, uint64_t in_off,
	  uint64_t out_off)
{
	struct tool_progress prog;
	size_t win = tool_xfer_window(in);
	uint64_t done = 0;
	void *buf;
	int err = 0;

	if (win > nbytes) {
		win = nbytes;
	}
	if (!win) {
		return 0;
	}
	buf = xnvme_buf_alloc(in->dev, win);
	if (!buf) {
		return tool_err(in->cli, -errno, "cannot allocate a %zu byte buffer", win);
	}

	tool_progress_start(&prog, in->cli, nbytes);
	out->prog = &prog;
	while (done < nbytes) {
		size_t n = nbytes - done < win ? nbytes - done : win;

		err = tool_xfer_rw(in, false, buf, n, in_off + done);
		if (err) {
			break;
		}
		out->prog_base = done;
		err = tool_xfer_rw(out, true, buf, n, out_off + done);
		if (err) {
			break;
		}
		done += n;
	}
	tool_progress_end(&prog);
	out->prog = NULL;

	xnvme_buf_free(in->dev, buf);
	return err;
}

int
tool_xfer_copy(struct xnvme_cli *cli, struct tool_xfer *in, struct tool_xfer *out, uint64_t nbytes,
	       uint64_t in_off, uint64_t out_off)
{
	int err;

	xnvme_cli_timer_start(cli);
	err = xfer_copy(in, out, nbytes, in_off, out_off);
	xnvme_cli_timer_stop(cli);
	if (!err) {
		xnvme_cli_timer_bw_pr(cli, "wall-clock", nbytes);
	}
	return err;
}
