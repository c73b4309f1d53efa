"""Factory functions: tensors made from nothing (`zeros`, `arange`) or from data (`tensor`, `from_numpy`).

A factory has no tensor argument, so no tensor brings a backend key to the dispatcher. As in PyTorch the
BackendSelect layer (dispatch/backend_select.py) reads `device=` and sends the call to that backend's kernel
(PyTorch generates those BackendSelect kernels into RegisterBackendSelect.cpp). The kernels live in
aten/src/ATen/native/TensorFactories.cpp and RangeFactories.cpp; `torch.tensor(data)` itself is not an op
at all but Python-binding code (torch/csrc/utils/tensor_new.cpp), which teachtorch follows step by step:
`compute_sizes` walks down the first elements, `infer_scalar_type` looks at every element, and
`recursive_store` checks every list's length while it copies the numbers in.

Three rules worth seeing:

* dtype inference: Python bools give `bool`, ints `int64`, floats the *default* dtype (`float32` unless
  `set_default_dtype` changed it); a NumPy array keeps its dtype. `full` infers from its fill value.
* numbers are converted with overflow checks (c10's `checked_convert`): `full((2,), 300, dtype=uint8)`
  is an error, not a silent 44.
* `*_like` keep the *layout* of their input (PyTorch's `memory_format=torch.preserve_format`): a
  transposed input gives a transposed result. That is what made the optimizer state of a transposed
  weight transposed in the MPS Adam bug (shared/reference §5.1), so it is worth seeing.
"""

import math
import operator
import warnings

import numpy as np

from .. import _dtype
from .._dtype import checked_convert
from .._device import as_device
from .._dispatch_key import DispatchKey
from .._storage import UntypedStorage
from .._strides import channels_last_strides, contiguous_strides
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..backends import ARRAY_MODULES, preserve_strides, wrap, write
from ..backends import empty as _empty_tensor
from ..dispatch.backend_select import backend_select_kernel
from ..dispatch.dispatcher import impl
from ..kernels.pointwise import write_out
from ._define import define, register_kernel

_FACTORY_TAIL = "*, ScalarType? dtype=None, Device? device=None"


# ---- memory formats ---------------------------------------------------------------------------------------


class memory_format:
    """`torch.memory_format`: how a fresh tensor's strides are chosen (c10/core/MemoryFormat.h).

    `str(fmt)` is its bare name ("contiguous_format"), which is what the kernels compare against.
    """

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __str__(self):
        return self.name

    def __eq__(self, other):
        return str(other) == self.name if isinstance(other, (str, memory_format)) else NotImplemented

    def __hash__(self):
        return hash(self.name)


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")


def _format_name(fmt):
    return None if fmt is None else str(fmt)


# ---- argument checks shared by every factory ----------------------------------------------------------------


def _type_name(obj):
    """The type name PyTorch's argument parser prints: `float`, `Tensor`, `numpy.ndarray`."""
    if isinstance(obj, Tensor):
        return "Tensor"
    t = type(obj)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _is_index(x):
    """Can `x` be one size in a shape? Python ints (not bools), NumPy integers, 0-d integer tensors."""
    if isinstance(x, bool):
        return False
    if isinstance(x, (int, np.integer)):
        return True
    return isinstance(x, Tensor) and x.dim() == 0 and not x.dtype.is_floating_point


def _size_arg(size, fn="zeros", keywords=None):
    """Accept `zeros(2, 3)`, `zeros((2, 3))`, `zeros([2, 3])`, `zeros(Size)` and `zeros(size=(2, 3))`; check
    like PyTorch's parser. `keywords` are the call's leftover keyword arguments (only `size` is allowed)."""
    if keywords:
        unknown = sorted(set(keywords) - {"size"})
        if unknown:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{unknown[0]}'")
        if size:
            raise TypeError(f"{fn}() got multiple values for argument 'size'")
        size = (keywords["size"],)
    if not size:
        raise TypeError(f"{fn}() missing 1 required positional arguments: \"size\"")
    if len(size) == 1 and not _is_index(size[0]):
        s = size[0]
        if not isinstance(s, (tuple, list)):
            raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, not {_type_name(s)}")
        size = tuple(s)
        if size and not _is_index(size[0]):
            raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, but found element of "
                            f"type {_type_name(size[0])} at pos 0")
    elif len(size) > 1 and not _is_index(size[0]):
        raise TypeError(f"{fn}() takes 1 positional argument but {len(size)} were given")
    out = []
    for i, s in enumerate(size):
        # The parser looks only at the first element up front; the others are checked while unpacking
        # (where a bool passes as an int, exactly as in PyTorch).
        if not (_is_index(s) or isinstance(s, bool)):
            raise TypeError(f"{fn}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {_type_name(s)}\"")
        out.append(operator.index(s))
    return tuple(out)


