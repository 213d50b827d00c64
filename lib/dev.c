// SPDX-License-Identifier: BSD-3-Clause
/*
 * Device handles: open/close, identification and the getters. Opening stays cheap (a
 * backend's open and the mechanisms' checks); identification and geometry derivation happen
 * once per handle (xnvme_dev_settle()), at the first getter, queue or synchronous context of
 * the device, which are what commands need first: the per-I/O path and the mechanisms only
 * read the result. The check afterwards is one acquire load.
 *
 * xnvme_dev_derive_geo() runs while other threads use the handle and read the identify data
 * and geometry through pointers they cached, as clients do. So it identifies and derives into
 * scratch memory, and only then, under the handle's lock, publishes into the handle the 8-byte
 * words that differ, each with one atomic store: a reader never sees a zeroed or half-written
 * field, and when nothing changed (the usual case) nothing is written at all.
 * A failed re-derivation leaves the last good identification and geometry in place.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xnvme_dev.h"
#include "xnvme_registry.h"

/* The results of one identification, built away from the handle and then published into it */
struct idfy_set {
	struct xnvme_spec_idfy ctrlr;
	struct xnvme_spec_idfy ns;
	struct xnvme_spec_idfy ctrlr_css;
	struct xnvme_spec_idfy ns_css;
	char subnqn[XNVME_SIZEOF_MEMBER(struct xnvme_ident, subnqn)];
	uint8_t csi;
	struct xnvme_geo geo;
};

/* Publication stores whole aligned words; every geometry field lies within one of them */
typedef uint64_t __attribute__((may_alias)) pub_word;
_Static_assert(_Alignof(struct xnvme_spec_idfy) >= sizeof(pub_word), "idfy alignment");
_Static_assert(sizeof(struct xnvme_geo) % sizeof(pub_word) == 0, "geo size");

/* Per thread, so that concurrent opens report their own reasons */
static _Thread_local char g_last_error[XNVME_ERRMSG_LEN + 64];

const char *
xnvme_last_error(void)
{
	return g_last_error;
}

void
xnvme_last_error_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g_last_error, sizeof(g_last_error), fmt, ap);
	va_end(ap);
}

struct xnvme_dev *
xnvme_dev_open(const char *dev_uri, struct xnvme_opts *opts)
{
	struct xnvme_opts defaults;
	struct xnvme_dev_core *dc;
	int err;

	xnvme_last_error_set("%s", "");
	if (!dev_uri) {
		xnvme_last_error_set("xnvme: no URI given (dev_uri is NULL)");
		errno = EINVAL;
		return NULL;
	}
	if (strnlen(dev_uri, XNVME_IDENT_URI_LEN) >= XNVME_IDENT_URI_LEN) {
		xnvme_last_error_set("xnvme: URI longer than %d characters",
				     XNVME_IDENT_URI_LEN - 1);
		errno = EINVAL;
		return NULL;
	}
	if (!opts) {
		defaults = xnvme_opts_default();
		opts = &defaults;
	}
	if (!opts->rdonly && !opts->wronly && !opts->rdwr) {
		opts->rdwr = 1;
	}
	if (opts->create && !opts->create_mode) {
		opts->create_mode = 0600;
	}

	dc = calloc(1, sizeof(*dc));
	if (!dc) {
		xnvme_last_error_set("xnvme: out of memory for the device handle");
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&dc->lock, NULL);

	err = xnvme_be_open(&dc->dev, dev_uri, opts);
	if (err) {
		xnvme_last_error_set("%s", dc->dev.errmsg);
		pthread_mutex_destroy(&dc->lock);
		free(dc);
		errno = -err;
		return NULL;
	}

	return &dc->dev;
}

void
xnvme_dev_close(struct xnvme_dev *dev)
{
	if (!dev) {
		return;
	}
	dev->be->dev->dev_close(dev);
	pthread_mutex_destroy(&xnvme_dev_core(dev)->lock);
	free(xnvme_dev_core(dev));
}

