// SPDX-License-Identifier: BSD-3-Clause
/*
 * Identify for the ramdisk controller: controller and namespace data describing the namespace
 * the URI configured (LBA format with metadata and protection information, zoned, key-value,
 * FDP), the active namespace lists, the namespace identification descriptors, the I/O command
 * set list and the command-set specific structures of the namespace's set (a zoned namespace
 * also answers the NVM set's, as ZNS devices do). The file-system set (CSI 0x1F) is refused, so
 * the core settles on the namespace's own set.
 */
#include <string.h>

#include "ramdisk.h"

#define IDFY_NBYTES 4096

#define NIDT_EUI64 0x1
#define NIDT_NGUID 0x2
#define NIDT_CSI 0x4

/* Copies `src` into a fixed-width, space-padded, non-terminated ASCII field */
static void
strpad(void *dst, size_t width, const char *src)
{
	size_t len = strnlen(src, width);

	memcpy(dst, src, len);
	memset((uint8_t *)dst + len, ' ', width - len);
}

static void
idfy_ctrlr(const struct ramdisk *rd, struct xnvme_spec_idfy_ctrlr *ctrlr)
{
	char sn[XNVME_SPEC_CTRLR_SN_LEN + 1];

	/* not a PCI function: no vendor IDs, like software NVMe targets */
	ctrlr->vid = 0;
	ctrlr->ssvid = 0;
	/* unique per URI within a process, which is the ramdisk's lifetime */
	snprintf(sn, sizeof(sn), "RAMDISK%013" PRIx64, (uint64_t)(rd->eui64 & 0xFFFFFFFFFFFFFULL));
	strpad(ctrlr->sn, sizeof(ctrlr->sn), sn);
	strpad(ctrlr->mn, sizeof(ctrlr->mn), "xnvme ramdisk");
	strpad(ctrlr->fr, sizeof(ctrlr->fr), "0.7.5");

	ctrlr->mdts = RAMDISK_MDTS;
	ctrlr->cntlid = 1;
	ctrlr->ver.val = 0x00020000;
	ctrlr->ctratt.extended_lba_formats = 1;
	ctrlr->ctratt.endurance_groups = rd->fdp != NULL;
	ctrlr->ctratt.flexible_data_placement = rd->fdp != NULL;
	ctrlr->cntrltype = 1; /* I/O controller */
	ctrlr->oacs.directives = 1;

	ctrlr->acl = 3;
	ctrlr->aerl = 3;
	ctrlr->frmw.slot1_ro = 1;
	ctrlr->frmw.num_slots = 1;
	ctrlr->frmw.activation_without_reset = 1;
	ctrlr->lpa.ns_smart = 1; /* one namespace: its numbers are the controller's */
	ctrlr->lpa.celp = 1;
	ctrlr->lpa.edlp = 1;
	ctrlr->elpe = RAMDISK_ERRLOG_NENTRIES - 1;
	ctrlr->npss = 0;
	ctrlr->wctemp = RAMDISK_WCTEMP_K;
	ctrlr->cctemp = RAMDISK_CCTEMP_K;
	ctrlr->tnvmcap[0] =
		rd->ns->csi == XNVME_SPEC_CSI_KV ? rd->nbytes : rd->nlbas << rd->lba_shift;
	ctrlr->unvmcap[0] = 0;

	ctrlr->sqes.min = 6;
	ctrlr->sqes.max = 6;
	ctrlr->cqes.min = 4;
	ctrlr->cqes.max = 4;
	ctrlr->nn = 1;
	/* one namespace: the optional commands are those of its command set */
	ctrlr->oncs.compare = rd->ns->csi != XNVME_SPEC_CSI_KV;
	ctrlr->oncs.write_zeroes = rd->ns->csi != XNVME_SPEC_CSI_KV;
	ctrlr->oncs.write_unc = rd->ns->csi == XNVME_SPEC_CSI_NVM;
	ctrlr->oncs.dsm = rd->ns->csi == XNVME_SPEC_CSI_NVM;
	ctrlr->oncs.copy = rd->ns->csi == XNVME_SPEC_CSI_NVM;
	ctrlr->vwc.present = 1;
	ctrlr->vwc.flush_broadcast = 0x3; /* Flush accepts NSID 0xFFFFFFFF */
	ctrlr->cdfs.format0 = 1;
	ctrlr->mnan = 0;

	/* the URI is cut to what fits the 256-byte field, terminator included */
	snprintf((char *)ctrlr->subnqn, sizeof(ctrlr->subnqn),
		 "nqn.2014-08.org.nvmexpress:ramdisk:%.220s", rd->uri);

	/* one operational power state; mp in 0.01 W units */
	ctrlr->psd[0].mp = 100;
	ctrlr->psd[0].rrt = 0;
	ctrlr->psd[0].rrl = 0;
	ctrlr->psd[0].rwt = 0;
	ctrlr->psd[0].rwl = 0;
}

