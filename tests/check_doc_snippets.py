#!/usr/bin/env python3
"""Every C, Python and Rust snippet of README.md and docs/*.md is a complete program that runs
exactly as printed:

* ```c blocks are compiled alone against the library as strict ISO C11 with gcc and clang
  (-std=c11 -pedantic -Wall -Wextra -Werror, no feature macros) and run;
* ```python blocks run with python3, the package from python/ and the built library;
* ```rust blocks may only be in documents the xnvme crate includes as doctests
  (rust/xnvme/src/lib.rs: `cargo test` runs them, rust/run_tests.sh).

A program must exit 0 unless the line before its fence says otherwise:

    <!-- snippet: exit=1 output="vfio: " args="..." target=tcp -->

exit: the expected status; output: text its stdout or stderr must contain; args: its
arguments; target=tcp: a test NVMe/TCP target (tests/tcp_target_serve) runs meanwhile and
{target} in args is its address. Documents other work is rewriting may be listed in
tests/docs-pending.txt ("snippets <path>"): their failures are reported as pending, and the
entry fails once the document passes.

  check_doc_snippets.py SRCROOT BUILDDIR [--pending FILE]
"""
import argparse
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_doc_tables import documents, report  # noqa: E402

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```$", re.S | re.M)
NOTE = re.compile(r"<!--\s*snippet:(.*?)-->")


def snippets(text):
    """(line, language, code, expectations) of every fenced block"""
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        note = NOTE.search(before)
        expect = {"exit": "0"}
        if note:
            for key, val in re.findall(r'(\w+)=("[^"]*"|\S+)', note.group(1)):
                expect[key] = val.strip('"')
        yield line, m.group(1).lower(), m.group(2), expect


def doctested(root):
    """The documents the xnvme crate includes as doctests"""
    lib = root / "rust" / "xnvme" / "src" / "lib.rs"
    if not lib.exists():
        return set()
    found = set()
    for inc in re.findall(r'include_str!\("([^"]+\.md)"\)', lib.read_text()):
        found.add((lib.parent / inc).resolve())
    return found


class Target:
    """tests/tcp_target_serve: an NVMe/TCP target while the snippet runs"""

    def __init__(self, exe):
        self.proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.address = self.proc.stdout.readline().decode().strip()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def run(cmd, expect, where, errors, cwd, env, target_exe):
    target = Target(target_exe) if expect.get("target") == "tcp" else None
    try:
        args = shlex.split(expect.get("args", "").replace("{target}",
                                                          target.address if target else ""))
        proc = subprocess.run(cmd + args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=120, check=False)
    finally:
        if target:
            target.close()
    out = proc.stdout.decode(errors="replace")
    if proc.returncode != int(expect["exit"]):
        errors.append("%s: exit status %d, not %s:\n%s" % (where, proc.returncode,
                                                             expect["exit"], indent(out)))
    elif expect.get("output") and expect["output"] not in out:
        errors.append("%s: the output lacks '%s':\n%s" % (where, expect["output"], indent(out)))


def indent(text):
    return "\n".join("    " + l for l in text.strip().splitlines()[-20:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("build")
    ap.add_argument("--pending")
    args = ap.parse_args()
    root = pathlib.Path(args.root).resolve()
    build = pathlib.Path(args.build).resolve()
    libdir = build / "lib"
    target_exe = str(build / "tests" / "tcp_target_serve")
    compilers = [c for c in ("gcc", "clang") if shutil.which(c)]
    env = dict(os.environ, XNVME_LIBRARY_PATH=str(libdir),
               PYTHONPATH=str(root / "python") + os.pathsep + os.environ.get("PYTHONPATH", ""),
               XNVME_PY_NO_FASTQ="1")
    rust_ok = doctested(root)
    errors = []
    counts = {"c": 0, "python": 0, "rust": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for doc in documents(root):
            rel = str(doc.relative_to(root))
            for n, (line, lang, code, expect) in enumerate(snippets(doc.read_text()), 1):
                where = "%s:%d: %s snippet" % (rel, line, lang or "plain")
                work = pathlib.Path(tmp) / ("%s-%d" % (doc.stem, n))
                work.mkdir()
                if lang == "c":
                    counts["c"] += 1
                    src = work / "snippet.c"
                    src.write_text(code)
                    for cc in compilers:
                        exe = work / ("snippet-" + cc)
                        proc = subprocess.run(
                            [cc, "-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror",
                             "-I" + str(root / "include"), "-o", str(exe), str(src),
                             "-L" + str(libdir), "-lxnvme", "-Wl,-rpath," + str(libdir)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
                        if proc.returncode:
                            errors.append("%s: does not compile as a program (%s -std=c11 "
                                          "-pedantic -Werror):\n%s" % (
                                              where, cc, indent(proc.stdout.decode())))
                            break
                        run([str(exe)], expect, where + " (%s)" % cc, errors, work, env,
                            target_exe)
                elif lang == "python":
                    counts["python"] += 1
                    src = work / "snippet.py"
                    src.write_text(code)
                    run([sys.executable, str(src)], expect, where, errors, work, env,
                        target_exe)
                elif lang == "rust":
                    counts["rust"] += 1
                    if doc.resolve() not in rust_ok:
                        errors.append("%s: no test runs it: Rust examples go in a document "
                                      "rust/xnvme/src/lib.rs includes as doctests" % where)
    return report(root, "snippets", args.pending, errors,
                  "snippets: %d C, %d Python and %d Rust (doctests) examples run as printed" % (
                      counts["c"], counts["python"], counts["rust"]))


if __name__ == "__main__":
    sys.exit(main())
