"""The dispatch trace table: hops grouped into calls, forward/backward sections, loops folded losslessly."""

import dataclasses
import functools
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

from hypothesis import given, settings, strategies as st

import teachtorch as tt
from teachtorch.autograd.graph import walk
from teachtorch.explorer.trace_table import MAX_PERIOD, calls, find_runs, trace_rows, trace_svg, trace_text

NS = "{http://www.w3.org/2000/svg}"


def sid(t):
    """The storage id a trace records for a tensor (the storage diagram's data-storage too)."""
    return str(id(t.untyped_storage()))


def hops_of(t, first):
    """The hops of one call, from the events: the first hop, then each child with the same op."""
    path = [first]
    while True:
        nxt = [e for e in t.events if e.parent == path[-1].index and e.op == first.op]
        if not nxt:
            return path
        path += nxt


def svg_rows(svg):
    root = ET.fromstring(svg)
    return root, [g for g in root.iter(f"{NS}g") if g.get("class") == "tt-row"]


# ---- grouping hops into calls ----------------------------------------------------------------------------

def test_add_of_requires_grad_tensors_goes_through_autograd_to_cpu():
    a = tt.ones(2, 3, requires_grad=True)
    b = tt.ones(2, 3)
    with tt.dispatch.trace() as t:
        c = a + b
    (row,) = trace_rows(t)
    (first,) = t.ops()
    hops = hops_of(t, first)
    assert len(hops) == len(t.events)               # every hop of the trace belongs to this one call
    assert [h["key"] for h in row["path"]] == [e.key for e in hops]
    assert [h["kernel"] for h in row["path"]] == [e.kernel for e in hops]
    assert [h["us"] for h in row["path"]] == [round(e.duration_ns / 1000, 1) for e in hops]
    # the path goes down the call's key set, highest key first: autograd first, the CPU kernel last
    keys = first.keyset
    assert [keys.index(h["key"]) for h in row["path"]] == sorted(keys.index(h["key"]) for h in row["path"])
    assert row["path"][0]["key"] == "AutogradCPU" and row["path"][-1]["key"] == "CPU"
    # a hop's time includes the hops below it, so times never grow down the path
    assert all(x["us"] >= y["us"] for x, y in zip(row["path"], row["path"][1:]))
    assert row["time_us"] == row["path"][0]["us"]
    assert row["op"] == "aten.add.Tensor" and row["section"] == "forward" and row["count"] == 1
    assert row["fold"] is None and row["backward_node"] is None and row["backward_node_id"] is None
    assert row["storages"] == sorted({sid(a), sid(b), sid(c)}) and len(row["storages"]) == 3
    assert row["text"] == "$2: f32[2, 3] = aten.add.Tensor($0, $1)"
    json.dumps(row)                                  # the rows travel to the browser as JSON


def test_a_view_op_passes_through_ad_inplace_or_view():
    a = tt.ones(2, 3, requires_grad=True)
    with tt.dispatch.trace() as t:
        a.t()
    (row,) = trace_rows(t)
    assert [h["key"] for h in row["path"]] == [e.key for e in t.events]
    assert "ADInplaceOrView" in [h["key"] for h in row["path"]]     # views bump versions / mark views


