// SPDX-License-Identifier: BSD-3-Clause
/*
 * NVMe passthrough buffers of the windows backend (lib/be/windows/nvme_pass.c): layout of the
 * IOCTL_STORAGE_PROTOCOL_COMMAND buffer for admin and I/O commands in each data direction,
 * refusal of bidirectional opcodes and short buffers, and the translation of every
 * ReturnStatus (NVMe status from the error information entry); the IOCTL_STORAGE_QUERY_PROPERTY
 * query for Identify, Get Log Page and Get Features and the decoding of its answer. Pure functions: built and run
 * on Linux and, cross-built, under Wine; the ioctl itself needs a real Windows NVMe driver.
 * Exit: 0 pass, 1 fail.
 */
#include <errno.h>
#include <string.h>
#include "nvme_pass.h"
#include "xnvme_test.h"

static uint64_t buf[1024]; /* 8 KiB, 8-byte aligned */

static void
check_build(void)
{
	struct xnvme_be_windows_spc *spc = (void *)buf;
	struct xnvme_spec_cmd cmd;
	uint8_t data[512];
	long n;

	/* Identify (0x06: controller-to-host) as admin */
	memset(&cmd, 0, sizeof(cmd));
	cmd.common.opcode = 0x06;
	cmd.common.nsid = 1;
	cmd.idfy.cns = 1;
	memset(buf, 0xA5, sizeof(buf));
	n = xnvme_be_windows_spc_build(buf, sizeof(buf), &cmd, true, NULL, 4096, 30);
	CHECK_EQ(n, XNVME_BE_WINDOWS_SPC_DATA_OFFSET + 4096);
	CHECK_EQ(spc->version, 1);
	CHECK_EQ(spc->length, 80);
	CHECK_EQ(spc->protocol_type, 3);
	CHECK_EQ(spc->flags, 0x80000000u);
	CHECK_EQ(spc->command_length, 64);
	CHECK_EQ(spc->error_info_length, 64);
	CHECK_EQ(spc->error_info_offset, 144);
	CHECK_EQ(spc->command_specific, XNVME_BE_WINDOWS_SPC_NVME_ADMIN);
	CHECK_EQ(spc->timeout_s, 30);
	CHECK_EQ(spc->from_device_length, 4096);
	CHECK_EQ(spc->from_device_offset, 208);
	CHECK_EQ(spc->to_device_length, 0);
	CHECK_EQ(spc->return_status, 0);
	CHECK(!memcmp(spc->command, &cmd, 64));
	CHECK_EQ(spc->from_device_offset % 8, 0); /* pointer-aligned, as documented */

	/* Write (0x01: host-to-controller) as NVM: the data is copied behind the error info */
	memset(&cmd, 0, sizeof(cmd));
	cmd.common.opcode = 0x01;
	cmd.nvm.slba = 0x1234;
	for (size_t i = 0; i < sizeof(data); ++i) {
		data[i] = (uint8_t)(i * 3);
	}
	n = xnvme_be_windows_spc_build(buf, sizeof(buf), &cmd, false, data, sizeof(data), 10);
	CHECK_EQ(n, 208 + 512);
	CHECK_EQ(spc->command_specific, XNVME_BE_WINDOWS_SPC_NVME_NVM);
	CHECK_EQ(spc->to_device_length, 512);
	CHECK_EQ(spc->to_device_offset, 208);
	CHECK_EQ(spc->from_device_length, 0);
	CHECK(!memcmp((uint8_t *)buf + 208, data, sizeof(data)));

	/* Flush (0x00: no data) */
	cmd.common.opcode = 0x00;
	CHECK_EQ(xnvme_be_windows_spc_build(buf, sizeof(buf), &cmd, false, NULL, 0, 10), 208);
	CHECK_EQ(xnvme_be_windows_spc_build(buf, sizeof(buf), &cmd, false, data, 8, 10), -EINVAL);

	/* bidirectional (opcode bits 11) is refused; so are short buffers and missing data */
	cmd.common.opcode = 0x03;
	CHECK_EQ(xnvme_be_windows_spc_build(buf, sizeof(buf), &cmd, false, data, 8, 10), -EINVAL);
	cmd.common.opcode = 0x02;
	CHECK_EQ(xnvme_be_windows_spc_build(buf, 208 + 511, &cmd, false, NULL, 512, 10), -ENOSPC);
	cmd.common.opcode = 0x01;
	CHECK_EQ(xnvme_be_windows_spc_build(buf, sizeof(buf), &cmd, false, NULL, 512, 10), -EINVAL);
}

