/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The assertion header of every C test program (tests/, tests/guest/); helpers of a group of
 * tests (conc_common.h, async_kernel_common.h) build on it.
 *
 * Exit status: 0 pass, 1 fail, 77 skip (XNVME_TEST_SKIP, meson's skip code). The rule:
 *  - 77 only when the whole program cannot run for a reason outside the tree: a kernel feature,
 *    a privilege (loop devices, /dev/nvme*), a device, or an optional dependency this build
 *    was configured without. Print the reason on stdout first ("SKIP: ...").
 *  - When only some cases cannot run for such a reason, print "# skip <case>: <reason>", go on
 *    with the others, and exit 0 or 1 from those.
 *  - Everything the test sets up itself (files, the ramdisk, buffers, queues) and everything
 *    the library claims to support failing is a failed check (1), never a skip.
 *
 * Checks count into xnvme_test_ncheck / xnvme_test_nfail: one pair per program (weak
 * definitions shared by the program's translation units, compiled helpers included), safe to
 * use from any thread. A program ends its checks with `return xnvme_test_result("name");` (a
 * helper of several modes, as tests/guest/test_vfio.c, does so in each mode that checks).
 */
#ifndef XNVME_TEST_H
#define XNVME_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libxnvme.h>

#define XNVME_TEST_SKIP 77

/* NVMe status code types, and the generic status codes the tests expect */
#define SCT_GENERIC 0
#define SCT_CMDSPEC 1
#define SCT_MEDIA 2
#define SC_INVALID_OPCODE 0x01
#define SC_INVALID_FIELD 0x02

/* Weak on ELF: one pair shared by every source file of a program. PE/COFF weak definitions are
 * unreliable (a test failed there with no check reporting it), and the Windows programs are one
 * file each, so they keep a pair per file. */
#ifdef _WIN32
#define XNVME_TEST_COUNTER static
#else
#define XNVME_TEST_COUNTER __attribute__((weak))
#endif
XNVME_TEST_COUNTER _Atomic int xnvme_test_nfail;
XNVME_TEST_COUNTER _Atomic int xnvme_test_ncheck;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		xnvme_test_ncheck++;                                                               \
		if (!(cond)) {                                                                     \
			xnvme_test_nfail++;                                                        \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);            \
		}                                                                                  \
	} while (0)

/*
 * Prints a failed check as one piece, whichever thread fails:
 * "FAIL [<who>/<what> ]<function>:<line>: <condition>: <message>"
 */
__attribute__((format(printf, 6, 7))) static inline void
xnvme_test_fail(const char *who, const char *what, const char *func, int line, const char *cond,
		const char *fmt, ...)
{
	char msg[1024];
	int n;
	va_list ap;

	/* one formatted line, one fputs: stdio writes it whole even with other threads failing */
	n = snprintf(msg, sizeof(msg), "FAIL %s%s%s%s%s:%d: %s: ", who ? who : "", who ? "/" : "",
		     who ? what : "", who ? " " : "", func, line, cond);
	if (n < 0 || (size_t)n >= sizeof(msg)) {
		n = 0;
	}
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	strcat(msg, "\n");
	fputs(msg, stderr);
}

/* CHECK naming what was tested (two strings, e.g. target and mechanism), a printf message */
#define CHECK_AT(who, what, cond, ...)                                                             \
	do {                                                                                       \
		bool ok_ = (cond);                                                                 \
		xnvme_test_ncheck++;                                                               \
		if (!ok_) {                                                                        \
			xnvme_test_nfail++;                                                        \
			xnvme_test_fail((who), (what), __func__, __LINE__, #cond, __VA_ARGS__);    \
		}                                                                                  \
	} while (0)

/* CHECK with a printf message after the condition: CHECKF(n == 4, "n=%d", n) */
#define CHECKF(cond, ...) CHECK_AT(NULL, NULL, cond, __VA_ARGS__)

#define CHECK_EQ(a, b)                                                                             \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b);                                \
		xnvme_test_ncheck++;                                                               \
		if (a_ != b_) {                                                                    \
			xnvme_test_nfail++;                                                        \
			fprintf(stderr, "FAIL %s:%d: %s == %s (%lld != %lld)\n", __FILE__,         \
				__LINE__, #a, #b, a_, b_);                                         \
		}                                                                                  \
	} while (0)

/* The command of `ctx` succeeded: returned 0 and completed without an NVMe status */
#define CHECK_OK(err, ctx)                                                                         \
	do {                                                                                       \
		CHECK_EQ(err, 0);                                                                  \
		CHECK_EQ(xnvme_cmd_ctx_cpl_status(&(ctx)), 0);                                     \
	} while (0)

/* The command of `ctx` failed (any error) with the NVMe status sct_/sc_ */
#define CHECK_STATUS(err, ctx, sct_, sc_)                                                          \
	do {                                                                                       \
		CHECK((err) != 0);                                                                 \
		CHECK_EQ((ctx).cpl.status.sct, sct_);                                              \
		CHECK_EQ((ctx).cpl.status.sc, sc_);                                                \
	} while (0)

/* The command of `ctx` failed with -EIO, the error of an NVMe status, and status sct_/sc_ */
#define CHECK_STATUS_EIO(err, ctx, sct_, sc_)                                                      \
	do {                                                                                       \
		CHECK_EQ(err, -EIO);                                                               \
		CHECK_EQ((ctx).cpl.status.sct, sct_);                                              \
		CHECK_EQ((ctx).cpl.status.sc, sc_);                                                \
	} while (0)

/*
 * The options of the device tests: --uri URI (returned; `uri_def` without it), --be NAME and
 * --mech NAME, the synchronous mechanism, and --nsid N (a namespace of a PCI function), into
 * `opts`
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
		} else if (!strcmp(argv[i], "--nsid")) {
			opts->nsid = (uint32_t)strtoul(argv[i + 1], NULL, 0);
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

/* CLOCK_MONOTONIC in nanoseconds, for checks of how long a call took */
static inline uint64_t
xnvme_test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The exit status of a program whose checks are done: 0 none failed, 1 some did */
static inline int
xnvme_test_result(const char *name)
{
	int ncheck = xnvme_test_ncheck, nfail = xnvme_test_nfail;

	printf("%s: %d checks, %d failed\n", name, ncheck, nfail);
	return nfail ? 1 : 0;
}

/* Prints why the program cannot run and returns the skip status: `return xnvme_test_skip(..)` */
static inline int
xnvme_test_skip(const char *why)
{
	printf("SKIP: %s\n", why);
	return XNVME_TEST_SKIP;
}

/* Seconds of CLOCK_MONOTONIC, for bounds on how long something took */
static inline double
xnvme_test_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#ifndef _WIN32
#include <dirent.h>

/* Entries of a directory but "." and "..", e.g. /proc/self/fd or /proc/self/task; -1 when it
 * cannot be read */
static inline int
xnvme_test_dir_entries(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *de;
	int n = 0;

	if (!dir) {
		return -1;
	}
	while ((de = readdir(dir))) {
		n += de->d_name[0] != '.';
	}
	closedir(dir);
	return n;
}
#endif

#endif /* XNVME_TEST_H */