def test_inputs_and_outputs_describe_layout_of_views():
    base = tt.arange(24.).reshape(2, 3, 4)                  # strides (12, 4, 1)
    permuted = base.permute(2, 0, 1)                        # strides (1, 12, 4)
    stepped = base[:, 1:, ::2]                              # sizes (2, 2, 2), strides (12, 4, 2), offset 4
    expanded = tt.ones(3).expand(2, 3)                      # stride 0 in dim 0
    scalar = tt.tensor(5.)                                  # 0-d
    empty = tt.ones(0, 3)
    with tt.dispatch.trace() as t:
        p2 = permuted * 2
        s1 = stepped + 1
        es = expanded * scalar
        e0 = empty.sum(0)
    rows = trace_rows(t)
    assert [r["op"] for r in rows] == ["aten.mul.Tensor", "aten.add.Tensor", "aten.mul.Tensor",
                                       "aten.sum.dim_IntList"]
    assert rows[1]["inputs"][0]["sizes"] == [2, 2, 2] and rows[1]["inputs"][0]["strides"] == [12, 4, 2]
    assert rows[1]["inputs"][0]["offset"] == 4
    assert rows[0]["inputs"][0]["strides"] == [1, 12, 4]
    assert rows[2]["inputs"][0]["strides"] == [0, 1] and rows[2]["inputs"][1]["sizes"] == []
    assert rows[3]["inputs"][0]["sizes"] == [0, 3] and rows[3]["outputs"][0]["sizes"] == [3]
    # every tensor's entry matches the tensor itself
    pairs = [(rows[0], [permuted], [p2]), (rows[1], [stepped], [s1]), (rows[2], [expanded, scalar], [es]),
             (rows[3], [empty], [e0])]
    for row, ins, outs in pairs:
        for entry, x in zip(row["inputs"] + row["outputs"], ins + outs):
            assert entry["sizes"] == list(x.shape) and entry["strides"] == list(x.stride())
            assert entry["offset"] == x.storage_offset() and entry["dtype"] == x.dtype.name
            assert entry["device"] == str(x.device) and entry["storage"] == sid(x)
        assert row["storages"] == sorted({sid(x) for x in ins + outs})
    # views share their base's storage: one id for base, permuted and stepped
    assert rows[0]["inputs"][0]["storage"] == rows[1]["inputs"][0]["storage"] == sid(base)


def test_ops_called_inside_a_kernel_are_listed_not_rows():
    x = tt.arange(6.).reshape(2, 3)
    with tt.dispatch.trace() as t:
        x.t().contiguous()
    rows = trace_rows(t, fold=False)
    assert len(calls(t)) == len(t.ops()) == len(rows)
    contiguous = next(r for r in rows if r["op"] == "aten.contiguous.default")
    first = next(e for e in t.ops() if e.op == "aten::contiguous")
    inner = {e.aten_name for e in t.events if e.parent is not None and e.op != first.op
             and t.event(e.parent).op == first.op}
    assert inner and set(contiguous["calls"]) == inner and len(contiguous["calls"]) == len(inner)
    assert all(h["kernel"] in {e.kernel for e in hops_of(t, first)} for h in contiguous["path"])


def shifted(events, by):
    return [dataclasses.replace(e, index=e.index + by, parent=None if e.parent is None else e.parent + by)
            for e in events]


def test_grouping_follows_index_values_not_positions():
    a = tt.ones(3, requires_grad=True)
    with tt.dispatch.trace() as t:
        b = (a * 2).exp()
        b.t().sum()
    full = trace_rows(t, fold=False)
    # indices that do not start at 0, as in a bounded trace that dropped old hops
    assert [r["path"] for r in trace_rows(shifted(t.events, 1000), fold=False)] == [r["path"] for r in full]
    second_call = t.ops()[1].index
    tail = t.events[second_call:]
    assert tail[0].index != 0
    assert [r["op"] for r in trace_rows(tail, fold=False)] == [r["op"] for r in full[1:]]


def test_lower_hops_noted_in_the_first_event_make_the_same_path():
    """The live trace keeps one event per call and notes its lower hops in ev.lower (recorder.py)."""
    a = tt.ones(2, requires_grad=True)
    with tt.dispatch.trace() as t:
        a.t()
    first, *lower = t.events
    compact = dataclasses.replace(first, lower=[(e.key, e.kernel, e.duration_ns) for e in lower])
    assert trace_rows([compact])[0]["path"] == trace_rows(t)[0]["path"]


def test_an_op_that_fails_is_a_row_with_its_error():
    with tt.dispatch.trace() as t:
        try:
            tt.ones(2) + tt.ones(3)
        except RuntimeError:
            pass
    row = trace_rows(t)[-1]
    assert row["op"] == "aten.add.Tensor" and "RuntimeError" in row["error"] and row["outputs"] == []
    assert "!! RuntimeError" in row["text"]
    assert len(svg_rows(trace_svg(t))[1]) == 3


# ---- forward and backward --------------------------------------------------------------------------------

