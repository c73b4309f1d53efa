"""Every place where NumPy (cpu) and CuPy (cuda) differ, in one file, so it can be audited.

The kernels are written once against an array module `xp`, and CuPy follows NumPy's API almost name for name
(tests/cupy_api_names.txt lists CuPy's names; the test suite's stand-in for CuPy offers only those). Where
the two really differ, the kernels call a function here instead, and nowhere else:

1. **Scatter with repeated indices** (`index_add_`, `index_put_(accumulate=True)`, `scatter_reduce`, the
   backward of indexing). NumPy has `ufunc.at`; CuPy has `cupyx.scatter_add/max/min`, built on CUDA atomics,
   which exist only for some dtypes (32- and 64-bit types). `ufunc_at` below uses them directly where they
   can, widens the small types first, adds int64 as uint64 (two's-complement addition is the same bits), and
   does on the host (slow, and said so) what a GPU has no atomic for, a scatter-*multiply*, and the float
   max and min, whose CuPy atomics compute otherwise (cupy/_core/include/cupy/atomics.cuh:62-117: a loop of
   `fmaxf`/`fminf`, which skips NaN where PyTorch propagates it, and which rounds float64 to float32).
2. **Host and device memory do not mix.** A NumPy array cannot be an operand of a CuPy function, so anything
   computed on the host (random numbers, a Python list) is copied with `to_device` first, and read back with
   `to_host`. Python numbers are fine on both (they are kernel parameters), and the kernels pass them as
   NumPy scalars (kernels/pointwise.py `_cast`), never as 0-dim device arrays, which would cost a copy each.
3. **Random numbers** are drawn on the host for both devices (kernels/random.py; NumPy's PCG64), then copied to
   the GPU. One implementation, so seeding, `get_state` and every distribution behave the same on both
   devices; the price is a host-to-device copy per random op. PyTorch draws cuda random numbers on the GPU
   (Philox), so its cuda numbers differ from its cpu numbers; teachtorch's cuda numbers equal its cpu ones
   for the same seed, which the cross-backend tests rely on.
4. **In-place semantics.** `a[idx] = v` with a repeated index: NumPy keeps the last write, a GPU keeps any
   one of them (PyTorch's cuda `index_put_` is nondeterministic the same way). `xp.copyto(dst, src)` is the
   one write path (backends/__init__.py `write`) on both, and CuPy refuses a NumPy `src`, so callers hand it
   device arrays or scalars.
5. **Reductions return 0-dim arrays on CuPy**, not scalars: `bool(x.all())`, `float(x.sum())` and `.item()`
   work on both (each one waits for the GPU and copies one number back).
6. **dtype limits.** Both have every teachtorch dtype. float16 arithmetic is done in float32 on both
   (kernels/pointwise.py), as PyTorch's cpu "opmath" does; PyTorch's cuda kernels do the same.
7. **Errors are not raised inside GPU kernels.** NumPy raises `IndexError` on an out-of-range index; a GPU
   kernel would read out of bounds (PyTorch's cuda kernels raise a device-side assert). teachtorch checks
   indices with a reduction *before* indexing, on both devices (kernels/indexing.py), so the error is the same.
8. **Float to integer casts of values out of range** (nan, inf, -1.7 into uint8, 300.0 into int8, 3e9 into
   int32) are undefined in C++. x86, whose casts NumPy and PyTorch's cpu kernels both compile to, gives
   the "integer indefinite" (the smallest 32- or 64-bit integer), and a narrower type keeps its low bits; a
   GPU saturates instead (nan -> 0, inf -> the largest, -1.0 -> 0 for unsigned: CuPy's "Differences between
   CuPy and NumPy" page). `float_to_int` computes PyTorch's cpu result on both (backends `write` calls it,
   and kernels that cast an input to a `dtype=` argument call `astype`).
9. **A CuPy array is not a NumPy array.** `torch.from_numpy` and `torch.tensor` read host memory; a device
   array given to them is refused (`is_device_array`), as PyTorch's `from_numpy` refuses a CuPy array. (The
   test suite's stand-in for CuPy subclasses NumPy's array, so it would pass `isinstance(a, np.ndarray)`.)
10. **float32 subnormals.** CuPy compiles every kernel with `-ftz=true` (cupy/cuda/compiler.py): float32
   arithmetic and conversions flush subnormal numbers (below 2**-126) to zero. PyTorch keeps them on both
   devices. `float32_to_float64` and `float64_to_float32` convert exactly on a GPU too, through the bits
   (integer arithmetic is not flushed); kernels/special.py uses them, as erf's results and inputs reach far
   into the subnormals.
11. **argmax / argmin of floats with several NaNs.** NumPy returns the first NaN, as PyTorch does; CuPy's
   reduction keeps whichever NaN its reduction tree meets first (`my_argmax_float` in
   cupy/_core/_routines_statistics.pyx: of two NaNs it keeps `a`, not the smaller index), so `arg_extreme`
   looks for the first NaN separately on a GPU.
12. **Where a kernel simply avoids what CuPy does otherwise**, written once for both devices, with a comment
   at the call: CuPy's `any`, `all`, `nonzero` and `broadcast_to` take only device arrays, not the NumPy
   scalars numbers are passed as (kernels/pointwise_math.py uses the `.any()` method, `xp.asarray`); its
   float `floor_divide` is `floor(a / b)`, its integer `fmod` goes through double and its float16
   `nextafter` gives nan from inf (kernels/pointwise_math.py: `floor_divide_floating`, `fmod`,
   `nextafter`); its `unique` along an axis refuses bools (kernels/sorting.py `unique_dim_kernel`).
"""

