// SPDX-License-Identifier: BSD-3-Clause
//
// nvmefs_iobench: the extension's device I/O path (nvmefs::Device: per-thread queue, MDTS and
// queue-depth splitting, device buffers) measured without DuckDB, to profile it against fio or
// plain pread/pwrite on the same storage.
//
//   nvmefs_iobench URI [--async NAME] [--direct] [--qd N] [--bs BYTES] [--threads N]
//                      [--seconds S] [--write] [--random] [--span BYTES] [--pread]
//
// --pread bypasses the library and uses pread/pwrite on the path (buffered unless --direct),
// which is what DuckDB's local file system does.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "device.hpp"

using namespace nvmefs;

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: %s URI [--async NAME] [--direct] [--qd N] [--bs BYTES] [--threads N] "
		                "[--seconds S] [--write] [--random] [--span BYTES] [--pread]\n",
		        argv[0]);
		return 1;
	}
	DeviceConfig cfg;
	cfg.uri = argv[1];
	uint64_t bs = 256 << 10, span = 1ull << 30;
	int threads = 1;
	double seconds = 3;
	bool write = false, random = false, use_pread = false;
	for (int i = 2; i < argc; i++) {
		std::string a = argv[i];
		auto next = [&]() { return std::string(i + 1 < argc ? argv[++i] : ""); };
		if (a == "--async") {
			cfg.async = next();
		} else if (a == "--direct") {
			cfg.direct = true;
		} else if (a == "--qd") {
			cfg.queue_depth = uint32_t(std::stoul(next()));
		} else if (a == "--bs") {
			bs = std::stoull(next());
		} else if (a == "--threads") {
			threads = std::stoi(next());
		} else if (a == "--seconds") {
			seconds = std::stod(next());
		} else if (a == "--write") {
			write = true;
		} else if (a == "--random") {
			random = true;
		} else if (a == "--span") {
			span = std::stoull(next());
		} else if (a == "--pread") {
			use_pread = true;
		}
	}
	std::unique_ptr<Device> dev;
	int fd = -1;
	uint32_t lba = 512;
	if (use_pread) {
		fd = open(cfg.uri.c_str(), O_RDWR | (cfg.direct ? O_DIRECT : 0));
		if (fd < 0) {
			perror("open");
			return 1;
		}
	} else {
		try {
			dev.reset(new Device(cfg));
		} catch (const Error &e) {
			fprintf(stderr, "%s\n", e.what());
			return 1;
		}
		lba = dev->LbaSize();
		span = std::min<uint64_t>(span, dev->NumLbas() * lba);
		printf("device: %s lba=%u max_transfer=%u split=%u\n", dev->Mechanisms().c_str(), lba,
		       dev->MaxTransfer(), dev->SplitBytes());
	}
	std::atomic<uint64_t> total {0};
	std::atomic<bool> stop {false};
	std::vector<std::thread> pool;
	for (int t = 0; t < threads; t++) {
		pool.emplace_back([&, t]() {
			void *buf = nullptr;
			if (posix_memalign(&buf, 4096, bs)) {
				return;
			}
			memset(buf, 0x5a, bs);
			std::mt19937_64 rng(t + 1);
			uint64_t nblocks = span / bs, pos = uint64_t(t) * (nblocks / threads);
			uint64_t done = 0;
			while (!stop) {
				uint64_t blk = random ? rng() % nblocks : pos++ % nblocks;
				uint64_t off = blk * bs;
				if (use_pread) {
					ssize_t n = write ? pwrite(fd, buf, bs, off) : pread(fd, buf, bs, off);
					if (n != ssize_t(bs)) {
						perror("io");
						break;
					}
				} else {
					Segment seg {off / lba, bs / lba};
					if (write) {
						dev->Write(&seg, 1, buf, -1);
					} else {
						dev->Read(&seg, 1, buf);
					}
				}
				done += bs;
			}
			total += done;
			free(buf);
		});
	}
	auto start = std::chrono::steady_clock::now();
	std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
	stop = true;
	for (auto &th : pool) {
		th.join();
	}
	double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
	printf("%s %s bs=%llu threads=%d: %.1f MiB/s\n", write ? "write" : "read", random ? "random" : "sequential",
	       (unsigned long long)bs, threads, double(total) / el / (1 << 20));
	if (fd >= 0) {
		close(fd);
	}
	return 0;
}
