// SPDX-License-Identifier: BSD-3-Clause
/* Building and decoding IOCTL_STORAGE_PROTOCOL_COMMAND buffers (nvme_pass.h). Pure C. */
#include <errno.h>
#include <string.h>
#include "nvme_pass.h"

long
xnvme_be_windows_spc_build(void *buf, size_t buf_nbytes, const struct xnvme_spec_cmd *cmd,
			   bool admin, const void *data, size_t data_nbytes, uint32_t timeout_s)
{
	struct xnvme_be_windows_spc *spc = buf;
	unsigned dir = cmd->common.opcode & 0x3;
	size_t need = XNVME_BE_WINDOWS_SPC_DATA_OFFSET + data_nbytes;

	if (dir == 0x3 || (dir == 0 && data_nbytes) || (dir == 0x1 && data_nbytes && !data)) {
		return -EINVAL;
	}
	if (data_nbytes > UINT32_MAX) {
		return -EOVERFLOW;
	}
	if (!buf || buf_nbytes < need) {
		return -ENOSPC;
	}
	memset(buf, 0, XNVME_BE_WINDOWS_SPC_DATA_OFFSET);
	spc->version = XNVME_BE_WINDOWS_SPC_VERSION;
	spc->length = offsetof(struct xnvme_be_windows_spc, command);
	spc->protocol_type = XNVME_BE_WINDOWS_SPC_PROTOCOL_NVME;
	spc->flags = XNVME_BE_WINDOWS_SPC_FLAG_ADAPTER;
	spc->command_length = sizeof(spc->command);
	spc->error_info_length = XNVME_BE_WINDOWS_SPC_ERRINFO_NBYTES;
	spc->error_info_offset = sizeof(*spc);
	spc->timeout_s = timeout_s;
	spc->command_specific =
		admin ? XNVME_BE_WINDOWS_SPC_NVME_ADMIN : XNVME_BE_WINDOWS_SPC_NVME_NVM;
	memcpy(spc->command, cmd, sizeof(spc->command));
	if (dir == 0x1) {
		spc->to_device_length = (uint32_t)data_nbytes;
		spc->to_device_offset = XNVME_BE_WINDOWS_SPC_DATA_OFFSET;
		if (data_nbytes) {
			memcpy((uint8_t *)buf + XNVME_BE_WINDOWS_SPC_DATA_OFFSET, data,
			       data_nbytes);
		}
	} else if (dir == 0x2) {
		spc->from_device_length = (uint32_t)data_nbytes;
		spc->from_device_offset = XNVME_BE_WINDOWS_SPC_DATA_OFFSET;
	}
	return (long)need;
}

int
xnvme_be_windows_spc_status(const void *buf, struct xnvme_cmd_ctx *ctx)
{
	const struct xnvme_be_windows_spc *spc = buf;
	const uint8_t *info = (const uint8_t *)buf + sizeof(*spc);
	uint16_t sf;
	int err;

	switch (spc->return_status) {
	case XNVME_BE_WINDOWS_SPC_SUCCESS:
		ctx->cpl.cdw0 = spc->fixed_return_data;
		return 0;
	case XNVME_BE_WINDOWS_SPC_ERROR:
		/* Error Information entry, bytes 12-13: phase tag in bit 0, SC 8:1, SCT 11:9 */
		sf = (uint16_t)(info[12] | (info[13] << 8));
		xnvme_cpl_set_status(ctx, (sf >> 9) & 0x7, (sf >> 1) & 0xFF);
		ctx->cpl.cdw0 = spc->fixed_return_data;
		return -EIO;
	case XNVME_BE_WINDOWS_SPC_INVALID_REQUEST:
		err = EINVAL;
		break;
	case XNVME_BE_WINDOWS_SPC_NO_DEVICE:
		err = ENODEV;
		break;
	case XNVME_BE_WINDOWS_SPC_BUSY:
		err = EBUSY;
		break;
	case XNVME_BE_WINDOWS_SPC_DATA_OVERRUN:
		err = EOVERFLOW;
		break;
	case XNVME_BE_WINDOWS_SPC_INSUFFICIENT_RESOURCES:
		err = ENOMEM;
		break;
	case XNVME_BE_WINDOWS_SPC_NOT_SUPPORTED:
		err = ENOTSUP;
		break;
	default:
		err = EIO;
		break;
	}
	xnvme_cpl_set_errno(ctx, err);
	return -err;
}