import numpy as np

from . import ARRAY_MODULES
from . import cuda as _cuda

_ATOMIC_DTYPES = {np.dtype(t) for t in ("float32", "float64", "int32", "uint32", "uint64")}


def to_host(a):
    """A NumPy copy of a device array (a NumPy array is returned as it is)."""
    if type(a) is np.ndarray or isinstance(a, np.generic):
        return a
    return _cuda.cupy().asnumpy(a)


def is_device_array(a):
    """Is `a` an array of the cuda backend's array module (CuPy), not host memory?"""
    xp = ARRAY_MODULES.get("cuda")
    return xp is not None and xp is not np and isinstance(a, xp.ndarray)


def to_device(xp, a):
    """`a` (host values) as an array of module `xp`: a host-to-device copy for CuPy, nothing for NumPy."""
    return np.asarray(a) if xp is np else xp.asarray(a)


def ufunc_at(xp, name, a, index, values):
    """`a[index] (name)= values` in place, where a repeated index takes part once per repeat: NumPy's
    `getattr(np, name).at(a, index, values)`. `name` is add, maximum, minimum, multiply, logical_or or
    logical_and. `a` must be a fresh array the kernel owns (not a view of a tensor: callers write it back
    through `backends.write`)."""
    if xp is np:
        getattr(np, name).at(a, index, values)
        return
    cupyx = _cuda.cupyx()
    name = {"logical_or": "maximum", "logical_and": "minimum"}.get(name, name)   # on bools, or is max, and is min
    if name == "multiply" or (a.dtype == np.int64 and name != "add") or (a.dtype.kind == "f" and name != "add"):
        # no atomic multiply on GPUs, and CuPy's float max/min atomics skip NaN (and round float64 to
        # float32): do these on the host
        host = to_host(a)
        getattr(np, name).at(host, _host_index(index), to_host(xp.asarray(values)))
        a[...] = xp.asarray(host)
        return
    fn = {"add": cupyx.scatter_add, "maximum": cupyx.scatter_max, "minimum": cupyx.scatter_min}[name]
    values = xp.asarray(values)
    if a.dtype in _ATOMIC_DTYPES:
        fn(a, index, values.astype(a.dtype))
    elif a.dtype == np.int64 and name == "add":
        fn(a.view(np.uint64), index, values.astype(np.int64).view(np.uint64))
    else:   # bool/int8/int16/uint8/float16: in a wide type, then back (integers wrap around, as in PyTorch)
        wide_type = np.float32 if a.dtype == np.float16 else np.int32
        wide = a.astype(wide_type)
        fn(wide, index, values.astype(wide_type))
        a[...] = wide.astype(a.dtype)


