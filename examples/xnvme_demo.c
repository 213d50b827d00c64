// SPDX-License-Identifier: BSD-3-Clause
/*
 * The main demo: the same program writes, reads back and verifies data through every
 * mechanism available on a device, changing only options, and prints one table row each.
 * MiB/s is the timed write and read-back of 16 MiB after one untimed write of the same range,
 * so first-write allocation in the device (page faults of the ramdisk's lazily mapped memory,
 * block allocation of a sparse file) is not counted as the mechanism's speed. MiB/s/CPU is the
 * same transfer per second of CPU time of the whole process (all its threads, user and
 * system): on a machine busy with other work the wall-clock rate drops, this one does not.
 * Exits non-zero when any available mechanism failed to verify.
 * Usage: xnvme_demo <uri> [<uri> ...]
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

static const char *mechanisms[] = {"sync", "emu", "thrpool", "posix", "io_uring", "libaio", "nil"};

static int nfailed;

/* CPU time of the process so far, user and system, in seconds */
static double
cpu_secs(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)) {
		return 0.0;
	}
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct job {
	uint64_t ncmds;
	int nerr;
};

static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	struct job *job = cb_arg;

	job->ncmds++;
	job->nerr += xnvme_cmd_ctx_cpl_status(ctx) != 0;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* Writes (or reads) the whole range with `nlb`-sized commands, synchronously or queued */
static int
run_pass(struct xnvme_dev *dev, struct xnvme_queue *queue, uint8_t *buf, bool write,
	 struct job *job)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	uint64_t lbas_per_cmd = XFER_NBYTES / geo->lba_nbytes;

	for (uint64_t off = 0; off < TOTAL_NBYTES; off += XFER_NBYTES) {
		uint64_t slba = off / geo->lba_nbytes;
		uint8_t *data = buf + off;
		int err;

		if (!queue) {
			struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);

			err = write ? xnvme_nvm_write(&ctx, nsid, slba, lbas_per_cmd - 1, data,
						      NULL)
				    : xnvme_nvm_read(&ctx, nsid, slba, lbas_per_cmd - 1, data,
						     NULL);
			job->ncmds++;
			job->nerr += err != 0;
			continue;
		}
		for (;;) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(queue);

			err = write ? xnvme_nvm_write(ctx, nsid, slba, lbas_per_cmd - 1, data, NULL)
				    : xnvme_nvm_read(ctx, nsid, slba, lbas_per_cmd - 1, data, NULL);
			if (err == -EBUSY || err == -EAGAIN) {
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
run_one(const char *uri, const char *mech, uint8_t *pattern)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_queue *queue = NULL;
	struct job job = {0};
	struct xnvme_timer timer;
	struct xnvme_dev *dev;
	uint8_t *buf = NULL;
	bool is_sync = !strcmp(mech, "sync");
	const char *verified;
	double mib_sec, mib_cpu, cpu0;
	int err;

	opts.async = is_sync ? NULL : mech;
	dev = xnvme_dev_open(uri, &opts);
	if (!dev) {
		printf("%-24s %-10s %10s %10s %10s  not available: %s\n", uri, mech, "-", "-", "-",
		       strerror(errno));
		return;
	}
	if (xnvme_dev_get_geo(dev)->tbytes < TOTAL_NBYTES) {
		printf("%-24s %-10s %10s %10s %10s  %s\n", uri, mech, "-", "-", "-",
		       "device too small");
		xnvme_dev_close(dev);
		return;
	}
	buf = xnvme_buf_alloc(dev, TOTAL_NBYTES);
	if (!buf) {
		err = -errno;
		goto exit;
	}
	if (!is_sync) {
		err = xnvme_queue_init(dev, QDEPTH, 0, &queue);
		if (err) {
			goto exit;
		}
		xnvme_queue_set_cb(queue, on_cpl, &job);
	}

	/*
	 * An untimed first pass: a device may allocate on first write (the ramdisk maps its pages
	 * lazily, a sparse file allocates blocks), which is not the mechanism's speed
	 */
	memcpy(buf, pattern, TOTAL_NBYTES);
	err = run_pass(dev, queue, buf, true, &job);
	if (err) {
		goto exit;
	}
	job = (struct job){0};
	cpu0 = cpu_secs();
	xnvme_timer_start(&timer);
	err = run_pass(dev, queue, buf, true, &job);
	if (!err) {
		memset(buf, 0, TOTAL_NBYTES);
		err = run_pass(dev, queue, buf, false, &job);
	}
	xnvme_timer_stop(&timer);

	mib_sec = (2.0 * TOTAL_NBYTES / (1 << 20)) / xnvme_timer_elapsed_secs(&timer);
	mib_cpu = cpu_secs() - cpu0;
	mib_cpu = mib_cpu > 0 ? (2.0 * TOTAL_NBYTES / (1 << 20)) / mib_cpu : 0.0;
	if (!strcmp(mech, "nil")) {
		verified = "n/a (nil does no I/O)";
	} else {
		bool ok = !err && !job.nerr && !xnvme_buf_diff(pattern, buf, TOTAL_NBYTES);

		verified = ok ? "yes" : "NO";
		nfailed += !ok;
	}
	printf("%-24s %-10s %10" PRIu64 " %10.1f %10.1f  %s\n", uri, mech, job.ncmds, mib_sec,
	       mib_cpu, verified);

exit:
	if (err) {
		printf("%-24s %-10s %10s %10s %10s  error: %s\n", uri, mech, "-", "-", "-",
		       strerror(-err));
		nfailed++;
	}
	xnvme_queue_term(queue);
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
}

int
main(int argc, char **argv)
{
	uint8_t *pattern;

	if (argc < 2) {
		fprintf(stderr, "usage: %s <uri> [<uri> ...]\n", argv[0]);
		return 1;
	}
	pattern = xnvme_buf_virt_alloc(4096, TOTAL_NBYTES);
	if (!pattern) {
		return 1;
	}
	xnvme_buf_fill(pattern, TOTAL_NBYTES, "rand-k");

	printf("%-24s %-10s %10s %10s %10s  %s\n", "uri", "mechanism", "commands", "MiB/s",
	       "MiB/s/CPU", "verified");
	for (int i = 1; i < argc; ++i) {
		for (size_t m = 0; m < sizeof(mechanisms) / sizeof(mechanisms[0]); ++m) {
			run_one(argv[i], mechanisms[m], pattern);
		}
	}
	xnvme_buf_virt_free(pattern);
	return nfailed ? 1 : 0;
}
