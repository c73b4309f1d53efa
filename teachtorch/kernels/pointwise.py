"""Pointwise kernels: one recipe for every elementwise op, in three variants.

PyTorch writes an elementwise op once as a *structured kernel* (aten/src/ATen/native/BinaryOps.cpp,
TensorIterator.cpp): a **meta** step works out the result's shape (broadcasting), dtype (type promotion) and
strides (laid out like the inputs), then an **impl** step computes. The same meta step serves the functional
op (`add`), the in-place op (`add_`) and the `out=` op (`add(..., out=o)`); the in-place and out variants
only differ in where the result goes, and they check it may go there before anything is written.

Here a pointwise op is one function `fn(xp, *operands, *params)` computing with array module `xp` on
operands already cast to the compute dtype. `pointwise_kernels(fn, ...)` turns it into the three kernels.

Type promotion kinds (PyTorch's ELEMENTWISE_TYPE_PROMOTION_KIND, torch/_prims_common):
    DEFAULT       result_type of the operands                               add, mul, maximum
    INT_TO_FLOAT  like DEFAULT, but integers and bools give the default float    exp, sqrt, div, sigmoid
    ALWAYS_BOOL   compute in the promoted type, return bool                 eq, lt, isnan, logical_and
float16 is computed in float32 and rounded once at the end, as PyTorch's "opmath" does on cpu.
"""

import numpy as np

from .. import _dtype
from .._dtype import bool_, can_cast, float16, float32, result_type
from .._strides import broadcast_shapes, contiguous_strides, is_contiguous, pointwise_output_strides
from .._tensor import Tensor
from ..backends import ARRAY_MODULES, empty, wrap, wrap_strided, write

DEFAULT, INT_TO_FLOAT, ALWAYS_BOOL = "default", "int_to_float", "always_bool"


def check_same_device(tensors):
    """All tensor operands on one device (a 0-dim cpu tensor may join a cuda op, as in PyTorch)."""
    first = tensors[0]._storage.device
    for t in tensors[1:]:
        d = t._storage.device
        if d is not first and d != first:
            if t.dim() == 0 and d.type == "cpu":
                continue
            if tensors[0].dim() == 0 and first.type == "cpu":
                first = d
                continue
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but found at least two devices, {first} and {d}!")
    return first


def promote(operands, kind):
    """(result dtype, compute dtype) of an elementwise op over tensors and Python numbers."""
    a = operands[0]
    if len(operands) == 2 and type(a) is Tensor and type(operands[1]) is Tensor and a.dtype is operands[1].dtype:
        dt = a.dtype                      # the common case, without the general rule
    else:
        dt = result_type(*operands)
    if kind is INT_TO_FLOAT and not dt.is_floating_point:
        dt = _dtype.get_default_dtype()
    compute = float32 if dt is float16 else dt
    return (bool_ if kind is ALWAYS_BOOL else dt), compute


def pointwise_meta(operands, kind):
    """The meta step: (tensors, device, result dtype, compute dtype, broadcast shape)."""
    tensors = [a for a in operands if isinstance(a, Tensor)]
    device = tensors[0]._storage.device if len(tensors) == 1 else check_same_device(tensors)
    out_dtype, compute = promote(operands, kind)
    shape = tensors[0]._sizes
    for t in tensors[1:]:
        if t._sizes != shape:
            shape = broadcast_shapes(*(t._sizes for t in tensors))
            break
    return tensors, device, out_dtype, compute, shape


def output_strides(shape, tensors):
    """The result's strides, or None for contiguous (the fast path: contiguous inputs of the full shape)."""
    for t in tensors:
        if t._sizes != shape or not (t._data().flags.c_contiguous if t._storage._data is not None
                                     else is_contiguous(t._sizes, t._strides)):
            strides = pointwise_output_strides(shape, [(t._sizes, t._strides) for t in tensors])
            return None if strides == contiguous_strides(shape) else strides
    return None


def _cast(xp, a, compute):
    """An operand as an array (or NumPy scalar) of the compute dtype."""
    if isinstance(a, Tensor):
        arr = a._data()
        return arr if arr.dtype == compute.numpy else arr.astype(compute.numpy)
    # A Python number: wrap it the way PyTorch wraps numbers (ints wrap around in small int types).
    return xp.asarray(a).astype(compute.numpy)[()]


def compute(fn, kind, n, args):
    """Run the meta step, then `fn`; returns (result array, result dtype, shape, tensors, device)."""
    operands = args[:n]
    tensors, device, out_dtype, cdt, shape = pointwise_meta(operands, kind)
    if device.type == "meta":
        return None, out_dtype, shape, tensors, device
    xp = ARRAY_MODULES[device.type]
    result = fn(xp, *[_cast(xp, a, cdt) for a in operands], *args[n:])
    return result, out_dtype, shape, tensors, device


def check_out(out, out_dtype, shape, name="output"):
    """May a result of `out_dtype` and `shape` be written into `out`? Raise PyTorch's errors if not."""
    if not can_cast(out_dtype, out.dtype):
        raise RuntimeError(
            f"result type {out_dtype._ptname} can't be cast to the desired output type {out.dtype._ptname}")


def check_inplace(self, out_dtype, shape):
    check_out(self, out_dtype, shape)
    if self._sizes != shape:
        raise RuntimeError(
            f"output with shape {list(self._sizes)} doesn't match the broadcast shape {list(shape)}")


def resize_out(out, shape):
    """`out=` tensors of the wrong shape are resized, as PyTorch's `resize_output` does (with its warning)."""
    shape = tuple(shape)
    if out._sizes == shape:
        return
    if out.numel() != 0:
        import warnings
        warnings.warn(
            f"An output with one or more elements was resized since it had shape {list(out._sizes)}, which "
            f"does not match the required output shape {list(shape)}. This behavior is deprecated, and in a "
            "future PyTorch release outputs will not be resized unless they have zero elements. You can "
            "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
            UserWarning, stacklevel=4)
    fresh = empty(shape, out.dtype, out.device)
    out._set_metadata(fresh._storage, 0, fresh._sizes, fresh._strides)


def write_out(out, result, out_dtype, shape):
    check_out(out, out_dtype, shape)
    resize_out(out, shape)
    if result is not None:
        write(out, result)
    return out


def pointwise_kernels(fn, kind=DEFAULT, n=2, check=None):
    """The functional, in-place and out kernels of one elementwise op with `n` tensor-or-number operands.

    `check(operands)` may raise for dtypes the op refuses (e.g. `-` on bool); it runs before anything else.
    """

    def functional(ks, *args):
        if check is not None:
            check(args[:n])
        result, out_dtype, shape, tensors, device = compute(fn, kind, n, args)
        strides = output_strides(shape, tensors)
        if result is None:
            return empty(shape, out_dtype, device, strides)
        if strides is None:
            return wrap(result, out_dtype, device)
        return wrap_strided(result, out_dtype, device, strides)

    def inplace(ks, self, *args):
        if check is not None:
            check((self,) + args[:n - 1])
        result, out_dtype, shape, _, _ = compute(fn, kind, n, (self,) + args)
        check_inplace(self, out_dtype, shape)
        if result is not None:
            write(self, result)
        return self

    def out_variant(ks, *args):
        out = args[-1]
        if check is not None:
            check(args[:n])
        result, out_dtype, shape, _, _ = compute(fn, kind, n, args[:-1])
        return write_out(out, result, out_dtype, shape)

    return functional, inplace, out_variant


def to_numpy_scalar(x):
    return x.item() if isinstance(x, np.generic) else x
