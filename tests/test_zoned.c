// SPDX-License-Identifier: BSD-3-Clause
/*
 * Zoned namespaces through the public API: zone states and every transition, the write pointer,
 * writes off the write pointer, across the zone capacity and into full zones, open and active
 * resource limits, Zone Append, reports (state filters, partial, extended), the convenience
 * functions fio and the tools use, the changed zone list and the geometry.
 *
 * Usage: test_zoned [--uri URI] [--be NAME] [--mech NAME]
 *
 * Without --uri it runs against a zoned ramdisk (zone capacity below the zone size, small open
 * and active limits, a descriptor extension) and also checks ramdisk specifics. With --uri
 * (e.g. a QEMU zoned namespace, --mech selecting the synchronous mechanism) it only asserts
 * what the ZNS specification mandates, reading limits from identify. It resets every zone.
 */
#include <errno.h>
#include <string.h>
#include <libxnvme.h>

#include "xnvme_test.h"

#define RD_URI "1GB?csi=zoned,zsze=4096,zcap=3072,mor=4,mar=6,zdes=1"
#define RD_ZSZE 4096
#define RD_ZCAP 3072

#define SC_LBA_RANGE 0x80

#define ST_EMPTY XNVME_SPEC_ZND_STATE_EMPTY
#define ST_IOPEN XNVME_SPEC_ZND_STATE_IOPEN
#define ST_EOPEN XNVME_SPEC_ZND_STATE_EOPEN
#define ST_CLOSED XNVME_SPEC_ZND_STATE_CLOSED
#define ST_FULL XNVME_SPEC_ZND_STATE_FULL

static struct {
	struct xnvme_dev *dev;
	const struct xnvme_geo *geo;
	const struct xnvme_spec_znd_idfy_ns *zns;
	bool ramdisk;
	uint32_t nsid;
	uint64_t zsze;
	uint64_t zcap; ///< of zone 0; zones are checked against their own capacity
	uint64_t nzone;
	uint32_t mor; ///< one-based, 0: unlimited
	uint32_t mar;
	size_t dext_nbytes;
	bool wzeroes; ///< Write Zeroes supported: moves write pointers cheaply
	uint8_t *buf; ///< MDTS-sized I/O buffer
	uint32_t buf_nlbas;
} t;

static int
zsend(uint64_t zslba, bool all, enum xnvme_spec_znd_cmd_mgmt_send_action zsa,
      struct xnvme_cmd_ctx *ctx)
{
	*ctx = xnvme_cmd_ctx_from_dev(t.dev);
	return xnvme_znd_mgmt_send(ctx, t.nsid, zslba, all, zsa, 0, NULL);
}

static int
zwrite(uint64_t slba, uint32_t nlbas, struct xnvme_cmd_ctx *ctx)
{
	*ctx = xnvme_cmd_ctx_from_dev(t.dev);
	for (size_t i = 0; i < (size_t)nlbas * t.geo->lba_nbytes; ++i) {
		t.buf[i] = (uint8_t)(slba + i * 7);
	}
	return xnvme_nvm_write(ctx, t.nsid, slba, (uint16_t)(nlbas - 1), t.buf, NULL);
}

static int
zappend(uint64_t zslba, uint32_t nlbas, struct xnvme_cmd_ctx *ctx)
{
	*ctx = xnvme_cmd_ctx_from_dev(t.dev);
	memset(t.buf, 0x5A, (size_t)nlbas * t.geo->lba_nbytes);
	return xnvme_znd_append(ctx, t.nsid, zslba, (uint16_t)(nlbas - 1), t.buf, NULL);
}

static struct xnvme_spec_znd_descr
descr(uint64_t zslba)
{
	struct xnvme_spec_znd_descr d;

	memset(&d, 0, sizeof(d));
	CHECK_EQ(xnvme_znd_descr_from_dev(t.dev, zslba, &d), 0);
	return d;
}

static int
state(uint64_t zslba)
{
	return descr(zslba).zs;
}

/* Moves the write pointer of an open-able zone to `wp` (Write Zeroes where possible) */
static void
advance(uint64_t wp_from, uint64_t wp)
{
	while (wp_from < wp) {
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(t.dev);
		uint64_t n = wp - wp_from;
		int err;

		if (t.wzeroes) {
			n = n > 65536 ? 65536 : n;
			err = xnvme_nvm_write_zeroes(&ctx, t.nsid, wp_from, (uint16_t)(n - 1));
		} else {
			n = n > t.buf_nlbas ? t.buf_nlbas : n;
			err = zwrite(wp_from, (uint32_t)n, &ctx);
		}
		CHECK_OK(err, ctx);
		if (err) {
			return;
		}
		wp_from += n;
	}
}

