// SPDX-License-Identifier: BSD-3-Clause
/*
 * The admin and synchronous I/O mechanisms of a fabrics backend: one command at a time on the
 * admin connection (queue 0) and on the sync connection (queue 1). Each backend names them
 * after itself (tcp, rdma) in its mechanism tables.
 */
#include <errno.h>

#include "nvmf.h"

int
xnvme_nvmf_check_support(struct xnvme_dev *dev, const struct xnvme_be *be)
{
	if (dev->be != be || !dev->state) {
		return xnvme_dev_set_errmsg(dev, -ENOTSUP, "the device is not opened through %s",
					    be->name);
	}
	return 0;
}

int
xnvme_nvmf_cmd_admin(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		     size_t mbuf_nbytes)
{
	struct xnvme_nvmf_ctrlr *ctrlr = ctx->dev->state;
	int err;

	pthread_mutex_lock(&ctrlr->admin_lock);
	err = ctrlr->tr->conn_run(ctrlr->admin, ctx, dbuf, dbuf_nbytes, NULL, 0, mbuf, mbuf_nbytes);
	pthread_mutex_unlock(&ctrlr->admin_lock);
	return err;
}

int
xnvme_nvmf_admin_pseudo(struct xnvme_dev *dev, enum xnvme_be_pseudo op, void *buf, size_t nbytes)
{
	(void)dev;
	(void)op;
	(void)buf;
	(void)nbytes;
	return -ENOSYS;
}

int
xnvme_nvmf_sync_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt,
		    size_t dvec_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	struct xnvme_nvmf_ctrlr *ctrlr = ctx->dev->state;
	int err;

	if (!ctrlr->sync) {
		return -ENOTSUP; /* a discovery controller has no I/O queues */
	}
	if (dvec_cnt > UINT32_MAX) {
		return -EINVAL;
	}
	pthread_mutex_lock(&ctrlr->sync_lock);
	err = ctrlr->tr->conn_run(ctrlr->sync, ctx, NULL, dvec_nbytes, dvec, (uint32_t)dvec_cnt,
				  mbuf, mbuf_nbytes);
	pthread_mutex_unlock(&ctrlr->sync_lock);
	return err;
}

int
xnvme_nvmf_sync_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
		   size_t mbuf_nbytes)
{
	struct xnvme_nvmf_ctrlr *ctrlr = ctx->dev->state;
	int err;

	if (!ctrlr->sync) {
		return -ENOTSUP;
	}
	pthread_mutex_lock(&ctrlr->sync_lock);
	err = ctrlr->tr->conn_run(ctrlr->sync, ctx, dbuf, dbuf_nbytes, NULL, 0, mbuf, mbuf_nbytes);
	pthread_mutex_unlock(&ctrlr->sync_lock);
	return err;
}
