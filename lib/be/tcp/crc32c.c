// SPDX-License-Identifier: BSD-3-Clause
/*
 * CRC32C (Castagnoli) for NVMe/TCP header and data digests. On x86-64 CPUs with SSE4.2 the
 * crc32 instruction does 8 bytes per step; elsewhere a slice-by-8 table walk (tables built once)
 * does the same. The choice is made once, on first use.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "tcp.h"

#define CRC32C_POLY 0x82F63B78U /* reflected */

static uint32_t g_tab[8][256];
static int g_hw;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void
crc32c_init(void)
{
	for (uint32_t i = 0; i < 256; ++i) {
		uint32_t crc = i;

		for (int b = 0; b < 8; ++b) {
			crc = (crc & 1) ? (crc >> 1) ^ CRC32C_POLY : crc >> 1;
		}
		g_tab[0][i] = crc;
	}
	for (uint32_t i = 0; i < 256; ++i) {
		for (int t = 1; t < 8; ++t) {
			g_tab[t][i] = (g_tab[t - 1][i] >> 8) ^ g_tab[0][g_tab[t - 1][i] & 0xFF];
		}
	}
#if defined(__x86_64__)
	__builtin_cpu_init();
	g_hw = __builtin_cpu_supports("sse4.2");
#endif
}

uint32_t
xnvme_tcp_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	pthread_once(&g_once, crc32c_init);
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		v ^= crc;
		crc = g_tab[7][v & 0xFF] ^ g_tab[6][(v >> 8) & 0xFF] ^ g_tab[5][(v >> 16) & 0xFF] ^
		      g_tab[4][(v >> 24) & 0xFF] ^ g_tab[3][(v >> 32) & 0xFF] ^
		      g_tab[2][(v >> 40) & 0xFF] ^ g_tab[1][(v >> 48) & 0xFF] ^ g_tab[0][v >> 56];
		p += 8;
		len -= 8;
	}
	while (len--) {
		crc = (crc >> 8) ^ g_tab[0][(crc ^ *p++) & 0xFF];
	}
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t
crc32c_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	crc = (uint32_t)c;
	while (len--) {
		crc = __builtin_ia32_crc32qi(crc, *p++);
	}
	return crc;
}
#endif

uint32_t
xnvme_tcp_crc32c(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&g_once, crc32c_init);
#if defined(__x86_64__)
	if (g_hw) {
		return crc32c_hw(crc, buf, len);
	}
#endif
	return xnvme_tcp_crc32c_sw(crc, buf, len);
}
