// SPDX-License-Identifier: BSD-3-Clause
/*
 * The windows backend on a file: created through opts.create, buffered and direct
 * (FILE_FLAG_NO_BUFFERING) writes read back and compared through the sync "file" mechanism
 * and the emu/thrpool queues, reads past end of file short, Linux mechanism names refused with
 * ENOSYS, a missing file without opts.create refused. Windows only (runs under Wine).
 * Exit: 0 pass, 1 fail.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>
#include <libxnvme.h>
#include "../xnvme_test.h"

#define NBYTES 65536

static struct xnvme_dev *
open_file(const char *path, bool create, bool direct, const char *sync, const char *async)
{
	struct xnvme_opts opts = xnvme_opts_default();

	opts.create = create;
	opts.direct = direct;
	opts.sync = sync;
	opts.async = async;
	return xnvme_file_open(path, &opts);
}

/* Writes a pattern at `off` and reads it back through the sync path */
static void
check_rw(const char *path, bool direct, uint8_t seed)
{
	struct xnvme_dev *dev = open_file(path, true, direct, NULL, NULL);
	struct xnvme_cmd_ctx ctx;
	uint8_t *wbuf, *rbuf;

	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	CHECK(!strcmp(xnvme_dev_get_opts(dev)->be, "windows"));
	wbuf = xnvme_buf_alloc(dev, NBYTES);
	rbuf = xnvme_buf_alloc(dev, NBYTES);
	CHECK(wbuf && rbuf);
	/* direct I/O needs sector-aligned buffers: the mem mechanism hands out whole pages */
	CHECK(((uintptr_t)wbuf & 4095) == 0);
	for (size_t i = 0; i < NBYTES; ++i) {
		wbuf[i] = (uint8_t)(seed + i * 7);
	}
	ctx = xnvme_file_get_cmd_ctx(dev);
	CHECK_OK(xnvme_file_pwrite(&ctx, wbuf, NBYTES, 4096), ctx);
	CHECK_EQ(ctx.cpl.result, NBYTES);
	CHECK_EQ(xnvme_file_sync(dev), 0);
	memset(rbuf, 0, NBYTES);
	ctx = xnvme_file_get_cmd_ctx(dev);
	CHECK_OK(xnvme_file_pread(&ctx, rbuf, NBYTES, 4096), ctx);
	CHECK_EQ(ctx.cpl.result, NBYTES);
	CHECK(!memcmp(wbuf, rbuf, NBYTES));
	/* past the end: a short read, not an error */
	ctx = xnvme_file_get_cmd_ctx(dev);
	CHECK_OK(xnvme_file_pread(&ctx, rbuf, NBYTES, 4096 + NBYTES), ctx);
	CHECK_EQ(ctx.cpl.result, 0);
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
	xnvme_file_close(dev);
}

int
main(void)
{
	const char *tmp = getenv("TEMP");
	char path[512];
	struct xnvme_dev *dev;

	snprintf(path, sizeof(path), "%s\\xnvme-test-windows-%lu.bin", tmp ? tmp : ".",
		 (unsigned long)GetCurrentProcessId());
	remove(path);

	errno = 0;
	CHECK(open_file(path, false, false, NULL, NULL) == NULL);
	CHECK_EQ(errno, ENOENT);

	check_rw(path, false, 1);
	check_rw(path, true, 2);

	/* mechanisms of the Linux backend: not on Windows */
	errno = 0;
	dev = open_file(path, false, false, NULL, "io_uring");
	CHECK(dev == NULL && errno == ENOSYS);
	errno = 0;
	dev = open_file(path, false, false, "psync", NULL);
	CHECK(dev == NULL && errno == ENOSYS);
	/* io_ring where the OS lacks the IoRing API (as Wine does): refused with the reason */
	errno = 0;
	dev = open_file(path, false, false, NULL, "io_ring");
	if (GetProcAddress(GetModuleHandleA("KernelBase.dll"), "CreateIoRing")) {
		printf("# this Windows has CreateIoRing: io_ring %s\n", dev ? "opened" : "refused");
		xnvme_dev_close(dev);
	} else {
		CHECK(dev == NULL && errno == ENOSYS);
		CHECK(strstr(xnvme_last_error(), "io_ring") != NULL);
		CHECK(strstr(xnvme_last_error(), "no IoRing API") != NULL);
	}

	remove(path);
	return xnvme_test_result("test_windows_file");
}
