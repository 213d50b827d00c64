// SPDX-License-Identifier: BSD-3-Clause
/*
 * Flexible Data Placement on an NVM ramdisk namespace (URI option fdp=1): one endurance group
 * (1) with one reclaim group and `nruh` reclaim unit handles of `runs` bytes per reclaim unit,
 * all mapped to the namespace, placement identifier i = placement handle i = handle i.
 *
 * Writes carrying the data placement directive (DTYPE 2, DSPEC = placement identifier) charge
 * the reclaim unit of that handle, others the handle of placement identifier 0. A placement
 * identifier beyond the namespace's handles is not an error for the write: as the FDP model
 * prescribes, the controller places the data with handle 0 and, when the host enabled it,
 * logs an "invalid placement identifier" event. Statistics count host and media bytes with
 * metadata; there is no write amplification, so both are equal.
 *
 * Also here: the Identify directive (Directive Send / Receive), whose return parameters report
 * the data placement directive supported and enabled exactly when FDP is on.
 */
#include <stdlib.h>
#include <string.h>

#include "ramdisk.h"

#define FDP_NEVENTS 32 ///< newest host events kept for the events log

#define EVT_RU_NOT_FULLY_WRITTEN 0x00
#define EVT_INVALID_PID 0x03

#define DTYPE_IDENTIFY 0
#define DTYPE_DATA_PLACEMENT 2
#define DOPER_RETURN_PARAMS 1
#define DOPER_ENABLE 1

#define RUHT_INITIALLY_ISOLATED 1
#define RUHA_HOST_SPECIFIED 1

/* The event types reported as supported, in the order of the per-handle enable bits */
static const uint8_t g_event_types[] = {0x00, 0x01, 0x02, 0x03, 0x80, 0x81};
#define NEVENT_TYPES (sizeof(g_event_types) / sizeof(g_event_types[0]))

struct ramdisk_fdp {
	pthread_mutex_t lock; ///< handles, enables, events
	uint64_t ru_nlbas;
	uint16_t nruh;
	uint64_t *ruamw;    ///< per handle: LBAs left in its reclaim unit
	uint8_t *events_on; ///< per handle: bit i enables g_event_types[i]
	uint64_t nevents;   ///< events recorded; the newest at ring[(nevents - 1) % N]
	struct xnvme_spec_fdp_event ring[FDP_NEVENTS];
	_Atomic uint64_t hbmw;
	_Atomic uint64_t mbmw;
};

int
xnvme_ramdisk_fdp_init(struct ramdisk *rd)
{
	struct ramdisk_fdp *fdp = calloc(1, sizeof(*fdp));

	if (!fdp) {
		return -ENOMEM;
	}
	pthread_mutex_init(&fdp->lock, NULL);
	rd->fdp = fdp;

	fdp->nruh = rd->cfg.nruh;
	fdp->ru_nlbas = rd->cfg.runs >> rd->lba_shift;
	fdp->ruamw = calloc(fdp->nruh, sizeof(*fdp->ruamw));
	fdp->events_on = calloc(fdp->nruh, sizeof(*fdp->events_on));
	if (!fdp->ruamw || !fdp->events_on) {
		return -ENOMEM;
	}
	for (uint16_t i = 0; i < fdp->nruh; ++i) {
		fdp->ruamw[i] = fdp->ru_nlbas;
	}
	return 0;
}

void
xnvme_ramdisk_fdp_fini(struct ramdisk *rd)
{
	struct ramdisk_fdp *fdp = rd->fdp;

	if (!fdp) {
		return;
	}
	free(fdp->ruamw);
	free(fdp->events_on);
	pthread_mutex_destroy(&fdp->lock);
	free(fdp);
	rd->fdp = NULL;
}

static int
event_index(uint8_t type)
{
	for (size_t i = 0; i < NEVENT_TYPES; ++i) {
		if (g_event_types[i] == type) {
			return (int)i;
		}
	}
	return -1;
}

