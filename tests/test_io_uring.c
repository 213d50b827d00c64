// SPDX-License-Identifier: BSD-3-Clause
/*
 * The Linux async mechanism "io_uring" on the host:
 *   - regular files, buffered and O_DIRECT, under $XNVME_TEST_DIR (default /var/tmp: a disk
 *     file system, not tmpfs), on tmpfs (/dev/shm), and on a loop device with direct I/O
 *     (skipped when losetup is not permitted): data round trips at QD 1..64, vectors, flush,
 *     short reads at end of file, -EBUSY past capacity, callbacks exactly once, one queue per
 *     thread, the completion fd, a queue driven by another thread;
 *   - setup flags: each XNVME_QUEUE_TASKRUN mode, SQPOLL (briefly), IOPOLL (the host fails
 *     polled I/O with EOPNOTSUPP: the status must say so, nothing may hang); a queue
 *     terminated on another thread than the one that registered its ring fd releases that
 *     registration;
 *   - the idle rule of poke (a poke that only submitted counts as the first empty one);
 *   - batching (nothing reaches the kernel before poke; XNVME_QUEUE_BATCHING_OFF), transient
 *     and fatal submit errors injected through the test-only build of uring.c
 *     (XNVME_BE_LINUX_URING_FAULTS): poke never reports EAGAIN/EBUSY.
 * Registered files and buffers: test_io_uring_bufs.c; io_uring_cmd: test_io_uring_cmd.c.
 * Exit: 0 pass, 1 fail, 77 skip.
 */
#include "uring_common.h"

/* XNVME_QUEUE_TASKRUN modes: flags in use and a round trip each */
static void
test_taskrun_modes(struct akt *t)
{
	static const struct {
		const char *mode;
		unsigned int want, absent;
	} modes[] = {
		{"defer",
		 IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
			 IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_R_DISABLED,
		 IORING_SETUP_COOP_TASKRUN},
		{"coop", IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
		 IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER},
		{"off", 0,
		 IORING_SETUP_COOP_TASKRUN | IORING_SETUP_DEFER_TASKRUN |
			 IORING_SETUP_TASKRUN_FLAG},
	};
	const struct xnvme_be_linux_uring_caps *c = xnvme_be_linux_uring_caps();
	struct xnvme_queue *q;
	int err;

	ACHECK(t, c->ring && c->op_read_write, "kernel caps");
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); ++i) {
		setenv("XNVME_QUEUE_TASKRUN", modes[i].mode, 1);
		err = xnvme_queue_init(t->dev, 8, 0, &q);
		ACHECK(t, !err, "%s: init %d", modes[i].mode, err);
		if (!err) {
			unsigned int fl = ring_of(q)->setup_flags;
			bool kernel_ok = i == 0 ? c->defer : i == 1 ? c->coop : true;

			/* an optional flag the kernel refuses is dropped, visibly */
			if (kernel_ok) {
				ACHECK(t, (fl & modes[i].want) == modes[i].want,
				       "%s: flags 0x%x lack 0x%x", modes[i].mode, fl,
				       modes[i].want);
			}
			ACHECK(t, !(fl & modes[i].absent), "%s: flags 0x%x", modes[i].mode, fl);
			if (c->submit_all) {
				ACHECK(t, fl & IORING_SETUP_SUBMIT_ALL, "SUBMIT_ALL");
			}
			xnvme_queue_term(q);
		}
		akt_rw_qd(t, 4, 3000, 40, 9 + (uint32_t)i);
		akt_rw_qd(t, 32, 3100, 96, 19 + (uint32_t)i);
		akt_completion_fd(t, 3000);
	}
	setenv("XNVME_QUEUE_TASKRUN", "bogus", 1);
	err = xnvme_queue_init(t->dev, 8, 0, &q);
	ACHECK(t, err == -EINVAL, "bogus XNVME_QUEUE_TASKRUN: %d", err);
	unsetenv("XNVME_QUEUE_TASKRUN");
}

