// SPDX-License-Identifier: BSD-3-Clause
/*
 * Open/close churn: how many xnvme_dev_open() + xnvme_dev_close() cycles a second the library
 * does on one URI, optionally with xnvme_dev_get_geo() in between (what every client does
 * first). The library is whatever libxnvme.so.0 the loader finds, so one binary measures two
 * builds side by side (bench/churn_ab.py swaps them through LD_LIBRARY_PATH).
 *
 *   churn [-n cycles] [-g] [-b backend] uri
 *
 * Prints one JSON object: uri, cycles, geo, elapsed_ns, ns_per_cycle, cycles_per_s.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libxnvme.h>

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
	uint64_t cycles = 20000, t0, t1;
	int geo = 0, opt;
	const char *uri;

	while ((opt = getopt(argc, argv, "n:gb:h")) != -1) {
		switch (opt) {
		case 'n':
			cycles = strtoull(optarg, NULL, 0);
			break;
		case 'g':
			geo = 1;
			break;
		case 'b':
			opts.be = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-n cycles] [-g] [-b backend] uri\n", argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind != argc - 1 || !cycles) {
		fprintf(stderr, "usage: %s [-n cycles] [-g] [-b backend] uri\n", argv[0]);
		return 2;
	}
	uri = argv[optind];

	t0 = now_ns();
	for (uint64_t i = 0; i < cycles; ++i) {
		struct xnvme_dev *dev = xnvme_dev_open(uri, &opts);

		if (!dev) {
			fprintf(stderr, "churn: xnvme_dev_open(%s): %s\n", uri, strerror(errno));
			return 1;
		}
		if (geo && !xnvme_dev_get_geo(dev)) {
			fprintf(stderr, "churn: no geometry\n");
			return 1;
		}
		xnvme_dev_close(dev);
	}
	t1 = now_ns();
	printf("{\"uri\": \"%s\", \"cycles\": %llu, \"geo\": %d, \"elapsed_ns\": %llu, "
	       "\"ns_per_cycle\": %.1f, \"cycles_per_s\": %.0f}\n",
	       uri, (unsigned long long)cycles, geo, (unsigned long long)(t1 - t0),
	       (double)(t1 - t0) / (double)cycles, (double)cycles * 1e9 / (double)(t1 - t0));
	return 0;
}
