// SPDX-License-Identifier: BSD-3-Clause
/*
 * Opening a target: the admin connection (Connect to queue 0 with a dynamic controller),
 * CAP and VS, controller enable, Identify Controller for IOCCSZ, then the connection of the
 * synchronous I/O path (queue 1). Closing shuts the controller down (CC.SHN) and closes every
 * connection. I/O queues of xnvme_queue_init() connect as queues 2, 3, ...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tcp.h"

#define ADMIN_NCMDS 4
#define SYNC_NCMDS 1
#define SHUTDOWN_TIMEOUT_MS 2000
#define QID_FIRST_ASYNC 2

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
host_ident(struct xnvme_tcp_target *tgt, const char *hostnqn)
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
target_from_opts(struct xnvme_dev *dev, struct xnvme_tcp_target *tgt)
{
	const struct xnvme_opts *opts = &dev->opts;
	int err = xnvme_tcp_uri_parse(dev->ident.uri, tgt);

	if (err == -EINVAL) {
		return xnvme_dev_set_errmsg(
			dev, err, "unknown URI option (hdgst=0|1, ddgst=0|1, subnqn=NQN)");
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
admin_identify(struct xnvme_tcp_dev *st, uint8_t cns, uint32_t nsid, int *err)
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
	*err = xnvme_tcp_conn_run(&st->admin, &ctx, buf, 4096, NULL, 0, NULL, 0);
	if (*err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int
admin_identify_ioccsz(struct xnvme_dev *dev, struct xnvme_tcp_dev *st, uint32_t *icd_max)
{
	int err;
	struct xnvme_spec_idfy_ctrlr *id = admin_identify(st, XNVME_SPEC_IDFY_CTRLR, 0, &err);

	if (!id) {
		return xnvme_dev_set_errmsg(dev, err, "Identify Controller failed");
	}
	*icd_max = id->nvmf_specific.ioccsz >= 4 ? id->nvmf_specific.ioccsz * 16 - 64 : 0;
	free(id);
	return 0;
}

/*
 * NVMe over Fabrics moves metadata only interleaved with the data (extended LBAs): there is
 * no metadata pointer in a capsule. A namespace whose active format keeps metadata separate
 * cannot be read or written over TCP; say so at open instead of failing every command. A
 * namespace that cannot be identified is left to the commands (the error shows there).
 */
static int
admin_check_metadata(struct xnvme_dev *dev, struct xnvme_tcp_dev *st, uint32_t nsid)
{
	int err;
	struct xnvme_spec_idfy_ns *ns = admin_identify(st, XNVME_SPEC_IDFY_NS, nsid, &err);
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
admin_nqueues(struct xnvme_tcp_dev *st)
{
	struct xnvme_cmd_ctx ctx = {0};
	uint32_t want = 1022; /* zero-based */
	uint32_t nsqa, ncqa;

	ctx.opts = XNVME_CMD_SYNC;
	ctx.cmd.common.opcode = XNVME_SPEC_ADM_OPC_SFEAT;
	ctx.cmd.common.ndt = XNVME_SPEC_FEAT_NQUEUES;
	ctx.cmd.common.ndm = (want << 16) | want;
	if (xnvme_tcp_conn_run(&st->admin, &ctx, NULL, 0, NULL, 0, NULL, 0)) {
		return 64; /* not answered: assume a modest number */
	}
	nsqa = ctx.cpl.cdw0 & 0xFFFF;
	ncqa = ctx.cpl.cdw0 >> 16;
	nsqa = nsqa < ncqa ? nsqa : ncqa;
	/* IDs 1..nsqa+1; the table holds 1023 */
	return (uint16_t)(nsqa + 2 < 1024 ? nsqa + 2 : 1024);
}

static int
conn_up(struct xnvme_dev *dev, struct xnvme_tcp_conn *conn, uint32_t ncmds, uint16_t qid,
	uint16_t sqsize, uint64_t timeout_us)
{
	struct xnvme_tcp_dev *st = dev->state;
	char msg[256] = "";
	int err;

	err = xnvme_tcp_conn_open(conn, &st->tgt, ncmds, st->tgt.admin_timeout_us, msg,
				  sizeof(msg));
	if (err) {
		return xnvme_dev_set_errmsg(dev, err, "%s", msg);
	}
	conn->timeout_ns = st->tgt.admin_timeout_us * 1000ULL;
	err = xnvme_tcp_fabrics_connect(conn, &st->tgt, qid, sqsize,
					qid ? st->admin.cntlid : 0xFFFF);
	if (err) {
		xnvme_tcp_conn_close(conn);
		return xnvme_dev_set_errmsg(dev, err, "Fabrics Connect of queue %u to '%s' failed",
					    qid, st->tgt.subnqn);
	}
	conn->timeout_ns = timeout_us * 1000ULL;
	if (qid) {
		conn->icd_max = st->icd_max;
	}
	return 0;
}

/* Sends Keep Alive every KATO / 2 until told to stop; a failure leaves the admin conn dead */
static void *
keep_alive_main(void *arg)
{
	struct xnvme_tcp_dev *st = arg;
	uint64_t period_ns = (uint64_t)st->tgt.kato_ms * 1000000ULL / 2;

	pthread_mutex_lock(&st->ka_lock);
	while (!st->ka_stop) {
		struct timespec ts;
		uint64_t at;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		at = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec + period_ns;
		ts.tv_sec = (time_t)(at / 1000000000ULL);
		ts.tv_nsec = (long)(at % 1000000000ULL);
		if (pthread_cond_timedwait(&st->ka_cond, &st->ka_lock, &ts) == ETIMEDOUT &&
		    !st->ka_stop) {
			struct xnvme_cmd_ctx ctx = {0};

			pthread_mutex_unlock(&st->ka_lock);
			ctx.opts = XNVME_CMD_SYNC;
			ctx.cmd.common.opcode = XNVME_ADM_OPC_KEEP_ALIVE;
			pthread_mutex_lock(&st->admin_lock);
			xnvme_tcp_conn_run(&st->admin, &ctx, NULL, 0, NULL, 0, NULL, 0);
			pthread_mutex_unlock(&st->admin_lock);
			pthread_mutex_lock(&st->ka_lock);
		}
	}
	pthread_mutex_unlock(&st->ka_lock);
	return NULL;
}

static int
keep_alive_start(struct xnvme_tcp_dev *st)
{
	pthread_condattr_t attr;
	int err;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&st->ka_cond, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&st->ka_lock, NULL);
	err = pthread_create(&st->ka_thread, NULL, keep_alive_main, st);
	if (err) {
		pthread_cond_destroy(&st->ka_cond);
		pthread_mutex_destroy(&st->ka_lock);
		return -err;
	}
	st->ka_running = true;
	return 0;
}

