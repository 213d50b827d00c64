// SPDX-License-Identifier: BSD-3-Clause
/*
 * Enumeration of NVMe devices from sysfs: controllers (/sys/class/nvme/nvmeX), namespace block
 * devices (/sys/block/nvmeXnY; the hidden per-path disks nvmeXcYnZ of native multipath are
 * skipped, they have no device node) and generic namespace char devices
 * (/sys/class/nvme-generic/ngXnY). Non-NVMe block devices are not listed.
 *
 * sys_uri NULL reads /sys; "sysfs:<root>" reads the tree at <root> instead (our extension, for
 * tests on captured trees and for chroots); any other sys_uri names a remote system, which
 * this backend cannot reach (-ENOSYS). Device URIs are always /dev/<name>.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "be_linux.h"

#define SYSFS_URI_PREFIX "sysfs:"

struct enum_entry {
	uint32_t x, y;
	char name[XNVME_BE_LINUX_NAME_LEN];
};

struct enum_group {
	const char *dir;    ///< below the sysfs root
	const char *prefix; ///< kernel name prefix
	int kind;           ///< 1: controller-like names, 2: namespace-like names
};

static int
entry_cmp(const void *a, const void *b)
{
	const struct enum_entry *ea = a, *eb = b;

	if (ea->x != eb->x) {
		return ea->x < eb->x ? -1 : 1;
	}
	if (ea->y != eb->y) {
		return ea->y < eb->y ? -1 : 1;
	}
	return 0;
}

/* Lists one group's names in numeric order; a missing directory is an empty group */
static int
enum_group(const char *root, const struct enum_group *grp, int (*cb)(const char *, void *),
	   void *arg)
{
	struct enum_entry *entries = NULL;
	size_t n = 0, cap = 0;
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int ret = 0;

	if (snprintf(path, sizeof(path), "%s/%s", root, grp->dir) >= (int)sizeof(path)) {
		return -ENAMETOOLONG;
	}
	dir = opendir(path);
	if (!dir) {
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	}
	while ((de = readdir(dir))) {
		uint32_t x = 0, y = 0;

		if (xnvme_be_linux_nvme_name(de->d_name, grp->prefix, &x, &y) != grp->kind ||
		    strlen(de->d_name) >= XNVME_BE_LINUX_NAME_LEN) {
			continue;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct enum_entry *grown = realloc(entries, ncap * sizeof(*entries));

			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			entries = grown;
			cap = ncap;
		}
		entries[n].x = x;
		entries[n].y = y;
		strcpy(entries[n].name, de->d_name);
		n++;
	}
	closedir(dir);

	if (!ret && n) {
		qsort(entries, n, sizeof(*entries), entry_cmp);
	}
	for (size_t i = 0; !ret && i < n; ++i) {
		char uri[XNVME_BE_LINUX_NAME_LEN + 8];

		snprintf(uri, sizeof(uri), "/dev/%s", entries[i].name);
		ret = cb(uri, arg);
	}
	free(entries);
	return ret;
}

int
xnvme_be_linux_enum_uris(const char *sysfs_root, int (*cb)(const char *uri, void *arg), void *arg)
{
	static const struct enum_group groups[] = {
		{"class/nvme", "nvme", 1},
		{"block", "nvme", 2},
		{"class/nvme-generic", "ng", 2},
	};
	struct stat st;

	if (!sysfs_root || !cb) {
		return -EINVAL;
	}
	if (stat(sysfs_root, &st)) {
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		return -ENOTDIR;
	}
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); ++i) {
		int ret = enum_group(sysfs_root, &groups[i], cb, arg);

		if (ret) {
			return ret;
		}
	}
	return 0;
}

struct enum_visit {
	struct xnvme_opts *opts;
	xnvme_enumerate_cb cb_func;
	void *cb_args;
};

static int
enum_visit(const char *uri, void *arg)
{
	struct enum_visit *visit = arg;
	struct stat st;

	/* sysfs may list what has no node here (captured trees, containers): nothing to open */
	if (stat(uri, &st) && errno == ENOENT) {
		return 0;
	}
	/* a device that cannot be opened is skipped, enumeration goes on (libxnvme_dev.h) */
	xnvme_be_enumerate_visit(uri, visit->opts, visit->cb_func, visit->cb_args);
	return 0;
}

int
xnvme_be_linux_enumerate(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
			 void *cb_args)
{
	struct enum_visit visit = {opts, cb_func, cb_args};
	const char *root = "/sys";
	int err;

	if (sys_uri) {
		if (strncmp(sys_uri, SYSFS_URI_PREFIX, strlen(SYSFS_URI_PREFIX))) {
			return -ENOSYS; /* remote systems are not for this backend */
		}
		root = sys_uri + strlen(SYSFS_URI_PREFIX);
		if (!root[0]) {
			return -EINVAL;
		}
	}
	err = xnvme_be_linux_enum_uris(root, enum_visit, &visit);
	return err < 0 ? err : 0;
}
