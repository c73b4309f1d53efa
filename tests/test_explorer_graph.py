"""The autograd graph diagram: node and edge sets for known code, saved tensors, backward marking, big graphs.

Expectations come from the graph itself: an independent walk over `grad_fn.next_functions` (checked against
PyTorch's graph for the same code) gives the nodes and edges the SVG must contain."""

import functools
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter

import pytest
import torch

import teachtorch as tt
from teachtorch.autograd import graph
from teachtorch.autograd.graph import node_id
from teachtorch.explorer import graph_diagram
from teachtorch.explorer.graph_diagram import BackwardState, graph_dot, graph_svg, graphviz_available, render_svg

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(autouse=True)
def fresh_layouts(monkeypatch):
    """Each test lays its graphs out anew: render_svg keeps layouts (a test that breaks dot must see it)."""
    monkeypatch.setattr(graph_diagram, "_LAYOUTS", {})


# ---- reading the SVG ------------------------------------------------------------------------------------

def groups(svg):
    """{element id: set of classes} for Graphviz's node and edge groups."""
    out = {}
    for g in ET.fromstring(svg).iter(f"{NS}g"):
        cls = set((g.get("class") or "").split())
        if cls & {"node", "edge"}:
            out[g.get("id")] = cls
    return out


@functools.lru_cache(maxsize=8)
def _by_id(svg):
    """Parsed once per picture: {id: <g>} (the big-graph tests look up hundreds of elements)."""
    return {g.get("id"): g for g in ET.fromstring(svg).iter(f"{NS}g")}


def group(svg, element_id):
    return _by_id(svg)[element_id]


def labels(svg, element_id):
    return [t.text for t in group(svg, element_id).iter(f"{NS}text")]


def title(svg, element_id):
    """Graphviz titles an edge group "tail->head" with the DOT names of its ends."""
    return group(svg, element_id).find(f"{NS}title").text


def having(g, cls):
    return {k for k, v in g.items() if cls in v}


def n(node):
    return f"n{node_id(node)}"


# ---- the graph, walked independently of the explorer ----------------------------------------------------

def autograd_graph(roots):
    """(nodes in breadth-first order from the roots, {edge id: (node, next node)}, {node: depth})."""
    starts = [r.grad_fn if hasattr(r, "grad_fn") else r for r in roots]
    order, depth, edges = [], {}, {}
    frontier = []
    for s in starts:
        if s not in depth:
            depth[s] = 0
            frontier.append(s)
    while frontier:
        following = []
        for node in frontier:
            order.append(node)
            for i, (nxt, _) in enumerate(node.next_functions):
                if nxt is None:
                    continue
                edges[f"e{node_id(node)}_{node_id(nxt)}_{i}"] = (node, nxt)
                if nxt not in depth:
                    depth[nxt] = depth[node] + 1
                    following.append(nxt)
        frontier = following
    return order, edges, depth


def structure(roots):
    """The graph as plain data, for teachtorch and torch alike: per node in breadth-first order, its class
    name and its next edges as (position of the next node, input_nr)."""
    order = autograd_graph(roots)[0]
    pos = {node: i for i, node in enumerate(order)}
    return [(type(node).__name__, [None if nxt is None else (pos[nxt], nr) for nxt, nr in node.next_functions])
            for node in order]


def shape_text(shape):
    return "(" + ", ".join(map(str, shape)) + ")"


# ---- known code ---------------------------------------------------------------------------------------

def simple():
    a = tt.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    b = tt.tensor([4., 5., 6.], requires_grad=True)
    c = a * b                    # broadcast: (2, 3) * (3)
    d = c.exp()
    loss = d.sum()
    return a, b, c, d, loss


