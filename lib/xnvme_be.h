/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Internal backend interface (not installed).
 *
 * A backend is a family of mechanisms for one OS or driver stack. Each mechanism kind is a
 * small table of function pointers with a selectable `name` and a `check_support` that says
 * whether it can serve an opened device (0) or why not (negative errno, plus a reason string).
 * Every entry point of every mechanism is defined: unsupported operations answer -ENOSYS.
 *
 * Contract between core and mechanisms:
 * - The core zeroes ctx->cpl before handing a context to a sync or async mechanism, so a
 *   mechanism writes only the result and, on failure, the status.
 * - OS errors on emulated paths are folded into cpl with xnvme_cpl_set_errno().
 * - Sync mechanisms return 0 or a negative errno; -EIO when the command completed with an
 *   NVMe status (the core enforces this as well).
 * - Async mechanisms: cmd_io/cmd_iov queue the context (0) or refuse it (-EBUSY/-EAGAIN, no
 *   side effects). The core checks capacity and counts outstanding commands (before the
 *   call when the mechanism has cmd_io_counted, which then takes the count back on refusal,
 *   so that the core hands over with a tail call); poke reaps up to
 *   `max` (0: all ready) and completes each context with xnvme_queue_complete() (or, in a
 *   batch it brackets with queue->depth++/--, xnvme_queue_complete_in_batch()).
 */
#ifndef XNVME_BE_H
#define XNVME_BE_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* printf format checking: mingw-w64 checks the C99 printf it links (%zu) as gnu_printf */
#ifdef __MINGW32__
#define XNVME_BE_PRINTF gnu_printf
#else
#define XNVME_BE_PRINTF printf
#endif

#include <libxnvme.h>

#define XNVME_CMD_SYNC 0x1
#define XNVME_CMD_ASYNC 0x2

#define XNVME_QUEUE_CAPACITY_MAX 4096

/** Length of the reason string a check_support or open may leave in dev->errmsg */
#define XNVME_ERRMSG_LEN 512

/** Pseudo-commands of the admin mechanism (topology functions) */
enum xnvme_be_pseudo {
	XNVME_BE_PSEUDO_SUBSYSTEM_RESET = 1,
	XNVME_BE_PSEUDO_CONTROLLER_RESET = 2,
	XNVME_BE_PSEUDO_NAMESPACE_RESCAN = 3,
	XNVME_BE_PSEUDO_GET_REGISTERS = 4, ///< buf: struct xnvme_spec_ctrlr_bar (4096 bytes)
};

struct xnvme_be_mem {
	const char *name;
	int (*check_support)(struct xnvme_dev *dev);
	void *(*buf_alloc)(const struct xnvme_dev *dev, size_t nbytes, uint64_t *phys);
	void *(*buf_realloc)(const struct xnvme_dev *dev, void *buf, size_t nbytes, uint64_t *phys);
	void (*buf_free)(const struct xnvme_dev *dev, void *buf);
	int (*buf_vtophys)(const struct xnvme_dev *dev, void *buf, uint64_t *phys);
	int (*mem_map)(const struct xnvme_dev *dev, void *vaddr, size_t nbytes);
	int (*mem_unmap)(const struct xnvme_dev *dev, void *buf);
};

struct xnvme_be_admin {
	const char *name;
	int (*check_support)(struct xnvme_dev *dev);
	int (*cmd_admin)(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
			 size_t mbuf_nbytes);
	/** topology pseudo-commands; -ENOSYS when the mechanism has no such concept */
	int (*pseudo)(struct xnvme_dev *dev, enum xnvme_be_pseudo op, void *buf, size_t nbytes);
};

struct xnvme_be_sync {
	const char *name;
	int (*check_support)(struct xnvme_dev *dev);
	int (*cmd_io)(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		      size_t mbuf_nbytes);
	int (*cmd_iov)(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
		       size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes);
};

