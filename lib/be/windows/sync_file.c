// SPDX-License-Identifier: BSD-3-Clause
/*
 * Sync mechanism "file": ReadFile/WriteFile at the command's offset (an OVERLAPPED with its
 * own event, waited for at once) and FlushFileBuffers. NVM READ/WRITE address LBAs (byte
 * offset slba << ssw, range-checked against the file size); the file opcodes address bytes
 * (offset slba, length as passed). A short read at end of file is a success with the byte
 * count in cpl.result, as on Linux.
 */
#include <errno.h>
#include <stdint.h>
#include "be_windows.h"

#define SC_INVALID_OPCODE 0x01
#define SC_LBA_RANGE 0x80

static int
rw_errno(struct xnvme_cmd_ctx *ctx, int err)
{
	xnvme_cpl_set_errno(ctx, err);
	return -err;
}

/* One transfer of at most 4 GiB - 1 (a DWORD): the core bounds commands far below */
static int
xfer(const struct xnvme_be_windows_state *state, bool write, void *buf, DWORD nbytes, uint64_t off,
     DWORD *done)
{
	OVERLAPPED ov = {0};
	BOOL ok;

	ov.Offset = (DWORD)off;
	ov.OffsetHigh = (DWORD)(off >> 32);
	ov.hEvent = CreateEventA(NULL, TRUE, FALSE, NULL);
	if (!ov.hEvent) {
		return ENOMEM;
	}
	/* an event with its low bit set is not reported to a completion port the handle has */
	ov.hEvent = (HANDLE)((uintptr_t)ov.hEvent | 1);
	ok = write ? WriteFile(state->h, buf, nbytes, NULL, &ov)
		   : ReadFile(state->h, buf, nbytes, NULL, &ov);
	if (ok || GetLastError() == ERROR_IO_PENDING) {
		ok = GetOverlappedResult(state->h, &ov, done, TRUE);
	}
	CloseHandle((HANDLE)((uintptr_t)ov.hEvent & ~(uintptr_t)1));
	if (!ok) {
		DWORD werr = GetLastError();

		if (werr == ERROR_HANDLE_EOF) {
			*done = 0;
			return 0;
		}
		return xnvme_be_windows_errno(werr);
	}
	return 0;
}

int
xnvme_be_windows_rw_decode(struct xnvme_cmd_ctx *ctx, size_t avail, uint64_t *off, uint64_t *len,
			   bool *write)
{
	const struct xnvme_be_windows_state *state = ctx->dev->state;
	uint8_t opc = (uint8_t)ctx->cmd.common.opcode;
	uint64_t tbytes, lba_nbytes, nlbas, nlb = (uint64_t)ctx->cmd.nvm.nlb + 1;
	uint32_t ssw;

	*off = ctx->cmd.nvm.slba;
	*len = avail;
	*write = opc == XNVME_SPEC_NVM_OPC_WRITE || opc == XNVME_SPEC_FS_OPC_WRITE;
	switch (opc) {
	case XNVME_SPEC_NVM_OPC_READ:
	case XNVME_SPEC_NVM_OPC_WRITE:
		ssw = ctx->dev->geo.ssw; /* final: rule 1 of xnvme_be.h */
		lba_nbytes = 1ULL << ssw;
		*len = nlb << ssw;
		if (*len > avail || *off > ((uint64_t)INT64_MAX >> ssw)) {
			return xnvme_be_windows_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
		}
		if (ctx->cmd.common.nsid != ctx->dev->ident.nsid) {
			return xnvme_be_windows_status(ctx, 0x0B); /* Invalid Namespace or Format */
		}
		/* writes stay inside the file; reads may end in its last, partial LBA */
		tbytes = ctx->dev->geo.tbytes;
		nlbas = *write ? tbytes / lba_nbytes : (tbytes + lba_nbytes - 1) / lba_nbytes;
		if (*off >= nlbas || nlb > nlbas - *off) {
			return xnvme_be_windows_status(ctx, SC_LBA_RANGE);
		}
		*off <<= ssw;
		return 0;
	case XNVME_SPEC_FS_OPC_READ:
	case XNVME_SPEC_FS_OPC_WRITE:
		if (*off > INT64_MAX) {
			return xnvme_be_windows_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
		}
		return 0;
	case XNVME_SPEC_NVM_OPC_FLUSH:
	case XNVME_SPEC_FS_OPC_FLUSH:
		if (!FlushFileBuffers(state->h)) {
			return rw_errno(ctx, xnvme_be_windows_errno(GetLastError()));
		}
		return 1;
	default:
		return xnvme_be_windows_status(ctx, SC_INVALID_OPCODE);
	}
}

static int
file_cmd_io(struct xnvme_cmd_ctx *ctx, void *dbuf, size_t dbuf_nbytes, void *mbuf,
	    size_t mbuf_nbytes)
{
	struct iovec vec = {.iov_base = dbuf, .iov_len = dbuf_nbytes};

	return xnvme_be_windows_sync_file.cmd_iov(ctx, &vec, 1, dbuf_nbytes, mbuf, mbuf_nbytes);
}

/* Segment by segment: ReadFileScatter would need page-sized segments */
static int
file_cmd_iov(struct xnvme_cmd_ctx *ctx, struct iovec *dvec, size_t dvec_cnt, size_t dvec_nbytes,
	     void *mbuf, size_t mbuf_nbytes)
{
	const struct xnvme_be_windows_state *state = ctx->dev->state;
	uint64_t off, len, moved = 0;
	bool write;
	int err;

	(void)mbuf;
	(void)mbuf_nbytes;
	err = xnvme_be_windows_rw_decode(ctx, dvec_nbytes, &off, &len, &write);
	if (err) {
		return err < 0 ? err : 0;
	}
	for (size_t i = 0; i < dvec_cnt && moved < len; ++i) {
		uint64_t seg = dvec[i].iov_len < len - moved ? dvec[i].iov_len : len - moved;
		DWORD done = 0;

		if (!seg) {
			continue;
		}
		if (seg > MAXDWORD || !dvec[i].iov_base) {
			return xnvme_be_windows_status(ctx, XNVME_STATUS_CODE_INVALID_FIELD);
		}
		err = xfer(state, write, dvec[i].iov_base, (DWORD)seg, off + moved, &done);
		if (err) {
			return rw_errno(ctx, err);
		}
		moved += done;
		if (done < seg) {
			break; /* end of file */
		}
	}
	ctx->cpl.result = moved;
	return 0;
}

static int
file_check_support(struct xnvme_dev *dev)
{
	(void)dev;
	return 0;
}

const struct xnvme_be_sync xnvme_be_windows_sync_file = {
	.name = "file",
	.check_support = file_check_support,
	.cmd_io = file_cmd_io,
	.cmd_iov = file_cmd_iov,
};
