/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Zoned Namespace command set: command builders (which set only their own fields) and
 * convenience functions built on them with private synchronous contexts: zone descriptors,
 * zone counts, the changed-zone log and assembled zone reports.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <libxnvme.h>

#define ZND_DESCR_NBYTES sizeof(struct xnvme_spec_znd_descr)
#define ZND_HDR_NBYTES sizeof(struct xnvme_spec_znd_report_hdr)
#define ZND_DEXT_UNIT 64 /* the descriptor extension size (zdes) counts 64-byte units */

/* Zero-based dword count of a transfer; 0 for transfers shorter than one dword */
static inline uint32_t
numd_of(size_t nbytes)
{
	return nbytes >= 4 ? (uint32_t)(nbytes / 4 - 1) : 0;
}

/* Fold "submitted but completed with an error status" into an errno value */
static inline int
cmd_err(struct xnvme_cmd_ctx *ctx, int err)
{
	if (err) {
		return err < 0 ? err : -EIO;
	}
	return xnvme_cmd_ctx_cpl_status(ctx) ? -EIO : 0;
}

static bool
dev_is_zoned(struct xnvme_dev *dev)
{
	const struct xnvme_geo *geo = dev ? xnvme_dev_get_geo(dev) : NULL;

	return geo && geo->type == XNVME_GEO_ZONED;
}

const struct xnvme_spec_znd_idfy_ns *
xnvme_znd_dev_get_ns(struct xnvme_dev *dev)
{
	if (!dev_is_zoned(dev)) {
		errno = EINVAL;
		return NULL;
	}
	return (const struct xnvme_spec_znd_idfy_ns *)xnvme_dev_get_ns_css(dev);
}

const struct xnvme_spec_znd_idfy_ctrlr *
xnvme_znd_dev_get_ctrlr(struct xnvme_dev *dev)
{
	if (!dev_is_zoned(dev)) {
		errno = EINVAL;
		return NULL;
	}
	return (const struct xnvme_spec_znd_idfy_ctrlr *)xnvme_dev_get_ctrlr_css(dev);
}

const struct xnvme_spec_znd_idfy_lbafe *
xnvme_znd_dev_get_lbafe(struct xnvme_dev *dev)
{
	const struct xnvme_spec_znd_idfy_ns *zns = xnvme_znd_dev_get_ns(dev);
	const struct xnvme_spec_idfy_ns *ns;
	unsigned int fmt;

	if (!zns) {
		return NULL;
	}
	ns = xnvme_dev_get_ns(dev);
	if (!ns) {
		errno = EINVAL;
		return NULL;
	}

	/* the full NVMe format index: the upper two bits live apart from the lower four */
	fmt = ns->flbas.format | (ns->flbas.format_msb << 4);
	if (fmt >= sizeof(zns->lbafe) / sizeof(zns->lbafe[0])) {
		errno = EINVAL;
		return NULL;
	}
	return &zns->lbafe[fmt];
}

int
xnvme_znd_mgmt_send(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t zslba, bool select_all,
		    enum xnvme_spec_znd_cmd_mgmt_send_action zsa,
		    enum xnvme_spec_znd_mgmt_send_action_so zsa_so, void *dbuf)
{
	size_t dbuf_nbytes = 0;

	if (!ctx) {
		return -EINVAL;
	}

	/* a payload is the zone descriptor extension of the active format */
	if (dbuf) {
		const struct xnvme_spec_znd_idfy_lbafe *lbafe = xnvme_znd_dev_get_lbafe(ctx->dev);

		if (!lbafe) {
			return -EINVAL;
		}
		dbuf_nbytes = (size_t)lbafe->zdes * ZND_DEXT_UNIT;
	}

	ctx->cmd.common.opcode = XNVME_SPEC_ZND_OPC_MGMT_SEND;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.znd.mgmt_send.slba = zslba;
	ctx->cmd.znd.mgmt_send.select_all = select_all;
	ctx->cmd.znd.mgmt_send.zsa = zsa;
	ctx->cmd.znd.mgmt_send.zsaso = zsa_so;

	return xnvme_cmd_pass(ctx, dbuf_nbytes ? dbuf : NULL, dbuf_nbytes, NULL, 0);
}

