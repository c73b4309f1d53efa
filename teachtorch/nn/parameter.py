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


class _BufferMeta(type):
    """`isinstance(t, Buffer)` asks the tensor's flag: a Buffer is a plain Tensor marked `_is_buffer`."""

    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and bool(instance.__dict__.get("_is_buffer"))
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """`Buffer(data=None, *, persistent=True)`: assigned to a Module attribute, it becomes a buffer.

    As in PyTorch (torch/nn/parameter.py), constructing one gives back a plain *Tensor*: `data` detached
    (it keeps `requires_grad`), with two attributes, `persistent` and `_is_buffer`. The Module's
    `__setattr__` recognises it by that flag (`isinstance(value, Buffer)` reads it) and stores the tensor
    as it is, so `module.name` reads back a `Tensor`, never a Buffer; the results of ops on it are
    ordinary tensors without the flag."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
