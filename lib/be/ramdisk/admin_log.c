// SPDX-License-Identifier: BSD-3-Clause
/*
 * Get Log Page for the ramdisk controller: supported log pages (0x00), error information
 * (0x01), SMART / health (0x02), commands supported and effects (0x05), the FDP pages
 * (0x20..0x23, fdp.c) and the changed zone list (0xBF, zoned.c) where the namespace has them.
 * Each page is built whole, then the window selected by the offset (LPOL/LPOU) and the dword
 * count (NUMDL/NUMDU) is copied out, zero-filled past the end of the page.
 *
 * The error log is a ring of the most recent failures of any command, admin or I/O.
 */
#include <string.h>

#include "ramdisk.h"

#define LOG_NBYTES_MAX 4096

#define LID_LSUPP (1U << 0) ///< supported log pages: log page supported

void
xnvme_ramdisk_errlog_init(struct ramdisk *rd)
{
	pthread_mutex_init(&rd->errlog.lock, NULL);
	rd->errlog.ecnt = 0;
	memset(rd->errlog.ring, 0, sizeof(rd->errlog.ring));
}

void
xnvme_ramdisk_errlog_fini(struct ramdisk *rd)
{
	pthread_mutex_destroy(&rd->errlog.lock);
}

void
xnvme_ramdisk_errlog_add(struct ramdisk *rd, const struct xnvme_cmd_ctx *ctx, uint16_t sqid,
			 uint64_t lba)
{
	struct xnvme_spec_log_erri_entry *entry;

	pthread_mutex_lock(&rd->errlog.lock);
	rd->errlog.ecnt++;
	entry = &rd->errlog.ring[(rd->errlog.ecnt - 1) % RAMDISK_ERRLOG_NENTRIES];
	memset(entry, 0, sizeof(*entry));
	entry->ecnt = rd->errlog.ecnt;
	entry->sqid = sqid;
	entry->cid = ctx->cmd.common.cid;
	entry->status = ctx->cpl.status;
	entry->status.p = 0;
	entry->eloc = 0xFFFF; /* no specific parameter */
	entry->lba = lba;
	entry->nsid = ctx->cmd.common.nsid;
	pthread_mutex_unlock(&rd->errlog.lock);
}

static uint64_t
errlog_count(struct ramdisk *rd)
{
	uint64_t ecnt;

	pthread_mutex_lock(&rd->errlog.lock);
	ecnt = rd->errlog.ecnt;
	pthread_mutex_unlock(&rd->errlog.lock);
	return ecnt;
}

/* Newest entry first; slots never used stay zero (error count 0 means invalid) */
static size_t
log_erri(struct ramdisk *rd, void *buf)
{
	struct xnvme_spec_log_erri_entry *entries = buf;

	pthread_mutex_lock(&rd->errlog.lock);
	for (uint64_t i = 0; i < RAMDISK_ERRLOG_NENTRIES && i < rd->errlog.ecnt; ++i) {
		uint64_t ecnt = rd->errlog.ecnt - i;

		entries[i] = rd->errlog.ring[(ecnt - 1) % RAMDISK_ERRLOG_NENTRIES];
	}
	pthread_mutex_unlock(&rd->errlog.lock);

	return RAMDISK_ERRLOG_NENTRIES * sizeof(*entries);
}

/* 128-bit little-endian counter */
static void
u128_put(uint8_t *dst, uint64_t val)
{
	memset(dst, 0, 16);
	for (int i = 0; i < 8; ++i) {
		dst[i] = (uint8_t)(val >> (8 * i));
	}
}

static uint64_t
div_round_up(uint64_t val, uint64_t div)
{
	return val / div + (val % div != 0);
}

static size_t
log_health(struct ramdisk *rd, void *buf)
{
	struct xnvme_spec_log_health_entry *log = buf;
	uint64_t rbytes = atomic_load_explicit(&rd->stats.read_nbytes, memory_order_relaxed);
	uint64_t wbytes = atomic_load_explicit(&rd->stats.write_nbytes, memory_order_relaxed);
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);

	log->crit_warn = 0;
	log->comp_temp = RAMDISK_TEMP_K;
	log->avail_spare = 100;
	log->avail_spare_thresh = 10;
	log->pct_used = 0;
	/* thousands of 512-byte units, rounded up */
	u128_put(log->data_units_read, div_round_up(div_round_up(rbytes, 512), 1000));
	u128_put(log->data_units_written, div_round_up(div_round_up(wbytes, 512), 1000));
	u128_put(log->host_read_cmds,
		 atomic_load_explicit(&rd->stats.read_cmds, memory_order_relaxed));
	u128_put(log->host_write_cmds,
		 atomic_load_explicit(&rd->stats.write_cmds, memory_order_relaxed));
	u128_put(log->pwr_cycles, 1);
	u128_put(log->pwr_on_hours, (uint64_t)(now.tv_sec - rd->created.tv_sec) / 3600);
	u128_put(log->mdi_errs, atomic_load_explicit(&rd->stats.media_errs, memory_order_relaxed));
	u128_put(log->nr_err_logs, errlog_count(rd));
	log->temp_sens[0] = RAMDISK_TEMP_K;

	return sizeof(*log);
}

