// SPDX-License-Identifier: BSD-3-Clause
/*
 * The vfio driver's multi-process mode against the fake controller shared between processes:
 * a primary process (mp_primary.h on the fake, with a device thread) and secondary processes
 * (mp_secondary.h on the fake's shared descriptors), forked from this one. Checks: attach and
 * the controller description, queue ids, creation and deletion, data written and read back on
 * several queues, admin commands through the primary (statuses and data as the single-process
 * path gives them, the queue management opcodes and foreign Aborts refused), memory the
 * secondary did not map refused, queue and IOVA exhaustion with their reasons, disjoint IOVA
 * windows, a completion fd, a controller reset one secondary asks for reaching the others, a
 * secondary killed mid-I/O (its queues deleted, its mappings gone, its queue ids and windows
 * reused; the other secondary's I/O goes on and verifies), the primary killed (commands fail
 * with ENOTCONN, nothing hangs), users not admitted refused, admitted ones served.
 */
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "harness.h"
#include "mp_primary.h"
#include "mp_secondary.h"

#define BDF "0000:fe:00.0"
#define QD 8
#define IOSZ 4096
#define WBUF ((1u << 20) - 4096)

static uint32_t g_shm_id;

/* What the processes of one case tell each other (shared memory) */
struct board {
	int ready[4];
	int stop[4];
	int qid[4];
	uint64_t verified[4];
	uint64_t iova[2][64][2]; /* [secondary][buffer] = {start, end} */
	int niova[2];
};

struct prim_cfg {
	const uint32_t *uids;
	size_t nuids;
	uint64_t iova_nbytes;   /* 0: the fake's default window */
	uint64_t window_nbytes; /* 0: the default */
};

struct rig {
	struct fake_ctrl *fc; /* shared: the primary runs it, the test reads its observations */
	struct board *board;
	FILE *log;
	pid_t primary;
	bool removed; /* the device went: the primary's stop shuts nothing down */
};

static void *
shared_alloc(size_t n)
{
	void *mem = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return mem;
}

static struct fake_ctrl *g_primary_fc;

/* SIGUSR1 in the primary: the OS asks for the device back (the request eventfd fires) */
static void
on_usr1(int sig)
{
	uint64_t one = 1;

	(void)sig;
	if (g_primary_fc->req_fd > 0 && write(g_primary_fc->req_fd, &one, sizeof(one)) < 0) {
		_exit(4);
	}
}

static void
primary_main(struct rig *rig, const struct prim_cfg *cfg, int ready_fd)
{
	struct vfio_primary_opts opts = {
		.shm_id = g_shm_id,
		.uids = cfg->uids,
		.nuids = cfg->nuids,
		.window_nbytes = cfg->window_nbytes,
		.log = rig->log,
	};
	struct vfio_ctrl_opts copts = {0};
	struct fake_ctrl *fc = rig->fc;
	struct vfio_primary *p;
	char msg[256] = "";
	sigset_t set;
	int sfd, err;

	g_primary_fc = fc;
	signal(SIGUSR1, on_usr1);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	err = vfio_primary_create(&p, &opts);
	if (!err) {
		err = vfio_primary_add(p, BDF, &fc->bus, &copts, msg, sizeof(msg));
	}
	if (!err) {
		err = fake_ctrl_thread_start(fc);
	}
	if (err || sfd < 0) {
		fprintf(stderr, "primary: %s (%s)\n", strerror(-err), msg);
		_exit(2);
	}
	if (write(ready_fd, "r", 1) != 1) {
		_exit(2);
	}
	err = vfio_primary_run(p, sfd);
	vfio_primary_destroy(p);
	fake_ctrl_thread_stop(fc);
	_exit(err ? 3 : 0);
}

static void
rig_start(struct rig *rig, const struct prim_cfg *cfg)
{
	struct pollfd pfd;
	int ready[2];
	char c;

	memset(rig, 0, sizeof(*rig));
	rig->fc = shared_alloc(sizeof(*rig->fc));
	rig->board = shared_alloc(sizeof(*rig->board));
	rig->log = tmpfile();
	if (!rig->log || pipe(ready)) {
		perror("rig");
		exit(1);
	}
	/* set up here: the test sees the shared doorbells and mapping table at the same address */
	fake_setup(rig->fc, 0, 0, 5, 0);
	if (cfg->iova_nbytes) {
		rig->fc->bus.iova_limit = rig->fc->bus.iova_base + cfg->iova_nbytes;
	}
	CHECK_EQ(fake_ctrl_share(rig->fc), 0);
	fflush(NULL);
	rig->primary = fork();
	if (rig->primary == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0); /* never outlive the test */
		close(ready[0]);
		primary_main(rig, cfg, ready[1]);
	}
	close(ready[1]);
	pfd = (struct pollfd){.fd = ready[0], .events = POLLIN};
	CHECK(poll(&pfd, 1, 10000) == 1 && read(ready[0], &c, 1) == 1);
	close(ready[0]);
}

