// SPDX-License-Identifier: BSD-3-Clause
/*
 * Opening files, volumes and NVMe disks: CreateFile with FILE_FLAG_OVERLAPPED (every transfer
 * carries its offset) and FILE_FLAG_NO_BUFFERING for opts.direct. A path that does not exist is
 * "not mine" (-ENOENT) unless opts.create, so "<N>GB" falls through to the ramdisk. A disk,
 * \\.\PhysicalDriveN, that answers Identify Controller through the NVMe property query is served
 * by the "nvme" mechanisms; one that does not (other protocols, Wine) by admin "block" (its
 * geometry) and sync "file", unless the caller named admin "nvme": then the open fails with the
 * reason.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "be_windows.h"
#include "xnvme_plat.h" /* xnvme_plat_windows_errno() */

#define DISK_PREFIX "\\\\.\\PhysicalDrive"
#define DISK_MAX 64 /* enumeration probes \\.\PhysicalDrive0 .. 63 */

int
xnvme_be_windows_errno(DWORD werr)
{
	return xnvme_plat_windows_errno(werr);
}

int
xnvme_be_windows_size(const struct xnvme_be_windows_state *state, uint64_t *nbytes)
{
	LARGE_INTEGER size;

	if (!GetFileSizeEx(state->h, &size)) {
		return -xnvme_be_windows_errno(GetLastError());
	}
	*nbytes = (uint64_t)size.QuadPart;
	return 0;
}

static DWORD
open_disposition(const struct xnvme_opts *opts)
{
	if (opts->create) {
		return opts->truncate ? CREATE_ALWAYS : OPEN_ALWAYS;
	}
	return opts->truncate ? TRUNCATE_EXISTING : OPEN_EXISTING;
}

static DWORD
open_access(const struct xnvme_opts *opts)
{
	if (opts->rdonly && !opts->wronly) {
		return GENERIC_READ;
	}
	if (opts->wronly && !opts->rdonly) {
		return GENERIC_WRITE;
	}
	return GENERIC_READ | GENERIC_WRITE;
}

bool
xnvme_be_windows_is_disk(const char *uri)
{
	size_t n = strlen(DISK_PREFIX);
	const char *p = uri + n;

	if (strncasecmp(uri, DISK_PREFIX, n) || !isdigit((unsigned char)*p)) {
		return false;
	}
	while (isdigit((unsigned char)*p)) {
		p++;
	}
	return *p == '\0';
}

/*
 * Hands the opened `state` to `dev` as one namespace (nsid 1) of device type `dtype` and command
 * set `csi`, with `admin` and `sync` as the default mechanisms; releases it on failure.
 */
static int
open_finish(struct xnvme_dev *dev, struct xnvme_be_windows_state *state, DWORD flags,
	    uint32_t dtype, uint8_t csi, const char *admin, const char *sync)
{
	int err;

	state->flags = flags;
	state->direct = dev->opts.direct;
	state->lba_nbytes = 512;
	dev->ident.dtype = dtype;
	dev->ident.nsid = 1;
	dev->ident.csi = csi;
	dev->state = state;
	err = xnvme_be_pick_default(dev, "windows", admin, sync, "emu");
	if (err) {
		dev->state = NULL;
		CloseHandle(state->h);
		free(state);
	}
	return err;
}

/* Identify Controller through the property query: whether the disk speaks NVMe to us */
static int
disk_probe(struct xnvme_dev *dev, HANDLE h)
{
	struct xnvme_cmd_ctx ctx = {0};
	void *idfy = calloc(1, 4096);
	int err;

	if (!idfy) {
		return -ENOMEM;
	}
	ctx.dev = dev;
	ctx.cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	ctx.cmd.idfy.cns = 1;
	err = xnvme_be_windows_nvme_admin(h, &ctx, idfy, 4096);
	free(idfy);
	return err;
}

