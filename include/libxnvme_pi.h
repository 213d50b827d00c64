/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * End-to-end protection information (PI): generation and verification of the guard, application
 * tag and reference tag of the 16-bit and 64-bit guard formats, in software.
 *
 * Thread safety: every function here is safe from any thread; generate and verify only read
 * the context (the CRC tables are built once, thread-safely), so threads may share one
 * initialised context but not a buffer being written.
 */
#ifndef LIBXNVME_PI_H
#define LIBXNVME_PI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "libxnvme_util.h"
#include "libxnvme_spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An application tag of all ones disables checking of a block (see xnvme_pi_verify) */
#define XNVME_APPTAG_IGNORE 0xFFFF

/** Reference-tag masks; the names follow the original (16-bit guard: 32-bit tag, ...) */
#define XNVME_REFTAG_MASK_16 0x00000000FFFFFFFFULL
#define XNVME_REFTAG_MASK_32 0xFFFFFFFFFFFFFFFFULL
#define XNVME_REFTAG_MASK_64 0x0000FFFFFFFFFFFFULL

/** Protection type; the values of Identify Namespace DPS.PIT */
enum xnvme_pi_type {
	XNVME_PI_DISABLE = 0x0,
	XNVME_PI_TYPE1 = 0x1,
	XNVME_PI_TYPE2 = 0x2,
	XNVME_PI_TYPE3 = 0x3,
};

/** Fields to generate/check; same bit order as the NVMe PRCHK field */
enum xnvme_pi_check_type {
	XNVME_PI_FLAGS_REFTAG_CHECK = 0x1,
	XNVME_PI_FLAGS_APPTAG_CHECK = 0x2,
	XNVME_PI_FLAGS_GUARD_CHECK = 0x4,
};

/** State of PI generation/verification; embedded by value in client structs */
struct xnvme_pi_ctx {
	uint32_t block_size;     ///< bytes per block (data + metadata when interleaved)
	uint32_t md_size;        ///< metadata bytes per block
	uint32_t guard_interval; ///< byte offset of the PI tuple (see xnvme_pi_ctx_init)
	uint32_t pi_flags;       ///< stored verbatim; bits of enum xnvme_pi_check_type used
	bool md_interleave;      ///< metadata interleaved with data (extended LBA)
	uint16_t pi_type;        ///< enum xnvme_pi_type
	uint16_t pi_format;      ///< enum xnvme_spec_nvm_ns_pif
	uint64_t init_ref_tag;   ///< reference tag of the first block
	uint16_t app_tag;
	uint16_t apptag_mask;
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_pi_ctx) == 40, "Incorrect size")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_pi_ctx, md_interleave) == 16, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_pi_ctx, pi_type) == 18, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_pi_ctx, init_ref_tag) == 24, "Incorrect offset")
XNVME_STATIC_ASSERT(offsetof(struct xnvme_pi_ctx, apptag_mask) == 34, "Incorrect offset")

/** A PI tuple; multi-byte fields are big-endian on the medium */
struct xnvme_pif {
	__extension__ union {
		struct {
			uint16_t guard;
			uint16_t app_tag;
			uint32_t stor_ref_space;
		} g16;
		struct {
			uint64_t guard;
			uint16_t app_tag;
			uint16_t stor_ref_space_p1; ///< upper 16 bits of the 48-bit tag
			uint32_t stor_ref_space_p2; ///< lower 32 bits of the 48-bit tag
		} g64;
	};
};
XNVME_STATIC_ASSERT(sizeof(struct xnvme_pif) == 16, "Incorrect size")
XNVME_STATIC_ASSERT(XNVME_SIZEOF_MEMBER(struct xnvme_pif, g16) == 8, "Incorrect size")
XNVME_STATIC_ASSERT(XNVME_SIZEOF_MEMBER(struct xnvme_pif, g64) == 16, "Incorrect size")

/** Size of a PI tuple: 8 for the 16-bit guard format, 16 otherwise. Thread safety: any thread. */
size_t
xnvme_pi_size(enum xnvme_spec_nvm_ns_pif pi_format);

/**
 * Validates the arguments and initialises `ctx`. `block_size`: bytes per block in `data_buf`
 * (data plus metadata when `md_interleave`, else the data alone: a multiple of 512 for the
 * 16-bit guard, 4096 for the 64-bit guard); `md_size`: metadata bytes per block, at least
 * xnvme_pi_size(pi_format); `pi_loc` true: the PI tuple is at the start of the metadata, false:
 * at its end; `pi_type` 1-3 (0 disables); `pi_flags`: enum xnvme_pi_check_type bits to
 * generate/check; `init_ref_tag`: reference tag of the first block (incremented per block for
 * types 1 and 2); `app_tag` and `apptag_mask`: the application tag and the bits compared.
 * Thread safety: safe from any thread; `ctx` must not be in use meanwhile.
 * @return 0 on success, -EINVAL on invalid arguments (NULL ctx, unknown format or type, too
 * little metadata, a misaligned block size, a reference tag check with type 3)
 */
int
xnvme_pi_ctx_init(struct xnvme_pi_ctx *ctx, uint32_t block_size, uint32_t md_size,
		  bool md_interleave, bool pi_loc, enum xnvme_pi_type pi_type, uint32_t pi_flags,
		  uint32_t init_ref_tag, uint16_t apptag_mask, uint16_t app_tag,
		  enum xnvme_spec_nvm_ns_pif pi_format);

/**
 * Writes the flagged PI fields of `num_blocks` blocks: into `data_buf` when the metadata is
 * interleaved, else into `md_buf` (md_size bytes per block).
 * Thread safety: safe from any thread; reads `ctx`, writes only the given buffers.
 */
void
xnvme_pi_generate(struct xnvme_pi_ctx *ctx, uint8_t *data_buf, uint8_t *md_buf,
		  uint32_t num_blocks);

/**
 * Checks the flagged PI fields of `num_blocks` blocks.
 * Thread safety: safe from any thread; reads `ctx` and the buffers only.
 * @return 0 when all blocks pass (blocks whose application tag is XNVME_APPTAG_IGNORE, and
 * for type 3 also an all-ones reference tag, are skipped), -EIO at the first mismatch of guard, application or reference tag, -EINVAL for
 * NULL arguments
 */
int
xnvme_pi_verify(struct xnvme_pi_ctx *ctx, uint8_t *data_buf, uint8_t *md_buf, uint32_t num_blocks);

#ifdef __cplusplus
}
#endif

#endif /* LIBXNVME_PI_H */