def test_backward_section_and_node_ids_match_the_graph():
    a = tt.ones(3, requires_grad=True)
    w = tt.ones(3, requires_grad=True)
    with tt.dispatch.trace() as t:
        loss = (a * w).exp().sum()
        graph = walk(loss)                               # ids of the nodes backward will run
        loss.backward()
    ids = {f"n{n.id}": n.name for n in graph.nodes}
    rows = trace_rows(t, fold=False)
    back = [r for r in rows if r["section"] == "backward"]
    fwd = [r for r in rows if r["section"] == "forward"]
    assert [r["op"] for r in fwd[:3]] == ["aten.mul.Tensor", "aten.exp.default", "aten.sum.default"]
    assert back
    for r in back:
        assert ids[r["backward_node_id"]] == r["backward_node"]
    ran = {e.backward_node for e in t.events if e.backward_node}
    assert {r["backward_node"] for r in back} == ran >= {"SumBackward0", "ExpBackward0", "MulBackward0"}
    # each backward row's node is the node of its events
    for r, g in zip(rows, calls(t)):
        assert r["backward_node_id"] == (None if g[0].backward_node_id is None else f"n{g[0].backward_node_id}")
    text = trace_text(t).splitlines()
    assert text[0].startswith("# made before the trace: $0 f32[") and text[1] == "# forward" and "# backward" in text
    assert text.index("# backward") > text.index(fwd[2]["text"])


def test_a_training_loop_folds_forward_and_backward_together():
    w = tt.ones(3, requires_grad=True)
    with tt.dispatch.trace() as t:
        for _ in range(6):
            loss = (w * 2).sum()
            loss.backward()
            w.grad = None                             # else the first round differs: it sets grad, others add
    rows = trace_rows(t)
    assert {r["count"] for r in rows} == {6}
    assert len(rows) == len(calls(t)) // 6
    assert [r["section"] for r in rows][0] == "forward" and "backward" in [r["section"] for r in rows]
    for r in rows:
        assert (r["backward_node_id"] is not None) == (r["section"] == "backward")
    text = trace_text(t)
    assert text.startswith("# made before the trace: $0 f32[3]\n# forward\n# x6 {") and "  # backward" in text


# ---- folding loops ---------------------------------------------------------------------------------------

def loop_trace(n, change_shapes=False, body=3):
    x = tt.ones(4, requires_grad=True)
    with tt.dispatch.trace() as t:
        y = x.sum(0)                              # a prefix
        for i in range(n):
            s = 4 + i if change_shapes else 4
            h = tt.ones(s) * 2                    # the body: ones, mul, exp (3 ops)
            h = h.exp()
            if body == 4:
                h = h.sum()
        y * 3                                     # a suffix
    return t


def test_a_loop_of_ten_folds_into_three_counted_rows():
    t = loop_trace(10)
    rows = trace_rows(t)
    assert len(calls(t)) == 1 + 3 * 10 + 1
    assert [r["op"] for r in rows] == ["aten.sum.dim_IntList", "aten.ones.default", "aten.mul.Tensor",
                                       "aten.exp.default", "aten.mul.Tensor"]
    assert [r["count"] for r in rows] == [1, 10, 10, 10, 1]
    assert rows[0]["fold"] is None and rows[-1]["fold"] is None
    body = rows[1:4]
    assert [r["fold"] for r in body] == [{"block": 0, "len": 3, "times": 10, "position": j} for j in range(3)]
    # the folded row keeps the first repetition's tensors, and its time is the sum of the ten calls
    muls = [e for e in t.ops() if e.op == "aten::mul.Tensor"][:10]
    assert rows[2]["inputs"][0]["name"] == muls[0].inputs[0].name
    assert abs(rows[2]["time_us"] - sum(e.duration_ns for e in muls) / 1000) < 0.2
    assert rows[2]["path"] == trace_rows(t, fold=False)[2]["path"]


def test_the_loop_as_text_is_printed_once():
    t = loop_trace(10)
    flat = str(t).splitlines()                           # dispatch.trace's own LoggingTensor lines
    lines = trace_text(t).splitlines()
    # x was made before the trace: a first line says so, so that no line reads a $n no line made
    intro = "# made before the trace: $0 f32[4]"
    assert lines == ([intro, "# forward", flat[0], "# x10 {  loop body of 3 calls, ran 10 times"]
                     + ["  " + line for line in flat[1:4]] + ["# }", flat[-1]])
    assert trace_text(t, fold=False).splitlines() == [intro, "# forward"] + flat


