// SPDX-License-Identifier: BSD-3-Clause
/*
 * File devices through the public API: open flags, the file API round trip, short reads at end
 * of file, sync, NVM opcodes in 512-byte units, vectored transfers, and open failures
 * (ENOENT, EINVAL for a directory, EACCES, an unknown mechanism name).
 * Exit: 0 pass, 1 fail, 77 skip.
 */
#include <errno.h>
#include <fcntl.h>
#include <libxnvme.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "xnvme_test.h"

static char dir[256];

static void
path_of(char *path, size_t len, const char *name)
{
	snprintf(path, len, "%s/%s", dir, name);
}

static void
pattern(uint8_t *buf, size_t nbytes, unsigned int seed)
{
	for (size_t i = 0; i < nbytes; ++i) {
		buf[i] = (uint8_t)((i * 31 + seed * 7 + (i >> 8)) & 0xFF);
	}
}

static struct xnvme_dev *
open_file(const char *path, int create, int truncate, int rdonly, int direct)
{
	struct xnvme_opts opts = xnvme_opts_default();

	opts.create = create;
	opts.truncate = truncate;
	opts.direct = direct;
	opts.rdonly = rdonly; /* on top of the default rdwr: rdonly wins */
	return xnvme_file_open(path, &opts);
}

static off_t
size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

static void
test_flags_and_ident(void)
{
	char path[300];
	struct xnvme_dev *dev;
	const struct xnvme_opts *o;
	const struct xnvme_ident *id;
	const struct xnvme_geo *geo;
	struct xnvme_cmd_ctx ctx;
	char data[10] = "0123456789";

	path_of(path, sizeof(path), "flags");

	dev = open_file(path, 0, 0, 0, 0);
	CHECKF(!dev && errno == ENOENT, "missing file without create: dev=%p errno=%d", (void *)dev,
	       errno);
	xnvme_dev_close(dev);

	dev = open_file(path, 1, 0, 0, 0);
	CHECKF(dev, "create: errno=%d", errno);
	if (!dev) {
		return;
	}
	o = xnvme_dev_get_opts(dev);
	CHECKF(o->be && !strcmp(o->be, "linux"), "be=%s", o->be);
	CHECKF(o->admin && !strcmp(o->admin, "file_as_ns"), "admin=%s", o->admin);
	CHECKF(o->sync && !strcmp(o->sync, "psync"), "sync=%s", o->sync);
	CHECKF(o->async && !strcmp(o->async, "emu"), "async=%s", o->async);
	CHECKF(o->mem && !strcmp(o->mem, "posix"), "mem=%s", o->mem);

	ctx = xnvme_file_get_cmd_ctx(dev);
	CHECKF(!xnvme_file_pwrite(&ctx, data, sizeof(data), 0), "pwrite");
	CHECKF(ctx.cpl.result == sizeof(data), "result=%" PRIu64, (uint64_t)ctx.cpl.result);

	/* the first command identified the empty file; sizes are re-read on derivation */
	CHECKF(!xnvme_dev_derive_geo(dev), "derive_geo");
	id = xnvme_dev_get_ident(dev);
	CHECKF(id->dtype == 4 && id->nsid == 1 && id->csi == XNVME_SPEC_CSI_FS,
	       "dtype=%u nsid=%u csi=%u", id->dtype, id->nsid, id->csi);
	CHECKF(xnvme_dev_get_nsid(dev) == 1, "nsid");
	geo = xnvme_dev_get_geo(dev);
	CHECKF(geo->tbytes == sizeof(data) && geo->ssw == 9 && geo->lba_nbytes == 512 &&
		       geo->mdts_nbytes == 1 << 20,
	       "tbytes=%" PRIu64 " ssw=%" PRIu64 " lba_nbytes=%u mdts=%u", geo->tbytes, geo->ssw,
	       geo->lba_nbytes, geo->mdts_nbytes);
	CHECKF(xnvme_dev_get_ctrlr(dev)->mdts == 8, "mdts=%u", xnvme_dev_get_ctrlr(dev)->mdts);
	CHECKF(xnvme_dev_get_ns(dev)->nsze == sizeof(data), "nsze=%" PRIu64,
	       (uint64_t)xnvme_dev_get_ns(dev)->nsze);

	/* a growing file is seen after re-identification */
	CHECKF(!xnvme_file_pwrite(&ctx, data, sizeof(data), 1000), "pwrite");
	CHECKF(!xnvme_dev_derive_geo(dev), "derive_geo");
	CHECKF(xnvme_dev_get_geo(dev)->tbytes == 1010, "tbytes=%" PRIu64,
	       xnvme_dev_get_geo(dev)->tbytes);
	CHECKF(xnvme_file_close(dev) == 0, "close");

	/* without truncate the content stays; with it the file is emptied */
	dev = open_file(path, 0, 0, 0, 0);
	CHECKF(dev && size_of(path) == 1010, "reopen: size=%lld", (long long)size_of(path));
	xnvme_file_close(dev);
	dev = open_file(path, 0, 1, 0, 0);
	CHECKF(dev && size_of(path) == 0, "truncate: size=%lld", (long long)size_of(path));
	xnvme_file_close(dev);

	/* create_mode applies to new files */
	{
		struct xnvme_opts opts = xnvme_opts_default();
		struct stat st;

		path_of(path, sizeof(path), "mode");
		opts.create = 1;
		opts.create_mode = 0640;
		dev = xnvme_file_open(path, &opts);
		CHECKF(dev && !stat(path, &st) && (st.st_mode & 0777) == 0640, "create_mode");
		xnvme_file_close(dev);
	}
}

