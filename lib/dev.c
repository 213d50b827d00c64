// SPDX-License-Identifier: BSD-3-Clause
/*
 * Device handles: open/close, lazy identification and the getters. Identification and
 * geometry derivation happen once per handle, on the first getter that needs them; the fast
 * path afterwards is one acquire load.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xnvme_be.h"

int
xnvme_geo_derive(struct xnvme_dev *dev);

struct xnvme_dev *
xnvme_dev_open(const char *dev_uri, struct xnvme_opts *opts)
{
	struct xnvme_opts defaults;
	struct xnvme_dev *dev;
	int err;

	if (!dev_uri) {
		errno = EINVAL;
		return NULL;
	}
	if (strnlen(dev_uri, XNVME_IDENT_URI_LEN) >= XNVME_IDENT_URI_LEN) {
		fprintf(stderr, "# xnvme_dev_open: URI longer than %d characters\n",
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

	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&dev->lock, NULL);

	err = xnvme_be_open(dev, dev_uri, opts);
	if (err) {
		fprintf(stderr, "# xnvme_dev_open('%s'): %s\n", dev_uri, dev->errmsg);
		pthread_mutex_destroy(&dev->lock);
		free(dev);
		errno = -err;
		return NULL;
	}

	return dev;
}

void
xnvme_dev_close(struct xnvme_dev *dev)
{
	if (!dev) {
		return;
	}
	dev->be->dev->dev_close(dev);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

/* Identify through the admin path with a synchronous context into a device buffer */
static int
idfy(struct xnvme_dev *dev, uint8_t cns, uint32_t nsid, uint8_t csi, struct xnvme_spec_idfy *dst)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
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
probe_css(struct xnvme_dev *dev)
{
	uint32_t nsid = dev->ident.nsid;
	struct xnvme_spec_idfy ctrlr, ns;

	if (!idfy(dev, XNVME_SPEC_IDFY_CTRLR_IOCS, 0, XNVME_SPEC_CSI_ZONED, &ctrlr) &&
	    !idfy(dev, XNVME_SPEC_IDFY_NS_IOCS, nsid, XNVME_SPEC_CSI_ZONED, &ns)) {
		const struct xnvme_spec_znd_idfy_ns *zns = (void *)&ns;

		if (zns->lbafe[0].zsze) {
			dev->idfy_ctrlr_css = ctrlr;
			dev->idfy_ns_css = ns;
			dev->ident.csi = XNVME_SPEC_CSI_ZONED;
			return;
		}
	}
	if (!idfy(dev, XNVME_SPEC_IDFY_CTRLR_IOCS, 0, XNVME_SPEC_CSI_FS, &ctrlr) &&
	    !idfy(dev, XNVME_SPEC_IDFY_NS_IOCS, nsid, XNVME_SPEC_CSI_FS, &ns)) {
		const struct xnvme_spec_fs_idfy_ctrlr *fctrlr = (void *)&ctrlr;
		const struct xnvme_spec_fs_idfy_ns *fns = (void *)&ns;

		if (fctrlr->ac == 0xAC && fctrlr->dc == 0xDC && fns->ac == 0xAC &&
		    fns->dc == 0xDC && fns->nsze && fns->ncap) {
			dev->idfy_ctrlr_css = ctrlr;
			dev->idfy_ns_css = ns;
			dev->ident.csi = XNVME_SPEC_CSI_FS;
			return;
		}
	}
	if (!idfy(dev, XNVME_SPEC_IDFY_NS_IOCS, nsid, XNVME_SPEC_CSI_KV, &ns)) {
		const struct xnvme_spec_kvs_idfy_ns *kns = (void *)&ns;

		/* a KV namespace answers its own command set with a non-zero size */
		if (kns->nsze && kns->nkvf) {
			memset(&dev->idfy_ctrlr_css, 0, sizeof(dev->idfy_ctrlr_css));
			idfy(dev, XNVME_SPEC_IDFY_CTRLR_IOCS, 0, XNVME_SPEC_CSI_KV,
			     &dev->idfy_ctrlr_css);
			dev->idfy_ns_css = ns;
			dev->ident.csi = XNVME_SPEC_CSI_KV;
			return;
		}
	}
	if (!idfy(dev, XNVME_SPEC_IDFY_CTRLR_IOCS, 0, XNVME_SPEC_CSI_NVM, &ctrlr) &&
	    !idfy(dev, XNVME_SPEC_IDFY_NS_IOCS, nsid, XNVME_SPEC_CSI_NVM, &ns)) {
		dev->idfy_ctrlr_css = ctrlr;
		dev->idfy_ns_css = ns;
		dev->ident.csi = XNVME_SPEC_CSI_NVM;
	}
}

