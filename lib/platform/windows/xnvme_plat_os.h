// SPDX-License-Identifier: BSD-3-Clause
#ifndef XNVME_PLAT_OS_H
#define XNVME_PLAT_OS_H
#define XNVME_PLAT_LIBCONF_BE "conf: XNVME_BE_WINDOWS_ENABLED"
/* The backend that opens this OS's files (xnvme_buf_to_file(), xnvme_buf_from_file()) */
#define XNVME_PLAT_FILE_BE "windows"

/* The backends and mechanisms of this build, as the tools' --help names them */
#define XNVME_PLAT_CLI_BE "windows or ramdisk"
#define XNVME_PLAT_CLI_MEM "windows (windows); posix (ramdisk) (default: automatic; see info)"
#define XNVME_PLAT_CLI_SYNC "nvme, file (windows); ramdisk"
#define XNVME_PLAT_CLI_ASYNC                                                                       \
	"emu, thrpool, iocp, iocp_th, io_ring, nil (windows); thrpool, emu, nil (ramdisk)"
#define XNVME_PLAT_CLI_ADMIN "nvme, block, file (windows); ramdisk"
#endif