/* Nothing reaches the kernel before poke; XNVME_QUEUE_BATCHING_OFF submits at once */
static void
test_batching(struct akt *t)
{
	struct akt_rec recs[8];
	struct xnvme_queue *q;
	uint8_t *buf = xnvme_buf_alloc(t->dev, 8 * t->lba);
	int err;

	for (int off = 0; off < 2; ++off) {
		if (off) {
			setenv("XNVME_QUEUE_BATCHING_OFF", "1", 1);
		}
		err = xnvme_queue_init(t->dev, 8, 0, &q);
		ACHECK(t, !err, "init: %d", err);
		if (err) {
			break;
		}
		xnvme_queue_set_cb(q, akt_cb, NULL);
		memset(recs, 0, sizeof(recs));
		for (int i = 0; i < 8; ++i) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

			akt_prep(ctx, XNVME_SPEC_NVM_OPC_READ, 100 + i, 0, &recs[i]);
			ACHECK(t, !xnvme_cmd_pass(ctx, buf + i * t->lba, t->lba, NULL, 0),
			       "submit");
		}
		ACHECK(t, io_uring_sq_ready(&ring_of(q)->ring) == (off ? 0u : 8u),
		       "batching %s: %u SQEs not yet submitted", off ? "off" : "on",
		       io_uring_sq_ready(&ring_of(q)->ring));
		ACHECK(t, akt_drain(q) == 0, "drain");
		for (int i = 0; i < 8; ++i) {
			ACHECK(t, recs[i].calls == 1 && !recs[i].status, "cmd %d", i);
		}
		xnvme_queue_term(q);
	}
	unsetenv("XNVME_QUEUE_BATCHING_OFF");
	xnvme_buf_free(t->dev, buf);
}

/* Injected submit failures: transient ones are retried, poke stays >= 0; fatal ones report */
static void
test_fault_injection(struct akt *t)
{
	static const int transient[] = {EAGAIN, EBUSY, EINTR, ENOMEM};
	struct akt_rec recs[4];
	struct xnvme_queue *q;
	uint8_t *buf = xnvme_buf_alloc(t->dev, 4 * t->lba);
	int err, ret;

	err = xnvme_queue_init(t->dev, 4, 0, &q);
	ACHECK(t, !err, "init: %d", err);
	if (err) {
		xnvme_buf_free(t->dev, buf);
		return;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);
	for (size_t k = 0; k <= sizeof(transient) / sizeof(transient[0]); ++k) {
		bool fatal = k == sizeof(transient) / sizeof(transient[0]);

		memset(recs, 0, sizeof(recs));
		for (int i = 0; i < 4; ++i) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

			akt_prep(ctx, XNVME_SPEC_NVM_OPC_READ, 10 + i, 0, &recs[i]);
			ACHECK(t, !xnvme_cmd_pass(ctx, buf + i * t->lba, t->lba, NULL, 0),
			       "submit");
		}
		xnvme_be_linux_uring_fault_err = fatal ? EBADF : transient[k];
		xnvme_be_linux_uring_fault_n = 3;
		ring_of(q)->fast = false; /* arms the hook */
		for (int i = 0; i < 3; ++i) {
			ret = xnvme_queue_poke(q, 0);
			if (fatal) {
				ACHECK(t, ret == -EBADF, "fatal error reported: %d", ret);
			} else {
				ACHECK(t, ret == 0, "%s: poke=%d", strerror(transient[k]), ret);
			}
		}
		ACHECK(t, xnvme_be_linux_uring_fault_n == 0, "faults consumed");
		ACHECK(t, io_uring_sq_ready(&ring_of(q)->ring) == 4, "SQEs kept for the retry");
		ACHECK(t, akt_drain(q) == 0, "drain after faults");
		for (int i = 0; i < 4; ++i) {
			ACHECK(t, recs[i].calls == 1 && !recs[i].status, "cmd %d after %s", i,
			       strerror(xnvme_be_linux_uring_fault_err));
		}
	}
	xnvme_be_linux_uring_fault_n = 0;
	xnvme_queue_term(q);
	xnvme_buf_free(t->dev, buf);
}

/*
 * The idle rule of xnvme_queue_poke(): a poke that only submitted counts as the first empty
 * one, so the next empty poke waits (for up to 1 ms) instead of returning 0 at once; a poke
 * that reaped counts as no empty poke; POKE_SPIN and the completion fd never wait.
 */
