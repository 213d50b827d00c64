// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "io_ring": the Windows IoRing API (KernelBase.dll, Windows 11 on; writes and
 * flushes need IoRing version 3, Windows 11 22H2), looked up at run time with GetProcAddress so
 * that the library loads on systems without it. Where the API or version 3 is missing (Wine
 * has neither) check_support refuses the device with -ENOSYS / -ENOTSUP and the reason.
 *
 * One ring per queue on the device's handle. cmd_io builds a read or write entry with the
 * context as user data; entries are submitted in one SubmitIoRing call per poke (a batch), and
 * poke pops completions with PopIoRingCompletion. Commands that finish at submission (FLUSH,
 * decoding errors, vectored commands, which run on the sync mechanism) wait in a FIFO that
 * poke drains first, so every completion reaches the caller through poke.
 *
 * Not run here: only Wine was available, which lacks the API (docs/windows.md).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "be_windows.h"

/* The API's types, declared here: mingw-w64's ioringapi.h lacks version 3 (writes, flushes) */
typedef void *ioring_t;
enum { IORING_V3_ = 300, IORING_REF_RAW_ = 0 };

struct ioring_handle_ref {
	int kind;
	union {
		HANDLE handle;
		UINT32 index;
	} u;
};
struct ioring_buffer_ref {
	int kind;
	union {
		void *address;
		struct {
			UINT32 index, offset;
		} reg;
	} u;
};
struct ioring_create_flags {
	int required;
	int advisory;
};
struct ioring_cqe {
	UINT_PTR user_data;
	HRESULT result;
	ULONG_PTR information;
};
_Static_assert(sizeof(struct ioring_handle_ref) == 16, "IORING_HANDLE_REF layout");
_Static_assert(sizeof(struct ioring_buffer_ref) == 16, "IORING_BUFFER_REF layout");
_Static_assert(sizeof(struct ioring_cqe) == 24, "IORING_CQE layout");

struct ioring_api {
	HRESULT(WINAPI *create)
	(int ver, struct ioring_create_flags flags, UINT32 sqsize, UINT32 cqsize, ioring_t *ring);
	HRESULT(WINAPI *close)(ioring_t ring);
	HRESULT(WINAPI *submit)(ioring_t ring, UINT32 wait, UINT32 ms, UINT32 *submitted);
	HRESULT(WINAPI *pop)(ioring_t ring, struct ioring_cqe *cqe);
	HRESULT(WINAPI *read)
	(ioring_t ring, struct ioring_handle_ref file, struct ioring_buffer_ref buf, UINT32 nbytes,
	 UINT64 offset, UINT_PTR user_data, int sqe_flags);
	HRESULT(WINAPI *write)
	(ioring_t ring, struct ioring_handle_ref file, struct ioring_buffer_ref buf, UINT32 nbytes,
	 UINT64 offset, int write_flags, UINT_PTR user_data, int sqe_flags);
	const char *missing; ///< the first function KernelBase.dll lacks, NULL when all are there
};

static struct ioring_api g_api;
static pthread_once_t g_api_once = PTHREAD_ONCE_INIT;

static void
api_load(void)
{
	static const char *names[] = {"CreateIoRing",        "CloseIoRing",
				      "SubmitIoRing",        "PopIoRingCompletion",
				      "BuildIoRingReadFile", "BuildIoRingWriteFile"};
	HMODULE kb = GetModuleHandleA("KernelBase.dll");
	FARPROC fn[6];

	for (size_t i = 0; i < 6; ++i) {
		fn[i] = kb ? GetProcAddress(kb, names[i]) : NULL;
		if (!fn[i]) {
			g_api.missing = names[i];
			return;
		}
	}
	/* FARPROC to the real prototypes: through a void pointer, as -Wcast-function-type wants */
	g_api.create = (void *)fn[0];
	g_api.close = (void *)fn[1];
	g_api.submit = (void *)fn[2];
	g_api.pop = (void *)fn[3];
	g_api.read = (void *)fn[4];
	g_api.write = (void *)fn[5];
}

struct ioring_state {
	ioring_t ring;
	HANDLE h;
	uint32_t unsubmitted;        ///< entries built since the last SubmitIoRing
	uint32_t inflight;           ///< entries the OS holds
	struct xnvme_cmd_ctx **done; ///< FIFO of commands finished at submission, capacity + 1
	uint32_t ndone, done_head, done_tail;
};

static int
ring_create(struct ioring_state *state, uint32_t capacity)
{
	struct ioring_create_flags flags = {0, 0};

	/* completions may outnumber submissions in flight briefly: twice the queue */
	return g_api.create(IORING_V3_, flags, capacity, capacity * 2, &state->ring);
}

static int
ioring_check_support(struct xnvme_dev *dev)
{
	struct ioring_state probe = {0};
	HRESULT hr;

	pthread_once(&g_api_once, api_load);
	if (g_api.missing) {
		return xnvme_dev_set_errmsg(
			dev, -ENOSYS,
			"async 'io_ring': this Windows has no IoRing API (%s is "
			"missing from KernelBase.dll; Windows 11 on); use 'iocp'",
			g_api.missing);
	}
	hr = ring_create(&probe, 1);
	if (FAILED(hr)) {
		return xnvme_dev_set_errmsg(
			dev, -ENOTSUP,
			"async 'io_ring': CreateIoRing(version 3) failed with "
			"HRESULT 0x%08lx (writes need Windows 11 22H2); use 'iocp'",
			(unsigned long)hr);
	}
	g_api.close(probe.ring);
	return 0;
}

static void
done_push(struct ioring_state *state, struct xnvme_cmd_ctx *ctx)
{
	state->done[state->done_tail] = ctx;
	state->done_tail = state->done_tail + 1 == state->ndone ? 0 : state->done_tail + 1;
}

