"""What backend kernels share: array modules, allocation, wrapping results, and THE write-back path.

Kernels are written once against an *array module* `xp` (NumPy for cpu, CuPy for cuda: the two have the same
API), so the cpu and cuda backends run the same readable code. This module holds the four things every
kernel needs:

* `xp_of(tensor)`: the array module of a tensor's device;
* `empty(sizes, dtype, device, strides)`: a fresh tensor over a fresh storage;
* `wrap(array, dtype, device)`: turn a kernel's freshly computed array into a tensor (no copy);
* `write(dst, value)`: the ONE path by which anything is written into an existing tensor.

Why one write path: the real bug behind "Adam silently frozen on MPS" (pytorch#118115) was a kernel that
made a contiguous temporary of a non-contiguous *output*, computed into it, and never copied it back. Here no
kernel writes into a tensor on its own. `write` takes the tensor's strided view of its storage
(`dst._data()`, a view and never a copy) and copies into it, so a write into a transposed, sliced or offset
target lands in the storage and touches nothing outside the view. It also refuses targets whose elements
overlap (an expanded tensor), as PyTorch's `assert_no_internal_overlap` does.
"""

import numpy as np

from .._device import as_device
from .._storage import UntypedStorage
from .._strides import (INT64_MAX, check_numel, check_size_nonnegative, checked_contiguous_strides, compute_storage_nbytes,
                        compute_storage_nbytes_contiguous, contiguous_strides, has_internal_overlap,
                        preserve_format_strides, stored_strides)
from .._tensor import Tensor

ARRAY_MODULES = {"cpu": np}
STORAGE_TYPES = {"cpu": UntypedStorage, "meta": UntypedStorage}


# PyTorch computes 1/0 = inf and log(-1) = nan silently; NumPy warns. Kernels switch the warnings off while
# they compute. `np.errstate` does that but costs more than a whole small add, and Ctrl-C can land inside its
# Python `__exit__` before it restores anything; NumPy 2 keeps the error state in a context variable, so we
# read and set that directly. A kernel does it in the order that no interrupt can split (see _grad_mode.py):
#
#     saved = fp_errors()          # nothing changed yet
#     try:
#         quiet_fp_errors()        # an interrupt right after this lands inside the try
#         ...
#     finally:
#         restore_fp_errors(saved) # one C call: the state is back before any interrupt can be raised
from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

_IGNORE_FP_ERRORS = _make_extobj(all="ignore")
fp_errors = _extobj_contextvar.get


def quiet_fp_errors():
    _extobj_contextvar.set(_IGNORE_FP_ERRORS)


restore_fp_errors = _extobj_contextvar.set


def quietly(fn, *args):
    """`fn(*args)` with NumPy's floating-point warnings off (what `with np.errstate(all="ignore")` is for,
    without its Ctrl-C window)."""
    saved = fp_errors()
    try:
        quiet_fp_errors()
        return fn(*args)
    finally:
        restore_fp_errors(saved)


def xp_of(t):
    return ARRAY_MODULES[t._storage.device.type]


def empty(sizes, dtype, device, strides=None):
    """A tensor with fresh (zeroed) memory, contiguous unless `strides` are given.

    PyTorch's `empty_generic` and, with strides, `empty_strided_generic` (aten/src/ATen/EmptyTensor.cpp). Like
    them it refuses, before a byte is allocated, what an int64 cannot count (the arithmetic is in _strides.py):
    a negative size, a storage of more than 2**63 - 1 bytes (`zeros(2**40, 2**40)`), and more than 2**63 - 1
    elements (`empty_strided((2**40, 2**40), (0, 0))` needs one element of storage, but has 2**80 of them).
    NumPy would refuse some of these with its own ValueError, and silently accept the last.
    """
    sizes = tuple(sizes)
    device = as_device(device)
    if strides is None:
        checked = _checked_contiguous.get(sizes)
        if checked is None:                        # a shape not seen yet: PyTorch's checks, once per shape
            check_size_nonnegative(sizes)
            numel = compute_storage_nbytes_contiguous(sizes, 1)        # (numel fits in an int64 too, then)
            checked = (checked_contiguous_strides(sizes), numel)
            _checked_contiguous[sizes] = checked
        strides, numel = checked
        nbytes = numel * dtype.itemsize
        if nbytes > INT64_MAX:                     # the shape fits one byte per element, not this dtype's
            compute_storage_nbytes_contiguous(sizes, dtype.itemsize)   # raises PyTorch's overflow error
    else:
        check_size_nonnegative(sizes)
        if device.type == "meta" and len(sizes) == len(strides):
            # PyTorch's meta kernel sizes the storage in plain signed arithmetic, unchecked (it has no bytes)
            nbytes = 0 if 0 in sizes else dtype.itemsize * (1 + sum(st * (n - 1) for n, st in zip(sizes, strides)))
        else:
            nbytes = compute_storage_nbytes(sizes, strides, dtype.itemsize)
        strides = stored_strides(sizes, strides)   # a negative stride that passed is replaced, as in PyTorch
        check_numel(sizes)
    storage = STORAGE_TYPES[device.type](nbytes, device=device)
    return Tensor._make(storage, 0, sizes, strides, dtype)


