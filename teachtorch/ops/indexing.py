"""`tensor[index]` and `tensor[index] = value`.

*Basic* indexing (ints, slices with positive steps, `None`, `...`) only moves through the tensor's geometry,
so it returns a **view**: each int is a `select`, each slice a `slice`, each `None` an `unsqueeze`. PyTorch
does the same in torch/csrc/autograd/python_variable_indexing.cpp (`applySlicing`); a dispatch trace of
`x[1:, 0]` shows `aten.slice.Tensor` then `aten.select.int`.

*Advanced* indexing (index tensors, lists, bool masks) gathers elements that no (offset, strides) can
describe, so it returns a **copy** (`aten.index.Tensor`); see `advanced_getitem` / `advanced_setitem`.

Assignment always writes in place, through views: `x[i] = v` is `x[i].copy_(v)` (or `fill_` for a number),
so the write goes through the one write path and bumps the shared version counter once.
"""

import warnings

import numpy as np

from .._strides import INT64_MAX
from .._tensor import Tensor
from .._tensor import typename as _type_name
from ..dispatch.schema import unpack_int64
from . import views

# Filled in by the advanced-indexing module: fn(self, index_tuple) and fn(self, index_tuple, value).
advanced_getitem = None
advanced_setitem = None


def _is_basic(i):
    """ints, slices, None and `...` select through views; a 0-dim integer tensor counts as an int."""
    if i is None or i is Ellipsis or isinstance(i, slice):
        return True
    if isinstance(i, (bool, list, tuple, np.ndarray)):
        return False
    if isinstance(i, Tensor):   # a 0-dim bool or uint8 tensor is a mask, not a number
        return i.dim() == 0 and not i.dtype.is_floating_point and i.dtype.name not in ("bool", "uint8")
    return hasattr(i, "__index__") and not isinstance(i, np.bool_)


def _as_tuple(index):
    if isinstance(index, tuple):
        return index
    if _treat_sequence_as_tuple(index):
        warnings.warn(
            "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch "
            "2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, "
            "x[torch.tensor(seq)], which will result either in an error or a different result", UserWarning,
            stacklevel=3)
        return tuple(index)
    return (index,)


def _treat_sequence_as_tuple(index):
    """PyTorch's legacy rule (python_variable_indexing.cpp, treatSequenceAsTuple): a short list holding a
    tensor, a sequence, a slice, `...` or None, like `x[[0, [1, 2]]]`, is read as the tuple `x[0, [1, 2]]`."""
    if not isinstance(index, list) or len(index) >= 32:
        return False
    return any(isinstance(i, (Tensor, list, tuple, np.ndarray, slice, str)) or i is None or i is Ellipsis
               for i in index)


def _consumed(i):
    """How many dims of the tensor an index element uses up."""
    if i is None or i is Ellipsis or isinstance(i, bool):
        return 0
    if isinstance(i, Tensor) and i.dtype.name in ("bool", "uint8"):
        return max(i.dim(), 1) if i.dim() else 0
    if isinstance(i, (Tensor, np.ndarray)) and getattr(i, "ndim", 1) == 0 and not isinstance(i, Tensor):
        return 1
    return 1


def is_full_slice(size, start, stop, step):
    """Does `start:stop:step` take a whole dim of `size`? PyTorch's applySlice then skips the slice op
    (so `x[:, 1]` is one `select`, and `t[:, idx] = v` writes into `t` itself). It looks at the numbers as
    written: `0:` and `:size` count, `-size:` does not."""
    return step == 1 and (start is None or start == 0) and (stop is None or stop >= size)


