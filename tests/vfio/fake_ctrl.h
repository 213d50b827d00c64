/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * In-memory NVMe controller for the unit suite (test-only): implements the vfio driver's bus
 * (register access and IOMMU mapping), fetches commands when the driver polls, executes admin
 * bring-up commands and NVM Read/Write on a RAM namespace by walking PRPs independently of the
 * driver, and can misbehave on request: random completion order, withheld commands, injected
 * completion entries, a fatal status, a controller that never becomes ready. It answers Abort
 * as told (abort_mode), drops everything on a reset (CC.EN=0) and signals a removal request
 * on its request eventfd when the test writes it; release() makes it gone.
 * Multi-process mode (fake_ctrl_mp.c): fake_ctrl_share() puts the doorbells and CSTS in shared
 * memory and keeps a shared table of the secondaries' mappings; the secondaries' bus
 * (fake_remote_import) writes doorbells there and adds its mappings, and the device reaches
 * their memory with process_vm_readv/writev. A device thread (fake_ctrl_thread_start) then
 * runs the controller while the primary waits for its socket.
 */
#ifndef XNVME_TEST_FAKE_CTRL_H
#define XNVME_TEST_FAKE_CTRL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bus.h"
#include "nvme_reg.h"

#define FAKE_MAXQ 8
#define FAKE_MAXMAP 256
#define FAKE_PENDING 4096
#define FAKE_SCRATCH (64u << 10) ///< a PRP list page or an SGL segment, read by the device
#define FAKE_SHMAPS 1024

/** A mapping a secondary made (multi-process), in the table it shares with the device */
struct fake_shmap {
	uint64_t iova;
	uint64_t len;
	uint64_t vaddr; ///< in the secondary
	int32_t pid;
	int32_t rsvd;
};

/** Shared by the device and the secondaries (a memfd) */
struct fake_shared {
	pthread_mutex_t lock; ///< process-shared, robust: a secondary may die holding it
	uint32_t nmaps;
	struct fake_shmap maps[FAKE_SHMAPS];
};

struct fake_map {
	uint8_t *vaddr;
	uint64_t iova;
	size_t len;
};

struct fake_queue {
	bool exists;
	uint64_t iova;
	uint32_t size;
	uint32_t head; ///< SQ: next to fetch; CQ: host head from doorbell
	uint32_t tail; ///< SQ: from doorbell; CQ: next to post
	uint8_t phase;
	uint16_t cqid;
	bool ien;    ///< CQ: interrupts enabled
	uint16_t iv; ///< CQ: MSI-X vector
};

enum fake_abort_mode {
	FAKE_ABORT_NONE = 0,   ///< Abort is an invalid opcode
	FAKE_ABORT_OK = 1,     ///< the withheld command completes with Command Abort Requested
	FAKE_ABORT_LATE = 2,   ///< "not aborted" (cdw0 1); the command then completes normally
	FAKE_ABORT_IGNORE = 3, ///< "not aborted" (cdw0 1); the command stays withheld
};

struct fake_cpl {
	uint16_t sqid;
	struct xnvme_spec_cpl cpl;
};

struct fake_ctrl {
	struct vfio_bus bus; ///< first: the driver's bus pointer is the fake

	/* configuration, set before vfio_ctrl_init() */
	uint16_t mqes;
	uint8_t dstrd, to, mpsmin, css, mdts;
	uint32_t lba_nbytes;
	uint16_t ms; ///< metadata bytes per LBA (separate buffer)
	uint64_t nlbas;
	uint8_t sgls; ///< Identify SGLS bits 1:0 offered
	bool never_ready;
	bool gone; ///< atomic: removed: every register reads all-ones, nothing is processed
	uint8_t abort_mode;    ///< enum fake_abort_mode
	bool random_order;     ///< post each poll's completions shuffled, holding some back
	uint64_t swallow_slba; ///< commands at this LBA are withheld (never completed)
	bool duplicate_next;   ///< post the next completion twice

