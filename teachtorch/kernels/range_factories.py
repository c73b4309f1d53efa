"""The kernels of the range factories: `arange`, `linspace`, `logspace`, `eye`
(aten/src/ATen/native/RangeFactories.cpp).

ops/range_factories.py defines the ops and the public functions; the kernels registered for CPU, CUDA and Meta
are here, one `def` per op. Their values are computed the way PyTorch's kernels compute them, step for
step, so that they match to the last bit: `arange` element i is `start + i * step` in the accumulate type,
`linspace` fills from both ends.
"""

import math
import warnings

import numpy as np

from .. import _dtype
from .._dtype import checked_convert
from .._strides import INT64_MAX, check_numel
from .._tensor import Tensor
from ..backends import ARRAY_MODULES, quietly, write
from ..backends import empty as _empty_tensor
from .factories import factory_out, fill_fresh, fill_value
from .pointwise import write_out


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
    if not (0 <= size_d <= float(INT64_MAX)):
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


def arange_kernel(ks, start, end, step, dtype, device):
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
    if acc is np.int64:
        values = quietly(first, xp.arange(n, dtype=np.int64))   # integers are exact: no lanes to imitate
    else:
        values = quietly(simd_fill, xp, n, dtype.itemsize, first, lanes)
    write(t, values)
    return t



def arange_end_kernel(ks, end, dtype, device):
    """`arange(end)`, PyTorch's `arange` overload: start 0, step 1."""
    return arange_kernel(ks, 0, end, 1, dtype, device)


def arange_start_kernel(ks, start, end, dtype, device):
    """`arange(start, end)`, PyTorch's `arange.start` overload: step 1."""
    return arange_kernel(ks, start, end, 1, dtype, device)


def arange_out_kernel(ks, start, end, step, out):
    """arange_out (RangeFactories.cpp): an out tensor with the right *number* of elements keeps its shape and
    is filled in order; any other is resized to 1-d, with arange's own warning when it had elements."""
    result = arange_kernel(ks, start, end, step, out.dtype, out.device)
    n, shape = result.numel(), out._sizes
    if out.numel() != n:
        if out.numel() > 0:
            warnings.warn(
                f"The number of elements in the out tensor of shape {list(shape)} is {out.numel()} which does "
                f"not match the computed number of elements {n}. Note that this may occur as a result of rounding "
                f"error. The out tensor will be resized to a tensor of shape ({n},).", UserWarning, stacklevel=5)
        shape = (n,)
        fresh = _empty_tensor(shape, out.dtype, out.device)
        out._set_metadata(fresh._storage, 0, fresh._sizes, fresh._strides)
    data = None if result._storage._data is None else result._data().reshape(shape)
    return write_out(out, data, result.dtype, shape)


def linspace_values(xp, start, end, steps, dtype):
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
    return quietly(values.astype, dtype.numpy)   # a C cast: truncation toward zero


def linspace_kernel(ks, start, end, steps, dtype, device):
    dtype = dtype or _dtype.get_default_dtype()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    t = _empty_tensor((steps,), dtype, device)
    if steps == 1:
        return fill_fresh(t, fill_value(start, dtype, 1))   # one step: just start (a fill, for any dtype)
    if dtype is _dtype.bool_ and steps > 1:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    if t._storage._data is None or steps == 0:
        return t
    write(t, linspace_values(ARRAY_MODULES[device.type], start, end, steps, dtype))
    return t


def logspace_kernel(ks, start, end, steps, base, dtype, device):
    dtype = dtype or _dtype.get_default_dtype()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    t = _empty_tensor((steps,), dtype, device)
    if steps == 1:
        return fill_fresh(t, fill_value(float(np.power(float(base), float(start))), dtype, 1))
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
    values = quietly(lambda: xp.power(float(base), exponents).astype(dtype.numpy))  # C cast: ints truncate
    write(t, values)
    return t


def eye_kernel(ks, n, m, dtype, device):
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    m = n if m is None else m
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    # PyTorch resizes an empty tensor to (n, m) (`eye_out`), and `resize_` checks the element count first
    check_numel((n, m))
    t = _empty_tensor((n, m), dtype or _dtype.get_default_dtype(), device)
    if t._storage._data is not None and min(n, m) > 0:
        # the diagonal of an (n, m) matrix is a view with stride m + 1: write ones through it
        write(Tensor._make(t._storage, 0, (min(n, m),), (m + 1,), t.dtype), 1)
    return t


def linspace_out_kernel(ks, start, end, steps, out):
    return factory_out(linspace_kernel, ks, (start, end, steps), out)


def logspace_out_kernel(ks, start, end, steps, base, out):
    return factory_out(logspace_kernel, ks, (start, end, steps, base), out)


def eye_out_kernel(ks, n, m, out):
    return factory_out(eye_kernel, ks, (n, m), out)
