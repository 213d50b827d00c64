/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * The backend contract (not installed): everything a backend implements and everything it may
 * call or read. A backend lives in lib/be/<name>/ and includes this header (and xnvme_plat.h,
 * the OS layer); the core's own headers (lib/xnvme_dev.h, lib/xnvme_queue.h,
 * lib/xnvme_registry.h) are not for it, which tests/check_includes.py holds.
 *
 * A backend is a family of mechanisms for one OS or driver stack, registered by one line in
 * lib/be/registry.def. Each mechanism kind is a small table of function pointers with a
 * selectable `name` and a `check_support` that says whether it can serve an opened device (0)
 * or why not (negative errno, plus a reason in dev->errmsg). Every entry point of a table is
 * defined: a mechanism whose library is absent from the build keeps its table, and its
 * check_support and init refuse with -ENOSYS (lib/be/common/async_stubs.h).
 *
 * The rules, the same for every mechanism (the core has no per-mechanism switches):
 * 1. Devices. A backend reads and writes only the members of struct xnvme_dev below; the
 *    core keeps the rest of a device (identification, identify data, locks) to itself. The
 *    geometry is the core's: it settles it from identify data before the device has a queue
 *    or a synchronous context, so sync and async mechanisms read dev->geo as final and never
 *    ask for it to be derived. Identification itself runs through the admin mechanism, which
 *    therefore never reads dev->geo.
 * 2. Completions. The core zeroes ctx->cpl before handing a context to a sync or async
 *    mechanism, so a mechanism writes only the result and, on failure, the status; OS errors
 *    on emulated paths are folded into cpl with xnvme_cpl_set_errno().
 * 3. Sync and admin mechanisms return 0 or a negative errno; -EIO when the command completed
 *    with an NVMe status (the core enforces this as well).
 * 4. Async submission. The core checks the capacity, counts the command in
 *    queue->outstanding and then calls cmd_io/cmd_iov, as a tail call. They queue the context
 *    (0) or refuse it: a refusal (-EBUSY/-EAGAIN, or another negative errno for a context the
 *    mechanism cannot take) has no side effect but taking the count back, which is what
 *    `return xnvme_be_cmd_refused(ctx, err)` does.
 * 5. Poke. xnvme_queue_poke() hands over to async->poke at once: the poke itself returns 0
 *    without reaping when more than XNVME_QUEUE_POKE_DEPTH_MAX pokes of the queue are nested,
 *    and never waits when nothing is outstanding (xnvme_be_poke_skip(), or an equivalent test
 *    of the mechanism's own). It reaps up to `max` (0: all ready) and completes each context
 *    with xnvme_queue_complete() (or, in a batch it brackets with queue->nested++/--,
 *    xnvme_queue_complete_in_batch()). Completions are taken off the mechanism's ring or list
 *    before any callback runs and kept in storage of the poke's own level (a claimed ring
 *    range, the stack, or links through per-context entries), so that a callback's nested poke
 *    delivers only what no enclosing poke took.
 * 6. Pooled contexts. A mechanism may keep its own per-command word in be_rsvd[0..3] of a
 *    context of its queue; the rest of be_rsvd is the core's.
 */
#ifndef XNVME_BE_H
#define XNVME_BE_H

#include <errno.h>
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

/** ctx->opts of a synchronous context (xnvme_cmd_ctx_from_dev()) */
#define XNVME_CMD_SYNC 0x1
/** ctx->opts of an asynchronous context (the pool of a queue) */
#define XNVME_CMD_ASYNC 0x2

#define XNVME_QUEUE_CAPACITY_MAX 4096

/** Length of the reason string a check_support or open may leave in dev->errmsg */
#define XNVME_ERRMSG_LEN 512

#define XNVME_BE_LIKELY(x) __builtin_expect(!!(x), 1)
#define XNVME_BE_UNLIKELY(x) __builtin_expect(!!(x), 0)
/**
 * Makes the compiler forget the value of `lval` (no code): its next update is one
 * read-modify-write instruction on memory rather than a register copy of the value read
 * before, plus the arithmetic and a store (per-I/O counters and ring indexes)
 */