	/* state */
	uint64_t cap;
	uint32_t cc, csts, aqa;
	uint64_t asq, acq;
	struct fake_queue sq[FAKE_MAXQ], cq[FAKE_MAXQ];
	struct fake_map maps[FAKE_MAXMAP];
	int nmaps;
	struct fake_cpl pending[FAKE_PENDING];
	int npending;
	struct fake_cpl withheld[16];
	int nwithheld;
	int irq_fds[FAKE_MAXQ]; ///< eventfd per MSI-X vector, created on request (0: none)
	uint8_t *media;
	uint8_t *meta;
	uint64_t rng;

	/* observations */
	uint32_t sq_db_writes[FAKE_MAXQ];
	uint32_t cq_db_writes[FAKE_MAXQ];
	uint32_t bad_doorbells;
	uint32_t bad_dma;  ///< PRP or MPTR outside mapped memory
	uint32_t dead_dma; ///< DMA to a secondary that died before the primary reclaimed it
	uint64_t bad_iova; ///< the last DMA address nothing mapped
	int bad_errno;
	uint32_t shutdowns;
	uint32_t cc_seen;    ///< CC value of the last enable
	uint32_t aborts;     ///< Abort commands received
	uint32_t last_abort; ///< dword 10 (SQID, CID << 16) of the last Abort
	uint32_t resets;     ///< transitions of CC.EN from 1 to 0
	uint32_t dropped;    ///< withheld commands a reset dropped
	int released;        ///< atomic: release() called (the driver let go of the device)
	int req_fd;          ///< the request eventfd (0: not asked for); the test writes it

	pthread_mutex_t lock; ///< device state: the device thread and the primary's calls
	void *scratch;        ///< FAKE_SCRATCH bytes

	/* multi-process (fake_ctrl_share()) */
	int bar_fd;                      ///< memfd: registers and doorbells as secondaries see them
	int sh_fd;                       ///< memfd: struct fake_shared
	uint32_t *bar;                   ///< bus.bar_size bytes, mapped from bar_fd
	struct fake_shared *sh;          ///< mapped from sh_fd
	uint32_t db_seen[2 * FAKE_MAXQ]; ///< the shared doorbells as last applied
	pthread_t thread;
	int thread_stop; ///< atomic
	bool thread_on;
};

int
fake_ctrl_init(struct fake_ctrl *fc);

void
fake_ctrl_fini(struct fake_ctrl *fc);

/** Posts a completion entry as is (phase set by the fake unless `stale_phase`) on CQ `qid` */
void
fake_ctrl_inject(struct fake_ctrl *fc, uint16_t qid, uint16_t cid, bool stale_phase);

/** Completes the withheld commands */
void
fake_ctrl_release(struct fake_ctrl *fc);

/** Fetches, executes and completes what was submitted (what the idle poll does) */
void
fake_ctrl_process(struct fake_ctrl *fc);

/* Multi-process mode (fake_ctrl_mp.c) */

/** Shares the doorbells, CSTS and a mapping table with secondaries; 0 or negative errno */
int
fake_ctrl_share(struct fake_ctrl *fc);

/** Frees what fake_ctrl_share() made (fake_ctrl_fini calls it) */
void
fake_shared_fini(struct fake_ctrl *fc);

/** The bus op share: the descriptors of the shared doorbells and mapping table */
int
fake_shared_fds(struct vfio_bus *bus, int *fds, int max);

/** Locks the shared table, making it consistent when its holder died */
void
fake_shared_lock(struct fake_shared *sh);

/** Removes every mapping of the shared table inside [iova, iova+len) */
void
fake_shared_unmap(struct fake_shared *sh, uint64_t iova, uint64_t len);

/** A thread that runs the controller about every 20 µs until fake_ctrl_thread_stop() */
int
fake_ctrl_thread_start(struct fake_ctrl *fc);

void
fake_ctrl_thread_stop(struct fake_ctrl *fc);

/** A secondary's bus on the shared descriptors (vfio_bus_import_fn) */
int
fake_remote_import(const int *fds, int nfds, uint64_t bar_size, struct vfio_bus **out, char *errmsg,
		   size_t errmsg_len);

/** Mappings of process `pid` in the shared table */
uint32_t
fake_shared_maps_of(struct fake_shared *sh, pid_t pid);

#endif /* XNVME_TEST_FAKE_CTRL_H */