def check_sizes(sizes):
    """Negative sizes are refused by the allocator (`check_size_nonnegative`, c10/core/...Allocator)."""
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(sizes)}")
    return sizes


def check_device(device):
    """The device of a new tensor, refusing backends this installation does not have."""
    device = as_device(device)
    if device.type not in ARRAY_MODULES and device.type != "meta":
        # torch without CUDA raises exactly this (torch/cuda/__init__.py, _lazy_init)
        raise AssertionError("Torch not compiled with CUDA enabled")
    return device


def _check_dtype(dtype, fn):
    if dtype is not None and not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"{fn}(): argument 'dtype' must be torch.dtype, not {_type_name(dtype)}")
    return dtype


def _finish(t, requires_grad):
    """`requires_grad=True` on a factory: only floating point results may require gradients."""
    if requires_grad:
        if not t.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    return t


def check_out(fn, out, dtype):
    """The checks PyTorch makes on `out=` of a factory before anything is computed."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{fn}(): argument 'out' must be Tensor, not {_type_name(out)}")
    if dtype is not None and dtype is not out.dtype:
        raise RuntimeError(f"dtype {dtype._ptname} does not match dtype of out parameter ({out.dtype._ptname})")
    if out.requires_grad and is_grad_enabled():
        raise RuntimeError(f"aten::{fn}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


# ---- numbers into a dtype: c10::checked_convert ----------------------------------------------------------

def _as_number(value):
    if isinstance(value, (Tensor, np.generic)):
        return value.item()
    return value


# ---- the factory ops ------------------------------------------------------------------------------------


def _factory(schema, kernel):
    """Define a factory op: kernels for CPU and Meta, and a BackendSelect kernel that reads `device=`."""
    op = define(schema)
    register_kernel(op, kernel)
    impl(op, DispatchKey.BackendSelect, backend_select_kernel(op))
    return op


def _factory_out(schema, kernel):
    """The `.out` overload of a factory: `kernel(ks, *args, dtype, device)` runs with out's dtype and device,
    then the result goes into `out` through write_out (checks, resize, the one write path)."""
    op = define(schema)

    def out_kernel(ks, *args):
        *args, out = args
        result = kernel(ks, *args, out.dtype, out.device)
        data = None if result._storage._data is None else result._data()
        return write_out(out, data, result.dtype, result._sizes)

    out_kernel.__qualname__ = kernel.__qualname__.replace("_kernel", "_out_kernel")
    register_kernel(op, out_kernel)
    return op


def _fill(t, value):
    """Fill a fresh tensor (no-op on meta: it has no bytes)."""
    if t._storage._data is not None:
        write(t, value)
    return t


def fill_value(value, dtype, numel):
    """The value `fill_` writes: checked against the dtype's range, except that PyTorch's one-element fast path
    (`scalar_fill`) converts to Half without the check (so `full((1,), 1e5, dtype=float16)` is inf, while
    `full((2,), 1e5, dtype=float16)` is an error)."""
    if dtype is _dtype.float16 and numel == 1:
        return float(np.float16(_as_number(value)))
    return checked_convert(value, dtype)


def _fill_kernel(value_of, name):
    def fill_kernel(ks, size, *rest):
        *rest, dtype, device = rest
        dtype = dtype or _dtype.get_default_dtype()
        size = check_sizes(size)
        v = fill_value(value_of(*rest), dtype, math.prod(size))   # before allocating: a bad value fails fast
        t = _empty_tensor(size, dtype, device)
        return t if v == 0 else _fill(t, v)   # fresh storage is already zeroed
    fill_kernel.__qualname__ = f"{name}_kernel"
    return fill_kernel


_zeros_kernel = _fill_kernel(lambda: 0, "zeros")
_ones_kernel = _fill_kernel(lambda: 1, "ones")
_full_kernel = _fill_kernel(lambda v: v, "full")


def _empty_kernel(ks, size, dtype, device, memory_format=None):
    size = check_sizes(size)
    strides = channels_last_strides(size) if memory_format == "channels_last" else None
    return _empty_tensor(size, dtype or _dtype.get_default_dtype(), device, strides)


empty_op = _factory(f"empty.memory_format(SymInt[] size, {_FACTORY_TAIL}, MemoryFormat? memory_format=None) "
                    "-> Tensor", _empty_kernel)
zeros_op = _factory(f"zeros(SymInt[] size, {_FACTORY_TAIL}) -> Tensor", _zeros_kernel)
ones_op = _factory(f"ones(SymInt[] size, {_FACTORY_TAIL}) -> Tensor", _ones_kernel)
full_op = _factory(f"full(SymInt[] size, Scalar fill_value, {_FACTORY_TAIL}) -> Tensor", _full_kernel)

empty_out_op = _factory_out("empty.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)", _empty_kernel)
zeros_out_op = _factory_out("zeros.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)", _zeros_kernel)
ones_out_op = _factory_out("ones.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)", _ones_kernel)
full_out_op = _factory_out("full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> Tensor(a!)",
                           _full_kernel)


def _empty_strided_kernel(ks, size, stride, dtype, device):
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    check_sizes(size)
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    return _empty_tensor(size, dtype or _dtype.get_default_dtype(), device, stride)


empty_strided_op = _factory(f"empty_strided(SymInt[] size, SymInt[] stride, {_FACTORY_TAIL}) -> Tensor",
                            _empty_strided_kernel)


def _filled(op, out_op, fn, size, *value, dtype, device, requires_grad, out):
    _check_dtype(dtype, fn)
    if out is not None:
        check_out(fn, out, dtype)
        return out_op(size, *value, out=out)
    return _finish(op(size, *value, dtype=dtype, device=check_device(device)), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, out=None, memory_format=None, pin_memory=False,
          layout=None, **size_keyword):
    """A tensor whose values are whatever the memory held (here: zeros, as fresh NumPy memory is zeroed)."""
    size = _size_arg(size, "empty", size_keyword)
    if out is not None:
        check_out("empty", out, dtype)
        return empty_out_op(size, out=out)
    _check_dtype(dtype, "empty")
    return _finish(empty_op(size, dtype=dtype, device=check_device(device),
                            memory_format=_format_name(memory_format)), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None, pin_memory=False, layout=None,
          **size_keyword):
    size = _size_arg(size, "zeros", size_keyword)
    if any(s < 0 for s in size):
        raise RuntimeError("zeros: Dimension size must be non-negative.")   # zeros checks on its own
    return _filled(zeros_op, zeros_out_op, "zeros", size, dtype=dtype, device=device,
                   requires_grad=requires_grad, out=out)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None, pin_memory=False, layout=None,
         **size_keyword):
    return _filled(ones_op, ones_out_op, "ones", _size_arg(size, "ones", size_keyword), dtype=dtype, device=device,
                   requires_grad=requires_grad, out=out)


def _fill_value(fill_value, fn):
    if isinstance(fill_value, Tensor):
        if fill_value.dim() != 0:
            raise TypeError(f"{fn}(): argument 'fill_value' (position 2) must be Number, not Tensor")
        return fill_value.item()
    if not isinstance(fill_value, (bool, int, float, np.generic)):
        raise TypeError(f"{fn}(): argument 'fill_value' (position 2) must be Number, not {_type_name(fill_value)}")
    if isinstance(fill_value, np.bool_):
        return float(fill_value)   # PyTorch's parser reads a NumPy bool as a double
    return fill_value.item() if isinstance(fill_value, np.generic) else fill_value


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None, pin_memory=False,
         layout=None):
    if _is_index(size) or not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {_type_name(size)}")
    fill_value = _fill_value(fill_value, "full")
    if dtype is None and out is None:
        dtype = _dtype.scalar_dtype(fill_value)   # PyTorch infers full's dtype from the fill value
    return _filled(full_op, full_out_op, "full", _size_arg((size,), "full"), fill_value, dtype=dtype,
                   device=device, requires_grad=requires_grad, out=out)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A 0-d tensor holding `s`; its dtype is the default float dtype whatever `s` is."""
    return full((), s, dtype=dtype or _dtype.get_default_dtype(), device=device, requires_grad=requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    size, stride = _size_arg((size,), "empty_strided"), tuple(operator.index(s) for s in stride)
    return _finish(empty_strided_op(size, stride, dtype=_check_dtype(dtype, "empty_strided"),
                                    device=check_device(device)), requires_grad)


# ---- arange, linspace, logspace, eye (aten/src/ATen/native/RangeFactories.cpp) --------------------------


def _g(x):
    """A double printed as C++'s `operator<<` prints it (6 significant digits)."""
    return f"{x:g}"


def _to_acc(value, dtype):
    """A Scalar as the kernel's accumulate type: int64 for integer dtypes (with overflow check), else float."""
    if dtype.is_floating_point:
        return float(value)
    return checked_convert(value, _dtype.int64)


def _trunc_div(a, b):
    """C++ integer division: truncates toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _arange_length(start, end, step, dtype):
    """How many elements `arange` makes (`compute_arange_size` in RangeUtils.h)."""
    xstart, xend, xstep = _to_acc(start, dtype), _to_acc(end, dtype), _to_acc(step, dtype)
    dstart, dend, dstep = float(start), float(end), float(step)
    # the bounds are checked in double precision, whatever the dtype
    if not (dstep > 0 or dstep < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(dstart) and math.isfinite(dend)):
        raise RuntimeError(f"unsupported range: {_g(dstart)} -> {_g(dend)}")
    if not ((dstep > 0 and dend >= dstart) or (dstep < 0 and dend <= dstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is _dtype.int64:
        # int64 has more precision than double: the length is computed exactly in integers
        if xstep == 0:
            raise ValueError("step must be nonzero")
        sgn = (xstep > 0) - (xstep < 0)
        size_d = float(_trunc_div(xend - xstart + xstep - sgn, xstep))
    else:
        size_d = math.ceil((dend - dstart) / dstep)
    if not (0 <= size_d <= float(2**63 - 1)):
        raise RuntimeError("invalid size, possible overflow?")
    return int(size_d), xstart, xstep


def fma(a, b, c):
    """a * b + c with a single rounding, as the cpu's fused multiply-add computes it (for float64 arrays).

    PyTorch's cpu kernels are compiled with FMA enabled, so C++ like `start + step * idx` becomes one fused
    instruction. NumPy has no fma, so this uses the classic error-free transformations: Dekker's product
    (a * b == p + e exactly) and Knuth's two-sum (p + c == s + t exactly).
    """
    p = a * b
    split = 134217729.0   # 2**27 + 1: cuts a double's 53-bit mantissa into two halves
    ta, tb = split * a, split * b
    a_hi, b_hi = ta - (ta - a), tb - (tb - b)
    a_lo, b_lo = a - a_hi, b - b_hi
    e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + e)


def _simd_bytes():
    """Bytes in one of ATen's cpu vectors (`Vectorized<T>`): 64 with AVX512, else 32 (AVX2, and ATen's generic
    and ARM vectors). PyTorch picks AVX512 kernels when the cpu has avx512f/bw/dq/vl and fma (DispatchStub.cpp)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return 32
    return 64 if {"avx512f", "avx512bw", "avx512dq", "avx512vl", "fma"} <= set(flags) else 32


