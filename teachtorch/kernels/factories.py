"""The kernels of the factory ops: tensors made from nothing (`zeros`, `full`, `empty_strided`, `*_like`).

ops/factories.py defines the ops (schemas, the BackendSelect kernel that reads `device=`) and the public
functions with their argument checks; the kernels registered for CPU, CUDA and Meta are here, one `def` per
op, as in aten/src/ATen/native/TensorFactories.cpp. The ranges (`arange`, `linspace`, ...) are in
range_factories.py.

A factory kernel is `kernel(ks, *args, dtype, device)`: it allocates with `backends.empty` (which checks the
sizes) and fills through `backends.write`, like PyTorch's `empty(size)` followed by `fill_`. Its `.out`
overload, `kernel(ks, *args, out)`, runs the functional kernel with out's dtype and device and writes the
result into `out` with `write_out` (`factory_out`).
"""

import numpy as np

from .. import _dtype
from .._device import as_device
from .._dtype import checked_convert
from .._strides import channels_last_strides, check_numel
from .._tensor import Tensor
from ..backends import preserve_strides, quietly, write
from ..backends import empty as _empty_tensor
from .pointwise import write_out


def is_index(x):
    """Can `x` be one size in a shape? Python ints (not bools), NumPy integers, 0-d integer tensors."""
    if isinstance(x, bool):
        return False
    if isinstance(x, (int, np.integer)):
        return True
    return isinstance(x, Tensor) and x.dim() == 0 and not x.dtype.is_floating_point


# ---- filling a fresh tensor ---------------------------------------------------------------------------------


def as_number(value):
    if isinstance(value, (Tensor, np.generic)):
        return value.item()
    return value


def fill_value(value, dtype, numel):
    """The value `fill_` writes: checked against the dtype's range, except that PyTorch's one-element fast path
    (`scalar_fill`) converts to Half without the check (so `full((1,), 1e5, dtype=float16)` is inf, while
    `full((2,), 1e5, dtype=float16)` is an error)."""
    if dtype is _dtype.float16 and numel == 1:
        return float(quietly(np.float16, as_number(value)))   # inf, without NumPy's overflow warning
    return checked_convert(value, dtype)


def fill_fresh(t, value):
    """Fill a fresh tensor (no-op on meta: it has no bytes)."""
    if t._storage._data is not None:
        write(t, value)
    return t


def filled(size, value, dtype, device):
    """`empty(size)`, which checks the size, then `fill_(value)`: what zeros, ones and full compute."""
    dtype = dtype or _dtype.get_default_dtype()
    t = _empty_tensor(size, dtype, device)
    v = fill_value(value, dtype, t.numel())
    return t if v == 0 else fill_fresh(t, v)   # fresh storage is already zeroed


def factory_out(kernel, ks, args, out):
    """The `.out` overload of a factory: `kernel(ks, *args, dtype, device)` runs with out's dtype and device,
    then the result goes into `out` through write_out (checks, resize, the one write path)."""
    if args and isinstance(args[0], (tuple, list)) and all(n >= 0 for n in args[0]):
        check_numel(args[0])     # PyTorch resizes `out` first: its element count must fit in an int64
    result = kernel(ks, *args, out.dtype, out.device)
    data = None if result._storage._data is None else result._data()
    return write_out(out, data, result.dtype, result._sizes)


# ---- empty, zeros, ones, full, empty_strided ------------------------------------------------------------------


def empty_kernel(ks, size, dtype, device, memory_format=None):
    t = _empty_tensor(size, dtype or _dtype.get_default_dtype(), device)
    if memory_format == "channels_last":
        # PyTorch allocates contiguous bytes, then restrides the tensor over them (`empty_tensor_restride`)
        t = Tensor._make(t._storage, 0, t._sizes, channels_last_strides(t._sizes), t.dtype)
    return t


def zeros_kernel(ks, size, dtype, device):
    return filled(size, 0, dtype, device)


def ones_kernel(ks, size, dtype, device):
    return filled(size, 1, dtype, device)


def full_kernel(ks, size, fill_value, dtype, device):
    return filled(size, fill_value, dtype, device)


def scalar_tensor_kernel(ks, s, dtype, device):
    """A 0-d tensor holding the number `s`."""
    return filled((), s, dtype, device)


def empty_out_kernel(ks, size, out):
    return factory_out(empty_kernel, ks, (size,), out)


def zeros_out_kernel(ks, size, out):
    return factory_out(zeros_kernel, ks, (size,), out)


def ones_out_kernel(ks, size, out):
    return factory_out(ones_kernel, ks, (size,), out)


def full_out_kernel(ks, size, fill_value, out):
    return factory_out(full_kernel, ks, (size, fill_value), out)


def empty_strided_kernel(ks, size, stride, dtype, device):
    return _empty_tensor(size, dtype or _dtype.get_default_dtype(), device, stride)   # checks sizes and strides


# ---- new_*: the factories above, with the dtype and device they are not given taken from `self` ---------------


def new_empty_kernel(ks, self, size, dtype, device):
    return empty_kernel(ks, size, dtype or self.dtype, device or self.device)


def new_empty_strided_kernel(ks, self, size, stride, dtype, device):
    return empty_strided_kernel(ks, size, stride, dtype or self.dtype, device or self.device)


def new_zeros_kernel(ks, self, size, dtype, device):
    return filled(size, 0, dtype or self.dtype, device or self.device)


def new_ones_kernel(ks, self, size, dtype, device):
    return filled(size, 1, dtype or self.dtype, device or self.device)


def new_full_kernel(ks, self, size, fill_value, dtype, device):
    return filled(size, fill_value, dtype or self.dtype, device or self.device)


# ---- *_like -----------------------------------------------------------------------------------------------------


def strides_for(t, memory_format):
    """The strides of a new tensor shaped like `t` in `memory_format` (None means preserve_format), for
    `backends.empty`: None for contiguous, which PyTorch allocates with a plain `empty(sizes)`."""
    memory_format = None if memory_format is None else str(memory_format)
    if memory_format in (None, "preserve_format"):
        return preserve_strides(t)
    if memory_format == "channels_last":
        return channels_last_strides(t._sizes)
    return None   # contiguous: PyTorch's plain `empty(sizes)`


def empty_like(self, dtype, device, memory_format):
    """`empty_like`: self's shape and (unless `memory_format` says otherwise) its layout, `dtype`/`device` or
    self's."""
    device = as_device(device) if device is not None else self.device
    return _empty_tensor(self._sizes, dtype or self.dtype, device, strides_for(self, memory_format))


def filled_like(self, value, dtype, device, memory_format):
    """`empty_like(self)`, then `fill_(value)`."""
    t = empty_like(self, dtype, device, memory_format)
    v = fill_value(value, t.dtype, t.numel())
    return t if v == 0 else fill_fresh(t, v)


def empty_like_kernel(ks, self, dtype, device, memory_format):
    return empty_like(self, dtype, device, memory_format)


def zeros_like_kernel(ks, self, dtype, device, memory_format):
    return filled_like(self, 0, dtype, device, memory_format)


def ones_like_kernel(ks, self, dtype, device, memory_format):
    return filled_like(self, 1, dtype, device, memory_format)


def full_like_kernel(ks, self, fill_value, dtype, device, memory_format):
    return filled_like(self, fill_value, dtype, device, memory_format)
