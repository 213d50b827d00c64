// SPDX-License-Identifier: BSD-3-Clause
/*
 * Linux device mechanism: opens any path with open(2) and decides from fstat, sysfs and
 * NVME_IOCTL_ID what it is, then sets the identity and the per-type default mechanisms
 * (docs/linux.md, "Opening"). Mechanisms the caller named are never replaced; whether they can serve
 * the device is their check_support's call, made by the core after this open.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/blkzoned.h>
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
#include "be_linux_nvme.h"

#define NSID_CTRLR 0xFFFFFFFF

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

/* Last component of a symlink's target, e.g. the kernel name behind /sys/dev/block/M:m */
static int
link_base(char *dst, size_t len, const char *link)
{
	char target[PATH_MAX];
	const char *base;
	ssize_t n;

	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0) {
		return -errno;
	}
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= len) {
		return -ENAMETOOLONG;
	}
	strcpy(dst, base);
	return 0;
}

/*
 * The controller (nvmeX) of a namespace node /sys/class/<cls>/<name>. Its parent device is the
 * controller, or the subsystem (nvme-subsysN) for a native-multipath head: then the
 * lowest-numbered controller of the subsystem serves. Last resort: the name's number.
 */
static void
nvme_ctrlr_of(const char *cls, const char *name, char *ctrlr, size_t len)
{
	char path[PATH_MAX], base[XNVME_BE_LINUX_NAME_LEN];
	uint32_t x, y, best = UINT32_MAX;
	struct dirent *entry;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/%s/%s/device", cls, name);
	if (!link_base(base, sizeof(base), path)) {
		if (xnvme_be_linux_nvme_name(base, "nvme", &x, &y) == 1) {
			snprintf(ctrlr, len, "%s", base);
			return;
		}
		dir = opendir(path);
		while (dir && (entry = readdir(dir))) {
			if (xnvme_be_linux_nvme_name(entry->d_name, "nvme", &x, &y) == 1 &&
			    x < best) {
				best = x;
			}
		}
		if (dir) {
			closedir(dir);
		}
		if (best != UINT32_MAX) {
			snprintf(ctrlr, len, "nvme%u", best);
			return;
		}
	}
	if (xnvme_be_linux_nvme_name(name, !strncmp(name, "ng", 2) ? "ng" : "nvme", &x, &y)) {
		snprintf(ctrlr, len, "nvme%u", x);
	}
}

/*
 * The largest transfer the kernel maps for one passthrough command: max_hw_sectors_kb, and one
 * segment per page (user pages are not contiguous; one page is lost to an unaligned start).
 * Without the queue limits in sysfs, 127 pages: the segment limit of the NVMe driver.
 */
static uint32_t
passthru_cap(const struct xnvme_be_linux_state *state)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), segs = 0, kb = 0, cap;

	if (!page || page > (1 << 20)) {
		page = 4096;
	}
	cap = 127 * page;
	if (state->disk[0] &&
	    !xnvme_be_linux_sysfs_u64(&segs, "/sys/block/%s/queue/max_segments", state->disk) &&
	    segs > 1) {
		cap = (segs - 1) * page;
	}
	if (state->disk[0] &&
	    !xnvme_be_linux_sysfs_u64(&kb, "/sys/block/%s/queue/max_hw_sectors_kb", state->disk) &&
	    kb && kb * 1024 < cap) {
		cap = kb * 1024;
	}
	return cap > (UINT32_MAX & ~4095U) ? (UINT32_MAX & ~4095U) : (uint32_t)cap;
}

