// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer harness of device opening: URI recognition by every backend and the ramdisk's URI
 * options (lib/be/ramdisk/uri.c, docs/ramdisk.md), with fuzzed struct xnvme_opts.
 *
 * Input, text: the first line is the URI; every further line "key=value" sets an option:
 *   be, mem, sync, async, admin, core_mask, adrfam, subnqn, hostnqn (strings; "~" is NULL),
 *   rdonly, wronly, rdwr, create, truncate, direct, nsid, create_mode, poll_io, poll_sq,
 *   register_files, register_buffers, css, use_cmb_sqs, shm_id, main_core, admin_timeout,
 *   command_timeout, keep_alive_timeout_ms (numbers, C syntax), and for the harness itself
 *   io=1 (read LBA 0 after the open), twice=1 (a second handle on the same URI), order=1
 *   (close the first handle first).
 * Checked after a successful open: the mechanisms named in the options are the ones in use
 * (never replaced), the handle's URI is the one given, identify data and geometry can be had,
 * a ramdisk reads LBA 0 as zeroes, a second handle on a ramdisk shares it; after a failed open,
 * errno is set. Unknown lines are ignored.
 *
 * Nothing outside a private temporary directory is created, truncated or written:
 *  - URIs with a '/' name files in the temporary directory ('/' becomes '_'), except those
 *    under /dev/ that do not exist, which are kept as they are with create and truncate off;
 *  - URIs without a '/' are kept (ramdisks, PCI addresses, host:port are not paths), but with
 *    create or truncate set (and be other than "ramdisk") they too move into the directory;
 *  - the line "@file" as URI names a 4 KiB regular file in the directory, rewritten per input;
 *  - nothing goes to the network: a URI the tcp backend would take (one ':' before any '?', or
 *    a leading '[') gets the address 127.0.0.1 or [::1] and port 1, where nothing listens,
 *    and keeps its "?options" (the connection is refused at once).
 * The ramdisk maps its LBA memory lazily (MAP_NORESERVE: "1000GB" is cheap), but a zoned
 * namespace allocates per-zone state: inputs whose zone state would exceed 64 MiB are skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libxnvme.h>
#include "fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define URI_MAX 512
#define STR_MAX 512
#define ZONE_STATE_MAX (64ULL << 20)

#define FAIL(...) fuzz_fail("fuzz_dev_open", __VA_ARGS__)

static char g_dir[256];
static char g_file[300];

static void
dir_clean(bool all)
{
	struct dirent *ent;
	DIR *dp = opendir(g_dir);
	char path[600];

	while (dp && (ent = readdir(dp))) {
		if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, "..")) {
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", g_dir, ent->d_name);
		if (unlink(path)) {
			rmdir(path);
		}
	}
	if (dp) {
		closedir(dp);
	}
	if (all) {
		rmdir(g_dir);
	}
}

static void
at_exit(void)
{
	dir_clean(true);
}

static void
setup_once(void)
{
	const char *tmp = getenv("TMPDIR");

	if (g_dir[0]) {
		return;
	}
	snprintf(g_dir, sizeof(g_dir), "%s/xnvme-fuzz-dev-open-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(g_dir)) {
		FAIL("mkdtemp(%s): %s", g_dir, strerror(errno));
	}
	snprintf(g_file, sizeof(g_file), "%s/file", g_dir);
	atexit(at_exit);
}

/* The fixed regular file, 4 KiB of a pattern, recreated for every input */
static void
file_reset(void)
{
	uint8_t buf[4096];
	int fd;

	for (size_t i = 0; i < sizeof(buf); ++i) {
		buf[i] = (uint8_t)(i * 7);
	}
	fd = open(g_file, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		FAIL("cannot write %s: %s", g_file, strerror(errno));
	}
	close(fd);
}

struct input {
	char uri[URI_MAX];
	struct xnvme_opts opts;
	char strs[9][STR_MAX];
	bool io, twice, order;
};

