"""Every place where NumPy (cpu) and CuPy (cuda) differ, in one file, so it can be audited.

The kernels are written once against an array module `xp`, and CuPy follows NumPy's API almost name for name
(tests/cupy_api_names.txt lists CuPy's names; the test suite's stand-in for CuPy offers only those). Where
the two really differ, the kernels call a function here instead, and nowhere else:

1. **Scatter with repeated indices** (`index_add_`, `index_put_(accumulate=True)`, `scatter_reduce`, the
   backward of indexing). NumPy has `ufunc.at`; CuPy has `cupyx.scatter_add/max/min`, built on CUDA atomics,
   which exist only for some dtypes (32- and 64-bit types). `ufunc_at` below uses them directly where they
   can, widens the small types first, adds int64 as uint64 (two's-complement addition is the same bits), and
   does the one thing a GPU has no atomic for, a scatter-*multiply*, on the host (slow, and said so).
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
"""

import numpy as np

from . import cuda as _cuda

_ATOMIC_DTYPES = {np.dtype(t) for t in ("float32", "float64", "int32", "uint32", "uint64")}


def to_host(a):
    """A NumPy copy of a device array (a NumPy array is returned as it is)."""
    if type(a) is np.ndarray or isinstance(a, np.generic):
        return a
    return _cuda.cupy().asnumpy(a)


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
    if name == "multiply" or (a.dtype == np.int64 and name != "add"):
        # no atomic multiply (nor an int64 max/min in CuPy) on GPUs: do these on the host
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
