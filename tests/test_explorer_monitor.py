"""TrainMonitor (teachtorch/explorer/monitor.py, widgets/monitor.js): what it records is right (against values
computed here independently: autograd's own gradients, NumPy's histograms and counts), bounded, throttled,
never raises into the training loop, and is drawn: as a static copy that is the final state, and live in
real Chromium (tests/browser/harness.py), with nothing clipped at a narrow and a wide width."""

import base64
import io
import json
import re

import numpy as np
import pytest

import teachtorch as tt
from teachtorch import nn
from teachtorch.explorer import frontend, monitor as monitor_module
from teachtorch.explorer.monitor import Curve, TrainMonitor, confusion_counts, histogram
from teachtorch.nn import functional as F

from browser.harness import artifacts_dir, launch_chromium, mount_widget


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(monitor_module.time, "perf_counter", clock)
    return clock


def mlp(seed=0):
    tt.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3))


def data(seed=1, n=16):
    g = tt.Generator().manual_seed(seed)
    return tt.randn(n, 6, generator=g), tt.randint(0, 3, (n,), generator=g)


def train_step(model, opt, x, y):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return logits, loss


def series(mon, name):
    return next(s for p in mon.view.curves for s in p["series"] if s["name"] == name)


# ---- curves ----------------------------------------------------------------------------------------------

def test_curves_are_the_logged_values_and_val_shares_the_panel(clock):
    mon = TrainMonitor(display=False)
    losses = [2.0 / (i + 1) for i in range(20)]
    for i, value in enumerate(losses):
        clock.now += 1.0                              # every log pushes
        mon.log(i, loss=tt.tensor(value), acc=np.float32(i / 20))
        if i % 5 == 4:
            mon.log(i, val_loss=value + 0.1)
    mon.close()
    loss = series(mon, "loss")
    assert loss["steps"] == list(range(20))
    assert np.allclose(loss["values"], losses, rtol=1e-5)
    assert loss["last"] == pytest.approx(losses[-1], rel=1e-5) and loss["count"] == 20
    assert np.allclose(series(mon, "acc")["values"], np.arange(20, dtype=np.float32) / 20, rtol=1e-5)
    panels = {p["panel"]: [s["name"] for s in p["series"]] for p in mon.view.curves}
    assert panels == {"loss": ["loss", "val_loss"], "acc": ["acc"]}      # val_loss is drawn with loss
    assert series(mon, "val_loss")["steps"] == [4, 9, 14, 19]
    assert mon.view.step == 19
    json.dumps(mon.view.curves)


def test_step_defaults_to_one_more_than_the_last():
    mon = TrainMonitor(display=False)
    for value in (3.0, 2.0, 1.0):
        mon.log(loss=value)
    mon.close()
    assert series(mon, "loss")["steps"] == [0, 1, 2]


def test_ten_thousand_logs_keep_at_most_max_points_each_the_mean_of_its_steps():
    values = np.sin(np.arange(10_000) / 300.0) + np.arange(10_000) * 1e-4
    curve = Curve(max_points=500)
    longest = 0
    for step, v in enumerate(values):
        curve.add(step, float(v))
        longest = max(longest, len(curve.points()[0]))
    assert longest <= 500
    steps, means = curve.points()
    w = curve.width                                       # each full point: the mean of w consecutive values
    full = len(curve.steps)
    assert 2 <= w and full * w <= 10_000 < (full + 1) * w
    expected = values[:full * w].reshape(full, w).mean(axis=1)
    assert np.allclose(means[:full], expected, rtol=1e-9)
    assert steps[:full] == list(range(w - 1, full * w, w))   # at the step of the last value of each
    assert means[full:] == pytest.approx([values[full * w:].mean()] if full * w < 10_000 else [])
    assert steps[-1] == 9_999


def test_a_monitor_logging_ten_thousand_steps_pushes_at_most_max_points(clock):
    mon = TrainMonitor(display=False, max_points=200)
    for step in range(10_000):
        clock.now += 0.01
        mon.log(step, loss=1.0 / (step + 1))
    mon.close()
    loss = series(mon, "loss")
    assert len(loss["steps"]) <= 200 and len(mon.curves["loss"].steps) <= 200
    assert loss["last"] == pytest.approx(1e-4) and loss["last_step"] == 9_999 and loss["steps"][-1] == 9_999


