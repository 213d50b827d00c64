// SPDX-License-Identifier: BSD-3-Clause
/*
 * The multi-process primary (mp_primary.h): controllers brought up and served, the listening
 * sockets, admission of secondaries by their credentials, the loop, and the reclaiming of what
 * a secondary held once its socket ends. Requests: mp_primary_req.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "mp_primary_int.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif

#define POLL_MS 100
#define HEALTH_US 1000000 /* CSTS read once a second: secondaries read it themselves too */
#define SOCK_TIMEOUT_S 5  /* a secondary that stalls a message that long is dropped */
#define WINDOW_ALIGN (2ULL << 20)
#define MAX_NGROUPS 256

void
mp_log_(const struct vfio_primary *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->opts.log) {
		return;
	}
	va_start(ap, fmt);
	vfprintf(p->opts.log, fmt, ap);
	va_end(ap);
	fputc('\n', p->opts.log);
	fflush(p->opts.log);
}

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

/* Linux before 6.0 lets only the process that made a mapping remove it (vfio_iommu_type1) */
static bool
kernel_unmaps_foreign(void)
{
	struct utsname u;
	unsigned major = 0;

	return !uname(&u) && sscanf(u.release, "%u", &major) == 1 && major >= 6;
}

int
vfio_primary_create(struct vfio_primary **out, const struct vfio_primary_opts *opts)
{
	struct vfio_primary *p = calloc(1, sizeof(*p));
	size_t nuids = opts->nuids + 1;

	if (!opts->shm_id) {
		free(p);
		return -EINVAL;
	}
	if (!p) {
		return -ENOMEM;
	}
	p->opts = *opts;
	if (!p->opts.window_nbytes) {
		p->opts.window_nbytes = VFIO_MP_WINDOW_DEFAULT;
	}
	p->uids = calloc(nuids, sizeof(uint32_t));
	p->gids = calloc(opts->ngids ? opts->ngids : 1, sizeof(uint32_t));
	if (!p->uids || !p->gids) {
		vfio_primary_destroy(p);
		return -ENOMEM;
	}
	/* the primary's own user, and those it is told to admit */
	p->uids[0] = (uint32_t)getuid();
	if (opts->nuids) {
		memcpy(p->uids + 1, opts->uids, opts->nuids * sizeof(uint32_t));
	}
	if (opts->ngids) {
		memcpy(p->gids, opts->gids, opts->ngids * sizeof(uint32_t));
	}
	p->opts.uids = p->uids;
	p->opts.nuids = nuids;
	p->opts.gids = p->gids;
	p->foreign_unmap = kernel_unmaps_foreign();
	*out = p;
	return 0;
}

int
mp_window_take(struct mp_served *srv, struct mp_client *c, uint64_t len, uint64_t *start,
	       uint64_t *end, char *msg, size_t msg_len)
{
	uint64_t n = srv->prim->opts.window_nbytes;
	int err;

	if (len > n) {
		n = (len + WINDOW_ALIGN - 1) & ~(WINDOW_ALIGN - 1);
	}
	if (c && c->nwins == c->capwins) {
		size_t cap = c->capwins ? c->capwins * 2 : 4;
		void *mem = realloc(c->wins, cap * sizeof(*c->wins));

		if (!mem) {
			snprintf(msg, msg_len, "no memory for the window table");
			return -ENOMEM;
		}
		c->wins = mem;
		c->capwins = cap;
	}
	err = vfio_iova_take(&srv->space, n, WINDOW_ALIGN, start);
	if (err) {
		unsigned nc = 0;

		for (struct mp_client *o = srv->clients; o; o = o->next) {
			nc++;
		}
		snprintf(msg, msg_len,
			 "the controller's IOVA space is exhausted: no %llu MiB window left (%llu "
			 "MiB free in pieces, %u processes hold windows)",
			 (unsigned long long)(n >> 20),
			 (unsigned long long)(vfio_iova_free_bytes(&srv->space) >> 20), nc);
		return -ENOMEM;
	}
	*end = *start + n;
	if (c) {
		c->wins[c->nwins++] = (struct vfio_bus_range){.start = *start, .end = *end};
	}
	return 0;
}

