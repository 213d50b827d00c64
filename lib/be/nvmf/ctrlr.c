// SPDX-License-Identifier: BSD-3-Clause
/*
 * Opening a target over a transport: the admin connection (Connect to queue 0 with a dynamic
 * controller), CAP and VS, controller enable, Identify Controller for IOCCSZ, then the
 * connection of the synchronous I/O path (queue 1). Closing shuts the controller down
 * (CC.SHN) and closes every connection. I/O queues of xnvme_queue_init() connect as queues
 * 2, 3, ...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nvmf.h"

#define ADMIN_NCMDS 4
#define SYNC_NCMDS 1
#define SHUTDOWN_TIMEOUT_MS 2000
#define QID_FIRST_ASYNC 2
#define QID_TRIES 4

/* FNV-1a: stable per-host identifiers without global state */
static uint64_t
hash_str(const char *s, uint64_t seed)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	for (; *s; ++s) {
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	}
	return h;
}

/* Host NQN: the option, else /etc/nvme/hostnqn, else a UUID NQN derived from the host name */
static void
host_ident(struct xnvme_nvmf_target *tgt, const char *hostnqn)
{
	char name[256] = "localhost";
	uint64_t hi, lo;

	if (hostnqn) {
		snprintf(tgt->hostnqn, sizeof(tgt->hostnqn), "%s", hostnqn);
	} else {
		FILE *fp = fopen("/etc/nvme/hostnqn", "r");

		if (fp) {
			if (fgets(tgt->hostnqn, sizeof(tgt->hostnqn), fp)) {
				tgt->hostnqn[strcspn(tgt->hostnqn, "\r\n")] = '\0';
			}
			fclose(fp);
		}
	}
	gethostname(name, sizeof(name) - 1);
	hi = hash_str(name, 1);
	lo = hash_str(name, 2);
	for (int i = 0; i < 8; ++i) {
		tgt->hostid[i] = (uint8_t)(hi >> (8 * i));
		tgt->hostid[8 + i] = (uint8_t)(lo >> (8 * i));
	}
	if (!tgt->hostnqn[0]) {
		snprintf(tgt->hostnqn, sizeof(tgt->hostnqn),
			 "nqn.2014-08.org.nvmexpress:uuid:%08x-%04x-%04x-%04x-%012llx",
			 (unsigned)(hi >> 32), (unsigned)(hi >> 16) & 0xFFFF, (unsigned)hi & 0xFFFF,
			 (unsigned)(lo >> 48), (unsigned long long)(lo & 0xFFFFFFFFFFFFULL));
	}
}

static int
target_from_opts(struct xnvme_dev *dev, const struct xnvme_nvmf_transport *tr,
		 struct xnvme_nvmf_target *tgt)
{
	const struct xnvme_opts *opts = &dev->opts;
	int err = xnvme_nvmf_uri_parse(tr, dev->ident.uri, tgt);

	if (err == -EINVAL) {
		return xnvme_dev_set_errmsg(dev, err, "unknown URI option (%s)", tr->uri_opts);
	}
	if (err) {
		return err;
	}
	if (opts->adrfam) {
		if (!strcasecmp(opts->adrfam, "ipv4")) {
			tgt->family = AF_INET;
		} else if (!strcasecmp(opts->adrfam, "ipv6")) {
			tgt->family = AF_INET6;
		} else {
			return xnvme_dev_set_errmsg(dev, -EINVAL, "adrfam must be IPv4 or IPv6");
		}
	}
	if (opts->subnqn) {
		snprintf(tgt->subnqn, sizeof(tgt->subnqn), "%s", opts->subnqn);
	} else if (!tgt->subnqn[0]) {
		snprintf(tgt->subnqn, sizeof(tgt->subnqn), "%s", XNVME_FABRICS_DISC_NQN);
	}
	host_ident(tgt, opts->hostnqn);
	tgt->kato_ms = opts->keep_alive_timeout_ms;
	tgt->admin_timeout_us = opts->admin_timeout;
	tgt->io_timeout_us = opts->command_timeout;
	return 0;
}