static int
status_of(uint32_t return_status, uint16_t sf, struct xnvme_cmd_ctx *ctx)
{
	struct xnvme_be_windows_spc *spc = (void *)buf;

	memset(buf, 0, 208);
	memset(ctx, 0, sizeof(*ctx));
	spc->return_status = return_status;
	spc->fixed_return_data = 0xCAFE;
	((uint8_t *)buf)[144 + 12] = (uint8_t)sf;
	((uint8_t *)buf)[144 + 13] = (uint8_t)(sf >> 8);
	return xnvme_be_windows_spc_status(buf, ctx);
}

static void
check_status(void)
{
	static const struct {
		uint32_t rs;
		int err;
	} map[] = {
		{XNVME_BE_WINDOWS_SPC_INVALID_REQUEST, -EINVAL},
		{XNVME_BE_WINDOWS_SPC_NO_DEVICE, -ENODEV},
		{XNVME_BE_WINDOWS_SPC_BUSY, -EBUSY},
		{XNVME_BE_WINDOWS_SPC_DATA_OVERRUN, -EOVERFLOW},
		{XNVME_BE_WINDOWS_SPC_INSUFFICIENT_RESOURCES, -ENOMEM},
		{XNVME_BE_WINDOWS_SPC_NOT_SUPPORTED, -ENOTSUP},
		{XNVME_BE_WINDOWS_SPC_PENDING, -EIO},
		{0x42, -EIO},
	};
	struct xnvme_cmd_ctx ctx;

	CHECK_EQ(status_of(XNVME_BE_WINDOWS_SPC_SUCCESS, 0, &ctx), 0);
	CHECK_EQ(ctx.cpl.cdw0, 0xCAFE);
	CHECK_EQ(xnvme_cmd_ctx_cpl_status(&ctx), 0);

	/* SCT 1 (command specific), SC 0x0B, phase tag set: the phase bit must not leak in */
	CHECK_EQ(
		status_of(XNVME_BE_WINDOWS_SPC_ERROR, (uint16_t)((1 << 9) | (0x0B << 1) | 1), &ctx),
		-EIO);
	CHECK_EQ(ctx.cpl.status.sct, 1);
	CHECK_EQ(ctx.cpl.status.sc, 0x0B);
	/* Generic, LBA Out of Range (0x80) */
	CHECK_EQ(status_of(XNVME_BE_WINDOWS_SPC_ERROR, (uint16_t)(0x80 << 1), &ctx), -EIO);
	CHECK_EQ(ctx.cpl.status.sct, 0);
	CHECK_EQ(ctx.cpl.status.sc, 0x80);

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); ++i) {
		CHECK_EQ(status_of(map[i].rs, 0, &ctx), map[i].err);
		CHECK(xnvme_cmd_ctx_cpl_status(&ctx) != 0); /* folded into cpl too */
	}
}