struct xnvme_be_async {
	const char *name;
	int (*check_support)(struct xnvme_dev *dev);
	/** sets queue->state; `opts` are the xnvme_queue_opts bits */
	int (*init)(struct xnvme_queue *queue, int opts);
	/** releases queue->state; outstanding commands are abandoned */
	int (*term)(struct xnvme_queue *queue);
	int (*poke)(struct xnvme_queue *queue, uint32_t max);
	/**
	 * true: poke itself returns 0 without reaping when queue->depth exceeds
	 * XNVME_QUEUE_POKE_DEPTH_MAX and when it has nothing to deliver, and never waits when
	 * nothing is outstanding, so xnvme_queue_poke() hands over right after its NULL test.
	 * false: the core makes those tests first (one jump more per poke).
	 */
	bool poke_checks;
	/**
	 * true: the core allocates queue->ring[] (xnvme_be_ring_size(capacity) entries, mask in
	 * queue->ring_mask, head and tail zero) for the mechanism: a ring at a fixed offset from
	 * the queue, no pointer to load per command
	 */
	bool queue_ring;
	int (*cmd_io)(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		      size_t mbuf_nbytes);
	int (*cmd_iov)(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
		       size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes);
	/**
	 * Optional cmd_io for a command the core has already counted in queue->outstanding, so
	 * that read/write hand over with a tail call: same contract as cmd_io, except that a
	 * refusal must take the count back (xnvme_be_cmd_io_refused()). NULL: the core wraps
	 * cmd_io (one call more per command).
	 */
	int (*cmd_io_counted)(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
			      size_t mbuf_nbytes);
	/** an fd readable while completions are pending, or -ENOSYS */
	int (*get_completion_fd)(struct xnvme_queue *queue);
};

struct xnvme_be_dev {
	/**
	 * Lists the devices of this backend, opening each with a copy of `opts` whose `be` is
	 * this backend, and hands them to xnvme_be_enumerate_visit(). -ENOSYS when the backend
	 * cannot enumerate.
	 */
	int (*enumerate)(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
			 void *cb_args);
	/**
	 * Opens dev->ident.uri. Returns -ENXIO when the URI is not for this backend (the next
	 * backend is tried), another negative errno when it is but the open failed (with a reason
	 * in dev->errmsg), 0 when opened. On success dev->ident (dtype, nsid, csi) and dev->state
	 * are set, and every mechanism kind left NULL by the caller's options has been picked with
	 * xnvme_be_pick_default().
	 */
	int (*dev_open)(struct xnvme_dev *dev);
	void (*dev_close)(struct xnvme_dev *dev);
};

/** A backend: name, whether it is built in, and NULL-terminated mechanism lists */
struct xnvme_be {
	const char *name;
	bool enabled;
	const struct xnvme_be_dev *dev;
	const struct xnvme_be_mem *const *mem;
	const struct xnvme_be_admin *const *admin;
	const struct xnvme_be_sync *const *sync;
	const struct xnvme_be_async *const *async;
};

/**
 * The registry, in the fixed order spdk, linux, fbsd, macos, windows, ramdisk, vfio, tcp,
 * rdma
 */
extern const struct xnvme_be *const xnvme_be_registry[];
extern const int xnvme_be_registry_len;

/** Open device. Geometry first: it is read on every command. */
struct xnvme_dev {
	struct xnvme_geo geo;

	const struct xnvme_be *be;
	const struct xnvme_be_mem *mem;
	const struct xnvme_be_admin *admin;
	const struct xnvme_be_sync *sync;
	const struct xnvme_be_async *async;

	void *state; ///< backend-private, owned by be->dev->dev_close

	/**
	 * Set by the backend's open: the largest transfer its I/O path accepts in one command
	 * (e.g. what the kernel maps for a passthrough ioctl); 0 = no limit beyond MDTS. The
	 * geometry's mdts_nbytes is capped at it, rounded down to whole LBAs.
	 */
	uint32_t mdts_cap_nbytes;

	int ident_done; ///< atomic: identification ran (successfully or not)
	int ident_err;
	int geo_done; ///< atomic: geometry derived (successfully or not)
	int geo_err;
	pthread_mutex_t lock; ///< serialises identification and derivation (lib/dev.c)

	struct xnvme_ident ident;
	struct xnvme_opts opts; ///< effective options, names point at mechanism names

	struct xnvme_spec_idfy idfy_ctrlr;
	struct xnvme_spec_idfy idfy_ns;
	struct xnvme_spec_idfy idfy_ctrlr_css;
	struct xnvme_spec_idfy idfy_ns_css;

	/** copies of caller strings the options point at */
	char subnqn[256];
	char hostnqn[256];
	char adrfam[32];
	char core_mask[256];

	char errmsg[XNVME_ERRMSG_LEN]; ///< reason for a failed open or check_support
};

