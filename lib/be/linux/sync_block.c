// SPDX-License-Identifier: BSD-3-Clause
/*
 * Sync mechanism "block": NVM commands on any block device through the block layer.
 *   Read/Write (NVM and file opcodes), Flush -> the psync mechanism, after a bounds check: an
 *                          access beyond the device is LBA Out of Range, not a short read
 *   Write Zeroes           -> BLKZEROOUT
 *   Dataset Management     -> BLKDISCARD per range when deallocating (other attributes are
 *                             hints: success)
 *   Zone Management Send   -> BLKOPENZONE/BLKCLOSEZONE/BLKFINISHZONE/BLKRESETZONE
 *   Zone Management Recv   -> BLKREPORTZONE, translated into the NVMe zone report format
 *   Zone Append and others -> Invalid Command Opcode (the block layer offers no append to
 *                             user space)
 * A command whose nsid is not the device's namespace (dev->ident.nsid) completes with Invalid
 * Namespace or Format (0x0B) before any I/O. Block ioctls count 512-byte sectors whatever the
 * logical block size.
 */
#include <errno.h>
#include <linux/blkzoned.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include "be_linux.h"

/* The kernel ABI value of BLK_ZONE_REP_CAPACITY, tested in every report at run time */
#define BLK_REP_CAPACITY (1U << 0)

/* Zones per BLKREPORTZONE call: a 2 KiB stack buffer */
#define BLK_REPORT_BATCH 32

/* What one BLKREPORTZONE call fills: the report header and up to BLK_REPORT_BATCH zones */
union blk_report_buf {
	struct blk_zone_report rep;
	char raw[sizeof(struct blk_zone_report) + BLK_REPORT_BATCH * sizeof(struct blk_zone)];
};

#define SECTOR_SHIFT 9

static inline uint64_t
blk_nlbs(const struct xnvme_be_linux_state *state)
{
	return state->nbytes / state->lba_nbytes;
}

/* log2 of LBAs per 512-byte sector conversion: LBA << shift = sector */
static inline unsigned int
blk_shift(const struct xnvme_be_linux_state *state)
{
	return (unsigned int)XNVME_ILOG2(state->lba_nbytes) - SECTOR_SHIFT;
}

/* True when [slba, slba + nlb) lies within the device */
static inline bool
blk_in_range(const struct xnvme_be_linux_state *state, uint64_t slba, uint64_t nlb)
{
	uint64_t nlbs = blk_nlbs(state);

	return slba < nlbs && nlb <= nlbs - slba;
}

static int
blk_ioctl(struct xnvme_cmd_ctx *ctx, int fd, unsigned long req, uint64_t range[2])
{
	while (ioctl(fd, req, range)) {
		if (errno != EINTR) {
			return xnvme_be_linux_errno(ctx, errno);
		}
	}
	return 0;
}

static int
blk_write_zeroes(struct xnvme_cmd_ctx *ctx, const struct xnvme_be_linux_state *state)
{
	uint64_t slba = ctx->cmd.write_zeroes.slba, nlb = (uint64_t)ctx->cmd.write_zeroes.nlb + 1;
	uint64_t range[2];

	if (!blk_in_range(state, slba, nlb)) {
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_LBA_RANGE);
	}
	range[0] = slba * state->lba_nbytes;
	range[1] = nlb * state->lba_nbytes;
	return blk_ioctl(ctx, state->fd, BLKZEROOUT, range);
}

static int
blk_dsm(struct xnvme_cmd_ctx *ctx, const struct xnvme_be_linux_state *state, const void *dbuf,
	size_t dbuf_nbytes)
{
	size_t nranges = (size_t)ctx->cmd.dsm.nr + 1;
	const struct xnvme_spec_dsm_range *ranges = dbuf;

	if (!ctx->cmd.dsm.ad) {
		return 0; /* integral-read/write attributes are hints */
	}
	if (!dbuf) {
		return xnvme_be_linux_errno(ctx, EFAULT);
	}
	if (dbuf_nbytes < nranges * sizeof(*ranges)) {
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
	}
	/* all or nothing: any range outside the device fails the command before discarding */
	for (size_t i = 0; i < nranges; ++i) {
		if (ranges[i].llb && !blk_in_range(state, ranges[i].slba, ranges[i].llb)) {
			return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_LBA_RANGE);
		}
	}
	for (size_t i = 0; i < nranges; ++i) {
		uint64_t range[2] = {ranges[i].slba * state->lba_nbytes,
				     (uint64_t)ranges[i].llb * state->lba_nbytes};
		int err;

		if (!ranges[i].llb) {
			continue;
		}
		err = blk_ioctl(ctx, state->fd, BLKDISCARD, range);
		if (err) {
			return err;
		}
	}
	return 0;
}

