// SPDX-License-Identifier: BSD-3-Clause
/*
 * Registered files and buffers of the io_uring mechanisms on the host: opts.register_files
 * (the ring's fixed file), opts.register_buffers (the library's buffers fixed, others not,
 * re-allocation re-registers, a freed buffer leaves the ring's table at the next submission,
 * pinned memory returns), on the disk file target (O_DIRECT, else buffered).
 *   test_io_uring_bufs --ucmd-fixed /dev/ngXnY   (the QEMU guest: tests/guest/run_suite.sh)
 * runs the registered buffers through io_uring_cmd. Exit: 0 pass, 1 fail, 77 skip.
 */
#include "uring_common.h"

/* Writes `n` bytes of `wbuf` at LBA `slba` on `q`, reads them into `rbuf`; true when equal */
static bool
fixed_rt(struct akt *t, struct xnvme_queue *q, uint64_t slba, uint8_t *wbuf, uint8_t *rbuf,
	 size_t n)
{
	struct akt_rec r;
	uint32_t nlb0 = (uint32_t)(n / t->lba) - 1;

	if (akt_one(t, q, XNVME_SPEC_NVM_OPC_WRITE, slba, nlb0, wbuf, n, &r) || r.calls != 1 ||
	    r.status) {
		return false;
	}
	memset(rbuf, 0xC3, n);
	if (akt_one(t, q, XNVME_SPEC_NVM_OPC_READ, slba, nlb0, rbuf, n, &r) || r.calls != 1 ||
	    r.status) {
		return false;
	}
	return !memcmp(wbuf, rbuf, n);
}

/*
 * opts.register_buffers: the library's buffers go through the ring's fixed-buffer table,
 * others the ordinary way; a buffer freed and allocated again (same address, likely) is
 * registered afresh: a write from it through a stale registration would send the old pages
 */
static void
test_fixed_buffers_n(struct akt *t, size_t n)
{
	/* `n`: large enough for the allocator to map and unmap it on the host */
	uint8_t *a = xnvme_buf_alloc(t->dev, n), *b = xnvme_buf_alloc(t->dev, n), *c;
	uint8_t *plain = aligned_alloc(4096, n);
	struct xnvme_queue *q = NULL;
	uint64_t nfixed;
	bool ok;
	int err;

	ACHECK(t, a && b && plain, "alloc");
	err = xnvme_queue_init(t->dev, 8, 0, &q);
	ACHECK(t, !err && ring_of(q)->fixed_bufs, "register_buffers: init %d", err);
	if (err || !a || !b || !plain) {
		goto out;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);

	akt_fill(a, n, 1, 21);
	ok = fixed_rt(t, q, 3700, a, b, n);
	ACHECK(t, ok, "round trip through fixed buffers");
	ACHECK(t, ring_of(q)->nfixed == 2, "both commands fixed: %llu",
	       (unsigned long long)ring_of(q)->nfixed);

	nfixed = ring_of(q)->nfixed;
	akt_fill(plain, n, 2, 22);
	ok = fixed_rt(t, q, 3710, plain, b, n); /* the write's buffer is not the library's */
	ACHECK(t, ok, "round trip from a plain buffer");
	ACHECK(t, ring_of(q)->nfixed == nfixed + 1, "only the read fixed: %llu",
	       (unsigned long long)(ring_of(q)->nfixed - nfixed));

	/*
	 * New pages at the address of a buffer the ring registered: the allocator may reuse a
	 * freed chunk with its pages, so map, register, unmap and map again at the same address
	 * (the table as xnvme_mem_map/xnvme_mem_unmap keep it)
	 */
	c = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ACHECK(t, c != MAP_FAILED, "mmap");
	if (c != MAP_FAILED) {
		void *again;

		xnvme_bufreg_add(c, n);
		akt_fill(c, n, 3, 23);
		ok = fixed_rt(t, q, 3720, c, plain, n);
		ACHECK(t, ok, "round trip from a mapped buffer");
		xnvme_bufreg_del(c);
		munmap(c, n);
		again = mmap(c, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			     -1, 0);
		ACHECK(t, again == c, "mmap at the same address");
		if (again == c) {
			nfixed = ring_of(q)->nfixed;
			xnvme_bufreg_add(c, n);
			akt_fill(c, n, 4, 24);
			ok = fixed_rt(t, q, 3730, c, plain,
				      n); /* written from c, read back plainly */
			ACHECK(t, ok && ring_of(q)->nfixed == nfixed + 1,
			       "new pages at a registered address are registered afresh");
			xnvme_bufreg_del(c);
			munmap(c, n);
		}
	}
out:
	if (q) {
		xnvme_queue_term(q);
	}
	xnvme_buf_free(t->dev, a);
	xnvme_buf_free(t->dev, b);
	free(plain);
}

/* The process's pinned memory in kB (VmPin of /proc/self/status), -1 when not reported */
static long
vm_pin_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1) {
			break;
		}
	}
	if (f) {
		fclose(f);
	}
	return kb;
}

/* VmPin once it settles at or below `max_kb` (the kernel may unpin a moment later) */
static long
vm_pin_settled(long max_kb)
{
	long kb = vm_pin_kb();

	for (int i = 0; i < 100 && kb > max_kb; ++i) {
		usleep(20 * 1000);
		kb = vm_pin_kb();
	}
	return kb;
}

/* Buffers the kernel holds registered in the ring of `q` (its fdinfo), -1 when not listed */
static int
ring_bufs(struct xnvme_queue *q)
{
	char path[64], line[256];
	bool in = false;
	int n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", ring_of(q)->ring.ring_fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "UserBufs:", 9)) {
			in = true;
			n = 0;
		} else if (in && line[0] == ' ') {
			n += strstr(line, "0x") != NULL;
		} else {
			in = false;
		}
	}
	if (f) {
		fclose(f);
	}
	return n;
}

