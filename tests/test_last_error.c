// SPDX-License-Identifier: BSD-3-Clause
/*
 * xnvme_last_error(): the reason of the calling thread's last failed open or queue creation.
 * Each failure names the backend and what is accepted, a success clears it, and threads failing
 * at the same time each see their own reason.
 * Exit: 0 pass, 1 fail.
 */
#include <pthread.h>
#include "xnvme_test.h"

#define NTHREADS 4
#define ROUNDS 200

static void
test_reasons(void)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_queue *queue = NULL;
	struct xnvme_dev *dev;

	CHECK(xnvme_last_error() != NULL);

	/* a size the ramdisk does not take: its owner and the accepted form */
	CHECK(!xnvme_dev_open("512MB", NULL));
	CHECK_EQ(errno, EINVAL);
	CHECK(!strncmp(xnvme_last_error(), "ramdisk: ", 9));
	CHECK(strstr(xnvme_last_error(), "<N>GB") != NULL);

	/* an unknown mechanism: the valid names */
	opts.async = "thrpol";
	CHECK(!xnvme_dev_open("1GB", &opts));
	CHECK(strstr(xnvme_last_error(), "'thrpol'") != NULL);
	CHECK(strstr(xnvme_last_error(), "thrpool") != NULL);

	/* an unknown backend: the backends */
	opts = xnvme_opts_default();
	opts.be = "nosuchbe";
	CHECK(!xnvme_dev_open("1GB", &opts));
	CHECK(strstr(xnvme_last_error(), "nosuchbe") && strstr(xnvme_last_error(), "ramdisk"));

	/* a success clears it */
	dev = xnvme_dev_open("1GB", NULL);
	CHECK(dev != NULL);
	CHECK_EQ(xnvme_last_error()[0], '\0');

	/* a queue that cannot exist: the limit */
	CHECK(xnvme_queue_init(dev, 0, 0, &queue) < 0);
	CHECK(strstr(xnvme_last_error(), "capacity 0") != NULL);
	CHECK_EQ(xnvme_queue_init(dev, 8, 0, &queue), 0);
	CHECK_EQ(xnvme_last_error()[0], '\0');
	xnvme_queue_term(queue);
	xnvme_dev_close(dev);

	/* a path that does not exist: the backend that owns paths */
	CHECK(!xnvme_dev_open("/nonexistent/xnvme-test-device", NULL));
	CHECK_EQ(errno, ENOENT);
	CHECK(!strncmp(xnvme_last_error(), "linux: ", 7));
	CHECK(strstr(xnvme_last_error(), "/nonexistent/xnvme-test-device") != NULL);
}

struct worker {
	char uri[32];
	int nbad;
};

/* Each thread fails with its own URI and must always read back its own reason */
static void *
worker_main(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < ROUNDS; ++i) {
		if (xnvme_dev_open(w->uri, NULL) || !strstr(xnvme_last_error(), w->uri)) {
			w->nbad++;
		}
	}
	return NULL;
}

static void
test_per_thread(void)
{
	struct worker w[NTHREADS];
	pthread_t tid[NTHREADS];

	for (int i = 0; i < NTHREADS; ++i) {
		snprintf(w[i].uri, sizeof(w[i].uri), "%dMB", 100 + i);
		w[i].nbad = 0;
		CHECK_EQ(pthread_create(&tid[i], NULL, worker_main, &w[i]), 0);
	}
	for (int i = 0; i < NTHREADS; ++i) {
		pthread_join(tid[i], NULL);
		CHECK_EQ(w[i].nbad, 0);
	}
}

int
main(void)
{
	test_reasons();
	test_per_thread();
	return xnvme_test_result("test_last_error");
}