static void
test_roundtrip(void)
{
	static const size_t sizes[] = {1, 7, 511, 513, 4095, 4097, 65537};
	static const off_t offs[] = {0, 1, 3, 511, 4097, 100003};
	char path[300];
	struct xnvme_dev *dev;
	uint8_t *wbuf, *rbuf;
	unsigned int seed = 0;

	path_of(path, sizeof(path), "roundtrip");
	dev = open_file(path, 1, 1, 0, 0);
	CHECKF(dev, "open: errno=%d", errno);
	if (!dev) {
		return;
	}
	wbuf = xnvme_buf_alloc(dev, 65537);
	rbuf = xnvme_buf_alloc(dev, 65537);
	CHECKF(wbuf && rbuf, "buf_alloc");
	if (!wbuf || !rbuf) {
		goto out;
	}

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
		for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); ++o) {
			struct xnvme_cmd_ctx ctx = xnvme_file_get_cmd_ctx(dev);
			int err;

			pattern(wbuf, sizes[s], ++seed);
			memset(rbuf, 0xEE, sizes[s]);
			err = xnvme_file_pwrite(&ctx, wbuf, sizes[s], offs[o]);
			CHECKF(!err && ctx.cpl.result == sizes[s] &&
				       !xnvme_cmd_ctx_cpl_status(&ctx),
			       "pwrite %zu@%lld: err=%d result=%" PRIu64, sizes[s],
			       (long long)offs[o], err, (uint64_t)ctx.cpl.result);
			ctx = xnvme_file_get_cmd_ctx(dev);
			err = xnvme_file_pread(&ctx, rbuf, sizes[s], offs[o]);
			CHECKF(!err && ctx.cpl.result == sizes[s],
			       "pread %zu@%lld: err=%d result=%" PRIu64, sizes[s],
			       (long long)offs[o], err, (uint64_t)ctx.cpl.result);
			CHECKF(!memcmp(wbuf, rbuf, sizes[s]), "data %zu@%lld", sizes[s],
			       (long long)offs[o]);
		}
	}

	/* short read at end of file, and reads at and past it */
	{
		off_t size = size_of(path);
		struct xnvme_cmd_ctx ctx = xnvme_file_get_cmd_ctx(dev);
		int err;

		err = xnvme_file_pread(&ctx, rbuf, 100, size - 5);
		CHECKF(!err && ctx.cpl.result == 5 && !xnvme_cmd_ctx_cpl_status(&ctx),
		       "short read: err=%d result=%" PRIu64, err, (uint64_t)ctx.cpl.result);
		ctx = xnvme_file_get_cmd_ctx(dev);
		err = xnvme_file_pread(&ctx, rbuf, 100, size);
		CHECKF(!err && ctx.cpl.result == 0, "read at EOF: err=%d result=%" PRIu64, err,
		       (uint64_t)ctx.cpl.result);
		ctx = xnvme_file_get_cmd_ctx(dev);
		ctx.cpl.result = 77; /* must be overwritten */
		err = xnvme_file_pread(&ctx, rbuf, 100, size + 4096);
		CHECKF(!err && ctx.cpl.result == 0, "read past EOF: err=%d result=%" PRIu64, err,
		       (uint64_t)ctx.cpl.result);
		ctx = xnvme_file_get_cmd_ctx(dev);
		err = xnvme_file_pread(&ctx, rbuf, 100, -1);
		CHECKF(err == -EINVAL, "negative offset: err=%d", err);
	}

	CHECKF(xnvme_file_sync(dev) == 0, "sync");
	CHECKF(xnvme_file_sync(NULL) == -EINVAL, "sync(NULL)");

