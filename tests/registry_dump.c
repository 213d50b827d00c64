// SPDX-License-Identifier: BSD-3-Clause
/*
 * The backend registry of the library as JSON, from the public API only, for the checks that
 * hold the documentation to the code (tests/check_doc_tables.py):
 *
 *   {"os": "linux" or "windows",
 *    "backends": [{"name": "linux", "enabled": true,
 *                  "mem": [...], "admin": [...], "sync": [...], "async": [...]}, ...],
 *    "defaults": {"<uri>": {"be": ..., "mem": ..., "admin": ..., "sync": ..., "async": ...}}}
 *
 * Backends come from xnvme_be_attr_list_bundled(); the mechanism names of an enabled backend
 * from the reason of an open naming it with a mechanism it does not have ("... (valid: a, b)");
 * the defaults from opening each URI given on the command line without options.
 *   usage: registry_dump [<uri> ...]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxnvme.h>

static const char *const kinds[] = {"mem", "admin", "sync", "async"};

static const char **
kind_slot(struct xnvme_opts *opts, int kind)
{
	const char **slots[] = {&opts->mem, &opts->admin, &opts->sync, &opts->async};

	return slots[kind];
}

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

/* Prints the names of `kind` of backend `be` as a JSON list; 0, or -1 when not found */
static int
names_pr(const char *be, int kind)
{
	struct xnvme_opts opts = xnvme_opts_default();
	const char *valid, *end;
	char list[512], *save = NULL;
	int n = 0;

	opts.be = be;
	*kind_slot(&opts, kind) = "\x01";
	if (xnvme_dev_open("1GB", &opts)) {
		return -1;
	}
	valid = strstr(xnvme_last_error(), "(valid: ");
	end = valid ? strrchr(valid, ')') : NULL;
	if (!valid || !end) {
		fprintf(stderr, "registry_dump: %s %s: %s\n", be, kinds[kind], xnvme_last_error());
		return -1;
	}
	snprintf(list, sizeof(list), "%.*s", (int)(end - valid - 8), valid + 8);
	printf("[");
	for (char *s = strtok_r(list, ", ", &save); s; s = strtok_r(NULL, ", ", &save)) {
		printf("%s\"%s\"", n++ ? ", " : "", s);
	}
	printf("]");
	return 0;
}

int
main(int argc, char **argv)
{
	struct xnvme_be_attr_list *list = NULL;
	int err = 0;

	if (xnvme_be_attr_list_bundled(&list)) {
		perror("xnvme_be_attr_list_bundled()");
		return 1;
	}
#ifdef _WIN32
	printf("{\"os\": \"windows\",\n \"backends\": [");
#else
	printf("{\"os\": \"linux\",\n \"backends\": [");
#endif
	for (int i = 0; i < list->count; ++i) {
		const struct xnvme_be_attr *be = &list->item[i];

		printf("%s\n  {\"name\": \"%s\", \"enabled\": %s", i ? "," : "", be->name,
		       be->enabled ? "true" : "false");
		for (int k = 0; be->enabled && k < 4; ++k) {
			printf(", \"%s\": ", kinds[k]);
			if (names_pr(be->name, k)) {
				printf("null");
				err = 1;
			}
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
	xnvme_buf_virt_free(list);
	return err;
}