def _host_index(index):
    if isinstance(index, tuple):
        return tuple(_host_index(i) for i in index)
    return index if isinstance(index, (slice, int, type(None), type(Ellipsis))) else to_host(index)


def float_to_int(xp, a, dtype):
    """Floats `a` cast to the integer NumPy `dtype` as PyTorch's cpu casts do, on either device.

    PyTorch casts with C's `static_cast`, which on x86 truncates toward zero through a 32-bit integer
    (int8, int16, int32) or a 64-bit one (int64, and uint8: c10's `static_cast_with_inter_type` goes through
    int64 so that -1.0 becomes 255); a value that does not fit that integer (nan and inf included) becomes
    its smallest value, and a narrower type keeps the low bits (300.0 into int8 is 44). Here every value is
    made to fit before the one cast a GPU may do (an in-range float into int64), and the narrowing is an
    integer cast, which wraps the same way on both devices.
    """
    bits = 64 if dtype in (np.int64, np.uint8) else 32
    smallest = -2.0 ** (bits - 1)
    t = xp.trunc(a.astype(np.float64))
    fits = (t >= smallest) & (t < -smallest)        # False for nan
    return xp.where(fits, t, smallest).astype(np.int64).astype(dtype)


def astype(xp, a, dtype):
    """`a.astype(dtype)`, a float cast to an integer type as PyTorch's cpu casts do (`float_to_int`)."""
    if a.dtype.kind == "f" and np.dtype(dtype).kind in "iu":
        return float_to_int(xp, a, dtype)
    return a.astype(dtype)


def arg_extreme(xp, a, kind, axis=None, keepdims=False):
    """`xp.argmax` (kind "max") or `xp.argmin` (kind "min") of `a`: the first extreme, or the first NaN."""
    fn = xp.argmax if kind == "max" else xp.argmin
    if xp is np or a.dtype.kind != "f":
        return fn(a, axis=axis, keepdims=keepdims)
    # on CuPy a tie of equal numbers goes to the smaller index, a tie of NaNs to either: find the first NaN
    # as the first True of a bool array (an argmax of bools: ties go to the smaller index)
    isnan = xp.isnan(a)
    return xp.where(isnan.any(axis=axis, keepdims=keepdims), xp.argmax(isnan, axis=axis, keepdims=keepdims),
                    fn(a, axis=axis, keepdims=keepdims))


def float32_to_float64(xp, a):
    """float32 `a` as float64, exactly, subnormals included (a GPU's conversion flushes them: item 10)."""
    if xp is np:
        return a.astype(np.float64)
    bits = a.view(np.uint32)
    magnitude = (bits & np.uint32(0x7FFFFF)).astype(np.float64) * 2.0 ** -149   # a subnormal's value, exact
    subnormal = xp.where((bits >> np.uint32(31)) == 1, -magnitude, magnitude)
    return xp.where((bits & np.uint32(0x7F800000)) == 0, subnormal, a.astype(np.float64))


def float64_to_float32(xp, a):
    """float64 `a` rounded to float32, to a subnormal where it is that small (a GPU's conversion would give 0)."""
    rounded = a.astype(np.float32)
    if xp is np:
        return rounded
    # below 2**-126 a float32 is a multiple of 2**-149: its bits are that multiple (2**23 is the smallest normal)
    magnitude = xp.abs(a)
    multiple = xp.rint(xp.where(magnitude < 2.0 ** -126, magnitude, 0) * 2.0 ** 149).astype(np.uint32)
    bits = multiple | xp.where(xp.signbit(a), np.uint32(0x80000000), np.uint32(0))
    return xp.where(magnitude < 2.0 ** -126, bits, rounded.view(np.uint32)).view(np.float32)