int
xnvme_znd_mgmt_recv(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t slba,
		    enum xnvme_spec_znd_cmd_mgmt_recv_action zra,
		    enum xnvme_spec_znd_cmd_mgmt_recv_action_sf zrasf, uint8_t partial, void *dbuf,
		    uint32_t dbuf_nbytes)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_ZND_OPC_MGMT_RECV;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.znd.mgmt_recv.slba = slba;
	ctx->cmd.znd.mgmt_recv.ndwords = numd_of(dbuf_nbytes);
	ctx->cmd.znd.mgmt_recv.zra = zra;
	ctx->cmd.znd.mgmt_recv.zrasf = zrasf;
	ctx->cmd.znd.mgmt_recv.partial = partial ? 1 : 0;

	return xnvme_cmd_pass(ctx, dbuf, dbuf_nbytes, NULL, 0);
}

int
xnvme_znd_append(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t zslba, uint16_t nlb,
		 const void *dbuf, const void *mbuf)
{
	const struct xnvme_geo *geo = ctx ? xnvme_dev_get_geo(ctx->dev) : NULL;
	size_t nblocks = (size_t)nlb + 1;

	if (!geo) {
		return -EINVAL;
	}

	ctx->cmd.common.opcode = XNVME_SPEC_ZND_OPC_APPEND;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.znd.append.zslba = zslba;
	ctx->cmd.znd.append.nlb = nlb;

	/* const payloads only travel to the device; the pass API is not const-qualified */
	return xnvme_cmd_pass(ctx, (void *)dbuf, dbuf ? nblocks * geo->lba_nbytes : 0, (void *)mbuf,
			      mbuf ? nblocks * geo->nbytes_oob : 0);
}

int
xnvme_znd_zrwa_flush(struct xnvme_cmd_ctx *ctx, uint32_t nsid, uint64_t lba)
{
	if (!ctx) {
		return -EINVAL;
	}
	ctx->cmd.common.opcode = XNVME_SPEC_ZND_OPC_MGMT_SEND;
	ctx->cmd.common.nsid = nsid;
	ctx->cmd.znd.mgmt_send.slba = lba;
	ctx->cmd.znd.mgmt_send.zsa = XNVME_SPEC_ZND_CMD_MGMT_SEND_FLUSH;

	return xnvme_cmd_pass(ctx, NULL, 0, NULL, 0);
}

/*
 * One synchronous Zone Management Receive into a device buffer of `nbytes`, returning the
 * buffer (or NULL with *err set); the caller frees it with xnvme_buf_free()
 */
static void *
znd_recv_alloc(struct xnvme_dev *dev, uint64_t slba, enum xnvme_spec_znd_cmd_mgmt_recv_action_sf sf,
	       uint8_t partial, size_t nbytes, int *err)
{
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	void *buf = xnvme_buf_alloc(dev, nbytes);

	if (!buf) {
		*err = errno ? -errno : -ENOMEM;
		return NULL;
	}
	memset(buf, 0, nbytes);

	*err = cmd_err(&ctx, xnvme_znd_mgmt_recv(&ctx, xnvme_dev_get_nsid(dev), slba,
						 XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT, sf,
						 partial, buf, (uint32_t)nbytes));
	if (*err) {
		xnvme_buf_free(dev, buf);
		return NULL;
	}
	return buf;
}

/* Copy the first descriptor of a one-descriptor report; -EIO when it holds no zone */
static int
znd_descr_first(struct xnvme_dev *dev, uint64_t slba,
		enum xnvme_spec_znd_cmd_mgmt_recv_action_sf sf, uint8_t partial,
		struct xnvme_spec_znd_descr *zdescr)
{
	const struct xnvme_spec_znd_report_hdr *hdr;
	uint8_t *buf;
	int err;

	buf = znd_recv_alloc(dev, slba, sf, partial, ZND_HDR_NBYTES + ZND_DESCR_NBYTES, &err);
	if (!buf) {
		return err;
	}

	hdr = (const struct xnvme_spec_znd_report_hdr *)buf;
	if (!hdr->nzones) {
		err = -EIO;
	} else {
		memcpy(zdescr, buf + ZND_HDR_NBYTES, ZND_DESCR_NBYTES);
	}
	xnvme_buf_free(dev, buf);

	return err;
}

int
xnvme_znd_descr_from_dev(struct xnvme_dev *dev, uint64_t slba, struct xnvme_spec_znd_descr *zdescr)
{
	if (!dev || !zdescr) {
		return -EINVAL;
	}
	return znd_descr_first(dev, slba, XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL, 0, zdescr);
}