/* dma.h grow for the primary's own DMA memory (admin queue, bounce buffers) */
static int
own_grow(void *arg, uint64_t len, uint64_t *start, uint64_t *end)
{
	char msg[VFIO_MP_ERRMSG_LEN];

	return mp_window_take(arg, NULL, len, start, end, msg, sizeof(msg));
}

static struct mp_served *
srv_find(struct vfio_primary *p, const char *bdf)
{
	for (size_t i = 0; i < p->nsrv; ++i) {
		if (!strcmp(p->srv[i]->bdf, bdf)) {
			return p->srv[i];
		}
	}
	return NULL;
}

struct vfio_ctrl *
vfio_primary_ctrl(struct vfio_primary *p, const char *bdf)
{
	struct mp_served *srv = srv_find(p, bdf);

	return srv ? &srv->ctrl : NULL;
}

static int
srv_listen(struct mp_served *srv, char *errmsg, size_t len)
{
	struct sockaddr_un sa;
	socklen_t salen;
	int err;

	vfio_mp_sockaddr(srv->prim->opts.shm_id, srv->bdf, &sa, &salen);
	srv->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (srv->lfd < 0) {
		err = -errno;
		snprintf(errmsg, len, "%s: cannot make a socket: %s", srv->bdf, strerror(-err));
		return err;
	}
	if (bind(srv->lfd, (struct sockaddr *)&sa, salen) || listen(srv->lfd, 64)) {
		err = -errno;
		snprintf(errmsg, len, "%s: cannot listen on @%s: %s%s", srv->bdf, sa.sun_path + 1,
			 strerror(-err),
			 err == -EADDRINUSE ? " (a primary with this shm id serves it already)"
					    : "");
		return err;
	}
	return 0;
}

static void
srv_free(struct mp_served *srv)
{
	if (srv->lfd >= 0) {
		close(srv->lfd);
	}
	if (srv->ctrl_up) {
		vfio_ctrl_fini(&srv->ctrl);
	}
	if (srv->bus && srv->bus->ops->destroy) {
		srv->bus->ops->destroy(srv->bus);
	}
	vfio_iova_fini(&srv->space);
	free(srv->qids);
	free(srv);
}

int
vfio_primary_add(struct vfio_primary *p, const char *bdf, struct vfio_bus *bus,
		 const struct vfio_ctrl_opts *copts, char *errmsg, size_t errmsg_len)
{
	struct vfio_ctrl_opts o = *copts;
	struct mp_served *srv = calloc(1, sizeof(*srv));
	void *mem = realloc(p->srv, (p->nsrv + 1) * sizeof(*p->srv));
	int err;

	if (mem) {
		p->srv = mem;
	}
	if (!srv || !mem) {
		free(srv);
		if (bus->ops->destroy) {
			bus->ops->destroy(bus);
		}
		return -ENOMEM;
	}
	srv->prim = p;
	srv->bus = bus;
	srv->lfd = -1;
	snprintf(srv->bdf, sizeof(srv->bdf), "%s", bdf);
	err = vfio_iova_init(&srv->space);
	if (!err && bus->iova_limit > bus->iova_base) {
		err = vfio_iova_put(&srv->space, bus->iova_base, bus->iova_limit - bus->iova_base);
	}
	for (size_t i = 0; !err && i < bus->nreserved; ++i) {
		err = vfio_iova_punch(&srv->space, bus->reserved[i].start, bus->reserved[i].end);
	}
	if (err) {
		snprintf(errmsg, errmsg_len, "%s: no memory for the IOVA table", bdf);
		srv_free(srv);
		return err;
	}
	/* listening first: a second primary for the same name fails before touching the device */
	err = srv_listen(srv, errmsg, errmsg_len);
	if (err) {
		srv_free(srv);
		return err;
	}
	o.dma_grow = own_grow;
	o.dma_grow_arg = srv;
	err = vfio_ctrl_init(&srv->ctrl, bus, &o, errmsg, errmsg_len);
	if (err) {
		srv_free(srv);
		return err;
	}
	srv->ctrl_up = true;
	srv->pub_epoch = srv->ctrl.epoch;
	srv->qids = calloc((size_t)srv->ctrl.nioq + 1, sizeof(*srv->qids));
	if (!srv->qids) {
		srv_free(srv);
		return -ENOMEM;
	}
	p->srv[p->nsrv++] = srv;
	mp_log(p, "%s: serving with shm id %x: %u I/O queue pairs, %llu MiB of IOVA space", bdf,
	       p->opts.shm_id, srv->ctrl.nioq,
	       (unsigned long long)(vfio_iova_free_bytes(&srv->space) >> 20));
	return 0;
}