/* Identify through the admin path with a synchronous context into a device buffer */
static int
idfy(struct xnvme_dev *dev, uint8_t cns, uint32_t nsid, uint8_t csi, struct xnvme_spec_idfy *dst)
{
	struct xnvme_cmd_ctx ctx = {.dev = dev, .opts = XNVME_CMD_SYNC}; /* not through the
									   * settling ctx_from_dev */
	struct xnvme_spec_idfy *buf;
	int err;

	buf = xnvme_buf_alloc(dev, sizeof(*buf));
	if (!buf) {
		return -errno;
	}
	memset(buf, 0, sizeof(*buf));

	ctx.cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	ctx.cmd.common.nsid = nsid;
	ctx.cmd.idfy.cns = cns;
	ctx.cmd.idfy.csi = csi;

	err = xnvme_cmd_pass_admin(&ctx, buf, sizeof(*buf), NULL, 0);
	if (!err && xnvme_cmd_ctx_cpl_status(&ctx)) {
		err = -EIO;
	}
	if (!err) {
		memcpy(dst, buf, sizeof(*dst));
	}
	xnvme_buf_free(dev, buf);
	return err;
}

/* Command-set probing: failures are tolerated and leave the css data zeroed */
static void
probe_css(struct xnvme_dev *dev, struct idfy_set *set)
{
	uint32_t nsid = dev->ident.nsid;
	struct xnvme_spec_idfy ctrlr, ns;

	if (!idfy(dev, XNVME_SPEC_IDFY_CTRLR_IOCS, 0, XNVME_SPEC_CSI_ZONED, &ctrlr) &&
	    !idfy(dev, XNVME_SPEC_IDFY_NS_IOCS, nsid, XNVME_SPEC_CSI_ZONED, &ns)) {
		const struct xnvme_spec_znd_idfy_ns *zns = (void *)&ns;

		if (zns->lbafe[0].zsze) {
			set->ctrlr_css = ctrlr;
			set->ns_css = ns;
			set->csi = XNVME_SPEC_CSI_ZONED;
			return;
		}
	}
	if (!idfy(dev, XNVME_SPEC_IDFY_CTRLR_IOCS, 0, XNVME_SPEC_CSI_FS, &ctrlr) &&
	    !idfy(dev, XNVME_SPEC_IDFY_NS_IOCS, nsid, XNVME_SPEC_CSI_FS, &ns)) {
		const struct xnvme_spec_fs_idfy_ctrlr *fctrlr = (void *)&ctrlr;
		const struct xnvme_spec_fs_idfy_ns *fns = (void *)&ns;

		if (fctrlr->ac == 0xAC && fctrlr->dc == 0xDC && fns->ac == 0xAC &&
		    fns->dc == 0xDC && fns->nsze && fns->ncap) {
			set->ctrlr_css = ctrlr;
			set->ns_css = ns;
			set->csi = XNVME_SPEC_CSI_FS;
			return;
		}
	}
	if (!idfy(dev, XNVME_SPEC_IDFY_NS_IOCS, nsid, XNVME_SPEC_CSI_KV, &ns)) {
		const struct xnvme_spec_kvs_idfy_ns *kns = (void *)&ns;

		/* a KV namespace answers its own command set with a non-zero size */
		if (kns->nsze && kns->nkvf) {
			memset(&set->ctrlr_css, 0, sizeof(set->ctrlr_css));
			idfy(dev, XNVME_SPEC_IDFY_CTRLR_IOCS, 0, XNVME_SPEC_CSI_KV,
			     &set->ctrlr_css);
			set->ns_css = ns;
			set->csi = XNVME_SPEC_CSI_KV;
			return;
		}
	}
	if (!idfy(dev, XNVME_SPEC_IDFY_CTRLR_IOCS, 0, XNVME_SPEC_CSI_NVM, &ctrlr) &&
	    !idfy(dev, XNVME_SPEC_IDFY_NS_IOCS, nsid, XNVME_SPEC_CSI_NVM, &ns)) {
		set->ctrlr_css = ctrlr;
		set->ns_css = ns;
		set->csi = XNVME_SPEC_CSI_NVM;
	}
}

/*
 * Identifies the device into `set` (zero-filled by the caller), touching nothing in the handle
 * but the admin path. The command set stays the one the backend's open found unless a probe
 * answers.
 */
