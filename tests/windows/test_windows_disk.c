// SPDX-License-Identifier: BSD-3-Clause
/*
 * NVMe disks on Windows: \\.\PhysicalDriveN through the "nvme" mechanisms, and enumeration.
 * Where the disk or its NVMe queries are missing (always under Wine, which offers no NVMe
 * storage driver) the open must fail cleanly: a NULL handle, a known errno and a reason in
 * xnvme_last_error(). On a Windows with NVMe disks, each enumerated disk answers Identify.
 * The "nvme" mechanisms refuse files. Windows only. Exit: 0 pass, 1 fail.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>
#include <libxnvme.h>
#include "../xnvme_test.h"

static bool
under_wine(void)
{
	HMODULE ntdll = GetModuleHandleA("ntdll.dll");

	return ntdll && GetProcAddress(ntdll, "wine_get_version");
}

static int g_nlisted;

/* An enumerated device: a disk of the windows backend that answers Identify */
static int
enum_cb(struct xnvme_dev *dev, void *arg)
{
	const struct xnvme_opts *opts = xnvme_dev_get_opts(dev);
	const struct xnvme_ident *ident = xnvme_dev_get_ident(dev);

	(void)arg;
	g_nlisted++;
	printf("# listed %s\n", ident->uri);
	CHECK(!strncmp(ident->uri, "\\\\.\\PhysicalDrive", 17));
	CHECK(!strcmp(opts->be, "windows"));
	CHECK(!strcmp(opts->admin, "nvme"));
	CHECK(xnvme_dev_get_ctrlr(dev) != NULL);
	return XNVME_ENUMERATE_DEV_CLOSE;
}

/* A disk that cannot serve: NULL with `want` (0: any of the clean errnos) and a reason */
static void
check_refused(const char *uri, int want)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;

	errno = 0;
	dev = xnvme_dev_open(uri, &opts);
	if (dev) {
		/* a real NVMe disk (not Wine): it must identify */
		CHECK(!under_wine());
		CHECK(xnvme_dev_get_ctrlr(dev) != NULL);
		xnvme_dev_close(dev);
		return;
	}
	if (want) {
		CHECK_EQ(errno, want);
	} else {
		CHECK(errno == ENOSYS || errno == ENOTSUP || errno == ENODEV || errno == EACCES ||
		      errno == EIO);
	}
	CHECK(strstr(xnvme_last_error(), uri) != NULL);
	printf("# %s: errno %d: %s\n", uri, errno, xnvme_last_error());
}

int
main(void)
{
	struct xnvme_opts opts = xnvme_opts_default();
	char path[MAX_PATH];
	struct xnvme_dev *dev;
	FILE *fp;

	/* Wine opens \\.\PhysicalDrive0 but answers no NVMe query: ENOSYS with the reason */
	check_refused("\\\\.\\PhysicalDrive0", under_wine() ? ENOSYS : 0);
	/* a disk number nobody has */
	check_refused("\\\\.\\PhysicalDrive63", ENODEV);
	/* lower case is the same name; trailing junk is no disk but a (missing) file */
	check_refused("\\\\.\\physicaldrive63", ENODEV);
	errno = 0;
	CHECK(xnvme_dev_open("\\\\.\\PhysicalDrive0x", &opts) == NULL);

	/* enumeration: disks that answer, and nothing under Wine */
	CHECK_EQ(xnvme_enumerate(NULL, NULL, enum_cb, NULL), 0);
	if (under_wine()) {
		CHECK_EQ(g_nlisted, 0);
	}

	/* the "nvme" mechanisms refuse files */
	snprintf(path, sizeof(path), "xnvme-test-disk-%lu.bin",
		 (unsigned long)GetCurrentProcessId());
	fp = fopen(path, "wb");
	CHECK(fp != NULL);
	if (fp) {
		fclose(fp);
	}
	opts.admin = "nvme";
	errno = 0;
	dev = xnvme_dev_open(path, &opts);
	CHECK(dev == NULL && errno == ENOTSUP);
	CHECK(strstr(xnvme_last_error(), "NVMe disk") != NULL);
	opts = xnvme_opts_default();
	opts.sync = "nvme";
	errno = 0;
	dev = xnvme_dev_open(path, &opts);
	CHECK(dev == NULL && errno == ENOTSUP);
	/* with "file" it opens */
	opts.sync = "file";
	dev = xnvme_dev_open(path, &opts);
	CHECK(dev != NULL);
	xnvme_dev_close(dev);
	remove(path);

	return xnvme_test_result("test_windows_disk");
}
