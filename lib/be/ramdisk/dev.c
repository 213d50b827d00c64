// SPDX-License-Identifier: BSD-3-Clause
/*
 * Opening and closing ramdisks. A URI "<N>GB" names an N GiB device. All handles of a process
 * that open the same URI share one ramdisk (fio opens a device several times, tests write,
 * close, reopen and read), so ramdisks live in a refcounted registry keyed by URI; the memory
 * is released when the last handle closes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ramdisk.h"

#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif

static pthread_mutex_t g_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ramdisk *g_registry;

/*
 * "<N>GB" with N a decimal number >= 1: the size in GiB, or -ENXIO for any other URI so the
 * next backend gets a chance. N too large to map is recognised but refused (-EINVAL).
 */
static int
uri_parse(const char *uri, uint64_t *ngib)
{
	const uint64_t max = (uint64_t)(SIZE_MAX >> 30) < (UINT64_MAX >> 31)
				     ? (uint64_t)(SIZE_MAX >> 30)
				     : (UINT64_MAX >> 31);
	size_t len = strlen(uri);
	uint64_t val = 0;
	bool overflow = false;

	if (len < 3 || strcmp(uri + len - 2, "GB")) {
		return -ENXIO;
	}
	for (size_t i = 0; i < len - 2; ++i) {
		if (uri[i] < '0' || uri[i] > '9') {
			return -ENXIO;
		}
		if (val > (max - 9) / 10) {
			overflow = true;
			continue;
		}
		val = val * 10 + (uint64_t)(uri[i] - '0');
	}
	if (!overflow && !val) {
		return -ENXIO;
	}
	if (overflow || val > max) {
		return -EINVAL;
	}
	*ngib = val;
	return 0;
}

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
	if (rd->mem) {
		munmap(rd->mem, rd->nbytes);
	}
	xnvme_ramdisk_unc_fini(rd);
	xnvme_ramdisk_errlog_fini(rd);
	free(rd);
}

static int
ramdisk_create(struct xnvme_dev *dev, uint64_t ngib, struct ramdisk **out)
{
	struct ramdisk *rd;
	uint64_t hi, lo;
	void *mem;

	rd = calloc(1, sizeof(*rd));
	if (!rd) {
		return xnvme_dev_set_errmsg(dev, -ENOMEM, "cannot allocate ramdisk state");
	}
	rd->nbytes = ngib << 30;
	rd->nlbas = rd->nbytes >> RAMDISK_LBA_SHIFT;

	/* Anonymous memory reads as zeroes and is committed only when written */
	mem = mmap(NULL, rd->nbytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED) {
		int err = -errno;

		free(rd);
		return xnvme_dev_set_errmsg(dev, err, "cannot map %" PRIu64 " GiB: %s", ngib,
					    strerror(-err));
	}
	rd->mem = mem;

	snprintf(rd->uri, sizeof(rd->uri), "%s", dev->ident.uri);
	rd->ns = &xnvme_ramdisk_ns_nvm;
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

	*out = rd;
	return 0;
}

/* Takes a reference on the ramdisk of the handle's URI, creating it on first use */
static int
ramdisk_get(struct xnvme_dev *dev, uint64_t ngib, struct ramdisk **out)
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
		err = ramdisk_create(dev, ngib, &rd);
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
	struct ramdisk *rd;
	uint64_t ngib = 0;
	int err;

	err = uri_parse(dev->ident.uri, &ngib);
	if (err == -EINVAL) {
		return xnvme_dev_set_errmsg(dev, err, "'%s': size too large for this system",
					    dev->ident.uri);
	}
	if (err) {
		return err;
	}

	err = ramdisk_get(dev, ngib, &rd);
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
xnvme_ramdisk_mem_zero(struct ramdisk *rd, uint64_t off, uint64_t nbytes)
{
#ifdef __linux__
	/*
	 * Dropping private anonymous pages makes them read as zeroes and frees the memory, so
	 * deallocating a large range does not commit it. Only pages wholly inside the range are
	 * dropped: neighbouring LBAs are untouched.
	 */
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	if (page && nbytes >= 4 * page) {
		uint64_t start = (off + page - 1) & ~(page - 1);
		uint64_t end = (off + nbytes) & ~(page - 1);

		if (!madvise(rd->mem + start, end - start, MADV_DONTNEED)) {
			memset(rd->mem + off, 0, start - off);
			memset(rd->mem + end, 0, off + nbytes - end);
			return;
		}
	}
#endif
	memset(rd->mem + off, 0, nbytes);
}

const struct xnvme_be_dev xnvme_be_ramdisk_dev = {
	.enumerate = ramdisk_enumerate,
	.dev_open = ramdisk_dev_open,
	.dev_close = ramdisk_dev_close,
};
