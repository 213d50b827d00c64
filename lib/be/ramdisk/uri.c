// SPDX-License-Identifier: BSD-3-Clause
/*
 * Ramdisk URIs: "<N>GB" is an N GiB NVM namespace of 512-byte LBAs without metadata, exactly as
 * before options existed; "<N>GB?key=value,key=value" configures the namespace (the table is in
 * docs/ramdisk.md). Options are checked one by one, then as a whole, and every refusal names the
 * key, so a typo never silently yields a different device.
 */
#include <errno.h>
#include <string.h>

#include "ramdisk.h"

#define ZONE_NBYTES_DEFAULT (16ULL << 20)
#define RUNS_DEFAULT (32ULL << 20)
#define NRUH_DEFAULT 8
#define NRUH_MAX 128
#define KMAX_MAX 16
#define VMAX_DEFAULT (1U << 20)
#define NKEYS_DEFAULT 65536
#define NKEYS_MAX (1U << 24)
#define MS_MAX 256

enum opt_id {
	OPT_CSI,
	OPT_LBADS,
	OPT_MS,
	OPT_MSET,
	OPT_PI,
	OPT_PIL,
	OPT_PIF,
	OPT_ZSZE,
	OPT_ZCAP,
	OPT_MOR,
	OPT_MAR,
	OPT_ZDES,
	OPT_FDP,
	OPT_NRUH,
	OPT_RUNS,
	OPT_NRG,
	OPT_KMAX,
	OPT_VMAX,
	OPT_NKEYS,
	OPT_COUNT,
};

/* Option names, and the largest value of numeric options (0: not numeric) */
static const struct {
	const char *name;
	uint64_t max;
} g_opts[OPT_COUNT] = {
	[OPT_CSI] = {"csi", 0},
	[OPT_LBADS] = {"lbads", 12},
	[OPT_MS] = {"ms", MS_MAX},
	[OPT_MSET] = {"mset", 1},
	[OPT_PI] = {"pi", 3},
	[OPT_PIL] = {"pil", 1},
	[OPT_PIF] = {"pif", 2},
	[OPT_ZSZE] = {"zsze", UINT64_MAX},
	[OPT_ZCAP] = {"zcap", UINT64_MAX},
	[OPT_MOR] = {"mor", UINT32_MAX - 1},
	[OPT_MAR] = {"mar", UINT32_MAX - 1},
	[OPT_ZDES] = {"zdes", UINT8_MAX},
	[OPT_FDP] = {"fdp", 1},
	[OPT_NRUH] = {"nruh", NRUH_MAX},
	[OPT_RUNS] = {"runs", UINT64_MAX},
	[OPT_NRG] = {"nrg", 1},
	[OPT_KMAX] = {"kmax", KMAX_MAX},
	[OPT_VMAX] = {"vmax", UINT32_MAX},
	[OPT_NKEYS] = {"nkeys", NKEYS_MAX},
};

#define GIVEN(opt) (1U << (opt))

/*
 * Decimal number, with a K/M/G (binary) suffix where `suffix_ok`; false on anything else or
 * on overflow
 */
static bool
parse_u64(const char *str, size_t len, bool suffix_ok, uint64_t *out)
{
	uint64_t val = 0;
	unsigned int shift = 0;
	size_t i;

	if (suffix_ok && len > 1) {
		switch (str[len - 1]) {
		case 'K':
		case 'k':
			shift = 10;
			break;
		case 'M':
		case 'm':
			shift = 20;
			break;
		case 'G':
		case 'g':
			shift = 30;
			break;
		default:
			break;
		}
		len -= shift ? 1 : 0;
	}
	if (!len) {
		return false;
	}
	for (i = 0; i < len; ++i) {
		if (str[i] < '0' || str[i] > '9' || val > (UINT64_MAX - 9) / 10) {
			return false;
		}
		val = val * 10 + (uint64_t)(str[i] - '0');
	}
	if (shift && val > (UINT64_MAX >> shift)) {
		return false;
	}
	*out = val << shift;
	return true;
}

/*
 * Whether uri[0..len) reads as a size: "<N>GB", or what a user writes meaning one for a ramdisk
 * ("512MB", "1G", "2GiB", "1.5TB", "0GB"): digits, an optional fraction, then a unit letter
 * with optional "i" and "B"
 */
