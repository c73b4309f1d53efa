"""The dispatch trace table: hops grouped into calls, forward/backward sections, loops folded losslessly."""

import dataclasses
import time
import xml.etree.ElementTree as ET

from hypothesis import given, settings, strategies as st

import teachtorch as tt
from teachtorch.autograd.graph import node_id, walk
from teachtorch.explorer.trace_table import calls, find_runs, trace_rows, trace_svg, trace_text

NS = "{http://www.w3.org/2000/svg}"


def test_hops_grouped_into_calls_with_their_path():
    a = tt.ones(2, 3, requires_grad=True)
    b = tt.ones(2, 3)
    with tt.dispatch.trace() as t:
        c = a + b
    (row,) = trace_rows(t)
    # the path is exactly the hops the dispatcher made for this call, in order
    hops = [e for e in t.events if e.op == "aten::add.Tensor"]
    assert [h["key"] for h in row["path"]] == [e.key for e in hops]
    assert [h["kernel"] for h in row["path"]] == [e.kernel for e in hops]
    assert row["path"][0]["key"] == "AutogradCPU" and row["path"][-1]["key"] == "CPU"
    assert row["op"] == "aten.add.Tensor" and row["section"] == "forward" and row["count"] == 1
    assert [x["sizes"] for x in row["inputs"]] == [[2, 3], [2, 3]]
    assert row["outputs"][0]["name"] == "$2"
    assert row["storages"] == sorted(str(id(x.untyped_storage())) for x in (a, b, c))
    assert row["text"] == "$2: f32[2, 3] = aten.add.Tensor($0, $1)"


def test_ops_called_inside_a_kernel_are_listed_not_rows():
    x = tt.arange(6.).reshape(2, 3)
    with tt.dispatch.trace() as t:
        x.t().contiguous()
    groups = calls(t)
    assert len(groups) == len(t.ops()) == len(trace_rows(t, fold=False))


def test_backward_section_and_node_ids_match_the_graph():
    a = tt.ones(3, requires_grad=True)
    loss = (a * 2).exp().sum()
    ids = {f"n{n.id}": n.name for n in walk(loss).nodes}
    with tt.dispatch.trace() as t:
        loss.backward()
    rows = trace_rows(t)
    back = [r for r in rows if r["section"] == "backward"]
    assert back
    for r in back:
        assert ids[r["backward_node_id"]] == r["backward_node"]
    assert {r["backward_node"] for r in back} >= {"SumBackward0", "ExpBackward0", "MulBackward0"}
    text = trace_text(t)
    assert "# backward" in text


def loop_trace(n, change_shapes=False):
    x = tt.ones(4, requires_grad=True)
    with tt.dispatch.trace() as t:
        y = x.sum(0)                              # a prefix
        for i in range(n):
            s = 4 + i if change_shapes else 4
            h = tt.ones(s) * 2                    # the body: ones, mul, exp, sum
            h = h.exp().sum()
        z = y * 3                                 # a suffix
    return t


def test_a_loop_folds_into_counted_rows():
    t = loop_trace(10)
    rows = trace_rows(t)
    assert [r["op"] for r in rows] == ["aten.sum.dim_IntList", "aten.ones.default", "aten.mul.Tensor",
                                       "aten.exp.default", "aten.sum.default", "aten.mul.Tensor"]
    assert [r["count"] for r in rows] == [1, 10, 10, 10, 10, 1]
    body = rows[1:5]
    assert {r["fold"]["times"] for r in body} == {10} and [r["fold"]["position"] for r in body] == [0, 1, 2, 3]
    # the folded time is the sum over the ten repetitions
    mul_calls = [e for e in t.events if e.depth == 0 and e.op == "aten::mul.Tensor"][:10]
    assert abs(rows[2]["time_us"] - sum(e.duration_ns for e in mul_calls) / 1000) < 0.2
    text = trace_text(t)
    assert "# repeated 10 times {" in text and text.count("aten.exp.default") == 1


def test_a_loop_whose_shapes_change_does_not_fold():
    rows = trace_rows(loop_trace(5, change_shapes=True))
    assert len(rows) == 2 + 4 * 5 and all(r["count"] == 1 for r in rows)


