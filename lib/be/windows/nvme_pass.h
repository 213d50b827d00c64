// SPDX-License-Identifier: BSD-3-Clause
/*
 * NVMe passthrough on \\.\PhysicalDriveN: the IOCTL_STORAGE_PROTOCOL_COMMAND buffer as Windows
 * documents it (STORAGE_PROTOCOL_COMMAND header, the 64-byte command, a 64-byte NVMe error
 * information entry, then the data), built and decoded by pure functions so that they are
 * unit-tested anywhere; the ioctl itself needs a real Windows NVMe driver (not under Wine).
 */
#ifndef XNVME_BE_WINDOWS_NVME_PASS_H
#define XNVME_BE_WINDOWS_NVME_PASS_H

#include <stddef.h>
#include <stdint.h>
#include "xnvme_be.h"

/* STORAGE_PROTOCOL_COMMAND (winioctl.h / ntddstor.h); mingw-w64 headers may lack it */
struct xnvme_be_windows_spc {
	uint32_t version;
	uint32_t length;
	uint32_t protocol_type;
	uint32_t flags;
	uint32_t return_status;
	uint32_t error_code;
	uint32_t command_length;
	uint32_t error_info_length;
	uint32_t to_device_length;
	uint32_t from_device_length;
	uint32_t timeout_s;
	uint32_t error_info_offset;
	uint32_t to_device_offset;
	uint32_t from_device_offset;
	uint32_t command_specific;
	uint32_t reserved0;
	uint32_t fixed_return_data; ///< CQE DW0
	uint32_t reserved1[3];
	uint8_t command[64];
};
_Static_assert(sizeof(struct xnvme_be_windows_spc) == 144, "STORAGE_PROTOCOL_COMMAND + NVMe cmd");
_Static_assert(offsetof(struct xnvme_be_windows_spc, return_status) == 16, "ReturnStatus");
_Static_assert(offsetof(struct xnvme_be_windows_spc, fixed_return_data) == 64,
	       "FixedProtocolReturnData");
_Static_assert(offsetof(struct xnvme_be_windows_spc, command) == 80, "Command");
_Static_assert(sizeof(struct xnvme_spec_cmd) == 64, "the NVMe command fills Command[64]");

#define XNVME_BE_WINDOWS_SPC_VERSION 1
#define XNVME_BE_WINDOWS_SPC_PROTOCOL_NVME 3
#define XNVME_BE_WINDOWS_SPC_FLAG_ADAPTER 0x80000000u
#define XNVME_BE_WINDOWS_SPC_NVME_ADMIN 1
#define XNVME_BE_WINDOWS_SPC_NVME_NVM 2
#define XNVME_BE_WINDOWS_SPC_ERRINFO_NBYTES 64
/* the data follows the error information: header + command + error info */
#define XNVME_BE_WINDOWS_SPC_DATA_OFFSET (144 + XNVME_BE_WINDOWS_SPC_ERRINFO_NBYTES)

enum xnvme_be_windows_spc_status {
	XNVME_BE_WINDOWS_SPC_PENDING = 0x0,
	XNVME_BE_WINDOWS_SPC_SUCCESS = 0x1,
	XNVME_BE_WINDOWS_SPC_ERROR = 0x2,
	XNVME_BE_WINDOWS_SPC_INVALID_REQUEST = 0x3,
	XNVME_BE_WINDOWS_SPC_NO_DEVICE = 0x4,
	XNVME_BE_WINDOWS_SPC_BUSY = 0x5,
	XNVME_BE_WINDOWS_SPC_DATA_OVERRUN = 0x6,
	XNVME_BE_WINDOWS_SPC_INSUFFICIENT_RESOURCES = 0x7,
	XNVME_BE_WINDOWS_SPC_NOT_SUPPORTED = 0xFF,
};

/**
 * Builds the ioctl buffer for `cmd` in `buf` (`buf_nbytes` bytes, 8-byte aligned); `data` of
 * `data_nbytes` is copied in for a host-to-controller opcode (opcode bits 1:0 = 01), room left
 * for controller-to-host (10). Returns the bytes used, -EINVAL for a bidirectional opcode (11)
 * or data on a no-data opcode, -ENOSPC when `buf` is too small, -EOVERFLOW beyond 4 GiB.
 */
long
xnvme_be_windows_spc_build(void *buf, size_t buf_nbytes, const struct xnvme_spec_cmd *cmd,
			   bool admin, const void *data, size_t data_nbytes, uint32_t timeout_s);

