// SPDX-License-Identifier: BSD-3-Clause
/*
 * Opening and closing ramdisks. A URI "<N>GB[?options]" names an N GiB device (uri.c). All
 * handles of a process that open the same URI share one ramdisk (fio opens a device several
 * times, tests write, close, reopen and read), so ramdisks live in a refcounted registry keyed
 * by URI; the memory is released when the last handle closes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ramdisk.h"
#include "xnvme_plat.h"

static pthread_mutex_t g_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ramdisk *g_registry;

/* FNV-1a over the URI with a seed: stable identifiers without any global state */
static uint64_t
uri_hash(const char *uri, uint64_t seed)
{
	uint64_t hash = 0xcbf29ce484222325ULL ^ seed;

	for (; *uri; ++uri) {
		hash ^= (uint8_t)*uri;
		hash *= 0x100000001b3ULL;
	}
	return hash;
}

static void
ramdisk_destroy(struct ramdisk *rd)
{
	if (rd->ns && rd->ns->fini) {
		rd->ns->fini(rd);
	}
	xnvme_ramdisk_fdp_fini(rd);
	if (rd->mem) {
		xnvme_plat_vmem_free(rd->mem, rd->nbytes);
	}
	if (rd->meta) {
		xnvme_plat_vmem_free(rd->meta, rd->meta_nbytes);
	}
	xnvme_ramdisk_unc_fini(rd);
	xnvme_ramdisk_errlog_fini(rd);
	free(rd);
}

/* Anonymous memory reads as zeroes and is committed only when written */
static int
map_lazy(struct xnvme_dev *dev, uint64_t nbytes, uint8_t **out)
{
	void *mem;

	if (nbytes > SIZE_MAX) {
		return xnvme_dev_set_errmsg(dev, -EINVAL, "cannot map %" PRIu64 " bytes", nbytes);
	}
	mem = xnvme_plat_vmem_alloc((size_t)nbytes);
	if (!mem) {
		int err = -errno;

		return xnvme_dev_set_errmsg(dev, err, "cannot map %" PRIu64 " bytes: %s", nbytes,
					    strerror(-err));
	}
	*out = mem;
	return 0;
}

/* The LBA format: data, metadata and where the PI tuple sits in it */
static void
lbaf_init(struct ramdisk *rd)
{
	const struct ramdisk_cfg *cfg = &rd->cfg;

	rd->lba_shift = cfg->lbads;
	rd->lba_nbytes = 1U << cfg->lbads;
	rd->nlbas = rd->nbytes >> cfg->lbads;
	if (cfg->csi == XNVME_SPEC_CSI_ZONED) {
		rd->nlbas -= rd->nlbas % cfg->zsze;
	}
	if (cfg->pi) {
		rd->pi_nbytes = (uint8_t)xnvme_pi_size(cfg->pif);
		rd->pi_off = cfg->pil ? 0 : (uint16_t)(cfg->ms - rd->pi_nbytes);
		/* unwritten LBAs carry all-ones PI: the escape values that disable checking */
		memset(rd->blank + rd->pi_off, 0xFF, rd->pi_nbytes);
	}
}

static int
ramdisk_create(struct xnvme_dev *dev, const struct ramdisk_cfg *cfg, struct ramdisk **out)
{
	struct ramdisk *rd;
	uint64_t hi, lo;
	int err = 0;

	rd = calloc(1, sizeof(*rd));
	if (!rd) {
		return xnvme_dev_set_errmsg(dev, -ENOMEM, "cannot allocate ramdisk state");
	}
	rd->cfg = *cfg;
	rd->nbytes = cfg->ngib << 30;
	lbaf_init(rd);

	snprintf(rd->uri, sizeof(rd->uri), "%s", dev->ident.uri);
	clock_gettime(CLOCK_MONOTONIC, &rd->created);
	hi = uri_hash(rd->uri, 0x6e677569ULL);
	lo = uri_hash(rd->uri, 0x72616d64ULL);
	for (int i = 0; i < 8; ++i) {
		rd->nguid[i] = (uint8_t)(hi >> (56 - 8 * i));
		rd->nguid[8 + i] = (uint8_t)(lo >> (56 - 8 * i));
	}
	rd->eui64 = uri_hash(rd->uri, 0x65756936ULL);

	xnvme_ramdisk_unc_init(rd);
	xnvme_ramdisk_errlog_init(rd);
	xnvme_ramdisk_feat_init(rd);

	switch (cfg->csi) {
	case XNVME_SPEC_CSI_ZONED:
		rd->ns = &xnvme_ramdisk_ns_zoned;
		break;
	case XNVME_SPEC_CSI_KV:
		rd->ns = &xnvme_ramdisk_ns_kv;
		break;
	default:
		rd->ns = &xnvme_ramdisk_ns_nvm;
		break;
	}

	/* a key-value namespace keeps its values on the heap: no LBA memory */
	if (cfg->csi != XNVME_SPEC_CSI_KV) {
		err = map_lazy(dev, rd->nbytes, &rd->mem);
	}
	if (!err && cfg->ms) {
		rd->meta_nbytes = rd->nlbas * cfg->ms;
		err = map_lazy(dev, rd->meta_nbytes, &rd->meta);
	}
	if (!err && cfg->fdp) {
		err = xnvme_ramdisk_fdp_init(rd);
		if (err) {
			xnvme_dev_set_errmsg(dev, err, "cannot set up FDP state");
		}
	}
	if (!err && rd->ns->init) {
		err = rd->ns->init(rd, dev);
	}
	if (err) {
		ramdisk_destroy(rd);
		return err;
	}
	rd->rw_fast = rd->ns == &xnvme_ramdisk_ns_nvm && !cfg->ms && !rd->fdp;

	*out = rd;
	return 0;
}

