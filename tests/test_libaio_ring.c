// SPDX-License-Identifier: BSD-3-Clause
/*
 * The libaio mechanism reaps from the completion ring the kernel maps into user space, not
 * with io_getevents: a seccomp filter makes io_getevents and io_pgetevents fail with ENOSYS,
 * then thousands of writes and reads at QD 16 on a file under $TMPDIR (default /tmp) must all
 * complete, exactly once, with their data intact. Run twice: with XNVME_QUEUE_POKE_SPIN (pokes
 * never wait, so no system call may be used to reap at all), and without it, where the
 * waiting poke's io_getevents is refused and poke must carry on from the ring.
 * Exit: 0 pass, 1 fail, 77 skip (no libaio mechanism, no seccomp, under valgrind).
 */
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "xnvme_test.h"

#define NCMD 2000
#define QD 16
#define LBA 512

struct run {
	uint32_t *calls; ///< callbacks per command
	uint32_t nbad;   ///< completions with an error status
};

static void
on_cpl(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct run *r = arg;

	r->calls[ctx->cmd.nvm.slba]++;
	r->nbad += xnvme_cmd_ctx_cpl_status(ctx) != 0;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* io_getevents and io_pgetevents fail with ENOSYS from now on, in every thread */
static int
deny_getevents(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_getevents, 2, 0),
#ifdef __NR_io_pgetevents
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_pgetevents, 1, 0),
#else
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_getevents, 1, 0),
#endif
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		return -errno;
	}
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog)) {
		return -errno;
	}
	return 0;
}

/* NCMD single-block commands of `opc` at QD, LBA i from buf + i * LBA; poked to the end */
static void
pass_all(struct xnvme_queue *q, struct run *r, uint8_t opc, uint8_t *buf)
{
	uint32_t next = 0, spins = 0;
	int n;

	memset(r->calls, 0, NCMD * sizeof(*r->calls));
	while (next < NCMD || xnvme_queue_get_outstanding(q)) {
		while (next < NCMD && xnvme_queue_get_outstanding(q) < QD) {
			struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(q);
			int err;

			ctx->async.cb_arg = r;
			err = opc == XNVME_SPEC_NVM_OPC_WRITE
				      ? xnvme_nvm_write(ctx, 1, next, 0, buf + (size_t)next * LBA,
							NULL)
				      : xnvme_nvm_read(ctx, 1, next, 0, buf + (size_t)next * LBA,
						       NULL);
			if (err) {
				CHECKF(0, "submit %u: %d", next, err);
				xnvme_queue_put_cmd_ctx(q, ctx);
				return;
			}
			next++;
		}
		n = xnvme_queue_poke(q, 0);

		CHECKF(n >= 0, "poke: %d", n);
		if (n < 0) {
			return;
		}
		/* a poke that reaps nothing for this long is not reading the ring */
		spins = n ? 0 : spins + 1;
		if (spins > 50000000) {
			CHECKF(0, "no completion after %u pokes", spins);
			return;
		}
	}
}

static void
run(const char *path, bool spin)
{
	struct xnvme_opts opts = xnvme_opts_default();
	uint8_t *wbuf = NULL, *rbuf = NULL;
	struct run r = {0};
	struct xnvme_queue *q = NULL;
	struct xnvme_dev *dev;
	uint32_t once = 0;
	int err;

	opts.async = "libaio";
	dev = xnvme_dev_open(path, &opts);
	CHECKF(dev != NULL, "open %s: %s", path, strerror(errno));
	if (!dev) {
		return;
	}
	wbuf = xnvme_buf_alloc(dev, (size_t)NCMD * LBA);
	rbuf = xnvme_buf_alloc(dev, (size_t)NCMD * LBA);
	r.calls = calloc(NCMD, sizeof(*r.calls));
	err = (wbuf && rbuf && r.calls)
		      ? xnvme_queue_init(dev, QD, spin ? XNVME_QUEUE_POKE_SPIN : 0, &q)
		      : -ENOMEM;
	CHECKF(!err, "setup: %d", err);
	if (!err) {
		xnvme_queue_set_cb(q, on_cpl, &r);
		for (size_t i = 0; i < (size_t)NCMD * LBA; ++i) {
			wbuf[i] = (uint8_t)(i * 7 + i / LBA + spin);
		}
		memset(rbuf, 0, (size_t)NCMD * LBA);
		pass_all(q, &r, XNVME_SPEC_NVM_OPC_WRITE, wbuf);
		pass_all(q, &r, XNVME_SPEC_NVM_OPC_READ, rbuf);
		for (uint32_t i = 0; i < NCMD; ++i) {
			once += r.calls[i] == 1;
		}
		CHECKF(once == NCMD, "%u of %d reads completed exactly once", once, NCMD);
		CHECKF(!r.nbad, "%u completions with an error status", r.nbad);
		CHECKF(!memcmp(wbuf, rbuf, (size_t)NCMD * LBA), "data read back differs (spin %d)",
		       spin);
	}
	xnvme_queue_term(q);
	free(r.calls);
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
	xnvme_dev_close(dev);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[512];
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;
	int fd, err;

	snprintf(path, sizeof(path), "%s/xnvme-libaio-ring-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, (off_t)NCMD * LBA * 2)) {
		fprintf(stderr, "test_libaio_ring: temp file: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	opts.async = "libaio";
	dev = xnvme_dev_open(path, &opts);
	if (!dev) {
		unlink(path);
		return xnvme_test_skip("the libaio mechanism is not available here");
	}
	xnvme_dev_close(dev);
	if (getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "vgpreload")) {
		unlink(path);
		return xnvme_test_skip("valgrind does not run seccomp filters");
	}
	err = deny_getevents();
	if (err) {
		unlink(path);
		return xnvme_test_skip("seccomp filters are not permitted here");
	}
	/* the filter works: io_getevents itself is refused */
	CHECK_EQ(syscall(__NR_io_getevents, 0, 0, 0, NULL, NULL), -1);
	CHECK_EQ(errno, ENOSYS);

	run(path, true);
	run(path, false);
	unlink(path);
	return xnvme_test_result("test_libaio_ring");
}