static int
ioring_term(struct xnvme_queue *queue)
{
	struct ioring_state *state = queue->state;

	if (!state) {
		return 0;
	}
	if (state->ring) {
		/* abandoned transfers: let the OS finish them before their buffers go (1 s at most) */
		if (state->inflight || state->unsubmitted) {
			g_api.submit(state->ring, state->inflight + state->unsubmitted, 1000, NULL);
		}
		g_api.close(state->ring);
	}
	free(state->done);
	free(state);
	queue->state = NULL;
	return 0;
}

static int
ioring_init(struct xnvme_queue *queue, int opts)
{
	const struct xnvme_be_windows_state *dstate = queue->dev->state;
	struct ioring_state *state;
	HRESULT hr;

	(void)opts;
	state = calloc(1, sizeof(*state));
	if (!state) {
		return -ENOMEM;
	}
	queue->state = state;
	state->h = dstate->h;
	state->ndone = queue->capacity + 1;
	state->done = calloc(state->ndone, sizeof(*state->done));
	if (!state->done) {
		ioring_term(queue);
		return -ENOMEM;
	}
	hr = ring_create(state, queue->capacity);
	if (FAILED(hr)) {
		state->ring = NULL;
		ioring_term(queue);
		return hr == E_OUTOFMEMORY ? -ENOMEM : -ENOTSUP;
	}
	return 0;
}

static int
ioring_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	      size_t mbuf_nbytes)
{
	struct ioring_state *state = ctx->async.queue->state;
	struct ioring_handle_ref file = {IORING_REF_RAW_, {.handle = state->h}};
	struct ioring_buffer_ref buf = {IORING_REF_RAW_, {.address = dbuf}};
	uint64_t off, len;
	bool write;
	HRESULT hr;

	(void)mbuf;
	(void)mbuf_nbytes;
	if (xnvme_be_windows_rw_decode(ctx, dbuf_nbytes, &off, &len, &write)) {
		done_push(state, ctx); /* FLUSH done, or the status is set */
		return 0;
	}
	if (len > MAXDWORD || (len && !dbuf)) {
		xnvme_cpl_set_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
				     XNVME_STATUS_CODE_INVALID_FIELD);
		done_push(state, ctx);
		return 0;
	}
	hr = write ? g_api.write(state->ring, file, buf, (UINT32)len, off, 0, (UINT_PTR)ctx, 0)
		   : g_api.read(state->ring, file, buf, (UINT32)len, off, (UINT_PTR)ctx, 0);
	if (FAILED(hr)) {
		/* the submission queue is full: poke, then retry (rule 4 of xnvme_be.h) */
		return xnvme_be_cmd_refused(ctx, -EBUSY);
	}
	state->unsubmitted++;
	return 0;
}

static int
ioring_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	       void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_queue *queue = ctx->async.queue;
	int err;

	if (dvec_cnt == 1) {
		return ioring_cmd_io(ctx, dvec[0].iov_base, dvec[0].iov_len, mbuf, mbuf_nbytes);
	}
	err = queue->dev->sync->cmd_iov(ctx, dvec, dvec_cnt, dvec_nbytes, mbuf, mbuf_nbytes);
	if (err < 0 && !xnvme_cmd_ctx_cpl_status(ctx)) {
		xnvme_cpl_set_errno(ctx, err);
	}
	done_push(queue->state, ctx);
	return 0;
}

static int
ioring_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct ioring_state *state = queue->state;
	uint32_t reaped = 0;

	if (XNVME_BE_UNLIKELY(xnvme_be_poke_skip(queue))) {
		return 0;
	}
	max = max ? max : UINT32_MAX;
	while (state->done_head != state->done_tail && reaped < max) {
		struct xnvme_cmd_ctx *ctx = state->done[state->done_head];

		state->done_head = state->done_head + 1 == state->ndone ? 0 : state->done_head + 1;
		xnvme_queue_complete(queue, ctx);
		reaped++;
	}
	if (state->unsubmitted) {
		UINT32 submitted = 0;

		if (SUCCEEDED(g_api.submit(state->ring, 0, 0, &submitted))) {
			state->inflight += submitted;
			state->unsubmitted -=
				submitted < state->unsubmitted ? submitted : state->unsubmitted;
		}
	}
	while (state->inflight && reaped < max) {
		struct ioring_cqe cqe;
		struct xnvme_cmd_ctx *ctx;

		if (g_api.pop(state->ring, &cqe) != S_OK) {
			break; /* S_FALSE: nothing completed */
		}
		state->inflight--;
		ctx = (struct xnvme_cmd_ctx *)cqe.user_data;
		if (SUCCEEDED(cqe.result)) {
			ctx->cpl.result = cqe.information;
		} else if (cqe.result == HRESULT_FROM_WIN32(ERROR_HANDLE_EOF)) {
			ctx->cpl.result = 0; /* reading at end of file: nothing, and success */
		} else {
			xnvme_cpl_set_errno(ctx, xnvme_be_windows_errno(HRESULT_CODE(cqe.result)));
		}
		xnvme_queue_complete(queue, ctx);
		reaped++;
	}
	return (int)reaped;
}

static int
ioring_get_completion_fd(struct xnvme_queue *queue)
{
	(void)queue;
	return -ENOSYS;
}

const struct xnvme_be_async xnvme_be_windows_async_ioring = {
	.name = "io_ring",
	.check_support = ioring_check_support,
	.init = ioring_init,
	.term = ioring_term,
	.poke = ioring_poke,
	.cmd_io = ioring_cmd_io,
	.cmd_iov = ioring_cmd_iov,
	.get_completion_fd = ioring_get_completion_fd,
};
