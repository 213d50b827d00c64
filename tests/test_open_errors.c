// SPDX-License-Identifier: BSD-3-Clause
/*
 * The error of an open that no backend accepts is the one of the backend owning the URI's form,
 * every backend x URI form x explicit mechanism:
 *  - a path (missing, not a directory, no permission, a directory): linux, ENOENT / ENOTDIR /
 *    EACCES / EINVAL, naming the path
 *  - a size the ramdisk does not take: ramdisk, EINVAL, with the accepted form <N>GB
 *  - a PCI address with no function there: vfio, ENODEV, why
 *  - a TCP address nobody listens on: tcp, ECONNREFUSED (rdma, which takes the same form, is
 *    asked after tcp; its error depends on the host's RDMA devices)
 * With a mechanism the owner has, the owner's error; with one it lacks, ENOSYS naming the owner
 * and the mechanism, unless the other backend of the form has it (rdma's mechanisms on a TCP
 * address: rdma's own error); never a backend that does not take the URI's form (the ramdisk,
 * vfio and tcp lack io_uring, but a missing path is ENOENT). A backend named in the options answers for
 * every URI: one whose form the URI is not says what it takes (ENXIO); one not built, ENOSYS.
 * The backends and their mechanism names come from the registry (lib/xnvme_registry.h: links
 * the static library), which also says who owns each URI below (the backends' own uri_claim);
 * every built backend owns one of them, so a new backend gets its row here.
 * Exit: 0 pass, 1 fail.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "xnvme_registry.h"
#include "xnvme_test.h"

#define NKINDS 4
#define NNAMES 48

static const char *const kinds[NKINDS] = {"mem", "admin", "sync", "async"};

/* Mechanism names of no enabled backend here: the other OS's, and names of nothing */
static const char *const foreign_names[] = {"iocp", "iocp_th", "io_ring", "file", "no-such", NULL};

struct form {
	const char *what;
	char uri[256];
	const char *owner; ///< the backend owning the form
	/**
	 * Another backend taking the same form (rdma takes tcp's addresses), NULL for none: tried
	 * after the owner, so its own error, which depends on the host (an RDMA device or none),
	 * is the reason only where the owner lacks a mechanism it has, or where it is named
	 */
	const char *coowner;
	int err;          ///< the owner's errno for this URI
	const char *says; ///< a part of the owner's reason
	bool names_uri;   ///< the reason quotes the URI
	bool as_nobody;   ///< checked by a process without root's privileges
};

/* Every name of every kind: [kind][i], NULL-terminated */
static const char *all_names[NKINDS][NNAMES];

static const char **
kind_slot(struct xnvme_opts *opts, int kind)
{
	const char **slots[NKINDS] = {&opts->mem, &opts->admin, &opts->sync, &opts->async};

	return slots[kind];
}

static bool
listed(const char *const *list, const char *name)
{
	for (; *list; ++list) {
		if (!strcmp(*list, name)) {
			return true;
		}
	}
	return false;
}

static const struct xnvme_be *
be_find(const char *name)
{
	for (int i = 0; i < xnvme_be_registry_len; ++i) {
		if (!strcmp(xnvme_be_registry[i]->name, name)) {
			return xnvme_be_registry[i];
		}
	}
	return NULL;
}

/* The registry's mechanism list of `kind` (0: mem .. 3: async) of a backend */
static const void *const *
mech_list(const struct xnvme_be *be, int kind)
{
	return xnvme_be_mech_list(be, (enum xnvme_be_kind)(XNVME_BE_KIND_MEM + kind));
}

/* Whether backend `be` has a `kind` mechanism `name` */
static bool
be_has(const char *be, int kind, const char *name)
{
	const struct xnvme_be *b = be_find(be);
	const void *const *list = b ? mech_list(b, kind) : NULL;

	CHECKF(b != NULL, "no backend %s in the registry", be);
	for (; list && *list; ++list) {
		if (!strcmp(*(const char *const *)*list, name)) {
			return true;
		}
	}
	return false;
}

/* Adds the names of every enabled backend's mechanisms to all_names */
static void
collect_names(void)
{
	int n[NKINDS] = {0};

	for (int k = 0; k < NKINDS; ++k) {
		for (int i = 0; foreign_names[i]; ++i) {
			all_names[k][n[k]++] = foreign_names[i];
		}
	}
	for (int b = 0; b < xnvme_be_registry_len; ++b) {
		const struct xnvme_be *be = xnvme_be_registry[b];

		if (!be->enabled) {
			continue;
		}
		for (int k = 0; k < NKINDS; ++k) {
			for (const void *const *m = mech_list(be, k); m && *m; ++m) {
				const char *name = *(const char *const *)*m;

				CHECKF(n[k] + 1 < NNAMES, "more than %d %s mechanisms", NNAMES - 1,
				       kinds[k]);
				if (listed(all_names[k], name) || n[k] + 1 >= NNAMES) {
					continue;
				}
				all_names[k][n[k]++] = name;
			}
		}
	}
}