static bool
admitted(const struct vfio_primary *p, const struct ucred *cr, const gid_t *groups, int ngroups)
{
	for (size_t i = 0; i < p->opts.nuids; ++i) {
		if (p->uids[i] == (uint32_t)cr->uid) {
			return true;
		}
	}
	for (size_t i = 0; i < p->opts.ngids; ++i) {
		if (p->gids[i] == (uint32_t)cr->gid) {
			return true;
		}
		for (int g = 0; g < ngroups; ++g) {
			if (p->gids[i] == (uint32_t)groups[g]) {
				return true;
			}
		}
	}
	return false;
}

/* "uid 0, 1000; gid 27": who is admitted, for a refusal's reason */
static void
admitted_str(const struct vfio_primary *p, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->opts.nuids + p->opts.ngids && at + 1 < len; ++i) {
		bool user = i < p->opts.nuids;
		const char *sep = i == 0               ? (user ? "uid " : "gid ")
				  : i == p->opts.nuids ? "; gid "
						       : ", ";
		int n = snprintf(buf + at, len - at, "%s%u", sep,
				 user ? p->uids[i] : p->gids[i - p->opts.nuids]);

		at = n < 0 || (size_t)n >= len - at ? len : at + (size_t)n;
	}
}

/* A new connection: credentials, HELLO, the controller and the device's descriptors */
static void
accept_one(struct mp_served *srv)
{
	struct vfio_primary *p = srv->prim;
	struct timeval tv = {.tv_sec = SOCK_TIMEOUT_S};
	struct vfio_mp_hello h;
	struct vfio_mp_hdr hdr;
	struct vfio_mp_info *info = NULL;
	struct mp_client *c = NULL;
	struct ucred cr;
	socklen_t crlen = sizeof(cr);
	gid_t groups[MAX_NGROUPS];
	socklen_t glen = sizeof(groups);
	char msg[VFIO_MP_ERRMSG_LEN], who[128];
	int fds[VFIO_MP_MAXFDS], nfds, nshare, err;
	int fd = accept4(srv->lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0) {
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) ||
	    vfio_mp_recv_hdr(fd, &hdr, NULL, NULL) || hdr.type != VFIO_MP_HELLO ||
	    hdr.len != sizeof(h) || vfio_mp_recv_all(fd, &h, sizeof(h))) {
		close(fd);
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &glen)) {
		glen = 0;
	}
	if (!admitted(p, &cr, groups, (int)(glen / sizeof(gid_t)))) {
		admitted_str(p, who, sizeof(who));
		snprintf(msg, sizeof(msg),
			 "permission denied: uid %u gid %u is not admitted (admitted: %s; "
			 "xnvme-driver serve --allow-user/--allow-group)",
			 (unsigned)cr.uid, (unsigned)cr.gid, who);
		mp_log(p, "%s: refused pid %d: %s", srv->bdf, (int)cr.pid, msg);
		vfio_mp_reply(fd, &hdr, -EACCES, msg, NULL, 0, NULL, 0);
		close(fd);
		return;
	}
	err = 0;
	if (h.version != VFIO_MP_VERSION) {
		snprintf(msg, sizeof(msg), "protocol version %u asked for, the primary speaks %u",
			 h.version, VFIO_MP_VERSION);
		err = -EPROTO;
	} else if (h.shm_id != p->opts.shm_id || strncmp(h.bdf, srv->bdf, sizeof(h.bdf))) {
		snprintf(msg, sizeof(msg), "this primary serves %s with shm id %x", srv->bdf,
			 p->opts.shm_id);
		err = -EINVAL;
	} else if (__atomic_load_n(&srv->ctrl.removed, __ATOMIC_RELAXED)) {
		snprintf(msg, sizeof(msg), "the device was removed (the OS took it back)");
		err = -ENODEV;
	}
	c = err ? NULL : calloc(1, sizeof(*c));
	info = err ? NULL : calloc(1, sizeof(*info));
	if (!err && (!c || !info)) {
		snprintf(msg, sizeof(msg), "the primary is out of memory");
		err = -ENOMEM;
	}
	if (!err) {
		c->srv = srv;
		c->fd = fd;
		c->pid = cr.pid;
		c->uid = cr.uid;
		c->id = ++p->next_id;
		err = mp_window_take(srv, c, 0, &info->win_start, &info->win_end, msg, sizeof(msg));
	}
	nshare = err                    ? 0
		 : srv->bus->ops->share ? srv->bus->ops->share(srv->bus, fds, VFIO_MP_MAXFDS)
					: -ENOTSUP;
	if (!err && nshare < 0) {
		snprintf(msg, sizeof(msg), "the device cannot be shared: %s", strerror(-nshare));
		err = nshare;
	}
	if (err) {
		mp_log(p, "%s: refused pid %d: %s", srv->bdf, (int)cr.pid, msg);
		vfio_mp_reply(fd, &hdr, err, msg, NULL, 0, NULL, 0);
		close(fd);
		if (c && c->nwins) { /* a window taken is not lost: it goes back */
			vfio_iova_put(&srv->space, c->wins[0].start,
				      c->wins[0].end - c->wins[0].start);
		}
		if (c) {
			free(c->wins);
		}
		free(c);
		free(info);
		return;
	}
	nfds = nshare;
	info->version = VFIO_MP_VERSION;
	info->epoch = __atomic_load_n(&srv->ctrl.epoch, __ATOMIC_ACQUIRE);
	info->cap = srv->ctrl.cap;
	info->ready_timeout_us = srv->ctrl.ready_timeout_us;
	info->admin_timeout_us = srv->ctrl.admin_timeout_us;
	info->bar_size = srv->bus->bar_size;
	info->dstrd = srv->ctrl.dstrd;
	info->mqes = srv->ctrl.mqes;
	info->page_shift = srv->ctrl.page_shift;
	info->max_xfer = srv->ctrl.max_xfer;
	info->prp_pages = srv->ctrl.prp_pages;
	info->nioq = srv->ctrl.nioq;
	info->max_qid = srv->ctrl.max_qid < srv->ctrl.nioq ? srv->ctrl.max_qid : srv->ctrl.nioq;
	info->sgls = srv->ctrl.sgls;
	info->acl = srv->ctrl.acl;
	info->failed = (uint8_t)__atomic_load_n(&srv->ctrl.failed, __ATOMIC_RELAXED);
	info->primary_pid = (int32_t)getpid();
	memcpy(info->idfy, srv->ctrl.idfy, sizeof(info->idfy));
	hdr.flags = VFIO_MP_F_REPLY;
	hdr.err = 0;
	hdr.len = sizeof(*info);
	if (vfio_mp_send(fd, &hdr, info, sizeof(*info), NULL, 0, fds, nfds)) {
		c->dead = true;
	}
	free(info);
	c->next = srv->clients;
	srv->clients = c;
	mp_log(p, "%s: secondary %u attached: pid %d, uid %u, IOVA window [0x%llx, 0x%llx)",
	       srv->bdf, c->id, (int)c->pid, (unsigned)c->uid, (unsigned long long)c->wins[0].start,
	       (unsigned long long)c->wins[0].end);
}

