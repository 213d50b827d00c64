// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "iocp": overlapped ReadFile/WriteFile completed through one I/O completion
 * port per queue, reaped in batches with GetQueuedCompletionStatusEx inside poke. A handle binds
 * to one port for life, so each queue opens the file again for itself. Commands that finish at
 * submission (FLUSH, decoding errors) are posted to the port with key XNVME_IOCP_KEY_DONE, so
 * every completion reaches the caller through poke. Vectored commands run segment by segment
 * on the sync mechanism and are posted likewise. The core here is shared with "iocp_th".
 */
#include <errno.h>
#include <stdlib.h>
#include "iocp.h"

#define STATUS_END_OF_FILE_ ((ULONG_PTR)0xC0000011L)

void
xnvme_iocp_close(struct xnvme_iocp *io)
{
	if (io->h && io->h != INVALID_HANDLE_VALUE) {
		/* abandoned transfers: cancel, and wait for the OS to let go of their slots */
		CancelIoEx(io->h, NULL);
		while (io->inflight && io->port) {
			OVERLAPPED_ENTRY e[XNVME_IOCP_BATCH];
			ULONG got = 0;

			if (!GetQueuedCompletionStatusEx(io->port, e, XNVME_IOCP_BATCH, &got, 1000,
							 FALSE)) {
				break;
			}
			for (ULONG i = 0; i < got; ++i) {
				io->inflight -= e[i].lpCompletionKey == XNVME_IOCP_KEY_IO;
			}
		}
		CloseHandle(io->h);
	}
	io->h = INVALID_HANDLE_VALUE;
	if (io->port) {
		CloseHandle(io->port);
		io->port = NULL;
	}
	free(io->slots);
	io->slots = NULL;
}

int
xnvme_iocp_open(struct xnvme_queue *queue, struct xnvme_iocp *io)
{
	const struct xnvme_be_windows_state *dstate = queue->dev->state;

	io->slots = calloc((size_t)queue->capacity + 1, sizeof(*io->slots));
	io->h = CreateFileA(queue->dev->ident.uri, dstate->access,
			    FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, dstate->flags,
			    NULL);
	if (!io->slots || io->h == INVALID_HANDLE_VALUE) {
		return io->slots ? -xnvme_be_windows_errno(GetLastError()) : -ENOMEM;
	}
	io->port = CreateIoCompletionPort(io->h, NULL, XNVME_IOCP_KEY_IO, 1);
	if (!io->port) {
		return -xnvme_be_windows_errno(GetLastError());
	}
	return 0;
}

/*
 * Hands a command finished at submission to the port; its status is already in cpl. The one
 * refusal of cmd_io/cmd_iov: it takes the core's count back (rule 4 of xnvme_be.h)
 */
static int
iocp_post_done(struct xnvme_iocp *io, struct xnvme_iocp_slot *slot)
{
	if (!PostQueuedCompletionStatus(io->port, 0, XNVME_IOCP_KEY_DONE, &slot->ov)) {
		/* not queued: no side effects beyond cpl, which the caller resets */
		return xnvme_be_cmd_refused(slot->ctx, -EAGAIN);
	}
	return 0;
}

int
xnvme_iocp_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		  size_t mbuf_nbytes)
{
	struct xnvme_queue *queue = ctx->async.queue;
	struct xnvme_iocp *io = queue->state;
	struct xnvme_iocp_slot *slot = &io->slots[xnvme_queue_ctx_idx(queue, ctx)];
	uint64_t off, len;
	bool write;
	BOOL ok;
	int err;

	(void)mbuf;
	(void)mbuf_nbytes;
	memset(&slot->ov, 0, sizeof(slot->ov));
	slot->ctx = ctx;
	err = xnvme_be_windows_rw_decode(ctx, dbuf_nbytes, &off, &len, &write);
	if (err) {
		return iocp_post_done(io, slot); /* FLUSH done, or the status is set */
	}
	if (len > MAXDWORD || (len && !dbuf)) {
		xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
				     XNVME_STATUS_CODE_INVALID_FIELD);
		return iocp_post_done(io, slot);
	}
	slot->ov.Offset = (DWORD)off;
	slot->ov.OffsetHigh = (DWORD)(off >> 32);
	ok = write ? WriteFile(io->h, dbuf, (DWORD)len, NULL, &slot->ov)
		   : ReadFile(io->h, dbuf, (DWORD)len, NULL, &slot->ov);
	if (!ok) {
		DWORD werr = GetLastError();

		if (werr == ERROR_HANDLE_EOF) {
			ctx->cpl.result = 0; /* reading at end of file: nothing, and success */
			return iocp_post_done(io, slot);
		}
		if (werr != ERROR_IO_PENDING) {
			xnvme_cpl_set_errno(ctx, xnvme_be_windows_errno(werr));
			return iocp_post_done(io, slot);
		}
	}
	io->inflight++; /* pending or done at once: either way a packet reaches the port */
	return 0;
}

