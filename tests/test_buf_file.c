// SPDX-License-Identifier: BSD-3-Clause
/*
 * The buffer helpers of the file API, on every platform (also run under Wine): the file
 * round trip of xnvme_buf_to_file() / xnvme_buf_from_file() (to_file creates, then replaces
 * the existing file whole: rename / ReplaceFile, see test_buf_file_replace.c for failures;
 * from_file stops at end of file), xnvme_buf_fill() with a path, a file whose name looks like a
 * ramdisk URI ("<N>GB": a file, never the ramdisk), and errors for paths that cannot be opened.
 * The files go to the working directory (meson's: the build tree).
 */
#include <stdio.h>
#include <libxnvme.h>
#include "xnvme_test.h"

static void
test_round_trip(const char *path)
{
	uint8_t a[1000], b[1000];

	xnvme_buf_fill(a, sizeof(a), "anum");
	CHECK_EQ(xnvme_buf_to_file(a, sizeof(a), path), 0);
	memset(b, 0, sizeof(b));
	CHECK_EQ(xnvme_buf_from_file(b, sizeof(b), path), 0);
	CHECK_EQ(xnvme_buf_diff(a, b, sizeof(a)), 0);

	/* a shorter write replaces the file: 10 bytes are left, from_file stops there */
	xnvme_buf_fill(a, sizeof(a), "rand-k");
	CHECK_EQ(xnvme_buf_to_file(a, 10, path), 0);
	memset(b, 0xFF, sizeof(b));
	CHECK_EQ(xnvme_buf_from_file(b, sizeof(b), path), 0);
	CHECK_EQ(xnvme_buf_diff(a, b, 10), 0);
	CHECK_EQ(b[10], 0xFF);
	CHECK_EQ(b[sizeof(b) - 1], 0xFF);

	/* a path as the fill content reads the file */
	memset(b, 0, sizeof(b));
	CHECK_EQ(xnvme_buf_fill(b, 10, path), 0);
	CHECK_EQ(xnvme_buf_diff(a, b, 10), 0);
	CHECK_EQ(remove(path), 0);
}

int
main(void)
{
	char path[64];
	uint8_t a[16] = {0};

	snprintf(path, sizeof(path), "xnvme-test-buf-file-%ld.bin", (long)time(NULL));
	test_round_trip(path);
	/* the name of a ramdisk URI is still a file of the working directory */
	remove("2GB");
	test_round_trip("2GB");

	CHECK(xnvme_buf_from_file(a, sizeof(a), "nonexistent-dir/file") < 0);
	CHECK(xnvme_buf_to_file(a, sizeof(a), "nonexistent-dir/file") < 0);
	CHECK(xnvme_buf_fill(a, sizeof(a), "nonexistent-dir/file") < 0);
	CHECK_EQ(xnvme_buf_to_file(NULL, sizeof(a), path), -EINVAL);
	CHECK_EQ(xnvme_buf_from_file(a, sizeof(a), NULL), -EINVAL);
	return xnvme_test_result("test_buf_file");
}
