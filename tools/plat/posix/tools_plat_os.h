// SPDX-License-Identifier: BSD-3-Clause
/* tools_plat.h macros for POSIX systems (the open() flags need <fcntl.h> where used) */
#ifndef TOOLS_PLAT_OS_H
#define TOOLS_PLAT_OS_H

#define TOOL_PRINTF printf
#define TOOL_O_NONBLOCK O_NONBLOCK
#define TOOL_O_CLOEXEC O_CLOEXEC
#define TOOL_PATH_SEPS "/"
#define TOOL_DEVNULL "/dev/null"
/* the signal of a write to a pipe nobody reads */
#define TOOL_SIGPIPE SIGPIPE
/* the signal of a terminal that went away (a closed window, a dropped ssh session) */
#define TOOL_SIGHUP SIGHUP

#endif
