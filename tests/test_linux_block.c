// SPDX-License-Identifier: BSD-3-Clause
/*
 * Linux backend on a real block device: a loop device with direct I/O over a 64 MiB backing
 * file. Checks the open (dtype 3, admin/sync "block", async "emu"), the synthesised identify
 * data, read/write/verify through the block sync mechanism (plain, vectored, O_DIRECT), Write
 * Zeroes, DSM deallocate, LBA Out of Range beyond the end, statuses for what a block device
 * cannot do, Invalid Namespace or Format for another nsid through every sync and async
 * mechanism (the bytes stay), that psync and the file shim stay selectable, and that the nvme
 * mechanisms are refused with a reason on non-NVMe nodes (and block mechanisms on files).
 *
 * Needs losetup and the right to use it: exit 77 only when that is missing. The loop device is
 * marked autoclear and held open, so it detaches when this program exits, however it exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <libxnvme.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>
#include "xnvme_test.h"

#define BACKING_NBYTES (64ULL << 20)
#define LBA 512
#define NLBS (BACKING_NBYTES / LBA)

static char tmpdir[PATH_MAX];
static char backing[PATH_MAX + 16];
static char loopdev[64];
static int holder = -1;
static bool autoclear;

static void
cleanup(void)
{
	char cmd[128];

	if (holder >= 0) {
		close(holder); /* with autoclear, the last close detaches the loop device */
		holder = -1;
	}
	if (loopdev[0] && !autoclear) {
		snprintf(cmd, sizeof(cmd), "losetup -d %s 2>/dev/null", loopdev);
		if (system(cmd)) {
			fprintf(stderr, "# could not detach %s\n", loopdev);
		}
	}
	if (backing[0]) {
		unlink(backing);
	}
	if (tmpdir[0]) {
		rmdir(tmpdir);
	}
}

/* 0: set up; XNVME_TEST_SKIP: losetup missing or not permitted; 1: failure */
static int
loop_setup(void)
{
	struct loop_info64 info;
	char cmd[PATH_MAX + 64], out[512] = "";
	size_t len = 0;
	FILE *pipe;
	int fd, status;

	snprintf(tmpdir, sizeof(tmpdir), "%s/xnvme-loop-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		tmpdir[0] = '\0';
		perror("mkdtemp");
		return 1;
	}
	snprintf(backing, sizeof(backing), "%s/backing.img", tmpdir);
	fd = open(backing, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)BACKING_NBYTES)) {
		perror("backing file");
		if (fd >= 0) {
			close(fd);
		}
		return 1;
	}
	close(fd);

	snprintf(cmd, sizeof(cmd), "losetup --direct-io=on -f --show '%s' 2>&1", backing);
	pipe = popen(cmd, "r");
	if (!pipe) {
		perror("popen");
		return 1;
	}
	while (len < sizeof(out) - 1 && fgets(out + len, (int)(sizeof(out) - len), pipe)) {
		len = strlen(out);
	}
	status = pclose(pipe);
	if (status) {
		fprintf(stderr, "# losetup: status %d: %s\n", status, out);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
			return XNVME_TEST_SKIP; /* no losetup */
		}
		if (strstr(out, "ermission denied") || strstr(out, "not permitted") ||
		    access("/dev/loop-control", R_OK | W_OK)) {
			return XNVME_TEST_SKIP;
		}
		return 1;
	}
	out[strcspn(out, "\r\n")] = '\0';
	if (strncmp(out, "/dev/loop", 9) || strlen(out) >= sizeof(loopdev)) {
		fprintf(stderr, "# losetup printed '%s'\n", out);
		return 1;
	}
	strcpy(loopdev, out);

	holder = open(loopdev, O_RDONLY | O_CLOEXEC);
	if (holder < 0) {
		perror(loopdev);
		return 1;
	}
	if (!ioctl(holder, LOOP_GET_STATUS64, &info)) {
		info.lo_flags |= LO_FLAGS_AUTOCLEAR;
		autoclear = !ioctl(holder, LOOP_SET_STATUS64, &info);
	}
	return 0;
}

static void
pattern(uint8_t *buf, size_t nbytes, unsigned int seed)
{
	for (size_t i = 0; i < nbytes; ++i) {
		buf[i] = (uint8_t)((i * 13 + seed * 101 + (i >> 9)) & 0xFF);
	}
}

