"""Dispatch traces: watch every hop an op call makes through the dispatcher.

    with teachtorch.dispatch.trace() as t:
        c = a + b
    print(t)          # $2: f32[3, 4] = aten.add.Tensor($0, $1)
    print(t.format(hops=True))
    t.events          # structured DispatchEvent records, one per hop (what the explorer widgets draw)

PyTorch's closest tools are a `TorchDispatchMode` that logs ops (torch/testing/_internal/logging_tensor.py,
whose print format this copies) and `TORCH_SHOW_DISPATCH_TRACE=1` in debug builds, which prints every
kernel the dispatcher enters. A teachtorch trace does both: each *hop* (one kernel at one dispatch key) is an
event, and hops made while another runs are its children. A call from your code has depth 0; the hops it
makes by redispatching, and the ops its kernels call, are deeper.

Events are the documented interface the explorer consumes: `DispatchEvent` and `TensorInfo` below. Pass
`on_event=callback` to receive each event as its hop finishes (for live drawing). During `backward()` each
event says which autograd node it ran for (`backward_node`), and the engine's own events (node started,
gradient passed on, leaf accumulated) are collected in `trace.backward_events`.
"""

import collections
import time
import weakref
from dataclasses import dataclass, field

from .. import _dispatch_key, _strides
from .._tensor import Tensor
from . import dispatcher

DTYPE_ABBRS = {"float64": "f64", "float32": "f32", "float16": "f16", "int64": "i64", "int32": "i32",
               "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8"}


@dataclass(slots=True)
class TensorInfo:
    """What a trace records of a tensor: its name in the trace and its metadata, not its values."""

    name: str                 # "$0", numbered in order of first appearance in this trace
    sizes: tuple
    strides: tuple
    storage_offset: int
    dtype: str
    device: str
    storage_id: int           # id() of the storage object: equal ids mean the tensors share memory (alias)
    version: int

    @property
    def is_contiguous(self):
        return _strides.is_contiguous(self.sizes, self.strides)

    def short(self):
        return f"{DTYPE_ABBRS.get(self.dtype, self.dtype)}[{', '.join(map(str, self.sizes))}]"


@dataclass(slots=True)
class DispatchEvent:
    """One hop: the kernel that ran for `op` at dispatch `key`."""

    index: int                # position in trace.events
    parent: int | None        # index of the hop that made this one, None for a call from user code
    depth: int
    op: str                   # "aten::add.Tensor"
    key: str                  # "AutogradCPU", "CPU", ...
    kernel: str               # the kernel's qualified name
    ks: int                   # the call's key set at this hop (a bit set; `keyset` names its keys)
    inputs: list              # TensorInfo for tensors, repr text for everything else
    outputs: list = field(default_factory=list)
    duration_ns: int = 0
    error: str | None = None
    source: str = ""          # where the kernel is written: "teachtorch/kernels/pointwise.py:312"
    backward_node: str | None = None   # the autograd node this op ran for ("MulBackward0"), None in forward
    backward_node_id: int | None = None  # that node's id, as autograd.graph.walk numbers it
    lower: list | None = None    # a trace that folds hops (the explorer's) lists here the (key, kernel,
                                 # duration_ns) of the hops that passed this call on, instead of events
    repeats: int = 0             # a trace that folds loops as they run (the explorer's) counts here the
    repeats_ns: int = 0          # later calls that repeated this one (same op and layouts), and their time

    @property
    def keyset(self):
        return _dispatch_key.keyset_names(self.ks)       # ["AutogradCPU", "CPU"], highest first

    @property
    def aten_name(self):
        return dispatcher.python_name(self.op)     # "aten.add.Tensor", "aten.sum.default"


_KEY_NAMES = {k.value: k.name for k in _dispatch_key.DispatchKey}


DEFAULT_MAX_EVENTS = 10_000


