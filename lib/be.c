// SPDX-License-Identifier: BSD-3-Clause
/*
 * Backend registry and mechanism selection. Backends not built for this platform stay in the
 * registry (enabled = false) so that their names are known and reported.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "xnvme_be.h"

static const struct xnvme_be xnvme_be_spdk = {.name = "spdk", .enabled = false};
static const struct xnvme_be xnvme_be_fbsd = {.name = "fbsd", .enabled = false};
static const struct xnvme_be xnvme_be_macos = {.name = "macos", .enabled = false};

const struct xnvme_be *const xnvme_be_registry[] = {
	&xnvme_be_spdk,    &xnvme_be_linux, &xnvme_be_fbsd, &xnvme_be_macos, &xnvme_be_windows,
	&xnvme_be_ramdisk, &xnvme_be_vfio,  &xnvme_be_tcp,  &xnvme_be_rdma,
};
const int xnvme_be_registry_len = sizeof(xnvme_be_registry) / sizeof(xnvme_be_registry[0]);

int
xnvme_be_attr_list_bundled(struct xnvme_be_attr_list **list)
{
	size_t nbytes = sizeof(**list) + xnvme_be_registry_len * sizeof((*list)->item[0]);

	if (!list) {
		return -EINVAL;
	}
	*list = xnvme_buf_virt_alloc(512, nbytes);
	if (!*list) {
		return -ENOMEM;
	}
	memset(*list, 0, nbytes);
	(*list)->capacity = xnvme_be_registry_len;
	(*list)->count = xnvme_be_registry_len;
	for (int i = 0; i < xnvme_be_registry_len; ++i) {
		(*list)->item[i].name = xnvme_be_registry[i]->name;
		(*list)->item[i].enabled = xnvme_be_registry[i]->enabled;
	}
	return 0;
}

int
xnvme_dev_set_errmsg(struct xnvme_dev *dev, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dev->errmsg, sizeof(dev->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

/* Mechanism lists share a layout: a NULL-terminated array of pointers to structs whose first
 * member is the name. */
static const void *
mech_find(const void *const *list, const char *name)
{
	for (; list && *list; ++list) {
		if (!strcmp(*(const char *const *)*list, name)) {
			return *list;
		}
	}
	return NULL;
}

int
xnvme_be_pick_default(struct xnvme_dev *dev, const char *mem, const char *admin, const char *sync,
		      const char *async)
{
	const struct xnvme_be *be = dev->be;

	if (!dev->mem && mem && !(dev->mem = mech_find((const void *const *)be->mem, mem))) {
		return -ENOSYS;
	}
	if (!dev->admin && admin &&
	    !(dev->admin = mech_find((const void *const *)be->admin, admin))) {
		return -ENOSYS;
	}
	if (!dev->sync && sync && !(dev->sync = mech_find((const void *const *)be->sync, sync))) {
		return -ENOSYS;
	}
	if (!dev->async && async &&
	    !(dev->async = mech_find((const void *const *)be->async, async))) {
		return -ENOSYS;
	}
	return 0;
}

/* Ranks open failures: the most specific one is reported. "Not my URI" ranks lowest, a missing
 * path next, a backend that lacks a named mechanism next, and a backend that recognised the
 * URI and failed (EACCES, a mechanism that cannot serve the device, ...) highest. */
enum open_rank {
	RANK_NOT_MINE = 0,
	RANK_NOENT = 1,
	RANK_NO_MECH = 2,
	RANK_FAILED = 3,
};

struct open_verdict {
	int err;
	enum open_rank rank;
	char msg[XNVME_ERRMSG_LEN];
};

static void
verdict_offer(struct open_verdict *best, int err, enum open_rank rank, const char *be_name,
	      const char *msg)
{
	/* no backend has the named mechanism: list what each one offers, as any may own the URI */
	if (best->err && rank == RANK_NO_MECH && best->rank == RANK_NO_MECH) {
		size_t used = strlen(best->msg);

		snprintf(best->msg + used, sizeof(best->msg) - used, "; %.32s: %.200s", be_name,
			 msg ? msg : "");
		return;
	}
	if (best->err && rank <= best->rank) {
		return;
	}
	best->err = err;
	best->rank = rank;
	snprintf(best->msg, sizeof(best->msg), "%.32s: %.400s", be_name,
		 (msg && msg[0]) ? msg : strerror(-err));
}