static int
open_block(struct xnvme_dev *dev, struct xnvme_be_linux_state *state, dev_t rdev)
{
	char path[PATH_MAX], real[PATH_MAX];
	uint64_t nbytes = 0;
	uint32_t zsect = 0, nzones = 0;
	bool partition;
	int ssz = 0, nsid;

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

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(rdev), minor(rdev));
	link_base(state->name, sizeof(state->name), path);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", major(rdev), minor(rdev));
	partition = !access(path, F_OK);
	if (partition) {
		/* queue limits live with the whole disk: the partition's parent directory */
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/..", major(rdev), minor(rdev));
		if (realpath(path, real)) {
			const char *base = strrchr(real, '/');

			base = base ? base + 1 : real;
			if (strlen(base) < sizeof(state->disk)) {
				strcpy(state->disk, base);
			}
		}
	} else {
		snprintf(state->disk, sizeof(state->disk), "%s", state->name);
	}

	/* Zoned block devices; ENOTTY (old kernels) and 0 (loop, ...) mean conventional */
	if (!ioctl(state->fd, BLKGETZONESZ, &zsect) && zsect &&
	    !ioctl(state->fd, BLKGETNRZONES, &nzones)) {
		state->zone_nsect = zsect;
		state->nzones = nzones;
	}

	/*
	 * NVMe namespaces answer with their nsid; others say EINVAL or ENOTTY. A partition is
	 * served as a plain block device: passthrough would address the whole namespace.
	 */
	nsid = partition ? -1 : ioctl(state->fd, NVME_IOCTL_ID);
	state->nvme_id_err = partition ? ENOTTY : (nsid < 0 ? errno : EINVAL);
	if (nsid > 0) {
		state->nvme = true;
		state->nsid = (uint32_t)nsid;
		nvme_ctrlr_of("block", state->name, state->ctrlr_name, sizeof(state->ctrlr_name));
		dev->ident.dtype = 2;
		dev->ident.nsid = state->nsid;
		dev->ident.csi = XNVME_SPEC_CSI_NVM;
		return 0;
	}
	dev->ident.dtype = 3;
	dev->ident.nsid = 1;
	dev->ident.csi = XNVME_SPEC_CSI_FS;
	return 0;
}

static int
open_char(struct xnvme_dev *dev, struct xnvme_be_linux_state *state, dev_t rdev)
{
	char path[PATH_MAX], subsys[XNVME_BE_LINUX_NAME_LEN] = "";
	const char *uri = dev->ident.uri;
	uint32_t x, y;
	int nsid;

	/* sysfs decides: an ioctl number means nothing to arbitrary char drivers */
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/subsystem", major(rdev), minor(rdev));
	link_base(subsys, sizeof(subsys), path);
	if (strcmp(subsys, "nvme") && strcmp(subsys, "nvme-generic")) {
		return xnvme_dev_set_errmsg(dev, -EINVAL,
					    "'%s' is a character device but not an NVMe one", uri);
	}
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u", major(rdev), minor(rdev));
	link_base(state->name, sizeof(state->name), path);
	state->ftype = XNVME_BE_LINUX_CHAR;
	state->nvme = true;

	if (!strcmp(subsys, "nvme")) {
		/* The controller node has no NVME_IOCTL_ID (ENOTTY): it is not a namespace */
		state->ctrlr = true;
		state->nsid = NSID_CTRLR;
		snprintf(state->ctrlr_name, sizeof(state->ctrlr_name), "%s", state->name);
		dev->ident.dtype = 1;
		dev->ident.nsid = NSID_CTRLR;
		dev->ident.csi = XNVME_SPEC_CSI_NVM;
		return 0;
	}

	nsid = ioctl(state->fd, NVME_IOCTL_ID);
	if (nsid <= 0) {
		int err = nsid < 0 ? errno : EINVAL;

		return xnvme_dev_set_errmsg(dev, -err, "'%s': NVME_IOCTL_ID failed: %s", uri,
					    strerror(err));
	}
	state->nsid = (uint32_t)nsid;
	nvme_ctrlr_of("nvme-generic", state->name, state->ctrlr_name, sizeof(state->ctrlr_name));
	/* the generic node ngXnY shares its queue limits with the block disk nvmeXnY */
	if (xnvme_be_linux_nvme_name(state->name, "ng", &x, &y) == 2) {
		snprintf(path, sizeof(path), "/sys/block/nvme%un%u", x, y);
		if (!access(path, F_OK)) {
			snprintf(state->disk, sizeof(state->disk), "nvme%un%u", x, y);
		}
	}
	dev->ident.dtype = 2;
	dev->ident.nsid = state->nsid;
	dev->ident.csi = XNVME_SPEC_CSI_NVM;
	return 0;
}

/* Per-type defaults for the kinds the caller left automatic (table in docs/linux.md) */
static int
pick_defaults(struct xnvme_dev *dev, const struct xnvme_be_linux_state *state)
{
	const char *admin = "file_as_ns", *sync = "psync", *async = "emu";
	int err;

	if (state->nvme) {
		admin = "nvme";
		sync = "nvme";
	} else if (state->ftype == XNVME_BE_LINUX_BLOCK) {
		admin = "block";
		sync = "block";
	}
	err = xnvme_be_pick_default(dev, "posix", admin, sync, NULL);
	if (err) {
		return err;
	}
	/* generic namespace nodes exist for io_uring passthrough: use it when possible */
	if (!dev->async && state->ftype == XNVME_BE_LINUX_CHAR && !state->ctrlr &&
	    xnvme_be_linux_ucmd_supported(dev)) {
		async = "io_uring_cmd";
	}
	return xnvme_be_pick_default(dev, NULL, NULL, NULL, async);
}

