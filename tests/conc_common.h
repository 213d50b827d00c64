/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by tests/test_threads.c and tests/test_churn.c: the targets (the ramdisk "1GB" and a
 * regular file in a private temporary directory, or URIs given with --uri), the async
 * mechanisms of the build, which of them a target must offer, and whether the program runs
 * under valgrind (then the programs do less work). Checks: CHECK_AT of xnvme_test.h.
 */
#ifndef XNVME_CONC_COMMON_H
#define XNVME_CONC_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <libxnvme.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "xnvme_test.h"

#define CONC_MAX_TARGETS 8
#define CONC_FILE_NBYTES (64ULL << 20)

static bool conc_quiet; ///< no skip notes (e.g. while warming up)

/* The async mechanisms tried on every target (io_uring_cmd serves NVMe char devices only,
 * vfio PCI functions bound to vfio-pci) */
static const char *const conc_mechs[] = {"emu",      "thrpool", "nil",          "posix",
					 "io_uring", "libaio",  "io_uring_cmd", "vfio"};
#define CONC_NMECHS (sizeof(conc_mechs) / sizeof(conc_mechs[0]))

struct conc_target {
	const char *label; ///< "ramdisk", "file" or the URI given
	const char *uri;
	bool ramdisk;
	bool file; ///< a regular file this program created
};

static inline double
conc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* valgrind preloads its core into the client: then the programs shrink their work */
static inline bool
conc_under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload && strstr(preload, "vgpreload");
}

/*
 * Whether `t` must be openable with `mech`: the ramdisk offers emu, thrpool and nil; a file
 * additionally posix. io_uring and libaio depend on the build and the kernel, and URIs given
 * on the command line on what they are: those are skipped with a note when the open fails.
 */
static inline bool
conc_mech_required(const struct conc_target *t, const char *mech)
{
	if (!t->ramdisk && !t->file) {
		return false;
	}
	if (!strcmp(mech, "emu") || !strcmp(mech, "thrpool") || !strcmp(mech, "nil")) {
		return true;
	}
	return t->file && !strcmp(mech, "posix");
}

/*
 * Opens `t` with async mechanism `mech` (NULL: the default). A refusal of an optional
 * mechanism prints a skip note and returns NULL with *skipped set; any other failure is a
 * failed check.
 */
static inline struct xnvme_dev *
conc_open(const struct conc_target *t, const char *mech, bool *skipped)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct xnvme_dev *dev;

	opts.async = mech;
	if (t->ramdisk) {
		opts.be = "ramdisk";
	}
	*skipped = false;
	dev = xnvme_dev_open(t->uri, &opts);
	if (dev) {
		return dev;
	}
	if (mech && !conc_mech_required(t, mech)) {
		if (!conc_quiet) {
			printf("# skip %s/%s: %s\n", t->label, mech, strerror(errno));
		}
		*skipped = true;
		return NULL;
	}
	CHECK_AT(t->label, mech ? mech : "default", dev != NULL, "open('%s'): %s", t->uri,
		 strerror(errno));
	return NULL;
}

/* A private directory with one file of CONC_FILE_NBYTES in it: $TMPDIR (or /tmp)/xnvme-TAG-* */
struct conc_tmp {
	char dir[256];
	char file[300];
};

static inline int
conc_tmp_create(struct conc_tmp *tmp, const char *tag)
{
	const char *base = getenv("TMPDIR");
	int fd;

	snprintf(tmp->dir, sizeof(tmp->dir), "%s/xnvme-%s-XXXXXX", base && *base ? base : "/tmp",
		 tag);
	if (!mkdtemp(tmp->dir)) {
		perror("mkdtemp");
		return -1;
	}
	snprintf(tmp->file, sizeof(tmp->file), "%s/target.bin", tmp->dir);
	fd = open(tmp->file, O_CREAT | O_EXCL | O_RDWR, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)CONC_FILE_NBYTES)) {
		perror(tmp->file);
		if (fd >= 0) {
			close(fd);
		}
		return -1;
	}
	close(fd);
	return 0;
}

static inline void
conc_tmp_remove(struct conc_tmp *tmp)
{
	unlink(tmp->file);
	rmdir(tmp->dir);
}

/*
 * The targets: every --uri URI argument, or the ramdisk "1GB" and the file of `tmp`.
 * Returns the number of targets, -1 on a bad argument. Other arguments are left to the caller:
 * `known` lists the options that take a value ("--seconds", ...), NULL-terminated.
 */
static inline int
conc_targets(int argc, char **argv, const char *const *known, struct conc_target *targets,
	     const struct conc_tmp *tmp)
{
	int n = 0;

	for (int i = 1; i < argc; ++i) {
		bool ok = false;

		if (!strcmp(argv[i], "--uri") && i + 1 < argc && n < CONC_MAX_TARGETS) {
			++i;
			targets[n++] = (struct conc_target){.label = argv[i], .uri = argv[i]};
			continue;
		}
		for (int k = 0; known && known[k]; ++k) {
			ok |= !strcmp(argv[i], known[k]) && i + 1 < argc;
		}
		if (!ok) {
			return -1;
		}
		++i;
	}
	if (!n) {
		targets[n++] =
			(struct conc_target){.label = "ramdisk", .uri = "1GB", .ramdisk = true};
		targets[n++] =
			(struct conc_target){.label = "file", .uri = tmp->file, .file = true};
	}
	return n;
}

/* The value of option `name` (e.g. "--seconds"), or `def` */
static inline const char *
conc_opt(int argc, char **argv, const char *name, const char *def)
{
	for (int i = 1; i + 1 < argc; ++i) {
		if (!strcmp(argv[i], name)) {
			return argv[i + 1];
		}
	}
	return def;
}

#endif /* XNVME_CONC_COMMON_H */
