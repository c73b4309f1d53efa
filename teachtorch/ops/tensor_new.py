"""Tensors from data: `tensor`, `as_tensor`, `from_numpy`.

`torch.tensor(data)` is not an op at all but Python-binding code (torch/csrc/utils/tensor_new.cpp), which
teachtorch follows step by step: `compute_sizes` walks down the first elements, `infer_scalar_type` looks at
every element (bools give `bool`, ints `int64`, floats the default dtype; a NumPy array keeps its dtype), and
`recursive_store` checks every list's length while it copies the numbers in. `from_numpy` makes no copy: the
tensor's storage is the array's memory.
"""

import operator
import warnings

import numpy as np

from .. import _dtype
from .._dtype import checked_convert
from .._storage import UntypedStorage
from .._tensor import Tensor
from ..backends import ARRAY_MODULES, preserve_strides, wrap
from ..backends import empty as _empty_tensor
from ..backends.differences import is_device_array
from ..dispatch.schema import unpack_int64
from ..kernels.copy import copy_to
from .factories import (  # the argument checks and helpers every factory shares
    _check_dtype, _finish, _type_name, check_device, check_requires_grad,
)


# ---- tensors from data (torch/csrc/utils/tensor_new.cpp) ----------------------------------------------------


def _is_sequence(obj):
    """What PyTorch treats as a nested sequence (CPython's PySequence_Check, minus strings and tensors)."""
    return isinstance(obj, (list, tuple, range, np.ndarray))


_MAX_DIMS = 64


def _compute_sizes(data):
    """The shape, read down the *first* element of each level (`compute_sizes`)."""
    sizes = []
    while _is_sequence(data) or isinstance(data, str):   # a string is a sequence too (of strings, forever)
        n = len(data)     # a 0-d NumPy array raises "len() of unsized object" here, as in PyTorch
        sizes.append(n)
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{_type_name(data)}'")
        if n == 0:
            break
        data = data[0]
    return tuple(sizes)


def _infer_scalar_type(obj):
    """The dtype of `torch.tensor(obj)` (`infer_scalar_type`): each element's type, promoted together."""
    if isinstance(obj, (np.ndarray, np.generic)):
        return _dtype.from_numpy_dtype(obj.dtype)   # NumPy values keep their dtype (np.float32 -> float32)
    if isinstance(obj, bool):
        return _dtype.bool_
    if isinstance(obj, float):
        return _dtype.get_default_dtype()
    if isinstance(obj, int):
        return _dtype.int64
    if isinstance(obj, Tensor):
        return obj.dtype
    if isinstance(obj, str):
        raise TypeError(f"new(): invalid data type '{_type_name(obj)}'")
    if _is_sequence(obj):
        if len(obj) == 0:
            return _dtype.get_default_dtype()   # like NumPy, but the default dtype instead of double
        kinds = set(map(type, obj))
        if kinds <= {float, int, bool}:   # plain Python numbers (the usual case): promote their kinds at once
            return (_dtype.get_default_dtype() if float in kinds else _dtype.int64 if int in kinds
                    else _dtype.bool_)
        result = None
        for item in obj:
            d = _infer_scalar_type(item)
            result = d if result is None else _dtype.promote_types(result, d)
        return result
    raise RuntimeError(f"Could not infer dtype of {_type_name(obj)}")


_warned_ndarray_list = [False]


def _recursive_store(obj, sizes, dim, out, pos, dtype):
    """Write the leaves of `obj` into the flat array `out` from `pos` on, in row-major order (`recursive_store`).

    Each list's length is checked before its items are read, and each innermost list is converted and written
    as soon as it is reached, so the first problem in element order is the one reported, as in PyTorch (which
    writes each number into the tensor as it walks). Only one row is ever held as a temporary: a 10^4 x 10^4
    list of floats costs the result's 400 MB, not a list of 10^8 Python objects plus float64 copies.
    Returns the position after the last leaf written.
    """
    if not _is_sequence(obj):
        raise TypeError("not a sequence")
    n = sizes[dim]
    if len(obj) != n:
        raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(obj)})")
    if dim == len(sizes) - 1:   # an innermost list: its items are the leaves
        out[pos:pos + n] = _convert_leaves(obj, dtype)
        return pos + n
    for item in obj:
        if isinstance(item, np.ndarray) and not _warned_ndarray_list[0]:
            _warned_ndarray_list[0] = True
            warnings.warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
                          "converting the list to a single numpy.ndarray with numpy.array() before converting to "
                          "a tensor.", UserWarning, stacklevel=4)
        pos = _recursive_store(item, sizes, dim + 1, out, pos, dtype)
    return pos


