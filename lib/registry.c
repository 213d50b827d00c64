// SPDX-License-Identifier: BSD-3-Clause
/*
 * The backend registry: the list of lib/be/registry.def, where a backend not built for this
 * platform is a placeholder of its name, and what is derived from it for listings (the tools'
 * help and completion, xnvme_be_attr_list_bundled(), xnvme_be_mech_names()): no list of
 * backend or mechanism names is kept anywhere else.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "xnvme_be_built.h" /* XNVME_BE_BUILT_<name> 1: lib/be/<name>/meson.build built it */
#include "xnvme_registry.h"

/*
 * XNVME_BE_PICK(flag, yes, no): `yes` when `flag` expands to 1, else `no`. A flag that is
 * defined as 1 turns the probe into "x," and so shifts `yes` into the second place.
 */
#define XNVME_BE_PROBE_1 x,
#define XNVME_BE_SECOND_(a, b, ...) b
#define XNVME_BE_SECOND(...) XNVME_BE_SECOND_(__VA_ARGS__)
#define XNVME_BE_PICK_(flag, yes, no) XNVME_BE_SECOND(XNVME_BE_PROBE_##flag yes, no)
#define XNVME_BE_PICK(flag, yes, no) XNVME_BE_PICK_(flag, yes, no)

#define XNVME_BE(id) extern const struct xnvme_be xnvme_be_##id;
#include "registry.def"
#undef XNVME_BE

