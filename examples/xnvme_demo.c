// SPDX-License-Identifier: BSD-3-Clause
/*
 * Writes, reads back and verifies data through every I/O mechanism of each device.
 * Usage: xnvme_demo <uri> [<uri> ...]
 * Example: xnvme_demo 1GB /tmp/demo.img
 *
 * For each device the program tries every synchronous and asynchronous mechanism name the
 * library knows, changing only the options it opens the device with, and prints one row per
 * mechanism the device's backend has. A mechanism that opens writes 16 MiB, reads it back and
 * compares (nil does no I/O: its commands only complete); one that cannot serve the device is
 * listed as refused, with the library's reason. Names the backend does not have (the open
 * fails with ENOSYS) are left out. The data written replaces the first 16 MiB of the device:
 * run it on a scratch device.
 *
 * MiB/s is the timed write and read-back after an untimed write of the same range, so that
 * first-write allocation in the device (the ramdisk maps its memory lazily, a sparse file
 * allocates blocks) is not counted as the mechanism's speed. MiB/s/CPU is the same transfer per
 * second of processor time of the whole process (all threads, user and system): on a machine
 * busy with other work the wall-clock rate drops, this one does not.
 *
 * Ends with one summary line per device; exits 0 when every mechanism that opened completed
 * its commands and verified its data and each device verified at least one synchronous and one
 * asynchronous mechanism, 1 otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libxnvme.h>

#define XFER_NBYTES (64 * 1024)
#define TOTAL_NBYTES (16 * 1024 * 1024)
#define QDEPTH 16

/* Every mechanism name of every backend: the open tells which ones a device's backend has */
static const char *const sync_names[] = {"psync", "nvme", "block", "ramdisk",
					 "file",  "tcp",  "vfio",  NULL};
/* Width of the uri column: the longest URI given */
static int uri_width = 3;

static const char *const async_names[] = {"emu", "thrpool",      "posix", "io_uring", "libaio",
					  "nil", "io_uring_cmd", "iocp",  "iocp_th",  "io_ring",
					  "tcp", "vfio",         NULL};

struct job {
	uint64_t ncmds;
	int nerr;
};

struct tally {
	int verified_sync;
	int verified_async;
	int completed; /* nil: commands completed, nothing to verify */
	int refused;
	int failed;
};

/* Processor time of the process so far, all threads, user and system, in seconds (ISO C) */
static double
cpu_secs(void)
{
	clock_t now = clock();

	return now == (clock_t)-1 ? 0.0 : (double)now / CLOCKS_PER_SEC;
}

static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	struct job *job = (struct job *)cb_arg;

	job->ncmds++;
	job->nerr += xnvme_cmd_ctx_cpl_status(ctx) != 0;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* Writes (or reads) the whole range with 64 KiB commands, synchronously or queued */
static int
run_pass(struct xnvme_dev *dev, struct xnvme_queue *queue, uint8_t *buf, bool write,
	 struct job *job)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	uint16_t nlb = (uint16_t)(XFER_NBYTES / geo->lba_nbytes - 1); /* zero-based */

	for (uint64_t off = 0; off < TOTAL_NBYTES; off += XFER_NBYTES) {
		uint64_t slba = off / geo->lba_nbytes;
		uint8_t *data = buf + off;
		int err;

		if (!queue) {
			struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);

			err = write ? xnvme_nvm_write(&ctx, nsid, slba, nlb, data, NULL)
				    : xnvme_nvm_read(&ctx, nsid, slba, nlb, data, NULL);
			job->ncmds++;
			job->nerr += err != 0;
			continue;
		}
		for (;;) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(queue);

			err = write ? xnvme_nvm_write(ctx, nsid, slba, nlb, data, NULL)
				    : xnvme_nvm_read(ctx, nsid, slba, nlb, data, NULL);
			if (err == -EBUSY || err == -EAGAIN) {
				/* the queue is full: reap completions, then submit again */
				xnvme_queue_put_cmd_ctx(queue, ctx);
				xnvme_queue_poke(queue, 0);
				continue;
			}
			if (err) {
				xnvme_queue_put_cmd_ctx(queue, ctx);
				return err;
			}
			break;
		}
	}
	if (queue) {
		int err = xnvme_queue_drain(queue);

		if (err < 0) {
			return err;
		}
	}
	return 0;
}

static void
row_pr(const char *uri, const char *kind, const char *mech, const char *rest)
{
	printf("%-*s %-5s %-12s %8s %9s %9s  %s\n", uri_width, uri, kind, mech, "-", "-", "-",
	       rest);
}

/* One mechanism: opens the device with it, then writes, reads back and verifies */
static void
run_one(const char *uri, const char *be, bool is_async, const char *mech, const uint8_t *pattern,
	struct tally *tally)
{
	struct xnvme_opts opts = xnvme_opts_default();
	const char *kind = is_async ? "async" : "sync";
	struct xnvme_queue *queue = NULL;
	struct xnvme_timer timer;
	struct xnvme_dev *dev;
	uint8_t *buf = NULL;
	struct job job;
	double mib, secs, cpu0, cpu;
	char why[512];
	int err;