/* Records a host event of handle `ph` when the host enabled that type; lock held */
static void
event_add(struct ramdisk_fdp *fdp, uint8_t type, uint16_t ph, uint16_t pid)
{
	struct xnvme_spec_fdp_event *evt;
	struct timespec now;

	if (!(fdp->events_on[ph] & (1U << event_index(type)))) {
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	evt = &fdp->ring[fdp->nevents++ % FDP_NEVENTS];
	memset(evt, 0, sizeof(*evt));
	evt->type = type;
	evt->fdpef.piv = 1;
	evt->fdpef.nsidv = 1;
	evt->pid = pid;
	evt->timestamp = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
	evt->nsid = RAMDISK_NSID;
	evt->rgid = 0;
	evt->ruhid = ph;
}

int
xnvme_ramdisk_fdp_write(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, uint64_t nlbas)
{
	struct ramdisk_fdp *fdp = rd->fdp;
	uint8_t dtype = ctx->cmd.nvm.dtype;
	uint16_t pid = ctx->cmd.nvm.cdw13.dspec;
	uint16_t ph = 0;
	uint64_t left = nlbas;

	if (!dtype && !fdp) {
		return 0;
	}
	/* the data placement directive is the only one, and enabled only with FDP */
	if (!fdp || (dtype && dtype != DTYPE_DATA_PLACEMENT)) {
		return ramdisk_invalid_field(ctx);
	}

	pthread_mutex_lock(&fdp->lock);
	if (dtype == DTYPE_DATA_PLACEMENT) {
		if (pid < fdp->nruh) {
			ph = pid;
		} else {
			event_add(fdp, EVT_INVALID_PID, 0, pid);
		}
	}
	/* a reclaim unit that fills up is replaced by a fresh one */
	while (left >= fdp->ruamw[ph]) {
		left -= fdp->ruamw[ph];
		fdp->ruamw[ph] = fdp->ru_nlbas;
	}
	fdp->ruamw[ph] -= left;
	pthread_mutex_unlock(&fdp->lock);

	ramdisk_stat_add(&fdp->hbmw, nlbas * (rd->lba_nbytes + rd->cfg.ms));
	ramdisk_stat_add(&fdp->mbmw, nlbas * (rd->lba_nbytes + rd->cfg.ms));
	return 0;
}

/* Reclaim Unit Handle Status: all descriptors counted in the header, as many as fit returned */
int
xnvme_ramdisk_fdp_mgmt_recv(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx,
			    const struct ramdisk_payload *pl)
{
	const struct xnvme_spec_io_mgmt_recv_cmd *cmd = &ctx->cmd.mgmt.mgmt_recv;
	struct ramdisk_fdp *fdp = rd->fdp;
	size_t nbytes = ((size_t)cmd->numd + 1) * 4;
	size_t total =
		sizeof(struct xnvme_spec_ruhs) + fdp->nruh * sizeof(struct xnvme_spec_ruhs_desc);
	struct xnvme_spec_ruhs *ruhs;
	int err;

	err = xnvme_ramdisk_check_nsid(ctx, false);
	if (err) {
		return err;
	}
	if (cmd->mo != XNVME_SPEC_IO_MGMT_RECV_RUHS || pl->bad || pl->nbytes < nbytes) {
		return ramdisk_invalid_field(ctx);
	}
	ruhs = calloc(1, nbytes > total ? nbytes : total);
	if (!ruhs) {
		xnvme_cpl_set_errno(ctx, ENOMEM);
		return -ENOMEM;
	}
	ruhs->nruhsd = fdp->nruh;
	pthread_mutex_lock(&fdp->lock);
	for (uint16_t i = 0; i < fdp->nruh; ++i) {
		ruhs->desc[i].pi = i;
		ruhs->desc[i].ruhi = i;
		ruhs->desc[i].earutr = 0; /* reclaim units never expire */
		ruhs->desc[i].ruamw = fdp->ruamw[i];
	}
	pthread_mutex_unlock(&fdp->lock);

	xnvme_ramdisk_payload_scatter(pl, ruhs, nbytes);
	free(ruhs);
	return 0;
}

/* Reclaim Unit Handle Update: each listed handle moves to a fresh reclaim unit */
int
xnvme_ramdisk_fdp_mgmt_send(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx,
			    const struct ramdisk_payload *pl)
{
	const struct xnvme_spec_io_mgmt_send_cmd *cmd = &ctx->cmd.mgmt.mgmt_send;
	struct ramdisk_fdp *fdp = rd->fdp;
	size_t npids = (size_t)cmd->mos + 1;
	uint16_t *pids;
	int err;

	err = xnvme_ramdisk_check_nsid(ctx, false);
	if (err) {
		return err;
	}
	if (cmd->mo != XNVME_SPEC_IO_MGMT_SEND_RUHU || pl->bad ||
	    pl->nbytes < npids * sizeof(*pids)) {
		return ramdisk_invalid_field(ctx);
	}
	pids = malloc(npids * sizeof(*pids));
	if (!pids) {
		xnvme_cpl_set_errno(ctx, ENOMEM);
		return -ENOMEM;
	}
	xnvme_ramdisk_payload_gather(pl, pids, npids * sizeof(*pids));
	for (size_t i = 0; i < npids; ++i) {
		if (pids[i] >= fdp->nruh) {
			free(pids);
			return ramdisk_invalid_field(ctx);
		}
	}

	pthread_mutex_lock(&fdp->lock);
	for (size_t i = 0; i < npids; ++i) {
		uint16_t ph = pids[i];

		if (fdp->ruamw[ph] < fdp->ru_nlbas) {
			event_add(fdp, EVT_RU_NOT_FULLY_WRITTEN, ph, ph);
		}
		fdp->ruamw[ph] = fdp->ru_nlbas;
	}
	pthread_mutex_unlock(&fdp->lock);
	free(pids);
	return 0;
}

static size_t
log_conf(const struct ramdisk *rd, uint8_t *page)
{
	struct xnvme_spec_log_fdp_conf *log = (void *)page;
	struct xnvme_spec_fdp_conf_desc *conf = log->conf_desc;
	size_t ds = sizeof(*conf) + rd->fdp->nruh * sizeof(struct xnvme_spec_ruh_desc);

	log->ncfg = 0; /* zero-based: one configuration */
	log->version = 0;
	log->size = (uint32_t)(sizeof(*log) + ds);
	conf->ds = (uint16_t)ds;
	conf->fdpa.rgif = 0; /* one reclaim group: placement identifiers are handles */
	conf->fdpa.fdpvwc = 0;
	conf->fdpa.fdpcv = 1;
	conf->nrg = rd->cfg.nrg;
	conf->nruh = rd->fdp->nruh;
	conf->maxpids = (uint16_t)(rd->fdp->nruh - 1);
	conf->nns = 1;
	conf->runs = rd->cfg.runs;
	conf->erutl = 0;
	for (uint16_t i = 0; i < rd->fdp->nruh; ++i) {
		conf->ruh_desc[i].ruht = RUHT_INITIALLY_ISOLATED;
	}
	return log->size;
}

static size_t
log_ruhu(const struct ramdisk *rd, uint8_t *page)
{
	struct xnvme_spec_log_ruhu *log = (void *)page;

	log->nruh = rd->fdp->nruh;
	for (uint16_t i = 0; i < rd->fdp->nruh; ++i) {
		log->ruhu_desc[i].ruha = RUHA_HOST_SPECIFIED;
	}
	return sizeof(*log) + rd->fdp->nruh * sizeof(log->ruhu_desc[0]);
}

/* Host events oldest first (LSP bit 0 clear); the controller records no controller events */
static size_t
log_events(struct ramdisk_fdp *fdp, uint8_t lsp, uint8_t *page)
{
	struct xnvme_spec_log_fdp_events *log = (void *)page;
	uint64_t n, first;

	if (lsp & 0x1) {
		return sizeof(*log);
	}
	pthread_mutex_lock(&fdp->lock);
	n = fdp->nevents < FDP_NEVENTS ? fdp->nevents : FDP_NEVENTS;
	first = fdp->nevents - n;
	for (uint64_t i = 0; i < n; ++i) {
		log->event[i] = fdp->ring[(first + i) % FDP_NEVENTS];
	}
	pthread_mutex_unlock(&fdp->lock);
	log->nevents = (uint32_t)n;
	return sizeof(*log) + n * sizeof(log->event[0]);
}

int
xnvme_ramdisk_fdp_log(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *page)
{
	const struct xnvme_spec_cmd_log *cmd = &ctx->cmd.log;
	struct xnvme_spec_log_fdp_stats *stats = page;

	if (!rd->fdp) {
		return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
				      RAMDISK_SC_INVALID_LOG_PAGE);
	}
	/* the endurance group; 0 is taken as the only one there is */
	if (cmd->lsi && cmd->lsi != RAMDISK_ENDGID) {
		return ramdisk_invalid_field(ctx);
	}
	switch (cmd->lid) {
	case XNVME_SPEC_LOG_FDPCONF:
		return (int)log_conf(rd, page);
	case XNVME_SPEC_LOG_FDPRUHU:
		return (int)log_ruhu(rd, page);
	case XNVME_SPEC_LOG_FDPSTATS:
		stats->hbmw[0] = atomic_load(&rd->fdp->hbmw);
		stats->mbmw[0] = atomic_load(&rd->fdp->mbmw);
		stats->mbe[0] = 0;
		return sizeof(*stats);
	case XNVME_SPEC_LOG_FDPEVENTS:
	default:
		return (int)log_events(rd->fdp, cmd->lsp, page);
	}
}

