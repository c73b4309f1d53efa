"""Every `xp.<name>(...)` call in teachtorch exists in CuPy and passes only keywords CuPy's function takes.

Checked statically against tests/cupy_api_names.txt (recorded from the CuPy 14.2 wheel), so it runs on machines
without CuPy or a GPU. It caught `xp.indices(shape, sparse=True)` (CuPy's `indices` has no `sparse=`), which
NumPy accepts and so the NumPy stand-in for CuPy ran without complaint.
"""

import ast
import pathlib

import pytest

from fake_cupy import _NAMES, KEYWORDS

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "teachtorch"


def _xp_calls():
    """(file, line, dotted name after `xp.`, keywords) of every call written `xp.something(...)`."""
    calls = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            parts, f = [], node.func
            while isinstance(f, ast.Attribute):
                parts.append(f.attr)
                f = f.value
            if isinstance(f, ast.Name) and f.id == "xp" and parts:
                calls.append((path.relative_to(PACKAGE.parent), node.lineno, ".".join(reversed(parts)),
                              [k.arg for k in node.keywords if k.arg]))
    return calls


CALLS = _xp_calls()


def test_the_kernels_use_the_array_module():
    assert len(CALLS) > 250          # the kernels are written against `xp`, not NumPy


@pytest.mark.parametrize("name", sorted({c[2] for c in CALLS}))
def test_xp_call_exists_in_cupy_with_these_keywords(name):
    top = name.split(".")[0]
    where = [f"{f}:{line}" for f, line, n, _ in CALLS if n == name]
    assert top in _NAMES["cupy"], f"cupy has no {top!r} (used at {', '.join(where)})"
    if "." in name:
        return          # xp.add.at, xp.cuda.Device: methods of CuPy objects, not recorded with keywords
    allowed = KEYWORDS.get(name)
    for f, line, n, keywords in CALLS:
        if n == name and allowed is not None:
            extra = [k for k in keywords if k not in allowed]
            assert not extra, f"{f}:{line}: cupy.{name} takes no keyword {extra} (it takes {sorted(allowed)})"