/*
 * Whether the registry makes backend `be` an owner of `uri`: no backend claims it more strongly
 * (struct xnvme_be_dev's uri_claim)
 */
static bool
owner_of(const struct xnvme_be *be, const char *uri)
{
	int max = XNVME_BE_URI_NONE, claim;

	if (!be->dev) {
		return false;
	}
	for (int i = 0; i < xnvme_be_registry_len; ++i) {
		const struct xnvme_be *other = xnvme_be_registry[i];
		int c = other->dev ? (int)other->dev->uri_claim(uri) : XNVME_BE_URI_NONE;

		max = c > max ? c : max;
	}
	claim = (int)be->dev->uri_claim(uri);
	return claim != XNVME_BE_URI_NONE && claim == max;
}

static bool
starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * One open that must fail with errno `err` (0: any) and a reason starting "<be>: " containing
 * `says`
 */
static void
expect(const struct form *f, struct xnvme_opts *opts, const char *mech, int err, const char *be,
       const char *says, const char *says2)
{
	struct xnvme_dev *dev;
	char who[320], prefix[40];
	const char *why;

	snprintf(who, sizeof(who), "%s '%s' be=%s", f->what, f->uri, opts->be ? opts->be : "-");
	snprintf(prefix, sizeof(prefix), "%s: ", be);
	errno = 0;
	dev = xnvme_dev_open(f->uri, opts);
	why = xnvme_last_error();
	CHECK_AT(who, mech, dev == NULL, "opened");
	CHECK_AT(who, mech, err ? errno == err : errno != 0, "errno %d (%s), want %d (%s): %s",
		 errno, strerror(errno), err, strerror(err), why);
	CHECK_AT(who, mech, starts_with(why, prefix), "the reason is not %s's: %s", be, why);
	CHECK_AT(who, mech, !says || strstr(why, says), "the reason lacks '%s': %s", says, why);
	CHECK_AT(who, mech, !says2 || strstr(why, says2), "the reason lacks '%s': %s", says2, why);
	xnvme_dev_close(dev);
}

/* Every explicit mechanism on a URI of form `f`, no backend named */
static void
check_form(const struct form *f)
{
	struct xnvme_opts opts = xnvme_opts_default();
	char missing[96];

	/* nothing named: the owner's own error */
	expect(f, &opts, "(defaults)", f->err, f->owner, f->says, f->names_uri ? f->uri : NULL);

	for (int k = 0; k < NKINDS; ++k) {
		for (int i = 0; all_names[k][i]; ++i) {
			const char *name = all_names[k][i];
			char mech[64];

			snprintf(mech, sizeof(mech), "%s=%s", kinds[k], name);
			opts = xnvme_opts_default();
			*kind_slot(&opts, k) = name;
			if (be_has(f->owner, k, name)) {
				expect(f, &opts, mech, f->err, f->owner, f->says,
				       f->names_uri ? f->uri : NULL);
			} else if (f->coowner && be_has(f->coowner, k, name)) {
				expect(f, &opts, mech, 0, f->coowner, NULL, NULL);
			} else {
				snprintf(missing, sizeof(missing), "has no %s mechanism named '%s'",
					 kinds[k], name);
				expect(f, &opts, mech, ENOSYS, f->owner, missing, NULL);
			}
		}
	}
}

/* A backend named in the options answers for every URI */
static void
check_named(const struct form *f, const struct xnvme_be_attr_list *bes)
{
	for (int b = 0; b < bes->count; ++b) {
		struct xnvme_opts opts = xnvme_opts_default();
		const char *be = bes->item[b].name;

		opts.be = be;
		if (!bes->item[b].enabled) {
			expect(f, &opts, "(defaults)", ENOSYS, be, "not built into this library",
			       NULL);
		} else if (!strcmp(be, f->owner)) {
			expect(f, &opts, "(defaults)", f->err, be, f->says,
			       f->names_uri ? f->uri : NULL);
		} else if (f->coowner && !strcmp(be, f->coowner)) {
			expect(f, &opts, "(defaults)", 0, be, NULL, NULL);
		} else if (!strcmp(be, "linux")) {
			/* the backend of paths takes every URI as one */
			expect(f, &opts, "(defaults)", ENOENT, be, "does not exist", f->uri);
		} else {
			char form_of[64];

			snprintf(form_of, sizeof(form_of), "is not a %s URI: it takes ", be);
			expect(f, &opts, "(defaults)", ENXIO, be, form_of, f->uri);
		}
		/* and a mechanism it lacks is the reason, whatever the URI */
		opts.async = "no-such";
		expect(f, &opts, "async=no-such", ENOSYS, be,
		       bes->item[b].enabled ? "has no async mechanism named 'no-such'"
					    : "not built into this library",
		       NULL);
	}
}

