// SPDX-License-Identifier: BSD-3-Clause
/*
 * Zoned namespace (ZNS) on a ramdisk: sequential-write-required zones of `zsze` LBAs of which
 * the first `zcap` are writable, the zone state machine with the open and active resource
 * limits, Write / Write Zeroes / Zone Append at the write pointer, reads (also across zone
 * boundaries), identify data and the changed zone list. Management commands are in
 * zoned_mgmt.c. Statuses follow the Zoned Namespace Command Set specification.
 *
 * LBAs above a zone's write pointer are never written, and a reset deallocates what was, so
 * unwritten LBAs always read as zeroes.
 */
#include <stdlib.h>
#include <string.h>

#include "zoned.h"

static void
zone_release(struct ramdisk_zoned *zd, struct ramdisk_zone *z)
{
	if (znd_is_open(z->state)) {
		zd->nopen--;
	}
	if (znd_is_active(z->state)) {
		zd->nactive--;
	}
}

/* The implicitly open zone that has been open longest; NULL when there is none */
static struct ramdisk_zone *
oldest_implicit(struct ramdisk_zoned *zd)
{
	struct ramdisk_zone *oldest = NULL;

	for (uint64_t i = 0; i < zd->nzones; ++i) {
		struct ramdisk_zone *z = &zd->zones[i];

		if (z->state == ZND_ST_IOPEN && (!oldest || z->opened < oldest->opened)) {
			oldest = z;
		}
	}
	return oldest;
}

uint8_t
xnvme_ramdisk_znd_open(struct ramdisk_zoned *zd, struct ramdisk_zone *z, bool explicit)
{
	bool activate;

	switch (z->state) {
	case ZND_ST_EOPEN:
		return 0;
	case ZND_ST_IOPEN:
		z->state = explicit ? ZND_ST_EOPEN : ZND_ST_IOPEN;
		return 0;
	case ZND_ST_EMPTY:
	case ZND_ST_CLOSED:
		break;
	default:
		return XNVME_SPEC_ZND_SC_INVALID_TRANS;
	}

	activate = z->state == ZND_ST_EMPTY;
	if (activate && zd->mar && zd->nactive >= zd->mar) {
		return XNVME_SPEC_ZND_SC_TOO_MANY_ACTIVE;
	}
	/* at the open limit the controller may close an implicitly open zone to make room */
	if (zd->mor && zd->nopen >= zd->mor) {
		struct ramdisk_zone *victim = oldest_implicit(zd);

		if (!victim) {
			return XNVME_SPEC_ZND_SC_TOO_MANY_OPEN;
		}
		victim->state = ZND_ST_CLOSED;
		zd->nopen--;
	}
	zd->nactive += activate;
	zd->nopen++;
	z->state = explicit ? ZND_ST_EOPEN : ZND_ST_IOPEN;
	z->opened = ++zd->seq;
	return 0;
}

uint8_t
xnvme_ramdisk_znd_close(struct ramdisk_zoned *zd, struct ramdisk_zone *z)
{
	switch (z->state) {
	case ZND_ST_IOPEN:
	case ZND_ST_EOPEN:
		zd->nopen--;
		z->state = ZND_ST_CLOSED;
		return 0;
	case ZND_ST_CLOSED:
		return 0;
	default:
		return XNVME_SPEC_ZND_SC_INVALID_TRANS;
	}
}

uint8_t
xnvme_ramdisk_znd_finish(struct ramdisk_zoned *zd, struct ramdisk_zone *z)
{
	switch (z->state) {
	case ZND_ST_EMPTY:
	case ZND_ST_IOPEN:
	case ZND_ST_EOPEN:
	case ZND_ST_CLOSED:
		zone_release(zd, z);
		z->state = ZND_ST_FULL;
		return 0;
	case ZND_ST_FULL:
		return 0;
	default:
		return XNVME_SPEC_ZND_SC_INVALID_TRANS;
	}
}