SIMD_BYTES = _simd_bytes()


def simd_fill(xp, n, itemsize, first, lanes):
    """The values ATen's cpu loop writes for a generated sequence (arange, linspace).

    The loop (`vectorized_loop` in aten/src/ATen/native/cpu/Loops.h) fills two SIMD vectors of W elements at a
    time while 2W elements remain, then the rest one by one. Element i written on its own is `first(i)`; a
    vector starting at element k holds `lanes(first(k), j)` in lane j (`Vectorized<T>::arange(base, step)`:
    base plus j steps). The two ways can differ in the last bit of a float, or by one for integers truncated
    from doubles, so PyTorch's result depends on the cpu's vector width; teachtorch follows it.
    """
    width = SIMD_BYTES // itemsize
    idx = xp.arange(n)
    scalar = first(idx)
    vec_end = n // (2 * width) * (2 * width)
    if vec_end == 0:
        return scalar
    chunk = idx[:vec_end] // width * width
    vector = lanes(first(chunk), idx[:vec_end] - chunk)
    return xp.concatenate([vector, scalar[vec_end:]])


def _arange_kernel(ks, start, end, step, dtype, device):
    if dtype is _dtype.bool_:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    n, xstart, xstep = _arange_length(start, end, step, dtype)
    t = _empty_tensor((n,), dtype, device)
    if t._storage._data is None or n == 0:
        return t
    xp = ARRAY_MODULES[device.type]
    # element i is start + step * i, computed in the kernel's accumulate type (acc_type<T, /*cuda=*/false>):
    # double for float and double, float for half, int64 for the integer types (which then wrap around)
    acc = {_dtype.float16: np.float32, _dtype.float32: np.float64, _dtype.float64: np.float64}.get(dtype, np.int64)
    if acc is np.int64:
        def first(i):
            return (xstart + xstep * i).astype(dtype.numpy)   # exact in int64, then wraps around like C

        def lanes(base, j):
            return (base.astype(np.int64) + j * xstep).astype(dtype.numpy)
    else:
        # `start + step * i` is one fused multiply-add (see fma); for half the accumulate type is float,
        # computed here in double and rounded to float (the two differ only in exact ties)
        def first(i):
            return fma(float(xstep), i.astype(np.float64), float(xstart)).astype(acc).astype(dtype.numpy)

        def lanes(base, j):
            return fma(j.astype(np.float64), float(xstep), base.astype(np.float64)).astype(acc).astype(dtype.numpy)
    with np.errstate(over="ignore"):
        values = simd_fill(xp, n, dtype.itemsize, first, lanes)
    write(t, values)
    return t


