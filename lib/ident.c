// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <string.h>
#include <libxnvme.h>

int
xnvme_ident_from_uri(const char *uri, struct xnvme_ident *ident)
{
	size_t len;

	if (!uri || !ident) {
		return -EINVAL;
	}
	len = strnlen(uri, XNVME_IDENT_URI_LEN);
	if (len >= XNVME_IDENT_URI_LEN) {
		return -EINVAL;
	}

	memset(ident, 0, sizeof(*ident));
	memcpy(ident->uri, uri, len);
	ident->dtype = 0;
	ident->nsid = 0xFFFFFFFF;
	ident->csi = 0xFF;

	return 0;
}