/* Base namespace data; a key-value namespace has none (zero-filled, as for other sets) */
static void
idfy_ns(const struct ramdisk *rd, struct xnvme_spec_idfy_ns *ns)
{
	const struct ramdisk_cfg *cfg = &rd->cfg;

	if (rd->ns->csi == XNVME_SPEC_CSI_KV) {
		return;
	}
	ns->nsze = rd->nlbas;
	ns->ncap = rd->nlbas;
	ns->nuse = rd->nlbas;
	ns->nlbaf = 0; /* zero-based: one format */
	ns->flbas.format = 0;
	ns->flbas.extended = cfg->mset;
	ns->lbaf[0].ms = cfg->ms;
	ns->lbaf[0].ds = rd->lba_shift;
	ns->lbaf[0].rp = 0;

	if (cfg->ms) {
		/* metadata both ways (interleaved, separate); PI of every type at either end */
		ns->mc.extended = 1;
		ns->mc.pointer = 1;
		if (cfg->ms >= xnvme_pi_size(cfg->pif)) {
			ns->dpc.val = 0x1F;
		}
	}
	ns->dps.pit = cfg->pi;
	ns->dps.md_start = cfg->pi && cfg->pil;

	/* deallocated LBAs read as zeroes (PI: all ones); Write Zeroes may deallocate */
	ns->dlfeat.bits.read_value = 1;
	ns->dlfeat.bits.write_zero_deallocate = rd->ns->csi == XNVME_SPEC_CSI_NVM;

	ns->nvmcap[0] = rd->nlbas << rd->lba_shift;
	if (rd->ns->csi == XNVME_SPEC_CSI_NVM) {
		ns->mssrl = RAMDISK_MSSRL;
		ns->mcl = RAMDISK_MCL;
		ns->msrc = RAMDISK_MSRC;
	}
	ns->endgid = rd->fdp ? RAMDISK_ENDGID : 0;
	memcpy(ns->nguid, rd->nguid, sizeof(ns->nguid));
	ns->eui64 = rd->eui64;
}

/* Namespace identification descriptors: EUI64, NGUID and CSI */
static void
idfy_nsdscr(const struct ramdisk *rd, uint8_t *buf)
{
	size_t off = 0;

	buf[off] = NIDT_EUI64;
	buf[off + 1] = sizeof(rd->eui64);
	memcpy(&buf[off + 4], &rd->eui64, sizeof(rd->eui64));
	off += 4 + sizeof(rd->eui64);

	buf[off] = NIDT_NGUID;
	buf[off + 1] = sizeof(rd->nguid);
	memcpy(&buf[off + 4], rd->nguid, sizeof(rd->nguid));
	off += 4 + sizeof(rd->nguid);

	buf[off] = NIDT_CSI;
	buf[off + 1] = 1;
	buf[off + 4] = rd->ns->csi;
}

