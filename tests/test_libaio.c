// SPDX-License-Identifier: BSD-3-Clause
/*
 * The Linux async mechanism "libaio" on regular files, buffered and O_DIRECT, under
 * $XNVME_TEST_DIR (default /var/tmp: a disk file system, not tmpfs), on tmpfs (/dev/shm) and
 * on a loop device with direct I/O (skipped when losetup is not permitted): data round trips
 * at QD 1..64, vectors, flush, short reads at end of file, -EBUSY past capacity, callbacks
 * exactly once, capacity 1 with many submissions (poke never negative), one queue per thread,
 * the completion fd, a queue handed between threads; O_DIRECT alignment errors fold into cpl
 * (sct 7, sc EINVAL); the io_uring options are inert; io_uring_cmd is refused on a file.
 * Exit: 0 pass, 1 fail, 77 skip.
 */
#include "async_kernel_common.h"

/* O_DIRECT with a misaligned file offset: the kernel's EINVAL arrives in cpl */
static void
test_misaligned(struct akt *t)
{
	struct xnvme_queue *q;
	struct akt_rec r;
	uint8_t *buf = xnvme_buf_alloc(t->dev, 8192);
	int err;

	err = xnvme_queue_init(t->dev, 4, 0, &q);
	ACHECK(t, !err, "init: %d", err);
	if (err) {
		xnvme_buf_free(t->dev, buf);
		return;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);
	/* memory alignment is the device's DMA alignment: recent kernels may accept this */
	err = akt_one(t, q, XNVME_SPEC_NVM_OPC_READ, 0, 0, buf + 1, t->lba, &r);
	ACHECK(t, !err && r.calls == 1 && (!r.status || (r.sct == 7 && r.sc == EINVAL)),
	       "misaligned O_DIRECT buffer: err=%d calls=%u sct=%u sc=%u", err, r.calls, r.sct,
	       r.sc);
	err = akt_one(t, q, XNVME_SPEC_FS_OPC_READ, 100, 0, buf, t->lba, &r);
	ACHECK(t, !err && r.calls == 1 && r.sct == 7 && r.sc == EINVAL,
	       "misaligned O_DIRECT offset: err=%d sct=%u sc=%u", err, r.sct, r.sc);
	/* and a clean one after them */
	err = akt_one(t, q, XNVME_SPEC_NVM_OPC_READ, 0, 0, buf, t->lba, &r);
	ACHECK(t, !err && r.calls == 1 && !r.status && r.result == t->lba, "aligned read");
	xnvme_queue_term(q);
	xnvme_buf_free(t->dev, buf);
}

/* The io_uring modes have no meaning for AIO: accepted and inert */
static void
test_uring_opts_inert(struct akt *t)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct akt o = *t;
	struct xnvme_queue *q;
	int err;

	opts.poll_io = 1;
	opts.poll_sq = 1;
	opts.register_files = 1;
	o.dev = akt_open(t, &opts);
	ACHECK(t, o.dev, "open: %d", errno);
	if (!o.dev) {
		return;
	}
	err = xnvme_queue_init(o.dev, 4, XNVME_QUEUE_IOPOLL | XNVME_QUEUE_SQPOLL, &q);
	ACHECK(t, !err, "init with IOPOLL|SQPOLL: %d", err);
	if (!err) {
		xnvme_queue_term(q);
	}
	akt_rw_qd(&o, 4, 3600, 32, 3);
	xnvme_dev_close(o.dev);
}

/* A queue driven alternately by two threads (never concurrently) */
struct alt {
	struct akt *t;
	struct xnvme_queue *q;
	int round;
	int err;
};

static void *
alt_main(void *arg)
{
	struct alt *a = arg;

	a->err = akt_read_lba_ok(a->t, a->q, (uint64_t)a->round);
	return NULL;
}

static void
test_alternating_threads(struct akt *t)
{
	struct alt a = {.t = t};
	int err = xnvme_queue_init(t->dev, 4, 0, &a.q);

	ACHECK(t, !err, "init: %d", err);
	if (err) {
		return;
	}
	xnvme_queue_set_cb(a.q, akt_cb, NULL);
	for (a.round = 0; a.round < 6; ++a.round) {
		pthread_t th;

		pthread_create(&th, NULL, alt_main, &a);
		pthread_join(th, NULL);
		ACHECK(t, !a.err, "round %d: %d", a.round, a.err);
	}
	xnvme_queue_term(a.q);
}

static void
test_ucmd_refused(struct akt *t)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;

	opts.async = "io_uring_cmd";
	dev = xnvme_dev_open(t->uri, &opts);
	ACHECK(t, !dev && errno == ENOTSUP, "io_uring_cmd on a file: errno=%d", errno);
	xnvme_dev_close(dev);
}

static void
run_target(struct akt *t, bool file)
{
	if (!akt_target_open(t)) {
		if (t->direct && t->is_file && errno == EINVAL) {
			printf("# %s: the file system refuses O_DIRECT: skipped\n", t->name);
		} else {
			xnvme_test_nfail++;
		}
		return;
	}
	akt_suite(t, 0);
	test_alternating_threads(t);
	if (t->direct && !t->tmpfs) {
		test_misaligned(t);
	}
	if (file) {
		test_uring_opts_inert(t);
		test_ucmd_refused(t);
	}
	xnvme_dev_close(t->dev);
}

static void
run_loop_target(struct akt *t)
{
	run_target(t, false);
}

/* A target on a file of its own: a file that cannot be created is a failure, not a skip */
static void
run_file_target(struct akt *t, bool extras)
{
	if (akt_mkfile(t->uri, AKT_FILE_NBYTES)) {
		fprintf(stderr, "# %s: cannot create %s\n", t->name, t->uri);
		xnvme_test_nfail++;
		return;
	}
	run_target(t, extras);
	unlink(t->uri);
}

int
main(void)
{
	struct akt_paths p;
	struct akt t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	akt_paths_init(&p, "aio");

	{
		struct akt probe = {.name = "probe", .uri = p.ext4, .mech = "libaio"};

		if (akt_mkfile(p.ext4, 4096)) {
			perror("create");
			return 1;
		}
		probe.dev = akt_open(&probe, NULL);
		if (!probe.dev && errno == ENOSYS) {
			unlink(p.ext4);
			return xnvme_test_skip("built without libaio");
		}
		xnvme_dev_close(probe.dev);
	}

	t = (struct akt){.name = "disk-buffered", .uri = p.ext4, .mech = "libaio",
			 .is_file = true};
	run_file_target(&t, true);
	t = (struct akt){.name = "disk-direct", .uri = p.ext4d, .mech = "libaio", .direct = true,
			 .is_file = true};
	run_file_target(&t, true);
	t = (struct akt){.name = "tmpfs", .uri = p.shm, .mech = "libaio", .is_file = true,
			 .tmpfs = true};
	run_file_target(&t, false);

	akt_loop_run(&p, "libaio", run_loop_target);
	return xnvme_test_result("libaio");
}