static void
test_idle_rule(struct akt *t)
{
	static const int qopts[] = {0, XNVME_QUEUE_POKE_SPIN, -1};
	uint8_t *buf = xnvme_buf_alloc(t->dev, t->lba);

	for (size_t k = 0; k < sizeof(qopts) / sizeof(qopts[0]); ++k) {
		bool fd = qopts[k] < 0;
		struct xnvme_cmd_ctx *ctx;
		struct akt_rec r = {0};
		struct xnvme_queue *q;
		int n, err;

		err = xnvme_queue_init(t->dev, 4, fd ? 0 : qopts[k], &q);
		ACHECK(t, !err, "init: %d", err);
		if (err) {
			break;
		}
		xnvme_queue_set_cb(q, akt_cb, NULL);
		if (fd) {
			ACHECK(t, xnvme_queue_get_completion_fd(q) >= 0, "completion fd");
		}
		ACHECK(t, ring_of(q)->wait == (k == 0), "opts %d: pokes may wait: %d", qopts[k],
		       ring_of(q)->wait);
		for (int round = 0; round < 8; ++round) {
			ctx = xnvme_queue_get_cmd_ctx(q);
			akt_prep(ctx, XNVME_SPEC_NVM_OPC_READ, (uint64_t)round, 0, &r);
			ACHECK(t, !xnvme_cmd_pass(ctx, buf, t->lba, NULL, 0), "submit");
			n = xnvme_queue_poke(q, 0);
			ACHECK(t, n >= 0 && ring_of(q)->nidle == (n ? 0u : 1u),
			       "submitting poke: reaped %d, nidle %u", n, ring_of(q)->nidle);
			if (!n) {
				/* the second empty poke of the rule: waits when the queue may */
				n = xnvme_queue_poke(q, 0);
				ACHECK(t, n == 1 || ring_of(q)->nidle == (k == 0 ? 2u : 1u),
				       "second poke: reaped %d, nidle %u", n, ring_of(q)->nidle);
			}
			ACHECK(t, akt_drain(q) == 0 && r.calls == (uint32_t)round + 1 && !r.status,
			       "round %d: calls=%u status=%d", round, r.calls, r.status);
		}
		xnvme_queue_term(q);
	}
	xnvme_buf_free(t->dev, buf);
}

/* Term before any poke: the kernel never saw the commands, nothing executes */
static void
test_term_unsubmitted(struct akt *t)
{
	uint8_t *buf = xnvme_buf_alloc(t->dev, 4 * t->lba);
	struct akt_rec recs[4] = {{0}};
	struct xnvme_queue *q;
	int err = xnvme_queue_init(t->dev, 4, 0, &q);

	ACHECK(t, !err, "init: %d", err);
	if (err) {
		xnvme_buf_free(t->dev, buf);
		return;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);
	memset(buf, 0x77, 4 * t->lba);
	for (int i = 0; i < 4; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

		akt_prep(ctx, XNVME_SPEC_NVM_OPC_READ, 200 + i, 0, &recs[i]);
		ACHECK(t, !xnvme_cmd_pass(ctx, buf + i * t->lba, t->lba, NULL, 0), "submit");
	}
	ACHECK(t, xnvme_queue_term(q) == 0, "term");
	for (int i = 0; i < 4; ++i) {
		ACHECK(t, recs[i].calls == 0 && buf[i * t->lba] == 0x77, "unsubmitted read %d", i);
	}
	xnvme_buf_free(t->dev, buf);
}

/* A SINGLE_ISSUER ring first driven by one thread cannot be driven by another; coop can */
struct first_user {
	struct akt *t;
	struct xnvme_queue *q;
	int err;
};

static void *
first_user_main(void *arg)
{
	struct first_user *f = arg;
	struct akt_rec r;

	f->err = akt_read_lba(f->t, f->q, 0, &r);
	return NULL;
}

