#!/usr/bin/env python3
"""The documentation is self-contained: no source, header, script or document of the tree
points at files a user of the repository does not have (design notes outside the tree,
absolute paths of a build machine), and every docs/*.md it names exists.

  check_docs.py SRCROOT
"""
import os
import pathlib
import re
import subprocess
import sys

TEXT = {".c", ".h", ".py", ".sh", ".md", ".build", ".txt", ".rs", ".toml", ".map", ".cfg",
        ".ini", ".yml", ".yaml", ".cpp", ".hpp", ".sql", ""}
SKIP_DIRS = {".git", "_test", "_build", "_install", "_demo", "__pycache__", "target",
             "node_modules", "third_party"}
# Names of things a user of the repository does not have: design documents kept beside the
# checkout during development and the build machine's directories. They are assembled from parts
# so that this checker does not itself name them.
_OUT_OF_TREE_DOCS = "|".join(("backends", "clients", "api", "structs", "tools"))
_OUT_OF_TREE_DIR = "sh" + "ared"
_MACHINE_ROOT = "/" + "work" + "/"
FORBIDDEN = re.compile(r"(?<![\w/.-])(?:" + _OUT_OF_TREE_DOCS + r")\.md\b"
                       r"|" + _OUT_OF_TREE_DIR + r"/(?:notes|spec)\b"
                       r"|(?<![\w.])" + _MACHINE_ROOT)


def git_files(root):
    """Tracked and untracked-but-not-ignored files of a git checkout; None outside one. Build
    output (_build/, build*/, _install/ of scripts/demo.sh and scripts/test.sh) is ignored by
    .gitignore and so never scanned."""
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return [root / name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]


def text_files(root):
    listed = git_files(root)
    if listed is not None:
        for path in listed:
            parts = path.relative_to(root).parts
            if parts[:1] == ("duckdb",) and parts[1:2] in (("duckdb",), ("extension-ci-tools",)):
                continue  # third-party trees cloned by duckdb/build.sh
            if path.suffix in TEXT and path.is_file() and path.stat().st_size < 2_000_000:
                yield path
        return
    # a source tree without git metadata (a release tarball): everything but build output
    for dirpath, dirnames, filenames in os.walk(root):
        rel = pathlib.Path(dirpath).relative_to(root)
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build")
                       and not (rel.parts[:1] == ("duckdb",) and d in ("duckdb", "extension-ci-tools"))]
        for name in filenames:
            path = pathlib.Path(dirpath) / name
            if path.suffix in TEXT and path.stat().st_size < 2_000_000:
                yield path


def main(root):
    root = pathlib.Path(root).resolve()
    errors = []
    for path in text_files(root):
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        rel = path.relative_to(root)
        if str(rel) in (".git", "tests/check_docs.py"):
            continue  # a worktree's .git file; this checker names the patterns
        for n, line in enumerate(text.splitlines(), 1):
            for m in FORBIDDEN.finditer(line):
                # "docs/backends.md" is ours; a bare "backends.md" names nothing the reader has
                if line[max(0, m.start() - 5):m.start()] == "docs/" and \
                        (root / "docs" / m.group(0)).exists():
                    continue
                errors.append(f"{rel}:{n}: points outside the repository: {m.group(0)}")
            for m in re.finditer(r"\bdocs/([\w.-]+\.md)\b", line):
                if not (root / "docs" / m.group(1)).exists():
                    errors.append(f"{rel}:{n}: names a missing document docs/{m.group(1)}")
    for e in errors:
        print(e)
    if errors:
        return 1
    print("docs: self-contained")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
