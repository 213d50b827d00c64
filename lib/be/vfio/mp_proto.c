// SPDX-License-Identifier: BSD-3-Clause
/*
 * Messages of multi-process mode over a stream socket (mp_proto.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mp_proto.h"

void
vfio_mp_sockaddr(uint32_t shm_id, const char *bdf, struct sockaddr_un *sa, socklen_t *len)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* abstract namespace (leading NUL): no file to leave behind when the primary dies */
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "xnvme-vfio-%x-%s", shm_id, bdf);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

int
vfio_mp_send(int fd, const struct vfio_mp_hdr *hdr, const void *body, size_t blen,
	     const void *payload, size_t plen, const int *fds, int nfds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * VFIO_MP_MAXFDS)];
	} ctl;
	struct iovec iov[3] = {
		{.iov_base = (void *)hdr, .iov_len = sizeof(*hdr)},
		{.iov_base = (void *)body, .iov_len = body ? blen : 0},
		{.iov_base = (void *)payload, .iov_len = payload ? plen : 0},
	};
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 3};
	int i = 0;

	if (nfds > VFIO_MP_MAXFDS) {
		return -EINVAL;
	}
	if (nfds > 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	for (;;) {
		ssize_t n;

		while (i < 3 && !iov[i].iov_len) {
			i++;
		}
		if (i == 3) {
			return 0;
		}
		msg.msg_iov = &iov[i];
		msg.msg_iovlen = (size_t)(3 - i);
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		}
		/* the descriptors went with the first bytes; the rest goes without */
		msg.msg_control = NULL;
		msg.msg_controllen = 0;
		for (; i < 3 && n > 0; ++i) {
			if ((size_t)n < iov[i].iov_len) {
				iov[i].iov_base = (char *)iov[i].iov_base + n;
				iov[i].iov_len -= (size_t)n;
				break;
			}
			n -= (ssize_t)iov[i].iov_len;
			iov[i].iov_len = 0;
		}
	}
}

int
vfio_mp_recv_all(int fd, void *buf, size_t len)
{
	char scratch[4096];
	size_t got = 0;

	while (got < len) {
		size_t want = len - got;
		ssize_t n;

		if (!buf && want > sizeof(scratch)) {
			want = sizeof(scratch);
		}
		n = read(fd, buf ? (char *)buf + got : scratch, want);
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		}
		if (!n) {
			return -ECONNRESET;
		}
		got += (size_t)n;
	}
	return 0;
}

int
vfio_mp_recv_hdr(int fd, struct vfio_mp_hdr *hdr, int *fds, int *nfds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * VFIO_MP_MAXFDS)];
	} ctl;
	struct iovec iov = {.iov_base = hdr, .iov_len = sizeof(*hdr)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	int got = 0;
	ssize_t n;

	if (nfds) {
		*nfds = 0;
	}
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	do {
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	}
	if (!n) {
		return -ECONNRESET;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		int cnt;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
			continue;
		}
		cnt = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (int i = 0; i < cnt; ++i) {
			int one;

			memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (fds && nfds && got < VFIO_MP_MAXFDS) {
				fds[got++] = one;
			} else {
				close(one);
			}
		}
	}
	if (nfds) {
		*nfds = got;
	}
	if ((size_t)n < sizeof(*hdr)) {
		int err = vfio_mp_recv_all(fd, (char *)hdr + n, sizeof(*hdr) - (size_t)n);

		if (err) {
			return err;
		}
	}
	return hdr->magic == VFIO_MP_MAGIC ? 0 : -EPROTO;
}

int
vfio_mp_reply(int fd, const struct vfio_mp_hdr *req, int err, const char *msg, const void *body,
	      size_t blen, const void *payload, size_t plen)
{
	struct vfio_mp_hdr hdr = {
		.magic = VFIO_MP_MAGIC,
		.type = req->type,
		.flags = VFIO_MP_F_REPLY,
		.seq = req->seq,
		.err = err,
	};

	if (err) {
		size_t mlen = msg ? strnlen(msg, VFIO_MP_ERRMSG_LEN - 1) : 0;

		hdr.len = (uint32_t)mlen;
		return vfio_mp_send(fd, &hdr, msg, mlen, NULL, 0, NULL, 0);
	}
	hdr.len = (uint32_t)((body ? blen : 0) + (payload ? plen : 0));
	return vfio_mp_send(fd, &hdr, body, blen, payload, plen, NULL, 0);
}
