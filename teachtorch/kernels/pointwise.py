"""Pointwise kernels: one recipe for every elementwise op, in three variants.

PyTorch writes an elementwise op once as a *structured kernel* (aten/src/ATen/native/BinaryOps.cpp,
TensorIterator.cpp): a **meta** step works out the result's shape (broadcasting), dtype (type promotion) and
strides (laid out like the inputs), then an **impl** step computes. The same meta step serves the functional
op (`add`), the in-place op (`add_`) and the `out=` op (`add(..., out=o)`); the in-place and out variants
only differ in where the result goes, and they check it may go there before anything is written.

Here a pointwise op is one function `fn(xp, *operands, *params)` computing with array module `xp` on
operands already cast to the compute dtype. `PointwiseKernel(fn, ...)` below holds its three kernels.

Type promotion kinds (PyTorch's ELEMENTWISE_TYPE_PROMOTION_KIND, torch/_prims_common):
    DEFAULT       result_type of the operands                               add, mul, maximum
    INT_TO_FLOAT  like DEFAULT, but integers and bools give the default float    exp, sqrt, div, sigmoid
    ALWAYS_BOOL   compute in the promoted type, return bool                 eq, lt, isnan, logical_and
float16 is computed in float32 and rounded once at the end, as PyTorch's "opmath" does on cpu; the inputs are
first converted to the common dtype (an int32 70000 in a float16 op becomes inf), as TensorIterator does.
"""

from typing import Callable, NamedTuple

import numpy as np

from .. import _dtype
from .._dtype import bool_, float16, float32, result_type
from .._strides import (
    broadcast_shapes, is_non_overlapping_and_dense, pointwise_output_strides, preserve_format_strides,
)
from .._tensor import Tensor
from ..backends import (
    ARRAY_MODULES, contiguous_strides_of, check_writable, empty, fp_errors, quiet_fp_errors, quietly, restore_fp_errors,
    wrap, wrap_strided, write,
)

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


def check_output_device(out, device):
    """The tensor written (in-place `self`, or `out=`) must be on the op's device: no 0-dim exemption."""
    d = out._storage.device
    if d is not device and d != device:
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two devices, {device} and {d}!")


def promote(operands, kind):
    """(result dtype, compute dtype) of an elementwise op over tensors and Python numbers.

    `kind` is DEFAULT, INT_TO_FLOAT or ALWAYS_BOOL, or a function `kind(operands) -> (result, compute)` for
    the few ops with a rule of their own (`lerp` keeps `self`'s dtype, `float_power` always gives float64).
    A `None` operand (an absent optional bound of `clamp`) takes no part.
    """
    if callable(kind):
        return kind(operands)
    dt = _common_case_dtype(operands)
    if dt is None:
        dt = result_type(*[x for x in operands if x is not None])
    if kind is INT_TO_FLOAT and not dt.is_floating_point:
        dt = _dtype.get_default_dtype()
    compute = float32 if dt is float16 else dt
    return (bool_ if kind is ALWAYS_BOOL else dt), compute


def _common_case_dtype(operands):
    """result_type's answer for the common calls, without the general rule (None for the others): tensors
    of one dtype (`a * b`, `addcmul(x, t1, t2)`), with Python numbers too when that dtype is floating
    (`x.mul_(0.9)`): c10::combine_categories lets a number count only if its category is higher, and no
    number's category (bool, int, float) is higher than floating."""
    dt, numbers = None, False
    for x in operands:
        if isinstance(x, Tensor):
            if dt is not None and x.dtype is not dt:
                return None
            dt = x.dtype
        elif type(x) in (bool, int, float):
            numbers = True
        else:
            return None           # None (clamp's absent bound), a NumPy scalar: the general rule
    if dt is None or (numbers and not dt.is_floating_point):
        return None
    return dt