uint8_t
xnvme_ramdisk_znd_reset(struct ramdisk *rd, struct ramdisk_zone *z)
{
	struct ramdisk_zoned *zd = rd->zoned;
	uint64_t zslba = znd_zslba(zd, z);

	while (z->inflight) {
		pthread_cond_wait(&zd->drained, &zd->lock);
	}
	switch (z->state) {
	case ZND_ST_EMPTY:
		return 0;
	case ZND_ST_IOPEN:
	case ZND_ST_EOPEN:
	case ZND_ST_CLOSED:
	case ZND_ST_FULL:
		break;
	default:
		return XNVME_SPEC_ZND_SC_INVALID_TRANS;
	}
	zone_release(zd, z);
	xnvme_ramdisk_media_zero(rd, zslba, z->wp - zslba);
	if (zd->dext_nbytes) {
		memset(zd->dext + (size_t)(z - zd->zones) * zd->dext_nbytes, 0, zd->dext_nbytes);
	}
	z->state = ZND_ST_EMPTY;
	z->wp = zslba;
	z->za = 0;
	return 0;
}

/* Where a write of nlbas at slba may go, by the zone's state and write pointer */
static uint8_t
check_write(const struct ramdisk_zoned *zd, const struct ramdisk_zone *z, uint64_t slba,
	    uint64_t nlbas)
{
	switch (z->state) {
	case ZND_ST_FULL:
		return XNVME_SPEC_ZND_SC_IS_FULL;
	case ZND_ST_RONLY:
		return XNVME_SPEC_ZND_SC_IS_READONLY;
	case ZND_ST_OFFLINE:
		return XNVME_SPEC_ZND_SC_IS_OFFLINE;
	default:
		break;
	}
	if (slba != z->wp) {
		return XNVME_SPEC_ZND_SC_INVALID_WRITE;
	}
	/* the writable part ends at the zone capacity, below the zone size */
	if (nlbas > znd_zslba(zd, z) + zd->zcap - slba) {
		return XNVME_SPEC_ZND_SC_BOUNDARY_ERROR;
	}
	return 0;
}

/* Write, Write Zeroes and Zone Append: the LBAs are reserved under the lock, copied after it */
static int
zoned_write(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_io *io)
{
	struct ramdisk_zoned *zd = rd->zoned;
	uint8_t opcode = ctx->cmd.common.opcode;
	bool append = opcode == XNVME_SPEC_ZND_OPC_APPEND;
	bool zeroes = opcode == XNVME_SPEC_NVM_OPC_WRITE_ZEROES;
	uint64_t slba = append ? ctx->cmd.znd.append.zslba : ctx->cmd.nvm.slba;
	uint64_t nlbas = (uint64_t)ctx->cmd.nvm.nlb + 1;
	struct ramdisk_zone *z;
	struct ramdisk_xfer x;
	uint8_t sc;
	int err;

	memset(&x, 0, sizeof(x));
	err = xnvme_ramdisk_check_nsid(ctx, false);
	if (!err) {
		err = xnvme_ramdisk_check_range(rd, ctx, slba, append ? 1 : nlbas);
	}
	if (!err && append && slba % zd->zsze) {
		err = ramdisk_invalid_field(ctx);
	}
	if (!err && !zeroes) {
		err = xnvme_ramdisk_xfer_init(rd, ctx, &x, slba, nlbas, io);
	}
	if (!err && append && x.dnbytes > ZND_ZASL_NBYTES) {
		err = ramdisk_invalid_field(ctx);
	}
	if (!err && !zeroes) {
		err = xnvme_ramdisk_xfer_from_host(rd, ctx, &x, io);
	}
	if (err) {
		xnvme_ramdisk_xfer_fini(&x);
		return err;
	}

	z = &zd->zones[slba / zd->zsze];
	pthread_mutex_lock(&zd->lock);
	sc = check_write(zd, z, append ? z->wp : slba, nlbas);
	if (!sc) {
		sc = xnvme_ramdisk_znd_open(zd, z, false);
	}
	if (!sc) {
		slba = z->wp;
		z->wp += nlbas;
		z->inflight++;
		if (z->wp == znd_zslba(zd, z) + zd->zcap) {
			zone_release(zd, z);
			z->state = ZND_ST_FULL;
		}
	}
	pthread_mutex_unlock(&zd->lock);
	if (sc) {
		xnvme_ramdisk_xfer_fini(&x);
		return ramdisk_status(ctx, ZND_SCT, sc);
	}

	/* LBAs above the write pointer hold zeroes already: Write Zeroes moves no data */
	if (!zeroes) {
		x.slba = slba;
		xnvme_ramdisk_xfer_commit(rd, &x, io);
		ramdisk_stat_write(rd, nlbas << rd->lba_shift);
	}
	xnvme_ramdisk_xfer_fini(&x);

	pthread_mutex_lock(&zd->lock);
	if (!--z->inflight) {
		pthread_cond_broadcast(&zd->drained);
	}
	pthread_mutex_unlock(&zd->lock);

	if (append) {
		ctx->cpl.result = slba;
	}
	return 0;
}

