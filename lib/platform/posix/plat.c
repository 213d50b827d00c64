// SPDX-License-Identifier: BSD-3-Clause
/* The platform interface on Linux and other POSIX systems. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
#include "xnvme_plat.h"

void *
xnvme_plat_aligned_alloc(size_t alignment, size_t nbytes)
{
	void *buf = NULL;
	int err = posix_memalign(&buf, alignment, nbytes);

	if (err) {
		errno = err;
		return NULL;
	}
	return buf;
}

void
xnvme_plat_aligned_free(void *buf)
{
	free(buf);
}

size_t
xnvme_plat_pagesize(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

int
xnvme_plat_thread_create(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

unsigned int
xnvme_plat_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}

long
xnvme_plat_thread_nblocked(void)
{
#ifdef RUSAGE_THREAD
	struct rusage ru;

	if (!getrusage(RUSAGE_THREAD, &ru)) {
		return ru.ru_nvcsw;
	}
#endif
	return -1;
}
