// SPDX-License-Identifier: BSD-3-Clause
/*
 * Command timeouts of the Linux NVMe passthrough paths, without a device: the conversion of
 * opts.admin_timeout / opts.command_timeout (microseconds) to the kernel's timeout_ms (rounded
 * up; 0 and the defaults of xnvme_opts_default() leave the driver's own timeout), that open
 * stores both in the handle, that the passthrough command built for an admin command carries
 * the admin timeout and one built for an I/O command the I/O timeout, and that the driver's
 * cancellation (EINTR) is reported as ETIMEDOUT. The guest test (tests/guest/test_timeout.c)
 * checks what the kernel does with them. Links the static library for the backend internals.
 * Exit: 0 pass, 1 fail.
 */
#include <errno.h>
#include <libxnvme.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "be_linux_nvme.h"
#include "xnvme_test.h"

static void
test_conversion(void)
{
	const uint32_t adm = XNVME_BE_LINUX_ADMIN_TIMEOUT_US_DEFAULT;
	const uint32_t io = XNVME_BE_LINUX_IO_TIMEOUT_US_DEFAULT;
	struct xnvme_opts opts = xnvme_opts_default();

	/* the defaults this backend treats as "the driver's own" are xnvme_opts_default()'s */
	CHECK_EQ(opts.admin_timeout, adm);
	CHECK_EQ(opts.command_timeout, io);
	CHECK_EQ(xnvme_be_linux_timeout_ms(adm, adm), 0);
	CHECK_EQ(xnvme_be_linux_timeout_ms(io, io), 0);
	CHECK_EQ(xnvme_be_linux_timeout_ms(0, io), 0);

	/* microseconds round up to whole milliseconds */
	CHECK_EQ(xnvme_be_linux_timeout_ms(1, io), 1);
	CHECK_EQ(xnvme_be_linux_timeout_ms(999, io), 1);
	CHECK_EQ(xnvme_be_linux_timeout_ms(1000, io), 1);
	CHECK_EQ(xnvme_be_linux_timeout_ms(1001, io), 2);
	CHECK_EQ(xnvme_be_linux_timeout_ms(1500000, io), 1500);
	CHECK_EQ(xnvme_be_linux_timeout_ms(io + 1, io), 30001);
	CHECK_EQ(xnvme_be_linux_timeout_ms(io, adm), 30000); /* the I/O default as admin timeout */
	CHECK_EQ(xnvme_be_linux_timeout_ms(UINT32_MAX, io), 4294968);
}

/* Opens `path` with the given timeouts; checks the handle's values and the built commands */
static void
check_open(const char *path, uint32_t admin_us, uint32_t io_us, uint32_t admin_ms, uint32_t io_ms)
{
	struct xnvme_opts opts = xnvme_opts_default();
	const struct xnvme_be_linux_state *state;
	struct nvme_passthru_cmd64 k;
	struct xnvme_cmd_ctx ctx;
	struct xnvme_dev *dev;
	char buf[512];

	opts.be = "linux";
	opts.admin_timeout = admin_us;
	opts.command_timeout = io_us;
	dev = xnvme_dev_open(path, &opts);
	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	state = dev->state;
	CHECK_EQ(state->admin_timeout_ms, admin_ms);
	CHECK_EQ(state->io_timeout_ms, io_ms);
	CHECK_EQ(xnvme_dev_get_opts(dev)->admin_timeout, admin_us);
	CHECK_EQ(xnvme_dev_get_opts(dev)->command_timeout, io_us);

	/* an I/O command: every field from the context, the I/O timeout */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	xnvme_prep_nvm(&ctx, XNVME_SPEC_NVM_OPC_READ, 1, 0x1234, 0);
	memset(&k, 0xA5, sizeof(k));
	xnvme_be_linux_nvme_prep(&k, &ctx, XNVME_BE_LINUX_PASS_IO, buf, sizeof(buf), NULL, 0);
	CHECK_EQ(k.opcode, XNVME_SPEC_NVM_OPC_READ);
	CHECK_EQ(k.nsid, 1);
	CHECK_EQ(k.addr, (uintptr_t)buf);
	CHECK_EQ(k.data_len, sizeof(buf));
	CHECK_EQ(k.cdw10, 0x1234);
	CHECK_EQ(k.timeout_ms, io_ms);
	CHECK_EQ(k.result, 0);
	CHECK_EQ(k.rsvd2, 0);

	xnvme_be_linux_nvme_prep(&k, &ctx, XNVME_BE_LINUX_PASS_IO_VEC, buf, 1, NULL, 0);
	CHECK_EQ(k.timeout_ms, io_ms);

	/* an admin command: the admin timeout */
	ctx = xnvme_cmd_ctx_from_dev(dev);
	ctx.cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	ctx.cmd.idfy.cns = XNVME_SPEC_IDFY_CTRLR;
	memset(&k, 0xA5, sizeof(k));
	xnvme_be_linux_nvme_prep(&k, &ctx, XNVME_BE_LINUX_PASS_ADMIN, buf, sizeof(buf), NULL, 0);
	CHECK_EQ(k.opcode, XNVME_SPEC_ADM_OPC_IDFY);
	CHECK_EQ(k.cdw10, XNVME_SPEC_IDFY_CTRLR);
	CHECK_EQ(k.timeout_ms, admin_ms);
	CHECK_EQ(k.result, 0);

	xnvme_dev_close(dev);
}

/* The driver's cancellation (EINTR) is a timeout; other errors pass through unchanged */
static void
test_errno(const char *path)
{
	struct xnvme_dev *dev = xnvme_dev_open(path, NULL);
	struct xnvme_cmd_ctx ctx;

	CHECK(dev != NULL);
	if (!dev) {
		return;
	}
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_be_linux_nvme_errno(&ctx, EINTR), -ETIMEDOUT);
	CHECK_EQ(ctx.cpl.status.sct, 7);
	CHECK_EQ(ctx.cpl.status.sc, ETIMEDOUT);
	ctx = xnvme_cmd_ctx_from_dev(dev);
	CHECK_EQ(xnvme_be_linux_nvme_errno(&ctx, ENODEV), -ENODEV);
	CHECK_EQ(ctx.cpl.status.sct, 7);
	CHECK_EQ(ctx.cpl.status.sc, ENODEV);
	xnvme_dev_close(dev);
}

int
main(void)
{
	char path[] = "/tmp/xnvme-test-timeout.XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0) {
		return 1;
	}
	CHECK_EQ(ftruncate(fd, 1 << 20), 0);
	close(fd);

	test_conversion();
	check_open(path, XNVME_BE_LINUX_ADMIN_TIMEOUT_US_DEFAULT,
		   XNVME_BE_LINUX_IO_TIMEOUT_US_DEFAULT, 0, 0);
	check_open(path, 2500000, 1000001, 2500, 1001);
	check_open(path, 0, 1, 0, 1);
	test_errno(path);

	unlink(path);
	return xnvme_test_result("test_nvme_timeout");
}
