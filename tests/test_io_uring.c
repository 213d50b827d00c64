// SPDX-License-Identifier: BSD-3-Clause
/*
 * The Linux async mechanisms "io_uring" and (without NVMe) "io_uring_cmd" on the host:
 *   - io_uring on regular files, buffered and O_DIRECT, under $XNVME_TEST_DIR (default
 *     /var/tmp: a disk file system, not tmpfs), on tmpfs (/dev/shm), and on a loop device with
 *     direct I/O (skipped when losetup is not permitted): data round trips at QD 1..64,
 *     vectors, flush, short reads at end of file, -EBUSY past capacity, callbacks exactly
 *     once, one queue per thread, the completion fd, a queue driven by another thread;
 *   - setup flags: each XNVME_QUEUE_TASKRUN mode, SQPOLL (briefly), IOPOLL (the host fails
 *     polled I/O with EOPNOTSUPP: the status must say so, nothing may hang), registered file,
 *     registered buffers (the library's buffers fixed, others not, re-allocation re-registers,
 *     a freed buffer leaves the ring's table at the next submission); a queue terminated on
 *     another thread than the one that registered its ring fd releases that registration;
 *   - the idle rule of poke (a poke that only submitted counts as the first empty one);
 *   - batching (nothing reaches the kernel before poke; XNVME_QUEUE_BATCHING_OFF), transient
 *     and fatal submit errors injected through the test hook: poke never reports EAGAIN/EBUSY;
 *   - io_uring_cmd on a regular file: the open fails naming the mechanism; the passthrough
 *     plumbing (SQE128/CQE32 ring, SQE contents, batching, res 0 completions) against
 *     /dev/null, whose uring_cmd handler completes every command with 0.
 * Links the static library for the internal hooks (lib/be/linux/be_linux_uring.h).
 * Exit: 0 pass, 1 fail, 77 skip.
 */
#include "async_kernel_common.h"

#include <dirent.h>
#include <linux/nvme_ioctl.h>
#include <sys/mman.h>
#include "be_linux.h"
#include "be_linux_uring.h"
#include "xnvme_dev.h" /* a mocked device: the core's part too */

static struct xnvme_be_linux_uring *
ring_of(struct xnvme_queue *q)
{
	return (struct xnvme_be_linux_uring *)q->state;
}

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
			unsigned int fl = xnvme_be_linux_uring_queue_flags(q);
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
			ACHECK(t, xnvme_be_linux_uring_queue_flags(q) & IORING_SETUP_IOPOLL,
			       "IOPOLL in use");
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
		unsigned int fl = xnvme_be_linux_uring_queue_flags(q);

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
	ACHECK(t, !err && (xnvme_be_linux_uring_queue_flags(q) & IORING_SETUP_SQPOLL),
	       "XNVME_QUEUE_SQPOLL: %d", err);
	if (!err) {
		struct akt_rec r;

		xnvme_queue_set_cb(q, akt_cb, NULL);
		err = akt_read_lba(t, q, 3300, &r);
		ACHECK(t, !err && r.calls == 1 && !r.status, "sqpoll read: st=%d", r.status);
		xnvme_queue_term(q);
	}
}

/* Writes `n` bytes of `wbuf` at LBA `slba` on `q`, reads them into `rbuf`; true when equal */
static bool
fixed_rt(struct akt *t, struct xnvme_queue *q, uint64_t slba, uint8_t *wbuf, uint8_t *rbuf,
	 size_t n)
{
	struct akt_rec r;
	uint32_t nlb0 = (uint32_t)(n / t->lba) - 1;

	if (akt_one(t, q, XNVME_SPEC_NVM_OPC_WRITE, slba, nlb0, wbuf, n, &r) || r.calls != 1 ||
	    r.status) {
		return false;
	}
	memset(rbuf, 0xC3, n);
	if (akt_one(t, q, XNVME_SPEC_NVM_OPC_READ, slba, nlb0, rbuf, n, &r) || r.calls != 1 ||
	    r.status) {
		return false;
	}
	return !memcmp(wbuf, rbuf, n);
}

/*
 * opts.register_buffers: the library's buffers go through the ring's fixed-buffer table,
 * others the ordinary way; a buffer freed and allocated again (same address, likely) is
 * registered afresh: a write from it through a stale registration would send the old pages
 */