# ---- norms and the update ratio ---------------------------------------------------------------------------

def test_norms_are_the_parameters_and_gradients_norms(clock):
    model = mlp()
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    mon = TrainMonitor(model, display=False)
    x, y = data()
    _, loss = train_step(model, opt, x, y)
    mon.log(0, loss=loss)
    rows = {r["name"]: r for r in mon.view.norms["rows"]}
    assert list(rows) == [name for name, _ in model.named_parameters()]
    for name, p in model.named_parameters():
        assert rows[name]["param"] == pytest.approx(p.detach().norm().item(), rel=1e-5)
        assert rows[name]["grad"] == pytest.approx(p.grad.norm().item(), rel=1e-5)
        assert rows[name]["shape"] == list(p.shape)
    assert mon.view.norms["step"] == 0
    mon.close()


def test_update_ratio_is_one_steps_change_over_the_weight(clock):
    model = mlp()
    opt = tt.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    mon = TrainMonitor(model, display=False)
    x, y = data()
    for step in range(3):                         # a few steps, none pushing: no clock time passes
        _, loss = train_step(model, opt, x, y)
        mon.log(step, loss=loss)
    assert mon.pushes == 1                        # only the first log was due
    clock.now += 1.0
    _, loss = train_step(model, opt, x, y)
    mon.log(3, loss=loss)                         # due: pushes, and copies the weights
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    _, loss = train_step(model, opt, x, y)
    mon.log(4, loss=loss)                         # measures the update of this one step
    mon.close()
    rows = {r["name"]: r for r in mon.view.norms["rows"]}
    for name, p in model.named_parameters():
        expected = (p.detach() - before[name]).norm().item() / before[name].norm().item()
        assert rows[name]["ratio"] == pytest.approx(expected, rel=1e-5)
        assert rows[name]["ratio_steps"] == [3, 4]
        assert rows[name]["ratio"] > 0


def test_no_update_is_measured_between_two_logs_of_one_step(clock):
    model = mlp()
    opt = tt.optim.SGD(model.parameters(), lr=0.5)
    mon = TrainMonitor(model, display=False)
    x, y = data()
    _, loss = train_step(model, opt, x, y)
    mon.log(0, loss=loss)
    mon.log(0, test_acc=0.5)                      # an evaluation logged at the same step: weights unchanged
    assert mon._ratios == {}
    _, loss = train_step(model, opt, x, y)
    mon.log(1, loss=loss)
    assert all(ratio > 0 for _, ratio in mon._ratios.values())
    mon.close()


def test_norms_are_measured_only_when_a_push_is_due(clock, monkeypatch):
    model = mlp()
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    mon = TrainMonitor(model, display=False, interval=0.1)
    calls = []
    original = mon._norms
    monkeypatch.setattr(mon, "_norms", lambda: calls.append(clock.now) or original())
    x, y = data()
    for step in range(100):
        clock.now += 0.01                         # 100 steps in 1 s of fake time
        _, loss = train_step(model, opt, x, y)
        mon.log(step, loss=loss)
    mon.close()
    assert len(calls) <= 1.0 / 0.1 + 2 and len(calls) == mon.pushes


# ---- histograms --------------------------------------------------------------------------------------------

def test_histograms_are_the_layers_output_and_the_gradient_arriving_at_it(clock):
    model = mlp()
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    seen = []

    def mine(module, args, out):                  # our own look at the ReLU's output, and its gradient
        if out.requires_grad:
            out.retain_grad()
            seen.append(out)
    model[1].register_forward_hook(mine)
    mon = TrainMonitor(model, layer=model[1], display=False)
    assert mon.layer_name == "1"
    x, y = data()
    _, loss = train_step(model, opt, x, y)
    mon.log(0, loss=loss)
    hist = mon.view.histograms
    assert hist["layer"] == "1"
    out = seen[-1]
    for key, values in (("activation", out.detach().numpy()), ("gradient", out.grad.numpy())):
        counts, edges = np.histogram(values.astype(np.float64), bins=monitor_module.HIST_BINS)
        assert hist[key]["counts"] == counts.tolist()
        assert np.allclose(hist[key]["edges"], edges, rtol=1e-5, atol=1e-12)
        assert hist[key]["n"] == values.size and hist[key]["step"] == 0
    assert hist["activation"]["zeros"] == pytest.approx(np.mean(out.detach().numpy() == 0), abs=1e-6)

    model.eval()                                  # an evaluation pass does not replace the training picture
    clock.now += 1.0
    with tt.no_grad():
        model(x * 100)
    mon.close()
    assert mon.view.histograms["activation"]["counts"] == hist["activation"]["counts"]
    assert not model[1]._forward_hooks or all(h is mine for h in model[1]._forward_hooks.values())


