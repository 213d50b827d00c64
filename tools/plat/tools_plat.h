// SPDX-License-Identifier: BSD-3-Clause
/**
 * What differs between the operating systems the tools run on, behind one small interface:
 * tools/plat/posix/ and tools/plat/windows/ implement it (the build picks one), so that no tool
 * source carries an #ifdef. tools_plat_os.h of the chosen directory supplies the macros:
 * TOOL_PRINTF (the printf format archetype), TOOL_O_NONBLOCK and TOOL_O_CLOEXEC (open() flags,
 * 0 where the OS has none), TOOL_DEVNULL (the null device) and S_ISSOCK()/S_ISBLK() where the C
 * runtime lacks them.
 */
#ifndef TOOLS_PLAT_H
#define TOOLS_PLAT_H

#include <stdbool.h>
#include <stdint.h>
#include "tools_plat_os.h"

/** Process start-up: on Windows the standard streams are switched to binary mode. */
void
tool_plat_init(void);

/** Makes `fd` blocking again after an open with TOOL_O_NONBLOCK; 0 or negative errno. */
int
tool_plat_fd_blocking(int fd);

/**
 * Waits until the stream `fd` is readable (`out` false) or writable; 0 or negative errno. Where
 * streams never run non-blocking (Windows) it returns at once.
 */
int
tool_plat_fd_wait(int fd, bool out);

/** What identifies a file: equal `dev` and `ino` name the same file, equal `rdev` one device */
struct tool_file_id {
	uint64_t dev;
	uint64_t ino;
	uint64_t rdev;
	bool reg; ///< a regular file
	bool blk; ///< a block device
	bool dir; ///< a directory
};

/** Identifies `path` (links followed): 0, or negative errno (-ENOENT when it does not exist). */
int
tool_plat_file_id(const char *path, struct tool_file_id *id);

/** Bits of a signed integer holding the largest file size on the file system of `dir`; -1 unknown */
long
tool_plat_file_size_bits(const char *dir);

/** Bytes of the file system holding the directory `dir` in all; 0 when unknown. */
uint64_t
tool_plat_fs_nbytes(const char *dir);

/** CPU time in seconds, user and system. */
struct tool_cpu_times {
	double user_s;
	double sys_s;
};

/** CPU time used by the calling thread (`thread` true) or by the whole process. */
void
tool_plat_cpu_times(struct tool_cpu_times *t, bool thread);

#endif /* TOOLS_PLAT_H */