static bool
path_is_chr(const char *uri)
{
	struct stat st;

	return !stat(uri, &st) && S_ISCHR(st.st_mode);
}

static int
linux_dev_open(struct xnvme_dev *dev)
{
	struct xnvme_be_linux_state *state;
	const char *uri = dev->ident.uri;
	int flags = open_flags(&dev->opts);
	struct stat st;
	int err;

	state = calloc(1, sizeof(*state));
	if (!state) {
		return -ENOMEM;
	}
	state->fd = open(uri, flags, (mode_t)dev->opts.create_mode);
	if (state->fd < 0 && errno == EINVAL && (flags & O_DIRECT) && path_is_chr(uri)) {
		/*
		 * Char devices have no O_DIRECT; NVMe passthrough bypasses the page cache anyway.
		 * The fallback is visible: the effective options report direct = 0.
		 */
		flags &= ~O_DIRECT;
		dev->opts.direct = 0;
		state->fd = open(uri, flags, (mode_t)dev->opts.create_mode);
	}
	if (state->fd < 0) {
		err = open_fail(dev, errno, dev->opts.create ? "create" : "open");
		free(state);
		return err;
	}
	state->direct = !!(flags & O_DIRECT);
	state->lba_nbytes = 512;
	state->admin_timeout_ms = xnvme_be_linux_timeout_ms(
		dev->opts.admin_timeout, XNVME_BE_LINUX_ADMIN_TIMEOUT_US_DEFAULT);
	state->io_timeout_ms = xnvme_be_linux_timeout_ms(dev->opts.command_timeout,
							 XNVME_BE_LINUX_IO_TIMEOUT_US_DEFAULT);

	if (fstat(state->fd, &st)) {
		err = errno;
		err = xnvme_dev_set_errmsg(dev, -err, "fstat('%s'): %s", uri, strerror(err));
		goto fail;
	}

	if (S_ISREG(st.st_mode)) {
		state->ftype = XNVME_BE_LINUX_FILE;
		state->nbytes = (uint64_t)st.st_size;
		state->nvme_id_err = ENOTTY;
		dev->ident.dtype = 4;
		dev->ident.nsid = 1;
		dev->ident.csi = XNVME_SPEC_CSI_FS;
		err = 0;
	} else if (S_ISBLK(st.st_mode)) {
		err = open_block(dev, state, st.st_rdev);
	} else if (S_ISCHR(st.st_mode)) {
		err = open_char(dev, state, st.st_rdev);
	} else {
		err = xnvme_dev_set_errmsg(
			dev, -EINVAL, "'%s' is neither a regular file nor a block device", uri);
	}
	if (err) {
		goto fail;
	}

	/* O_NONBLOCK only kept open(2) from waiting on FIFOs; I/O here is blocking */
	if (fcntl(state->fd, F_SETFL, fcntl(state->fd, F_GETFL) & ~O_NONBLOCK)) {
		err = errno;
		err = xnvme_dev_set_errmsg(dev, -err, "fcntl('%s'): %s", uri, strerror(err));
		goto fail;
	}

	dev->state = state;
	err = pick_defaults(dev, state);
	if (err) {
		dev->state = NULL;
		err = xnvme_dev_set_errmsg(dev, err, "default mechanisms missing from the build");
		goto fail;
	}

	/* Passthrough transfers are bounded by what the kernel maps for one command */
	dev->mdts_cap_nbytes = 0;
	if (state->nvme && !state->ctrlr &&
	    (dev->sync == &xnvme_be_linux_sync_nvme || !strcmp(dev->async->name, "io_uring_cmd"))) {
		dev->mdts_cap_nbytes = passthru_cap(state);
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

const struct xnvme_be_dev xnvme_be_linux_dev = {
	.enumerate = xnvme_be_linux_enumerate,
	.dev_open = linux_dev_open,
	.dev_close = linux_dev_close,
	.uri_claim = xnvme_be_uri_claim_path,
	.uri_forms = "a path to a file, a block device or an NVMe device",
};