static void
test_migration(struct akt *t)
{
	const struct xnvme_be_linux_uring_caps *c = xnvme_be_linux_uring_caps();
	uint8_t *buf = xnvme_buf_alloc(t->dev, t->lba);

	for (int coop = 0; coop < 2; ++coop) {
		struct first_user f = {.t = t};
		struct xnvme_cmd_ctx *ctx;
		struct akt_rec r = {0};
		pthread_t th;
		int err, ret;

		setenv("XNVME_QUEUE_TASKRUN", coop ? "coop" : "defer", 1);
		err = xnvme_queue_init(t->dev, 4, 0, &f.q);
		unsetenv("XNVME_QUEUE_TASKRUN");
		ACHECK(t, !err, "init: %d", err);
		if (err) {
			continue;
		}
		xnvme_queue_set_cb(f.q, akt_cb, NULL);
		pthread_create(&th, NULL, first_user_main, &f);
		pthread_join(th, NULL);
		ACHECK(t, !f.err, "first user: %d", f.err);

		ctx = xnvme_queue_get_cmd_ctx(f.q);
		akt_prep(ctx, XNVME_SPEC_NVM_OPC_READ, 1, 0, &r);
		ACHECK(t, !xnvme_cmd_pass(ctx, buf, t->lba, NULL, 0), "submit");
		ret = xnvme_queue_poke(f.q, 0);
		if (!coop && c->defer) {
			ACHECK(t, ret == -EEXIST, "defer ring from a second thread: poke=%d", ret);
		} else {
			ACHECK(t, ret >= 0 && akt_drain(f.q) == 0 && r.calls == 1,
			       "coop ring from a second thread: poke=%d calls=%u", ret, r.calls);
		}
		xnvme_queue_term(f.q);
	}
	xnvme_buf_free(t->dev, buf);
}

/* Writes LBA `slba` from `wbuf` and reads it back into `rbuf` on `q`; true when both succeed */
static bool
rt_lba(struct akt *t, struct xnvme_queue *q, uint64_t slba, uint8_t *wbuf, uint8_t *rbuf)
{
	struct akt_rec r;
	int err;

	err = akt_one(t, q, XNVME_SPEC_NVM_OPC_WRITE, slba, 0, wbuf, t->lba, &r);
	if (err || r.calls != 1 || r.status) {
		return false;
	}
	memset(rbuf, 0xEE, t->lba);
	err = akt_one(t, q, XNVME_SPEC_NVM_OPC_READ, slba, 0, rbuf, t->lba, &r);
	return !err && r.calls == 1 && !r.status && !memcmp(wbuf, rbuf, t->lba);
}

struct other_rt {
	struct akt *t;
	struct xnvme_queue *q;
	uint8_t *wbuf, *rbuf;
	bool ok;
};

static void *
other_rt_main(void *arg)
{
	struct other_rt *o = arg;

	akt_fill(o->wbuf, o->t->lba, 17, 5);
	o->ok = rt_lba(o->t, o->q, 17, o->wbuf, o->rbuf);
	return NULL;
}

/*
 * The ring fd is registered by the first submitting poke in that thread's table and entered
 * through; a second thread (coop ring) enters through the plain fd; data round trips on both
 */
static void
test_ring_fd(struct akt *t)
{
	struct other_rt o = {.t = t};
	struct xnvme_be_linux_uring *u;
	pthread_t th;
	bool ok;
	int err;

	o.wbuf = xnvme_buf_alloc(t->dev, t->lba);
	o.rbuf = xnvme_buf_alloc(t->dev, t->lba);
	setenv("XNVME_QUEUE_TASKRUN", "coop", 1);
	err = xnvme_queue_init(t->dev, 8, 0, &o.q);
	unsetenv("XNVME_QUEUE_TASKRUN");
	ACHECK(t, !err, "init: %d", err);
	if (err) {
		goto out;
	}
	xnvme_queue_set_cb(o.q, akt_cb, NULL);
	u = ring_of(o.q);
	ACHECK(t, !u->reg_tried && u->reg_idx == -1, "nothing registered before the first poke");
	akt_fill(o.wbuf, t->lba, 16, 4);
	ok = rt_lba(t, o.q, 16, o.wbuf, o.rbuf);
	ACHECK(t, ok, "round trip on the first thread");
	ACHECK(t, u->reg_tried, "registration attempted");
	if (u->reg_idx < 0) {
		printf("# %s: the kernel refused IORING_REGISTER_RING_FDS\n", t->name);
	} else {
		ACHECK(t, u->reg_owner == xnvme_be_linux_uring_self(), "owner is this thread");
	}
	pthread_create(&th, NULL, other_rt_main, &o);
	pthread_join(th, NULL);
	ACHECK(t, o.ok, "round trip on a second thread (plain fd)");
	akt_fill(o.wbuf, t->lba, 18, 6);
	ok = rt_lba(t, o.q, 18, o.wbuf, o.rbuf);
	ACHECK(t, ok, "round trip back on the first thread");
	ACHECK(t, xnvme_queue_term(o.q) == 0, "term");
out:
	xnvme_buf_free(t->dev, o.wbuf);
	xnvme_buf_free(t->dev, o.rbuf);
}

