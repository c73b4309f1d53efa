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

**Never in the way.** The recorder runs inside the student's ops and backward calls, so nothing it does
may raise there: a picture that cannot be drawn (a name Graphviz rejects, a renderer's bug, a widget that
cannot be updated) is replaced by a short message, the trace pane's note says what went wrong, and the
student's code goes on. `rec.errors` keeps the last few messages.

**Small.** A training loop runs for a long time, so the live trace keeps little per op call and never grows
past its window: one event per call (the hops that pass it on are noted in it), TensorInfos shared between
the calls that see the same tensor unchanged, one copy of each repeated string, tuple and number, and the
autograd engine's events as plain records of names and ids, which keep no node, gradient or tensor alive.

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
from ..dispatch.trace import _KEY_NAMES, TensorInfo, trace as dispatch_trace
from . import graph_diagram, names, storage_diagram, trace_table
from .svg import Svg, clean

Tensor = _tensor.Tensor

SHARED_MAX = 2048        # values the live trace keeps one copy of (strings, tuples, ints), before starting over
INFOS_MAX = 1024         # TensorInfos kept for reuse (the tensors seen most recently), before starting over
SHORT_REPR = 64          # argument reprs longer than this are not worth sharing
MAX_REPR = 200           # argument reprs are cut to this many characters (the table shows fewer)
MAX_ERRORS = 5           # error messages kept in rec.errors


BackwardRecord = collections.namedtuple(
    "BackwardRecord", "kind node_name node_id next_node_id output_nr shape",
    defaults=(None, None, None))
BackwardRecord.__doc__ = """One event of the autograd engine as the live trace keeps it: names and ids only.

kind and node_name as in autograd.graph.BackwardEvent; node_id is autograd.graph.node_id of its node (the
root for backward_started / backward_finished); for "gradient": next_node_id, output_nr and the gradient's
shape (None for no gradient); for "accumulated": the shape of the gradient added to the leaf's .grad."""


class _BackwardLog(collections.deque):
    """`trace.backward_events` of the live trace: the last `maxlen` engine events, each turned into a
    BackwardRecord as it comes, so the window holds no nodes, gradients or tensors."""

    def __init__(self, share, maxlen):
        super().__init__(maxlen=maxlen)
        self._share = share           # the trace's: one copy of each id, name and shape

    def append(self, ev):
        share, fields = self._share, ev.fields
        grad, nxt = fields.get("grad"), fields.get("next_node")
        super().append(BackwardRecord(
            ev.kind, share(clean(ev.node_name)),
            None if ev.node is None else share(autograd_graph.node_id(ev.node)),
            None if nxt is None else share(autograd_graph.node_id(nxt)),
            fields.get("output_nr"),
            share(tuple(grad.shape)) if isinstance(grad, Tensor) else None))


