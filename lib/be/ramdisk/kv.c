// SPDX-License-Identifier: BSD-3-Clause
/*
 * Key-Value namespace (NVMe KV command set, CSI 1) on a ramdisk: Store, Retrieve, Delete, Exist
 * and List over a chained hash table under one mutex. Keys (1..kmax bytes) travel in the command:
 * bytes 0-7 in CDW2-3, 8-15 in CDW14-15, the length in CDW11 bits 7:0. Values live on the heap;
 * the namespace holds at most `nkeys` keys and its size in key and value bytes.
 *
 * Statuses are the KV command set's (generic status type): Invalid Value Size, Invalid Key
 * Size, KV Key Does Not Exist, Key Exists, and Capacity Exceeded when full.
 */
#include <stdlib.h>
#include <string.h>

#include "ramdisk.h"

#define KV_SC_CAPACITY_EXCEEDED XNVME_SPEC_KV_SC_CAPACITY_EXCEEDED
#define KV_SC_INVALID_VAL_SIZE XNVME_SPEC_KV_SC_INVALID_VAL_SIZE
#define KV_SC_INVALID_KEY_SIZE XNVME_SPEC_KV_SC_INVALID_KEY_SIZE
#define KV_SC_KEY_NOT_EXISTS XNVME_SPEC_KV_SC_KEY_NOT_EXISTS
#define KV_SC_KEY_EXISTS XNVME_SPEC_KV_SC_KEY_EXISTS

#define KEY_NBYTES_MAX 16
#define LIST_HDR_NBYTES 4

struct kv_entry {
	struct kv_entry *next;
	uint32_t vlen;
	uint8_t klen;
	uint8_t key[KEY_NBYTES_MAX];
	uint8_t val[];
};

struct ramdisk_kv {
	pthread_mutex_t lock;
	size_t nbuckets; ///< a power of two
	struct kv_entry **buckets;
	uint64_t nkeys;
	uint64_t nuse; ///< bytes of keys and values stored
};

struct kv_key {
	uint8_t len;
	uint8_t bytes[KEY_NBYTES_MAX];
};

static int
kv_status(struct xnvme_cmd_ctx *ctx, uint8_t sc)
{
	return ramdisk_status(ctx, XNVME_STATUS_CODE_TYPE_GENERIC, sc);
}

/* The key of the command; List may name none (start at the first key) */
static int
key_from_cmd(const struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, struct kv_key *key, bool empty_ok)
{
	uint8_t kl = ctx->cmd.kvs.cdw11.kl;

	if ((!kl && !empty_ok) || kl > rd->cfg.kmax) {
		return kv_status(ctx, KV_SC_INVALID_KEY_SIZE);
	}
	key->len = kl;
	memcpy(key->bytes, &ctx->cmd.kvs.key, 8);
	memcpy(key->bytes + 8, &ctx->cmd.kvs.key_hi, 8);
	memset(key->bytes + kl, 0, sizeof(key->bytes) - kl);
	return 0;
}

/* FNV-1a */
static size_t
key_hash(const struct kv_key *key)
{
	uint64_t hash = 0xcbf29ce484222325ULL;

	for (uint8_t i = 0; i < key->len; ++i) {
		hash ^= key->bytes[i];
		hash *= 0x100000001b3ULL;
	}
	return (size_t)hash;
}

/* Lexicographic, a key before every longer key it prefixes: the List order */
static int
key_cmp(const uint8_t *a, uint8_t alen, const uint8_t *b, uint8_t blen)
{
	int cmp = memcmp(a, b, alen < blen ? alen : blen);

	return cmp ? cmp : (int)alen - (int)blen;
}

/* The link pointing at the key's entry (or the end of its chain); lock held */
static struct kv_entry **
kv_find(struct ramdisk_kv *kv, const struct kv_key *key)
{
	struct kv_entry **link = &kv->buckets[key_hash(key) & (kv->nbuckets - 1)];

	for (; *link; link = &(*link)->next) {
		if (!key_cmp((*link)->key, (*link)->klen, key->bytes, key->len)) {
			break;
		}
	}
	return link;
}