static void
reset_all(void)
{
	struct xnvme_cmd_ctx ctx;
	int err = zsend(0, true, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, &ctx);

	CHECK_OK(err, ctx);
}

static uint64_t
zslba_of(uint64_t zone)
{
	return zone * t.zsze;
}

static void
test_geometry(void)
{
	const struct xnvme_spec_znd_idfy_lbafe *lbafe = xnvme_znd_dev_get_lbafe(t.dev);
	const struct xnvme_spec_znd_idfy_ctrlr *zctrlr = xnvme_znd_dev_get_ctrlr(t.dev);

	CHECK_EQ(t.geo->type, XNVME_GEO_ZONED);
	CHECK_EQ(xnvme_dev_get_csi(t.dev), XNVME_SPEC_CSI_ZONED);
	CHECK(lbafe != NULL && zctrlr != NULL);
	if (!lbafe) {
		return;
	}
	CHECK_EQ(t.geo->nsect, lbafe->zsze);
	CHECK_EQ(t.geo->nzone, xnvme_dev_get_ns(t.dev)->nsze / lbafe->zsze);
	CHECK_EQ(t.geo->tbytes, (uint64_t)t.geo->nzone * t.geo->nsect * t.geo->nbytes);
	if (t.ramdisk) {
		CHECK_EQ(lbafe->zsze, RD_ZSZE);
		CHECK_EQ(lbafe->zdes, 1);
		CHECK_EQ(t.geo->nzone, (1ULL << 30) / 512 / RD_ZSZE);
		CHECK_EQ(t.zns->mor, 3);
		CHECK_EQ(t.zns->mar, 5);
		CHECK_EQ(t.zns->ozcs.bits.razb, 1);
		CHECK_EQ(t.zns->ozcs.bits.zrwasup, 0);
		CHECK_EQ(zctrlr->zasl, 5);
		CHECK_EQ(descr(0).zcap, RD_ZCAP);
	}
}