/* Open fds of the process, -1 when /proc is not there */
static int
fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d) {
		return -1;
	}
	while (readdir(d)) {
		n++;
	}
	closedir(d);
	return n;
}

static void *
term_main(void *arg)
{
	struct other_rt *o = arg;

	o->ok = xnvme_queue_term(o->q) == 0;
	return NULL;
}

/* 1 when this thread's registered ring table has `idx` free (probed through `ring_fd`) */
static int
reg_slot_free(int ring_fd, int idx)
{
	struct io_uring_rsrc_update up = {.offset = (uint32_t)idx, .data = (uint64_t)ring_fd};

	if (io_uring_register(ring_fd, IORING_REGISTER_RING_FDS, &up, 1) != 1) {
		return 0;
	}
	up.data = 0;
	(void)io_uring_register(ring_fd, IORING_UNREGISTER_RING_FDS, &up, 1);
	return 1;
}

/*
 * A queue used (ring fd registered) on this thread and terminated on another: the ring fd is
 * closed at once, and this thread's registration, which keeps the ring alive, is dropped at
 * its next call into the mechanism (here a queue init)
 */
static void
test_term_elsewhere(struct akt *t)
{
	struct other_rt o = {.t = t};
	struct xnvme_queue *q2;
	struct io_uring probe;
	int err, idx, nfd;
	pthread_t th;

	o.wbuf = xnvme_buf_alloc(t->dev, t->lba);
	o.rbuf = xnvme_buf_alloc(t->dev, t->lba);
	nfd = fd_count();
	setenv("XNVME_QUEUE_TASKRUN", "coop", 1);
	err = xnvme_queue_init(t->dev, 8, 0, &o.q);
	unsetenv("XNVME_QUEUE_TASKRUN");
	ACHECK(t, !err && io_uring_queue_init(1, &probe, 0) == 0, "init: %d", err);
	if (err) {
		goto out;
	}
	xnvme_queue_set_cb(o.q, akt_cb, NULL);
	akt_fill(o.wbuf, t->lba, 19, 7);
	ACHECK(t, rt_lba(t, o.q, 19, o.wbuf, o.rbuf), "round trip");
	idx = ring_of(o.q)->reg_idx;
	pthread_create(&th, NULL, term_main, &o);
	pthread_join(th, NULL);
	ACHECK(t, o.ok, "term on another thread");
	ACHECK(t, fd_count() == nfd + 1, "the ring fd is closed: %d fds, %d before (+1 probe)",
	       fd_count(), nfd);
	if (idx < 0) {
		printf("# %s: the kernel refused IORING_REGISTER_RING_FDS\n", t->name);
	} else {
		ACHECK(t, !reg_slot_free(probe.ring_fd, idx), "slot %d held before the next call",
		       idx);
		err = xnvme_queue_init(t->dev, 8, 0, &q2);
		ACHECK(t, !err, "second init: %d", err);
		if (!err) {
			xnvme_queue_term(q2);
		}
		ACHECK(t, reg_slot_free(probe.ring_fd, idx), "slot %d released", idx);
	}
	io_uring_queue_exit(&probe);
out:
	xnvme_buf_free(t->dev, o.wbuf);
	xnvme_buf_free(t->dev, o.rbuf);
}

/* IOPOLL: polled I/O fails here with EOPNOTSUPP; it must be reported and nothing may hang */
static void
test_iopoll(struct akt *t)
{
	for (int how = 0; how < 2; ++how) {
		struct xnvme_opts opts = xnvme_opts_default();
		struct xnvme_dev *dev;
		struct xnvme_queue *q;
		struct akt_rec r;
		uint8_t *buf;
		int err;

		opts.poll_io = how == 1;
		dev = akt_open(t, &opts);
		ACHECK(t, dev, "open: %d", errno);
		if (!dev) {
			continue;
		}
		buf = xnvme_buf_alloc(dev, 4096);
		err = xnvme_queue_init(dev, 4, how == 0 ? XNVME_QUEUE_IOPOLL : 0, &q);
		if (err) {
			/* refusing the ring is a clear error too */
			ACHECK(t, err < 0 && err != -EAGAIN && err != -EBUSY, "init: %d", err);
		} else {
			ACHECK(t, ring_of(q)->setup_flags & IORING_SETUP_IOPOLL, "IOPOLL in use");
			xnvme_queue_set_cb(q, akt_cb, NULL);
			err = akt_one(t, q, XNVME_SPEC_NVM_OPC_READ, 0, 0, buf, t->lba, &r);
			ACHECK(t, !err && r.calls == 1, "polled read: err=%d calls=%u", err,
			       r.calls);
			ACHECK(t, !r.status || (r.sct == 7 && r.sc == EOPNOTSUPP),
			       "polled read: sct=%u sc=%u", r.sct, r.sc);
			if (r.status) {
				printf("# %s: IOPOLL read reported errno %u (%s), as expected here\n",
				       t->name, r.sc, strerror(r.sc));
			}
			xnvme_queue_term(q);
		}
		xnvme_buf_free(dev, buf);
		xnvme_dev_close(dev);
	}
}

