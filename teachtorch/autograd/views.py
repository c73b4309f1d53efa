"""Views and in-place ops together: CopySlices, and rebuilding a stale view's grad_fn.

A view shares memory with its base, so an in-place write through the view changes the base too, and the
base's gradient must account for it. PyTorch (torch/csrc/autograd/functions/tensor.h and variable.cpp)
handles both directions:

    base = leaf.clone()          base.grad_fn = CloneBackward0
    v = base[0]                  v.grad_fn = SelectBackward0 -> CloneBackward0
    v.mul_(2)                    base.grad_fn = CopySlices(fn=MulBackward0) -> CloneBackward0
                                 v.grad_fn (rebuilt when read) = AsStridedBackward0 -> CopySlices

* **The base's history is rewritten** (Note [View + Inplace update for base tensor]). The base now comes
  out of a `CopySlices` node. In backward it takes the base's gradient, runs the in-place op's backward
  (`fn`) on the view's part of it, writes the result back into that part, and passes the rest through.
* **A stale view rebuilds its grad_fn** (Note [View + Inplace update for view tensor]). Every view
  remembers the version of the shared counter when its grad_fn was last right (`_attr_version`). When the
  version has moved on (the base or another view was written), reading `view.grad_fn` makes a fresh
  `AsStridedBackward0` that takes the view's elements out of the base's *current* history.
"""

from .node import Node
from .variable import gradient_edge, handle_view_on_rebase, move_retains_grad


def geometry(t):
    """PyTorch's TensorGeometry: just the shape, strides and offset (no data)."""
    return (tuple(t._sizes), tuple(t._strides), t._offset)


class CopySlices(Node):
    """The base's new grad_fn after an in-place op on one of its views."""

    _cpp_node = True

    def __init__(self, base, view, fn):
        # Take fn's next edges as our own, except edge 0: that goes to the base's history, not the view's.
        super().__init__([gradient_edge(base)] + list(fn.next_edges[1:]))
        self.base = geometry(base)
        self.view = geometry(view)
        self.fn = fn
        self._add_input_metadata(base)

    def apply(self, grads):
        grad = grads[0]
        if grad is None:                       # no gradient arrived: none goes on (as in PyTorch)
            return [None] * len(self.next_edges)
        base_sizes, base_strides, base_offset = self.base
        sizes, strides, offset = self.view
        # The gradient of the whole base, laid out like the base so the view's geometry finds its part.
        result = grad.new_empty_strided(base_sizes, base_strides)
        result.copy_(grad)
        grad_slice = result.as_strided(sizes, strides, offset - base_offset)
        res = self.fn.apply([grad_slice.clone()])
        out = [None] * len(self.next_edges)
        for i, r in enumerate(res):
            if not self.should_compute_output(i):
                continue
            if i == 0:
                if r is None:
                    grad_slice.zero_()
                else:
                    grad_slice.copy_(r)
                out[0] = result
            else:
                out[i] = r
        return out

    def release_variables(self):
        self.fn.release_variables()

    def _saved_tensor_infos(self):
        return self.fn._saved_tensor_infos()


def view_grad_fn(view):
    """`Tensor.grad_fn` of a view: its own node, or a rebuilt AsStridedBackward0 if it went stale."""
    base = view._base
    fn = view._grad_fn
    if fn is None and not base._requires_grad:
        return None
    if view._attr_version != view._vc.value:
        handle_view_on_rebase(view, indirect=True)
        from .derivative import FORMULAS
        node = FORMULAS["as_strided"].make_node(
            next_edges=[gradient_edge(base)],
            saved={"self_geometry": geometry(base), "size": tuple(view._sizes), "stride": tuple(view._strides),
                   "storage_offset": view._offset})
        node._add_input_metadata(view)
        view._grad_fn = node
        view.__dict__.pop("_output_nr", None)
        view._attr_version = view._vc.value
        view._requires_grad = True
        if fn is not None:
            move_retains_grad(view, fn, node)
    return view._grad_fn