def test_a_loop_whose_shapes_change_does_not_fold():
    rows = trace_rows(loop_trace(5, change_shapes=True))
    assert len(rows) == 2 + 3 * 5 and all(r["count"] == 1 and r["fold"] is None for r in rows)


def test_values_do_not_stop_folding():
    with tt.dispatch.trace() as t:
        for i in range(5):
            tt.full((2,), float(i)) * float(i)          # other values, same shapes
    rows = trace_rows(t)
    assert [r["count"] for r in rows] == [5, 5]


def test_strides_stop_folding():
    x = tt.ones(3, 3)
    with tt.dispatch.trace() as t:
        for i in range(4):
            (x if i % 2 else x.t()) * 2               # same shapes, strides (3, 1) then (1, 3)
    rows = trace_rows(t)
    # calls: t, mul of the transpose, mul of x, and again: a body of 3 calls run twice, not mul x2
    assert [(r["op"], r["count"]) for r in rows] == [("aten.t.default", 2), ("aten.mul.Tensor", 2),
                                                     ("aten.mul.Tensor", 2)]
    assert [r["inputs"][0]["strides"] for r in rows[1:]] == [[1, 3], [3, 1]]


def test_nested_loops_fold_the_outer_loop():
    x = tt.ones(3)
    with tt.dispatch.trace() as t:
        for i in range(3):
            for j in range(4):
                x = x * 2
            x = x.exp()
    counts = [(r["op"], r["count"]) for r in trace_rows(t)]
    # folding the outer loop leaves 5 rows; folding the inner one would leave 3 * (1 + 1) = 6
    assert counts == [("aten.mul.Tensor", 3)] * 4 + [("aten.exp.default", 3)]


def test_an_inner_loop_folds_when_the_outer_body_changes():
    with tt.dispatch.trace() as t:
        for n in (2, 3):
            y = tt.ones(n)
            for j in range(5):
                y = y * 2
    counts = [(r["op"], r["count"]) for r in trace_rows(t)]
    assert counts == [("aten.ones.default", 1), ("aten.mul.Tensor", 5)] * 2


def test_a_prefix_that_looks_like_the_body_does_not_shift_the_fold():
    x = tt.ones(4)
    with tt.dispatch.trace() as t:
        x = x * 2                                     # the same call as the body's first
        for _ in range(6):
            x = x * 2
            x = x.exp()
            x = x.sum().expand(4).contiguous()        # back to the layout the body started with
    rows = trace_rows(t)
    # a mul on its own, then the loop of 5 calls: the fewest rows. (Folding `mul mul` first, greedily,
    # would shift the loop by one call and leave its last round unfolded.)
    assert [r["count"] for r in rows] == [1, 6, 6, 6, 6, 6]
    assert rows[1]["fold"]["len"] == 5 and rows[1]["op"] == rows[0]["op"] == "aten.mul.Tensor"


def test_a_loop_body_longer_than_the_longest_period_does_not_fold():
    x = tt.ones(2)
    with tt.dispatch.trace() as t:
        for _ in range(2):
            for k in range(MAX_PERIOD + 1):
                x = x + 1 if k else x * 2
    rows = trace_rows(t, max_rows=None)
    # the whole body (a mul, then 64 adds) is too long to fold; the adds inside it fold
    assert [(r["op"], r["count"]) for r in rows] == [("aten.mul.Tensor", 1), ("aten.add.Tensor", 64)] * 2


def test_find_runs_examples():
    assert find_runs(list("aaaa")) == [(0, 1, 4)]
    assert find_runs(list("xababab")) == [(0, 1, 1), (1, 2, 3)]
    assert find_runs(list("abcabd")) == [(i, 1, 1) for i in range(6)]
    assert find_runs(list("abcabcabc")) == [(0, 3, 3)]
    assert find_runs(list("mmabmabmab")) == [(0, 1, 1), (1, 3, 3)]     # not m x2, then (abm) x2, a, b
    assert find_runs([]) == [] and find_runs(["a"]) == [(0, 1, 1)]


def expand(runs, seq):
    out = []
    for start, period, times in runs:
        out += list(seq[start:start + period]) * times
    return out