/* Every action from every state the tests can reach */
static void
test_transitions(void)
{
	uint64_t z0 = zslba_of(0), z1 = zslba_of(1);
	struct xnvme_spec_znd_descr d;
	struct xnvme_cmd_ctx ctx;
	int err;

	reset_all();
	CHECK_EQ(state(z0), ST_EMPTY);
	CHECK_EQ(descr(z0).wp, z0);

	/* implicit open by a write; the write pointer advances */
	err = zwrite(z0, 2, &ctx);
	CHECK_OK(err, ctx);
	d = descr(z0);
	CHECK_EQ(d.zs, ST_IOPEN);
	CHECK_EQ(d.wp, z0 + 2);
	CHECK_EQ(d.zt, XNVME_SPEC_ZND_TYPE_SEQWR);

	err = zsend(z0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(state(z0), ST_CLOSED);
	err = zsend(z0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE, &ctx);
	CHECK_OK(err, ctx);

	/* a write to a closed zone opens it implicitly again */
	err = zwrite(z0 + 2, 1, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(state(z0), ST_IOPEN);

	err = zsend(z0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(state(z0), ST_EOPEN);
	err = zsend(z0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN, &ctx);
	CHECK_OK(err, ctx);
	err = zwrite(z0 + 3, 1, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(state(z0), ST_EOPEN);

	err = zsend(z0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(state(z0), ST_FULL);
	err = zsend(z0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH, &ctx);
	CHECK_OK(err, ctx);

	/* full zones take no writes and cannot be opened or closed */
	err = zwrite(z0 + 4, 1, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_IS_FULL);
	err = zsend(z0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_INVALID_TRANS);
	err = zsend(z0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_INVALID_TRANS);

	/* reset: empty, write pointer at the start, data gone */
	err = zsend(z0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, &ctx);
	CHECK_OK(err, ctx);
	d = descr(z0);
	CHECK_EQ(d.zs, ST_EMPTY);
	CHECK_EQ(d.wp, z0);
	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	memset(t.buf, 0xEE, t.geo->lba_nbytes);
	err = xnvme_nvm_read(&ctx, t.nsid, z0, 0, t.buf, NULL);
	CHECK_OK(err, ctx);
	CHECK(t.buf[0] == 0 && t.buf[t.geo->lba_nbytes - 1] == 0);
	err = zsend(z0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, &ctx);
	CHECK_OK(err, ctx);

	/* an empty zone: close is invalid, finish makes it full, offline needs read-only */
	err = zsend(z1, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_INVALID_TRANS);
	err = zsend(z1, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_OFFLINE, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_INVALID_TRANS);
	err = zsend(z1, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(state(z1), ST_FULL);
	err = zsend(z1, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, &ctx);
	CHECK_OK(err, ctx);

	/* explicitly open, then close */
	err = zsend(z1, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(state(z1), ST_EOPEN);
	err = zwrite(z1, 1, &ctx);
	CHECK_OK(err, ctx);
	err = zsend(z1, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(state(z1), ST_CLOSED);
	err = zsend(z1, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(state(z1), ST_FULL);

	/* select all: offline touches no zone (none read-only); reset empties everything */
	err = zsend(0, true, XNVME_SPEC_ZND_CMD_MGMT_SEND_OFFLINE, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(state(z1), ST_FULL);

	/* the zone start LBA must be one; it must exist */
	err = zsend(z1 + 1, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_STATUS_CODE_INVALID_FIELD);
	err = zsend(t.nzone * t.zsze, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, SC_LBA_RANGE);
	if (!t.zns->ozcs.bits.zrwasup) {
		ctx = xnvme_cmd_ctx_from_dev(t.dev);
		err = xnvme_znd_zrwa_flush(&ctx, t.nsid, z0);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
			     XNVME_SPEC_ZND_SC_INVALID_ZONE_OP);
	}
	reset_all();
	CHECK_EQ(state(z1), ST_EMPTY);
}

/* Writes only at the write pointer, only up to the zone capacity */
static void
test_write_pointer(void)
{
	uint64_t z = zslba_of(2);
	uint64_t zcap = descr(z).zcap;
	struct xnvme_cmd_ctx ctx;
	int err;

	err = zwrite(z + 1, 1, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_INVALID_WRITE);
	CHECK_EQ(state(z), ST_EMPTY);

	err = zwrite(z, 4, &ctx);
	CHECK_OK(err, ctx);
	err = zwrite(z + 2, 1, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_INVALID_WRITE);
	err = zwrite(z + 5, 1, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_INVALID_WRITE);
	CHECK_EQ(descr(z).wp, z + 4);

	/* unwritten LBAs above the write pointer read as zeroes */
	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	memset(t.buf, 0xEE, 2 * (size_t)t.geo->lba_nbytes);
	err = xnvme_nvm_read(&ctx, t.nsid, z + 3, 1, t.buf, NULL);
	CHECK_OK(err, ctx);
	CHECK_EQ(t.buf[0], (uint8_t)(z + 3 * t.geo->lba_nbytes * 7));
	CHECK(t.buf[t.geo->lba_nbytes] == 0 && t.buf[2 * t.geo->lba_nbytes - 1] == 0);

	/* up to two LBAs below the capacity, then a write crossing it, then filling it */
	advance(z + 4, z + zcap - 2);
	CHECK_EQ(descr(z).wp, z + zcap - 2);
	err = zwrite(z + zcap - 2, 3, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_BOUNDARY_ERROR);
	err = zwrite(z + zcap - 2, 2, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(state(z), ST_FULL);

	/* LBAs between the capacity and the zone size: not writable, readable (zeroes) */
	if (zcap < t.zsze) {
		err = zwrite(z + zcap, 1, &ctx);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_IS_FULL);
		ctx = xnvme_cmd_ctx_from_dev(t.dev);
		memset(t.buf, 0xEE, t.geo->lba_nbytes);
		err = xnvme_nvm_read(&ctx, t.nsid, z + zcap, 0, t.buf, NULL);
		CHECK_OK(err, ctx);
		CHECK(t.buf[0] == 0);
	}
	/* reads may cross zone boundaries when the namespace says so */
	if (t.zns->ozcs.bits.razb) {
		ctx = xnvme_cmd_ctx_from_dev(t.dev);
		err = xnvme_nvm_read(&ctx, t.nsid, z + t.zsze - 1, 1, t.buf, NULL);
		CHECK_OK(err, ctx);
	}
	err = zsend(z, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, &ctx);
	CHECK_OK(err, ctx);
}

static void
test_append(void)
{
	uint64_t z = zslba_of(3);
	uint64_t zcap = descr(z).zcap;
	const struct xnvme_spec_znd_idfy_ctrlr *zctrlr = xnvme_znd_dev_get_ctrlr(t.dev);
	struct xnvme_cmd_ctx ctx;
	int err;

	err = zappend(z, 2, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.result, z);
	err = zappend(z, 3, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.result, z + 2);
	CHECK_EQ(descr(z).wp, z + 5);
	CHECK_EQ(state(z), ST_IOPEN);

	/* the zone start LBA must be one */
	err = zappend(z + 1, 1, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, XNVME_STATUS_CODE_INVALID_FIELD);

	/* larger than the zone append size limit */
	if (zctrlr && zctrlr->zasl) {
		uint64_t zasl_nlbas = (4096ULL << zctrlr->zasl) / t.geo->lba_nbytes;

		if (zasl_nlbas < t.buf_nlbas) {
			err = zappend(z, (uint32_t)zasl_nlbas + 1, &ctx);
			CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
				     XNVME_STATUS_CODE_INVALID_FIELD);
		}
	}

	/* crossing the capacity, then filling the zone; then it is full */
	advance(z + 5, z + zcap - 1);
	err = zappend(z, 2, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_BOUNDARY_ERROR);
	err = zappend(z, 1, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(ctx.cpl.result, z + zcap - 1);
	CHECK_EQ(state(z), ST_FULL);
	err = zappend(z, 1, &ctx);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_IS_FULL);
	err = zsend(z, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, &ctx);
	CHECK_OK(err, ctx);
}

#define QDEPTH 8
#define NAPPENDS 64

struct append_io {
	uint8_t tag;
	uint64_t lba;
	bool done;
};

static void
append_cb(struct xnvme_cmd_ctx *ctx, void *arg)
{
	struct append_io *io = arg;

	CHECK_EQ(xnvme_cmd_ctx_cpl_status(ctx), 0);
	io->lba = ctx->cpl.result;
	io->done = true;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

/* Concurrent appends to one zone: every LBA assigned once, holding its own data */
static void
test_append_queue(void)
{
	static struct append_io ios[NAPPENDS];
	uint64_t z = zslba_of(6);
	size_t lba_nbytes = t.geo->lba_nbytes;
	struct xnvme_queue *queue = NULL;
	uint8_t *bufs;
	int err;

	bufs = xnvme_buf_alloc(t.dev, NAPPENDS * lba_nbytes);
	err = xnvme_queue_init(t.dev, QDEPTH, 0, &queue);
	CHECK(bufs != NULL && !err);
	if (!bufs || err) {
		xnvme_buf_free(t.dev, bufs);
		xnvme_queue_term(queue);
		return;
	}
	for (int i = 0; i < NAPPENDS; ++i) {
		struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(queue);

		ios[i].tag = (uint8_t)(i + 1);
		ios[i].done = false;
		memset(bufs + i * lba_nbytes, ios[i].tag, lba_nbytes);
		xnvme_cmd_ctx_set_cb(ctx, append_cb, &ios[i]);
		for (;;) {
			err = xnvme_znd_append(ctx, t.nsid, z, 0, bufs + i * lba_nbytes, NULL);
			if (err != -EBUSY && err != -EAGAIN) {
				break;
			}
			xnvme_queue_poke(queue, 0);
		}
		CHECK_EQ(err, 0);
		if (err) {
			xnvme_queue_put_cmd_ctx(queue, ctx);
		}
	}
	xnvme_queue_drain(queue);
	xnvme_queue_term(queue);

	CHECK_EQ(descr(z).wp, z + NAPPENDS);
	for (int i = 0; i < NAPPENDS; ++i) {
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(t.dev);

		CHECK(ios[i].done);
		CHECK(ios[i].lba >= z && ios[i].lba < z + NAPPENDS);
		err = xnvme_nvm_read(&ctx, t.nsid, ios[i].lba, 0, t.buf, NULL);
		CHECK_OK(err, ctx);
		CHECK(t.buf[0] == ios[i].tag && t.buf[lba_nbytes - 1] == ios[i].tag);
	}
	xnvme_buf_free(t.dev, bufs);
	reset_all();
}

static uint64_t
count(enum xnvme_spec_znd_cmd_mgmt_recv_action_sf sf)
{
	uint64_t n = ~0ULL;

	CHECK_EQ(xnvme_znd_stat(t.dev, sf, &n), 0);
	return n;
}

/* Open and active resources: explicit opens, implicit opens closing the oldest implicit one */
static void
test_limits(void)
{
	struct xnvme_cmd_ctx ctx;
	int err;

	reset_all();
	if (t.mor && t.mor < t.nzone && t.mor <= 64) {
		for (uint32_t i = 0; i < t.mor; ++i) {
			err = zsend(zslba_of(i), false, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN, &ctx);
			CHECK_OK(err, ctx);
		}
		err = zsend(zslba_of(t.mor), false, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN, &ctx);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
			     XNVME_SPEC_ZND_SC_TOO_MANY_OPEN);
		err = zwrite(zslba_of(t.mor), 1, &ctx);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
			     XNVME_SPEC_ZND_SC_TOO_MANY_OPEN);
		CHECK_EQ(count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EOPEN), t.mor);

		/* implicitly opened zones make room for another zone: the oldest is closed */
		reset_all();
		for (uint32_t i = 0; i < t.mor; ++i) {
			err = zwrite(zslba_of(i), 1, &ctx);
			CHECK_OK(err, ctx);
		}
		if (!t.mar || t.mar > t.mor) {
			err = zwrite(zslba_of(t.mor), 1, &ctx);
			if (t.ramdisk || !err) {
				CHECK_OK(err, ctx);
				CHECK_EQ(count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_IOPEN), t.mor);
				CHECK_EQ(count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_CLOSED), 1);
			} else {
				CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
					     XNVME_SPEC_ZND_SC_TOO_MANY_OPEN);
			}
			if (t.ramdisk) {
				CHECK_EQ(state(zslba_of(0)), ST_CLOSED);
			}
		}
	}
	if (t.mar && t.mar < t.nzone && t.mar <= 64) {
		uint64_t z = zslba_of(t.mar);

		reset_all();
		for (uint32_t i = 0; i < t.mar; ++i) {
			err = zwrite(zslba_of(i), 1, &ctx);
			CHECK_OK(err, ctx);
			err = zsend(zslba_of(i), false, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE, &ctx);
			CHECK_OK(err, ctx);
		}
		err = zwrite(z, 1, &ctx);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
			     XNVME_SPEC_ZND_SC_TOO_MANY_ACTIVE);
		err = zsend(z, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN, &ctx);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
			     XNVME_SPEC_ZND_SC_TOO_MANY_ACTIVE);
		err = zappend(z, 1, &ctx);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
			     XNVME_SPEC_ZND_SC_TOO_MANY_ACTIVE);
		CHECK_EQ(state(z), ST_EMPTY);

		/* finishing one releases its resources */
		err = zsend(zslba_of(0), false, XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH, &ctx);
		CHECK_OK(err, ctx);
		err = zwrite(z, 1, &ctx);
		CHECK_OK(err, ctx);
	}
	if (t.ramdisk) {
		/* select-all open opens all closed zones or none */
		reset_all();
		for (uint32_t i = 0; i < 5; ++i) {
			err = zwrite(zslba_of(i), 1, &ctx);
			CHECK_OK(err, ctx);
			err = zsend(zslba_of(i), false, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE, &ctx);
			CHECK_OK(err, ctx);
		}
		err = zsend(0, true, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN, &ctx);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
			     XNVME_SPEC_ZND_SC_TOO_MANY_OPEN);
		CHECK_EQ(count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_CLOSED), 5);
		err = zsend(zslba_of(4), false, XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH, &ctx);
		CHECK_OK(err, ctx);
		err = zsend(0, true, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN, &ctx);
		CHECK_OK(err, ctx);
		CHECK_EQ(count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EOPEN), 4);
		err = zsend(0, true, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE, &ctx);
		CHECK_OK(err, ctx);
		CHECK_EQ(count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_CLOSED), 4);
		err = zsend(0, true, XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH, &ctx);
		CHECK_OK(err, ctx);
		CHECK_EQ(count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_FULL), 5);
	}
	reset_all();
}

