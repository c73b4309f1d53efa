"""Copies and fills: `copy_`, `clone`, `contiguous`, `fill_`, `zero_`.

`copy_` is the op behind every assignment (`x[0] = y` is `x.select(0, 0).copy_(y)`): it broadcasts `src` to
`self`'s shape, casts it to `self`'s dtype, and writes through the single write path (backends.write), so
the elements land in `self`'s storage whatever its strides. `clone` allocates with the input's layout
(PyTorch's `preserve_format`) and copies; `contiguous` returns the tensor itself when it already is.
"""

import numpy as np

from .._dispatch_key import CompositeImplicitAutograd
from .._strides import broadcast_shapes, channels_last_strides
from .._tensor import Tensor
from ..backends import ARRAY_MODULES, check_writable, empty, quietly, write
from ..kernels.pointwise import check_no_partial_overlap
from ..dispatch.dispatcher import impl
from ._define import bind_method, define, register_kernel
from .factories import fill_value
from ..backends import preserve_strides


def _host_or_same(src, device):
    """`src`'s array, moved to `device`'s memory when the two differ (a copy across devices)."""
    if src._storage.device == device:
        return src._data()
    host = src._host_array()
    return ARRAY_MODULES[device.type].asarray(host)


def copy_kernel(ks, self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
    shape = broadcast_shapes(self._sizes, src._sizes)
    if shape != self._sizes:
        # PyTorch's message names the target as `a` and the source as `b`
        raise RuntimeError(
            f"output with shape {list(self._sizes)} doesn't match the broadcast shape {list(shape)}")
    if self._storage._data is None or src._storage._data is None:
        return self
    if (src._storage is self._storage and src._offset == self._offset and src._sizes == self._sizes
            and src._strides == self._strides and src.dtype is self.dtype):
        return self          # copying a tensor onto itself: PyTorch returns before any check
    check_no_partial_overlap(self, [src])
    # a cast out of range (1e6 into float16, nan into int64) is silent in PyTorch: no NumPy RuntimeWarning
    quietly(write, self, _host_or_same(src, self.device))
    return self


copy_kernel.device_check = False     # copy_ is how data moves between devices
copy_op = define("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)")
register_kernel(copy_op, copy_kernel)


def fill_kernel(ks, self, value):
    # A number goes through c10's checked conversion: `uint8_tensor.fill_(300)` is an overflow error
    write(self, fill_value(value, self.dtype, self.numel()), check_overlap=False)
    return self


fill_op = define("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)")
register_kernel(fill_op, fill_kernel)
# A 0-dim tensor value has its own overload, so that autograd can send the value its gradient.
fill_tensor_op = define("fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)")


def fill_tensor_kernel(ks, self, value):
    check_writable(self)     # unlike fill_.Scalar, PyTorch's fill_.Tensor refuses an overlapping target
    if value.dim() != 0:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions.")
    # A tensor value is cast like `copy_`, unchecked: a uint8 target wraps 300 to 44, a float16 one rounds 1e6
    # to inf, silently as in PyTorch
    number = quietly(np.asarray(value.item()).astype, self.dtype.numpy)[()]
    write(self, number, check_overlap=False)
    return self


fill_tensor_kernel.device_check = False   # a 0-dim cpu value may fill a cuda tensor, as in PyTorch
register_kernel(fill_tensor_op, fill_tensor_kernel)
zero_op = define("zero_(Tensor(a!) self) -> Tensor(a!)")
register_kernel(zero_op, lambda ks, self: fill_kernel(ks, self, 0))


def clone_kernel(ks, self, memory_format=None):
    if memory_format in (None, "preserve_format"):
        strides = preserve_strides(self)
    elif memory_format == "channels_last":
        if len(self._sizes) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        strides = channels_last_strides(self._sizes)      # NHWC in memory, the dims still in NCHW order
    else:
        strides = None                                     # contiguous: a plain empty(sizes), as in PyTorch
    out = empty(self._sizes, self.dtype, self.device, strides)
    if self._storage._data is not None:
        ARRAY_MODULES[self.device.type].copyto(out._data(), self._data())
    return out


clone_op = define("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor")
register_kernel(clone_op, clone_kernel)


def _contiguous(self, memory_format="contiguous_format"):
    memory_format = _format_name(memory_format)
    if memory_format == "channels_last" and len(self._sizes) != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    if self.is_contiguous(memory_format=memory_format):
        return self          # PyTorch returns the very same tensor object
    return clone_op(self, memory_format=memory_format)


contiguous_op = define("contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)")
impl(contiguous_op, CompositeImplicitAutograd, lambda ks, self, memory_format: _contiguous(self, memory_format))


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


bind_method("copy_", copy_)
bind_method("fill_", fill_)
bind_method("zero_", zero_)
bind_method("fill_diagonal_", fill_diagonal_)
bind_method("clone", clone)
bind_method("contiguous", lambda self, memory_format="contiguous_format": contiguous_op(self, memory_format=memory_format))


__all__ = ['clone']
