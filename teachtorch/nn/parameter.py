"""Parameter: a tensor that a Module registers as one of its parameters.

A Parameter is an ordinary tensor with one extra meaning: when it is assigned as an attribute of a Module
(`self.weight = Parameter(...)`), the Module records it in its `_parameters` dict, so `parameters()` finds it,
`state_dict()` saves it and an optimizer updates it. A plain tensor assigned the same way is just an
attribute (a cache, a constant), which is why the two types must differ.

PyTorch does the same in torch/nn/parameter.py: `Parameter` subclasses `torch.Tensor` and its `__new__`
calls `Tensor._make_subclass(cls, data, requires_grad)`, which makes a new tensor object of class Parameter
over the *same* storage as `data` (no copy), detached from any graph, and requiring grad by default.
Ops on a Parameter return plain Tensors (PyTorch disables `__torch_function__` for it); here every op builds
its result with `Tensor._make`, so the same holds without extra code.

`Buffer` (torch.nn.Buffer) marks a tensor to be registered as a buffer when assigned to a Module attribute;
`persistent=False` keeps it out of the state_dict.
"""

from .._tensor import Tensor
from ..ops import empty

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    """`Parameter(data=None, requires_grad=True)`: `data`'s storage, seen as a leaf that a Module owns."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        # A new tensor object over the same storage, offset, sizes and strides: `Tensor._make_subclass`.
        # It shares the version counter (as `detach()` does), and it has no history: it is a leaf.
        param = cls._make(data._storage, data._offset, data._sizes, data._strides, data.dtype)
        param._vc = data._vc
        param.requires_grad_(requires_grad)
        return param

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        # pickled as "Parameter(<the tensor's values>, requires_grad)"; the tensor pickles by value
        return (Parameter, (self.detach(), self.requires_grad))


class Buffer(Tensor):
    """`Buffer(data=None, *, persistent=True)`: assigned to a Module attribute, it becomes a buffer.

    As in PyTorch, constructing one gives a detached tensor flagged as a buffer; the Module stores the
    tensor and reads `persistent` from it."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        buffer = cls._make(data._storage, data._offset, data._sizes, data._strides, data.dtype)
        buffer._vc = data._vc
        if data.requires_grad:
            buffer.requires_grad_(True)
        buffer.persistent = persistent
        return buffer