out:
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
	xnvme_file_close(dev);
}

static int
pass_nvm(struct xnvme_dev *dev, uint8_t opc, uint64_t slba, uint16_t nlb, void *buf, size_t nbytes,
	 struct xnvme_cmd_ctx *ctx)
{
	*ctx = xnvme_cmd_ctx_from_dev(dev);
	ctx->cmd.common.opcode = opc;
	ctx->cmd.common.nsid = xnvme_dev_get_nsid(dev);
	ctx->cmd.nvm.slba = slba;
	ctx->cmd.nvm.nlb = nlb;
	return xnvme_cmd_pass(ctx, buf, nbytes, NULL, 0);
}

/* A context of the file API for the file opcode `opc` at byte offset `off` */
static struct xnvme_cmd_ctx
fs_ctx(struct xnvme_dev *dev, uint8_t opc, uint64_t off)
{
	struct xnvme_cmd_ctx ctx = xnvme_file_get_cmd_ctx(dev);

	ctx.cmd.common.opcode = opc;
	ctx.cmd.common.nsid = xnvme_dev_get_nsid(dev);
	ctx.cmd.nvm.slba = off;
	return ctx;
}

static void
test_nvm_and_vectored(void)
{
	char path[300];
	struct xnvme_dev *dev;
	struct xnvme_cmd_ctx ctx;
	uint8_t *wbuf, *rbuf;
	struct iovec wvec[3], rvec[2];
	int err;

	path_of(path, sizeof(path), "nvm");
	dev = open_file(path, 1, 1, 0, 0);
	CHECKF(dev, "open: errno=%d", errno);
	if (!dev) {
		return;
	}
	wbuf = xnvme_buf_alloc(dev, 8192);
	rbuf = xnvme_buf_alloc(dev, 8192);
	if (!wbuf || !rbuf) {
		CHECKF(0, "buf_alloc");
		goto out;
	}

	/* NVM opcodes address 512-byte LBAs of the file's size: an empty file has none, and an
	 * NVM write never grows the file */
	CHECKF(xnvme_dev_get_ssw(dev) == 9, "ssw=%" PRIu64, xnvme_dev_get_ssw(dev));
	pattern(wbuf, 1024, 1);
	err = pass_nvm(dev, XNVME_SPEC_NVM_OPC_WRITE, 3, 1, wbuf, 1024, &ctx);
	CHECKF(err == -EIO && ctx.cpl.status.sct == 0 && ctx.cpl.status.sc == 0x80,
	       "nvm write past end: err=%d sc=%u", err, ctx.cpl.status.sc);
	CHECKF(size_of(path) == 0, "size=%lld", (long long)size_of(path));

	/* grown through the file API, seen by the NVM opcodes once the geometry is derived */
	memset(rbuf, 0, 5 * 512);
	ctx = xnvme_file_get_cmd_ctx(dev);
	CHECKF(!xnvme_file_pwrite(&ctx, rbuf, 5 * 512, 0), "file write");
	CHECKF(!xnvme_dev_derive_geo(dev) && xnvme_dev_get_geo(dev)->tbytes == 5 * 512,
	       "derive: tbytes=%" PRIu64, xnvme_dev_get_geo(dev)->tbytes);
	err = pass_nvm(dev, XNVME_SPEC_NVM_OPC_WRITE, 3, 1, wbuf, 1024, &ctx);
	CHECKF(!err && ctx.cpl.result == 1024, "nvm write: err=%d result=%" PRIu64, err,
	       (uint64_t)ctx.cpl.result);
	CHECKF(size_of(path) == 5 * 512, "size=%lld", (long long)size_of(path));
	ctx = xnvme_file_get_cmd_ctx(dev);
	err = xnvme_file_pread(&ctx, rbuf, 1024, 3 * 512);
	CHECKF(!err && !memcmp(wbuf, rbuf, 1024), "file read of nvm write: err=%d", err);
	memset(rbuf, 0, 1024);
	err = pass_nvm(dev, XNVME_SPEC_NVM_OPC_READ, 3, 1, rbuf, 1024, &ctx);
	CHECKF(!err && ctx.cpl.result == 1024 && !memcmp(wbuf, rbuf, 1024), "nvm read: err=%d",
	       err);

	/* NVM read via iovecs */
	memset(rbuf, 0, 1024);
	rvec[0] = (struct iovec){.iov_base = rbuf, .iov_len = 512};
	rvec[1] = (struct iovec){.iov_base = rbuf + 512, .iov_len = 512};
	ctx = xnvme_cmd_ctx_from_dev(dev);
	ctx.cmd.common.opcode = XNVME_SPEC_NVM_OPC_READ;
	ctx.cmd.common.nsid = xnvme_dev_get_nsid(dev);
	ctx.cmd.nvm.slba = 3;
	ctx.cmd.nvm.nlb = 1;
	err = xnvme_cmd_pass_iov(&ctx, rvec, 2, 1024, NULL, 0);
	CHECKF(!err && !memcmp(wbuf, rbuf, 1024), "nvm pass_iov read: err=%d", err);

	/* a buffer smaller than the LBA range: Invalid Field, no I/O */
	err = pass_nvm(dev, XNVME_SPEC_NVM_OPC_WRITE, 100, 1, wbuf, 1000, &ctx);
	CHECKF(err == -EIO && ctx.cpl.status.sct == 0 && ctx.cpl.status.sc == 2,
	       "small buffer: err=%d sct=%u sc=%u", err, ctx.cpl.status.sct, ctx.cpl.status.sc);
	CHECKF(size_of(path) == 5 * 512, "no I/O on invalid field: size=%lld",
	       (long long)size_of(path));

	/* unsupported opcode: Invalid Command Opcode */
	err = pass_nvm(dev, XNVME_SPEC_NVM_OPC_WRITE_ZEROES, 0, 0, NULL, 0, &ctx);
	CHECKF(err == -EIO && ctx.cpl.status.sct == 0 && ctx.cpl.status.sc == 1,
	       "bad opcode: err=%d sct=%u sc=%u", err, ctx.cpl.status.sct, ctx.cpl.status.sc);

	/* NVM flush */
	err = pass_nvm(dev, XNVME_SPEC_NVM_OPC_FLUSH, 0, 0, NULL, 0, &ctx);
	CHECKF(!err && !xnvme_cmd_ctx_cpl_status(&ctx), "nvm flush: err=%d", err);

	/* vectored file write over three segments, read back over two */
	pattern(wbuf, 3000, 9);
	wvec[0] = (struct iovec){.iov_base = wbuf, .iov_len = 100};
	wvec[1] = (struct iovec){.iov_base = wbuf + 100, .iov_len = 1900};
	wvec[2] = (struct iovec){.iov_base = wbuf + 2000, .iov_len = 1000};
	ctx = fs_ctx(dev, XNVME_SPEC_FS_OPC_WRITE, 777);
	err = xnvme_cmd_passv(&ctx, wvec, 3, 3000, NULL, 0, 0);
	CHECKF(!err && ctx.cpl.result == 3000, "passv write: err=%d result=%" PRIu64, err,
	       (uint64_t)ctx.cpl.result);
	memset(rbuf, 0, 3000);
	rvec[0] = (struct iovec){.iov_base = rbuf, .iov_len = 1234};
	rvec[1] = (struct iovec){.iov_base = rbuf + 1234, .iov_len = 1766};
	ctx = fs_ctx(dev, XNVME_SPEC_FS_OPC_READ, 777);
	err = xnvme_cmd_pass_iov(&ctx, rvec, 2, 3000, NULL, 0);
	CHECKF(!err && ctx.cpl.result == 3000 && !memcmp(wbuf, rbuf, 3000),
	       "pass_iov read: err=%d result=%" PRIu64, err, (uint64_t)ctx.cpl.result);

	/* vectored short read at end of file (file ends at 3777) */
	rvec[0] = (struct iovec){.iov_base = rbuf, .iov_len = 2000};
	rvec[1] = (struct iovec){.iov_base = rbuf + 2000, .iov_len = 2000};
	ctx = fs_ctx(dev, XNVME_SPEC_FS_OPC_READ, 777);
	err = xnvme_cmd_pass_iov(&ctx, rvec, 2, 4000, NULL, 0);
	CHECKF(!err && ctx.cpl.result == 3000 && !memcmp(wbuf, rbuf, 3000),
	       "vectored short read: err=%d result=%" PRIu64, err, (uint64_t)ctx.cpl.result);

out:
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
	xnvme_file_close(dev);
}