def test_a_training_forward_after_the_last_log_is_labelled_after_that_step(clock):
    model = mlp()
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    mon = TrainMonitor(model, layer=model[1], display=False)
    x, y = data()
    _, loss = train_step(model, opt, x, y)
    mon.log(0, loss=loss)
    assert mon.view.histograms["activation"]["after_step"] is False
    model(x * 100)                                # train mode, no log after it: an accuracy pass, say
    mon.close()
    hist = mon.view.histograms["activation"]
    assert hist["step"] == 0 and hist["after_step"] is True       # drawn "after step 0", not "step null"


def test_layer_by_name_and_the_default_layer():
    model = mlp()
    assert TrainMonitor(model, layer="2", display=False).layer_name == "2"
    assert TrainMonitor(model, display=False).layer_name == "0"     # the first module with parameters
    bad = TrainMonitor(model, layer="nope", display=False)
    assert bad.layer_name is None and any("nope" in e for e in bad.errors)


def test_a_histogram_of_a_large_tensor_is_made_from_a_bounded_sample():
    values = tt.randn(100_000)
    h = histogram(values)
    assert h["n"] == 100_000 and h["sampled"] <= monitor_module.HIST_SAMPLE
    assert sum(h["counts"]) == h["sampled"]
    assert abs(h["mean"]) < 0.1 and h["std"] == pytest.approx(1.0, abs=0.1)
    h = histogram(np.array([np.nan, np.inf, 1.0, 2.0]))
    assert h["nonfinite"] == 2 and sum(h["counts"]) == 2


# ---- throttling ------------------------------------------------------------------------------------------

def test_pushes_are_throttled_and_the_last_is_the_final_state(clock, monkeypatch):
    mon = TrainMonitor(display=False, interval=0.1)
    pushed = []
    original = mon.view._set
    monkeypatch.setattr(mon.view, "_set", lambda snap, names: (pushed.append(clock.now), original(snap, names)))
    for step in range(1000):
        clock.now += 0.001                        # 1000 steps, a millisecond apart: 1 s
        mon.log(step, loss=float(step))
    assert len(pushed) <= 1.0 / 0.1 + 1
    assert all(b - a >= 0.1 - 1e-9 for a, b in zip(pushed, pushed[1:]))
    assert mon.view.seq == len(pushed)
    mon.close()
    assert len(pushed) <= 1.0 / 0.1 + 2
    assert series(mon, "loss")["last_step"] == 999 and mon.view.step == 999     # close pushed the end
    mon.close()                                   # twice is harmless
    assert mon.view.step == 999


def test_slow_pushes_are_kept_to_the_budget(clock, monkeypatch):
    mon = TrainMonitor(display=False, interval=0.1, budget=0.25)
    original = mon.view._set

    def slow(snap, names):
        clock.now += 1.0                          # a push "takes" a second
        original(snap, names)
    monkeypatch.setattr(mon.view, "_set", slow)
    for step in range(300):
        clock.now += 0.01                         # 3 s of steps
        mon.log(step, loss=1.0)
    # after a push costing 1 s the next waits 4 s: 3 s of steps cannot trigger a second one
    assert mon.pushes == 1


# ---- never in the way ---------------------------------------------------------------------------------------