/* Zones 0..3 in states IOPEN, EOPEN, CLOSED, FULL; the rest empty */
static void
setup_states(void)
{
	struct xnvme_cmd_ctx ctx;
	int err;

	reset_all();
	err = zwrite(zslba_of(0), 1, &ctx);
	CHECK_OK(err, ctx);
	err = zsend(zslba_of(1), false, XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN, &ctx);
	CHECK_OK(err, ctx);
	err = zwrite(zslba_of(2), 1, &ctx);
	CHECK_OK(err, ctx);
	err = zsend(zslba_of(2), false, XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE, &ctx);
	CHECK_OK(err, ctx);
	err = zsend(zslba_of(3), false, XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH, &ctx);
	CHECK_OK(err, ctx);
}

static void
test_report(void)
{
	const size_t hdr = sizeof(struct xnvme_spec_znd_report_hdr);
	const size_t dsz = sizeof(struct xnvme_spec_znd_descr);
	uint64_t nempty;
	struct xnvme_spec_znd_descr d;
	struct xnvme_cmd_ctx ctx;
	uint8_t *buf;
	int err;

	setup_states();
	CHECK_EQ(count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL), t.nzone);
	CHECK_EQ(count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_IOPEN), 1);
	CHECK_EQ(count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EOPEN), 1);
	CHECK_EQ(count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_CLOSED), 1);
	CHECK_EQ(count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_FULL), 1);
	nempty = count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EMPTY);
	CHECK_EQ(nempty + count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_RONLY) +
			 count(XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_OFFLINE),
		 t.nzone - 4);
	if (t.ramdisk) {
		CHECK_EQ(nempty, t.nzone - 4);
		CHECK_EQ(xnvme_znd_descr_from_dev_in_state(t.dev, XNVME_SPEC_ZND_STATE_OFFLINE, &d),
			 -EIO);
	}

	/* descriptors in state order */
	CHECK_EQ(xnvme_znd_descr_from_dev_in_state(t.dev, ST_FULL, &d), 0);
	CHECK_EQ(d.zslba, zslba_of(3));
	CHECK_EQ(xnvme_znd_descr_from_dev_in_state(t.dev, ST_CLOSED, &d), 0);
	CHECK_EQ(d.zslba, zslba_of(2));
	CHECK_EQ(d.wp, zslba_of(2) + 1);
	CHECK_EQ(xnvme_znd_descr_from_dev_in_state(t.dev, ST_EOPEN, &d), 0);
	CHECK_EQ(d.zslba, zslba_of(1));
	CHECK_EQ(xnvme_znd_descr_from_dev_in_state(t.dev, ST_EMPTY, &d), 0);
	CHECK_EQ(d.zslba, zslba_of(4));
	CHECK_EQ(xnvme_znd_descr_from_dev(t.dev, zslba_of(2) + 7, &d), 0);
	CHECK_EQ(d.zslba, zslba_of(2));

	/* partial: the header counts what is returned, else all matching from slba on */
	buf = xnvme_buf_alloc(t.dev, hdr + 2 * dsz);
	CHECK(buf != NULL);
	if (!buf) {
		return;
	}
	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	err = xnvme_znd_mgmt_recv(&ctx, t.nsid, zslba_of(1) + 3,
				  XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT,
				  XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL, 0, buf, hdr + 2 * dsz);
	CHECK_OK(err, ctx);
	CHECK_EQ(((struct xnvme_spec_znd_report_hdr *)buf)->nzones, t.nzone - 1);
	CHECK_EQ(((struct xnvme_spec_znd_descr *)(buf + hdr))->zslba, zslba_of(1));
	CHECK_EQ(((struct xnvme_spec_znd_descr *)(buf + hdr + dsz))->zslba, zslba_of(2));
	CHECK_EQ(((struct xnvme_spec_znd_descr *)(buf + hdr + dsz))->zs, ST_CLOSED);

	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	err = xnvme_znd_mgmt_recv(&ctx, t.nsid, 0, XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT,
				  XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL, 1, buf, hdr + 2 * dsz);
	CHECK_OK(err, ctx);
	CHECK_EQ(((struct xnvme_spec_znd_report_hdr *)buf)->nzones, 2);

	/* a filter returns only zones in that state */
	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	err = xnvme_znd_mgmt_recv(&ctx, t.nsid, 0, XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT,
				  XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EMPTY, 0, buf, hdr + 2 * dsz);
	CHECK_OK(err, ctx);
	CHECK_EQ(((struct xnvme_spec_znd_report_hdr *)buf)->nzones, nempty);
	CHECK_EQ(((struct xnvme_spec_znd_descr *)(buf + hdr))->zs, ST_EMPTY);
	CHECK_EQ(((struct xnvme_spec_znd_descr *)(buf + hdr + dsz))->zs, ST_EMPTY);

	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	err = xnvme_znd_mgmt_recv(&ctx, t.nsid, t.nzone * t.zsze,
				  XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT,
				  XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL, 0, buf, hdr + 2 * dsz);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, SC_LBA_RANGE);
	if (!t.dext_nbytes) {
		ctx = xnvme_cmd_ctx_from_dev(t.dev);
		err = xnvme_znd_mgmt_recv(
			&ctx, t.nsid, 0, XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT_EXTENDED,
			XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL, 0, buf, hdr + 2 * dsz);
		CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
			     XNVME_STATUS_CODE_INVALID_FIELD);
	}
	xnvme_buf_free(t.dev, buf);
	reset_all();
}

