// SPDX-License-Identifier: BSD-3-Clause
/**
 * What differs between the operating systems the tools run on, behind one small interface:
 * tools/plat/posix/ and tools/plat/windows/ implement it (the build picks one), so that no tool
 * source carries an #ifdef. tools_plat_os.h of the chosen directory supplies the macros:
 * TOOL_PRINTF (the printf format archetype), TOOL_O_NONBLOCK and TOOL_O_CLOEXEC (open() flags,
 * 0 where the OS has none), TOOL_DEVNULL (the null device) and S_ISSOCK()/S_ISBLK() where the C
 * runtime lacks them, TOOL_PATH_SEPS (the directory separators) and TOOL_SIGPIPE (the number of
 * SIGPIPE, 128 less the exit status of a run it stopped) and TOOL_SIGHUP (the same for SIGHUP).
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

/**
 * Installs `handler` for SIGINT, SIGTERM, and SIGPIPE and SIGHUP where they exist, without
 * SA_RESTART
 */
void
tool_plat_sig_install(void (*handler)(int));

/**
 * The alignment O_DIRECT needs on `path` (a regular file or a block device): of buffer
 * addresses (`mem`) and of file offsets and transfer sizes (`off`). 0 with both 0 when the
 * operating system does not say; negative errno when `path` cannot be examined.
 */
int
tool_plat_dio_align(const char *path, uint32_t *mem, uint32_t *off);

/**
 * When `path` is a symbolic link, the file the chain of links ends at (which may not exist)
 * into `out`: 1. 0 when `path` is no link (or the OS has none), negative errno on failure.
 */
int
tool_plat_link_target(const char *path, char *out, size_t len);

/** 0 when the caller may write the file `path`, else negative errno (-EACCES) */
int
tool_plat_file_writable(const char *path);

/** 0 when files may be created in and removed from the directory `dir`, else negative errno */
int
tool_plat_dir_writable(const char *dir);

/**
 * Creates a new, empty file readable and writable by its owner only, named after
 * `dir`/.`base`.xnvme-<random>, into `out`; returns its descriptor (read-write) or negative errno
 */
int
tool_plat_tmp_create(const char *dir, const char *base, char *out, size_t len);

/**
 * Whether the calling process can give a new file the owner and group of the file `st`
 * describes (struct stat *, opaque here to keep <sys/stat.h> out of this header): 0, or
 * -EPERM naming nothing
 */
int
tool_plat_owner_keepable(const void *st);

/** Gives the file of `fd` the mode bits, owner and group of `st` (a struct stat *) */
int
tool_plat_attrs_copy(int fd, const void *st);

/** Gives the file of `fd` the mode of a new file: 0666 less the process umask */
int
tool_plat_attrs_new(int fd);

/** Writes the data of `fd` to stable storage */
int
tool_plat_fsync(int fd);

/** Writes the directory `dir` (its entries) to stable storage; 0 where the OS has no such thing */
int
tool_plat_fsync_dir(const char *dir);

/** Atomically replaces `target` with the file `src` (a rename); 0 or negative errno */
int
tool_plat_replace(const char *src, const char *target);

/**
 * Copies up to `nbytes` from the start of `in` to the start of `out` in pieces, calling `tick`
 * between pieces (a non-zero return stops the copy with that value); sharing the blocks where
 * the file system can. Returns 0 or negative errno.
 */
int
tool_plat_copy(int in, int out, uint64_t nbytes, int (*tick)(void *), void *arg);

/** CPU time in seconds, user and system. */
struct tool_cpu_times {
	double user_s;
	double sys_s;
};

/** CPU time used by the calling thread (`thread` true) or by the whole process. */
void
tool_plat_cpu_times(struct tool_cpu_times *t, bool thread);

#endif /* TOOLS_PLAT_H */
