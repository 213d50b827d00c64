// SPDX-License-Identifier: BSD-3-Clause
/*
 * The completion-port core shared by the async mechanisms "iocp" (the caller's poke reaps the
 * port) and "iocp_th" (a completion thread reaps it and poke drains what the thread handed
 * over). Internal to lib/be/windows/.
 */
#ifndef XNVME_BE_WINDOWS_IOCP_H
#define XNVME_BE_WINDOWS_IOCP_H

#include "be_windows.h"

#define XNVME_IOCP_KEY_IO 0   ///< a transfer the OS completed
#define XNVME_IOCP_KEY_DONE 1 ///< a command finished at submission, status already in cpl
#define XNVME_IOCP_KEY_STOP 2 ///< "iocp_th": the completion thread is to exit
#define XNVME_IOCP_BATCH 64

struct xnvme_iocp_slot {
	OVERLAPPED ov; ///< first member: the OVERLAPPED pointer is the slot
	struct xnvme_cmd_ctx *ctx;
};

/* The first member of the queue state of both mechanisms: cmd_io/cmd_iov take it from there */
struct xnvme_iocp {
	HANDLE port;
	HANDLE h;
	uint32_t inflight; ///< transfers the OS holds (their OVERLAPPED must stay alive)
	struct xnvme_iocp_slot *slots; ///< capacity + 1, indexed by xnvme_queue_ctx_idx()
};

/**
 * Opens the queue's own handle on the device file (a handle binds to one port for life) and
 * its completion port. Returns 0 or negative errno; on error xnvme_iocp_close() releases the
 * rest.
 */
int
xnvme_iocp_open(struct xnvme_queue *queue, struct xnvme_iocp *io);

/**
 * Cancels what the OS still holds, waits (up to a second per batch) for it to let go of the
 * slots, and closes the handle and the port. `io` itself is not freed.
 */
void
xnvme_iocp_close(struct xnvme_iocp *io);

/** Completes one reaped port entry: the command's status into cpl, then its callback. */
void
xnvme_iocp_complete(struct xnvme_queue *queue, struct xnvme_iocp *io, const OVERLAPPED_ENTRY *e);

int
xnvme_iocp_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		  size_t mbuf_nbytes);

int
xnvme_iocp_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
		   size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes);

/** A completion port is no file descriptor: -ENOSYS */
int
xnvme_iocp_get_completion_fd(struct xnvme_queue *queue);

#endif /* XNVME_BE_WINDOWS_IOCP_H */
