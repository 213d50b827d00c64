// SPDX-License-Identifier: BSD-3-Clause
/*
 * Opening vfio devices: URI parsing, the per-process registry of controllers (handles of one
 * PCI function share its controller; the last close shuts it down), namespace selection and
 * enumeration of NVMe functions bound to vfio-pci.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_secondary.h"
#include "vfio.h"

#define NVME_PCI_CLASS 0x010802

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vfio_shared *g_ctrls;

static bool
hexn(const char *s, int n)
{
	for (int i = 0; i < n; ++i) {
		if (!isxdigit((unsigned char)s[i])) {
			return false;
		}
	}
	return true;
}

int
vfio_uri_parse(const char *uri, char *bdf, size_t len)
{
	const char *s = uri;
	char dom[5] = "0000";

	if (strlen(s) == 12 && hexn(s, 4) && s[4] == ':') {
		memcpy(dom, s, 4);
		s += 5;
	}
	if (strlen(s) != 7 || !hexn(s, 2) || s[2] != ':' || !hexn(s + 3, 2) || s[5] != '.' ||
	    s[6] < '0' || s[6] > '7') {
		return -ENXIO;
	}
	snprintf(bdf, len, "%.4s:%.7s", dom, s);
	for (char *p = bdf; *p; ++p) {
		*p = (char)tolower((unsigned char)*p);
	}
	return 0;
}

/* A PCI address is vfio's form, whether or not a function is there */
static enum xnvme_be_uri_claim
vfio_uri_claim(const char *uri)
{
	char bdf[16];

	return vfio_uri_parse(uri, bdf, sizeof(bdf)) ? XNVME_BE_URI_NONE : XNVME_BE_URI_FORM;
}

static void
shared_destroy(struct vfio_shared *sh)
{
	if (sh->syncq) {
		vfio_ctrl_qpair_destroy(&sh->ctrl, sh->syncq);
	}
	if (sh->ctrl.remote) {
		vfio_sec_detach(&sh->ctrl);
	} else {
		vfio_ctrl_fini(&sh->ctrl);
		vfio_pci_close(sh->pci);
	}
	pthread_mutex_destroy(&sh->sync_lock);
	free(sh);
}

/* Owner of the controller: opens the function and brings the controller up */
static int
ctrl_own(struct xnvme_dev *dev, struct vfio_shared *sh)
{
	struct vfio_ctrl_opts copts = {
		.admin_timeout_us = dev->opts.admin_timeout,
		.css = dev->opts.css.value,
		.css_given = dev->opts.css.given,
	};
	int err = vfio_pci_open(sh->bdf, &sh->pci, dev->errmsg, sizeof(dev->errmsg));

	if (err) {
		return err;
	}
	err = vfio_ctrl_init(&sh->ctrl, vfio_pci_bus(sh->pci), &copts, dev->errmsg,
			     sizeof(dev->errmsg));
	if (err == -ENOMEM) {
		/* VFIO_IOMMU_MAP_DMA pins pages against RLIMIT_MEMLOCK */
		xnvme_dev_set_errmsg(dev, err,
				     "%s: cannot map DMA memory: raise the memlock limit "
				     "(ulimit -l) or run as root",
				     sh->bdf);
	}
	if (err) {
		vfio_pci_close(sh->pci);
	}
	return err;
}

static int
shared_create(struct xnvme_dev *dev, const char *bdf, struct vfio_shared **out)
{
	struct vfio_shared *sh = calloc(1, sizeof(*sh));
	int err;

	if (!sh) {
		return -ENOMEM;
	}
	snprintf(sh->bdf, sizeof(sh->bdf), "%s", bdf);
	sh->shm_id = dev->opts.shm_id;
	pthread_mutex_init(&sh->sync_lock, NULL);
	sh->command_timeout_us = dev->opts.command_timeout;
	if (sh->shm_id) {
		err = vfio_sec_attach(&sh->ctrl, bdf, sh->shm_id, vfio_pci_import, dev->errmsg,
				      sizeof(dev->errmsg));
	} else {
		err = ctrl_own(dev, sh);
	}
	if (err) {
		pthread_mutex_destroy(&sh->sync_lock);
		free(sh);
		return err;
	}
	sh->syncq = vfio_ctrl_qpair_create(&sh->ctrl, VFIO_SYNC_QSIZE, NULL, sh->command_timeout_us,
					   false);
	if (!sh->syncq) {
		err = -errno;
		xnvme_dev_set_errmsg(dev, err, "%s: cannot create the sync I/O queue: %s", bdf,
				     sh->shm_id && xnvme_last_error()[0] ? xnvme_last_error()
									 : strerror(-err));
		shared_destroy(sh);
		return err;
	}
	*out = sh;
	return 0;
}

