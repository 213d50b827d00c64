// SPDX-License-Identifier: BSD-3-Clause
/*
 * Writes LBAs synchronously, reads them back and verifies them.
 * Usage: xnvme_hello_sync <uri> [nlbas]
 * Example: xnvme_hello_sync 1GB 64
 *
 * The "hello world" of the API. Writes the first nlbas logical blocks (default 64, at most
 * the device's) one command each, every block filled with its LBA's low byte, then reads each
 * back and compares: the blocks' data is replaced, so use a scratch device. Any URI the
 * library opens works: 1GB (the ramdisk), a file, /dev/nvme0n1, /dev/ng0n1, a PCI address.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>

int
main(int argc, char **argv)
{
	struct xnvme_opts opts = xnvme_opts_default();
	const struct xnvme_geo *geo;
	struct xnvme_dev *dev;
	uint8_t *wbuf = NULL, *rbuf = NULL;
	uint64_t nlbas = argc > 2 ? strtoull(argv[2], NULL, 0) : 64;
	uint32_t nsid;
	int err = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout,
			"Usage: xnvme_hello_sync <uri> [nlbas]\n"
			"Writes LBAs synchronously, reads them back and verifies them.\n"
			"Example: xnvme_hello_sync 1GB 64\n");
		return argc < 2 ? 2 : 0;
	}
	dev = xnvme_dev_open(argv[1], &opts);
	if (!dev) {
		xnvme_cli_perr("xnvme_dev_open()", errno);
		return 1;
	}
	geo = xnvme_dev_get_geo(dev);
	nsid = xnvme_dev_get_nsid(dev);
	if (nlbas * geo->lba_nbytes > geo->tbytes) {
		nlbas = geo->tbytes / geo->lba_nbytes;
	}

	wbuf = (uint8_t *)xnvme_buf_alloc(dev, geo->lba_nbytes);
	rbuf = (uint8_t *)xnvme_buf_alloc(dev, geo->lba_nbytes);
	if (!wbuf || !rbuf) {
		err = -errno;
		goto exit;
	}

	for (uint64_t lba = 0; lba < nlbas && !err; ++lba) {
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);

		memset(wbuf, (int)(lba & 0xFF), geo->lba_nbytes);
		err = xnvme_nvm_write(&ctx, nsid, lba, 0, wbuf, NULL);
		if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
			xnvme_cmd_ctx_pr(&ctx, XNVME_PR_DEF);
			err = err ? err : -EIO;
		}
	}
	for (uint64_t lba = 0; lba < nlbas && !err; ++lba) {
		struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);

		memset(wbuf, (int)(lba & 0xFF), geo->lba_nbytes);
		err = xnvme_nvm_read(&ctx, nsid, lba, 0, rbuf, NULL);
		if (err || xnvme_cmd_ctx_cpl_status(&ctx)) {
			xnvme_cmd_ctx_pr(&ctx, XNVME_PR_DEF);
			err = err ? err : -EIO;
		} else if (xnvme_buf_diff(wbuf, rbuf, geo->lba_nbytes)) {
			fprintf(stderr, "mismatch at lba %" PRIu64 "\n", lba);
			err = -EIO;
		}
	}
	if (!err) {
		printf("wrote, read back and verified %" PRIu64 " LBAs of %u bytes on '%s'\n",
		       nlbas, geo->lba_nbytes, argv[1]);
	}

exit:
	xnvme_buf_free(dev, wbuf);
	xnvme_buf_free(dev, rbuf);
	xnvme_dev_close(dev);
	return err ? 1 : 0;
}
