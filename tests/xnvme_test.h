/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Minimal test helpers shared by the C test programs: each program exits 0 (pass), 1 (fail)
 * or 77 (skip: a kernel feature or device is missing).
 */
#ifndef XNVME_TEST_H
#define XNVME_TEST_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>

#define XNVME_TEST_SKIP 77

/* NVMe status code types, and the generic status codes the tests expect */
#define SCT_GENERIC 0
#define SCT_CMDSPEC 1
#define SCT_MEDIA 2
#define SC_INVALID_OPCODE 0x01
#define SC_INVALID_FIELD 0x02

static int xnvme_test_nfail;
static int xnvme_test_ncheck;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		xnvme_test_ncheck++;                                                         \
		if (!(cond)) {                                                               \
			xnvme_test_nfail++;                                                  \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
		}                                                                            \
	} while (0)

#define CHECK_EQ(a, b)                                                                       \
	do {                                                                                 \
		long long a_ = (long long)(a), b_ = (long long)(b);                          \
		xnvme_test_ncheck++;                                                         \
		if (a_ != b_) {                                                              \
			xnvme_test_nfail++;                                                  \
			fprintf(stderr, "FAIL %s:%d: %s == %s (%lld != %lld)\n", __FILE__,    \
				__LINE__, #a, #b, a_, b_);                                   \
		}                                                                            \
	} while (0)

/* The command of `ctx` succeeded: returned 0 and completed without an NVMe status */
#define CHECK_OK(err, ctx)                                                                   \
	do {                                                                                 \
		CHECK_EQ(err, 0);                                                            \
		CHECK_EQ(xnvme_cmd_ctx_cpl_status(&(ctx)), 0);                               \
	} while (0)

/* The command of `ctx` failed (any error) with the NVMe status sct_/sc_ */
#define CHECK_STATUS(err, ctx, sct_, sc_)                                                    \
	do {                                                                                 \
		CHECK((err) != 0);                                                           \
		CHECK_EQ((ctx).cpl.status.sct, sct_);                                        \
		CHECK_EQ((ctx).cpl.status.sc, sc_);                                          \
	} while (0)

/* The command of `ctx` failed with -EIO, the error of an NVMe status, and status sct_/sc_ */
#define CHECK_STATUS_EIO(err, ctx, sct_, sc_)                                                \
	do {                                                                                 \
		CHECK_EQ(err, -EIO);                                                         \
		CHECK_EQ((ctx).cpl.status.sct, sct_);                                        \
		CHECK_EQ((ctx).cpl.status.sc, sc_);                                          \
	} while (0)

/*
 * The options of the device tests: --uri URI (returned; `uri_def` without it), --be NAME and
 * --mech NAME, the synchronous mechanism, into `opts`
 */
static inline const char *
xnvme_test_args(int argc, char **argv, const char *uri_def, struct xnvme_opts *opts)
{
	const char *uri = uri_def;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--uri")) {
			uri = argv[i + 1];
		} else if (!strcmp(argv[i], "--be")) {
			opts->be = argv[i + 1];
		} else if (!strcmp(argv[i], "--mech")) {
			opts->sync = argv[i + 1];
		}
	}
	return uri;
}

/* xnvme_dev_open(), naming the URI and errno on stderr when it fails */
static inline struct xnvme_dev *
xnvme_test_open(const char *uri, struct xnvme_opts *opts)
{
	struct xnvme_dev *dev = xnvme_dev_open(uri, opts);

	if (!dev) {
		fprintf(stderr, "xnvme_dev_open(%s): errno %d\n", uri, errno);
	}
	return dev;
}

/*
 * Opens the device of a test taking the options of xnvme_test_args(), into *uri: without
 * --uri, `rd_uri` on the ramdisk backend, which sets *ramdisk. NULL when the open fails.
 */
static inline struct xnvme_dev *
xnvme_test_open_args(int argc, char **argv, const char *rd_uri, const char **uri, bool *ramdisk)
{
	struct xnvme_opts opts = xnvme_opts_default();

	*uri = xnvme_test_args(argc, argv, rd_uri, &opts);
	*ramdisk = !strcmp(*uri, rd_uri);
	if (*ramdisk) {
		opts.be = "ramdisk";
	}
	return xnvme_test_open(*uri, &opts);
}

/* xnvme_dev_open() with the given mechanisms (NULL: the default) and O_DIRECT setting */
static inline struct xnvme_dev *
xnvme_test_open_with(const char *uri, const char *admin, const char *sync, const char *async,
		     int direct)
{
	struct xnvme_opts opts = xnvme_opts_default();

	opts.admin = admin;
	opts.sync = sync;
	opts.async = async;
	opts.direct = direct;
	return xnvme_dev_open(uri, &opts);
}

/* Opening each of the `n` URIs on the ramdisk backend fails with errno `errnum` */
static inline void
xnvme_test_open_fails(const char *const *uris, size_t n, int errnum)
{
	struct xnvme_opts opts = xnvme_opts_default();

	opts.be = "ramdisk";
	for (size_t i = 0; i < n; ++i) {
		int nfail = xnvme_test_nfail;
		struct xnvme_dev *dev;

		errno = 0;
		dev = xnvme_dev_open(uris[i], &opts);
		CHECK(dev == NULL);
		CHECK_EQ(errno, errnum);
		if (xnvme_test_nfail != nfail) {
			fprintf(stderr, "  with the URI '%s'\n", uris[i]);
		}
		xnvme_dev_close(dev);
	}
}

/* Whether the `nbytes` of `buf` are all zero */
static inline bool
xnvme_test_all_zero(const void *buf, size_t nbytes)
{
	const uint8_t *bytes = buf;

	for (size_t i = 0; i < nbytes; ++i) {
		if (bytes[i]) {
			return false;
		}
	}
	return true;
}

/* Points the `n` elements of `iov` at consecutive pieces of `buf` of the sizes in `seg` */
static inline void
xnvme_test_iov(struct iovec *iov, void *buf, const size_t *seg, int n)
{
	uint8_t *cur = buf;

	for (int i = 0; i < n; ++i) {
		iov[i].iov_base = cur;
		iov[i].iov_len = seg[i];
		cur += seg[i];
	}
}

static inline int
xnvme_test_result(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, xnvme_test_ncheck, xnvme_test_nfail);
	return xnvme_test_nfail ? 1 : 0;
}

#endif /* XNVME_TEST_H */