/* write `nlb` LBAs of pattern `seed` at `slba`, read them back, compare */
static void
write_read_verify(struct xnvme_dev *dev, uint64_t slba, uint32_t nlb, unsigned int seed)
{
	size_t nbytes = (size_t)nlb * LBA;
	struct xnvme_cmd_ctx ctx;
	uint8_t *wbuf = xnvme_buf_alloc(dev, nbytes), *rbuf = xnvme_buf_alloc(dev, nbytes);
	int err;

	CHECK(wbuf && rbuf);
	if (!wbuf || !rbuf) {
		goto out;
	}
	pattern(wbuf, nbytes, seed);
	memset(rbuf, 0xAA, nbytes);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write(&ctx, xnvme_dev_get_nsid(dev), slba, (uint16_t)(nlb - 1), wbuf, NULL);
	CHECK_EQ(err, 0);
	CHECK_EQ(xnvme_cmd_ctx_cpl_status(&ctx), 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, xnvme_dev_get_nsid(dev), slba, (uint16_t)(nlb - 1), rbuf, NULL);
	CHECK_EQ(err, 0);
	CHECK(!memcmp(wbuf, rbuf, nbytes));
out:
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
}

static void
test_open_and_identify(void)
{
	const struct xnvme_spec_idfy_ctrlr *ctrlr;
	const struct xnvme_spec_idfy_ns *ns;
	const struct xnvme_ident *ident;
	const struct xnvme_opts *opts;
	const struct xnvme_geo *geo;
	struct xnvme_dev *dev;

	dev = xnvme_test_open_with(loopdev, NULL, NULL, NULL, 0);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	opts = xnvme_dev_get_opts(dev);
	CHECK(!strcmp(opts->be, "linux"));
	CHECK(!strcmp(opts->admin, "block"));
	CHECK(!strcmp(opts->sync, "block"));
	CHECK(!strcmp(opts->async, "emu"));

	ident = xnvme_dev_get_ident(dev);
	CHECK_EQ(ident->dtype, 3);
	CHECK_EQ(ident->nsid, 1);
	CHECK_EQ(xnvme_dev_get_nsid(dev), 1);
	CHECK_EQ(xnvme_dev_get_csi(dev), XNVME_SPEC_CSI_NVM); /* probed after the 0x1F at open */

	ns = xnvme_dev_get_ns(dev);
	CHECK_EQ(ns->nsze, NLBS);
	CHECK_EQ(ns->ncap, NLBS);
	CHECK_EQ(ns->nlbaf, 0);
	CHECK_EQ(ns->lbaf[0].ds, 9);

	ctrlr = xnvme_dev_get_ctrlr(dev);
	CHECK(ctrlr->mdts >= 1);
	CHECK_EQ(ctrlr->nn, 1);
	CHECK_EQ(ctrlr->oncs.write_zeroes, 1);
	CHECK_EQ(ctrlr->oncs.dsm, 1); /* loop devices discard by punching holes */
	CHECK(!memcmp(ctrlr->sn, "loop", 4));
	CHECK(!strncmp(ident->subnqn, "nqn.2014-08.io.xnvme:block:loop", 31));

	geo = xnvme_dev_get_geo(dev);
	CHECK_EQ(geo->type, XNVME_GEO_CONVENTIONAL);
	CHECK_EQ(geo->nbytes, LBA);
	CHECK_EQ(geo->lba_nbytes, LBA);
	CHECK_EQ(geo->nsect, NLBS);
	CHECK_EQ(geo->tbytes, BACKING_NBYTES);
	CHECK_EQ(geo->ssw, 9);
	CHECK_EQ(geo->mdts_nbytes, 4096ULL << ctrlr->mdts);

	CHECK_EQ(xnvme_controller_reset(dev), -ENOSYS);
	CHECK_EQ(xnvme_namespace_rescan(dev), -ENOSYS);
	xnvme_dev_close(dev);
}