arange_op = _factory(f"arange.start_step(Scalar start, Scalar end, Scalar step=1, {_FACTORY_TAIL}) -> Tensor",
                     _arange_kernel)
arange_out_op = _factory_out("arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> "
                             "Tensor(a!)", _arange_kernel)

_ARANGE_SIGNATURES = (
    " * (Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
    "None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, torch.layout "
    "layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")


def _number(v, fn, given):
    """A `Number` argument: Python numbers, NumPy scalars and 0-d tensors (read with .item())."""
    if isinstance(v, Tensor) and v.dim() == 0:
        return v.item()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (bool, int, float)):
        return v
    raise TypeError(f"{fn}() received an invalid combination of arguments - got ({', '.join(given)}), but "
                    f"expected one of:\n" + _ARANGE_SIGNATURES)


_MISSING = object()


def arange(start=_MISSING, end=_MISSING, step=_MISSING, *, dtype=None, device=None, requires_grad=False, out=None,
           layout=None, pin_memory=False):
    """`arange(end)`, `arange(start, end)`, `arange(start, end, step)`: start + i * step while before end."""
    given = [_type_name(v) for v in (start, end, step) if v is not _MISSING]
    if end is _MISSING:
        start, end = 0, start
    if start is _MISSING:
        start = 0
    if end is _MISSING:
        raise TypeError("arange() received an invalid combination of arguments - got (), but expected one of:\n"
                        + _ARANGE_SIGNATURES)
    step = 1 if step is _MISSING else step
    start, end, step = (_number(v, "arange", given) for v in (start, end, step))
    _check_dtype(dtype, "arange")
    if out is not None:
        check_out("arange", out, dtype)
        return arange_out_op(start, end, step, out=out)
    if dtype is None:
        # any float among start, end, step makes a float tensor of the default dtype; else int64
        is_float = any(isinstance(v, float) for v in (start, end, step))
        dtype = _dtype.get_default_dtype() if is_float else _dtype.int64
    return _finish(arange_op(start, end, step, dtype=dtype, device=check_device(device)), requires_grad)