static size_t
log_effects(struct ramdisk *rd, void *buf)
{
	uint32_t *acs = buf;
	uint32_t *iocs = acs + 256;

	acs[XNVME_SPEC_ADM_OPC_LOG] = RAMDISK_EFFECT_CSUPP;
	acs[XNVME_SPEC_ADM_OPC_IDFY] = RAMDISK_EFFECT_CSUPP;
	acs[XNVME_SPEC_ADM_OPC_SFEAT] = RAMDISK_EFFECT_CSUPP;
	acs[XNVME_SPEC_ADM_OPC_GFEAT] = RAMDISK_EFFECT_CSUPP;
	acs[XNVME_SPEC_ADM_OPC_DSEND] = RAMDISK_EFFECT_CSUPP;
	acs[XNVME_SPEC_ADM_OPC_DRECV] = RAMDISK_EFFECT_CSUPP;
	rd->ns->effects(rd, iocs);

	return 4096;
}

static size_t
log_supported(const struct ramdisk *rd, void *buf)
{
	uint32_t *lids = buf;

	lids[XNVME_SPEC_LOG_RSVD] = LID_LSUPP;
	lids[XNVME_SPEC_LOG_ERRI] = LID_LSUPP;
	lids[XNVME_SPEC_LOG_HEALTH] = LID_LSUPP;
	lids[XNVME_SPEC_LOG_CSAE] = LID_LSUPP;
	if (rd->fdp) {
		lids[XNVME_SPEC_LOG_FDPCONF] = LID_LSUPP;
		lids[XNVME_SPEC_LOG_FDPRUHU] = LID_LSUPP;
		lids[XNVME_SPEC_LOG_FDPSTATS] = LID_LSUPP;
		lids[XNVME_SPEC_LOG_FDPEVENTS] = LID_LSUPP;
	}
	if (rd->ns->csi == XNVME_SPEC_CSI_ZONED) {
		lids[XNVME_SPEC_LOG_ZND_CHANGES] = LID_LSUPP;
	}

	return 256 * sizeof(uint32_t);
}

int
xnvme_ramdisk_adm_log(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes)
{
	const struct xnvme_spec_cmd_log *cmd = &ctx->cmd.log;
	uint64_t nbytes = (((uint64_t)cmd->numdu << 16 | cmd->numdl) + 1) * 4;
	uint64_t off = (uint64_t)cmd->lpou << 32 | cmd->lpol;
	uint32_t nsid = ctx->cmd.common.nsid;
	_Alignas(8) uint8_t page[LOG_NBYTES_MAX];
	uint64_t ncopy;
	size_t size;
	int ret;

	if (!dbuf || dbuf_nbytes < nbytes || (off & 0x3) || cmd->ot) {
		return ramdisk_invalid_field(ctx);
	}
	memset(page, 0, sizeof(page));

	switch (cmd->lid) {
	case XNVME_SPEC_LOG_RSVD:
		size = log_supported(rd, page);
		break;
	case XNVME_SPEC_LOG_ERRI:
		size = log_erri(rd, page);
		break;
	case XNVME_SPEC_LOG_HEALTH:
		if (nsid && nsid != RAMDISK_NSID && nsid != 0xFFFFFFFF) {
			return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC,
					      RAMDISK_SC_INVALID_NS);
		}
		size = log_health(rd, page);
		break;
	case XNVME_SPEC_LOG_CSAE:
		size = log_effects(rd, page);
		break;
	case XNVME_SPEC_LOG_FDPCONF:
	case XNVME_SPEC_LOG_FDPRUHU:
	case XNVME_SPEC_LOG_FDPSTATS:
	case XNVME_SPEC_LOG_FDPEVENTS:
		ret = xnvme_ramdisk_fdp_log(rd, ctx, page);
		if (ret < 0) {
			return ret;
		}
		size = (size_t)ret;
		break;
	case XNVME_SPEC_LOG_ZND_CHANGES:
		ret = xnvme_ramdisk_zoned_log_changes(rd, ctx, page);
		if (ret) {
			return ret;
		}
		size = sizeof(struct xnvme_spec_znd_log_changes);
		break;
	default:
		return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
				      RAMDISK_SC_INVALID_LOG_PAGE);
	}
	if (off > size) {
		return ramdisk_invalid_field(ctx);
	}

	ncopy = size - off < nbytes ? size - off : nbytes;
	memcpy(dbuf, page + off, (size_t)ncopy);
	memset((uint8_t *)dbuf + ncopy, 0, (size_t)(nbytes - ncopy));
	return 0;
}
