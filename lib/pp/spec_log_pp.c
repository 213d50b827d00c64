// SPDX-License-Identifier: BSD-3-Clause
/*
 * Printers of log pages: SMART/health, error information, Flexible Data Placement
 * (configurations, statistics, events, reclaim unit handle usage and status) and the zoned
 * changed-zone list.
 *
 * Printers taking `limit` print the first `limit` entries of the array following the header;
 * the caller sized the buffer for them.
 */
#include <inttypes.h>
#include <string.h>
#include <libxnvme.h>
#include "pp.h"

int
xnvme_spec_log_health_fpr(FILE *stream, const struct xnvme_spec_log_health_entry *log, int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_log_health_entry", log, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_hex(stream, 2, "crit_warn", log->crit_warn);
	wrtn += xnvme_pp_dec(stream, 2, "comp_temp", log->comp_temp);
	wrtn += xnvme_pp_dec(stream, 2, "avail_spare", log->avail_spare);
	wrtn += xnvme_pp_dec(stream, 2, "avail_spare_thresh", log->avail_spare_thresh);
	wrtn += xnvme_pp_dec(stream, 2, "pct_used", log->pct_used);
	wrtn += xnvme_pp_hex(stream, 2, "eg_crit_warn_sum", log->eg_crit_warn_sum);
	wrtn += xnvme_pp_u128le(stream, 2, "data_units_read", log->data_units_read);
	wrtn += xnvme_pp_u128le(stream, 2, "data_units_written", log->data_units_written);
	wrtn += xnvme_pp_u128le(stream, 2, "host_read_cmds", log->host_read_cmds);
	wrtn += xnvme_pp_u128le(stream, 2, "host_write_cmds", log->host_write_cmds);
	wrtn += xnvme_pp_u128le(stream, 2, "ctrlr_busy_time", log->ctrlr_busy_time);
	wrtn += xnvme_pp_u128le(stream, 2, "pwr_cycles", log->pwr_cycles);
	wrtn += xnvme_pp_u128le(stream, 2, "pwr_on_hours", log->pwr_on_hours);
	wrtn += xnvme_pp_u128le(stream, 2, "unsafe_shutdowns", log->unsafe_shutdowns);
	wrtn += xnvme_pp_u128le(stream, 2, "mdi_errs", log->mdi_errs);
	wrtn += xnvme_pp_u128le(stream, 2, "nr_err_logs", log->nr_err_logs);
	wrtn += xnvme_pp_dec(stream, 2, "warn_comp_temp_time", log->warn_comp_temp_time);
	wrtn += xnvme_pp_dec(stream, 2, "crit_comp_temp_time", log->crit_comp_temp_time);

	/* the struct is packed: read the sensors by value */
	wrtn += fprintf(stream, "  temp_sens: [");
	for (int i = 0; i < 8; ++i) {
		uint16_t temp = log->temp_sens[i];

		wrtn += fprintf(stream, "%s%u", i ? ", " : "", (unsigned int)temp);
	}
	wrtn += fprintf(stream, "]\n");

	wrtn += xnvme_pp_dec(stream, 2, "tmt1tc", log->tmt1tc);
	wrtn += xnvme_pp_dec(stream, 2, "tmt2tc", log->tmt2tc);
	wrtn += xnvme_pp_dec(stream, 2, "tttmt1", log->tttmt1);
	wrtn += xnvme_pp_dec(stream, 2, "tttmt2", log->tttmt2);

	return wrtn;
}

int
xnvme_spec_log_health_pr(const struct xnvme_spec_log_health_entry *log, int opts)
{
	return xnvme_spec_log_health_fpr(stdout, log, opts);
}

/* The first `limit` entries, each a block mapping in a list */
int
xnvme_spec_log_erri_fpr(FILE *stream, const struct xnvme_spec_log_erri_entry *log, int limit,
			int opts)
{
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_log_erri_entry", log, &wrtn)) {
		return wrtn;
	}
	if (limit <= 0) {
		wrtn += fprintf(stream, "  []\n");
		return wrtn;
	}

	for (int i = 0; i < limit; ++i) {
		const struct xnvme_spec_log_erri_entry *entry = &log[i];

		wrtn += fprintf(stream, "  - ecnt: %" PRIu64 "\n", entry->ecnt);
		wrtn += xnvme_pp_hex(stream, 4, "sqid", entry->sqid);
		wrtn += xnvme_pp_hex(stream, 4, "cid", entry->cid);
		wrtn += fprintf(stream,
				"    status: {val: 0x%x, sc: 0x%x, sct: 0x%x, m: %u, dnr: %u}\n",
				(unsigned int)entry->status.val, (unsigned int)entry->status.sc,
				(unsigned int)entry->status.sct, (unsigned int)entry->status.m,
				(unsigned int)entry->status.dnr);
		wrtn += xnvme_pp_hex(stream, 4, "eloc", entry->eloc);
		wrtn += xnvme_pp_hex64(stream, 4, "lba", entry->lba);
		wrtn += xnvme_pp_hex(stream, 4, "nsid", entry->nsid);
		wrtn += xnvme_pp_hex(stream, 4, "ven_si", entry->ven_si);
		wrtn += xnvme_pp_hex(stream, 4, "trtype", entry->trtype);
		wrtn += xnvme_pp_hex(stream, 4, "cmd_si", entry->cmd_si);
		wrtn += xnvme_pp_hex(stream, 4, "trtype_si", entry->trtype_si);
	}

	return wrtn;
}

