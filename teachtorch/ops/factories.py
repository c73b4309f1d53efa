"""Factory functions: tensors made from nothing (`zeros`, `arange`) or from data (`tensor`, `from_numpy`).

A factory has no tensor argument, so no tensor brings a backend key to the dispatcher. As in PyTorch the
BackendSelect layer (dispatch/backend_select.py) reads `device=` and sends the call to that backend's kernel.

`*_like` and `clone` keep the *layout* of their input (PyTorch's `memory_format=torch.preserve_format`): a
transposed input gives a transposed result. That is what made the optimizer state of a transposed weight
transposed in the MPS Adam bug (shared/reference §5.1), so it is worth seeing.
"""

import numpy as np

from .. import _dtype
from .._device import as_device
from .._dispatch_key import DispatchKey
from .._storage import UntypedStorage
from .._strides import contiguous_strides, is_non_overlapping_and_dense, pointwise_output_strides
from .._tensor import Tensor
from ..backends import empty as _empty_tensor
from ..backends import wrap
from ..dispatch.backend_select import backend_select_kernel
from ..dispatch.dispatcher import impl
from ._define import define, register_kernel

_FACTORY_TAIL = "*, ScalarType? dtype=None, Device? device=None"


def _size_arg(size, name="size"):
    """Accept `zeros(2, 3)`, `zeros((2, 3))` and `zeros([2, 3])`, and check the sizes like PyTorch."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) and not hasattr(s, "__index__"):
            raise TypeError(f"{name} must be tuple of ints, but got {type(s).__name__}")
        s = int(s.__index__()) if hasattr(s, "__index__") else int(s)
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(map(int, size))}")
        out.append(s)
    return tuple(out)


def _factory(schema, kernel):
    op = define(schema)
    if kernel.__qualname__.startswith("_fill_kernel"):
        kernel.__qualname__ = f"{op.schema.name}_kernel"
    register_kernel(op, kernel)
    impl(op, DispatchKey.BackendSelect, backend_select_kernel(op))
    return op


def _fill_kernel(value_of):
    def kernel(ks, size, *rest):
        *rest, dtype, device = rest
        t = _empty_tensor(size, dtype or _dtype.get_default_dtype(), device)
        v = value_of(*rest)
        if v != 0 and t._storage._data is not None:
            t._data().fill(v)
        return t
    return kernel


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


empty_op = _factory(f"empty.memory_format(SymInt[] size, {_FACTORY_TAIL}) -> Tensor", _fill_kernel(lambda: 0))
zeros_op = _factory(f"zeros(SymInt[] size, {_FACTORY_TAIL}) -> Tensor", _fill_kernel(lambda: 0))
ones_op = _factory(f"ones(SymInt[] size, {_FACTORY_TAIL}) -> Tensor", _fill_kernel(lambda: 1))
full_op = _factory(f"full(SymInt[] size, Scalar fill_value, {_FACTORY_TAIL}) -> Tensor", _fill_kernel(lambda v: v))


def _empty_strided_kernel(ks, size, stride, dtype, device):
    return _empty_tensor(size, dtype or _dtype.get_default_dtype(), device, stride)


empty_strided_op = _factory(f"empty_strided(SymInt[] size, SymInt[] stride, {_FACTORY_TAIL}) -> Tensor",
                            _empty_strided_kernel)


def empty(*size, dtype=None, device=None, requires_grad=False, out=None, memory_format=None):
    return _finish(empty_op(_size_arg(size), dtype=dtype, device=device), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None):
    return _finish(zeros_op(_size_arg(size), dtype=dtype, device=device), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None):
    return _finish(ones_op(_size_arg(size), dtype=dtype, device=device), requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None):
    if dtype is None:
        dtype = _dtype.scalar_dtype(fill_value)   # PyTorch infers full's dtype from the fill value
    return _finish(full_op(_size_arg((size,)), fill_value, dtype=dtype, device=device), requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    return _finish(empty_strided_op(tuple(size), tuple(stride), dtype=dtype, device=device), requires_grad)


# ---- arange ---------------------------------------------------------------------------------------------


def _arange_kernel(ks, start, end, step, dtype, device):
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    # PyTorch computes the length in double precision: ceil((end - start) / step)
    n = int(np.ceil((float(end) - float(start)) / float(step))) if end != start else 0
    n = max(n, 0)
    t = _empty_tensor((n,), dtype, device)
    if t._storage._data is not None and n:
        # element i is start + i * step, computed in the accumulate type as PyTorch's kernel does
        acc = np.float64 if dtype.is_floating_point else np.int64
        t._data()[...] = (np.asarray(start, acc) + np.arange(n, dtype=acc) * np.asarray(step, acc)).astype(
            dtype.numpy)
    return t


arange_op = _factory(f"arange.start_step(Scalar start, Scalar end, Scalar step=1, {_FACTORY_TAIL}) -> Tensor",
                     _arange_kernel)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None):
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        is_float = any(isinstance(v, float) for v in values)
        dtype = _dtype.get_default_dtype() if is_float else _dtype.int64
    return _finish(arange_op(*values, dtype=dtype, device=device), requires_grad)


# ---- tensors from data ----------------------------------------------------------------------------------


def _infer_dtype(array, data):
    """PyTorch's inference: bools -> bool, ints -> int64, floats -> the default float dtype.

    A NumPy array (or a list of NumPy scalars) keeps its own dtype.
    """
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        return _dtype.from_numpy_dtype(array.dtype)
    kind = array.dtype.kind
    if kind == "b":
        return _dtype.bool_
    if kind in "iu":
        return _dtype.int64
    if kind == "f":
        return _dtype.get_default_dtype()
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _to_nested(data):
    """Lists may hold tensors (one element each, or whole sub-tensors): turn them into nested lists."""
    if isinstance(data, Tensor):
        return data.tolist()
    if isinstance(data, (list, tuple)):
        return [_to_nested(x) for x in data]
    return data


def _check_ragged(data, dim=0):
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], (list, tuple)):
        n = len(data[0])
        for x in data[1:]:
            if not isinstance(x, (list, tuple)) or len(x) != n:
                got = len(x) if isinstance(x, (list, tuple)) else type(x).__name__
                raise ValueError(f"expected sequence of length {n} at dim {dim + 1} (got {got})")
        for x in data:
            _check_ragged(x, dim + 1)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data` (nested lists of numbers, a NumPy array, a tensor)."""
    if isinstance(data, Tensor):
        array = data.detach().cpu()._data()
        inferred = data.dtype
    else:
        nested = _to_nested(data)
        if isinstance(nested, (list, tuple)):
            _check_ragged(nested)
        if isinstance(nested, (list, tuple)) and len(nested) == 0:
            array = np.zeros((0,), dtype=np.float32)
            inferred = _dtype.get_default_dtype()
        else:
            if isinstance(nested, str) or (isinstance(nested, (list, tuple)) and _has_str(nested)):
                raise TypeError(f"new(): invalid data type '{type(nested).__name__}'")
            array = np.array(nested)
            if array.dtype == object:
                raise TypeError("Could not infer dtype of object")
            inferred = _infer_dtype(array, data)
    dtype = dtype or inferred
    t = wrap(np.array(array, dtype=dtype.numpy, copy=True), dtype, as_device("cpu"))
    device = as_device(device)
    if device.type != "cpu":
        t = t.to(device)
    return _finish(t, requires_grad)


