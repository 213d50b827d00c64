// SPDX-License-Identifier: BSD-3-Clause
/*
 * The mechanisms of the vfio backend (vfio.h). Thread safety: mem and admin calls from any
 * thread; sync commands from any thread (serialised on the controller's sync queue pair);
 * an xnvme_queue (async) from one thread at a time, as every queue of the library.
 */
#include <errno.h>
#include <string.h>

#include "vfio.h"

static void *
mem_alloc(const struct xnvme_dev *dev, size_t nbytes, uint64_t *phys)
{
	return vfio_dma_alloc(&vfio_dev_shared(dev)->ctrl.dma, nbytes, phys);
}

static void
mem_free(const struct xnvme_dev *dev, void *buf)
{
	vfio_dma_free(&vfio_dev_shared(dev)->ctrl.dma, buf);
}

static void *
mem_realloc(const struct xnvme_dev *dev, void *buf, size_t nbytes, uint64_t *phys)
{
	struct vfio_dma *dma = &vfio_dev_shared(dev)->ctrl.dma;
	size_t old = buf ? vfio_dma_size(dma, buf) : 0;
	void *mem;

	if (buf && !old) {
		errno = EINVAL;
		return NULL;
	}
	mem = vfio_dma_alloc(dma, nbytes, phys);
	if (mem && buf) {
		memcpy(mem, buf, old < nbytes ? old : nbytes);
		vfio_dma_free(dma, buf);
	}
	return mem;
}

static int
mem_vtophys(const struct xnvme_dev *dev, void *buf, uint64_t *phys)
{
	struct vfio_dma_cache cache = {0};

	return vfio_dma_xlate_slow(&vfio_dev_shared(dev)->ctrl.dma, &cache, buf, 1, phys);
}

static int
mem_map(const struct xnvme_dev *dev, void *vaddr, size_t nbytes)
{
	return vfio_dma_map(&vfio_dev_shared(dev)->ctrl.dma, vaddr, nbytes, NULL);
}

static int
mem_unmap(const struct xnvme_dev *dev, void *buf)
{
	return vfio_dma_unmap(&vfio_dev_shared(dev)->ctrl.dma, buf);
}

const struct xnvme_be_mem xnvme_be_vfio_mem = {
	.name = "vfio",
	.check_support = vfio_check_support,
	.buf_alloc = mem_alloc,
	.buf_realloc = mem_realloc,
	.buf_free = mem_free,
	.buf_vtophys = mem_vtophys,
	.mem_map = mem_map,
	.mem_unmap = mem_unmap,
};

static int
admin_cmd(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	if (mbuf && mbuf_nbytes) {
		return -ENOTSUP;
	}
	return vfio_ctrl_admin(&vfio_dev_shared(ctx->dev)->ctrl, &ctx->cmd, dbuf, dbuf_nbytes,
			       &ctx->cpl);
}

static int
admin_pseudo(struct xnvme_dev *dev, enum xnvme_be_pseudo op, void *buf, size_t nbytes)
{
	struct vfio_shared *sh = vfio_dev_shared(dev);

	if (op == XNVME_BE_PSEUDO_CONTROLLER_RESET) {
		/* queue pairs recreate their queues when next used; what was outstanding fails */
		return vfio_ctrl_reset(&sh->ctrl);
	}
	if (op != XNVME_BE_PSEUDO_GET_REGISTERS) {
		return -ENOSYS; /* subsystem reset and rescan: not done by this driver */
	}
	if (!buf || nbytes < sizeof(struct vfio_nvme_regs)) {
		return -EINVAL;
	}
	memset(buf, 0, nbytes);
	for (uint32_t off = 0; off < sizeof(struct vfio_nvme_regs); off += 4) {
		uint32_t val = vfio_bus_read32(sh->ctrl.bus, off);

		memcpy((uint8_t *)buf + off, &val, sizeof(val));
	}
	return 0;
}

const struct xnvme_be_admin xnvme_be_vfio_admin = {
	.name = "vfio",
	.check_support = vfio_check_support,
	.cmd_admin = admin_cmd,
	.pseudo = admin_pseudo,
};