def test_errors_never_reach_the_training_loop(clock, monkeypatch):
    model = mlp()
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    mon = TrainMonitor(model, display=False)
    x, y = data()

    class Exploding:
        def __float__(self):
            raise RuntimeError("boom")

    for step in range(5):
        clock.now += 1.0
        _, loss = train_step(model, opt, x, y)
        mon.log(step, loss=loss, many=tt.ones(3), word="high", bad=Exploding(), none=None, nan=float("nan"))
    monkeypatch.setattr(mon.view, "_set", lambda *a: 1 / 0)       # the widget cannot be updated
    clock.now += 1.0
    mon.log(5, loss=0.5)
    mon.confusion([0, 1], [0, 1, 2], classes=3)                    # lengths differ
    mon.samples(images=tt.ones(2, 7))                              # 7 values: not square images
    monkeypatch.undo()
    mon.close()
    text = "\n".join(mon.view.errors)
    assert len(mon.view.errors) <= monitor_module.MAX_ERRORS
    assert "ZeroDivisionError" in " ".join(mon.errors) or "pushing" in text
    assert series(mon, "loss")["count"] == 6                       # the good metric was recorded throughout
    assert series(mon, "nan")["values"] == [None] * 5              # nan is a gap in the curve
    messages = list(mon.errors)
    assert len(messages) == len(set(messages))                     # each failing metric reported once


def test_every_failure_is_reported_once(clock):
    mon = TrainMonitor(display=False)
    for step in range(50):
        mon.log(step, loss=1.0, acc="x")
    assert [e for e in mon.errors if "acc" in e] == ["log(acc=...) at step 0: TypeError: 'x' is not a number"]
    mon.close()
    assert mon.view.errors == list(mon.errors)


# ---- confusion matrix and samples ----------------------------------------------------------------------------

def test_confusion_matrix_counts_against_numpy():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 7, 500)
    y_pred = np.where(rng.random(500) < 0.7, y_true, rng.integers(0, 7, 500))
    expected = np.zeros((7, 7), dtype=int)
    np.add.at(expected, (y_true, y_pred), 1)
    assert confusion_counts(tt.tensor(y_true), tt.tensor(y_pred), 7) == expected.tolist()
    mon = TrainMonitor(display=False)
    mon.confusion(tt.tensor(y_true), tt.tensor(y_pred), classes=[f"c{i}" for i in range(7)])
    conf = mon.view.confusion
    assert conf["counts"] == expected.tolist() and conf["classes"][3] == "c3"
    assert conf["accuracy"] == pytest.approx(np.mean(y_true == y_pred), rel=1e-5)
    mon.confusion(y_true.tolist(), y_pred.tolist())                # classes: from the largest label
    assert len(mon.view.confusion["classes"]) == max(y_true.max(), y_pred.max()) + 1


def test_samples_images_and_text():
    images = tt.arange(3 * 64, dtype=tt.float32).reshape(3, 1, 8, 8)
    mon = TrainMonitor(display=False)
    mon.samples(images=images, labels=tt.tensor([1, 2, 3]), predictions=[1, 5, 3])
    shown = mon.view.samples["images"]
    assert [(s["label"], s["prediction"]) for s in shown] == [("1", "1"), ("2", "5"), ("3", "3")]
    pixels = np.array(shown[1]["pixels"])
    assert pixels.shape == (8, 8) and pixels.min() == 0 and pixels.max() == 1
    assert np.allclose(pixels, np.round(np.arange(64).reshape(8, 8) / 63, 2))
    mon.samples(text="x" * 10_000)
    assert len(mon.view.samples["text"]) == monitor_module.MAX_TEXT + 1 and "images" not in mon.view.samples


# ---- the static copy and the display ---------------------------------------------------------------------

def trained_monitor(steps=60, classes=3):
    """A monitor after a short real training run, with every panel filled."""
    model = mlp()
    opt = tt.optim.SGD(model.parameters(), lr=0.2)
    mon = TrainMonitor(model, layer="1", title="a small MLP", display=False, interval=0)
    x, y = data(n=48)
    for step in range(steps):
        logits, loss = train_step(model, opt, x, y)
        mon.log(step, loss=loss, acc=(logits.argmax(1) == y).float().mean())
        if step % 20 == 19:
            mon.log(step, val_loss=loss.item() + 0.05)
    mon.confusion(y, logits.argmax(1), classes=classes)
    g = tt.Generator().manual_seed(3)
    mon.samples(images=tt.rand(12, 1, 8, 8, generator=g), labels=tt.arange(12) % 10, predictions=tt.arange(12) % 7)
    mon.close()
    return mon, loss.item()