/* FDP mode (endurance group) and FDP events (placement handle of the namespace) */
int
xnvme_ramdisk_fdp_gfeat(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *dbuf,
			size_t dbuf_nbytes)
{
	struct ramdisk_fdp *fdp = rd->fdp;
	uint32_t cdw11 = ctx->cmd.gfeat.cdw11;
	uint8_t sel = ctx->cmd.gfeat.cdw10.sel;
	uint16_t ph = cdw11 & 0xFFFF;
	size_t noet = (cdw11 >> 16) & 0xFF;
	uint8_t *desc = dbuf;
	size_t n;

	if (!fdp || sel > XNVME_SPEC_FEAT_SEL_SUPPORTED) {
		return ramdisk_invalid_field(ctx);
	}
	if (ctx->cmd.gfeat.cdw10.fid == XNVME_SPEC_FEAT_FDP_MODE) {
		if (ph && ph != RAMDISK_ENDGID) {
			return ramdisk_invalid_field(ctx);
		}
		/* enabled with configuration 0; not changeable while the namespace exists */
		ctx->cpl.cdw0 = sel == XNVME_SPEC_FEAT_SEL_SUPPORTED ? 0 : 0x1;
		return 0;
	}

	if (xnvme_ramdisk_check_nsid(ctx, false)) {
		return -EIO;
	}
	if (sel == XNVME_SPEC_FEAT_SEL_SUPPORTED) {
		ctx->cpl.cdw0 = 0x4 | 0x2; /* changeable, namespace specific */
		return 0;
	}
	n = noet < NEVENT_TYPES ? noet : NEVENT_TYPES;
	if (ph >= fdp->nruh || !noet || !dbuf || dbuf_nbytes < n * 2) {
		return ramdisk_invalid_field(ctx);
	}
	pthread_mutex_lock(&fdp->lock);
	for (size_t i = 0; i < n; ++i) {
		bool on = sel == XNVME_SPEC_FEAT_SEL_CURRENT && (fdp->events_on[ph] >> i) & 1;

		desc[2 * i] = g_event_types[i];
		desc[2 * i + 1] = on;
	}
	pthread_mutex_unlock(&fdp->lock);
	ctx->cpl.cdw0 = (uint32_t)n;
	return 0;
}

