// SPDX-License-Identifier: BSD-3-Clause
/*
 * The unit suite's fake NVMe controller (fake_ctrl.h). Its PRP walk is written from the NVMe
 * rules, independently of the driver's builder, so the two check each other.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fake_ctrl.h"

static uint64_t
rnd(struct fake_ctrl *fc)
{
	fc->rng ^= fc->rng << 13;
	fc->rng ^= fc->rng >> 7;
	fc->rng ^= fc->rng << 17;
	return fc->rng;
}

/* A secondary's mapping holding [iova, iova+len) (multi-process: fake_ctrl_mp.c) */
static bool
shared_find(struct fake_ctrl *fc, uint64_t iova, size_t len, struct fake_shmap *out)
{
	bool found = false;

	if (!fc->sh) {
		return false;
	}
	fake_shared_lock(fc->sh);
	for (uint32_t i = 0; i < fc->sh->nmaps && !found; ++i) {
		const struct fake_shmap *m = &fc->sh->maps[i];

		if (iova >= m->iova && iova + len <= m->iova + m->len) {
			*out = *m;
			found = true;
		}
	}
	pthread_mutex_unlock(&fc->sh->lock);
	return found;
}

/* Whether process `pid` is gone or exiting (PF_EXITING in the flags of /proc/<pid>/stat): its
 * memory is being torn down, so process_vm_readv/writev fail with EFAULT until it is gone */
static bool
pid_exiting(pid_t pid)
{
	char path[64], buf[512], *p;
	unsigned long flags = 0;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "r");
	if (!fp) {
		return true;
	}
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* after the command name: state, ppid, pgrp, session, tty, tpgid */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1) {
		return true;
	}
	return (flags & 0x4) != 0;
}

/*
 * The device's DMA: copies between `buf` and [iova, iova+len), which must lie in one mapping:
 * memory of this process, or of a secondary (process_vm_readv/writev, as a device reaches any
 * process's pinned pages). -EFAULT (counted in bad_dma) when nothing maps it.
 */
static int
dma_xfer(struct fake_ctrl *fc, uint64_t iova, void *buf, size_t len, bool to_host)
{
	struct fake_shmap sm;

	for (int i = 0; i < fc->nmaps; ++i) {
		struct fake_map *m = &fc->maps[i];

		if (iova >= m->iova && iova + len <= m->iova + m->len) {
			uint8_t *host = m->vaddr + (iova - m->iova);

			to_host ? memcpy(host, buf, len) : memcpy(buf, host, len);
			return 0;
		}
	}
	if (shared_find(fc, iova, len, &sm)) {
		struct iovec local = {.iov_base = buf, .iov_len = len};
		struct iovec remote = {.iov_base = (void *)(uintptr_t)(sm.vaddr + (iova - sm.iova)),
				       .iov_len = len};
		ssize_t n = to_host ? process_vm_writev(sm.pid, &local, 1, &remote, 1, 0)
				    : process_vm_readv(sm.pid, &local, 1, &remote, 1, 0);

		if (n == (ssize_t)len) {
			return 0;
		}
		if (n < 0 && (errno == ESRCH || pid_exiting(sm.pid))) {
			/* the secondary died or is dying: its pages stay pinned and mapped until the
			 * primary deletes its queues, a real device's DMA still lands; here it is
			 * lost */
			fc->dead_dma++;
			return -EFAULT;
		}
	}
	fc->bad_dma++;
	fc->bad_iova = iova;
	fc->bad_errno = errno;
	if (getenv("FAKE_DEBUG")) {
		fprintf(stderr, "fake: unmapped iova 0x%llx len %zu\n", (unsigned long long)iova,
			len);
	}
	return -EFAULT;
}

static int
dma_read(struct fake_ctrl *fc, uint64_t iova, void *dst, size_t len)
{
	return dma_xfer(fc, iova, dst, len, false);
}

static int
dma_write(struct fake_ctrl *fc, uint64_t iova, const void *src, size_t len)
{
	return dma_xfer(fc, iova, (void *)src, len, true);
}

static int
f_dma_map(struct vfio_bus *bus, void *vaddr, size_t len, uint64_t iova)
{
	struct fake_ctrl *fc = (struct fake_ctrl *)bus;
	int err = 0;

	pthread_mutex_lock(&fc->lock);
	if (fc->nmaps == FAKE_MAXMAP) {
		err = -ENOSPC;
	} else {
		fc->maps[fc->nmaps++] = (struct fake_map){.vaddr = vaddr, .iova = iova, .len = len};
	}
	pthread_mutex_unlock(&fc->lock);
	return err;
}