static void
test_rdonly(void)
{
	char path[300];
	struct xnvme_dev *dev;
	struct xnvme_cmd_ctx ctx;
	char buf[16] = "read-only";
	int err;

	path_of(path, sizeof(path), "rdonly");
	dev = open_file(path, 1, 0, 0, 0);
	xnvme_file_close(dev);

	dev = open_file(path, 0, 0, 1, 0);
	CHECKF(dev, "rdonly open: errno=%d", errno);
	if (!dev) {
		return;
	}
	ctx = xnvme_file_get_cmd_ctx(dev);
	err = xnvme_file_pwrite(&ctx, buf, sizeof(buf), 0);
	CHECKF(err == -EBADF && ctx.cpl.status.sct == 7 && ctx.cpl.status.sc == EBADF &&
		       ctx.cpl.result == 0,
	       "write on rdonly: err=%d sct=%u sc=%u", err, ctx.cpl.status.sct, ctx.cpl.status.sc);

	/* a stale error status must not survive into the next successful command */
	err = xnvme_file_pread(&ctx, buf, sizeof(buf), 0);
	CHECKF(!err && !xnvme_cmd_ctx_cpl_status(&ctx), "read after error: err=%d", err);
	xnvme_file_close(dev);

	/* write-only: reading fails the same way */
	{
		struct xnvme_opts opts = xnvme_opts_default();

		opts.wronly = 1;
		dev = xnvme_file_open(path, &opts);
		CHECKF(dev, "wronly open: errno=%d", errno);
		if (!dev) {
			return;
		}
		ctx = xnvme_file_get_cmd_ctx(dev);
		err = xnvme_file_pread(&ctx, buf, sizeof(buf), 0);
		CHECKF(err == -EBADF && ctx.cpl.status.sct == 7 && ctx.cpl.status.sc == EBADF,
		       "read on wronly: err=%d sct=%u sc=%u", err, ctx.cpl.status.sct,
		       ctx.cpl.status.sc);
		ctx = xnvme_file_get_cmd_ctx(dev);
		err = xnvme_file_pwrite(&ctx, buf, sizeof(buf), 0);
		CHECKF(!err && ctx.cpl.result == sizeof(buf), "write on wronly: err=%d", err);
		xnvme_file_close(dev);
	}
}

