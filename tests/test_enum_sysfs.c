// SPDX-License-Identifier: BSD-3-Clause
/*
 * Enumeration of the Linux backend from a captured sysfs tree: the test builds a fake tree
 * (directories and attribute files, no device nodes) in a temporary directory and checks the
 * URIs the enumerator would visit (controllers, namespace block devices, generic char
 * devices, numeric order, hidden multipath paths and non-NVMe devices skipped), then that
 * xnvme_enumerate() with the "sysfs:<root>" system URI visits nothing when the /dev nodes do
 * not exist, and that other system URIs are refused by the backend without failing
 * enumeration. Links the static library for the backend-internal lister.
 * Exit: 0 pass, 1 fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <libxnvme.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "be_linux.h"
#include "xnvme_test.h"

static char root[PATH_MAX];

#define MAX_URIS 32

struct uri_list {
	int n;
	char uri[MAX_URIS][80];
};

/* Creates root/<rel> as a directory, and every missing parent */
static void
mkdirs(const char *rel)
{
	char path[PATH_MAX + 80];
	size_t start = strlen(root) + 1;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + start; *p; ++p) {
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	}
	mkdir(path, 0755);
}

static void
mkfile(const char *rel, const char *content)
{
	char path[PATH_MAX + 80];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (fp) {
		fputs(content, fp);
		fclose(fp);
	}
}

static void
build_tree(void)
{
	/* controllers: numeric order must put nvme90 before nvme100 */
	mkdirs("class/nvme/nvme100");
	mkfile("class/nvme/nvme100/serial", "qnvm100\n");
	mkdirs("class/nvme/nvme90");
	mkfile("class/nvme/nvme90/serial", "qnvm90\n");
	mkfile("class/nvme/nvme90/transport", "pcie\n");
	mkdirs("class/nvme/nvme91");
	mkdirs("class/nvme/nvme-fabrics"); /* not a controller */

	/* namespaces: block disks, a hidden multipath path, a loop device */
	mkdirs("block/nvme90n2/queue");
	mkfile("block/nvme90n2/nsid", "2\n");
	mkdirs("block/nvme90n1/queue");
	mkfile("block/nvme90n1/nsid", "1\n");
	mkfile("block/nvme90n1/queue/max_hw_sectors_kb", "512\n");
	mkdirs("block/nvme90n1/nvme90n1p1"); /* partitions live below the disk */
	mkdirs("block/nvme100n1");
	mkdirs("block/nvme90c91n1"); /* hidden per-path disk of native multipath */
	mkdirs("block/loop0");
	mkdirs("block/nvme90n");

	/* generic char devices */
	mkdirs("class/nvme-generic/ng90n2");
	mkdirs("class/nvme-generic/ng90n1");
	mkdirs("class/nvme-generic/ng100n1");
	mkdirs("class/nvme-generic/ngx");
}

static void
rm_tree(const char *path)
{
	char cmd[PATH_MAX + 32];

	/* the tree is ours and below a mkdtemp directory */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd)) {
		fprintf(stderr, "# could not remove %s\n", path);
	}
}

static int
collect(const char *uri, void *arg)
{
	struct uri_list *list = arg;

	if (list->n < MAX_URIS) {
		snprintf(list->uri[list->n], sizeof(list->uri[0]), "%s", uri);
	}
	list->n++;
	return 0;
}

static int
stop_after_two(const char *uri, void *arg)
{
	struct uri_list *list = arg;

	collect(uri, arg);
	return list->n == 2 ? 42 : 0;
}

static int nvisited;

static int
count_visit(struct xnvme_dev *dev, void *arg)
{
	(void)dev;
	(void)arg;
	nvisited++;
	return XNVME_ENUMERATE_DEV_CLOSE;
}