def test_nodes_edges_leaves_outputs_and_saved_tensors_of_known_code():
    a, b, c, d, loss = simple()
    svg = graph_svg(loss)
    g = groups(svg)
    mul, exp, sm = c.grad_fn, d.grad_fn, loss.grad_fn
    (acc_a, _), (acc_b, _) = mul.next_functions
    assert acc_a.variable is a and acc_b.variable is b
    # exactly the five backward nodes, named by their class
    assert having(g, "tt-fn") == {n(sm), n(exp), n(mul), n(acc_a), n(acc_b)}
    for node, name in [(sm, "SumBackward0"), (exp, "ExpBackward0"), (mul, "MulBackward0"),
                       (acc_a, "AccumulateGrad"), (acc_b, "AccumulateGrad")]:
        assert "node" in g[n(node)] and labels(svg, n(node))[0] == name
    # each leaf above its AccumulateGrad, labelled "leaf" (no params given) with its shape and dtype
    for leaf, acc in [(a, acc_a), (b, acc_b)]:
        tid = f"t{id(leaf)}"
        assert g[tid] == {"node", "tt-leaf"}
        assert labels(svg, tid) == ["leaf", f"{shape_text(leaf.shape)} float32"]
        assert title(svg, f"l{node_id(acc)}") == f"{tid}->{n(acc)}"
    # one edge per autograd edge, e<node>_<next>_<output_nr>, drawn the way data flowed in forward
    expect = {f"e{node_id(sm)}_{node_id(exp)}_0", f"e{node_id(exp)}_{node_id(mul)}_0",
              f"e{node_id(mul)}_{node_id(acc_a)}_0", f"e{node_id(mul)}_{node_id(acc_b)}_1"}
    assert having(g, "tt-edge") == expect == set(autograd_graph([loss])[1])
    for eid, (node, nxt) in autograd_graph([loss])[1].items():
        assert title(svg, eid) == f"{n(nxt)}->{n(node)}"
    # the output below SumBackward0: a 0-d float32
    assert g[f"o{id(loss)}"] == {"node", "tt-output"}
    assert labels(svg, f"o{id(loss)}") == ["() float32"]
    assert title(svg, f"r{id(loss)}") == f"{n(sm)}->o{id(loss)}"
    # saved tensors: MulBackward0 saved both inputs, ExpBackward0 its result; SumBackward0 nothing
    assert having(g, "tt-saved") == {f"s{node_id(mul)}_self", f"s{node_id(mul)}_other", f"s{node_id(exp)}_result"}
    assert labels(svg, f"s{node_id(mul)}_self") == ["self", "(2, 3) float32", "v0"]
    assert labels(svg, f"s{node_id(mul)}_other") == ["other", "(3) float32", "v0"]
    assert labels(svg, f"s{node_id(exp)}_result") == ["result", "(2, 3) float32", "v0"]
    assert title(svg, f"xs{node_id(mul)}_self") == f"s{node_id(mul)}_self->{n(mul)}"


def test_graphviz_copies_ids_and_classes_into_the_svg():
    a, b, c, d, loss = simple()
    dot = graph_dot(loss)
    svg = render_svg(dot)
    assert svg.startswith("<svg") and ET.fromstring(svg).get("class") == "tt-graph"
    # every node and edge statement's id (and class) reaches the SVG <g>
    for line in dot.splitlines():
        if " id=" in line:
            eid = line.split(" id=")[1].split()[0].rstrip("]")
            cls = line.split('class="')[1].split('"')[0]
            assert set(cls.split()) <= groups(svg)[eid]


def left_x(svg, element_id):
    points = group(svg, element_id).find(f"{NS}polygon").get("points").split()
    return min(float(p.split(",")[0]) for p in points)


def test_inputs_are_drawn_left_to_right_in_argument_order():
    x = tt.ones(5, 3, requires_grad=True)
    w = tt.ones(4, 3, requires_grad=True)
    b = tt.ones(4, requires_grad=True)
    for y, first, second in [((x @ w.t()) + b, x, b), ((b + x @ w.t()), b, x)]:
        svg = graph_svg(y)
        assert left_x(svg, f"t{id(first)}") < left_x(svg, f"t{id(second)}")


# One program per case, written once and run with teachtorch and with torch: the graphs must agree.
def case_views(lib):
    x = lib.arange(24., requires_grad=True)
    v = x.view(2, 3, 4).permute(2, 0, 1)[1::2, :, 1:]        # >2-D, permuted, sliced with a step, offset
    e = x[:3].unsqueeze(1).expand(3, 4)                        # stride 0
    return [v.sum() + (e * 2).sum()]


def case_inplace_on_a_view(lib):
    x = lib.ones(4, 3, requires_grad=True)
    base = x.clone()
    base[1:, ::2].mul_(2)
    return [base.sum()]


def case_same_leaf_twice_0d(lib):
    x = lib.tensor(3., requires_grad=True)
    return [x * x]


