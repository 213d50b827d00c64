// SPDX-License-Identifier: BSD-3-Clause
/*
 * Line and value helpers shared by the printers; see pp.h.
 */
#include <inttypes.h>
#include <string.h>
#include <libxnvme.h>
#include "pp.h"

/* fputc() that reports the number of characters written (0 or 1) */
static int
pp_putc(FILE *stream, int c)
{
	return fputc(c, stream) == EOF ? 0 : 1;
}

int
xnvme_pp_nosys(FILE *stream, int opts)
{
	return fprintf(stream, "# ENOSYS: opts(0x%x)\n", (unsigned int)opts);
}

int
xnvme_pp_begin(FILE *stream, int opts, const char *name, const void *obj, int *wrtn)
{
	if (!xnvme_pp_is_yaml(opts)) {
		*wrtn += xnvme_pp_nosys(stream, opts);
		return 0;
	}
	if (!obj) {
		*wrtn += xnvme_pp_null(stream, 0, name);
		return 0;
	}
	*wrtn += xnvme_pp_head(stream, 0, name);
	return 1;
}

int
xnvme_pp_head(FILE *stream, int indent, const char *key)
{
	return fprintf(stream, "%*s%s:\n", indent, "", key);
}

int
xnvme_pp_null(FILE *stream, int indent, const char *key)
{
	return fprintf(stream, "%*s%s: ~\n", indent, "", key);
}

int
xnvme_pp_dec(FILE *stream, int indent, const char *key, uint64_t val)
{
	return fprintf(stream, "%*s%s: %" PRIu64 "\n", indent, "", key, val);
}

int
xnvme_pp_hex(FILE *stream, int indent, const char *key, uint64_t val)
{
	return fprintf(stream, "%*s%s: 0x%" PRIx64 "\n", indent, "", key, val);
}

int
xnvme_pp_hex64(FILE *stream, int indent, const char *key, uint64_t val)
{
	return fprintf(stream, "%*s%s: 0x%016" PRIx64 "\n", indent, "", key, val);
}

int
xnvme_pp_name(FILE *stream, int indent, const char *key, const char *name)
{
	return fprintf(stream, "%*s%s: %s\n", indent, "", key, name);
}

int
xnvme_pp_qstr(FILE *stream, const void *buf, size_t maxlen)
{
	const char *str = buf;
	size_t len;
	int wrtn = 0;

	if (!str) {
		return pp_putc(stream, '~');
	}

	len = strnlen(str, maxlen);
	while (len && str[len - 1] == ' ') {
		len--;
	}

	wrtn += pp_putc(stream, '\'');
	for (size_t i = 0; i < len; ++i) {
		unsigned char c = (unsigned char)str[i];

		if (c < 0x20 || c > 0x7e) {
			c = '?';
		}
		if (c == '\'') {
			wrtn += pp_putc(stream, '\'');
		}
		wrtn += pp_putc(stream, c);
	}
	wrtn += pp_putc(stream, '\'');

	return wrtn;
}

int
xnvme_pp_str(FILE *stream, int indent, const char *key, const void *str, size_t maxlen)
{
	int wrtn = 0;

	wrtn += fprintf(stream, "%*s%s: ", indent, "", key);
	wrtn += xnvme_pp_qstr(stream, str, maxlen);
	wrtn += pp_putc(stream, '\n');

	return wrtn;
}

/* Decimal digits of a 128-bit little-endian number, by long division over its bytes */
static void
u128le_to_dec(const uint8_t *le, char *out, size_t outlen)
{
	uint8_t num[16];
	char rev[40];
	size_t ndigits = 0;
	int nonzero;

	for (int i = 0; i < 16; ++i) {
		num[i] = le[15 - i];
	}

	do {
		unsigned int rem = 0;

		nonzero = 0;
		for (int i = 0; i < 16; ++i) {
			unsigned int cur = rem * 256 + num[i];

			num[i] = (uint8_t)(cur / 10);
			rem = cur % 10;
			nonzero |= num[i];
		}
		rev[ndigits++] = (char)('0' + rem);
	} while (nonzero && ndigits < sizeof(rev));

	for (size_t i = 0; i < ndigits && i + 1 < outlen; ++i) {
		out[i] = rev[ndigits - 1 - i];
		out[i + 1] = '\0';
	}
}

int
xnvme_pp_u128le(FILE *stream, int indent, const char *key, const uint8_t *le)
{
	char dec[41] = {0};

	u128le_to_dec(le, dec, sizeof(dec));

	return fprintf(stream, "%*s%s: %s\n", indent, "", key, dec);
}

int
xnvme_pp_bytes(FILE *stream, int indent, const char *key, const uint8_t *buf, size_t nbytes)
{
	int wrtn = 0;

	wrtn += fprintf(stream, "%*s%s: [", indent, "", key);
	for (size_t i = 0; i < nbytes; ++i) {
		wrtn += fprintf(stream, "%s0x%02x", i ? ", " : "", buf[i]);
	}
	wrtn += fprintf(stream, "]\n");

	return wrtn;
}

int
xnvme_pp_u64s(FILE *stream, int indent, const char *key, const uint64_t *vals, size_t nvals)
{
	int wrtn = 0;

	wrtn += fprintf(stream, "%*s%s: [", indent, "", key);
	for (size_t i = 0; i < nvals; ++i) {
		wrtn += fprintf(stream, "%s%" PRIu64, i ? ", " : "", vals[i]);
	}
	wrtn += fprintf(stream, "]\n");

	return wrtn;
}