static void
test_uris(void)
{
	static const char *const want[] = {
		"/dev/nvme90",    "/dev/nvme91", "/dev/nvme100", "/dev/nvme90n1", "/dev/nvme90n2",
		"/dev/nvme100n1", "/dev/ng90n1", "/dev/ng90n2",  "/dev/ng100n1",
	};
	const int nwant = (int)(sizeof(want) / sizeof(want[0]));
	struct uri_list list = {0};
	char missing[PATH_MAX + 16];

	CHECK_EQ(xnvme_be_linux_enum_uris(root, collect, &list), 0);
	CHECK_EQ(list.n, nwant);
	for (int i = 0; i < nwant && i < list.n; ++i) {
		if (strcmp(list.uri[i], want[i])) {
			fprintf(stderr, "FAIL uri[%d] = '%s', want '%s'\n", i, list.uri[i],
				want[i]);
			xnvme_test_nfail++;
		}
	}

	/* a non-zero return of the callback stops the listing and is passed on */
	memset(&list, 0, sizeof(list));
	CHECK_EQ(xnvme_be_linux_enum_uris(root, stop_after_two, &list), 42);
	CHECK_EQ(list.n, 2);

	/* a missing tree is an error of the lister; an empty one lists nothing */
	memset(&list, 0, sizeof(list));
	snprintf(missing, sizeof(missing), "%s/nope", root);
	CHECK_EQ(xnvme_be_linux_enum_uris(missing, collect, &list), -ENOENT);
	CHECK_EQ(xnvme_be_linux_enum_uris(NULL, collect, &list), -EINVAL);
	mkdirs("empty");
	snprintf(missing, sizeof(missing), "%s/empty", root);
	CHECK_EQ(xnvme_be_linux_enum_uris(missing, collect, &list), 0);
	CHECK_EQ(list.n, 0);
}

static void
test_enumerate(void)
{
	struct xnvme_opts opts = xnvme_opts_default();
	char sys_uri[PATH_MAX + 16];

	/* the tree names devices whose /dev nodes do not exist here: nothing to visit */
	snprintf(sys_uri, sizeof(sys_uri), "sysfs:%s", root);
	nvisited = 0;
	CHECK_EQ(xnvme_enumerate(sys_uri, NULL, count_visit, NULL), 0);
	CHECK_EQ(nvisited, 0);
	opts.be = "linux";
	CHECK_EQ(xnvme_enumerate(sys_uri, &opts, count_visit, NULL), 0);
	CHECK_EQ(nvisited, 0);

	/* the backend on its own: the extension, and its refusals */
	CHECK_EQ(xnvme_be_linux_enumerate(sys_uri, &opts, count_visit, NULL), 0);
	CHECK_EQ(xnvme_be_linux_enumerate("10.0.0.1:4420", &opts, count_visit, NULL), -ENOSYS);
	CHECK_EQ(xnvme_be_linux_enumerate("sysfs:", &opts, count_visit, NULL), -EINVAL);
	CHECK_EQ(
		xnvme_be_linux_enumerate("sysfs:/nonexistent-xnvme-root", &opts, count_visit, NULL),
		-ENOENT);

	/* errors of a backend never fail xnvme_enumerate */
	CHECK_EQ(xnvme_enumerate("10.0.0.1:4420", &opts, count_visit, NULL), 0);
	CHECK_EQ(nvisited, 0);
}

static void
test_names(void)
{
	uint32_t x = 0, y = 0;

	CHECK_EQ(xnvme_be_linux_nvme_name("nvme0", "nvme", &x, &y), 1);
	CHECK_EQ(x, 0);
	CHECK_EQ(xnvme_be_linux_nvme_name("nvme12n3", "nvme", &x, &y), 2);
	CHECK_EQ(x, 12);
	CHECK_EQ(y, 3);
	CHECK_EQ(xnvme_be_linux_nvme_name("ng1n2", "ng", &x, &y), 2);
	CHECK_EQ(xnvme_be_linux_nvme_name("nvme0c1n1", "nvme", &x, &y), 0);
	CHECK_EQ(xnvme_be_linux_nvme_name("nvme0n1p1", "nvme", &x, &y), 0);
	CHECK_EQ(xnvme_be_linux_nvme_name("nvme-subsys0", "nvme", &x, &y), 0);
	CHECK_EQ(xnvme_be_linux_nvme_name("nvme", "nvme", &x, &y), 0);
	CHECK_EQ(xnvme_be_linux_nvme_name("nvme0n", "nvme", &x, &y), 0);
	CHECK_EQ(xnvme_be_linux_nvme_name("nvme99999999999", "nvme", &x, &y), 0);
	CHECK_EQ(xnvme_be_linux_nvme_name("loop0", "nvme", &x, &y), 0);
}

int
main(void)
{
	snprintf(root, sizeof(root), "%s/xnvme-sysfs-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	build_tree();
	test_names();
	test_uris();
	test_enumerate();
	rm_tree(root);
	return xnvme_test_result("enum_sysfs");
}