/* Unmaps the windows of `c` (as merged spans: a mapping may straddle two adjacent ones) and
 * takes them back; a kernel that does not let the primary unmap keeps them reserved */
static uint64_t
windows_reclaim(struct mp_client *c)
{
	struct mp_served *srv = c->srv;
	uint64_t back = 0;

	for (size_t i = 1; i < c->nwins; ++i) { /* few windows: insertion sort by start */
		struct vfio_bus_range w = c->wins[i];
		size_t j = i;

		for (; j && c->wins[j - 1].start > w.start; --j) {
			c->wins[j] = c->wins[j - 1];
		}
		c->wins[j] = w;
	}
	for (size_t i = 0; i < c->nwins;) {
		uint64_t start = c->wins[i].start, end = c->wins[i].end;

		for (++i; i < c->nwins && c->wins[i].start == end; ++i) {
			end = c->wins[i].end;
		}
		if (srv->bus->ops->dma_unmap(srv->bus, start, end - start) == 0 &&
		    srv->prim->foreign_unmap) {
			vfio_iova_put(&srv->space, start, end - start);
			back += end - start;
		}
	}
	c->nwins = 0;
	return back;
}

/* A secondary is gone (or is dropped): the device must reach none of its memory any more */
static void
client_reclaim(struct mp_client *c, const char *why)
{
	struct mp_served *srv = c->srv;
	uint64_t held = 0, back;
	char queues[128];

	for (size_t i = 0; i < c->nwins; ++i) {
		held += c->wins[i].end - c->wins[i].start;
	}
	mp_client_queues_drop(c, queues, sizeof(queues));
	back = windows_reclaim(c);
	mp_log(srv->prim,
	       "%s: secondary %u (pid %d) %s: queues [%s] deleted, %llu of %llu MiB of IOVA "
	       "windows reclaimed",
	       srv->bdf, c->id, (int)c->pid, why, queues, (unsigned long long)(back >> 20),
	       (unsigned long long)(held >> 20));
	close(c->fd);
	free(c->wins);
	free(c);
}