def basic_getitem(self, index, skip_full_slices=True, alias=True):
    """Apply ints, slices, None and Ellipsis as views, from the first dim on.

    `skip_full_slices=False` is for a lone `x[:]`, which PyTorch does run as a slice op."""
    specified = sum(_consumed(i) for i in index)
    if specified > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    result, dim = self, 0
    for position, i in enumerate(index):
        if i is None:
            result = views.unsqueeze(result, dim)
            dim += 1
        elif i is Ellipsis:
            dim += self.dim() - specified    # (PyTorch lets every `...` in an index skip this many dims)
        elif isinstance(i, slice):
            step = 1 if i.step is None else _as_int(i.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
            # Python clamps slice bounds to its ssize_t range (PySlice_Unpack): x[10**20:] is just empty
            start = None if i.start is None else _clamp(_as_int(i.start))
            stop = None if i.stop is None else _clamp(_as_int(i.stop))
            if not (skip_full_slices and is_full_slice(result._sizes[dim], start, stop, step)):
                result = views.slice_op(result, dim, start, stop, step)
            dim += 1
        else:
            i = unpack_int64(_as_int(i))
            if dim >= result.dim():   # only reachable with several `...`; select raises PyTorch's error
                result = views.select(result, dim, i)
                continue
            size = result._sizes[dim]
            if not -size <= i < size:
                # PyTorch names the position in the index tuple (`real_dim`), not the dim of the view
                raise IndexError(f"index {i} is out of bounds for dimension {position} with size {size}")
            result = views.select(result, dim, i)
    if result is self and alias:
        result = self._alias()     # x[...] and x[()] are views too, never the tensor itself
    return result


def _clamp(i):
    """A slice bound as PyTorch reads it: Python clamps it to int64 (PySlice_Unpack), and PyTorch, whose
    symbolic ints reserve the values below -2**62, truncates those to -2**62 with a warning."""
    if i < -2**62:
        warnings.warn("Truncating the start/stop/step of slice. This is likely because of saved old models when "
                      "the start/stop/step were larger.", UserWarning, stacklevel=4)
        return -2**62
    return min(i, INT64_MAX)


def _as_int(i):
    if isinstance(i, Tensor):
        return int(i.item())
    if not hasattr(i, "__index__"):
        raise TypeError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
            f"(got {type(i).__name__})")
    return i.__index__()


def getitem(self, index):
    lone_slice = isinstance(index, slice)
    index = _as_tuple(index)
    if not all(_is_basic(i) for i in index):
        if advanced_getitem is None:
            raise IndexError("advanced indexing is not available")
        return advanced_getitem(self, index)
    if self.dim() == 0 and any(isinstance(i, (int, slice)) for i in index):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                         "in C++ to convert a 0-dim tensor to a number")
    return basic_getitem(self, index, skip_full_slices=not lone_slice)


def _without_leading_ones(sizes):
    """PyTorch's slicePrefix1sSize: `sizes` without its leading 1s."""
    i = 0
    while i < len(sizes) and sizes[i] == 1:
        i += 1
    return tuple(sizes[i:])


def value_to_tensor(self, value):
    """PyTorch's `valueToTensor`: a tensor is assigned as it is; a Python number becomes a 0-dim tensor of
    self's dtype (refusing numbers that overflow it, `value cannot be converted to type uint8_t without
    overflow`); anything else (a list, an array) is refused: `x[0] = [1, 2]` is a TypeError in PyTorch."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float, np.integer)):
        if type(value) is int:
            unpack_int64(value)          # valueToTensor unpacks a Python int as an int64 (THPUtils_unpackLong)
        from .factories import fill_value
        from .tensor_new import tensor
        # scalarToTensor fills a one-element tensor, so float16 takes fill_'s unchecked fast path (1e6 is inf)
        number = fill_value(int(value) if isinstance(value, (bool, np.integer)) else value, self.dtype, 1)
        # a cuda target still gets a *cpu* 0-dim tensor (THPVariable_setitem), so copy_to fills with it
        device = "cpu" if self.device.type == "cuda" else self.device
        return tensor(number, dtype=self.dtype, device=device)
    device = "" if self.device.type == "cpu" else f"{self.device.type}."
    raise TypeError(f"can't assign a {_type_name(value)} to a torch.{device}{self.dtype._ptname}Tensor")


def setitem(self, index, value):
    value = value_to_tensor(self, value)
    if index is False:
        return          # PyTorch does nothing at all for `x[False] = v` (but `x[(False,)] = v` is index_put_)
    index = _as_tuple(index)
    if not all(_is_basic(i) for i in index):
        if advanced_setitem is None:
            raise IndexError("advanced indexing is not available")
        advanced_setitem(self, index, value)
        return
    # (`x[:] = v` and `x[...] = v` write into x itself, as PyTorch's copy_to does: no view in between)
    target = basic_getitem(self, index, alias=False)
    copy_to(target, value)


def copy_to(dst, src):
    """PyTorch's `copy_to` (python_variable_indexing.cpp): how `dst[...] = src` writes.

    Same shape: copy. A 0-dim value: fill. Otherwise view `src` without its leading size-1 dims
    (`slicePrefix1sSize`), expand it to `dst`'s shape, and copy: `x[0] = v[None]` works.
    """
    if dst._sizes == src._sizes:
        dst.copy_(src)
    elif src.dim() == 0 and src.device.type == "cpu":
        dst.fill_(src)
    else:
        view = views.tensor_view(src, _without_leading_ones(src._sizes))
        if view._sizes != dst._sizes:
            view = views.expand(view, dst._sizes)
        dst.copy_(view)


Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem


__all__ = []
