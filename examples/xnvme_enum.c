// SPDX-License-Identifier: BSD-3-Clause
/*
 * Enumerate the devices of the system and print each one's identifier.
 */
#include <stdio.h>
#include <libxnvme.h>

static int
on_device(struct xnvme_dev *dev, void *cb_args)
{
	int *count = cb_args;

	*count += 1;
	xnvme_ident_pr(xnvme_dev_get_ident(dev), XNVME_PR_DEF);
	return XNVME_ENUMERATE_DEV_CLOSE;
}

int
main(void)
{
	int count = 0;
	int err;

	err = xnvme_enumerate(NULL, NULL, on_device, &count);
	if (err) {
		xnvme_cli_perr("xnvme_enumerate()", err);
		return 1;
	}
	printf("# devices: %d\n", count);
	return 0;
}