/* fio's use: `limit` entries from a zone start; then the whole namespace */
static void
test_report_from_dev(void)
{
	uint64_t limit = t.nzone < 8 ? t.nzone : 8;
	uint64_t first = t.nzone - limit;
	struct xnvme_znd_report *rprt;

	setup_states();
	rprt = xnvme_znd_report_from_dev(t.dev, zslba_of(first), limit, 0);
	CHECK(rprt != NULL);
	if (rprt) {
		CHECK_EQ(rprt->nentries, limit);
		for (uint64_t i = 0; i < limit; ++i) {
			CHECK_EQ(XNVME_ZND_REPORT_DESCR(rprt, i)->zslba, zslba_of(first + i));
			CHECK_EQ(XNVME_ZND_REPORT_DESCR(rprt, i)->zt, XNVME_SPEC_ZND_TYPE_SEQWR);
		}
		xnvme_buf_virt_free(rprt);
	}

	rprt = xnvme_znd_report_from_dev(t.dev, 0, 0, 0);
	CHECK(rprt != NULL);
	if (rprt) {
		CHECK_EQ(rprt->nentries, t.nzone);
		CHECK_EQ(XNVME_ZND_REPORT_DESCR(rprt, 0)->zs, ST_IOPEN);
		CHECK_EQ(XNVME_ZND_REPORT_DESCR(rprt, 1)->zs, ST_EOPEN);
		CHECK_EQ(XNVME_ZND_REPORT_DESCR(rprt, 2)->zs, ST_CLOSED);
		CHECK_EQ(XNVME_ZND_REPORT_DESCR(rprt, 3)->zs, ST_FULL);
		CHECK_EQ(XNVME_ZND_REPORT_DESCR(rprt, t.nzone - 1)->zslba, zslba_of(t.nzone - 1));
		xnvme_buf_virt_free(rprt);
	}

	errno = 0;
	rprt = xnvme_znd_report_from_dev(t.dev, 0, t.nzone + 1, 0);
	CHECK(rprt == NULL);
	CHECK_EQ(errno, EINVAL);
	if (!t.dext_nbytes) {
		errno = 0;
		rprt = xnvme_znd_report_from_dev(t.dev, 0, 1, 1);
		CHECK(rprt == NULL);
		CHECK_EQ(errno, ENOSYS);
	}
	reset_all();
}

