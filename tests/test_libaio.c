// SPDX-License-Identifier: BSD-3-Clause
/*
 * The Linux async mechanism "libaio" on regular files, buffered and O_DIRECT, under
 * $XNVME_TEST_DIR (default /var/tmp: a disk file system, not tmpfs), on tmpfs (/dev/shm) and
 * on a loop device with direct I/O (skipped when losetup is not permitted): data round trips
 * at QD 1..64, vectors, flush, short reads at end of file, -EBUSY past capacity, callbacks
 * exactly once, capacity 1 with many submissions (poke never negative), one queue per thread,
 * the completion fd, a queue handed between threads; O_DIRECT alignment errors fold into cpl
 * (sct 7, sc EINVAL); the io_uring options are inert; io_uring_cmd is refused on a file.
 * Completions come off the kernel's user-mapped ring: thousands of commands at QD 64 (the
 * ring wraps many times) each complete exactly once with their data intact, also when the
 * completion fd is asked for while commands are in flight and the rest is waited for on it.
 * Exit: 0 pass, 1 fail, 77 skip.
 */
#include "async_kernel_common.h"

#define RING_NCMD 3000
#define RING_QD 64
#define RING_FD_AT 1000 /* the completion fd is asked for after this many submissions */

struct ring_run {
	struct akt *t;
	struct xnvme_queue *q;
	uint8_t *buf;
	uint32_t *calls; ///< per command
	uint32_t nbad;   ///< completions with an error or a wrong byte count
	int fd;          ///< completion fd once asked for, else -1
	uint32_t nwait;  ///< times the loop waited on the fd
};

static struct ring_run *ring_cur; /* the run of ring_cb; cb_arg carries the command index */

static void
ring_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct ring_run *r = ring_cur;
	uint32_t i = (uint32_t)(uintptr_t)arg - 1;

	r->calls[i]++;
	if (xnvme_cmd_ctx_cpl_status(ctx) || ctx->cpl.result != r->t->lba) {
		r->nbad++;
	}
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* Waits on the fd (when there is one) and pokes; false on a wait that timed out */
static bool
ring_wait_poke(struct ring_run *r)
{
	if (r->fd >= 0) {
		struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
		uint64_t cnt;

		if (poll(&pfd, 1, (int)(AKT_DEADLINE_S * 1000)) != 1) {
			return false;
		}
		(void)!read(r->fd, &cnt, sizeof(cnt));
		r->nwait++;
	}
	return xnvme_queue_poke(r->q, 0) >= 0;
}

/* One pass of RING_NCMD one-LBA commands on LBAs slba + i, in a scrambled order */
static void
ring_pass(struct ring_run *r, uint8_t opc, uint64_t slba, bool ask_fd)
{
	struct akt *t = r->t;

	memset(r->calls, 0, RING_NCMD * sizeof(*r->calls));
	for (uint32_t k = 0; k < RING_NCMD; ++k) {
		uint32_t i = (k * 1031) % RING_NCMD; /* 1031 is prime: a permutation */
		struct xnvme_cmd_ctx *ctx;
		int err;

		while (xnvme_queue_get_outstanding(r->q) == RING_QD) {
			if (ask_fd && r->fd < 0 && k >= RING_FD_AT) {
				/* a full queue of commands submitted without the fd */
				r->fd = xnvme_queue_get_completion_fd(r->q);
				ACHECK(t, r->fd >= 0, "completion fd mid-stream: %d", r->fd);
			}
			if (!ring_wait_poke(r)) {
				ACHECK(t, false, "wait/poke at %u failed (lost completion?)", k);
				return;
			}
		}
		ctx = xnvme_queue_get_cmd_ctx(r->q);
		akt_prep(ctx, opc, slba + i, 0, NULL);
		ctx->async.cb_arg = (void *)(uintptr_t)(i + 1);
		err = xnvme_cmd_pass(ctx, r->buf + (size_t)i * t->lba, t->lba, NULL, 0);
		if (err) {
			ACHECK(t, false, "submit %u: %d", k, err);
			xnvme_queue_put_cmd_ctx(r->q, ctx);
			return;
		}
	}
	while (xnvme_queue_get_outstanding(r->q)) {
		if (!ring_wait_poke(r)) {
			ACHECK(t, false, "draining: wait/poke failed with %u outstanding",
			       xnvme_queue_get_outstanding(r->q));
			return;
		}
	}
	for (uint32_t i = 0; i < RING_NCMD; ++i) {
		if (r->calls[i] != 1) {
			ACHECK(t, r->calls[i] == 1, "command %u: %u callbacks", i, r->calls[i]);
			return;
		}
	}
}

/* Writes RING_NCMD LBAs at QD 64, reads them back, compares; the fd is asked for mid-read */
static void
test_ring_many(struct akt *t, uint64_t slba, bool ask_fd)
{
	struct ring_run r = {.t = t, .fd = -1};
	size_t nbytes = (size_t)RING_NCMD * t->lba;
	uint8_t *wbuf = xnvme_buf_alloc(t->dev, nbytes);
	int err;

	r.buf = xnvme_buf_alloc(t->dev, nbytes);
	r.calls = calloc(RING_NCMD, sizeof(*r.calls));
	ACHECK(t, wbuf && r.buf && r.calls, "alloc");
	if (!wbuf || !r.buf || !r.calls) {
		goto out;
	}
	err = xnvme_queue_init(t->dev, RING_QD, 0, &r.q);
	ACHECK(t, !err, "init: %d", err);
	if (err) {
		goto out;
	}
	xnvme_queue_set_cb(r.q, ring_cb, NULL);
	ring_cur = &r;

	akt_fill(wbuf, nbytes, slba, 77);
	memcpy(r.buf, wbuf, nbytes);
	ring_pass(&r, XNVME_SPEC_NVM_OPC_WRITE, slba, false);
	memset(r.buf, 0x5A, nbytes);
	ring_pass(&r, XNVME_SPEC_NVM_OPC_READ, slba, ask_fd);
	ACHECK(t, !r.nbad, "%u completions with an error or wrong count", r.nbad);
	ACHECK(t, !memcmp(wbuf, r.buf, nbytes), "data read back differs");
	if (ask_fd) {
		ACHECK(t, r.fd >= 0 && r.nwait > 0, "waited on the fd %u times", r.nwait);
	}
	xnvme_queue_term(r.q);
out:
	xnvme_buf_free(t->dev, wbuf);
	xnvme_buf_free(t->dev, r.buf);
	free(r.calls);
}

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
	test_ring_many(t, 8192, false);
	test_ring_many(t, 8192, true);
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

	t = (struct akt){.name = "disk-buffered", .uri = p.ext4, .mech = "libaio", .is_file = true};
	run_file_target(&t, true);
	t = (struct akt){.name = "disk-direct",
			 .uri = p.ext4d,
			 .mech = "libaio",
			 .direct = true,
			 .is_file = true};
	run_file_target(&t, true);
	t = (struct akt){
		.name = "tmpfs", .uri = p.shm, .mech = "libaio", .is_file = true, .tmpfs = true};
	run_file_target(&t, false);

	akt_loop_run(&p, "libaio", run_loop_target);
	return xnvme_test_result("libaio");
}
