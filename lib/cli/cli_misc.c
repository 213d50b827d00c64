// SPDX-License-Identifier: BSD-3-Clause
/**
 * Helpers of libxnvme_cli.h around the parser: device enumeration lists, timers, the
 * pinf/perr message lines and the argument dump. The enumeration printers live with the
 * other printers in lib/pp/cli_enum_pp.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <libxnvme.h>
#include "cli_parse.h"
#include "pp/pp.h"

/* enumeration lists are plain 512-byte aligned memory (freed with xnvme_buf_virt_free) */
#define ENUMERATION_ALIGN 512

int
xnvme_cli_enumeration_alloc(struct xnvme_cli_enumeration **list, uint32_t capacity)
{
	size_t nbytes;

	if (!list) {
		return -EINVAL;
	}
	*list = NULL;

	/* cannot overflow on LP64: 2^32 * 704 < 2^64 */
	nbytes = sizeof(**list) + (size_t)capacity * sizeof((*list)->entries[0]);
	*list = xnvme_buf_virt_alloc(ENUMERATION_ALIGN, nbytes);
	if (!*list) {
		return errno ? -errno : -ENOMEM;
	}
	memset(*list, 0, nbytes);
	(*list)->capacity = capacity;
	(*list)->nentries = 0;

	return 0;
}

void
xnvme_cli_enumeration_free(struct xnvme_cli_enumeration *list)
{
	xnvme_buf_virt_free(list);
}

int
xnvme_cli_enumeration_append(struct xnvme_cli_enumeration *list, const struct xnvme_ident *entry)
{
	if (!list || !entry) {
		return -EINVAL;
	}
	if (!list->capacity) {
		return -ENOMEM;
	}
	memcpy(&list->entries[list->nentries], entry, sizeof(*entry));
	list->nentries += 1;
	list->capacity -= 1;

	return 0;
}

uint64_t
xnvme_cli_timer_start(struct xnvme_cli *cli)
{
	return cli ? xnvme_timer_start(&cli->timer) : 0;
}

uint64_t
xnvme_cli_timer_stop(struct xnvme_cli *cli)
{
	return cli ? xnvme_timer_stop(&cli->timer) : 0;
}

void
xnvme_cli_timer_bw_pr(struct xnvme_cli *cli, const char *prefix, size_t nbytes)
{
	if (!cli) {
		return;
	}
	xnvme_timer_bw_pr(&cli->timer, prefix ? prefix : "", nbytes);
}

__attribute__((format(printf, 1, 2))) void
xnvme_cli_pinf(const char *format, ...)
{
	va_list ap;

	fputs("# ", stdout);
	if (format) {
		va_start(ap, format);
		vfprintf(stdout, format, ap);
		va_end(ap);
	}
	fputc('\n', stdout);
	fflush(stdout);
}

void
xnvme_cli_perr(const char *msg, int err)
{
	int mag = err < 0 ? (err == INT_MIN ? INT_MAX : -err) : err;

	fprintf(stderr, "# ERR: '%s': {errno: %d, msg: '%s'}\n", msg ? msg : "", err,
		strerror(mag));
	fflush(stderr);
}

/* Every option's member, keyed by its long name (SYS_URI would repeat "uri") */
void
xnvme_cli_args_pr(struct xnvme_cli_args *args, int opts)
{
	if (!xnvme_pp_is_yaml(opts)) {
		xnvme_pp_nosys(stdout, opts);
		return;
	}
	if (!args) {
		xnvme_pp_null(stdout, 0, "xnvme_cli_args");
		return;
	}
	xnvme_pp_head(stdout, 0, "xnvme_cli_args");
	for (int opt = XNVME_CLI_OPT_NONE + 1; opt < XNVME_CLI_OPT_END; ++opt) {
		const struct xnvme_cli_opt_info *info = xnvme_cli_opt_info(opt);
		const char *key;
		const char *mbr;
		bool hex;

		if (!info || opt == XNVME_CLI_OPT_HELP) {
			continue;
		}
		key = opt == XNVME_CLI_OPT_SYS_URI ? "sys_uri" : info->attr.name;
		mbr = (const char *)args + info->offset;
		hex = info->attr.vtype == XNVME_CLI_OPT_VTYPE_HEX;

		switch (info->dest) {
		case XNVME_CLI_DEST_STR:
			xnvme_pp_str(stdout, 2, key, *(const char *const *)(const void *)mbr,
				     SIZE_MAX);
			break;
		case XNVME_CLI_DEST_BOOL:
			xnvme_pp_dec(stdout, 2, key, *(const bool *)(const void *)mbr);
			break;
		case XNVME_CLI_DEST_U8:
			(hex ? xnvme_pp_hex : xnvme_pp_dec)(stdout, 2, key, *(const uint8_t *)mbr);
			break;
		case XNVME_CLI_DEST_U32:
			(hex ? xnvme_pp_hex : xnvme_pp_dec)(stdout, 2, key,
							    *(const uint32_t *)(const void *)mbr);
			break;
		case XNVME_CLI_DEST_U64:
			(hex ? xnvme_pp_hex : xnvme_pp_dec)(stdout, 2, key,
							    *(const uint64_t *)(const void *)mbr);
			break;
		case XNVME_CLI_DEST_SIZE:
			xnvme_pp_dec(stdout, 2, key, *(const size_t *)(const void *)mbr);
			break;
		case XNVME_CLI_DEST_CSS:
			printf("  %s: {value: 0x%" PRIx32 ", given: %" PRIu32 "}\n", key,
			       args->css.value, args->css.given);
			break;
		case XNVME_CLI_DEST_NONE:
		case XNVME_CLI_DEST_TOOL: /* not members of args */
			break;
		}
	}
	fflush(stdout);
}
