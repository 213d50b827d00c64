/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture and shape checks of the printer tests (test_printers.c: the library's own
 * objects; test_printers_spec.c: the NVMe structures): a printer's output into memory or from
 * stdout, its return value against the bytes written, lines, strings and the block shape, and
 * the NULL / TERSE / DEF == YAML behaviour every printer shares.
 */
#ifndef XNVME_TEST_PRINTERS_H
#define XNVME_TEST_PRINTERS_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <libxnvme.h>
#include "xnvme_test.h"

#define TERSE_NOTE "# ENOSYS: opts(0x2)\n"

/* Output of one printer call, NUL-terminated, and the call's return value */
struct out {
	char *buf;
	size_t len;
	int ret;
};

static inline void
out_free(struct out *out)
{
	free(out->buf);
	out->buf = NULL;
}

/*
 * Runs `call`, which prints to `stream`, into a memory stream; checks that the return value
 * equals the number of bytes written.
 */
#define CAPTURE(out, call)                                                                         \
	do {                                                                                       \
		FILE *stream;                                                                      \
		(out).buf = NULL;                                                                  \
		(out).len = 0;                                                                     \
		stream = open_memstream(&(out).buf, &(out).len);                                   \
		CHECK(stream);                                                                     \
		if (!stream) {                                                                     \
			exit(1);                                                                   \
		}                                                                                  \
		(out).ret = (call);                                                                \
		fclose(stream);                                                                    \
		CHECK_EQ((out).ret, (out).len);                                                    \
	} while (0)

/* Redirection of stdout into a temporary file, for the *_pr variants */
struct stdout_cap {
	int saved;
	FILE *tmp;
};

static inline void
stdout_begin(struct stdout_cap *cap)
{
	fflush(stdout);
	cap->tmp = tmpfile();
	if (!cap->tmp) {
		perror("tmpfile");
		exit(1);
	}
	cap->saved = dup(STDOUT_FILENO);
	dup2(fileno(cap->tmp), STDOUT_FILENO);
}

static inline void
stdout_end(struct stdout_cap *cap, struct out *out)
{
	long len;

	fflush(stdout);
	dup2(cap->saved, STDOUT_FILENO);
	close(cap->saved);

	len = ftell(cap->tmp);
	out->len = len > 0 ? (size_t)len : 0;
	out->buf = calloc(1, out->len + 1);
	rewind(cap->tmp);
	if (out->len && fread(out->buf, 1, out->len, cap->tmp) != out->len) {
		CHECK(0);
	}
	fclose(cap->tmp);
}

/* Runs `call`, which prints to stdout, and checks its return value against the bytes written */
#define CAPTURE_STDOUT(out, call)                                                                  \
	do {                                                                                       \
		struct stdout_cap cap_;                                                            \
		stdout_begin(&cap_);                                                               \
		(out).ret = (call);                                                                \
		stdout_end(&cap_, &(out));                                                         \
		CHECK_EQ((out).ret, (out).len);                                                    \
	} while (0)

/* Same for the void xnvme_cmd_ctx_pr() */
#define CAPTURE_STDOUT_VOID(out, call)                                                             \
	do {                                                                                       \
		struct stdout_cap cap_;                                                            \
		stdout_begin(&cap_);                                                               \
		call;                                                                              \
		stdout_end(&cap_, &(out));                                                         \
	} while (0)

/* `text` begins with `prefix` */
static inline int
starts_with(const char *text, const char *prefix)
{
	return !strncmp(text, prefix, strlen(prefix));
}

/* `line` (without newline) is one complete line of `text` */
static inline int
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n') {
			return 1;
		}
		p += 1;
	}
	return 0;
}

#define CHECK_LINE(text, line)                                                                     \
	do {                                                                                       \
		xnvme_test_ncheck++;                                                               \
		if (!has_line(text, line)) {                                                       \
			xnvme_test_nfail++;                                                        \
			fprintf(stderr, "FAIL %s:%d: no line \"%s\" in:\n%s\n", __FILE__,          \
				__LINE__, line, text);                                             \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		xnvme_test_ncheck++;                                                               \
		if (strcmp(a, b)) {                                                                \
			xnvme_test_nfail++;                                                        \
			fprintf(stderr, "FAIL %s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, a,   \
				b);                                                                \
		}                                                                                  \
	} while (0)

/* Block-style shape: first line "<name>:", every further line indented by two or more */
static inline void
check_block(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	CHECK(!strncmp(text, name, n) && text[n] == ':' && text[n + 1] == '\n');
	p = strchr(text, '\n');
	while (p && p[1]) {
		CHECK(p[1] == ' ' && p[2] == ' ');
		p = strchr(p + 1, '\n');
	}
	CHECK(text[strlen(text) - 1] == '\n');
}

/* Checks the NULL, TERSE and DEF==YAML behaviour of a printer of the form f(stream, obj, opts) */
#define CHECK_MODES(fn, name, obj)                                                                 \
	do {                                                                                       \
		struct out def_, yaml_, terse_, null_;                                             \
		CAPTURE(def_, fn(stream, obj, XNVME_PR_DEF));                                      \
		CAPTURE(yaml_, fn(stream, obj, XNVME_PR_YAML));                                    \
		CAPTURE(terse_, fn(stream, obj, XNVME_PR_TERSE));                                  \
		CAPTURE(null_, fn(stream, NULL, XNVME_PR_DEF));                                    \
		CHECK_STR(def_.buf, yaml_.buf);                                                    \
		CHECK_STR(terse_.buf, TERSE_NOTE);                                                 \
		CHECK_STR(null_.buf, name ": ~\n");                                                \
		check_block(def_.buf, name);                                                       \
		out_free(&def_);                                                                   \
		out_free(&yaml_);                                                                  \
		out_free(&terse_);                                                                 \
		out_free(&null_);                                                                  \
	} while (0)

/* Checks that `pr` prints to stdout what `fpr` prints to a stream */
#define CHECK_PR_SAME(fpr_call, pr_call)                                                           \
	do {                                                                                       \
		struct out f_, p_;                                                                 \
		CAPTURE(f_, fpr_call);                                                             \
		CAPTURE_STDOUT(p_, pr_call);                                                       \
		CHECK_STR(f_.buf, p_.buf);                                                         \
		out_free(&f_);                                                                     \
		out_free(&p_);                                                                     \
	} while (0)

#endif /* XNVME_TEST_PRINTERS_H */
