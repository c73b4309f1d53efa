"""The autograd graph diagram: node and edge sets for known code, saved tensors, backward marking, big graphs."""

import time
import xml.etree.ElementTree as ET

import pytest

import teachtorch as tt
from teachtorch.autograd import graph
from teachtorch.autograd.graph import node_id
from teachtorch.explorer import graph_diagram
from teachtorch.explorer.graph_diagram import BackwardState, graph_dot, graph_svg, render_svg

NS = "{http://www.w3.org/2000/svg}"


def groups(svg):
    """{element id: set of classes} for Graphviz's node and edge groups."""
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(f"{NS}g"):
        cls = set((g.get("class") or "").split())
        if cls & {"node", "edge"}:
            out[g.get("id")] = cls
    return out


def labels(svg, element_id):
    root = ET.fromstring(svg)
    g = next(g for g in root.iter(f"{NS}g") if g.get("id") == element_id)
    return [t.text for t in g.iter(f"{NS}text")]


def n(node):
    return f"n{node_id(node)}"


def simple():
    a = tt.tensor([1., 2., 3.], requires_grad=True)
    b = tt.tensor([4., 5., 6.], requires_grad=True)
    c = a * b
    d = c.exp()
    loss = d.sum()
    return a, b, c, d, loss


def test_nodes_edges_and_classes_of_known_code():
    a, b, c, d, loss = simple()
    svg = graph_svg(loss)
    g = groups(svg)
    mul, exp, sm = c.grad_fn, d.grad_fn, loss.grad_fn
    acc_a, acc_b = (e[0] for e in mul.next_functions)
    for node, name in [(sm, "SumBackward0"), (exp, "ExpBackward0"), (mul, "MulBackward0"),
                       (acc_a, "AccumulateGrad"), (acc_b, "AccumulateGrad")]:
        assert {"node", "tt-fn"} <= g[n(node)]
        assert labels(svg, n(node))[0] == name
    # leaves above their AccumulateGrad, the output below SumBackward0
    for leaf in (a, b):
        assert {"node", "tt-leaf"} <= g[f"t{id(leaf)}"]
        assert "tt-param" not in g[f"t{id(leaf)}"]
    assert {"node", "tt-output"} <= g[f"o{id(loss)}"]
    # one edge per autograd edge, with the id scheme e<node>_<next>_<output_nr>
    edges = {k for k, v in g.items() if "tt-edge" in v}
    expect = {f"e{node_id(sm)}_{node_id(exp)}_0", f"e{node_id(exp)}_{node_id(mul)}_0",
              f"e{node_id(mul)}_{node_id(acc_a)}_0", f"e{node_id(mul)}_{node_id(acc_b)}_1"}
    assert edges == expect
    # saved tensors: MulBackward0 saved self and other, ExpBackward0 its result
    saved = {k for k, v in g.items() if "tt-saved" in v}
    assert saved == {f"s{node_id(mul)}_self", f"s{node_id(mul)}_other", f"s{node_id(exp)}_result"}
    assert labels(svg, f"s{node_id(mul)}_self") == ["self", "(3) float32", "v0"]


def test_dot_source_when_graphviz_is_missing(monkeypatch):
    a, b, c, d, loss = simple()
    dot = graph_dot(loss)
    monkeypatch.setattr(graph_diagram.shutil, "which", lambda name: None)
    assert not graph_diagram.graphviz_available()
    svg = render_svg(dot)
    root = ET.fromstring(svg)
    texts = [(t.get("class"), t.text) for t in root.iter(f"{NS}text")]
    assert texts[0][0] == "tt-missing" and "apt-get install graphviz" in texts[0][1]
    assert [t for c, t in texts[1:]] == dot.splitlines()


def test_params_named_from_a_dict_and_from_named_parameters():
    a, b, c, d, loss = simple()
    g = groups(graph_svg(loss, params={"weight": a}))
    assert "tt-param" in g[f"t{id(a)}"] and "tt-param" not in g[f"t{id(b)}"]

    class Model:
        def named_parameters(self):
            return iter([("layer.weight", a), ("layer.bias", b)])
    svg = graph_svg(loss, params=Model())
    assert labels(svg, f"t{id(a)}")[0] == "layer.weight"
    assert labels(svg, f"t{id(b)}")[0] == "layer.bias"