/**
 * Pokes of one queue that may run inside each other (callbacks that poke); one more reaps
 * nothing and returns 0: bounds the stack when every callback submits and pokes. The commands
 * stay queued for an enclosing poke or the next one.
 */
#define XNVME_QUEUE_POKE_DEPTH_MAX 8

/**
 * Queue: pool of capacity + 1 contexts, a free list, and the mechanism's state.
 *
 * Nested pokes (a callback that pokes its own queue): every mechanism's poke takes the
 * completions it will deliver off its ring or list before running any callback and keeps them
 * in storage of its own level (a claimed ring range, the stack, or links through per-context
 * entries), never in a scratch array shared by all pokes of the queue.
 *
 * The fields of the per-I/O path (get, read/write, poke, put) come first: one cache line.
 */
struct xnvme_queue {
	uint32_t capacity;
	uint32_t outstanding;
	int opts; ///< between outstanding and depth: gcc would vectorise their --/++ pair
	/**
	 * 1 + the callbacks of this queue running (xnvme_queue_complete() counts them), so what a
	 * mechanism's poke reads here is the number of pokes in progress: 1 at the top level,
	 * more when nested in a callback. Outside any poke it is 1.
	 */
	uint32_t depth;
	void *state; ///< mechanism-private, set by async->init, released by async->term
	/**
	 * async->cmd_io_counted, or a core wrapper of async->cmd_io that takes the count back on
	 * refusal: called with the command already counted outstanding
	 */
	int (*cmd_io)(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		      size_t mbuf_nbytes);
	/**
	 * async->poke when it makes the nesting and nothing-outstanding tests itself
	 * (async->poke_checks), else a core wrapper that makes them and calls mech_poke
	 */
	int (*poke)(struct xnvme_queue *queue, uint32_t max);
	/**
	 * `dev` once its geometry is derived, else a value no device has: read/write take their
	 * fast path for a context whose device equals it (one compare for "device set, geometry
	 * ready"); set at init and by the general path (xnvme_be_queue_geo_refresh()).
	 */
	const struct xnvme_dev *geo_dev;
	/** free list linked through the contexts; XNVME_QUEUE_CTX_END: empty */
	struct xnvme_cmd_ctx *free_head;
	struct xnvme_cmd_ctx *pool;
	uint64_t last_idx; ///< capacity, as a 64-bit word for put's one-compare range check
	struct xnvme_dev *dev;
	const struct xnvme_be_async *async;
	int (*mech_poke)(struct xnvme_queue *queue, uint32_t max); ///< async->poke
	/** async->cmd_io, for the core wrapper of a mechanism without cmd_io_counted */
	int (*mech_cmd_io)(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
			   size_t mbuf_nbytes);
	/** the ring of a mechanism with async->queue_ring (else no entries): its own to use */
	uint32_t ring_head;
	uint32_t ring_tail;
	uint32_t ring_mask;
	struct xnvme_cmd_ctx *ring[];
};

/**
 * The queue core's word of a pooled context, in its reserved area (be_rsvd[4..11], 8-byte
 * aligned): the next free context (XNVME_QUEUE_CTX_END after the last) while on the free list,
 * XNVME_QUEUE_CTX_TAKEN (0, as in a context a client cleared) while taken. Mechanisms may use
 * be_rsvd[0..3], never this word.
 */
#define XNVME_QUEUE_CTX_LINK_OFS 4
#define XNVME_QUEUE_CTX_TAKEN ((uintptr_t)0)
#define XNVME_QUEUE_CTX_END ((uintptr_t)1)
_Static_assert((offsetof(struct xnvme_cmd_ctx, be_rsvd) + XNVME_QUEUE_CTX_LINK_OFS) % 8 == 0,
	       "the link word of a context is 8-byte aligned");
_Static_assert(sizeof(((struct xnvme_cmd_ctx *)0)->be_rsvd) - XNVME_QUEUE_CTX_LINK_OFS >=
		       sizeof(uintptr_t),
	       "the link word fits the reserved area");

static inline uintptr_t
xnvme_queue_ctx_link(const struct xnvme_cmd_ctx *ctx)
{
	uintptr_t v;

	memcpy(&v, &ctx->be_rsvd[XNVME_QUEUE_CTX_LINK_OFS], sizeof(v));
	return v;
}

static inline void
xnvme_queue_ctx_link_set(struct xnvme_cmd_ctx *ctx, uintptr_t v)
{
	memcpy(&ctx->be_rsvd[XNVME_QUEUE_CTX_LINK_OFS], &v, sizeof(v));
}

