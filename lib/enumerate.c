// SPDX-License-Identifier: BSD-3-Clause
/*
 * Enumeration: every enabled backend lists its devices and opens each with `be` forced to
 * itself. Errors of individual backends or devices do not stop enumeration.
 */
#include <errno.h>
#include <string.h>
#include "xnvme_registry.h"

int
xnvme_be_enumerate_visit(const char *uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
			 void *cb_args)
{
	struct xnvme_dev *dev;

	dev = xnvme_dev_open(uri, opts);
	if (!dev) {
		return 0;
	}
	if (cb_func(dev, cb_args)) {
		xnvme_dev_close(dev);
	}
	return 0;
}

int
xnvme_enumerate(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
		void *cb_args)
{
	struct xnvme_opts defaults = xnvme_opts_default();

	if (!cb_func) {
		return -EINVAL;
	}
	if (!opts) {
		opts = &defaults;
	}
	for (int i = 0; i < xnvme_be_registry_len; ++i) {
		const struct xnvme_be *be = xnvme_be_registry[i];
		struct xnvme_opts be_opts = *opts;

		if (!be->enabled || (opts->be && strcmp(opts->be, be->name))) {
			continue;
		}
		be_opts.be = be->name;
		be->dev->enumerate(sys_uri, &be_opts, cb_func, cb_args);
	}
	return 0;
}
