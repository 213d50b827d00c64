// SPDX-License-Identifier: BSD-3-Clause
/*
 * Buffers: device buffers through the device's memory mechanism, plain aligned buffers, and
 * the fill/compare helpers used by tools and tests (the file helpers are lib/file.c's).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "xnvme_be.h"
#include "xnvme_bufreg.h"
#include "xnvme_plat.h"

void *
xnvme_buf_alloc(const struct xnvme_dev *dev, size_t nbytes)
{
	return xnvme_buf_phys_alloc(dev, nbytes, NULL);
}

void *
xnvme_buf_phys_alloc(const struct xnvme_dev *dev, size_t nbytes, uint64_t *phys)
{
	void *buf;

	if (!dev || !nbytes) {
		errno = EINVAL;
		return NULL;
	}
	buf = dev->mem->buf_alloc(dev, nbytes, phys);
	xnvme_bufreg_add(buf, nbytes);
	return buf;
}

void *
xnvme_buf_realloc(const struct xnvme_dev *dev, void *buf, size_t nbytes)
{
	return xnvme_buf_phys_realloc(dev, buf, nbytes, NULL);
}

void *
xnvme_buf_phys_realloc(const struct xnvme_dev *dev, void *buf, size_t nbytes, uint64_t *phys)
{
	void *nbuf;

	if (!dev || !nbytes) {
		errno = EINVAL;
		return NULL;
	}
	nbuf = dev->mem->buf_realloc(dev, buf, nbytes, phys);
	if (nbuf) {
		xnvme_bufreg_del(buf);
		xnvme_bufreg_add(nbuf, nbytes);
	}
	return nbuf;
}

void
xnvme_buf_free(const struct xnvme_dev *dev, void *buf)
{
	if (!dev || !buf) {
		return;
	}
	xnvme_bufreg_del(buf);
	dev->mem->buf_free(dev, buf);
}

void
xnvme_buf_phys_free(const struct xnvme_dev *dev, void *buf)
{
	xnvme_buf_free(dev, buf);
}

int
xnvme_buf_vtophys(const struct xnvme_dev *dev, void *buf, uint64_t *phys)
{
	if (!dev || !buf || !phys) {
		return -EINVAL;
	}
	return dev->mem->buf_vtophys(dev, buf, phys);
}

void *
xnvme_buf_virt_alloc(size_t alignment, size_t nbytes)
{
	if (!nbytes || !alignment || (alignment & (alignment - 1))) {
		errno = EINVAL;
		return NULL;
	}
	if (nbytes > SIZE_MAX - alignment) {
		errno = ENOMEM;
		return NULL;
	}
	nbytes = (nbytes + alignment - 1) & ~(alignment - 1);
	if (alignment < sizeof(void *)) {
		alignment = sizeof(void *);
	}
	return xnvme_plat_aligned_alloc(alignment, nbytes);
}

void
xnvme_buf_virt_free(void *buf)
{
	xnvme_plat_aligned_free(buf);
}

/* splitmix64: reproducible for a given seed, and fine with seed 0 */
static uint64_t
prng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static void
fill_rand_letters(uint8_t *buf, size_t nbytes, uint64_t seed)
{
	uint64_t state = seed;

	for (size_t i = 0; i < nbytes; ++i) {
		buf[i] = (uint8_t)('A' + prng_next(&state) % 26);
	}
}

int
xnvme_buf_fill(void *buf, size_t nbytes, const char *content)
{
	uint8_t *bytes = buf;

	if (!buf || !content) {
		return -EINVAL;
	}
	if (!strncmp(content, "anum", 4) || !strncmp(content, "ascii", 5)) {
		for (size_t i = 0; i < nbytes; ++i) {
			bytes[i] = (uint8_t)('A' + i % 26);
		}
		return 0;
	}
	if (!strncmp(content, "rand-k", 6)) {
		fill_rand_letters(bytes, nbytes, 0);
		return 0;
	}
	if (!strncmp(content, "rand-t", 6)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		fill_rand_letters(bytes, nbytes, (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec);
		return 0;
	}
	if (!strncmp(content, "zero", 4)) {
		memset(buf, 0, nbytes);
		return 0;
	}
	return xnvme_buf_from_file(buf, nbytes, content);
}

void *
xnvme_buf_clear(void *buf, size_t nbytes)
{
	if (buf) {
		memset(buf, 0, nbytes);
	}
	return buf;
}

size_t
xnvme_buf_diff(const void *expected, const void *actual, size_t nbytes)
{
	const uint8_t *exp = expected, *act = actual;
	size_t diff = 0;

	if (!expected || !actual) {
		return nbytes;
	}
	for (size_t i = 0; i < nbytes; ++i) {
		diff += exp[i] != act[i];
	}
	return diff;
}

void
xnvme_buf_diff_pr(const void *expected, const void *actual, size_t nbytes, int opts)
{
	const uint8_t *exp = expected, *act = actual;
	size_t diff = 0;

	(void)opts;
	printf("comparison:\n");
	if (!expected || !actual) {
		printf("  diffs: ~\n");
		printf("  nbytes: %zu\n", nbytes);
		printf("  nbytes_diff: %zu\n", nbytes);
		return;
	}
	printf("  diffs:\n");
	for (size_t i = 0; i < nbytes; ++i) {
		if (exp[i] == act[i]) {
			continue;
		}
		printf("    - {byte: %zu, expected: 0x%02x, actual: 0x%02x}\n", i, exp[i], act[i]);
		diff++;
	}
	if (!diff) {
		printf("    []\n");
	}
	printf("  nbytes: %zu\n", nbytes);
	printf("  nbytes_diff: %zu\n", diff);
}