static bool
size_like(const char *uri, size_t len)
{
	size_t i = 0;

	while (i < len && uri[i] >= '0' && uri[i] <= '9') {
		++i;
	}
	if (!i) {
		return false;
	}
	if (i < len && uri[i] == '.') {
		for (++i; i < len && uri[i] >= '0' && uri[i] <= '9'; ++i) {
		}
	}
	if (i < len && strchr("kKmMgGtTpP", uri[i])) {
		++i;
		if (i < len && uri[i] == 'i') {
			++i;
		}
	}
	if (i < len && (uri[i] == 'B' || uri[i] == 'b')) {
		++i;
	}
	return i == len && !(len > 0 && uri[len - 1] >= '0' && uri[len - 1] <= '9');
}

/* "<N>GB" with N >= 1; -ENXIO for anything else so other backends get a chance */
static int
parse_size(const char *uri, size_t len, uint64_t *ngib)
{
	const uint64_t max = (uint64_t)(SIZE_MAX >> 30) < (UINT64_MAX >> 31)
				     ? (uint64_t)(SIZE_MAX >> 30)
				     : (UINT64_MAX >> 31);
	uint64_t val = 0;

	if (len < 3 || strncmp(uri + len - 2, "GB", 2)) {
		return -ENXIO;
	}
	for (size_t i = 0; i < len - 2; ++i) {
		if (uri[i] < '0' || uri[i] > '9') {
			return -ENXIO;
		}
	}
	if (!parse_u64(uri, len - 2, false, &val)) {
		return -EINVAL;
	}
	if (!val) {
		return -ENXIO;
	}
	if (val > max) {
		return -EINVAL;
	}
	*ngib = val;
	return 0;
}

static int
set_value(struct xnvme_dev *dev, struct ramdisk_cfg *cfg, enum opt_id id, const char *val,
	  size_t len)
{
	const char *name = g_opts[id].name;
	uint64_t num = 0;

	if (id == OPT_CSI) {
		if (len == 3 && !strncmp(val, "nvm", 3)) {
			cfg->csi = XNVME_SPEC_CSI_NVM;
		} else if (len == 5 && !strncmp(val, "zoned", 5)) {
			cfg->csi = XNVME_SPEC_CSI_ZONED;
		} else if (len == 2 && !strncmp(val, "kv", 2)) {
			cfg->csi = XNVME_SPEC_CSI_KV;
		} else {
			return xnvme_dev_set_errmsg(dev, -EINVAL,
						    "option 'csi': '%.*s' is not one of "
						    "nvm, zoned, kv",
						    (int)len, val);
		}
		return 0;
	}
	if (!parse_u64(val, len, id == OPT_RUNS, &num) || num > g_opts[id].max) {
		return xnvme_dev_set_errmsg(dev, -EINVAL, "option '%s': bad value '%.*s'", name,
					    (int)len, val);
	}

	switch (id) {
	case OPT_LBADS:
		if (num != 9 && num != 12) {
			return xnvme_dev_set_errmsg(dev, -EINVAL,
						    "option 'lbads': must be 9 or 12");
		}
		cfg->lbads = (uint8_t)num;
		break;
	case OPT_MS:
		cfg->ms = (uint16_t)num;
		break;
	case OPT_MSET:
		cfg->mset = num;
		break;
	case OPT_PI:
		cfg->pi = (uint8_t)num;
		break;
	case OPT_PIL:
		cfg->pil = num;
		break;
	case OPT_PIF:
		if (num == XNVME_SPEC_NVM_NS_32B_GUARD) {
			return xnvme_dev_set_errmsg(dev, -EINVAL, "option 'pif': must be 0 or 2");
		}
		cfg->pif = (uint8_t)num;
		break;
	case OPT_ZSZE:
		cfg->zsze = num;
		break;
	case OPT_ZCAP:
		cfg->zcap = num;
		break;
	case OPT_MOR:
		cfg->mor = (uint32_t)num;
		break;
	case OPT_MAR:
		cfg->mar = (uint32_t)num;
		break;
	case OPT_ZDES:
		cfg->zdes = (uint8_t)num;
		break;
	case OPT_FDP:
		cfg->fdp = num;
		break;
	case OPT_NRUH:
		cfg->nruh = (uint16_t)num;
		break;
	case OPT_RUNS:
		cfg->runs = num;
		break;
	case OPT_NRG:
		cfg->nrg = (uint32_t)num;
		break;
	case OPT_KMAX:
		cfg->kmax = (uint16_t)num;
		break;
	case OPT_VMAX:
		cfg->vmax = (uint32_t)num;
		break;
	case OPT_NKEYS:
		cfg->nkeys = (uint32_t)num;
		break;
	default:
		break;
	}
	if (!num && (id == OPT_ZSZE || id == OPT_ZCAP || id == OPT_NRUH || id == OPT_NRG ||
		     id == OPT_KMAX || id == OPT_VMAX || id == OPT_NKEYS || id == OPT_RUNS)) {
		return xnvme_dev_set_errmsg(dev, -EINVAL, "option '%s': must be >= 1", name);
	}
	return 0;
}