def case_multi_output_node(lib):
    x = lib.ones(2, 3, requires_grad=True)
    u, v = x.unbind(0)
    return [(u * v).sum()]


def case_empty(lib):
    x = lib.ones(0, 3, requires_grad=True)
    return [(x * 2).sum(1)]


def case_two_roots(lib):
    x = lib.ones(3, requires_grad=True)
    w = lib.ones(3, requires_grad=True)
    h = x * w
    return [h.sum(), (h.exp() * x).mean()]


CASES = [case_views, case_inplace_on_a_view, case_same_leaf_twice_0d, case_multi_output_node, case_empty,
         case_two_roots]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_node_and_edge_sets_match_the_graph(case):
    roots = case(tt)
    assert structure(roots) == structure(case(torch))     # the same graph as PyTorch records
    order, edges, _ = autograd_graph(roots)
    svg = graph_svg(roots)
    g = groups(svg)
    assert having(g, "tt-fn") == {n(node) for node in order}
    assert having(g, "tt-edge") == set(edges)
    for node in order:
        assert labels(svg, n(node))[0] == type(node).__name__
    leaves = {node.variable for node in order if type(node).__name__ == "AccumulateGrad"}
    assert having(g, "tt-leaf") == {f"t{id(t)}" for t in leaves}
    assert having(g, "tt-output") == {f"o{id(r)}" for r in roots}


def test_view_nodes_are_drawn():
    roots = case_views(tt) + case_inplace_on_a_view(tt)
    names = Counter(labels(graph_svg(roots), n(node))[0] for node in autograd_graph(roots)[0])
    for view_node in ["ViewBackward0", "PermuteBackward0", "SliceBackward0", "UnsqueezeBackward0",
                      "ExpandBackward0", "CopySlices"]:
        assert names[view_node] >= 1


def test_several_roots_share_one_picture():
    x = tt.ones(3, requires_grad=True)
    y1, y2 = (x * 2).sum(), x.exp().mean()
    svg = graph_svg([y1, y2, y1])                     # a root given twice is drawn once
    g = groups(svg)
    assert having(g, "tt-output") == {f"o{id(y1)}", f"o{id(y2)}"}
    assert having(g, "tt-leaf") == {f"t{id(x)}"}       # x's one AccumulateGrad feeds both
    assert len([k for k in having(g, "tt-fn") if labels(svg, k)[0] == "AccumulateGrad"]) == 1
    # roots given as nodes: the same graph, no output boxes
    g_nodes = groups(graph_svg([y1.grad_fn, y2.grad_fn]))
    assert having(g_nodes, "tt-fn") == having(g, "tt-fn") and not having(g_nodes, "tt-output")


def test_nothing_requires_grad_says_so():
    svg = graph_svg(tt.ones(3) * 2)
    g = groups(svg)
    assert not having(g, "tt-fn") and g["empty"] == {"node", "tt-empty"}
    assert "requires grad" in labels(svg, "empty")[0]


# ---- saved tensors, params, hooks ---------------------------------------------------------------------

def test_saved_version_after_an_in_place_change_and_freed_after_backward():
    x = tt.tensor([1., 2.], requires_grad=True)
    y = x * 2
    z = y * y                                    # MulBackward0 saves y twice, at version 0
    sid = f"s{node_id(z.grad_fn)}_self"
    assert labels(graph_svg(z), sid)[-1] == "v0"
    y.add_(1)                                    # in place on a saved tensor: its version goes to 1
    assert y._vc.value == 1
    assert labels(graph_svg(z), sid)[-2:] == ["v0, now v1", "(modified in place)"]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()                       # which is why the picture warns

    w = x.exp()                                  # ExpBackward0 saves its result
    loss = w.sum()
    loss.backward(retain_graph=True)             # kept: still there
    assert labels(graph_svg(loss), f"s{node_id(w.grad_fn)}_result") == ["result", "(2) float32", "v0"]
    loss.backward()                              # freed now
    assert labels(graph_svg(loss), f"s{node_id(w.grad_fn)}_result") == ["result", "freed"]