int
xnvme_znd_descr_from_dev_in_state(struct xnvme_dev *dev, enum xnvme_spec_znd_state state,
				  struct xnvme_spec_znd_descr *zdescr)
{
	enum xnvme_spec_znd_cmd_mgmt_recv_action_sf sf;

	switch (state) {
	case XNVME_SPEC_ZND_STATE_EMPTY:
		sf = XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EMPTY;
		break;
	case XNVME_SPEC_ZND_STATE_IOPEN:
		sf = XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_IOPEN;
		break;
	case XNVME_SPEC_ZND_STATE_EOPEN:
		sf = XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_EOPEN;
		break;
	case XNVME_SPEC_ZND_STATE_CLOSED:
		sf = XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_CLOSED;
		break;
	case XNVME_SPEC_ZND_STATE_FULL:
		sf = XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_FULL;
		break;
	case XNVME_SPEC_ZND_STATE_RONLY:
		sf = XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_RONLY;
		break;
	case XNVME_SPEC_ZND_STATE_OFFLINE:
		sf = XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_OFFLINE;
		break;
	default:
		return -EINVAL;
	}
	if (!dev || !zdescr) {
		return -EINVAL;
	}

	return znd_descr_first(dev, 0, sf, 1, zdescr);
}

int
xnvme_znd_stat(struct xnvme_dev *dev, enum xnvme_spec_znd_cmd_mgmt_recv_action_sf sfield,
	       uint64_t *nzones)
{
	const struct xnvme_spec_znd_report_hdr *hdr;
	int err;

	if (!dev || !nzones) {
		return -EINVAL;
	}

	hdr = znd_recv_alloc(dev, 0, sfield, 0, ZND_HDR_NBYTES, &err);
	if (!hdr) {
		return err;
	}
	*nzones = hdr->nzones;
	xnvme_buf_free(dev, (void *)hdr);

	return 0;
}

struct xnvme_spec_znd_log_changes *
xnvme_znd_log_changes_from_dev(struct xnvme_dev *dev)
{
	struct xnvme_cmd_ctx ctx;
	struct xnvme_spec_znd_log_changes *log;
	int err;

	if (!dev) {
		errno = EINVAL;
		return NULL;
	}

	log = xnvme_buf_alloc(dev, sizeof(*log));
	if (!log) {
		errno = errno ? errno : ENOMEM;
		return NULL;
	}

	ctx = xnvme_cmd_ctx_from_dev(dev);
	err = cmd_err(&ctx, xnvme_adm_log(&ctx, XNVME_SPEC_LOG_ZND_CHANGES, 0, 0,
					  xnvme_dev_get_nsid(dev), 0, log, sizeof(*log)));
	if (err) {
		xnvme_buf_free(dev, log);
		errno = -err;
		return NULL;
	}

	return log;
}

/*
 * Fetch `report->nentries` entries from `report->zslba` on, in chunks that fit the maximum data
 * transfer size. Partial reports make each header count exactly the descriptors returned, so a
 * short answer (fewer zones left than requested) ends the loop instead of being misread.
 */
static int
znd_report_fill(struct xnvme_dev *dev, const struct xnvme_geo *geo, struct xnvme_znd_report *report)
{
	enum xnvme_spec_znd_cmd_mgmt_recv_action zra = XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT;
	uint64_t zrent_nbytes = report->zrent_nbytes;
	uint64_t per_cmd = 1;
	uint64_t lba = report->zslba;
	uint32_t nsid = xnvme_dev_get_nsid(dev);
	uint32_t idx = 0;
	size_t buf_nbytes;
	uint8_t *buf;
	int err = 0;

	if (report->extended) {
		zra = XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT_EXTENDED;
	}
	if (geo->mdts_nbytes > ZND_HDR_NBYTES + zrent_nbytes) {
		per_cmd = (geo->mdts_nbytes - ZND_HDR_NBYTES) / zrent_nbytes;
	}
	if (per_cmd > report->nentries) {
		per_cmd = report->nentries;
	}
	buf_nbytes = ZND_HDR_NBYTES + per_cmd * zrent_nbytes;

	buf = xnvme_buf_alloc(dev, buf_nbytes);
	if (!buf) {
		return errno ? -errno : -ENOMEM;
	}

	while (idx < report->nentries) {
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
		uint64_t want = XNVME_MIN_U64(per_cmd, report->nentries - idx);
		uint32_t nbytes = (uint32_t)(ZND_HDR_NBYTES + want * zrent_nbytes);
		uint64_t got;
		const struct xnvme_spec_znd_descr *last;

		memset(buf, 0, nbytes);
		err = cmd_err(&ctx, xnvme_znd_mgmt_recv(&ctx, nsid, lba, zra,
							XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL, 1, buf,
							nbytes));
		if (err) {
			break;
		}

		got = XNVME_MIN_U64(((struct xnvme_spec_znd_report_hdr *)buf)->nzones, want);
		if (!got) {
			break;
		}
		memcpy(report->storage + idx * zrent_nbytes, buf + ZND_HDR_NBYTES,
		       got * zrent_nbytes);
		idx += (uint32_t)got;

		last = XNVME_ZND_REPORT_DESCR(report, idx - 1);
		lba = last->zslba + geo->nsect;
	}

	xnvme_buf_free(dev, buf);

	return err;
}