static int
wait_exit(pid_t pid)
{
	int st = 0;

	if (waitpid(pid, &st, 0) != pid) {
		return -1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Whether the primary's log has a line containing `what`, waiting up to `ms` for it */
static bool
log_has(struct rig *rig, const char *what, int ms)
{
	char buf[16384];

	for (int waited = 0; waited <= ms; waited += 10) {
		ssize_t n = pread(fileno(rig->log), buf, sizeof(buf) - 1, 0);

		if (n > 0) {
			buf[n] = '\0';
			if (strstr(buf, what)) {
				return true;
			}
		}
		usleep(10000);
	}
	fprintf(stderr, "primary log lacks '%s':\n%s\n", what, buf);
	return false;
}

static void
rig_stop(struct rig *rig)
{
	if (rig->primary > 0) {
		kill(rig->primary, SIGTERM);
		CHECK_EQ(wait_exit(rig->primary), 0);
		/* the primary shut the controller down on its way out */
		CHECK_EQ(rig->fc->shutdowns, rig->removed ? 0 : 1);
		CHECK_EQ(rig->fc->bad_dma, 0);
		if (rig->fc->bad_dma) {
			fprintf(stderr, "last unmapped DMA: iova 0x%llx (%s)\n%s",
				(unsigned long long)rig->fc->bad_iova, strerror(rig->fc->bad_errno),
				"primary log:\n");
			log_has(rig, "\x01", 0); /* prints the log */
		}
	}
	fclose(rig->log);
	/* this process's copies; the device thread and its lock were the primary's */
	rig->fc->thread_on = false;
	fake_shared_fini(rig->fc);
	free(rig->fc->media);
	free(rig->fc->meta);
	free(rig->fc->scratch);
	munmap(rig->fc, sizeof(*rig->fc));
	munmap(rig->board, sizeof(*rig->board));
}

typedef void (*sec_fn)(struct rig *rig, int idx);

static pid_t
sec_spawn(struct rig *rig, sec_fn fn, int idx)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* the fake device (in the primary, not our parent) reaches our memory */
		prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		xnvme_test_nfail = 0; /* its own verdict, not the test's so far */
		fn(rig, idx);
		_exit(xnvme_test_nfail ? 1 : 0);
	}
	return pid;
}

static int
attach(struct vfio_ctrl *ctrl)
{
	char msg[512] = "";
	int err = vfio_sec_attach(ctrl, BDF, g_shm_id, fake_remote_import, msg, sizeof(msg));

	if (err) {
		fprintf(stderr, "attach: %s: %s\n", strerror(-err), msg);
	}
	return err;
}

struct cmd_rec {
	int done;
	struct xnvme_spec_cpl cpl;
};

static void
cmd_cb(void *arg, const struct xnvme_spec_cpl *cpl)
{
	struct cmd_rec *r = arg;

	r->cpl = *cpl;
	r->done = 1;
}

/* Reaps until `n` records are done or `us` passed; the number done */
static int
reap_until(struct vfio_qpair *qp, struct cmd_rec *recs, int n, uint64_t us)
{
	uint64_t t0 = vfio_now_us();
	int done = 0;

	do {
		vfio_qpair_reap(qp, 0);
		done = 0;
		for (int i = 0; i < n; ++i) {
			done += recs[i].done;
		}
	} while (done < n && vfio_now_us() - t0 < us);
	return done;
}

/* QD writes of a pattern at slba + i * 8, read back and compared: 0, or -1 on any error */
static int
write_verify(struct vfio_qpair *qp, uint8_t *wbuf, uint8_t *rbuf, uint64_t slba, unsigned seed)
{
	struct cmd_rec recs[QD];
	int err = 0;

	for (int pass = 0; pass < 2 && !err; ++pass) {
		uint8_t opc = pass ? XNVME_SPEC_NVM_OPC_READ : XNVME_SPEC_NVM_OPC_WRITE;

		memset(recs, 0, sizeof(recs));
		for (int i = 0; i < QD && !err; ++i) {
			struct iovec v = {(pass ? rbuf : wbuf) + (size_t)i * IOSZ, IOSZ};
			struct xnvme_spec_cmd cmd = rw_cmd(opc, slba + (uint64_t)i * 8, IOSZ);

			if (!pass) {
				fill(v.iov_base, IOSZ, seed + (unsigned)i);
			}
			err = vfio_qpair_submit(qp, &cmd, &v, 1, NULL, 0, &recs[i]);
		}
		vfio_qpair_ring(qp);
		if (err || reap_until(qp, recs, QD, 5000000) != QD) {
			return -1;
		}
		for (int i = 0; i < QD; ++i) {
			if (recs[i].cpl.status.val) {
				return -1;
			}
		}
	}
	return memcmp(wbuf, rbuf, (size_t)QD * IOSZ) ? -1 : 0;
}