static int
sync_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	 void *mbuf, size_t mbuf_nbytes)
{
	struct vfio_shared *sh = vfio_dev_shared(ctx->dev);
	int err;

	(void)dvec_nbytes; /* the element lengths define the payload */
	pthread_mutex_lock(&sh->sync_lock);
	err = vfio_qpair_exec(sh->syncq, &ctx->cmd, dvec, dvec_cnt, mbuf, mbuf_nbytes, &ctx->cpl);
	pthread_mutex_unlock(&sh->sync_lock);
	return err;
}

static int
sync_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	struct iovec iov = {.iov_base = dbuf, .iov_len = dbuf ? dbuf_nbytes : 0};

	return sync_iov(ctx, &iov, 1, iov.iov_len, mbuf, mbuf_nbytes);
}

const struct xnvme_be_sync xnvme_be_vfio_sync = {
	.name = "vfio",
	.check_support = vfio_check_support,
	.cmd_io = sync_io,
	.cmd_iov = sync_iov,
};

static void
async_cb(void *arg, const struct xnvme_spec_cpl *cpl)
{
	struct xnvme_cmd_ctx *ctx = arg;

	ctx->cpl = *cpl;
	xnvme_queue_complete(ctx->async.queue, ctx);
}

static int
async_init(struct xnvme_queue *queue, int opts)
{
	struct vfio_shared *sh = vfio_dev_shared(queue->dev);

	(void)opts;
	if (queue->capacity + 1 > sh->ctrl.mqes) {
		return -EINVAL; /* a ring holds at most CAP.MQES + 1 entries, one stays empty */
	}
	/* the handle's own command_timeout: handles of one controller may differ */
	queue->state = vfio_ctrl_qpair_create(&sh->ctrl, queue->capacity + 1, async_cb,
					      queue->dev->opts.command_timeout, false);
	return queue->state ? 0 : -errno;
}

static int
async_term(struct xnvme_queue *queue)
{
	vfio_ctrl_qpair_destroy(&vfio_dev_shared(queue->dev)->ctrl, queue->state);
	queue->state = NULL;
	return 0;
}

static int
async_poke(struct xnvme_queue *queue, uint32_t max)
{
	struct vfio_qpair *qp = queue->state;

	if (XNVME_BE_UNLIKELY(xnvme_be_poke_skip(queue))) {
		return 0;
	}
	vfio_qpair_ring(qp);
	return (int)vfio_qpair_reap(qp, max);
}

/* Rule 4: the command is already counted, a refusal takes the count back */
static int
async_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	  void *mbuf, size_t mbuf_nbytes)
{
	int err;

	(void)dvec_nbytes;
	err = vfio_qpair_submit(ctx->async.queue->state, &ctx->cmd, dvec, dvec_cnt, mbuf,
				mbuf_nbytes, ctx);
	return err ? xnvme_be_cmd_refused(ctx, err) : 0;
}

static int
async_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf, size_t mbuf_nbytes)
{
	struct iovec iov = {.iov_base = dbuf, .iov_len = dbuf ? dbuf_nbytes : 0};

	return async_iov(ctx, &iov, 1, dbuf_nbytes, mbuf, mbuf_nbytes);
}

/*
 * Queues are created polled (no interrupt per completion). The first request for a completion
 * fd replaces the idle queue pair by one whose CQ raises MSI-X vector qid on an eventfd; the
 * caller reads the eventfd to re-arm it, as with the other backends' completion fds.
 */
static int
async_fd(struct xnvme_queue *queue)
{
	struct vfio_shared *sh = vfio_dev_shared(queue->dev);
	struct vfio_qpair *qp = queue->state, *nq;

	if (qp->irq_fd >= 0) {
		return qp->irq_fd;
	}
	if (queue->outstanding || qp->outstanding || qp->nfree != qp->ncids) {
		return -EBUSY;
	}
	/* the new pair is made before the old one goes: needs one spare queue id (EBUSY) */
	nq = vfio_ctrl_qpair_create(&sh->ctrl, qp->qsize, async_cb, qp->timeout_us, true);
	if (!nq) {
		return -errno;
	}
	vfio_ctrl_qpair_destroy(&sh->ctrl, qp);
	queue->state = nq;
	return nq->irq_fd;
}

const struct xnvme_be_async xnvme_be_vfio_async = {
	.name = "vfio",
	.check_support = vfio_check_support,
	.init = async_init,
	.term = async_term,
	.poke = async_poke,
	.cmd_io = async_io,
	.cmd_iov = async_iov,
	.get_completion_fd = async_fd,
};