int
xnvme_spec_log_erri_pr(const struct xnvme_spec_log_erri_entry *log, int limit, int opts)
{
	return xnvme_spec_log_erri_fpr(stdout, log, limit, opts);
}

/*
 * One configuration descriptor with its reclaim unit handle descriptors, as a list item at
 * indent 4. Descriptors are packed back to back with arbitrary sizes, so the fixed part is
 * copied out instead of being read through a possibly misaligned pointer. `avail` is what is
 * left of the log from the descriptor on: handle descriptors beyond it are not read.
 */
static int
fdp_conf_desc_fpr(FILE *stream, const uint8_t *buf, size_t avail)
{
	const struct xnvme_spec_ruh_desc *ruh;
	struct xnvme_spec_fdp_conf_desc desc;
	size_t nruh;
	int wrtn = 0;

	memcpy(&desc, buf, sizeof(desc));
	ruh = (const void *)(buf + sizeof(desc));

	/* the handle descriptors live within the descriptor's own size and the log */
	nruh = 0;
	if (desc.ds >= sizeof(desc) && avail >= sizeof(desc)) {
		size_t span = XNVME_MIN_U64(desc.ds, avail);

		nruh = XNVME_MIN_U64(desc.nruh, (span - sizeof(desc)) / sizeof(*ruh));
	}

	wrtn += fprintf(stream, "    - ds: %u\n", (unsigned int)desc.ds);
	wrtn += xnvme_pp_hex(stream, 6, "fdpa", desc.fdpa.val);
	wrtn += xnvme_pp_dec(stream, 6, "vss", desc.vss);
	wrtn += xnvme_pp_dec(stream, 6, "nrg", desc.nrg);
	wrtn += xnvme_pp_dec(stream, 6, "nruh", desc.nruh);
	wrtn += xnvme_pp_dec(stream, 6, "maxpids", desc.maxpids);
	wrtn += xnvme_pp_dec(stream, 6, "nns", desc.nns);
	wrtn += xnvme_pp_dec(stream, 6, "runs", desc.runs);
	wrtn += xnvme_pp_dec(stream, 6, "erutl", desc.erutl);
	if (!nruh) {
		wrtn += fprintf(stream, "      ruh_desc: []\n");
		return wrtn;
	}

	wrtn += xnvme_pp_head(stream, 6, "ruh_desc");
	for (size_t i = 0; i < nruh; ++i) {
		wrtn += fprintf(stream, "        - {ruht: 0x%x}\n", (unsigned int)ruh[i].ruht);
	}

	return wrtn;
}

/* ncfg + 1 descriptors of variable size (`ds` bytes each), bounded by the log's `size` */
int
xnvme_spec_log_fdp_conf_pr(const struct xnvme_spec_log_fdp_conf *log, int opts)
{
	FILE *stream = stdout;
	const uint8_t *base = (const uint8_t *)log;
	size_t offset = sizeof(*log);
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_log_fdp_conf", log, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "ncfg", log->ncfg);
	wrtn += xnvme_pp_dec(stream, 2, "version", log->version);
	wrtn += xnvme_pp_dec(stream, 2, "size", log->size);
	if (log->size && offset + sizeof(struct xnvme_spec_fdp_conf_desc) > log->size) {
		wrtn += fprintf(stream, "  conf_desc: []\n");
		return wrtn;
	}
	wrtn += xnvme_pp_head(stream, 2, "conf_desc");

	for (int i = 0; i <= log->ncfg; ++i) {
		uint16_t ds;

		if (log->size && offset + sizeof(struct xnvme_spec_fdp_conf_desc) > log->size) {
			break;
		}
		wrtn += fdp_conf_desc_fpr(stream, base + offset,
					  log->size ? log->size - offset : SIZE_MAX);

		memcpy(&ds, base + offset, sizeof(ds));
		if (!ds) {
			break;
		}
		offset += ds;
	}

	return wrtn;
}

