// SPDX-License-Identifier: BSD-3-Clause
/*
 * Memory mechanism "hugepage" (Linux): buffers are shared mappings of unlinked files on the
 * hugetlbfs directory named by XNVME_HUGETLB_PATH, so they are backed by huge pages. Sizes are
 * rounded up to the huge-page size; a process-wide list remembers each mapping's length for
 * munmap (buffers may be freed through any handle of the process).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "xnvme_be.h"

#ifndef HUGETLBFS_MAGIC
#define HUGETLBFS_MAGIC 0x958458f6
#endif

#define HUGEPAGE_ENV_PATH "XNVME_HUGETLB_PATH"

struct hugepage_map {
	void *addr;
	size_t nbytes;
	struct hugepage_map *next;
};

static pthread_mutex_t hugepage_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hugepage_map *hugepage_maps;

/* The hugetlbfs directory and its page size; a negative errno and reason when unusable */
static int
hugepage_dir(const char **path, size_t *pgsz, char *why, size_t why_len)
{
	struct statfs sfs;

	*path = getenv(HUGEPAGE_ENV_PATH);
	if (!*path || !**path) {
		snprintf(why, why_len, "%s is not set; point it at a mounted hugetlbfs directory",
			 HUGEPAGE_ENV_PATH);
		return -ENOENT;
	}
	if (statfs(*path, &sfs)) {
		int err = errno;

		snprintf(why, why_len, "%s='%s': %s", HUGEPAGE_ENV_PATH, *path, strerror(err));
		return -err;
	}
	if ((unsigned long)sfs.f_type != (unsigned long)HUGETLBFS_MAGIC) {
		snprintf(why, why_len, "%s='%s' is not on a mounted hugetlbfs", HUGEPAGE_ENV_PATH,
			 *path);
		return -ENOTSUP;
	}
	*pgsz = (size_t)sfs.f_bsize;
	return 0;
}

static int
hugepage_check_support(struct xnvme_dev *dev)
{
	char why[XNVME_ERRMSG_LEN];
	const char *path;
	size_t pgsz;
	int err;

	err = hugepage_dir(&path, &pgsz, why, sizeof(why));
	if (err) {
		return xnvme_dev_set_errmsg(dev, err, "%s", why);
	}
	return 0;
}

static void *
hugepage_buf_alloc(const struct xnvme_dev *dev, size_t nbytes, uint64_t *phys)
{
	char why[XNVME_ERRMSG_LEN], fname[PATH_MAX];
	struct hugepage_map *map;
	const char *path;
	size_t pgsz = 0; /* gcc -O3 cannot see that hugepage_dir() sets it on success */
	void *addr;
	int fd, err;

	(void)dev;
	(void)phys; /* no physical addresses without a user-space driver */

	if (!nbytes) {
		errno = EINVAL;
		return NULL;
	}
	err = hugepage_dir(&path, &pgsz, why, sizeof(why));
	if (err) {
		errno = -err;
		return NULL;
	}
	if (nbytes > SIZE_MAX - pgsz) {
		errno = ENOMEM;
		return NULL;
	}
	nbytes = (nbytes + pgsz - 1) / pgsz * pgsz;

	map = malloc(sizeof(*map));
	if (!map) {
		errno = ENOMEM;
		return NULL;
	}
	if (snprintf(fname, sizeof(fname), "%s/xnvme-XXXXXX", path) >= (int)sizeof(fname)) {
		free(map);
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkstemp(fname);
	if (fd < 0) {
		err = errno;
		free(map);
		errno = err;
		return NULL;
	}
	/* The mapping keeps the pages; the name is never needed again */
	unlink(fname);
	addr = mmap(NULL, nbytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	err = errno;
	close(fd);
	if (addr == MAP_FAILED) {
		free(map);
		errno = err;
		return NULL;
	}

	map->addr = addr;
	map->nbytes = nbytes;
	pthread_mutex_lock(&hugepage_lock);
	map->next = hugepage_maps;
	hugepage_maps = map;
	pthread_mutex_unlock(&hugepage_lock);
	return addr;
}

/* Unlinks the record of `buf` and returns it, or NULL for a buffer not from here */
static struct hugepage_map *
hugepage_take(void *buf)
{
	struct hugepage_map **pos, *map = NULL;

	pthread_mutex_lock(&hugepage_lock);
	for (pos = &hugepage_maps; *pos; pos = &(*pos)->next) {
		if ((*pos)->addr == buf) {
			map = *pos;
			*pos = map->next;
			break;
		}
	}
	pthread_mutex_unlock(&hugepage_lock);
	return map;
}

static size_t
hugepage_size_of(void *buf)
{
	size_t nbytes = 0;

	pthread_mutex_lock(&hugepage_lock);
	for (struct hugepage_map *map = hugepage_maps; map; map = map->next) {
		if (map->addr == buf) {
			nbytes = map->nbytes;
			break;
		}
	}
	pthread_mutex_unlock(&hugepage_lock);
	return nbytes;
}

static void
hugepage_buf_free(const struct xnvme_dev *dev, void *buf)
{
	struct hugepage_map *map;

	(void)dev;
	if (!buf) {
		return;
	}
	map = hugepage_take(buf);
	if (!map) {
		return; /* not ours: unmapping an unknown length could hit other mappings */
	}
	munmap(map->addr, map->nbytes);
	free(map);
}

static void *
hugepage_buf_realloc(const struct xnvme_dev *dev, void *buf, size_t nbytes, uint64_t *phys)
{
	size_t old_nbytes;
	void *new_buf;

	if (!buf) {
		return hugepage_buf_alloc(dev, nbytes, phys);
	}
	old_nbytes = hugepage_size_of(buf);
	if (!old_nbytes) {
		errno = EINVAL;
		return NULL;
	}
	new_buf = hugepage_buf_alloc(dev, nbytes, phys);
	if (!new_buf) {
		return NULL; /* `buf` stays valid, as with realloc() */
	}
	memcpy(new_buf, buf, old_nbytes < nbytes ? old_nbytes : nbytes);
	hugepage_buf_free(dev, buf);
	return new_buf;
}

static int
hugepage_buf_vtophys(const struct xnvme_dev *dev, void *buf, uint64_t *phys)
{
	(void)dev;
	(void)buf;
	(void)phys;
	return -ENOSYS;
}

static int
hugepage_mem_map(const struct xnvme_dev *dev, void *vaddr, size_t nbytes)
{
	(void)dev;
	(void)vaddr;
	(void)nbytes;
	return -ENOSYS;
}

static int
hugepage_mem_unmap(const struct xnvme_dev *dev, void *buf)
{
	(void)dev;
	(void)buf;
	return -ENOSYS;
}

const struct xnvme_be_mem xnvme_be_mem_hugepage = {
	.name = "hugepage",
	.check_support = hugepage_check_support,
	.buf_alloc = hugepage_buf_alloc,
	.buf_realloc = hugepage_buf_realloc,
	.buf_free = hugepage_buf_free,
	.buf_vtophys = hugepage_buf_vtophys,
	.mem_map = hugepage_mem_map,
	.mem_unmap = hugepage_mem_unmap,
};
