// SPDX-License-Identifier: BSD-3-Clause
/*
 * Linux device mechanism: opens any path with open(2) and decides from fstat what it is
 * (backends.md §3.3). Regular files and non-NVMe block devices are served here; NVMe nodes are
 * recognised but their mechanisms are not built yet.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "be_linux.h"

/*
 * Access mode. xnvme_opts_default() sets rdwr, so rdonly/wronly can only have been set on
 * purpose: they win (both together mean read-write). The original ORed the three flags, which
 * silently opened "rdonly" handles read-write and gave the invalid mode 3 for wronly.
 */
static int
open_flags(const struct xnvme_opts *opts)
{
	int flags;

	if (opts->rdonly && !opts->wronly) {
		flags = O_RDONLY;
	} else if (opts->wronly && !opts->rdonly) {
		flags = O_WRONLY;
	} else {
		flags = O_RDWR;
	}
	flags |= opts->create ? O_CREAT : 0;
	flags |= opts->truncate ? O_TRUNC : 0;
	flags |= opts->direct ? O_DIRECT : 0;
	/* a FIFO must be rejected, not waited on; a tty must not become ours */
	return flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
}

static int
open_fail(struct xnvme_dev *dev, int err, const char *what)
{
	const char *uri = dev->ident.uri;

	switch (err) {
	case ENOENT:
		if (dev->opts.create) {
			return xnvme_dev_set_errmsg(dev, -ENOENT, "'%s': no such directory", uri);
		}
		return xnvme_dev_set_errmsg(dev, -ENOENT, "'%s' does not exist (no opts.create)",
					    uri);
	case EACCES:
	case EPERM:
		return xnvme_dev_set_errmsg(dev, -err, "permission denied opening '%s' (%s)", uri,
					    what);
	case EISDIR:
		return xnvme_dev_set_errmsg(dev, -EINVAL, "'%s' is a directory", uri);
	case EINVAL:
		if (dev->opts.direct) {
			return xnvme_dev_set_errmsg(dev, -EINVAL,
						    "'%s' cannot be opened with O_DIRECT "
						    "(opts.direct); the file system may lack it",
						    uri);
		}
		break;
	default:
		break;
	}
	return xnvme_dev_set_errmsg(dev, -err, "opening '%s' (%s): %s", uri, what, strerror(err));
}

/* True when a char device belongs to the NVMe driver (controller or generic namespace) */
static bool
chardev_is_nvme(dev_t rdev)
{
	char link[64], target[256];
	const char *base;
	ssize_t len;

	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/subsystem", major(rdev), minor(rdev));
	len = readlink(link, target, sizeof(target) - 1);
	if (len < 0) {
		return false;
	}
	target[len] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	return !strcmp(base, "nvme") || !strcmp(base, "nvme-generic");
}

static int
open_block(struct xnvme_dev *dev, struct xnvme_be_linux_state *state)
{
	uint64_t nbytes = 0;
	int ssz = 0;

	if (ioctl(state->fd, BLKGETSIZE64, &nbytes) || ioctl(state->fd, BLKSSZGET, &ssz)) {
		int err = errno;

		return xnvme_dev_set_errmsg(dev, -err, "'%s': block size ioctls failed: %s",
					    dev->ident.uri, strerror(err));
	}
	if (ssz < 512 || (ssz & (ssz - 1))) {
		return xnvme_dev_set_errmsg(dev, -EINVAL, "'%s': unexpected logical block size %d",
					    dev->ident.uri, ssz);
	}
	state->ftype = XNVME_BE_LINUX_BLOCK;
	state->nbytes = nbytes;
	state->lba_nbytes = (uint32_t)ssz;
	dev->ident.dtype = 3;
	return 0;
}