def test_nested_loops_fold_the_outer_loop_that_covers_most():
    x = tt.ones(3)
    with tt.dispatch.trace() as t:
        for i in range(3):
            for j in range(4):
                x = x * 2
            x = x.exp()
    counts = [(r["op"], r["count"]) for r in trace_rows(t)]
    assert counts == [("aten.mul.Tensor", 3)] * 4 + [("aten.exp.default", 3)]


def test_100000_calls_bounded_time_and_size():
    t = loop_trace(3)
    body = [e for e in t.events]
    events = []
    for rep in range(100_000 // len(body) + 1):         # replicate real hops with fresh indices
        shift = rep * len(body)
        for e in body:
            events.append(dataclasses.replace(e, index=e.index + shift,
                                              parent=None if e.parent is None else e.parent + shift))
    start = time.perf_counter()
    rows = trace_rows(events, max_rows=300)
    svg = trace_svg(rows)
    elapsed = time.perf_counter() - start
    assert len(rows) <= 301 and len(svg) < 500_000 and elapsed < 30
    unfolded = trace_rows(events, fold=False, max_rows=300)
    assert unfolded[-1]["section"] == "note" and "more rows" in unfolded[-1]["note"]


def test_svg_rows_sections_storages_and_nodes():
    a = tt.ones(3, requires_grad=True)
    with tt.dispatch.trace() as t:
        for _ in range(3):
            loss = (a * 2).sum()
        loss.backward()
    rows = trace_rows(t)
    root = ET.fromstring(trace_svg(rows))
    assert root.get("class") == "tt-trace"
    gs = [g for g in root.iter(f"{NS}g") if g.get("class") == "tt-row"]
    assert len(gs) == len(rows)
    for g, r in zip(gs, rows):
        assert g.get("data-storages") == " ".join(r["storages"])
        assert int(g.get("data-count")) == r["count"]
        assert g.get("data-section") == r["section"]
        assert g.get("data-node") == r["backward_node_id"]
    sections = [g.get("data-section") for g in root.iter(f"{NS}g") if g.get("class") == "tt-section"]
    assert sections == ["forward", "backward"]


@st.composite
def programs(draw):
    """A random sequence of small ops with loops in it; each op's signature is (op, shape)."""
    parts = draw(st.lists(st.tuples(st.lists(st.sampled_from(["add", "mul", "exp", "sum"]), min_size=1,
                                             max_size=4), st.integers(1, 4), st.integers(2, 3)),
                          min_size=1, max_size=4))
    return parts


@settings(max_examples=40, deadline=None)
@given(programs())
def test_folding_is_lossless(parts):
    with tt.dispatch.trace() as t:
        for ops, times, n in parts:
            x = tt.ones(n)
            for _ in range(times):
                for op in ops:
                    x = {"add": lambda v: v + 1, "mul": lambda v: v * 2, "exp": lambda v: v.exp(),
                         "sum": lambda v: v.sum().expand(n)}[op](x)
    flat = [(r["op"], tuple(tuple(i["sizes"]) for i in r["inputs"])) for r in trace_rows(t, fold=False)]
    folded = trace_rows(t)
    expanded, i = [], 0
    while i < len(folded):
        f = folded[i]["fold"]
        if f is None:
            expanded.append(folded[i])
            i += 1
            continue
        block = folded[i:i + f["len"]]
        expanded += block * f["times"]
        i += f["len"]
    assert [(r["op"], tuple(tuple(x["sizes"]) for x in r["inputs"])) for r in expanded] == flat


def test_find_runs_prefers_the_longest_cover():
    assert find_runs(list("aaaa")) == [(0, 1, 4)]
    assert find_runs(list("xababab")) == [(0, 1, 1), (1, 2, 3)]
    assert find_runs(list("abcabd")) == [(0, 1, 1), (1, 1, 1), (2, 1, 1), (3, 1, 1), (4, 1, 1), (5, 1, 1)]
    assert [(s, p, k) for s, p, k in find_runs(list("abcabcabc"))] == [(0, 3, 3)]
