#!/usr/bin/env python3
"""The tables and counts of the documentation match the code, so that they cannot drift.

Every Markdown table of README.md and docs/*.md is read; a table is held to the library's
registry (the JSON of tests/registry_dump: backends, whether built, the mechanism names of
each kind, the defaults of a ramdisk and a regular file) when its header row says what it
lists:

* a `backend` column: every row names a backend of the registry; with columns `<os> build`
  (`Linux build`, `Windows build`), every backend has a row and the column of the registry's
  OS says yes exactly for the backends built there;
* a column per kind (`mem`, `admin`, `sync`, `async`, also `--async`, ...): the names in a
  cell are mechanisms of that kind of the row's backend; in rows that name a backend, all of
  its mechanisms (the cell is the list); `(default)` after a name, or a header `names (default
  first)`, must be the default the library picks; a row whose first cell says `regular file`
  names the defaults of a regular file;
* a column per backend (`linux`, `ramdisk`, ...) and a kind per row: the cell lists all the
  mechanisms of that kind of that backend;
* a `kind` and a `name`/`names` column: the names are mechanisms of that kind of the backend
  the table is about, and together the rows list all of them;
* a `mechanism` column: every name is a mechanism (or `sync`) of the table's backend;
* a `key` column in a table about the ramdisk: every key is an option of its URI (with
  --lib, the library asked).

The backend a table without a backend column is about: the closest heading above it that
names exactly one backend, else the document (docs/linux.md is about linux), else any
backend. Tables about a backend no given registry has built are left to the registry of a
build that has it (scripts/wine_test.sh checks the windows tables with the Windows build's).

Besides tables: `opts.<field>` in a table names a member of struct xnvme_opts; a count of
exported symbols given next to lib/libxnvme.map is the number of names the map exports; the
additions to the 0.7.5 API that docs/compat.md lists are the map's names beyond the 0.7.5 set.

The generated registry table of docs/internals.md (between `<!-- registry:begin -->` and
`<!-- registry:end -->`) is a Linux build's view, placeholders included; tests/check_registry_docs.py
keeps it equal to that build, so it is skipped here (a Windows registry would find its
"not built" windows row empty).

Documents other work is rewriting may be listed in tests/docs-pending.txt ("tables <path>"):
their mismatches are reported as pending, and the entry fails once the document passes.

  check_doc_tables.py SRCROOT --registry JSON [--registry JSON ...] [--backends a,b] [--lib SO]
"""
import argparse
import ctypes
import json
import pathlib
import re
import sys

KINDS = ("mem", "admin", "sync", "async")
# The xNVMe 0.7.5 API exports 227 functions and the variable xnvme_libconf
API_075_NSYMBOLS = 228


def documents(root):
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def tables(text):
    """(line number, heading above, header cells, rows of cells) of every Markdown table"""
    lines = text.splitlines()
    heading = ""
    i = 0
    in_fence = False
    generated = False
    while i < len(lines):
        line = lines[i]
        if line.startswith("<!-- registry:"):
            generated = line.startswith("<!-- registry:begin")
        elif generated:
            pass
        elif line.startswith("```"):
            in_fence = not in_fence
        elif not in_fence and line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif not in_fence and line.startswith("|") and i + 1 < len(lines) and \
                re.match(r"^\|\s*:?-", lines[i + 1]):
            start = i
            header = cells(line)
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(cells(lines[i]))
                i += 1
            yield start + 1, heading, header, rows
            continue
        i += 1


def cells(line):
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def plain(cell):
    return re.sub(r"[`*]", "", cell).strip().lower()


def names_in(cell):
    """The names a cell lists: backticked words, else comma-separated bare words"""
    found = re.findall(r"`([^`]+)`", cell)
    if found:
        # names only: not paths, calls or options written in backticks beside them
        return [n.strip() for n in found if re.fullmatch(r"\s*[a-z0-9_]+\s*", n)]
    bare = plain(cell)
    return [w.strip() for w in bare.split(",") if re.fullmatch(r"\s*[a-z_]+\s*", w)]


def marked_default(cell):
    m = re.search(r"`([^`]+)`\s*\(default", cell)
    return m.group(1) if m else None