/* Active namespace IDs greater than the given one: ours is 1 */
static int
idfy_nslist(struct xnvme_cmd_ctx *ctx, uint32_t *list)
{
	uint32_t nsid = ctx->cmd.common.nsid;

	if (nsid >= 0xFFFFFFFE) {
		return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, RAMDISK_SC_INVALID_NS);
	}
	if (nsid < RAMDISK_NSID) {
		list[0] = RAMDISK_NSID;
	}
	return 0;
}

/* Namespace-scoped identify: our namespace, or the broadcast value where NVMe permits it */
static int
check_ns(struct xnvme_cmd_ctx *ctx, bool broadcast_ok)
{
	uint32_t nsid = ctx->cmd.common.nsid;

	if (nsid == RAMDISK_NSID || (broadcast_ok && nsid == 0xFFFFFFFF)) {
		return 0;
	}
	return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, RAMDISK_SC_INVALID_NS);
}

int
xnvme_ramdisk_adm_idfy(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, void *dbuf,
		       size_t dbuf_nbytes)
{
	union {
		struct xnvme_spec_idfy idfy;
		uint8_t raw[IDFY_NBYTES];
		uint32_t nsids[IDFY_NBYTES / sizeof(uint32_t)];
	} data;
	uint8_t csi = ctx->cmd.idfy.csi;
	const struct ramdisk_ns_ops *css = NULL;
	int err = 0;

	if (!dbuf || dbuf_nbytes < IDFY_NBYTES) {
		return ramdisk_invalid_field(ctx);
	}
	memset(&data, 0, sizeof(data));

	/* command-set specific data: the namespace's set, and NVM's on a zoned namespace */
	if (csi == rd->ns->csi) {
		css = rd->ns;
	} else if (csi == XNVME_SPEC_CSI_NVM && rd->ns->csi == XNVME_SPEC_CSI_ZONED) {
		css = &xnvme_ramdisk_ns_nvm;
	}

	switch (ctx->cmd.idfy.cns) {
	case XNVME_SPEC_IDFY_NS:
		/* the broadcast value asks for what all namespaces have in common: the same */
		err = check_ns(ctx, true);
		if (!err) {
			idfy_ns(rd, &data.idfy.ns);
		}
		break;

	case XNVME_SPEC_IDFY_CTRLR:
		idfy_ctrlr(rd, &data.idfy.ctrlr);
		break;

	case XNVME_SPEC_IDFY_NSLIST:
		err = idfy_nslist(ctx, data.nsids);
		break;

	case XNVME_SPEC_IDFY_NSDSCR:
		err = check_ns(ctx, false);
		if (!err) {
			idfy_nsdscr(rd, data.raw);
		}
		break;

	case XNVME_SPEC_IDFY_NS_IOCS:
		err = check_ns(ctx, false);
		if (!err && !css) {
			err = ramdisk_invalid_field(ctx);
		}
		if (!err) {
			css->idfy_ns_css(rd, data.raw);
		}
		break;

	case XNVME_SPEC_IDFY_CTRLR_IOCS:
		if (!css) {
			err = ramdisk_invalid_field(ctx);
			break;
		}
		css->idfy_ctrlr_css(rd, data.raw);
		break;

	case XNVME_SPEC_IDFY_NSLIST_IOCS:
		if (!css) {
			err = ramdisk_invalid_field(ctx);
			break;
		}
		err = idfy_nslist(ctx, data.nsids);
		break;

	case XNVME_SPEC_IDFY_IOCS:
		/* one combination: the namespace's command set (a zoned one comes with NVM) */
		data.idfy.cs.iocsc[0].val = 1ULL << rd->ns->csi;
		if (rd->ns->csi == XNVME_SPEC_CSI_ZONED) {
			data.idfy.cs.iocsc[0].val |= 1ULL << XNVME_SPEC_CSI_NVM;
		}
		break;

	default:
		err = ramdisk_invalid_field(ctx);
		break;
	}
	if (err) {
		return err;
	}
	memcpy(dbuf, &data, IDFY_NBYTES);
	return 0;
}
