"""The explorer's dispatch trace: bounded, cheap, and it folds a training loop as the loop runs.

`dispatch.trace` records every hop of every op call: right for a few lines of code, too much for a training
loop watched live (it made a loop 2.7x slower). The live trace keeps the same events for the same
renderers (trace_table.py), with three savings:

* **Folding as it runs.** A training step makes the same calls as the step before. Once the last 2p calls
  are two copies of one body of p calls, each call that matches the call p back (the same op, section and
  node, and the same sizes, strides, dtypes and devices: trace_table.signature) is run without recording
  its hops and only counted on that call's event (`DispatchEvent.repeats`). Recording then costs a
  comparison per call, and the trace stops growing. The counted calls' tensors are kept (the latest
  repetition's) only until the next redraw, which describes the events by them, so the rows name the
  tensors the code holds now.
* **Hops folded into calls.** When a kernel passes its call on to a lower key (AutogradCPU -> CPU), that hop
  makes no event of its own; its (key, kernel, time) is noted in the call's first event (`ev.lower`).
* **Shared values.** A tensor seen again unchanged gets the same TensorInfo, and repeated sizes, strides,
  devices and argument reprs are one shared object; the engine's events are kept as plain records of names
  and ids (BackwardRecord), which keep no node, gradient or tensor alive.

PyTorch's profiler makes the same trade for long runs: `torch.profiler.schedule` records a few steps in
full (wait, warmup, active) and skips the rest.
"""

import collections
import time

from .. import _tensor
from ..autograd import graph as autograd_graph
from ..dispatch import dispatcher
from ..dispatch.trace import _KEY_NAMES, DispatchEvent, TensorInfo, trace as dispatch_trace
from . import trace_table
from .svg import clean

Tensor = _tensor.Tensor