static void
keep_alive_stop(struct xnvme_tcp_dev *st)
{
	if (!st->ka_running) {
		return;
	}
	pthread_mutex_lock(&st->ka_lock);
	st->ka_stop = true;
	pthread_cond_signal(&st->ka_cond);
	pthread_mutex_unlock(&st->ka_lock);
	pthread_join(st->ka_thread, NULL);
	pthread_cond_destroy(&st->ka_cond);
	pthread_mutex_destroy(&st->ka_lock);
	st->ka_running = false;
}

static void
tcp_dev_close(struct xnvme_dev *dev)
{
	struct xnvme_tcp_dev *st;

	if (!dev || !dev->state) {
		return;
	}
	st = dev->state;
	keep_alive_stop(st);
	if (st->sync.slots) {
		xnvme_tcp_conn_close(&st->sync);
	}
	if (st->admin.slots) {
		if (!st->admin.err) {
			/* an unresponsive target must not hold close for the whole admin timeout */
			st->admin.timeout_ns = (uint64_t)SHUTDOWN_TIMEOUT_MS * 1000000ULL;
			xnvme_tcp_ctrlr_shutdown(&st->admin, SHUTDOWN_TIMEOUT_MS);
		}
		xnvme_tcp_conn_close(&st->admin);
	}
	pthread_mutex_destroy(&st->admin_lock);
	pthread_mutex_destroy(&st->sync_lock);
	pthread_mutex_destroy(&st->qid_lock);
	free(st);
	dev->state = NULL;
}