/** Index of a pooled context in its queue's pool (0..capacity) */
static inline uint32_t
xnvme_queue_ctx_idx(const struct xnvme_queue *queue, const struct xnvme_cmd_ctx *ctx)
{
	return (uint32_t)(ctx - queue->pool);
}

/** Sets queue->geo_dev once the geometry of queue->dev is derived (the general path calls it) */
void
xnvme_be_queue_geo_refresh(struct xnvme_queue *queue);

/** Size of a ring that holds `capacity` contexts: the next power of two */
static inline uint32_t
xnvme_be_ring_size(uint32_t capacity)
{
	uint32_t size = 1;

	while (size < capacity) {
		size <<= 1;
	}
	return size;
}

/**
 * xnvme_queue_complete() inside a batch whose caller raised queue->depth by one around all
 * of the batch's callbacks (depth++ before the first, depth-- after the last)
 */
static inline void
xnvme_queue_complete_in_batch(struct xnvme_queue *queue, struct xnvme_cmd_ctx *ctx)
{
	queue->outstanding--;
	ctx->async.cb(ctx, ctx->async.cb_arg);
}

/**
 * Completes a reaped context whose cpl is final: count it and run its callback, inside which
 * the queue's depth is one higher (drain/term refuse, nested pokes are bounded by it). Pokes
 * themselves do not count depth, so xnvme_queue_poke() hands over to the mechanism with a
 * tail call.
 */
static inline void
xnvme_queue_complete(struct xnvme_queue *queue, struct xnvme_cmd_ctx *ctx)
{
	queue->depth++;
	xnvme_queue_complete_in_batch(queue, ctx);
	queue->depth--;
}

/*
 * Longest wait of a poke that finds nothing ready in a row (see xnvme_be_queue_poke_spin()):
 * bounds how late a caller polling with a deadline (drain_timeout) sees that deadline. The
 * Linux kernel mechanisms grow it on slow devices, outside drain_timeout (be/linux/poke_wait.h).
 */
#define XNVME_BE_POKE_WAIT_NS 1000000

/**
 * Set in queue->opts while xnvme_queue_drain_timeout() pokes: mechanisms whose idle waits grow
 * on slow devices keep them at XNVME_BE_POKE_WAIT_NS then. No flag of xnvme_queue_init() has it.
 */
#define XNVME_BE_QUEUE_DEADLINE 0x40000000

/**
 * True when pokes must never wait for a completion (`opts`, the flags of xnvme_queue_init(),
 * hold XNVME_QUEUE_POKE_SPIN): mechanisms that can wait in the kernel (io_uring, libaio) or on their
 * workers (thrpool) then return 0 at once from every poke that finds nothing ready, as
 * busy-polling callers with latency targets want. Otherwise the second poke in a row that
 * finds nothing waits up to XNVME_BE_POKE_WAIT_NS for one completion.
 */
bool
xnvme_be_queue_poke_spin(int opts);

#define XNVME_BE_LIKELY(x) __builtin_expect(!!(x), 1)
#define XNVME_BE_UNLIKELY(x) __builtin_expect(!!(x), 0)

/** Getters' fast path: identification already ran (acquire pairs with its release store) */
static inline bool
xnvme_dev_ident_ready(const struct xnvme_dev *dev)
{
	return __atomic_load_n(&dev->ident_done, __ATOMIC_ACQUIRE) != 0;
}

/** Getters' fast path: geometry already derived */
static inline bool
xnvme_dev_geo_ready(const struct xnvme_dev *dev)
{
	return __atomic_load_n(&dev->geo_done, __ATOMIC_ACQUIRE) != 0;
}

/**
 * The asynchronous branch of xnvme_cmd_pass() for hot paths that already know the context is
 * asynchronous (ctx->opts == XNVME_CMD_ASYNC): capacity check, cpl cleared, outstanding
 * counted, then the mechanism's submission as a tail call (queue->cmd_io takes the count back
 * when it refuses). Identical in effect to xnvme_cmd_pass() on such a context.
 */
static inline int
xnvme_cmd_pass_async(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		     size_t mbuf_nbytes)
{
	struct xnvme_queue *queue = ctx->async.queue;
	uint32_t outstanding;

	if (XNVME_BE_UNLIKELY(!queue)) {
		return -EINVAL;
	}
	outstanding = queue->outstanding;
	if (XNVME_BE_UNLIKELY(outstanding >= queue->capacity)) {
		return -EBUSY;
	}
	memset(&ctx->cpl, 0, sizeof(ctx->cpl));
	queue->outstanding = outstanding + 1;
	return queue->cmd_io(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);
}