def test_static_html_is_the_final_state_with_a_png_that_decodes():
    mon, last_loss = trained_monitor()
    page = mon.static_html()
    assert page == mon._repr_mimebundle_()[0]["text/html"] == mon.view.static_html()
    assert f"step 59: loss {last_loss:.4g}" in page                          # the final step
    assert "<script" not in page and "http" not in page                      # nothing to run, nothing to fetch
    (data_,) = re.findall(r"src='data:image/png;base64,([^']+)'", page)
    png = base64.b64decode(data_)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image
    picture = matplotlib.image.imread(io.BytesIO(png))
    assert picture.shape[0] > 200 and picture.shape[1] > 600 and picture.std() > 0.05   # drawn, not blank
    assert page.count("<tr>") == 1 + 4                                       # the norms table: head + 4 params
    assert "norms at step 59" in page


def test_display_in_a_kernel_and_the_saved_output_is_updated_on_close(monkeypatch):
    import IPython.display
    shown = []

    class Handle:
        def update(self, obj):
            shown.append(("update", obj.static_html()))

    def display(obj, display_id=False):
        assert display_id is True
        shown.append(("display", obj.static_html()))
        return Handle()
    monkeypatch.setattr(IPython.display, "display", display)
    monkeypatch.setattr(monitor_module, "in_kernel", lambda: True)
    mon = TrainMonitor(title="live")
    mon.log(0, loss=2.0)
    mon.log(1, loss=1.0)
    mon.close()
    assert [kind for kind, _ in shown] == ["display", "update"]
    assert "step 1: loss 1" in shown[-1][1] and "step 1" not in shown[0][1]


def test_outside_a_kernel_nothing_is_displayed(monkeypatch):
    import IPython.display
    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: pytest.fail("displayed in a terminal"))
    assert monitor_module.in_kernel() is False
    with TrainMonitor() as mon:
        mon.log(0, loss=1.0)
    assert mon.view.step == 0 and mon._handle is None


def test_frontend_assembles_the_monitor_module():
    src = frontend.esm_source("monitor")
    assert "// ---- monitor.js ----" in src and src.rstrip().endswith("return mountMonitor(el, model); } };")
    assert "monitor.js" not in frontend.esm_source("storage")          # the other widgets stay as they were
    assert ".tt-monitor" in frontend.css_source() and "http://" not in src and "https://" not in src
    assert monitor_module.MonitorView._esm == src


# ---- the live view in Chromium -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def context():
    with launch_chromium() as context:
        yield context


def monitor_traits():
    mon, _ = trained_monitor(classes=10)
    return mon, {"seq": mon.view.seq, "title": mon.title, **{n: getattr(mon.view, n) for n in monitor_module.NAMES}}


BOXES_INSIDE = """(root) => {
  const box = root.getBoundingClientRect();
  const out = [];
  for (const e of root.querySelectorAll("*")) {
    const r = e.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
      out.push(`${e.tagName}.${e.getAttribute("class")}: x ${r.left | 0}..${r.right | 0}, y ${r.top | 0}..${r.bottom | 0}`);
  }
  return out;
}"""


