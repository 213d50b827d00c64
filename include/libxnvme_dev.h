/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Device handles: open, close, enumerate, and their properties: the namespace id and options
 * fixed at open, and the identify data, geometry and command set identified once, at first
 * need (see the getters below).
 *
 * Thread safety: one handle may be used from many threads at once (synchronous commands with
 * a context per thread, one queue per thread, the getters, xnvme_dev_derive_geo()); only
 * xnvme_dev_close() must not overlap any other use of the handle. Each function says its rule.
 */
#ifndef LIBXNVME_DEV_H
#define LIBXNVME_DEV_H

#include <stdint.h>
#include "libxnvme_geo.h"
#include "libxnvme_ident.h"
#include "libxnvme_opts.h"
#include "libxnvme_spec.h"
#include "libxnvme_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque device handle */
struct xnvme_dev;

/** What the library does with an enumerated handle after the callback returned this value */
enum xnvme_enumerate_action {
	XNVME_ENUMERATE_DEV_KEEP_OPEN = 0x0, ///< the callback owns the handle and must close it
	XNVME_ENUMERATE_DEV_CLOSE = 0x1,     ///< the library closes the handle
};

typedef int (*xnvme_enumerate_cb)(struct xnvme_dev *dev, void *cb_args);

/**
 * Opens every device found by every enabled backend (or only opts->be) and passes each to
 * cb_func; see enum xnvme_enumerate_action for ownership. sys_uri NULL means the local system.
 * Thread safety: safe to call from several threads; `opts` is only read, the callback runs on
 * the calling thread.
 * @return 0, or a negative errno on invalid arguments
 */
int
xnvme_enumerate(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
		void *cb_args);

/**
 * Re-identifies the device and recomputes its geometry (e.g. after a file grew or a namespace
 * was formatted); 0 or negative errno. The identify data and geometry are derived aside and
 * then published in place: the pointers of the getters stay valid, unchanged fields are never
 * written, and each changed field is updated with one atomic store (a concurrent reader sees
 * its old or its new value, never zero or a mix of bytes; the set of fields is not updated as
 * a whole). On failure the previous identify data and geometry are kept.
 * Thread safety: safe to call concurrently with any other use of the handle (I/O, getters,
 * other derive_geo calls, which are serialised) except xnvme_dev_close().
 */
int
xnvme_dev_derive_geo(struct xnvme_dev *dev);

/*
 * The getters below return data and pointers into the handle, valid until xnvme_dev_close().
 * Identification (the identify commands and the geometry derived from them) runs once per
 * handle, at the first of: a getter that says "identifies the device first" below,
 * xnvme_queue_init() and xnvme_cmd_ctx_from_dev(); the other threads calling at the same time
 * wait for it and all see the same result. xnvme_dev_get_nsid(), xnvme_dev_get_opts() and
 * xnvme_dev_get_be_state() return what the open fixed and never trigger it.
 * Thread safety (all getters): safe to call concurrently on one handle, with I/O and with
 * xnvme_dev_derive_geo(); once the device is identified they take no lock and issue no command.
 */

/**
 * The geometry (all zero, type unknown, when it could not be derived); identifies the device
 * first. Clients may cache the pointer for the handle's lifetime. Thread safety: see the
 * getters above.
 */
const struct xnvme_geo *
xnvme_dev_get_geo(const struct xnvme_dev *dev);

/** Identify Controller data; identifies the device first. Thread safety: see above. */
const struct xnvme_spec_idfy_ctrlr *
xnvme_dev_get_ctrlr(const struct xnvme_dev *dev);

/**
 * I/O command set specific Identify Controller data; identifies the device first.
 * Thread safety: see the getters above.
 */
const struct xnvme_spec_idfy_ctrlr *
xnvme_dev_get_ctrlr_css(const struct xnvme_dev *dev);

