// SPDX-License-Identifier: BSD-3-Clause
/*
 * xnvme-driver serve: the primary of the vfio driver's multi-process mode. Opens each PCI
 * function through VFIO, brings its controller up and serves secondaries (processes that open
 * the address with opts.shm_id) until SIGTERM or SIGINT; then detaches them, shuts the
 * controllers down and exits 0. Runs in the foreground; one line per event on stdout.
 * Started by the xnvme-driver script (installed under libexecdir), docs/vfio.md.
 *   xnvme-driver serve BDF... --shm-id N [--allow-user USER]... [--allow-group GROUP]...
 * Exit: 0 stopped by a signal, 1 a controller could not be served, 2 usage.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "mp_primary.h"
#include "vfio.h"
#include "vfio_pci.h"

#define MAX_IDS 64

static int
usage(const char *why)
{
	if (why) {
		fprintf(stderr, "xnvme-driver serve: %s\n", why);
	}
	fprintf(stderr, "usage: xnvme-driver serve BDF... --shm-id N [--allow-user USER]... "
			"[--allow-group GROUP]...\n"
			"  --shm-id N         multi-process group id, hexadecimal (0x optional), "
			"not 0; also --shm_id\n"
			"  --allow-user USER  admit this user too (name or uid); this process's "
			"user always is\n"
			"  --allow-group GRP  admit the members of this group (name or gid)\n");
	return 2;
}

static int
parse_hex32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
		s += 2;
	}
	if (!*s || *s == '-' || *s == '+') {
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, 16);
	if (errno || *end || v > UINT32_MAX) {
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

static int
parse_id(const char *s, bool user, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s && !*end && !errno && v <= UINT32_MAX) {
		*out = (uint32_t)v;
		return 0;
	}
	if (user) {
		struct passwd *pw = getpwnam(s);

		if (pw) {
			*out = (uint32_t)pw->pw_uid;
			return 0;
		}
	} else {
		struct group *gr = getgrnam(s);

		if (gr) {
			*out = (uint32_t)gr->gr_gid;
			return 0;
		}
	}
	return -ENOENT;
}

/* The value of option argv[*i] ("--name value" or "--name=value"), NULL when there is none */
static const char *
opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n)) {
		return NULL;
	}
	if (argv[*i][n] == '=') {
		return argv[*i] + n + 1;
	}
	if (argv[*i][n] == '\0' && *i + 1 < argc) {
		return argv[++*i];
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	struct vfio_primary_opts opts = {.log = stdout};
	uint32_t uids[MAX_IDS], gids[MAX_IDS];
	char bdfs[MAX_IDS][16], errmsg[512];
	struct vfio_primary *prim = NULL;
	struct vfio_ctrl_opts copts = {0};
	int nbdf = 0, sfd, err, rc = 1;
	bool have_id = false;
	sigset_t stop;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; ++i) {
		const char *v;
		char msg[160];

		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(NULL);
			return 0;
		}
		if ((v = opt_value(argc, argv, &i, "--shm-id")) ||
		    (v = opt_value(argc, argv, &i, "--shm_id"))) {
			if (parse_hex32(v, &opts.shm_id) || !opts.shm_id) {
				snprintf(msg, sizeof(msg),
					 "--shm-id \"%s\": a hexadecimal number from 0x1 to "
					 "0xffffffff",
					 v);
				return usage(msg);
			}
			have_id = true;
		} else if ((v = opt_value(argc, argv, &i, "--allow-user"))) {
			if (opts.nuids == MAX_IDS || parse_id(v, true, &uids[opts.nuids])) {
				snprintf(msg, sizeof(msg), "--allow-user \"%s\": no such user", v);
				return usage(msg);
			}
			opts.nuids++;
		} else if ((v = opt_value(argc, argv, &i, "--allow-group"))) {
			if (opts.ngids == MAX_IDS || parse_id(v, false, &gids[opts.ngids])) {
				snprintf(msg, sizeof(msg), "--allow-group \"%s\": no such group",
					 v);
				return usage(msg);
			}
			opts.ngids++;
		} else if (argv[i][0] == '-') {
			snprintf(msg, sizeof(msg),
				 "unknown option, or one without its value: \"%s\"", argv[i]);
			return usage(msg);
		} else if (nbdf == MAX_IDS ||
			   vfio_uri_parse(argv[i], bdfs[nbdf], sizeof(bdfs[0]))) {
			snprintf(msg, sizeof(msg), "\"%s\" is not a PCI address (DDDD:BB:DD.F)",
				 argv[i]);
			return usage(msg);
		} else {
			nbdf++;
		}
	}
	if (!nbdf || !have_id) {
		return usage(!nbdf ? "no PCI address given" : "--shm-id is required");
	}
	opts.uids = uids;
	opts.gids = gids;

	/* the stop signals arrive on a descriptor the loop polls */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &stop, SFD_CLOEXEC);
	err = sfd < 0 ? -errno : vfio_primary_create(&prim, &opts);
	if (err) {
		fprintf(stderr, "xnvme-driver serve: %s\n", strerror(-err));
		return 1;
	}
	for (int i = 0; i < nbdf; ++i) {
		struct vfio_pci *pci;

		errmsg[0] = '\0';
		err = vfio_pci_open(bdfs[i], &pci, errmsg, sizeof(errmsg));
		if (!err) {
			err = vfio_primary_add(prim, bdfs[i], vfio_pci_bus(pci), &copts, errmsg,
					       sizeof(errmsg));
		}
		if (err) {
			fprintf(stderr, "xnvme-driver serve: %s: %s\n", bdfs[i],
				errmsg[0] ? errmsg : strerror(-err));
			goto out;
		}
	}
	printf("ready: %d controller(s), shm id %x\n", nbdf, opts.shm_id);
	err = vfio_primary_run(prim, sfd);
	if (err) {
		fprintf(stderr, "xnvme-driver serve: %s\n", strerror(-err));
		goto out;
	}
	printf("stopping\n");
	rc = 0;
out:
	vfio_primary_destroy(prim);
	close(sfd);
	return rc;
}
