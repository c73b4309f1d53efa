"""The Jupyter widgets: StorageView, GraphView, TraceView, and the Explorer that `teachtorch.explore()` opens.

Each is an anywidget (https://anywidget.dev): a Python object whose synced traits the browser draws with a
small hand-written script from the top-level `widgets/` folder (frontend.py assembles it; nothing is loaded
from the internet). Python pushes, the browser draws and handles every interaction (hover, stepping through
backward, clicking a trace row) by itself, so the picture responds even while the kernel is busy running
your cell. The traits are the snapshot: a second view of the same widget, or a re-opened notebook with
saved widget state, draws the same picture from them.

    StorageView(x, x.t())                  # tensors over their storage; .update(*tensors) redraws
    GraphView(loss, params=model)          # the autograd graph; .update(...) redraws
    TraceView(t)                           # a dispatch.trace as a table, loops folded
    with teachtorch.explore() as ex: ...   # all three, live while the cell runs (recorder.py)

Every widget also carries its picture as static SVG in its output (`_repr_mimebundle_`), so a notebook
converted with nbconvert, viewed on GitHub or shown in the slides still shows it.

The Python package jupyterlab-widgets (ipywidgets) and anywidget are needed only here: install
`teachtorch[lab]`.
"""

import html
import sys

try:
    import anywidget
    import traitlets
except ImportError as e:        # the rest of the explorer works without Jupyter
    raise ImportError("teachtorch's widgets need anywidget and ipywidgets: pip install 'teachtorch[lab]'") from e

from . import frontend, graph_diagram, names, storage_diagram, trace_table
from .recorder import Recorder
from .svg import clean


class _View(anywidget.AnyWidget):
    """What every teachtorch widget has: a flush counter, a title, and a static picture in its output."""

    _kind = None
    seq = traitlets.Int(0).tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if "_kind" in cls.__dict__:       # not for the subclasses ipywidgets makes to add traits
            cls._esm = frontend.esm_source(cls._kind)
            cls._css = frontend.css_source()

    @traitlets.validate("title")
    def _clean_title(self, proposal):
        # shown in the page and sent as UTF-8: no control characters, no lone surrogates (svg.clean)
        return clean(proposal["value"])

    def static_html(self):
        """The picture without JavaScript (what nbconvert, GitHub and the slides show)."""
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs):
        data, metadata = super()._repr_mimebundle_(**kwargs)
        data["text/html"] = self.static_html()
        return data, metadata

    # The static copy is made when the widget is displayed. So that a notebook saves the picture as it is
    # at the end (after `.update(...)`, or when the explorer's block ends), each output the widget is shown
    # in gets a display id (IPython's display handles), and `_refresh_static` rewrites those outputs.
    _handles = ()

    def _ipython_display_(self):
        self._show()

    def _show(self):
        """Display this widget (in a notebook kernel), keeping a handle to its output."""
        try:
            from IPython import get_ipython
            from IPython.display import display
        except ImportError:
            return None
        if get_ipython() is None:
            return None
        data, metadata = self._repr_mimebundle_()
        handle = display(data, metadata=metadata, raw=True, display_id=True)
        self._handles = [*self._handles, handle]
        return handle

    def _refresh_static(self):
        """Rewrite every output this widget was shown in with its current picture; never raises (it runs as
        a `with` block ends, where an error would hide the student's own)."""
        for handle in self._handles:
            try:
                data, metadata = self._repr_mimebundle_()
                handle.update(data, metadata=metadata, raw=True)
            except Exception:
                pass

    def _set(self, snapshot, names):
        """Set several traits in one message, and count the flush."""
        with self.hold_sync():
            for name in names:
                if self.has_trait(name):
                    setattr(self, name, snapshot[name])
            self.seq += 1


