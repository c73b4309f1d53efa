"""The storage diagram: every drawn element is tied to the storage cell its strides say, for every layout.

Expected cells never come from the renderer: they come from the stride formula written out here, from NumPy's
`as_strided` over a numbered storage, and from PyTorch's `as_strided` (the oracle in the property test).
"""

import json
import math
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import teachtorch as tt
from teachtorch.explorer.storage_diagram import storage_scene, storage_svg
from teachtorch.explorer.svg import PALETTE

NS = "{http://www.w3.org/2000/svg}"


# ---- reading the SVG -----------------------------------------------------------------------------------

def parse(svg):
    root = ET.fromstring(svg)           # raises on malformed XML
    assert root.tag == f"{NS}svg" and root.get("class") == "tt-storage"
    return root


def with_class(root, tag, cls):
    return [e for e in root.iter(f"{NS}{tag}") if e.get("class") == cls]


def view_groups(root):
    return with_class(root, "g", "tt-view")


def strips(root):
    return with_class(root, "g", "tt-strip")


def elems(group):
    return with_class(group, "rect", "tt-elem")


def cells(root):
    return with_class(root, "rect", "tt-cell")


def texts(group, cls=None):
    return [t.text for t in group.iter(f"{NS}text") if cls is None or t.get("class") == cls]


def index_of(rect):
    s = rect.get("data-index")
    return tuple(int(i) for i in s.split(",")) if s else ()


def sid(t):
    return str(id(t.untyped_storage()))


# ---- oracles -------------------------------------------------------------------------------------------

def formula_cell(t, idx):
    """The stride formula: storage_offset + sum(i_k * stride_k)."""
    return t.storage_offset() + sum(i * s for i, s in zip(idx, t.stride()))


def numpy_cells(t):
    """Every element's storage cell, by NumPy: the same (sizes, strides, offset) over a numbered storage."""
    n_cells = t.untyped_storage().nbytes() // t.element_size()
    numbered = np.arange(max(n_cells, 1), dtype=np.int64)
    return np.lib.stride_tricks.as_strided(numbered[t.storage_offset():], shape=tuple(t.shape),
                                           strides=[s * 8 for s in t.stride()])


def check_mapping(t, group, every=True):
    """Each drawn element's data-cell is where NumPy and the formula put it; indices distinct and in range."""
    oracle = numpy_cells(t)
    seen = set()
    for r in elems(group):
        idx = index_of(r)
        assert len(idx) == t.dim() and all(0 <= i < n for i, n in zip(idx, t.shape))
        assert int(r.get("data-cell")) == formula_cell(t, idx) == int(oracle[idx])
        assert r.get("data-view") == group.get("data-view")
        assert idx not in seen
        seen.add(idx)
    if every:
        assert len(seen) == t.numel()
    # each element also prints its cell ("→5"), so the tie is visible, not only in the data
    arrows = Counter(s[1:] for s in texts(group) if s and s.startswith("→"))
    assert arrows == Counter(r.get("data-cell") for r in elems(group))
    return seen


def layouts():
    m = tt.arange(24.).reshape(4, 6)
    cube = tt.arange(60.).reshape(3, 4, 5)
    return {
        "contiguous": m,
        "transposed": m.t(),
        "permuted 3-D": cube.permute(2, 0, 1),
        "sliced with steps": m[::2, 1::2],
        "offset rows": m[1:],
        "offset row": m[2],
        "offset slice": m[1:, 2:],
        "expanded": tt.arange(3.).expand(4, 3),
        "expanded middle": tt.arange(6.).reshape(2, 1, 3).expand(2, 4, 3),
        "as_strided overlapping": tt.arange(10.).as_strided((4, 3), (2, 1), 1),
        "unfold": tt.arange(8.).unfold(0, 3, 2),
        "0-d": tt.tensor(7.),
        "0-d view": m[1, 2],
        "diagonal": m.diagonal(),
        "4-D permuted": tt.arange(48.).reshape(2, 2, 3, 4).permute(3, 1, 0, 2),
    }


