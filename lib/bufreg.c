// SPDX-License-Identifier: BSD-3-Clause
/* The table of buffers the library handed out (xnvme_bufreg.h) */
#include <pthread.h>
#include "xnvme_bufreg.h"

struct xnvme_bufreg_slot xnvme_bufreg[XNVME_BUFREG_SLOTS];
_Atomic uint64_t xnvme_bufreg_dels;

static pthread_mutex_t bufreg_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t bufreg_gen; ///< under bufreg_lock

void
xnvme_bufreg_add(void *buf, size_t nbytes)
{
	if (!buf || !nbytes) {
		return;
	}
	pthread_mutex_lock(&bufreg_lock);
	for (unsigned int i = 0; i < XNVME_BUFREG_SLOTS; ++i) {
		struct xnvme_bufreg_slot *s = &xnvme_bufreg[i];

		if (atomic_load_explicit(&s->gen, memory_order_relaxed)) {
			continue;
		}
		atomic_store_explicit(&s->start, (uintptr_t)buf, memory_order_relaxed);
		atomic_store_explicit(&s->nbytes, nbytes, memory_order_relaxed);
		atomic_store_explicit(&s->gen, ++bufreg_gen, memory_order_release);
		break;
	}
	pthread_mutex_unlock(&bufreg_lock);
}

void
xnvme_bufreg_del(void *buf)
{
	if (!buf) {
		return;
	}
	pthread_mutex_lock(&bufreg_lock);
	for (unsigned int i = 0; i < XNVME_BUFREG_SLOTS; ++i) {
		struct xnvme_bufreg_slot *s = &xnvme_bufreg[i];

		if (atomic_load_explicit(&s->gen, memory_order_relaxed) &&
		    atomic_load_explicit(&s->start, memory_order_relaxed) == (uintptr_t)buf) {
			atomic_store_explicit(&s->gen, 0, memory_order_release);
			atomic_fetch_add_explicit(&xnvme_bufreg_dels, 1, memory_order_release);
			break;
		}
	}
	pthread_mutex_unlock(&bufreg_lock);
}
