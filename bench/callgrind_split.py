#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Splits a callgrind profile's instruction count (Ir, exclusive) by object file and function.

    callgrind_split.py callgrind.out.N [--by fn|ob] [--top 20] [--json]

Reads the callgrind format directly (name compression, relative positions, call-cost lines
skipped), so it needs nothing but python3. Used by bench/count_instructions.py.
"""
import argparse
import collections
import json
import re
import sys

_NAMED = re.compile(r"^(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn)=(?:\((\d+)\))?\s*(.*)$")


def write_json(path, doc):
    """Writes `doc` as indented JSON with a final newline (the bench scripts' result files)."""
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def parse(path):
    """Returns (total Ir, {object: Ir}, {(object, function): Ir}) of exclusive costs."""
    names = {k: {} for k in ("ob", "fl", "fn")}
    kind_of = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
               "cfl": "fl", "fn": "fn", "cfn": "fn"}
    cur_ob, cur_fn = "?", "?"
    events = ["Ir"]
    by_ob = collections.Counter()
    by_fn = collections.Counter()
    skip_next_cost = False
    total = None
    with open(path, "r", errors="replace") as f:
        for line in f:
            if not line or line[0] == "#":
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                if skip_next_cost:
                    skip_next_cost = False
                    continue
                parts = line.split()
                # first field(s) are positions (one unless --dump-instr/--dump-line both set)
                npos = 1
                vals = parts[npos:]
                if not vals:
                    continue
                ir = int(vals[0]) if vals[0].isdigit() else 0
                by_ob[cur_ob] += ir
                by_fn[(cur_ob, cur_fn)] += ir
                continue
            if line.startswith("calls="):
                skip_next_cost = True
                continue
            if line.startswith("events:"):
                events = line.split(":", 1)[1].split()
                continue
            if line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split(":", 1)[1].split()[0])
                continue
            m = _NAMED.match(line.rstrip("\n"))
            if not m:
                continue
            key, num, name = m.groups()
            table = names[kind_of[key]]
            if num is not None:
                if name:
                    table[num] = name
                name = table.get(num, "(%s)" % num)
            if key == "ob":
                cur_ob = name
            elif key == "fn":
                cur_fn = name
    if total is None:
        total = sum(by_ob.values())
    del events
    return total, by_ob, by_fn


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("profile")
    ap.add_argument("--by", choices=("ob", "fn"), default="ob")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--div", type=float, default=1.0, help="divide counts (e.g. by I/Os)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    total, by_ob, by_fn = parse(a.profile)
    rows = by_ob.most_common(a.top) if a.by == "ob" else [
        ("%s [%s]" % (fn, ob.rsplit("/", 1)[-1]), v) for (ob, fn), v in by_fn.most_common(a.top)]
    if a.json:
        json.dump({"total": total / a.div, "rows": [[k, v / a.div] for k, v in rows]},
                  sys.stdout, indent=1)
        print()
        return
    print("%14.2f  TOTAL" % (total / a.div))
    for k, v in rows:
        print("%14.2f  %s" % (v / a.div, k))


if __name__ == "__main__":
    main()
