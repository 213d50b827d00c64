// SPDX-License-Identifier: BSD-3-Clause
/*
 * check_support of the Linux mechanisms, by what they serve: block devices, regular files and
 * block devices, NVMe device nodes. Each refusal leaves a reason in dev->errmsg.
 */
#include <errno.h>
#include <string.h>
#include "be_linux.h"

int
xnvme_be_linux_check_block(struct xnvme_dev *dev)
{
	const struct xnvme_be_linux_state *state = xnvme_be_linux_state(dev);

	if (!state) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP, "serves Linux block devices only");
	}
	if (state->ftype != XNVME_BE_LINUX_BLOCK) {
		return xnvme_dev_set_errmsg(
			dev, -ENOTSUP, "not a block device: '%s' is %s", dev->ident.uri,
			state->ftype == XNVME_BE_LINUX_FILE ? "a regular file"
							    : "an NVMe character device");
	}
	return 0;
}

int
xnvme_be_linux_check_file_or_block_for(struct xnvme_dev *dev, const char *mech)
{
	const struct xnvme_be_linux_state *state = xnvme_be_linux_state(dev);

	if (state && state->ftype != XNVME_BE_LINUX_CHAR) {
		return 0;
	}
	if (!state || !mech) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP,
					    "serves regular files and block devices only");
	}
	return xnvme_dev_set_errmsg(dev, -ENOTSUP,
				    "%s moves bytes of files and block devices; '%s' is an NVMe "
				    "char device (use io_uring_cmd)",
				    mech, dev->ident.uri);
}

int
xnvme_be_linux_check_file_or_block(struct xnvme_dev *dev)
{
	return xnvme_be_linux_check_file_or_block_for(dev, NULL);
}

int
xnvme_be_linux_nvme_check(struct xnvme_dev *dev)
{
	const struct xnvme_be_linux_state *state = xnvme_be_linux_state(dev);

	if (!state) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP, "serves Linux NVMe device nodes only");
	}
	if (state->nvme) {
		return 0;
	}
	if (state->ftype == XNVME_BE_LINUX_FILE) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP,
					    "not an NVMe device: '%s' is a regular file",
					    dev->ident.uri);
	}
	return xnvme_dev_set_errmsg(dev, -ENOTSUP,
				    "not an NVMe device: '%s' does not answer NVME_IOCTL_ID (%s)",
				    dev->ident.uri, strerror(state->nvme_id_err));
}