@pytest.mark.parametrize("name", list(layouts()))
def test_every_element_tied_to_its_cell(name):
    t = layouts()[name]
    root = parse(storage_svg(t, labels=[name]))
    (g,) = view_groups(root)
    assert g.get("data-sizes") == ",".join(map(str, t.shape))
    assert g.get("data-strides") == ",".join(map(str, t.stride()))
    assert int(g.get("data-offset")) == t.storage_offset()
    assert g.get("data-dtype") == t.dtype.name
    assert g.get("data-contiguous") == str(t.is_contiguous()).lower()
    assert g.get("data-label") == name and g.get("data-storage") == sid(t)
    check_mapping(t, g)                               # small tensors: every element is drawn
    # the strip: the whole (small) storage, and a cell says view 0 reads it exactly when an element lives there
    used = {int(r.get("data-cell")) for r in elems(g)}
    strip = {int(c.get("data-cell")): c for c in cells(root)}
    assert sorted(strip) == list(range(t.untyped_storage().nbytes() // t.element_size()))
    for c, rect in strip.items():
        assert rect.get("data-storage") == sid(t)
        assert rect.get("data-views").split() == (["0"] if c in used else [])


def test_expanded_dims_read_one_cell():
    row = tt.tensor([1., 2., 3.])
    e = row.expand(4, 3)
    g = view_groups(parse(storage_svg(e)))[0]
    by_col = {}
    for r in elems(g):
        i, j = index_of(r)
        by_col.setdefault(j, set()).add(int(r.get("data-cell")))
    assert by_col == {j: {j} for j in range(3)}      # stride 0: all four rows read the one cell of column j
    assert "expanded: dim 0 (stride 0)" in " ".join(texts(g))
    # a stride-0 dim in the middle: every element along it shares a cell, the other dims do not
    m = tt.arange(6.).reshape(2, 1, 3).expand(2, 4, 3)
    g = view_groups(parse(storage_svg(m, max_slices=10)))[0]
    groups = {}
    for r in elems(g):
        i, k, j = index_of(r)
        groups.setdefault((i, j), set()).add(int(r.get("data-cell")))
    assert all(len(v) == 1 for v in groups.values()) and len(groups) == 6
    assert len({c for v in groups.values() for c in v}) == 6
    assert "expanded: dim 1 (stride 0)" in " ".join(texts(g))


def test_several_views_of_one_storage_in_one_picture():
    x = tt.arange(12.).reshape(3, 4)
    vs = [x, x.t(), x[1:, ::2], x[1, 2]]
    root = parse(storage_svg(*vs, labels=["x", "x.t()", "x[1:, ::2]", "x[1, 2]"]))
    groups = view_groups(root)
    assert [g.get("data-view") for g in groups] == ["0", "1", "2", "3"]
    assert {g.get("data-storage") for g in groups} == {sid(x)}
    assert len(strips(root)) == 1
    for t, g in zip(vs, groups):
        check_mapping(t, g)
    # which views read each cell, from NumPy's cells of each view
    expect = {c: [] for c in range(12)}
    for k, t in enumerate(vs):
        for c in sorted(set(np.atleast_1d(numpy_cells(t)).ravel().tolist())):
            expect[c].append(str(k))
    assert {int(c.get("data-cell")): c.get("data-views").split() for c in cells(root)} == expect
    # elements are coloured by view: the group around view k's boxes has PALETTE[k] as its stroke
    for k, g in enumerate(groups):
        strokes = {sub.get("stroke") for sub in g.iter(f"{NS}g")
                   if any(child.get("class") == "tt-elem" for child in sub)}
        assert strokes == {PALETTE[k]}


def test_two_storages_two_strips():
    a = tt.arange(6.).reshape(2, 3)
    b = tt.ones(4)
    root = parse(storage_svg(a, b, a.t(), labels=["a", "b", "a.t()"]))
    sa, sb = strips(root)                             # grouped by storage, in the order first seen
    assert (sa.get("data-storage"), sb.get("data-storage")) == (sid(a), sid(b))
    assert {c.get("data-storage") for c in cells(sa)} == {sid(a)} and len(cells(sa)) == 6
    assert {c.get("data-storage") for c in cells(sb)} == {sid(b)} and len(cells(sb)) == 4
    assert [(g.get("data-label"), g.get("data-storage")) for g in view_groups(root)] == \
        [("a", sid(a)), ("a.t()", sid(a)), ("b", sid(b))]
    assert {c.get("data-views") for c in cells(sa)} == {"0 2"} and {c.get("data-views") for c in cells(sb)} == {"1"}


def test_labels_default_and_partial():
    x = tt.arange(4.)
    root = parse(storage_svg(x, x[1:], x[::2], labels=["x", None]))
    assert [g.get("data-label") for g in view_groups(root)] == ["x", "t1", "t2"]
    assert [g.get("data-label") for g in view_groups(parse(storage_svg(x)))] == ["t0"]


def test_caption_says_layout_base_and_expansion():
    flat = tt.arange(12.)
    x = flat.view(3, 4)
    s = x[1:, ::2]             # as in PyTorch, _base is the tensor that owns the memory: flat, not x
    assert s._base is flat
    caption = " ".join(texts(view_groups(parse(storage_svg(flat, s, labels=["flat", "s"])))[1]))
    assert f"sizes {list(s.shape)}" in caption and f"strides {list(s.stride())}" in caption
    assert f"offset {s.storage_offset()}" in caption and "float32" in caption
    assert "not contiguous" in caption
    assert "view of flat" in caption                # its _base is drawn too, under the label flat
    # when the _base is not drawn, its shape is given
    caption_x = " ".join(texts(view_groups(parse(storage_svg(x)))[0]))
    assert f"_base: shape [{x.numel()}]" in caption_x and "· contiguous" in caption_x
    fresh = " ".join(texts(view_groups(parse(storage_svg(tt.ones(2, 2))))[0]))
    assert "_base" not in fresh and "view of" not in fresh
    zero_d = " ".join(texts(view_groups(parse(storage_svg(tt.tensor(3, dtype=tt.int64))))[0]))
    assert "0-d" in zero_d and "int64" in zero_d and "sizes []" in zero_d


def test_values_are_drawn_compactly():
    a = tt.tensor([1.5, -2.0, 1 / 3, 123456.0])
    root = parse(storage_svg(a))
    strip_values = [t for t in texts(strips(root)[0]) if t and not t.isdigit()]
    assert strip_values == ["1.5", "-2.", "0.333", "1.23e5"]    # 3 significant digits; whole floats "2."
    elem_values = [t for t in texts(view_groups(root)[0]) if t in strip_values]
    assert elem_values == strip_values
    b = tt.tensor([True, False])
    assert {"True", "False"} <= set(texts(parse(storage_svg(b))))
    i = tt.tensor([7, -300000], dtype=tt.int64)
    assert {"7", "-300000"} <= set(texts(parse(storage_svg(i))))
    assert not {"1.5", "-2.", "0.333"} & set(texts(parse(storage_svg(a, values=False))))


def test_meta_tensors_have_a_layout_but_no_values():
    m = tt.empty(2, 3, device="meta").t()
    root = parse(storage_svg(m))
    check_mapping(m, view_groups(root)[0])
    assert len(cells(root)) == 6
    assert all(t.startswith("→") for t in texts(view_groups(root)[0], cls=None)[-6:])


def test_more_than_two_dims_is_a_row_of_slices():
    t = tt.arange(24).reshape(2, 3, 4).transpose(0, 2)        # (4, 3, 2), not contiguous
    svg = storage_svg(t)
    g = view_groups(parse(svg))[0]
    assert [s for s in texts(g) if s.startswith("[")] == [f"[{i}, :, :]" for i in range(4)]
    check_mapping(t, g)
    four = tt.zeros(2, 3, 2, 2)
    heads = [s for s in texts(view_groups(parse(storage_svg(four)))[0]) if s.startswith("[")]
    assert heads == [f"[{i}, {j}, :, :]" for i in range(2) for j in range(3)]


def test_many_slices_are_cut():
    big = tt.zeros(20, 3, 3)
    root = parse(storage_svg(big, max_slices=4))
    g = view_groups(root)[0]
    assert len(elems(g)) == 4 * 9
    assert {index_of(r)[0] for r in elems(g)} == {0, 1, 2, 3}
    assert f"… {20 - 4} more" in texts(g, "tt-ellipsis")
    assert "showing 4 of 20 slices" in texts(g, "tt-note")
    check_mapping(big, g, every=False)


def test_empty_and_zero_d():
    for e in (tt.zeros(0, 3), tt.arange(6.)[6:], tt.arange(6.).reshape(2, 3)[:, 1:1]):
        root = parse(storage_svg(e))
        g = view_groups(root)[0]
        assert elems(g) == [] and "empty" in texts(g, "tt-note")
        assert all(c.get("data-views") == "" for c in cells(root))   # nothing reads the storage
    x = tt.arange(12.).reshape(3, 4)
    s = x[1, 2]
    (r,) = elems(view_groups(parse(storage_svg(s)))[0])
    assert r.get("data-index") == "" and int(r.get("data-cell")) == s.storage_offset() == 6


def strip_ellipses_needed(strip_cells, n_cells):
    """How many gaps a strip showing these (sorted) cells of an n-cell storage has: one ellipsis each."""
    gaps = sum(1 for a, b in zip(strip_cells, strip_cells[1:]) if b != a + 1)
    return gaps + (strip_cells[0] != 0) + (strip_cells[-1] != n_cells - 1)


@pytest.mark.parametrize("n", [10_000, 10_000_000])
def test_large_tensors_are_cut_with_a_note(n):
    t = tt.zeros(n)
    svg = storage_svg(t)
    root = parse(svg)
    g = view_groups(root)[0]
    assert len(elems(g)) == 16                         # max_cols elements of the one row
    check_mapping(t, g, every=False)
    assert texts(g, "tt-ellipsis")                     # "…" after the drawn elements
    assert f"showing 16 of {n:,} elements" in texts(g, "tt-note")
    strip_cells = sorted(int(c.get("data-cell")) for c in cells(root))
    assert 16 <= len(strip_cells) <= 256 and set(range(16)) <= set(strip_cells)
    assert texts(root, "tt-note")[-1] == f"showing {len(strip_cells)} of {n:,} storage elements"
    assert len(texts(strips(root)[0], "tt-ellipsis")) == strip_ellipses_needed(strip_cells, n)
    assert len(svg) < 200_000


def test_large_2d_views_and_strip_gaps():
    t = tt.zeros(100, 100).t()
    root = parse(storage_svg(t, max_rows=8, max_cols=8))
    g = view_groups(root)[0]
    assert len(elems(g)) == 64 and {index_of(r) for r in elems(g)} == {(i, j) for i in range(8) for j in range(8)}
    check_mapping(t, g, every=False)
    assert sorted(texts(g, "tt-ellipsis")) == sorted(["…", "⋮"])
    assert "showing 8 × 8 of 100 × 100 elements" in texts(g, "tt-note")
    strip_cells = sorted(int(c.get("data-cell")) for c in cells(root))
    assert {int(r.get("data-cell")) for r in elems(g)} <= set(strip_cells)   # used cells come first
    assert len(texts(strips(root)[0], "tt-ellipsis")) == strip_ellipses_needed(strip_cells, 10_000)
    # a strided slice of a big storage: the used cells are drawn, with ellipses for the cells between
    s = tt.zeros(100_000)[5::1000]
    root = parse(storage_svg(s))
    used = [5 + 1000 * k for k in range(16)]
    strip_cells = sorted(int(c.get("data-cell")) for c in cells(root))
    assert set(used) <= set(strip_cells)
    assert {int(c.get("data-cell")) for c in cells(root) if c.get("data-views") == "0"} == set(used)
    assert len(texts(strips(root)[0], "tt-ellipsis")) == strip_ellipses_needed(strip_cells, 100_000)


def test_max_cells_bounds_the_strip_even_when_views_use_more():
    x = tt.zeros(100, 100)
    root = parse(storage_svg(x, x.t(), x[::3, 1:], max_cells=100))
    assert len(cells(root)) == 100
    for t, g in zip((x, x.t(), x[::3, 1:]), view_groups(root)):
        check_mapping(t, g, every=False)
        assert len(elems(g)) == 256
    # and a >2-D tensor with many big slices stays bounded: 8 slices of 16 x 16
    big = tt.zeros(50, 40, 40)
    root = parse(storage_svg(big))
    assert len(elems(view_groups(root)[0])) == 8 * 16 * 16 and len(cells(root)) <= 256


def test_scene_is_plain_data():
    x = tt.arange(12.).reshape(3, 4)
    scene = storage_scene(x, x.t()[1:], tt.zeros(10_000), labels=["x", "x.t()[1:]", "z"])
    json.dumps(scene)                                   # JSON-able: no tensors, storages or NumPy scalars
    first, second = scene["storages"]
    assert [v["label"] for v in first["views"]] == ["x", "x.t()[1:]"]
    # x.t()[1:] is x without its first column: cells 0, 4, 8 are read by x only
    assert [first["readers"][c] for c in (0, 4, 8)] == [[0]] * 3
    assert all(first["readers"][c] == [0, 1] for c in range(12) if c % 4)
    assert second["notes"] == [f"showing {len(second['strip'])} of 10,000 storage elements"]


def test_renderer_imports_no_jupyter():
    code = ("import sys; import teachtorch.explorer.storage_diagram; "
            "print([m for m in ('ipywidgets', 'anywidget', 'IPython', 'matplotlib', 'jupyter_core', "
            "'notebook', 'jupyterlab') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---- random layouts --------------------------------------------------------------------------------------

@st.composite
def layout(draw):
    """A random view: a random shape, then a few of permute / step slice / offset / expand, in any order."""
    ndim = draw(st.integers(0, 4))
    shape = draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim))
    t = tt.arange(float(math.prod(shape))).reshape(shape)
    for kind in draw(st.lists(st.sampled_from(["permute", "slice", "offset", "expand"]), max_size=3)):
        if kind == "permute" and t.dim() > 1:
            t = t.permute(*draw(st.permutations(range(t.dim()))))
        elif kind == "slice" and t.dim() > 0:
            d = draw(st.integers(0, t.dim() - 1))
            start = draw(st.integers(0, t.shape[d]))      # start == size gives an empty view
            step = draw(st.integers(1, 3))
            t = t[(slice(None),) * d + (slice(start, None, step),)]
        elif kind == "offset" and t.dim() > 0 and t.shape[0] > 1:
            t = t[draw(st.integers(1, t.shape[0] - 1))]   # select: drops a dim, moves the offset
        elif kind == "expand" and t.dim() < 4:
            t = t.unsqueeze(0).expand(draw(st.integers(1, 3)), *t.shape)
    return t


@settings(max_examples=80, deadline=None)
@given(layout())
def test_mapping_for_random_layouts(t):
    root = parse(storage_svg(t, max_slices=1000))      # draw every 2-D slice: all elements are checked
    g = view_groups(root)[0]
    check_mapping(t, g)
    # PyTorch as a second oracle: as_strided over a numbered storage of the same length
    numbered = torch.arange(t.untyped_storage().nbytes() // t.element_size())
    ref = numbered.as_strided(tuple(t.shape), tuple(t.stride()), t.storage_offset())
    for r in elems(g):
        assert int(r.get("data-cell")) == int(ref[index_of(r)])
    readers = {int(c.get("data-cell")) for c in cells(root) if c.get("data-views") == "0"}
    assert readers == set(ref.reshape(-1).tolist())