/** Identify Namespace data; identifies the device first. Thread safety: see above. */
const struct xnvme_spec_idfy_ns *
xnvme_dev_get_ns(const struct xnvme_dev *dev);

/**
 * I/O command set specific Identify Namespace data; identifies the device first.
 * Thread safety: see the getters above.
 */
const struct xnvme_spec_idfy_ns *
xnvme_dev_get_ns_css(const struct xnvme_dev *dev);

/**
 * Namespace identifier, fixed at open: never identifies the device, takes no lock (cheap,
 * meant for every I/O). Thread safety: see the getters above.
 */
uint32_t
xnvme_dev_get_nsid(const struct xnvme_dev *dev);

/** Command set identifier; identifies the device first. Thread safety: see above. */
uint8_t
xnvme_dev_get_csi(const struct xnvme_dev *dev);

/**
 * Identifiers (URI, type, nsid, command set); identifies the device first (the command set
 * comes from it). Thread safety: see the getters above.
 */
const struct xnvme_ident *
xnvme_dev_get_ident(const struct xnvme_dev *dev);

/**
 * The effective options, with the names of the backend and mechanisms actually in use; fixed
 * at open: never identifies the device. Thread safety: see the getters above.
 */
const struct xnvme_opts *
xnvme_dev_get_opts(const struct xnvme_dev *dev);

/**
 * The backend's private state (opaque), fixed at open: never identifies the device.
 * Thread safety: see the getters above.
 */
const void *
xnvme_dev_get_be_state(const struct xnvme_dev *dev);

/**
 * Shift converting LBAs to bytes; identifies the device first (the geometry gives it).
 * Thread safety: see the getters above.
 */
uint64_t
xnvme_dev_get_ssw(const struct xnvme_dev *dev);

/**
 * Opens a device: a path (file, block device, NVMe node), "<N>GB", an in-memory ramdisk of
 * N GiB that lives until the last handle of this process closes (never shared with other
 * processes), a PCI address (vfio) or "traddr:trsvcid" (tcp); docs/backends.md. `opts` may be
 * NULL (defaults) and is updated in place (access mode and create_mode defaults). Does not
 * issue any command.
 * When no backend opens the URI, errno and xnvme_last_error() are those of the backend owning
 * the URI's form (a path: e.g. ENOENT naming it; a size: the ramdisk's accepted form; a PCI
 * address: why vfio refused it), also when the options name a mechanism only other backends
 * lack; ENOSYS when that backend has no mechanism of a name the options give.
 * Thread safety: safe to call from several threads at once, also on the same URI (each call
 * gives its own handle; ramdisk handles of one URI share the emulated device), as long as
 * they do not pass the same `opts` object, which is written.
 * @return the handle, or NULL with errno set to a positive value naming the cause
 */
struct xnvme_dev *
xnvme_dev_open(const char *dev_uri, struct xnvme_opts *opts);

/**
 * The reason the last failed xnvme_dev_open(), xnvme_file_open() or xnvme_queue_init() of the
 * calling thread failed, as one line of text: the backend owning the URI (or "xnvme" when none
 * claimed it), what was wrong and what is accepted, e.g.
 * "ramdisk: '512MB' is not a ramdisk size; the ramdisk takes <N>GB ...".
 * Each call of those functions clears it first, so after a success it is "".
 * Additive to the xNVMe 0.7.5 API; the library itself prints nothing on these failures.
 * Thread safety: the text is per thread; the pointer stays valid in the calling thread until
 * its next call of one of those functions.
 * @return a NUL-terminated string, never NULL; "" when the last call succeeded or none was made
 */
const char *
xnvme_last_error(void);

/**
 * Releases the handle; NULL is a no-op. Queues and buffers must be released first.
 * Thread safety: not concurrently with any other use of this handle: every other thread must
 * be done with it (and with the pointers its getters returned) before it is closed.
 */
void
xnvme_dev_close(struct xnvme_dev *dev);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_DEV_H */
