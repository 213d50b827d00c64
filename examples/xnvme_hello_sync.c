// SPDX-License-Identifier: BSD-3-Clause
/*
 * Synchronous writes over a device, then read back and verify: the "hello world" of the API.
 * Usage: xnvme_hello_sync <uri> [nlbas]
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

	if (argc < 2) {
		fprintf(stderr, "usage: %s <uri> [nlbas]\n", argv[0]);
		return 1;
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

	wbuf = xnvme_buf_alloc(dev, geo->lba_nbytes);
	rbuf = xnvme_buf_alloc(dev, geo->lba_nbytes);
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
