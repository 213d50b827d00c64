// SPDX-License-Identifier: BSD-3-Clause
/*
 * The fake controller shared between processes (fake_ctrl.h, multi-process mode): doorbells
 * and CSTS in a memfd the secondaries map, their mappings in a second one, a device thread in
 * the primary's process, and the secondaries' bus on those descriptors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_ctrl.h"

void
fake_shared_lock(struct fake_shared *sh)
{
	if (pthread_mutex_lock(&sh->lock) == EOWNERDEAD) {
		/* a secondary was killed holding it: the table is whole (entries are added and
		 * removed with single stores at its end) */
		pthread_mutex_consistent(&sh->lock);
	}
}

void
fake_shared_unmap(struct fake_shared *sh, uint64_t iova, uint64_t len)
{
	fake_shared_lock(sh);
	for (uint32_t i = 0; i < sh->nmaps;) {
		if (sh->maps[i].iova >= iova && sh->maps[i].iova + sh->maps[i].len <= iova + len) {
			sh->maps[i] = sh->maps[--sh->nmaps];
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&sh->lock);
}

uint32_t
fake_shared_maps_of(struct fake_shared *sh, pid_t pid)
{
	uint32_t n = 0;

	fake_shared_lock(sh);
	for (uint32_t i = 0; i < sh->nmaps; ++i) {
		n += sh->maps[i].pid == pid;
	}
	pthread_mutex_unlock(&sh->lock);
	return n;
}

int
fake_ctrl_share(struct fake_ctrl *fc)
{
	pthread_mutexattr_t ma;

	fc->bar_fd = memfd_create("fake-bar0", MFD_CLOEXEC);
	fc->sh_fd = memfd_create("fake-maps", MFD_CLOEXEC);
	if (fc->bar_fd < 0 || fc->sh_fd < 0 || ftruncate(fc->bar_fd, (off_t)fc->bus.bar_size) ||
	    ftruncate(fc->sh_fd, sizeof(struct fake_shared))) {
		return -errno;
	}
	fc->bar = mmap(NULL, fc->bus.bar_size, PROT_READ | PROT_WRITE, MAP_SHARED, fc->bar_fd, 0);
	fc->sh = mmap(NULL, sizeof(*fc->sh), PROT_READ | PROT_WRITE, MAP_SHARED, fc->sh_fd, 0);
	if (fc->bar == MAP_FAILED || fc->sh == MAP_FAILED) {
		fc->bar = fc->bar == MAP_FAILED ? NULL : fc->bar;
		fc->sh = fc->sh == MAP_FAILED ? NULL : fc->sh;
		return -ENOMEM;
	}
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&fc->sh->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	memcpy(&fc->bar[NVME_REG_CAP / 4], &fc->cap, sizeof(fc->cap));
	return 0;
}

void
fake_shared_fini(struct fake_ctrl *fc)
{
	fake_ctrl_thread_stop(fc);
	if (fc->bar) {
		munmap(fc->bar, fc->bus.bar_size);
		fc->bar = NULL;
	}
	if (fc->sh) {
		munmap(fc->sh, sizeof(*fc->sh));
		fc->sh = NULL;
	}
	if (fc->bar_fd >= 0) {
		close(fc->bar_fd);
	}
	if (fc->sh_fd >= 0) {
		close(fc->sh_fd);
	}
	fc->bar_fd = fc->sh_fd = -1;
}

int
fake_shared_fds(struct vfio_bus *bus, int *fds, int max)
{
	struct fake_ctrl *fc = (struct fake_ctrl *)bus;

	if (!fc->bar || max < 2) {
		return -ENOTSUP;
	}
	fds[0] = fc->bar_fd;
	fds[1] = fc->sh_fd;
	return 2;
}

static void *
device_main(void *arg)
{
	struct fake_ctrl *fc = arg;

	while (!__atomic_load_n(&fc->thread_stop, __ATOMIC_ACQUIRE)) {
		fake_ctrl_process(fc);
		usleep(20);
	}
	return NULL;
}

int
fake_ctrl_thread_start(struct fake_ctrl *fc)
{
	int err;

	__atomic_store_n(&fc->thread_stop, 0, __ATOMIC_RELEASE);
	err = pthread_create(&fc->thread, NULL, device_main, fc);
	fc->thread_on = !err;
	return -err;
}

void
fake_ctrl_thread_stop(struct fake_ctrl *fc)
{
	if (!fc->thread_on) {
		return;
	}
	__atomic_store_n(&fc->thread_stop, 1, __ATOMIC_RELEASE);
	pthread_join(fc->thread, NULL);
	fc->thread_on = false;
}

/* The secondaries' bus */

struct fake_remote {
	struct vfio_bus bus; ///< first
	uint32_t *bar;
	size_t bar_len;
	struct fake_shared *sh;
	int fds[2];
	int released; ///< atomic
};

static uint32_t
r_read32(struct vfio_bus *bus, uint32_t off)
{
	struct fake_remote *r = (struct fake_remote *)bus;

	if (__atomic_load_n(&r->released, __ATOMIC_ACQUIRE) || off + 4 > r->bar_len) {
		return UINT32_MAX;
	}
	return __atomic_load_n(&r->bar[off / 4], __ATOMIC_ACQUIRE);
}

static void
r_write32(struct vfio_bus *bus, uint32_t off, uint32_t val)
{
	struct fake_remote *r = (struct fake_remote *)bus;

	/* a secondary writes doorbells only: the device picks them up when it polls */
	if (!__atomic_load_n(&r->released, __ATOMIC_ACQUIRE) && off >= NVME_REG_DBS &&
	    off + 4 <= r->bar_len) {
		__atomic_store_n(&r->bar[off / 4], val, __ATOMIC_RELEASE);
	}
}

static int
r_dma_map(struct vfio_bus *bus, void *vaddr, size_t len, uint64_t iova)
{
	struct fake_remote *r = (struct fake_remote *)bus;
	int err = 0;

	fake_shared_lock(r->sh);
	if (r->sh->nmaps == FAKE_SHMAPS) {
		err = -ENOSPC;
	} else {
		r->sh->maps[r->sh->nmaps] = (struct fake_shmap){
			.iova = iova, .len = len, .vaddr = (uintptr_t)vaddr, .pid = getpid()};
		r->sh->nmaps++;
	}
	pthread_mutex_unlock(&r->sh->lock);
	return err;
}

static int
r_dma_unmap(struct vfio_bus *bus, uint64_t iova, size_t len)
{
	fake_shared_unmap(((struct fake_remote *)bus)->sh, iova, len);
	return 0;
}

static void
r_release(struct vfio_bus *bus)
{
	__atomic_store_n(&((struct fake_remote *)bus)->released, 1, __ATOMIC_RELEASE);
}

static void
r_destroy(struct vfio_bus *bus)
{
	struct fake_remote *r = (struct fake_remote *)bus;

	munmap(r->bar, r->bar_len);
	munmap(r->sh, sizeof(*r->sh));
	close(r->fds[0]);
	close(r->fds[1]);
	free(r);
}

static const struct vfio_bus_ops remote_ops = {
	.read32 = r_read32,
	.write32 = r_write32,
	.dma_map = r_dma_map,
	.dma_unmap = r_dma_unmap,
	.release = r_release,
	.destroy = r_destroy,
};

int
fake_remote_import(const int *fds, int nfds, uint64_t bar_size, struct vfio_bus **out, char *errmsg,
		   size_t errmsg_len)
{
	struct fake_remote *r = nfds == 2 ? calloc(1, sizeof(*r)) : NULL;

	if (!r) {
		for (int i = 0; i < nfds; ++i) {
			close(fds[i]);
		}
		snprintf(errmsg, errmsg_len, "fake: %d descriptors shared, 2 expected", nfds);
		return -EPROTO;
	}
	r->bar = mmap(NULL, bar_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	r->sh = mmap(NULL, sizeof(*r->sh), PROT_READ | PROT_WRITE, MAP_SHARED, fds[1], 0);
	r->bar_len = bar_size;
	r->fds[0] = fds[0];
	r->fds[1] = fds[1];
	if (r->bar == MAP_FAILED || r->sh == MAP_FAILED) {
		snprintf(errmsg, errmsg_len, "fake: cannot map the shared memory");
		if (r->bar != MAP_FAILED) {
			munmap(r->bar, bar_size);
		}
		if (r->sh != MAP_FAILED) {
			munmap(r->sh, sizeof(*r->sh));
		}
		close(fds[0]);
		close(fds[1]);
		free(r);
		return -ENOMEM;
	}
	r->bus.ops = &remote_ops;
	r->bus.bar_size = bar_size;
	*out = &r->bus;
	return 0;
}