static void
note_all(struct mp_served *srv, uint16_t type, uint32_t epoch, int32_t err)
{
	struct vfio_mp_note note = {.epoch = epoch, .err = err};
	struct vfio_mp_hdr hdr = {.magic = VFIO_MP_MAGIC, .type = type, .len = sizeof(note)};

	for (struct mp_client *c = srv->clients; c; c = c->next) {
		if (!c->dead && vfio_mp_send(c->fd, &hdr, &note, sizeof(note), NULL, 0, NULL, 0)) {
			c->dead = true;
		}
	}
}

void
mp_publish(struct mp_served *srv)
{
	unsigned epoch = __atomic_load_n(&srv->ctrl.epoch, __ATOMIC_ACQUIRE);

	if (epoch != srv->pub_epoch) {
		srv->pub_epoch = epoch;
		mp_log(srv->prim,
		       "%s: controller reset (epoch %u): secondaries recreate their queues",
		       srv->bdf, epoch);
		note_all(srv, VFIO_MP_NOTE_EPOCH, epoch, 0);
	}
	if (__atomic_load_n(&srv->ctrl.removed, __ATOMIC_RELAXED) && !srv->pub_removed) {
		srv->pub_removed = srv->pub_failed = true;
		mp_log(srv->prim, "%s: the OS wants the device back: secondaries let go of it",
		       srv->bdf);
		note_all(srv, VFIO_MP_NOTE_REMOVED, epoch, -ENODEV);
	} else if (__atomic_load_n(&srv->ctrl.failed, __ATOMIC_RELAXED) && !srv->pub_failed) {
		srv->pub_failed = true;
		mp_log(srv->prim, "%s: the controller failed (fatal status or gone)", srv->bdf);
		note_all(srv, VFIO_MP_NOTE_FAILED, epoch, -EIO);
	}
}

