// SPDX-License-Identifier: BSD-3-Clause
/*
 * The "tcp" backend: a user-space NVMe/TCP initiator for URIs "traddr:trsvcid" and
 * "[v6addr]:trsvcid" (docs/fabrics.md), the NVMe/TCP transport under the shared fabrics layer
 * (../nvmf/). Async queues are NVMe I/O queues on their own connections; the thread-pool and
 * emulated queues drive the synchronous connection instead.
 */
#include <errno.h>
#include <string.h>

#include "tcp.h"

static int
tcp_uri_opt(struct xnvme_nvmf_target *tgt, const char *kv)
{
	if (!strcmp(kv, "hdgst=1")) {
		tgt->hdgst = true;
	} else if (!strcmp(kv, "ddgst=1")) {
		tgt->ddgst = true;
	} else if (strcmp(kv, "hdgst=0") && strcmp(kv, "ddgst=0")) {
		return -EINVAL;
	}
	return 0;
}

static int
tcp_conn_open(struct xnvme_nvmf_ctrlr *ctrlr, void *conn, uint16_t qid, uint32_t ncmds,
	      uint16_t sqsize, char *errmsg, size_t errmsg_len)
{
	(void)qid;
	(void)sqsize;
	return xnvme_tcp_conn_open(conn, &ctrlr->tgt, ncmds, ctrlr->tgt.admin_timeout_us, errmsg,
				   errmsg_len);
}

static void
tcp_conn_close(void *conn)
{
	xnvme_tcp_conn_close(conn);
}

static int
tcp_conn_run(void *conn, struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes,
	     const struct iovec *iov, uint32_t iovcnt, void *mbuf, size_t mbuf_nbytes)
{
	return xnvme_tcp_conn_run(conn, ctx, dbuf, dbuf_nbytes, iov, iovcnt, mbuf, mbuf_nbytes);
}

static void
tcp_conn_set(void *conn, uint64_t timeout_ns, uint32_t icd_max)
{
	struct xnvme_tcp_conn *c = conn;

	c->timeout_ns = timeout_ns;
	if (icd_max != XNVME_NVMF_ICD_KEEP) {
		c->icd_max = icd_max;
	}
}

static int
tcp_conn_err(const void *conn)
{
	return ((const struct xnvme_tcp_conn *)conn)->err;
}

const struct xnvme_nvmf_transport xnvme_tcp_transport = {
	.name = "tcp",
	.trtype = XNVME_NVMF_TRTYPE_TCP,
	.conn_nbytes = sizeof(struct xnvme_tcp_conn),
	.uri_opt = tcp_uri_opt,
	.uri_opts = "hdgst=0|1, ddgst=0|1, subnqn=NQN",
	.conn_open = tcp_conn_open,
	.conn_close = tcp_conn_close,
	.conn_run = tcp_conn_run,
	.conn_set = tcp_conn_set,
	.conn_err = tcp_conn_err,
};

static int
tcp_dev_open(struct xnvme_dev *dev)
{
	return xnvme_nvmf_dev_open(dev, &xnvme_tcp_transport);
}

static int
tcp_enumerate(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
	      void *cb_args)
{
	return xnvme_nvmf_enumerate(&xnvme_tcp_transport, sys_uri, opts, cb_func, cb_args);
}

static enum xnvme_be_uri_claim
tcp_uri_claim(const char *uri)
{
	return xnvme_nvmf_uri_claim(&xnvme_tcp_transport, uri);
}

static const struct xnvme_be_dev tcp_dev = {
	.enumerate = tcp_enumerate,
	.dev_open = tcp_dev_open,
	.dev_close = xnvme_nvmf_dev_close,
	.uri_claim = tcp_uri_claim,
	.uri_forms = "traddr:trsvcid or [v6addr]:trsvcid of an NVMe/TCP target, optionally "
		     "followed by ?hdgst=1&ddgst=1&subnqn=NQN",
};

static const struct xnvme_be_mem *const tcp_mem[] = {
	&xnvme_be_mem_posix,
	&xnvme_be_mem_hugepage,
	NULL,
};

static const struct xnvme_be_admin tcp_admin_mech = {
	.name = "tcp",
	.check_support = xnvme_be_tcp_check_support,
	.cmd_admin = xnvme_nvmf_cmd_admin,
	.pseudo = xnvme_nvmf_admin_pseudo,
};

static const struct xnvme_be_admin *const tcp_admin[] = {
	&tcp_admin_mech,
	NULL,
};

static const struct xnvme_be_sync tcp_sync_mech = {
	.name = "tcp",
	.check_support = xnvme_be_tcp_check_support,
	.cmd_io = xnvme_nvmf_sync_io,
	.cmd_iov = xnvme_nvmf_sync_iov,
};

static const struct xnvme_be_sync *const tcp_sync[] = {
	&tcp_sync_mech,
	NULL,
};

static const struct xnvme_be_async *const tcp_async[] = {
	&xnvme_be_tcp_async,
	&xnvme_be_async_thrpool,
	&xnvme_be_async_emu,
	&xnvme_be_async_nil,
	NULL,
};

const struct xnvme_be xnvme_be_tcp = {
	.name = "tcp",
	.enabled = true,
	.dev = &tcp_dev,
	.mem = tcp_mem,
	.admin = tcp_admin,
	.sync = tcp_sync,
	.async = tcp_async,
};

int
xnvme_be_tcp_check_support(struct xnvme_dev *dev)
{
	return xnvme_nvmf_check_support(dev, &xnvme_be_tcp);
}