int
xnvme_iocp_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
		   size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_queue *queue = ctx->async.queue;
	struct xnvme_iocp *io = queue->state;
	struct xnvme_iocp_slot *slot = &io->slots[xnvme_queue_ctx_idx(queue, ctx)];
	int err;

	if (dvec_cnt == 1) {
		return xnvme_iocp_cmd_io(ctx, dvec[0].iov_base, dvec[0].iov_len, mbuf, mbuf_nbytes);
	}
	memset(&slot->ov, 0, sizeof(slot->ov));
	slot->ctx = ctx;
	err = queue->dev->sync->cmd_iov(ctx, dvec, dvec_cnt, dvec_nbytes, mbuf, mbuf_nbytes);
	if (err < 0 && !xnvme_cmd_ctx_cpl_status(ctx)) {
		xnvme_cpl_set_errno(ctx, err);
	}
	return iocp_post_done(io, slot);
}

void
xnvme_iocp_complete(struct xnvme_queue *queue, struct xnvme_iocp *io, const OVERLAPPED_ENTRY *e)
{
	struct xnvme_iocp_slot *slot = (struct xnvme_iocp_slot *)e->lpOverlapped;
	struct xnvme_cmd_ctx *ctx = slot->ctx;

	if (e->lpCompletionKey == XNVME_IOCP_KEY_IO) {
		io->inflight--;
		if (!slot->ov.Internal || slot->ov.Internal == STATUS_END_OF_FILE_) {
			ctx->cpl.result = e->dwNumberOfBytesTransferred;
		} else {
			xnvme_cpl_set_errno(ctx, EIO);
		}
	}
	xnvme_queue_complete(queue, ctx);
}

int
xnvme_iocp_get_completion_fd(struct xnvme_queue *queue)
{
	(void)queue;
	return -ENOSYS;
}

static int
iocp_term(struct xnvme_queue *queue)
{
	struct xnvme_iocp *io = queue->state;

	if (io) {
		xnvme_iocp_close(io);
		free(io);
		queue->state = NULL;
	}
	return 0;
}

static int
iocp_init(struct xnvme_queue *queue, int opts)
{
	struct xnvme_iocp *io;
	int err;

	(void)opts;
	io = calloc(1, sizeof(*io));
	if (!io) {
		return -ENOMEM;
	}
	queue->state = io;
	err = xnvme_iocp_open(queue, io);
	if (err) {
		iocp_term(queue);
	}
	return err;
}

static int
iocp_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct xnvme_iocp *io = queue->state;
	OVERLAPPED_ENTRY e[XNVME_IOCP_BATCH];
	uint32_t reaped = 0;

	if (XNVME_BE_UNLIKELY(xnvme_be_poke_skip(queue))) {
		return 0;
	}
	max = max ? max : UINT32_MAX;
	while (reaped < max) {
		ULONG want = max - reaped < XNVME_IOCP_BATCH ? max - reaped : XNVME_IOCP_BATCH;
		ULONG got = 0;

		if (!GetQueuedCompletionStatusEx(io->port, e, want, &got, 0, FALSE) || !got) {
			break; /* WAIT_TIMEOUT: nothing ready */
		}
		for (ULONG i = 0; i < got; ++i) {
			xnvme_iocp_complete(queue, io, &e[i]);
		}
		reaped += got;
	}
	return (int)reaped;
}

static int
iocp_check_support(struct xnvme_dev *dev)
{
	(void)dev;
	return 0;
}

const struct xnvme_be_async xnvme_be_windows_async_iocp = {
	.name = "iocp",
	.check_support = iocp_check_support,
	.init = iocp_init,
	.term = iocp_term,
	.poke = iocp_poke,
	.cmd_io = xnvme_iocp_cmd_io,
	.cmd_iov = xnvme_iocp_cmd_iov,
	.get_completion_fd = xnvme_iocp_get_completion_fd,
};
