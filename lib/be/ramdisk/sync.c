// SPDX-License-Identifier: BSD-3-Clause
/*
 * The synchronous "ramdisk" mechanism: wraps the caller's buffer (contiguous or vectored) in a
 * payload, hands the command to the file opcodes or to the namespace's command-set
 * implementation, and records failures in the error log. Runs concurrently on many threads
 * (synchronous callers, thrpool workers).
 */
#include <string.h>

#include "ramdisk.h"

static void
payload_init_buf(struct ramdisk_payload *pl, void *buf, size_t nbytes)
{
	pl->one.iov_base = buf;
	pl->one.iov_len = buf ? nbytes : 0;
	pl->iov = &pl->one;
	pl->iovcnt = 1;
	pl->nbytes = pl->one.iov_len;
	pl->bad = !buf && nbytes;
}

/* The iovec lengths define what the caller gave; the advisory total is not trusted */
static void
payload_init_iov(struct ramdisk_payload *pl, const struct iovec *iov, size_t iovcnt)
{
	pl->iov = iov;
	pl->iovcnt = iov ? iovcnt : 0;
	pl->nbytes = 0;
	pl->bad = false;
	for (size_t i = 0; i < pl->iovcnt; ++i) {
		if (!iov[i].iov_base && iov[i].iov_len) {
			pl->bad = true;
			pl->nbytes = 0;
			return;
		}
		pl->nbytes += iov[i].iov_len;
	}
}

void
xnvme_ramdisk_payload_gather(const struct ramdisk_payload *pl, void *dst, size_t nbytes)
{
	uint8_t *out = dst;

	for (size_t i = 0; i < pl->iovcnt && nbytes; ++i) {
		size_t len = pl->iov[i].iov_len < nbytes ? pl->iov[i].iov_len : nbytes;

		memcpy(out, pl->iov[i].iov_base, len);
		out += len;
		nbytes -= len;
	}
}

void
xnvme_ramdisk_payload_scatter(const struct ramdisk_payload *pl, const void *src, size_t nbytes)
{
	const uint8_t *in = src;

	for (size_t i = 0; i < pl->iovcnt && nbytes; ++i) {
		size_t len = pl->iov[i].iov_len < nbytes ? pl->iov[i].iov_len : nbytes;

		memcpy(pl->iov[i].iov_base, in, len);
		in += len;
		nbytes -= len;
	}
}

bool
xnvme_ramdisk_payload_equal(const struct ramdisk_payload *pl, const void *mem, size_t nbytes)
{
	const uint8_t *in = mem;

	for (size_t i = 0; i < pl->iovcnt && nbytes; ++i) {
		size_t len = pl->iov[i].iov_len < nbytes ? pl->iov[i].iov_len : nbytes;

		if (memcmp(pl->iov[i].iov_base, in, len)) {
			return false;
		}
		in += len;
		nbytes -= len;
	}
	return true;
}

/* LBA reported in the error log: the command's starting LBA where it has one */
static uint64_t
cmd_lba(const struct xnvme_cmd_ctx *ctx)
{
	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_NVM_OPC_FLUSH:
	case XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT:
		return 0;
	default:
		return ctx->cmd.nvm.slba;
	}
}

static int
sync_exec(struct xnvme_cmd_ctx *ctx, const struct ramdisk_payload *pl)
{
	struct ramdisk *rd = ramdisk_of(ctx->dev);
	int err;

	if (xnvme_ramdisk_fs_is_opcode(ctx->cmd.common.opcode)) {
		err = xnvme_ramdisk_fs_cmd_io(rd, ctx, pl);
	} else {
		err = rd->ns->cmd_io(rd, ctx, pl);
	}
	if (err) {
		xnvme_ramdisk_errlog_add(rd, ctx, 1, cmd_lba(ctx));
	}
	return err;
}

static int
ramdisk_sync_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		    size_t mbuf_nbytes)
{
	struct ramdisk_payload pl;

	/* The only LBA format carries no metadata: a metadata buffer is ignored */
	(void)mbuf;
	(void)mbuf_nbytes;

	payload_init_buf(&pl, dbuf, dbuf_nbytes);
	return sync_exec(ctx, &pl);
}

static int
ramdisk_sync_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
		     size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	struct ramdisk_payload pl;

	(void)dvec_nbytes;
	(void)mbuf;
	(void)mbuf_nbytes;

	payload_init_iov(&pl, dvec, dvec_cnt);
	return sync_exec(ctx, &pl);
}

const struct xnvme_be_sync xnvme_be_ramdisk_sync = {
	.name = "ramdisk",
	.check_support = xnvme_ramdisk_check_support,
	.cmd_io = ramdisk_sync_cmd_io,
	.cmd_iov = ramdisk_sync_cmd_iov,
};
