// SPDX-License-Identifier: BSD-3-Clause
/*
 * What differs between the operating systems the portable core runs on, behind one small
 * interface: lib/platform/posix/ and lib/platform/windows/ implement it, so that no call site
 * needs an #ifdef. Threads, mutexes, condition variables and clock_gettime() are POSIX on both
 * (mingw-w64 ships winpthreads).
 */
#ifndef XNVME_PLAT_H
#define XNVME_PLAT_H

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include "xnvme_plat_os.h" /* XNVME_PLAT_FILE_BE: the backend of the OS's files */

/*
 * Allocates `nbytes` aligned to `alignment` (a power of two, at least sizeof(void *)).
 * Returns NULL with errno set (EINVAL, ENOMEM) on failure. Release with xnvme_plat_aligned_free()
 * only: on Windows such memory cannot be given to free().
 */
void *
xnvme_plat_aligned_alloc(size_t alignment, size_t nbytes);

/* Releases memory from xnvme_plat_aligned_alloc(); NULL is a no-op. */
void
xnvme_plat_aligned_free(void *buf);

/* The virtual-memory page size in bytes. */
size_t
xnvme_plat_pagesize(void);

/*
 * pthread_create() for library worker threads: on POSIX the thread starts with every signal
 * blocked, so that the application's handlers (e.g. fio's SIGINT) never run on it. Returns 0 or
 * a positive error number, like pthread_create().
 */
int
xnvme_plat_thread_create(pthread_t *thread, void *(*fn)(void *), void *arg);

/* The number of CPUs online now (at least 1). */
unsigned int
xnvme_plat_ncpus(void);

/*
 * How many times the calling thread has blocked (voluntary context switches: waits for I/O,
 * locks, sleeps; not preemption) since it started, or -1 where the OS does not tell.
 */
long
xnvme_plat_thread_nblocked(void);

/*
 * Anonymous memory of `nbytes` that reads as zeroes and takes physical pages only when written
 * (large ramdisks cost what they store). Returns NULL with errno set on failure.
 */
void *
xnvme_plat_vmem_alloc(size_t nbytes);

/* Releases memory from xnvme_plat_vmem_alloc() (`nbytes` as allocated); NULL is a no-op. */
void
xnvme_plat_vmem_free(void *mem, size_t nbytes);

/*
 * Makes the whole pages [addr, addr + nbytes) of xnvme_plat_vmem_alloc() memory read as zeroes
 * again and gives their physical pages back. `addr` and `nbytes` are page multiples. Returns 0,
 * or negative errno when the OS refused (the caller then clears the range itself). Must not
 * race with accesses to the range.
 */
int
xnvme_plat_vmem_discard(void *addr, size_t nbytes);

/* Room for the paths of xnvme_plat_replace_begin(), terminator included */
#define XNVME_PLAT_PATH_MAX 4096

/*
 * Writing a whole new content of the file at `path` so that a failure never leaves it partial
 * (xnvme_buf_to_file()). When `path` names an existing regular file (through symbolic links:
 * the file they name is replaced, the links stay), creates an empty file beside it, with its
 * mode, owner and group (POSIX; on Windows the replacement takes over the replaced file's
 * attributes and security), writes the new file's path into `tmp` and the replaced file's into
 * `target` (XNVME_PLAT_PATH_MAX bytes each) and returns 1: the caller writes and syncs `tmp`,
 * then calls xnvme_plat_replace_end(). Returns 0 when `path` names no regular file (absent, a
 * device, a FIFO: written as it is), or a negative errno: -EACCES (or -EROFS) when the file is
 * not writable, as writing it in place would fail; -EPERM when its owner or group cannot be
 * kept; -ENAMETOOLONG; or the errno of creating the new file (e.g. -EACCES for a directory
 * that is not writable).
 */
int
xnvme_plat_replace_begin(const char *path, char *target, char *tmp);

/*
 * Ends xnvme_plat_replace_begin(): with `commit`, puts `tmp` in the place of `target` in one
 * step (rename on POSIX, then the directory synced; ReplaceFile on Windows) and returns 0 or
 * a negative errno; without `commit`, or when that fails, removes `tmp` (`target` untouched).
 */
int
xnvme_plat_replace_end(const char *tmp, const char *target, int commit);

/* Prints the OS-specific lines of xnvme_libconf_fpr() (YAML list items); returns chars written. */
int
xnvme_plat_libconf_fpr(FILE *stream);

#endif /* XNVME_PLAT_H */
