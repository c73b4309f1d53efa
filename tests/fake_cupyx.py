"""A stand-in for `cupyx` (CuPy's own extras) next to tests/fake_cupy.py: the scatter functions, which do what
NumPy's `ufunc.at` does (unbuffered: repeated indices all take part), for the dtypes CuPy takes, and with
CuPy's float max/min (NaN skipped, float64 rounded to float32: see `_atomic_extreme`)."""

import numpy as _np

from fake_cupy import _plain


# The dtypes CuPy's scatter kernels take (cupy/_core/_routines_indexing.pyx:941-982, `_scatter_op_single`).
_ADD_DTYPES = {_np.dtype(t) for t in ("int32", "int64", "float16", "float32", "float64", "uint32", "uint64")}
_MAX_MIN_DTYPES = {_np.dtype(t) for t in ("int32", "int64", "float32", "float64", "uint32", "uint64")}


def _check_dtype(value, allowed, name, listed):
    if _np.asarray(value).dtype not in allowed:
        raise TypeError(f"cupy.{name}.at only supports {listed} as data type")


def scatter_add(a, slices, value):
    _check_dtype(_plain(value), _ADD_DTYPES, "add", "int32, int64, float16, float32, float64, uint32, uint64")
    _np.add.at(_plain(a), _plain(slices), _plain(value))


def _atomic_extreme(np_ufunc, fmax_or_fmin, a, slices, value):
    """CuPy's float atomicMax/atomicMin (cupy/_core/include/cupy/atomics.cuh:62-117) are compare-and-swap loops
    over `fmaxf`/`fminf`: a NaN value is skipped (fmax(x, nan) is x), and the double versions call the float
    `fmaxf`/`fminf` too, so every element they touch is rounded to float32 (rounding keeps the order, so
    rounding the result once is the same)."""
    a, slices, value = _plain(a), _plain(slices), _plain(value)
    if a.dtype.kind != "f":
        np_ufunc.at(a, slices, value)
        return
    with _np.errstate(all="ignore"):
        fmax_or_fmin.at(a, slices, value)
        if a.dtype == _np.float64:
            touched = _np.zeros(a.shape, dtype=bool)
            touched[slices] = True
            a[touched] = a[touched].astype(_np.float32)


def scatter_max(a, slices, value):
    _check_dtype(_plain(value), _MAX_MIN_DTYPES, "maximum", "int32, int64, float32, float64, uint32, uint64")
    _atomic_extreme(_np.maximum, _np.fmax, a, slices, value)


def scatter_min(a, slices, value):
    _check_dtype(_plain(value), _MAX_MIN_DTYPES, "minimum", "int32, int64, float32, float64, uint32, uint64")
    _atomic_extreme(_np.minimum, _np.fmin, a, slices, value)
