/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the fuzz harnesses: fuzz_fail() reports a broken invariant and aborts. The message
 * goes to stderr and, when a sanitizer runtime is linked, also to the sanitizer's report
 * stream as a SUMMARY line: scripts/fuzz.sh closes the targets' stderr (-close_fd_mask=2, the
 * library prints a line per refused open) and libFuzzer keeps that stream.
 */
#ifndef XNVME_FUZZ_COMMON_H
#define XNVME_FUZZ_COMMON_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void
__sanitizer_report_error_summary(const char *error_summary) __attribute__((weak));

static void
fuzz_fail(const char *who, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

static void
fuzz_fail(const char *who, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	int n;

	n = snprintf(msg, sizeof(msg), "%s: ", who);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", msg);
	fflush(stderr);
	if (__sanitizer_report_error_summary) {
		__sanitizer_report_error_summary(msg);
	}
	abort();
}

#endif /* XNVME_FUZZ_COMMON_H */
