/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * The state of a queue of the Linux async mechanism "posix" (async_posix.c; not installed):
 * per pooled context an aiocb and the progress of its transfer, the list of commands in
 * flight, and the idle wait's bound and watchdog. Shared with the tests that drive the
 * mechanism's waits directly.
 */
#ifndef XNVME_BE_LINUX_POSIX_H
#define XNVME_BE_LINUX_POSIX_H

#include <aio.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "poke_wait.h"

enum paio_phase {
	PAIO_PH_READY = 1, ///< cpl is final; complete at the next poke
	PAIO_PH_INFLIGHT,  ///< the aiocb belongs to the AIO implementation
	PAIO_PH_RESTART,   ///< (re)submission was refused with EAGAIN; retried by poke
};

enum paio_op {
	PAIO_OP_NONE = 0,
	PAIO_OP_READ,
	PAIO_OP_WRITE,
	PAIO_OP_FSYNC,
};

struct paio_entry {
	struct aiocb cb;
	char *buf;
	size_t nbytes;
	size_t done;
	off_t off;
	enum paio_op op;
	enum paio_phase phase;
	uint32_t next; ///< pool index of the next context a poke delivers (PAIO_NONE: last)
};

#define PAIO_NONE UINT32_MAX

struct paio_state {
	int fd;
	bool direct;
	uint32_t nlive;
	uint32_t *live;             ///< pool indices of pending commands, in submission order
	struct paio_entry *entries; ///< indexed by xnvme_queue_ctx_idx()
	uint32_t nidle;             ///< pokes in a row that delivered nothing
	struct xnvme_be_linux_pwait pwait; ///< bound of the next idle wait (poke_wait.h)
	bool wait;                         ///< idle pokes may wait in aio_suspend()
	bool wd_ok;     ///< the watchdog works (a timerfd read through POSIX AIO)
	bool wd_armed;  ///< its read is in flight: it completes when the timer expires
	int wd_fd;      ///< the watchdog's timerfd, -1 until the first wait
	uint64_t wd_ticks; ///< what its read returns
	uint64_t wd_arms;  ///< watchdogs armed so far (tests, statistics)
	uint64_t nwaits;   ///< idle waits so far (tests, statistics)
	struct aiocb wd_cb;
};

#endif /* XNVME_BE_LINUX_POSIX_H */
