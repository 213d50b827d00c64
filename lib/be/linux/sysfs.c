// SPDX-License-Identifier: BSD-3-Clause
/*
 * Small sysfs readers for the Linux backend (open-time and identify-time only, never on the
 * per-command path).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "be_linux.h"

__attribute__((format(printf, 3, 0))) static int
sysfs_vread(char *buf, size_t len, const char *fmt, va_list ap)
{
	char path[PATH_MAX];
	ssize_t got;
	int fd, n;

	if (!len) {
		return -EINVAL;
	}
	n = vsnprintf(path, sizeof(path), fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		return -ENAMETOOLONG;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return -errno;
	}
	do {
		got = read(fd, buf, len - 1);
	} while (got < 0 && errno == EINTR);
	n = got < 0 ? -errno : 0;
	close(fd);
	if (n) {
		return n;
	}
	buf[got] = '\0';
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' ')) {
		buf[--got] = '\0';
	}
	return 0;
}

int
xnvme_be_linux_sysfs_read(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = sysfs_vread(buf, len, fmt, ap);
	va_end(ap);
	return err;
}

int
xnvme_be_linux_sysfs_u64(uint64_t *val, const char *fmt, ...)
{
	char buf[64], *end;
	unsigned long long v;
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = sysfs_vread(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (err) {
		return err;
	}
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf) {
		return -EINVAL;
	}
	*val = v;
	return 0;
}

/* Parses an unsigned decimal without sign or leading garbage; returns the end or NULL */
static const char *
parse_uint(const char *s, uint32_t *val)
{
	uint64_t v = 0;

	if (*s < '0' || *s > '9') {
		return NULL;
	}
	for (; *s >= '0' && *s <= '9'; ++s) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX) {
			return NULL;
		}
	}
	*val = (uint32_t)v;
	return s;
}

int
xnvme_be_linux_nvme_name(const char *name, const char *prefix, uint32_t *x, uint32_t *y)
{
	size_t plen = strlen(prefix);
	const char *s;
	uint32_t a, b;

	if (strncmp(name, prefix, plen)) {
		return 0;
	}
	s = parse_uint(name + plen, &a);
	if (!s) {
		return 0;
	}
	if (!*s) {
		*x = a;
		return 1;
	}
	if (*s != 'n' || !(s = parse_uint(s + 1, &b)) || *s) {
		return 0;
	}
	*x = a;
	*y = b;
	return 2;
}
