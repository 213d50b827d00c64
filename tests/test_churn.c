// SPDX-License-Identifier: BSD-3-Clause
/*
 * Churn: handles and queues created and destroyed many times must leave nothing behind (fio
 * opens every file several times, clients open and close handles per job). On the ramdisk
 * "1GB" and a regular file (or the --uri targets), for every async mechanism of the build (one
 * the target does not offer is skipped with a note, except the ones it must offer):
 *
 * - open/close cycles, each identifying the device, allocating a buffer and reading one LBA
 *   synchronously;
 * - queue init/term cycles on one handle, each reading one LBA through the queue;
 * - then two threads opening and closing the same targets at once.
 *
 * The open file descriptors (/proc/self/fd) must be the same after every mechanism as before
 * the first, and the resident set (/proc/self/statm) may not grow by more than RSS_BOUND over
 * the run (not checked under valgrind or a sanitizer, whose own memory is counted there).
 *
 *   test_churn [--uri URI ...] [--cycles N]
 * N cycles of each kind per target and mechanism, default 2000; libaio queue cycles are capped
 * at LIBAIO_QUEUE_CYCLES (queue setup costs tens of milliseconds there). Under valgrind N is
 * divided by 40, in a sanitizer build by 4. Exit: 0 pass, 1 fail, 77 skip.
 */
#include <dirent.h>
#include <inttypes.h>
#include "conc_common.h"

#define RSS_BOUND (4ULL << 20)

/* Sanitizers keep freed memory in quarantine and shadow: the resident set says nothing then */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif
#define LIBAIO_QUEUE_CYCLES 50
#define WARMUP_CYCLES 20

static uint64_t g_cycles = 2000;

static int
count_fds(void)
{
	int n = xnvme_test_dir_entries("/proc/self/fd");

	return n < 0 ? -1 : n - 1; /* the directory's own descriptor */
}

static uint64_t
rss_bytes(void)
{
	unsigned long long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f) {
		return 0;
	}
	if (fscanf(f, "%llu %llu", &size, &resident) != 2) {
		resident = 0;
	}
	fclose(f);
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* One synchronous read of LBA `lba` (modulo the first 1024) into a fresh device buffer */
static int
sync_read_one(struct xnvme_dev *dev, uint64_t lba)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	void *buf;
	int err;

	if (!geo->lba_nbytes) {
		return -EINVAL;
	}
	buf = xnvme_buf_alloc(dev, geo->lba_nbytes);
	if (!buf) {
		return -ENOMEM;
	}
	err = xnvme_nvm_read(&ctx, xnvme_dev_get_nsid(dev), lba % 1024, 0, buf, NULL);
	xnvme_buf_free(dev, buf);
	return err;
}

struct one {
	unsigned calls;
	int status;
};

