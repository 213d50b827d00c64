/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Zone state of a zoned ramdisk namespace, shared by zoned.c (state machine, I/O, identify)
 * and zoned_mgmt.c (Zone Management Send / Receive).
 *
 * One mutex guards every zone's state, write pointer and the open/active resource counts. Writes
 * reserve their LBAs under the lock and copy data outside it; `inflight` counts such copies so a
 * reset (which zeroes the zone) waits for them instead of racing with them.
 */
#ifndef XNVME_BE_RAMDISK_ZONED_H
#define XNVME_BE_RAMDISK_ZONED_H

#include "ramdisk.h"

#define ZND_SCT XNVME_STATUS_CODE_TYPE_CMDSPEC

/** Zone states, short */
#define ZND_ST_EMPTY XNVME_SPEC_ZND_STATE_EMPTY
#define ZND_ST_IOPEN XNVME_SPEC_ZND_STATE_IOPEN
#define ZND_ST_EOPEN XNVME_SPEC_ZND_STATE_EOPEN
#define ZND_ST_CLOSED XNVME_SPEC_ZND_STATE_CLOSED
#define ZND_ST_FULL XNVME_SPEC_ZND_STATE_FULL
#define ZND_ST_RONLY XNVME_SPEC_ZND_STATE_RONLY
#define ZND_ST_OFFLINE XNVME_SPEC_ZND_STATE_OFFLINE

/** Zone Append Size Limit: 2^5 minimum pages (4 KiB) = 128 KiB, below MDTS on purpose */
#define ZND_ZASL 5
#define ZND_ZASL_NBYTES (1U << (ZND_ZASL + 12))

#define ZND_DEXT_UNIT 64
#define ZND_ZA_ZDEV 0x80 ///< zone attribute: zone descriptor extension valid

struct ramdisk_zone {
	uint64_t wp;       ///< next LBA to write; the highest LBA ever written + 1 once full
	uint64_t opened;   ///< when it became implicitly open: the oldest is closed first
	uint32_t inflight; ///< writes copying data outside the lock
	uint8_t state;     ///< enum xnvme_spec_znd_state
	uint8_t za;        ///< zone attributes
	bool mark;         ///< scratch for select-all operations
};

struct ramdisk_zoned {
	pthread_mutex_t lock;
	pthread_cond_t drained; ///< signalled when a zone's inflight drops to 0
	uint64_t nzones;
	uint64_t zsze;
	uint64_t zcap;
	uint32_t mor; ///< one-based, 0: unlimited
	uint32_t mar;
	uint32_t nopen;
	uint32_t nactive;
	uint64_t seq;
	size_t dext_nbytes;
	uint8_t *dext; ///< nzones descriptor extensions
	struct ramdisk_zone *zones;
};

static inline bool
znd_is_open(uint8_t state)
{
	return state == XNVME_SPEC_ZND_STATE_IOPEN || state == XNVME_SPEC_ZND_STATE_EOPEN;
}

static inline bool
znd_is_active(uint8_t state)
{
	return znd_is_open(state) || state == XNVME_SPEC_ZND_STATE_CLOSED;
}

static inline uint64_t
znd_zslba(const struct ramdisk_zoned *zd, const struct ramdisk_zone *z)
{
	return (uint64_t)(z - zd->zones) * zd->zsze;
}

/* zoned.c, all with zd->lock held; they return a zoned status code, 0 on success */

/** Open a zone (explicitly, or implicitly for a write), closing an implicitly open one if needed */
uint8_t
xnvme_ramdisk_znd_open(struct ramdisk_zoned *zd, struct ramdisk_zone *z, bool explicit);

uint8_t
xnvme_ramdisk_znd_close(struct ramdisk_zoned *zd, struct ramdisk_zone *z);

uint8_t
xnvme_ramdisk_znd_finish(struct ramdisk_zoned *zd, struct ramdisk_zone *z);

/** Reset: waits for in-flight writes of the zone, then zeroes it (may drop the lock meanwhile) */
uint8_t
xnvme_ramdisk_znd_reset(struct ramdisk *rd, struct ramdisk_zone *z);

/* zoned_mgmt.c */
int
xnvme_ramdisk_znd_mgmt_send(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx,
			    const struct ramdisk_payload *pl);

int
xnvme_ramdisk_znd_mgmt_recv(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx,
			    const struct ramdisk_payload *pl);

#endif /* XNVME_BE_RAMDISK_ZONED_H */
