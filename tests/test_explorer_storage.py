"""The storage diagram: every logical element is tied to the storage cell its strides say, for every layout."""

import sys
import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import teachtorch as tt
from teachtorch.explorer.storage_diagram import storage_svg

NS = "{http://www.w3.org/2000/svg}"


def parse(svg):
    return ET.fromstring(svg)


def views(root):
    return root.iter(f"{NS}g")


def view_groups(root):
    return [g for g in root.iter(f"{NS}g") if g.get("class") == "tt-view"]


def elems(group):
    return [r for r in group.iter(f"{NS}rect") if r.get("class") == "tt-elem"]


def cells(root):
    return [r for r in root.iter(f"{NS}rect") if r.get("class") == "tt-cell"]


def expected_cell(t, idx):
    """Independent of the renderer: the storage index by the stride formula."""
    return t.storage_offset() + sum(i * s for i, s in zip(idx, t.stride()))


def check_mapping(t, group):
    """Each drawn element's data-cell is offset + sum(i * stride), and the indices are distinct and in range."""
    seen = set()
    for r in elems(group):
        idx = tuple(int(i) for i in r.get("data-index").split(",")) if r.get("data-index") else ()
        assert len(idx) == t.dim()
        assert all(0 <= i < n for i, n in zip(idx, t.shape))
        assert int(r.get("data-cell")) == expected_cell(t, idx)
        assert idx not in seen
        seen.add(idx)
    return seen


def layouts():
    base = tt.arange(60.).reshape(3, 4, 5)
    m = tt.arange(24.).reshape(4, 6)
    return {
        "contiguous": m,
        "transposed": m.t(),
        "permuted": base.permute(2, 0, 1),
        "sliced with steps": m[::2, 1::3],
        "offset row": m[2],
        "offset slice": m[1:, 2:],
        "expanded": tt.arange(3.).expand(4, 3),
        "expanded middle": tt.arange(6.).reshape(2, 1, 3).expand(2, 4, 3),
        "as_strided overlapping": tt.arange(10.).as_strided((4, 3), (2, 1), 1),
        "unfold": tt.arange(8.).unfold(0, 3, 2),
        "0-d": tt.tensor(7.),
        "0-d view": m[1, 2],
        "negative-free diagonal": m.diagonal(),
    }


@pytest.mark.parametrize("name", list(layouts()))
def test_every_element_tied_to_its_cell(name):
    t = layouts()[name]
    root = parse(storage_svg(t, labels=[name]))
    (g,) = view_groups(root)
    assert g.get("data-sizes") == ",".join(map(str, t.shape))
    assert g.get("data-strides") == ",".join(map(str, t.stride()))
    assert int(g.get("data-offset")) == t.storage_offset()
    assert g.get("data-contiguous") == str(t.is_contiguous()).lower()
    assert g.get("data-label") == name
    assert g.get("data-storage") == str(id(t.untyped_storage()))
    seen = check_mapping(t, g)
    assert len(seen) == t.numel()            # small tensors: every element drawn
    # the strip: cells exist for every cell an element points at, and say that view 0 reads them
    used = {int(r.get("data-cell")) for r in elems(g)}
    strip = {int(c.get("data-cell")): c for c in cells(root)}
    for c in used:
        assert "0" in strip[c].get("data-views").split()
    for c, rect in strip.items():
        assert (c in used) == ("0" in rect.get("data-views").split())


def test_expanded_dimension_reads_one_cell():
    row = tt.tensor([1., 2., 3.])
    e = row.expand(4, 3)
    root = parse(storage_svg(e))
    by_col = {}
    for r in elems(view_groups(root)[0]):
        i, j = map(int, r.get("data-index").split(","))
        by_col.setdefault(j, set()).add(int(r.get("data-cell")))
    assert by_col == {0: {0}, 1: {1}, 2: {2}}      # stride 0: all four rows read the same cell
    text = storage_svg(e)
    assert "expanded (stride 0): dim 0" in text


def test_several_views_of_one_storage_in_one_picture():
    x = tt.arange(12.).reshape(3, 4)
    vs = [x, x.t(), x[1:, ::2]]
    root = parse(storage_svg(*vs, labels=["x", "x.t()", "x[1:, ::2]"]))
    groups = view_groups(root)
    assert [g.get("data-view") for g in groups] == ["0", "1", "2"]
    assert len({g.get("data-storage") for g in groups}) == 1
    strips = [g for g in root.iter(f"{NS}g") if g.get("class") == "tt-strip"]
    assert len(strips) == 1
    readers = {int(c.get("data-cell")): set(c.get("data-views").split()) for c in cells(root)}
    for c in range(12):
        expect = {"0", "1"} | ({"2"} if c in {4, 6, 8, 10} else set())
        assert readers[c] == expect
    for t, g in zip(vs, groups):
        check_mapping(t, g)
    # the slice is a view of x's storage and says so
    assert "view of a tensor of shape [12]" in storage_svg(x[1:, ::2])


