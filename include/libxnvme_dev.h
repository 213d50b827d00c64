/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Device handles: open, close, enumerate, and lazily identified properties (identify data,
 * geometry, namespace id, command set).
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
 * @return 0, or a negative errno on invalid arguments
 */
int
xnvme_enumerate(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func, void *cb_args);

/** Re-identifies the device and recomputes its geometry; 0 or negative errno */
int
xnvme_dev_derive_geo(struct xnvme_dev *dev);

const struct xnvme_geo *
xnvme_dev_get_geo(const struct xnvme_dev *dev);

const struct xnvme_spec_idfy_ctrlr *
xnvme_dev_get_ctrlr(const struct xnvme_dev *dev);

const struct xnvme_spec_idfy_ctrlr *
xnvme_dev_get_ctrlr_css(const struct xnvme_dev *dev);

const struct xnvme_spec_idfy_ns *
xnvme_dev_get_ns(const struct xnvme_dev *dev);

const struct xnvme_spec_idfy_ns *
xnvme_dev_get_ns_css(const struct xnvme_dev *dev);

uint32_t
xnvme_dev_get_nsid(const struct xnvme_dev *dev);

uint8_t
xnvme_dev_get_csi(const struct xnvme_dev *dev);

const struct xnvme_ident *
xnvme_dev_get_ident(const struct xnvme_dev *dev);

/** The effective options, with the names of the backend and mechanisms actually in use */
const struct xnvme_opts *
xnvme_dev_get_opts(const struct xnvme_dev *dev);

const void *
xnvme_dev_get_be_state(const struct xnvme_dev *dev);

/** Shift converting LBAs to bytes (derives the geometry first when needed) */
uint64_t
xnvme_dev_get_ssw(const struct xnvme_dev *dev);

/**
 * Opens a device. `opts` may be NULL (defaults) and is updated in place (access mode and
 * create_mode defaults). Does not issue any command.
 * @return the handle, or NULL with errno set to a positive value naming the cause
 */
struct xnvme_dev *
xnvme_dev_open(const char *dev_uri, struct xnvme_opts *opts);

/** Releases the handle; NULL is a no-op. Queues and buffers must be released first. */
void
xnvme_dev_close(struct xnvme_dev *dev);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_DEV_H */