static int
identify(struct xnvme_dev *dev, struct idfy_set *set)
{
	int err;

	set->csi = dev->ident.csi;
	err = idfy(dev, XNVME_SPEC_IDFY_CTRLR, 0, 0, &set->ctrlr);
	if (err) {
		return err;
	}
	memcpy(set->subnqn, set->ctrlr.ctrlr.subnqn, sizeof(set->subnqn));
	set->subnqn[sizeof(set->subnqn) - 1] = '\0';

	if (dev->ident.dtype == 1) {
		return 0;
	}

	err = idfy(dev, XNVME_SPEC_IDFY_NS, dev->ident.nsid, 0, &set->ns);
	if (err) {
		return err;
	}
	probe_css(dev, set);
	return 0;
}

/*
 * Copies `src` over `dst` storing only the aligned 8-byte words that differ, each with one
 * relaxed atomic store, so a concurrent reader of `dst` sees every word either old or new.
 * The handle's lock held: the only writer.
 */
static void
publish_words(void *dst, const void *src, size_t nbytes)
{
	pub_word *d = dst;
	const pub_word *s = src;

	for (size_t i = 0; i < nbytes / sizeof(pub_word); ++i) {
		if (d[i] != s[i]) {
			__atomic_store_n(&d[i], s[i], __ATOMIC_RELAXED);
		}
	}
}

/* publish_words() for byte-sized data (the ident's subnqn and csi need no wider stores) */
static void
publish_bytes(void *dst, const void *src, size_t nbytes)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	for (size_t i = 0; i < nbytes; ++i) {
		if (d[i] != s[i]) {
			__atomic_store_n(&d[i], s[i], __ATOMIC_RELAXED);
		}
	}
}

static void
publish_int(int *dst, int val)
{
	if (__atomic_load_n(dst, __ATOMIC_RELAXED) != val) {
		__atomic_store_n(dst, val, __ATOMIC_RELAXED);
	}
}

/* Makes the identification in `set` the handle's (dc->lock held) */
static void
publish_ident(struct xnvme_dev_core *dc, const struct idfy_set *set, int err)
{
	publish_words(&dc->idfy_ctrlr, &set->ctrlr, sizeof(set->ctrlr));
	publish_words(&dc->idfy_ns, &set->ns, sizeof(set->ns));
	publish_words(&dc->idfy_ctrlr_css, &set->ctrlr_css, sizeof(set->ctrlr_css));
	publish_words(&dc->idfy_ns_css, &set->ns_css, sizeof(set->ns_css));
	publish_bytes(dc->dev.ident.subnqn, set->subnqn, sizeof(set->subnqn));
	publish_bytes(&dc->dev.ident.csi, &set->csi, sizeof(set->csi));
	publish_int(&dc->ident_err, err);
}

/* Makes `geo` the handle's geometry and marks the handle settled (dc->lock held) */
static void
publish_geo(struct xnvme_dev_core *dc, const struct xnvme_geo *geo, int err)
{
	publish_words(&dc->dev.geo, geo, sizeof(*geo));
	publish_int(&dc->geo_err, err);
	__atomic_store_n(&dc->settled, 1, __ATOMIC_RELEASE);
}

void
xnvme_dev_settle_slow(struct xnvme_dev *dev)
{
	struct xnvme_dev_core *dc = xnvme_dev_core(dev);

	pthread_mutex_lock(&dc->lock);
	if (!dc->settled) {
		/* built in scratch and published like a re-derivation: the words of the zeroed
		 * handle that differ, then `settled` (release) */
		struct idfy_set *set = calloc(1, sizeof(*set));
		int err = set ? identify(dev, set) : -ENOMEM;

		if (set) {
			/* what a failed first identification got stays, as the original's */
			publish_ident(dc, set, err);
			if (!err) {
				err = xnvme_geo_derive_from(dev, &set->ctrlr, &set->ns,
							    &set->ns_css, set->csi, &set->geo);
				if (err) {
					memset(&set->geo, 0, sizeof(set->geo));
				}
			}
			publish_geo(dc, &set->geo, err);
		} else {
			publish_int(&dc->ident_err, err);
			publish_int(&dc->geo_err, err);
			__atomic_store_n(&dc->settled, 1, __ATOMIC_RELEASE);
		}
		free(set);
	}
	pthread_mutex_unlock(&dc->lock);
}

