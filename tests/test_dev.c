// SPDX-License-Identifier: BSD-3-Clause
/*
 * Device open semantics: option defaults and write-back, reported mechanisms, explicit
 * choices honoured or refused with a reason, the most specific open error, repeated and
 * concurrent opens, lazy identification from many threads, NULL-safe cleanup, getters.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <libxnvme.h>
#include "xnvme_test.h"

static void
test_opts_defaults(void)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_opts raw;

	CHECK_EQ(opts.rdwr, 1);
	CHECK_EQ(opts.nsid, 1);
	CHECK_EQ(opts.admin_timeout, 60000000);
	CHECK_EQ(opts.command_timeout, 30000000);
	CHECK_EQ(opts.create_mode, 0600);
	CHECK(!opts.be && !opts.mem && !opts.sync && !opts.async && !opts.admin);

	memset(&raw, 0xAB, sizeof(raw));
	xnvme_opts_set_defaults(&raw);
	CHECK_EQ(raw.rdwr, 1);
	CHECK_EQ(raw.rdonly, 0xAB); /* untouched */
	CHECK_EQ(raw.poll_io, 0xAB);
}

static void
test_ident_from_uri(void)
{
	struct xnvme_ident ident;
	char longuri[XNVME_IDENT_URI_LEN + 8];

	CHECK_EQ(xnvme_ident_from_uri("/dev/nvme0n1", &ident), 0);
	CHECK(!strcmp(ident.uri, "/dev/nvme0n1"));
	CHECK_EQ(ident.dtype, 0);
	CHECK_EQ(ident.nsid, 0xFFFFFFFF);
	CHECK_EQ(ident.csi, 0xFF);

	memset(longuri, 'a', sizeof(longuri));
	longuri[XNVME_IDENT_URI_LEN] = '\0'; /* 384 characters: one too many */
	CHECK_EQ(xnvme_ident_from_uri(longuri, &ident), -EINVAL);
	longuri[XNVME_IDENT_URI_LEN - 1] = '\0';
	CHECK_EQ(xnvme_ident_from_uri(longuri, &ident), 0);
}

static void
test_open_ramdisk(void)
{
	struct xnvme_opts opts = xnvme_opts_default();
	const struct xnvme_opts *eff;
	const struct xnvme_ident *ident;
	const struct xnvme_geo *geo;
	struct xnvme_dev *dev;

	opts.rdwr = 0; /* none of rdonly/wronly/rdwr: open sets rdwr */
	dev = xnvme_dev_open("1GB", &opts);
	CHECK(dev);
	if (!dev) {
		return;
	}
	CHECK_EQ(opts.rdwr, 1);

	eff = xnvme_dev_get_opts(dev);
	CHECK(!strcmp(eff->be, "ramdisk"));
	CHECK(!strcmp(eff->admin, "ramdisk"));
	CHECK(!strcmp(eff->sync, "ramdisk"));
	CHECK(!strcmp(eff->async, "thrpool"));
	CHECK(!strcmp(eff->mem, "posix"));

	ident = xnvme_dev_get_ident(dev);
	CHECK(!strcmp(ident->uri, "1GB"));
	CHECK_EQ(ident->dtype, 5);
	CHECK_EQ(ident->nsid, 1);
	CHECK_EQ(ident->csi, XNVME_SPEC_CSI_NVM);
	CHECK_EQ(xnvme_dev_get_nsid(dev), 1);
	CHECK_EQ(xnvme_dev_get_csi(dev), XNVME_SPEC_CSI_NVM);

	geo = xnvme_dev_get_geo(dev);
	CHECK_EQ(geo->type, XNVME_GEO_CONVENTIONAL);
	CHECK_EQ(geo->nbytes, 512);
	CHECK_EQ(geo->lba_nbytes, 512);
	CHECK_EQ(geo->ssw, 9);
	CHECK_EQ(geo->tbytes, 1ULL << 30);
	CHECK_EQ(geo->nsect, (1ULL << 30) / 512);
	CHECK_EQ(geo->npugrp * geo->npunit * geo->nzone, 1);
	CHECK(geo->mdts_nbytes >= 4096);
	CHECK_EQ(xnvme_dev_get_ssw(dev), 9);
	CHECK_EQ(xnvme_dev_get_ns(dev)->nsze, (1ULL << 30) / 512);
	CHECK(xnvme_dev_get_ctrlr(dev)->mn[0] != 0);
	CHECK(xnvme_dev_get_ctrlr_css(dev) != NULL);
	CHECK(xnvme_dev_get_ns_css(dev) != NULL);
	CHECK_EQ(xnvme_dev_derive_geo(dev), 0);
	CHECK(geo == xnvme_dev_get_geo(dev)); /* clients cache the pointer */
	CHECK_EQ(geo->tbytes, 1ULL << 30);

	xnvme_dev_close(dev);
}