/* Fills `rep` with up to BLK_REPORT_BATCH zones from `sector` on; 0 or -errno */
static int
blk_report(int fd, uint64_t sector, struct blk_zone_report *rep)
{
	rep->sector = sector;
	rep->nr_zones = BLK_REPORT_BATCH;
	rep->flags = 0;
	while (ioctl(fd, BLKREPORTZONE, rep)) {
		if (errno != EINTR) {
			return -errno;
		}
		rep->sector = sector;
		rep->nr_zones = BLK_REPORT_BATCH;
	}
	return 0;
}

/*
 * Whether Select All applies `zsa` to a zone in condition `cond` (NVMe ZNS: Close acts on open
 * zones, Finish on open and closed ones, Open on closed ones).
 */
static bool
blk_select_all_applies(uint8_t zsa, uint8_t cond)
{
	bool open = cond == BLK_ZONE_COND_IMP_OPEN || cond == BLK_ZONE_COND_EXP_OPEN;

	switch (zsa) {
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE:
		return open;
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH:
		return open || cond == BLK_ZONE_COND_CLOSED;
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN:
		return cond == BLK_ZONE_COND_CLOSED;
	default:
		return false;
	}
}

static int
blk_zone_send(struct xnvme_cmd_ctx *ctx, const struct xnvme_be_linux_state *state)
{
	const struct xnvme_spec_znd_cmd_mgmt_send *send = &ctx->cmd.znd.mgmt_send;
	uint64_t cap_sect = state->nbytes >> SECTOR_SHIFT, range[2], sector;
	unsigned int shift = blk_shift(state);
	unsigned long req;
	union blk_report_buf buf;

	if (!state->zone_nsect) {
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_OPCODE);
	}
	switch (send->zsa) {
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE:
		req = BLKCLOSEZONE;
		break;
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH:
		req = BLKFINISHZONE;
		break;
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN:
		req = BLKOPENZONE;
		break;
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET:
		req = BLKRESETZONE;
		break;
	default:
		/* offline, descriptor extensions and ZRWA have no block-layer equivalent */
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
	}

	if (!send->select_all) {
		if (send->slba >= blk_nlbs(state)) {
			return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_LBA_RANGE);
		}
		sector = send->slba << shift;
		if (sector % state->zone_nsect) {
			/* not a zone start */
			return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
		}
		range[0] = sector;
		range[1] = cap_sect - sector < state->zone_nsect ? cap_sect - sector
								 : state->zone_nsect;
		return blk_ioctl(ctx, state->fd, req, range);
	}

	/* Select All: a reset of the whole device is one request (the kernel's reset-all) */
	if (req == BLKRESETZONE) {
		range[0] = 0;
		range[1] = cap_sect;
		return blk_ioctl(ctx, state->fd, req, range);
	}
	/* Others act on the zones in the states NVMe names, one request per zone */
	for (sector = 0; sector < cap_sect;) {
		int err = blk_report(state->fd, sector, &buf.rep);

		if (err) {
			return xnvme_be_linux_errno(ctx, err);
		}
		if (!buf.rep.nr_zones) {
			break;
		}
		for (uint32_t i = 0; i < buf.rep.nr_zones; ++i) {
			const struct blk_zone *z = &buf.rep.zones[i];

			if (z->type == BLK_ZONE_TYPE_CONVENTIONAL ||
			    !blk_select_all_applies(send->zsa, z->cond)) {
				continue;
			}
			range[0] = z->start;
			range[1] = z->len;
			err = blk_ioctl(ctx, state->fd, req, range);
			if (err) {
				return err;
			}
		}
		sector = buf.rep.zones[buf.rep.nr_zones - 1].start +
			 buf.rep.zones[buf.rep.nr_zones - 1].len;
	}
	return 0;
}

