// SPDX-License-Identifier: BSD-3-Clause
/*
 * Lists the NVMe devices of the system, one identifier each.
 * Usage: xnvme_enum
 * Example: xnvme_enum
 *
 * Enumerates the devices every backend of the library finds (on Linux the NVMe namespaces and
 * controllers the kernel shows; the ramdisk is made on demand, never listed) and prints each
 * one's identifier, then their number.
 */
#include <stdio.h>
#include <string.h>
#include <libxnvme.h>

static int
on_device(struct xnvme_dev *dev, void *cb_args)
{
	int *count = (int *)cb_args;

	*count += 1;
	xnvme_ident_pr(xnvme_dev_get_ident(dev), XNVME_PR_DEF);
	return XNVME_ENUMERATE_DEV_CLOSE;
}

int
main(int argc, char **argv)
{
	int count = 0;
	int err;

	if (argc > 1) {
		int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");

		fprintf(help ? stdout : stderr,
			"Usage: xnvme_enum\n"
			"Lists the NVMe devices of the system, one identifier each.\n"
			"Example: xnvme_enum\n");
		return help ? 0 : 2;
	}

	err = xnvme_enumerate(NULL, NULL, on_device, &count);
	if (err) {
		xnvme_cli_perr("xnvme_enumerate()", err);
		return 1;
	}
	printf("# devices: %d\n", count);
	return 0;
}
