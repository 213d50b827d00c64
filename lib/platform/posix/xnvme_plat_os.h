// SPDX-License-Identifier: BSD-3-Clause
#ifndef XNVME_PLAT_OS_H
#define XNVME_PLAT_OS_H
#define XNVME_PLAT_LIBCONF_BE "conf: XNVME_BE_LINUX_ENABLED"

/* The backends and mechanisms of this build, as the tools' --help names them */
#define XNVME_PLAT_CLI_BE "linux, ramdisk, vfio, tcp or rdma"
#define XNVME_PLAT_CLI_MEM "posix, hugepage; vfio (vfio) (default: posix)"
#define XNVME_PLAT_CLI_SYNC "nvme, psync, block (linux); ramdisk; vfio; tcp; rdma"
#define XNVME_PLAT_CLI_ASYNC                                                                       \
	"io_uring, io_uring_cmd, libaio, posix, thrpool, emu, nil (linux); thrpool, emu, nil "     \
	"(ramdisk); vfio (vfio); tcp, thrpool, emu, nil (tcp); rdma, thrpool, emu, nil (rdma)"
#define XNVME_PLAT_CLI_ADMIN "nvme, block, file_as_ns (linux); ramdisk; vfio; tcp; rdma"
#endif
