// SPDX-License-Identifier: BSD-3-Clause
/*
 * Async mechanism "io_ring": the Windows IoRing API (KernelBase.dll, Windows 11 and Server
 * 2022 on), looked up at run time so that the library loads on older systems. Submission
 * through it is not implemented yet: the mechanism refuses every device with the reason,
 * naming whether the OS has the API at all. Use "iocp".
 */
#include <errno.h>
#include "be_windows.h"

static int
ioring_check_support(struct xnvme_dev *dev)
{
	HMODULE kb = GetModuleHandleA("KernelBase.dll");
	bool present = kb && GetProcAddress(kb, "CreateIoRing");

	if (!present) {
		return xnvme_dev_set_errmsg(dev, -ENOSYS,
					    "async 'io_ring': this Windows has no IoRing API "
					    "(CreateIoRing, Windows 11 / Server 2022); use 'iocp'");
	}
	return xnvme_dev_set_errmsg(dev, -ENOSYS,
				    "async 'io_ring': IoRing submission is not implemented in "
				    "this build; use 'iocp'");
}

const struct xnvme_be_async xnvme_be_windows_async_ioring = {
	.name = "io_ring",
	.check_support = ioring_check_support,
};
