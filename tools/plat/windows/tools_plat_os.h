// SPDX-License-Identifier: BSD-3-Clause
/* tools_plat.h macros for Windows (mingw-w64 C runtime; the open() flags need <fcntl.h>) */
#ifndef TOOLS_PLAT_OS_H
#define TOOLS_PLAT_OS_H
#include <sys/stat.h>

/* mingw-w64 links the C99 printf (%zu, %j): check formats as such */
#define TOOL_PRINTF gnu_printf
/* Pipes block; data files are binary and not inherited by child processes */
#define TOOL_O_NONBLOCK 0
#define TOOL_O_CLOEXEC (O_BINARY | O_NOINHERIT)
#define TOOL_PATH_SEPS "/\\"
#define TOOL_DEVNULL "NUL"
/* No SIGPIPE: a write to a closed pipe fails with EPIPE; its POSIX number, never raised */
#define TOOL_SIGPIPE 13
/* No SIGHUP: a closed console ends the process; its POSIX number, never raised */
#define TOOL_SIGHUP 1
/* No sockets or block devices among C runtime file descriptors */
#ifndef S_ISSOCK
#define S_ISSOCK(m) ((void)(m), 0)
#endif
#ifndef S_ISBLK
#define S_ISBLK(m) ((void)(m), 0)
#endif

#endif