def test_saved_non_tensor_and_dtype():
    x = tt.ones(2, 2, dtype=tt.float64, requires_grad=True)
    y = (x * 3).t()
    svg = graph_svg(y)
    mul = y.grad_fn.next_functions[0][0]
    assert labels(svg, f"s{node_id(mul)}_other") == ["other", "3"]    # a Python number
    assert labels(svg, f"t{id(x)}") == ["leaf", "(2, 2) float64"]
    assert labels(svg, f"o{id(y)}") == ["(2, 2) float64"]


def test_parameters_are_named_from_a_dict_or_named_parameters():
    a, b, c, d, loss = simple()
    svg = graph_svg(loss, params={"weight": a, "unused": tt.ones(1)})
    g = groups(svg)
    assert g[f"t{id(a)}"] == {"node", "tt-leaf", "tt-param"} and g[f"t{id(b)}"] == {"node", "tt-leaf"}
    assert labels(svg, f"t{id(a)}") == ["weight", "(2, 3) float32"]
    assert labels(svg, f"t{id(b)}")[0] == "leaf"

    class Model:                                 # nn.Module comes later: anything with named_parameters()
        def named_parameters(self):
            return iter([("layer.weight", a), ("layer.bias", b)])
    svg = graph_svg(loss, params=Model())
    assert labels(svg, f"t{id(a)}")[0] == "layer.weight" and labels(svg, f"t{id(b)}")[0] == "layer.bias"
    assert having(groups(svg), "tt-param") == {f"t{id(a)}", f"t{id(b)}"}


def test_hooks_are_shown_and_go_away_when_removed():
    x = tt.ones(3, requires_grad=True)
    y = x * 2
    loss = y.exp().sum()
    exp = loss.grad_fn.next_functions[0][0]
    handles = [exp.register_prehook(lambda g: None), exp.register_prehook(lambda g: None),
               exp.register_hook(lambda gi, go: None)]
    y.register_hook(lambda g: g)                 # a tensor hook: kept on y's grad_fn
    y.retain_grad()
    x.register_hook(lambda g: g)                 # a leaf's hook: run by its AccumulateGrad
    svg = graph_svg(loss)
    assert labels(svg, n(exp)) == ["ExpBackward0", "hooks: pre 2, post 1"]
    assert labels(svg, n(y.grad_fn)) == ["MulBackward0", "hooks: tensor 1, retains_grad"]
    assert labels(svg, n(y.grad_fn.next_functions[0][0])) == ["AccumulateGrad", "hooks: tensor 1"]
    assert labels(svg, n(loss.grad_fn)) == ["SumBackward0"]
    for h in handles:
        h.remove()
    assert labels(graph_svg(loss), n(exp)) == ["ExpBackward0"]


# ---- backward state -----------------------------------------------------------------------------------

def engine_steps(events):
    """What BackwardState must record, from the raw events (GraphRoot is not drawn)."""
    out = []
    for e in events:
        if type(e.node).__name__ == "GraphRoot":
            continue
        if e.kind == "node_started":
            out.append(("node", n(e.node)))
        elif e.kind == "gradient":
            out.append(("gradient", f"e{node_id(e.node)}_{node_id(e.next_node)}_{e.output_nr}"))
        elif e.kind == "accumulated":
            out.append(("accumulated", n(e.node)))
    return out


def step_elements(step):
    return {"node": lambda s: {s["id"]}, "gradient": lambda s: {s["edge"], s["from"], s["to"]},
            "accumulated": lambda s: {s["id"], s["leaf"]}}[step["kind"]](step)


def test_backward_state_follows_the_engine_and_marks_the_svg():
    a, b, c, d, loss = simple()
    before = groups(graph_svg(loss))
    assert not having(before, "tt-ran") and not having(before, "tt-flowed")
    state, events = BackwardState(), []
    with graph.listen(state), graph.listen(events.append):
        loss.backward(retain_graph=True)
    assert [(s["kind"], s.get("edge", s.get("id"))) for s in state.steps] == engine_steps(events)
    json.dumps(state.steps)                      # the widget's trait: plain data
    grads = {f"e{node_id(e.node)}_{node_id(e.next_node)}_{e.output_nr}": list(e.grad.shape)
             for e in events if e.kind == "gradient"}
    assert state.flowed == grads and state.finished
    assert {s["leaf"] for s in state.steps if s["kind"] == "accumulated"} == {f"t{id(a)}", f"t{id(b)}"}

    svg = graph_svg(loss, state=state)
    g = groups(svg)
    started = {n(e.node) for e in events if e.kind == "node_started"}
    assert having(g, "tt-ran") == started == having(g, "tt-fn")   # every node ran
    assert having(g, "tt-flowed") == set(grads)
    for eid, shape in grads.items():             # each flowed edge labelled with its gradient's shape
        assert labels(svg, eid) == [shape_text(shape)]
    for s in state.steps:                        # the stepper finds every step's element
        assert step_elements(s) <= set(g)