/* Read and Compare; reads may cross zone boundaries (RAZB) but not enter an offline zone */
static int
zoned_read(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_io *io)
{
	struct ramdisk_zoned *zd = rd->zoned;
	bool compare = ctx->cmd.common.opcode == XNVME_SPEC_NVM_OPC_COMPARE;
	uint64_t slba = ctx->cmd.nvm.slba;
	uint64_t nlbas = (uint64_t)ctx->cmd.nvm.nlb + 1;
	struct ramdisk_xfer x;
	int err;

	memset(&x, 0, sizeof(x));
	err = xnvme_ramdisk_check_nsid(ctx, false);
	if (!err) {
		err = xnvme_ramdisk_check_range(rd, ctx, slba, nlbas);
	}
	if (!err) {
		err = xnvme_ramdisk_xfer_init(rd, ctx, &x, slba, nlbas, io);
	}
	if (!err) {
		pthread_mutex_lock(&zd->lock);
		for (uint64_t i = slba / zd->zsze; i <= (slba + nlbas - 1) / zd->zsze; ++i) {
			if (zd->zones[i].state == ZND_ST_OFFLINE) {
				err = ramdisk_status(ctx, ZND_SCT, XNVME_SPEC_ZND_SC_IS_OFFLINE);
				break;
			}
		}
		pthread_mutex_unlock(&zd->lock);
	}
	if (!err) {
		err = xnvme_ramdisk_xfer_load(rd, ctx, &x);
	}
	if (!err) {
		ramdisk_stat_read(rd, nlbas << rd->lba_shift);
		if (!compare) {
			xnvme_ramdisk_xfer_to_host(rd, &x, io);
		} else if (!xnvme_ramdisk_xfer_equal(rd, &x, io)) {
			err = ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_MEDIA,
					     RAMDISK_SC_COMPARE_FAILURE);
		}
	}
	xnvme_ramdisk_xfer_fini(&x);
	return err;
}

static int
zoned_cmd_io(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_io *io)
{
	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_NVM_OPC_READ:
	case XNVME_SPEC_NVM_OPC_COMPARE:
		return zoned_read(rd, ctx, io);
	case XNVME_SPEC_NVM_OPC_WRITE:
	case XNVME_SPEC_NVM_OPC_WRITE_ZEROES:
	case XNVME_SPEC_ZND_OPC_APPEND:
		return zoned_write(rd, ctx, io);
	case XNVME_SPEC_ZND_OPC_MGMT_SEND:
		return xnvme_ramdisk_znd_mgmt_send(rd, ctx, &io->data);
	case XNVME_SPEC_ZND_OPC_MGMT_RECV:
		return xnvme_ramdisk_znd_mgmt_recv(rd, ctx, &io->data);
	case XNVME_SPEC_NVM_OPC_FLUSH:
		return xnvme_ramdisk_check_nsid(ctx, true);
	default:
		return ramdisk_invalid_opcode(ctx);
	}
}

/* The controller never changes zones on its own (no RONLY/OFFLINE by wear, no ZFC/RZR/FZR) */
int
xnvme_ramdisk_zoned_log_changes(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *page)
{
	struct xnvme_spec_znd_log_changes *log = page;

	if (rd->ns->csi != XNVME_SPEC_CSI_ZONED) {
		return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
				      RAMDISK_SC_INVALID_LOG_PAGE);
	}
	if (ctx->cmd.common.nsid != RAMDISK_NSID) {
		return ramdisk_invalid_field(ctx);
	}
	log->nidents = 0;
	return 0;
}

static void
zoned_idfy_ns_css(const struct ramdisk *rd, void *buf)
{
	struct xnvme_spec_znd_idfy_ns *zns = buf;
	const struct ramdisk_zoned *zd = rd->zoned;

	memset(zns, 0, sizeof(*zns));
	zns->zoc.val = 0;           /* fixed zone capacity, no zone active excursions */
	zns->ozcs.bits.razb = 1;    /* reads may cross zone boundaries */
	zns->ozcs.bits.zrwasup = 0; /* no zone random write area */
	zns->mar = zd->mar ? zd->mar - 1 : 0xFFFFFFFF;
	zns->mor = zd->mor ? zd->mor - 1 : 0xFFFFFFFF;
	zns->lbafe[0].zsze = zd->zsze;
	zns->lbafe[0].zdes = rd->cfg.zdes;
}