def test_saved_version_shows_in_place_change_and_freed_after_backward():
    x = tt.tensor([1., 2.], requires_grad=True)
    y = x.exp()                  # ExpBackward0 saves its result, y
    z = y.sum()
    sid = f"s{node_id(y.grad_fn)}_result"
    assert labels(graph_svg(z), sid)[-1] == "v0"
    with tt.no_grad():
        y.add_(1)                # bumps y's version: backward would now fail
    assert labels(graph_svg(z), sid)[-2:] == ["v0, now v1", "(modified in place)"]
    w = x.exp()
    loss = w.sum()
    loss.backward()
    assert labels(graph_svg(loss), f"s{node_id(w.grad_fn)}_result") == ["result", "freed"]


def test_hooks_are_shown():
    a, b, c, d, loss = simple()
    d.grad_fn.register_prehook(lambda g: None)
    d.grad_fn.register_hook(lambda gi, go: None)
    assert labels(graph_svg(loss), n(d.grad_fn)) == ["ExpBackward0", "hooks: pre 1, post 1"]


def test_view_nodes_and_multi_root():
    x = tt.arange(6., requires_grad=True)
    v = x.view(2, 3).t()
    y1, y2 = v.sum(), (v * 2).sum()
    g = groups(graph_svg([y1, y2]))
    names = {labels(graph_svg([y1, y2]), k)[0] for k, c in g.items() if "tt-fn" in c}
    assert {"ViewBackward0", "TBackward0", "SumBackward0", "MulBackward0", "AccumulateGrad"} <= names
    assert {f"o{id(y1)}", f"o{id(y2)}"} <= set(g)


def test_backward_state_follows_the_engine_events_and_marks_the_svg():
    a, b, c, d, loss = simple()
    state, events = BackwardState(), []
    with graph.listen(state), graph.listen(events.append):
        loss.backward(retain_graph=True)
    started = [f"n{node_id(e.node)}" for e in events if e.kind == "node_started"]
    assert [s["id"] for s in state.steps if s["kind"] == "node"] == started
    grads = [e for e in events if e.kind == "gradient"]
    assert [s["edge"] for s in state.steps if s["kind"] == "gradient"] == [
        f"e{node_id(e.node)}_{node_id(e.next_node)}_{e.output_nr}" for e in grads]
    assert {s["leaf"] for s in state.steps if s["kind"] == "accumulated"} == {f"t{id(a)}", f"t{id(b)}"}
    assert state.finished
    svg = graph_svg(loss, state=state)
    g = groups(svg)
    for nid in started:
        assert "tt-ran" in g[nid]
    flowed = {k for k, v in g.items() if "tt-flowed" in v}
    assert flowed == set(state.flowed)
    before = groups(graph_svg(loss))
    assert not any("tt-ran" in v or "tt-flowed" in v for v in before.values())


def test_ids_stable_and_in_sequence_order_as_the_graph_grows():
    x = tt.ones(2, requires_grad=True)
    h = x * 2
    first = graph_dot(h)
    h2 = h.exp()
    second = graph_dot(h2)
    ids_first = [line.split()[0] for line in first.splitlines() if "class=\"tt-fn" in line]
    ids_second = [line.split()[0] for line in second.splitlines() if "class=\"tt-fn" in line]
    assert ids_second[:len(ids_first)] == ids_first       # the old nodes, unchanged, first
    assert ids_second[len(ids_first)] == f"n{node_id(h2.grad_fn)}"


@pytest.mark.parametrize("shape", ["chain", "wide"])
def test_5000_node_graphs_are_bounded(shape):
    if shape == "chain":
        h = tt.ones(2, requires_grad=True)
        for _ in range(5000):
            h = h * 1.0
        root = h
    else:
        xs = [tt.ones(2, requires_grad=True) for _ in range(2500)]
        root = tt.stack([x * 2 for x in xs]).sum()
    start = time.perf_counter()
    svg = graph_svg(root, max_nodes=300)
    elapsed = time.perf_counter() - start
    g = groups(svg)
    assert "more" in g and "tt-more" in g["more"]
    assert sum("tt-fn" in v for v in g.values()) == 300
    assert len(svg) < 2_000_000 and elapsed < 60
    assert "more nodes" in " ".join(labels(svg, "more"))