static void
test_fixed_buffers_n(struct akt *t, size_t n)
{
	/* `n`: large enough for the allocator to map and unmap it on the host */
	uint8_t *a = xnvme_buf_alloc(t->dev, n), *b = xnvme_buf_alloc(t->dev, n), *c;
	uint8_t *plain = aligned_alloc(4096, n);
	struct xnvme_queue *q = NULL;
	uint64_t nfixed;
	bool ok;
	int err;

	ACHECK(t, a && b && plain, "alloc");
	err = xnvme_queue_init(t->dev, 8, 0, &q);
	ACHECK(t, !err && ring_of(q)->fixed_bufs, "register_buffers: init %d", err);
	if (err || !a || !b || !plain) {
		goto out;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);

	akt_fill(a, n, 1, 21);
	ok = fixed_rt(t, q, 3700, a, b, n);
	ACHECK(t, ok, "round trip through fixed buffers");
	ACHECK(t, ring_of(q)->nfixed == 2, "both commands fixed: %llu",
	       (unsigned long long)ring_of(q)->nfixed);

	nfixed = ring_of(q)->nfixed;
	akt_fill(plain, n, 2, 22);
	ok = fixed_rt(t, q, 3710, plain, b, n); /* the write's buffer is not the library's */
	ACHECK(t, ok, "round trip from a plain buffer");
	ACHECK(t, ring_of(q)->nfixed == nfixed + 1, "only the read fixed: %llu",
	       (unsigned long long)(ring_of(q)->nfixed - nfixed));

	/*
	 * New pages at the address of a buffer the ring registered: the allocator may reuse a
	 * freed chunk with its pages, so map, register, unmap and map again at the same address
	 * (the table as xnvme_mem_map/xnvme_mem_unmap keep it)
	 */
	c = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ACHECK(t, c != MAP_FAILED, "mmap");
	if (c != MAP_FAILED) {
		void *again;

		xnvme_bufreg_add(c, n);
		akt_fill(c, n, 3, 23);
		ok = fixed_rt(t, q, 3720, c, plain, n);
		ACHECK(t, ok, "round trip from a mapped buffer");
		xnvme_bufreg_del(c);
		munmap(c, n);
		again = mmap(c, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			     -1, 0);
		ACHECK(t, again == c, "mmap at the same address");
		if (again == c) {
			nfixed = ring_of(q)->nfixed;
			xnvme_bufreg_add(c, n);
			akt_fill(c, n, 4, 24);
			ok = fixed_rt(t, q, 3730, c, plain,
				      n); /* written from c, read back plainly */
			ACHECK(t, ok && ring_of(q)->nfixed == nfixed + 1,
			       "new pages at a registered address are registered afresh");
			xnvme_bufreg_del(c);
			munmap(c, n);
		}
	}
out:
	if (q) {
		xnvme_queue_term(q);
	}
	xnvme_buf_free(t->dev, a);
	xnvme_buf_free(t->dev, b);
	free(plain);
}

/* The process's pinned memory in kB (VmPin of /proc/self/status), -1 when not reported */
static long
vm_pin_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1) {
			break;
		}
	}
	if (f) {
		fclose(f);
	}
	return kb;
}

/* VmPin once it settles at or below `max_kb` (the kernel may unpin a moment later) */
static long
vm_pin_settled(long max_kb)
{
	long kb = vm_pin_kb();

	for (int i = 0; i < 100 && kb > max_kb; ++i) {
		usleep(20 * 1000);
		kb = vm_pin_kb();
	}
	return kb;
}

/* Buffers the kernel holds registered in the ring of `q` (its fdinfo), -1 when not listed */
static int
ring_bufs(struct xnvme_queue *q)
{
	char path[64], line[256];
	bool in = false;
	int n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", ring_of(q)->ring.ring_fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "UserBufs:", 9)) {
			in = true;
			n = 0;
		} else if (in && line[0] == ' ') {
			n += strstr(line, "0x") != NULL;
		} else {
			in = false;
		}
	}
	if (f) {
		fclose(f);
	}
	return n;
}

/*
 * A freed library buffer loses its registration at the ring's next submission: its pages are
 * unpinned (VmPin back to where it was) instead of staying pinned until the slot is reused or
 * the ring exits; many more buffers than slots come and go, each used fixed, data compared
 */