def _unpack_double(obj):
    """PyFloat_AsDouble: floats, and anything with __float__ or __index__."""
    if isinstance(obj, float):
        return obj
    if hasattr(type(obj), "__float__"):
        return float(obj)
    if hasattr(type(obj), "__index__"):
        return float(operator.index(obj))
    raise TypeError(f"must be real number, not {_type_name(obj)}")


def _unpack_long(obj):
    # "'list' object cannot be interpreted as an integer", as in PyTorch
    return unpack_int64(operator.index(obj))


def _store_scalar(obj, dtype):
    """One element converted as `store_scalar` converts it: doubles for floats, checked ints, truthy bools."""
    if isinstance(obj, np.bool_):
        obj = bool(obj)
    if dtype.is_floating_point:
        return _unpack_double(obj)
    if dtype is _dtype.bool_:
        if isinstance(obj, float):
            return bool(obj)
        return bool(operator.index(obj))
    # integers: Python floats are accepted (truncated) when they fit; the type name is the short one
    v = _unpack_double(obj) if isinstance(obj, float) else _unpack_long(obj)
    return checked_convert(v, dtype, name=dtype.name)


def _fast_numbers(flat, dtype):
    """Plain Python numbers converted by NumPy in one go, with `store_scalar`'s range check; None when they need
    the element-by-element path (other objects, floats into an integer dtype, ints too big for int64)."""
    kinds = set(map(type, flat))
    if not kinds <= {float, int, bool} or float in kinds and not dtype.is_floating_point:
        return None
    try:
        values = np.array(flat, dtype=np.float64 if dtype.is_floating_point else np.int64)
    except OverflowError:
        return None
    if dtype.is_floating_point:
        return values
    if dtype is _dtype.bool_:
        return values != 0
    info = np.iinfo(dtype.numpy)
    # a negative int may wrap around into an unsigned type, down to -max (see `overflows`)
    too_small = values < (-int(info.max) if info.min == 0 else int(info.min))
    if (too_small | (values > info.max)).any():
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    return values


def _convert_leaves(leaves, dtype):
    """A row of leaves converted as `store_scalar` converts each one: float64 values for a floating dtype,
    int64 for the others (written into the result with a cast, as C does)."""
    values = _fast_numbers(leaves, dtype)
    if values is None:
        values = [_store_scalar(x, dtype) for x in leaves]
        values = np.array(values, dtype=np.float64 if dtype.is_floating_point else np.int64)
    return values