def test_backward_state_of_a_run_from_two_roots_leaves_the_graph_root_out():
    roots = case_two_roots(tt)
    state, events = BackwardState(), []
    with graph.listen(state), graph.listen(events.append):
        tt.autograd.backward(roots)
    assert any(type(e.node).__name__ == "GraphRoot" for e in events)
    assert [(s["kind"], s.get("edge", s.get("id"))) for s in state.steps] == engine_steps(events)
    g = groups(graph_svg(roots, state=state))
    assert all(step_elements(s) <= set(g) for s in state.steps)
    assert having(g, "tt-ran") == having(g, "tt-fn")


def test_partial_backward_marks_only_what_ran():
    x = tt.ones(3, requires_grad=True)
    w = tt.ones(3, requires_grad=True)
    loss = (x * w).sum()
    state = BackwardState()
    with graph.listen(state):
        tt.autograd.grad(loss, [x])              # only the path to x is needed
    g = groups(graph_svg(loss, state=state))
    acc_x, acc_w = (e[0] for e in loss.grad_fn.next_functions[0][0].next_functions)
    assert n(acc_w) not in having(g, "tt-ran") and n(loss.grad_fn) in having(g, "tt-ran")


# ---- stability ----------------------------------------------------------------------------------------

def node_ids(dot):
    """The ids of the DOT node statements, in order."""
    return [line.split()[0] for line in dot.splitlines() if " id=" in line and " -> " not in line]


def test_ids_stay_and_nodes_come_in_creation_order_as_the_graph_grows():
    x = tt.ones(2, requires_grad=True)
    h = (x * 2).relu()
    first = node_ids(graph_dot(h))
    w = tt.ones(2, requires_grad=True)           # a new leaf joins the graph late
    h2 = (h * w).exp()
    second = node_ids(graph_dot(h2))
    old = [i for i in first if not i.startswith("o")]
    assert second[:len(old)] == old              # the old nodes, unchanged, first
    assert graph_dot(h2) == graph_dot(h2)        # deterministic
    order, _, _ = autograd_graph([h2])
    by_id = {n(node): node for node in order}
    made = [by_id[i]._sequence_nr() for i in second if i in by_id and type(by_id[i]).__name__ != "AccumulateGrad"]
    assert made == sorted(made)
    # a leaf comes just before the first node that used it
    acc_w = h2.grad_fn.next_functions[0][0].next_functions[1][0]
    assert second.index(f"t{id(w)}") > second.index(n(h.grad_fn))
    assert second.index(n(acc_w)) < second.index(n(h2.grad_fn.next_functions[0][0]))


# ---- Graphviz missing or slow -------------------------------------------------------------------------

def assert_fallback(svg, dot, first_words):
    texts = [(t.get("class"), t.text) for t in ET.fromstring(svg).iter(f"{NS}text")]
    assert texts[0][0] == "tt-missing" and texts[0][1].startswith(first_words)
    assert [t for _, t in texts[1:]] == dot.splitlines()
    assert all(c == "tt-dot-source" for c, _ in texts[1:])


def test_without_dot_the_picture_says_how_to_install_it_and_shows_the_dot_text(monkeypatch, tmp_path):
    a, b, c, d, loss = simple()
    dot = graph_dot(loss)
    monkeypatch.setenv("PATH", str(tmp_path))    # an empty folder: no dot program anywhere
    assert not graphviz_available()
    svg = graph_svg(loss)
    assert_fallback(svg, dot, "Graphviz's dot was not found; install it: apt-get install graphviz")
    assert "tt-graph" in ET.fromstring(svg).get("class").split()
    monkeypatch.undo()
    monkeypatch.setattr(graph_diagram.shutil, "which", lambda name: None)
    assert_fallback(render_svg(dot), dot, "Graphviz's dot was not found")