@pytest.mark.parametrize("width", [600, 1400])
def test_the_live_view_draws_every_panel_and_nothing_is_clipped(context, tmp_path, width):
    mon, traits = monitor_traits()
    artifacts = artifacts_dir(tmp_path)
    w = mount_widget(context, "monitor", traits, width=width, save_page_to=artifacts / "harness_monitor.html")
    page = w.page
    try:
        root = page.locator("#host > .tt-widget.tt-monitor")
        assert root.get_attribute("data-seq") == str(traits["seq"])
        assert root.locator(".tt-title").text_content() == "a small MLP"
        assert "step 59" in root.locator(".tt-status").first.text_content()
        # one chart per panel, one line per series, with every point
        assert page.locator("svg.tt-chart").count() == len(traits["curves"])
        for panel in traits["curves"]:
            for s in panel["series"]:
                chart = page.locator(f'svg.tt-chart[data-panel="{panel["panel"]}"]')
                path = chart.locator(f'path.tt-curve[data-name="{s["name"]}"]')
                assert path.get_attribute("data-points") == str(len(s["steps"]))
                assert path.get_attribute("d").count("L") == len(s["steps"]) - 1
        assert w.attrs("tr.tt-norm-row", "data-name") == [r["name"] for r in traits["norms"]["rows"]]
        # a name too long for its column keeps its end (weight or bias) and loses its start
        names = page.locator("tr.tt-norm-row td:first-child")
        assert [n.strip("\u200e") for n in names.all_text_contents()] == [r["name"] for r in traits["norms"]["rows"]]
        long = dict(traits["norms"], rows=[dict(traits["norms"]["rows"][0], name="blocks.11.attention.query_key_value.weight")])
        w.set("norms", long)
        ends = names.first.evaluate("""(td) => {
            const text = [...td.childNodes].find((n) => n.nodeType === 3), r = document.createRange(), box = td.getBoundingClientRect();
            const at = (i) => { r.setStart(text, i); r.setEnd(text, i + 1); return r.getBoundingClientRect(); };
            return {firstCut: at(1).left < box.left, lastShown: at(text.length - 2).right <= box.right + 1};
        }""")
        assert ends == {"firstCut": True, "lastShown": True}, ends
        bars = page.locator("svg.tt-hist-activation rect.tt-bar")
        assert [int(c) for c in w.attrs("svg.tt-hist-activation rect.tt-bar", "data-count")] == \
            traits["histograms"]["activation"]["counts"]
        assert bars.count() == monitor_module.HIST_BINS and page.locator("svg.tt-hist-gradient").count() == 1
        cells = w.attrs("rect.tt-cm-cell", "data-count")
        assert [int(c) for c in cells] == [c for row in traits["confusion"]["counts"] for c in row]
        assert page.locator("svg.tt-sample").count() == 12
        wrong = sum(s["label"] != s["prediction"] for s in traits["samples"]["images"])
        assert page.locator("svg.tt-sample-wrong").count() == wrong
        # nothing sticks out of the widget, at this width
        assert page.evaluate(BOXES_INSIDE, root.element_handle()) == []
        root.screenshot(path=str(artifacts / f"monitor_{width}.png"))

        # a push from the kernel: a longer curve, the text sample instead of images, an error
        mon._error("something went wrong")
        mon.log(60, loss=0.01)                    # (a closed monitor still records, and pushes)
        mon.samples(text="The quick brown fox\njumps over the lazy dog. " * 20)
        for name in ("curves", "samples", "errors", "step"):
            w.set(name, getattr(mon.view, name))
        w.set("seq", mon.view.seq)
        assert root.get_attribute("data-seq") == str(mon.view.seq)
        loss = series(mon, "loss")
        assert page.locator('path.tt-curve[data-name="loss"]').get_attribute("data-points") == str(len(loss["steps"]))
        assert page.locator("svg.tt-sample").count() == 0
        assert "quick brown fox" in page.locator("pre.tt-sample-text").text_content()
        assert page.locator(".tt-monitor-error").last.text_content() == "something went wrong"
        assert page.evaluate(BOXES_INSIDE, root.element_handle()) == []
        root.screenshot(path=str(artifacts / f"monitor_{width}_text.png"))
        # cleanup: every listener goes away
        page.evaluate("() => window.__cleanup()")
        assert page.evaluate("() => window.__model.listenerCount()") == 0
    finally:
        page.close()
    assert w.errors == [] and w.blocked == []


def test_an_empty_monitor_renders(context):
    mon = TrainMonitor(display=False)
    traits = {"seq": 0, "title": "", **{n: getattr(mon.view, n) for n in monitor_module.NAMES}}
    w = mount_widget(context, "monitor", traits)
    try:
        assert "nothing logged yet" in w.page.locator(".tt-curves-pane").text_content()
        assert w.page.locator("section.tt-box:not([hidden])").count() == 1
    finally:
        w.page.close()
    assert w.errors == [] and w.blocked == []
