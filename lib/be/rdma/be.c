// SPDX-License-Identifier: BSD-3-Clause
/*
 * The "rdma" backend: a user-space NVMe/RDMA initiator on rdma-core for URIs "traddr:trsvcid"
 * and "[v6addr]:trsvcid" (docs/fabrics.md), the RDMA transport under the shared fabrics layer
 * (../nvmf/). Async queues are NVMe I/O queues on QPs of their own; the thread-pool and
 * emulated queues drive the synchronous connection instead. Built where rdma-core's headers
 * and libraries are; elsewhere the registry's placeholder answers for it (lib/be/registry.def).
 */
#include <errno.h>
#include <string.h>

#include "rdma.h"

static int
rdma_uri_opt(struct xnvme_nvmf_target *tgt, const char *kv)
{
	if (!strcmp(kv, "mw=0")) {
		tgt->rdma_nomw = true;
	} else if (strcmp(kv, "mw=1") && strcmp(kv, "hdgst=0") && strcmp(kv, "ddgst=0")) {
		return -EINVAL; /* no digests over RDMA: the fabric checks the data */
	}
	return 0;
}

static int
rdma_conn_open(struct xnvme_nvmf_ctrlr *ctrlr, void *conn, uint16_t qid, uint32_t ncmds,
	       uint16_t sqsize, char *errmsg, size_t errmsg_len)
{
	return xnvme_rdma_conn_open(conn, ctrlr, qid, ncmds, sqsize, errmsg, errmsg_len);
}

static void
rdma_conn_close(void *conn)
{
	xnvme_rdma_conn_close(conn);
}

static int
rdma_conn_run(void *conn, struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes,
	      const struct iovec *iov, uint32_t iovcnt, void *mbuf, size_t mbuf_nbytes)
{
	return xnvme_rdma_conn_run(conn, ctx, dbuf, dbuf_nbytes, iov, iovcnt, mbuf, mbuf_nbytes);
}

static void
rdma_conn_set(void *conn, uint64_t timeout_ns, uint32_t icd_max)
{
	struct xnvme_rdma_conn *c = conn;

	c->timeout_ns = timeout_ns;
	atomic_store_explicit(&c->wd_timeout, timeout_ns, memory_order_relaxed);
	if (icd_max != XNVME_NVMF_ICD_KEEP) {
		/* no more than the capsule buffers have room for */
		c->icd_max = icd_max < c->icd_room ? icd_max : c->icd_room;
	}
}

static int
rdma_conn_err(const void *conn)
{
	const struct xnvme_rdma_conn *c = conn;
	int abort = atomic_load_explicit(&((struct xnvme_rdma_conn *)c)->abort_err,
					 memory_order_relaxed);

	return c->err ? c->err : abort;
}

const struct xnvme_nvmf_transport xnvme_rdma_transport = {
	.name = "rdma",
	.trtype = XNVME_NVMF_TRTYPE_RDMA,
	.conn_nbytes = sizeof(struct xnvme_rdma_conn),
	.uri_opt = rdma_uri_opt,
	.uri_opts = "mw=0|1, subnqn=NQN",
	.init = xnvme_rdma_dev_init,
	.fini = xnvme_rdma_dev_fini,
	.conn_open = rdma_conn_open,
	.conn_close = rdma_conn_close,
	.conn_run = rdma_conn_run,
	.conn_set = rdma_conn_set,
	.conn_err = rdma_conn_err,
};

static int
rdma_dev_open(struct xnvme_dev *dev)
{
	return xnvme_nvmf_dev_open(dev, &xnvme_rdma_transport);
}

static int
rdma_enumerate(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
	       void *cb_args)
{
	return xnvme_nvmf_enumerate(&xnvme_rdma_transport, sys_uri, opts, cb_func, cb_args);
}

static enum xnvme_be_uri_claim
rdma_uri_claim(const char *uri)
{
	return xnvme_nvmf_uri_claim(&xnvme_rdma_transport, uri);
}

static const struct xnvme_be_dev rdma_dev = {
	.enumerate = rdma_enumerate,
	.dev_open = rdma_dev_open,
	.dev_close = xnvme_nvmf_dev_close,
	.uri_claim = rdma_uri_claim,
	.uri_forms = "traddr:trsvcid or [v6addr]:trsvcid of an NVMe/RDMA target, optionally "
		     "followed by ?mw=0&subnqn=NQN",
};

static const struct xnvme_be_mem *const rdma_mem[] = {
	&xnvme_be_rdma_mem_posix,
	&xnvme_be_rdma_mem_hugepage,
	NULL,
};

static const struct xnvme_be_admin rdma_admin_mech = {
	.name = "rdma",
	.check_support = xnvme_be_rdma_check_support,
	.cmd_admin = xnvme_nvmf_cmd_admin,
	.pseudo = xnvme_nvmf_admin_pseudo,
};

static const struct xnvme_be_admin *const rdma_admin[] = {
	&rdma_admin_mech,
	NULL,
};

static const struct xnvme_be_sync rdma_sync_mech = {
	.name = "rdma",
	.check_support = xnvme_be_rdma_check_support,
	.cmd_io = xnvme_nvmf_sync_io,
	.cmd_iov = xnvme_nvmf_sync_iov,
};

static const struct xnvme_be_sync *const rdma_sync[] = {
	&rdma_sync_mech,
	NULL,
};

static const struct xnvme_be_async *const rdma_async[] = {
	&xnvme_be_rdma_async,
	&xnvme_be_async_thrpool,
	&xnvme_be_async_emu,
	&xnvme_be_async_nil,
	NULL,
};

const struct xnvme_be xnvme_be_rdma = {
	.name = "rdma",
	.enabled = true,
	.dev = &rdma_dev,
	.mem = rdma_mem,
	.admin = rdma_admin,
	.sync = rdma_sync,
	.async = rdma_async,
};

int
xnvme_be_rdma_check_support(struct xnvme_dev *dev)
{
	return xnvme_nvmf_check_support(dev, &xnvme_be_rdma);
}
