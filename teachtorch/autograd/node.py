"""Node: one step of the backward graph (PyTorch's `torch::autograd::Node`, Python `grad_fn`).

When an op runs on tensors that require grad, its autograd kernel makes a Node for it:

    y = x * w            y.grad_fn is a MulBackward0 node
                         y.grad_fn.next_functions == ((<AccumulateGrad>, 0), (<AccumulateGrad>, 0))

* `next_edges` (`next_functions` in Python) point from the node *towards the inputs*: one edge
  `(node, input_nr)` per input of the forward op, or `None` when that input needs no gradient.
  `input_nr` says which input slot of that node the gradient goes to (a node with several forward outputs,
  like `unbind`, has several input slots in backward).
* `apply(grads)` takes the gradients of the forward op's outputs and returns one gradient per next edge.
* `_sequence_nr()` is a counter taken when the node is made; the engine runs the newest node first.
* `_input_metadata` holds shape, dtype and device of each forward output: the engine checks and fixes the
  gradients that arrive against it (and makes zeros for an output that got no gradient).
* Hooks: `register_prehook(fn)` runs before the node with its incoming gradients, `register_hook(fn)` after,
  with both. Tensor hooks (`Tensor.register_hook`) are kept per input slot in `_tensor_pre_hooks`. Each is
  kept wrapped in a checker of what it returns (python_hook.py).

Leaves get an `AccumulateGrad` node whose job is to add the gradient into `leaf.grad`; it has the largest
sequence number so it runs as soon as it is ready (PyTorch uses UINT64_MAX).
"""

import itertools

from . import anomaly_mode
from .python_hook import PostHook, PreHook

_next_sequence_nr = itertools.count()
UINT64_MAX = 2 ** 64 - 1


class RemovableHandle:
    """What `register_hook` returns: `handle.remove()` takes the hook away again."""

    _ids = itertools.count()

    def __init__(self, hooks):
        self.hooks = hooks
        self.id = next(RemovableHandle._ids)

    def remove(self):
        self.hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(hooks, fn):
    """Hooks are kept in a dict keyed by handle id, so removal is O(1) and order is registration order."""
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


class Node:
    """Base class of every backward node. Subclasses define `apply(grads) -> tuple of grads`."""

    # Class-level defaults; most nodes never get hooks, so the dicts are made only when one is registered.
    _pre_hooks = _post_hooks = _tensor_pre_hooks = _retains_grad_hooks = None
    _anomaly_trace = None
    _anomaly_parent = None

    def __init__(self, next_edges=(), sequence_nr=None):
        self.next_edges = next_edges if type(next_edges) is list else list(next_edges)
        # PyTorch's Node(sequence_nr, next_edges): the next number of the thread's counter, unless given
        self._seq = next(_next_sequence_nr) if sequence_nr is None else sequence_nr
        self._input_metadata = []
        if anomaly_mode._AnomalyMode.enabled:
            anomaly_mode.store_forward_trace(self)

    # ---- what Python sees (torch.autograd.graph.Node) -------------------------------------------------

    def name(self):
        # Nodes written by hand in PyTorch's C++ (AccumulateGrad, CopySlices, ...) report their C++ name.
        cls = type(self)
        if cls.__dict__.get("_cpp_node") or cls in _CPP_NODES:
            return f"torch::autograd::{cls.__dict__.get('_cpp_name', cls.__name__)}"
        return cls.__name__

    @property
    def next_functions(self):
        return tuple((None, 0) if e is None else e for e in self.next_edges)

    @property
    def metadata(self):
        if "_metadata" not in self.__dict__:
            self._metadata = {}
        return self._metadata

    def _sequence_nr(self):
        return self._seq

    def num_inputs(self):
        return len(self._input_metadata)

    def num_outputs(self):
        return len(self.next_edges)

    def should_compute_output(self, i):
        return self.next_edges[i] is not None

    def register_hook(self, fn):
        """`fn(grad_inputs, grad_outputs)` after the node runs; may return new grad_inputs (a tuple as long)."""
        if self._post_hooks is None:
            self._post_hooks = {}
        return add_hook(self._post_hooks, PostHook(fn))

    def register_prehook(self, fn):
        """`fn(grad_outputs)` before the node runs; may return new grad_outputs (a tuple as long)."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return add_hook(self._pre_hooks, PreHook(fn))

    def _register_tensor_pre_hook(self, input_nr, fn):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        return add_hook(self._tensor_pre_hooks.setdefault(input_nr, {}), fn)

    def _add_input_metadata(self, t):
        self._input_metadata.append((t._sizes, t.dtype, t._storage.device))
        return len(self._input_metadata) - 1

    # ---- running ------------------------------------------------------------------------------------

    def apply(self, grads):
        raise NotImplementedError

    def release_variables(self):
        """Free saved tensors after backward (unless retain_graph); see saved_variable.py."""

    def __call__(self, *grads):
        return self.apply(list(grads))

    def _saved_tensor_infos(self):
        """(name, SavedVariable) pairs of what this node saved, for the graph explorer."""
        from .saved_variable import SavedVariable

        out = []
        for k, v in self.__dict__.items():
            if isinstance(v, SavedVariable):
                out.append((k, v))
            elif isinstance(v, list) and v and isinstance(v[0], SavedVariable):
                out.extend((f"{k}[{i}]", s) for i, s in enumerate(v))
        return out

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"


_CPP_NODES = set()


class AccumulateGrad(Node):
    """The node of a leaf tensor that requires grad: it adds the incoming gradient into `leaf.grad`.

    `variable` is the leaf itself (a strong reference; the leaf holds this node only weakly, so the two
    never form a cycle). How PyTorch accumulates (functions/accumulate_grad.h):

    * no `.grad` yet: take the incoming gradient as it is when nothing else holds it and its strides match
      the leaf's (the "gradient layout contract"); otherwise copy it into a tensor with the leaf's strides;
    * `.grad` already there: add in place (`grad += new`), or out of place when building a graph for a
      higher-order gradient (`create_graph=True`), so the old `.grad` stays part of that graph.
    """

    def __init__(self, variable):
        super().__init__(sequence_nr=UINT64_MAX)
        self.variable = variable
        self._add_input_metadata(variable)

    @property
    def _tensor_pre_hooks(self):
        # A leaf's hooks live on the leaf itself (this node is only weakly cached and may be remade).
        hooks = self.variable.__dict__.get("_leaf_hooks")
        return {0: hooks} if hooks else None

    def apply(self, grads, owned=False):
        from . import accumulate
        accumulate.accumulate_grad(self.variable, grads[0], owned)
        return ()


class GraphRoot(Node):
    """Where backward starts when it starts from several tensors: hands each its initial gradient."""

    def __init__(self, edges, grads):
        super().__init__(edges, sequence_nr=UINT64_MAX)
        self.grads = grads

    def apply(self, grads):
        return list(self.grads)


class Error(Node):
    """Stands in for an op without a derivative formula; fails only if backward actually reaches it."""

    def __init__(self, message, next_edges):
        super().__init__(next_edges)
        self.message = message

    def apply(self, grads):
        raise RuntimeError(self.message)


class NotImplementedNode(Error):
    """The node of an op with no derivative formula (PyTorch's `NotImplemented`, from
    autogradNotImplementedFallback): recording succeeds, backward through it fails."""

    _cpp_name = "NotImplemented"


_CPP_NODES.update({AccumulateGrad, GraphRoot, Error, NotImplementedNode})
