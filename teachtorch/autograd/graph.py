"""Looking at the graph: walk it from any tensor, and watch backward run (the explorer's interface).

PyTorch's `torch.autograd.graph` has `Node`, `saved_tensors_hooks` and `register_multi_grad_hook`; the
walking and the event stream here are teachtorch's own, documented for the explorer widgets.

**Walking.** `walk(tensors)` returns a `GraphInfo`: every node reachable from the tensors' grad_fns, with
stable ids (a node's id never changes while it lives, so a growing graph keeps its shape), the edges
between them, the saved tensors of each node (shape, dtype, version at save time and now, freed?), its
hooks, and for an AccumulateGrad node the leaf it feeds.

**Events.** `listen(callback)` (a context manager) calls `callback(BackwardEvent)` for each step of every
backward run while it is active:

    backward_started    root            the GraphRoot node that starts the run
    node_started        node, grads     a node is about to run, with its incoming gradients
    node_finished       node, grads     it ran; `grads` are its outputs, one per next edge
    gradient            node, output_nr, next_node, input_nr, grad     one gradient passed along an edge
    accumulated         node, tensor, grad                              a leaf's .grad was updated
    backward_finished   root

A dispatch trace (teachtorch.dispatch.trace) active during backward sees these events too, in
`trace.backward_events`, and each op that a backward formula runs is tagged with the node it ran for.
"""

from dataclasses import dataclass, field

from ..dispatch import dispatcher
from .node import Node  # noqa: F401  (torch.autograd.graph.Node: every grad_fn is one)
from .saved_variable import saved_tensors_hooks_stack

_listeners = ()      # a tuple: adding and removing are plain stores that Ctrl-C cannot split


@dataclass
class BackwardEvent:
    kind: str
    node: object = None          # the Node concerned
    node_name: str = ""
    fields: dict = field(default_factory=dict)

    def __getattr__(self, name):
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None


def listening():
    return bool(_listeners) or dispatcher._active_trace is not None


def emit(kind, node=None, **fields):
    if not _listeners and dispatcher._active_trace is None:
        return
    node = node if node is not None else fields.get("root")
    ev = BackwardEvent(kind, node, type(node).__name__ if node is not None else "", fields)
    for cb in _listeners:
        cb(ev)
    trace = dispatcher._active_trace
    if trace is not None and hasattr(trace, "backward_events"):
        trace.backward_events.append(ev)       # a bounded deque: the oldest drop out
        trace.backward_seen = getattr(trace, "backward_seen", 0) + 1


class listen:
    """`with autograd.graph.listen(print): loss.backward()` prints each backward event."""

    def __init__(self, callback):
        self.callback = callback

    def __enter__(self):
        global _listeners
        _listeners = _listeners + (self.callback,)
        return self

    def __exit__(self, *exc):
        global _listeners
        if self.callback in _listeners:
            i = _listeners.index(self.callback)
            _listeners = _listeners[:i] + _listeners[i + 1:]
        return False


class saved_tensors_hooks:
    """`with saved_tensors_hooks(pack, unpack):` store saved tensors your way (PyTorch's, same name).

    `pack(tensor)` runs when a node saves a tensor and may return anything; `unpack(packed)` runs each time
    backward reads it and must return a tensor of the same shape.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.hooks = (pack_hook, unpack_hook)

    def __enter__(self):
        n = len(saved_tensors_hooks_stack)
        saved_tensors_hooks_stack[n:] = (self.hooks,)    # a slice store, not append(): no Ctrl-C point after it
        return self

    def __exit__(self, *exc):
        del saved_tensors_hooks_stack[-1:]
        return False


# ---- walking -------------------------------------------------------------------------------------------


@dataclass
class NodeInfo:
    id: int                      # stable while the node lives
    name: str                    # "MulBackward0", "AccumulateGrad" (the class name; name() may add "torch::autograd::")
    node: object
    sequence_nr: int
    next: list                   # [(id of next node, input_nr) or None] per next edge
    saved: list                  # [{"name": "_saved_self", "shape": ..., "dtype": ..., "saved_version": ...,
                                 #   "version": ..., "freed": ...}]
    hooks: dict                  # {"pre": n, "post": n, "tensor": n, "retains_grad": n}
    variable: object = None      # the leaf tensor, for AccumulateGrad


@dataclass
class GraphInfo:
    nodes: list                  # NodeInfo, roots first, in the order a walk from the roots meets them
    edges: list                  # (from id, to id, output_nr of the from node, input_nr of the to node)
    roots: list                  # ids of the roots' grad_fns

    def node(self, id):
        return next(n for n in self.nodes if n.id == id)

    def names(self):
        return [n.name for n in self.nodes]


def node_id(node):
    """A node's id: Python's id(), which never changes while the node lives (dispatch traces use it too)."""
    return id(node)


def walk(tensors):
    """All nodes and edges reachable from `tensors` (a tensor, a node, or a list of them)."""
    from .._tensor import Tensor
    if not isinstance(tensors, (list, tuple)):
        tensors = [tensors]
    starts = []
    for t in tensors:
        fn = t.grad_fn if isinstance(t, Tensor) else t
        if fn is None and isinstance(t, Tensor) and t.requires_grad:
            from .variable import grad_accumulator
            fn = grad_accumulator(t)
        if fn is not None:
            starts.append(fn)
    nodes, edges, seen = [], [], set()
    stack = list(reversed(starts))
    while stack:                   # depth-first with an explicit stack: deep graphs are fine
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        nodes.append(_info(node))
        for output_nr, edge in enumerate(node.next_edges):
            if edge is None:
                continue
            edges.append((node_id(node), node_id(edge[0]), output_nr, edge[1]))
            if id(edge[0]) not in seen:
                stack.append(edge[0])
    return GraphInfo(nodes, edges, [node_id(s) for s in starts])


def _info(node):
    saved = []
    for name, sv in node._saved_tensor_infos():
        d = sv.info()
        d["name"] = f"_saved_{name}"
        saved.append(d)
    hooks = {"pre": len(node._pre_hooks or {}), "post": len(node._post_hooks or {}),
             "tensor": sum(len(h) for h in (node._tensor_pre_hooks or {}).values()),
             "retains_grad": len(node._retains_grad_hooks or {})}
    return NodeInfo(node_id(node), type(node).__name__, node, node._seq,
                    [None if e is None else (node_id(e[0]), e[1]) for e in node.next_edges],
                    saved, hooks, getattr(node, "variable", None))