#define XNVME_BE_REFETCH(lval) __asm__("" : "+m"(lval))

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
	/** rule 5 */
	int (*poke)(struct xnvme_queue *queue, uint32_t max);
	/** rule 4: called with the command counted, a refusal takes the count back */
	int (*cmd_io)(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		      size_t mbuf_nbytes);
	/** rule 4, as cmd_io */
	int (*cmd_iov)(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
		       size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes);
	/** an fd readable while completions are pending, or -ENOSYS */
	int (*get_completion_fd)(struct xnvme_queue *queue);
	/**
	 * Bytes of per-queue state the core allocates with the queue, zeroed, right after
	 * struct xnvme_queue: init finds queue->state pointing at them, and the per-I/O path
	 * reaches them without a load (xnvme_be_queue_state()). 0: init allocates its own.
	 */
	size_t state_nbytes;
};

/** How strongly a backend claims a URI as one it takes (struct xnvme_be_dev's uri_claim) */
enum xnvme_be_uri_claim {
	XNVME_BE_URI_NONE = 0, ///< not of the backend's form
	XNVME_BE_URI_PATH = 1, ///< a path: the backend's unless another claims it as its form
	XNVME_BE_URI_FORM = 2, ///< of the backend's own form, as its parser reads it
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
	/**
	 * Whether `uri` (options after '?' included) is a URI this backend takes, decided by the
	 * backend's own parser, without I/O: XNVME_BE_URI_FORM for one of its own form (a ramdisk
	 * size, a PCI address, ...), XNVME_BE_URI_PATH from a backend of paths for every URI,
	 * else XNVME_BE_URI_NONE. Only the error of an open that no backend accepted depends on
	 * it: that is the error of the backends claiming the URI most strongly.
	 */
	enum xnvme_be_uri_claim (*uri_claim)(const char *uri);
	/** The URIs the backend takes, one line for error texts ("<N>GB, N a whole number ...") */
	const char *uri_forms;
};

/**
 * A backend: name, whether it is built in, and NULL-terminated mechanism lists. The registry
 * (lib/be/registry.def) holds a placeholder of the name alone for a backend not built for the
 * platform, so that its name is known and reported.
 */
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
 * An open device as its backend sees it (rule 1): what the backend's open fills in (ident,
 * state, the mechanisms it picked, mdts_cap_nbytes, errmsg on failure) and what its mechanisms
 * read. The geometry is first: the per-I/O path reads it on every command.
 */
struct xnvme_dev {
	struct xnvme_geo geo; ///< the core's; final for sync and async mechanisms (rule 1)

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

	struct xnvme_ident ident;
	struct xnvme_opts opts; ///< effective options, names point at mechanism names

	char errmsg[XNVME_ERRMSG_LEN]; ///< reason for a failed open or check_support
};

/**
 * Pokes of one queue that may run inside each other (callbacks that poke); one more reaps
 * nothing and returns 0: bounds the stack when every callback submits and pokes. The commands
 * stay queued for an enclosing poke or the next one.
 */
#define XNVME_QUEUE_POKE_DEPTH_MAX 8

/**
 * A queue as its async mechanism sees it: the mechanism's state and the counters it reads.
 * The context pool's free list and the core's copies of the entry points are not here
 * (lib/xnvme_queue.h). The members of the per-I/O path come first.
 */
struct xnvme_queue {
	uint32_t capacity; ///< commands outstanding at most; the pool has capacity + 1
	int opts;
	/*
	 * The two counters of the per-I/O path share one 64-bit word (`counts`): a poke tests
	 * "one command outstanding, no callback running" with one compare (xnvme_be_queue_lone()).
	 */
	union {
		struct {
			/** counted by the core (rule 4) and xnvme_queue_complete() */
			uint32_t outstanding;
			/**
			 * The callbacks of this queue running (xnvme_queue_complete() counts them):
			 * what a mechanism's poke reads here is the number of pokes it is nested in,
			 * 0 at the top level. Outside any poke it is 0.
			 */
			uint32_t nested;
		};
		uint64_t counts;
	};
	void *state; ///< mechanism-private, set by async->init, released by async->term
	struct xnvme_cmd_ctx *pool; ///< the capacity + 1 contexts (xnvme_queue_ctx_idx())
	struct xnvme_dev *dev;
};

/**
 * True when one command is outstanding and no callback of the queue runs (a top-level poke
 * at queue depth 1): nothing can have claimed that command, it is the one ready to reap
 */
static inline bool
xnvme_be_queue_lone(const struct xnvme_queue *queue)
{
	const union {
		struct {
			uint32_t outstanding, nested;
		} c;
		uint64_t w;
	} lone = {.c = {.outstanding = 1, .nested = 0}};

	return queue->counts == lone.w;
}

