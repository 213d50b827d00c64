// SPDX-License-Identifier: BSD-3-Clause
/**
 * The EXAMPLES of the tools' man pages. Those on the ramdisk (1GB...) run without hardware;
 * tests/test_cli_conventions.py runs each of them.
 */
#include <stddef.h>
#include <string.h>
#include "tools_common.h"

static const struct tool_example g_xnvme[] = {
	{"xnvme info 1GB", "Print the handle of a 1 GiB ramdisk: identity, backend, geometry and, "
			   "per kind, which mechanisms can serve it."},
	{"xnvme info /dev/ng0n1 --async io_uring_cmd",
	 "Open an NVMe namespace through its character device with io_uring passthrough queues."},
	{"xnvme idfy-ctrlr 1GB --data-output idfy.bin",
	 "Print the Identify Controller data and keep the raw 4096 bytes in idfy.bin."},
	{"xnvme log-health 1GB", "Print the SMART / Health Information log."},
	{"xnvme feature-get 1GB --fid 0x7", "Print the Number of Queues feature."},
	{"xnvme library-info", "Print the version, the build configuration and the backends."},
	{NULL, NULL},
};

static const struct tool_example g_lblk[] = {
	{"lblk write 1GB --slba 0 --nlb 7",
	 "Write 8 blocks (--nlb is zero-based) of generated data from block 0."},
	{"lblk read 1GB --slba 0x10 --nlb 0 --data-output block.bin",
	 "Read block 16 into block.bin (--slba is HEX: 0x10 and 10 both mean 16)."},
	{"lblk write-zeros 1GB --slba 0x400 --nlb 255", "Zero 256 blocks from block 1024."},
	{"lblk read /dev/nvme0n1 --slba 0 --nlb 7 --sync nvme --direct",
	 "Read through NVMe passthrough on a block device, bypassing the page cache."},
	{NULL, NULL},
};

static const struct tool_example g_zoned[] = {
	{"zoned report '1GB?csi=zoned' --limit 4",
	 "Report the first four zones of a zoned ramdisk."},
	{"zoned append '1GB?csi=zoned' --slba 0 --nlb 0",
	 "Append one block to the first zone and print the LBA the device assigned."},
	{"zoned mgmt-reset '1GB?csi=zoned' --slba 0 --all", "Reset every zone."},
	{NULL, NULL},
};

static const struct tool_example g_kvs[] = {
	{"kvs store '1GB?csi=kv' --key hello --value world", "Store a value under the key hello."},
	{"kvs store '1GB?csi=kv' --key k1 --value v1 --only-add",
	 "Store only when the key does not exist yet (a ramdisk lives for one process, so it "
	 "never does here)."},
	{"kvs idfy-ns '1GB?csi=kv'", "Print the key-value Identify Namespace data."},
	{NULL, NULL},
};

static const struct tool_example g_xdd[] = {
	{"xdd sync --data-input 1GB --data-output copy.bin --data-nbytes 4m",
	 "Copy the first 4 MiB of a ramdisk into copy.bin."},
	{"xdd async --data-input /dev/nvme0n1 --data-output copy.bin --data-nbytes 1g "
	 "--iosize 1m --qdepth 32 --direct",
	 "Copy 1 GiB of a block device with 32 commands of 1 MiB in flight, bypassing the page "
	 "cache (sizes and offsets must then be multiples of the block size)."},
	{NULL, NULL},
};

static const struct tool_example g_xnvme_file[] = {
	{"xnvme_file write-read 1GB 8m", "Write 8 MiB to a ramdisk, read them back and compare."},
	{"xnvme_file dump-async dump.bin --data-nbytes 16m --qdepth 8",
	 "Write 16 MiB of generated data to dump.bin with 8 commands in flight."},
	{"xnvme_file copy-sync dump.bin copy.bin --iosize 64k", "Copy a file 64 KiB at a time."},
	{NULL, NULL},
};

static const struct tool_example g_xnvmeperf[] = {
	{"xnvmeperf 1GB --rw randread --qdepth 32 --runtime 2",
	 "Random 4 KiB reads on a ramdisk for two seconds, 32 in flight."},
	{"xnvmeperf 1GB --rw randwrite --iosize 16k --threads 2 --count 1000 --json",
	 "1000 random 16 KiB writes per thread on two threads, reported as JSON."},
	{"xnvmeperf /dev/ng0n1 --async io_uring_cmd --qdepth 64 --direct",
	 "Random reads on an NVMe namespace through io_uring passthrough."},
	{NULL, NULL},
};

const struct tool_example *
tool_examples(const char *tool)
{
	static const struct {
		const char *tool;
		const struct tool_example *ex;
	} map[] = {
		{"xnvme", g_xnvme},
		{"lblk", g_lblk},
		{"zoned", g_zoned},
		{"kvs", g_kvs},
		{"xdd", g_xdd},
		{"xnvme_file", g_xnvme_file},
		{"xnvmeperf", g_xnvmeperf},
	};

	for (size_t i = 0; tool && i < sizeof(map) / sizeof(map[0]); ++i) {
		if (!strcmp(map[i].tool, tool)) {
			return map[i].ex;
		}
	}
	return NULL;
}
