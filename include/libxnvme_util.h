/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Small helpers shared by every public header: static assertions, min/max, log2, bit-string
 * formatting and a monotonic nanosecond timer. Everything here is header-only except the clock
 * the timer samples (xnvme_timer_clock_ns(), in the library).
 *
 * Thread safety: every function here is safe from any thread; a struct xnvme_timer belongs to
 * the thread using it (the *_pr functions print to stdout, whole lines per call).
 */
#ifndef LIBXNVME_UTIL_H
#define LIBXNVME_UTIL_H

#include <assert.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#ifdef _WIN32
/* Windows has no <sys/uio.h>: struct iovec with its POSIX layout */
struct iovec {
	void *iov_base;
	size_t iov_len;
};
#else
#include <sys/uio.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Pins sizes and offsets at file scope. Supplies its own semicolon: clients (fio) write
 * `XNVME_STATIC_ASSERT(cond, "msg")` without one. Expands to nothing where `static_assert` is
 * not a macro (C++, pre-C11 C).
 */
#if !defined(__cplusplus) && defined(static_assert)
#define XNVME_STATIC_ASSERT(cond, msg) static_assert(cond, msg);
#else
#define XNVME_STATIC_ASSERT(cond, msg)
#endif

/**
 * The bound of a flexible array member, declared `__extension__ type name[XNVME_FLEX];`: ISO C's
 * `[]`. C++ has no flexible array members, so there it is GNU's zero-length array, which lays
 * out the same. The __extension__ keeps -pedantic quiet in C++ and where a struct ending in one
 * is itself an array element (the NVMe log pages nest them).
 */
#ifdef __cplusplus
#define XNVME_FLEX 0
#else
#define XNVME_FLEX
#endif

#define XNVME_UNUSED(x) UNUSED_##x __attribute__((unused))

#define XNVME_UNIVERSAL_SECT_SH 9

#define XNVME_SIZEOF_MEMBER(type, member) (sizeof(((type *)0)->member))

#define XNVME_I8_FMT "%c%c%c%c%c%c%c%c"
#define XNVME_I8_TO_STR(i8)                                                                        \
	(((i8)&0x80) ? '1' : '0'), (((i8)&0x40) ? '1' : '0'), (((i8)&0x20) ? '1' : '0'),           \
		(((i8)&0x10) ? '1' : '0'), (((i8)&0x08) ? '1' : '0'), (((i8)&0x04) ? '1' : '0'),   \
		(((i8)&0x02) ? '1' : '0'), (((i8)&0x01) ? '1' : '0')

#define XNVME_I16_FMT XNVME_I8_FMT XNVME_I8_FMT
#define XNVME_I16_TO_STR(i16) XNVME_I8_TO_STR((i16) >> 8), XNVME_I8_TO_STR(i16)

#define XNVME_I32_FMT XNVME_I16_FMT XNVME_I16_FMT
#define XNVME_I32_TO_STR(i32) XNVME_I16_TO_STR((i32) >> 16), XNVME_I16_TO_STR(i32)

#define XNVME_I64_FMT XNVME_I32_FMT XNVME_I32_FMT
#define XNVME_I64_TO_STR(i64) XNVME_I32_TO_STR((i64) >> 32), XNVME_I32_TO_STR(i64)

#ifdef XNVME_DEBUG_ENABLED
#define XNVME_DEBUG(...)                                                                           \
	do {                                                                                       \
		fprintf(stderr, "# DBG:%s:%s-%d: ", __FILE__, __func__, __LINE__);                 \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fprintf(stderr, "\n");                                                             \
	} while (0)
#else
#define XNVME_DEBUG(...)
#endif

/** Print modes of every printer; DEF and YAML print the same YAML-like text */
enum xnvme_pr {
	XNVME_PR_DEF = 0x0,
	XNVME_PR_YAML = 0x1,
	XNVME_PR_TERSE = 0x2,
};

/** floor(log2(x)); 0 for x <= 1 */
static inline uint64_t
XNVME_ILOG2(uint64_t x)
{
	uint64_t val = 0;

	while (x >>= 1) {
		val++;
	}
	return val;
}

static inline int
XNVME_MIN(int x, int y)
{
	return x < y ? x : y;
}

static inline uint64_t
XNVME_MIN_U64(uint64_t x, uint64_t y)
{
	return x < y ? x : y;
}

static inline int64_t
XNVME_MIN_S64(int64_t x, int64_t y)
{
	return x < y ? x : y;
}

static inline int
XNVME_MAX(int x, int y)
{
	return x > y ? x : y;
}

/** Start/stop samples of a monotonic clock, in nanoseconds */
struct xnvme_timer {
	uint64_t start;
	uint64_t stop;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_timer) == 16, "Incorrect size")

/**
 * The monotonic clock that struct xnvme_timer samples, in nanoseconds from an arbitrary start
 * (CLOCK_MONOTONIC on POSIX systems and Windows). A library call rather than an inline
 * clock_gettime(): the header then needs no POSIX declarations from <time.h>, so a program
 * compiled as strict ISO C (-std=c11, no feature macros) times with the same clock.
 * Additive to the xNVMe 0.7.5 API.
 * Thread safety: safe from any thread.
 * @return nanoseconds; differences of two calls are elapsed time, never negative
 */
uint64_t
xnvme_timer_clock_ns(void);

static inline uint64_t
_xnvme_timer_clock_sample(void)
{
	return xnvme_timer_clock_ns();
}

static inline uint64_t
xnvme_timer_start(struct xnvme_timer *t)
{
	t->start = _xnvme_timer_clock_sample();
	return t->start;
}

static inline uint64_t
xnvme_timer_stop(struct xnvme_timer *t)
{
	t->stop = _xnvme_timer_clock_sample();
	return t->stop;
}

static inline uint64_t
xnvme_timer_elapsed_nsecs(struct xnvme_timer *t)
{
	return t->stop - t->start;
}

static inline double
xnvme_timer_elapsed_secs(struct xnvme_timer *t)
{
	return (double)(t->stop - t->start) / 1000000000.0;
}

static inline double
xnvme_timer_elapsed(struct xnvme_timer *t)
{
	return xnvme_timer_elapsed_secs(t);
}

static inline double
xnvme_timer_elapsed_msecs(struct xnvme_timer *t)
{
	return (double)(t->stop - t->start) / 1000000.0;
}

static inline double
xnvme_timer_elapsed_usecs(struct xnvme_timer *t)
{
	return (double)(t->stop - t->start) / 1000.0;
}

static inline void
xnvme_timer_pr(struct xnvme_timer *t, const char *prefix)
{
	printf("%s: {elapsed: %.4f}\n", prefix, xnvme_timer_elapsed_secs(t));
}

static inline void
xnvme_timer_bw_pr(struct xnvme_timer *t, const char *prefix, size_t nbytes)
{
	double secs = xnvme_timer_elapsed_secs(t);
	double mib = (double)nbytes / (double)(1 << 20);

	printf("%s: {elapsed: %.4f, mib: %.2f, mib_sec: %.2f}\n", prefix, secs, mib,
	       secs > 0.0 ? mib / secs : 0.0);
}

/** non-zero iff val is a non-zero power of two */
static inline int
xnvme_is_pow2(uint32_t val)
{
	return val && !(val & (val - 1));
}

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_UTIL_H */