static int
tcp_dev_open(struct xnvme_dev *dev)
{
	struct xnvme_tcp_target tgt;
	struct xnvme_tcp_dev *st;
	uint64_t vs = 0;
	int err;

	err = target_from_opts(dev, &tgt);
	if (err) {
		return err;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		return -ENOMEM;
	}
	st->tgt = tgt;
	st->admin.fd = st->sync.fd = -1;
	pthread_mutex_init(&st->admin_lock, NULL);
	pthread_mutex_init(&st->sync_lock, NULL);
	pthread_mutex_init(&st->qid_lock, NULL);
	dev->state = st;

	err = conn_up(dev, &st->admin, ADMIN_NCMDS, 0, 31, tgt.admin_timeout_us);
	if (!err) {
		err = xnvme_tcp_prop_get(&st->admin, XNVME_PROP_CAP, 1, &st->cap);
		err = err ? err : xnvme_tcp_prop_get(&st->admin, XNVME_PROP_VS, 0, &vs);
		if (err) {
			xnvme_dev_set_errmsg(dev, err, "Property Get CAP/VS failed");
		}
	}
	if (!err) {
		st->vs = (uint32_t)vs;
		st->mqes = (uint16_t)(st->cap & 0xFFFF);
		err = xnvme_tcp_ctrlr_enable(&st->admin, st->cap);
		if (err) {
			xnvme_dev_set_errmsg(dev, err,
					     "controller enable (CC.EN, CSTS.RDY) failed");
		}
	}
	if (!err && strcmp(tgt.subnqn, XNVME_FABRICS_DISC_NQN)) {
		err = admin_identify_ioccsz(dev, st, &st->icd_max);
		err = err ? err
			  : admin_check_metadata(dev, st, dev->opts.nsid ? dev->opts.nsid : 1);
		err = err ? err
			  : conn_up(dev, &st->sync, SYNC_NCMDS, 1, st->mqes < 1 ? st->mqes : 1,
				    tgt.io_timeout_us);
	}
	if (err) {
		tcp_dev_close(dev);
		return err;
	}
	st->nqids = st->sync.slots ? admin_nqueues(st) : 0;
	/* only now: the admin commands above use st->admin without admin_lock */
	if (tgt.kato_ms) {
		err = keep_alive_start(st);
		if (err) {
			tcp_dev_close(dev);
			return xnvme_dev_set_errmsg(dev, err, "cannot start the keep-alive thread");
		}
	}
	st->qid_next = QID_FIRST_ASYNC;
	dev->ident.dtype = 2;
	dev->ident.nsid = dev->opts.nsid ? dev->opts.nsid : 1;
	dev->ident.csi = XNVME_SPEC_CSI_NVM;
	dev->opts.spdk_fabrics = 1;
	err = xnvme_be_pick_default(dev, "posix", "tcp", "tcp", "tcp");
	if (err) {
		tcp_dev_close(dev);
		return xnvme_dev_set_errmsg(dev, err, "cannot pick default mechanisms");
	}
	return 0;
}

/*
 * Takes a free queue ID, round robin: a target tears a closed queue down asynchronously and
 * refuses to create the same ID again until it has (nvmet: "qid has already been created").
 */
static uint16_t
qid_take(struct xnvme_tcp_dev *st)
{
	uint16_t qid = 0;

	pthread_mutex_lock(&st->qid_lock);
	for (uint16_t n = QID_FIRST_ASYNC; n < st->nqids; ++n) {
		uint16_t q = st->qid_next;

		st->qid_next = (uint16_t)(q + 1 < st->nqids ? q + 1 : QID_FIRST_ASYNC);
		if (!st->qid_used[q]) {
			st->qid_used[q] = 1;
			qid = q;
			break;
		}
	}
	pthread_mutex_unlock(&st->qid_lock);
	return qid;
}

static void
qid_put(struct xnvme_tcp_dev *st, uint16_t qid)
{
	pthread_mutex_lock(&st->qid_lock);
	if (qid < sizeof(st->qid_used)) {
		st->qid_used[qid] = 0;
	}
	pthread_mutex_unlock(&st->qid_lock);
}

#define QID_TRIES 4

int
xnvme_tcp_dev_ioconn_open(struct xnvme_dev *dev, struct xnvme_tcp_conn *conn, uint32_t ncmds)
{
	struct xnvme_tcp_dev *st = dev->state;
	int err = -EBUSY;

	if (!st->sync.slots) {
		return -ENOTSUP; /* a discovery controller has no I/O queues */
	}
	if (ncmds > st->mqes) {
		return -EINVAL;
	}
	/* a queue ID still being torn down by the target fails Connect: try the next one */
	for (int tries = 0; tries < QID_TRIES; ++tries) {
		uint16_t qid = qid_take(st);

		if (!qid) {
			return -EBUSY;
		}
		err = conn_up(dev, conn, ncmds, qid, (uint16_t)ncmds, st->tgt.io_timeout_us);
		if (!err) {
			return 0;
		}
		qid_put(st, qid);
		if (err != -EIO) {
			break;
		}
	}
	return err;
}

void
xnvme_tcp_dev_ioconn_close(struct xnvme_dev *dev, struct xnvme_tcp_conn *conn)
{
	struct xnvme_tcp_dev *st = dev->state;
	uint16_t qid = conn->qid;

	xnvme_tcp_conn_close(conn);
	qid_put(st, qid);
}

const struct xnvme_be_dev xnvme_be_tcp_dev = {
	.enumerate = xnvme_tcp_enumerate,
	.dev_open = tcp_dev_open,
	.dev_close = tcp_dev_close,
	.uri_claim = xnvme_tcp_uri_claim,
	.uri_forms = "traddr:trsvcid or [v6addr]:trsvcid of an NVMe/TCP target, optionally "
		     "followed by ?hdgst=1&ddgst=1&subnqn=NQN",
};