def fast_setup(operands, kind):
    """TensorIterator's fast set-up (`FastSetupType::CONTIGUOUS` in TensorIterator.cpp): when every tensor
    operand is contiguous, with one shape, dtype and device, the result is a contiguous tensor of that shape
    and no input needs converting, so broadcasting, the stride rule and the casts are all skipped. Python
    numbers may join an op of a floating dtype (`x.mul_(0.9)`), since they cannot change it.

    Returns (device, result dtype, compute dtype, shape), or None for every other call: those take the
    general steps (`pointwise_meta`, `output_strides`, `run`), which give the same answer more slowly.
    """
    first, numbers = None, False
    for a in operands:
        if type(a) is Tensor:
            if first is None:
                first, contiguous = a, contiguous_strides_of(a._sizes)
                if a._strides != contiguous:
                    return None
            elif (a.dtype is not first.dtype or a._sizes != first._sizes or a._strides != contiguous
                  or a._storage.device is not first._storage.device):
                return None
        elif type(a) in (float, int, bool):
            numbers = True
        else:
            return None
    if first is None or first._storage._data is None:          # all numbers, or the meta device
        return None
    dt = first.dtype
    if dt is float16 or (numbers and not dt.is_floating_point) or callable(kind):
        return None      # float16 computes in float32; numbers may promote an integer op; own promotion rules
    if kind is ALWAYS_BOOL:
        return first._storage.device, bool_, dt, first._sizes
    if kind is INT_TO_FLOAT and not dt.is_floating_point:
        return None
    return first._storage.device, dt, dt, first._sizes


def run_contiguous(fn, operands, params, compute_dtype, device):
    """`run` after a fast set-up: the tensors are already of the compute dtype, only numbers are cast."""
    xp = ARRAY_MODULES[device.type]
    arrays = [a._data() if type(a) is Tensor else _cast(xp, a, compute_dtype) for a in operands]
    return quietly(fn, xp, *arrays, *params)


def pointwise_meta(operands, kind):
    """The meta step: (tensors, device, result dtype, compute dtype, broadcast shape)."""
    tensors = []
    for a in operands:
        if isinstance(a, Tensor):
            tensors.append(a)
    device = tensors[0]._storage.device
    for t in tensors:
        if t._storage.device is not device:     # only then is the full rule needed
            device = check_same_device(tensors)
            break
    out_dtype, compute = promote(operands, kind)
    shape = tensors[0]._sizes
    for t in tensors[1:]:
        if t._sizes != shape:
            shape = broadcast_shapes(*(t._sizes for t in tensors))
            break
    return tensors, device, out_dtype, compute, shape


def output_strides(shape, tensors, operands=None, compute=None, number_is_operand=True):
    """The result's strides (TensorIterator's rule, _strides.pointwise_output_strides), or None for contiguous.

    Two details of TensorIterator matter here:
    * a Python number takes part as a 0-dim tensor, so `x + 1` is never "all operands of one shape" and
      skips the all-contiguous shortcut (with odd strides on size-1 dims, that changes the answer); except
      in the ops whose number is a parameter of the kernel, not an operand (`number_is_operand=False`:
      `x ** 2`, `clamp(x, 0, 1)`, `lerp(x, y, 0.5)` are unary or binary TensorIterators in PyTorch);
    * on cpu each input whose dtype is not the op's `common` dtype is first converted with `.to(common)`,
      which keeps a dense layout but makes a non-dense one dense (preserve_format), so such an input takes
      part with the strides of its converted copy.
    """
    contiguous = contiguous_strides_of(shape)
    for t in tensors:
        if t._sizes != shape or (t._strides != contiguous and any(t._strides)):
            break
    else:
        # Every input is contiguous with the full shape, or all stride 0 (an expanded number, as in a
        # gradient `grad.expand(shape)`), which has no say in the order: every rule gives contiguous.
        return None
    common = None if operands is None else common_dtype(operands, compute)
    layouts = [(u._sizes, u._strides if common is None or u.dtype is common
                else preserve_format_strides(u._sizes, u._strides)) for u in tensors]
    if operands is not None and number_is_operand:
        layouts += [((), ()) for a in operands if a is not None and not isinstance(a, Tensor)]
    strides = pointwise_output_strides(shape, layouts)
    return None if strides == contiguous else strides


def common_dtype(operands, compute):
    """The dtype TensorIterator converts inputs to: the compute dtype, except that float16 stays float16."""
    return _float16_common(operands) or compute