static void
test_fixed_release(struct akt *t, size_t n)
{
	uint8_t *plain = aligned_alloc(4096, n);
	struct xnvme_queue *q = NULL;
	long base, kb, n_kb = (long)(n / 1024);
	int err, nbufs = -1;

	err = xnvme_queue_init(t->dev, 8, 0, &q);
	ACHECK(t, !err && plain, "init: %d", err);
	if (err || !plain) {
		goto out;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);
	base = vm_pin_kb();
	for (int i = 0; i < 3 * XNVME_BUFREG_SLOTS; ++i) {
		uint8_t *a = xnvme_buf_alloc(t->dev, n);
		uint64_t nfixed = ring_of(q)->nfixed;
		bool ok;

		ACHECK(t, a, "alloc %d", i);
		if (!a) {
			break;
		}
		akt_fill(a, n, (uint64_t)i, 40 + (uint32_t)i);
		ok = fixed_rt(t, q, 3800 + (uint64_t)(i % 8) * (n / t->lba), a, plain, n);
		ACHECK(t, ok && ring_of(q)->nfixed == nfixed + 1, "round trip %d fixed", i);
		kb = vm_pin_kb();
		ACHECK(t, base < 0 || kb <= base + n_kb, "%d: pinned %ld kB, at most %ld + %ld", i,
		       kb, base, n_kb);
		xnvme_buf_free(t->dev, a);
		/* a submission from a plain buffer drops the stale registration */
		ok = fixed_rt(t, q, 3790, plain, plain, n);
		ACHECK(t, ok, "plain round trip %d", i);
		kb = vm_pin_settled(base);
		ACHECK(t, base < 0 || kb <= base, "%d: freed, pinned %ld kB, base %ld", i, kb,
		       base);
		nbufs = ring_bufs(q);
		ACHECK(t, nbufs <= 0, "%d: freed, the ring still holds %d buffers", i, nbufs);
		if (xnvme_test_nfail) {
			break;
		}
	}
	for (unsigned int i = 0; i < XNVME_BUFREG_SLOTS; ++i) {
		ACHECK(t, ring_of(q)->buf_gen[i] == 0, "slot %u still registered", i);
	}
	if (base <= 0 || nbufs < 0) {
		printf("# %s: VmPin %ld kB, fdinfo buffers %d: -1/0 means not checked that way\n",
		       t->name, base, nbufs);
	}
out:
	if (q) {
		xnvme_queue_term(q);
	}
	free(plain);
}

/*
 * `--ucmd-fixed /dev/ngXnY` (the QEMU guest): io_uring_cmd with opts.register_buffers; the
 * library's buffers are passed as registered buffers (kernel 6.1+), data compared
 */
static int
ucmd_fixed_main(const char *uri)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct akt t = {.name = "ng", .uri = uri, .mech = "io_uring_cmd", .passthru = true};
	const struct xnvme_geo *geo;

	opts.register_buffers = 1;
	t.dev = akt_open(&t, &opts);
	if (!t.dev) {
		printf("SKIP: cannot open %s with io_uring_cmd: %d\n", uri, errno);
		return 77;
	}
	geo = xnvme_dev_get_geo(t.dev);
	t.lba = geo->lba_nbytes;
	t.nlba = geo->tbytes / geo->lba_nbytes;
	test_fixed_buffers_n(&t, 64 * (size_t)t.lba);
	akt_rw_qd(&t, 16, 5000, 96, 3);
	xnvme_dev_close(t.dev);
	return xnvme_test_result("io_uring_cmd fixed buffers");
}

static void
test_registration(struct akt *t)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct akt rf = *t;
	struct xnvme_queue *q;
	int err;

	opts.register_files = 1;
	rf.dev = akt_open(t, &opts);
	ACHECK(t, rf.dev, "open: %d", errno);
	if (rf.dev) {
		err = xnvme_queue_init(rf.dev, 8, 0, &q);
		ACHECK(t,
		       !err && ring_of(q)->fixed_file && ring_of(q)->fd == 0 &&
			       ring_of(q)->sqe_flags == IOSQE_FIXED_FILE,
		       "registered file: %d", err);
		if (!err) {
			xnvme_queue_term(q);
		}
		akt_rw_qd(&rf, 8, 3500, 64, 8);
		xnvme_dev_close(rf.dev);
	}

	opts = xnvme_opts_default();
	opts.register_buffers = 1;
	rf.dev = akt_open(t, &opts);
	ACHECK(t, rf.dev, "open: %d", errno);
	if (rf.dev) {
		test_fixed_buffers_n(&rf, 512 * 1024);
		test_fixed_release(&rf, 256 * 1024);
		akt_rw_qd(&rf, 8, 3600, 64, 9);
		xnvme_dev_close(rf.dev);
	}
}