	opts.be = be;
	if (is_async) {
		opts.async = mech;
	} else {
		opts.sync = mech;
	}
	dev = xnvme_dev_open(uri, &opts);
	if (!dev) {
		if (errno == ENOSYS) {
			return; /* the backend has no mechanism of that name (in this build) */
		}
		snprintf(why, sizeof(why), "refused: %s", xnvme_last_error());
		row_pr(uri, kind, mech, why);
		tally->refused++;
		return;
	}
	if (xnvme_dev_get_geo(dev)->tbytes < TOTAL_NBYTES) {
		row_pr(uri, kind, mech, "FAILED: the device is smaller than 16 MiB");
		tally->failed++;
		xnvme_dev_close(dev);
		return;
	}
	buf = (uint8_t *)xnvme_buf_alloc(dev, TOTAL_NBYTES);
	if (!buf) {
		err = -errno;
		goto exit;
	}
	memset(&job, 0, sizeof(job));
	if (is_async) {
		err = xnvme_queue_init(dev, QDEPTH, 0, &queue);
		if (err) {
			goto exit;
		}
		xnvme_queue_set_cb(queue, on_cpl, &job);
	}

	/* untimed: a device may allocate on first write, which is not the mechanism's speed */
	memcpy(buf, pattern, TOTAL_NBYTES);
	err = run_pass(dev, queue, buf, true, &job);
	if (err) {
		goto exit;
	}
	memset(&job, 0, sizeof(job));
	cpu0 = cpu_secs();
	xnvme_timer_start(&timer);
	err = run_pass(dev, queue, buf, true, &job);
	if (!err) {
		memset(buf, 0, TOTAL_NBYTES);
		err = run_pass(dev, queue, buf, false, &job);
	}
	xnvme_timer_stop(&timer);
	cpu = cpu_secs() - cpu0;
	if (err) {
		goto exit;
	}

	mib = 2.0 * TOTAL_NBYTES / (1 << 20);
	secs = xnvme_timer_elapsed_secs(&timer);
	printf("%-*s %-5s %-12s %8" PRIu64 " %9.1f %9.1f  ", uri_width, uri, kind, mech, job.ncmds,
	       secs > 0 ? mib / secs : 0.0, cpu > 0 ? mib / cpu : 0.0);
	if (job.nerr || job.ncmds != 2 * (TOTAL_NBYTES / XFER_NBYTES)) {
		printf("FAILED: %d of %" PRIu64 " commands failed\n", job.nerr, job.ncmds);
		tally->failed++;
	} else if (!strcmp(mech, "nil")) {
		printf("n/a (nil completes commands without I/O)\n");
		tally->completed++;
	} else if (xnvme_buf_diff(pattern, buf, TOTAL_NBYTES)) {
		printf("FAILED: the data read back differs\n");
		tally->failed++;
	} else {
		printf("yes\n");
		*(is_async ? &tally->verified_async : &tally->verified_sync) += 1;
	}

exit:
	if (err) {
		snprintf(why, sizeof(why), "FAILED: %s", strerror(-err));
		row_pr(uri, kind, mech, why);
		tally->failed++;
	}
	xnvme_queue_term(queue);
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
}

/* Every mechanism of one device; returns 0 when all that opened verified */
static int
run_device(const char *uri, const uint8_t *pattern)
{
	struct xnvme_dev *dev = xnvme_dev_open(uri, NULL);
	struct tally tally;
	char be[32];

	memset(&tally, 0, sizeof(tally));
	if (!dev) {
		printf("# %s: cannot open: %s\n", uri, xnvme_last_error());
		return 1;
	}
	snprintf(be, sizeof(be), "%s", xnvme_dev_get_opts(dev)->be);
	xnvme_dev_close(dev);

	for (int i = 0; sync_names[i]; ++i) {
		run_one(uri, be, false, sync_names[i], pattern, &tally);
	}
	for (int i = 0; async_names[i]; ++i) {
		run_one(uri, be, true, async_names[i], pattern, &tally);
	}
	printf("# %s (backend %s): %d sync and %d async mechanisms verified, %d completed without "
	       "I/O, %d refused by the device, %d failed\n",
	       uri, be, tally.verified_sync, tally.verified_async, tally.completed, tally.refused,
	       tally.failed);
	return (tally.failed || !tally.verified_sync || !tally.verified_async) ? 1 : 0;
}

int
main(int argc, char **argv)
{
	uint8_t *pattern;
	int nfailed = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout,
			"Usage: xnvme_demo <uri> [<uri> ...]\n"
			"Writes, reads back and verifies data through every I/O mechanism of each "
			"device.\n"
			"Example: xnvme_demo 1GB /tmp/demo.img\n");
		return argc < 2 ? 2 : 0;
	}
	pattern = (uint8_t *)xnvme_buf_virt_alloc(4096, TOTAL_NBYTES);
	if (!pattern) {
		perror("xnvme_buf_virt_alloc()");
		return 1;
	}
	xnvme_buf_fill(pattern, TOTAL_NBYTES, "rand-k");

	for (int i = 1; i < argc; ++i) {
		uri_width = (int)strlen(argv[i]) > uri_width ? (int)strlen(argv[i]) : uri_width;
	}
	printf("%-*s %-5s %-12s %8s %9s %9s  %s\n", uri_width, "uri", "kind", "mechanism",
	       "commands", "MiB/s", "MiB/s/CPU", "verified");
	for (int i = 1; i < argc; ++i) {
		nfailed += run_device(argv[i], pattern);
	}
	xnvme_buf_virt_free(pattern);
	return nfailed ? 1 : 0;
}
