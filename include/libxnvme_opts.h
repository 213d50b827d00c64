/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Options for opening a device: backend and mechanism names, OS open flags, io_uring hints and
 * user-space-driver settings. NULL names and nsid 0 mean "choose automatically".
 */
#ifndef LIBXNVME_OPTS_H
#define LIBXNVME_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include "libxnvme_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Controller command-set selection for user-space drivers; `value` applies when `given` */
struct xnvme_opts_css {
	uint32_t value;
	uint32_t given;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_opts_css) == 8, "Incorrect size")

/** Device-open options; returned by value from xnvme_opts_default() */
struct xnvme_opts {
	const char *be;    ///< backend name
	const char *dev;   ///< ignored on input; the device mechanism after open
	const char *mem;   ///< buffer allocator mechanism
	const char *sync;  ///< synchronous command mechanism
	const char *async; ///< queue (asynchronous) mechanism
	const char *admin; ///< admin command mechanism

	uint32_t nsid; ///< namespace for user-space drivers; 0 = automatic

	uint8_t rdonly;
	uint8_t wronly;
	uint8_t rdwr;
	uint8_t create;
	uint8_t truncate;
	uint8_t direct;

	uint32_t create_mode; ///< permission bits used when creating a file

	uint8_t poll_io;          ///< io_uring completion polling (IOPOLL)
	uint8_t poll_sq;          ///< io_uring kernel submission polling (SQPOLL)
	uint8_t register_files;   ///< io_uring: register the file descriptor
	uint8_t register_buffers; ///< io_uring: register buffers

	struct xnvme_opts_css css;

	uint32_t use_cmb_sqs;
	/**
	 * vfio backend: non-zero opens the PCI address as a secondary of the multi-process
	 * primary with this id (`xnvme-driver serve BDF --shm-id N`): the process runs its own I/O
	 * queues while the primary owns the controller; 0 (default) owns the controller, one
	 * process at a time (docs/vfio.md). Ignored by the other backends.
	 */
	uint32_t shm_id;
	uint32_t main_core;
	const char *core_mask;
	const char *adrfam;
	const char *subnqn;
	const char *hostnqn;

	/**
	 * Admin command timeout in microseconds; xnvme_opts_default(): 60000000 (60 s). Both
	 * timeouts are taken at xnvme_dev_open().
	 * Linux, admin mechanism "nvme" (admin passthrough ioctl on /dev/nvmeX, /dev/nvmeXnY,
	 * /dev/ngXnY): the command's timeout_ms, rounded up to whole milliseconds. 0, and the
	 * default value, leave the kernel's own timeout (nvme_core.admin_timeout, 60 s unless the
	 * system changed it). When it expires the kernel resets the controller, which cancels the
	 * command and every other command outstanding on that controller; the call returns
	 * -ETIMEDOUT (cpl: sct 7, sc ETIMEDOUT). The controller comes back live after the reset.
	 * Not used elsewhere: controller/subsystem reset and rescan wait as the kernel decides,
	 * the "block"/"file_as_ns"/ramdisk admin mechanisms synthesise their answers.
	 * vfio backend: each admin command and the shutdown wait (0: 60 s); an expired command
	 * returns -ETIMEDOUT (cpl: sct 7, sc ETIMEDOUT) and the driver resets the controller.
	 */
	uint32_t admin_timeout;
	/**
	 * I/O command timeout in microseconds; xnvme_opts_default(): 30000000 (30 s).
	 * Linux NVMe passthrough: sync "nvme" (I/O ioctls; also under async "emu"/"thrpool") and
	 * async "io_uring_cmd": the command's timeout_ms, rounded up to whole milliseconds. 0, and
	 * the default value, leave the kernel's own timeout (nvme_core.io_timeout, 30 s unless the
	 * system changed it). When it expires the kernel asks the controller to abort the command
	 * and waits one more timeout; still outstanding then, the kernel resets the controller,
	 * cancelling it and every other command outstanding on that controller. The command then
	 * fails with -ETIMEDOUT (sync) or completes with cpl sct 7, sc ETIMEDOUT (async). The
	 * kernel looks for expired commands once a second, and the reset cannot finish before the
	 * device lets go of the command, so the error arrives no sooner than twice the timeout and
	 * can be seconds later. The controller comes back live after the reset.
	 * The block-layer paths (io_uring, libaio, posix, psync, block), on block devices and on
	 * files, are bounded by the kernel's timeout of the disk underneath
	 * (/sys/block/<disk>/queue/io_timeout), not by this value; the ramdisk has no device to
	 * wait for.
	 * vfio backend: each I/O command, sync and async, checked while polling (0: no timeout);
	 * an expired command completes with cpl sct 7, sc ETIMEDOUT (sync: -ETIMEDOUT) and its
	 * command identifier stays reserved until the device completes it. The driver sends
	 * Abort for it and, when the device still holds it up to 1 s later, resets the
	 * controller; commands that reset dropped complete with sct 7, sc ECANCELED
	 * (docs/vfio.md).
	 */
	uint32_t command_timeout;
	uint32_t spdk_fabrics; ///< output: non-zero when connected over fabrics
	uint32_t keep_alive_timeout_ms;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_opts) == 136, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_opts, nsid) == 48, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_opts, create_mode) == 60, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_opts, css) == 68, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_opts, core_mask) == 88, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_opts, keep_alive_timeout_ms) == 132, "Incorrect offset")

/**
 * Writes the defaults (rdwr, nsid, timeouts, create_mode) and leaves every other field as is.
 * Thread safety: safe from any thread (writes only `opts`).
 */
void
xnvme_opts_set_defaults(struct xnvme_opts *opts);

/** Zero-filled options with the defaults applied. Thread safety: safe from any thread. */
struct xnvme_opts
xnvme_opts_default(void);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_OPTS_H */
