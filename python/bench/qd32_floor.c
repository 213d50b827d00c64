// SPDX-License-Identifier: BSD-3-Clause
/*
 * The C floor of bench.py's asynchronous case: the same QD32 loop of 4 KiB reads (sequential
 * over 64 MiB, submit while there is room, poke, sched_yield when a poke reaped nothing),
 * written directly against libxnvme, with a C callback. What Python adds per command is
 * bench.py's figure minus this one.
 *
 *   cc -O2 -Iinclude python/bench/qd32_floor.c -Lbuild/lib -lxnvme -o /tmp/qd32_floor
 *   LD_LIBRARY_PATH=build/lib /tmp/qd32_floor <uri> <async> [seconds] [rounds]
 */
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <time.h>
#include <libxnvme.h>

#define QD 32
#define NBYTES 4096
#define SPAN (64ULL << 20)

static unsigned long long g_done;
static int g_err;

static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *arg)
{
	(void)arg;
	if (xnvme_cmd_ctx_cpl_status(ctx)) {
		g_err = 1;
	}
	g_done++;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* CPU time of the process (every thread: thrpool's workers and io_uring's io-wq included) */
static double
cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	struct xnvme_opts opts = xnvme_opts_default();
	double secs = argc > 3 ? atof(argv[3]) : 0.4, best = 0, best_cpu = 0;
	int rounds = argc > 4 ? atoi(argv[4]) : 5;
	struct xnvme_queue *queue = NULL;
	struct xnvme_dev *dev;
	void *bufs[QD];
	uint32_t nlb, nslots = SPAN / NBYTES;

	if (argc < 3) {
		fprintf(stderr, "usage: %s <uri> <async> [seconds] [rounds]\n", argv[0]);
		return 2;
	}
	opts.async = argv[2];
	opts.rdwr = 1;
	dev = xnvme_dev_open(argv[1], &opts);
	if (!dev || xnvme_queue_init(dev, QD, 0, &queue)) {
		perror("open/queue_init");
		return 1;
	}
	xnvme_queue_set_cb(queue, on_cpl, NULL);
	nlb = NBYTES / xnvme_dev_get_geo(dev)->lba_nbytes;
	for (int i = 0; i < QD; ++i) {
		bufs[i] = xnvme_buf_alloc(dev, NBYTES);
	}
	for (int r = 0; r < rounds; ++r) {
		unsigned long long submitted = 0, n = 0;
		double t0 = now(), c0 = cpu_now(), t;

		g_done = 0;
		do {
			for (int k = 0; k < 4096; ++k) {
				while (submitted - g_done < QD) {
					struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(queue);

					if (!ctx ||
					    xnvme_nvm_read(ctx, xnvme_dev_get_nsid(dev),
							   (submitted % nslots) * nlb, nlb - 1,
							   bufs[submitted % QD], NULL)) {
						fprintf(stderr, "submit failed\n");
						return 1;
					}
					submitted++;
				}
				if (xnvme_queue_poke(queue, 0) == 0) {
					sched_yield();
				}
			}
			t = now() - t0;
		} while (t < secs);
		xnvme_queue_drain(queue);
		n = g_done;
		if (n / (now() - t0) > best) {
			best = n / (now() - t0);
			best_cpu = (cpu_now() - c0) / n;
		}
	}
	printf("%s %s: %.0f cmds/s, %.2f us/cmd, %.2f us CPU/cmd%s\n", argv[1], argv[2], best,
	       1e6 / best, best_cpu * 1e6, g_err ? " (errors)" : "");
	for (int i = 0; i < QD; ++i) {
		xnvme_buf_free(dev, bufs[i]);
	}
	xnvme_queue_term(queue);
	xnvme_dev_close(dev);
	return 0;
}