static int
linux_dev_open(struct xnvme_dev *dev)
{
	struct xnvme_be_linux_state *state;
	const char *uri = dev->ident.uri;
	struct stat st;
	int err;

	state = calloc(1, sizeof(*state));
	if (!state) {
		return -ENOMEM;
	}
	state->fd = open(uri, open_flags(&dev->opts), (mode_t)dev->opts.create_mode);
	if (state->fd < 0) {
		err = open_fail(dev, errno, dev->opts.create ? "create" : "open");
		free(state);
		return err;
	}
	state->direct = dev->opts.direct;
	state->lba_nbytes = 512;

	if (fstat(state->fd, &st)) {
		err = errno;
		err = xnvme_dev_set_errmsg(dev, -err, "fstat('%s'): %s", uri, strerror(err));
		goto fail;
	}

	if (S_ISREG(st.st_mode)) {
		state->ftype = XNVME_BE_LINUX_FILE;
		state->nbytes = (uint64_t)st.st_size;
		dev->ident.dtype = 4;
	} else if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)) {
		/* Block devices: NVME_IOCTL_ID answers with the nsid on NVMe, EINVAL/ENOTTY
		 * elsewhere. Char devices: sysfs decides, an ioctl number means nothing to
		 * arbitrary drivers. */
		if (S_ISCHR(st.st_mode) ? chardev_is_nvme(st.st_rdev)
					: ioctl(state->fd, NVME_IOCTL_ID) >= 0) {
			err = xnvme_dev_set_errmsg(dev, -ENOTSUP,
						   "'%s': NVMe device support (nvme sync/admin "
						   "mechanisms) is not built yet",
						   uri);
			goto fail;
		}
		if (S_ISCHR(st.st_mode)) {
			err = xnvme_dev_set_errmsg(dev, -EINVAL,
						   "'%s' is a character device but not an NVMe one",
						   uri);
			goto fail;
		}
		err = open_block(dev, state);
		if (err) {
			goto fail;
		}
	} else {
		err = xnvme_dev_set_errmsg(dev, -EINVAL,
					   "'%s' is neither a regular file nor a block device",
					   uri);
		goto fail;
	}

	/* O_NONBLOCK only kept open(2) from waiting on FIFOs; I/O here is blocking */
	if (fcntl(state->fd, F_SETFL, fcntl(state->fd, F_GETFL) & ~O_NONBLOCK)) {
		err = errno;
		err = xnvme_dev_set_errmsg(dev, -err, "fcntl('%s'): %s", uri, strerror(err));
		goto fail;
	}

	dev->ident.nsid = 1;
	dev->ident.csi = XNVME_SPEC_CSI_FS;
	dev->state = state;

	/* Dedicated block mechanisms come later; the file shim and psync serve both for now */
	err = xnvme_be_pick_default(dev, "posix", "file_as_ns", "psync", "emu");
	if (err) {
		dev->state = NULL;
		err = xnvme_dev_set_errmsg(dev, err, "default mechanisms missing from the build");
		goto fail;
	}
	return 0;

fail:
	close(state->fd);
	free(state);
	return err;
}

static void
linux_dev_close(struct xnvme_dev *dev)
{
	struct xnvme_be_linux_state *state = dev->state;

	if (!state) {
		return;
	}
	close(state->fd);
	free(state);
	dev->state = NULL;
}

/*
 * Scanning for NVMe and block devices is a later task. Reporting "nothing found" is only
 * honest when the system has no NVMe controllers at all.
 */
static int
linux_enumerate(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
		void *cb_args)
{
	struct dirent *entry;
	bool nvme = false;
	DIR *dir;

	(void)opts;
	(void)cb_func;
	(void)cb_args;

	if (sys_uri) {
		return -ENOSYS; /* remote systems are not for this backend */
	}
	dir = opendir("/sys/class/nvme");
	if (!dir) {
		return 0;
	}
	while ((entry = readdir(dir))) {
		if (entry->d_name[0] != '.') {
			nvme = true;
			break;
		}
	}
	closedir(dir);
	if (nvme) {
		fprintf(stderr, "# xnvme: linux: enumeration of NVMe devices is not built yet\n");
		return -ENOSYS;
	}
	return 0;
}

const struct xnvme_be_dev xnvme_be_linux_dev = {
	.enumerate = linux_enumerate,
	.dev_open = linux_dev_open,
	.dev_close = linux_dev_close,
};