/* Reaps the secondaries whose socket ended, then publishes what changed */
static void
srv_tick(struct mp_served *srv)
{
	struct mp_client **link = &srv->clients;

	while (*link) {
		struct mp_client *c = *link;

		if (c->dead) {
			*link = c->next;
			client_reclaim(c, "exited");
		} else {
			link = &c->next;
		}
	}
	if (now_us() >= srv->next_health_us) {
		srv->next_health_us = now_us() + HEALTH_US;
		vfio_ctrl_check_fatal(&srv->ctrl);
	}
	mp_publish(srv);
}

static void
client_input(struct mp_client *c)
{
	struct vfio_mp_hdr hdr;
	int fds[VFIO_MP_MAXFDS], nfds = 0;

	if (vfio_mp_recv_hdr(c->fd, &hdr, fds, &nfds)) {
		for (int i = 0; i < nfds; ++i) {
			close(fds[i]);
		}
		c->dead = true;
		return;
	}
	mp_request(c, &hdr, fds, nfds);
}

int
vfio_primary_run(struct vfio_primary *p, int stop_fd)
{
	for (;;) {
		struct pollfd *pfds;
		struct mp_client **who;
		size_t n = 1, at = 1;

		for (size_t i = 0; i < p->nsrv; ++i) {
			n++;
			for (struct mp_client *c = p->srv[i]->clients; c; c = c->next) {
				n++;
			}
		}
		pfds = calloc(n, sizeof(*pfds));
		who = calloc(n, sizeof(*who));
		if (!pfds || !who) {
			free(pfds);
			free(who);
			return -ENOMEM;
		}
		pfds[0] = (struct pollfd){.fd = stop_fd, .events = POLLIN};
		for (size_t i = 0; i < p->nsrv; ++i) {
			pfds[at++] = (struct pollfd){.fd = p->srv[i]->lfd, .events = POLLIN};
			for (struct mp_client *c = p->srv[i]->clients; c; c = c->next) {
				who[at] = c;
				pfds[at++] = (struct pollfd){.fd = c->fd, .events = POLLIN};
			}
		}
		if (poll(pfds, n, POLL_MS) < 0 && errno != EINTR) {
			int err = -errno;

			free(pfds);
			free(who);
			return err;
		}
		if (pfds[0].revents) {
			free(pfds);
			free(who);
			return 0;
		}
		at = 1;
		for (size_t i = 0; i < p->nsrv; ++i) {
			if (pfds[at++].revents & POLLIN) {
				accept_one(p->srv[i]);
			}
			for (; at < n && who[at] && who[at]->srv == p->srv[i]; ++at) {
				if (pfds[at].revents & POLLIN) {
					client_input(who[at]);
				} else if (pfds[at].revents) {
					who[at]->dead = true; /* hang-up, error */
				}
			}
		}
		free(pfds);
		free(who);
		for (size_t i = 0; i < p->nsrv; ++i) {
			srv_tick(p->srv[i]);
		}
	}
}

void
vfio_primary_destroy(struct vfio_primary *p)
{
	if (!p) {
		return;
	}
	for (size_t i = 0; i < p->nsrv; ++i) {
		struct mp_served *srv = p->srv[i];

		while (srv->clients) {
			struct mp_client *c = srv->clients;

			srv->clients = c->next;
			client_reclaim(c, "detached: the primary stops");
		}
		mp_log(p, "%s: shutting the controller down", srv->bdf);
		srv_free(srv);
	}
	free(p->srv);
	free(p->uids);
	free(p->gids);
	free(p);
}
