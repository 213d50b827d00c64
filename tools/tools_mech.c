// SPDX-License-Identifier: BSD-3-Clause
/**
 * Which mechanisms can serve a device (`info`): per kind, every mechanism name is tried by
 * opening the URI again with that mechanism requested; the open either works (available), or
 * fails with the reason of xnvme_last_error() (refused), or the backend has no mechanism of that
 * name (not listed). The candidate names are those of every backend; tests/test_cli_conventions.py checks
 * that they match what the library reports as valid.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"

enum mech_kind { MECH_MEM, MECH_ADMIN, MECH_SYNC, MECH_ASYNC, MECH_NKINDS };

static const char *const g_kind_names[MECH_NKINDS] = {"mem", "admin", "sync", "async"};

static const char *const g_candidates[MECH_NKINDS][12] = {
	[MECH_MEM] = {"posix", "hugepage", "vfio", NULL},
	[MECH_ADMIN] = {"nvme", "block", "file_as_ns", "ramdisk", "vfio", "tcp", "rdma", NULL},
	[MECH_SYNC] = {"nvme", "psync", "block", "ramdisk", "vfio", "tcp", "rdma", NULL},
	[MECH_ASYNC] = {"io_uring", "io_uring_cmd", "libaio", "posix", "thrpool", "emu", "nil",
			"vfio", "tcp", "rdma", NULL},
};

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

/* One mechanism of `kind`: in use, available, refused (with the reason) or not in the backend */
static void
mech_probe(const struct xnvme_cli *cli, const struct xnvme_opts *used, enum mech_kind kind,
	   const char *name)
{
	struct xnvme_opts opts = xnvme_opts_default();
	const char *in_use = *kind_slot((struct xnvme_opts *)used, kind);
	char absent[64];
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
	snprintf(absent, sizeof(absent), "has no %s mechanism named '%s'", g_kind_names[kind],
		 name);
	if (strstr(xnvme_last_error(), absent)) {
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
		printf("  %s:\n", g_kind_names[k]);
		for (int i = 0; g_candidates[k][i]; ++i) {
			mech_probe(cli, used, (enum mech_kind)k, g_candidates[k][i]);
		}
	}
	return fflush(stdout) ? -EIO : 0;
}