def _linspace_values(xp, start, end, steps, dtype):
    """`linspace_kernel` (RangeFactoriesKernel.cpp): the first half counts up from start, the second half down
    from end, so both ends are exact. Floats compute in their own dtype, integers step in double and truncate;
    `start + step * i` is one fused multiply-add in PyTorch's compiled kernel, and so it is here."""
    idx = xp.arange(steps)
    up = idx < steps // 2
    i = xp.where(up, idx, steps - idx - 1).astype(np.float64)   # steps from start, or from end
    if dtype.is_floating_point:
        T = dtype.numpy.type
        s, e = T(checked_convert(start, dtype)), T(checked_convert(end, dtype))
        step = (e - s) / T(steps - 1)
        if dtype is _dtype.float16:
            # c10::Half arithmetic rounds after every operation: no fused multiply-add
            return xp.where(up, s + step * i.astype(T), e - step * i.astype(T))
        # for float32 the double fma rounds twice (to double, then float): off only in exact ties
        return xp.where(up, fma(float(step), i, float(s)), fma(-float(step), i, float(e))).astype(T)
    s, e = float(checked_convert(start, dtype)), float(checked_convert(end, dtype))
    step = (e - s) / (steps - 1)
    values = xp.where(up, fma(step, i, s), fma(-step, i, e))
    with np.errstate(invalid="ignore"):
        return values.astype(dtype.numpy)   # a C cast: truncation toward zero