/* As VFIO: every mapping inside [iova, iova+len) goes, a secondary's too (its window) */
static int
f_dma_unmap(struct vfio_bus *bus, uint64_t iova, size_t len)
{
	struct fake_ctrl *fc = (struct fake_ctrl *)bus;

	pthread_mutex_lock(&fc->lock);
	for (int i = 0; i < fc->nmaps;) {
		if (fc->maps[i].iova >= iova && fc->maps[i].iova + fc->maps[i].len <= iova + len) {
			fc->maps[i] = fc->maps[--fc->nmaps];
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&fc->lock);
	if (fc->sh) {
		fake_shared_unmap(fc->sh, iova, len);
	}
	return 0;
}

static uint32_t
f_read32(struct vfio_bus *bus, uint32_t off)
{
	struct fake_ctrl *fc = (struct fake_ctrl *)bus;

	if (__atomic_load_n(&fc->gone, __ATOMIC_ACQUIRE)) {
		return UINT32_MAX;
	}
	switch (off) {
	case NVME_REG_CAP:
		return (uint32_t)fc->cap;
	case NVME_REG_CAP + 4:
		return (uint32_t)(fc->cap >> 32);
	case NVME_REG_CC:
		return fc->cc;
	case NVME_REG_CSTS:
		return fc->csts;
	default:
		return 0;
	}
}

/* Shared mode: a queue's doorbells start at 0 for the secondaries too */
static void
shared_db_clear(struct fake_ctrl *fc, uint32_t idx)
{
	if (fc->bar && idx < 2 * FAKE_MAXQ) {
		__atomic_store_n(&fc->bar[(NVME_REG_DBS + idx * (4u << fc->dstrd)) / 4], 0,
				 __ATOMIC_RELAXED);
		fc->db_seen[idx] = 0;
	}
}

/* Shared mode: CSTS as the secondaries read it */
static void
shared_csts(struct fake_ctrl *fc)
{
	if (fc->bar) {
		__atomic_store_n(&fc->bar[NVME_REG_CSTS / 4],
				 __atomic_load_n(&fc->gone, __ATOMIC_ACQUIRE) ? UINT32_MAX
									      : fc->csts,
				 __ATOMIC_RELEASE);
	}
}

static void
ctrl_reset(struct fake_ctrl *fc)
{
	for (uint32_t i = 2; i < 2 * FAKE_MAXQ; ++i) {
		shared_db_clear(fc, i);
	}
	memset(fc->sq, 0, sizeof(fc->sq));
	memset(fc->cq, 0, sizeof(fc->cq));
	fc->npending = 0;
	fc->dropped += (uint32_t)fc->nwithheld;
	fc->nwithheld = 0;
	fc->csts &= ~(NVME_CSTS_RDY | NVME_CSTS_SHST_MASK);
}

static void
cc_write(struct fake_ctrl *fc, uint32_t val)
{
	uint32_t old = fc->cc;

	fc->cc = val;
	if ((val & NVME_CC_SHN_MASK) && !(old & NVME_CC_SHN_MASK)) {
		fc->shutdowns++;
		fc->csts = (fc->csts & ~NVME_CSTS_SHST_MASK) | NVME_CSTS_SHST_DONE;
	}
	if (!(val & NVME_CC_EN)) {
		fc->resets += (old & NVME_CC_EN) && !(val & NVME_CC_SHN_MASK) ? 1 : 0;
		ctrl_reset(fc);
		return;
	}
	if (!(old & NVME_CC_EN) && !fc->never_ready) {
		uint32_t qs = (fc->aqa & 0xFFF) + 1;

		fc->cc_seen = val;
		fc->sq[0] = (struct fake_queue){.exists = true, .iova = fc->asq, .size = qs};
		fc->cq[0] = (struct fake_queue){
			.exists = true, .iova = fc->acq, .size = qs, .phase = 1};
		fc->csts |= NVME_CSTS_RDY;
	}
}

/* A doorbell write: index 2q is SQ q's tail, 2q + 1 CQ q's head */
static void
db_write(struct fake_ctrl *fc, uint32_t idx, uint32_t val)
{
	if (idx % 2 == 0 && fc->sq[idx / 2].exists && val < fc->sq[idx / 2].size) {
		fc->sq[idx / 2].tail = val;
		fc->sq_db_writes[idx / 2]++;
	} else if (idx % 2 == 1 && fc->cq[idx / 2].exists && val < fc->cq[idx / 2].size) {
		fc->cq[idx / 2].head = val;
		fc->cq_db_writes[idx / 2]++;
	} else {
		fc->bad_doorbells++;
	}
}

/* Shared mode: the doorbells the secondaries wrote since the last look */
static void
shared_db_poll(struct fake_ctrl *fc)
{
	for (uint32_t idx = 2; idx < 2 * FAKE_MAXQ; ++idx) {
		uint32_t v;

		if (!(idx % 2 ? fc->cq : fc->sq)[idx / 2].exists) {
			continue;
		}
		v = __atomic_load_n(&fc->bar[(NVME_REG_DBS + idx * (4u << fc->dstrd)) / 4],
				    __ATOMIC_ACQUIRE);
		if (v != fc->db_seen[idx]) {
			fc->db_seen[idx] = v;
			db_write(fc, idx, v);
		}
	}
}

static void
write32_locked(struct fake_ctrl *fc, uint32_t off, uint32_t val)
{
	uint32_t stride = 4u << fc->dstrd, idx;

	switch (off) {
	case NVME_REG_CC:
		cc_write(fc, val);
		shared_csts(fc);
		return;
	case NVME_REG_AQA:
		fc->aqa = val;
		return;
	case NVME_REG_ASQ:
		fc->asq = (fc->asq & ~0xFFFFFFFFULL) | val;
		return;
	case NVME_REG_ASQ + 4:
		fc->asq = (fc->asq & 0xFFFFFFFFULL) | ((uint64_t)val << 32);
		return;
	case NVME_REG_ACQ:
		fc->acq = (fc->acq & ~0xFFFFFFFFULL) | val;
		return;
	case NVME_REG_ACQ + 4:
		fc->acq = (fc->acq & 0xFFFFFFFFULL) | ((uint64_t)val << 32);
		return;
	}
	if (off < NVME_REG_DBS || (off - NVME_REG_DBS) % stride) {
		fc->bad_doorbells++;
		return;
	}
	idx = (off - NVME_REG_DBS) / stride;
	if (idx / 2 >= FAKE_MAXQ || off + 4 > fc->bus.bar_size) {
		fc->bad_doorbells++;
		return;
	}
	db_write(fc, idx, val);
}

static void
f_write32(struct vfio_bus *bus, uint32_t off, uint32_t val)
{
	struct fake_ctrl *fc = (struct fake_ctrl *)bus;

	pthread_mutex_lock(&fc->lock);
	write32_locked(fc, off, val);
	pthread_mutex_unlock(&fc->lock);
}

/* Copies between the namespace and host memory along the command's PRPs (to_host: read) */
static int
prp_copy(struct fake_ctrl *fc, const struct xnvme_spec_cmd *cmd, uint8_t *media, size_t n,
	 bool to_host)
{
	uint64_t page = 1ULL << (12 + ((fc->cc >> NVME_CC_MPS_SHIFT) & 0xF));
	uint64_t addr = cmd->common.dptr.prp.prp1, list;
	uint32_t per_page = (uint32_t)(page / 8), slot;
	uint64_t *entries = fc->scratch; /* one page of list entries */
	size_t len = page - (addr & (page - 1));

	for (int first = 1; n; first = 0) {
		len = len < n ? len : n;
		if ((!first && (addr & (page - 1))) || dma_xfer(fc, addr, media, len, to_host)) {
			return -EFAULT;
		}
		media += len;
		n -= len;
		if (!n) {
			return 0;
		}
		if (!first) {
			break;
		}
		if (n <= page) {
			addr = cmd->common.dptr.prp.prp2;
			len = n;
			continue;
		}
		break;
	}
	/* a list: the last slot of a page chains to the next page when more than a page remains */
	list = cmd->common.dptr.prp.prp2;
	if (dma_read(fc, list & ~(page - 1), entries, page)) {
		return -EFAULT;
	}
	slot = (uint32_t)((list & (page - 1)) / 8);
	while (n) {
		if (slot == per_page - 1 && n > page) {
			list = entries[slot];
			if ((list & (page - 1)) || dma_read(fc, list, entries, page)) {
				return -EFAULT;
			}
			slot = 0;
			continue;
		}
		addr = entries[slot++];
		len = n < page ? n : page;
		if ((addr & (page - 1)) || dma_xfer(fc, addr, media, len, to_host)) {
			return -EFAULT;
		}
		media += len;
		n -= len;
	}
	return 0;
}

/* Copies along an SGL: a Data Block in the command, or a Last Segment of Data Blocks */
static int
sgl_copy(struct fake_ctrl *fc, const struct xnvme_spec_cmd *cmd, uint8_t *media, size_t n,
	 bool to_host)
{
	const struct xnvme_spec_sgl_descriptor *d = &cmd->common.dptr.sgl;
	size_t cnt = 1;

	if (d->unkeyed.type == 0x3) {
		cnt = d->unkeyed.len / sizeof(*d);
		if (!cnt || d->unkeyed.len > FAKE_SCRATCH ||
		    dma_read(fc, d->addr, fc->scratch, d->unkeyed.len)) {
			return -EFAULT;
		}
		d = fc->scratch;
	}
	for (size_t i = 0; i < cnt && n; ++i) {
		size_t len = d[i].unkeyed.len < n ? d[i].unkeyed.len : n;

		if (d[i].unkeyed.type != 0x0 || dma_xfer(fc, d[i].addr, media, len, to_host)) {
			return -EFAULT;
		}
		media += len;
		n -= len;
	}
	return n ? -EINVAL : 0;
}

static void
nvm_exec(struct fake_ctrl *fc, const struct xnvme_spec_cmd *cmd, struct xnvme_spec_cpl *cpl)
{
	uint64_t slba = cmd->nvm.slba;
	uint64_t nlb = (uint64_t)cmd->nvm.nlb + 1;
	size_t n = (size_t)(nlb * fc->lba_nbytes);
	bool rd = cmd->common.opcode == XNVME_SPEC_NVM_OPC_READ;

	if (cmd->common.opcode != XNVME_SPEC_NVM_OPC_READ &&
	    cmd->common.opcode != XNVME_SPEC_NVM_OPC_WRITE) {
		cpl->status.sc = 0x01; /* invalid opcode */
		return;
	}
	if (slba + nlb > fc->nlbas) {
		cpl->status.sc = 0x80; /* LBA out of range */
		return;
	}
	if ((cmd->common.psdt ? sgl_copy : prp_copy)(fc, cmd, fc->media + slba * fc->lba_nbytes, n,
						     rd)) {
		cpl->status.sc = 0x04; /* data transfer error */
		return;
	}
	if (fc->ms && dma_xfer(fc, cmd->common.mptr, fc->meta + slba * fc->ms, nlb * fc->ms, rd)) {
		cpl->status.sc = 0x04;
	}
}

static void
identify(struct fake_ctrl *fc, const struct xnvme_spec_cmd *cmd, struct xnvme_spec_cpl *cpl)
{
	uint8_t buf[4096] = {0};
	uint8_t cns = cmd->common.ndt & 0xFF;

	if (cns == 1) {
		buf[0] = 0x36; /* VID */
		memcpy(buf + 24, "FAKE-NVME", 9);
		buf[77] = fc->mdts;
		buf[258] = 3; /* ACL: 4 Aborts at once */
		buf[536] = fc->sgls;
		buf[516] = 1; /* NN */
	} else if (cns == 0 && cmd->common.nsid == 1) {
		memcpy(buf, &fc->nlbas, 8);      /* NSZE */
		memcpy(buf + 8, &fc->nlbas, 8);  /* NCAP */
		memcpy(buf + 16, &fc->nlbas, 8); /* NUSE */
		memcpy(buf + 128, &fc->ms, 2);   /* LBAF0.MS */
		buf[130] = fc->lba_nbytes == 4096 ? 12 : 9;
	} else {
		cpl->status.sc = 0x0B; /* invalid namespace or format */
		return;
	}
	if (prp_copy(fc, cmd, buf, sizeof(buf), true)) {
		cpl->status.sc = 0x04;
	}
}

/* Abort: finds the withheld command (SQID, CID) and treats it as abort_mode says */
static void
abort_cmd(struct fake_ctrl *fc, const struct xnvme_spec_cmd *cmd, struct xnvme_spec_cpl *cpl)
{
	uint16_t sqid = cmd->common.ndt & 0xFFFF, cid = (uint16_t)(cmd->common.ndt >> 16);

	fc->aborts++;
	fc->last_abort = cmd->common.ndt;
	cpl->cdw0 = 1; /* not aborted */
	for (int i = 0; i < fc->nwithheld; ++i) {
		struct fake_cpl w = fc->withheld[i];

		if (w.sqid != sqid || w.cpl.cid != cid || fc->abort_mode == FAKE_ABORT_IGNORE) {
			continue;
		}
		fc->withheld[i] = fc->withheld[--fc->nwithheld];
		if (fc->abort_mode == FAKE_ABORT_OK) {
			w.cpl.status.sc = 0x07; /* Command Abort Requested */
			cpl->cdw0 = 0;
		}
		fc->pending[fc->npending++] = w;
		return;
	}
}

/* A deleted SQ's commands are gone, completed or not: none reaches the host afterwards */
static void
sq_forget(struct fake_ctrl *fc, uint16_t qid)
{
	int kept = 0;

	for (int i = 0; i < fc->npending; ++i) {
		if (fc->pending[i].sqid != qid) {
			fc->pending[kept++] = fc->pending[i];
		}
	}
	fc->npending = kept;
	kept = 0;
	for (int i = 0; i < fc->nwithheld; ++i) {
		if (fc->withheld[i].sqid != qid) {
			fc->withheld[kept++] = fc->withheld[i];
		}
	}
	fc->dropped += (uint32_t)(fc->nwithheld - kept);
	fc->nwithheld = kept;
}

static void
admin_exec(struct fake_ctrl *fc, const struct xnvme_spec_cmd *cmd, struct xnvme_spec_cpl *cpl)
{
	uint16_t qid = cmd->common.ndt & 0xFFFF;
	uint32_t qs = (cmd->common.ndt >> 16) + 1;

	switch (cmd->common.opcode) {
	case NVME_ADM_ABORT:
		if (fc->abort_mode != FAKE_ABORT_NONE) {
			abort_cmd(fc, cmd, cpl);
			return;
		}
		break;
	case NVME_ADM_IDENTIFY:
		identify(fc, cmd, cpl);
		return;
	case NVME_ADM_SET_FEATURES:
		if ((cmd->common.ndt & 0xFF) == NVME_FEAT_NUM_QUEUES) {
			cpl->cdw0 = ((FAKE_MAXQ - 2u) << 16) | (FAKE_MAXQ - 2u);
			return;
		}
		break;
	case NVME_ADM_CREATE_CQ:
		if (!qid || qid >= FAKE_MAXQ || fc->cq[qid].exists || qs > fc->mqes + 1u) {
			cpl->status.sct = 1;
			cpl->status.sc = 0x01; /* invalid queue identifier */
			return;
		}
		shared_db_clear(fc, 2u * qid + 1);
		fc->cq[qid] = (struct fake_queue){.exists = true,
						  .iova = cmd->common.dptr.prp.prp1,
						  .size = qs,
						  .phase = 1,
						  .ien = (cmd->common.ndm & 0x2) != 0,
						  .iv = (uint16_t)(cmd->common.ndm >> 16)};
		return;
	case NVME_ADM_CREATE_SQ:
		if (!qid || qid >= FAKE_MAXQ || fc->sq[qid].exists ||
		    !fc->cq[cmd->common.ndm >> 16].exists) {
			cpl->status.sct = 1;
			cpl->status.sc = 0x01;
			return;
		}
		shared_db_clear(fc, 2u * qid);
		fc->sq[qid] = (struct fake_queue){.exists = true,
						  .iova = cmd->common.dptr.prp.prp1,
						  .size = qs,
						  .cqid = (uint16_t)(cmd->common.ndm >> 16)};
		return;
	case NVME_ADM_DELETE_SQ:
	case NVME_ADM_DELETE_CQ:
		if (!qid || qid >= FAKE_MAXQ) {
			cpl->status.sct = 1;
			cpl->status.sc = 0x01;
			return;
		}
		(cmd->common.opcode == NVME_ADM_DELETE_SQ ? fc->sq : fc->cq)[qid].exists = false;
		if (cmd->common.opcode == NVME_ADM_DELETE_SQ) {
			sq_forget(fc, qid);
		}
		return;
	}
	cpl->status.sc = 0x01;
}

/* Writes one entry at the CQ tail; false when the CQ is full */
static bool
post(struct fake_ctrl *fc, uint16_t cqid, struct xnvme_spec_cpl cpl, bool stale_phase)
{
	struct fake_queue *cq = &fc->cq[cqid];
	uint64_t at = cq->iova + (uint64_t)cq->tail * sizeof(cpl);

	if ((cq->tail + 1) % cq->size == cq->head) {
		return false;
	}
	cpl.status.p = stale_phase ? !cq->phase : cq->phase;
	/* the entry, then its status word with the phase tag: the host sees it complete */
	if (dma_write(fc, at, &cpl, offsetof(struct xnvme_spec_cpl, status)) ||
	    dma_write(fc, at + offsetof(struct xnvme_spec_cpl, status), &cpl.status,
		      sizeof(cpl.status))) {
		return false;
	}
	if (stale_phase) {
		return true;
	}
	if (++cq->tail == cq->size) {
		cq->tail = 0;
		cq->phase ^= 1;
	}
	if (cq->ien && cq->iv < FAKE_MAXQ && fc->irq_fds[cq->iv] > 0) {
		uint64_t one = 1;

		if (write(fc->irq_fds[cq->iv], &one, sizeof(one)) != sizeof(one)) {
			fc->bad_dma++;
		}
	}
	return true;
}

void
fake_ctrl_inject(struct fake_ctrl *fc, uint16_t qid, uint16_t cid, bool stale_phase)
{
	struct xnvme_spec_cpl cpl = {0};

	cpl.cid = cid;
	cpl.sqid = qid;
	post(fc, qid, cpl, stale_phase);
}

/* Fetches and executes everything submitted; completions go to the pending list */
static void
fetch(struct fake_ctrl *fc)
{
	for (uint16_t q = 0; q < FAKE_MAXQ; ++q) {
		struct fake_queue *sq = &fc->sq[q];

		if (!sq->exists) {
			continue;
		}
		while (sq->head != sq->tail && fc->npending < FAKE_PENDING) {
			struct xnvme_spec_cmd cmd;
			struct fake_cpl fcpl = {.sqid = q};

			if (dma_read(fc, sq->iova + (uint64_t)sq->head * sizeof(cmd), &cmd,
				     sizeof(cmd))) {
				break;
			}

			sq->head = (sq->head + 1) % sq->size;
			fcpl.cpl.cid = cmd.common.cid;
			fcpl.cpl.sqid = q;
			fcpl.cpl.sqhd = (uint16_t)sq->head;
			if (q == 0) {
				admin_exec(fc, &cmd, &fcpl.cpl);
			} else if (cmd.nvm.slba == fc->swallow_slba && fc->nwithheld < 16) {
				fc->withheld[fc->nwithheld++] = fcpl;
				continue;
			} else {
				nvm_exec(fc, &cmd, &fcpl.cpl);
			}
			fc->pending[fc->npending++] = fcpl;
		}
	}
}

static void
idle_locked(struct fake_ctrl *fc)
{
	int kept = 0;

	shared_csts(fc);
	if (!(fc->csts & NVME_CSTS_RDY) || (fc->csts & NVME_CSTS_CFS) ||
	    __atomic_load_n(&fc->gone, __ATOMIC_ACQUIRE)) {
		return;
	}
	if (fc->bar) {
		shared_db_poll(fc);
	}
	fetch(fc);
	if (fc->random_order) {
		for (int i = fc->npending - 1; i > 0; --i) {
			int j = (int)(rnd(fc) % (uint64_t)(i + 1));
			struct fake_cpl t = fc->pending[i];

			fc->pending[i] = fc->pending[j];
			fc->pending[j] = t;
		}
	}
	for (int i = 0; i < fc->npending; ++i) {
		struct fake_cpl *p = &fc->pending[i];
		uint16_t cqid = p->sqid ? fc->sq[p->sqid].cqid : 0;
		bool hold = fc->random_order && p->sqid && rnd(fc) % 3 == 0;

		if (!fc->cq[cqid].exists) {
			continue; /* its queues were deleted meanwhile: the completion is gone */
		}
		if (hold || !post(fc, cqid, p->cpl, false)) {
			fc->pending[kept++] = *p;
			continue;
		}
		if (fc->duplicate_next && p->sqid) {
			fc->duplicate_next = false;
			post(fc, cqid, p->cpl, false);
		}
	}
	fc->npending = kept;
}

void
fake_ctrl_process(struct fake_ctrl *fc)
{
	pthread_mutex_lock(&fc->lock);
	idle_locked(fc);
	pthread_mutex_unlock(&fc->lock);
}

static void
f_idle(struct vfio_bus *bus)
{
	fake_ctrl_process((struct fake_ctrl *)bus);
}

void
fake_ctrl_release(struct fake_ctrl *fc)
{
	for (int i = 0; i < fc->nwithheld; ++i) {
		fc->pending[fc->npending++] = fc->withheld[i];
	}
	fc->nwithheld = 0;
}

static int
f_irq_eventfd(struct vfio_bus *bus, uint16_t vector)
{
	struct fake_ctrl *fc = (struct fake_ctrl *)bus;

	if (vector >= FAKE_MAXQ) {
		return -ENOTSUP;
	}
	if (!fc->irq_fds[vector]) {
		fc->irq_fds[vector] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	}
	return fc->irq_fds[vector] > 0 ? fc->irq_fds[vector] : -errno;
}

static int
f_req_eventfd(struct vfio_bus *bus)
{
	struct fake_ctrl *fc = (struct fake_ctrl *)bus;

	if (!fc->req_fd) {
		fc->req_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	}
	return fc->req_fd > 0 ? fc->req_fd : -errno;
}

/* Called by the driver's removal thread: from then on the device is gone */
static void
f_release(struct vfio_bus *bus)
{
	struct fake_ctrl *fc = (struct fake_ctrl *)bus;

	__atomic_store_n(&fc->gone, true, __ATOMIC_RELEASE);
	__atomic_store_n(&fc->released, 1, __ATOMIC_RELEASE);
	shared_csts(fc);
}

/* A secondary's completion eventfd on `vector` (multi-process), or none (-1) */
static int
f_irq_set(struct vfio_bus *bus, uint16_t vector, int fd)
{
	struct fake_ctrl *fc = (struct fake_ctrl *)bus;
	int dup_fd = fd >= 0 ? dup(fd) : 0;

	if (vector >= FAKE_MAXQ || dup_fd < 0) {
		if (dup_fd > 0) {
			close(dup_fd);
		}
		return vector >= FAKE_MAXQ ? -ENOTSUP : -errno;
	}
	pthread_mutex_lock(&fc->lock);
	if (fc->irq_fds[vector] > 0) {
		close(fc->irq_fds[vector]);
	}
	fc->irq_fds[vector] = dup_fd;
	pthread_mutex_unlock(&fc->lock);
	return 0;
}

static const struct vfio_bus_ops fake_ops = {
	.read32 = f_read32,
	.write32 = f_write32,
	.dma_map = f_dma_map,
	.dma_unmap = f_dma_unmap,
	.irq_eventfd = f_irq_eventfd,
	.idle = f_idle,
	.req_eventfd = f_req_eventfd,
	.release = f_release,
	.share = fake_shared_fds,
	.irq_set = f_irq_set,
};

int
fake_ctrl_init(struct fake_ctrl *fc)
{
	fc->bus.ops = &fake_ops;
	fc->bus.iova_base = 1ULL << 32;
	fc->bus.iova_limit = 1ULL << 39;
	fc->bus.bar_size = 0x10000; /* tests shrink it after setup */
	fc->cap = (uint64_t)fc->mqes | ((uint64_t)fc->to << 24) | ((uint64_t)fc->dstrd << 32) |
		  ((uint64_t)fc->css << 37) | ((uint64_t)fc->mpsmin << 48) | (4ULL << 52);
	fc->rng = 0x9E3779B97F4A7C15ULL;
	fc->media = calloc(fc->nlbas, fc->lba_nbytes);
	fc->meta = calloc(fc->nlbas, fc->ms ? fc->ms : 1);
	fc->scratch = malloc(FAKE_SCRATCH);
	fc->bar_fd = fc->sh_fd = -1;
	pthread_mutex_init(&fc->lock, NULL);
	return fc->media && fc->meta && fc->scratch ? 0 : -ENOMEM;
}

void
fake_ctrl_fini(struct fake_ctrl *fc)
{
	fake_shared_fini(fc);
	pthread_mutex_destroy(&fc->lock);
	free(fc->media);
	free(fc->meta);
	free(fc->scratch);
	for (int i = 0; i < FAKE_MAXQ; ++i) {
		if (fc->irq_fds[i] > 0) {
			close(fc->irq_fds[i]);
		}
	}
	if (fc->req_fd > 0) {
		close(fc->req_fd);
	}
}