/* A secondary with one queue pair of 32 entries and QD pages to write from and read into */
struct sec {
	struct vfio_ctrl ctrl;
	struct vfio_qpair *qp;
	uint8_t *wbuf;
	uint8_t *rbuf;
};

/* Attached (done when `attached`), the queue pair made with `timeout_us`; false on failure */
static bool
sec_open(struct sec *s, bool attached, uint64_t timeout_us)
{
	if (!attached && attach(&s->ctrl)) {
		CHECK(0);
		return false;
	}
	s->qp = vfio_ctrl_qpair_create(&s->ctrl, 32, cmd_cb, timeout_us, false);
	s->wbuf = vfio_dma_alloc(&s->ctrl.dma, (size_t)QD * IOSZ, NULL);
	s->rbuf = vfio_dma_alloc(&s->ctrl.dma, (size_t)QD * IOSZ, NULL);
	CHECK(s->qp && s->wbuf && s->rbuf);
	return s->qp && s->wbuf && s->rbuf;
}

static int
sec_wv(struct sec *s, uint64_t slba, unsigned seed)
{
	return write_verify(s->qp, s->wbuf, s->rbuf, slba, seed);
}

static void
sec_close(struct sec *s)
{
	vfio_ctrl_qpair_destroy(&s->ctrl, s->qp);
	vfio_dma_free(&s->ctrl.dma, s->wbuf);
	vfio_dma_free(&s->ctrl.dma, s->rbuf);
	vfio_sec_detach(&s->ctrl);
}

/* ---- attach, queues, data, admin through the primary, refusals -------------------------- */

static int
admin_identify(struct vfio_ctrl *ctrl, void *buf, uint32_t nsid, uint8_t cns,
	       struct xnvme_spec_cpl *cpl)
{
	struct xnvme_spec_cmd cmd = {0};

	cmd.common.opcode = NVME_ADM_IDENTIFY;
	cmd.common.nsid = nsid;
	cmd.common.ndt = cns;
	return vfio_ctrl_admin(ctrl, &cmd, buf, 4096, cpl);
}