/* Runs `fn` with stderr captured into `out` */
static void
capture_stderr(char *out, size_t len, void (*fn)(void *), void *arg)
{
	char path[] = "/tmp/xnvme-stderr-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
}

struct open_try {
	const char *uri;
	struct xnvme_dev *dev;
	int err;
	char why[1024]; ///< xnvme_last_error() right after the open
};

static void
open_ucmd(void *arg)
{
	struct open_try *o = arg;
	struct xnvme_opts opts = xnvme_opts_default();

	opts.async = "io_uring_cmd";
	o->dev = xnvme_dev_open(o->uri, &opts);
	o->err = errno;
	snprintf(o->why, sizeof(o->why), "%s", xnvme_last_error());
}

static void
test_ucmd_refused(struct akt *t)
{
	struct open_try o = {.uri = t->uri};
	char msg[2048];

	capture_stderr(msg, sizeof(msg), open_ucmd, &o);
	ACHECK(t, !o.dev && o.err == ENOTSUP, "open with io_uring_cmd: dev=%p errno=%d",
	       (void *)o.dev, o.err);
	ACHECK(t,
	       strstr(o.why, "io_uring_cmd") && strstr(o.why, "/dev/ngXnY") &&
		       strstr(o.why, "regular file"),
	       "reason names the mechanism: '%s'", o.why);
	ACHECK(t, !msg[0], "the library prints nothing on a refused open: '%s'", msg);
	xnvme_dev_close(o.dev);
	ACHECK(t, !xnvme_be_linux_ucmd_supported(t->dev), "ucmd_supported on a file");
}

/* ---------------------------------------------------------------------------------------- */
/* io_uring_cmd plumbing on /dev/null                                                          */
/* ---------------------------------------------------------------------------------------- */

static struct nvme_uring_cmd *
sqe_cmd(struct io_uring *ring, unsigned int i)
{
	struct io_uring_sqe *sqe = &ring->sq.sqes[(i & ring->sq.ring_mask) << 1];

	return (struct nvme_uring_cmd *)((uintptr_t)sqe + offsetof(struct io_uring_sqe, cmd));
}

static struct io_uring_sqe *
sqe_at(struct io_uring *ring, unsigned int i)
{
	return &ring->sq.sqes[(i & ring->sq.ring_mask) << 1];
}

