"""TrainMonitor: a training run drawn while it runs, with loss and metric curves, per-layer parameter and
gradient norms, histograms of one layer's activations and gradients, a confusion matrix and samples.

    mon = tt.explorer.TrainMonitor(model, layer="1")    # in a notebook it shows itself at once
    for step, (x, y) in enumerate(loader):
        logits = model(x); loss = F.cross_entropy(logits, y)
        opt.zero_grad(); loss.backward(); opt.step()
        mon.log(step, loss=loss, acc=(logits.argmax(1) == y).float().mean())   # tensors or numbers
    mon.confusion(y_true, y_pred, classes=10)           # optional panels
    mon.samples(images=x[:16], labels=y[:16], predictions=logits.argmax(1)[:16])   # or samples(text="...")
    mon.close()                                         # or `with TrainMonitor(...) as mon:`

What each panel shows, and why it is worth looking at:

    curves       every name given to `log`; "val_loss" and "test_loss" share the axes of "loss" (the prefixes
                 train_, val_, valid_, test_ are dropped to choose the panel)
    norms        per parameter: ||p||, ||p.grad|| and the update/weight ratio ||p_new - p_old|| / ||p_old|| of
                 one optimizer step. A healthy ratio is around 1e-3 (Karpathy's rule of thumb): far below,
                 the layer barely learns; far above, the steps are too big.
    histograms   the chosen layer's output and the gradient arriving at it, in the latest training forward
                 and backward: dead ReLUs show as a spike at 0, vanishing gradients as a spike at 0 too.
    confusion    rows the true class, columns the predicted one; the diagonal is right.
    samples      small images with their label and prediction (wrong ones in red), or generated text.

**Cheap and bounded.** `log` is called every step, so it only adds each value to its curve. A curve keeps
at most `max_points` points (500): when full, neighbouring points are averaged in pairs and each point from
then on stands for twice as many steps, so 10,000 or 10 million steps take the same memory. Everything
else (norms, histograms) is measured only when a picture is due: at most every `interval` seconds (0.1 s)
and, after a push that took `c` seconds, not before `c / budget` seconds more (drawing never takes more than
a fifth of the time: the same policy as recorder.py). The update ratio needs the weights of the step
before: at a push the monitor copies them, and at the next `log` it measures the change and drops the
copy. The layer's forward hook keeps a reference to the latest activation and gradient, never more.
`close()` always pushes the final state.

**Never in the way.** Nothing the monitor does raises into the training loop: a metric that cannot be read
(a tensor of many elements, a string), a hook that fails, a push that fails are caught, remembered in
`mon.errors` and shown in red in the widget.

**Two copies of the picture.** The live view is drawn by widgets/monitor.js (plain SVG) from synced traits
of plain JSON. The static copy (`static_html()`, the text/html of the output) is drawn with matplotlib as
an inline PNG plus an HTML table of the norms: that is what nbconvert, GitHub and a closed notebook show.
In a notebook the monitor is displayed with a display handle, and `close()` updates it, so the saved
output is the final picture, not the first.

Outside a notebook kernel (a terminal, a test) it displays nothing and records all the same.

PyTorch has no built-in monitor: people use TensorBoard (`torch.utils.tensorboard.SummaryWriter`:
`add_scalar`, `add_histogram`, `add_image`, viewed in a separate web app), Weights & Biases, or a tqdm bar.
"""

import collections
import math
import time

import numpy as np
import traitlets

from .monitor_static import static_html
from .svg import clean
from .widgets import _View      # anywidget, as every widget of the explorer

MAX_ERRORS = 5              # error messages kept (the newest)
MAX_ROWS = 48               # parameters shown in the norms table
HIST_SAMPLE = 4096          # values a histogram is made from (a strided sample of the tensor)
HIST_BINS = 30
MAX_IMAGES = 32             # images in the sample panel
MAX_IMAGE_SIDE = 32         # larger images are shown with every k-th pixel
MAX_TEXT = 4000             # characters of sample text
MAX_CLASSES = 100           # classes in the confusion matrix
PREFIXES = ("train_", "val_", "valid_", "test_")


