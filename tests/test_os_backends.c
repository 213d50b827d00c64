// SPDX-License-Identifier: BSD-3-Clause
/*
 * The backend registry is the same on every OS: all seven names are listed, the other OS's
 * backend is listed as not enabled and refuses to open, and a mechanism of the other OS asked
 * of the ramdisk answers -ENOSYS (never a silent fallback). Portable: runs on Linux and, cross
 * built, under Wine.
 * Exit: 0 pass, 1 fail.
 */
#include <errno.h>
#include <string.h>
#include <libxnvme.h>
#include "xnvme_test.h"

/* The other OS's backend and every mechanism only it has */
#ifdef _WIN32
#define OTHER_OS_BE "linux"
#define OTHER_OS_ASYNCS "io_uring", "io_uring_cmd", "libaio", "posix"
#define OTHER_OS_SYNCS "psync", "block"
#else
#define OTHER_OS_BE "windows"
#define OTHER_OS_ASYNCS "iocp", "iocp_th", "io_ring"
#define OTHER_OS_SYNCS "file"
#endif

static const struct xnvme_be_attr *
find_be(const struct xnvme_be_attr_list *list, const char *name)
{
	for (int i = 0; i < list->count; ++i) {
		if (!strcmp(list->item[i].name, name)) {
			return &list->item[i];
		}
	}
	return NULL;
}

static void
check_registry(void)
{
	static const char *const names[] = {"spdk",    "linux", "fbsd", "macos", "windows",
					    "ramdisk", "vfio",  "tcp",  "rdma"};
	struct xnvme_be_attr_list *list = NULL;
	const struct xnvme_be_attr *be;

	CHECK_EQ(xnvme_be_attr_list_bundled(&list), 0);
	if (!list) {
		return;
	}
	CHECK_EQ(list->count, (int)(sizeof(names) / sizeof(names[0])));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
		CHECK(find_be(list, names[i]) != NULL);
	}
	be = find_be(list, "ramdisk");
	CHECK(be && be->enabled);
	be = find_be(list, OTHER_OS_BE);
	CHECK(be && !be->enabled);
	xnvme_buf_virt_free(list);
}

/* Opens "1GB" with one option changed; returns the errno of the failure, 0 when it opened */
static int
open_err(const char *be, const char *sync, const char *async)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;

	opts.be = be;
	opts.sync = sync;
	opts.async = async;
	errno = 0;
	dev = xnvme_dev_open("1GB", &opts);
	if (dev) {
		xnvme_dev_close(dev);
		return 0;
	}
	return errno ? errno : -1;
}

int
main(void)
{
	static const char *const other_asyncs[] = {OTHER_OS_ASYNCS};
	static const char *const other_syncs[] = {OTHER_OS_SYNCS};
	int err;

	check_registry();

	/* the ramdisk is portable: opens with its defaults */
	CHECK_EQ(open_err(NULL, NULL, NULL), 0);

	/* the other OS's backend is not built: the URI is refused */
	err = open_err(OTHER_OS_BE, NULL, NULL);
	CHECK(err != 0);

	/* mechanisms of the other OS: -ENOSYS */
	for (size_t i = 0; i < sizeof(other_asyncs) / sizeof(other_asyncs[0]); ++i) {
		CHECK_EQ(open_err(NULL, NULL, other_asyncs[i]), ENOSYS);
	}
	for (size_t i = 0; i < sizeof(other_syncs) / sizeof(other_syncs[0]); ++i) {
		CHECK_EQ(open_err(NULL, other_syncs[i], NULL), ENOSYS);
	}

	return xnvme_test_result("test_os_backends");
}
