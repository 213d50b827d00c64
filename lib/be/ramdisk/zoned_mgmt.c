// SPDX-License-Identifier: BSD-3-Clause
/*
 * Zone Management Send (open, close, finish, reset, offline, set zone descriptor extension) and
 * Zone Management Receive (report, extended report) of the zoned ramdisk namespace.
 *
 * With Select All an action applies to every zone in a state the action accepts, as the ZNS
 * specification lists them (open: closed zones; close: open zones; finish: open and closed
 * zones; reset: open, closed and full zones; offline: read-only zones); other zones are left
 * alone and the command succeeds. Open with Select All opens all closed zones or none.
 */
#include <stdlib.h>
#include <string.h>

#include "zoned.h"

#define REPORT_HDR_NBYTES sizeof(struct xnvme_spec_znd_report_hdr)
#define DESCR_NBYTES sizeof(struct xnvme_spec_znd_descr)

/* One zone, by action; the zone is in any state */
static uint8_t
zone_action(struct ramdisk *rd, struct ramdisk_zone *z, uint8_t zsa)
{
	struct ramdisk_zoned *zd = rd->zoned;

	switch (zsa) {
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN:
		return xnvme_ramdisk_znd_open(zd, z, true);
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE:
		return xnvme_ramdisk_znd_close(zd, z);
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH:
		return xnvme_ramdisk_znd_finish(zd, z);
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET:
		return xnvme_ramdisk_znd_reset(rd, z);
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_OFFLINE:
	default:
		if (z->state == ZND_ST_RONLY) {
			z->state = ZND_ST_OFFLINE;
		}
		return z->state == ZND_ST_OFFLINE ? 0 : XNVME_SPEC_ZND_SC_INVALID_TRANS;
	}
}

/* Whether Select All applies `zsa` to a zone in `state` */
static bool
select_all_applies(uint8_t zsa, uint8_t state)
{
	switch (zsa) {
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN:
		return state == ZND_ST_CLOSED;
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE:
		return znd_is_open(state);
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH:
		return znd_is_active(state);
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET:
		return znd_is_active(state) || state == ZND_ST_FULL;
	default:
		return state == ZND_ST_RONLY;
	}
}

static uint8_t
select_all(struct ramdisk *rd, uint8_t zsa)
{
	struct ramdisk_zoned *zd = rd->zoned;
	uint32_t nexplicit = 0, nopening = 0;

	/* mark first: zones closed implicitly while opening others must not be opened too */
	for (uint64_t i = 0; i < zd->nzones; ++i) {
		struct ramdisk_zone *z = &zd->zones[i];

		z->mark = select_all_applies(zsa, z->state);
		nopening += z->mark;
		nexplicit += z->state == ZND_ST_EOPEN;
	}
	if (zsa == XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN && zd->mor &&
	    (uint64_t)nexplicit + nopening > zd->mor) {
		return XNVME_SPEC_ZND_SC_TOO_MANY_OPEN;
	}
	for (uint64_t i = 0; i < zd->nzones; ++i) {
		struct ramdisk_zone *z = &zd->zones[i];
		uint8_t sc;

		if (!z->mark) {
			continue;
		}
		z->mark = false;
		sc = zone_action(rd, z, zsa);
		if (sc) {
			return sc;
		}
	}
	return 0;
}

/* Set Zone Descriptor Extension: an empty zone takes the data and becomes closed (active) */
static int
set_dext(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, struct ramdisk_zone *z,
	 const struct ramdisk_payload *pl)
{
	struct ramdisk_zoned *zd = rd->zoned;
	uint8_t *ext;
	uint8_t sc = 0;

	if (!zd->dext_nbytes || ctx->cmd.znd.mgmt_send.select_all || pl->bad ||
	    pl->nbytes < zd->dext_nbytes) {
		return ramdisk_invalid_field(ctx);
	}
	ext = malloc(zd->dext_nbytes);
	if (!ext) {
		xnvme_cpl_set_errno(ctx, ENOMEM);
		return -ENOMEM;
	}
	xnvme_ramdisk_payload_gather(pl, ext, zd->dext_nbytes);

	pthread_mutex_lock(&zd->lock);
	if (z->state != ZND_ST_EMPTY) {
		sc = XNVME_SPEC_ZND_SC_INVALID_TRANS;
	} else if (zd->mar && zd->nactive >= zd->mar) {
		sc = XNVME_SPEC_ZND_SC_TOO_MANY_ACTIVE;
	} else {
		memcpy(zd->dext + (size_t)(z - zd->zones) * zd->dext_nbytes, ext, zd->dext_nbytes);
		zd->nactive++;
		z->state = ZND_ST_CLOSED;
		z->za |= ZND_ZA_ZDEV;
	}
	pthread_mutex_unlock(&zd->lock);

	free(ext);
	return sc ? ramdisk_status(ctx, ZND_SCT, sc) : 0;
}