/* SQPOLL with a registered file, briefly (it keeps a CPU busy) */
static void
test_sqpoll(struct akt *t)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct akt sq = *t;
	struct xnvme_queue *q;
	int err;

	opts.poll_sq = 1;
	sq.dev = akt_open(t, &opts);
	ACHECK(t, sq.dev, "open: %d", errno);
	if (!sq.dev) {
		return;
	}
	err = xnvme_queue_init(sq.dev, 4, 0, &q);
	ACHECK(t, !err, "init: %d", err);
	if (!err) {
		unsigned int fl = ring_of(q)->setup_flags;

		ACHECK(t, fl & IORING_SETUP_SQPOLL, "SQPOLL in use: 0x%x", fl);
		ACHECK(t, !(fl & (IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_COOP_TASKRUN)),
		       "no task-run flags with SQPOLL: 0x%x", fl);
		ACHECK(t, ring_of(q)->fixed_file, "file registered");
		xnvme_queue_term(q);
	}
	akt_rw_qd(&sq, 4, 3300, 32, 5);
	akt_rw_qd(&sq, 16, 3400, 64, 6);
	xnvme_dev_close(sq.dev);

	/* the queue option alone does it too */
	err = xnvme_queue_init(t->dev, 2, XNVME_QUEUE_SQPOLL, &q);
	ACHECK(t, !err && (ring_of(q)->setup_flags & IORING_SETUP_SQPOLL), "XNVME_QUEUE_SQPOLL: %d",
	       err);
	if (!err) {
		struct akt_rec r;

		xnvme_queue_set_cb(q, akt_cb, NULL);
		err = akt_read_lba(t, q, 3300, &r);
		ACHECK(t, !err && r.calls == 1 && !r.status, "sqpoll read: st=%d", r.status);
		xnvme_queue_term(q);
	}
}

/* Everything of this program on one file target, once */
static void
extras(struct akt *t)
{
	akt_suite(t, 0);
	test_taskrun_modes(t);
	test_batching(t);
	test_term_unsubmitted(t);
	test_idle_rule(t);
	test_fault_injection(t);
	test_migration(t);
	test_ring_fd(t);
	test_term_elsewhere(t);
	test_iopoll(t);
	test_sqpoll(t);
}

static void
suite_only(struct akt *t)
{
	akt_suite(t, 0);
}

static void
run_loop_target(struct akt *t)
{
	if (akt_target_open(t)) {
		akt_suite(t, 0);
		test_iopoll(t);
		xnvme_dev_close(t->dev);
	} else {
		xnvme_test_nfail++;
	}
}

int
main(void)
{
	struct akt_paths p;
	bool extras_done;
	struct akt t;
	int skip;

	setvbuf(stdout, NULL, _IOLBF, 0);
	akt_paths_init(&p, "uring");
	skip = uring_skip();
	if (skip) {
		return skip;
	}

	t = (struct akt){.name = "disk-direct",
			 .uri = p.ext4d,
			 .mech = "io_uring",
			 .direct = true,
			 .is_file = true};
	extras_done = uring_file_target(&t, extras);
	t = (struct akt){
		.name = "disk-buffered", .uri = p.ext4, .mech = "io_uring", .is_file = true};
	uring_file_target(&t, extras_done ? suite_only : extras);
	t = (struct akt){
		.name = "tmpfs", .uri = p.shm, .mech = "io_uring", .is_file = true, .tmpfs = true};
	uring_file_target(&t, suite_only);

	akt_loop_run(&p, "io_uring", run_loop_target);
	return xnvme_test_result("io_uring");
}