class _LiveTrace(dispatch_trace):
    """The dispatch trace of the live view: bounded, cheaper, and it tells the recorder when a call ends.

    Cheaper: when a kernel passes its call on to a lower key (AutogradCPU -> CPU), that hop makes no event
    of its own; its (key, kernel, time) is noted in the call's first event (`ev.lower`). A training loop
    makes about two and a half hops per op, so this halves what the live view keeps. And each event keeps
    as little as it can (see `_describe` and `_compact`): the same data, shared where it repeats."""

    def __init__(self, recorder, max_events):
        super().__init__(on_event=self._compact, max_events=max_events)
        self.recorder = recorder
        self._keys = []               # the dispatch key of each hop now running
        self._shared = {}             # value -> the one copy of it that events hold
        self._infos = {}              # tensor name ("$3") -> the TensorInfo last recorded for it
        self.backward_events = _BackwardLog(self._share, max_events)   # bounded too, names and ids only

    def _share(self, value):
        """The copy of `value` the trace already holds (an equal string, tuple or int), or this one."""
        kept = self._shared.get(value)
        if kept is None:
            if len(self._shared) >= SHARED_MAX:
                self._shared.clear()  # start over: bounded, and the values in use come back at once
            self._shared[value] = kept = value
        return kept

    def _describe(self, a):
        """As dispatch.trace's, but a tensor seen again unchanged (same name, layout, storage and version:
        the output of one op is the input of the next; a parameter is used in every step) gets the same
        TensorInfo, and repeated sizes, strides, devices and argument reprs are one shared object."""
        if isinstance(a, Tensor):
            name = self._name(a)
            storage = a._storage
            sizes, strides = self._share(tuple(a._sizes)), self._share(tuple(a._strides))
            info = self._infos.get(name)
            if (info is None or info.version != a._vc.value or info.storage_id != id(storage)
                    or info.storage_offset != a._offset or info.sizes != sizes or info.strides != strides
                    or info.dtype != a.dtype.name):
                info = TensorInfo(name, sizes, strides, a._offset, a.dtype.name, self._share(str(storage.device)),
                                  id(storage), a._vc.value)
                if len(self._infos) >= INFOS_MAX:
                    self._infos.clear()
                self._infos[name] = info
            return info
        if isinstance(a, (list, tuple)) and any(isinstance(x, Tensor) for x in a):
            return [self._describe(x) for x in a]
        try:
            text = repr(a)
        except Exception:             # an argument whose repr fails must not fail the op
            text = f"<{type(a).__name__} object>"
        if len(text) > MAX_REPR:      # a long list as an argument: a bounded event all the same
            text = text[:MAX_REPR - 1] + "…"
        return self._share(text) if len(text) <= SHORT_REPR else text

    def _compact(self, ev):
        """Called as each hop ends (dispatch.trace's on_event): lists become tuples (smaller, and an empty
        one is shared), the hops noted in `ev.lower` become (key, kernel, duration_ns) tuples, numbers that
        repeat are shared."""
        try:
            ev.inputs = tuple(ev.inputs)
            ev.outputs = tuple(ev.outputs)
            ev.ks = self._share(ev.ks)
            if ev.backward_node_id is not None:
                ev.backward_node_id = self._share(ev.backward_node_id)
            if ev.lower is not None:
                ev.lower = tuple(tuple(note) for note in ev.lower)
        except Exception:             # only memory is lost: the event is as dispatch.trace made it
            pass

    def hop(self, op, key, ks, args):
        if self._ops and self._ops[-1] is op and key < self._keys[-1]:
            return self._lower_hop(op, key, ks, args)
        depth = len(self._keys)
        try:
            self._keys.append(key)
            out = super().hop(op, key, ks, args)
        finally:
            del self._keys[depth:]        # back to the caller's depth, even after Ctrl-C (see _grad_mode.py)
        if not self._stack:               # a call from user code (or from the autograd engine) just ended
            self.recorder._after_call(op, args, out, self.backward_node is not None)   # never raises
        return out

    def _lower_hop(self, op, key, ks, args):
        kernel = op.table[key]
        first = self.events[self._stack[-1] - self.events[0].index]
        if first.lower is None:
            first.lower = []
        note = [_KEY_NAMES.get(key, "Undefined"), dispatcher.kernel_name(kernel), 0]
        first.lower.append(note)
        depth = len(self._keys)
        start = time.perf_counter_ns()
        try:
            self._keys.append(key)
            return kernel(ks, *args)
        finally:
            del self._keys[depth:]
            note[2] = time.perf_counter_ns() - start