static int
kv_store(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_payload *pl)
{
	const uint8_t only_update = XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_NOT_EXISTS;
	const uint8_t only_add = XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_EXISTS;
	struct ramdisk_kv *kv = rd->kv;
	uint8_t opt = ctx->cmd.kvs.cdw11.ro;
	uint32_t vlen = ctx->cmd.kvs.cdw10;
	struct kv_entry *entry, *old, **link;
	struct kv_key key;
	uint8_t sc = 0;
	int err;

	err = key_from_cmd(rd, ctx, &key, false);
	if (err) {
		return err;
	}
	if (vlen > rd->cfg.vmax) {
		return kv_status(ctx, KV_SC_INVALID_VAL_SIZE);
	}
	if ((opt & only_update && opt & only_add) || pl->bad || pl->nbytes < vlen) {
		return ramdisk_invalid_field(ctx);
	}
	/* the value is copied before taking the lock; the compress option is a hint */
	entry = malloc(sizeof(*entry) + vlen);
	if (!entry) {
		xnvme_cpl_set_errno(ctx, ENOMEM);
		return -ENOMEM;
	}
	entry->vlen = vlen;
	entry->klen = key.len;
	memcpy(entry->key, key.bytes, sizeof(entry->key));
	xnvme_ramdisk_payload_gather(pl, entry->val, vlen);

	pthread_mutex_lock(&kv->lock);
	link = kv_find(kv, &key);
	old = *link;
	if (old && (opt & only_add)) {
		sc = KV_SC_KEY_EXISTS;
	} else if (!old && (opt & only_update)) {
		sc = KV_SC_KEY_NOT_EXISTS;
	} else if ((!old && kv->nkeys >= rd->cfg.nkeys) ||
		   kv->nuse - (old ? old->klen + old->vlen : 0) + key.len + vlen > rd->nbytes) {
		sc = KV_SC_CAPACITY_EXCEEDED;
	} else {
		entry->next = old ? old->next : NULL;
		*link = entry;
		kv->nuse += (uint64_t)key.len + vlen;
		if (old) {
			kv->nuse -= (uint64_t)old->klen + old->vlen;
		} else {
			kv->nkeys++;
		}
		entry = old;
	}
	pthread_mutex_unlock(&kv->lock);

	free(entry);
	return sc ? kv_status(ctx, sc) : 0;
}

/* A value larger than the buffer is cut to it; completion dword 0 tells the full size */
static int
kv_retrieve(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_payload *pl)
{
	struct ramdisk_kv *kv = rd->kv;
	uint32_t nbytes = ctx->cmd.kvs.cdw10;
	struct kv_entry *entry;
	struct kv_key key;
	int err;

	err = key_from_cmd(rd, ctx, &key, false);
	if (err) {
		return err;
	}
	if (pl->bad || pl->nbytes < nbytes) {
		return ramdisk_invalid_field(ctx);
	}
	pthread_mutex_lock(&kv->lock);
	entry = *kv_find(kv, &key);
	if (entry) {
		xnvme_ramdisk_payload_scatter(pl, entry->val,
					      entry->vlen < nbytes ? entry->vlen : nbytes);
		ctx->cpl.cdw0 = entry->vlen;
	}
	pthread_mutex_unlock(&kv->lock);

	return entry ? 0 : kv_status(ctx, KV_SC_KEY_NOT_EXISTS);
}

