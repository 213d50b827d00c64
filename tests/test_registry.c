// SPDX-License-Identifier: BSD-3-Clause
/*
 * The backend contract as the registry shows it (lib/be/xnvme_be.h, lib/be/registry.def):
 * the registry lists the names of registry.def in order (the original's seven first), each
 * backend's mechanism lists are non-empty for every kind, names are unique within a kind and
 * resolve by name, every entry of a built backend's dev table (its URI claim and forms
 * included) and of its mechanisms is defined (none is NULL: a mechanism the build lacks
 * answers -ENOSYS instead), and the help and completion listings name every mechanism of the
 * built backends and none of the others, and xnvme_be_mech_names() lists each backend's
 * names as the registry has them. Links the static library for lib/xnvme_registry.h;
 * also runs under Wine (tests/windows/meson.build).
 */
#include <string.h>
#include "xnvme_registry.h"
#include "xnvme_test.h"

/* The names of lib/be/registry.def, in its order */
#define XNVME_BE(id) #id,
static const char *const g_names[] = {
#include "registry.def"
};
#undef XNVME_BE
#define NNAMES ((int)(sizeof(g_names) / sizeof(g_names[0])))

/* Whether `word` is a blank-separated word of `text` */
static bool
has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
		if ((p == text || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) {
			return true;
		}
	}
	return false;
}

static void
check_entries(const struct xnvme_be *be)
{
	const struct xnvme_be_dev *d = be->dev;

	CHECK(d && d->enumerate && d->dev_open && d->dev_close && d->uri_claim && d->uri_forms &&
	      d->uri_forms[0]);
	for (const struct xnvme_be_mem *const *m = be->mem; m && *m; ++m) {
		const struct xnvme_be_mem *x = *m;

		CHECK(x->check_support && x->buf_alloc && x->buf_realloc && x->buf_free &&
		      x->buf_vtophys && x->mem_map && x->mem_unmap);
	}
	for (const struct xnvme_be_admin *const *m = be->admin; m && *m; ++m) {
		CHECK((*m)->check_support && (*m)->cmd_admin && (*m)->pseudo);
	}
	for (const struct xnvme_be_sync *const *m = be->sync; m && *m; ++m) {
		CHECK((*m)->check_support && (*m)->cmd_io && (*m)->cmd_iov);
	}
	for (const struct xnvme_be_async *const *m = be->async; m && *m; ++m) {
		const struct xnvme_be_async *x = *m;

		CHECK(x->check_support && x->init && x->term && x->poke && x->cmd_io &&
		      x->cmd_iov && x->get_completion_fd);
	}
}

static const char *const g_kinds[] = {"mem", "admin", "sync", "async"};

static void
check_lists(const struct xnvme_be *be)
{
	for (int k = XNVME_BE_KIND_MEM; k < XNVME_BE_KIND_END; ++k) {
		const void *const *list = xnvme_be_mech_list(be, (enum xnvme_be_kind)k);
		const char *help = xnvme_be_registry_help((enum xnvme_be_kind)k);
		const char *values = xnvme_be_registry_values((enum xnvme_be_kind)k);
		const char *kind = g_kinds[k - XNVME_BE_KIND_MEM];
		const char *names = xnvme_be_mech_names(be->name, kind);
		char want[512] = "";
		size_t n = 0;

		CHECK(list && list[0]);
		for (; list && list[n]; ++n) {
			const char *name = *(const char *const *)list[n];

			CHECK(name && name[0]);
			CHECK(has_word(values, name));
			CHECK(strstr(help, name) != NULL);
			for (size_t j = 0; j < n; ++j) {
				CHECK(strcmp(name, *(const char *const *)list[j]));
			}
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s",
				 n ? " " : "", name);
		}
		/* the public listing: the same names in the same order */
		CHECKF(names && !strcmp(names, want), "%s %s: '%s', want '%s'", be->name, kind,
		       names ? names : "(null)", want);
	}
	CHECK(has_word(xnvme_be_registry_values(XNVME_BE_KIND_BE), be->name));
	CHECK(strstr(xnvme_be_registry_help(XNVME_BE_KIND_BE), be->name) != NULL);
}

int
main(void)
{
	int nbuilt = 0;

	CHECK_EQ(xnvme_be_registry_len, NNAMES);
	for (int i = 0; i < xnvme_be_registry_len && i < NNAMES; ++i) {
		const struct xnvme_be *be = xnvme_be_registry[i];

		CHECK(!strcmp(be->name, g_names[i]));
		if (!be->enabled) {
			/* a placeholder of the name, or a backend its build disabled: not listed */
			CHECK(!has_word(xnvme_be_registry_values(XNVME_BE_KIND_BE), be->name));
			errno = 0;
			CHECK(!xnvme_be_mech_names(be->name, "async") && errno == ENOSYS);
			continue;
		}
		nbuilt++;
		check_entries(be);
		check_lists(be);
	}
	CHECK(nbuilt >= 2); /* the OS's backend and the ramdisk everywhere */
	/* names of nothing */
	errno = 0;
	CHECK(!xnvme_be_mech_names("no-such", "async") && errno == EINVAL);
	errno = 0;
	CHECK(!xnvme_be_mech_names("ramdisk", "queue") && errno == EINVAL);
	errno = 0;
	CHECK(!xnvme_be_mech_names(NULL, "async") && errno == EINVAL);
	errno = 0;
	CHECK(!xnvme_be_mech_names("ramdisk", NULL) && errno == EINVAL);
	CHECK(NNAMES >= 7 && !strcmp(g_names[0], "spdk") && !strcmp(g_names[6], "vfio"));
	return xnvme_test_result("test_registry");
}