/* Identify (`cns`, `nsid`) on the admin connection into a new 4 KiB buffer; NULL and *err */
static void *
admin_identify(struct xnvme_nvmf_ctrlr *ctrlr, uint8_t cns, uint32_t nsid, int *err)
{
	void *buf = malloc(4096);
	struct xnvme_cmd_ctx ctx = {0};

	if (!buf) {
		*err = -ENOMEM;
		return NULL;
	}
	ctx.opts = XNVME_CMD_SYNC;
	ctx.cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	ctx.cmd.common.nsid = nsid;
	ctx.cmd.idfy.cns = cns;
	*err = ctrlr->tr->conn_run(ctrlr->admin, &ctx, buf, 4096, NULL, 0, NULL, 0);
	if (*err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int
admin_identify_ioccsz(struct xnvme_dev *dev, struct xnvme_nvmf_ctrlr *ctrlr)
{
	int err;
	struct xnvme_spec_idfy_ctrlr *id = admin_identify(ctrlr, XNVME_SPEC_IDFY_CTRLR, 0, &err);

	if (!id) {
		return xnvme_dev_set_errmsg(dev, err, "Identify Controller failed");
	}
	ctrlr->icd_max = id->nvmf_specific.ioccsz >= 4 ? id->nvmf_specific.ioccsz * 16 - 64 : 0;
	free(id);
	return 0;
}

/*
 * NVMe over Fabrics moves metadata only interleaved with the data (extended LBAs): there is
 * no metadata pointer in a capsule. A namespace whose active format keeps metadata separate
 * cannot be read or written over a fabric; say so at open instead of failing every command. A
 * namespace that cannot be identified is left to the commands (the error shows there).
 */
static int
admin_check_metadata(struct xnvme_dev *dev, struct xnvme_nvmf_ctrlr *ctrlr, uint32_t nsid)
{
	int err;
	struct xnvme_spec_idfy_ns *ns = admin_identify(ctrlr, XNVME_SPEC_IDFY_NS, nsid, &err);
	uint32_t fmt, ms;

	if (!ns) {
		return err == -ENOMEM ? err : 0;
	}
	fmt = (uint32_t)ns->flbas.format | ((uint32_t)ns->flbas.format_msb << 4);
	ms = fmt < 64 ? ns->lbaf[fmt].ms : 0;
	err = ms && !ns->flbas.extended
		      ? xnvme_dev_set_errmsg(
				dev, -ENOTSUP,
				"namespace %u keeps %u bytes of metadata per LBA in a separate buffer "
				"(FLBAS bit 4 clear); NVMe over Fabrics transfers metadata only "
				"interleaved with the data (extended LBA format)",
				nsid, ms)
		      : 0;
	free(ns);
	return err;
}

/* Set Features Number of Queues: how many I/O queue IDs the controller grants */
static uint16_t
admin_nqueues(struct xnvme_nvmf_ctrlr *ctrlr)
{
	struct xnvme_cmd_ctx ctx = {0};
	uint32_t want = 1022; /* zero-based */
	uint32_t nsqa, ncqa;

	ctx.opts = XNVME_CMD_SYNC;
	ctx.cmd.common.opcode = XNVME_SPEC_ADM_OPC_SFEAT;
	ctx.cmd.common.ndt = XNVME_SPEC_FEAT_NQUEUES;
	ctx.cmd.common.ndm = (want << 16) | want;
	if (ctrlr->tr->conn_run(ctrlr->admin, &ctx, NULL, 0, NULL, 0, NULL, 0)) {
		return 64; /* not answered: assume a modest number */
	}
	nsqa = ctx.cpl.cdw0 & 0xFFFF;
	ncqa = ctx.cpl.cdw0 >> 16;
	nsqa = nsqa < ncqa ? nsqa : ncqa;
	/* IDs 1..nsqa+1; the table holds 1023 */
	return (uint16_t)(nsqa + 2 < 1024 ? nsqa + 2 : 1024);
}

/* Opens `conn` as queue `qid` and Connects it; the command timeout is `timeout_us` after */
static int
conn_up(struct xnvme_dev *dev, void *conn, uint32_t ncmds, uint16_t qid, uint16_t sqsize,
	uint64_t timeout_us)
{
	struct xnvme_nvmf_ctrlr *ctrlr = dev->state;
	const struct xnvme_nvmf_transport *tr = ctrlr->tr;
	char msg[256] = "";
	uint16_t cntlid;
	int err;

	err = tr->conn_open(ctrlr, conn, qid, ncmds, sqsize, msg, sizeof(msg));
	if (err) {
		return xnvme_dev_set_errmsg(dev, err, "%s", msg);
	}
	tr->conn_set(conn, ctrlr->tgt.admin_timeout_us * 1000ULL, XNVME_NVMF_ICD_KEEP);
	err = xnvme_nvmf_connect(ctrlr, conn, qid, sqsize, qid ? ctrlr->cntlid : 0xFFFF, &cntlid);
	if (err) {
		tr->conn_close(conn);
		return xnvme_dev_set_errmsg(dev, err, "Fabrics Connect of queue %u to '%s' failed",
					    qid, ctrlr->tgt.subnqn);
	}
	if (!qid) {
		ctrlr->cntlid = cntlid;
	}
	tr->conn_set(conn, timeout_us * 1000ULL, qid ? ctrlr->icd_max : XNVME_NVMF_ICD_KEEP);
	return 0;
}

void
xnvme_nvmf_dev_close(struct xnvme_dev *dev)
{
	struct xnvme_nvmf_ctrlr *ctrlr;

	if (!dev || !dev->state) {
		return;
	}
	ctrlr = dev->state;
	xnvme_nvmf_keep_alive_stop(ctrlr);
	if (ctrlr->sync) {
		ctrlr->tr->conn_close(ctrlr->sync);
		free(ctrlr->sync);
	}
	if (ctrlr->admin) {
		if (!ctrlr->tr->conn_err(ctrlr->admin)) {
			/* an unresponsive target must not hold close for the whole admin timeout */
			ctrlr->tr->conn_set(ctrlr->admin,
					    (uint64_t)SHUTDOWN_TIMEOUT_MS * 1000000ULL,
					    XNVME_NVMF_ICD_KEEP);
			xnvme_nvmf_ctrlr_shutdown(ctrlr, SHUTDOWN_TIMEOUT_MS);
		}
		ctrlr->tr->conn_close(ctrlr->admin);
		free(ctrlr->admin);
	}
	if (ctrlr->tr->fini) {
		ctrlr->tr->fini(ctrlr);
	}
	pthread_mutex_destroy(&ctrlr->admin_lock);
	pthread_mutex_destroy(&ctrlr->sync_lock);
	pthread_mutex_destroy(&ctrlr->qid_lock);
	free(ctrlr);
	dev->state = NULL;
}

/* Admin connection, CAP/VS, enable, and for an NVM subsystem IOCCSZ and the sync connection */
static int
ctrlr_up(struct xnvme_dev *dev, struct xnvme_nvmf_ctrlr *ctrlr)
{
	const struct xnvme_nvmf_transport *tr = ctrlr->tr;
	uint64_t vs = 0;
	int err;

	ctrlr->admin = calloc(1, tr->conn_nbytes);
	if (!ctrlr->admin) {
		return -ENOMEM;
	}
	err = conn_up(dev, ctrlr->admin, ADMIN_NCMDS, 0, 31, ctrlr->tgt.admin_timeout_us);
	if (err) {
		free(ctrlr->admin);
		ctrlr->admin = NULL;
		return err;
	}
	err = xnvme_nvmf_prop_get(ctrlr, ctrlr->admin, XNVME_PROP_CAP, 1, &ctrlr->cap);
	err = err ? err : xnvme_nvmf_prop_get(ctrlr, ctrlr->admin, XNVME_PROP_VS, 0, &vs);
	if (err) {
		return xnvme_dev_set_errmsg(dev, err, "Property Get CAP/VS failed");
	}
	ctrlr->vs = (uint32_t)vs;
	ctrlr->mqes = (uint16_t)(ctrlr->cap & 0xFFFF);
	err = xnvme_nvmf_ctrlr_enable(ctrlr);
	if (err) {
		return xnvme_dev_set_errmsg(dev, err, "controller enable (CC.EN, CSTS.RDY) failed");
	}
	if (!strcmp(ctrlr->tgt.subnqn, XNVME_FABRICS_DISC_NQN)) {
		return 0;
	}
	err = admin_identify_ioccsz(dev, ctrlr);
	err = err ? err : admin_check_metadata(dev, ctrlr, dev->opts.nsid ? dev->opts.nsid : 1);
	if (err) {
		return err;
	}
	ctrlr->sync = calloc(1, tr->conn_nbytes);
	if (!ctrlr->sync) {
		return -ENOMEM;
	}
	err = conn_up(dev, ctrlr->sync, SYNC_NCMDS, 1, ctrlr->mqes < 1 ? ctrlr->mqes : 1,
		      ctrlr->tgt.io_timeout_us);
	if (err) {
		free(ctrlr->sync);
		ctrlr->sync = NULL;
	}
	return err;
}

int
xnvme_nvmf_dev_open(struct xnvme_dev *dev, const struct xnvme_nvmf_transport *tr)
{
	struct xnvme_nvmf_target tgt;
	struct xnvme_nvmf_ctrlr *ctrlr;
	int err;

	err = target_from_opts(dev, tr, &tgt);
	if (err) {
		return err;
	}
	ctrlr = calloc(1, sizeof(*ctrlr));
	if (!ctrlr) {
		return -ENOMEM;
	}
	ctrlr->tr = tr;
	ctrlr->tgt = tgt;
	pthread_mutex_init(&ctrlr->admin_lock, NULL);
	pthread_mutex_init(&ctrlr->sync_lock, NULL);
	pthread_mutex_init(&ctrlr->qid_lock, NULL);
	dev->state = ctrlr;

	err = tr->init ? tr->init(ctrlr) : 0;
	if (err) {
		xnvme_dev_set_errmsg(dev, err, "%s: setting up the transport failed", tr->name);
	}
	err = err ? err : ctrlr_up(dev, ctrlr);
	if (err) {
		xnvme_nvmf_dev_close(dev);
		return err;
	}
	ctrlr->nqids = ctrlr->sync ? admin_nqueues(ctrlr) : 0;
	/* only now: the admin commands above use the admin connection without admin_lock */
	if (tgt.kato_ms) {
		err = xnvme_nvmf_keep_alive_start(ctrlr);
		if (err) {
			xnvme_nvmf_dev_close(dev);
			return xnvme_dev_set_errmsg(dev, err, "cannot start the keep-alive thread");
		}
	}
	ctrlr->qid_next = QID_FIRST_ASYNC;
	dev->ident.dtype = 2;
	dev->ident.nsid = dev->opts.nsid ? dev->opts.nsid : 1;
	dev->ident.csi = XNVME_SPEC_CSI_NVM;
	dev->opts.spdk_fabrics = 1;
	err = xnvme_be_pick_default(dev, "posix", tr->name, tr->name, tr->name);
	if (err) {
		xnvme_nvmf_dev_close(dev);
		return xnvme_dev_set_errmsg(dev, err, "cannot pick default mechanisms");
	}
	return 0;
}

/*
 * Takes a free queue ID, round robin: a target tears a closed queue down asynchronously and
 * refuses to create the same ID again until it has (nvmet: "qid has already been created").
 */
static uint16_t
qid_take(struct xnvme_nvmf_ctrlr *ctrlr)
{
	uint16_t qid = 0;

	pthread_mutex_lock(&ctrlr->qid_lock);
	for (uint16_t n = QID_FIRST_ASYNC; n < ctrlr->nqids; ++n) {
		uint16_t q = ctrlr->qid_next;

		ctrlr->qid_next = (uint16_t)(q + 1 < ctrlr->nqids ? q + 1 : QID_FIRST_ASYNC);
		if (!ctrlr->qid_used[q]) {
			ctrlr->qid_used[q] = 1;
			qid = q;
			break;
		}
	}
	pthread_mutex_unlock(&ctrlr->qid_lock);
	return qid;
}

static void
qid_put(struct xnvme_nvmf_ctrlr *ctrlr, uint16_t qid)
{
	pthread_mutex_lock(&ctrlr->qid_lock);
	if (qid < sizeof(ctrlr->qid_used)) {
		ctrlr->qid_used[qid] = 0;
	}
	pthread_mutex_unlock(&ctrlr->qid_lock);
}

int
xnvme_nvmf_ioconn_open(struct xnvme_dev *dev, void *conn, uint32_t ncmds, uint16_t *qid_out)
{
	struct xnvme_nvmf_ctrlr *ctrlr = dev->state;
	int err = -EBUSY;

	if (!ctrlr->sync) {
		return -ENOTSUP; /* a discovery controller has no I/O queues */
	}
	if (ncmds > ctrlr->mqes) {
		return -EINVAL;
	}
	/* a queue ID still being torn down by the target fails Connect: try the next one */
	for (int tries = 0; tries < QID_TRIES; ++tries) {
		uint16_t qid = qid_take(ctrlr);

		if (!qid) {
			return -EBUSY;
		}
		err = conn_up(dev, conn, ncmds, qid, (uint16_t)ncmds, ctrlr->tgt.io_timeout_us);
		if (!err) {
			*qid_out = qid;
			return 0;
		}
		qid_put(ctrlr, qid);
		if (err != -EIO) {
			break;
		}
	}
	return err;
}

void
xnvme_nvmf_ioconn_close(struct xnvme_dev *dev, void *conn, uint16_t qid)
{
	struct xnvme_nvmf_ctrlr *ctrlr = dev->state;

	ctrlr->tr->conn_close(conn);
	qid_put(ctrlr, qid);
}
