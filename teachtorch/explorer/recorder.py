"""The live part of the explorer: watch the core while a cell runs, and redraw a few times a second.

A `Recorder` is active inside `with recorder:`. It listens to the two event streams the core documents:

    dispatch.trace(on_event=...)     every op call, with its hops through the dispatch keys
    autograd.graph.listen(...)       every step of every backward run

and keeps what the three pictures need: the recent op calls (a bounded window), the tensors of the last op
(or those you asked for with `show`), the graph of the latest output that requires grad (or of the backward
now running) and the steps backward has taken.

**When to redraw.** Redrawing after every op would swamp the notebook: the Jupyter server drops widget
messages above about 1,000 a second, and drawing costs far more than a small op. So the recorder redraws
at most every `interval` seconds (0.05 s: about 20 pictures a second) and, after a redraw that took `c`
seconds, waits at least `c / budget` before the next one, so drawing never takes more than `budget` of the
time (a fifth by default) however large the pictures get. It always redraws on leaving the `with` block,
so the last picture is the final state. It only redraws between op calls from your code (never halfway
through an op), and only the parts that changed.

The recorder knows nothing of Jupyter: `on_flush(snapshot, changed)` receives plain data (SVG strings and
JSON-able rows), which the widgets (widgets.py) put into their synced traits. The benchmark and the tests
use it without a notebook.
"""

import collections
import gc
import time
import weakref

from .. import _tensor
from ..autograd import graph as autograd_graph
from ..dispatch import dispatcher
from ..dispatch.trace import _KEY_NAMES, trace as dispatch_trace
from . import graph_diagram, storage_diagram, trace_table

Tensor = _tensor.Tensor


class _LiveTrace(dispatch_trace):
    """The dispatch trace of the live view: bounded, cheaper, and it tells the recorder when a call ends.

    Cheaper: when a kernel passes its call on to a lower key (AutogradCPU -> CPU), that hop makes no event
    of its own; its (key, kernel, time) is noted in the call's first event (`ev.lower`). A training loop
    makes about two and a half hops per op, so this halves what the live view keeps."""

    def __init__(self, recorder, max_events):
        super().__init__(max_events=max_events)
        self.recorder = recorder
        self._keys = []               # the dispatch key of each hop now running
        self.backward_events = collections.deque(maxlen=max_events)   # bounded too

    def hop(self, op, key, ks, args):
        if self._ops and self._ops[-1] is op and key < self._keys[-1]:
            return self._lower_hop(op, key, ks, args)
        self._keys.append(key)
        try:
            out = super().hop(op, key, ks, args)
        finally:
            self._keys.pop()
        if not self._stack:               # a call from user code (or from the autograd engine) just ended
            self.recorder._after_call(args, out, self.backward_node is not None)
        return out

    def _lower_hop(self, op, key, ks, args):
        kernel = op.table[key]
        first = self.events[self._stack[-1] - self.events[0].index]
        if first.lower is None:
            first.lower = []
        note = [_KEY_NAMES.get(key, "Undefined"), dispatcher._qualname(kernel), 0]
        first.lower.append(note)
        self._keys.append(key)
        start = time.perf_counter_ns()
        try:
            return kernel(ks, *args)
        finally:
            note[2] = time.perf_counter_ns() - start
            self._keys.pop()