def test_a_dot_that_takes_too_long_gives_the_dot_text(monkeypatch):
    dot = graph_dot(simple()[-1])

    def slow(*args, timeout=None, **kwargs):
        raise subprocess.TimeoutExpired(args[0], timeout)
    monkeypatch.setattr(graph_diagram.subprocess, "run", slow)
    assert_fallback(render_svg(dot, timeout=5), dot, "Graphviz's dot took more than 5 s")


# ---- big graphs ---------------------------------------------------------------------------------------

def chain(n_nodes):
    h = tt.ones(2, requires_grad=True)
    for _ in range(n_nodes):
        h = h * 1.0
    return h


def wide(n_leaves):
    xs = [tt.ones(2, requires_grad=True) for _ in range(n_leaves)]
    return tt.stack([x * 2 for x in xs]).sum()


@pytest.mark.parametrize("make", [lambda: chain(5000), lambda: wide(2500)], ids=["chain", "wide"])
def test_5000_node_graphs_keep_the_nodes_nearest_the_roots(make):
    root = make()
    order, edges, depth = autograd_graph([root])
    assert len(order) > 5000
    svg = graph_svg(root)                        # max_nodes=400
    assert len(svg) < 3_000_000
    g = groups(svg)
    drawn = {node for node in order if n(node) in g}
    assert {n(node) for node in drawn} == having(g, "tt-fn") and len(drawn) == 400
    # the nearest: no left-out node is nearer the root than a drawn one
    assert max(depth[node] for node in drawn) <= min(depth[node] for node in order if node not in drawn)
    assert g["more"] == {"node", "tt-more"}
    assert labels(svg, "more") == [f"… {len(order) - 400:,} more nodes"]
    # edges between drawn nodes are there; each drawn node's cut edges are one edge from "more"
    assert having(g, "tt-edge") - having(g, "tt-cut") == {e for e, (a, b) in edges.items()
                                                          if a in drawn and b in drawn}
    cut = Counter(a for a, b in edges.values() if a in drawn and b not in drawn)
    assert having(g, "tt-cut") == {f"e{node_id(a)}_more" for a in cut}
    for a, count in cut.items():
        assert title(svg, f"e{node_id(a)}_more") == f"more->{n(a)}"
        assert labels(svg, f"e{node_id(a)}_more") == ([f"×{count:,}"] if count > 1 else [])
    assert not having(g, "tt-saved")             # too many nodes to draw saved tensors as boxes: counted
    saving = [node for node in drawn if node._saved_tensor_infos()]
    assert saving
    for node in saving:
        assert labels(svg, n(node))[-1] == f"saves {len(node._saved_tensor_infos())}"


# ---- layering -----------------------------------------------------------------------------------------

def test_the_renderer_needs_no_jupyter():
    code = ("import sys, teachtorch as tt\n"
            "from teachtorch.explorer import graph_diagram\n"
            "x = tt.ones(2, requires_grad=True)\n"
            "graph_diagram.graph_svg((x * 2).sum())\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in "
            "('jupyter', 'jupyter_client', 'ipykernel', 'ipywidgets', 'anywidget', 'matplotlib')]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_graph_seen_before_reuses_its_layout_with_its_own_ids(monkeypatch):
    """A training loop draws the same graph every step with new nodes: dot runs once, and each picture is
    that layout with the step's own ids (the stepper and the trace find their nodes by them)."""
    runs = []
    real = graph_diagram._run_dot
    monkeypatch.setattr(graph_diagram, "_run_dot", lambda dot, timeout: runs.append(dot) or real(dot, timeout))
    w = tt.ones(3, requires_grad=True)
    svgs, losses = [], []
    for step in range(3):
        loss = (w * 2).exp().sum()
        losses.append(loss)
        svgs.append(graph_svg(loss))
    assert len(runs) == 1
    for loss, svg in zip(losses, svgs):
        ids = {g.get("id") for g in ET.fromstring(svg).iter(f"{NS}g")}
        assert f"n{node_id(loss.grad_fn)}" in ids and f"t{id(w)}" in ids
        assert "QZ" not in svg
    assert svgs[0].count("<g id=") == svgs[2].count("<g id=")
    graph_svg((w * 2).sum())                           # another graph: laid out on its own
    assert len(runs) == 2
