/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * The state of a libaio queue (async_libaio.c), here so that white-box tests can reach the
 * queue's AIO context and its watchdog counters. Not installed.
 */
#ifndef XNVME_BE_LINUX_LIBAIO_H
#define XNVME_BE_LINUX_LIBAIO_H

#include "xnvme_config.h"

#ifdef XNVME_HAVE_LIBAIO
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <libaio.h>
#include "poke_wait.h"

/** wd_fd before the first idle wait created the watchdog's timerfd */
#define XNVME_BE_LINUX_LIBAIO_WD_NONE -1
/** wd_fd when timerfd or IOCB_CMD_POLL was refused: idle waits carry their own timeout */
#define XNVME_BE_LINUX_LIBAIO_WD_REFUSED -2

struct la_ring;

struct la_state {
	io_context_t aio;
	struct la_ring *ring;   ///< the mapped ring of `aio`, NULL: reap with io_getevents
	unsigned int nr_events; ///< what `aio` was set up with
	int fd;
	int efd;          ///< eventfd of get_completion_fd, -1 until asked for
	uint32_t unarmed; ///< commands in the kernel without IOCB_FLAG_RESFD, once efd >= 0
	uint32_t nready;
	uint32_t nidle;                    ///< pokes in a row that found nothing ready
	struct xnvme_be_linux_pwait pwait; ///< bound of the next idle wait (poke_wait.h)
	bool wait;                         ///< idle pokes may wait in io_getevents
	/**
	 * The watchdog's poll iocb is in the kernel, or its event is not reaped yet: an idle wait
	 * may block in io_getevents without a timeout of its own
	 */
	bool wd_armed;
	struct xnvme_cmd_ctx **ready; ///< completed without reaching the kernel
	struct iocb *iocbs;           ///< per pooled context, indexed by xnvme_queue_ctx_idx()
	struct iovec *scratch;        ///< LA_IOV_SCRATCH entries
	/* the watchdog's cold part (arming, term), behind the fields of the per-I/O path */
	int wd_fd;         ///< the watchdog's timerfd, or XNVME_BE_LINUX_LIBAIO_WD_NONE/_REFUSED
	uint32_t wd_ns;    ///< the interval the watchdog was last armed with
	uint64_t wd_arms;  ///< watchdog arms (timerfd_settime + io_submit): statistics and tests
	struct iocb wd_cb; ///< IOCB_CMD_POLL on wd_fd; its event's data is this state
};

#endif /* XNVME_HAVE_LIBAIO */
#endif /* XNVME_BE_LINUX_LIBAIO_H */
