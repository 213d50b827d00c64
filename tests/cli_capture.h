/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the CLI builder tests (test_cli.c, test_cli_tool_opts.c): an argv built from
 * variadic arguments, kept until the next run because parsed values point into it, and the
 * stdout and stderr of a run captured into strings.
 */
#ifndef XNVME_TEST_CLI_CAPTURE_H
#define XNVME_TEST_CLI_CAPTURE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CLI_CAPTURE_MAXARGS 32

struct cli_capture {
	char *argv[CLI_CAPTURE_MAXARGS + 1];
	int argc;
	char *out; ///< stdout of the last run
	char *err; ///< stderr of the last run
	FILE *fout, *ferr;
	int sout, serr;
};

/* Contents of a capture file, written through its descriptor, not through `fp` */
static inline char *
cli_capture_slurp(FILE *fp)
{
	long len;
	char *buf;

	fflush(fp);
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	buf = calloc(1, (size_t)(len > 0 ? len : 0) + 1);
	if (buf && len > 0) {
		rewind(fp);
		if (fread(buf, 1, (size_t)len, fp) != (size_t)len) {
			buf[0] = 0;
		}
	}
	fclose(fp);
	return buf;
}

/* Frees what the last run kept */
static inline void
cli_capture_free(struct cli_capture *c)
{
	for (int i = 0; i < c->argc; ++i) {
		free(c->argv[i]);
	}
	c->argc = 0;
	free(c->out);
	free(c->err);
	c->out = NULL;
	c->err = NULL;
}

/* argv of the next run: `argv0`, then the arguments of `ap` up to a NULL */
static inline void
cli_capture_args(struct cli_capture *c, const char *argv0, va_list ap)
{
	const char *arg;

	cli_capture_free(c);
	c->argv[c->argc++] = strdup(argv0);
	while ((arg = va_arg(ap, const char *)) && c->argc < CLI_CAPTURE_MAXARGS) {
		c->argv[c->argc++] = strdup(arg);
	}
	c->argv[c->argc] = NULL;
}

/* From here to cli_capture_end(), stdout and stderr go to files */
static inline void
cli_capture_begin(struct cli_capture *c)
{
	c->fout = tmpfile();
	c->ferr = tmpfile();
	c->sout = dup(1);
	c->serr = dup(2);
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(c->fout), 1);
	dup2(fileno(c->ferr), 2);
}

static inline void
cli_capture_end(struct cli_capture *c)
{
	fflush(stdout);
	fflush(stderr);
	dup2(c->sout, 1);
	dup2(c->serr, 2);
	close(c->sout);
	close(c->serr);
	c->out = cli_capture_slurp(c->fout);
	c->err = cli_capture_slurp(c->ferr);
}

#endif /* XNVME_TEST_CLI_CAPTURE_H */