/* Delete, and Exist (remove == false) */
static int
kv_lookup(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, bool remove)
{
	struct ramdisk_kv *kv = rd->kv;
	struct kv_entry *entry, **link;
	struct kv_key key;
	int err;

	err = key_from_cmd(rd, ctx, &key, false);
	if (err) {
		return err;
	}
	pthread_mutex_lock(&kv->lock);
	link = kv_find(kv, &key);
	entry = *link;
	if (entry && remove) {
		*link = entry->next;
		kv->nkeys--;
		kv->nuse -= (uint64_t)entry->klen + entry->vlen;
	}
	pthread_mutex_unlock(&kv->lock);

	if (!entry) {
		return kv_status(ctx, KV_SC_KEY_NOT_EXISTS);
	}
	if (remove) {
		free(entry);
	}
	return 0;
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct kv_entry *ea = *(struct kv_entry *const *)a;
	const struct kv_entry *eb = *(struct kv_entry *const *)b;

	return key_cmp(ea->key, ea->klen, eb->key, eb->klen);
}

/*
 * The keys from the given one (or the next one after it) on, in key order, as many as fit:
 * a 4-byte count, then per key a 2-byte length and the key, padded to 4 bytes
 */
static int
kv_list(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_payload *pl)
{
	struct ramdisk_kv *kv = rd->kv;
	uint32_t nbytes = ctx->cmd.kvs.cdw10;
	struct kv_entry **sorted = NULL;
	uint32_t count = 0;
	size_t n = 0, off = LIST_HDR_NBYTES;
	struct kv_key key;
	uint8_t *out;
	int err;

	err = key_from_cmd(rd, ctx, &key, true);
	if (err) {
		return err;
	}
	if (nbytes < LIST_HDR_NBYTES || pl->bad || pl->nbytes < nbytes) {
		return ramdisk_invalid_field(ctx);
	}
	out = calloc(1, nbytes);
	pthread_mutex_lock(&kv->lock);
	if (out && kv->nkeys) {
		sorted = malloc(kv->nkeys * sizeof(*sorted));
	}
	if (!out || (kv->nkeys && !sorted)) {
		pthread_mutex_unlock(&kv->lock);
		free(out);
		xnvme_cpl_set_errno(ctx, ENOMEM);
		return -ENOMEM;
	}
	for (size_t b = 0; b < kv->nbuckets; ++b) {
		for (struct kv_entry *e = kv->buckets[b]; e; e = e->next) {
			if (key_cmp(e->key, e->klen, key.bytes, key.len) >= 0) {
				sorted[n++] = e;
			}
		}
	}
	if (n) {
		qsort(sorted, n, sizeof(*sorted), entry_cmp);
	}
	for (size_t i = 0; i < n; ++i) {
		size_t len = (2 + (size_t)sorted[i]->klen + 3) & ~(size_t)3;
		uint16_t klen = sorted[i]->klen;

		if (off + len > nbytes) {
			break;
		}
		memcpy(out + off, &klen, sizeof(klen));
		memcpy(out + off + 2, sorted[i]->key, klen);
		off += len;
		count++;
	}
	pthread_mutex_unlock(&kv->lock);

	memcpy(out, &count, sizeof(count));
	xnvme_ramdisk_payload_scatter(pl, out, nbytes);
	ctx->cpl.cdw0 = count;
	free(sorted);
	free(out);
	return 0;
}

static int
kv_cmd_io(struct ramdisk *rd, struct xnvme_cmd_ctx *ctx, const struct ramdisk_io *io)
{
	int err = xnvme_ramdisk_check_nsid(ctx, ctx->cmd.common.opcode == XNVME_SPEC_NVM_OPC_FLUSH);

	if (err) {
		return err;
	}
	switch (ctx->cmd.common.opcode) {
	case XNVME_SPEC_KV_OPC_STORE:
		return kv_store(rd, ctx, &io->data);
	case XNVME_SPEC_KV_OPC_RETRIEVE:
		return kv_retrieve(rd, ctx, &io->data);
	case XNVME_SPEC_KV_OPC_DELETE:
		return kv_lookup(rd, ctx, true);
	case XNVME_SPEC_KV_OPC_EXIST:
		return kv_lookup(rd, ctx, false);
	case XNVME_SPEC_KV_OPC_LIST:
		return kv_list(rd, ctx, &io->data);
	case XNVME_SPEC_NVM_OPC_FLUSH:
		return 0;
	default:
		return ramdisk_invalid_opcode(ctx);
	}
}