static void
test_admin(void)
{
	struct xnvme_cmd_ctx ctx;
	struct xnvme_spec_idfy *idfy;
	struct xnvme_dev *dev;
	uint8_t log[512];
	int err;

	dev = xnvme_test_open_with(loopdev, NULL, NULL, NULL, 0);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	idfy = xnvme_buf_alloc(dev, sizeof(*idfy));

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 0, XNVME_SPEC_FEAT_NQUEUES, 0, NULL, 0);
	CHECK_EQ(err, 0);
	CHECK_EQ(ctx.cpl.cdw0, 63 | (63 << 16));

	/* NVM command-set data exist, zoned ones not on a conventional device */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_adm_idfy_ns_csi(&ctx, 1, XNVME_SPEC_CSI_NVM, idfy), 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy_ns_csi(&ctx, 1, XNVME_SPEC_CSI_ZONED, idfy);
	CHECK_STATUS_EIO(err, ctx, 0, XNVME_STATUS_CODE_INVALID_FIELD);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy_ctrlr_csi(&ctx, XNVME_SPEC_CSI_ZONED, idfy);
	CHECK_STATUS_EIO(err, ctx, 0, XNVME_STATUS_CODE_INVALID_FIELD);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_idfy(&ctx, XNVME_SPEC_IDFY_IOCS, 0, 0, 0, 0, idfy);
	CHECK_STATUS_EIO(err, ctx, 0, XNVME_STATUS_CODE_INVALID_FIELD);

	/* a status keeps cdw0 at zero (FDP probing clients rely on it) */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_gfeat(&ctx, 0, 0x1D, 0, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, 0, XNVME_STATUS_CODE_INVALID_FIELD);
	CHECK_EQ(ctx.cpl.cdw0, 0);

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_adm_log(&ctx, XNVME_SPEC_LOG_HEALTH, 0, 0, 0, 0, log, sizeof(log));
	CHECK_STATUS_EIO(err, ctx, 0, 0x01); /* Invalid Command Opcode */

	CHECK_EQ(xnvme_controller_get_registers(dev, (void *)idfy), -ENOSYS);
	xnvme_buf_free(dev, idfy);
	xnvme_dev_close(dev);
}

static void
test_io(int direct)
{
	struct xnvme_spec_dsm_range *range;
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *dev;
	uint8_t *buf;
	int err;

	dev = xnvme_test_open_with(loopdev, NULL, NULL, NULL, direct);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	write_read_verify(dev, 0, 1, 1 + direct);
	write_read_verify(dev, 1000, 8, 2 + direct);
	write_read_verify(dev, 2048, 256, 3 + direct);
	write_read_verify(dev, NLBS - 2048, 2048, 4 + direct); /* 1 MiB: MDTS, last LBAs */

	buf = xnvme_buf_alloc(dev, 64 * LBA);
	range = xnvme_buf_alloc(dev, sizeof(*range));
	CHECK(buf && range);
	if (!buf || !range) {
		goto out;
	}

	/* Write Zeroes */
	write_read_verify(dev, 4096, 16, 5);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_write_zeroes(&ctx, 1, 4096, 15), 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	memset(buf, 0xAA, 16 * LBA);
	CHECK_EQ(xnvme_nvm_read(&ctx, 1, 4096, 15, buf, NULL), 0);
	CHECK(xnvme_test_all_zero(buf, 16 * LBA));

	/* DSM deallocate of 4 KiB-aligned ranges: the backing file gets a hole */
	write_read_verify(dev, 8192, 64, 6);
	memset(range, 0, sizeof(*range));
	range->slba = 8192;
	range->llb = 64;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_nvm_dsm(&ctx, 1, range, 0, true, false, false), 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	memset(buf, 0xAA, 64 * LBA);
	CHECK_EQ(xnvme_nvm_read(&ctx, 1, 8192, 63, buf, NULL), 0);
	CHECK(xnvme_test_all_zero(buf, 64 * LBA));

	/* Flush */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_FLUSH, 1, 0, 0);
	CHECK_EQ(xnvme_cmd_pass(&ctx, NULL, 0, NULL, 0), 0);

	/* Beyond the end: LBA Out of Range, never a short transfer */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_read(&ctx, 1, NLBS - 1, 1, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, 0, 0x80);
	CHECK_EQ(ctx.cpl.result, 0);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write(&ctx, 1, NLBS, 0, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, 0, 0x80);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_write_zeroes(&ctx, 1, NLBS - 4, 7);
	CHECK_STATUS_EIO(err, ctx, 0, 0x80);
	range->slba = NLBS - 8;
	range->llb = 16;
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_nvm_dsm(&ctx, 1, range, 0, true, false, false);
	CHECK_STATUS_EIO(err, ctx, 0, 0x80);

	/* What the block layer cannot do */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_znd_append(&ctx, 1, 0, 0, buf, NULL);
	CHECK_STATUS_EIO(err, ctx, 0, 0x01);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_znd_mgmt_send(&ctx, 1, 0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, 0, NULL);
	CHECK_STATUS_EIO(err, ctx, 0, 0x01); /* not zoned */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_znd_mgmt_recv(&ctx, 1, 0, XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT,
				  XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL, 0, buf, 4096);
	CHECK_STATUS_EIO(err, ctx, 0, 0x01);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_WRITE_UNCORRECTABLE, 1, 0, 0);
	err = xnvme_cmd_pass(&ctx, NULL, 0, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, 0, 0x01);
