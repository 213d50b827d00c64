// SPDX-License-Identifier: BSD-3-Clause
#include "device.hpp"

#include <cerrno>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sched.h>
#include <time.h>

#include <libxnvme.h>

namespace nvmefs {

//! Bytes of the per-thread bounce buffer
static constexpr size_t WINDOW_NBYTES = 1u << 20;
//! Command size of large transfers on kernel queues (see Device::SplitBytes)
static constexpr uint32_t SPLIT_NBYTES = 64u << 10;
//! Largest transfer when the device reports no MDTS
static constexpr uint32_t DEFAULT_MDTS = 128u << 10;

static std::atomic<uint64_t> g_next_device_id {1};

struct Device::ThreadCtx {
	xnvme_queue *queue = nullptr;
	uint8_t *buf = nullptr;
};

namespace {
// Live devices by id, so an exiting thread can hand its contexts back to devices still open.
// Never destroyed: threads may exit during process teardown.
struct LiveDevices {
	std::mutex lock;
	std::map<uint64_t, Device *> devices;
};
LiveDevices &Live() {
	static LiveDevices *live = new LiveDevices();
	return *live;
}

struct TlsEntry {
	uint64_t device_id;
	Device::ThreadCtx *ctx;
};
// This thread's contexts. Entries of closed devices never match again (ids are never reused);
// at thread exit the contexts of devices still open are released (queue and buffer).
struct TlsContexts {
	std::vector<TlsEntry> entries;
	~TlsContexts() {
		for (auto &entry : entries) {
			Device::ReleaseThreadCtx(entry.device_id, entry.ctx);
		}
	}
};
thread_local TlsContexts tls_ctxs;

struct Batch {
	uint32_t outstanding = 0;
	int err = 0;
	uint8_t sct = 0;
	uint8_t sc = 0;
	uint64_t failed_lba = 0;
};

void OnCompletion(xnvme_cmd_ctx *ctx, void *arg) {
	auto *batch = static_cast<Batch *>(arg);
	if (xnvme_cmd_ctx_cpl_status(ctx) && !batch->err) {
		batch->err = EIO;
		batch->sct = ctx->cpl.status.sct;
		batch->sc = ctx->cpl.status.sc;
		batch->failed_lba = ctx->cmd.nvm.slba;
	}
	batch->outstanding--;
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

//! Reaps completions until fewer than `target` commands of the batch are outstanding
void Reap(xnvme_queue *queue, Batch &batch, uint32_t target) {
	unsigned idle = 0;
	while (batch.outstanding > target) {
		int n = xnvme_queue_poke(queue, 0);
		if (n < 0) {
			throw Error(std::string("nvmefs: xnvme_queue_poke() failed: ") + strerror(-n));
		}
		if (n > 0) {
			idle = 0;
			continue;
		}
		// Nothing ready: the command runs on another thread or in the device. Spin briefly,
		// then give the CPU away (on two cores a spinning waiter starves the worker).
		if (++idle < 32) {
			continue;
		}
		if (idle < 4096) {
			sched_yield();
		} else {
			struct timespec ts = {0, 20000};
			nanosleep(&ts, nullptr);
		}
	}
}
} // namespace

std::string DeviceConfig::Key() const {
	return uri + "|be=" + backend + "|async=" + async + "|sync=" + sync + "|admin=" + admin +
	       "|nsid=" + std::to_string(nsid) + "|qd=" + std::to_string(queue_depth) + "|direct=" + (direct ? "1" : "0") +
	       "|zc=" + (zero_copy ? "1" : "0") + "|shm=" + std::to_string(shm_id);
}

std::string DeviceConfig::Describe() const {
	auto show = [](const std::string &v) {
		return v.empty() ? std::string("auto") : v;
	};
	return "backend " + show(backend) + ", async " + show(async) + ", sync " + show(sync) + ", admin " +
	       show(admin) + ", nsid " + (nsid ? std::to_string(nsid) : std::string("auto")) + ", queue depth " +
	       std::to_string(queue_depth) + (direct ? ", direct" : "") + (zero_copy ? ", zero copy" : "") +
	       (shm_id ? ", shm id " + std::to_string(shm_id) : std::string());
}

void Device::ReleaseThreadCtx(uint64_t device_id, ThreadCtx *ctx) {
	auto &live = Live();
	std::lock_guard<std::mutex> guard(live.lock);
	auto it = live.devices.find(device_id);
	if (it == live.devices.end()) {
		return; // closed: the device released every context
	}
	Device &dev = *it->second;
	std::lock_guard<std::mutex> ctx_guard(dev.ctx_lock);
	for (auto c = dev.ctxs.begin(); c != dev.ctxs.end(); ++c) {
		if (c->get() == ctx) {
			xnvme_queue_term(ctx->queue);
			xnvme_buf_free(dev.dev, ctx->buf);
			dev.ctxs.erase(c);
			return;
		}
	}
}

Device::Device(const DeviceConfig &config_p) : config(config_p), id(g_next_device_id++) {
	struct xnvme_opts opts = xnvme_opts_default();
	opts.be = config.backend.empty() ? nullptr : config.backend.c_str();
	opts.async = config.async.empty() ? nullptr : config.async.c_str();
	opts.sync = config.sync.empty() ? nullptr : config.sync.c_str();
	opts.admin = config.admin.empty() ? nullptr : config.admin.c_str();
	opts.nsid = config.nsid;
	opts.shm_id = config.shm_id;
	opts.direct = config.direct ? 1 : 0;
	opts.rdwr = 1;

	dev = xnvme_dev_open(config.uri.c_str(), &opts);
	if (!dev) {
		int err = errno;
		const char *why = xnvme_last_error(); // the library's reason: backend, what, accepted
		throw Error("nvmefs: cannot open device '" + config.uri + "' (" + config.Describe() +
		            "): " + strerror(err) + (why[0] ? std::string(": ") + why : std::string()));
	}
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	if (!geo || !geo->lba_nbytes || !geo->tbytes) {
		xnvme_dev_close(dev);
		throw Error("nvmefs: device '" + config.uri + "' reports no usable geometry (is it empty or a controller?)");
	}
	if (geo->nbytes_oob || geo->lba_extended) {
		xnvme_dev_close(dev);
		throw Error("nvmefs: device '" + config.uri +
		            "' uses an LBA format with metadata; format the namespace without metadata");
	}
	lba_nbytes = geo->lba_nbytes;
	if (lba_nbytes > 4096 || 4096 % lba_nbytes) {
		xnvme_dev_close(dev);
		throw Error("nvmefs: device '" + config.uri + "' has " + std::to_string(lba_nbytes) +
		            "-byte LBAs; nvmefs needs an LBA size that divides 4096");
	}
	nlbas = geo->tbytes / lba_nbytes;
	nsid = config.nsid ? config.nsid : xnvme_dev_get_nsid(dev);

	uint64_t mdts = geo->mdts_nbytes ? geo->mdts_nbytes : DEFAULT_MDTS;
	uint64_t by_nlb = uint64_t(65536) * lba_nbytes;
	window = WINDOW_NBYTES;
	uint64_t xfer = mdts < by_nlb ? mdts : by_nlb;
	xfer = xfer < window ? xfer : window;
	max_xfer = uint32_t(xfer / lba_nbytes * lba_nbytes);
	if (!max_xfer) {
		max_xfer = lba_nbytes;
	}
	DetectFdp();

	// Commands of a synchronous or emulated queue run one after another: splitting only costs.
	// Kernel queues (io_uring, io_uring_cmd, libaio) run them concurrently.
	split = max_xfer;
	const struct xnvme_opts *eff = xnvme_dev_get_opts(dev);
	std::string async = eff->async ? eff->async : "";
	if (async == "io_uring" || async == "io_uring_cmd" || async == "libaio") {
		split = std::min<uint32_t>(max_xfer, SPLIT_NBYTES);
	}
	if (const char *env = getenv("NVMEFS_SPLIT_KIB")) {
		uint64_t kib = strtoull(env, nullptr, 10);
		if (kib) {
			split = std::min<uint32_t>(max_xfer, uint32_t(kib << 10));
		}
	}
	split = std::max<uint32_t>(split / lba_nbytes * lba_nbytes, lba_nbytes);
	{
		auto &live = Live();
		std::lock_guard<std::mutex> guard(live.lock);
		live.devices[id] = this;
	}
	std::string be = eff->be ? eff->be : "";
	zero_copy = config.zero_copy && (be == "linux" || be == "ramdisk" || be == "fbsd" || be == "macos");
}

Device::~Device() {
	{
		auto &live = Live();
		std::lock_guard<std::mutex> guard(live.lock);
		live.devices.erase(id);
	}
	{
		std::lock_guard<std::mutex> guard(ctx_lock);
		for (auto &ctx : ctxs) {
			xnvme_queue_term(ctx->queue);
			xnvme_buf_free(dev, ctx->buf);
		}
		ctxs.clear();
	}
	xnvme_dev_close(dev);
}

std::string Device::Mechanisms() const {
	const struct xnvme_opts *o = xnvme_dev_get_opts(dev);
	auto s = [](const char *v) {
		return std::string(v ? v : "?");
	};
	return "be=" + s(o->be) + " admin=" + s(o->admin) + " sync=" + s(o->sync) + " async=" + s(o->async) +
	       " mem=" + s(o->mem) + " direct=" + (o->direct ? "on" : "off") + " split=" + std::to_string(split) +
	       " zero_copy=" + (zero_copy ? "on" : "off");
}

bool Device::IsRamdisk() const {
	const struct xnvme_opts *o = xnvme_dev_get_opts(dev);
	return o->be && strcmp(o->be, "ramdisk") == 0;
}

void Device::DetectFdp() {
	const struct xnvme_spec_idfy_ns *ns = xnvme_dev_get_ns(dev);
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_adm_gfeat(&ctx, nsid, XNVME_SPEC_FEAT_FDP_MODE, XNVME_SPEC_FEAT_SEL_CURRENT);
	ctx.cmd.gfeat.cdw11 = ns ? ns->endgid : 0;
	(void)xnvme_cmd_pass_admin(&ctx, nullptr, 0, nullptr, 0);
	if (!(ctx.cpl.cdw0 & 1)) {
		return; // FDP disabled or the feature is not supported: cdw0 stays 0
	}
	std::vector<uint64_t> ruamw;
	fdp = ReadRuhs(pids, ruamw) && !pids.empty();
}

bool Device::ReadRuhs(std::vector<uint16_t> &pids_out, std::vector<uint64_t> &ruamw_out) {
	const uint32_t max_desc = 128;
	uint32_t nbytes = uint32_t(sizeof(struct xnvme_spec_ruhs) + max_desc * sizeof(struct xnvme_spec_ruhs_desc));
	auto *ruhs = static_cast<struct xnvme_spec_ruhs *>(xnvme_buf_alloc(dev, nbytes));
	if (!ruhs) {
		return false;
	}
	memset(ruhs, 0, nbytes);
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	int err = xnvme_nvm_mgmt_recv(&ctx, nsid, XNVME_SPEC_IO_MGMT_RECV_RUHS, 0, ruhs, nbytes);
	bool ok = !err && !xnvme_cmd_ctx_cpl_status(&ctx);
	if (ok) {
		pids_out.clear();
		ruamw_out.clear();
		uint32_t n = ruhs->nruhsd < max_desc ? ruhs->nruhsd : max_desc;
		for (uint32_t i = 0; i < n; i++) {
			pids_out.push_back(ruhs->desc[i].pi);
			ruamw_out.push_back(ruhs->desc[i].ruamw);
		}
	}
	xnvme_buf_free(dev, ruhs);
	return ok;
}

std::vector<uint64_t> Device::PlacementAvailable() {
	std::vector<uint16_t> now_pids;
	std::vector<uint64_t> ruamw;
	if (!fdp || !ReadRuhs(now_pids, ruamw)) {
		ruamw.clear();
	}
	return ruamw;
}

Device::ThreadCtx &Device::Local() {
	for (auto &entry : tls_ctxs.entries) {
		if (entry.device_id == id) {
			return *entry.ctx;
		}
	}
	auto ctx = std::unique_ptr<ThreadCtx>(new ThreadCtx());
	uint32_t qd = config.queue_depth ? config.queue_depth : 64;
	int err = xnvme_queue_init(dev, uint16_t(qd), 0, &ctx->queue);
	if (err) {
		throw Error("nvmefs: cannot create an I/O queue of depth " + std::to_string(qd) + " on '" + config.uri +
		            "': " + strerror(-err));
	}
	ctx->buf = static_cast<uint8_t *>(xnvme_buf_alloc(dev, window));
	if (!ctx->buf) {
		xnvme_queue_term(ctx->queue);
		throw Error("nvmefs: cannot allocate an I/O buffer on '" + config.uri + "'");
	}
	ThreadCtx *raw = ctx.get();
	{
		std::lock_guard<std::mutex> guard(ctx_lock);
		ctxs.push_back(std::move(ctx));
	}
	if (tls_ctxs.entries.size() > 64) {
		// drop entries of closed devices
		auto &live = Live();
		std::lock_guard<std::mutex> guard(live.lock);
		auto &v = tls_ctxs.entries;
		v.erase(std::remove_if(v.begin(), v.end(),
		                       [&](const TlsEntry &e) { return !live.devices.count(e.device_id); }),
		        v.end());
	}
	tls_ctxs.entries.push_back({id, raw});
	return *raw;
}

size_t Device::QueueCount() {
	std::lock_guard<std::mutex> guard(ctx_lock);
	return ctxs.size();
}

uint8_t *Device::ThreadBuffer() {
	return Local().buf;
}

void Device::Transfer(bool write, const Segment *segs, size_t nsegs, uint8_t *buf, int placement) {
	ThreadCtx &local = Local();
	xnvme_queue *queue = local.queue;
	uint32_t qd = config.queue_depth ? config.queue_depth : 64;
	uint64_t max_lbas = split / lba_nbytes;
	Batch batch;

	for (size_t i = 0; i < nsegs; i++) {
		uint64_t lba = segs[i].lba;
		uint64_t left = segs[i].nlbas;
		if (lba + left > nlbas) {
			Reap(queue, batch, 0);
			throw Error("nvmefs: I/O beyond the end of device '" + config.uri + "'");
		}
		while (left) {
			uint64_t n = left < max_lbas ? left : max_lbas;
			if (batch.outstanding >= qd) {
				Reap(queue, batch, qd - 1);
			}
			for (;;) {
				struct xnvme_cmd_ctx *ctx = xnvme_queue_get_cmd_ctx(queue);
				if (!ctx && !batch.outstanding) {
					throw Error("nvmefs: the I/O queue of '" + config.uri + "' has no free command context");
				}
				if (!ctx) {
					Reap(queue, batch, batch.outstanding ? batch.outstanding - 1 : 0);
					continue;
				}
				memset(&ctx->cmd, 0, sizeof(ctx->cmd));
				if (write && placement >= 0) {
					ctx->cmd.nvm.dtype = 2; // data placement directive
					ctx->cmd.nvm.cdw13.dspec = uint16_t(placement);
				}
				xnvme_cmd_ctx_set_cb(ctx, OnCompletion, &batch);
				int err = write ? xnvme_nvm_write(ctx, nsid, lba, uint16_t(n - 1), buf, nullptr)
				                : xnvme_nvm_read(ctx, nsid, lba, uint16_t(n - 1), buf, nullptr);
				if (!err) {
					batch.outstanding++;
					break;
				}
				xnvme_queue_put_cmd_ctx(queue, ctx);
				if ((err == -EBUSY || err == -EAGAIN) && batch.outstanding) {
					Reap(queue, batch, batch.outstanding - 1);
					continue;
				}
				Reap(queue, batch, 0);
				throw Error(std::string("nvmefs: cannot submit ") + (write ? "write" : "read") + " to '" +
				            config.uri + "': " + strerror(-err));
			}
			buf += n * lba_nbytes;
			lba += n;
			left -= n;
		}
	}
	Reap(queue, batch, 0);
	if (batch.err) {
		char msg[256];
		snprintf(msg, sizeof(msg), "nvmefs: %s at LBA %llu of '%s' failed with NVMe status sct=0x%x sc=0x%x",
		         write ? "write" : "read", (unsigned long long)batch.failed_lba, config.uri.c_str(), batch.sct,
		         batch.sc);
		throw Error(msg);
	}
}

void Device::Read(const Segment *segs, size_t nsegs, void *buf) {
	Transfer(false, segs, nsegs, static_cast<uint8_t *>(buf), -1);
}

void Device::Write(const Segment *segs, size_t nsegs, const void *buf, int placement) {
	Transfer(true, segs, nsegs, static_cast<uint8_t *>(const_cast<void *>(buf)), placement);
}

void Device::Flush() {
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_FLUSH, nsid, 0, 0);
	int err = xnvme_cmd_pass(&ctx, nullptr, 0, nullptr, 0);
	if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
		char msg[256];
		snprintf(msg, sizeof(msg), "nvmefs: flush of '%s' failed (err %d, sct=0x%x sc=0x%x)", config.uri.c_str(),
		         err, ctx.cpl.status.sct, ctx.cpl.status.sc);
		throw Error(msg);
	}
}

} // namespace nvmefs
