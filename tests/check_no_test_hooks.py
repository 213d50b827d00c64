#!/usr/bin/env python3
"""The shipped library carries no test hooks: neither its dynamic symbol table (nm -D) nor its
full symbol table (nm, local symbols included) of the shared and the static library names a
fault-injection, mock or test-hook symbol. Tests get fault injection from test-only builds of a
unit (e.g. lib/be/linux/uring.c compiled into test_io_uring with XNVME_BE_LINUX_URING_FAULTS)
or from an interposed layer (tests/tcp_target.c, tests/vfio/fake_ctrl.c).

    check_no_test_hooks.py LIB.so LIB.a [--self-test OBJ]

A symbol is a test hook when a part of its name (split at '_') is one of HOOK_WORDS, or when
it is one of the variables of the test-only builds (FAULT_VARS). --self-test names an object
that must be flagged (the test build's own uring.c object): the check proves it can fail.
"""
import re
import subprocess
import sys

HOOK_WORDS = {"hook", "hooks", "mock", "inject", "injected", "injection", "fake", "testonly"}
FAULT_VARS = re.compile(r"_fault_(n|err)$")


def symbols(path, dynamic):
    args = ["nm", "-D", "--defined-only", path] if dynamic else ["nm", "--defined-only", path]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return {ln.split()[-1] for ln in out.splitlines() if len(ln.split()) == 3}


def hooks(names):
    bad = set()
    for n in names:
        if FAULT_VARS.search(n) or HOOK_WORDS & set(n.lower().split("_")):
            bad.add(n)
    return bad


def main(argv):
    so, a = argv[1], argv[2]
    errors = []
    for path, dynamic, what in ((so, True, "nm -D"), (so, False, "nm"), (a, False, "nm")):
        for n in sorted(hooks(symbols(path, dynamic))):
            errors.append("%s %s: test hook %s" % (what, path, n))
    if len(argv) > 4 and argv[3] == "--self-test":
        if not hooks(symbols(argv[4], False)):
            errors.append("self-test: no hook found in %s, which has fault injection" % argv[4])
    for e in errors:
        print(e, file=sys.stderr)
    print("test hooks: %d found in the shipped libraries" % len(errors))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
