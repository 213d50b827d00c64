// SPDX-License-Identifier: BSD-3-Clause
/*
 * Buffers: device allocations are page-aligned and rounded up to whole pages (clients read a
 * full LBA into a tiny buffer), plain aligned buffers, fill patterns, diff, and -ENOSYS (never a
 * crash) for what the POSIX allocator cannot do. File round trips: test_buf_file.c.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <libxnvme.h>
#include "xnvme_test.h"

static void
test_dev_buffers(struct xnvme_dev *dev)
{
	long pagesize = sysconf(_SC_PAGESIZE);
	uint64_t phys = 0;
	uint8_t *buf;

	buf = xnvme_buf_alloc(dev, 160);
	CHECK(buf);
	if (!buf) {
		return;
	}
	CHECK_EQ((uintptr_t)buf % pagesize, 0);
	memset(buf, 0xEE, pagesize); /* a whole page is usable: valgrind/ASan verify */
	CHECK_EQ(xnvme_buf_vtophys(dev, buf, &phys), -ENOSYS);
	CHECK_EQ(xnvme_mem_map(dev, buf, pagesize), -ENOSYS);
	CHECK_EQ(xnvme_mem_unmap(dev, buf), -ENOSYS);
	errno = 0;
	CHECK(xnvme_buf_realloc(dev, buf, 8192) == NULL);
	CHECK_EQ(errno, ENOSYS);
	xnvme_buf_free(dev, buf);
	xnvme_buf_free(dev, NULL);

	errno = 0;
	CHECK(xnvme_buf_alloc(dev, 0) == NULL);
	CHECK_EQ(errno, EINVAL);

	buf = xnvme_buf_phys_alloc(dev, 4096, &phys);
	CHECK(buf);
	xnvme_buf_phys_free(dev, buf);
}

static void
test_virt(void)
{
	uint8_t *buf;

	buf = xnvme_buf_virt_alloc(4096, 100);
	CHECK(buf);
	CHECK_EQ((uintptr_t)buf % 4096, 0);
	memset(buf, 1, 4096); /* rounded up to the alignment */
	xnvme_buf_virt_free(buf);

	buf = xnvme_buf_virt_alloc(2, 3);
	CHECK(buf);
	xnvme_buf_virt_free(buf);

	errno = 0;
	CHECK(xnvme_buf_virt_alloc(4096, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(xnvme_buf_virt_alloc(3000, 10) == NULL);
	CHECK_EQ(errno, EINVAL);
	xnvme_buf_virt_free(NULL);
}

static void
test_fill_diff(void)
{
	uint8_t a[1000], b[1000];

	CHECK_EQ(xnvme_buf_fill(a, sizeof(a), "anum"), 0);
	for (size_t i = 0; i < sizeof(a); ++i) {
		if (a[i] != 'A' + i % 26) {
			CHECK(!"anum pattern");
			break;
		}
	}
	CHECK_EQ(xnvme_buf_fill(b, sizeof(b), "ascii"), 0);
	CHECK_EQ(xnvme_buf_diff(a, b, sizeof(a)), 0);

	CHECK_EQ(xnvme_buf_fill(a, sizeof(a), "rand-k"), 0);
	CHECK_EQ(xnvme_buf_fill(b, sizeof(b), "rand-k"), 0);
	CHECK_EQ(xnvme_buf_diff(a, b, sizeof(a)), 0); /* reproducible */
	for (size_t i = 0; i < sizeof(a); ++i) {
		if (a[i] < 'A' || a[i] > 'Z') {
			CHECK(!"rand-k gives upper-case letters");
			break;
		}
	}
	CHECK_EQ(xnvme_buf_fill(b, sizeof(b), "rand-t"), 0);
	CHECK(xnvme_buf_diff(a, b, sizeof(a)) > 0);

	CHECK_EQ(xnvme_buf_fill(a, sizeof(a), "zero"), 0);
	CHECK(xnvme_buf_clear(b, sizeof(b)) == b);
	CHECK_EQ(xnvme_buf_diff(a, b, sizeof(a)), 0);
	b[3] = 1;
	b[999] = 2;
	CHECK_EQ(xnvme_buf_diff(a, b, sizeof(a)), 2);
	/* the file round trips: tests/test_buf_file.c */
}

int
main(void)
{
	struct xnvme_dev *dev;

	dev = xnvme_dev_open("1GB", NULL);
	CHECK(dev);
	if (dev) {
		test_dev_buffers(dev);
		xnvme_dev_close(dev);
	}
	test_virt();
	test_fill_diff();
	return xnvme_test_result("test_buf");
}