class trace:
    """Context manager that records every dispatcher hop while it is active.

    A trace is bounded: it keeps about the last `max_events` hops (whole calls, never part of one) and as
    many of the autograd engine's events, and counts what it dropped (`dropped`, shown at the top of
    `format()`), so a trace left on around a long training loop stays the same size. `max_events=None`
    keeps everything: only for short pieces of code.
    """

    def __init__(self, on_event=None, max_events=DEFAULT_MAX_EVENTS):
        if max_events is not None and (not isinstance(max_events, int) or max_events < 1):
            raise ValueError(f"trace(): max_events must be a positive int or None, got {max_events!r}")
        self.events = []
        self.on_event = on_event
        self.max_events = max_events  # keep only about this many recent hops (whole calls); None: all
        self.dropped = 0              # hops left out to stay under max_events
        self._count = 0               # hops seen; the next hop's index
        self._stack = []          # indices of the hops now running
        self._ops = []            # and their ops
        self._names = {}          # id(tensor) -> (weakref, "$n")
        self._next_name = 0
        self._previous = None
        self.backward_node = None     # the Node the autograd engine is running (set by the engine)
        # the autograd engine's events (autograd.graph.BackwardEvent), as bounded as the hops
        self.backward_events = collections.deque(maxlen=max_events)
        self.backward_seen = 0        # engine events seen; those beyond `backward_events` were dropped

    # -- context manager --
    def __enter__(self):
        self._previous = dispatcher._active_trace
        dispatcher._active_trace = self
        return self

    def __exit__(self, *exc):
        if dispatcher._active_trace is self:      # (exiting a trace that is not the active one changes nothing)
            dispatcher._active_trace = self._previous
        return False

    def clear(self):
        self.events.clear()
        self.backward_events.clear()

    @property
    def backward_dropped(self):
        return self.backward_seen - len(self.backward_events)

    def _trim(self):
        """Drop the oldest calls, so that a long training loop keeps a bounded trace (the explorer's live view)."""
        cut = len(self.events) - self.max_events
        while cut < len(self.events) and self.events[cut].depth != 0:
            cut += 1                  # never split a call from its hops
        del self.events[:cut]
        self.dropped += cut
        self._names = {k: v for k, v in self._names.items() if v[0]() is not None}

    # -- recording: called by the dispatcher instead of the kernel while this trace is active --
    def hop(self, op, key, ks, args):
        kernel = op.table[key]
        node = self.backward_node
        parent = self._stack[-1] if self._stack else None
        # The first hop of a call records its arguments; the hops that pass the same call on to lower keys
        # only record where they went (their arguments are the call's).
        new_call = parent is None or self._ops[-1] is not op
        ev = DispatchEvent(
            index=self._count, parent=parent, depth=len(self._stack), op=op.name,
            key=_KEY_NAMES.get(key, "Undefined"), kernel=dispatcher.kernel_name(kernel), ks=ks,
            source=dispatcher.kernel_source(kernel),
            inputs=[self._describe(a) for a in args] if new_call else [],
            backward_node=None if node is None else type(node).__name__,
            backward_node_id=None if node is None else id(node),
        )
        self._count += 1
        self.events.append(ev)
        depth = len(self._stack)
        start = time.perf_counter_ns()
        try:
            self._stack.append(ev.index)
            self._ops.append(op)
            out = kernel(ks, *args)
        except Exception as e:
            ev.error = f"{type(e).__name__}: {_safe_text(e)}"
            raise
        finally:
            # Cut back to this hop's depth first, with no call before it, so that even Ctrl-C between
            # the appends above leaves the stack as the caller had it.
            del self._stack[depth:], self._ops[depth:]
            ev.duration_ns = time.perf_counter_ns() - start
        if new_call:
            ev.outputs = [self._describe(o) for o in (out if isinstance(out, (tuple, list)) else (out,))]
        if self.on_event is not None:
            self.on_event(ev)
        if self.max_events is not None and not self._stack and len(self.events) > 2 * self.max_events:
            self._trim()
        return out

    def _name(self, t):
        entry = self._names.get(id(t))
        if entry is not None and entry[0]() is t:
            return entry[1]
        name = f"${self._next_name}"
        self._next_name += 1
        self._names[id(t)] = (weakref.ref(t), name)
        return name

    def _describe(self, a):
        if isinstance(a, Tensor):
            storage = a._storage
            return TensorInfo(self._name(a), tuple(a._sizes), tuple(a._strides), a._offset, a.dtype.name,
                              str(storage.device), id(storage), a._vc.value)
        if isinstance(a, (list, tuple)) and any(isinstance(x, Tensor) for x in a):
            return [self._describe(x) for x in a]
        return _safe_text(a, repr)

    # -- reading --
    def event(self, index):
        """The hop with this index (`ev.parent` is one); indices keep counting when old hops are dropped."""
        return self.events[index - self.events[0].index]

    def ops(self):
        """The calls made from user code (depth 0), one per op."""
        return [e for e in self.events if e.depth == 0]

    def format(self, hops=False, durations=True):
        """One line per op call from user code; with `hops=True`, also every kernel each call went through
        and where it is written (`file:line`), with its time unless `durations=False`."""
        lines = []
        if self.dropped:
            lines.append(f"... {self.dropped} earlier hops dropped (max_events={self.max_events}; "
                         f"trace(max_events=None) keeps all)")
        for e in self.events:
            if not hops:
                if e.depth == 0:
                    lines.append(_logging_line(e))
                continue
            indent = "  " * e.depth
            if e.parent is None or self.event(e.parent).op != e.op:
                lines.append(indent + _logging_line(e))     # a new op call starts here
            where = f"  {e.source}" if e.source else ""
            took = f" ({e.duration_ns / 1000:.1f} us)" if durations else ""
            lines.append(f"{indent}  -> {e.key}: {e.kernel}{where}{took}")
        return "\n".join(lines)

    def __str__(self):
        return self.format(hops=False)

    def __repr__(self):
        return f"<teachtorch.dispatch.trace with {len(self.events)} hops, {len(self.ops())} ops>"


def _safe_text(obj, to_text=str, limit=200):
    """Text for the trace that never raises into the op being traced (a user class's `__repr__` may),
    cut to `limit` characters."""
    try:
        text = to_text(obj)
    except Exception:
        text = f"<{type(obj).__name__} object>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _show_arg(a):
    if isinstance(a, TensorInfo):
        return a.name
    if isinstance(a, list):
        return "[" + ", ".join(_show_arg(x) for x in a) + "]"
    return a


def _logging_line(e):
    """`$2: f32[3, 4] = aten.add.Tensor($0, $1)`, the format of PyTorch's LoggingTensor."""
    op = dispatcher.OPERATORS.get(e.op)
    params = op.schema.arguments if op is not None else []
    shown = []
    for i, a in enumerate(e.inputs):
        arg = params[i] if i < len(params) else None
        if arg is not None and arg.has_default and repr(arg.default) == a:
            continue      # like LoggingTensor, leave out arguments left at their defaults
        text = str(_show_arg(a))
        shown.append(f"{arg.name}={text}" if arg is not None and arg.kwarg_only else text)
    call = f"{e.aten_name}({', '.join(shown)})"
    if e.error:
        return f"{call}  !! {e.error}"
    # every output tensor, also those inside a returned list (split, unbind)
    outs = [x for o in e.outputs for x in (o if isinstance(o, list) else [o]) if isinstance(x, TensorInfo)]
    if not outs:
        return call
    lhs = ", ".join(f"{o.name}: {o.short()}" for o in outs)
    return f"{lhs} = {call}" if len(outs) == 1 and not isinstance(e.outputs[0], list) else f"({lhs}) = {call}"