int
xnvme_ramdisk_fdp_sfeat(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const void *dbuf,
			size_t dbuf_nbytes)
{
	struct ramdisk_fdp *fdp = rd->fdp;
	uint32_t cdw11 = ctx->cmd.sfeat.feat.val;
	uint32_t cdw12 = ctx->cmd.sfeat.cdw12;
	uint16_t ph = cdw11 & 0xFFFF;
	size_t noet = (cdw11 >> 16) & 0xFF;
	const uint8_t *types = dbuf;
	uint8_t mask = 0;

	if (!fdp) {
		return ramdisk_invalid_field(ctx);
	}
	if (ctx->cmd.sfeat.cdw10.save) {
		return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_CMDSPEC,
				      RAMDISK_SC_FEAT_NOT_SAVEABLE);
	}
	if (ctx->cmd.sfeat.cdw10.fid == XNVME_SPEC_FEAT_FDP_MODE) {
		/* only "enabled, configuration 0" is possible while the namespace exists */
		if ((ph && ph != RAMDISK_ENDGID) || (cdw12 & 0xFF01) != 0x1) {
			return ramdisk_invalid_field(ctx);
		}
		return 0;
	}

	if (xnvme_ramdisk_check_nsid(ctx, false)) {
		return -EIO;
	}
	if (ph >= fdp->nruh || (noet && (!dbuf || dbuf_nbytes < noet))) {
		return ramdisk_invalid_field(ctx);
	}
	for (size_t i = 0; i < noet; ++i) {
		int idx = event_index(types[i]);

		if (idx < 0) {
			return ramdisk_invalid_field(ctx);
		}
		mask |= (uint8_t)(1U << idx);
	}
	pthread_mutex_lock(&fdp->lock);
	if (cdw12 & 0x1) {
		fdp->events_on[ph] |= mask;
	} else {
		fdp->events_on[ph] &= (uint8_t)~mask;
	}
	pthread_mutex_unlock(&fdp->lock);
	return 0;
}

