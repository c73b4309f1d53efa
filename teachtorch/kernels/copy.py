"""The kernels of copies and fills: `copy_`, `fill_`, `zero_`, `clone`, `_to_copy` (aten/src/ATen/native/Copy.cpp,
Fill.cpp, TensorConversions.cpp).

ops/copy.py and ops/conversions.py define the ops and the public functions; the kernels registered for CPU,
CUDA and Meta are here.
`copy_` broadcasts `src` to `self`'s shape, casts it to `self`'s dtype, and writes through the single write
path (backends.write), so the elements land in `self`'s storage whatever its strides.
"""

import numpy as np

from .._device import as_device
from .._strides import broadcast_shapes, channels_last_strides
from .._tensor import Tensor
from ..backends import ARRAY_MODULES, check_writable, empty, preserve_strides, quietly, write
from .factories import fill_value, strides_for
from .pointwise import check_no_partial_overlap


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


def fill_kernel(ks, self, value):
    # A number goes through c10's checked conversion: `uint8_tensor.fill_(300)` is an overflow error
    write(self, fill_value(value, self.dtype, self.numel()), check_overlap=False)
    return self


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


def zero_kernel(ks, self):
    return fill_kernel(ks, self, 0)


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


def copy_to(src, dtype, device, strides):
    """A new tensor with `src`'s elements, cast to `dtype`, on `device`, with the given strides."""
    if src._storage._data is None and as_device(device).type != "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    out = empty(src._sizes, dtype, device, strides)
    if out._storage._data is not None:
        host = src._data() if src.device == out.device else src._host_array()
        # a C cast: out of range gives inf (or wraps) silently in PyTorch, so NumPy's cast warnings are off
        quietly(write, out, ARRAY_MODULES[out.device.type].asarray(host))
    return out


def to_copy_kernel(ks, self, dtype, layout, device, pin_memory, non_blocking, memory_format):
    """`_to_copy`, the op behind every converting `to`: a copy with the input's layout (preserve_format)."""
    dtype = dtype or self.dtype
    device = self.device if device is None else as_device(device)
    return copy_to(self, dtype, device, strides_for(self, memory_format))