static void
test_open_errors(const char *dir)
{
	struct xnvme_opts opts = xnvme_opts_default();
	char path[512];
	char longuri[XNVME_IDENT_URI_LEN + 1];

	errno = 0;
	CHECK(!xnvme_dev_open(NULL, NULL));
	CHECK_EQ(errno, EINVAL);

	snprintf(path, sizeof(path), "%s/does-not-exist", dir);
	errno = 0;
	CHECK(!xnvme_dev_open(path, NULL));
	CHECK_EQ(errno, ENOENT);

	errno = 0;
	CHECK(!xnvme_dev_open(dir, NULL)); /* a directory is not a device */
	CHECK_EQ(errno, EINVAL);

	memset(longuri, 'a', sizeof(longuri) - 1);
	longuri[sizeof(longuri) - 1] = '\0';
	errno = 0;
	CHECK(!xnvme_dev_open(longuri, NULL));
	CHECK_EQ(errno, EINVAL);

	opts.be = "no-such-backend";
	errno = 0;
	CHECK(!xnvme_dev_open("1GB", &opts));
	CHECK_EQ(errno, EINVAL);

	opts = xnvme_opts_default();
	opts.be = "spdk"; /* known, but not built into this library */
	errno = 0;
	CHECK(!xnvme_dev_open("1GB", &opts));
	CHECK_EQ(errno, ENOSYS);

	opts = xnvme_opts_default();
	opts.async = "no-such-mechanism";
	errno = 0;
	CHECK(!xnvme_dev_open("1GB", &opts));
	CHECK(errno != 0 && errno != ENOENT);

	opts = xnvme_opts_default();
	opts.async = "posix"; /* the ramdisk has no posix aio: refused, not replaced */
	errno = 0;
	CHECK(!xnvme_dev_open("1GB", &opts));
	CHECK(errno != 0);

	CHECK(!xnvme_dev_open("0GB", NULL));
	CHECK(!xnvme_dev_open("1G", NULL));
	CHECK(!xnvme_dev_open("GB", NULL));
}

static void
test_explicit_mechanisms(void)
{
	const char *asyncs[] = {"emu", "thrpool", "nil"};

	for (size_t i = 0; i < sizeof(asyncs) / sizeof(asyncs[0]); ++i) {
		struct xnvme_opts opts = xnvme_opts_default();
		struct xnvme_dev *dev;

		opts.async = asyncs[i];
		opts.mem = "posix";
		dev = xnvme_dev_open("1GB", &opts);
		CHECK(dev);
		if (!dev) {
			continue;
		}
		CHECK(!strcmp(xnvme_dev_get_opts(dev)->async, asyncs[i]));
		CHECK(!strcmp(xnvme_dev_get_opts(dev)->mem, "posix"));

		/* reported names (static strings) are accepted again by a later open */
		opts = *xnvme_dev_get_opts(dev);
		xnvme_dev_close(dev);
		dev = xnvme_dev_open("1GB", &opts);
		CHECK(dev);
		xnvme_dev_close(dev);
	}
}

static void
test_file_open(const char *dir)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/dev.img", dir);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(ftruncate(fd, 8 << 20), 0);
	close(fd);

	dev = xnvme_dev_open(path, &opts);
	CHECK(dev);
	if (!dev) {
		return;
	}
	CHECK(!strcmp(xnvme_dev_get_opts(dev)->be, "linux"));
	CHECK(!strcmp(xnvme_dev_get_opts(dev)->async, "emu"));
	CHECK(!strcmp(xnvme_dev_get_opts(dev)->sync, "psync"));
	CHECK(!strcmp(xnvme_dev_get_opts(dev)->admin, "file_as_ns"));
	CHECK_EQ(xnvme_dev_get_ident(dev)->dtype, 4);
	CHECK_EQ(xnvme_dev_get_csi(dev), XNVME_SPEC_CSI_FS);
	CHECK_EQ(xnvme_dev_get_nsid(dev), 1);
	CHECK_EQ(xnvme_dev_get_geo(dev)->tbytes, 8 << 20);
	CHECK_EQ(xnvme_dev_get_geo(dev)->ssw, 9);
	CHECK_EQ(xnvme_dev_get_geo(dev)->lba_nbytes, 512);
	CHECK_EQ(xnvme_dev_get_geo(dev)->mdts_nbytes, 1 << 20);
	xnvme_dev_close(dev);

	/* the old id of the file shim is accepted as a name */
	opts = xnvme_opts_default();
	opts.admin = "file_as_ns";
	dev = xnvme_dev_open(path, &opts);
	CHECK(dev);
	xnvme_dev_close(dev);
}

