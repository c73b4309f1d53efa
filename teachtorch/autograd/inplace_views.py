"""In-place view ops: `x.squeeze_()`, `x.unsqueeze_(d)`, `x.t_()`, `x.transpose_(a, b)`, `x.swapdims_(a, b)`,
`x.swapaxes_(a, b)`, `x.as_strided_(size, stride)`.

They change the tensor's *metadata* (sizes, strides, offset) and leave its elements alone: `x.t_()` makes `x`
itself the transpose, still over the same storage. PyTorch (`inplace_view` ops in native_functions.yaml,
`TensorImpl::set_sizes_and_strides`) treats them as in-place ops for autograd and for the version counter:

* the same checks as any in-place op: a leaf that requires grad, or a view of one, is refused;
* the shared version counter goes up by one (a tensor saved for backward notices);
* `x` gets the view op's grad_fn (`x.squeeze_()` gives `SqueezeBackward..`, fed by x's old grad_fn); unlike a
  write through a view, the base's history is untouched, since no element changed.

Each one is built from its out-of-place view: compute the view, then move its geometry and grad_fn onto `x`.
(They live in autograd/ because what makes them more than a view is autograd's bookkeeping.)
"""

from .._tensor import Tensor
from ..ops._define import bind_method, public_name
from .variable import check_inplace, requires_grad


# derivatives.yaml lists the in-place overloads separately, so their nodes carry their own numbers
_INPLACE_NODE_NAME = {"SqueezeBackward0": "SqueezeBackward3", "SqueezeBackward1": "SqueezeBackward4",
                      "SqueezeBackward2": "SqueezeBackward5", "UnsqueezeBackward0": "UnsqueezeBackward1",
                      "TBackward0": "TBackward1", "TransposeBackward0": "TransposeBackward1",
                      "AsStridedBackward0": "AsStridedBackward1"}
_renamed = {}


def _inplace_node(node):
    """The view op's node, renamed as PyTorch names the in-place overload's node (same backward formula)."""
    cls = type(node)
    name = _INPLACE_NODE_NAME.get(cls.__name__)
    if name is not None:
        if cls not in _renamed:
            _renamed[cls] = type(name, (cls,), {"__module__": cls.__module__})
        node.__class__ = _renamed[cls]
    return node


def _become(self, view):
    """Make `self` the tensor `view` describes: its geometry, and its place in the autograd graph."""
    self._set_metadata(self._storage, view._offset, view._sizes, view._strides)
    self._vc.value += 1                   # an in-place op: the shared version counter moves on
    if view._grad_fn is not None:
        self._grad_fn = _inplace_node(view._grad_fn)
        self._requires_grad = True
        if self._base is not None:
            self._attr_version = self._vc.value   # the new grad_fn is right as of this version
    return self


def _inplace_view(out_of_place, name):
    def inplace(self, *args, **kwargs):
        check_inplace(self, requires_grad(self))
        return _become(self, out_of_place(self, *args, **kwargs))
    return public_name(inplace, name)


def _t(self):
    if self.dim() > 2:     # the message names the in-place op
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return self.t()


for _name, _fn in {
    "squeeze_": Tensor.squeeze, "unsqueeze_": Tensor.unsqueeze, "t_": _t, "transpose_": Tensor.transpose,
    "swapdims_": Tensor.swapdims, "swapaxes_": Tensor.swapaxes, "as_strided_": Tensor.as_strided,
}.items():
    bind_method(_name, _inplace_view(_fn, _name))

__all__ = []