static void
test_direct(void)
{
	char path[300];
	struct xnvme_dev *dev;
	struct xnvme_cmd_ctx ctx;
	uint8_t *wbuf, *rbuf;
	int err;

	path_of(path, sizeof(path), "direct");
	dev = open_file(path, 1, 1, 0, 1);
	if (!dev) {
		CHECKF(errno == EINVAL, "direct open: errno=%d", errno);
		fprintf(stderr, "# O_DIRECT not supported in %s: direct I/O part skipped\n", dir);
		return;
	}
	CHECKF(xnvme_dev_get_opts(dev)->direct == 1, "reported direct");
	wbuf = xnvme_buf_alloc(dev, 8192);
	rbuf = xnvme_buf_alloc(dev, 8192);
	if (!wbuf || !rbuf) {
		CHECKF(0, "buf_alloc");
		goto out;
	}
	pattern(wbuf, 8192, 5);
	ctx = xnvme_file_get_cmd_ctx(dev);
	err = xnvme_file_pwrite(&ctx, wbuf, 8192, 4096);
	CHECKF(!err && ctx.cpl.result == 8192, "direct write: err=%d", err);
	ctx = xnvme_file_get_cmd_ctx(dev);
	err = xnvme_file_pread(&ctx, rbuf, 8192, 4096);
	CHECKF(!err && ctx.cpl.result == 8192 && !memcmp(wbuf, rbuf, 8192), "direct read: err=%d",
	       err);
	/* a direct read crossing end of file is short, not an error */
	ctx = xnvme_file_get_cmd_ctx(dev);
	err = xnvme_file_pread(&ctx, rbuf, 8192, 8192);
	CHECKF(!err && ctx.cpl.result == 4096, "direct short read: err=%d result=%" PRIu64, err,
	       (uint64_t)ctx.cpl.result);
out:
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
	xnvme_file_close(dev);
}