out:
	xnvme_buf_free(dev, buf);
	xnvme_buf_free(dev, range);
	xnvme_dev_close(dev);
}

static void
test_vectored(void)
{
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *dev;
	struct iovec iov[3];
	uint8_t *wbuf, *rbuf;
	size_t seg[3] = {LBA, 4 * LBA, 3 * LBA}, total = 8 * LBA;
	int err;

	dev = xnvme_test_open_with(loopdev, NULL, NULL, NULL, 1);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	wbuf = xnvme_buf_alloc(dev, total);
	rbuf = xnvme_buf_alloc(dev, total);
	pattern(wbuf, total, 9);
	memset(rbuf, 0, total);

	xnvme_test_iov(iov, wbuf, seg, 3);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_WRITE, 1, 300, 7);
	err = xnvme_cmd_pass_iov(&ctx, iov, 3, total, NULL, 0);
	CHECK_EQ(err, 0);

	xnvme_test_iov(iov, rbuf, seg, 3);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, 1, 300, 7);
	err = xnvme_cmd_pass_iov(&ctx, iov, 3, total, NULL, 0);
	CHECK_EQ(err, 0);
	CHECK(!memcmp(wbuf, rbuf, total));

	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, 1, NLBS - 4, 7);
	err = xnvme_cmd_pass_iov(&ctx, iov, 3, total, NULL, 0);
	CHECK_STATUS_EIO(err, ctx, 0, 0x80);

	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
	xnvme_dev_close(dev);
}

static void
queue_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	int *ndone = arg;

	if (xnvme_cmd_ctx_cpl_status(ctx)) {
		*ndone = -1000;
	}
	(*ndone)++;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

static void
test_async_emu(void)
{
	struct xnvme_queue *queue = NULL;
	struct xnvme_cmd_ctx *ctx;
	struct xnvme_dev *dev;
	uint8_t *wbuf, *rbuf;
	int ndone = 0;

	dev = xnvme_test_open_with(loopdev, NULL, NULL, NULL, 1);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	wbuf = xnvme_buf_alloc(dev, 4 * LBA);
	rbuf = xnvme_buf_alloc(dev, 4 * LBA);
	pattern(wbuf, 4 * LBA, 11);
	memset(rbuf, 0, 4 * LBA);
	CHECK_EQ(xnvme_queue_init(dev, 4, 0, &queue), 0);
	if (!queue) {
		goto out;
	}
	xnvme_queue_set_cb(queue, queue_cb, &ndone);
	ctx = xnvme_queue_get_cmd_ctx(queue);
	CHECK_EQ(xnvme_nvm_write(ctx, 1, 5000, 3, wbuf, NULL), 0);
	CHECK_EQ(xnvme_queue_drain(queue), 1);
	ctx = xnvme_queue_get_cmd_ctx(queue);
	CHECK_EQ(xnvme_nvm_read(ctx, 1, 5000, 3, rbuf, NULL), 0);
	CHECK_EQ(xnvme_queue_drain(queue), 1);
	CHECK_EQ(ndone, 2);
	CHECK(!memcmp(wbuf, rbuf, 4 * LBA));
	xnvme_queue_term(queue);
out:
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
	xnvme_dev_close(dev);
}

/* A queue's completion: its status (SCT << 8 | SC), or -1 when the callback never ran */
static void
status_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	int *status = arg;

	*status = ctx->cpl.status.sct << 8 | ctx->cpl.status.sc;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/*
 * A command for another namespace never touches the device (a loop device has namespace 1):
 * Read, Write, Write Zeroes and DSM with nsid 2 and 0xFFFFFFFF complete with Invalid Namespace
 * or Format (0x0B) through each sync mechanism and each async mechanism this build has, and
 * the LBAs keep their bytes.
 */
