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

import time
import weakref
from dataclasses import dataclass, field

from .. import _dispatch_key
from .._tensor import Tensor
from . import dispatcher

DTYPE_ABBRS = {"float64": "f64", "float32": "f32", "float16": "f16", "int64": "i64", "int32": "i32",
               "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8"}


@dataclass
class TensorInfo:
    """What a trace records of a tensor: its name in the trace and its metadata, not its values."""

    name: str                 # "$0", numbered in order of first appearance in this trace
    sizes: tuple
    strides: tuple
    storage_offset: int
    dtype: str
    device: str
    storage_id: int           # data_ptr() of the storage: equal ids mean the tensors alias
    version: int
    is_contiguous: bool

    def short(self):
        return f"{DTYPE_ABBRS.get(self.dtype, self.dtype)}[{', '.join(map(str, self.sizes))}]"


@dataclass
class DispatchEvent:
    """One hop: the kernel that ran for `op` at dispatch `key`."""

    index: int                # position in trace.events
    parent: int | None        # index of the hop that made this one, None for a call from user code
    depth: int
    op: str                   # "aten::add.Tensor"
    key: str                  # "AutogradCPU", "CPU", ...
    kernel: str               # the kernel's qualified name
    keyset: list              # the call's key set at this hop, highest first
    inputs: list              # TensorInfo for tensors, repr text for everything else
    outputs: list = field(default_factory=list)
    duration_ns: int = 0
    error: str | None = None
    backward_node: str | None = None   # the autograd node this op ran for ("MulBackward0"), None in forward
    backward_node_id: int | None = None  # that node's id, as autograd.graph.walk numbers it

    @property
    def aten_name(self):
        return dispatcher.python_name(self.op)     # "aten.add.Tensor", "aten.sum.default"


class trace:
    """Context manager that records every dispatcher hop while it is active."""

    def __init__(self, on_event=None):
        self.events = []
        self.on_event = on_event
        self._stack = []          # indices of the hops now running
        self._names = {}          # id(tensor) -> (weakref, "$n")
        self._next_name = 0
        self._previous = None
        self.backward_node = None     # the Node the autograd engine is running (set by the engine)
        self.backward_events = []     # the autograd engine's events (autograd.graph.BackwardEvent)

    # -- context manager --
    def __enter__(self):
        self._previous = dispatcher._active_trace
        dispatcher._active_trace = self
        return self

    def __exit__(self, *exc):
        dispatcher._active_trace = self._previous
        return False

    def clear(self):
        self.events.clear()

    # -- recording: called by the dispatcher instead of the kernel while this trace is active --
    def hop(self, op, key, ks, args):
        kernel = op.table[key]
        node = self.backward_node
        parent = self._stack[-1] if self._stack else None
        ev = DispatchEvent(
            index=len(self.events), parent=parent, depth=len(self._stack), op=op.name,
            key=_dispatch_key.DispatchKey(key).name if key >= 0 else "Undefined",
            kernel=dispatcher._qualname(kernel), keyset=_dispatch_key.keyset_names(ks),
            inputs=[self._describe(a) for a in args],
            backward_node=None if node is None else type(node).__name__,
            backward_node_id=None if node is None else id(node),
        )
        self.events.append(ev)
        self._stack.append(ev.index)
        start = time.perf_counter_ns()
        try:
            out = kernel(ks, *args)
        except Exception as e:
            ev.error = f"{type(e).__name__}: {e}"
            raise
        finally:
            ev.duration_ns = time.perf_counter_ns() - start
            self._stack.pop()
        outs = out if isinstance(out, (tuple, list)) else (out,)
        ev.outputs = [self._describe(o) for o in outs]
        if self.on_event is not None:
            self.on_event(ev)
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
            return TensorInfo(self._name(a), tuple(a._sizes), tuple(a._strides), a._offset, a.dtype.name,
                              str(a.device), a._storage.data_ptr(), a._vc.value, a.is_contiguous())
        if isinstance(a, (list, tuple)) and any(isinstance(x, Tensor) for x in a):
            return [self._describe(x) for x in a]
        return repr(a)

    # -- reading --
    def ops(self):
        """The calls made from user code (depth 0), one per op."""
        return [e for e in self.events if e.depth == 0]

    def format(self, hops=False):
        """One line per op call from user code; with `hops=True`, also every kernel each call went through."""
        lines = []
        for e in self.events:
            if not hops:
                if e.depth == 0:
                    lines.append(_logging_line(e))
                continue
            indent = "  " * e.depth
            if e.parent is None or self.events[e.parent].op != e.op:
                lines.append(indent + _logging_line(e))     # a new op call starts here
            lines.append(f"{indent}  -> {e.key}: {e.kernel} ({e.duration_ns / 1000:.1f} us)")
        return "\n".join(lines)

    def __str__(self):
        return self.format(hops=False)

    def __repr__(self):
        return f"<teachtorch.dispatch.trace with {len(self.events)} hops, {len(self.ops())} ops>"


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