int
xnvme_ramdisk_znd_mgmt_send(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx,
			    const struct ramdisk_payload *pl)
{
	const struct xnvme_spec_znd_cmd_mgmt_send *cmd = &ctx->cmd.znd.mgmt_send;
	struct ramdisk_zoned *zd = rd->zoned;
	struct ramdisk_zone *z = NULL;
	uint8_t sc;
	int err;

	err = xnvme_ramdisk_check_nsid(ctx, false);
	if (err) {
		return err;
	}
	switch (cmd->zsa) {
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN:
		/* opening with a zone random write area: none supported */
		if (cmd->zsaso) {
			return ramdisk_invalid_field(ctx);
		}
		break;
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE:
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH:
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET:
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_OFFLINE:
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_DESCRIPTOR:
	case XNVME_SPEC_ZND_CMD_MGMT_SEND_FLUSH:
		break;
	default:
		return ramdisk_invalid_field(ctx);
	}

	if (!cmd->select_all || cmd->zsa == XNVME_SPEC_ZND_CMD_MGMT_SEND_DESCRIPTOR) {
		err = xnvme_ramdisk_check_range(rd, ctx, cmd->slba, 1);
		if (err) {
			return err;
		}
		if (cmd->slba % zd->zsze) {
			return ramdisk_invalid_field(ctx);
		}
		z = &zd->zones[cmd->slba / zd->zsze];
	}
	if (cmd->zsa == XNVME_SPEC_ZND_CMD_MGMT_SEND_FLUSH) {
		/* no zone has a ZRWA (ozcs.zrwasup = 0): as QEMU's model answers */
		return ramdisk_status(ctx, ZND_SCT, XNVME_SPEC_ZND_SC_INVALID_ZONE_OP);
	}
	if (cmd->zsa == XNVME_SPEC_ZND_CMD_MGMT_SEND_DESCRIPTOR) {
		return set_dext(rd, ctx, z, pl);
	}

	pthread_mutex_lock(&zd->lock);
	sc = z ? zone_action(rd, z, cmd->zsa) : select_all(rd, cmd->zsa);
	pthread_mutex_unlock(&zd->lock);

	return sc ? ramdisk_status(ctx, ZND_SCT, sc) : 0;
}

static bool
filter_matches(uint8_t zrasf, uint8_t state)
{
	static const uint8_t states[] = {
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EMPTY] = ZND_ST_EMPTY,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_IOPEN] = ZND_ST_IOPEN,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EOPEN] = ZND_ST_EOPEN,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_CLOSED] = ZND_ST_CLOSED,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_FULL] = ZND_ST_FULL,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_RONLY] = ZND_ST_RONLY,
		[XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_OFFLINE] = ZND_ST_OFFLINE,
	};

	return zrasf == XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL || states[zrasf] == state;
}

static void
descr_fill(const struct ramdisk_zoned *zd, const struct ramdisk_zone *z,
	   struct xnvme_spec_znd_descr *d)
{
	uint64_t zslba = znd_zslba(zd, z);

	d->zt = XNVME_SPEC_ZND_TYPE_SEQWR;
	d->zs = z->state;
	d->za.val = z->za;
	d->zcap = zd->zcap;
	d->zslba = zslba;
	/* the write pointer is not valid for full, read-only and offline zones */
	switch (z->state) {
	case ZND_ST_FULL:
		d->wp = zslba + zd->zcap;
		break;
	case ZND_ST_RONLY:
	case ZND_ST_OFFLINE:
		d->wp = UINT64_MAX;
		break;
	default:
		d->wp = z->wp;
		break;
	}
}

/*
 * Report zones from the one holding slba on. The header counts the matching zones up to the end
 * of the namespace, or with Partial Report only those that fit in the buffer.
 */
int
xnvme_ramdisk_znd_mgmt_recv(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx,
			    const struct ramdisk_payload *pl)
{
	const struct xnvme_spec_znd_cmd_mgmt_recv *cmd = &ctx->cmd.znd.mgmt_recv;
	struct ramdisk_zoned *zd = rd->zoned;
	size_t nbytes = ((size_t)cmd->ndwords + 1) * 4;
	bool extended = cmd->zra == XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT_EXTENDED;
	size_t entry_nbytes = DESCR_NBYTES + (extended ? zd->dext_nbytes : 0);
	uint64_t nmatch = 0, max;
	uint8_t *buf;
	int err;

	err = xnvme_ramdisk_check_nsid(ctx, false);
	if (err) {
		return err;
	}
	if (cmd->zra > XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT_EXTENDED ||
	    (extended && !zd->dext_nbytes) ||
	    cmd->zrasf > XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_OFFLINE) {
		return ramdisk_invalid_field(ctx);
	}
	err = xnvme_ramdisk_check_range(rd, ctx, cmd->slba, 1);
	if (err) {
		return err;
	}
	if (nbytes < REPORT_HDR_NBYTES || nbytes > RAMDISK_MDTS_NBYTES || pl->bad ||
	    pl->nbytes < nbytes) {
		return ramdisk_invalid_field(ctx);
	}
	buf = calloc(1, nbytes);
	if (!buf) {
		xnvme_cpl_set_errno(ctx, ENOMEM);
		return -ENOMEM;
	}
	max = (nbytes - REPORT_HDR_NBYTES) / entry_nbytes;

	pthread_mutex_lock(&zd->lock);
	for (uint64_t i = cmd->slba / zd->zsze; i < zd->nzones; ++i) {
		const struct ramdisk_zone *z = &zd->zones[i];
		uint8_t *entry;

		if (!filter_matches(cmd->zrasf, z->state)) {
			continue;
		}
		if (nmatch >= max) {
			if (cmd->partial) {
				break;
			}
			nmatch++;
			continue;
		}
		entry = buf + REPORT_HDR_NBYTES + nmatch * entry_nbytes;
		descr_fill(zd, z, (struct xnvme_spec_znd_descr *)entry);
		if (extended && (z->za & ZND_ZA_ZDEV)) {
			memcpy(entry + DESCR_NBYTES, zd->dext + i * zd->dext_nbytes,
			       zd->dext_nbytes);
		}
		nmatch++;
	}
	pthread_mutex_unlock(&zd->lock);

	((struct xnvme_spec_znd_report_hdr *)buf)->nzones = nmatch;
	xnvme_ramdisk_payload_scatter(pl, buf, nbytes);
	free(buf);
	return 0;
}