struct race {
	struct xnvme_dev *dev;
	const struct xnvme_geo *geo;
	uint32_t nsid;
};

static void *
race_getters(void *arg)
{
	struct race *r = arg;

	r->geo = xnvme_dev_get_geo(r->dev);
	r->nsid = xnvme_dev_get_nsid(r->dev);
	return NULL;
}

static void
test_lazy_ident_race(void)
{
	for (int round = 0; round < 6; ++round) {
		struct xnvme_dev *dev = xnvme_dev_open("1GB", NULL);
		pthread_t threads[4];
		struct race r[4];

		CHECK(dev);
		if (!dev) {
			return;
		}
		for (int i = 0; i < 4; ++i) {
			r[i].dev = dev;
			pthread_create(&threads[i], NULL, race_getters, &r[i]);
		}
		for (int i = 0; i < 4; ++i) {
			pthread_join(threads[i], NULL);
			CHECK(r[i].geo == r[0].geo);
			CHECK_EQ(r[i].geo->tbytes, 1ULL << 30);
			CHECK_EQ(r[i].nsid, 1);
		}
		xnvme_dev_close(dev);
	}
}

static void
test_repeated_and_concurrent_opens(void)
{
	struct xnvme_dev *a, *b;

	for (int i = 0; i < 10; ++i) {
		a = xnvme_dev_open("1GB", NULL);
		CHECK(a);
		xnvme_dev_close(a);
	}
	a = xnvme_dev_open("1GB", NULL);
	b = xnvme_dev_open("1GB", NULL);
	CHECK(a && b && a != b);
	xnvme_dev_close(a);
	xnvme_dev_close(b);
}

static void
test_null_safety(void)
{
	xnvme_dev_close(NULL);
	CHECK_EQ(xnvme_queue_term(NULL), -EINVAL);
	xnvme_buf_virt_free(NULL);
	xnvme_buf_free(NULL, NULL);
	CHECK(xnvme_dev_get_geo(NULL) == NULL);
	CHECK(xnvme_dev_get_opts(NULL) == NULL);
	CHECK_EQ(xnvme_queue_init(NULL, 16, 0, NULL), -EINVAL);
}

static void
test_be_attr_list(void)
{
	const char *names[] = {"spdk",    "linux", "fbsd", "macos", "windows",
			       "ramdisk", "vfio",  "tcp",  "rdma"};
	struct xnvme_be_attr_list *list = NULL;

	CHECK_EQ(xnvme_be_attr_list_bundled(&list), 0);
	if (!list) {
		return;
	}
	CHECK_EQ(list->count, 9);
	CHECK_EQ(list->capacity, 9);
	for (int i = 0; i < 9; ++i) {
		CHECK(!strcmp(list->item[i].name, names[i]));
	}
	CHECK_EQ(list->item[1].enabled, 1);
	CHECK_EQ(list->item[5].enabled, 1);
	CHECK_EQ(list->item[0].enabled, 0);
	CHECK_EQ(list->item[7].enabled, 1);
	xnvme_buf_virt_free(list);
}

static void
test_version(void)
{
	char buf[128] = {0};
	FILE *stream = fmemopen(buf, sizeof(buf), "w");

	CHECK_EQ(xnvme_ver_major(), 0);
	CHECK_EQ(xnvme_ver_minor(), 7);
	CHECK_EQ(xnvme_ver_patch(), 5);
	CHECK(stream);
	if (!stream) {
		return;
	}
	CHECK_EQ(xnvme_ver_fpr(stream, XNVME_PR_DEF),
		 (int)strlen("ver: {major: 0, minor: 7, patch: 5}"));
	fclose(stream);
	CHECK(!strcmp(buf, "ver: {major: 0, minor: 7, patch: 5}"));
	CHECK(xnvme_libconf[0] != NULL);
}

int
main(void)
{
	char dir[] = "/tmp/xnvme-test-dev-XXXXXX";
	char path[600];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_opts_defaults();
	test_ident_from_uri();
	test_open_ramdisk();
	test_open_errors(dir);
	test_explicit_mechanisms();
	test_file_open(dir);
	test_lazy_ident_race();
	test_repeated_and_concurrent_opens();
	test_null_safety();
	test_be_attr_list();
	test_version();

	snprintf(path, sizeof(path), "%s/dev.img", dir);
	unlink(path);
	rmdir(dir);
	return xnvme_test_result("test_dev");
}
