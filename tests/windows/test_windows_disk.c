// SPDX-License-Identifier: BSD-3-Clause
/*
 * Disks on Windows: \\.\PhysicalDriveN through the "nvme" mechanisms, through admin "block"
 * (the disk geometry) where it answers no NVMe query, and enumeration of NVMe disks. Under Wine,
 * which offers no NVMe storage driver, admin "nvme" must fail cleanly (a NULL handle, a known
 * errno and a reason in xnvme_last_error()), while the default open serves PhysicalDrive0 by its
 * geometry, whose identify data must match the geometry ioctl. On a Windows with NVMe disks,
 * each enumerated disk answers Identify. The disk mechanisms refuse files. Windows only.
 * Exit: 0 pass, 1 fail.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>
#include <winioctl.h>
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
check_refused(const char *uri, const char *admin, int want)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;

	opts.admin = admin;
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

/*
 * PhysicalDrive0 as the default open serves it: by NVMe where it answers, else by admin "block"
 * with the geometry the ioctl reports; a read returns data or an error, never garbage success.
 */
static void
check_disk0(void)
{
	const char *uri = "\\\\.\\PhysicalDrive0";
	struct xnvme_opts opts = xnvme_opts_default();
	const struct xnvme_geo *geo;
	DISK_GEOMETRY_EX dg;
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *dev;
	DWORD returned = 0;
	HANDLE h;
	void *buf;
	int err;

	opts.rdonly = 1;
	dev = xnvme_dev_open(uri, &opts);
	if (!dev) {
		/* no disk 0 (or no rights) on this Windows: nothing to compare */
		CHECK(!under_wine());
		printf("# %s: not opened: %s\n", uri, xnvme_last_error());
		return;
	}
	if (!strcmp(xnvme_dev_get_opts(dev)->admin, "nvme")) {
		CHECK(!under_wine());
		CHECK(xnvme_dev_get_ctrlr(dev) != NULL);
		xnvme_dev_close(dev);
		return;
	}
	CHECK(!strcmp(xnvme_dev_get_opts(dev)->admin, "block"));
	CHECK(!strcmp(xnvme_dev_get_opts(dev)->sync, "file"));
	h = CreateFileA(uri, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
			0, NULL);
	CHECK(h != INVALID_HANDLE_VALUE);
	CHECK(DeviceIoControl(h, IOCTL_DISK_GET_DRIVE_GEOMETRY_EX, NULL, 0, &dg, sizeof(dg),
			      &returned, NULL));
	CloseHandle(h);
	geo = xnvme_dev_get_geo(dev);
	CHECK(geo != NULL);
	if (geo) {
		printf("# %s: block: lba_nbytes %u tbytes %llu\n", uri, geo->lba_nbytes,
		       (unsigned long long)geo->tbytes);
		CHECK_EQ(geo->lba_nbytes, dg.Geometry.BytesPerSector);
		CHECK_EQ(geo->tbytes, (uint64_t)dg.DiskSize.QuadPart / dg.Geometry.BytesPerSector *
					      dg.Geometry.BytesPerSector);
	}
	CHECK(xnvme_dev_get_ctrlr(dev) != NULL);
	CHECK(xnvme_dev_get_ns(dev) != NULL);

	/* LBA 0: real Windows reads it; Wine refuses the read: an error with a status */
	buf = xnvme_buf_alloc(dev, 4096);
	CHECK(buf != NULL);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, xnvme_dev_get_nsid(dev), 0, 0, buf, NULL);
	printf("# %s: read LBA 0: %d (status 0x%x)\n", uri, err,
	       (unsigned)xnvme_cmd_ctx_cpl_status(&ctx));
	if (under_wine()) {
		CHECK(err < 0 && xnvme_cmd_ctx_cpl_status(&ctx));
	} else {
		CHECK_EQ(err, 0);
	}
	/* past the end: the LBA range, before the OS sees it */
	if (geo) {
		ctx = xnvme_cmd_ctx_from_dev(dev);
		err = xnvme_nvm_read(&ctx, xnvme_dev_get_nsid(dev), geo->tbytes / geo->lba_nbytes,
				     0, buf, NULL);
		CHECK(err < 0 && ctx.cpl.status.sc == 0x80); /* LBA Out of Range */
	}
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
}

int
main(void)
{
	struct xnvme_opts opts = xnvme_opts_default();
	char path[MAX_PATH];
	struct xnvme_dev *dev;
	FILE *fp;

	/* Wine opens \\.\PhysicalDrive0 but answers no NVMe query: ENOSYS with the reason */
	check_refused("\\\\.\\PhysicalDrive0", "nvme", under_wine() ? ENOSYS : 0);
	check_disk0();
	/* a disk number nobody has */
	check_refused("\\\\.\\PhysicalDrive63", NULL, ENODEV);
	/* lower case is the same name; trailing junk is no disk but a (missing) file */
	check_refused("\\\\.\\physicaldrive63", NULL, ENODEV);
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
	/* admin "block" wants a disk too */
	opts = xnvme_opts_default();
	opts.admin = "block";
	errno = 0;
	dev = xnvme_dev_open(path, &opts);
	CHECK(dev == NULL && errno == ENOTSUP);
	CHECK(strstr(xnvme_last_error(), "needs a disk") != NULL);
	/* with "file" it opens */
	opts = xnvme_opts_default();
	opts.sync = "file";
	dev = xnvme_dev_open(path, &opts);
	CHECK(dev != NULL);
	xnvme_dev_close(dev);
	remove(path);

	return xnvme_test_result("test_windows_disk");
}