def _cast(xp, a, compute, via=None):
    """An operand as an array (or NumPy scalar) of the compute dtype, converted to `via` on the way."""
    if isinstance(a, Tensor):
        arr = a._data()
        if type(arr) is not xp.ndarray:
            arr = arr[()]        # a 0-dim cpu tensor in a cuda op: a host scalar, passed to the kernel by value
        if via is not None and arr.dtype != via.numpy:
            arr = arr.astype(via.numpy)
        return arr if arr.dtype == compute.numpy else arr.astype(compute.numpy)
    if a is None:
        return None
    # A Python number: wrap it the way PyTorch wraps numbers (ints wrap around in small int types).
    # (NumPy scalars on every backend: a number is a kernel parameter, never a copy to the device)
    if via is not None:
        return np.asarray(a).astype(via.numpy).astype(compute.numpy)[()]
    return np.asarray(a).astype(compute.numpy)[()]


def _float16_common(operands):
    """float16 when the op's common dtype is float16 (it then computes in float32), else None.

    TensorIterator first converts every input to the common dtype, so an integer input of a float16 op
    becomes float16 (65504 at most: int32 70000 becomes inf), and so does a number (0.1 becomes 0.0999756)
    or a 0-dim float32 tensor, before everything is widened to float32 for the arithmetic.
    """
    for a in operands:
        if isinstance(a, Tensor) and a.dtype is float16:
            break
    else:
        return None
    return float16 if result_type(*[a for a in operands if a is not None]) is float16 else None


def run(fn, operands, params, compute_dtype, device, dtype=None, number_in_opmath=False):
    """The impl step: `fn` on the operands cast to the compute dtype (None on the meta device), the result
    cast to `dtype` when given (the result dtype, or the dtype of the tensor it will be written into).

    `number_in_opmath`: a number (or 0-dim tensor) after the first operand of a float16 op is used as it is, not
    rounded to float16 first, as add, sub, mul, div (`iter.original_scalar_value<opmath_t>(2)`) and lerp's
    weight do.

    NumPy warns on `log(0)`, `0/0` or a float overflow, also when casting (1e5 into float16); PyTorch
    silently gives inf and nan, so the warnings are switched off here (they would be errors under -W error).
    """
    if device.type == "meta":
        return None
    xp = ARRAY_MODULES[device.type]
    via = _float16_common(operands) if compute_dtype is float32 else None
    saved = fp_errors()
    try:
        quiet_fp_errors()         # casts warn too (1e5 into float16)
        if via is None:
            want = compute_dtype.numpy
            arrays = []
            for a in operands:
                arr = a._array if type(a) is Tensor else None   # a tensor's cached array, when it has one
                arrays.append(arr if arr is not None and arr.dtype == want and type(arr) is xp.ndarray
                              else _cast(xp, a, compute_dtype))
        else:
            arrays = [_cast(xp, a, compute_dtype, None if (number_in_opmath and i > 0 and _is_scalar(a)) else via)
                      for i, a in enumerate(operands)]
        result = fn(xp, *arrays, *params)
        if dtype is not None and result.dtype != dtype.numpy:
            result = xp.asarray(result).astype(dtype.numpy)
    finally:
        restore_fp_errors(saved)
    return result


def _is_scalar(a):
    return not isinstance(a, Tensor) or a.dim() == 0


def check_out(out, out_dtype, shape, name="output"):
    """May a result of `out_dtype` and `shape` be written into `out`? Raise PyTorch's errors if not."""
    if not _dtype._can_cast(out_dtype, out.dtype):
        raise RuntimeError(
            f"result type {out_dtype._ptname} can't be cast to the desired output type {out.dtype._ptname}")


def check_inplace_shape_and_dtype(self, out_dtype, shape):
    """May an in-place op write a result of `out_dtype` and `shape` into `self`? The shape is checked first,
    as TensorIterator does (compute_shape runs before compute_types)."""
    if self._sizes != shape:
        raise RuntimeError(
            f"output with shape {list(self._sizes)} doesn't match the broadcast shape {list(shape)}")
    check_out(self, out_dtype, shape)