/* a built backend's table, else a placeholder of its name (enabled = false) */
#define XNVME_BE(id)                                                                               \
	XNVME_BE_PICK(XNVME_BE_BUILT_##id, &xnvme_be_##id, &(const struct xnvme_be){.name = #id}),
const struct xnvme_be *const xnvme_be_registry[] = {
#include "registry.def"
};
#undef XNVME_BE
#define REGISTRY_LEN (sizeof(xnvme_be_registry) / sizeof(xnvme_be_registry[0]))
const int xnvme_be_registry_len = (int)REGISTRY_LEN;

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

const void *const *
xnvme_be_mech_list(const struct xnvme_be *be, enum xnvme_be_kind kind)
{
	switch (kind) {
	case XNVME_BE_KIND_MEM:
		return (const void *const *)be->mem;
	case XNVME_BE_KIND_ADMIN:
		return (const void *const *)be->admin;
	case XNVME_BE_KIND_SYNC:
		return (const void *const *)be->sync;
	case XNVME_BE_KIND_ASYNC:
		return (const void *const *)be->async;
	default:
		return NULL;
	}
}

/* Every mechanism table starts with its name */
static const char *
mech_name(const void *mech)
{
	return *(const char *const *)mech;
}

/* Appends `sep` and `text`: `*used` grows, the text stays terminated and is cut at `len` */
static void
append(char *buf, size_t len, size_t *used, const char *sep, const char *text)
{
	int n;

	if (*used >= len) {
		return;
	}
	n = snprintf(buf + *used, len - *used, "%s%s", sep, text);
	*used += n > 0 ? (size_t)n : 0;
}

/* "a, b": the names of a NULL-terminated mechanism list */
static void
names_of(const void *const *list, char *buf, size_t len, size_t *used)
{
	for (size_t i = 0; list && list[i]; ++i) {
		append(buf, len, used, i ? ", " : "", mech_name(list[i]));
	}
}

/* Whether two mechanism lists name the same mechanisms in the same order */
static bool
same_names(const void *const *a, const void *const *b)
{
	for (; a && b && *a && *b; ++a, ++b) {
		if (strcmp(mech_name(*a), mech_name(*b))) {
			return false;
		}
	}
	return (!a || !*a) && (!b || !*b);
}

static void
help_text(enum xnvme_be_kind kind, char *buf, size_t len)
{
	size_t used = 0;
	bool first = true;

	buf[0] = '\0';
	if (kind == XNVME_BE_KIND_BE) {
		for (int i = 0; i < xnvme_be_registry_len; ++i) {
			if (xnvme_be_registry[i]->enabled) {
				append(buf, len, &used, first ? "" : ", ",
				       xnvme_be_registry[i]->name);
				first = false;
			}
		}
		return;
	}
	/* "names (backend, backend); names (backend)": backends with equal lists grouped */
	for (int i = 0; i < xnvme_be_registry_len; ++i) {
		const struct xnvme_be *be = xnvme_be_registry[i];
		const void *const *list = xnvme_be_mech_list(be, kind);
		bool seen = false;

		if (!be->enabled) {
			continue;
		}
		for (int k = 0; k < i && !seen; ++k) {
			seen = xnvme_be_registry[k]->enabled &&
			       same_names(xnvme_be_mech_list(xnvme_be_registry[k], kind), list);
		}
		if (seen) {
			continue;
		}
		append(buf, len, &used, first ? "" : "; ", "");
		first = false;
		names_of(list, buf, len, &used);
		append(buf, len, &used, " (", "");
		for (int k = i, n = 0; k < xnvme_be_registry_len; ++k) {
			const struct xnvme_be *other = xnvme_be_registry[k];

			if (other->enabled && same_names(xnvme_be_mech_list(other, kind), list)) {
				append(buf, len, &used, n++ ? ", " : "", other->name);
			}
		}
		append(buf, len, &used, ")", "");
	}
}

/* "a b c": every name once, in registry order */
static void
values_text(enum xnvme_be_kind kind, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < xnvme_be_registry_len; ++i) {
		const struct xnvme_be *be = xnvme_be_registry[i];
		const void *const *list = xnvme_be_mech_list(be, kind);

		if (!be->enabled) {
			continue;
		}
		if (kind == XNVME_BE_KIND_BE) {
			append(buf, len, &used, used ? " " : "", be->name);
			continue;
		}
		for (size_t m = 0; list && list[m]; ++m) {
			const char *name = mech_name(list[m]);
			bool dup = false;

			/* already listed: a whole word of the text so far */
			for (const char *p = strstr(buf, name); p && !dup;
			     p = strstr(p + 1, name)) {
				size_t n = strlen(name);

				dup = (p == buf || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0');
			}
			if (!dup) {
				append(buf, len, &used, used ? " " : "", name);
			}
		}
	}
}

#define LISTING_LEN 512
#define NAMES_LEN 256
static char g_help[XNVME_BE_KIND_END][LISTING_LEN];
static char g_values[XNVME_BE_KIND_END][LISTING_LEN];
/* xnvme_be_mech_names(): [backend][kind - XNVME_BE_KIND_MEM] */
static char g_names[REGISTRY_LEN][XNVME_BE_KIND_END - XNVME_BE_KIND_MEM][NAMES_LEN];
static pthread_once_t g_listings_once = PTHREAD_ONCE_INIT;

static void
listings_build(void)
{
	for (int k = 0; k < XNVME_BE_KIND_END; ++k) {
		help_text((enum xnvme_be_kind)k, g_help[k], LISTING_LEN);
		values_text((enum xnvme_be_kind)k, g_values[k], LISTING_LEN);
	}
	for (size_t i = 0; i < REGISTRY_LEN; ++i) {
		for (int k = XNVME_BE_KIND_MEM; k < XNVME_BE_KIND_END; ++k) {
			const void *const *list =
				xnvme_be_mech_list(xnvme_be_registry[i], (enum xnvme_be_kind)k);
			char *buf = g_names[i][k - XNVME_BE_KIND_MEM];
			size_t used = 0;

			buf[0] = '\0';
			for (size_t m = 0; list && list[m]; ++m) {
				append(buf, NAMES_LEN, &used, m ? " " : "", mech_name(list[m]));
			}
		}
	}
}

const char *
xnvme_be_registry_help(enum xnvme_be_kind kind)
{
	if (kind < 0 || kind >= XNVME_BE_KIND_END) {
		return "";
	}
	pthread_once(&g_listings_once, listings_build);
	return g_help[kind];
}

const char *
xnvme_be_registry_values(enum xnvme_be_kind kind)
{
	if (kind < 0 || kind >= XNVME_BE_KIND_END) {
		return "";
	}
	pthread_once(&g_listings_once, listings_build);
	return g_values[kind];
}

const char *
xnvme_be_mech_names(const char *be, const char *kind)
{
	static const char *const kinds[] = {"mem", "admin", "sync", "async"};

	_Static_assert(sizeof(kinds) / sizeof(kinds[0]) == XNVME_BE_KIND_END - XNVME_BE_KIND_MEM,
		       "one name per mechanism kind");
	for (size_t i = 0; be && kind && i < REGISTRY_LEN; ++i) {
		if (strcmp(xnvme_be_registry[i]->name, be)) {
			continue;
		}
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); ++k) {
			if (strcmp(kinds[k], kind)) {
				continue;
			}
			if (!xnvme_be_registry[i]->enabled) {
				errno = ENOSYS;
				return NULL;
			}
			pthread_once(&g_listings_once, listings_build);
			return g_names[i][k];
		}
		break;
	}
	errno = EINVAL;
	return NULL;
}
