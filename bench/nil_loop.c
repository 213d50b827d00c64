// SPDX-License-Identifier: BSD-3-Clause
/*
 * The smallest asynchronous I/O loop against the API: get a context, xnvme_nvm_read(), poke,
 * and put the context back in the completion callback. On the `nil` async mechanism no I/O
 * happens, so what is measured is the library's own per-command cost (submit + reap + callback).
 *
 *   nil_loop [-n ios] [-q qdepth] [-u uri] [-a async] [-b] [-j]
 *
 * The measured loop is the function nil_loop_run(); under callgrind it is the only code counted:
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=nil_loop_run ./nil_loop
 * When valgrind's client-request header is available the call of the loop is also bracketed
 * with CALLGRIND_START/STOP_INSTRUMENTATION, so `--instr-atstart=no` skips the setup entirely
 * (outside the loop: the client requests would pin the loop's locals to the stack).
 *
 * -b runs the bare loop, nil_loop_bare() (--toggle-collect=nil_loop_bare), at queue depth 1:
 * the same four calls with nothing of the client's around them (no LBA walk, no counting, no
 * queue depth bookkeeping). What it adds to the library's instructions is about the least a
 * client of the API spends: 26 per I/O with gcc 12 -O2 (argument set-up, four calls through
 * the PLT, the return value tests, the loop counter), against 41 for the full loop.
 *
 * Prints one line: ios, elapsed ns, ns per I/O (or a JSON object with -j).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libxnvme.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define NIL_LOOP_HAVE_CALLGRIND 1
#endif
#endif
#ifndef NIL_LOOP_HAVE_CALLGRIND
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

struct loop {
	struct xnvme_queue *queue;
	uint32_t nsid;
	uint64_t lba_mask; ///< the LBA walk wraps at a power of two within the namespace
	void *buf;
	uint64_t ios; ///< reads to complete
	uint64_t qd;  ///< reads in flight at most
	uint64_t completed;
	uint64_t errors;
};

/* The callback xnvme_queue_set_cb() installed on every pooled context: count, put back */
static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	struct loop *lp = cb_arg;

	lp->completed += 1;
	if (xnvme_cmd_ctx_cpl_status(ctx)) {
		lp->errors += 1;
	}
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* The bare loop's callback: the context goes back, nothing else */
static void
on_cpl_bare(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	(void)cb_arg;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* -b: get, read, poke at queue depth 1, `ios` times; the callback puts the context back */
__attribute__((noinline)) static int
nil_loop_bare(struct xnvme_queue *queue, uint32_t nsid, void *buf, uint64_t ios)
{
	for (uint64_t i = 0; i < ios; ++i) {
		if (xnvme_nvm_read(xnvme_queue_get_cmd_ctx(queue), nsid, i, 0, buf, NULL)) {
			return -EIO;
		}
		if (xnvme_queue_poke(queue, 0) < 0) {
			return -EIO;
		}
	}
	return 0;
}

/*
 * The measured loop: keeps up to lp->qd reads in flight until lp->ios have completed. Each
 * context comes from the pool with the callback and argument xnvme_queue_set_cb() gave them
 * all; a NULL from an empty pool needs no test of its own, xnvme_nvm_read() refuses it
 * (-EINVAL).
 */
__attribute__((noinline)) static int
nil_loop_run(struct loop *lp)
{
	uint64_t submitted = 0;
	uint64_t slba = 0;

	while (lp->completed < lp->ios) {
		uint64_t limit = lp->completed + lp->qd;

		if (limit > lp->ios) {
			limit = lp->ios;
		}
		for (; submitted < limit; ++submitted) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(lp->queue);
			int err = xnvme_nvm_read(ctx, lp->nsid, slba, 0, lp->buf, NULL);

			if (err) {
				return err; /* the queue is terminated next: ctx needs no put */
			}
			slba = (slba + 7) & lp->lba_mask;
		}
		if (xnvme_queue_poke(lp->queue, 0) < 0) {
			return -EIO;
		}
	}
	return 0;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct loop lp = {0};
	const struct xnvme_geo *geo;
	struct xnvme_dev *dev;
	const char *uri = "1GB";
	uint64_t ios = 1000000, t0, t1;
	uint32_t qd = 1;
	int json = 0, bare = 0, opt, err;

	opts.async = "nil";
	while ((opt = getopt(argc, argv, "n:q:u:a:bjh")) != -1) {
		switch (opt) {
		case 'n':
			ios = strtoull(optarg, NULL, 0);
			break;
		case 'q':
			qd = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'u':
			uri = optarg;
			break;
		case 'a':
			opts.async = optarg;
			break;
		case 'b':
			bare = 1;
			break;
		case 'j':
			json = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-n ios] [-q qdepth] [-u uri] [-a async] [-b] [-j]\n",
				argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!qd || qd > 4096 || !ios || (bare && qd != 1)) {
		fprintf(stderr, "nil_loop: need 1 <= qdepth <= 4096 (1 with -b) and ios >= 1\n");
		return 2;
	}

	dev = xnvme_dev_open(uri, &opts);
	if (!dev) {
		fprintf(stderr, "nil_loop: xnvme_dev_open(%s): %s\n", uri, strerror(errno));
		return 1;
	}
	geo = xnvme_dev_get_geo(dev);
	lp.nsid = xnvme_dev_get_nsid(dev);
	/* LBA walk wraps within the largest power of two not above the namespace size */
	lp.lba_mask = 1;
	while (lp.lba_mask * 2 <= geo->tbytes / geo->lba_nbytes) {
		lp.lba_mask *= 2;
	}
	lp.lba_mask -= 1;
	lp.buf = xnvme_buf_alloc(dev, geo->lba_nbytes);
	err = lp.buf ? xnvme_queue_init(dev, (uint16_t)qd, 0, &lp.queue) : -ENOMEM;
	if (err) {
		fprintf(stderr, "nil_loop: setup: %s\n", strerror(-err));
		goto exit;
	}
	xnvme_queue_set_cb(lp.queue, bare ? on_cpl_bare : on_cpl, &lp);

	t0 = now_ns();
	CALLGRIND_START_INSTRUMENTATION;
	lp.ios = ios;
	lp.qd = qd;
	err = bare ? nil_loop_bare(lp.queue, lp.nsid, lp.buf, ios) : nil_loop_run(&lp);
	CALLGRIND_STOP_INSTRUMENTATION;
	t1 = now_ns();
	if (err) {
		fprintf(stderr, "nil_loop: loop: %s\n", strerror(-err));
		goto exit;
	}
	if (lp.errors) {
		fprintf(stderr, "nil_loop: %llu commands completed with an error status\n",
			(unsigned long long)lp.errors);
		err = -EIO;
		goto exit;
	}
	if (json) {
		printf("{\"ios\": %llu, \"qdepth\": %u, \"async\": \"%s\", \"elapsed_ns\": %llu, "
		       "\"ns_per_io\": %.2f}\n",
		       (unsigned long long)ios, qd, xnvme_dev_get_opts(dev)->async,
		       (unsigned long long)(t1 - t0), (double)(t1 - t0) / (double)ios);
	} else {
		printf("nil_loop: ios=%llu qdepth=%u async=%s elapsed_ns=%llu ns_per_io=%.2f\n",
		       (unsigned long long)ios, qd, xnvme_dev_get_opts(dev)->async,
		       (unsigned long long)(t1 - t0), (double)(t1 - t0) / (double)ios);
	}

exit:
	xnvme_queue_term(lp.queue);
	xnvme_buf_free(dev, lp.buf);
	xnvme_dev_close(dev);
	return err ? 1 : 0;
}
