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


def test_the_graph_follows_the_newest_output_after_backward():
    w = tt.ones(3, requires_grad=True)
    with Recorder(interval=0) as rec:
        (w * 2).sum().backward()
        rec.flush()
        assert rec.snapshot["graph_steps"]
        y = w.exp()                                 # new forward work: draw its graph, no steps
    assert rec.snapshot["graph_steps"] == []
    assert "ExpBackward0" in rec.snapshot["graph_svg"]


def test_trace_window_stays_bounded():
    x = tt.ones(2)
    with Recorder(max_events=200) as rec:
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