/**
 * Decodes a completed ioctl buffer into ctx->cpl: success sets cdw0 and returns 0; a device
 * error sets the NVMe status from the error information entry and returns -EIO; the other
 * ReturnStatus values map to negative errnos (INVALID_REQUEST -EINVAL, NO_DEVICE -ENODEV,
 * BUSY -EBUSY, DATA_OVERRUN -EOVERFLOW, INSUFFICIENT_RESOURCES -ENOMEM, NOT_SUPPORTED
 * -ENOTSUP, anything else -EIO), folded into cpl as well.
 */
int
xnvme_be_windows_spc_status(const void *buf, struct xnvme_cmd_ctx *ctx);

/*
 * IOCTL_STORAGE_QUERY_PROPERTY with protocol-specific data: Identify, Get Log Page and Get
 * Features go this way (the driver issues them; IOCTL_STORAGE_PROTOCOL_COMMAND refuses them).
 * The query is STORAGE_PROPERTY_QUERY whose AdditionalParameters hold
 * STORAGE_PROTOCOL_SPECIFIC_DATA; the answer is STORAGE_PROTOCOL_DATA_DESCRIPTOR with the same
 * protocol data; in both the data follows at ProtocolDataOffset from the protocol data.
 */
struct xnvme_be_windows_spd {
	uint32_t protocol_type;
	uint32_t data_type;
	uint32_t request_value;
	uint32_t request_subvalue;
	uint32_t data_offset; ///< from the start of this struct
	uint32_t data_length;
	uint32_t fixed_return_data; ///< CQE DW0
	uint32_t request_subvalue2;
	uint32_t request_subvalue3;
	uint32_t request_subvalue4;
};
/* STORAGE_PROPERTY_QUERY (PropertyId, QueryType) and STORAGE_PROTOCOL_DATA_DESCRIPTOR
 * (Version, Size) share this shape: two words, then the protocol data */
struct xnvme_be_windows_spq {
	uint32_t word0; ///< query: PropertyId; answer: Version
	uint32_t word1; ///< query: QueryType (0, standard); answer: Size
	struct xnvme_be_windows_spd spd;
};
_Static_assert(sizeof(struct xnvme_be_windows_spd) == 40, "STORAGE_PROTOCOL_SPECIFIC_DATA");
_Static_assert(sizeof(struct xnvme_be_windows_spq) == 48, "query + protocol data");
_Static_assert(offsetof(struct xnvme_be_windows_spq, spd) == 8, "AdditionalParameters");

#define XNVME_BE_WINDOWS_SPQ_ADAPTER 49 ///< StorageAdapterProtocolSpecificProperty
#define XNVME_BE_WINDOWS_SPQ_DEVICE 50  ///< StorageDeviceProtocolSpecificProperty
#define XNVME_BE_WINDOWS_SPQ_IDENTIFY 1 ///< NVMeDataTypeIdentify
#define XNVME_BE_WINDOWS_SPQ_LOG 2      ///< NVMeDataTypeLogPage
#define XNVME_BE_WINDOWS_SPQ_FEATURE 3  ///< NVMeDataTypeFeature
#define XNVME_BE_WINDOWS_SPQ_DATA_OFFSET sizeof(struct xnvme_be_windows_spq)

/**
 * Builds the IOCTL_STORAGE_QUERY_PROPERTY input for the admin command `cmd` reading
 * `data_nbytes` into `buf` (`buf_nbytes`, 4-byte aligned; the same buffer takes the answer).
 * Identify Controller (CNS 1) asks the adapter, Identify Namespace (CNS 0, nsid in the sub
 * value) the device; Get Log Page asks the device with LID, offset (low, high), LSI and LSP;
 * Get Features asks the adapter with FID and CDW11. Returns the bytes the ioctl needs, -ENOTSUP
 * for any other command (or CNS) that Windows offers no query for, -ENOSPC when `buf` is too
 * small, -EOVERFLOW beyond 4 GiB.
 */
long
xnvme_be_windows_spq_build(void *buf, size_t buf_nbytes, const struct xnvme_spec_cmd *cmd,
			   size_t data_nbytes);

/**
 * Takes the answer of a query built by xnvme_be_windows_spq_build() (`returned` bytes, from
 * DeviceIoControl): copies its data into `dbuf` (`dbuf_nbytes`; the rest is zeroed), sets cdw0
 * from FixedProtocolReturnData, and returns 0, or -EPROTO when the descriptor is malformed (its
 * data reaches beyond what was returned).
 */
int
xnvme_be_windows_spq_result(const void *buf, size_t returned, struct xnvme_cmd_ctx *ctx, void *dbuf,
			    size_t dbuf_nbytes);

#endif /* XNVME_BE_WINDOWS_NVME_PASS_H */