static int
shared_get(struct xnvme_dev *dev, const char *bdf, struct vfio_shared **out)
{
	struct vfio_shared *sh;
	int err = 0;

	pthread_mutex_lock(&g_lock);
	/* a forked child inherits the registry but not the right to drive the device */
	for (sh = g_ctrls;
	     sh && (strcmp(sh->bdf, bdf) || sh->pid != getpid() || sh->shm_id != dev->opts.shm_id);
	     sh = sh->next) {
	}
	if (sh) {
		sh->refcnt++;
	} else {
		err = shared_create(dev, bdf, &sh);
		if (!err) {
			sh->refcnt = 1;
			sh->pid = getpid();
			sh->next = g_ctrls;
			g_ctrls = sh;
		}
	}
	pthread_mutex_unlock(&g_lock);
	*out = sh;
	return err;
}

static void
shared_put(struct vfio_shared *sh)
{
	struct vfio_shared **link;
	bool last;

	pthread_mutex_lock(&g_lock);
	last = !--sh->refcnt;
	if (last) {
		for (link = &g_ctrls; *link; link = &(*link)->next) {
			if (*link == sh) {
				*link = sh->next;
				break;
			}
		}
		shared_destroy(sh);
	}
	pthread_mutex_unlock(&g_lock);
}

/* The namespace must be active: Identify Namespace gives a non-zero size */
static int
ns_check(struct xnvme_dev *dev, struct vfio_shared *sh, uint32_t nsid)
{
	struct xnvme_spec_cmd cmd = {0};
	struct xnvme_spec_cpl cpl;
	uint64_t nsze = 0;
	uint8_t *buf;
	int err;

	buf = vfio_dma_alloc(&sh->ctrl.dma, 4096, NULL);
	if (!buf) {
		return -ENOMEM;
	}
	cmd.common.opcode = NVME_ADM_IDENTIFY;
	cmd.common.nsid = nsid;
	err = vfio_ctrl_admin(&sh->ctrl, &cmd, buf, 4096, &cpl);
	memcpy(&nsze, buf, sizeof(nsze));
	vfio_dma_free(&sh->ctrl.dma, buf);
	if (err || !nsze) {
		return xnvme_dev_set_errmsg(dev, -ENODEV, "%s: namespace %u is not active", sh->bdf,
					    nsid);
	}
	return 0;
}

static int
vfio_dev_open(struct xnvme_dev *dev)
{
	struct vfio_shared *sh;
	char bdf[16];
	uint32_t nsid = dev->opts.nsid ? dev->opts.nsid : 1;
	int err;

	if (vfio_uri_parse(dev->ident.uri, bdf, sizeof(bdf))) {
		return -ENXIO;
	}
	err = shared_get(dev, bdf, &sh);
	if (err) {
		return err;
	}
	err = ns_check(dev, sh, nsid);
	if (!err) {
		err = xnvme_be_pick_default(dev, "vfio", "vfio", "vfio", "vfio");
	}
	if (err) {
		shared_put(sh);
		return err;
	}
	dev->state = sh;
	dev->ident.dtype = 2;
	dev->ident.nsid = nsid;
	dev->ident.csi = XNVME_SPEC_CSI_NVM;
	dev->mdts_cap_nbytes = sh->ctrl.max_xfer;
	return 0;
}

static void
vfio_dev_close(struct xnvme_dev *dev)
{
	if (!dev || !dev->state) {
		return;
	}
	shared_put(dev->state);
	dev->state = NULL;
}

static bool
is_nvme_fn(const char *bdf)
{
	char path[128];
	unsigned int class = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/vfio-pci/%s/class", bdf);
	fp = fopen(path, "r");
	if (!fp) {
		return false;
	}
	if (fscanf(fp, "%x", &class) != 1) {
		class = 0;
	}
	fclose(fp);
	return class == NVME_PCI_CLASS;
}

/* Namespace 1 of each NVMe function bound to vfio-pci */
static int
vfio_enumerate(const char *sys_uri, struct xnvme_opts *opts, xnvme_enumerate_cb cb_func,
	       void *cb_args)
{
	DIR *dir = opendir("/sys/bus/pci/drivers/vfio-pci");
	struct dirent *ent;

	if (sys_uri) {
		return -ENOSYS;
	}
	if (!dir) {
		return 0;
	}
	while ((ent = readdir(dir))) {
		char bdf[16];

		if (vfio_uri_parse(ent->d_name, bdf, sizeof(bdf)) || !is_nvme_fn(bdf)) {
			continue;
		}
		opts->nsid = 1;
		xnvme_be_enumerate_visit(bdf, opts, cb_func, cb_args);
	}
	closedir(dir);
	return 0;
}

const struct xnvme_be_dev xnvme_be_vfio_dev = {
	.enumerate = vfio_enumerate,
	.dev_open = vfio_dev_open,
	.dev_close = vfio_dev_close,
	.uri_claim = vfio_uri_claim,
	.uri_forms = "the PCI address DDDD:BB:DD.F of an NVMe function bound to vfio-pci",
};