/* Sizes in bytes; one KV format (nkvf = 1: the core's probe wants it non-zero) */
static void
kv_idfy_ns_css(const struct ramdisk *rd, void *buf)
{
	struct xnvme_spec_kvs_idfy_ns *ns = buf;
	struct ramdisk_kv *kv = rd->kv;

	memset(ns, 0, sizeof(*ns));
	ns->nsze = rd->nbytes;
	pthread_mutex_lock(&kv->lock);
	ns->nuse = kv->nuse;
	pthread_mutex_unlock(&kv->lock);
	ns->nkvf = 1;
	ns->novg = 1;
	memcpy(ns->nguid, rd->nguid, sizeof(ns->nguid));
	ns->eui64 = rd->eui64;
	ns->kvf[0].kml = rd->cfg.kmax;
	ns->kvf[0].vml = rd->cfg.vmax;
	ns->kvf[0].mnk = rd->cfg.nkeys;
}

static void
kv_idfy_ctrlr_css(const struct ramdisk *rd, void *buf)
{
	(void)rd;
	memset(buf, 0, 4096);
}

static void
kv_effects(const struct ramdisk *rd, uint32_t *iocs)
{
	(void)rd;
	iocs[XNVME_SPEC_NVM_OPC_FLUSH] = RAMDISK_EFFECT_CSUPP;
	iocs[XNVME_SPEC_KV_OPC_STORE] = RAMDISK_EFFECT_CSUPP | RAMDISK_EFFECT_LBCC;
	iocs[XNVME_SPEC_KV_OPC_RETRIEVE] = RAMDISK_EFFECT_CSUPP;
	iocs[XNVME_SPEC_KV_OPC_DELETE] = RAMDISK_EFFECT_CSUPP | RAMDISK_EFFECT_LBCC;
	iocs[XNVME_SPEC_KV_OPC_EXIST] = RAMDISK_EFFECT_CSUPP;
	iocs[XNVME_SPEC_KV_OPC_LIST] = RAMDISK_EFFECT_CSUPP;
}

static void
kv_fini(struct ramdisk *rd)
{
	struct ramdisk_kv *kv = rd->kv;

	if (!kv) {
		return;
	}
	for (size_t b = 0; kv->buckets && b < kv->nbuckets; ++b) {
		struct kv_entry *e = kv->buckets[b];

		while (e) {
			struct kv_entry *next = e->next;

			free(e);
			e = next;
		}
	}
	free(kv->buckets);
	pthread_mutex_destroy(&kv->lock);
	free(kv);
	rd->kv = NULL;
}

static int
kv_init(struct ramdisk *rd, struct xnvme_dev *dev)
{
	struct ramdisk_kv *kv;

	kv = calloc(1, sizeof(*kv));
	if (!kv) {
		return xnvme_dev_set_errmsg(dev, -ENOMEM, "cannot allocate key-value state");
	}
	pthread_mutex_init(&kv->lock, NULL);
	rd->kv = kv;

	/* about one key per bucket when full */
	kv->nbuckets = 1;
	while (kv->nbuckets < rd->cfg.nkeys) {
		kv->nbuckets <<= 1;
	}
	kv->buckets = calloc(kv->nbuckets, sizeof(*kv->buckets));
	if (!kv->buckets) {
		return xnvme_dev_set_errmsg(dev, -ENOMEM, "cannot allocate %zu hash buckets",
					    kv->nbuckets);
	}
	return 0;
}

const struct ramdisk_ns_ops xnvme_ramdisk_ns_kv = {
	.csi = XNVME_SPEC_CSI_KV,
	.init = kv_init,
	.fini = kv_fini,
	.cmd_io = kv_cmd_io,
	.idfy_ns_css = kv_idfy_ns_css,
	.idfy_ctrlr_css = kv_idfy_ctrlr_css,
	.effects = kv_effects,
};