class Recorder:
    """Record the core's events and produce snapshots of the three pictures (see the module docstring)."""

    def __init__(self, on_flush=None, interval=0.05, budget=0.2, max_events=4000, max_rows=300,
                 params=None, frame=None):
        self.on_flush = on_flush
        self.interval, self.budget = interval, budget
        self.max_rows = max_rows
        self.params = params                  # names for parameters in the graph (a dict or a Module)
        self.frame = frame                    # the code being watched: its variables name tensors (names.py)
        self._names = {}                      # names.scope_names, as of the latest redraw
        self.trace = _LiveTrace(self, max_events)
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
        self._graph_of = None                 # tensors passed to graph(); None: follow the latest output
        self._latest_output = None            # weak reference to the latest output that has a grad_fn
        self._latest_loss = None              # and to the latest such output with one element (a loss)
        self._backward_root = None            # the root node of the backward now running (or last run)
        self._calls = 0                       # calls seen: says which came last, a loss or a backward
        self._output_at = self._loss_at = self._backward_at = -1
        self._dirty = {"storage": True, "graph": True, "trace": True}
        self._due = 0.0
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
                if isinstance(t, Tensor) and t.grad_fn is not None:
                    # the graph follows the loss: once a one-element output has been seen, only the next
                    # one (the next step's loss) or a backward redraws it, so the picture stays still
                    # while a training step builds its graph op by op
                    self._latest_output = weakref.ref(t)
                    self._output_at = self._calls
                    if t.numel() == 1:
                        self._latest_loss = weakref.ref(t)
                        self._loss_at = self._calls
                    if self._graph_of is None and (t.numel() == 1 or self._latest_loss is None):
                        self._dirty["graph"] = True
        self._dirty["trace"] = True
        self._dirty["storage"] = True         # values may have changed, in place
        self.maybe_flush()

    def _note_backward_event(self, ev):
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
        """Redraw what changed, hand the snapshot to on_flush, and decide when the next redraw may come.

        Never raises: a pane that cannot be drawn shows a message instead (_draw_failure), the trace
        note says why, and the other panes are drawn as usual."""
        try:
            self._flush()
        except Exception as e:                # a bug here must not break the student's code either
            self._error("the explorer could not redraw", e)

    def _flush(self):
        start = time.perf_counter()
        changed = []
        try:
            self._names = names.scope_names(self.frame, self.params)
        except Exception as e:                # names are a help: without them, the pictures say $n
            self._names = {}
            self._error("the explorer could not read the names of your tensors", e)
        failed_before = dict(self._failed)
        for pane, draw, traits in (("storage", self._flush_storage, ["storage_svg"]),
                                   ("graph", self._draw_graph, ["graph_svg", "graph_dot", "graph_steps"]),
                                   ("trace", self._flush_trace, ["trace_rows"])):
            if not self._dirty[pane]:
                continue
            try:
                draw()
                self._failed.pop(pane, None)
            except Exception as e:
                self._failed[pane] = self._error(f"the {pane} pane could not be drawn", e)
                self._draw_failure(pane, self._failed[pane])
            changed += traits
        if self._dirty["trace"] or self._failed != failed_before:
            self.snapshot["trace_note"] = self._trace_note()
            changed.append("trace_note")
        self._dirty = {pane: pane in self._failed for pane in self._dirty}     # a failed pane: try again
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

    def _flush_trace(self):
        rows = trace_table.trace_rows(self.trace.events, fold=True, max_rows=self.max_rows, repetition="last")
        self.snapshot["trace_rows"] = trace_table.rename(rows, self._renames())

    def _draw_storage(self):
        tensors, given = self._shown, self._shown_labels or []
        derived = {}
        if tensors is None:
            op, args, out = self._last_call
            outs = out if isinstance(out, (tuple, list)) else (out,)
            ins = [t for t in args if isinstance(t, Tensor)]
            tensors = ins + [t for t in outs if isinstance(t, Tensor)]
            if op is not None and len(args) == 1 and len(ins) == 1 and self._label(ins[0]) is not None:
                # `x.t()`: the output of a one-argument op on a named tensor, written as the method call
                name = dispatcher.python_name(op.name).split(".")[1]
                derived = {id(t): f"{self._label(ins[0])}.{name}()" for t in outs if isinstance(t, Tensor)}
        if not tensors:
            return ""
        labels = [(given[k] if k < len(given) else None) or self._label(t) or derived.get(id(t))
                  or self._trace_name(t) for k, t in enumerate(tensors)]
        return storage_diagram.storage_svg(*tensors, labels=labels)

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
        self.snapshot["graph_dot"] = dot
        self.snapshot["graph_svg"] = graph_diagram.render_svg(dot)      # never raises: says what went wrong
        self.snapshot["graph_steps"] = list(state.steps) if state is not None else []

    def _trace_note(self):
        parts = []
        if self.trace.dropped:
            parts.append(f"the oldest {self.trace.dropped:,} hops were dropped to keep the trace small")
        parts += self._failed.values()
        return "; ".join(parts)
