// SPDX-License-Identifier: BSD-3-Clause
/*
 * Target addresses: "traddr:trsvcid" (IPv4 address or host name and port) and
 * "[v6addr]:trsvcid", optionally followed by "?key=value&...": "subnqn=NQN" for clients that
 * cannot set opts.subnqn (opts.subnqn wins), and the transport's own options (tcp: hdgst=0|1,
 * ddgst=0|1). Anything else is not a fabrics target (-ENXIO), so that other backends get the
 * URI.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nvmf.h"

static int
parse_port(const char *s, size_t len, char *out, size_t out_len)
{
	unsigned long v = 0;

	if (!len || len > 5) {
		return -ENXIO;
	}
	for (size_t i = 0; i < len; ++i) {
		if (s[i] < '0' || s[i] > '9') {
			return -ENXIO;
		}
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (!v || v > 65535) {
		return -ENXIO;
	}
	snprintf(out, out_len, "%lu", v);
	return 0;
}

static int
parse_query(const struct xnvme_nvmf_transport *tr, const char *q, struct xnvme_nvmf_target *tgt)
{
	char buf[512];
	char *save = NULL;

	if (strlen(q) >= sizeof(buf)) {
		return -EINVAL;
	}
	strcpy(buf, q);
	for (char *kv = strtok_r(buf, "&", &save); kv; kv = strtok_r(NULL, "&", &save)) {
		if (!strncmp(kv, "subnqn=", 7) && kv[7] && strlen(kv + 7) < sizeof(tgt->subnqn)) {
			strcpy(tgt->subnqn, kv + 7);
		} else if (!tr->uri_opt || tr->uri_opt(tgt, kv)) {
			return -EINVAL;
		}
	}
	return 0;
}

int
xnvme_nvmf_uri_parse(const struct xnvme_nvmf_transport *tr, const char *uri,
		     struct xnvme_nvmf_target *tgt)
{
	const char *q = strchr(uri, '?');
	size_t len = q ? (size_t)(q - uri) : strlen(uri);
	const char *colon;
	size_t hlen;

	memset(tgt, 0, sizeof(*tgt));
	tgt->family = AF_UNSPEC;
	if (!len || memchr(uri, '/', len)) {
		return -ENXIO;
	}
	if (uri[0] == '[') {
		const char *end = memchr(uri, ']', len);

		if (!end || end + 1 >= uri + len || end[1] != ':') {
			return -ENXIO;
		}
		hlen = (size_t)(end - uri - 1);
		if (!hlen || hlen >= sizeof(tgt->host)) {
			return -ENXIO;
		}
		memcpy(tgt->host, uri + 1, hlen);
		tgt->family = AF_INET6;
		colon = end + 1;
	} else {
		colon = memchr(uri, ':', len);
		if (!colon || memchr(colon + 1, ':', len - (size_t)(colon + 1 - uri))) {
			return -ENXIO;
		}
		hlen = (size_t)(colon - uri);
		if (!hlen || hlen >= sizeof(tgt->host)) {
			return -ENXIO;
		}
		memcpy(tgt->host, uri, hlen);
	}
	if (parse_port(colon + 1, len - (size_t)(colon + 1 - uri), tgt->port, sizeof(tgt->port))) {
		return -ENXIO;
	}
	return q ? parse_query(tr, q + 1, tgt) : 0;
}

enum xnvme_be_uri_claim
xnvme_nvmf_uri_claim(const struct xnvme_nvmf_transport *tr, const char *uri)
{
	struct xnvme_nvmf_target tgt;

	/* unknown options (-EINVAL) are an address of this form with a mistake the open names */
	return xnvme_nvmf_uri_parse(tr, uri, &tgt) == -ENXIO ? XNVME_BE_URI_NONE
							     : XNVME_BE_URI_FORM;
}
