// SPDX-License-Identifier: BSD-3-Clause
/*
 * xnvme_enumerate(sys_uri = "traddr:trsvcid"): connects to the discovery controller there over
 * the backend's transport, reads the discovery log page and opens every NVM subsystem it lists
 * on a port of that transport as "traddr:trsvcid" with that subsystem's NQN. Without a sys_uri
 * there is nothing local to list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmf.h"

#define DISC_MAX_ENTRIES 256

static int
get_log(struct xnvme_dev *dev, void *buf, uint32_t nbytes)
{
	/* an admin command: no need for the identification xnvme_cmd_ctx_from_dev() settles */
	struct xnvme_cmd_ctx ctx = {.dev = dev, .opts = XNVME_CMD_SYNC};
	uint32_t numd = nbytes / 4 - 1;

	ctx.cmd.common.opcode = XNVME_SPEC_ADM_OPC_LOG;
	ctx.cmd.common.ndt = XNVME_NVMF_DISC_LID | ((numd & 0xFFFF) << 16);
	ctx.cmd.common.ndm = numd >> 16;
	return xnvme_cmd_pass_admin(&ctx, buf, nbytes, NULL, 0);
}

/* Copies a fixed-size, space- or NUL-padded field into a C string */
static void
field(char *dst, size_t dst_len, const char *src, size_t src_len)
{
	size_t n = strnlen(src, src_len);

	while (n && src[n - 1] == ' ') {
		n--;
	}
	if (n >= dst_len) {
		n = dst_len - 1;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void
visit(const struct xnvme_nvmf_transport *tr, const struct xnvme_nvmf_disc_entry *e,
      const struct xnvme_opts *opts, xnvme_enumerate_cb cb_func, void *cb_args)
{
	struct xnvme_opts eopts = *opts;
	char addr[256], svc[33], nqn[257], uri[300];
	bool v6 = e->adrfam == XNVME_NVMF_ADRFAM_IPV6;

	if (e->trtype != tr->trtype || e->subtype != XNVME_NVMF_SUBTYPE_NVM ||
	    (e->adrfam != XNVME_NVMF_ADRFAM_IPV4 && !v6)) {
		return;
	}
	field(addr, sizeof(addr), e->traddr, sizeof(e->traddr));
	field(svc, sizeof(svc), e->trsvcid, sizeof(e->trsvcid));
	field(nqn, sizeof(nqn), e->subnqn, sizeof(e->subnqn));
	snprintf(uri, sizeof(uri), v6 ? "[%s]:%s" : "%s:%s", addr, svc);
	eopts.subnqn = nqn;
	eopts.adrfam = v6 ? "IPv6" : "IPv4";
	xnvme_be_enumerate_visit(uri, &eopts, cb_func, cb_args);
}

int
xnvme_nvmf_enumerate(const struct xnvme_nvmf_transport *tr, const char *sys_uri,
		     struct xnvme_opts *opts, xnvme_enumerate_cb cb_func, void *cb_args)
{
	struct xnvme_opts dopts = *opts;
	struct xnvme_nvmf_target tgt;
	struct xnvme_dev *dev;
	uint64_t numrec;
	uint8_t *log;
	uint32_t n = 0;
	int err;

	if (!sys_uri || xnvme_nvmf_uri_parse(tr, sys_uri, &tgt)) {
		return 0; /* nothing local; not an address of this transport */
	}
	dopts.subnqn = NULL;
	dev = xnvme_dev_open(sys_uri, &dopts);
	if (!dev) {
		return -errno;
	}
	log = calloc(DISC_MAX_ENTRIES + 1, XNVME_NVMF_DISC_ENTRY_NBYTES);
	err = log ? get_log(dev, log, 4 * XNVME_NVMF_DISC_ENTRY_NBYTES) : -ENOMEM;
	if (!err) {
		memcpy(&numrec, log + 8, sizeof(numrec));
		n = numrec < DISC_MAX_ENTRIES ? (uint32_t)numrec : DISC_MAX_ENTRIES;
		if (n > 3) {
			err = get_log(dev, log, (n + 1) * XNVME_NVMF_DISC_ENTRY_NBYTES);
		}
	}
	xnvme_dev_close(dev);
	for (uint32_t i = 0; !err && i < n; ++i) {
		visit(tr,
		      (const struct xnvme_nvmf_disc_entry *)(log +
							     (size_t)(i + 1) *
								     XNVME_NVMF_DISC_ENTRY_NBYTES),
		      opts, cb_func, cb_args);
	}
	free(log);
	return err;
}