/* Options are a comma-separated list of key=value; every key at most once */
static int
parse_opts(struct xnvme_dev *dev, const char *opts, struct ramdisk_cfg *cfg, uint32_t *given)
{
	const char *item = opts;

	for (;;) {
		const char *end = strchr(item, ',');
		size_t len = end ? (size_t)(end - item) : strlen(item);
		const char *eq = memchr(item, '=', len);
		size_t klen = eq ? (size_t)(eq - item) : len;
		int id;
		int err;

		for (id = 0; id < OPT_COUNT; ++id) {
			if (strlen(g_opts[id].name) == klen &&
			    !strncmp(g_opts[id].name, item, klen)) {
				break;
			}
		}
		if (!klen) {
			return xnvme_dev_set_errmsg(dev, -EINVAL, "empty option in the URI");
		}
		if (id == OPT_COUNT) {
			return xnvme_dev_set_errmsg(dev, -EINVAL, "unknown option '%.*s'",
						    (int)klen, item);
		}
		if (!eq) {
			return xnvme_dev_set_errmsg(dev, -EINVAL, "option '%s': needs '=value'",
						    g_opts[id].name);
		}
		if (*given & GIVEN(id)) {
			return xnvme_dev_set_errmsg(dev, -EINVAL, "option '%s': given twice",
						    g_opts[id].name);
		}
		*given |= GIVEN(id);

		err = set_value(dev, cfg, (enum opt_id)id, eq + 1, len - klen - 1);
		if (err) {
			return err;
		}
		if (!end) {
			return 0;
		}
		item = end + 1;
	}
}

/* Keys of one command set or feature given to a namespace without it */
static int
check_scope(struct xnvme_dev *dev, uint32_t given, uint32_t mask, bool allowed, const char *why)
{
	if (allowed || !(given & mask)) {
		return 0;
	}
	for (int id = 0; id < OPT_COUNT; ++id) {
		if (given & mask & GIVEN(id)) {
			return xnvme_dev_set_errmsg(dev, -EINVAL, "option '%s': %s",
						    g_opts[id].name, why);
		}
	}
	return 0;
}

