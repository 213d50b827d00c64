// SPDX-License-Identifier: BSD-3-Clause
/*
 * Device open through the registry (lib/registry.c) and mechanism selection. Backends not
 * built for this platform stay in the registry (enabled = false) so that their names are known
 * and reported.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "xnvme_dev.h"
#include "xnvme_registry.h"

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

/*
 * Which backend owns a URI, for the error of an open that no backend accepted. The backends
 * below take URIs of a form of their own; every other backend (linux, windows) takes paths,
 * which is what a URI of none of these forms is. A backend that lacks a mechanism the caller
 * named is blamed only for a URI of its form, never for a path it would not have opened anyway.
 * The forms follow the backends' own parsers (lib/be/ramdisk/uri.c, lib/be/vfio/dev.c,
 * lib/be/nvmf/target.c); tests/test_open_errors.c holds them to those, backend by backend.
 * A form may be more than one backend's (tcp and rdma take the same addresses).
 */
static bool
form_size(const char *uri, size_t len)
{
	/* "<N>GB" and what a user writes for a size: digits, a fraction, a unit, "i", "B" */
	size_t i = 0;

	while (i < len && uri[i] >= '0' && uri[i] <= '9') {
		++i;
	}
	if (!i) {
		return false;
	}
	if (i < len && uri[i] == '.') {
		for (++i; i < len && uri[i] >= '0' && uri[i] <= '9'; ++i) {
		}
	}
	if (i < len && strchr("kKmMgGtTpP", uri[i])) {
		i += 1 + (i + 1 < len && uri[i + 1] == 'i');
	}
	if (i < len && (uri[i] == 'B' || uri[i] == 'b')) {
		++i;
	}
	return i == len && !(uri[len - 1] >= '0' && uri[len - 1] <= '9');
}

static bool
hex_run(const char *s, size_t n)
{
	for (size_t i = 0; i < n; ++i) {
		if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i]) {
			return false;
		}
	}
	return true;
}

static bool
form_pci(const char *uri, size_t len)
{
	/* "DDDD:BB:DD.F" or "BB:DD.F" */
	if (len == 12 && hex_run(uri, 4) && uri[4] == ':') {
		uri += 5;
		len -= 5;
	}
	return len == 7 && hex_run(uri, 2) && uri[2] == ':' && hex_run(uri + 3, 2) &&
	       uri[5] == '.' && uri[6] >= '0' && uri[6] <= '7';
}

static bool
form_tcp(const char *uri, size_t len)
{
	/* "host:port" or "[v6addr]:port", no '/', port 1-65535 */
	const char *port;
	unsigned long val = 0;
	size_t plen;

	if (!len || memchr(uri, '/', len)) {
		return false;
	}
	if (uri[0] == '[') {
		const char *end = memchr(uri, ']', len);

		if (!end || end == uri + 1 || end + 1 >= uri + len || end[1] != ':') {
			return false;
		}
		port = end + 2;
	} else {
		const char *colon = memchr(uri, ':', len);

		if (!colon || colon == uri ||
		    memchr(colon + 1, ':', len - (size_t)(colon + 1 - uri))) {
			return false;
		}
		port = colon + 1;
	}
	plen = len - (size_t)(port - uri);
	if (!plen || plen > 5) {
		return false;
	}
	for (size_t i = 0; i < plen; ++i) {
		if (port[i] < '0' || port[i] > '9') {
			return false;
		}
		val = val * 10 + (unsigned long)(port[i] - '0');
	}
	return val >= 1 && val <= 65535;
}

static const struct {
	const char *be;
	bool (*match)(const char *uri, size_t len); ///< the part before '?' (options)
	const char *accepted;
} uri_forms[] = {
	{"ramdisk", form_size,
	 "<N>GB, N a whole number >= 1 of GiB (e.g. 1GB, 8GB), optionally followed by "
	 "?key=value,... options"},
	{"vfio", form_pci, "the PCI address DDDD:BB:DD.F of an NVMe function bound to vfio-pci"},
	{"tcp", form_tcp, "traddr:trsvcid or [v6addr]:trsvcid of an NVMe/TCP target"},
	{"rdma", form_tcp, "traddr:trsvcid or [v6addr]:trsvcid of an NVMe/RDMA target"},
};
#define URI_FORMS_LEN (sizeof(uri_forms) / sizeof(uri_forms[0]))
#define PATH_ACCEPTED "a path to a file, a block device or an NVMe device"

/* The first backend whose form `uri` has; NULL for a path */
static const char *
uri_form_owner(const char *uri)
{
	const char *query = strchr(uri, '?');
	size_t len = query ? (size_t)(query - uri) : strlen(uri);

	for (size_t i = 0; i < URI_FORMS_LEN; ++i) {
		if (uri_forms[i].match(uri, len)) {
			return uri_forms[i].be;
		}
	}
	return NULL;
}

/* What backend `be` takes, for messages */
static const char *
uri_form_accepted(const char *be)
{
	for (size_t i = 0; i < URI_FORMS_LEN; ++i) {
		if (!strcmp(uri_forms[i].be, be)) {
			return uri_forms[i].accepted;
		}
	}
	return PATH_ACCEPTED;
}

/* Whether backend `be` owns `uri`: a URI of a form of its own, else a path (`form` NULL) */
static bool
uri_form_owned_by(const char *uri, const char *form, const char *be)
{
	const char *query = strchr(uri, '?');
	size_t len = query ? (size_t)(query - uri) : strlen(uri);
	bool has_form = false;

	for (size_t i = 0; i < URI_FORMS_LEN; ++i) {
		if (!strcmp(uri_forms[i].be, be)) {
			if (uri_forms[i].match(uri, len)) {
				return true;
			}
			has_form = true;
		}
	}
	return !has_form && !form;
}