def check_no_partial_overlap(out, inputs):
    """PyTorch's `assert_no_partial_overlap` (aten/src/ATen/MemoryOverlap.cpp) between an output and each input.

    Writing `x[1:] += x[:-1]` element by element would read values already overwritten, so PyTorch refuses
    an input that shares *some* of the output's memory. Sharing all of it (`x += x`) is fine. Like PyTorch,
    only dense tensors are compared (for others the question is "too hard" and nothing is raised).
    """
    if out.numel() == 0 or out._storage._data is None:
        return
    dense = None
    for t in inputs:
        if t is out or t._storage is not out._storage or t.numel() == 0:
            continue
        if dense is None:
            dense = is_non_overlapping_and_dense(out._sizes, out._strides)
        if not dense or not is_non_overlapping_and_dense(t._sizes, t._strides):
            continue
        a_begin, a_end = out._offset * out.dtype.itemsize, (out._offset + out.numel()) * out.dtype.itemsize
        b_begin, b_end = t._offset * t.dtype.itemsize, (t._offset + t.numel()) * t.dtype.itemsize
        if (a_begin == b_begin and a_end == b_end and out._strides == t._strides) or not (
                a_begin < b_end and b_begin < a_end):
            continue
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
            "memory location. Please clone() the tensor before performing the operation.")


def resize_out(out, shape, strides=None):
    """`out=` tensors of the wrong shape are resized, as PyTorch's `resize_output` does (with its warning).

    A resized tensor gets `strides` when given: the strides the functional op would give its result, as
    TensorIterator lays out the outputs it resizes (`set_output_raw_strided`).
    """
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
    fresh = empty(shape, out.dtype, out.device, strides)
    out._set_metadata(fresh._storage, 0, fresh._sizes, fresh._strides)


def write_out(out, result, out_dtype, shape, strides=None):
    check_out(out, out_dtype, shape)
    resize_out(out, shape, strides)
    if result is not None:
        write(out, result)
    return out


class Checks(NamedTuple):
    """The errors one elementwise op raises beyond the common ones, each at the step where PyTorch raises it.

    `operands(operands)` before anything else (`-` on bool, a negative integer power); `late(args,
    result_dtype, compute_dtype)` once the dtypes are known ('"abs_cpu" not implemented for 'Bool'', an `alpha`
    that does not fit); `inplace(self, result_dtype, shape, operands)` and `out(out, result_dtype, shape,
    operands)` replace the usual checks of the written tensor for the few ops where PyTorch checks or words
    them differently.
    """
    operands: Callable | None = None
    late: Callable | None = None
    inplace: Callable | None = None
    out: Callable | None = None


NO_CHECKS = Checks()