static void
sec_basics(struct rig *rig, int idx)
{
	struct vfio_ctrl ctrl;
	struct vfio_qpair *qp[FAKE_MAXQ] = {0};
	struct xnvme_spec_cmd cmd = {0};
	struct xnvme_spec_cpl cpl;
	uint8_t *wbuf, *rbuf, plain[4096];
	int nq = 0;

	(void)rig;
	(void)idx;
	if (attach(&ctrl)) {
		CHECK(0);
		return;
	}
	CHECK(vfio_sec_primary_pid(&ctrl) > 0);
	CHECK_EQ(ctrl.nioq, FAKE_MAXQ - 1);
	CHECK_EQ(ctrl.idfy[0], 0x36);
	CHECK_EQ(ctrl.mqes, 64);

	/* two queue pairs, data on each */
	qp[0] = vfio_ctrl_qpair_create(&ctrl, 32, cmd_cb, 1000000, false);
	qp[1] = vfio_ctrl_qpair_create(&ctrl, 32, cmd_cb, 1000000, false);
	CHECK(qp[0] && qp[1]);
	if (!qp[0] || !qp[1]) {
		return;
	}
	CHECK(qp[0]->qid != qp[1]->qid);
	wbuf = vfio_dma_alloc(&ctrl.dma, (size_t)QD * IOSZ, NULL);
	rbuf = vfio_dma_alloc(&ctrl.dma, (size_t)QD * IOSZ, NULL);
	CHECK(wbuf && rbuf);
	for (int r = 0; r < 4 && wbuf && rbuf; ++r) {
		CHECK_EQ(write_verify(qp[r % 2], wbuf, rbuf, 64 * (uint64_t)r, 11 + (unsigned)r),
			 0);
	}

	/* admin through the primary: the data and the statuses the device gives */
	memset(rbuf, 0, 4096);
	CHECK_EQ(admin_identify(&ctrl, rbuf, 0, 1, &cpl), 0);
	CHECK_EQ(memcmp(rbuf, ctrl.idfy, 4096), 0);
	memset(plain, 0, sizeof(plain)); /* ordinary memory: copied as a bounce buffer would */
	CHECK_EQ(admin_identify(&ctrl, plain, 1, 0, &cpl), 0);
	{
		uint64_t nsze;

		memcpy(&nsze, plain, sizeof(nsze));
		CHECK_EQ(nsze, NLBAS);
	}
	CHECK_EQ(admin_identify(&ctrl, plain, 2, 0, &cpl), -EIO);
	CHECK_EQ(cpl.status.sc, 0x0B);
	cmd.common.opcode = 0xC0; /* vendor specific, unknown to the device */
	CHECK_EQ(vfio_ctrl_admin(&ctrl, &cmd, NULL, 0, &cpl), -EIO);
	CHECK_EQ(cpl.status.sct, 0);
	CHECK_EQ(cpl.status.sc, SC_INVALID_OPCODE);

	/* what a secondary may not do */
	cmd.common.opcode = NVME_ADM_DELETE_SQ;
	cmd.common.ndt = qp[0]->qid;
	CHECK_EQ(vfio_ctrl_admin(&ctrl, &cmd, NULL, 0, &cpl), -EPERM);
	CHECK(strstr(xnvme_last_error(), "only the primary") != NULL);
	cmd.common.opcode = NVME_ADM_ABORT;
	cmd.common.ndt = 5; /* a queue of nobody */
	CHECK_EQ(vfio_ctrl_admin_timed(&ctrl, &cmd, 100000, &cpl), -EPERM);
	CHECK(strstr(xnvme_last_error(), "not one of this process") != NULL);
	cmd.common.opcode = 0x0C; /* Asynchronous Event Request */
	CHECK_EQ(vfio_ctrl_admin(&ctrl, &cmd, NULL, 0, &cpl), -EPERM);
	{
		struct vfio_qpair foreign = {.qid = 5};

		CHECK_EQ(vfio_sec_queue_delete(ctrl.remote, &foreign), -EPERM);
		foreign.qid = qp[0]->qid;
		foreign.qsize = 8;
		foreign.sq_iova = 0x1000; /* not in our windows */
		foreign.cq_iova = 0x2000;
		CHECK_EQ(vfio_sec_queue_create(ctrl.remote, &foreign), -EEXIST);
	}
	/* memory this process did not map for the device */
	{
		struct iovec v = {plain, 4096};
		struct xnvme_spec_cmd w = rw_cmd(XNVME_SPEC_NVM_OPC_WRITE, 0, 4096);

		CHECK_EQ(vfio_qpair_submit(qp[0], &w, &v, 1, NULL, 0, NULL), -EFAULT);
	}

	/* queue ids run out: EBUSY with the reason */
	for (nq = 2; nq < FAKE_MAXQ; ++nq) {
		qp[nq] = vfio_ctrl_qpair_create(&ctrl, 8, cmd_cb, 0, false);
		if (!qp[nq]) {
			break;
		}
	}
	CHECK_EQ(nq, FAKE_MAXQ - 1);
	CHECK_EQ(errno, EBUSY);
	CHECK(strstr(xnvme_last_error(), "are in use (7 by this process, 0 by others)") != NULL);

	/* a completion fd: the primary routes MSI-X vector qid to our eventfd */
	vfio_ctrl_qpair_destroy(&ctrl, qp[2]);
	qp[2] = vfio_ctrl_qpair_create(&ctrl, 32, cmd_cb, 1000000, true);
	CHECK(qp[2] && qp[2]->irq_fd >= 0);
	if (qp[2] && wbuf && rbuf) {
		struct pollfd pfd = {.fd = qp[2]->irq_fd, .events = POLLIN};
		uint64_t cnt = 0;

		CHECK_EQ(write_verify(qp[2], wbuf, rbuf, 512, 77), 0);
		CHECK_EQ(poll(&pfd, 1, 1000), 1);
		CHECK_EQ(read(qp[2]->irq_fd, &cnt, sizeof(cnt)), (ssize_t)sizeof(cnt));
		CHECK(cnt >= 1);
	}
	for (int i = 0; i < nq; ++i) {
		vfio_ctrl_qpair_destroy(&ctrl, qp[i]);
	}
	vfio_dma_free(&ctrl.dma, wbuf);
	vfio_dma_free(&ctrl.dma, rbuf);
	vfio_sec_detach(&ctrl);
}

static void
test_basics(void)
{
	struct prim_cfg cfg = {0};
	struct rig rig;
	char line[128];
	pid_t s;

	rig_start(&rig, &cfg);
	s = sec_spawn(&rig, sec_basics, 0);
	CHECK_EQ(wait_exit(s), 0);
	snprintf(line, sizeof(line), "secondary 1 (pid %d) exited: queues [] deleted", (int)s);
	CHECK(log_has(&rig, line, 2000)); /* it deleted its own queues before it went */
	CHECK_EQ(fake_shared_maps_of(rig.fc->sh, s), 0);
	for (int q = 1; q < FAKE_MAXQ; ++q) {
		CHECK(!rig.fc->sq[q].exists && !rig.fc->cq[q].exists);
	}
	rig_stop(&rig);
}

/* ---- a secondary killed mid-I/O ------------------------------------------------------------ */