/* Takes a reference on the ramdisk of the handle's URI, creating it on first use */
static int
ramdisk_get(struct xnvme_dev *dev, const struct ramdisk_cfg *cfg, struct ramdisk **out)
{
	struct ramdisk *rd;
	int err = 0;

	pthread_mutex_lock(&g_registry_lock);
	for (rd = g_registry; rd; rd = rd->next) {
		if (!strcmp(rd->uri, dev->ident.uri)) {
			break;
		}
	}
	if (rd) {
		rd->refcnt++;
	} else {
		err = ramdisk_create(dev, cfg, &rd);
		if (!err) {
			rd->refcnt = 1;
			rd->next = g_registry;
			g_registry = rd;
		}
	}
	pthread_mutex_unlock(&g_registry_lock);

	*out = rd;
	return err;
}

static void
ramdisk_put(struct ramdisk *rd)
{
	struct ramdisk **link;
	bool last;

	pthread_mutex_lock(&g_registry_lock);
	last = !--rd->refcnt;
	if (last) {
		for (link = &g_registry; *link; link = &(*link)->next) {
			if (*link == rd) {
				*link = rd->next;
				break;
			}
		}
	}
	pthread_mutex_unlock(&g_registry_lock);

	if (last) {
		ramdisk_destroy(rd);
	}
}

static int
ramdisk_dev_open(struct xnvme_dev *dev)
{
	struct ramdisk_cfg cfg;
	struct ramdisk *rd;
	int err;

	err = xnvme_ramdisk_uri_parse(dev, dev->ident.uri, &cfg);
	if (err) {
		return err;
	}

	err = ramdisk_get(dev, &cfg, &rd);
	if (err) {
		return err;
	}
	dev->state = rd;

	dev->ident.dtype = 5;
	dev->ident.nsid = RAMDISK_NSID;
	dev->ident.csi = rd->ns->csi;

	err = xnvme_be_pick_default(dev, "posix", "ramdisk", "ramdisk", "thrpool");
	if (err) {
		dev->state = NULL;
		ramdisk_put(rd);
		return xnvme_dev_set_errmsg(dev, err, "cannot pick default mechanisms");
	}
	return 0;
}

static void
ramdisk_dev_close(struct xnvme_dev *dev)
{
	if (!dev || !dev->state) {
		return;
	}
	ramdisk_put(dev->state);
	dev->state = NULL;
}

static int
ramdisk_enumerate(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
		  void *cb_args)
{
	(void)sys_uri;
	(void)opts;
	(void)cb_func;
	(void)cb_args;
	return -ENOSYS;
}

int
xnvme_ramdisk_check_support(struct xnvme_dev *dev)
{
	if (dev->be != &xnvme_be_ramdisk || !dev->state) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP, "the device is not a ramdisk");
	}
	return 0;
}

void
xnvme_ramdisk_mem_zero(uint8_t *base, uint64_t off, uint64_t nbytes)
{
	/*
	 * Discarded pages read as zeroes and free the memory, so deallocating a large range does
	 * not commit it. Only pages wholly inside the range are discarded: neighbouring LBAs are
	 * untouched.
	 */
	uint64_t page = (uint64_t)xnvme_plat_pagesize();

	if (page && nbytes >= 4 * page) {
		uint64_t start = (off + page - 1) & ~(page - 1);
		uint64_t end = (off + nbytes) & ~(page - 1);

		if (end > start && !xnvme_plat_vmem_discard(base + start, (size_t)(end - start))) {
			memset(base + off, 0, start - off);
			memset(base + end, 0, off + nbytes - end);
			return;
		}
	}
	memset(base + off, 0, nbytes);
}

const struct xnvme_be_dev xnvme_be_ramdisk_dev = {
	.enumerate = ramdisk_enumerate,
	.dev_open = ramdisk_dev_open,
	.dev_close = ramdisk_dev_close,
	.uri_claim = xnvme_ramdisk_uri_claim,
	.uri_forms = XNVME_RAMDISK_URI_FORMS,
};