struct mech_want {
	const char *kind;
	const char *name;
	const void *const *list;
	const void **slot;
};

/* "a, b, c": the names of a NULL-terminated mechanism list, for messages listing valid values */
static void
mech_names(const void *const *list, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; list && *list && used < len; ++list) {
		int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
				 *(const char *const *)*list);

		used += n > 0 ? (size_t)n : 0;
	}
}

/* Resolves the mechanisms the caller named; fills `missing` when this backend lacks one */
static int
resolve_named(struct xnvme_dev *dev, const struct xnvme_opts *opts, char *missing,
	      size_t missing_len)
{
	const struct xnvme_be *be = dev->be;
	struct mech_want want[] = {
		{"mem", opts->mem, (const void *const *)be->mem, (const void **)&dev->mem},
		{"admin", opts->admin, (const void *const *)be->admin, (const void **)&dev->admin},
		{"sync", opts->sync, (const void *const *)be->sync, (const void **)&dev->sync},
		{"async", opts->async, (const void *const *)be->async, (const void **)&dev->async},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); ++i) {
		if (!want[i].name) {
			continue;
		}
		*want[i].slot = mech_find(want[i].list, want[i].name);
		if (!*want[i].slot) {
			char names[160];

			mech_names(want[i].list, names, sizeof(names));
			snprintf(missing, missing_len,
				 "has no %s mechanism named '%.64s' (valid: %s)", want[i].kind,
				 want[i].name, names);
			return -ENOSYS;
		}
	}
	return 0;
}