/*
 * Ranks open failures: the most specific one is reported. "Not my URI" ranks lowest, a missing
 * path next, a backend that lacks a named mechanism next, and a backend that recognised the
 * URI and failed (EACCES, a mechanism that cannot serve the device, ...) highest. Between equal
 * ranks the backend owning the URI's form wins; a backend lacking a named mechanism is not
 * heard at all unless it owns the form.
 */
enum open_rank {
	RANK_NOT_MINE = 0,
	RANK_NOENT = 1,
	RANK_NO_MECH = 2,
	RANK_FAILED = 3,
};

struct open_verdict {
	int err;
	int score; ///< rank * 2 + owner; -1 while empty
	char msg[XNVME_ERRMSG_LEN];
};

static void
verdict_offer(struct open_verdict *best, int err, enum open_rank rank, bool owner,
	      const char *be_name, const char *msg)
{
	int score = (int)rank * 2 + (owner ? 1 : 0);

	if (rank == RANK_NO_MECH && !owner) {
		return; /* never a candidate: the URI is not of its form */
	}
	if (best->err && score <= best->score) {
		return;
	}
	best->err = err;
	best->score = score;
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
	struct xnvme_dev_core *dc = xnvme_dev_core(dev);

	dev->opts = *opts;
	if (copy_str(dc->subnqn, sizeof(dc->subnqn), &dev->opts.subnqn) ||
	    copy_str(dc->hostnqn, sizeof(dc->hostnqn), &dev->opts.hostnqn) ||
	    copy_str(dc->adrfam, sizeof(dc->adrfam), &dev->opts.adrfam) ||
	    copy_str(dc->core_mask, sizeof(dc->core_mask), &dev->opts.core_mask)) {
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

/* "linux: a path ...; ramdisk: <N>GB ...": the forms of the backends built in */
static void
accepted_forms(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < xnvme_be_registry_len && used < len; ++i) {
		const struct xnvme_be *be = xnvme_be_registry[i];
		int n;

		if (!be->enabled) {
			continue;
		}
		n = snprintf(buf + used, len - used, "%s%s: %s", used ? "; " : "", be->name,
			     uri_form_accepted(be->name));
		used += n > 0 ? (size_t)n : 0;
	}
}

int
xnvme_be_open(struct xnvme_dev *dev, const char *uri, const struct xnvme_opts *opts)
{
	const char *form = uri_form_owner(uri);
	struct open_verdict best = {0};
	bool be_named_found = false;

	best.score = -1;
	for (int i = 0; i < xnvme_be_registry_len; ++i) {
		const struct xnvme_be *be = xnvme_be_registry[i];
		/* a backend the caller named owns the URI whatever its form */
		bool owner = opts->be || uri_form_owned_by(uri, form, be->name);
		char why[XNVME_ERRMSG_LEN + 128];
		int err;

		if (opts->be && strcmp(be->name, opts->be)) {
			continue;
		}
		be_named_found = true;
		if (!be->enabled) {
			/* named, or the URI is of its own form (not merely a path): the reason */
			if (opts->be || (form && uri_form_owned_by(uri, form, be->name))) {
				const char *takes = uri_form_accepted(be->name);
				bool has_form = strcmp(takes, PATH_ACCEPTED) != 0;

				snprintf(why, sizeof(why),
					 "backend is not built into this library%s%s",
					 has_form ? "; it takes " : "", has_form ? takes : "");
				verdict_offer(&best, -ENOSYS, opts->be ? RANK_FAILED : RANK_NO_MECH,
					      owner, be->name, why);
			}
			continue;
		}

		dev_reset_for_backend(dev, be, uri);
		err = dev_opts_store(dev, opts);
		if (err) {
			verdict_offer(
				&best, err, RANK_FAILED, true, be->name,
				"a string option (subnqn, hostnqn, adrfam, core_mask) is too long");
			break;
		}
		err = resolve_named(dev, opts, why, sizeof(why));
		if (err) {
			verdict_offer(&best, err, RANK_NO_MECH, owner, be->name, why);
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
			if (err == -ENXIO && opts->be) {
				/* the named backend does not take this URI: say what it takes */
				snprintf(dev->errmsg, sizeof(dev->errmsg),
					 "'%.200s' is not a %s URI: it takes %s", uri, be->name,
					 uri_form_accepted(be->name));
			}
			verdict_offer(&best, err, rank, owner, be->name, dev->errmsg);
			if (err == -EPERM) {
				break;
			}
			continue;
		}

		if (!dev->mem || !dev->admin || !dev->sync || !dev->async) {
			be->dev->dev_close(dev);
			verdict_offer(&best, -ENOSYS, RANK_FAILED, owner, be->name,
				      "backend left a mechanism kind unselected");
			continue;
		}
		err = check_support(dev, opts, why, sizeof(why));
		if (err) {
			be->dev->dev_close(dev);
			verdict_offer(&best, err, RANK_FAILED, owner, be->name, why);
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
		verdict_offer(&best, -EINVAL, RANK_FAILED, true, "xnvme", why);
	}
	if (!best.err) {
		char forms[XNVME_ERRMSG_LEN - 64];
		char why[XNVME_ERRMSG_LEN];

		accepted_forms(forms, sizeof(forms));
		snprintf(why, sizeof(why), "no backend recognised the URI (%s)", forms);
		verdict_offer(&best, -ENXIO, RANK_NOT_MINE, true, "xnvme", why);
	}
	snprintf(dev->errmsg, sizeof(dev->errmsg), "%.500s", best.msg);
	return best.err;
}
