// SPDX-License-Identifier: BSD-3-Clause
/*
 * What the admin mechanisms that synthesise a controller with one namespace ("block",
 * "file_as_ns") have in common: the fixed part of Identify Controller and the absence of
 * topology pseudo-commands.
 */
#include <errno.h>
#include <string.h>
#include "be_linux.h"

/* Space-padded ASCII, no terminator, as identify strings are */
static void
synth_strpad(void *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len);

	memset(dst, ' ', len);
	memcpy(dst, src, n);
}

void
xnvme_be_linux_synth_ctrlr(struct xnvme_spec_idfy_ctrlr *ctrlr, const char *sn, const char *mn,
			   const char *fr, uint8_t mdts, const char *subnqn)
{
	synth_strpad(ctrlr->sn, sizeof(ctrlr->sn), sn);
	synth_strpad(ctrlr->mn, sizeof(ctrlr->mn), mn);
	synth_strpad(ctrlr->fr, sizeof(ctrlr->fr), fr);

	ctrlr->mdts = mdts;
	ctrlr->ver.val = 0x00020000; /* NVMe 2.0 */
	ctrlr->cntrltype = 1;        /* I/O controller */
	ctrlr->sqes.min = ctrlr->sqes.max = 6;
	ctrlr->cqes.min = ctrlr->cqes.max = 4;
	ctrlr->nn = 1;
	memcpy(ctrlr->subnqn, subnqn, strnlen(subnqn, sizeof(ctrlr->subnqn) - 1) + 1);
}

int
xnvme_be_linux_synth_pseudo(struct xnvme_dev *dev, enum xnvme_be_pseudo op, void *buf,
			    size_t nbytes)
{
	(void)dev;
	(void)op;
	(void)buf;
	(void)nbytes;
	return -ENOSYS; /* no NVMe controller behind a file or the block layer to reset or read */
}