static void
test_wrong_nsid(void)
{
	static const char *const syncs[] = {"block", "psync"};
	static const char *const asyncs[] = {"emu", "io_uring", "libaio", "posix", "thrpool"};
	static const uint32_t bad[] = {2, 0xFFFFFFFF};
	const uint64_t slba = 12000;
	const uint32_t nlb = 8;
	struct xnvme_spec_dsm_range *range = NULL;
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *home, *dev;
	uint8_t *wbuf = NULL, *rbuf = NULL;
	int err;

	/* `home`: the buffers, the bytes that must stay and their check at the end */
	home = xnvme_test_open_with(loopdev, NULL, NULL, NULL, 1);
	CHECK(home != NULL);
	if (!home) {
		return;
	}
	wbuf = xnvme_buf_alloc(home, nlb * LBA);
	rbuf = xnvme_buf_alloc(home, nlb * LBA);
	range = xnvme_buf_alloc(home, sizeof(*range));
	CHECK(wbuf && rbuf && range);
	if (!wbuf || !rbuf || !range) {
		goto out;
	}
	write_read_verify(home, slba, nlb, 21);

	for (size_t i = 0; i < sizeof(syncs) / sizeof(syncs[0]); ++i) {
		dev = xnvme_test_open_with(loopdev, NULL, syncs[i], NULL, 1);
		CHECKF(dev != NULL, "sync %s", syncs[i]);
		if (!dev) {
			continue;
		}
		for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); ++b) {
			pattern(rbuf, nlb * LBA, 99);
			ctx = xnvme_cmd_ctx_from_dev(dev);
			err = xnvme_nvm_write(&ctx, bad[b], slba, (uint16_t)(nlb - 1), rbuf, NULL);
			CHECK_STATUS_EIO(err, ctx, 0, 0x0B);
			ctx = xnvme_cmd_ctx_from_dev(dev);
			err = xnvme_nvm_read(&ctx, bad[b], slba, (uint16_t)(nlb - 1), rbuf, NULL);
			CHECK_STATUS_EIO(err, ctx, 0, 0x0B);
			ctx = xnvme_cmd_ctx_from_dev(dev);
			err = xnvme_nvm_write_zeroes(&ctx, bad[b], slba, (uint16_t)(nlb - 1));
			if (!strcmp(syncs[i], "block")) {
				CHECK_STATUS_EIO(err, ctx, 0, 0x0B);
			} else {
				CHECK_STATUS_EIO(err, ctx, 0, 0x01); /* psync has no Write Zeroes */
			}
			memset(range, 0, sizeof(*range));
			range->slba = slba;
			range->llb = nlb;
			ctx = xnvme_cmd_ctx_from_dev(dev);
			err = xnvme_nvm_dsm(&ctx, bad[b], range, 0, true, false, false);
			if (!strcmp(syncs[i], "block")) {
				CHECK_STATUS_EIO(err, ctx, 0, 0x0B);
			} else {
				CHECK_STATUS_EIO(err, ctx, 0, 0x01);
			}
		}
		xnvme_dev_close(dev);
	}

	for (size_t i = 0; i < sizeof(asyncs) / sizeof(asyncs[0]); ++i) {
		struct xnvme_queue *queue = NULL;
		struct xnvme_cmd_ctx *qctx;
		int status = -1;

		errno = 0;
		dev = xnvme_test_open_with(loopdev, NULL, NULL, asyncs[i], 1);
		if (!dev) {
			/* a mechanism this build or kernel lacks; any other refusal fails */
			CHECKF(errno == ENOSYS || errno == ENOTSUP, "async %s: errno %d", asyncs[i],
			       errno);
			printf("# async %s: not available (errno %d)\n", asyncs[i], errno);
			continue;
		}
		CHECK_EQ(xnvme_queue_init(dev, 4, 0, &queue), 0);
		if (queue) {
			xnvme_queue_set_cb(queue, status_cb, &status);
			pattern(rbuf, nlb * LBA, 98);
			qctx = xnvme_queue_get_cmd_ctx(queue);
			err = xnvme_nvm_write(qctx, 2, slba, (uint16_t)(nlb - 1), rbuf, NULL);
			if (err) {
				/* refused at submission: the status is in the context */
				CHECKF(err == -EIO, "async %s: %d", asyncs[i], err);
				status_cb(qctx, &status);
			} else {
				CHECK_EQ(xnvme_queue_drain(queue), 1);
			}
			CHECKF(status == 0x0B, "async %s: status 0x%x", asyncs[i], status);
			xnvme_queue_term(queue);
		}
		xnvme_dev_close(dev);
	}

	/* the LBAs kept the bytes written through namespace 1 */
	pattern(wbuf, nlb * LBA, 21);
	memset(rbuf, 0, nlb * LBA);
	ctx = xnvme_cmd_ctx_from_dev(home);
	CHECK_EQ(xnvme_nvm_read(&ctx, 1, slba, (uint16_t)(nlb - 1), rbuf, NULL), 0);
	CHECK(!memcmp(wbuf, rbuf, nlb * LBA));