_contiguous = {}   # shape -> contiguous strides, remembered: results of one shape come again and again
_checked_contiguous = {}   # shape -> (strides, numel) of the contiguous shapes `empty` has checked already


def contiguous_strides_of(shape):
    strides = _contiguous.get(shape)
    if strides is None:
        strides = _contiguous[shape] = contiguous_strides(shape)
    return strides


def wrap(array, dtype, device):
    """A tensor over a kernel's freshly computed array (which no other tensor may share)."""
    xp = ARRAY_MODULES[device.type]
    if type(array) is not xp.ndarray or array.dtype != dtype.numpy:
        array = xp.asarray(array, dtype=dtype.numpy)   # NumPy returns scalars for 0-d results
    flags = array.flags
    if not flags.c_contiguous:
        array = xp.ascontiguousarray(array)
    elif not flags.owndata and array.base is not None and not array.base.flags.owndata:
        array = array.copy()   # a view of something else (maybe an input): never let two tensors alias by accident
    shape = array.shape
    strides = _contiguous.get(shape) or contiguous_strides_of(shape)
    return Tensor._make(STORAGE_TYPES[device.type]._wrap(array), 0, shape, strides, dtype, array)


def wrap_strided(array, dtype, device, strides):
    """Like `wrap`, but the result gets the given strides (the stride rule of pointwise ops)."""
    if strides == contiguous_strides(array.shape):
        return wrap(array, dtype, device)
    out = empty(array.shape, dtype, device, strides)
    ARRAY_MODULES[device.type].copyto(out._data(), array, casting="unsafe")
    return out


def preserve_strides(t):
    """The strides `clone(t)`, `*_like(t)` and `t.to(dtype)` give: t's own layout, made dense."""
    return preserve_format_strides(t._sizes, t._strides)


def check_writable(dst):
    if dst._strides == contiguous_strides_of(dst._sizes):
        return                  # contiguous: never overlaps itself (the common case, decided by one lookup)
    if has_internal_overlap(dst._sizes, dst._strides):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation.")


def write(dst, value, check_overlap=True):
    """Write `value` (an array of dst's shape or broadcastable to it, or a scalar) into `dst`, in place.

    Callers validate everything (shapes, dtypes) *before* calling, so a failing op leaves dst unchanged.
    `check_overlap=False` is for fills, which PyTorch allows into overlapping tensors (every element gets
    the same value, so the order of writes cannot matter).
    """
    if check_overlap:
        check_writable(dst)
    if dst._storage._data is None:   # meta tensors have no bytes to write
        return dst
    xp = ARRAY_MODULES[dst._storage.device.type]
    if dst.dtype.numpy.kind in "iu" and getattr(value, "dtype", None) is not None and value.dtype.kind == "f":
        # a C cast of a float out of the integer's range differs between a cpu and a GPU (differences.py)
        value = differences.float_to_int(xp, value, dst.dtype.numpy)
    xp.copyto(dst._data(), value, casting="unsafe")
    return dst


from . import differences  # noqa: E402  (last: differences imports backends.cuda, which imports this module)