def _linspace_kernel(ks, start, end, steps, dtype, device):
    dtype = dtype or _dtype.get_default_dtype()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    t = _empty_tensor((steps,), dtype, device)
    if steps == 1:
        return _fill(t, fill_value(start, dtype, 1))   # one step: just start (a fill, for any dtype)
    if dtype is _dtype.bool_ and steps > 1:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    if t._storage._data is None or steps == 0:
        return t
    write(t, _linspace_values(ARRAY_MODULES[device.type], start, end, steps, dtype))
    return t


def _logspace_kernel(ks, start, end, steps, base, dtype, device):
    dtype = dtype or _dtype.get_default_dtype()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    t = _empty_tensor((steps,), dtype, device)
    if steps == 1:
        return _fill(t, fill_value(float(np.power(float(base), float(start))), dtype, 1))
    if dtype is _dtype.bool_ and steps > 1:
        raise NotImplementedError("\"logspace_cpu\" not implemented for 'Bool'")
    if t._storage._data is None or steps == 0:
        return t
    xp = ARRAY_MODULES[device.type]
    # base ** (the linspace exponents) (logspace_out in RangeFactories.cpp): start and end are first converted
    # to the dtype, their difference taken in it, the exponents and the power computed in double
    T = dtype.numpy.type
    s, e = T(checked_convert(start, dtype)), T(checked_convert(end, dtype))
    diff = e - s if dtype.is_floating_point else int(e) - int(s)   # C++ promotes small integers to int
    step = float(diff) / (steps - 1)
    idx = xp.arange(steps)
    up = idx < steps // 2
    counter = idx.astype(dtype.numpy).astype(np.float64)   # the loop's counter has the output's dtype
    # (no fused multiply-add here: RangeFactories.cpp is not one of the kernels compiled for AVX2)
    exponents = xp.where(up, float(s) + step * counter, float(e) - step * (steps - counter - 1))
    with np.errstate(over="ignore", invalid="ignore"):
        write(t, xp.power(float(base), exponents).astype(dtype.numpy))   # a C cast: truncation for integers
    return t


def _eye_kernel(ks, n, m, dtype, device):
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    m = n if m is None else m
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    t = _empty_tensor((n, m), dtype or _dtype.get_default_dtype(), device)
    if t._storage._data is not None and min(n, m) > 0:
        # the diagonal of an (n, m) matrix is a view with stride m + 1: write ones through it
        write(Tensor._make(t._storage, 0, (min(n, m),), (m + 1,), t.dtype), 1)
    return t


linspace_op = _factory(f"linspace(Scalar start, Scalar end, int steps, {_FACTORY_TAIL}) -> Tensor",
                       _linspace_kernel)
linspace_out_op = _factory_out("linspace.out(Scalar start, Scalar end, int steps, *, Tensor(a!) out) -> Tensor(a!)",
                               _linspace_kernel)
logspace_op = _factory(f"logspace(Scalar start, Scalar end, int steps, float base=10.0, {_FACTORY_TAIL}) -> Tensor",
                       _logspace_kernel)
logspace_out_op = _factory_out("logspace.out(Scalar start, Scalar end, int steps, float base=10.0, *, "
                               "Tensor(a!) out) -> Tensor(a!)", _logspace_kernel)
eye_op = _factory(f"eye.m(SymInt n, SymInt? m=None, {_FACTORY_TAIL}) -> Tensor", _eye_kernel)
eye_out_op = _factory_out("eye.m_out(SymInt n, SymInt? m=None, *, Tensor(a!) out) -> Tensor(a!)", _eye_kernel)