class Registry:
    def __init__(self, dumps, only):
        self.backends = {}
        self.built = {}
        self.defaults = {}
        self.known = set()
        self.built_on = {}  # os -> {backend: built}
        for dump in dumps:
            self.built_on[dump["os"]] = {b["name"]: b["enabled"] for b in dump["backends"]}
            for be in dump["backends"]:
                self.known.add(be["name"])
                self.built.setdefault(be["name"], False)
                if be["enabled"]:
                    self.built[be["name"]] = True
                    self.backends[be["name"]] = {k: list(be[k] or []) for k in KINDS}
            for uri, used in dump.get("defaults", {}).items():
                kind = "ramdisk" if used["be"] == "ramdisk" else "file"
                self.defaults[(used["be"], kind)] = used
        self.only = set(only) if only else None
        self.lib = None

    def open_error(self, uri):
        """The reason xnvme_dev_open() gives for `uri` ("" when it opens)"""
        self.lib.xnvme_dev_open.restype = ctypes.c_void_p
        self.lib.xnvme_dev_open.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
        self.lib.xnvme_dev_close.argtypes = [ctypes.c_void_p]
        self.lib.xnvme_last_error.restype = ctypes.c_char_p
        dev = self.lib.xnvme_dev_open(uri.encode(), None)
        if dev:
            self.lib.xnvme_dev_close(dev)
            return ""
        return self.lib.xnvme_last_error().decode(errors="replace")

    def checkable(self, be):
        return be in self.backends and (self.only is None or be in self.only)

    def names(self, be, kind):
        if be is None:
            return {n for b in self.backends.values() for n in b[kind]}
        return set(self.backends[be][kind])


def kind_of(header_cell):
    k = plain(header_cell).lstrip("-")
    return k if k in KINDS else None


def backend_named(text, reg):
    """The one backend a heading or file name names, else None"""
    found = {b for b in reg.known if re.search(r"\b%s\b" % re.escape(b), text, re.I)}
    return found.pop() if len(found) == 1 else None