/* Asks every chosen mechanism whether it can serve the opened device */
static int
check_support(struct xnvme_dev *dev, const struct xnvme_opts *opts, char *why, size_t why_len)
{
	struct {
		const char *kind;
		const char *name;
		int (*check)(struct xnvme_dev *);
		bool explicit;
	} chk[] = {
		{"mem", dev->mem->name, dev->mem->check_support, opts->mem != NULL},
		{"admin", dev->admin->name, dev->admin->check_support, opts->admin != NULL},
		{"sync", dev->sync->name, dev->sync->check_support, opts->sync != NULL},
		{"async", dev->async->name, dev->async->check_support, opts->async != NULL},
	};

	for (size_t i = 0; i < sizeof(chk) / sizeof(chk[0]); ++i) {
		int err;

		if (!chk[i].check) {
			continue;
		}
		dev->errmsg[0] = '\0';
		err = chk[i].check(dev);
		if (err) {
			snprintf(why, why_len,
				 "%s %s mechanism '%.32s' cannot serve '%.96s': %.200s",
				 chk[i].explicit ? "the requested" : "the default", chk[i].kind,
				 chk[i].name, dev->ident.uri,
				 dev->errmsg[0] ? dev->errmsg : strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Copies a caller string into handle storage so callers may free theirs after open */
static int
copy_str(char *dst, size_t dst_len, const char **field)
{
	size_t len;

	if (!*field) {
		return 0;
	}
	len = strnlen(*field, dst_len);
	if (len >= dst_len) {
		return -EINVAL;
	}
	memcpy(dst, *field, len + 1);
	*field = dst;
	return 0;
}

static int
dev_opts_store(struct xnvme_dev *dev, const struct xnvme_opts *opts)
{
	dev->opts = *opts;
	if (copy_str(dev->subnqn, sizeof(dev->subnqn), &dev->opts.subnqn) ||
	    copy_str(dev->hostnqn, sizeof(dev->hostnqn), &dev->opts.hostnqn) ||
	    copy_str(dev->adrfam, sizeof(dev->adrfam), &dev->opts.adrfam) ||
	    copy_str(dev->core_mask, sizeof(dev->core_mask), &dev->opts.core_mask)) {
		return -EINVAL;
	}
	return 0;
}

static void
dev_reset_for_backend(struct xnvme_dev *dev, const struct xnvme_be *be, const char *uri)
{
	dev->be = be;
	dev->mem = NULL;
	dev->admin = NULL;
	dev->sync = NULL;
	dev->async = NULL;
	dev->state = NULL;
	dev->mdts_cap_nbytes = 0;
	dev->errmsg[0] = '\0';
	xnvme_ident_from_uri(uri, &dev->ident);
}

int
xnvme_be_open(struct xnvme_dev *dev, const char *uri, const struct xnvme_opts *opts)
{
	struct open_verdict best = {0};
	bool be_named_found = false;

	for (int i = 0; i < xnvme_be_registry_len; ++i) {
		const struct xnvme_be *be = xnvme_be_registry[i];
		char why[XNVME_ERRMSG_LEN + 128];
		int err;

		if (opts->be && strcmp(be->name, opts->be)) {
			continue;
		}
		be_named_found = true;
		if (!be->enabled) {
			if (opts->be) {
				verdict_offer(&best, -ENOSYS, RANK_FAILED, be->name,
					      "backend is not built into this library");
			}
			continue;
		}

		dev_reset_for_backend(dev, be, uri);
		err = dev_opts_store(dev, opts);
		if (err) {
			verdict_offer(
				&best, err, RANK_FAILED, be->name,
				"a string option (subnqn, hostnqn, adrfam, core_mask) is too long");
			break;
		}
		err = resolve_named(dev, opts, why, sizeof(why));
		if (err) {
			verdict_offer(&best, err, RANK_NO_MECH, be->name, why);
			continue;
		}

		err = be->dev->dev_open(dev);
		if (err) {
			enum open_rank rank = RANK_FAILED;

			if (err == -ENXIO) {
				rank = RANK_NOT_MINE;
			} else if (err == -ENOENT) {
				rank = RANK_NOENT;
			}
			if (!dev->errmsg[0]) {
				snprintf(dev->errmsg, sizeof(dev->errmsg), "'%.400s': %.80s", uri,
					 strerror(-err));
			}
			verdict_offer(&best, err, rank, be->name, dev->errmsg);
			if (err == -EPERM) {
				break;
			}
			continue;
		}

		if (!dev->mem || !dev->admin || !dev->sync || !dev->async) {
			be->dev->dev_close(dev);
			verdict_offer(&best, -ENOSYS, RANK_FAILED, be->name,
				      "backend left a mechanism kind unselected");
			continue;
		}
		err = check_support(dev, opts, why, sizeof(why));
		if (err) {
			be->dev->dev_close(dev);
			verdict_offer(&best, err, RANK_FAILED, be->name, why);
			continue;
		}

		dev->opts.be = be->name;
		dev->opts.dev = be->name;
		dev->opts.mem = dev->mem->name;
		dev->opts.admin = dev->admin->name;
		dev->opts.sync = dev->sync->name;
		dev->opts.async = dev->async->name;
		return 0;
	}

	if (!be_named_found) {
		char why[256];
		size_t used;

		used = (size_t)snprintf(why, sizeof(why),
					"unknown backend '%.64s' (valid:", opts->be);
		for (int i = 0; i < xnvme_be_registry_len && used < sizeof(why); ++i) {
			used += (size_t)snprintf(
				why + used, sizeof(why) - used, " %s%s", xnvme_be_registry[i]->name,
				xnvme_be_registry[i]->enabled ? "" : " (not built)");
		}
		if (used < sizeof(why)) {
			snprintf(why + used, sizeof(why) - used, ")");
		}
		verdict_offer(&best, -EINVAL, RANK_FAILED, "xnvme", why);
	}
	if (!best.err) {
		verdict_offer(&best, -ENXIO, RANK_NOT_MINE, "xnvme",
			      "no backend recognised the URI (linux: a path to a file or an NVMe "
			      "or block device; ramdisk: <N>GB)");
	}
	snprintf(dev->errmsg, sizeof(dev->errmsg), "%.500s", best.msg);
	return best.err;
}
