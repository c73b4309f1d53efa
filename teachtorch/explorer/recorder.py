"""The live part of the explorer: watch the core while a cell runs, and redraw a few times a second.

A `Recorder` is active inside `with recorder:`. It listens to the two event streams the core documents:

    dispatch.trace(on_event=...)     every op call, with its hops through the dispatch keys
    autograd.graph.listen(...)       every step of every backward run

and keeps what the three pictures need: the recent op calls (a bounded window), the tensors of the last op
(or those you asked for with `show`), the graph of the latest output that requires grad (or of the backward
now running) and the steps backward has taken.

**When to redraw.** Redrawing after every op would swamp the notebook: the Jupyter server drops widget
messages above about 1,000 a second, and drawing costs far more than a small op. So the recorder redraws
at most every `interval` seconds (0.1 s: about 10 pictures a second) and, after a redraw that took `c`
seconds, waits at least `c / budget` before the next one, so drawing never takes more than `budget` of the
time (a tenth by default) however large the pictures get. It always redraws on leaving the `with` block,
so the last picture is the final state. It only redraws between op calls from your code (never halfway
through an op), and only the parts that changed.

**Never in the way.** The recorder runs inside the student's ops and backward calls, so nothing it does
may raise there: a picture that cannot be drawn (a name Graphviz rejects, a renderer's bug, a widget that
cannot be updated) is replaced by a short message, the trace pane's note says what went wrong, and the
student's code goes on. `rec.errors` keeps the last few messages.

**Small and cheap.** A training loop runs for a long time, so the live trace (live_trace.py) records a
loop's body twice and then only counts its repeats, keeps little per recorded call and never grows past
its window.

The recorder knows nothing of Jupyter: `on_flush(snapshot, changed)` receives plain data (SVG strings and
JSON-able rows), which the widgets (widgets.py) put into their synced traits. The benchmark and the tests
use it without a notebook.
"""

import collections
import gc
import math
import time
import weakref

from .. import _tensor
from ..autograd import graph as autograd_graph
from ..dispatch import dispatcher
from . import graph_diagram, names, storage_diagram, trace_table
from .live_trace import _LiveTrace
from .svg import Svg, clean

Tensor = _tensor.Tensor

MAX_ERRORS = 5           # error messages kept in rec.errors
# The storage picture is the costliest to draw (an SVG element per value) and a training loop changes its
# values every step: inside the loop it is redrawn at most every STORAGE_INTERVAL seconds, and it shows
# at most an 8 x 12 corner of each tensor and 96 cells of each storage (StorageView shows more).
STORAGE_INTERVAL = 0.25
LIVE_STORAGE = {"max_rows": 8, "max_cols": 12, "max_cells": 96}