def check_table(doc, lineno, heading, header, rows, reg, errors, notes):
    where = "%s:%d" % (doc.name if doc.parent.name != "docs" else "docs/" + doc.name, lineno)
    hdr = [plain(h) for h in header]
    kind_cols = {i: kind_of(h) for i, h in enumerate(header) if kind_of(h)}
    be_cols = {i: plain(h) for i, h in enumerate(header) if plain(h) in reg.known}
    about = backend_named(heading, reg) or backend_named(doc.stem, reg)

    def err(msg):
        errors.append("%s: %s" % (where, msg))

    def check_names(names, be, kind, what, complete):
        if not reg.checkable(be):
            return
        have = reg.names(be, kind)
        for n in names:
            if n not in have:
                err("%s: '%s' is not a %s mechanism of %s (the code has: %s)" % (
                    what, n, kind, be, ", ".join(sorted(have))))
        if complete and set(names) != have and set(names) <= have:
            err("%s: the %s mechanisms of %s are %s, the table lists %s" % (
                what, kind, be, ", ".join(sorted(have)), ", ".join(sorted(set(names)))))

    # rows per backend
    if "backend" in hdr:
        bcol = hdr.index("backend")
        listed = set()
        for row in rows:
            if bcol >= len(row):
                continue
            names = names_in(row[bcol])
            if len(names) != 1 or names[0] not in reg.known:
                err("'%s' is not a backend of the registry (%s)" % (
                    row[bcol], ", ".join(sorted(reg.known))))
                continue
            be = names[0]
            listed.add(be)
            for i, h in enumerate(hdr):
                m = re.fullmatch(r"(\w+) build", h)
                if not m or m.group(1) not in reg.built_on or i >= len(row) or \
                        (reg.only is not None and be not in reg.only):
                    continue
                says = plain(row[i]).split()[:1]
                want = "yes" if reg.built_on[m.group(1)].get(be) else "no"
                if says != [want]:
                    err("backend %s: '%s' says '%s', the %s build: %s" % (
                        be, header[i], row[i], m.group(1), want))
            for i, kind in kind_cols.items():
                if i < len(row):
                    check_names(names_in(row[i]), be, kind, "backend " + be, True)
                    default = marked_default(row[i])
                    want = reg.defaults.get((be, "ramdisk" if be == "ramdisk" else "file"))
                    if default and want and reg.checkable(be) and \
                            (be == "ramdisk" or default != want[kind]):
                        if be == "ramdisk" and default != want[kind]:
                            err("backend %s: the default %s mechanism is %s, the table "
                                "says %s" % (be, kind, want[kind], default))
        builds = [h for h in hdr if re.fullmatch(r"\w+ build", h)]
        if builds and reg.only is None:
            missing = reg.known - listed
            if missing:
                err("the registry also has %s" % ", ".join(sorted(missing)))
        elif kind_cols and reg.only is None:
            missing = {b for b in reg.backends} - listed
            if missing:
                err("this build also has the backends %s" % ", ".join(sorted(missing)))
        return

    # a column per backend, a kind per row
    if be_cols:
        missing = {b for b in reg.backends} - set(be_cols.values())
        if missing and reg.only is None:
            err("this build also has the backends %s" % ", ".join(sorted(missing)))
        for row in rows:
            kind = kind_of(row[0]) if row else None
            if not kind:
                continue
            for i, be in be_cols.items():
                if i < len(row):
                    check_names(names_in(row[i]), be, kind, "backend %s" % be, True)
        return

    # a kind and a name column: one backend's mechanisms, one or more per row
    if "kind" in hdr and any(h == "name" or h.startswith("names") for h in hdr):
        kcol = hdr.index("kind")
        ncol = next(i for i, h in enumerate(hdr) if h == "name" or h.startswith("names"))
        if about is None:
            err("a table of mechanisms under '%s' that names no backend" % heading)
            return
        seen = {k: [] for k in KINDS}
        for row in rows:
            kind = kind_of(row[kcol]) if kcol < len(row) else None
            if not kind:
                err("'%s' is not a mechanism kind" % (row[kcol] if row else ""))
                continue
            names = names_in(row[ncol])
            check_names(names, about, kind, "backend " + about, False)
            seen[kind] += names
            if hdr[ncol].startswith("names") and "default first" in hdr[ncol] and names:
                want = reg.defaults.get((about, "ramdisk" if about == "ramdisk" else "file"))
                if want and reg.checkable(about) and names[0] != want[kind]:
                    err("backend %s: the default %s mechanism is %s, listed first is %s" % (
                        about, kind, want[kind], names[0]))
        for kind in KINDS:
            check_names(seen[kind], about, kind, "backend " + about, True)
        return

    # kind columns, rows of device types (defaults) of the table's backend
    if kind_cols:
        for row in rows:
            for i, kind in kind_cols.items():
                if i < len(row):
                    check_names(names_in(row[i]), about, kind, "row '%s'" % row[0], False)
            first = plain(row[0]) if row else ""
            want = reg.defaults.get((about, "file"))
            if "regular file" in first and want and reg.checkable(about):
                for i, kind in kind_cols.items():
                    names = names_in(row[i]) if i < len(row) else []
                    if names and names[0] != want[kind]:
                        err("row '%s': the %s default of a regular file is %s, the table "
                            "says %s" % (row[0], kind, want[kind], names[0]))
        return

    # the ramdisk's URI options: every key is one the ramdisk takes
    if "key" in hdr and about == "ramdisk" and reg.lib is not None and reg.checkable("ramdisk"):
        kcol = hdr.index("key")
        for row in rows:
            for key in names_in(row[kcol]) if kcol < len(row) else []:
                why = reg.open_error("1GB?%s=1" % key)
                if "unknown option" in why:
                    err("'%s' is not an option of the ramdisk's URI: %s" % (key, why))
        return

    # a mechanism column: names of any kind of the table's backend, or "sync"
    if "mechanism" in hdr:
        col = hdr.index("mechanism")
        if (about is not None and not reg.checkable(about)) or \
                (about is None and reg.only is not None):
            return
        every = set()
        for kind in KINDS:
            every |= reg.names(about, kind)
        if not every:
            return
        for row in rows:
            for n in names_in(row[col]) if col < len(row) else []:
                if n != "sync" and n not in every:
                    err("'%s' is not a mechanism of %s" % (n, about or "any backend"))
        notes.append(where)