out:
	xnvme_buf_free(home, wbuf);
	xnvme_buf_free(home, rbuf);
	xnvme_buf_free(home, range);
	xnvme_dev_close(home);
}

/* Opening `uri` with the admin and sync mechanisms given is refused with ENOTSUP */
static void
check_refused(const char *uri, const char *admin, const char *sync)
{
	struct xnvme_dev *dev;

	errno = 0;
	dev = xnvme_test_open_with(uri, admin, sync, NULL, 0);
	CHECK(dev == NULL);
	CHECK_EQ(errno, ENOTSUP);
	xnvme_dev_close(dev);
}

static void
test_mechanism_choices(void)
{
	char file[PATH_MAX + 16];
	const struct xnvme_opts *opts;
	struct xnvme_opts fopts;
	struct xnvme_dev *dev;
	uint8_t *buf;

	/* psync and the file shim stay selectable on block devices */
	dev = xnvme_test_open_with(loopdev, NULL, "psync", NULL, 0);
	CHECK(dev != NULL);
	if (dev) {
		opts = xnvme_dev_get_opts(dev);
		CHECK(!strcmp(opts->sync, "psync"));
		CHECK(!strcmp(opts->admin, "block"));
		write_read_verify(dev, 6000, 4, 12);
		xnvme_dev_close(dev);
	}
	dev = xnvme_test_open_with(loopdev, "file_as_ns", NULL, NULL, 0);
	CHECK(dev != NULL);
	if (dev) {
		opts = xnvme_dev_get_opts(dev);
		CHECK(!strcmp(opts->admin, "file_as_ns"));
		CHECK(!strcmp(opts->sync, "block"));
		CHECK_EQ(xnvme_dev_get_ns(dev)->nsze, NLBS);
		xnvme_dev_close(dev);
	}

	/* NVMe mechanisms on a non-NVMe block device: refused (NVME_IOCTL_ID says EINVAL) */
	check_refused(loopdev, NULL, "nvme");
	check_refused(loopdev, "nvme", NULL);

	/* block and nvme mechanisms on a regular file: refused */
	snprintf(file, sizeof(file), "%s/file.bin", tmpdir);
	fopts = xnvme_opts_default();
	fopts.create = 1;
	dev = xnvme_dev_open(file, &fopts);
	CHECK(dev != NULL);
	if (dev) {
		CHECK(!strcmp(xnvme_dev_get_opts(dev)->sync, "psync"));
		CHECK(!strcmp(xnvme_dev_get_opts(dev)->admin, "file_as_ns"));
		CHECK_EQ(xnvme_dev_get_ident(dev)->dtype, 4);
		buf = xnvme_buf_alloc(dev, 4096);
		xnvme_buf_free(dev, buf);
		xnvme_dev_close(dev);
	}
	check_refused(file, NULL, "block");
	check_refused(file, "block", NULL);
	check_refused(file, NULL, "nvme");
	check_refused(file, "nvme", NULL);
	unlink(file);
}

int
main(void)
{
	int rc;

	rc = loop_setup();
	if (rc) {
		cleanup();
		if (rc == XNVME_TEST_SKIP) {
			printf("linux_block: losetup unavailable or not permitted: skipped\n");
		}
		return rc;
	}
	printf("# loop device %s (autoclear %d)\n", loopdev, autoclear);

	test_open_and_identify();
	test_admin();
	test_io(0);
	test_io(1);
	test_vectored();
	test_async_emu();
	test_wrong_nsid();
	test_mechanism_choices();

	cleanup();
	return xnvme_test_result("linux_block");
}
