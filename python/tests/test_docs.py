"""Every ```python example of docs/python.md runs as written (each in a fresh namespace)."""
import contextlib
import io
import os
import re

import pytest

from conftest import SOURCE_ROOT

DOC = os.path.join(SOURCE_ROOT, "docs", "python.md")


def _blocks():
    if not os.path.exists(DOC):
        return []
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    out = []
    for m in re.finditer(r"^```python\n(.*?)^```$", text, re.S | re.M):
        out.append((text.count("\n", 0, m.start()) + 2, m.group(1)))
    return out


BLOCKS = _blocks()


def test_docs_have_examples():
    """The extraction finds the page's examples (a changed fence would skip them silently)."""
    if not os.path.exists(DOC):
        pytest.skip("docs/python.md not found (XNVME_SOURCE_ROOT)")
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize("line,code", BLOCKS, ids=["line%d" % b[0] for b in BLOCKS])
def test_docs_example_runs(line, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "%s:%d" % (DOC, line), "exec"), {"__name__": "__main__"})  # pylint: disable=exec-used
