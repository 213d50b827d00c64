/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * The core's device (not installed; no backend includes it): the backend's view (struct
 * xnvme_dev of lib/be/xnvme_be.h) plus what only the core keeps, identification and the
 * identify data the getters hand out. lib/dev.c owns it.
 */
#ifndef XNVME_DEV_H
#define XNVME_DEV_H

#include <pthread.h>
#include "xnvme_be.h"

struct xnvme_dev_core {
	struct xnvme_dev dev; ///< first: a struct xnvme_dev * is a struct xnvme_dev_core *

	/** atomic: identification and geometry are settled (xnvme_dev_settle()), or failed */
	int settled;
	int ident_err;        ///< the identification's error
	int geo_err;          ///< the identification's error, else the derivation's
	pthread_mutex_t lock; ///< serialises settlement and re-derivation (lib/dev.c)

	struct xnvme_spec_idfy idfy_ctrlr;
	struct xnvme_spec_idfy idfy_ns;
	struct xnvme_spec_idfy idfy_ctrlr_css;
	struct xnvme_spec_idfy idfy_ns_css;

	/** copies of caller strings the options point at */
	char subnqn[256];
	char hostnqn[256];
	char adrfam[32];
	char core_mask[256];
};

static inline struct xnvme_dev_core *
xnvme_dev_core(const struct xnvme_dev *dev)
{
	return (struct xnvme_dev_core *)dev;
}

/** True once xnvme_dev_settle() ran (acquire: pairs with its release store) */
static inline bool
xnvme_dev_settled(const struct xnvme_dev *dev)
{
	return __atomic_load_n(&xnvme_dev_core(dev)->settled, __ATOMIC_ACQUIRE) != 0;
}

/**
 * Identifies the device and derives its geometry, once per handle (thread-safe); a failure is
 * remembered in geo_err and leaves the geometry zero. The places that need the geometry call it
 * before the first command can exist: the getters, xnvme_queue_init() and
 * xnvme_cmd_ctx_from_dev(). The per-I/O path and the mechanisms never do.
 */
void
xnvme_dev_settle_slow(struct xnvme_dev *dev);

static inline void
xnvme_dev_settle(struct xnvme_dev *dev)
{
	if (XNVME_BE_UNLIKELY(!xnvme_dev_settled(dev))) {
		xnvme_dev_settle_slow(dev);
	}
}

/** The geometry of identify data ctrlr/ns/ns_css of command set `csi` into `geo` (lib/geo.c) */
int
xnvme_geo_derive_from(const struct xnvme_dev *dev, const struct xnvme_spec_idfy *ctrlr,
		      const struct xnvme_spec_idfy *ns, const struct xnvme_spec_idfy *ns_css,
		      uint8_t csi, struct xnvme_geo *geo);

#endif /* XNVME_DEV_H */
