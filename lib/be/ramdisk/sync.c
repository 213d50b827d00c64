// SPDX-License-Identifier: BSD-3-Clause
/*
 * The synchronous "ramdisk" mechanism: wraps the caller's data buffer (contiguous or vectored)
 * and metadata buffer in payloads, hands the command to the file opcodes (NVM namespaces) or to
 * the namespace's command-set implementation, and records failures in the error log. Runs
 * concurrently on many threads (synchronous callers, thrpool workers).
 */
#include <errno.h>
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

/*
 * The iovec lengths define what the caller gave; the advisory total is not trusted. An element
 * of zero bytes may have any base, NULL included: it is never touched. A NULL base of a
 * non-zero length marks the payload bad (ramdisk_sync_cmd_iov() refuses it with -EINVAL).
 */
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

		if (!len) {
			continue; /* an empty element, whose base may be NULL */
		}
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

		if (!len) {
			continue;
		}
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

		if (!len) {
			continue;
		}
		if (memcmp(pl->iov[i].iov_base, in, len)) {
			return false;
		}
		in += len;
		nbytes -= len;
	}
	return true;
}

void
xnvme_ramdisk_cursor_init(struct ramdisk_cursor *cur, const struct ramdisk_payload *pl)
{
	cur->pl = pl;
	cur->idx = 0;
	cur->off = 0;
}

/* Walks `nbytes` of the payload, calling `fn` on each contiguous piece; false stops early */
static bool
cursor_walk(struct ramdisk_cursor *cur, size_t nbytes,
	    bool (*fn)(uint8_t *host, size_t off, size_t len, void *arg), void *arg)
{
	size_t done = 0;

	while (done < nbytes && cur->idx < cur->pl->iovcnt) {
		const struct iovec *iov = &cur->pl->iov[cur->idx];
		size_t len = iov->iov_len - cur->off;

		if (!len) { /* an empty element: its base (possibly NULL) is never offset */
			cur->idx++;
			cur->off = 0;
			continue;
		}
		if (len > nbytes - done) {
			len = nbytes - done;
		}
		if (!fn((uint8_t *)iov->iov_base + cur->off, done, len, arg)) {
			return false;
		}
		done += len;
		cur->off += len;
		if (cur->off == iov->iov_len) {
			cur->idx++;
			cur->off = 0;
		}
	}
	return true;
}

static bool
piece_get(uint8_t *host, size_t off, size_t len, void *arg)
{
	memcpy((uint8_t *)arg + off, host, len);
	return true;
}

static bool
piece_put(uint8_t *host, size_t off, size_t len, void *arg)
{
	memcpy(host, (const uint8_t *)arg + off, len);
	return true;
}

static bool
piece_equal(uint8_t *host, size_t off, size_t len, void *arg)
{
	return !memcmp(host, (const uint8_t *)arg + off, len);
}

void
xnvme_ramdisk_cursor_get(struct ramdisk_cursor *cur, void *dst, size_t nbytes)
{
	cursor_walk(cur, nbytes, piece_get, dst);
}

void
xnvme_ramdisk_cursor_put(struct ramdisk_cursor *cur, const void *src, size_t nbytes)
{
	cursor_walk(cur, nbytes, piece_put, (void *)src);
}

bool
xnvme_ramdisk_cursor_equal(struct ramdisk_cursor *cur, const void *mem, size_t nbytes)
{
	return cursor_walk(cur, nbytes, piece_equal, (void *)mem);
}

/* LBA reported in the error log: the command's starting LBA where it has one */
static uint64_t
cmd_lba(const struct ramdisk *rd, const struct xnvme_cmd_ctx *ctx)
{
	if (rd->ns->csi == XNVME_SPEC_CSI_KV) {
		return 0;
	}
	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_NVM_OPC_FLUSH:
	case XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT:
		return 0;
	default:
		return ctx->cmd.nvm.slba;
	}
}

static int
sync_exec(struct xnvme_cmd_ctx *ctx, const struct ramdisk_io *io)
{
	struct ramdisk *rd = ramdisk_of(ctx->dev);
	int err;

	/* the byte-addressed file opcodes bypass zones and keys: NVM namespaces only */
	if (xnvme_ramdisk_fs_is_opcode(ctx->cmd.common.opcode) &&
	    rd->ns->csi == XNVME_SPEC_CSI_NVM) {
		err = xnvme_ramdisk_fs_cmd_io(rd, ctx, &io->data);
	} else {
		err = rd->ns->cmd_io(rd, ctx, io);
	}
	if (err) {
		xnvme_ramdisk_errlog_add(rd, ctx, 1, cmd_lba(rd, ctx));
	}
	return err;
}

static __attribute__((noinline)) int
sync_cmd_io_general(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		    size_t mbuf_nbytes)
{
	struct ramdisk_io io;

	payload_init_buf(&io.data, dbuf, dbuf_nbytes);
	payload_init_buf(&io.meta, mbuf, mbuf_nbytes);
	return sync_exec(ctx, &io);
}

static int
ramdisk_sync_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		    size_t mbuf_nbytes)
{
	/* plain reads and writes skip the payload set-up (a metadata pointer needs the checks) */
	if (!mbuf && !mbuf_nbytes &&
	    !xnvme_ramdisk_nvm_rw_fast(ramdisk_of(ctx->dev), ctx, dbuf, dbuf_nbytes)) {
		return 0;
	}
	return sync_cmd_io_general(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);
}

static int
ramdisk_sync_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
		     size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	struct ramdisk_io io;

	(void)dvec_nbytes;

	payload_init_iov(&io.data, dvec, dvec_cnt);
	if (io.data.bad || (!dvec && dvec_cnt)) {
		return -EINVAL; /* a NULL base of non-zero length: nothing to copy from or to */
	}
	payload_init_buf(&io.meta, mbuf, mbuf_nbytes);
	return sync_exec(ctx, &io);
}

const struct xnvme_be_sync xnvme_be_ramdisk_sync = {
	.name = "ramdisk",
	.check_support = xnvme_ramdisk_check_support,
	.cmd_io = ramdisk_sync_cmd_io,
	.cmd_iov = ramdisk_sync_cmd_iov,
};