/* IOCTL_STORAGE_QUERY_PROPERTY: which commands map to which query, and the answer's data */
static void
check_query(void)
{
	struct xnvme_be_windows_spq *q = (void *)buf;
	struct xnvme_spec_cmd cmd;
	struct xnvme_cmd_ctx ctx;
	uint8_t out[512];
	uint32_t cdw[16];
	long n;

	/* Identify Controller: the adapter */
	memset(&cmd, 0, sizeof(cmd));
	cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	cmd.idfy.cns = 1;
	memset(buf, 0xA5, sizeof(buf));
	n = xnvme_be_windows_spq_build(buf, sizeof(buf), &cmd, 4096);
	CHECK_EQ(n, 48 + 4096);
	CHECK_EQ(q->word0, 49);
	CHECK_EQ(q->word1, 0);
	CHECK_EQ(q->spd.protocol_type, 3);
	CHECK_EQ(q->spd.data_type, 1);
	CHECK_EQ(q->spd.request_value, 1);
	CHECK_EQ(q->spd.data_offset, 40);
	CHECK_EQ(q->spd.data_length, 4096);
	CHECK_EQ(((uint8_t *)buf)[48 + 4095], 0); /* the data area is cleared */

	/* Identify Namespace 7: the device, nsid in the sub value */
	cmd.idfy.cns = 0;
	cmd.common.nsid = 7;
	CHECK_EQ(xnvme_be_windows_spq_build(buf, sizeof(buf), &cmd, 4096), 48 + 4096);
	CHECK_EQ(q->word0, 50);
	CHECK_EQ(q->spd.request_value, 0);
	CHECK_EQ(q->spd.request_subvalue, 7);
	/* other CNS values have no query */
	cmd.idfy.cns = 2;
	CHECK_EQ(xnvme_be_windows_spq_build(buf, sizeof(buf), &cmd, 4096), -ENOTSUP);

	/* Get Log Page: LID 0x02, LSP 0x3, RAE, LSI 0x1234, offset 0x0000000500000200 */
	memset(cdw, 0, sizeof(cdw));
	cdw[0] = XNVME_SPEC_ADM_OPC_LOG;
	cdw[1] = 0xFFFFFFFF;
	cdw[10] = 0x02 | (0x3 << 8) | (1u << 15) | (127u << 16);
	cdw[11] = 0x1234u << 16;
	cdw[12] = 0x200;
	cdw[13] = 0x5;
	memcpy(&cmd, cdw, sizeof(cmd));
	CHECK_EQ(xnvme_be_windows_spq_build(buf, sizeof(buf), &cmd, 512), 48 + 512);
	CHECK_EQ(q->word0, 50);
	CHECK_EQ(q->spd.data_type, 2);
	CHECK_EQ(q->spd.request_value, 0x02);
	CHECK_EQ(q->spd.request_subvalue, 0x200);
	CHECK_EQ(q->spd.request_subvalue2, 0x5);
	CHECK_EQ(q->spd.request_subvalue3, 0x1234);
	CHECK_EQ(q->spd.request_subvalue4, 1 | (0x3 << 1));

	/* Get Features: FID 0x07 with CDW11 on the adapter */
	memset(&cmd, 0, sizeof(cmd));
	cmd.common.opcode = XNVME_SPEC_ADM_OPC_GFEAT;
	memset(cdw, 0, sizeof(cdw));
	memcpy(cdw, &cmd, sizeof(cdw));
	cdw[10] = 0x07;
	cdw[11] = 0xAB;
	memcpy(&cmd, cdw, sizeof(cmd));
	CHECK_EQ(xnvme_be_windows_spq_build(buf, sizeof(buf), &cmd, 0), 48);
	CHECK_EQ(q->word0, 49);
	CHECK_EQ(q->spd.data_type, 3);
	CHECK_EQ(q->spd.request_value, 0x07);
	CHECK_EQ(q->spd.request_subvalue, 0xAB);

	/* Commands with no query, short buffers, sizes beyond 4 GiB */
	memset(&cmd, 0, sizeof(cmd));
	cmd.common.opcode = XNVME_SPEC_ADM_OPC_SFEAT;
	CHECK_EQ(xnvme_be_windows_spq_build(buf, sizeof(buf), &cmd, 0), -ENOTSUP);
	cmd.common.opcode = XNVME_SPEC_ADM_OPC_IDFY;
	cmd.idfy.cns = 1;
	CHECK_EQ(xnvme_be_windows_spq_build(buf, 48 + 4095, &cmd, 4096), -ENOSPC);
	CHECK_EQ(xnvme_be_windows_spq_build(NULL, 0, &cmd, 4096), -ENOSPC);
	CHECK_EQ(xnvme_be_windows_spq_build(buf, sizeof(buf), &cmd, (size_t)UINT32_MAX),
		 -EOVERFLOW);

	/* The answer: data at ProtocolDataOffset from the protocol data, cdw0 from the fixed data */
	xnvme_be_windows_spq_build(buf, sizeof(buf), &cmd, 512);
	q->word0 = sizeof(*q);
	q->word1 = 48 + 512;
	q->spd.fixed_return_data = 0xBEEF;
	for (int i = 0; i < 512; ++i) {
		((uint8_t *)buf)[48 + i] = (uint8_t)i;
	}
	memset(&ctx, 0, sizeof(ctx));
	memset(out, 0xFF, sizeof(out));
	CHECK_EQ(xnvme_be_windows_spq_result(buf, 48 + 512, &ctx, out, 256), 0);
	CHECK_EQ(ctx.cpl.cdw0, 0xBEEF);
	CHECK_EQ(out[0], 0);
	CHECK_EQ(out[255], 255);
	CHECK_EQ(out[256], 0xFF); /* nothing beyond the caller's length */
	/* malformed: fewer bytes returned than the descriptor claims, an offset inside the header */
	CHECK_EQ(xnvme_be_windows_spq_result(buf, 48 + 100, &ctx, out, 256), -EPROTO);
	CHECK_EQ(xnvme_be_windows_spq_result(buf, 20, &ctx, out, 256), -EPROTO);
	q->spd.data_offset = 4;
	CHECK_EQ(xnvme_be_windows_spq_result(buf, 48 + 512, &ctx, out, 256), -EPROTO);
}

int
main(void)
{
	check_build();
	check_status();
	check_query();
	return xnvme_test_result("test_windows_pass");
}