static int
disk_open(struct xnvme_dev *dev)
{
	const char *uri = dev->ident.uri;
	DWORD flags = FILE_FLAG_OVERLAPPED | (dev->opts.direct ? FILE_FLAG_NO_BUFFERING : 0);
	struct xnvme_be_windows_state *state;
	uint32_t sector_nbytes = 0;
	uint64_t nbytes = 0;
	DWORD werr;
	int err;

	state = calloc(1, sizeof(*state));
	if (!state) {
		return -ENOMEM;
	}
	state->access = open_access(&dev->opts);
	state->h = CreateFileA(uri, state->access, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
			       OPEN_EXISTING, flags, NULL);
	if (state->h == INVALID_HANDLE_VALUE) {
		werr = GetLastError();
		free(state);
		/* -ENODEV, not -ENOENT: the reason must outrank the ramdisk's "not a size" */
		err = xnvme_be_windows_errno(werr);
		err = err == ENOENT ? ENODEV : err;
		return xnvme_dev_set_errmsg(dev, -err, "CreateFile('%s'): Win32 error %lu (%s)",
					    uri, (unsigned long)werr,
					    err == EACCES ? "disks need administrator rights"
							  : "no such disk");
	}
	state->disk = true;
	err = disk_probe(dev, state->h);
	if (!err) {
		state->nvme = true;
		/* a namespace: Windows shows each one as a disk */
		return open_finish(dev, state, flags, 2, XNVME_SPEC_CSI_NVM, "nvme", "nvme");
	}
	/* No NVMe answer: the disk as one NVM namespace of the geometry, unless "nvme" was named */
	if (!(dev->opts.admin && !strcmp(dev->opts.admin, "nvme")) &&
	    !xnvme_be_windows_geometry(state->h, &sector_nbytes, &nbytes)) {
		err = open_finish(dev, state, flags, 2, XNVME_SPEC_CSI_NVM, "block", "file");
		if (!err) {
			state->lba_nbytes = sector_nbytes;
		}
		return err;
	}
	CloseHandle(state->h);
	free(state);
	return xnvme_dev_set_errmsg(
		dev, err < 0 ? err : -EIO,
		"'%s' answers no NVMe Identify through IOCTL_STORAGE_QUERY_PROPERTY (%s): "
		"not an NVMe disk, or the driver (or Wine) offers no protocol-specific queries%s",
		uri, strerror(err < 0 ? -err : EIO),
		dev->opts.admin && !strcmp(dev->opts.admin, "nvme")
			? ""
			: "; nor a disk geometry for admin 'block'");
}

static int
windows_dev_open(struct xnvme_dev *dev)
{
	const char *uri = dev->ident.uri;
	DWORD flags = FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OVERLAPPED;
	struct xnvme_be_windows_state *state;
	int err;

	if (xnvme_be_windows_is_disk(uri)) {
		return disk_open(dev);
	}
	if (!dev->opts.create && GetFileAttributesA(uri) == INVALID_FILE_ATTRIBUTES) {
		return xnvme_dev_set_errmsg(dev, -ENOENT, "'%s' does not exist (no opts.create)",
					    uri);
	}
	state = calloc(1, sizeof(*state));
	if (!state) {
		return -ENOMEM;
	}
	flags |= dev->opts.direct ? FILE_FLAG_NO_BUFFERING : 0;
	state->h = CreateFileA(uri, open_access(&dev->opts), FILE_SHARE_READ | FILE_SHARE_WRITE,
			       NULL, open_disposition(&dev->opts), flags, NULL);
	if (state->h == INVALID_HANDLE_VALUE) {
		DWORD werr = GetLastError();

		free(state);
		err = xnvme_be_windows_errno(werr);
		return xnvme_dev_set_errmsg(dev, -err, "CreateFile('%s'): Win32 error %lu", uri,
					    (unsigned long)werr);
	}
	state->access = open_access(&dev->opts);
	/* a file: the file-system command set */
	return open_finish(dev, state, flags, 4, XNVME_SPEC_CSI_FS, "file", "file");
}

static void
windows_dev_close(struct xnvme_dev *dev)
{
	struct xnvme_be_windows_state *state = dev->state;

	if (!state) {
		return;
	}
	CloseHandle(state->h);
	free(state);
	dev->state = NULL;
}

/*
 * Lists the NVMe disks: every \\.\PhysicalDriveN (N < 64) that opens and answers the NVMe
 * Identify query. A disk that is absent, or speaks another protocol, is skipped; files are not
 * enumerated. `sys_uri` (remote systems) is not supported.
 */
static int
windows_enumerate(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
		  void *cb_args)
{
	struct xnvme_opts nvme_opts = *opts;

	if (sys_uri && sys_uri[0]) {
		return -ENOSYS;
	}
	nvme_opts.admin = "nvme"; /* NVMe disks only, as on Linux */
	for (int i = 0; i < DISK_MAX; ++i) {
		char uri[32];

		snprintf(uri, sizeof(uri), "\\\\.\\PhysicalDrive%d", i);
		xnvme_be_enumerate_visit(uri, &nvme_opts, cb_func, cb_args);
	}
	return 0;
}

const struct xnvme_be_dev xnvme_be_windows_dev = {
	.enumerate = windows_enumerate,
	.dev_open = windows_dev_open,
	.dev_close = windows_dev_close,
	.uri_claim = xnvme_be_uri_claim_path,
	.uri_forms = "a path to a file, a volume or a disk \\\\.\\PhysicalDriveN",
};