/*
 * A freed library buffer loses its registration at the ring's next submission: its pages are
 * unpinned (VmPin back to where it was) instead of staying pinned until the slot is reused or
 * the ring exits; many more buffers than slots come and go, each used fixed, data compared
 */
static void
test_fixed_release(struct akt *t, size_t n)
{
	uint8_t *plain = aligned_alloc(4096, n);
	struct xnvme_queue *q = NULL;
	long base, kb, n_kb = (long)(n / 1024);
	int err, nbufs = -1;

	err = xnvme_queue_init(t->dev, 8, 0, &q);
	ACHECK(t, !err && plain, "init: %d", err);
	if (err || !plain) {
		goto out;
	}
	xnvme_queue_set_cb(q, akt_cb, NULL);
	base = vm_pin_kb();
	for (int i = 0; i < 3 * XNVME_BUFREG_SLOTS; ++i) {
		uint8_t *a = xnvme_buf_alloc(t->dev, n);
		uint64_t nfixed = ring_of(q)->nfixed;
		bool ok;

		ACHECK(t, a, "alloc %d", i);
		if (!a) {
			break;
		}
		akt_fill(a, n, (uint64_t)i, 40 + (uint32_t)i);
		ok = fixed_rt(t, q, 3800 + (uint64_t)(i % 8) * (n / t->lba), a, plain, n);
		ACHECK(t, ok && ring_of(q)->nfixed == nfixed + 1, "round trip %d fixed", i);
		kb = vm_pin_kb();
		ACHECK(t, base < 0 || kb <= base + n_kb, "%d: pinned %ld kB, at most %ld + %ld", i,
		       kb, base, n_kb);
		xnvme_buf_free(t->dev, a);
		/* a submission from a plain buffer drops the stale registration */
		ok = fixed_rt(t, q, 3790, plain, plain, n);
		ACHECK(t, ok, "plain round trip %d", i);
		kb = vm_pin_settled(base);
		ACHECK(t, base < 0 || kb <= base, "%d: freed, pinned %ld kB, base %ld", i, kb,
		       base);
		nbufs = ring_bufs(q);
		ACHECK(t, nbufs <= 0, "%d: freed, the ring still holds %d buffers", i, nbufs);
		if (xnvme_test_nfail) {
			break;
		}
	}
	for (unsigned int i = 0; i < XNVME_BUFREG_SLOTS; ++i) {
		ACHECK(t, ring_of(q)->buf_gen[i] == 0, "slot %u still registered", i);
	}
	if (base <= 0 || nbufs < 0) {
		printf("# %s: VmPin %ld kB, fdinfo buffers %d: -1/0 means not checked that way\n",
		       t->name, base, nbufs);
	}
out:
	if (q) {
		xnvme_queue_term(q);
	}
	free(plain);
}

/*
 * `--ucmd-fixed /dev/ngXnY` (the QEMU guest): io_uring_cmd with opts.register_buffers; the
 * library's buffers are passed as registered buffers (kernel 6.1+), data compared
 */
static int
ucmd_fixed_main(const char *uri)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct akt t = {.name = "ng", .uri = uri, .mech = "io_uring_cmd", .passthru = true};
	const struct xnvme_geo *geo;

	opts.register_buffers = 1;
	t.dev = akt_open(&t, &opts);
	if (!t.dev) {
		printf("SKIP: cannot open %s with io_uring_cmd: %d\n", uri, errno);
		return 77;
	}
	geo = xnvme_dev_get_geo(t.dev);
	t.lba = geo->lba_nbytes;
	t.nlba = geo->tbytes / geo->lba_nbytes;
	test_fixed_buffers_n(&t, 64 * (size_t)t.lba);
	akt_rw_qd(&t, 16, 5000, 96, 3);
	xnvme_dev_close(t.dev);
	return xnvme_test_result("io_uring_cmd fixed buffers");
}

static void
test_registration(struct akt *t)
{
	struct xnvme_opts opts = xnvme_opts_default();
	struct akt rf = *t;
	struct xnvme_queue *q;
	int err;

	opts.register_files = 1;
	rf.dev = akt_open(t, &opts);
	ACHECK(t, rf.dev, "open: %d", errno);
	if (rf.dev) {
		err = xnvme_queue_init(rf.dev, 8, 0, &q);
		ACHECK(t,
		       !err && ring_of(q)->fixed_file && ring_of(q)->fd == 0 &&
			       ring_of(q)->sqe_flags == IOSQE_FIXED_FILE,
		       "registered file: %d", err);
		if (!err) {
			xnvme_queue_term(q);
		}
		akt_rw_qd(&rf, 8, 3500, 64, 8);
		xnvme_dev_close(rf.dev);
	}

	opts = xnvme_opts_default();
	opts.register_buffers = 1;
	rf.dev = akt_open(t, &opts);
	ACHECK(t, rf.dev, "open: %d", errno);
	if (rf.dev) {
		test_fixed_buffers_n(&rf, 512 * 1024);
		test_fixed_release(&rf, 256 * 1024);
		akt_rw_qd(&rf, 8, 3600, 64, 9);
		xnvme_dev_close(rf.dev);
	}
}

int
main(int argc, char **argv)
{
	struct akt_paths p;
	int skip;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--ucmd-fixed")) {
		return ucmd_fixed_main(argv[2]);
	}
	akt_paths_init(&p, "uring-bufs");
	skip = uring_skip();
	if (skip) {
		return skip;
	}
	uring_disk_file(&p, test_registration);
	return xnvme_test_result("io_uring registered files and buffers");
}
