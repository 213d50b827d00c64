// SPDX-License-Identifier: BSD-3-Clause
/* tools_plat.h macros for POSIX systems (the open() flags need <fcntl.h> where used) */
#ifndef TOOLS_PLAT_OS_H
#define TOOLS_PLAT_OS_H

#define TOOL_PRINTF printf
#define TOOL_O_NONBLOCK O_NONBLOCK
#define TOOL_O_CLOEXEC O_CLOEXEC
#define TOOL_DEVNULL "/dev/null"

#endif