static void
cb_one(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct one *o = arg;

	o->calls++;
	o->status = xnvme_cmd_ctx_cpl_status(ctx);
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* One queue init / read one LBA / drain / term cycle; 0 or the first error */
static int
queue_cycle(struct xnvme_dev *dev, void *buf, uint32_t lba_nbytes, uint64_t lba)
{
	struct xnvme_queue *q = NULL;
	struct xnvme_cmd_ctx *ctx;
	struct one o = {0};
	int err, term;

	err = xnvme_queue_init(dev, 16, 0, &q);
	if (err) {
		return err;
	}
	xnvme_queue_set_cb(q, cb_one, &o);
	ctx = xnvme_queue_get_cmd_ctx(q);
	if (!ctx) {
		err = -ENOMEM;
		goto out;
	}
	xnvme_prep_nvm(ctx, XNVME_SPEC_NVM_OPC_READ, xnvme_dev_get_nsid(dev), lba % 1024, 0);
	err = xnvme_cmd_pass(ctx, buf, lba_nbytes, NULL, 0);
	if (err) {
		xnvme_queue_put_cmd_ctx(q, ctx);
		goto out;
	}
	err = xnvme_queue_drain(q);
	err = err < 0 ? err : (o.calls == 1 && !o.status ? 0 : -EIO);
out:
	term = xnvme_queue_term(q);
	return err ? err : term;
}

/* `n` open/close cycles and `nq` queue cycles of `t` with `mech`; false when skipped */
static bool
churn(const struct conc_target *t, const char *mech, uint64_t n, uint64_t nq)
{
	struct xnvme_dev *dev;
	bool skipped;
	void *buf;
	uint32_t lba_nbytes;

	for (uint64_t i = 0; i < n; ++i) {
		int err;

		dev = conc_open(t, mech, &skipped);
		if (!dev) {
			return !skipped;
		}
		err = sync_read_one(dev, i);
		xnvme_dev_close(dev);
		if (err) {
			CHECK_AT(t->label, mech, !err, "open/close cycle %" PRIu64 ": read: %d", i,
				 err);
			return true;
		}
	}
	if (!nq) {
		return true;
	}
	dev = conc_open(t, mech, &skipped);
	if (!dev) {
		return !skipped;
	}
	lba_nbytes = xnvme_dev_get_geo(dev)->lba_nbytes;
	buf = lba_nbytes ? xnvme_buf_alloc(dev, lba_nbytes) : NULL;
	CHECK_AT(t->label, mech, buf != NULL, "buffer of %u bytes", lba_nbytes);
	for (uint64_t i = 0; buf && i < nq; ++i) {
		int err = queue_cycle(dev, buf, lba_nbytes, i);

		if (err) {
			CHECK_AT(t->label, mech, !err, "queue cycle %" PRIu64 ": %d", i, err);
			break;
		}
	}
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
	return true;
}

static uint64_t
queue_cycles(const char *mech, uint64_t n)
{
	return !strcmp(mech, "libaio") && n > LIBAIO_QUEUE_CYCLES ? LIBAIO_QUEUE_CYCLES : n;
}

struct opener {
	const struct conc_target *targets;
	int ntargets;
	uint64_t n;
	pthread_t th;
};

static void *
opener_main(void *arg)
{
	struct opener *o = arg;

	for (uint64_t i = 0; i < o->n; ++i) {
		const struct conc_target *t = &o->targets[i % (uint64_t)o->ntargets];
		bool skipped;
		struct xnvme_dev *dev = conc_open(t, NULL, &skipped);
		int err;

		if (!dev) {
			break;
		}
		err = sync_read_one(dev, i);
		CHECK_AT(t->label, "threads", !err, "cycle %" PRIu64 ": read: %d", i, err);
		xnvme_dev_close(dev);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	static const char *const known[] = {"--cycles", NULL};
	struct conc_target targets[CONC_MAX_TARGETS];
	struct conc_tmp tmp;
	bool own_tmp = !conc_opt(argc, argv, "--uri", NULL);
	bool valgrind = conc_under_valgrind(), rss_checked = !valgrind && !SANITIZED;
	struct opener op[2];
	int ntargets, fd0;
	uint64_t rss0, rss1;
	double start;

	memset(&tmp, 0, sizeof(tmp));
	setvbuf(stdout, NULL, _IOLBF, 0);
	g_cycles = strtoull(conc_opt(argc, argv, "--cycles", "2000"), NULL, 0);
	if (valgrind || SANITIZED) {
		uint64_t div = valgrind ? 40 : 4;

		g_cycles = g_cycles / div ? g_cycles / div : 1;
	}
	if (!g_cycles) {
		fprintf(stderr, "--cycles must be positive\n");
		return 1;
	}
	if (own_tmp && conc_tmp_create(&tmp, "churn")) {
		return 1;
	}
	ntargets = conc_targets(argc, argv, known, targets, &tmp);
	if (ntargets < 0) {
		fprintf(stderr, "usage: %s [--uri URI ...] [--cycles N]\n", argv[0]);
		return 1;
	}

	/* warm up: first-use allocations (thread stacks, allocator arenas, libraries) */
	conc_quiet = true;
	for (int i = 0; i < ntargets; ++i) {
		for (size_t m = 0; m < CONC_NMECHS; ++m) {
			churn(&targets[i], conc_mechs[m], WARMUP_CYCLES,
			      queue_cycles(conc_mechs[m], WARMUP_CYCLES));
		}
	}
	conc_quiet = false;
	fd0 = count_fds();
	rss0 = rss_bytes();
	CHECK_AT("process", "proc", fd0 >= 0 && rss0 > 0, "/proc/self: fds=%d rss=%" PRIu64, fd0,
		 rss0);

	printf("test_churn:\n");
	for (int i = 0; i < ntargets; ++i) {
		for (size_t m = 0; m < CONC_NMECHS; ++m) {
			const char *mech = conc_mechs[m];
			uint64_t nq = queue_cycles(mech, g_cycles);
			int fds;

			start = conc_now();
			if (!churn(&targets[i], mech, g_cycles, nq)) {
				continue;
			}
			fds = count_fds();
			CHECK_AT(targets[i].label, mech, fds == fd0,
				 "open fds: %d before, %d after", fd0, fds);
			printf("  - {target: %s, mech: %s, open_close: %" PRIu64
			       ", queue_init_term: %" PRIu64 ", fds: %d, rss_kib: %" PRIu64
			       ", seconds: %.2f}\n",
			       targets[i].label, mech, g_cycles, nq, fds, rss_bytes() >> 10,
			       conc_now() - start);
		}
	}

	start = conc_now();
	for (int i = 0; i < 2; ++i) {
		op[i] = (struct opener){
			.targets = targets, .ntargets = ntargets, .n = g_cycles / 2};
		CHECK_AT("process", "threads",
			 !pthread_create(&op[i].th, NULL, opener_main, &op[i]), "pthread_create");
	}
	for (int i = 0; i < 2; ++i) {
		pthread_join(op[i].th, NULL);
	}
	CHECK_AT("process", "threads", count_fds() == fd0, "open fds: %d before, %d after", fd0,
		 count_fds());
	printf("  - {target: all, mech: default, threads: 2, open_close: %" PRIu64
	       ", seconds: %.2f}\n",
	       g_cycles, conc_now() - start);

	rss1 = rss_bytes();
	printf("  - {fds_before: %d, fds_after: %d, rss_kib_before: %" PRIu64
	       ", rss_kib_after: %" PRIu64 "%s}\n",
	       fd0, count_fds(), rss0 >> 10, rss1 >> 10, rss_checked ? "" : ", rss_checked: false");
	if (rss_checked) {
		CHECK_AT("process", "rss", rss1 < rss0 + RSS_BOUND,
			 "resident set grew from %" PRIu64 " KiB to %" PRIu64 " KiB", rss0 >> 10,
			 rss1 >> 10);
	}
	if (own_tmp) {
		conc_tmp_remove(&tmp);
	}
	return xnvme_test_result("test_churn");
}