/* Set Zone Descriptor Extension: an empty zone takes it and becomes closed */
static void
test_dext(void)
{
	uint64_t z = zslba_of(5);
	struct xnvme_znd_report *rprt;
	struct xnvme_cmd_ctx ctx;
	struct xnvme_spec_znd_descr d;
	uint8_t *ext;
	int err;

	if (!t.dext_nbytes) {
		return;
	}
	reset_all();
	ext = xnvme_buf_alloc(t.dev, t.dext_nbytes);
	CHECK(ext != NULL);
	if (!ext) {
		return;
	}
	for (size_t i = 0; i < t.dext_nbytes; ++i) {
		ext[i] = (uint8_t)(0xA0 + i);
	}
	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	err = xnvme_znd_mgmt_send(&ctx, t.nsid, z, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_DESCRIPTOR,
				  0, ext);
	CHECK_OK(err, ctx);
	d = descr(z);
	CHECK_EQ(d.zs, ST_CLOSED);
	CHECK_EQ(d.za.zdev, 1);

	rprt = xnvme_znd_report_from_dev(t.dev, z, 2, 1);
	CHECK(rprt != NULL);
	if (rprt) {
		const void *got = XNVME_ZND_REPORT_DEXT(rprt, 0);

		CHECK_EQ(rprt->zdext_nbytes, t.dext_nbytes);
		CHECK(got && !memcmp(got, ext, t.dext_nbytes));
		CHECK_EQ(XNVME_ZND_REPORT_DESCR(rprt, 1)->za.zdev, 0);
		xnvme_buf_virt_free(rprt);
	}

	/* only an empty zone takes one; a reset drops it */
	ctx = xnvme_cmd_ctx_from_dev(t.dev);
	err = xnvme_znd_mgmt_send(&ctx, t.nsid, z, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_DESCRIPTOR,
				  0, ext);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC, XNVME_SPEC_ZND_SC_INVALID_TRANS);
	err = zsend(z, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, &ctx);
	CHECK_OK(err, ctx);
	CHECK_EQ(descr(z).za.zdev, 0);
	xnvme_buf_free(t.dev, ext);
}