class Recorder:
    """Record the core's events and produce snapshots of the three pictures (see the module docstring)."""

    def __init__(self, on_flush=None, interval=0.1, budget=0.1, max_events=4000, max_rows=300,
                 params=None, frame=None, count_repeats=True):
        self.on_flush = on_flush
        self.interval, self.budget = interval, budget
        self.max_rows = max_rows
        self.params = params                  # names for parameters in the graph (a dict or a Module)
        self.frame = frame                    # the code being watched: its variables name tensors (names.py)
        self._names = {}                      # names.scope_names, as of the latest redraw
        self.trace = _LiveTrace(self, max_events, count_repeats)
        self.backward = None                  # graph_diagram.BackwardState of the latest backward run
        self.snapshot = {"storage_svg": "", "graph_svg": "", "graph_dot": "", "graph_steps": [],
                         "trace_rows": [], "trace_note": ""}
        self.flushes = 0
        self.flush_seconds = 0.0
        self.errors = collections.deque(maxlen=MAX_ERRORS)   # what went wrong drawing, newest last
        self._failed = {}                     # pane -> why its last drawing failed (shown in the trace note)
        self._unsent = []                     # traits a failed on_flush did not deliver: sent with the next
        self._shown = None                    # tensors passed to show(); None: the last op's tensors
        self._shown_labels = None             # and how the call to show() wrote them
        self._last_call = (None, (), None)    # the last forward op, its arguments and result (until the next)
        self._row_tensors = []                # weak references to the tensors of each trace row drawn
        self._graph_of = None                 # tensors passed to graph(); None: follow the latest output
        self._latest_output = None            # weak reference to the latest output that has a grad_fn
        self._latest_loss = None              # and to the latest such output with one element (a loss)
        self._backward_root = None            # the root node of the backward now running (or last run)
        self._calls = 0                       # calls seen: says which came last, a loss or a backward
        self._output_at = self._loss_at = self._backward_at = -1
        self._dirty = {"storage": True, "graph": True, "trace": True}
        self._due = 0.0
        self._wait = True                     # does this redraw wait for Graphviz (see flush)?
        self._storage_due = 0.0               # the storage pane's next redraw inside the loop
        self._listen = autograd_graph.listen(self._on_backward_event)

    # -- choosing what to draw --
    def show(self, *tensors, labels=None):
        """Draw these tensors in the storage picture (with no arguments: go back to the last op's tensors);
        `labels`: their names (default: the names the watched code has for them, names.py)."""
        self._shown = list(tensors) or None
        self._shown_labels = list(labels) if labels else None
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
        try:
            gc.freeze()
            self.trace.__enter__()
            self._listen.__enter__()
            self._due = time.perf_counter() + self.interval   # a call: a Ctrl-C may land here too
            return self
        except BaseException:                 # Ctrl-C half-way in: undo what was done, then let it go on
            self._stop_recording()
            raise

    def __exit__(self, *exc):
        self._stop_recording()
        self.flush()                          # the final picture is always drawn (flush never raises)
        return False

    def _stop_recording(self):
        """Stop listening, close the trace, unfreeze the collector: each step runs even if the one before
        was interrupted (a second Ctrl-C), and each is harmless if it was never started."""
        try:
            self._listen.__exit__(None, None, None)
        finally:
            try:
                self.trace.__exit__(None, None, None)
            finally:
                gc.unfreeze()

    # -- events from the core: called inside the student's ops and backward, so they never raise --
    def _after_call(self, op, args, out, in_backward):
        try:
            self._note_call(op, args, out, in_backward)
        except Exception as e:
            self._failed["events"] = self._error("the explorer could not follow an op", e)
            self._dirty["trace"] = True

    def _on_backward_event(self, ev):
        try:
            self._note_backward_event(ev)
        except Exception as e:
            self._failed["events"] = self._error("the explorer could not follow backward", e)
            self._dirty["trace"] = True

    def _note_call(self, op, args, out, in_backward):
        self._calls += 1
        if not in_backward:
            self._last_call = (op, args, out)   # sorted out only when the storage pane is drawn
            outs = out if isinstance(out, (tuple, list)) else (out,)
            for t in outs:
                if isinstance(t, Tensor) and t._grad_fn is not None:
                    # the graph follows the loss: once a one-element output has been seen, only the next
                    # one (the next step's loss) or a backward redraws it, so the picture stays still
                    # while a training step builds its graph op by op
                    is_loss = math.prod(t._sizes) == 1
                    if is_loss:
                        self._latest_loss = weakref.ref(t)
                        self._loss_at = self._calls
                    elif self._latest_loss is not None:
                        continue              # (only a loss matters from now on)
                    self._latest_output = weakref.ref(t)
                    self._output_at = self._calls
                    if self._graph_of is None:
                        self._dirty["graph"] = True
        self._dirty["trace"] = True
        self._dirty["storage"] = True         # values may have changed, in place
        self.maybe_flush()

    def _note_backward_event(self, ev):
        if ev.kind == "node_finished":        # (nothing drawn comes from it; the most frequent event)
            return
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
            self.flush(wait=False)

    def flush(self, wait=True):
        """Redraw what changed, hand the snapshot to on_flush, and decide when the next redraw may come.

        The redraws due while the code runs (maybe_flush) do not wait for Graphviz to lay out a graph it
        has not seen (graph_diagram.render_svg): that graph comes with a later redraw. A redraw asked for
        (this method; the last one, as the block ends) waits.

        Never raises: a pane that cannot be drawn shows a message instead (_draw_failure), the trace
        note says why, and the other panes are drawn as usual."""
        self._wait = wait
        try:
            self._flush()
        except Exception as e:                # a bug here must not break the student's code either
            self._error("the explorer could not redraw", e)
        finally:
            self._wait = True

    def _flush(self):
        start = time.perf_counter()
        changed = []
        try:
            self._names = names.scope_names(self.frame, self.params)
        except Exception as e:                # names are a help: without them, the pictures say $n
            self._names = {}
            self._error("the explorer could not read the names of your tensors", e)
        failed_before = dict(self._failed)
        trace_was_dirty = self._dirty["trace"]
        slow = not self._wait and start < self._storage_due   # (the storage pane redraws less often)
        for pane, draw, traits in (("storage", self._flush_storage, ["storage_svg"]),
                                   ("graph", self._draw_graph, ["graph_svg", "graph_dot", "graph_steps"]),
                                   ("trace", self._flush_trace, ["trace_rows"])):
            if not self._dirty[pane] or (pane == "storage" and slow):
                continue
            self._dirty[pane] = False
            try:
                if draw() is False:           # not ready yet (a graph Graphviz is laying out): next time
                    self._dirty[pane] = True
                    continue
                self._failed.pop(pane, None)
            except Exception as e:
                self._failed[pane] = self._error(f"the {pane} pane could not be drawn", e)
                self._draw_failure(pane, self._failed[pane])
                self._dirty[pane] = True      # a failed pane: try again
            changed += traits
        if trace_was_dirty or self._failed != failed_before:
            self.snapshot["trace_note"] = self._trace_note()
            changed.append("trace_note")
        self.flushes += 1
        self._push(list(dict.fromkeys(self._unsent + changed)))
        cost = time.perf_counter() - start
        self.flush_seconds += cost
        self._due = time.perf_counter() + max(self.interval, cost / self.budget)

    def _push(self, changed):
        """Hand the snapshot to on_flush (the widget's traits); if that fails, try to say why in the note."""
        if self.on_flush is None:
            return
        try:
            self.on_flush(self.snapshot, changed)
        except Exception as e:
            self._unsent = changed
            self._failed["widget"] = self._error("the widget could not be updated", e)
            self.snapshot["trace_note"] = self._trace_note()
            try:
                self.on_flush(self.snapshot, ["trace_note"])
            except Exception:
                pass                          # nothing more can be shown; rec.errors keeps the message
        else:
            self._unsent = []
            if self._failed.pop("widget", None) is not None:
                self._dirty["trace"] = True   # the next flush takes the message out of the note

    def _error(self, what, e):
        """Keep a message about an error (in rec.errors) and return it: one clean line, not too long."""
        try:
            why = f"{type(e).__name__}: {e}"
        except Exception:                     # an exception whose str() fails too
            why = type(e).__name__
        message = " ".join(clean(f"{what}: {why}").split())
        if len(message) > 300:
            message = message[:299] + "…"
        self.errors.append(message)
        return message

    def _draw_failure(self, pane, message):
        """What a pane shows when it could not be drawn: the message, in place of the picture."""
        if pane == "trace":
            self.snapshot["trace_rows"] = []
            return
        cls = "tt-storage tt-error" if pane == "storage" else "tt-graph tt-graph-missing"
        doc = Svg(max(200, 7 * len(message) + 16), 28, cls=cls)
        doc.text(8, 18, message, cls="tt-missing", size=12, anchor="start", fill="#a33")
        self.snapshot[f"{pane}_svg"] = doc.to_string()
        if pane == "graph":
            self.snapshot["graph_dot"], self.snapshot["graph_steps"] = "", []

    def _flush_storage(self):
        self.snapshot["storage_svg"] = self._draw_storage()
        self._storage_due = time.perf_counter() + STORAGE_INTERVAL

    def _flush_trace(self):
        self.trace._settle()
        rows = trace_table.trace_rows(self.trace.events, fold=True, max_rows=self.max_rows, repetition="last")
        # each row's tensors, while they live (show_row draws them), and a forward row's node: its output's
        # grad_fn, which a row click lights in the graph
        alive = {name: ref for ref, name in list(self.trace._names.values())}
        self._row_tensors = []
        for row in rows:
            refs = [alive[t["name"]] for t in row["inputs"] + row["outputs"] if t["name"] in alive]
            self._row_tensors.append(refs)
            if row["section"] == "forward":
                for ref in refs[len(row["inputs"]):]:
                    t = ref()
                    if t is not None and t.grad_fn is not None:
                        row["node_id"] = f"n{autograd_graph.node_id(t.grad_fn)}"
                        break
        self.snapshot["trace_rows"] = trace_table.rename(rows, self._renames())

    def show_row(self, i):
        """Draw the tensors of trace row `i` in the storage pane, and for a forward row whose node the graph
        does not show, the graph of its output (what a row click asks for when they are not drawn)."""
        refs = self._row_tensors[i] if isinstance(i, int) and 0 <= i < len(self._row_tensors) else []
        tensors = list({id(t): t for t in (ref() for ref in refs) if t is not None}.values())
        if not tensors:
            self._failed["row"] = f"the tensors of row {i} are gone (freed): nothing to draw"
            self._dirty["trace"] = True
            self.flush()
            return
        self._failed.pop("row", None)
        row = self.snapshot["trace_rows"][i]
        node = row.get("node_id")
        if node and f'id="{node}"' not in self.snapshot["graph_svg"]:
            outs = [t for t in tensors if t.grad_fn is not None and f"n{autograd_graph.node_id(t.grad_fn)}" == node]
            self._graph_of = outs[:1] or None
            self._dirty["graph"] = True
        self._shown, self._shown_labels = tensors, None
        self._dirty["storage"] = True
        self.flush()

    def _draw_storage(self):
        tensors, given = self._shown, self._shown_labels or []
        derived = {}
        if tensors is None:
            op, args, out = self._last_call
            outs = out if isinstance(out, (tuple, list)) else (out,)
            ins = [t for t in args if isinstance(t, Tensor)]
            # an in-place op returns its `self`: each tensor is drawn once
            tensors = list({id(t): t for t in ins + [t for t in outs if isinstance(t, Tensor)]}.values())
            if op is not None and len(args) == 1 and len(ins) == 1 and self._label(ins[0]) is not None:
                # `x.t()`: the output of a one-argument op on a named tensor, written as the method call
                name = dispatcher.python_name(op.name).split(".")[1]
                derived = {id(t): f"{self._label(ins[0])}.{name}()" for t in outs if isinstance(t, Tensor)}
        if not tensors:
            return ""
        labels = [(given[k] if k < len(given) else None) or self._label(t) or derived.get(id(t))
                  or self._trace_name(t) for k, t in enumerate(tensors)]
        return storage_diagram.storage_svg(*tensors, labels=labels, **LIVE_STORAGE)

    def _label(self, t):
        """The name the watched code has for `t` (a variable, its .grad, a parameter path), or None."""
        return names.lookup(self._names, t)

    def _trace_name(self, t):
        entry = self.trace._names.get(id(t))
        return entry[1] if entry is not None and entry[0]() is t else None

    def _renames(self):
        """{"$n": name} for the traced tensors the watched code can name: applied to the rows when drawn."""
        out = {}
        for ref, trace_name in list(self.trace._names.values()):
            t = ref()
            if t is not None:
                name = self._label(t)
                if name is not None:
                    out[trace_name] = name
        return out

    def _graph_roots(self):
        """(roots, backward state) of what the graph pane draws when not told (`graph()`): the loss of
        the current training step. That is the latest backward run's (its loss, marked with the steps
        backward took), unless a newer loss (a one-element output with a grad_fn) was made since; before
        any loss, the latest output with a grad_fn."""
        if self._graph_of is not None:
            return self._graph_of, None
        loss = self._latest_loss() if self._latest_loss is not None else None
        if loss is not None and self._loss_at > self._backward_at:
            return [loss], None
        root = self._backward_root
        if root is not None:
            # drawn from the loss tensor when the run started at it, so the picture keeps its output box
            drawn = loss if loss is not None and loss.grad_fn is root else root
            return [drawn], self.backward
        latest = self._latest_output() if self._latest_output is not None else None
        return ([latest] if latest is not None else None), None

    def _draw_graph(self):
        roots, state = self._graph_roots()
        if not roots:
            return
        leaves = {name: t for t, name in self._names.values()}       # leaves named as the code names them
        dot = graph_diagram.graph_dot(roots, params=leaves, state=state)
        svg = graph_diagram.render_svg(dot, wait=self._wait)           # never raises: says what went wrong
        if svg is None:                       # Graphviz is laying a new graph out, off the loop: next time
            return False
        self.snapshot["graph_dot"] = dot
        self.snapshot["graph_svg"] = svg
        self.snapshot["graph_steps"] = list(state.steps) if state is not None else []

    def _trace_note(self):
        parts = []
        if self.trace.dropped:
            parts.append(f"the oldest {self.trace.dropped:,} hops were dropped to keep the trace small")
        parts += self._failed.values()
        return "; ".join(parts)