class StorageView(_View):
    """Tensors drawn over their storage: logical grids tied to the flat storage strip."""

    _kind = "storage"
    storage_svg = traitlets.Unicode("").tag(sync=True)

    def __init__(self, *tensors, title="", **render_options):
        super().__init__(title=title)
        self._options = render_options
        if tensors:
            self.update(*tensors, labels=render_options.get("labels") or _argument_texts(len(tensors)))

    def update(self, *tensors, labels=None):
        """Draw these tensors; `labels` default to the argument texts of this call (`x`, `x.t()`)."""
        options = dict(self._options, labels=labels or self._options.get("labels") or _argument_texts(len(tensors)))
        self._set({"storage_svg": storage_diagram.storage_svg(*tensors, **options)}, ["storage_svg"])
        self._refresh_static()

    def static_html(self):
        return _figure(self.title, self.storage_svg)


class GraphView(_View):
    """The autograd graph behind some tensors (Graphviz layout); step through a backward run it watched."""

    _kind = "graph"
    graph_svg = traitlets.Unicode("").tag(sync=True)
    graph_dot = traitlets.Unicode("").tag(sync=True)
    graph_steps = traitlets.List([]).tag(sync=True)

    def __init__(self, *roots, params=None, title="", **render_options):
        super().__init__(title=title)
        self._params, self._options = params, render_options
        if roots:
            self.update(*roots)

    def update(self, *roots, state=None):
        dot = graph_diagram.graph_dot(list(roots), params=self._params, state=state, **self._options)
        self._set({"graph_dot": dot, "graph_svg": graph_diagram.render_svg(dot),
                   "graph_steps": list(state.steps) if state is not None else []},
                  ["graph_dot", "graph_svg", "graph_steps"])
        self._refresh_static()

    @classmethod
    def from_dot(cls, dot, steps=(), title=""):
        """A GraphView of any graph written in DOT (a micrograd Value graph, say), laid out by Graphviz.
        `steps` are what the stepper replays: {"kind": "node", "id": ...} lights a node, {"kind": "gradient",
        "edge": ...} an edge; a step's "text", when given, is what the stepper says for it."""
        view = cls(title=title)
        view._set({"graph_dot": dot, "graph_svg": graph_diagram.render_svg(dot), "graph_steps": list(steps)},
                  ["graph_dot", "graph_svg", "graph_steps"])
        view._refresh_static()
        return view

    def backward(self, loss, **backward_kwargs):
        """Run `loss.backward(...)` while watching it, then draw the graph with the steps it took; returns the
        view (so `step_through(GraphView().backward(loss))` reads as one line)."""
        from ..autograd import graph
        state = graph_diagram.BackwardState()
        with graph.listen(state):
            loss.backward(**backward_kwargs)
        self.update(loss, state=state)
        return self

    def static_html(self):
        return _figure(self.title, self.graph_svg)


class TraceView(_View):
    """A dispatch trace as a table: each op's path through the dispatch keys, loops folded."""

    _kind = "trace"
    trace_rows = traitlets.List([]).tag(sync=True)
    trace_note = traitlets.Unicode("").tag(sync=True)

    def __init__(self, trace=None, title="", max_rows=300):
        super().__init__(title=title)
        self._max_rows = max_rows
        if trace is not None:
            self.update(trace)

    def update(self, trace):
        rows = trace_table.trace_rows(trace, fold=True, max_rows=self._max_rows)
        self._set({"trace_rows": rows, "trace_note": ""}, ["trace_rows", "trace_note"])
        self._refresh_static()

    def static_html(self):
        return _figure(self.title, trace_table.trace_svg(self.trace_rows))