static void
test_changes_log(void)
{
	struct xnvme_spec_znd_log_changes *log = xnvme_znd_log_changes_from_dev(t.dev);

	/* optional on devices; the ramdisk never changes zones on its own */
	if (t.ramdisk) {
		CHECK(log != NULL);
		if (log) {
			CHECK_EQ(log->nidents, 0);
		}
	}
	if (log) {
		CHECK(log->nidents <= ZND_CHANGES_LEN);
		xnvme_buf_free(t.dev, log);
	}
}

/* Ramdisk only: options, and zone commands on a conventional namespace */
static void
test_ramdisk_specifics(void)
{
	const char *bad[] = {
		"1GB?csi=zoned,zsze=4096,zcap=4097",
		"1GB?zsze=4096",
		"1GB?csi=zoned,mor=8,mar=4",
		"1GB?csi=zoned,zsze=0",
		"1GB?csi=zoned,zsze=4194304",
		"1GB?csi=zoned,pi=1,ms=8",
		"1GB?csi=zoned,fdp=1",
		"1GB?csi=zns",
		"1GB?csi=zoned,zdes=256",
	};
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *dev;
	int err;

	xnvme_test_open_fails(bad, sizeof(bad) / sizeof(bad[0]), EINVAL);
	opts.be = "ramdisk";

	dev = xnvme_dev_open("1GB", &opts);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	CHECK_EQ(xnvme_dev_get_geo(dev)->type, XNVME_GEO_CONVENTIONAL);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = xnvme_znd_mgmt_send(&ctx, 1, 0, false, XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET, 0, NULL);
	CHECK_STATUS(err, ctx, XNVME_STATUS_CODE_TYPE_GENERIC, SC_INVALID_OPCODE);
	errno = 0;
	CHECK(xnvme_znd_report_from_dev(dev, 0, 1, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	xnvme_dev_close(dev);
}

int
main(int argc, char **argv)
{
	const char *uri;

	t.dev = xnvme_test_open_args(argc, argv, RD_URI, &uri, &t.ramdisk);
	if (!t.dev) {
		return t.ramdisk ? 1 : XNVME_TEST_SKIP;
	}
	t.geo = xnvme_dev_get_geo(t.dev);
	t.zns = xnvme_znd_dev_get_ns(t.dev);
	if (!t.zns) {
		fprintf(stderr, "%s: not a zoned namespace\n", uri);
		xnvme_dev_close(t.dev);
		return t.ramdisk ? 1 : XNVME_TEST_SKIP;
	}
	t.nsid = xnvme_dev_get_nsid(t.dev);
	t.zsze = t.geo->nsect;
	t.nzone = t.geo->nzone;
	t.mor = t.zns->mor + 1; /* 0xFFFFFFFF wraps to 0: unlimited */
	t.mar = t.zns->mar + 1;
	t.dext_nbytes = (size_t)xnvme_znd_dev_get_lbafe(t.dev)->zdes * 64;
	t.wzeroes = xnvme_dev_get_ctrlr(t.dev)->oncs.write_zeroes;
	t.buf_nlbas = t.geo->mdts_nbytes / t.geo->lba_nbytes;
	t.buf = xnvme_buf_alloc(t.dev, t.geo->mdts_nbytes);
	if (!t.buf || t.nzone < 8) {
		fprintf(stderr, "need an I/O buffer and >= 8 zones\n");
		xnvme_buf_free(t.dev, t.buf);
		xnvme_dev_close(t.dev);
		return t.ramdisk ? 1 : XNVME_TEST_SKIP;
	}

	test_geometry();
	test_transitions();
	test_write_pointer();
	test_append();
	test_append_queue();
	test_limits();
	test_report();
	test_report_from_dev();
	test_dext();
	test_changes_log();
	reset_all();

	xnvme_buf_free(t.dev, t.buf);
	xnvme_dev_close(t.dev);
	if (t.ramdisk) {
		test_ramdisk_specifics();
	}
	return xnvme_test_result("zoned");
}
