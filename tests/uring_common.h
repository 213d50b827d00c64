/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the io_uring test programs share (test_io_uring.c: the mechanism and its ring;
 * test_io_uring_bufs.c: registered files and buffers; test_io_uring_cmd.c: io_uring_cmd): the
 * ring of a queue, and a run on the disk file target. They link the static library for the
 * internals of lib/be/linux/be_linux_uring.h (tests/meson.build).
 */
#ifndef XNVME_TEST_URING_COMMON_H
#define XNVME_TEST_URING_COMMON_H

#include "async_kernel_common.h"

#include <dirent.h>
#include <linux/nvme_ioctl.h>
#include <sys/mman.h>
#include "be_linux.h"
#include "be_linux_uring.h"

static inline struct xnvme_be_linux_uring *
ring_of(struct xnvme_queue *q)
{
	return (struct xnvme_be_linux_uring *)q->state;
}

/* The skip of a host without io_uring: 77 with the reason, else 0 */
static inline int
uring_skip(void)
{
	if (!xnvme_be_linux_uring_caps()->ring) {
		printf("SKIP: io_uring unavailable: %s\n",
		       strerror(xnvme_be_linux_uring_caps()->err));
		return XNVME_TEST_SKIP;
	}
	return 0;
}

/*
 * Creates the file target `t`, opens it and runs `fn` on it; false when its file system
 * refuses O_DIRECT (skipped: the caller tries the buffered target), true otherwise (a failed
 * setup counts as a failure)
 */
static inline bool
uring_file_target(struct akt *t, void (*fn)(struct akt *t))
{
	if (akt_mkfile(t->uri, AKT_FILE_NBYTES)) {
		fprintf(stderr, "# %s: cannot create %s\n", t->name, t->uri);
		xnvme_test_nfail++;
		return true;
	}
	if (!akt_target_open(t)) {
		bool nodirect = t->direct && errno == EINVAL;

		if (nodirect) {
			printf("# %s: the file system refuses O_DIRECT: skipped\n", t->name);
		} else {
			xnvme_test_nfail++;
		}
		unlink(t->uri);
		return !nodirect;
	}
	fn(t);
	xnvme_dev_close(t->dev);
	unlink(t->uri);
	return true;
}

/* Runs `fn` on the disk file of `p` with O_DIRECT, or buffered where O_DIRECT is refused */
static inline void
uring_disk_file(const struct akt_paths *p, void (*fn)(struct akt *t))
{
	struct akt t = {.name = "disk-direct",
			.uri = p->ext4d,
			.mech = "io_uring",
			.direct = true,
			.is_file = true};

	if (!uring_file_target(&t, fn)) {
		t = (struct akt){.name = "disk-buffered",
				 .uri = p->ext4,
				 .mech = "io_uring",
				 .is_file = true};
		uring_file_target(&t, fn);
	}
}

#endif /* XNVME_TEST_URING_COMMON_H */
