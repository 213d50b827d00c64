/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Internal helpers of the printers in lib/pp/ (not installed).
 *
 * Every printer emits block-style YAML with two-space indentation and returns the number of
 * characters written. The helpers below each print one complete line (or one value) and return
 * their own character count, so that a printer is a sum of helper calls.
 *
 * Value conventions: counts in decimal, identifiers/flags/raw bit-field words in hex with 0x,
 * LBAs as 0x + 16 hex digits, strings single-quoted (see xnvme_pp_qstr()), enums by name.
 */
#ifndef XNVME_PP_H
#define XNVME_PP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <libxnvme.h>

/** Non-zero when `opts` selects YAML output; XNVME_PR_DEF and XNVME_PR_YAML are the same */
static inline int
xnvme_pp_is_yaml(int opts)
{
	return opts == XNVME_PR_DEF || opts == XNVME_PR_YAML;
}

/** The one-line note for an unsupported print mode: "# ENOSYS: opts(0x2)" */
int
xnvme_pp_nosys(FILE *stream, int opts);

/**
 * Common start of a struct printer: the ENOSYS note for non-YAML modes, "<name>: ~" for a NULL
 * object, else the "<name>:" head line. Adds the characters written to *wrtn and returns
 * non-zero when the caller should go on printing the members (at indent 2).
 */
int
xnvme_pp_begin(FILE *stream, int opts, const char *name, const void *obj, int *wrtn);

/** "<key>:" */
int
xnvme_pp_head(FILE *stream, int indent, const char *key);

/** "<key>: ~" */
int
xnvme_pp_null(FILE *stream, int indent, const char *key);

/** "<key>: <val>" in decimal */
int
xnvme_pp_dec(FILE *stream, int indent, const char *key, uint64_t val);

/** "<key>: 0x<val>" */
int
xnvme_pp_hex(FILE *stream, int indent, const char *key, uint64_t val);

/** "<key>: 0x<val as 16 hex digits>", used for LBAs and 64-bit addresses */
int
xnvme_pp_hex64(FILE *stream, int indent, const char *key, uint64_t val);

/** "<key>: <name>" where name is a plain scalar such as an enum constant name */
int
xnvme_pp_name(FILE *stream, int indent, const char *key, const char *name);

/**
 * Prints `buf` as a single-quoted YAML scalar: at most `maxlen` bytes, stopping at a NUL,
 * trailing spaces trimmed (NVMe space-pads sn/mn/fr), single quotes doubled and every byte
 * outside printable ASCII shown as '?'. Prints ~ for NULL.
 */
int
xnvme_pp_qstr(FILE *stream, const void *buf, size_t maxlen);

/** "<key>: '<str>'" via xnvme_pp_qstr(), "<key>: ~" for NULL */
int
xnvme_pp_str(FILE *stream, int indent, const char *key, const void *str, size_t maxlen);

/** "<key>: <N>" for a 128-bit little-endian counter (NVMe log counters) in decimal */
int
xnvme_pp_u128le(FILE *stream, int indent, const char *key, const uint8_t *le);

/** "<key>: [0x.., 0x.., ...]" for a byte array */
int
xnvme_pp_bytes(FILE *stream, int indent, const char *key, const uint8_t *buf, size_t nbytes);

/** "<key>: [a, b, ...]" for an array of 64-bit words in decimal */
int
xnvme_pp_u64s(FILE *stream, int indent, const char *key, const uint64_t *vals, size_t nvals);

#endif /* XNVME_PP_H */