long
xnvme_be_windows_spq_build(void *buf, size_t buf_nbytes, const struct xnvme_spec_cmd *cmd,
			   size_t data_nbytes)
{
	struct xnvme_be_windows_spq *q = buf;
	uint32_t cdw[16]; /* the command as dwords: CDW10 at [10] */
	size_t need = XNVME_BE_WINDOWS_SPQ_DATA_OFFSET + data_nbytes;
	struct xnvme_be_windows_spd spd = {.protocol_type = XNVME_BE_WINDOWS_SPC_PROTOCOL_NVME};
	uint32_t property;

	memcpy(cdw, cmd, sizeof(cdw));
	switch (cmd->common.opcode) {
	case XNVME_SPEC_ADM_OPC_IDFY:
		spd.data_type = XNVME_BE_WINDOWS_SPQ_IDENTIFY;
		spd.request_value = cdw[10] & 0xFF;
		if (spd.request_value == 0x1) {
			property = XNVME_BE_WINDOWS_SPQ_ADAPTER;
		} else if (spd.request_value == 0x0) {
			property = XNVME_BE_WINDOWS_SPQ_DEVICE;
			spd.request_subvalue = cmd->common.nsid;
		} else {
			return -ENOTSUP; /* no other CNS is offered (not even the active list) */
		}
		break;
	case XNVME_SPEC_ADM_OPC_LOG:
		property = XNVME_BE_WINDOWS_SPQ_DEVICE;
		spd.data_type = XNVME_BE_WINDOWS_SPQ_LOG;
		spd.request_value = cdw[10] & 0xFF;
		spd.request_subvalue = cdw[12];
		spd.request_subvalue2 = cdw[13];
		spd.request_subvalue3 = cdw[11] >> 16;
		/* RetainAsynEvent in bit 0, the LSP's low four bits in bits 4:1 */
		spd.request_subvalue4 = ((cdw[10] >> 15) & 0x1) | (((cdw[10] >> 8) & 0xF) << 1);
		break;
	case XNVME_SPEC_ADM_OPC_GFEAT:
		property = XNVME_BE_WINDOWS_SPQ_ADAPTER;
		spd.data_type = XNVME_BE_WINDOWS_SPQ_FEATURE;
		spd.request_value = cdw[10] & 0xFF;
		spd.request_subvalue = cdw[11];
		break;
	default:
		return -ENOTSUP;
	}
	if (data_nbytes > UINT32_MAX - XNVME_BE_WINDOWS_SPQ_DATA_OFFSET) {
		return -EOVERFLOW;
	}
	if (!buf || buf_nbytes < need) {
		return -ENOSPC;
	}
	memset(buf, 0, need);
	spd.data_offset = sizeof(struct xnvme_be_windows_spd);
	spd.data_length = (uint32_t)data_nbytes;
	q->word0 = property;
	q->word1 = 0; /* PropertyStandardQuery */
	q->spd = spd;
	return (long)need;
}

int
xnvme_be_windows_spq_result(const void *buf, size_t returned, struct xnvme_cmd_ctx *ctx, void *dbuf,
			    size_t dbuf_nbytes)
{
	const struct xnvme_be_windows_spq *d = buf;
	uint64_t start, len;

	if (returned < sizeof(*d)) {
		return -EPROTO;
	}
	start = offsetof(struct xnvme_be_windows_spq, spd) + (uint64_t)d->spd.data_offset;
	len = d->spd.data_length < dbuf_nbytes ? d->spd.data_length : dbuf_nbytes;
	if (d->spd.data_offset < sizeof(d->spd) || start + len > returned) {
		return -EPROTO;
	}
	if (dbuf_nbytes) {
		memset(dbuf, 0, dbuf_nbytes);
		memcpy(dbuf, (const uint8_t *)buf + start, len);
	}
	ctx->cpl.cdw0 = d->spd.fixed_return_data;
	return 0;
}