/* Zone Receive state filter -> block zone condition; -1 = all */
static int
blk_filter_cond(uint8_t zrasf)
{
	static const int cond[] = {
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL] = -1,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EMPTY] = BLK_ZONE_COND_EMPTY,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_IOPEN] = BLK_ZONE_COND_IMP_OPEN,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EOPEN] = BLK_ZONE_COND_EXP_OPEN,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_CLOSED] = BLK_ZONE_COND_CLOSED,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_FULL] = BLK_ZONE_COND_FULL,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_RONLY] = BLK_ZONE_COND_READONLY,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_OFFLINE] = BLK_ZONE_COND_OFFLINE,
	};

	return zrasf < sizeof(cond) / sizeof(cond[0]) ? cond[zrasf] : -2;
}

/*
 * Block zone -> NVMe zone descriptor. Zone type and condition values coincide with the ZNS
 * ones. Capacity: the kernel's field when the report says it is filled (BLK_ZONE_REP_CAPACITY,
 * checked per report), else the zone length.
 */
static void
blk_zone_descr(const struct blk_zone *z, bool has_cap, unsigned int shift,
	       struct xnvme_spec_znd_descr *d)
{
	memset(d, 0, sizeof(*d));
	d->zt = z->type & 0xF;
	d->zs = z->cond & 0xF;
	d->za.rzr = z->reset ? 1 : 0;
	d->zcap = (has_cap ? z->capacity : z->len) >> shift;
	d->zslba = z->start >> shift;
	d->wp = z->wp >> shift;
}

static int
blk_zone_recv(struct xnvme_cmd_ctx *ctx, const struct xnvme_be_linux_state *state, void *dbuf,
	      size_t dbuf_nbytes)
{
	const struct xnvme_spec_znd_cmd_mgmt_recv *recv = &ctx->cmd.znd.mgmt_recv;
	const size_t hdr_nbytes = sizeof(struct xnvme_spec_znd_report_hdr);
	const size_t descr_nbytes = sizeof(struct xnvme_spec_znd_descr);
	uint64_t cap_sect = state->nbytes >> SECTOR_SHIFT, sector, nmatch = 0, ndescr = 0;
	size_t xfer = ((size_t)recv->ndwords + 1) * 4, max_descr;
	unsigned int shift = blk_shift(state);
	struct xnvme_spec_znd_report_hdr hdr;
	int cond = blk_filter_cond(recv->zrasf);
	bool full = false;
	union blk_report_buf buf;

	if (!state->zone_nsect) {
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_OPCODE);
	}
	/* no descriptor extensions on block devices: only the basic report */
	if (recv->zra != XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT || cond == -2) {
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_FIELD);
	}
	if (!dbuf) {
		return xnvme_be_linux_errno(ctx, EFAULT);
	}
	if (recv->slba >= blk_nlbs(state)) {
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_LBA_RANGE);
	}
	if (xfer > dbuf_nbytes) {
		xfer = dbuf_nbytes; /* never beyond the caller's buffer */
	}
	max_descr = xfer > hdr_nbytes ? (xfer - hdr_nbytes) / descr_nbytes : 0;
	memset(dbuf, 0, xfer);

	/* From the zone holding slba on; with partial clear every matching zone is counted */
	for (sector = recv->slba << shift; sector < cap_sect && !full;) {
		const struct blk_zone *last;
		bool has_cap;
		int err = blk_report(state->fd, sector, &buf.rep);

		if (err) {
			return xnvme_be_linux_errno(ctx, err);
		}
		if (!buf.rep.nr_zones) {
			break;
		}
		has_cap = buf.rep.flags & BLK_REP_CAPACITY;
		for (uint32_t i = 0; i < buf.rep.nr_zones; ++i) {
			const struct blk_zone *z = &buf.rep.zones[i];

			if (cond >= 0 && z->cond != cond) {
				continue;
			}
			nmatch++;
			if (ndescr < max_descr) {
				struct xnvme_spec_znd_descr d;

				blk_zone_descr(z, has_cap, shift, &d);
				memcpy((char *)dbuf + hdr_nbytes + ndescr * descr_nbytes, &d,
				       descr_nbytes);
				ndescr++;
			}
			if (recv->partial && ndescr == max_descr) {
				full = true;
				break;
			}
		}
		last = &buf.rep.zones[buf.rep.nr_zones - 1];
		sector = last->start + last->len;
	}

	memset(&hdr, 0, sizeof(hdr));
	hdr.nzones = recv->partial ? ndescr : nmatch;
	memcpy(dbuf, &hdr, xfer < hdr_nbytes ? xfer : hdr_nbytes);
	return 0;
}