static const char *const g_str_keys[] = {
	"be", "mem", "sync", "async", "admin", "core_mask", "adrfam", "subnqn", "hostnqn",
};

static const char **
str_field(struct xnvme_opts *opts, int idx)
{
	const char **fields[] = {
		&opts->be,	  &opts->mem,	 &opts->sync,	&opts->async,	&opts->admin,
		&opts->core_mask, &opts->adrfam, &opts->subnqn, &opts->hostnqn,
	};

	return fields[idx];
}

static void
set_num(struct input *in, const char *key, uint64_t val)
{
	struct xnvme_opts *o = &in->opts;
	static const struct {
		const char *key;
		size_t off;
		size_t len;
	} nums[] = {
#define NUM(f) {#f, offsetof(struct xnvme_opts, f), sizeof(((struct xnvme_opts *)0)->f)}
		NUM(rdonly),	    NUM(wronly),	   NUM(rdwr),		 NUM(create),
		NUM(truncate),	    NUM(direct),	   NUM(nsid),		 NUM(create_mode),
		NUM(poll_io),	    NUM(poll_sq),	   NUM(register_files),	 NUM(register_buffers),
		NUM(use_cmb_sqs),   NUM(shm_id),	   NUM(main_core),	 NUM(admin_timeout),
		NUM(command_timeout), NUM(keep_alive_timeout_ms),
#undef NUM
	};

	if (!strcmp(key, "io")) {
		in->io = val;
	} else if (!strcmp(key, "twice")) {
		in->twice = val;
	} else if (!strcmp(key, "order")) {
		in->order = val;
	} else if (!strcmp(key, "css")) {
		o->css.value = (uint32_t)val;
		o->css.given = 1;
	}
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); ++i) {
		if (!strcmp(key, nums[i].key)) {
			uint8_t *dst = (uint8_t *)o + nums[i].off;

			if (nums[i].len == 1) {
				*dst = (uint8_t)val;
			} else {
				uint32_t v32 = (uint32_t)val;

				memcpy(dst, &v32, sizeof(v32));
			}
		}
	}
}

static void
parse_input(const uint8_t *data, size_t size, struct input *in)
{
	size_t pos = 0, line = 0;

	memset(in, 0, sizeof(*in));
	in->opts = xnvme_opts_default();
	while (pos < size) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t len = nl ? (size_t)(nl - (data + pos)) : size - pos;
		char buf[STR_MAX + 64];
		char *eq;

		if (line == 0) {
			size_t n = len < URI_MAX - 1 ? len : URI_MAX - 1;

			memcpy(in->uri, data + pos, n);
			in->uri[n] = '\0'; /* an embedded NUL just ends the URI early */
		} else if (len < sizeof(buf)) {
			memcpy(buf, data + pos, len);
			buf[len] = '\0';
			eq = strchr(buf, '=');
			if (eq) {
				*eq = '\0';
				for (int i = 0; i < 9; ++i) {
					if (strcmp(buf, g_str_keys[i])) {
						continue;
					}
					snprintf(in->strs[i], STR_MAX, "%s", eq + 1);
					*str_field(&in->opts, i) =
						strcmp(eq + 1, "~") ? in->strs[i] : NULL;
				}
				set_num(in, buf, strtoull(eq + 1, NULL, 0));
			}
		}
		line++;
		pos += len + 1;
	}
}

/* "<digits>GB" at the start of the URI: N, else 0 */
static uint64_t
ramdisk_ngib(const char *uri)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; uri[i] >= '0' && uri[i] <= '9'; ++i) {
		if (n > (UINT64_MAX >> 31) / 10) {
			return UINT64_MAX;
		}
		n = n * 10 + (uint64_t)(uri[i] - '0');
	}
	return (i && !strncmp(uri + i, "GB", 2)) ? n : 0;
}