def _has_str(seq):
    return any(isinstance(x, str) or (isinstance(x, (list, tuple)) and _has_str(x)) for x in seq)


def as_tensor(data, dtype=None, device=None):
    """Like `tensor`, but shares memory with `data` when it already is a tensor or NumPy array that fits."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (dtype or device) else data
    if isinstance(data, np.ndarray) and (dtype is None or dtype.numpy == data.dtype) and as_device(device).type == "cpu":
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array):
    """A tensor sharing memory with a NumPy array: its storage is the array's bytes."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
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
    strides = tuple(s // itemsize for s in array.strides)
    # The storage is the span of memory from the array's first element to its last, seen as bytes.
    n = 1 + sum((d - 1) * s for d, s in zip(array.shape, strides)) if array.size else 0
    span = np.lib.stride_tricks.as_strided(array, shape=(n,), strides=(itemsize,))
    storage = UntypedStorage(_data=span.view(np.uint8))
    return Tensor._make(storage, 0, tuple(array.shape), strides, dtype)


# ---- *_like -----------------------------------------------------------------------------------------------


def preserve_strides(t):
    """The strides `*_like(t)` and `clone(t)` give: t's own if they are dense, else dense in t's order."""
    if is_non_overlapping_and_dense(t._sizes, t._strides):
        return t._strides
    return pointwise_output_strides(t._sizes, [(t._sizes, t._strides)])


def _like(t, dtype, device, memory_format):
    dtype = dtype or t.dtype
    device = as_device(device) if device is not None else t.device
    if memory_format in (None, "preserve_format"):
        strides = preserve_strides(t)
    else:
        strides = contiguous_strides(t._sizes)
    return empty_strided_op(t._sizes, strides, dtype=dtype, device=device)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _finish(_like(input, dtype, device, memory_format), requires_grad)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _finish(_like(input, dtype, device, memory_format), requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    return full_like(input, 1, dtype=dtype, device=device, requires_grad=requires_grad, memory_format=memory_format)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    t = _like(input, dtype, device, memory_format)
    if t._storage._data is not None:
        t._data().fill(fill_value)
    return _finish(t, requires_grad)


def _rebuild(values, dtype_name, device, requires_grad):
    return tensor(values, dtype=_dtype._lookup(dtype_name), device=device, requires_grad=requires_grad)


__all__ = ['arange', 'as_tensor', 'empty', 'empty_like', 'empty_strided', 'from_numpy', 'full', 'full_like', 'ones', 'ones_like', 'tensor', 'zeros', 'zeros_like']