def _array_from_sequence(data, dtype):
    """A NumPy array of `dtype` holding the nested sequence `data` (scalars included), PyTorch's checks kept.

    As in PyTorch, the shape and dtype come first (one walk over the data), then the result is allocated once
    and filled in place, row by row.
    """
    sizes = _compute_sizes(data)
    inferred = _infer_scalar_type(data)
    dtype = dtype or inferred
    if 0 in sizes:
        return np.zeros(sizes, dtype=dtype.numpy), dtype
    out = np.empty(sizes, dtype=dtype.numpy)
    flat = out.reshape(-1)   # a view: writing into it fills `out`
    with np.errstate(over="ignore"):   # a float too big for float32 becomes inf, as in C
        if sizes:
            _recursive_store(data, sizes, 0, flat, 0, dtype)
        else:   # a lone number
            flat[:] = _convert_leaves([data], dtype)
    return out, dtype


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data` (nested lists of numbers, a NumPy array, a tensor)."""
    _check_dtype(dtype, "tensor")
    check_requires_grad(requires_grad, "tensor", optional=False)
    device = check_device(device)
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{_type_name(data)}'")
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                      "or sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
        t = copy_to(data, dtype or data.dtype, device, preserve_strides(data))
    elif isinstance(data, np.ndarray):
        # the array is seen as a tensor (from_numpy), then copied keeping its layout, like `.to(copy=True)`
        src = from_numpy(data)
        t = copy_to(src, dtype or src.dtype, device, preserve_strides(src))
    else:
        array, dtype = _array_from_sequence(data, dtype)
        if device.type == "meta":
            t = _empty_tensor(array.shape, dtype, device)
        else:
            t = wrap(ARRAY_MODULES[device.type].asarray(array), dtype, device)   # a fresh array: no copy
    return _finish(t, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like `tensor`, but no copy when `data` already is a tensor or NumPy array of that dtype and device."""
    _check_dtype(dtype, "as_tensor")
    device = None if device is None else check_device(device)
    if isinstance(data, Tensor):
        if (dtype is None or dtype is data.dtype) and (device is None or device == data.device):
            return data
        return copy_to(data, dtype or data.dtype, device or data.device, preserve_strides(data))
    if isinstance(data, np.ndarray):
        src = from_numpy(data)
        if (dtype is None or dtype is src.dtype) and (device is None or device.type == "cpu"):
            return src
        return copy_to(src, dtype or src.dtype, device or src.device, preserve_strides(src))
    return tensor(data, dtype=dtype, device=device)



def from_numpy(array):
    """A tensor sharing memory with a NumPy array: its storage is the array's bytes, its strides the array's.

    Writing through either one is seen by the other. NumPy strides are in bytes, PyTorch's in elements.
    """
    if not isinstance(array, np.ndarray) or is_device_array(array):     # (a CuPy array is GPU memory)
        raise TypeError(f"expected np.ndarray (got {_type_name(array)})")
    if not array.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. Conversion "
                         "between byte orders is currently not supported.")
    dtype = _dtype.from_numpy_dtype(array.dtype)
    itemsize = array.itemsize
    if any(s < 0 for s in array.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
            "currently supported. (You can probably work around this by making a copy of your array  with "
            "array.copy().) ")
    if any(s % itemsize for s in array.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. Copy the numpy "
                         "array to reallocate the memory.")
    if not array.flags.writeable:
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
                      "This means writing to this tensor will result in undefined behavior. You may want to copy "
                      "the array to protect its data or make it writable before converting it to a tensor. This "
                      "type of warning will be suppressed for the rest of this program.", UserWarning, stacklevel=2)
    strides = tuple(s // itemsize for s in array.strides)
    # The storage is the span of memory from the array's first element to its last, seen as bytes.
    n = 1 + sum((d - 1) * s for d, s in zip(array.shape, strides)) if array.size else 0
    span = np.lib.stride_tricks.as_strided(array, shape=(n,), strides=(itemsize,), writeable=array.flags.writeable)
    storage = UntypedStorage(_data=span.view(np.uint8))
    return Tensor._make(storage, 0, tuple(array.shape), strides, dtype)


__all__ = ['as_tensor', 'from_numpy', 'tensor']


# ---- bound onto Tensor (they build tensors from data, this layer's job) ----------------------------------------


def _legacy_new(cls, *args, **kwargs):
    """`teachtorch.Tensor([1, 2])` builds a float tensor of the default dtype, as `torch.Tensor(...)` does;
    `Tensor()` with no argument is a bare object that `Tensor._make` fills in."""
    if args or kwargs:
        return tensor(*args, dtype=_dtype.get_default_dtype(), **kwargs)
    return object.__new__(cls)


def _array_wrap(self, array, context=None, return_scalar=False):
    """A NumPy function of a tensor (`np.sin(t)`, or `t + ndarray`, which Python hands to NumPy) gives its
    result back as a tensor over the array, as PyTorch's `__array_wrap__` does: bool arrays become uint8
    there (a workaround kept from before PyTorch had a bool dtype), and so here."""
    array = np.asarray(array)
    return from_numpy(array.astype(np.uint8) if array.dtype == np.bool_ else array)


Tensor.__new__ = staticmethod(_legacy_new)
Tensor.__array_wrap__ = _array_wrap