static int
identify(struct xnvme_dev *dev)
{
	int err;

	memset(&dev->idfy_ctrlr, 0, sizeof(dev->idfy_ctrlr));
	memset(&dev->idfy_ns, 0, sizeof(dev->idfy_ns));
	memset(&dev->idfy_ctrlr_css, 0, sizeof(dev->idfy_ctrlr_css));
	memset(&dev->idfy_ns_css, 0, sizeof(dev->idfy_ns_css));

	err = idfy(dev, XNVME_SPEC_IDFY_CTRLR, 0, 0, &dev->idfy_ctrlr);
	if (err) {
		return err;
	}
	memcpy(dev->ident.subnqn, dev->idfy_ctrlr.ctrlr.subnqn, sizeof(dev->ident.subnqn));
	dev->ident.subnqn[sizeof(dev->ident.subnqn) - 1] = '\0';

	if (dev->ident.dtype == 1) {
		return 0;
	}

	err = idfy(dev, XNVME_SPEC_IDFY_NS, dev->ident.nsid, 0, &dev->idfy_ns);
	if (err) {
		return err;
	}
	probe_css(dev);
	return 0;
}

int
xnvme_dev_ensure_ident(struct xnvme_dev *dev)
{
	if (__atomic_load_n(&dev->ident_done, __ATOMIC_ACQUIRE)) {
		return dev->ident_err;
	}
	pthread_mutex_lock(&dev->lock);
	if (!dev->ident_done) {
		dev->ident_err = identify(dev);
		__atomic_store_n(&dev->ident_done, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&dev->lock);
	return dev->ident_err;
}

int
xnvme_dev_ensure_geo(struct xnvme_dev *dev)
{
	if (__atomic_load_n(&dev->geo_done, __ATOMIC_ACQUIRE)) {
		return dev->geo_err;
	}
	xnvme_dev_ensure_ident(dev);
	pthread_mutex_lock(&dev->lock);
	if (!dev->geo_done) {
		dev->geo_err = dev->ident_err ? dev->ident_err : xnvme_geo_derive(dev);
		__atomic_store_n(&dev->geo_done, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&dev->lock);
	return dev->geo_err;
}

int
xnvme_dev_derive_geo(struct xnvme_dev *dev)
{
	int err;

	if (!dev) {
		return -EINVAL;
	}
	pthread_mutex_lock(&dev->lock);
	err = identify(dev);
	dev->ident_err = err;
	__atomic_store_n(&dev->ident_done, 1, __ATOMIC_RELEASE);
	if (!err) {
		err = xnvme_geo_derive(dev);
	}
	dev->geo_err = err;
	__atomic_store_n(&dev->geo_done, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&dev->lock);
	return err;
}

/* The getters take a const handle (API); identification fills caches inside it */
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
	if (XNVME_BE_UNLIKELY(!xnvme_dev_geo_ready(dev))) {
		xnvme_dev_ensure_geo(mut(dev));
	}
	return &dev->geo;
}

const struct xnvme_spec_idfy_ctrlr *
xnvme_dev_get_ctrlr(const struct xnvme_dev *dev)
{
	if (!dev) {
		return NULL;
	}
	xnvme_dev_ensure_ident(mut(dev));
	return &dev->idfy_ctrlr.ctrlr;
}

const struct xnvme_spec_idfy_ctrlr *
xnvme_dev_get_ctrlr_css(const struct xnvme_dev *dev)
{
	if (!dev) {
		return NULL;
	}
	xnvme_dev_ensure_ident(mut(dev));
	return &dev->idfy_ctrlr_css.ctrlr;
}

const struct xnvme_spec_idfy_ns *
xnvme_dev_get_ns(const struct xnvme_dev *dev)
{
	if (!dev) {
		return NULL;
	}
	xnvme_dev_ensure_ident(mut(dev));
	return &dev->idfy_ns.ns;
}

const struct xnvme_spec_idfy_ns *
xnvme_dev_get_ns_css(const struct xnvme_dev *dev)
{
	if (!dev) {
		return NULL;
	}
	xnvme_dev_ensure_ident(mut(dev));
	return &dev->idfy_ns_css.ns;
}

uint32_t
xnvme_dev_get_nsid(const struct xnvme_dev *dev)
{
	if (!dev) {
		return 0;
	}
	if (XNVME_BE_UNLIKELY(!xnvme_dev_ident_ready(dev))) {
		xnvme_dev_ensure_ident(mut(dev));
	}
	return dev->ident.nsid;
}

uint8_t
xnvme_dev_get_csi(const struct xnvme_dev *dev)
{
	if (!dev) {
		return 0xFF;
	}
	xnvme_dev_ensure_ident(mut(dev));
	return dev->ident.csi;
}

const struct xnvme_ident *
xnvme_dev_get_ident(const struct xnvme_dev *dev)
{
	if (!dev) {
		return NULL;
	}
	xnvme_dev_ensure_ident(mut(dev));
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
	if (XNVME_BE_UNLIKELY(!xnvme_dev_geo_ready(dev))) {
		xnvme_dev_ensure_geo(mut(dev));
	}
	return dev->geo.ssw;
}