/* The value of "key=" in a URI's options (first match), or `dflt` */
static uint64_t
uri_opt(const char *uri, const char *key, uint64_t dflt)
{
	const char *q = strchr(uri, '?');
	size_t klen = strlen(key);

	while (q) {
		q++;
		if (!strncmp(q, key, klen) && q[klen] == '=') {
			return strtoull(q + klen + 1, NULL, 10);
		}
		q = strchr(q, ',');
	}
	return dflt;
}

/* Per-zone state a zoned ramdisk URI would allocate, in bytes (an upper estimate) */
static uint64_t
zone_state_nbytes(const char *uri)
{
	uint64_t ngib = ramdisk_ngib(uri), lbads, zsze, zdes, nlbas;

	if (!ngib || !strstr(uri, "csi=zoned")) {
		return 0;
	}
	if (ngib > (1ULL << 30)) {
		return UINT64_MAX;
	}
	lbads = uri_opt(uri, "lbads", 9) == 12 ? 12 : 9;
	nlbas = (ngib << 30) >> lbads;
	zsze = uri_opt(uri, "zsze", (16ULL << 20) >> lbads);
	zdes = uri_opt(uri, "zdes", 0) & 0xFF;
	if (!zsze) {
		return 0; /* refused by the parser */
	}
	return (nlbas / zsze + 1) * (64 + zdes * 64);
}

/* host:port URIs: loopback, port 1, the options kept */
static void
confine_tcp(struct input *in)
{
	char *q = strchr(in->uri, '?');
	size_t len = q ? (size_t)(q - in->uri) : strlen(in->uri);
	char *colon = memchr(in->uri, ':', len);
	char tail[URI_MAX];
	bool one_colon;

	one_colon = colon && !memchr(colon + 1, ':', len - (size_t)(colon + 1 - in->uri));
	if (memchr(in->uri, '/', len) || (in->uri[0] != '[' && !one_colon)) {
		return;
	}
	snprintf(tail, sizeof(tail), "%s", q ? q : "");
	snprintf(in->uri, sizeof(in->uri), "%s:1%.*s", in->uri[0] == '[' ? "[::1]" : "127.0.0.1",
		 URI_MAX - 16, tail);
}

/* Applies the rules of the header comment; false: skip the input */
static bool
make_safe(struct input *in)
{
	struct xnvme_opts *o = &in->opts;
	bool ramdisk_only = o->be && !strcmp(o->be, "ramdisk");
	size_t dlen, ulen;
	struct stat st;

	if (zone_state_nbytes(in->uri) > ZONE_STATE_MAX) {
		return false;
	}
	confine_tcp(in);
	if (!strcmp(in->uri, "@file")) {
		snprintf(in->uri, sizeof(in->uri), "%s", g_file);
		return true;
	}
	if (ramdisk_only) {
		return true;
	}
	if (!strncmp(in->uri, "/dev/", 5) && stat(in->uri, &st) && errno == ENOENT) {
		o->create = 0;
		o->truncate = 0;
		return true;
	}
	if (!strchr(in->uri, '/') && !o->create && !o->truncate) {
		return true;
	}
	dlen = strlen(g_dir);
	ulen = strlen(in->uri);
	if (!ulen || dlen + 1 + ulen >= sizeof(in->uri)) {
		return false;
	}
	for (char *c = in->uri; *c; ++c) {
		if (*c == '/') {
			*c = '_';
		}
	}
	memmove(in->uri + dlen + 1, in->uri, ulen + 1);
	memcpy(in->uri, g_dir, dlen);
	in->uri[dlen] = '/';
	return true;
}

static void
check_named(const char *kind, const char *asked, const char *used)
{
	if (!used) {
		FAIL("no %s mechanism reported after open", kind);
	}
	if (asked && strcmp(asked, used)) {
		FAIL("%s mechanism '%s' asked for, '%s' used", kind, asked, used);
	}
}