static void
zoned_idfy_ctrlr_css(const struct ramdisk *rd, void *buf)
{
	struct xnvme_spec_znd_idfy_ctrlr *zctrlr = buf;

	(void)rd;
	memset(zctrlr, 0, sizeof(*zctrlr));
	zctrlr->zasl = ZND_ZASL;
}

static void
zoned_effects(const struct ramdisk *rd, uint32_t *iocs)
{
	(void)rd;
	iocs[XNVME_SPEC_NVM_OPC_FLUSH] = RAMDISK_EFFECT_CSUPP;
	iocs[XNVME_SPEC_NVM_OPC_WRITE] = RAMDISK_EFFECT_CSUPP | RAMDISK_EFFECT_LBCC;
	iocs[XNVME_SPEC_NVM_OPC_READ] = RAMDISK_EFFECT_CSUPP;
	iocs[XNVME_SPEC_NVM_OPC_COMPARE] = RAMDISK_EFFECT_CSUPP;
	iocs[XNVME_SPEC_NVM_OPC_WRITE_ZEROES] = RAMDISK_EFFECT_CSUPP | RAMDISK_EFFECT_LBCC;
	iocs[XNVME_SPEC_ZND_OPC_MGMT_SEND] = RAMDISK_EFFECT_CSUPP | RAMDISK_EFFECT_LBCC;
	iocs[XNVME_SPEC_ZND_OPC_MGMT_RECV] = RAMDISK_EFFECT_CSUPP;
	iocs[XNVME_SPEC_ZND_OPC_APPEND] = RAMDISK_EFFECT_CSUPP | RAMDISK_EFFECT_LBCC;
}

static void
zoned_fini(struct ramdisk *rd)
{
	struct ramdisk_zoned *zd = rd->zoned;

	if (!zd) {
		return;
	}
	pthread_cond_destroy(&zd->drained);
	pthread_mutex_destroy(&zd->lock);
	free(zd->dext);
	free(zd->zones);
	free(zd);
	rd->zoned = NULL;
}

static int
zoned_init(struct ramdisk *rd, struct xnvme_dev *dev)
{
	struct ramdisk_zoned *zd;

	zd = calloc(1, sizeof(*zd));
	if (!zd) {
		return xnvme_dev_set_errmsg(dev, -ENOMEM, "cannot allocate zone state");
	}
	pthread_mutex_init(&zd->lock, NULL);
	pthread_cond_init(&zd->drained, NULL);
	rd->zoned = zd;

	zd->zsze = rd->cfg.zsze;
	zd->zcap = rd->cfg.zcap;
	zd->mor = rd->cfg.mor;
	zd->mar = rd->cfg.mar;
	zd->nzones = rd->nlbas / zd->zsze;
	zd->dext_nbytes = (size_t)rd->cfg.zdes * ZND_DEXT_UNIT;

	zd->zones = calloc((size_t)zd->nzones, sizeof(*zd->zones));
	if (zd->dext_nbytes) {
		zd->dext = calloc((size_t)zd->nzones, zd->dext_nbytes);
	}
	if (!zd->zones || (zd->dext_nbytes && !zd->dext)) {
		return xnvme_dev_set_errmsg(dev, -ENOMEM, "cannot allocate %" PRIu64 " zones",
					    zd->nzones);
	}
	for (uint64_t i = 0; i < zd->nzones; ++i) {
		zd->zones[i].state = ZND_ST_EMPTY;
		zd->zones[i].wp = i * zd->zsze;
	}
	return 0;
}

const struct ramdisk_ns_ops xnvme_ramdisk_ns_zoned = {
	.csi = XNVME_SPEC_CSI_ZONED,
	.init = zoned_init,
	.fini = zoned_fini,
	.cmd_io = zoned_cmd_io,
	.idfy_ns_css = zoned_idfy_ns_css,
	.idfy_ctrlr_css = zoned_idfy_ctrlr_css,
	.effects = zoned_effects,
};
