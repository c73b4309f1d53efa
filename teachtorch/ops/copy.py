"""Copies and fills: `copy_`, `clone`, `contiguous`, `fill_`, `zero_`.

`copy_` is the op behind every assignment (`x[0] = y` is `x.select(0, 0).copy_(y)`): it broadcasts `src` to
`self`'s shape, casts it to `self`'s dtype, and writes through the single write path (backends.write), so
the elements land in `self`'s storage whatever its strides. `clone` allocates with the input's layout
(PyTorch's `preserve_format`) and copies; `contiguous` returns the tensor itself when it already is.

This file defines the ops and the public functions; their kernels are in kernels/copy.py.
"""

from .._dispatch_key import CompositeImplicitAutograd
from .._tensor import Tensor
from ..dispatch.dispatcher import impl, without_keyset
from ..kernels import copy as K
from ._define import bind_method, define, register_kernel

copy_op = define("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)")
register_kernel(copy_op, K.copy_kernel)
fill_op = define("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)")
register_kernel(fill_op, K.fill_kernel)
# A 0-dim tensor value has its own overload, so that autograd can send the value its gradient.
fill_tensor_op = define("fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)")
register_kernel(fill_tensor_op, K.fill_tensor_kernel)
zero_op = define("zero_(Tensor(a!) self) -> Tensor(a!)")
register_kernel(zero_op, K.zero_kernel)
clone_op = define("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor")
register_kernel(clone_op, K.clone_kernel)


def _contiguous(self, memory_format="contiguous_format"):
    memory_format = _format_name(memory_format)
    if memory_format == "channels_last" and len(self._sizes) != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    if self.is_contiguous(memory_format=memory_format):
        return self          # PyTorch returns the very same tensor object
    return clone_op(self, memory_format=memory_format)


contiguous_op = define("contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)")
impl(contiguous_op, CompositeImplicitAutograd, without_keyset(_contiguous))


def clone(input, *, memory_format=None):
    return clone_op(input, memory_format=_format_name(memory_format))


def _format_name(memory_format):
    return memory_format if memory_format is None or isinstance(memory_format, str) else str(memory_format)


def copy_(self, src, non_blocking=False):
    return copy_op(self, src, non_blocking)


def fill_(self, value):
    return fill_tensor_op(self, value) if isinstance(value, Tensor) else fill_op(self, value)


def zero_(self):
    return zero_op(self)


def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal, a strided *view* of the tensor: one step along every dim at once is a stride of
    sum(strides). PyTorch's fill_diagonal_ (aten/src/ATen/native/Fill.cpp) is this composite too: as_strided,
    then fill_, so autograd sees a view written in place (CopySlices). With `wrap`, a tall matrix's diagonal
    starts again below the square part, every `width + 1` rows."""
    n = self.dim()
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = self.shape[0], self.shape[1]
    if n > 2 and any(size != height for size in self.shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    step = sum(self.stride())
    size = min(height, width)
    self.as_strided((size,), (step,), self.storage_offset()).fill_(fill_value)
    if wrap and n == 2 and height > width + 1:
        wrap_size = (self.numel() + width) // (width + 1) - size
        offset = self.storage_offset() + self.stride(0) * (width + 1)
        self.as_strided((wrap_size,), (step,), offset).fill_(fill_value)
    return self


def contiguous(self, memory_format="contiguous_format"):
    """`self` if already laid out so, else a copy that is (Tensor.contiguous)."""
    return contiguous_op(self, memory_format=memory_format)


bind_method("copy_", copy_)
bind_method("fill_", fill_)
bind_method("zero_", zero_)
bind_method("fill_diagonal_", fill_diagonal_)
bind_method("clone", clone)
bind_method("contiguous", contiguous)


__all__ = ['clone']