class PointwiseKernel:
    """The functional, in-place and out= kernels of one elementwise op with `n` tensor-or-number operands.

    `compute(xp, *operands, *params)` is the op's arithmetic (kernels/pointwise_math.py, unary_math.py);
    `promotion` its type promotion kind. The three methods are what the dispatcher runs (a trace shows
    `PointwiseKernel(unary_math.exp).functional`), each in PyTorch's order: structured kernel meta function,
    then TensorIterator::build, then impl:

    1. `checks.operands` may raise for what the op refuses before anything else;
    2. in-place and out=: the target may not overlap itself or an input, then its shape and dtype are checked;
    3. `checks.late` raises what the kernel raises once the dtype is known;
    4. compute, then write (in-place, out=) or wrap (functional).

    `number_is_operand`: see `output_strides`. `number_in_opmath`: see `run`.
    """

    def __init__(self, compute, promotion=DEFAULT, n=2, checks=NO_CHECKS, number_is_operand=True,
                 number_in_opmath=False):
        self.compute, self.promotion, self.n, self.checks = compute, promotion, n, checks
        self.number_is_operand, self.number_in_opmath = number_is_operand, number_in_opmath

    def __repr__(self):   # what a trace shows: PointwiseKernel(unary_math.exp).functional
        module = self.compute.__module__.rsplit(".", 1)[-1]
        return f"{type(self).__name__}({module}.{self.compute.__qualname__})"

    def output_strides(self, shape, tensors, operands, compute_dtype):
        return output_strides(shape, tensors, operands, compute_dtype, self.number_is_operand)

    def functional(self, ks, *args):
        n, checks = self.n, self.checks
        operands = args[:n]
        if checks.operands is not None:
            checks.operands(operands)
        fast = fast_setup(operands, self.promotion)
        if fast is not None:              # contiguous operands of one shape and dtype: see fast_setup
            device, out_dtype, cdt, shape = fast
            if checks.late is not None:
                checks.late(args, out_dtype, cdt)
            return wrap(run_contiguous(self.compute, operands, args[n:], cdt, device), out_dtype, device)
        tensors, device, out_dtype, cdt, shape = pointwise_meta(operands, self.promotion)
        if checks.late is not None:
            checks.late(args, out_dtype, cdt)
        strides = self.output_strides(shape, tensors, operands, cdt)
        result = run(self.compute, operands, args[n:], cdt, device, out_dtype, self.number_in_opmath)
        if result is None:
            return empty(shape, out_dtype, device, strides)
        if strides is None:
            return wrap(result, out_dtype, device)
        return wrap_strided(result, out_dtype, device, strides)

    def inplace(self, ks, target, *args):
        n, checks = self.n, self.checks
        operands = (target,) + args[:n - 1]
        if checks.operands is not None:
            checks.operands(operands)
        fast = fast_setup(operands, self.promotion) if checks.inplace is None else None
        if fast is not None and fast[1] is target.dtype:
            # contiguous operands of one shape and dtype (fast_setup): the target is one of them, so its
            # device, shape and dtype are right and it never overlaps itself; only another input may share
            # part of its memory
            device, out_dtype, cdt, shape = fast
            check_no_partial_overlap(target, [t for t in operands[1:] if type(t) is Tensor])
            if checks.late is not None:
                checks.late(operands + args[n - 1:], out_dtype, cdt)
            write(target, run_contiguous(self.compute, operands, args[n - 1:], cdt, device), check_overlap=False)
            return target
        tensors, device, out_dtype, cdt, shape = pointwise_meta(operands, self.promotion)
        check_output_device(target, device)
        check_writable(target)
        check_no_partial_overlap(target, tensors)
        if checks.inplace is None:
            check_inplace_shape_and_dtype(target, out_dtype, shape)
        else:
            checks.inplace(target, out_dtype, shape, operands)
        if checks.late is not None:
            checks.late(operands + args[n - 1:], out_dtype, cdt)
        result = run(self.compute, operands, args[n - 1:], cdt, device, target.dtype, self.number_in_opmath)
        if result is not None:
            write(target, result, check_overlap=False)
        return target

    def out(self, ks, *args):
        n, checks = self.n, self.checks
        out, args = args[-1], args[:-1]
        operands = args[:n]
        if checks.operands is not None:
            checks.operands(operands)
        tensors, device, out_dtype, cdt, shape = pointwise_meta(operands, self.promotion)
        check_output_device(out, device)
        check_writable(out)
        check_no_partial_overlap(out, tensors)
        if checks.out is None:
            check_out(out, out_dtype, shape)
        else:
            checks.out(out, out_dtype, shape, operands)
        if checks.late is not None:
            checks.late(args, out_dtype, cdt)
        result = run(self.compute, operands, args[n:], cdt, device, out.dtype, self.number_in_opmath)
        strides = None if out._sizes == tuple(shape) else self.output_strides(shape, tensors, operands, cdt)
        return write_out(out, result, out_dtype, shape, strides)

    # TensorIterator checks devices itself (a 0-dim cpu tensor may join a cuda op): see pointwise_meta
    functional.device_check = inplace.device_check = out.device_check = False


class PowKernel(PointwiseKernel):
    """pow's kernels: `pow(2, x)` is PyTorch's `pow.Scalar` overload, whose meta function allocates a
    contiguous result whatever `x`'s layout (Pow.cpp `TORCH_META_FUNC2(pow, Scalar)`)."""

    def output_strides(self, shape, tensors, operands, compute_dtype):
        if not isinstance(operands[0], Tensor):
            return None
        return output_strides(shape, tensors, operands, compute_dtype, self.number_is_operand)