/**
 * After xnvme_be_queue_lone(): the lone command is no longer outstanding and its callback is
 * about to run, the counts go from (1, 0) to (0, 1); a shift of the word moves the 1 from one
 * half to the other
 */
static inline void
xnvme_be_queue_lone_to_cb(struct xnvme_queue *queue)
{
	XNVME_BE_REFETCH(queue->counts); /* a shift of memory, not a constant built and stored */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	queue->counts >>= 32;
#else
	queue->counts <<= 32;
#endif
}

/** The state the core allocated with the queue (xnvme_be_async.state_nbytes), 8-byte aligned */
static inline void *
xnvme_be_queue_state(struct xnvme_queue *queue)
{
	return queue + 1;
}

/** Index of a pooled context in its queue's pool (0..capacity) */
static inline uint32_t
xnvme_queue_ctx_idx(const struct xnvme_queue *queue, const struct xnvme_cmd_ctx *ctx)
{
	return (uint32_t)(ctx - queue->pool);
}

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
 * xnvme_queue_complete() inside a batch whose caller raised queue->nested by one around all
 * of the batch's callbacks (nested++ before the first, nested-- after the last)
 */
static inline void
xnvme_queue_complete_in_batch(struct xnvme_queue *queue, struct xnvme_cmd_ctx *ctx)
{
	/* one subtract from memory: without it gcc pairs this with the caller's nested++ into a
	 * vector add of the two adjacent counters (load, add, store and a constant) */
	XNVME_BE_REFETCH(queue->outstanding);
	queue->outstanding--;
	ctx->async.cb(ctx, ctx->async.cb_arg);
}

/**
 * Completes a reaped context whose cpl is final: count it and run its callback, inside which
 * queue->nested is one higher (drain/term refuse, nested pokes are bounded by it). Pokes
 * themselves do not count, so xnvme_queue_poke() hands over to the mechanism with a
 * tail call.
 */
static inline void
xnvme_queue_complete(struct xnvme_queue *queue, struct xnvme_cmd_ctx *ctx)
{
	XNVME_BE_REFETCH(queue->nested); /* one add to memory, whatever the poke read before */
	queue->nested++;
	xnvme_queue_complete_in_batch(queue, ctx);
	queue->nested--;
}

/**
 * The tests rule 5 asks of a poke, for a mechanism that has no cheaper equivalent: true when
 * the poke must return 0 at once (nothing outstanding: never wait; or more than
 * XNVME_QUEUE_POKE_DEPTH_MAX pokes nested)
 */
static inline bool
xnvme_be_poke_skip(const struct xnvme_queue *queue)
{
	return !queue->outstanding || queue->nested >= XNVME_QUEUE_POKE_DEPTH_MAX;
}

/** Rule 4: refuses a command the core counted (takes the count back); returns err */
static inline int
xnvme_be_cmd_refused(struct xnvme_cmd_ctx *ctx, int err)
{
	ctx->async.queue->outstanding--;
	return err;
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
 * hold XNVME_QUEUE_POKE_SPIN): mechanisms that can wait in the kernel (io_uring, libaio) or on
 * their workers (thrpool) then return 0 at once from every poke that finds nothing ready, as
 * busy-polling callers with latency targets want. Otherwise the second poke in a row that
 * finds nothing waits up to XNVME_BE_POKE_WAIT_NS for one completion.
 */
static inline bool
xnvme_be_queue_poke_spin(int opts)
{
	return opts & XNVME_QUEUE_POKE_SPIN;
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

/** The uri_claim of a backend of paths: every URI is a path to it (XNVME_BE_URI_PATH) */
static inline enum xnvme_be_uri_claim
xnvme_be_uri_claim_path(const char *uri)
{
	(void)uri;
	return XNVME_BE_URI_PATH;
}

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

/**
 * Payload size of a command whose transfer size is defined by the command itself (DSM range
 * list, Simple Copy source ranges), else `given`. Clients pass the LBA-range size for DSM.
 */
size_t
xnvme_cmd_payload_nbytes(const struct xnvme_cmd_ctx *ctx, size_t given);

/** Mechanisms of lib/be/common/, for any backend whose lists want them */
extern const struct xnvme_be_mem xnvme_be_mem_posix;
extern const struct xnvme_be_mem xnvme_be_mem_hugepage;
extern const struct xnvme_be_async xnvme_be_async_emu;
extern const struct xnvme_be_async xnvme_be_async_thrpool;
extern const struct xnvme_be_async xnvme_be_async_nil;

#endif /* XNVME_BE_H */
