// SPDX-License-Identifier: BSD-3-Clause
/*
 * The test NVMe/TCP target of tests/tcp_target.c as a process of its own, for programs that
 * need a target to reach (tests/check_doc_snippets.py runs docs/fabrics.md's example against
 * it): prints its address "127.0.0.1:<port>" on a line of stdout, serves one 64 MiB namespace
 * of 512-byte LBAs (any subsystem NQN) until stdin reaches end of file, then stops.
 * Exit: 0, or 1 when the target cannot start.
 */
#include "tcp_target.h"

int
main(void)
{
	struct tt_cfg cfg = {
		.nlbas = 64 * 2048, .maxh2cdata = 8192, .icd_nbytes = 4096, .c2h_chunk = 16384};
	uint16_t port = 0;
	struct tt *tt = tt_start(&cfg, &port);
	char buf[64];

	if (!tt) {
		fprintf(stderr, "tcp_target_serve: the target did not start\n");
		return 1;
	}
	printf("127.0.0.1:%u\n", (unsigned)port);
	fflush(stdout);
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0) {
	}
	tt_stop(tt);
	return 0;
}
