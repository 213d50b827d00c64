#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes a loadable DuckDB extension: the shared object followed by DuckDB's 512-byte metadata
footer (a WebAssembly-style custom section header, eight 32-byte fields stored last-to-first,
then an all-zero 256-byte signature, i.e. an unsigned extension).

usage: footer.py SHARED_OBJECT OUTPUT PLATFORM DUCKDB_VERSION EXTENSION_VERSION
"""
import os
import sys


def field(text):
    raw = text.encode()
    if len(raw) > 32:
        raise SystemExit(f"footer field too long: {text!r}")
    return raw + b"\0" * (32 - len(raw))


def main():
    if len(sys.argv) != 6:
        raise SystemExit(__doc__)
    so, out, platform, duckdb_version, ext_version = sys.argv[1:]
    # custom section id 0, LEB128 length 531, name length 16, name, LEB128 payload length 512
    header = b"\0" + bytes([147, 4, 16]) + b"duckdb_signature" + bytes([128, 4])
    fields = [field("4"), field(platform), field(duckdb_version), field(ext_version), field("CPP"),
              field(""), field(""), field("")]
    footer = header + b"".join(reversed(fields)) + b"\0" * 256
    with open(so, "rb") as f:
        body = f.read()
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(body + footer)
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
