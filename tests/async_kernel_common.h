/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checks shared by tests/test_io_uring.c, tests/test_libaio.c and the guest's
 * tests/guest/test_uring_cmd.c: the kernel-async mechanisms of the Linux backend on regular
 * files (buffered and O_DIRECT on an ext4-like file system under /var/tmp, buffered on tmpfs)
 * and on a loop device with direct I/O. Compiled once (async_kernel_common.c, a static library
 * of tests/meson.build); failures count into the checks of xnvme_test.h.
 *
 * Every wait is bounded (AKT_DEADLINE_S): a mechanism that loses a completion fails the test
 * instead of hanging it.
 */
#ifndef AKT_COMMON_H
#define AKT_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <libxnvme.h>
#include <linux/loop.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "xnvme_test.h"

#define AKT_DEADLINE_S 20.0
#define AKT_FILE_NBYTES (64ULL << 20)
#define AKT_NTHREADS 4

struct akt {
	const char *name; ///< target label for messages
	const char *uri;
	const char *mech;
	bool direct;
	bool is_file;
	bool tmpfs;
	bool passthru; ///< NVMe passthrough: cpl.result is the command's result, not a count
	int qopts;     ///< xnvme_queue_init opts of akt_rw_qd
	struct xnvme_dev *dev;
	uint32_t lba;  ///< logical block size
	uint64_t nlba; ///< LBAs the target holds
};

/* A check naming the mechanism and target of `t` (CHECK_AT of xnvme_test.h) */
#define ACHECK(t, cond, ...) CHECK_AT((t)->mech, (t)->name, cond, __VA_ARGS__)

struct akt_rec {
	unsigned int calls;
	int status;
	uint8_t sct, sc;
	uint64_t result;
};

/*
 * The files of a test program, unique to its process: on the disk file system of
 * $XNVME_TEST_DIR (default /var/tmp) for buffered and for O_DIRECT I/O, on tmpfs (/dev/shm),
 * and the backing file of a loop device
 */
struct akt_paths {
	char ext4[256];
	char ext4d[256];
	char shm[256];
	char backing[256];
};

/* Monotonic clock, seconds */
double
akt_now(void);

/* Pokes until nothing is outstanding; every poke must be >= 0. 0, or -ETIMEDOUT / the error */
int
akt_drain(struct xnvme_queue *q);

/* A pattern of `seed` depending on the byte position `pos`: data written and checked back */
void
akt_fill(uint8_t *buf, size_t nbytes, uint64_t pos, uint32_t seed);

/* Completion callback: records the completion into the struct akt_rec of cb_arg */
void
akt_cb(struct xnvme_cmd_ctx *ctx, void *arg);

/* Prepares an NVM command `opc` of `nlb0` + 1 LBAs at `slba`, completing into `r` */
void
akt_prep(struct xnvme_cmd_ctx *ctx, uint8_t opc, uint64_t slba, uint32_t nlb0, struct akt_rec *r);

/* Opens t->uri with t->mech and t->direct over the options `extra` (NULL: defaults) */
struct xnvme_dev *
akt_open(struct akt *t, struct xnvme_opts *extra);

/* Write then read back [slba, slba + n * nlb) at queue depth `qd`, commands of 1..4 LBAs */
void
akt_rw_qd(struct akt *t, uint16_t qd, uint64_t slba, uint32_t ncmd, uint32_t seed);

/* Submits one command on `q` and waits for it; returns the submission result */
int
akt_one(struct akt *t, struct xnvme_queue *q, uint8_t opc, uint64_t slba, uint32_t nlb0, void *buf,
	size_t nbytes, struct akt_rec *r);

/* Reads LBA `slba` on `q` into a fresh buffer and waits for it; returns the submission result */
int
akt_read_lba(struct akt *t, struct xnvme_queue *q, uint64_t slba, struct akt_rec *r);

/* akt_read_lba() for a thread: 0 when the read completed once without a status, else an error */
int
akt_read_lba_ok(struct akt *t, struct xnvme_queue *q, uint64_t slba);

/* capacity commands outstanding, one more is -EBUSY without side effects, then drain */
void
akt_busy(struct akt *t, uint16_t cap, uint64_t slba);

/* Capacity 1 and many submissions: poke never reports anything but counts */
void
akt_cap1(struct akt *t, uint64_t slba, uint32_t n);

/* One queue per thread on one handle, AKT_NTHREADS threads */
void
akt_threads(struct akt *t, uint64_t slba);

/* The completion fd becomes readable once a submitted command completes */
void
akt_completion_fd(struct akt *t, uint64_t slba);

/*
 * Term with commands in flight: no callbacks, and the kernel is done with the buffers when
 * term returns (reads have landed), so the caller may free them
 */
void
akt_term_inflight(struct akt *t, uint64_t slba);

/* A queue created on this thread, driven by another */
void
akt_handoff(struct akt *t, uint64_t slba);

/* Common suite; `slba` leaves room for 4096 LBAs and 1 MiB */
void
akt_suite(struct akt *t, uint64_t slba);

/* Creates (truncates) the file `path` of `nbytes`: 0 or a negative errno */
int
akt_mkfile(const char *path, uint64_t nbytes);

/* Opens t->uri for t->mech and fills the geometry fields; false (with a note) on failure */
bool
akt_target_open(struct akt *t);

/* Names the files of the program `tag` ("uring": /var/tmp/xnvme-uring-<pid>.bin, ...) */
void
akt_paths_init(struct akt_paths *p, const char *tag);

/*
 * Runs `run` on the target "loop-dio" of mechanism `mech`: a loop device with direct I/O over
 * the backing file of `p`, when loop devices are available here
 */
void
akt_loop_run(const struct akt_paths *p, const char *mech, void (*run)(struct akt *t));

#endif /* AKT_COMMON_H */
