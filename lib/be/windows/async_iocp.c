// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "iocp": overlapped ReadFile/WriteFile completed through one I/O completion
 * port per queue, reaped in batches with GetQueuedCompletionStatusEx. A handle binds to one
 * port for life, so each queue opens the file again for itself. Commands that finish at
 * submission (FLUSH, decoding errors) are posted to the port with key IOCP_KEY_DONE, so every
 * completion reaches the caller through poke. Vectored commands run segment by segment on the
 * sync mechanism and are posted likewise.
 */
#include <errno.h>
#include <stdlib.h>
#include "be_windows.h"

#define IOCP_KEY_IO 0
#define IOCP_KEY_DONE 1
#define IOCP_BATCH 64
#define STATUS_END_OF_FILE_ ((ULONG_PTR)0xC0000011L)

struct iocp_slot {
	OVERLAPPED ov; ///< first member: the OVERLAPPED pointer is the slot
	struct xnvme_cmd_ctx *ctx;
};

struct iocp_state {
	HANDLE port;
	HANDLE h;
	uint32_t inflight;       ///< transfers the OS holds (their OVERLAPPED must stay alive)
	struct iocp_slot *slots; ///< capacity + 1, indexed by xnvme_queue_ctx_idx()
};

static int
iocp_term(struct xnvme_queue *queue)
{
	struct iocp_state *state = queue->state;

	if (!state) {
		return 0;
	}
	if (state->h != INVALID_HANDLE_VALUE) {
		/* abandoned transfers: cancel, and wait for the OS to let go of their slots */
		CancelIoEx(state->h, NULL);
		while (state->inflight) {
			OVERLAPPED_ENTRY e[IOCP_BATCH];
			ULONG got = 0;

			if (!GetQueuedCompletionStatusEx(state->port, e, IOCP_BATCH, &got, 1000,
							 FALSE)) {
				break;
			}
			for (ULONG i = 0; i < got; ++i) {
				state->inflight -= e[i].lpCompletionKey == IOCP_KEY_IO;
			}
		}
		CloseHandle(state->h);
	}
	if (state->port) {
		CloseHandle(state->port);
	}
	free(state->slots);
	free(state);
	queue->state = NULL;
	return 0;
}

static int
iocp_init(struct xnvme_queue *queue, int opts)
{
	const struct xnvme_be_windows_state *dstate = queue->dev->state;
	struct iocp_state *state;

	(void)opts;
	state = calloc(1, sizeof(*state));
	if (!state) {
		return -ENOMEM;
	}
	queue->state = state;
	state->slots = calloc((size_t)queue->capacity + 1, sizeof(*state->slots));
	state->h = CreateFileA(queue->dev->ident.uri, dstate->access,
			       FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
			       dstate->flags, NULL);
	if (!state->slots || state->h == INVALID_HANDLE_VALUE) {
		int err = state->slots ? xnvme_be_windows_errno(GetLastError()) : ENOMEM;

		iocp_term(queue);
		return -err;
	}
	state->port = CreateIoCompletionPort(state->h, NULL, IOCP_KEY_IO, 1);
	if (!state->port) {
		int err = xnvme_be_windows_errno(GetLastError());

		iocp_term(queue);
		return -err;
	}
	return 0;
}

/* Hands a command finished at submission to the port; its status is already in cpl */
static int
iocp_post_done(struct iocp_state *state, struct iocp_slot *slot)
{
	if (!PostQueuedCompletionStatus(state->port, 0, IOCP_KEY_DONE, &slot->ov)) {
		return -EAGAIN; /* not queued: no side effects beyond cpl, which the caller resets */
	}
	return 0;
}

static int
iocp_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	    size_t mbuf_nbytes)
{
	struct xnvme_queue *queue = ctx->async.queue;
	struct iocp_state *state = queue->state;
	struct iocp_slot *slot = &state->slots[xnvme_queue_ctx_idx(queue, ctx)];
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
		return iocp_post_done(state, slot); /* FLUSH done, or the status is set */
	}
	if (len > MAXDWORD || (len && !dbuf)) {
		xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
				     XNVME_STATUS_CODE_INVALID_FIELD);
		return iocp_post_done(state, slot);
	}
	slot->ov.Offset = (DWORD)off;
	slot->ov.OffsetHigh = (DWORD)(off >> 32);
	ok = write ? WriteFile(state->h, dbuf, (DWORD)len, NULL, &slot->ov)
		   : ReadFile(state->h, dbuf, (DWORD)len, NULL, &slot->ov);
	if (!ok) {
		DWORD werr = GetLastError();

		if (werr == ERROR_HANDLE_EOF) {
			ctx->cpl.result = 0; /* reading at end of file: nothing, and success */
			return iocp_post_done(state, slot);
		}
		if (werr != ERROR_IO_PENDING) {
			xnvme_cpl_set_errno(ctx, xnvme_be_windows_errno(werr));
			return iocp_post_done(state, slot);
		}
	}
	state->inflight++; /* pending or done at once: either way a packet reaches the port */
	return 0;
}

static int
iocp_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	     void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_queue *queue = ctx->async.queue;
	struct iocp_state *state = queue->state;
	struct iocp_slot *slot = &state->slots[xnvme_queue_ctx_idx(queue, ctx)];
	int err;

	if (dvec_cnt == 1) {
		return iocp_cmd_io(ctx, dvec[0].iov_base, dvec[0].iov_len, mbuf, mbuf_nbytes);
	}
	memset(&slot->ov, 0, sizeof(slot->ov));
	slot->ctx = ctx;
	err = queue->dev->sync->cmd_iov(ctx, dvec, dvec_cnt, dvec_nbytes, mbuf, mbuf_nbytes);
	if (err < 0 && !xnvme_cmd_ctx_cpl_status(ctx)) {
		xnvme_cpl_set_errno(ctx, err);
	}
	return iocp_post_done(state, slot);
}

static int
iocp_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct iocp_state *state = queue->state;
	OVERLAPPED_ENTRY e[IOCP_BATCH];
	uint32_t reaped = 0;

	max = max ? max : UINT32_MAX;
	while (reaped < max) {
		ULONG want = max - reaped < IOCP_BATCH ? max - reaped : IOCP_BATCH, got = 0;

		if (!GetQueuedCompletionStatusEx(state->port, e, want, &got, 0, FALSE) || !got) {
			break; /* WAIT_TIMEOUT: nothing ready */
		}
		for (ULONG i = 0; i < got; ++i) {
			struct iocp_slot *slot = (struct iocp_slot *)e[i].lpOverlapped;
			struct xnvme_cmd_ctx *ctx = slot->ctx;

			if (e[i].lpCompletionKey == IOCP_KEY_IO) {
				state->inflight--;
				if (!slot->ov.Internal ||
				    slot->ov.Internal == STATUS_END_OF_FILE_) {
					ctx->cpl.result = e[i].dwNumberOfBytesTransferred;
				} else {
					xnvme_cpl_set_errno(ctx, EIO);
				}
			}
			xnvme_queue_complete(queue, ctx);
		}
		reaped += got;
	}
	return (int)reaped;
}

static int
iocp_get_completion_fd(struct xnvme_queue *queue)
{
	(void)queue;
	return -ENOSYS; /* a completion port is no file descriptor */
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
	.cmd_io = iocp_cmd_io,
	.cmd_iov = iocp_cmd_iov,
	.get_completion_fd = iocp_get_completion_fd,
};