class Explorer(_View):
    """All three pictures in one widget, kept up to date by a Recorder while the `with` block runs."""

    _kind = "explorer"
    storage_svg = traitlets.Unicode("").tag(sync=True)
    graph_svg = traitlets.Unicode("").tag(sync=True)
    graph_dot = traitlets.Unicode("").tag(sync=True)
    graph_steps = traitlets.List([]).tag(sync=True)
    trace_rows = traitlets.List([]).tag(sync=True)
    trace_note = traitlets.Unicode("").tag(sync=True)

    def __init__(self, title="teachtorch explorer", params=None, display=True, monitor=False, **recorder_options):
        super().__init__(title=title)
        self.recorder = Recorder(on_flush=self._set, params=params, **recorder_options)
        self._display = display
        self.on_msg(self._on_front_end_msg)
        self.monitor = None               # a TrainMonitor of `params` (the model), shown below: explore(monitor=True)
        if monitor:
            from .monitor import TrainMonitor
            self.monitor = TrainMonitor(params, display=False)

    def _on_front_end_msg(self, widget, content, buffers):
        """A row click whose tensors or node are not drawn (widgets/explorer.js) asks for them."""
        if isinstance(content, dict) and content.get("event") == "show_row":
            self.recorder.show_row(content.get("row"))

    def log(self, step=None, **values):
        """`monitor.log(...)` of the explorer's TrainMonitor (`explore(model, monitor=True)`)."""
        if self.monitor is None:
            raise RuntimeError("this explorer has no training monitor: open it with explore(model, monitor=True)")
        self.monitor.log(step, **values)

    def show(self, *tensors, labels=None):
        """Draw these tensors in the storage pane (no arguments: the last op's tensors again), labelled as
        this call writes them (`ex.show(W, W.grad)`) unless `labels` are given."""
        self.recorder.show(*tensors, labels=labels or _argument_texts(len(tensors)))

    def graph(self, *tensors, params=None):
        """Draw the graph behind these tensors (no arguments: follow the latest output again)."""
        self.recorder.graph(*tensors, params=params)

    def __enter__(self):
        if self.recorder.frame is None:
            self.recorder.frame = sys._getframe(1)     # the code in the `with` block: its names name tensors
        if self._display and self._show() is not None and self.monitor is not None:
            self.monitor._display()               # below the explorer, with its own handle (monitor.py)
        self.recorder.__enter__()
        return self

    def __exit__(self, *exc):
        try:
            return self.recorder.__exit__(*exc)
        finally:
            # The output was made when the block began, with an empty static copy: replace it with the final
            # picture, which nbconvert, GitHub and a notebook reopened without its kernel then show.
            self._refresh_static()
            if self.monitor is not None:
                self.monitor.close()          # its final push, and its own output refreshed the same way

    def static_html(self):
        parts = [_figure("autograd graph", self.graph_svg), _figure("storage", self.storage_svg),
                 _figure("dispatch trace", trace_table.trace_svg(self.trace_rows))]
        return f"<div class='tt-static'><h4>{html.escape(self.title)}</h4>{''.join(parts)}</div>"


def explore(model=None, **options):
    """`with teachtorch.explore(model) as ex:` shows the storage, graph and trace of the code inside, live.

    `model` (a Module, or a dict {name: tensor}) names its parameters by their path (`0.weight`, `fc1.bias`)
    in every picture; tensors the code holds in variables are named by them (`x`, `W.grad`); the others by
    their number in the trace (`$3`). `params=` is the older name of `model`.

    `monitor=True` adds a TrainMonitor of the model below the explorer: `ex.log(step, loss=loss)` draws the
    curves, and the monitor shows the model's norms and histograms (monitor.py)."""
    if model is None:
        model = options.pop("params", None)
    return Explorer(params=model, **options)


def _argument_texts(count):
    """The source text of the arguments of the call that called our caller (`StorageView(x, x.t())`)."""
    try:
        return names.argument_texts(sys._getframe(2), count)
    except Exception:
        return None


def _figure(title, svg):
    head = f"<div style='font:12px monospace;opacity:.7'>{html.escape(title)}</div>" if title else ""
    return f"<figure class='tt-static-figure' style='margin:4px 0'>{head}{svg}</figure>"