def opts_fields(root):
    text = (root / "include" / "libxnvme_opts.h").read_text()
    body = re.search(r"struct xnvme_opts \{(.*?)\n\};", text, re.S).group(1)
    return set(re.findall(r"(\w+)\s*(?:\[\w*\])?;", body))


def check_text(root, doc, text, errors):
    rel = str(doc.relative_to(root))
    mapfile = root / "lib" / "libxnvme.map"
    exported = re.findall(r"^\s+(xnvme_\w+);", mapfile.read_text(), re.M)
    for n, line in enumerate(text.splitlines(), 1):
        for m in re.finditer(r"lib/libxnvme\.map`?\s*\((\d+)\)", line):
            if int(m.group(1)) != len(exported):
                errors.append("%s:%d: lib/libxnvme.map exports %d names, the text says %s" % (
                    rel, n, len(exported), m.group(1)))
        for m in re.finditer(r"`opts\.(\w+)`", line):
            if m.group(1) not in opts_fields(root) and m.group(1) != "c":  # lib/opts.c
                errors.append("%s:%d: struct xnvme_opts has no member %s" % (rel, n, m.group(1)))
    if rel == "docs/compat.md":
        m = re.search(r"exactly the (\d+) functions and `xnvme_libconf` of the 0\.7\.5 API"
                      r"(.*?)\(checked", text, re.S)
        if not m:
            errors.append("docs/compat.md: no sentence 'exactly the N functions and "
                          "`xnvme_libconf` of the 0.7.5 API ... (checked' to check")
            return
        if int(m.group(1)) + 1 != API_075_NSYMBOLS:
            errors.append("docs/compat.md: the 0.7.5 API has %d functions, the text says %s" %
                          (API_075_NSYMBOLS - 1, m.group(1)))
        listed = set(re.findall(r"`(xnvme_\w+)`", m.group(2)))
        additions = len(exported) - API_075_NSYMBOLS
        if len(listed) != additions or not listed <= set(exported):
            errors.append("docs/compat.md: lib/libxnvme.map adds %d names to the 0.7.5 API, "
                          "the text lists %s" % (additions, ", ".join(sorted(listed)) or "none"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--registry", action="append", required=True)
    ap.add_argument("--backends", help="check only tables about these backends")
    ap.add_argument("--pending", help="known mismatches (default: tests/docs-pending.txt)")
    ap.add_argument("--lib", help="libxnvme.so, to check the ramdisk's URI options")
    args = ap.parse_args()
    root = pathlib.Path(args.root).resolve()
    dumps = [json.loads(pathlib.Path(p).read_text()) for p in args.registry]
    reg = Registry(dumps, args.backends.split(",") if args.backends else None)
    if args.lib:
        reg.lib = ctypes.CDLL(args.lib)
    errors, notes = [], []
    ntables = 0
    for doc in documents(root):
        text = doc.read_text(encoding="utf-8")
        for lineno, heading, header, rows in tables(text):
            ntables += 1
            check_table(doc, lineno, heading, header, rows, reg, errors, notes)
        if reg.only is None:
            check_text(root, doc, text, errors)
    return report(root, "tables", args.pending, errors,
                  "tables: %d tables in %d documents checked" % (ntables, len(documents(root))),
                  stale_fails=reg.only is None)


def report(root, check, pending_path, errors, ok_line, stale_fails=True):
    """Prints the errors, those of documents listed for `check` in tests/docs-pending.txt as
    pending; an entry without errors fails (it must go) when `stale_fails`. Returns the exit
    status."""
    path = pathlib.Path(pending_path) if pending_path else root / "tests" / "docs-pending.txt"
    pending = []
    if path.exists():
        for line in path.read_text().splitlines():
            words = line.split("#")[0].split()
            if len(words) == 2 and words[0] == check:
                pending.append(words[1])
    failed = False
    for e in errors:
        if any(e.startswith(doc + ":") for doc in pending):
            print("pending: " + e)
        else:
            print(e)
            failed = True
    for doc in pending if stale_fails else []:
        if not any(e.startswith(doc + ":") for e in errors):
            print("%s: %s passes now: remove '%s %s' from %s" % (doc, check, check, doc,
                                                               path.name))
            failed = True
    if failed:
        return 1
    print(ok_line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