int
xnvme_dev_derive_geo(struct xnvme_dev *dev)
{
	struct xnvme_dev_core *dc;
	struct idfy_set *set;
	bool had_ident, had_geo;
	int err;

	if (!dev) {
		return -EINVAL;
	}
	dc = xnvme_dev_core(dev);
	set = calloc(1, sizeof(*set));
	if (!set) {
		return -ENOMEM;
	}
	pthread_mutex_lock(&dc->lock);
	had_ident = dc->settled && !dc->ident_err;
	had_geo = dc->settled && !dc->geo_err;

	/* a failure keeps the last good identification and geometry: I/O goes on with them */
	err = identify(dev, set);
	if (err) {
		if (!had_ident) {
			publish_ident(dc, set, err);
			publish_geo(dc, &set->geo, err); /* all zero */
		}
	} else {
		err = xnvme_geo_derive_from(dev, &set->ctrlr, &set->ns, &set->ns_css, set->csi,
					    &set->geo);
		if (err) {
			memset(&set->geo, 0,
			       sizeof(set->geo)); /* all zero, as a failed first one */
		}
		if (!err || !had_geo) {
			publish_ident(dc, set, 0);
			publish_geo(dc, &set->geo, err);
		}
	}
	pthread_mutex_unlock(&dc->lock);
	free(set);
	return err;
}

/* The getters take a const handle (API); settling fills caches inside it */
static struct xnvme_dev *
mut(const struct xnvme_dev *dev)
{
	return (struct xnvme_dev *)dev;
}

const struct xnvme_geo *
xnvme_dev_get_geo(const struct xnvme_dev *dev)
{
	if (!dev) {
		return NULL;
	}
	xnvme_dev_settle(mut(dev));
	return &dev->geo;
}

const struct xnvme_spec_idfy_ctrlr *
xnvme_dev_get_ctrlr(const struct xnvme_dev *dev)
{
	if (!dev) {
		return NULL;
	}
	xnvme_dev_settle(mut(dev));
	return &xnvme_dev_core(dev)->idfy_ctrlr.ctrlr;
}

const struct xnvme_spec_idfy_ctrlr *
xnvme_dev_get_ctrlr_css(const struct xnvme_dev *dev)
{
	if (!dev) {
		return NULL;
	}
	xnvme_dev_settle(mut(dev));
	return &xnvme_dev_core(dev)->idfy_ctrlr_css.ctrlr;
}

const struct xnvme_spec_idfy_ns *
xnvme_dev_get_ns(const struct xnvme_dev *dev)
{
	if (!dev) {
		return NULL;
	}
	xnvme_dev_settle(mut(dev));
	return &xnvme_dev_core(dev)->idfy_ns.ns;
}

const struct xnvme_spec_idfy_ns *
xnvme_dev_get_ns_css(const struct xnvme_dev *dev)
{
	if (!dev) {
		return NULL;
	}
	xnvme_dev_settle(mut(dev));
	return &xnvme_dev_core(dev)->idfy_ns_css.ns;
}

/* The namespace id is the open's, identification never changes it: nothing to settle (fio
 * asks for it with every command) */
uint32_t
xnvme_dev_get_nsid(const struct xnvme_dev *dev)
{
	return dev ? dev->ident.nsid : 0;
}

uint8_t
xnvme_dev_get_csi(const struct xnvme_dev *dev)
{
	if (!dev) {
		return 0xFF;
	}
	xnvme_dev_settle(mut(dev));
	return dev->ident.csi;
}

const struct xnvme_ident *
xnvme_dev_get_ident(const struct xnvme_dev *dev)
{
	if (!dev) {
		return NULL;
	}
	xnvme_dev_settle(mut(dev));
	return &dev->ident;
}

const struct xnvme_opts *
xnvme_dev_get_opts(const struct xnvme_dev *dev)
{
	return dev ? &dev->opts : NULL;
}

const void *
xnvme_dev_get_be_state(const struct xnvme_dev *dev)
{
	return dev ? dev->state : NULL;
}

uint64_t
xnvme_dev_get_ssw(const struct xnvme_dev *dev)
{
	if (!dev) {
		return 0;
	}
	xnvme_dev_settle(mut(dev));
	return dev->geo.ssw;
}