/* Identify directive: return parameters */
int
xnvme_ramdisk_dir_recv(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *dbuf,
		       size_t dbuf_nbytes)
{
	struct xnvme_spec_idfy_dir_rp rp;
	size_t nbytes = ((size_t)ctx->cmd.drecv.numd + 1) * 4;

	if (xnvme_ramdisk_check_nsid(ctx, false)) {
		return -EIO;
	}
	if (ctx->cmd.drecv.dtype != DTYPE_IDENTIFY || ctx->cmd.drecv.doper != DOPER_RETURN_PARAMS ||
	    !dbuf || dbuf_nbytes < nbytes) {
		return ramdisk_invalid_field(ctx);
	}
	memset(&rp, 0, sizeof(rp));
	rp.directives_supported.identify = 1;
	rp.directives_supported.data_placement = rd->fdp != NULL;
	rp.directives_enabled.identify = 1;
	rp.directives_enabled.data_placement = rd->fdp != NULL;
	memset(dbuf, 0, nbytes);
	memcpy(dbuf, &rp, nbytes < sizeof(rp) ? nbytes : sizeof(rp));
	return 0;
}

/* Identify directive: enable directive. Data placement follows FDP and cannot be toggled */
int
xnvme_ramdisk_dir_send(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx)
{
	const struct xnvme_spec_cmd_dsend *cmd = &ctx->cmd.dsend;

	if (xnvme_ramdisk_check_nsid(ctx, false)) {
		return -EIO;
	}
	if (cmd->dtype != DTYPE_IDENTIFY || cmd->doper != DOPER_ENABLE ||
	    cmd->cdw12.tdtype != DTYPE_DATA_PLACEMENT || cmd->cdw12.endir != (rd->fdp != NULL)) {
		return ramdisk_invalid_field(ctx);
	}
	return 0;
}