static void
sec_io_loop(struct rig *rig, int idx)
{
	struct board *b = rig->board;
	unsigned round = 0;
	struct sec s;

	if (!sec_open(&s, false, 1000000)) {
		return;
	}
	__atomic_store_n(&b->qid[idx], s.qp->qid, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&b->stop[idx], __ATOMIC_ACQUIRE)) {
		/* disjoint ranges: 4096 LBAs per secondary, a new pattern each round */
		uint64_t slba = 4096 * (uint64_t)idx + (round % 32) * QD * 8;

		if (sec_wv(&s, slba, (unsigned)(idx * 1000) + round)) {
			CHECK(0);
			break;
		}
		__atomic_add_fetch(&b->verified[idx], QD, __ATOMIC_RELEASE);
		__atomic_store_n(&b->ready[idx], 1, __ATOMIC_RELEASE);
		round++;
	}
	sec_close(&s);
}

static void
sec_take_all(struct rig *rig, int idx)
{
	struct vfio_qpair *qp[FAKE_MAXQ] = {0};
	struct vfio_ctrl ctrl;
	int n = 0;

	(void)rig;
	(void)idx;
	if (attach(&ctrl)) {
		CHECK(0);
		return;
	}
	while (n < FAKE_MAXQ && (qp[n] = vfio_ctrl_qpair_create(&ctrl, 8, cmd_cb, 0, false))) {
		n++;
	}
	CHECK_EQ(n, FAKE_MAXQ - 1); /* the killed one's ids are free again */
	while (n) {
		vfio_ctrl_qpair_destroy(&ctrl, qp[--n]);
	}
	vfio_sec_detach(&ctrl);
}

