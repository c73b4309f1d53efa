"""The live part without a browser: the recorder's redraw policy, what each widget carries, the front end's
assembly, and that the wheel ships the front end."""

import json
import subprocess
import sys
import zipfile

import pytest

import teachtorch as tt
from teachtorch.explorer import frontend, recorder as recorder_module
from teachtorch.explorer.recorder import Recorder
from teachtorch.explorer.widgets import Explorer, GraphView, StorageView, TraceView, explore


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_redraws_are_throttled_and_the_last_picture_is_final(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(recorder_module.time, "perf_counter", clock)
    flushes = []
    x = tt.ones(3, requires_grad=True)
    with Recorder(on_flush=lambda snap, changed: flushes.append((clock.now, list(changed)))) as rec:
        for i in range(100):
            clock.now += 0.001                  # 100 ops, one millisecond apart: 0.1 s in all
            y = x * 2
    # at most one redraw per 50 ms of this fake time (drawing costs no fake time), and one on exit
    times = [t for t, _ in flushes]
    assert len(flushes) <= 0.1 / 0.05 + 2
    assert all(b - a >= 0.05 - 1e-9 for a, b in zip(times[:-2], times[1:-1]))
    assert rec.snapshot["trace_rows"][0]["count"] == 100      # the final picture has every op


def test_drawing_time_is_kept_to_the_budget(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(recorder_module.time, "perf_counter", clock)
    rec = Recorder(budget=0.25)
    original = rec._draw_graph

    def slow_draw():
        clock.now += 1.0                         # drawing "takes" a second
        original()
    rec._draw_graph = slow_draw
    x = tt.ones(3, requires_grad=True)
    with rec:
        for _ in range(50):
            clock.now += 0.01
            x * 2
    # after a redraw costing 1 s the next waits 4 s: 0.5 s of ops cannot trigger a second one
    assert rec.flushes == 2          # the first redraw, and the final one on exit


def test_snapshot_follows_the_code(monkeypatch):
    x = tt.arange(6.).reshape(2, 3)
    w = tt.ones(3, requires_grad=True)
    with Recorder(interval=0) as rec:
        y = x.t()
        rec.flush()
        assert 'data-sizes="3,2"' in rec.snapshot["storage_svg"]        # the last op's tensors
        rec.show(x, x[:, ::2])
        loss = (w * 2).sum()
        rec.flush()
        assert "SumBackward0" in rec.snapshot["graph_svg"] and rec.snapshot["graph_steps"] == []
        loss.backward()
    snap = rec.snapshot
    assert snap["storage_svg"].count('class="tt-view"') == 2              # show() wins over the last op
    nodes = [s for s in snap["graph_steps"] if s["kind"] == "node"]
    assert [s["name"] for s in nodes] == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    assert "tt&#45;ran" in snap["graph_svg"]          # Graphviz writes the class tt-ran this way
    sections = {r["section"] for r in snap["trace_rows"]}
    assert sections == {"forward", "backward"}


def test_the_graph_follows_the_newest_output_until_a_loss():
    w = tt.ones(3, requires_grad=True)
    with Recorder(interval=0) as rec:
        y = w.exp()                                 # before any loss: the latest output is drawn
        rec.flush()
        assert "ExpBackward0" in rec.snapshot["graph_svg"]
        z = y.mul(2)
        rec.flush()
        assert "MulBackward0" in rec.snapshot["graph_svg"]


def _node_boxes(svg):
    """The drawn node boxes as (label text, polygon points), ids left out: the picture's geometry."""
    import re
    return sorted(re.findall(r'<g id="[^"]*" class="node[^"]*">\s*<title>[^<]*</title>\s*<polygon [^>]*points="([^"]*)"'
                             r'[^>]*/>\s*((?:<text[^>]*>[^<]*</text>\s*)*)', svg))


def test_the_graph_follows_the_loss_of_each_training_step():
    """A training loop: the graph pane shows the loss of the current step (not whatever op ran last), marked
    with the steps its backward took, drawn the same way every step; the stepper's steps stay after the
    block ends (the teacher's 2-8-1 MLP, which showed a 3-node `weight.t()` graph for the whole run)."""
    model = tt.nn.Sequential(tt.nn.Linear(2, 8), tt.nn.Tanh(), tt.nn.Linear(8, 1))
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    x, y = tt.randn(16, 2), tt.randn(16, 1)
    pictures = []
    with Recorder(interval=0, params=model) as rec:
        for step in range(3):
            h = model[0](x)                         # the next step's forward has begun, no loss yet:
            rec.flush()                             # the last backward's picture stays
            if step:
                assert rec.snapshot["graph_svg"] == pictures[-1][0] and rec.snapshot["graph_steps"]
            loss = tt.nn.functional.mse_loss(model[2](model[1](h)), y)
            rec.flush()                             # the new loss, no steps yet
            assert "MseLossBackward0" in rec.snapshot["graph_svg"] and rec.snapshot["graph_steps"] == []
            opt.zero_grad()
            loss.backward()
            opt.step()
            rec.flush()
            steps = rec.snapshot["graph_steps"]
            assert [s["name"] for s in steps if s["kind"] == "node"][0] == "MseLossBackward0"
            assert sum(s["kind"] == "accumulated" for s in steps) == 4          # 2 weights, 2 biases
            assert "0.weight" in rec.snapshot["graph_svg"] and "2.bias" in rec.snapshot["graph_svg"]
            pictures.append((rec.snapshot["graph_svg"], steps))
    assert rec.snapshot["graph_steps"] and rec.snapshot["graph_svg"] == pictures[-1][0]
    # the same picture each step: the same boxes at the same places, only the ids differ
    assert _node_boxes(pictures[0][0]) == _node_boxes(pictures[2][0]) and len(_node_boxes(pictures[0][0])) >= 8


def test_trace_window_stays_bounded():
    x = tt.ones(2)
    with Recorder(max_events=200, count_repeats=False) as rec:     # every call recorded: a window
        for _ in range(2000):
            x = x * 1.0
    assert len(rec.trace.events) <= 400 and rec.trace.dropped > 0
    assert "dropped" in rec.snapshot["trace_note"]


def test_widgets_carry_their_picture_and_static_fallback():
    x = tt.arange(6.).reshape(2, 3)
    s = StorageView(x, x.t(), title="views")
    assert s.seq == 1 and "tt-storage" in s.storage_svg
    data, _ = s._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data and "tt-storage" in data["text/html"]
    w = tt.ones(2, requires_grad=True)
    loss = (w * 3).sum()
    g = GraphView(loss)
    g.backward(loss)
    assert g.seq == 2 and [s["name"] for s in g.graph_steps if s["kind"] == "node"][0] == "SumBackward0"
    assert "tt-graph" in g._repr_mimebundle_()[0]["text/html"]
    with tt.dispatch.trace() as t:
        w * 2
    tv = TraceView(t)
    assert tv.trace_rows[0]["op"] == "aten.mul.Tensor"
    assert "tt-trace" in tv._repr_mimebundle_()[0]["text/html"]
    json.dumps(tv.trace_rows)                        # the rows travel as JSON


def test_explorer_context_updates_its_traits():
    ex = explore(display=False)
    assert isinstance(ex, Explorer)
    with ex:
        a = tt.ones(3, requires_grad=True)
        (a * 2).sum().backward()
    assert ex.seq >= 1 and ex.graph_svg and ex.trace_rows and ex.storage_svg
    html = ex._repr_mimebundle_()[0]["text/html"]
    assert all(k in html for k in ("tt-graph", "tt-storage", "tt-trace"))
    assert isinstance(tt.explore(display=False), Explorer)


def test_frontend_assembly():
    for kind, mount in frontend.MOUNT.items():
        src = frontend.esm_source(kind)
        for name in frontend.FILES:
            assert f"// ---- {name} ----" in src
        assert src.rstrip().endswith(f"return {mount}(el, model); }} }};")
        assert src.count("export default") == 1
        assert "http://" not in src and "https://" not in src         # nothing from the internet
    assert ".tt-widget" in frontend.css_source()


def test_wheel_ships_the_front_end(tmp_path):
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                          "-w", str(tmp_path), "."], capture_output=True, text=True,
                         cwd=frontend.Path(__file__).resolve().parent.parent)
    assert out.returncode == 0, out.stderr[-2000:]
    (wheel,) = tmp_path.glob("teachtorch-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in frontend.FILES + ["explorer.css"]:
        assert f"teachtorch/explorer/_widgets/{name}" in names
    assert "teachtorch/explorer/frontend.py" in names


def test_core_does_not_import_the_explorer():
    code = "import sys, teachtorch; print([m for m in sys.modules if m.startswith('teachtorch.explorer') or m in ('anywidget', 'ipywidgets', 'graphviz')])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_backward_seed_is_backward_work_not_the_last_forward_op():
    """The `ones_like` that backward starts from is filed under backward, for the loss's node, and the storage
    pane keeps showing the last forward op (the loss), not the seed."""
    w = tt.ones(3, requires_grad=True)
    with Recorder(interval=0) as rec:
        loss = (w * 2).sum()
        loss.backward()
    rows = rec.snapshot["trace_rows"]
    seed = [r for r in rows if r["op"] == "aten.ones_like.default"]
    assert len(seed) == 1 and seed[0]["section"] == "backward" and seed[0]["backward_node"] == "SumBackward0"
    assert seed[0]["backward_node_id"] == f"n{id(loss.grad_fn)}"
    assert [r["section"] for r in rows] == ["forward"] * 2 + ["backward"] * (len(rows) - 2)
    svg = rec.snapshot["storage_svg"]
    assert f'data-storage="{id(loss._storage)}"' in svg
    assert f'data-storage="{seed[0]["outputs"][0]["storage"]}"' not in svg
    # and a plain trace (no explorer) agrees
    with tt.dispatch.trace() as t:
        (w * 3).sum().backward()
    assert [e.backward_node for e in t.events if e.op == "aten::ones_like" and e.depth == 0] == ["SumBackward0"]


def test_tensors_are_named_as_the_code_names_them():
    """Storage labels from the call's own text; in the live explorer, variables (`x`, `W.grad`), a model's
    parameter paths (`0.weight`) and their grads, and `$n` only for tensors nothing names; no trace line
    reads a `$n` that no earlier line made."""
    import re
    x = tt.arange(12.).reshape(3, 4)
    view = StorageView(x, x.t(), x[1:, ::2])
    assert re.findall(r'data-label="([^"]*)"', view.storage_svg) == ["x", "x.t()", "x[1:, ::2]"]

    model = tt.nn.Sequential(tt.nn.Linear(2, 8), tt.nn.Tanh(), tt.nn.Linear(8, 1))
    inputs, targets = tt.randn(16, 2), tt.randn(16, 1)
    ex = tt.explore(model, display=False)             # the documented way: pass the model
    with ex:
        for _ in range(3):
            loss = tt.nn.functional.mse_loss(model(inputs), targets)
            model.zero_grad()
            loss.backward()
        ex.show(model[0].weight, model[0].weight.grad)
        ex.recorder.flush()
        labels = re.findall(r'data-label="([^"]*)"', ex.storage_svg)
        assert labels == ["model[0].weight", "model[0].weight.grad"]
        ex.show()                                       # back to the last op's tensors
        inputs.t()
        ex.recorder.flush()
        assert re.findall(r'data-label="([^"]*)"', ex.storage_svg) == ["inputs", "inputs.t()"]
        w = inputs.t()                                  # a variable names it
        ex.recorder.flush()
        assert re.findall(r'data-label="([^"]*)"', ex.storage_svg) == ["inputs", "w"]
    texts = [r["text"] for r in ex.trace_rows]
    assert "aten.t.default(0.weight)" in texts[0] and "inputs" in texts[1] and "0.bias" in texts[1]
    assert any(t.startswith("loss: f32[] = aten.mse_loss.default") for t in texts)
    assert any(t.startswith("0.weight.grad: ") for t in texts) and any(t.startswith("2.bias.grad: ") for t in texts)
    made = set()
    for row in ex.trace_rows:
        read = set(re.findall(r"\$\d+", row["text"].split(" = ", 1)[1]))
        assert read <= made, (row["text"], read - made)
        made.update(re.findall(r"^\$\d+", row["text"]))
    leaves = re.findall(r"<text[^>]*>([0-9]\.(?:weight|bias))</text>", ex.graph_svg)
    assert sorted(leaves) == ["0.bias", "0.weight", "2.bias", "2.weight"]


def test_explore_with_a_monitor_logs_the_training_curve():
    model = tt.nn.Sequential(tt.nn.Linear(2, 4), tt.nn.ReLU(), tt.nn.Linear(4, 1))
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    x, y = tt.randn(8, 2), tt.randn(8, 1)
    losses = []
    with explore(model, monitor=True, display=False) as ex:
        for step in range(5):
            loss = tt.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            ex.log(step, loss=loss)
            losses.append(loss.item())
    curve = [s for panel in ex.monitor.snapshot["curves"] for s in panel["series"] if s["name"] == "loss"][0]
    assert curve["values"] == pytest.approx(losses, rel=1e-4) and ex.monitor._closed     # (kept to 6 digits)
    assert {r["name"] for r in ex.monitor.snapshot["norms"]["rows"]} == {"0.weight", "0.bias", "2.weight", "2.bias"}
    with pytest.raises(RuntimeError, match="no training monitor"):
        explore(model, display=False).log(0, loss=1.0)


def test_the_loop_does_not_wait_for_graphviz(monkeypatch):
    """A redraw due inside the loop leaves a new graph's layout to a thread (dot runs in its own process) and
    draws it at a later redraw; the last redraw, as the block ends, waits for it."""
    import time
    from teachtorch.explorer import graph_diagram
    monkeypatch.setattr(graph_diagram, "_LAYOUTS", {})
    real = graph_diagram._run_dot

    def slow_dot(dot, timeout):
        time.sleep(0.5)
        return real(dot, timeout)
    monkeypatch.setattr(graph_diagram, "_run_dot", slow_dot)
    w = tt.ones(3, requires_grad=True)
    start = time.perf_counter()
    with Recorder(interval=0) as rec:
        (w * 2).sum().backward()
        during = rec.snapshot["graph_svg"]
        took = time.perf_counter() - start
    assert during == "" and took < 0.4
    assert "SumBackward0" in rec.snapshot["graph_svg"] and rec.snapshot["graph_steps"]


def test_a_row_click_draws_the_rows_tensors_and_node():
    """The front end asks for a row whose tensors or node are not drawn ({"event": "show_row", "row": i}):
    the storage pane then draws that row's tensors and a forward row's output node is in the graph."""
    import re
    w = tt.ones(3, requires_grad=True)
    ex = explore({"w": w}, display=False)
    with ex:
        a = w * 2
        b = a.exp()
        loss = b.sum()
        tt.full((2,), 3.0) * 2                     # tensors freed at once
        c = tt.arange(4.)                          # the last op: the storage pane shows c
    rows = ex.trace_rows
    i = next(k for k, r in enumerate(rows) if r["op"] == "aten.mul.Tensor")
    assert rows[i]["node_id"] == f"n{id(a.grad_fn)}"
    assert f'data-storage="{id(w._storage)}"' not in ex.storage_svg
    ex._on_front_end_msg(ex, {"event": "show_row", "row": i}, [])
    assert re.findall(r'data-label="([^"]*)"', ex.storage_svg) == ["w", "a"]
    assert all(f'data-storage="{s}"' in ex.storage_svg for s in rows[i]["storages"])
    assert f'id="{rows[i]["node_id"]}"' in ex.graph_svg
    gone = next(k for k, r in enumerate(rows) if r["op"] == "aten.full.default")
    ex._on_front_end_msg(ex, {"event": "show_row", "row": gone}, [])   # a row whose tensors were freed
    assert ex.trace_note == f"the tensors of row {gone} are gone (freed): nothing to draw"