int
xnvme_spec_log_fdp_stats_pr(const struct xnvme_spec_log_fdp_stats *log, int opts)
{
	FILE *stream = stdout;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_log_fdp_stats", log, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_u64s(stream, 2, "hbmw", log->hbmw, 2);
	wrtn += xnvme_pp_u64s(stream, 2, "mbmw", log->mbmw, 2);
	wrtn += xnvme_pp_u64s(stream, 2, "mbe", log->mbe, 2);

	return wrtn;
}

int
xnvme_spec_log_fdp_events_pr(const struct xnvme_spec_log_fdp_events *log, int limit, int opts)
{
	FILE *stream = stdout;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_log_fdp_events", log, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "nevents", log->nevents);
	if (limit <= 0) {
		wrtn += fprintf(stream, "  event: []\n");
		return wrtn;
	}

	wrtn += xnvme_pp_head(stream, 2, "event");
	for (int i = 0; i < limit; ++i) {
		const struct xnvme_spec_fdp_event *event = &log->event[i];

		wrtn += fprintf(stream, "    - type: 0x%x\n", (unsigned int)event->type);
		wrtn += xnvme_pp_hex(stream, 6, "fdpef", event->fdpef.val);
		wrtn += xnvme_pp_hex(stream, 6, "pid", event->pid);
		wrtn += xnvme_pp_dec(stream, 6, "timestamp", event->timestamp);
		wrtn += xnvme_pp_hex(stream, 6, "nsid", event->nsid);
		wrtn += xnvme_pp_bytes(stream, 6, "type_specific", event->type_specific,
				       sizeof(event->type_specific));
		wrtn += xnvme_pp_hex(stream, 6, "rgid", event->rgid);
		wrtn += xnvme_pp_hex(stream, 6, "ruhid", event->ruhid);
	}

	return wrtn;
}

int
xnvme_spec_log_ruhu_pr(const struct xnvme_spec_log_ruhu *log, int limit, int opts)
{
	FILE *stream = stdout;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_log_ruhu", log, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "nruh", log->nruh);
	if (limit <= 0) {
		wrtn += fprintf(stream, "  ruhu_desc: []\n");
		return wrtn;
	}

	wrtn += xnvme_pp_head(stream, 2, "ruhu_desc");
	for (int i = 0; i < limit; ++i) {
		const struct xnvme_spec_ruhu_desc *desc = &log->ruhu_desc[i];

		wrtn += fprintf(stream, "    - {ruha: 0x%x}\n", (unsigned int)desc->ruha);
	}

	return wrtn;
}

int
xnvme_spec_ruhs_pr(const struct xnvme_spec_ruhs *ruhs, int limit, int opts)
{
	FILE *stream = stdout;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_ruhs", ruhs, &wrtn)) {
		return wrtn;
	}

	wrtn += xnvme_pp_dec(stream, 2, "nruhsd", ruhs->nruhsd);
	if (limit <= 0) {
		wrtn += fprintf(stream, "  desc: []\n");
		return wrtn;
	}

	wrtn += xnvme_pp_head(stream, 2, "desc");
	for (int i = 0; i < limit; ++i) {
		const struct xnvme_spec_ruhs_desc *desc = &ruhs->desc[i];

		wrtn += fprintf(stream,
				"    - {pi: 0x%x, ruhi: 0x%x, earutr: %" PRIu32 ", ruamw: %" PRIu64
				"}\n",
				(unsigned int)desc->pi, (unsigned int)desc->ruhi, desc->earutr,
				desc->ruamw);
	}

	return wrtn;
}

int
xnvme_spec_znd_log_changes_fpr(FILE *stream, const struct xnvme_spec_znd_log_changes *changes,
			       int opts)
{
	int nidents;
	int wrtn = 0;

	if (!xnvme_pp_begin(stream, opts, "xnvme_spec_znd_log_changes", changes, &wrtn)) {
		return wrtn;
	}

	nidents = XNVME_MIN(changes->nidents, ZND_CHANGES_LEN);
	wrtn += xnvme_pp_dec(stream, 2, "nidents", changes->nidents);
	if (!nidents) {
		wrtn += fprintf(stream, "  idents: []\n");
		return wrtn;
	}

	wrtn += xnvme_pp_head(stream, 2, "idents");
	for (int i = 0; i < nidents; ++i) {
		wrtn += fprintf(stream, "    - 0x%016" PRIx64 "\n", changes->idents[i]);
	}

	return wrtn;
}

int
xnvme_spec_znd_log_changes_pr(const struct xnvme_spec_znd_log_changes *changes, int opts)
{
	return xnvme_spec_znd_log_changes_fpr(stdout, changes, opts);
}