static void
test_ucmd_devnull(void)
{
	struct akt tl = {.name = "/dev/null", .mech = "io_uring_cmd"}, *t = &tl;
	struct xnvme_be_linux_state lstate = {0};
	struct xnvme_dev_core *dc = calloc(1, sizeof(*dc));
	struct xnvme_dev *dev = &dc->dev;
	struct akt_rec recs[16];
	struct xnvme_queue *q;
	struct io_uring *ring;
	struct iovec iov[3];
	uint8_t data[4096], meta[64];
	unsigned int tail0;
	int err;

	lstate.fd = open("/dev/null", O_RDWR);
	lstate.ftype = XNVME_BE_LINUX_CHAR;
	lstate.nvme = true;
	lstate.nsid = 1;
	dev->be = &xnvme_be_linux;
	dev->async = &xnvme_be_linux_async_ucmd;
	dev->state = &lstate;
	dev->opts = xnvme_opts_default();
	dev->ident.dtype = 2;
	dev->ident.nsid = 1;
	dc->settled = 1; /* nothing to identify behind /dev/null */
	pthread_mutex_init(&dc->lock, NULL);
	ACHECK(t, lstate.fd >= 0, "open /dev/null");
	ACHECK(t, xnvme_be_linux_ucmd_supported(dev), "a generic NVMe namespace node (mocked)");

	err = xnvme_queue_init(dev, 16, 0, &q);
	ACHECK(t, !err, "init: %d", err);
	if (err) {
		goto out;
	}
	ring = &ring_of(q)->ring;
	ACHECK(t,
	       (ring->flags & (IORING_SETUP_SQE128 | IORING_SETUP_CQE32)) ==
		       (IORING_SETUP_SQE128 | IORING_SETUP_CQE32),
	       "SQE128|CQE32 ring: 0x%x", ring->flags);
	xnvme_queue_set_cb(q, akt_cb, NULL);
	memset(recs, 0, sizeof(recs));
	tail0 = ring->sq.sqe_tail;

	for (int i = 0; i < 16; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

		akt_prep(ctx, XNVME_SPEC_NVM_OPC_READ, 0x1122334455ULL + i, 7, &recs[i]);
		ctx->cmd.common.cdw02 = 0xC2;
		ctx->cmd.common.cdw03 = 0xC3;
		ctx->cmd.common.cdw13 = 0xABCD0000;
		ctx->cmd.common.cdw14 = 0xE14;
		ctx->cmd.common.cdw15 = 0xF15;
		switch (i) {
		case 1: /* metadata */
			err = xnvme_cmd_pass(ctx, data, 4096, meta, sizeof(meta));
			break;
		case 2: /* vector, copied: the caller's array is scribbled over afterwards */
			iov[0] = (struct iovec){data, 512};
			iov[1] = (struct iovec){data + 512, 1024};
			iov[2] = (struct iovec){data + 1536, 2560};
			err = xnvme_cmd_passv(ctx, iov, 3, 4096, NULL, 0, 0);
			memset(iov, 0, sizeof(iov));
			break;
		case 3: /* DSM: payload from nr, not from the caller's count */
			ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT;
			ctx->cmd.dsm.nr = 2;
			ctx->cmd.dsm.ad = 1;
			err = xnvme_cmd_pass(ctx, data, 1 << 20, NULL, 0);
			break;
		case 4: /* no-data opcode: buffer ignored */
			ctx->cmd.common.opcode = XNVME_SPEC_NVM_OPC_FLUSH;
			err = xnvme_cmd_pass(ctx, data, 4096, NULL, 0);
			break;
		case 5: /* a read without a buffer never reaches the device */
			err = xnvme_cmd_pass(ctx, NULL, 0, NULL, 0);
			break;
		default:
			err = xnvme_cmd_pass(ctx, data, 4096, NULL, 0);
			break;
		}
		ACHECK(t, !err, "submit %d: %d", i, err);
	}
	ACHECK(t, io_uring_sq_ready(ring) == 16, "batched until poke: %u", io_uring_sq_ready(ring));

	/* the SQEs as the kernel will see them */
	for (unsigned int i = 0; i < 16; ++i) {
		struct io_uring_sqe *sqe = sqe_at(ring, tail0 + i);
		struct nvme_uring_cmd *uc = sqe_cmd(ring, tail0 + i);

		if (i == 5) {
			ACHECK(t, sqe->opcode == IORING_OP_NOP, "EFAULT command is a NOP");
			continue;
		}
		ACHECK(t,
		       sqe->opcode == IORING_OP_URING_CMD && sqe->fd == lstate.fd &&
			       sqe->__pad1 == 0 && sqe->uring_cmd_flags == 0,
		       "sqe %u header", i);
		ACHECK(t, sqe->cmd_op == (i == 2 ? NVME_URING_CMD_IO_VEC : NVME_URING_CMD_IO),
		       "sqe %u cmd_op 0x%x", i, sqe->cmd_op);
		ACHECK(t,
		       uc->nsid == 1 && uc->cdw2 == 0xC2 && uc->cdw3 == 0xC3 &&
			       uc->cdw13 == 0xABCD0000 && uc->cdw14 == 0xE14 &&
			       uc->cdw15 == 0xF15 && uc->timeout_ms == 0 && uc->flags == 0,
		       "sqe %u dwords", i);
		switch (i) {
		case 1:
			ACHECK(t,
			       uc->metadata == (uintptr_t)meta && uc->metadata_len == 64 &&
				       uc->addr == (uintptr_t)data && uc->data_len == 4096,
			       "metadata sqe");
			break;
		case 2: {
			const struct iovec *v = (const struct iovec *)(uintptr_t)uc->addr;

			ACHECK(t,
			       uc->data_len == 3 && v != iov && v[0].iov_base == data &&
				       v[1].iov_len == 1024 && v[2].iov_len == 2560,
			       "vector sqe: own copy of 3 entries");
			break;
		}
		case 3:
			ACHECK(t,
			       uc->opcode == XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT &&
				       uc->data_len == 3 * 16 && (uc->cdw10 & 0xFF) == 2 &&
				       (uc->cdw11 & 0x4),
			       "dsm sqe: data_len=%u", uc->data_len);
			break;
		case 4:
			ACHECK(t, uc->opcode == 0 && uc->addr == 0 && uc->data_len == 0,
			       "flush sqe: no data");
			break;
		default:
			ACHECK(t,
			       uc->opcode == XNVME_SPEC_NVM_OPC_READ &&
				       uc->cdw10 == (uint32_t)(0x1122334455ULL + i) &&
				       uc->cdw11 == 0x11 && (uc->cdw12 & 0xFFFF) == 7 &&
				       uc->addr == (uintptr_t)data && uc->data_len == 4096 &&
				       uc->metadata == 0 && uc->metadata_len == 0,
			       "read sqe %u", i);
			break;
		}
	}

	ACHECK(t, akt_drain(q) == 0, "drain");
	ACHECK(t, io_uring_sq_ready(ring) == 0, "all submitted");
	for (int i = 0; i < 16; ++i) {
		if (i == 5) {
			ACHECK(t, recs[i].calls == 1 && recs[i].sct == 7 && recs[i].sc == EFAULT,
			       "no buffer: sct=%u sc=%u", recs[i].sct, recs[i].sc);
			continue;
		}
		ACHECK(t, recs[i].calls == 1 && !recs[i].status && recs[i].result == 0,
		       "cmd %d: calls=%u status=%d", i, recs[i].calls, recs[i].status);
	}

	/* many small batches through a capacity-1 queue */
	xnvme_queue_term(q);
	err = xnvme_queue_init(dev, 1, 0, &q);
	ACHECK(t, !err, "init(1): %d", err);
	if (!err) {
		struct akt_rec r = {0};
		int bad = 0;

		xnvme_queue_set_cb(q, akt_cb, NULL);
		for (int i = 0; i < 2000; ++i) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);

			akt_prep(ctx, XNVME_SPEC_NVM_OPC_WRITE, (uint64_t)i, 0, &r);
			bad += xnvme_cmd_pass(ctx, data, 512, NULL, 0) != 0;
			bad += akt_drain(q) != 0;
		}
		ACHECK(t, !bad && r.calls == 2000 && !r.status, "2000 x QD1: bad=%d calls=%u", bad,
		       r.calls);
		xnvme_queue_term(q);
	}