def _space_args(fn, start, end, steps):
    for name, v in (("start", start), ("end", end)):
        if isinstance(v, Tensor) and v.dim() != 0:
            raise RuntimeError(f"{fn} only supports 0-dimensional start and end tensors, but got {name} with "
                               f"{v.dim()} dimension(s).")
    if not _is_index(steps):
        raise TypeError(f"{fn}(): argument 'steps' (position 3) must be int, not {_type_name(steps)}")
    return _as_number(start), _as_number(end), operator.index(steps)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None, layout=None,
             pin_memory=False):
    """`steps` evenly spaced values from `start` to `end`, both included."""
    start, end, steps = _space_args("linspace", start, end, steps)
    _check_dtype(dtype, "linspace")
    if out is not None:
        check_out("linspace", out, dtype)
        return linspace_out_op(start, end, steps, out=out)
    return _finish(linspace_op(start, end, steps, dtype=dtype, device=check_device(device)), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, out=None,
             layout=None, pin_memory=False):
    """`base ** linspace(start, end, steps)`."""
    start, end, steps = _space_args("logspace", start, end, steps)
    _check_dtype(dtype, "logspace")
    if out is not None:
        check_out("logspace", out, dtype)
        return logspace_out_op(start, end, steps, float(base), out=out)
    return _finish(logspace_op(start, end, steps, float(base), dtype=dtype, device=check_device(device)),
                   requires_grad)


_EYE_SIGNATURES = (
    " * (int n, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
    "None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (int n, int m, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False)\n")


def eye(n, m=_MISSING, *, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False):
    """The (n, m) identity matrix (m defaults to n)."""
    if m is _MISSING:
        if not _is_index(n):
            raise TypeError(f"eye(): argument 'n' (position 1) must be int, not {_type_name(n)}")
        m = None
    elif not (_is_index(n) and _is_index(m)):
        raise TypeError(f"eye() received an invalid combination of arguments - got ({_type_name(n)}, "
                        f"{_type_name(m)}), but expected one of:\n" + _EYE_SIGNATURES)
    n, m = operator.index(n), None if m is None else operator.index(m)
    _check_dtype(dtype, "eye")
    if out is not None:
        check_out("eye", out, dtype)
        return eye_out_op(n, m, out=out)
    return _finish(eye_op(n, m, dtype=dtype, device=check_device(device)), requires_grad)


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


def _recursive_store(obj, sizes, dim, flat, dtype=None):
    """Collect the leaves in row-major order, checking every list's length (`recursive_store`).

    With `dtype`, each leaf is converted as it is reached, so the first problem in element order is the one
    reported, as in PyTorch (which writes each number into the tensor as it walks).
    """
    if dim == len(sizes):
        flat.append(obj if dtype is None else _store_scalar(obj, dtype))
        return
    if not _is_sequence(obj):
        raise TypeError("not a sequence")
    n = sizes[dim]
    if len(obj) != n:
        raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(obj)})")
    if dim == len(sizes) - 1 and dtype is None:
        flat.extend(obj)   # the innermost lists hold the leaves (converted, and checked, afterwards)
        return
    for item in obj:
        if isinstance(item, np.ndarray) and not _warned_ndarray_list[0]:
            _warned_ndarray_list[0] = True
            warnings.warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
                          "converting the list to a single numpy.ndarray with numpy.array() before converting to "
                          "a tensor.", UserWarning, stacklevel=4)
        _recursive_store(item, sizes, dim + 1, flat, dtype)


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
    v = operator.index(obj)   # "'list' object cannot be interpreted as an integer", as in PyTorch
    if not -2**63 <= v < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return v


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


def _array_from_sequence(data, dtype):
    """A NumPy array of `dtype` holding the nested sequence `data` (scalars included), PyTorch's checks kept."""
    sizes = _compute_sizes(data)
    inferred = _infer_scalar_type(data)
    dtype = dtype or inferred
    if 0 in sizes:
        return np.zeros(sizes, dtype=dtype.numpy), dtype
    flat = []
    try:
        _recursive_store(data, sizes, 0, flat)
    except (TypeError, ValueError):
        _recursive_store(data, sizes, 0, [], dtype)   # converting too: raises the error PyTorch meets first
        raise
    values = _fast_numbers(flat, dtype)
    if values is None:
        values = [_store_scalar(x, dtype) for x in flat]
        values = np.array(values, dtype=np.float64 if dtype.is_floating_point else np.int64)
    with np.errstate(over="ignore"):   # a float too big for float32 becomes inf, as in C
        return values.astype(dtype.numpy).reshape(sizes), dtype


