#!/usr/bin/env bash
# Every public header compiles alone, as the first include, with gcc, clang and mingw-w64
# (Windows): as strict ISO C11 with -pedantic and no feature macros (a client that defines
# none gets everything, the timer's monotonic clock included), gnu99 (the way fio compiles it),
# and C++11 and C++17 with -pedantic; all warnings are errors. The sizes pinned in the headers
# are asserted by the C11 builds. Also compiles fio's include sequence and a C++ client that
# defines XNVME_QUEUE_DEPTH.
set -u
incdir=${1:?usage: check_headers.sh <include dir>}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

compilers=("gcc:g++")
command -v clang >/dev/null && command -v clang++ >/dev/null && compilers+=("clang:clang++")
# Windows (mingw-w64, from scripts/setup.sh): the headers must compile there too
command -v x86_64-w64-mingw32-gcc >/dev/null && command -v x86_64-w64-mingw32-g++ >/dev/null &&
	compilers+=("x86_64-w64-mingw32-gcc:x86_64-w64-mingw32-g++")

check() {
	local desc=$1 src=$2
	shift 2
	if ! "$@" -fsyntax-only "$src" 2>"$tmp/err"; then
		echo "FAIL: $desc"
		sed 's/^/    /' "$tmp/err" | head -20
		fail=1
	fi
}

for h in "$incdir"/libxnvme*.h; do
	name=$(basename "$h")
	printf '#include <%s>\n' "$name" >"$tmp/t.c"
	cp "$tmp/t.c" "$tmp/t.cpp"
	for pair in "${compilers[@]}"; do
		ccc=${pair%%:*}
		cxx=${pair##*:}
		check "$name $ccc c11 -pedantic" "$tmp/t.c" $ccc -std=c11 -pedantic -Wall -Wextra \
			-Werror -Wdeclaration-after-statement -I"$incdir"
		check "$name $ccc gnu99 (fio flags)" "$tmp/t.c" $ccc -std=gnu99 -D_GNU_SOURCE \
			-Wall -Wextra -Werror -Wdeclaration-after-statement -Wwrite-strings -I"$incdir"
		check "$name $cxx c++11 -pedantic" "$tmp/t.cpp" $cxx -std=c++11 -pedantic -Wall \
			-Wextra -Werror -I"$incdir"
		check "$name $cxx c++17 -pedantic" "$tmp/t.cpp" $cxx -std=c++17 -pedantic -Wall \
			-Wextra -Werror -I"$incdir"
	done
done

# fio <= 3.36 includes these five, in this order, and pins its own sizes without a semicolon
cat >"$tmp/fio.c" <<'SRC'
#include <libxnvme.h>
#include <libxnvme_libconf.h>
#include <libxnvme_nvm.h>
#include <libxnvme_znd.h>
#include <libxnvme_spec_fs.h>
struct fio_like { uint32_t a; uint32_t b; };
XNVME_STATIC_ASSERT(sizeof(struct fio_like) == 8, "Incorrect size")
int fio_like_fn(void);
int fio_like_fn(void) { struct xnvme_cmd_ctx ctx; ctx.cmd.nvm.cdw13.dspec = 1; ctx.cmd.dsm.ad = 1; return (int)ctx.cmd.nvm.cdw13.dspec + (int)ctx.cpl.result; }
SRC
for pair in "${compilers[@]}"; do
	ccc=${pair%%:*}
	check "fio include sequence $ccc" "$tmp/fio.c" $ccc -std=gnu99 -D_GNU_SOURCE -O3 -Wall \
		-Werror -Wdeclaration-after-statement -Wwrite-strings -I"$incdir"
done

# a C++ client: types without 'struct', its own XNVME_QUEUE_DEPTH, a static member callback
cat >"$tmp/cxx.cpp" <<'SRC'
extern "C" {
#include <libxnvme.h>
}
static const int XNVME_QUEUE_DEPTH = 16;
class Client {
public:
	static void cb(xnvme_cmd_ctx *ctx, void *arg) { (void)ctx; (void)arg; }
	int run(xnvme_dev *dev) {
		xnvme_opts opts = xnvme_opts_default();
		opts.be = "linux";
		opts.async = "io_uring";
		const xnvme_spec_idfy_ns *ns = xnvme_dev_get_ns(dev);
		xnvme_queue_cb f = &Client::cb;
		(void)f;
		return (int)ns->nsze + XNVME_QUEUE_DEPTH + (int)opts.rdwr;
	}
};
int main() { Client c; (void)c; return 0; }
SRC
for pair in "${compilers[@]}"; do
	cxx=${pair##*:}
	check "C++ client $cxx" "$tmp/cxx.cpp" $cxx -std=c++11 -Wall -Wextra -Werror -I"$incdir"
done

# The example programs are clients too: strict ISO C11 and C++17, -pedantic, no feature macros
# (tests/check_install.sh also links and runs them against an install)
for ex in "$incdir"/../examples/*.c; do
	for pair in "${compilers[@]}"; do
		ccc=${pair%%:*}
		cxx=${pair##*:}
		check "$(basename "$ex") $ccc c11 -pedantic" "$ex" $ccc -std=c11 -pedantic -Wall \
			-Wextra -Werror -I"$incdir"
		check "$(basename "$ex") $cxx c++17 -pedantic" "$ex" $cxx -x c++ -std=c++17 -pedantic \
			-Wall -Wextra -Werror -I"$incdir"
	done
done

if [ $fail -ne 0 ]; then
	exit 1
fi
echo "headers: all self-contained and clean; the examples compile as strict C11 and C++17"
