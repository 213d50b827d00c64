// SPDX-License-Identifier: BSD-3-Clause
/*
 * The backend registry of the library as JSON, for the checks that hold the documentation and
 * the tools to the code (tests/check_doc_tables.py, tests/test_cli_conventions.py):
 *
 *   {"os": "linux" or "windows",
 *    "backends": [{"name": "linux", "enabled": true,
 *                  "mem": [...], "admin": [...], "sync": [...], "async": [...]}, ...],
 *    "defaults": {"<uri>": {"be": ..., "mem": ..., "admin": ..., "sync": ..., "async": ...}}}
 *
 * Backends and their mechanism names come from the registry itself (lib/xnvme_registry.h: links
 * the static library); the defaults from opening each URI given on the command line without
 * options.
 *   usage: registry_dump [<uri> ...]
 */
#include <stdio.h>
#include "xnvme_registry.h"

static const char *const kinds[] = {"mem", "admin", "sync", "async"};

/* Prints `s` as a JSON string (URIs may hold backslashes: \\.\PhysicalDrive0) */
static void
json_str_pr(const char *s)
{
	putchar('"');
	for (; *s; ++s) {
		if (*s == '"' || *s == '\\') {
			putchar('\\');
		}
		putchar(*s);
	}
	putchar('"');
}

/* Prints the names of a mechanism list of the registry as a JSON list */
static void
names_pr(const void *const *list)
{
	printf("[");
	for (size_t i = 0; list && list[i]; ++i) {
		printf("%s\"%s\"", i ? ", " : "", *(const char *const *)list[i]);
	}
	printf("]");
}

int
main(int argc, char **argv)
{
	int err = 0;

#ifdef _WIN32
	printf("{\"os\": \"windows\",\n \"backends\": [");
#else
	printf("{\"os\": \"linux\",\n \"backends\": [");
#endif
	for (int i = 0; i < xnvme_be_registry_len; ++i) {
		const struct xnvme_be *be = xnvme_be_registry[i];

		printf("%s\n  {\"name\": \"%s\", \"enabled\": %s", i ? "," : "", be->name,
		       be->enabled ? "true" : "false");
		for (int k = 0; be->enabled && k < 4; ++k) {
			printf(", \"%s\": ", kinds[k]);
			names_pr(xnvme_be_mech_list(be,
						    (enum xnvme_be_kind)(XNVME_BE_KIND_MEM + k)));
		}
		printf("}");
	}
	printf("],\n \"defaults\": {");
	for (int i = 1; i < argc; ++i) {
		struct xnvme_dev *dev = xnvme_dev_open(argv[i], NULL);
		const struct xnvme_opts *used;

		if (!dev) {
			fprintf(stderr, "registry_dump: %s: %s\n", argv[i], xnvme_last_error());
			err = 1;
			continue;
		}
		used = xnvme_dev_get_opts(dev);
		printf("%s\n  ", i > 1 ? "," : "");
		json_str_pr(argv[i]);
		printf(": {\"be\": \"%s\", \"mem\": \"%s\", \"admin\": \"%s\", \"sync\": \"%s\", "
		       "\"async\": \"%s\"}",
		       used->be, used->mem, used->admin, used->sync, used->async);
		xnvme_dev_close(dev);
	}
	printf("}}\n");
	return err;
}
