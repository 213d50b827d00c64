// SPDX-License-Identifier: BSD-3-Clause
/*
 * Writes a file through the file API, syncs it, reads it back and verifies it.
 * Usage: xnvme_file_api <path>
 * Example: xnvme_file_api /tmp/file-api.bin
 *
 * Creates (or truncates) the file, writes 1 MiB at byte offset 0, syncs, reads it back and
 * compares: the byte-addressed file API (libxnvme_file.h) over the same handles as devices.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <libxnvme.h>

#define NBYTES (1 << 20)

int
main(int argc, char **argv)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *fh;
	char *wbuf = NULL, *rbuf = NULL;
	int err;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout,
			"Usage: xnvme_file_api <path>\n"
			"Writes a file through the file API, syncs it, reads it back and verifies "
			"it.\n"
			"Example: xnvme_file_api /tmp/file-api.bin\n");
		return argc < 2 ? 2 : 0;
	}
	opts.create = 1;
	opts.truncate = 1;
	fh = xnvme_file_open(argv[1], &opts);
	if (!fh) {
		xnvme_cli_perr("xnvme_file_open()", errno);
		return 1;
	}
	wbuf = (char *)xnvme_buf_alloc(fh, NBYTES);
	rbuf = (char *)xnvme_buf_alloc(fh, NBYTES);
	if (!wbuf || !rbuf) {
		err = -errno;
		goto exit;
	}
	xnvme_buf_fill(wbuf, NBYTES, "anum");
	xnvme_buf_clear(rbuf, NBYTES);

	ctx = xnvme_file_get_cmd_ctx(fh);
	err = xnvme_file_pwrite(&ctx, wbuf, NBYTES, 0);
	if (err || ctx.cpl.result != NBYTES) {
		xnvme_cli_perr("xnvme_file_pwrite()", err ? err : -EIO);
		err = err ? err : -EIO;
		goto exit;
	}
	err = xnvme_file_sync(fh);
	if (err) {
		xnvme_cli_perr("xnvme_file_sync()", err);
		goto exit;
	}
	ctx = xnvme_file_get_cmd_ctx(fh);
	err = xnvme_file_pread(&ctx, rbuf, NBYTES, 0);
	if (err || ctx.cpl.result != NBYTES) {
		xnvme_cli_perr("xnvme_file_pread()", err ? err : -EIO);
		err = err ? err : -EIO;
		goto exit;
	}
	err = xnvme_buf_diff(wbuf, rbuf, NBYTES) ? -EIO : 0;
	printf("file api: {path: '%s', nbytes: %d, verified: %s}\n", argv[1], NBYTES,
	       err ? "false" : "true");

exit:
	xnvme_buf_free(fh, wbuf);
	xnvme_buf_free(fh, rbuf);
	xnvme_file_close(fh);
	return err ? 1 : 0;
}