def in_kernel():
    """True inside a Jupyter kernel (a notebook), False in a terminal, a script or plain IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return getattr(get_ipython(), "kernel", None) is not None


def _short(x):
    """A float for JSON: 6 significant digits (enough for a picture, and small), None for nan and inf."""
    if x is None or not math.isfinite(x):
        return None
    return float(f"{x:.6g}")


def _array(t):
    """The values of a tensor (or anything array-like) as a NumPy array, without touching autograd."""
    if hasattr(t, "detach"):
        t = t.detach()
        if hasattr(t, "cpu"):
            t = t.cpu()
        return np.asarray(t.numpy())
    return np.asarray(t)


def _number(value):
    """A logged value as a float: a one-element tensor, a NumPy scalar, a Python number."""
    if hasattr(value, "detach"):
        a = _array(value)
        if a.size != 1:
            raise ValueError(f"a tensor of {a.size} elements is not one number (log its .mean()?)")
        return float(a.reshape(()))
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{value!r} is not a number")
    return float(value)


def panel_of(name):
    """The curve panel a logged name is drawn in: "val_loss" and "loss" share the panel "loss"."""
    for prefix in PREFIXES:
        if name.startswith(prefix) and len(name) > len(prefix):
            return name[len(prefix):]
    return name


class Curve:
    """One logged quantity, in at most `max_points` points; each point is the mean of `width` consecutive
    values and sits at the step of the last of them. When the points fill up, neighbours are averaged in
    pairs and `width` doubles: the memory is fixed, the curve is smoothed as it gets longer."""

    def __init__(self, max_points=500):
        self.max_points = max(2, max_points - max_points % 2)   # even, so pairs always merge
        self.width = 1
        self.steps, self.values = [], []    # the full points
        self._sum, self._n, self._step = 0.0, 0, None   # the point being filled
        self.count, self.last, self.last_step = 0, None, None

    def add(self, step, value):
        self.count += 1
        self.last, self.last_step = value, step
        self._sum += value
        self._n += 1
        self._step = step
        if self._n < self.width:
            return
        self.steps.append(step)
        self.values.append(self._sum / self._n)
        self._sum, self._n = 0.0, 0
        if len(self.steps) >= self.max_points:
            self.steps = self.steps[1::2]
            self.values = [(a + b) / 2 for a, b in zip(self.values[0::2], self.values[1::2])]
            self.width *= 2

    def points(self):
        """(steps, values): the full points and the one being filled."""
        if not self._n:
            return list(self.steps), list(self.values)
        return self.steps + [self._step], self.values + [self._sum / self._n]


def histogram(values, bins=HIST_BINS, sample=HIST_SAMPLE):
    """A histogram of (a strided sample of at most `sample` of) some values, as plain JSON."""
    flat = _array(values).reshape(-1)
    n = flat.size
    if n > sample:
        flat = flat[:: -(-n // sample)]     # every k-th value: cheap, and spread over the whole tensor
    flat = flat.astype(np.float64)
    finite = flat[np.isfinite(flat)]
    if finite.size == 0:
        return {"edges": [], "counts": [], "n": int(n), "sampled": int(flat.size), "nonfinite": int(flat.size),
                "mean": None, "std": None, "zeros": 0.0}
    counts, edges = np.histogram(finite, bins=bins)
    return {"edges": [_short(e) for e in edges], "counts": counts.tolist(), "n": int(n), "sampled": int(flat.size),
            "nonfinite": int(flat.size - finite.size), "mean": _short(finite.mean()), "std": _short(finite.std()),
            "zeros": _short(float(np.mean(finite == 0)))}


def confusion_counts(y_true, y_pred, classes):
    """The confusion matrix as a list of rows: counts[i][j] = how many of class i were predicted j."""
    t = _array(y_true).reshape(-1).astype(np.int64)
    p = _array(y_pred).reshape(-1).astype(np.int64)
    if t.shape != p.shape:
        raise ValueError(f"y_true has {t.size} labels and y_pred {p.size}")
    k = classes
    inside = (t >= 0) & (t < k) & (p >= 0) & (p < k)
    return np.bincount(t[inside] * k + p[inside], minlength=k * k).reshape(k, k).tolist()


def _images(images):
    """Images as lists of rows of grey levels in [0, 1], each scaled by its own min and max."""
    a = _array(images).astype(np.float64)
    if a.ndim == 4:                      # (N, C, H, W): the first channel
        a = a[:, 0]
    if a.ndim == 2:                      # (N, H*W): square images, flattened
        side = int(round(math.sqrt(a.shape[1])))
        if side * side != a.shape[1]:
            raise ValueError(f"images of {a.shape[1]} values are not square; pass them as (N, H, W)")
        a = a.reshape(len(a), side, side)
    if a.ndim != 3:
        raise ValueError(f"images should be (N, H, W), (N, C, H, W) or (N, H*W), not {a.shape}")
    a = a[:MAX_IMAGES]
    step = -(-max(a.shape[1], a.shape[2]) // MAX_IMAGE_SIDE)
    a = a[:, ::step, ::step]
    low = np.nanmin(a, axis=(1, 2), keepdims=True)
    span = np.nanmax(a, axis=(1, 2), keepdims=True) - low
    a = np.nan_to_num((a - low) / np.where(span > 0, span, 1))
    return np.round(a, 2).tolist()


def _labels(values, n):
    if values is None:
        return [None] * n
    return [str(v) for v in _array(values).reshape(-1)[:n].tolist()]


class TrainMonitor:
    """Loss and metric curves, per-layer norms, one layer's histograms, a confusion matrix and samples,
    live in a notebook (see the module docstring). `model`: an nn.Module (or None: curves only);
    `layer`: the submodule whose activations and gradients are drawn, by name ("1", "encoder.0") or as the
    module itself (default: the first module that has parameters of its own)."""

    def __init__(self, model=None, layer=None, title="training", max_points=500, interval=0.1, budget=0.2,
                 display=None):
        self.model = model
        self.title = clean(title)
        self.max_points, self.interval, self.budget = max_points, interval, budget
        self.curves = {}                    # name -> Curve
        self.errors = collections.deque(maxlen=MAX_ERRORS)
        self.pushes, self.push_seconds = 0, 0.0
        self.step = None                    # the step of the latest log
        self.snapshot = {"curves": [], "norms": {}, "histograms": {}, "confusion": {}, "samples": {},
                         "errors": [], "step": None}
        self._next_push = 0.0               # perf_counter time after which the next push is due
        self._previous = None               # (step, {name: copy of the weights}) taken at the last push
        self._ratios = {}                   # name -> ((from step, to step), update/weight ratio), the latest
        self._caught = None                 # the layer's latest training forward: {"activation", "gradient", "step"}
        self._hook = None
        self._closed = False
        self._noted = set()                 # the errors reported once (a metric that fails at every step)
        self._handle = None                 # the IPython display handle, updated on close
        self.layer_name, self._layer = self._find_layer(layer)
        if self._layer is not None:
            self._hook = self._layer.register_forward_hook(self._on_forward)
        self.view = MonitorView(title=self.title)
        if display is None:
            display = in_kernel()
        if display:
            self._display()

    # ---- what the training loop calls ----------------------------------------------------------------

    def log(self, step=None, **values):
        """Record `values` (tensors of one element, or numbers) at `step` (default: one more than the last).
        Never raises: what cannot be recorded is noted in `mon.errors` and shown in the widget."""
        try:
            if step is None:
                step = 0 if self.step is None else self.step + 1
            step = int(step)
            self.step = step
            if self._caught is not None and self._caught["step"] is None:
                self._caught["step"] = step     # the step whose forward and backward the hooks caught
            for name, value in values.items():
                try:
                    x = _number(value)
                except Exception as e:      # noted once per name and kind of error, not at every step
                    self._error(f"log({name}=...) at step {step}: {type(e).__name__}: {e}", once=(name, type(e)))
                    continue
                if not math.isfinite(x):
                    self._error(f"{name} is {x} at step {step}: has the training diverged?", once=(name, "nan"))
                curve = self.curves.get(name)
                if curve is None:
                    curve = self.curves[name] = Curve(self.max_points)
                curve.add(step, x)
            if self._previous is not None and step != self._previous[0]:
                self._measure_update()      # the weights have (probably) been stepped since the push
            if time.perf_counter() >= self._next_push:
                self._push()
        except Exception as e:              # a bug of ours must not stop the student's training
            self._error(f"log at step {step}: {type(e).__name__}: {e}")

    def confusion(self, y_true, y_pred, classes=None):
        """Draw the confusion matrix of these labels and predictions (tensors, arrays or lists of class
        numbers). `classes`: how many, or their names (default: the largest number seen, plus one)."""
        try:
            if classes is None:
                classes = int(max(_array(y_true).max(), _array(y_pred).max())) + 1
            names = [str(c) for c in classes] if not isinstance(classes, int) else [str(i) for i in range(classes)]
            if len(names) > MAX_CLASSES:
                raise ValueError(f"{len(names)} classes are too many to draw (at most {MAX_CLASSES})")
            counts = confusion_counts(y_true, y_pred, len(names))
            total = sum(map(sum, counts))
            right = sum(counts[i][i] for i in range(len(names)))
            self.snapshot["confusion"] = {"classes": [clean(n) for n in names], "counts": counts, "step": self.step,
                                          "accuracy": _short(right / total) if total else None}
            self._push(measure=False)
        except Exception as e:
            self._error(f"confusion: {type(e).__name__}: {e}")

    def samples(self, images=None, labels=None, predictions=None, text=None):
        """Show some samples: `images` (N, H, W), (N, 1, H, W) or (N, H*W) with optional `labels` and
        `predictions` (wrong ones are drawn in red), or `text` (generated text)."""
        try:
            panel = {"step": self.step}
            if images is not None:
                pixels = _images(images)
                panel["images"] = [{"pixels": p, "label": lab, "prediction": pred} for p, lab, pred in
                                   zip(pixels, _labels(labels, len(pixels)), _labels(predictions, len(pixels)))]
            if text is not None:
                text = clean(text)
                panel["text"] = text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"
            self.snapshot["samples"] = panel
            self._push(measure=False)
        except Exception as e:
            self._error(f"samples: {type(e).__name__}: {e}")

    def close(self):
        """Push the final state, remove the hook, and make the notebook's saved output the final picture."""
        if self._closed:
            return
        self._closed = True
        self._previous = None
        try:
            if self._hook is not None:
                self._hook.remove()
        except Exception as e:
            self._error(f"removing the hook: {type(e).__name__}: {e}")
        self._push()
        if self._handle is not None:
            try:
                self._handle.update(self)     # the output saved in the notebook: the final static copy
            except Exception as e:
                self._error(f"updating the display: {type(e).__name__}: {e}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # ---- the picture ---------------------------------------------------------------------------------

    def static_html(self):
        """The picture without JavaScript (what nbconvert, GitHub and the slides show)."""
        return static_html(self.title, self.snapshot)

    def _repr_mimebundle_(self, **kwargs):
        return self.view._repr_mimebundle_(**kwargs)

    def _display(self):
        try:
            from IPython.display import display
            self._handle = display(self, display_id=True)
        except Exception as e:
            self._error(f"display: {type(e).__name__}: {e}")

    # ---- inside ------------------------------------------------------------------------------------

    def _error(self, message, once=None):
        if once is not None:
            if once in self._noted or len(self._noted) > 1000:
                return
            self._noted.add(once)
        self.errors.append(clean(message)[:300])
        self.snapshot["errors"] = list(self.errors)

    def _find_layer(self, layer):
        """(name, module) of the layer to draw histograms of; (None, None) when there is none."""
        if self.model is None or not hasattr(self.model, "named_modules"):
            return None, None
        try:
            modules = list(self.model.named_modules())
            if layer is None:            # the first module with parameters of its own
                for name, m in modules:
                    if any(True for _ in m.parameters(recurse=False)):
                        return name or type(m).__name__, m
                return None, None
            if isinstance(layer, str):
                return layer, self.model.get_submodule(layer)
            for name, m in modules:
                if m is layer:
                    return name or type(m).__name__, m
            raise ValueError(f"the layer {type(layer).__name__} is not a submodule of the model")
        except Exception as e:
            self._error(f"layer {layer!r}: {type(e).__name__}: {e}")
            return None, None

    def _parameters(self):
        if self.model is None:
            return []
        if hasattr(self.model, "named_parameters"):
            return list(self.model.named_parameters())
        return list(dict(self.model).items())    # a dict of name -> tensor

    def _on_forward(self, module, args, output):
        """The layer's forward hook: keep a reference to the layer's output (not a copy: the one before is let
        go) and ask for the gradient that will arrive at it. Histograms are made from them only at a push."""
        try:
            if not module.training:         # evaluation passes are not the training run
                return None
            out = output[0] if isinstance(output, (tuple, list)) else output
            if not hasattr(out, "detach"):
                return None
            self._caught = {"activation": out.detach(), "step": None}
            if out.requires_grad:
                out.register_hook(self._on_gradient)
        except Exception as e:
            self._error(f"forward hook: {type(e).__name__}: {e}", once="forward hook")
        return None

    def _on_gradient(self, grad):
        try:
            if self._caught is not None:
                self._caught["gradient"] = grad.detach()
        except Exception as e:
            self._error(f"gradient hook: {type(e).__name__}: {e}", once="gradient hook")
        return None             # the gradient goes on unchanged

    def _norms(self):
        """The norms table: ||p||, ||grad|| and the latest update/weight ratio of each parameter."""
        rows = []
        params = self._parameters()
        copies = {}
        for name, p in params[:MAX_ROWS]:
            w = _array(p)
            norm = float(np.linalg.norm(w.astype(np.float64).reshape(-1)))
            g = getattr(p, "grad", None)
            grad = None if g is None else float(np.linalg.norm(_array(g).astype(np.float64).reshape(-1)))
            span, ratio = self._ratios.get(name, (None, None))
            rows.append({"name": clean(name), "shape": list(w.shape), "param": _short(norm), "grad": _short(grad),
                         "ratio": _short(ratio), "ratio_steps": span and list(span)})
            copies[name] = (np.array(w, dtype=np.float64, copy=True), norm)
        note = f"{len(params) - MAX_ROWS} more parameters not shown" if len(params) > MAX_ROWS else ""
        if not self._closed:
            self._previous = (self.step, copies)    # the next log measures the update against these
        return {"step": self.step, "rows": rows, "note": note}

    def _measure_update(self):
        """||p_new - p_old|| / ||p_old||, p_old copied at the last push: the update of one step."""
        since, copies = self._previous
        self._previous = None
        for name, p in self._parameters()[:MAX_ROWS]:
            old = copies.get(name)
            if old is None:
                continue
            old, old_norm = old
            new = _array(p).astype(np.float64)
            if new.shape != old.shape:
                continue
            change = float(np.linalg.norm((new - old).reshape(-1)))
            self._ratios[name] = ((since, self.step), change / old_norm if old_norm > 0 else math.inf)

    def _histograms(self):
        """The histograms of what the hooks caught since the last push (None when they caught nothing)."""
        caught, self._caught = self._caught, None
        if caught is None:
            return None
        panel = {"layer": clean(self.layer_name)}
        # a training forward after the last log (an accuracy pass left in train mode, say) has no step of its
        # own: it is labelled "after step N"
        step, after = (caught["step"], False) if caught["step"] is not None else (self.step, True)
        for key in ("activation", "gradient"):
            if key in caught:
                panel[key] = {"step": step, "after_step": after, **histogram(caught[key])}
        return panel

    def _curve_panels(self):
        panels = {}
        for name, curve in self.curves.items():
            steps, values = curve.points()
            series = {"name": clean(name), "steps": steps, "values": [_short(v) for v in values],
                      "last": _short(curve.last), "last_step": curve.last_step, "count": curve.count,
                      "width": curve.width}
            panels.setdefault(panel_of(name), []).append(series)
        for p, series in panels.items():    # "loss" before "val_loss", whichever was logged first
            series.sort(key=lambda s: s["name"] != p)
        return [{"panel": clean(p), "series": s} for p, s in panels.items()]

    def _push(self, measure=True):
        """Bring the snapshot up to date and send it to the widget (one message)."""
        start = time.perf_counter()
        snap = self.snapshot
        try:
            snap["curves"] = self._curve_panels()
            snap["step"] = self.step
            if measure and self.model is not None:
                snap["norms"] = self._norms()
                if self._layer is not None:
                    hist = self._histograms()
                    if hist is not None:              # else the last picture stays until a new forward comes
                        snap["histograms"] = hist
        except Exception as e:
            self._error(f"measuring: {type(e).__name__}: {e}")
        snap["errors"] = list(self.errors)
        try:
            self.view._set(snap, NAMES)
        except Exception as e:
            self._error(f"pushing to the widget: {type(e).__name__}: {e}")
        end = time.perf_counter()
        cost = end - start
        self.pushes += 1
        self.push_seconds += cost
        self._next_push = max(start + self.interval, end + cost / self.budget)


NAMES = ["curves", "norms", "histograms", "confusion", "samples", "errors", "step"]


# ---- the widget ------------------------------------------------------------------------------------------


class MonitorView(_View):
    """The TrainMonitor's widget: the snapshot as synced traits, drawn by widgets/monitor.js.

    The monitor is not itself the widget: ipywidgets' Widget already has a `log` (its logger), and the
    monitor's `log` means something else."""

    _kind = "monitor"
    curves = traitlets.List([]).tag(sync=True)
    norms = traitlets.Dict({}).tag(sync=True)
    histograms = traitlets.Dict({}).tag(sync=True)
    confusion = traitlets.Dict({}).tag(sync=True)
    samples = traitlets.Dict({}).tag(sync=True)
    errors = traitlets.List([]).tag(sync=True)
    step = traitlets.Int(None, allow_none=True).tag(sync=True)

    def static_html(self):
        return static_html(self.title, {name: getattr(self, name) for name in NAMES})
