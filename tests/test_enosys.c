// SPDX-License-Identifier: BSD-3-Clause
/*
 * A kernel without a feature: a seccomp filter makes io_uring_setup and io_setup answer
 * ENOSYS, as on kernels built without io_uring or AIO. Asking for io_uring or libaio on a
 * regular file must then fail with -ENOSYS (at open or queue init) and a reason naming the
 * mechanism (xnvme_last_error()); never a crash or a silent fallback to another mechanism.
 * (io_uring_cmd needs an NVMe char device; the guest suite covers it.)
 * Exit: 0 pass, 1 fail, 77 skip (seccomp filters unavailable).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <libxnvme.h>
#include "xnvme_test.h"

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

static int
deny_enosys(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_setup, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		return -errno;
	}
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		return -errno;
	}
	return 0;
}

/* Opens `path` with the async mechanism and creates a queue, capturing the reason and stderr */
static void
expect_enosys(const char *path, const char *mech, const char *logpath)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_queue *queue = NULL;
	struct xnvme_dev *dev;
	char log[4096] = {0};
	char why[1024] = {0};
	int saved = dup(2), fd, err;

	fd = open(logpath, O_CREAT | O_TRUNC | O_RDWR, 0600);
	dup2(fd, 2);

	opts.async = mech;
	errno = 0;
	dev = xnvme_dev_open(path, &opts);
	if (!dev) {
		err = -errno;
		snprintf(why, sizeof(why), "%s", xnvme_last_error());
	} else {
		err = xnvme_queue_init(dev, 8, 0, &queue);
		snprintf(why, sizeof(why), "%s", xnvme_last_error());
		if (!err) {
			/* no fallback: the mechanism in use must still be the one asked for */
			CHECK(!strcmp(xnvme_dev_get_opts(dev)->async, mech));
			xnvme_queue_term(queue);
		}
		xnvme_dev_close(dev);
	}

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	if (read(fd, log, sizeof(log) - 1) < 0) {
		log[0] = '\0';
	}
	close(fd);

	printf("%s: err %d, reason: '%s', stderr: %s", mech, err, why, log[0] ? log : "(empty)\n");
	CHECK_EQ(err, -ENOSYS);
	/* the reason names the mechanism, through xnvme_last_error(); the library prints nothing */
	CHECK(strstr(why, mech) != NULL);
	CHECK(strstr(log, "xnvme_queue_init") == NULL);
}

int
main(void)
{
	char path[] = "/tmp/xnvme-test-enosys-XXXXXX";
	char logpath[] = "/tmp/xnvme-test-enosys-log-XXXXXX";
	int fd, lfd;

	fd = mkstemp(path);
	lfd = mkstemp(logpath);
	if (fd < 0 || lfd < 0 || ftruncate(fd, 1 << 20)) {
		perror("temporary files");
		return 1;
	}
	close(lfd);
	if (deny_enosys()) {
		fprintf(stderr, "skip: cannot install a seccomp filter\n");
		unlink(path);
		unlink(logpath);
		return XNVME_TEST_SKIP;
	}
	expect_enosys(path, "io_uring", logpath);
	expect_enosys(path, "libaio", logpath);

	close(fd);
	unlink(path);
	unlink(logpath);
	return xnvme_test_result("test_enosys");
}