SHARED_MAX = 2048        # values the live trace keeps one copy of (strings, tuples, ints), before starting over
INFOS_MAX = 1024         # TensorInfos kept for reuse (the tensors seen most recently), before starting over
SHORT_REPR = 64          # argument reprs longer than this are not worth sharing
MAX_REPR = 200           # argument reprs are cut to this many characters (the table shows fewer)


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

    def __init__(self, trace, maxlen):
        super().__init__(maxlen=maxlen)
        self._trace = trace
        self._share = trace._share    # the trace's: one copy of each id, name and shape
        self.counted = 0              # events of backward runs that repeated a recorded one: only counted

    def append(self, ev):
        if self._trace._period:       # the trace is counting a loop's repeats (see _LiveTrace.hop)
            self.counted += 1
            return
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

    def __init__(self, recorder, max_events, count_repeats=True):
        super().__init__(on_event=self._compact, max_events=max_events)
        self.recorder = recorder
        self.count_repeats = count_repeats
        self._keys = []               # the dispatch key of each hop now running
        self._shared = {}             # value -> the one copy of it that events hold
        self._infos = {}              # tensor name ("$3") -> the TensorInfo last recorded for it
        self.backward_events = _BackwardLog(self, max_events)   # bounded too, names and ids only
        # folding as it runs (see hop): the signatures of the latest calls, each with its recorded event
        self._recent = collections.deque(maxlen=2 * trace_table.MAX_PERIOD)
        self._period = 0              # the loop body's length in calls while calls repeat it, else 0
        self._quiet = 0               # > 0 inside a repeated call: its hops are not recorded
        self._latest = {}             # event index -> (args, result) of its latest repetition

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
        """Record a hop, as dispatch.trace does; but a call from user code (or the engine) that repeats the
        loop body the trace has already recorded twice is only counted (`_repeat`)."""
        if self._quiet:                   # a hop inside a repeated call: run it, record nothing
            return op.table[key](ks, *args)
        if self._ops and self._ops[-1] is op and key < self._keys[-1]:
            return self._lower_hop(op, key, ks, args)
        top = not self._stack
        if top and self._period:
            template = self._template_for(op, args)
            if template is not None:
                return self._repeat(template, op, key, ks, args)
        depth = len(self._keys)
        index = self._count               # the index its first hop's event will have
        try:
            self._keys.append(key)
            out = super().hop(op, key, ks, args)
        finally:
            del self._keys[depth:]        # back to the caller's depth, even after Ctrl-C (see _grad_mode.py)
        if top:                           # a call from user code (or from the autograd engine) just ended
            first = self.events[0].index if self.events else index
            self._note_recorded(self.events[index - first] if first <= index else None, op, args, out)
            self.recorder._after_call(op, args, out, self.backward_node is not None)   # never raises
        return out

    # -- folding loops as they run --------------------------------------------------------------------------
    # A training loop makes the same calls every step. Once the last 2p calls are two copies of one body of
    # p calls, each next call that matches the call p back (same op, section, node and layouts of its
    # tensors: trace_table.signature) is only counted on that call's event (`repeats`), not described:
    # recording then costs a signature, not a description, per call, and the trace stops growing.

    def _note_recorded(self, ev, op, args, out):
        """A call was recorded in full: remember its signature; start counting if a body now repeats.

        `recent` holds, per call, (signature, op, node name, layouts of its inputs and of its outputs, its
        recorded event): the signature finds loop bodies; the rest is what the next call is compared with,
        taken from the tensors as they are (`_layouts`), cheaper than describing them."""
        if ev is None or ev.depth != 0 or not self.count_repeats:
            return
        self._settle()
        sig = trace_table.signature(ev)
        recent = self._recent
        recent.append((sig, op, ev.backward_node, _layouts(args), None if out is None else _layouts(_as_tuple(out)), ev))
        # the longest body wins: a training step's body holds shorter repeats (t, t), which would soon break
        n = len(recent)
        for p in range(min(trace_table.MAX_PERIOD, n // 2), 0, -1):
            if recent[-1 - p][0] == sig and all(recent[-1 - k][0] == recent[-1 - p - k][0] for k in range(1, p)):
                self._period = p
                return

    def _template_for(self, op, args):
        """The `recent` entry of the call this one would repeat, if its op, section and input layouts
        match; else None (and counting stops)."""
        entry = self._recent[-self._period]
        node = self.backward_node
        if entry[1] is op and entry[2] == (None if node is None else type(node).__name__) \
                and entry[3] == _layouts(args):
            return entry
        self._period = 0
        self._settle()
        return None

    def _repeat(self, entry, op, key, ks, args):
        """Run a call that repeats `template`, recording none of its hops; count it on the template, or,
        if its results differ after all (or it fails), record it as a call of its own."""
        start = time.perf_counter_ns()
        self._quiet += 1
        try:
            out = op.table[key](ks, *args)
        except Exception as e:
            self._quiet -= 1
            self._record_after(op, key, ks, args, None, time.perf_counter_ns() - start, e)
            raise
        except BaseException:             # Ctrl-C: stop counting; the call is not recorded
            self._quiet -= 1
            self._period = 0
            raise
        self._quiet -= 1
        took = time.perf_counter_ns() - start
        template = entry[5]
        if _layouts(_as_tuple(out)) == entry[4]:
            template.repeats += 1
            template.repeats_ns += took
            node = self.backward_node
            self._latest[template.index] = (args, out, None if node is None else id(node))
            self._recent.append(entry)
        else:
            self._record_after(op, key, ks, args, out, took, None)
        self.recorder._after_call(op, args, out, self.backward_node is not None)   # never raises
        return out

    def _record_after(self, op, key, ks, args, out, took, error):
        """Record, after it ran, a call that was to be counted but was not a repeat: one event, as the
        first hop of a call (its lower hops were not watched)."""
        self._period = 0
        node = self.backward_node
        kernel = op.table[key]
        ev = DispatchEvent(
            index=self._count, parent=None, depth=0, op=op.name, key=_KEY_NAMES.get(key, "Undefined"),
            kernel=dispatcher.kernel_name(kernel), ks=ks, source=dispatcher.kernel_source(kernel),
            inputs=[self._describe(a) for a in args], duration_ns=took,
            backward_node=None if node is None else type(node).__name__,
            backward_node_id=None if node is None else id(node))
        if error is not None:
            ev.error = f"{type(error).__name__}: {error}"
        else:
            ev.outputs = [self._describe(o) for o in (out if isinstance(out, (tuple, list)) else (out,))]
        self._count += 1
        self.events.append(ev)
        self._compact(ev)
        self._note_recorded(ev, op, args, out)

    def _settle(self):
        """Describe each counted call's event by its latest repetition (whose tensors the code still holds),
        then let those tensors go: called when counting stops and before each redraw."""
        latest, self._latest = self._latest, {}
        if not latest:
            return
        first = self.events[0].index if self.events else 0
        for index, (args, out, node_id) in latest.items():
            if index >= first:
                ev = self.events[index - first]
                ev.inputs = tuple(self._describe(a) for a in args)
                ev.outputs = tuple(self._describe(o) for o in (out if isinstance(out, (tuple, list)) else (out,)))
                if node_id is not None:
                    ev.backward_node_id = node_id      # the node of the latest backward: lit in the graph

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


def _as_tuple(out):
    return out if isinstance(out, (tuple, list)) else (out,)


def _layouts(values):
    """(sizes, strides, dtype, device) of each tensor among these values (inside lists too): what makes two
    calls of one op the same call for folding, read straight from the tensors."""
    out = []
    for v in values:
        if isinstance(v, Tensor):
            out.append((v._sizes, v._strides, v.dtype, v._storage.device))
        elif isinstance(v, (list, tuple)):
            out.extend((t._sizes, t._strides, t.dtype, t._storage.device) for t in v if isinstance(t, Tensor))
    return tuple(out)
