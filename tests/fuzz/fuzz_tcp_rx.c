// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer harness of the NVMe/TCP receive path (lib/be/tcp/conn_rx.c: the staging buffer,
 * the state machine over headers, payloads and digests, direct receive of large payloads): a
 * byte stream a hostile target sends, delivered over a socket pair in pieces, into a
 * connection with eight commands outstanding. Input layout:
 *   byte 0      bit 0 header digests, bit 1 data digests
 *   byte 1      piece size: (byte + 1) * 61 bytes are written before each receive call
 *   bytes 2-9   command per CID 0..7: bits 0-1 read 4 KiB, read 64 KiB (received directly),
 *               write 4 KiB (in-capsule), write 64 KiB (R2T)
 *   rest        the stream: PDUs as a target sends them after ICResp
 * Checked: every command completes exactly once (when the stream ends, the closed socket fails
 * what is left); a failed connection completes all; the receive path writes nothing outside
 * the commands' buffers (guard bytes around each, besides ASan in the fuzz build).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "be/tcp/tcp.h"
#include "fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NCMDS 8
#define HDR_NBYTES 10
#define GUARD 64
#define FAIL(...) fuzz_fail("fuzz_tcp_rx", __VA_ARGS__)

static const uint32_t g_nbytes[4] = {4096, 65536, 4096, 65536};

struct harness {
	struct xnvme_cmd_ctx ctx[NCMDS];
	int ncompleted[NCMDS];
	uint8_t *buf[NCMDS]; ///< GUARD bytes, the command's data, GUARD bytes
};

static struct harness g_h;

static void
on_complete(struct xnvme_tcp_conn *conn, struct xnvme_cmd_ctx *ctx)
{
	(void)conn;
	g_h.ncompleted[ctx - g_h.ctx]++;
}

/* Reads and drops what the connection sent (capsules, H2C data) so its socket never fills */
static void
drain(int fd)
{
	uint8_t sink[4096];

	while (recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0) {
	}
}

static void
check_guards(int i, uint32_t nbytes)
{
	for (uint32_t k = 0; k < GUARD; ++k) {
		if (g_h.buf[i][k] != 0xA5 || g_h.buf[i][GUARD + nbytes + k] != 0xA5) {
			FAIL("bytes around the buffer of CID %d were written", i);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xnvme_tcp_conn conn;
	size_t pos = HDR_NBYTES, piece;
	int sv[2];

	if (size < HDR_NBYTES || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		return 0;
	}
	if (xnvme_tcp_conn_init(&conn, NCMDS)) {
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	conn.fd = sv[0];
	conn.lim.hdgst = data[0] & 1;
	conn.lim.ddgst = (data[0] >> 1) & 1;
	conn.maxh2cdata = 16384;
	conn.complete = on_complete;
	piece = ((size_t)data[1] + 1) * 61;
	memset(&g_h, 0, sizeof(g_h));
	for (int i = 0; i < NCMDS; ++i) {
		uint32_t kind = data[2 + i] & 3, nbytes = g_nbytes[kind];

		g_h.buf[i] = malloc(nbytes + 2 * GUARD);
		if (!g_h.buf[i]) {
			FAIL("out of memory");
		}
		memset(g_h.buf[i], 0xA5, nbytes + 2 * GUARD);
		g_h.ctx[i].cmd.common.opcode =
			kind < 2 ? XNVME_SPEC_NVM_OPC_READ : XNVME_SPEC_NVM_OPC_WRITE;
		if (xnvme_tcp_conn_submit(&conn, &g_h.ctx[i], g_h.buf[i] + GUARD, NULL, 0, nbytes,
					  NULL, 0)) {
			FAIL("submission %d refused", i);
		}
	}
	xnvme_tcp_conn_flush(&conn); /* the capsules go out: responses may come */

	while (pos < size && !conn.err) {
		size_t n = size - pos < piece ? size - pos : piece;
		ssize_t w = send(sv[1], data + pos, n, MSG_DONTWAIT);

		if (w <= 0) {
			break;
		}
		pos += (size_t)w;
		xnvme_tcp_conn_recv(&conn, 0);
		drain(sv[1]);
	}
	/* end of the stream: the closed socket fails what is left */
	shutdown(sv[1], SHUT_WR);
	if (!conn.err) {
		xnvme_tcp_conn_recv(&conn, 0);
	}
	if (!conn.err || conn.nactive) {
		FAIL("connection healthy (%d) or %u commands outstanding after the stream ended",
		     conn.err, conn.nactive);
	}
	for (int i = 0; i < NCMDS; ++i) {
		if (g_h.ncompleted[i] != 1) {
			FAIL("CID %d completed %d times", i, g_h.ncompleted[i]);
		}
		check_guards(i, g_nbytes[data[2 + i] & 3]);
		free(g_h.buf[i]);
	}
	close(sv[1]);
	xnvme_tcp_conn_close(&conn);
	return 0;
}