/*
 * Whether psync serves the command: Read/Write, after the range check, and Flush (1); 0 for the
 * commands of this file; -EIO with the status in cpl when the range check fails.
 */
static int
blk_via_psync(struct xnvme_cmd_ctx *ctx, const struct xnvme_be_linux_state *state)
{
	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_NVM_OPC_READ:
	case XNVME_SPEC_NVM_OPC_WRITE:
		if (!blk_in_range(state, ctx->cmd.nvm.slba, (uint64_t)ctx->cmd.nvm.nlb + 1)) {
			return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_LBA_RANGE);
		}
		return 1;

	case XNVME_SPEC_NVM_OPC_FLUSH:
	case XNVME_SPEC_FS_OPC_READ:
	case XNVME_SPEC_FS_OPC_WRITE:
	case XNVME_SPEC_FS_OPC_FLUSH:
		return 1;

	default:
		return 0;
	}
}

static int
blk_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	   size_t mbuf_nbytes)
{
	const struct xnvme_be_linux_state *state = ctx->dev->state;
	int via = blk_via_psync(ctx, state);

	if (via < 0) {
		return via;
	}
	if (via) {
		return xnvme_be_linux_sync_psync.cmd_io(ctx, dbuf, dbuf_nbytes, mbuf, mbuf_nbytes);
	}
	/* as psync's Read/Write (be_linux_rw.h): another namespace's LBAs are not this device's */
	if (ctx->cmd.common.nsid != ctx->dev->ident.nsid) {
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_NS);
	}
	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_NVM_OPC_WRITE_ZEROES:
		return blk_write_zeroes(ctx, state);

	case XNVME_SPEC_NVM_OPC_DATASET_MANAGEMENT:
		return blk_dsm(ctx, state, dbuf, dbuf_nbytes);

	case XNVME_SPEC_ZND_OPC_MGMT_SEND:
		return blk_zone_send(ctx, state);

	case XNVME_SPEC_ZND_OPC_MGMT_RECV:
		return blk_zone_recv(ctx, state, dbuf, dbuf_nbytes);

	case XNVME_SPEC_ZND_OPC_APPEND:
	default:
		return xnvme_be_linux_status(ctx, XNVME_BE_LINUX_SC_INVALID_OPCODE);
	}
}

static int
blk_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	    void *mbuf, size_t mbuf_nbytes)
{
	int via = blk_via_psync(ctx, ctx->dev->state);
	size_t total;
	char *bounce;
	int err;

	if (via < 0) {
		return via;
	}
	if (via) {
		return xnvme_be_linux_sync_psync.cmd_iov(ctx, dvec, dvec_cnt, dvec_nbytes, mbuf,
							 mbuf_nbytes);
	}
	if (dvec_cnt <= 1) {
		return blk_cmd_io(ctx, dvec_cnt ? dvec[0].iov_base : NULL,
				  dvec_cnt ? dvec[0].iov_len : 0, mbuf, mbuf_nbytes);
	}
	/* DSM ranges or a zone report scattered over segments: through one bounce buffer */
	for (size_t i = 0; i < dvec_cnt; ++i) {
		if (!dvec[i].iov_base && dvec[i].iov_len) {
			return xnvme_be_linux_errno(ctx, EINVAL); /* never handed to memcpy */
		}
	}
	total = xnvme_be_linux_iov_total(dvec, dvec_cnt);
	bounce = malloc(total ? total : 1);
	if (!bounce) {
		return xnvme_be_linux_errno(ctx, ENOMEM);
	}
	xnvme_be_linux_iov_copy(dvec, dvec_cnt, bounce, true);
	err = blk_cmd_io(ctx, bounce, total, mbuf, mbuf_nbytes);
	if (!err && ctx->cmd.common.opcode == XNVME_SPEC_ZND_OPC_MGMT_RECV) {
		xnvme_be_linux_iov_copy(dvec, dvec_cnt, bounce, false);
	}
	free(bounce);
	return err;
}

const struct xnvme_be_sync xnvme_be_linux_sync_block = {
	.name = "block",
	.check_support = xnvme_be_linux_check_block,
	.cmd_io = blk_cmd_io,
	.cmd_iov = blk_cmd_iov,
};