/* Runs the checks of `f` as user nobody in a child (root would not see EACCES) */
static void
check_form_as_nobody(const struct form *f, const struct xnvme_be_attr_list *bes)
{
	pid_t pid = fork();
	int status = 0;

	CHECK(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) || setuid(65534))) {
			fprintf(stderr, "FAIL: cannot become nobody: %s\n", strerror(errno));
			_exit(1);
		}
		check_form(f);
		check_named(f, bes);
		_exit(xnvme_test_nfail ? 1 : 0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: the child failed", f->what);
}

int
main(void)
{
	struct xnvme_be_attr_list *bes = NULL;
	struct sockaddr_in addr = {0};
	socklen_t alen = sizeof(addr);
	char dir[] = "/tmp/xnvme-open-errors-XXXXXX";
	char file[128], noperm[128];
	int fd, sock;

	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ(chmod(dir, 0755), 0);
	snprintf(file, sizeof(file), "%s/data.img", dir);
	snprintf(noperm, sizeof(noperm), "%s/noperm.img", dir);
	fd = open(file, O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0 && ftruncate(fd, 1 << 20) == 0);
	close(fd);
	fd = open(noperm, O_CREAT | O_RDWR, 0000);
	CHECK(fd >= 0 && ftruncate(fd, 1 << 20) == 0);
	close(fd);

	/* a TCP port bound but not listening: connecting to it is refused */
	sock = socket(AF_INET, SOCK_STREAM, 0);
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(sock >= 0 && !bind(sock, (struct sockaddr *)&addr, sizeof(addr)));
	CHECK(!getsockname(sock, (struct sockaddr *)&addr, &alen));

	CHECK_EQ(xnvme_be_attr_list_bundled(&bes), 0);
	if (!bes) {
		return xnvme_test_result("test_open_errors");
	}
	collect_names();
	{
		struct form forms[] = {
			{"missing path", "", "linux", NULL, ENOENT, "does not exist", true, false},
			{"path through a file", "", "linux", NULL, ENOTDIR, "Not a directory", true,
			 false},
			{"directory", "", "linux", NULL, EINVAL, "is a directory", true, false},
			{"path without permission", "", "linux", NULL, EACCES, "permission denied",
			 true, true},
			{"size", "512MB", "ramdisk", NULL, EINVAL, "<N>GB", true, false},
			{"size with options", "2GB?csi=nosuch", "ramdisk", NULL, EINVAL, "'nosuch'",
			 false, false},
			{"PCI address", "0000:ff:1f.7", "vfio", NULL, ENODEV, "no PCI function",
			 true, false},
			{"TCP address", "", "tcp", "rdma", ECONNREFUSED, "cannot connect", false,
			 false},
		};

		snprintf(forms[0].uri, sizeof(forms[0].uri), "%s/no-such-dir/dev.img", dir);
		snprintf(forms[1].uri, sizeof(forms[1].uri), "%s/x", file);
		snprintf(forms[2].uri, sizeof(forms[2].uri), "%s", dir);
		snprintf(forms[3].uri, sizeof(forms[3].uri), "%s", noperm);
		snprintf(forms[7].uri, sizeof(forms[7].uri), "127.0.0.1:%u",
			 (unsigned)ntohs(addr.sin_port));

		/* each row's owner is the registry's, and every built backend owns a row */
		for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); ++i) {
			const struct xnvme_be *be = be_find(forms[i].owner);

			CHECKF(be && owner_of(be, forms[i].uri),
			       "%s '%s': %s does not claim it most strongly", forms[i].what,
			       forms[i].uri, forms[i].owner);
			be = forms[i].coowner ? be_find(forms[i].coowner) : NULL;
			CHECKF(!forms[i].coowner ||
				       (be && (!be->enabled || owner_of(be, forms[i].uri))),
			       "%s '%s': co-owner %s does not claim it as strongly", forms[i].what,
			       forms[i].uri, forms[i].coowner);
		}
		for (int b = 0; b < xnvme_be_registry_len; ++b) {
			const struct xnvme_be *be = xnvme_be_registry[b];
			bool owns_one = false;

			for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]) && !owns_one; ++i) {
				owns_one = owner_of(be, forms[i].uri);
			}
			CHECKF(owns_one || !be->enabled,
			       "backend %s owns none of the URIs here: give its form a row",
			       be->name);
		}

		for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); ++i) {
			if (forms[i].as_nobody) {
				check_form_as_nobody(&forms[i], bes);
				continue;
			}
			check_form(&forms[i]);
			check_named(&forms[i], bes);
		}
	}

	/* a URI of no backend's form and no path: every form accepted, in one reason */
	{
		struct xnvme_opts opts = xnvme_opts_default();

		opts.be = "ramdisk";
		CHECK(!xnvme_dev_open("", &opts));
		CHECK(strstr(xnvme_last_error(), "<N>GB") != NULL);
	}

	xnvme_buf_virt_free(bes);
	close(sock);
	unlink(file);
	unlink(noperm);
	rmdir(dir);
	return xnvme_test_result("test_open_errors");
}
