// SPDX-License-Identifier: BSD-3-Clause
/**
 * Which mechanisms can serve a device (`info`): per kind, every mechanism of the device's
 * backend (xnvme_be_mech_names(): the library's registry, no list here) is tried by opening the
 * URI again with that mechanism requested; the open either works (available) or fails with the
 * reason of xnvme_last_error() (refused).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"

enum mech_kind { MECH_MEM, MECH_ADMIN, MECH_SYNC, MECH_ASYNC, MECH_NKINDS };

static const char *const g_kind_names[MECH_NKINDS] = {"mem", "admin", "sync", "async"};

static const char **
kind_slot(struct xnvme_opts *opts, enum mech_kind kind)
{
	switch (kind) {
	case MECH_MEM:
		return &opts->mem;
	case MECH_ADMIN:
		return &opts->admin;
	case MECH_SYNC:
		return &opts->sync;
	default:
		return &opts->async;
	}
}

/* One mechanism of `kind` of the device's backend: in use, available or refused (with why) */
static void
mech_probe(const struct xnvme_cli *cli, const struct xnvme_opts *used, enum mech_kind kind,
	   const char *name)
{
	struct xnvme_opts opts = xnvme_opts_default();
	const char *in_use = *kind_slot((struct xnvme_opts *)used, kind);
	struct xnvme_dev *dev;

	xnvme_cli_to_opts(cli, &opts);
	opts.be = used->be;
	*kind_slot(&opts, kind) = name;

	dev = xnvme_dev_open(cli->args.uri, &opts);
	if (dev) {
		xnvme_dev_close(dev);
		printf("    - {name: '%s', status: '%s'}\n", name,
		       (in_use && !strcmp(in_use, name)) ? "in use" : "available");
		return;
	}
	printf("    - {name: '%s', status: 'refused', reason: ", name);
	tool_yaml_squote_pr(xnvme_last_error());
	puts("}");
}

int
tool_mech_pr(struct xnvme_cli *cli)
{
	const struct xnvme_opts *used = xnvme_dev_get_opts(cli->args.dev);

	if (!used || !cli->args.uri) {
		return 0;
	}
	printf("xnvme_mechanisms:\n  be: '%s'\n", used->be ? used->be : "");
	for (int k = 0; k < MECH_NKINDS; ++k) {
		const char *names = xnvme_be_mech_names(used->be, g_kind_names[k]);

		printf("  %s:\n", g_kind_names[k]);
		/* "a b c": each name in turn, from a copy cut at the blanks */
		while (names && *names) {
			size_t len = strcspn(names, " ");
			char name[64];

			if (len < sizeof(name)) {
				memcpy(name, names, len);
				name[len] = '\0';
				mech_probe(cli, used, (enum mech_kind)k, name);
			}
			names += len + (names[len] == ' ');
		}
	}
	return fflush(stdout) ? -EIO : 0;
}
