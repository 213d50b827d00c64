// SPDX-License-Identifier: BSD-3-Clause
//
// A device opened through libxnvme: geometry, FDP placement handles, and LBA I/O through one
// library queue per thread. The queue, its command contexts and a bounce buffer from the
// device's allocator live in a per-thread context created on first use, so the I/O path takes
// no lock. Transfers are split at MDTS and kept within the queue depth.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

struct xnvme_dev;
struct xnvme_queue;

namespace nvmefs {

//! Every failure of this layer; the DuckDB layer turns it into an IOException
class Error : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

//! A region of the volume has no room left
class NoSpaceError : public Error {
public:
	using Error::Error;
};

struct DeviceConfig {
	std::string uri;
	std::string backend; //!< empty: automatic
	std::string async;
	std::string sync;
	std::string admin;
	uint32_t nsid = 0;
	uint32_t queue_depth = 64;
	bool direct = false;
	//! Hand DuckDB's own (4 KiB aligned) buffers to the library instead of copying through
	//! buffers from xnvme_buf_alloc; honoured only by backends for which any process memory is
	//! valid I/O memory (the OS kernel backends and the ramdisk)
	bool zero_copy = false;
	//! vfio: attach as a secondary to the primary process of this id (xnvme_opts.shm_id); 0: none
	uint32_t shm_id = 0;

	//! Identity of the configuration (volumes are shared per key)
	std::string Key() const;
	std::string Describe() const;
};

//! A run of LBAs
struct Segment {
	uint64_t lba;
	uint64_t nlbas;
};

class Device {
public:
	explicit Device(const DeviceConfig &config);
	~Device();
	Device(const Device &) = delete;
	Device &operator=(const Device &) = delete;

	uint32_t LbaSize() const {
		return lba_nbytes;
	}
	uint64_t NumLbas() const {
		return nlbas;
	}
	uint32_t MaxTransfer() const {
		return max_xfer;
	}
	//! Largest command the I/O path issues: large transfers are split into commands of this size
	//! and submitted together, for queue-depth parallelism on truly asynchronous mechanisms
	uint32_t SplitBytes() const {
		return split;
	}
	uint32_t Nsid() const {
		return nsid;
	}
	bool FdpEnabled() const {
		return fdp;
	}
	//! Placement identifiers reported by Reclaim Unit Handle Status (empty without FDP)
	const std::vector<uint16_t> &PlacementIds() const {
		return pids;
	}
	//! Reclaim unit available media writes (LBAs left in the current reclaim unit) of each
	//! placement identifier, read now through Reclaim Unit Handle Status; empty without FDP
	std::vector<uint64_t> PlacementAvailable();
	const DeviceConfig &Config() const {
		return config;
	}
	//! Backend and mechanisms actually chosen by the library
	std::string Mechanisms() const;
	bool IsRamdisk() const;

	//! Bytes of the per-thread bounce buffer (a multiple of the unit and the LBA size)
	size_t WindowBytes() const {
		return window;
	}
	//! Whether an LBA-aligned transfer may use the caller's memory directly (no bounce copy)
	bool ZeroCopy(const void *buf, uint64_t offset, uint64_t nbytes) const {
		return zero_copy && (reinterpret_cast<uintptr_t>(buf) & 4095) == 0 && offset % lba_nbytes == 0 &&
		       nbytes % lba_nbytes == 0;
	}
	//! This thread's bounce buffer (WindowBytes() bytes) from the device allocator
	uint8_t *ThreadBuffer();

	//! Reads/writes the segments to/from `buf` (laid out back to back) on this thread's queue.
	//! `placement` < 0 writes without a directive; otherwise it is a placement identifier.
	void Read(const Segment *segs, size_t nsegs, void *buf);
	void Write(const Segment *segs, size_t nsegs, const void *buf, int placement);
	//! NVMe Flush of the namespace
	void Flush();
	//! Queues created so far (one per thread that did I/O)
	size_t QueueCount();

	//! Per-thread queue and bounce buffer (defined in device.cpp)
	struct ThreadCtx;
	//! Called at thread exit: releases the thread's context if its device is still open
	static void ReleaseThreadCtx(uint64_t device_id, ThreadCtx *ctx);

private:
	ThreadCtx &Local();
	void Transfer(bool write, const Segment *segs, size_t nsegs, uint8_t *buf, int placement);
	void DetectFdp();
	bool ReadRuhs(std::vector<uint16_t> &pids_out, std::vector<uint64_t> &ruamw_out);

	DeviceConfig config;
	xnvme_dev *dev = nullptr;
	uint64_t id; //!< process-unique: keys the thread-local contexts
	uint32_t lba_nbytes = 0;
	uint64_t nlbas = 0;
	uint32_t max_xfer = 0;
	uint32_t split = 0;
	bool zero_copy = false;
	uint32_t nsid = 0;
	size_t window = 0;
	bool fdp = false;
	std::vector<uint16_t> pids;

	std::mutex ctx_lock; //!< creation and teardown of thread contexts only
	std::vector<std::unique_ptr<ThreadCtx>> ctxs;
};

} // namespace nvmefs
