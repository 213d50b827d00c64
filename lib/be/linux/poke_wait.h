// SPDX-License-Identifier: BSD-3-Clause
/*
 * The bound of an idle poke's wait (io_uring, io_uring_cmd, libaio, posix), adapted per queue.
 *
 * A wait starts bounded by XNVME_BE_POKE_WAIT_NS. On a device slower than that (a loop device
 * on a busy disk, a throttled device) every wait ran out before the completion came, and the
 * caller's next poke entered the kernel again: one system call and one wake-up per bound, 3-4
 * per I/O at 4 ms latency, where fio's engines sleep once. So a wait that runs out with nothing
 * completed doubles the bound of the queue's next one, up to XNVME_BE_LINUX_POKE_WAIT_MAX_NS;
 * XNVME_BE_LINUX_POKE_WAIT_SHORT waits in a row that completions end within a quarter of their
 * bound halve it again (down to XNVME_BE_POKE_WAIT_NS), so the bound follows the time the
 * queue's waits take (a single quick completion does not undo it: on a device of steady
 * latency that would make every other wait run out). While
 * xnvme_queue_drain_timeout() runs (XNVME_BE_QUEUE_DEADLINE in queue->opts) every wait keeps
 * the base bound, so its deadline is seen as before.
 *
 * io_uring, io_uring_cmd and libaio bound their waits with a per-queue watchdog that stays
 * armed across waits until it fires (uring.c, async_libaio.c), not with a timer per wait. A
 * wait that armed it and ends with only the watchdog fired ran out its bound; a wait that a
 * watchdog armed by an earlier wait ends did not, and is not counted either way (no
 * xnvme_be_linux_pwait_end()).
 */
#ifndef XNVME_BE_LINUX_POKE_WAIT_H
#define XNVME_BE_LINUX_POKE_WAIT_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "xnvme_be.h"

/** Longest bound an idle poke's wait grows to on a slow device (16 ms) */
#define XNVME_BE_LINUX_POKE_WAIT_MAX_NS (16u * XNVME_BE_POKE_WAIT_NS)

/** Short waits in a row that halve a grown bound */
#define XNVME_BE_LINUX_POKE_WAIT_SHORT 16

struct xnvme_be_linux_pwait {
	uint32_t ns; ///< bound of the next wait; 0 (zeroed state) counts as XNVME_BE_POKE_WAIT_NS
	uint32_t nshort; ///< waits in a row that ended within a quarter of their bound
	uint64_t t0;     ///< CLOCK_MONOTONIC ns at the wait's start (read above the base bound)
};

static inline uint64_t
xnvme_be_linux_pwait_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** Starts a wait: its bound in ns (below one second) */
static inline uint32_t
xnvme_be_linux_pwait_begin(struct xnvme_be_linux_pwait *pw, const struct xnvme_queue *queue)
{
	if (pw->ns <= XNVME_BE_POKE_WAIT_NS) {
		/* the base bound cannot shrink: no clock read, so a fast device pays nothing */
		pw->ns = XNVME_BE_POKE_WAIT_NS;
	} else {
		pw->t0 = xnvme_be_linux_pwait_now();
	}
	return (queue->opts & XNVME_BE_QUEUE_DEADLINE) ? XNVME_BE_POKE_WAIT_NS : pw->ns;
}

/** Ends a wait: `expired` when it ran out with nothing completed */
static inline void
xnvme_be_linux_pwait_end(struct xnvme_be_linux_pwait *pw, bool expired)
{
	if (expired) {
		pw->ns = pw->ns >= XNVME_BE_LINUX_POKE_WAIT_MAX_NS / 2
				 ? XNVME_BE_LINUX_POKE_WAIT_MAX_NS
				 : 2 * pw->ns;
		pw->nshort = 0;
	} else if (pw->ns > XNVME_BE_POKE_WAIT_NS) {
		if (xnvme_be_linux_pwait_now() - pw->t0 >= pw->ns / 4) {
			pw->nshort = 0;
		} else if (++pw->nshort >= XNVME_BE_LINUX_POKE_WAIT_SHORT) {
			pw->ns /= 2;
			pw->nshort = 0;
		}
	}
}

#endif /* XNVME_BE_LINUX_POKE_WAIT_H */
