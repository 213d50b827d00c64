// SPDX-License-Identifier: BSD-3-Clause
/*
 * Reads one LBA through a queue, with a completion callback.
 * Usage: xnvme_hello_async <uri> [async mechanism]
 * Example: xnvme_hello_async /tmp/demo.img io_uring
 *
 * Opens the device with the named asynchronous mechanism (default: the device's), creates a
 * queue of 16, submits one read of LBA 0, drains the queue and reports what the callback saw.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <libxnvme.h>

struct cb_state {
	int completed;
	int status;
};

static void
on_completion(struct xnvme_cmd_ctx *ctx, void *cb_arg)
{
	struct cb_state *state = (struct cb_state *)cb_arg;

	state->completed += 1;
	state->status = xnvme_cmd_ctx_cpl_status(ctx);
	if (state->status) {
		xnvme_cmd_ctx_pr(ctx, XNVME_PR_DEF);
	}
	xnvme_queue_put_cmd_ctx(ctx->async.queue, ctx);
}

int
main(int argc, char **argv)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct cb_state state = {0, 0};
	struct xnvme_queue *queue = NULL;
	struct xnvme_cmd_ctx *ctx;
	struct xnvme_dev *dev;
	void *buf;
	int err;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout,
			"Usage: xnvme_hello_async <uri> [async mechanism]\n"
			"Reads one LBA through a queue, with a completion callback.\n"
			"Example: xnvme_hello_async /tmp/demo.img io_uring\n");
		return argc < 2 ? 2 : 0;
	}
	opts.async = argc > 2 ? argv[2] : NULL;
	dev = xnvme_dev_open(argv[1], &opts);
	if (!dev) {
		xnvme_cli_perr("xnvme_dev_open()", errno);
		return 1;
	}
	buf = xnvme_buf_alloc(dev, xnvme_dev_get_geo(dev)->lba_nbytes);
	if (!buf) {
		err = -errno;
		goto exit;
	}
	err = xnvme_queue_init(dev, 16, 0, &queue);
	if (err) {
		xnvme_cli_perr("xnvme_queue_init()", err);
		goto exit;
	}
	xnvme_queue_set_cb(queue, on_completion, &state);

	ctx = xnvme_queue_get_cmd_ctx(queue);
	err = xnvme_nvm_read(ctx, xnvme_dev_get_nsid(dev), 0x0, 0, buf, NULL);
	if (err) {
		xnvme_cli_perr("xnvme_nvm_read()", err);
		xnvme_queue_put_cmd_ctx(queue, ctx);
		goto exit;
	}
	err = xnvme_queue_drain(queue);
	if (err < 0) {
		xnvme_cli_perr("xnvme_queue_drain()", err);
		goto exit;
	}
	err = (state.completed == 1 && !state.status) ? 0 : -EIO;
	printf("async read: {mechanism: '%s', completed: %d, status: %d}\n",
	       xnvme_dev_get_opts(dev)->async, state.completed, state.status);

exit:
	xnvme_queue_term(queue);
	xnvme_buf_free(dev, buf);
	xnvme_dev_close(dev);
	return err ? 1 : 0;
}