static void
check_open(struct xnvme_dev *dev, struct input *in)
{
	const struct xnvme_opts *used = xnvme_dev_get_opts(dev);
	const struct xnvme_ident *ident = xnvme_dev_get_ident(dev);
	const struct xnvme_geo *geo;
	struct xnvme_opts *o = &in->opts;

	if (!used || !ident) {
		FAIL("no options or ident on an open handle");
	}
	check_named("backend", o->be, used->be);
	check_named("mem", o->mem, used->mem);
	check_named("sync", o->sync, used->sync);
	check_named("async", o->async, used->async);
	check_named("admin", o->admin, used->admin);
	if (strcmp(ident->uri, in->uri)) {
		FAIL("handle URI '%s', opened '%s'", ident->uri, in->uri);
	}
	geo = xnvme_dev_get_geo(dev);
	if (!xnvme_dev_get_ctrlr(dev) || !xnvme_dev_get_ns(dev)) {
		FAIL("no identify data");
	}
	if (!strcmp(used->be, "ramdisk") && xnvme_dev_get_csi(dev) != XNVME_SPEC_CSI_KV &&
	    (!geo || !geo->lba_nbytes || !geo->tbytes)) {
		FAIL("ramdisk without geometry");
	}
}

/* LBA 0 of a fresh ramdisk namespace with LBAs reads as zeroes */
static void
check_read(struct xnvme_dev *dev)
{
	const struct xnvme_geo *geo = xnvme_dev_get_geo(dev);
	const struct xnvme_opts *used = xnvme_dev_get_opts(dev);
	struct xnvme_cmd_ctx ctx = xnvme_cmd_ctx_from_dev(dev);
	size_t nbytes;
	uint8_t *buf;
	int err;

	if (!geo || !geo->lba_nbytes || geo->lba_nbytes > 65536 ||
	    xnvme_dev_get_csi(dev) == XNVME_SPEC_CSI_KV) {
		return;
	}
	nbytes = geo->lba_nbytes + 256 + 4096;
	buf = xnvme_buf_alloc(dev, nbytes);
	if (!buf) {
		FAIL("cannot allocate %zu bytes", nbytes);
	}
	memset(buf, 0xEE, nbytes);
	err = xnvme_nvm_read(&ctx, xnvme_dev_get_nsid(dev), 0, 0, buf, NULL);
	if (!strcmp(used->be, "ramdisk")) {
		if (err) {
			FAIL("ramdisk read of LBA 0 failed: %d (sct 0x%x sc 0x%x)", err,
			     ctx.cpl.status.sct, ctx.cpl.status.sc);
		}
		/* the data bytes; metadata of a never-written LBA carries all-ones PI */
		for (size_t i = 0; i < geo->nbytes; ++i) {
			if (buf[i]) {
				FAIL("fresh ramdisk LBA 0 byte %zu is 0x%x", i, buf[i]);
			}
		}
	}
	xnvme_buf_free(dev, buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct input in;
	struct xnvme_opts opts2;
	struct xnvme_dev *dev, *dev2 = NULL;

	setup_once();
	parse_input(data, size, &in);
	if (!make_safe(&in)) {
		return 0;
	}
	dir_clean(false);
	file_reset();

	errno = 0;
	opts2 = in.opts;
	dev = xnvme_dev_open(in.uri, &in.opts);
	if (!dev) {
		if (errno <= 0) {
			FAIL("failed open of '%s' left errno %d", in.uri, errno);
		}
		return 0;
	}
	check_open(dev, &in);
	if (in.io) {
		check_read(dev);
	}
	if (in.twice) {
		dev2 = xnvme_dev_open(in.uri, &opts2);
		if (!dev2 && !strcmp(xnvme_dev_get_opts(dev)->be, "ramdisk")) {
			FAIL("second handle on ramdisk '%s' failed: %s", in.uri, strerror(errno));
		}
		if (dev2) {
			check_open(dev2, &in);
		}
	}
	if (in.order) {
		xnvme_dev_close(dev);
		xnvme_dev_close(dev2);
	} else {
		xnvme_dev_close(dev2);
		xnvme_dev_close(dev);
	}
	return 0;
}