out:
	close(lstate.fd);
	pthread_mutex_destroy(&dc->lock);
	free(dc);
}

/* ---------------------------------------------------------------------------------------- */

/* false when the target's file system refuses O_DIRECT (then it is skipped) */
static bool
run_file_target(struct akt *t, bool extras)
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
	akt_suite(t, 0);
	if (extras) {
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
		test_registration(t);
		test_ucmd_refused(t);
	}
	xnvme_dev_close(t->dev);
	unlink(t->uri);
	return true;
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
main(int argc, char **argv)
{
	struct akt_paths p;
	bool extras_done;
	struct akt t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--ucmd-fixed")) {
		return ucmd_fixed_main(argv[2]);
	}
	akt_paths_init(&p, "uring");

	if (!xnvme_be_linux_uring_caps()->ring) {
		printf("SKIP: io_uring unavailable: %s\n",
		       strerror(xnvme_be_linux_uring_caps()->err));
		return XNVME_TEST_SKIP;
	}

	test_ucmd_devnull();

	t = (struct akt){.name = "disk-direct",
			 .uri = p.ext4d,
			 .mech = "io_uring",
			 .direct = true,
			 .is_file = true};
	extras_done = run_file_target(&t, true);
	t = (struct akt){
		.name = "disk-buffered", .uri = p.ext4, .mech = "io_uring", .is_file = true};
	run_file_target(&t, !extras_done);
	t = (struct akt){
		.name = "tmpfs", .uri = p.shm, .mech = "io_uring", .is_file = true, .tmpfs = true};
	run_file_target(&t, false);

	akt_loop_run(&p, "io_uring", run_loop_target);
	return xnvme_test_result("io_uring");
}