static bool
wait_flag(int *flag, int ms)
{
	for (int i = 0; i < ms && !__atomic_load_n(flag, __ATOMIC_ACQUIRE); ++i) {
		usleep(1000);
	}
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

static void
test_secondary_death(void)
{
	struct prim_cfg cfg = {0};
	struct rig rig;
	struct board *b;
	char line[160];
	uint64_t before;
	pid_t s1, s2, s3;
	int q1;

	rig_start(&rig, &cfg);
	b = rig.board;
	s1 = sec_spawn(&rig, sec_io_loop, 0);
	s2 = sec_spawn(&rig, sec_io_loop, 1);
	CHECK(wait_flag(&b->ready[0], 5000) && wait_flag(&b->ready[1], 5000));
	usleep(100000);
	kill(s1, SIGKILL); /* mid-I/O: it loops on write and read */
	CHECK_EQ(wait_exit(s1), 128 + SIGKILL);
	q1 = __atomic_load_n(&b->qid[0], __ATOMIC_ACQUIRE);
	snprintf(line, sizeof(line), "(pid %d) exited: queues [%d] deleted", (int)s1, q1);
	CHECK(log_has(&rig, line, 3000));
	CHECK(log_has(&rig, "1024 of 1024 MiB of IOVA windows reclaimed", 0));
	CHECK(!rig.fc->sq[q1].exists && !rig.fc->cq[q1].exists);
	CHECK_EQ(fake_shared_maps_of(rig.fc->sh, s1), 0);
	/* the other one goes on, verifying */
	before = __atomic_load_n(&b->verified[1], __ATOMIC_ACQUIRE);
	usleep(300000);
	CHECK(__atomic_load_n(&b->verified[1], __ATOMIC_ACQUIRE) > before);
	__atomic_store_n(&b->stop[1], 1, __ATOMIC_RELEASE);
	CHECK_EQ(wait_exit(s2), 0);
	CHECK_EQ(rig.fc->resets, 0);
	s3 = sec_spawn(&rig, sec_take_all, 2);
	CHECK_EQ(wait_exit(s3), 0);
	rig_stop(&rig);
}

/* ---- a reset one secondary causes reaches the others ------------------------------------- */

static void
sec_timeout(struct rig *rig, int idx)
{
	struct board *b = rig->board;
	struct cmd_rec rec = {0};
	struct sec s;

	if (sec_open(&s, false, 50000)) { /* 50 ms command timeout */
		struct iovec v = {s.rbuf, IOSZ};
		struct xnvme_spec_cmd cmd = rw_cmd(XNVME_SPEC_NVM_OPC_READ, 999, IOSZ);

		/* the device keeps it and ignores the Abort: the primary resets the controller */
		CHECK_EQ(vfio_qpair_submit(s.qp, &cmd, &v, 1, NULL, 0, &rec), 0);
		vfio_qpair_ring(s.qp);
		CHECK_EQ(reap_until(s.qp, &rec, 1, 5000000), 1);
		CHECK_EQ(rec.cpl.status.sct, XNVME_STATUS_CODE_TYPE_VENDOR);
		CHECK_EQ(rec.cpl.status.sc, ETIMEDOUT);
		CHECK_EQ(s.qp->epoch, s.ctrl.epoch); /* recreated after the reset */
		CHECK(s.ctrl.epoch > 0);
		CHECK_EQ(sec_wv(&s, 4096 * (uint64_t)idx, 5), 0);
		sec_close(&s);
	}
	__atomic_store_n(&b->ready[idx], 1, __ATOMIC_RELEASE);
}

static void
sec_after_reset(struct rig *rig, int idx)
{
	struct board *b = rig->board;
	unsigned epoch;
	struct sec s;

	if (!sec_open(&s, false, 1000000)) {
		return;
	}
	CHECK_EQ(sec_wv(&s, 4096 * (uint64_t)idx, 1), 0);
	epoch = s.qp->epoch;
	__atomic_store_n(&b->qid[idx], s.qp->qid, __ATOMIC_RELEASE);
	CHECK(wait_flag(&b->stop[idx], 10000)); /* the other secondary's reset is over */
	for (int i = 0; i < 2000 && __atomic_load_n(&s.ctrl.epoch, __ATOMIC_ACQUIRE) == epoch;
	     ++i) {
		usleep(1000); /* the notification was sent before that reset's reply */
	}
	CHECK(__atomic_load_n(&s.ctrl.epoch, __ATOMIC_ACQUIRE) != epoch); /* we were told */
	/* our queue was dropped by the reset: the next use recreates it */
	CHECK_EQ(sec_wv(&s, 4096 * (uint64_t)idx + 64, 2), 0);
	CHECK_EQ(s.qp->epoch, s.ctrl.epoch);
	sec_close(&s);
}

static void
test_reset_reaches_all(void)
{
	struct prim_cfg cfg = {0};
	struct rig rig;
	pid_t s1, s2;

	rig_start(&rig, &cfg);
	rig.fc->swallow_slba = 999;
	rig.fc->abort_mode = FAKE_ABORT_IGNORE;
	s1 = sec_spawn(&rig, sec_after_reset, 0);
	CHECK(wait_flag(&rig.board->qid[0], 5000));
	s2 = sec_spawn(&rig, sec_timeout, 1);
	CHECK_EQ(wait_exit(s2), 0);
	CHECK_EQ(rig.fc->aborts, 1);
	CHECK_EQ(rig.fc->resets, 1);
	CHECK(log_has(&rig, "controller reset asked for by secondary 2", 0));
	__atomic_store_n(&rig.board->stop[0], 1, __ATOMIC_RELEASE);
	CHECK_EQ(wait_exit(s1), 0);
	rig_stop(&rig);
}

/* ---- the primary killed ------------------------------------------------------------------ */

static void
sec_orphan(struct rig *rig, int idx)
{
	struct board *b = rig->board;
	struct xnvme_spec_cpl cpl;
	struct cmd_rec recs[4] = {{0}};
	struct vfio_ctrl ctrl;
	struct vfio_qpair *qp;
	uint8_t *buf, idfy[4096];
	uint64_t t0;

	if (attach(&ctrl)) {
		CHECK(0);
		return;
	}
	qp = vfio_ctrl_qpair_create(&ctrl, 32, cmd_cb, 0, false); /* no command timeout */
	buf = vfio_dma_alloc(&ctrl.dma, 4 * IOSZ, NULL);
	CHECK(qp && buf);
	if (!qp || !buf) {
		return;
	}
	for (int i = 0; i < 4; ++i) { /* the device keeps them */
		struct iovec v = {buf + (size_t)i * IOSZ, IOSZ};
		struct xnvme_spec_cmd cmd = rw_cmd(XNVME_SPEC_NVM_OPC_READ, 999, IOSZ);

		CHECK_EQ(vfio_qpair_submit(qp, &cmd, &v, 1, NULL, 0, &recs[i]), 0);
	}
	vfio_qpair_ring(qp);
	__atomic_store_n(&b->ready[idx], 1, __ATOMIC_RELEASE);
	/* the primary is killed now: every command fails, none waits for ever */
	t0 = vfio_now_us();
	CHECK_EQ(reap_until(qp, recs, 4, 10000000), 4);
	CHECK(vfio_now_us() - t0 < 5000000);
	for (int i = 0; i < 4; ++i) {
		CHECK_EQ(recs[i].cpl.status.sct, XNVME_STATUS_CODE_TYPE_VENDOR);
		CHECK_EQ(recs[i].cpl.status.sc, ENOTCONN);
	}
	{
		struct iovec v = {buf, IOSZ};
		struct xnvme_spec_cmd cmd = rw_cmd(XNVME_SPEC_NVM_OPC_READ, 0, IOSZ);

		CHECK_EQ(vfio_qpair_submit(qp, &cmd, &v, 1, NULL, 0, &recs[0]), -ENOTCONN);
	}
	CHECK_EQ(admin_identify(&ctrl, idfy, 0, 1, &cpl), -ENOTCONN);
	CHECK(strstr(xnvme_last_error(), "primary process") != NULL);
	CHECK(vfio_ctrl_qpair_create(&ctrl, 8, cmd_cb, 0, false) == NULL);
	CHECK_EQ(errno, ENOTCONN);
	CHECK(vfio_dma_alloc(&ctrl.dma, 2ULL << 30, NULL) == NULL); /* no window to grow by */
	vfio_ctrl_qpair_destroy(&ctrl, qp);
	vfio_dma_free(&ctrl.dma, buf);
	vfio_sec_detach(&ctrl);
}

static void
test_primary_death(void)
{
	struct prim_cfg cfg = {0};
	struct rig rig;
	pid_t s;

	rig_start(&rig, &cfg);
	rig.fc->swallow_slba = 999;
	s = sec_spawn(&rig, sec_orphan, 0);
	CHECK(wait_flag(&rig.board->ready[0], 5000));
	usleep(20000);
	kill(rig.primary, SIGKILL);
	CHECK_EQ(wait_exit(rig.primary), 128 + SIGKILL);
	rig.primary = 0;
	CHECK_EQ(wait_exit(s), 0);
	rig_stop(&rig);
}

/* ---- the OS takes the device back ------------------------------------------------------- */

static void
sec_removed(struct rig *rig, int idx)
{
	struct board *b = rig->board;
	uint64_t t0;
	struct sec s;

	if (!sec_open(&s, false, 1000000)) {
		return;
	}
	CHECK_EQ(sec_wv(&s, 0, 9), 0);
	__atomic_store_n(&b->ready[idx], 1, __ATOMIC_RELEASE);
	t0 = vfio_now_us();
	while (!__atomic_load_n(&s.ctrl.removed, __ATOMIC_ACQUIRE) &&
	       vfio_now_us() - t0 < 5000000) {
		usleep(1000);
	}
	/* told by the primary, it let go of the device at once: all-ones, commands refused */
	CHECK_EQ(__atomic_load_n(&s.ctrl.removed, __ATOMIC_ACQUIRE), 1);
	CHECK_EQ(vfio_bus_read32(s.ctrl.bus, NVME_REG_CSTS), UINT32_MAX);
	CHECK_EQ(sec_wv(&s, 0, 10), -1);
	sec_close(&s);
}

static void
sec_too_late(struct rig *rig, int idx)
{
	struct vfio_ctrl ctrl;
	char msg[512] = "";

	(void)rig;
	(void)idx;
	CHECK_EQ(vfio_sec_attach(&ctrl, BDF, g_shm_id, fake_remote_import, msg, sizeof(msg)),
		 -ENODEV);
	CHECK(strstr(msg, "removed") != NULL);
}

static void
test_removal(void)
{
	struct prim_cfg cfg = {0};
	struct rig rig;
	pid_t s;

	rig_start(&rig, &cfg);
	s = sec_spawn(&rig, sec_removed, 0);
	CHECK(wait_flag(&rig.board->ready[0], 5000));
	kill(rig.primary, SIGUSR1);
	CHECK_EQ(wait_exit(s), 0);
	CHECK(log_has(&rig, "the OS wants the device back", 2000));
	CHECK_EQ(wait_exit(sec_spawn(&rig, sec_too_late, 1)), 0);
	rig.removed = true;
	rig_stop(&rig);
}

/* ---- IOVA windows: disjoint, grown, exhausted, reclaimed ---------------------------------- */

static void
sec_windows(struct rig *rig, int idx)
{
	struct board *b = rig->board;
	struct vfio_ctrl ctrl;
	void *bufs[64];
	int n = 0, want = idx ? 2 : 64;

	if (attach(&ctrl)) {
		CHECK(0);
		return;
	}
	/* below 1 MiB: never from hugepages, whatever the machine reserved */
	while (n < want && (bufs[n] = vfio_dma_alloc(&ctrl.dma, WBUF, &b->iova[idx][n][0]))) {
		b->iova[idx][n][1] = b->iova[idx][n][0] + WBUF;
		n++;
	}
	__atomic_store_n(&b->niova[idx], n, __ATOMIC_RELEASE);
	if (!idx) {
		/* 24 MiB: the primary's 4 MiB window, the other secondary's 4, ours grow to 16 */
		CHECK_EQ(n, 16);
		CHECK_EQ(errno, ENOMEM);
		CHECK(strstr(xnvme_last_error(), "IOVA space is exhausted") != NULL);
	} else {
		CHECK_EQ(n, 2);
	}
	__atomic_store_n(&b->ready[idx], 1, __ATOMIC_RELEASE);
	CHECK(wait_flag(&b->stop[idx], 10000));
	while (n) {
		vfio_dma_free(&ctrl.dma, bufs[--n]);
	}
	vfio_sec_detach(&ctrl);
}

static void
test_windows(void)
{
	struct prim_cfg cfg = {.iova_nbytes = 24u << 20, .window_nbytes = 4u << 20};
	struct rig rig;
	struct board *b;

	rig_start(&rig, &cfg);
	b = rig.board;
	/* twice: the second round gets the windows of the first back */
	for (int round = 0; round < 2; ++round) {
		pid_t s1, s2;

		memset(b, 0, sizeof(*b));
		s2 = sec_spawn(&rig, sec_windows, 1); /* attaches first: one window */
		CHECK(wait_flag(&b->ready[1], 5000));
		s1 = sec_spawn(&rig, sec_windows, 0);
		CHECK(wait_flag(&b->ready[0], 5000));
		for (int i = 0; i < b->niova[0]; ++i) {
			for (int j = 0; j < b->niova[1]; ++j) {
				CHECK(b->iova[0][i][1] <= b->iova[1][j][0] ||
				      b->iova[1][j][1] <= b->iova[0][i][0]);
			}
		}
		__atomic_store_n(&b->stop[0], 1, __ATOMIC_RELEASE);
		CHECK_EQ(wait_exit(s1), 0);
		__atomic_store_n(&b->stop[1], 1, __ATOMIC_RELEASE);
		CHECK_EQ(wait_exit(s2), 0);
		CHECK(log_has(&rig, "16 of 16 MiB of IOVA windows reclaimed", 2000));
		CHECK(log_has(&rig, "4 of 4 MiB of IOVA windows reclaimed", 2000));
	}
	rig_stop(&rig);
}

/* ---- who is admitted --------------------------------------------------------------------- */

static void
sec_as_nobody(struct rig *rig, int idx)
{
	struct sec s;
	char msg[512] = "";
	int err;

	(void)rig;
	if (setgid(65534) || setuid(65534)) {
		CHECK(0);
		return;
	}
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	err = vfio_sec_attach(&s.ctrl, BDF, g_shm_id, fake_remote_import, msg, sizeof(msg));
	if (!idx) {
		CHECK_EQ(err, -EACCES);
		CHECK(strstr(msg, "uid 65534 gid 65534 is not admitted") != NULL);
		return;
	}
	CHECK_EQ(err, 0);
	if (!err) {
		if (sec_open(&s, true, 1000000)) {
			CHECK_EQ(sec_wv(&s, 100, 3), 0);
		}
		sec_close(&s);
	}
}

static void
test_admission(void)
{
	const uint32_t nobody = 65534;
	struct prim_cfg cfg = {0};
	struct rig rig;
	struct vfio_ctrl ctrl;
	char msg[512] = "";

	/* no primary with this shm id: refused with the command that starts one */
	CHECK_EQ(vfio_sec_attach(&ctrl, "0000:fd:00.0", g_shm_id, fake_remote_import, msg,
				 sizeof(msg)),
		 -ECONNREFUSED);
	CHECK(strstr(msg, "xnvme-driver serve 0000:fd:00.0 --shm-id") != NULL);
	if (getuid() != 0) {
		printf("# skip admission: needs root to run a secondary as another user\n");
		return;
	}
	rig_start(&rig, &cfg);
	CHECK_EQ(wait_exit(sec_spawn(&rig, sec_as_nobody, 0)), 0);
	CHECK(log_has(&rig, "refused pid", 0));
	rig_stop(&rig);
	cfg.uids = &nobody;
	cfg.nuids = 1;
	rig_start(&rig, &cfg);
	CHECK_EQ(wait_exit(sec_spawn(&rig, sec_as_nobody, 1)), 0);
	rig_stop(&rig);
}

/* The fake device reaches a secondary's memory with process_vm_writev: without it, nothing runs */
static bool
process_vm_works(void)
{
	int word = 0, one = 1, gate[2];
	struct iovec l = {&one, sizeof(one)}, r = {&word, sizeof(word)};
	ssize_t n;
	pid_t pid;
	char c;

	if (pipe(gate)) {
		return false;
	}
	pid = fork();
	if (pid == 0) {
		close(gate[1]);
		prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
		_exit(read(gate[0], &c, 1) == 1 ? 0 : 1); /* alive until the parent has written */
	}
	close(gate[0]);
	n = process_vm_writev(pid, &l, 1, &r, 1, 0);
	if (n != (ssize_t)sizeof(one)) {
		printf("# process_vm_writev: %s\n", strerror(errno));
	}
	c = 'x';
	if (write(gate[1], &c, 1) != 1) {
		n = -1;
	}
	close(gate[1]);
	wait_exit(pid);
	return n == (ssize_t)sizeof(one);
}

int
main(void)
{
	if (!process_vm_works()) {
		printf("SKIP: process_vm_writev() is not permitted here (the fake device needs it)\n");
		return XNVME_TEST_SKIP;
	}
	signal(SIGPIPE, SIG_IGN);
	g_shm_id = 0x10000000u | ((uint32_t)getpid() & 0xFFFFFFu); /* no clash with parallel runs */
	test_basics();
	test_secondary_death();
	test_reset_reaches_all();
	test_primary_death();
	test_removal();
	test_windows();
	test_admission();
	printf("%d checks, %d failures\n", xnvme_test_ncheck, xnvme_test_nfail);
	return xnvme_test_nfail ? 1 : 0;
}
