// SPDX-License-Identifier: BSD-3-Clause
#include <string.h>
#include <sys/stat.h>
#include <libxnvme.h>

void
xnvme_opts_set_defaults(struct xnvme_opts *opts)
{
	if (!opts) {
		return;
	}
	opts->rdwr = 1;
	opts->nsid = 1;
	opts->admin_timeout = 60000000;
	opts->command_timeout = 30000000;
	opts->create_mode = S_IRUSR | S_IWUSR;
}

struct xnvme_opts
xnvme_opts_default(void)
{
	struct xnvme_opts opts;

	memset(&opts, 0, sizeof(opts));
	xnvme_opts_set_defaults(&opts);
	return opts;
}