/* Runs an open with stderr captured; returns the handle; stderr and xnvme_last_error() land in
 * `msg` */
static struct xnvme_dev *
open_capture(const char *uri, struct xnvme_opts *opts, char *msg, size_t len, int *err)
{
	char tmp[300];
	struct xnvme_dev *dev;
	int fd, saved;
	ssize_t n;

	path_of(tmp, sizeof(tmp), "stderr.txt");
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0600);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	dev = xnvme_dev_open(uri, opts);
	*err = errno;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, msg, len - 1, 0);
	msg[n > 0 ? n : 0] = '\0';
	close(fd);
	/* the reason comes from xnvme_last_error(); stderr stays for anything else printed */
	n = n > 0 ? n : 0;
	snprintf(msg + n, len - (size_t)n, "%s", xnvme_last_error());
	return dev;
}

static void
test_open_errors(void)
{
	char path[300], msg[1024];
	struct xnvme_opts opts;
	struct xnvme_dev *dev;
	int err;

	/* a directory */
	dev = open_file(dir, 0, 0, 0, 0);
	CHECKF(!dev && errno == EINVAL, "directory rdwr: errno=%d", errno);
	dev = open_file(dir, 0, 0, 1, 0);
	CHECKF(!dev && errno == EINVAL, "directory rdonly: errno=%d", errno);

	/* a FIFO is refused, not waited on */
	path_of(path, sizeof(path), "fifo");
	if (!mkfifo(path, 0600)) {
		dev = open_file(path, 0, 0, 1, 0);
		CHECKF(!dev && errno == EINVAL, "fifo: errno=%d", errno);
	}

	/* permission denied; root bypasses file modes */
	path_of(path, sizeof(path), "noperm");
	close(open(path, O_CREAT | O_WRONLY, 0000));
	chmod(path, 0);
	if (geteuid() != 0) {
		dev = open_file(path, 0, 0, 0, 0);
		CHECKF(!dev && errno == EACCES, "no permission: errno=%d", errno);
	} else {
		fprintf(stderr, "# running as root: EACCES part skipped\n");
	}

	/* an explicitly requested mechanism that does not exist */
	path_of(path, sizeof(path), "mech");
	opts = xnvme_opts_default();
	opts.create = 1;
	opts.async = "no-such-async";
	dev = open_capture(path, &opts, msg, sizeof(msg), &err);
	CHECKF(!dev && err > 0, "unknown async: err=%d", err);
	CHECKF(strstr(msg, "no-such-async"), "message names the mechanism: '%s'", msg);
	xnvme_dev_close(dev);

	opts = xnvme_opts_default();
	opts.create = 1;
	opts.sync = "no-such-sync";
	dev = open_capture(path, &opts, msg, sizeof(msg), &err);
	CHECKF(!dev && err > 0 && strstr(msg, "no-such-sync"), "unknown sync: err=%d '%s'", err,
	       msg);
	xnvme_dev_close(dev);

	/* named mechanisms that exist are kept and reported */
	opts = xnvme_opts_default();
	opts.create = 1;
	opts.async = "thrpool";
	opts.admin = "file_as_ns";
	dev = xnvme_dev_open(path, &opts);
	CHECKF(dev && !strcmp(xnvme_dev_get_opts(dev)->async, "thrpool") &&
		       !strcmp(xnvme_dev_get_opts(dev)->admin, "file_as_ns"),
	       "named mechanisms kept");
	xnvme_dev_close(dev);

	/* "1GB" is not a file: linux gives way to the ramdisk */
	dev = xnvme_dev_open("1GB", NULL);
	CHECKF(dev && !strcmp(xnvme_dev_get_opts(dev)->be, "ramdisk"), "1GB: errno=%d", errno);
	xnvme_dev_close(dev);
}

static void
cleanup(void)
{
	static const char *names[] = {"flags",  "mode", "roundtrip", "nvm",  "rdonly",
				      "direct", "fifo", "noperm",    "mech", "stderr.txt"};
	char path[300];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
		path_of(path, sizeof(path), names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/xnvme-test-file-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1; /* the test's own setup: a failure, never a skip (xnvme_test.h) */
	}

	test_flags_and_ident();
	test_roundtrip();
	test_nvm_and_vectored();
	test_rdonly();
	test_direct();
	test_open_errors();

	cleanup();
	return xnvme_test_result("test_file_io");
}