struct xnvme_znd_report *
xnvme_znd_report_from_dev(struct xnvme_dev *dev, uint64_t slba, size_t limit, uint8_t extended)
{
	const struct xnvme_spec_znd_idfy_lbafe *lbafe;
	const struct xnvme_geo *geo;
	struct xnvme_znd_report *report;
	uint64_t nentries, zrent_nbytes, entries_nbytes;
	int err;

	if (!dev_is_zoned(dev)) {
		errno = EINVAL;
		return NULL;
	}
	geo = xnvme_dev_get_geo(dev);
	lbafe = xnvme_znd_dev_get_lbafe(dev);
	if (!lbafe) {
		errno = EINVAL;
		return NULL;
	}
	if (extended && !lbafe->zdes) {
		errno = ENOSYS;
		return NULL;
	}
	if (limit > geo->nzone) {
		errno = EINVAL;
		return NULL;
	}

	nentries = limit ? limit : geo->nzone;
	zrent_nbytes = ZND_DESCR_NBYTES + (extended ? (uint64_t)lbafe->zdes * ZND_DEXT_UNIT : 0);
	entries_nbytes = nentries * zrent_nbytes;

	report = xnvme_buf_virt_alloc(0x1000, sizeof(*report) + entries_nbytes);
	if (!report) {
		errno = errno ? errno : ENOMEM;
		return NULL;
	}
	memset(report, 0, sizeof(*report) + entries_nbytes);

	report->nzones = geo->nzone;
	report->zd_nbytes = ZND_DESCR_NBYTES;
	report->zdext_nbytes = (uint32_t)lbafe->zdes * ZND_DEXT_UNIT;
	report->zrent_nbytes = zrent_nbytes;
	report->zslba = slba;
	report->zelba = slba + (nentries - 1) * geo->nsect;
	report->nentries = (uint32_t)nentries;
	report->extended = extended ? 1 : 0;
	report->entries_nbytes = entries_nbytes;
	report->report_nbytes = sizeof(*report) + entries_nbytes;

	if (nentries) {
		err = znd_report_fill(dev, geo, report);
		if (err) {
			xnvme_buf_virt_free(report);
			errno = -err;
			return NULL;
		}
	}

	return report;
}

/* xorshift64*: a private generator, so that callers' rand() sequences are left alone */
static uint64_t
znd_prng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;

	return x * 0x2545F4914F6CDD1DULL;
}

int
xnvme_znd_report_find_arbitrary(const struct xnvme_znd_report *report,
				enum xnvme_spec_znd_state state, uint64_t *zlba, int opts)
{
	uint64_t prng = opts ? (uint64_t)(unsigned int)opts : (uint64_t)time(NULL);
	uint32_t start;

	if (!report || !zlba || !report->nentries) {
		return -ENXIO;
	}

	prng = (prng * 0x9E3779B97F4A7C15ULL) | 1; /* never zero: xorshift would stick there */
	start = (uint32_t)(znd_prng_next(&prng) % report->nentries);

	for (uint32_t i = 0; i < report->nentries; ++i) {
		uint32_t idx = (start + i) % report->nentries;
		const struct xnvme_spec_znd_descr *descr = XNVME_ZND_REPORT_DESCR(report, idx);

		if (descr->zs == state && descr->zt == XNVME_SPEC_ZND_TYPE_SEQWR && descr->zcap) {
			*zlba = descr->zslba;
			return 0;
		}
	}

	return -ENXIO;
}