static int
check_cfg(struct xnvme_dev *dev, struct ramdisk_cfg *cfg, uint32_t given)
{
	const uint32_t zoned = GIVEN(OPT_ZSZE) | GIVEN(OPT_ZCAP) | GIVEN(OPT_MOR) | GIVEN(OPT_MAR) |
			       GIVEN(OPT_ZDES);
	const uint32_t kv = GIVEN(OPT_KMAX) | GIVEN(OPT_VMAX) | GIVEN(OPT_NKEYS);
	const uint32_t fdp = GIVEN(OPT_NRUH) | GIVEN(OPT_RUNS) | GIVEN(OPT_NRG);
	const uint32_t lbaf = GIVEN(OPT_LBADS) | GIVEN(OPT_MS) | GIVEN(OPT_MSET);
	const uint32_t pi = GIVEN(OPT_PI) | GIVEN(OPT_PIL) | GIVEN(OPT_PIF);
	uint64_t nlbas;
	int err;

	err = check_scope(dev, given, zoned, cfg->csi == XNVME_SPEC_CSI_ZONED, "needs csi=zoned");
	if (!err) {
		err = check_scope(dev, given, kv, cfg->csi == XNVME_SPEC_CSI_KV, "needs csi=kv");
	}
	if (!err) {
		err = check_scope(dev, given, fdp, cfg->fdp, "needs fdp=1");
	}
	if (!err) {
		err = check_scope(dev, given, GIVEN(OPT_FDP), cfg->csi == XNVME_SPEC_CSI_NVM,
				  "needs csi=nvm");
	}
	if (!err) {
		err = check_scope(dev, given, lbaf | pi, cfg->csi != XNVME_SPEC_CSI_KV,
				  "not for csi=kv");
	}
	if (!err) {
		err = check_scope(dev, given, pi, cfg->csi == XNVME_SPEC_CSI_NVM,
				  "protection information needs csi=nvm");
	}
	if (err) {
		return err;
	}

	if (cfg->mset && !cfg->ms) {
		return xnvme_dev_set_errmsg(dev, -EINVAL, "option 'mset': needs ms > 0");
	}
	if (cfg->pi && cfg->ms < xnvme_pi_size(cfg->pif)) {
		return xnvme_dev_set_errmsg(dev, -EINVAL,
					    "option 'pi': needs ms >= %zu with pif=%u",
					    xnvme_pi_size(cfg->pif), cfg->pif);
	}
	if (cfg->pif == XNVME_SPEC_NVM_NS_64B_GUARD && cfg->ms < 16) {
		return xnvme_dev_set_errmsg(dev, -EINVAL, "option 'pif': 2 needs ms >= 16");
	}

	nlbas = (cfg->ngib << 30) >> cfg->lbads;
	if (cfg->csi == XNVME_SPEC_CSI_ZONED) {
		if (!(given & GIVEN(OPT_ZSZE))) {
			cfg->zsze = ZONE_NBYTES_DEFAULT >> cfg->lbads;
		}
		if (!(given & GIVEN(OPT_ZCAP))) {
			cfg->zcap = cfg->zsze;
		}
		if (cfg->zsze > nlbas) {
			return xnvme_dev_set_errmsg(dev, -EINVAL,
						    "option 'zsze': larger than the "
						    "namespace (%" PRIu64 " LBAs)",
						    nlbas);
		}
		if (cfg->zcap > cfg->zsze) {
			return xnvme_dev_set_errmsg(dev, -EINVAL, "option 'zcap': exceeds zsze");
		}
		if (cfg->mor && cfg->mar && cfg->mor > cfg->mar) {
			return xnvme_dev_set_errmsg(dev, -EINVAL, "option 'mor': exceeds mar");
		}
		/* open zones are active: an active limit bounds an unlimited open count */
		if (!cfg->mor) {
			cfg->mor = cfg->mar;
		}
	}
	if (cfg->fdp) {
		uint64_t lba = 1ULL << cfg->lbads;

		if (cfg->runs % lba) {
			return xnvme_dev_set_errmsg(dev, -EINVAL,
						    "option 'runs': not a multiple of the "
						    "LBA size (%" PRIu64 ")",
						    lba);
		}
	}
	if (cfg->csi == XNVME_SPEC_CSI_KV && cfg->vmax > (cfg->ngib << 30)) {
		return xnvme_dev_set_errmsg(dev, -EINVAL,
					    "option 'vmax': exceeds the namespace size");
	}
	return 0;
}

enum xnvme_be_uri_claim
xnvme_ramdisk_uri_claim(const char *uri)
{
	const char *query = strchr(uri, '?');

	return size_like(uri, query ? (size_t)(query - uri) : strlen(uri)) ? XNVME_BE_URI_FORM
									   : XNVME_BE_URI_NONE;
}

int
xnvme_ramdisk_uri_parse(struct xnvme_dev *dev, const char *uri, struct ramdisk_cfg *cfg)
{
	const char *query = strchr(uri, '?');
	uint32_t given = 0;
	int err;

	memset(cfg, 0, sizeof(*cfg));
	cfg->csi = XNVME_SPEC_CSI_NVM;
	cfg->lbads = 9;
	cfg->pif = XNVME_SPEC_NVM_NS_16B_GUARD;
	cfg->nruh = NRUH_DEFAULT;
	cfg->runs = RUNS_DEFAULT;
	cfg->nrg = 1;
	cfg->kmax = KMAX_MAX;
	cfg->vmax = VMAX_DEFAULT;
	cfg->nkeys = NKEYS_DEFAULT;

	err = parse_size(uri, query ? (size_t)(query - uri) : strlen(uri), &cfg->ngib);
	if (err == -ENXIO && size_like(uri, query ? (size_t)(query - uri) : strlen(uri))) {
		return xnvme_dev_set_errmsg(
			dev, -EINVAL,
			"'%.64s' is not a ramdisk size: the ramdisk takes <N>GB, "
			"N a whole number >= 1 of GiB (e.g. 1GB, 8GB; no MB, "
			"TB, GiB or G forms), optionally followed by "
			"?key=value,... options",
			uri);
	}
	if (err == -EINVAL) {
		return xnvme_dev_set_errmsg(dev, err, "'%.64s': size too large for this system",
					    uri);
	}
	if (err) {
		return err;
	}
	if (query) {
		err = parse_opts(dev, query + 1, cfg, &given);
		if (!err) {
			err = check_cfg(dev, cfg, given);
		}
	}
	return err;
}