@functools.lru_cache(None)
def fewest_rows(seq):
    """Brute force: the fewest rows of any split of seq into calls and repeated blocks."""
    if not seq:
        return 0
    best = 1 + fewest_rows(seq[1:])
    for p in range(1, len(seq) // 2 + 1):
        k = 1
        while seq[k * p:(k + 1) * p] == seq[:p] and (k + 1) * p <= len(seq):
            k += 1
            best = min(best, p + fewest_rows(seq[k * p:]))
    return best


@st.composite
def loopy(draw):
    """A sequence made of loops (a body repeated) and lone symbols."""
    seq = []
    for body, times in draw(st.lists(st.tuples(st.lists(st.sampled_from("abcd"), min_size=1, max_size=5),
                                               st.integers(1, 5)), max_size=6)):
        seq += body * times
    return seq


@settings(max_examples=200, deadline=None)
@given(loopy())
def test_find_runs_is_lossless(seq):
    runs = find_runs(seq)
    assert expand(runs, seq) == seq
    assert all(1 <= p <= MAX_PERIOD and k >= 1 for _, p, k in runs)
    assert [s for s, _, _ in runs] == sorted(s for s, _, _ in runs)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=14))
def test_find_runs_leaves_the_fewest_rows(seq):
    runs = find_runs(seq)
    assert expand(runs, seq) == seq
    assert sum(p for _, p, _ in runs) == fewest_rows(tuple(seq))


OPS = {"add": lambda v: v + 1, "mul": lambda v: v * 2, "exp": lambda v: v.exp(),
       "t": lambda v: v.t(), "sum": lambda v: v.sum(0, keepdim=True).expand(*v.shape)}


@st.composite
def programs(draw):
    """Loops of small ops on small tensors: [(ops of the body, times, shape)]."""
    return draw(st.lists(st.tuples(st.lists(st.sampled_from(sorted(OPS)), min_size=1, max_size=4),
                                   st.integers(1, 4), st.sampled_from([(2,), (2, 3), (3, 3)])),
                         min_size=1, max_size=4))


def row_signature(r):
    layout = lambda ts: [(t["sizes"], t["strides"], t["dtype"], t["device"]) for t in ts]   # noqa: E731
    return (r["section"], r["op"], r["backward_node"], layout(r["inputs"]), layout(r["outputs"]))


@settings(max_examples=30, deadline=None)
@given(programs())
def test_folding_a_real_trace_is_lossless(parts):
    with tt.dispatch.trace() as t:
        for ops, times, shape in parts:
            x = tt.ones(*shape, requires_grad=True)
            y = x
            for _ in range(times):
                for op in ops:
                    y = OPS[op](y)
            y.sum().backward()
    flat = [row_signature(r) for r in trace_rows(t, fold=False, max_rows=None)]
    folded = trace_rows(t, max_rows=None)
    expanded, i = [], 0
    while i < len(folded):
        f = folded[i]["fold"]
        if f is None:
            assert folded[i]["count"] == 1
            expanded.append(folded[i])
            i += 1
            continue
        block = folded[i:i + f["len"]]
        assert all(r["fold"]["block"] == f["block"] and r["count"] == f["times"] >= 2 for r in block)
        assert [r["fold"]["position"] for r in block] == list(range(f["len"]))
        expanded += block * f["times"]
        i += f["len"]
    assert [row_signature(r) for r in expanded] == flat
    assert sum(r["count"] for r in folded) == len(flat)


# ---- bounded output --------------------------------------------------------------------------------------

def replicated_events(calls_wanted):
    """A long trace made cheaply: the hops of a small real training step, copied with fresh indices."""
    w = tt.ones(4, requires_grad=True)
    with tt.dispatch.trace() as t:
        loss = (w * 2).exp().sum()
        loss.backward()
    step, per_step = t.events, len(t.ops())
    reps = calls_wanted // per_step + 1
    return [e for r in range(reps) for e in shifted(step, r * len(step))], per_step, reps


def test_100000_calls_in_bounded_size():
    events, per_step, reps = replicated_events(100_000)
    assert len(calls(events)) >= 100_000
    folded = trace_rows(events, max_rows=300)
    unfolded = trace_rows(events, fold=False, max_rows=300)
    svg = trace_svg(unfolded)
    text = trace_text(events)
    assert len(folded) == per_step and {r["count"] for r in folded} == {reps}
    assert len(unfolded) == 301 and unfolded[-1]["section"] == "note"
    assert unfolded[-1]["note"] == f"… {reps * per_step - 300:,} more rows"
    assert len(svg) < 400_000 and len(text.splitlines()) < 2 * per_step + 5
    root, gs = svg_rows(svg)
    assert len(gs) == 200                               # trace_svg shows 200 rows by default
    notes = [x.text for x in root.iter(f"{NS}text") if x.get("class") == "tt-note"]
    assert notes == [f"… {reps * per_step - 200:,} more rows"]