class Recorder:
    """Record the core's events and produce snapshots of the three pictures (see the module docstring)."""

    def __init__(self, on_flush=None, interval=0.05, budget=0.2, max_events=4000, max_rows=300,
                 params=None):
        self.on_flush = on_flush
        self.interval, self.budget = interval, budget
        self.max_rows = max_rows
        self.params = params                  # names for parameters in the graph (a dict or a Module)
        self.trace = _LiveTrace(self, max_events)
        self.backward = None                  # graph_diagram.BackwardState of the latest backward run
        self.snapshot = {"storage_svg": "", "graph_svg": "", "graph_dot": "", "graph_steps": [],
                         "trace_rows": [], "trace_note": ""}
        self.flushes = 0
        self.flush_seconds = 0.0
        self._shown = None                    # tensors passed to show(); None: the last op's tensors
        self._last_call = ((), None)          # the last forward op's arguments and result (kept until the next)
        self._graph_of = None                 # tensors passed to graph(); None: follow the latest output
        self._latest_output = None            # weak reference to the latest output that has a grad_fn
        self._backward_root = None            # the root node of the backward now running (or last run)
        self._calls = 0                       # calls seen: says which came last, an output or a backward
        self._output_at = self._backward_at = -1
        self._dirty = {"storage": True, "graph": True, "trace": True}
        self._due = 0.0
        self._listen = autograd_graph.listen(self._on_backward_event)

    # -- choosing what to draw --
    def show(self, *tensors):
        """Draw these tensors in the storage picture (with no arguments: go back to the last op's tensors)."""
        self._shown = list(tensors) or None
        self._dirty["storage"] = True
        self.maybe_flush()

    def graph(self, *tensors, params=None):
        """Draw the graph behind these tensors (with no arguments: follow the latest output again)."""
        self._graph_of = list(tensors) or None
        if params is not None:
            self.params = params
        self._dirty["graph"] = True
        self.maybe_flush()

    # -- context manager --
    def __enter__(self):
        # The trace keeps thousands of small event objects alive, and each full pass of Python's garbage
        # collector would walk them together with every object the program already had (a notebook has
        # hundreds of thousands). gc.freeze() sets the objects that exist now aside from those passes
        # until __exit__; it is what the gc module offers for long-lived objects (see its docs).
        gc.freeze()
        self.trace.__enter__()
        self._listen.__enter__()
        self._due = time.perf_counter() + self.interval
        return self

    def __exit__(self, *exc):
        self._listen.__exit__(*exc)
        self.trace.__exit__(*exc)
        gc.unfreeze()
        self.flush()                          # the final picture is always drawn
        return False

    # -- events from the core --
    def _after_call(self, args, out, in_backward):
        self._calls += 1
        if not in_backward:
            self._last_call = (args, out)     # sorted out only when the storage pane is drawn
            outs = out if isinstance(out, (tuple, list)) else (out,)
            for t in outs:
                if isinstance(t, Tensor) and t.grad_fn is not None:
                    self._latest_output = weakref.ref(t)
                    self._output_at = self._calls
                    if self._graph_of is None:
                        self._dirty["graph"] = True
        self._dirty["trace"] = True
        self._dirty["storage"] = True         # values may have changed, in place
        self.maybe_flush()

    def _on_backward_event(self, ev):
        if ev.kind == "backward_started":
            self._backward_root = ev.root
            self._backward_at = self._calls
            self.backward = graph_diagram.BackwardState()
        if self.backward is not None:
            self.backward(ev)
        self._dirty["graph"] = True
        if ev.kind == "backward_finished":
            self.maybe_flush()

    # -- drawing --
    def maybe_flush(self):
        if time.perf_counter() >= self._due:
            self.flush()

    def flush(self):
        """Redraw what changed, hand the snapshot to on_flush, and decide when the next redraw may come."""
        start = time.perf_counter()
        changed = []
        if self._dirty["storage"]:
            self.snapshot["storage_svg"] = self._draw_storage()
            changed.append("storage_svg")
        if self._dirty["graph"]:
            self._draw_graph()
            changed += ["graph_svg", "graph_dot", "graph_steps"]
        if self._dirty["trace"]:
            rows = trace_table.trace_rows(self.trace.events, fold=True, max_rows=self.max_rows)
            self.snapshot["trace_rows"] = rows
            self.snapshot["trace_note"] = self._trace_note(rows)
            changed += ["trace_rows", "trace_note"]
        self._dirty = dict.fromkeys(self._dirty, False)
        self.flushes += 1
        if self.on_flush is not None:
            self.on_flush(self.snapshot, changed)
        cost = time.perf_counter() - start
        self.flush_seconds += cost
        self._due = time.perf_counter() + max(self.interval, cost / self.budget)

    def _draw_storage(self):
        tensors = self._shown
        if tensors is None:
            args, out = self._last_call
            outs = out if isinstance(out, (tuple, list)) else (out,)
            tensors = [t for t in (*args, *outs) if isinstance(t, Tensor)]
        if not tensors:
            return ""
        labels = [self.trace._names[id(t)][1] if id(t) in self.trace._names else None for t in tensors]
        return storage_diagram.storage_svg(*tensors, labels=labels)

    def _draw_graph(self):
        roots = self._graph_of
        if roots is None:
            latest = self._latest_output() if self._latest_output is not None else None
            if self._backward_root is not None and (latest is None or self._backward_at >= self._output_at):
                roots = [self._backward_root]
            elif latest is not None:
                roots = [latest]
        if not roots:
            return
        state = self.backward if roots == [self._backward_root] else None
        dot = graph_diagram.graph_dot(roots, params=self.params, state=state)
        self.snapshot["graph_dot"] = dot
        self.snapshot["graph_svg"] = graph_diagram.render_svg(dot)
        self.snapshot["graph_steps"] = list(state.steps) if state is not None else []

    def _trace_note(self, rows):
        parts = []
        if self.trace.dropped:
            parts.append(f"the oldest {self.trace.dropped:,} hops were dropped to keep the trace small")
        return "; ".join(parts)