def copy_to(src, dtype, device, strides):
    """A new tensor with `src`'s elements, cast to `dtype`, on `device`, with the given strides."""
    if src._storage._data is None and as_device(device).type != "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    out = _empty_tensor(src._sizes, dtype, device, strides)
    if out._storage._data is not None:
        host = src._data() if src.device == out.device else src._host_array()
        write(out, ARRAY_MODULES[out.device.type].asarray(host))
    return out


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data` (nested lists of numbers, a NumPy array, a tensor)."""
    _check_dtype(dtype, "tensor")
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
    if not isinstance(array, np.ndarray):
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


# ---- *_like -----------------------------------------------------------------------------------------------


def strides_for(t, memory_format):
    """The strides of a new tensor shaped like `t` in `memory_format` (None means preserve_format)."""
    memory_format = _format_name(memory_format)
    if memory_format in (None, "preserve_format"):
        return preserve_strides(t)
    if memory_format == "channels_last":
        return channels_last_strides(t._sizes)
    return contiguous_strides(t._sizes)


_LIKE_TAIL = "*, ScalarType? dtype=None, Device? device=None, MemoryFormat? memory_format=None"


def _like_kernel(value_of):
    def like_kernel(ks, self, *rest):
        *rest, dtype, device, memory_format = rest
        dtype = dtype or self.dtype
        device = as_device(device) if device is not None else self.device
        v = fill_value(value_of(*rest), dtype, math.prod(self._sizes)) if value_of is not None else 0
        t = _empty_tensor(self._sizes, dtype, device, strides_for(self, memory_format))
        return t if v == 0 else _fill(t, v)
    return like_kernel


empty_like_op = define(f"empty_like(Tensor self, {_LIKE_TAIL}) -> Tensor")
register_kernel(empty_like_op, _like_kernel(None))
zeros_like_op = define(f"zeros_like(Tensor self, {_LIKE_TAIL}) -> Tensor")
register_kernel(zeros_like_op, _like_kernel(lambda: 0))
ones_like_op = define(f"ones_like(Tensor self, {_LIKE_TAIL}) -> Tensor")
register_kernel(ones_like_op, _like_kernel(lambda: 1))
full_like_op = define(f"full_like(Tensor self, Scalar fill_value, {_LIKE_TAIL}) -> Tensor")
register_kernel(full_like_op, _like_kernel(lambda v: v))


def check_like_input(fn, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {_type_name(input)}")


def _like(op, fn, input, *value, dtype, device, requires_grad, memory_format):
    check_like_input(fn, input)
    _check_dtype(dtype, fn)
    device = None if device is None else check_device(device)
    return _finish(op(input, *value, dtype=dtype, device=device, memory_format=_format_name(memory_format)),
                   requires_grad)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None,
               pin_memory=False):
    return _like(empty_like_op, "empty_like", input, dtype=dtype, device=device, requires_grad=requires_grad,
                 memory_format=memory_format)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None,
               pin_memory=False):
    return _like(zeros_like_op, "zeros_like", input, dtype=dtype, device=device, requires_grad=requires_grad,
                 memory_format=memory_format)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None,
              pin_memory=False):
    return _like(ones_like_op, "ones_like", input, dtype=dtype, device=device, requires_grad=requires_grad,
                 memory_format=memory_format)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None,
              pin_memory=False):
    return _like(full_like_op, "full_like", input, _fill_value(fill_value, "full_like"), dtype=dtype,
                 device=device, requires_grad=requires_grad, memory_format=memory_format)


def _rebuild(values, dtype_name, device, requires_grad):
    return tensor(values, dtype=_dtype._lookup(dtype_name), device=device, requires_grad=requires_grad)


__all__ = ['arange', 'as_tensor', 'channels_last', 'contiguous_format', 'empty', 'empty_like',
           'empty_strided', 'eye', 'from_numpy', 'full', 'full_like', 'linspace', 'logspace', 'memory_format',
           'ones', 'ones_like', 'preserve_format', 'scalar_tensor', 'tensor', 'zeros', 'zeros_like']