def test_max_rows_counts_what_is_left_out():
    t = loop_trace(5, change_shapes=True)
    rows = trace_rows(t, max_rows=4)
    assert len(rows) == 5 and rows[-1]["more"] == 17 - 4 and rows[-1]["text"] == "# … 13 more rows"
    assert trace_rows(t, max_rows=None)[-1]["section"] == "forward"
    assert trace_text(t, max_rows=4).splitlines()[-1] == "# … 13 more rows"


# ---- the SVG table ---------------------------------------------------------------------------------------

def test_svg_rows_sections_storages_and_nodes():
    a = tt.ones(3, requires_grad=True)
    base = tt.arange(6.).reshape(2, 3)
    with tt.dispatch.trace() as t:
        for _ in range(3):
            loss = (a * 2).sum()
        v = base[:, ::2].t()                           # a view: same storage as base
        loss.backward()
    graph_ids = {f"n{n.id}" for n in walk(loss).nodes}
    rows = trace_rows(t)
    root, gs = svg_rows(trace_svg(rows))
    assert root.get("class") == "tt-trace" and root.get("data-rows") == str(len(rows))
    assert len(gs) == len(rows)
    for i, (g, r) in enumerate(zip(gs, rows)):
        assert g.get("data-row") == str(i) and g.get("data-op") == r["op"]
        assert g.get("data-storages") == " ".join(r["storages"])
        assert int(g.get("data-count")) == r["count"]
        assert g.get("data-section") == r["section"]
        assert g.get("data-node") == r["backward_node_id"]
        if r["section"] == "backward":
            assert g.get("data-node") in graph_ids
    # the storages of a row are those of the tensors the op touched
    t_row = next(g for g in gs if g.get("data-op") == "aten.t.default")
    assert t_row.get("data-storages").split() == [sid(base)] and sid(v) == sid(base)
    mul_row = gs[0]
    assert sid(a) in mul_row.get("data-storages").split() and mul_row.get("data-count") == "3"
    sections = [g.get("data-section") for g in root.iter(f"{NS}g") if g.get("class") == "tt-section"]
    assert sections == ["forward", "backward"]


def test_svg_of_a_trace_and_its_cells():
    x = tt.ones(2, 3)
    with tt.dispatch.trace() as t:
        y = x.t() * 2
    root, gs = svg_rows(trace_svg(t))                 # a trace works as well as rows
    texts = [[s.text for s in g.iter(f"{NS}text")] for g in gs]
    assert texts[1][0] == "aten.mul.Tensor" and texts[1][2] == "[3, 2] → [3, 2]"
    # the transposed input's strides, and the output's: elementwise ops keep their input's layout (as
    # PyTorch's TensorIterator does), so y has the transpose's strides too
    assert texts[1][3] == "(1, 3) → (1, 3)" and y.stride() == (1, 3)
    assert texts[1][1] == " → ".join(e.key for e in hops_of(t, t.ops()[1]))
    assert texts[1][4] == "float32" and texts[1][5] == "cpu"
    tips = [g.find(f"{NS}title").text for g in gs]
    assert tips[1].splitlines()[0] == str(t).splitlines()[1]
    assert sid(y) != sid(x)


def test_svg_with_nothing_traced():
    with tt.dispatch.trace() as t:
        pass
    root, gs = svg_rows(trace_svg(t))
    assert gs == [] and trace_rows(t) == [] and trace_text(t) == ""
    assert [x.text for x in root.iter(f"{NS}text") if x.get("class") == "tt-note"] == ["no ops traced"]


def test_the_module_imports_no_jupyter_or_plotting():
    code = ("import sys; import teachtorch.explorer.trace_table; "
            "print([m for m in ('jupyter_core', 'ipywidgets', 'anywidget', 'IPython', 'matplotlib')"
            " if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