/**
 * The tests xnvme_queue_poke() leaves to a poke_checks mechanism, for one that has no cheaper
 * equivalent: true when the poke must return 0 at once (nothing outstanding: never wait; or
 * more than XNVME_QUEUE_POKE_DEPTH_MAX pokes nested)
 */
static inline bool
xnvme_be_poke_skip(const struct xnvme_queue *queue)
{
	return !queue->outstanding || queue->depth > XNVME_QUEUE_POKE_DEPTH_MAX;
}

/** For cmd_io_counted: refuses a command the core counted (takes the count back); returns err */
static inline int
xnvme_be_cmd_io_refused(struct xnvme_cmd_ctx *ctx, int err)
{
	ctx->async.queue->outstanding--;
	return err;
}

/** Folds an OS error (positive or negative errno) into cpl: sct 7, sc = errno, result 0 */
static inline void
xnvme_cpl_set_errno(struct xnvme_cmd_ctx *ctx, int err)
{
	if (err < 0) {
		err = -err;
	}
	ctx->cpl.result = 0;
	ctx->cpl.status.sct = XNVME_STATUS_CODE_TYPE_VENDOR;
	ctx->cpl.status.sc = (uint16_t)(err & 0xFF);
}

/** Sets an NVMe status in cpl */
static inline void
xnvme_cpl_set_status(struct xnvme_cmd_ctx *ctx, uint8_t sct, uint8_t sc)
{
	ctx->cpl.status.sct = sct & 0x7;
	ctx->cpl.status.sc = sc;
	ctx->cpl.status.dnr = 1;
}

/**
 * Walks the registry and opens `uri` into `dev` (selection rules in docs/internals.md).
 * On failure dev->errmsg holds the most specific reason.
 */
int
xnvme_be_open(struct xnvme_dev *dev, const char *uri, const struct xnvme_opts *opts);

/**
 * For backends' enumerate: opens `uri` with `opts` and hands the handle to `cb_func`; closes it
 * when the callback returns non-zero. A device that cannot be opened is skipped (returns 0).
 */
int
xnvme_be_enumerate_visit(const char *uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
			 void *cb_args);

/** Picks a mechanism by name for a kind the caller left automatic (no-op when already set) */
int
xnvme_be_pick_default(struct xnvme_dev *dev, const char *mem, const char *admin, const char *sync,
		      const char *async);

/** Sets the text xnvme_last_error() returns in this thread ("" clears it) */
void
xnvme_last_error_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** Records a human-readable reason for a failure in dev->errmsg; returns err */
int
xnvme_dev_set_errmsg(struct xnvme_dev *dev, int err, const char *fmt, ...)
	__attribute__((format(XNVME_BE_PRINTF, 3, 4)));

/** Identifies the device once (thread-safe); returns the remembered result */
int
xnvme_dev_ensure_ident(struct xnvme_dev *dev);

/** Derives the geometry once (thread-safe); returns the remembered result */
int
xnvme_dev_ensure_geo(struct xnvme_dev *dev);

/**
 * Payload size of a command whose transfer size is defined by the command itself (DSM range
 * list, Simple Copy source ranges), else `given`. Clients pass the LBA-range size for DSM.
 */
size_t
xnvme_cmd_payload_nbytes(const struct xnvme_cmd_ctx *ctx, size_t given);

/** Shared mechanisms, usable by any backend whose sync mechanism they drive */
extern const struct xnvme_be_mem xnvme_be_mem_posix;
extern const struct xnvme_be_mem xnvme_be_mem_hugepage;
extern const struct xnvme_be_async xnvme_be_async_emu;
extern const struct xnvme_be_async xnvme_be_async_thrpool;
extern const struct xnvme_be_async xnvme_be_async_nil;

/** Backends */
extern const struct xnvme_be xnvme_be_linux;
extern const struct xnvme_be xnvme_be_ramdisk;
extern const struct xnvme_be xnvme_be_rdma;
extern const struct xnvme_be xnvme_be_tcp;
extern const struct xnvme_be xnvme_be_vfio;
extern const struct xnvme_be xnvme_be_windows;

#endif /* XNVME_BE_H */