def test_two_storages_two_strips_and_values():
    a = tt.tensor([1.5, -2.0])
    b = tt.tensor([[True, False]])
    root = parse(storage_svg(a, b))
    strips = [g for g in root.iter(f"{NS}g") if g.get("class") == "tt-strip"]
    assert len(strips) == 2
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert "1.5" in texts and "-2" in texts and "T" in texts and "F" in texts
    no_values = [t.text for t in parse(storage_svg(a, values=False)).iter(f"{NS}text")]
    assert "1.5" not in no_values


def test_more_than_two_dims_is_a_row_of_slices():
    t = tt.arange(24).reshape(2, 3, 4).transpose(0, 2)        # (2, 4, 3), non-contiguous
    svg = storage_svg(t)
    assert "[0, :, :]" in svg and "[1, :, :]" in svg
    seen = check_mapping(t, view_groups(parse(svg))[0])
    assert len(seen) == 24


def test_empty_and_zero_d():
    e = tt.zeros(0, 3)
    root = parse(storage_svg(e))
    assert elems(view_groups(root)[0]) == []
    assert "empty" in storage_svg(e)
    s = tt.tensor(5.)
    (r,) = elems(view_groups(parse(storage_svg(s)))[0])
    assert r.get("data-index") == "" and r.get("data-cell") == "0"


@pytest.mark.parametrize("n", [10_000, 10_000_000])
def test_large_tensors_are_cut_with_a_note(n):
    t = tt.zeros(n)
    start = time.perf_counter()
    svg = storage_svg(t)
    elapsed = time.perf_counter() - start
    root = parse(svg)
    assert len(elems(view_groups(root)[0])) <= 16
    assert len(cells(root)) <= 256
    notes = [x.text for x in root.iter(f"{NS}text") if x.get("class") == "tt-note"]
    assert notes == [f"showing 256 of {n:,} storage elements"]
    assert any(x.get("class") == "tt-ellipsis" for x in root.iter(f"{NS}text"))
    assert len(svg) < 200_000 and elapsed < 5


def test_large_2d_and_many_slices_are_bounded():
    t = tt.zeros(100, 100).t()
    root = parse(storage_svg(t, max_rows=8, max_cols=8))
    g = view_groups(root)[0]
    assert len(elems(g)) == 64
    check_mapping(t, g)
    # the cells the drawn elements use are among the drawn cells (the strip shows them first)
    drawn = {int(c.get("data-cell")) for c in cells(root)}
    assert {int(r.get("data-cell")) for r in elems(g)} <= drawn
    big = tt.zeros(20, 3, 3)
    svg = storage_svg(big, max_slices=4)
    assert "… 16 more" in svg


def test_renderer_imports_no_jupyter():
    import subprocess
    code = ("import sys, teachtorch as tt; from teachtorch.explorer import storage_diagram, graph_diagram, "
            "trace_table; bad = [m for m in ('ipywidgets', 'anywidget', 'IPython', 'matplotlib', 'jupyter_core')"
            " if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@st.composite
def layout(draw):
    """A random tensor view: permuted, sliced with steps, offset, or expanded, of a random shape."""
    ndim = draw(st.integers(0, 3))
    shape = draw(st.lists(st.integers(1, 5), min_size=ndim, max_size=ndim))
    t = tt.arange(float(int(np.prod(shape)) if shape else 1)).reshape(shape)
    kind = draw(st.sampled_from(["plain", "permute", "slice", "offset", "expand"]))
    if kind == "permute" and ndim > 1:
        perm = draw(st.permutations(range(ndim)))
        t = t.permute(*perm)
    elif kind == "slice" and ndim > 0:
        d = draw(st.integers(0, ndim - 1))
        step = draw(st.integers(1, 3))
        start = draw(st.integers(0, shape[d] - 1))
        t = t.narrow(d, 0, shape[d])[(slice(None),) * d + (slice(start, None, step),)]
    elif kind == "offset" and ndim > 0 and shape[0] > 1:
        t = t[1:]
    elif kind == "expand":
        t = t.unsqueeze(0).expand(3, *t.shape)
    return t


@settings(max_examples=60, deadline=None)
@given(layout())
def test_mapping_for_random_layouts(t):
    root = parse(storage_svg(t, max_slices=1000))      # draw every 2-D slice: all elements are checked
    g = view_groups(root)[0]
    seen = check_mapping(t, g)
    assert len(seen) == t.numel()
    # torch as an oracle for the same layout: as_strided over the same storage numbering
    import torch
    flat = torch.arange(t.untyped_storage().nbytes() // t.element_size())
    ref = flat.as_strided(tuple(t.shape), tuple(t.stride()), t.storage_offset())
    for r in elems(g):
        idx = tuple(int(i) for i in r.get("data-index").split(",")) if r.get("data-index") else ()
        assert int(r.get("data-cell")) == int(ref[idx])
