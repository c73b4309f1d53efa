"""A stand-in for CuPy on machines without a GPU: NumPy underneath, CuPy's rules on top.

The test suite runs the cuda backend on this module (`teachtorch.backends.cuda.use_array_module`) so that
every cuda code path (cuda storages, the CUDA dispatch key and its device checks, transfers, memory figures,
random numbers drawn for a GPU) runs in CI, which has no GPU. It does NOT show that the kernels are right on
a real GPU: only a run with real CuPy does (the same tests run on CuPy when a GPU is there).

What it imitates, because these are the ways code written for NumPy breaks on CuPy:
* only the names real CuPy 14 has (tests/cupy_api_names.txt, recorded from the wheel): a kernel calling a
  NumPy function CuPy lacks fails here too;
* arrays are their own type (`fake_cupy.ndarray`), and mixing one with a NumPy array in an operation raises
  `TypeError` as CuPy does (host memory and device memory do not mix implicitly);
* reductions return 0-dim arrays, never NumPy scalars;
* `copyto` refuses a non-scalar NumPy source;
* `any`, `all`, `nonzero`, `flatnonzero`, `argwhere`, `broadcast_to` refuse anything but a device array, a
  NumPy scalar included (cupy/_logic/truth.py:50,87 and cupy/_sorting/search.py:141,163,229 call
  `_util.check_array`; cupy/_core/_routines_manipulation.pyx:488 types `broadcast_to`'s argument);
* float `floor_divide` is `floor(x / y)` (cupy/_core/include/cupy/carray.cuh:694), float `remainder` is
  `x - floor_divide(x, y) * y` (cupy/_core/_routines_math.pyx:1099), integer `fmod` goes through double
  (cupy/_math/arithmetic.py:138);
* `astype` between float32 and another float type flushes float32 subnormals to zero, as CuPy's kernels are
  compiled with `-ftz=true` (cupy/cuda/compiler.py:667) (its float32 arithmetic flushes them too: not imitated);
* `argmax` / `argmin` of floats with several NaNs answer the last NaN, which CuPy's reduction may (it keeps
  either NaN of a pair: cupy/_core/_routines_statistics.pyx:244-273), where NumPy answers the first;
* float16 `nextafter` of an infinite x is nan, and of x == y is x (cupy/_core/include/cupy/float16.cuh:158);
* `unique` along an axis refuses bools (it subtracts slices: cupy/_manipulation/add_remove.py:275);
* a float cast to an integer type (`astype`, `copyto`, `array`) saturates as a GPU's conversion does (nan -> 0
  but the smallest int64 in int64, inf -> the largest, -1.0 -> 0 in uint8), where NumPy on x86 gives the
  smallest int32/int64 and keeps the low bits (docs/source/user_guide/difference.rst:8-24, "Cast behavior
  from float to integer");
* (tests/fake_cupyx.py) `scatter_max` / `scatter_min` of floats skip NaN and round float64 to float32, as
  CuPy's atomics do (cupy/_core/include/cupy/atomics.cuh:62-117, a loop over `fmaxf`/`fminf`), and the
  scatter functions refuse the dtypes CuPy's do (cupy/_core/_routines_indexing.pyx:941-982);
* `ndarray(shape, dtype, memptr=..., strides=...)` views memory through a pointer, `.data` is that pointer;
* a memory pool whose `used_bytes` counts live arrays, devices, `runtime.getDeviceCount`, synchronize.

What it cannot imitate: its arrays ARE NumPy arrays underneath, so `isinstance(a, np.ndarray)` is true for
them, where it is false for a CuPy array (teachtorch asks `backends.differences.is_device_array` instead);
and its float32 arithmetic keeps subnormal numbers, which CuPy's (compiled with `-ftz=true`) flushes to zero.
"""

import pathlib
import sys
import weakref

import numpy as _np


def read_names():
    """{section: set of names} from cupy_api_names.txt, and {function: set of keywords, or None for any}."""
    sections, current, keywords = {}, None, {}
    for line in (pathlib.Path(__file__).parent / "cupy_api_names.txt").read_text().splitlines():
        if line.startswith("#") or not line:
            continue
        if line.startswith("["):
            current = line.strip("[]")
            sections.setdefault(current, set())
        elif current == "cupy signatures":
            name, _, kws = line.partition(": ")
            keywords[name] = None if kws == "**" else set(kws.split())
        else:
            sections[current].add(line)
    return sections, keywords


_NAMES, KEYWORDS = read_names()
__version__ = "14.2.0+fake"

# ---- memory: a pool that knows which arrays are alive ---------------------------------------------------------

_live = {}   # id(root buffer) -> weakref


class MemoryPool:
    def used_bytes(self):
        total = 0
        for ref in list(_live.values()):
            a = ref()
            if a is not None:
                total += a.nbytes
        return total

    def total_bytes(self):
        return self.used_bytes()

    def free_all_blocks(self):
        pass


_pool = MemoryPool()


def get_default_memory_pool():
    return _pool


def _track(root):
    key = id(root)
    if key not in _live:
        _live[key] = weakref.ref(root, lambda _, key=key: _live.pop(key, None))


# ---- devices ----------------------------------------------------------------------------------------------------


class _Runtime:
    device_count = 1
    synchronized = 0

    def getDeviceCount(self):
        return self.device_count

    def deviceSynchronize(self):
        _Runtime.synchronized += 1

    def getDeviceProperties(self, index):
        return {"name": b"teachtorch fake GPU (NumPy)", "totalGlobalMem": 1 << 34}


class Device:
    def __init__(self, index=0):
        self.id = int(index)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def use(self):
        pass

    def synchronize(self):
        runtime.deviceSynchronize()


runtime = _Runtime()


class _CudaNamespace:
    Device = Device
    runtime = runtime


cuda = _CudaNamespace()


class MemoryPointer:
    """A pointer into a buffer: `ptr.base` is the array whose memory it points into, `ptr.offset` bytes in."""

    def __init__(self, owner, offset):
        self.owner, self.offset = owner, offset

    @property
    def ptr(self):
        return self.owner.__array_interface__["data"][0] + self.offset

    def __add__(self, n):
        return MemoryPointer(self.owner, self.offset + int(n))


# ---- the array type ------------------------------------------------------------------------------------------


def _plain(x):
    """A fake array as NumPy sees it; NumPy arrays are refused (host memory does not mix with device memory)."""
    if type(x) is _np.ndarray:
        raise TypeError(f"Unsupported type {type(x)}")
    if isinstance(x, ndarray):
        return x.view(_np.ndarray)
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    return x


def _plain_index(index):
    if isinstance(index, tuple):
        return tuple(_plain_index(i) for i in index)
    if type(index) is _np.ndarray:
        raise TypeError(f"Unsupported type {type(index)} as an index of a cupy array")
    return index.view(_np.ndarray) if isinstance(index, ndarray) else index


def _wrap(r):
    if isinstance(r, _np.ndarray):
        return r.view(ndarray)
    if isinstance(r, _np.generic):
        return _np.asarray(r).view(ndarray)      # CuPy returns 0-dim arrays, not scalars
    if isinstance(r, tuple):
        return tuple(_wrap(v) for v in r)
    if isinstance(r, list):
        return [_wrap(v) for v in r]
    return r


def _saturating_cast(a, dtype):
    """A float array cast to an integer dtype as a GPU casts (CuPy's copy kernel is the C++ conversion
    `out0 = in0`, which compiles to PTX `cvt.rzi`: out-of-range values saturate, nan becomes 0), not as x86
    does (nan, inf and out-of-range values become the smallest int32/int64 and narrower types keep the low
    bits). docs/source/user_guide/difference.rst:8-24 "Cast behavior from float to integer". nan into int64
    gives the smallest int64 on the GPU too (the H200 run: `tensor([nan]).long()` matched PyTorch's cpu)."""
    dtype = _np.dtype(dtype)
    if not (a.dtype.kind == "f" and dtype.kind in "iu"):
        return None
    info = _np.iinfo(dtype)
    with _np.errstate(all="ignore"):
        t = _np.trunc(a.astype(_np.float64))
        inside = _np.where((t > info.min) & (t < info.max), t, 0).astype(dtype)
        nan_as = info.min if dtype == _np.int64 else 0
        return _np.where(_np.isnan(t), nan_as, _np.where(t >= info.max, info.max, _np.where(t <= info.min, info.min,
                                                                                        inside))).astype(dtype)


def _flush_float32_subnormals(a, dtype, order="K", casting="unsafe", copy=True):
    """`a.astype(dtype)` as CuPy converts: it compiles its kernels with `-ftz=true` (cupy/cuda/compiler.py:667),
    so a conversion from or to float32 flushes subnormals (below 2**-126) to a zero of the same sign."""
    tiny = _np.float32(2.0 ** -126)
    if a.dtype == _np.float32 and dtype != a.dtype and dtype.kind == "f":
        a = _np.where(_np.abs(a) < tiny, _np.copysign(_np.float32(0), a), a)
    result = a.astype(dtype, order=order, casting=casting, copy=copy)
    if dtype == _np.float32 and a.dtype != dtype and a.dtype.kind == "f":
        result = _np.where(_np.abs(result) < tiny, _np.copysign(_np.float32(0), result), result)
    return result


def _arg_extreme(np_fn, a, axis=None, keepdims=False):
    """CuPy's argmax / argmin: of several NaNs, not necessarily the first. Its reduction keeps whichever NaN
    its tree meets first (cupy/_core/_routines_statistics.pyx:244-273, `my_argmax_float`: of two NaNs it keeps
    `a`, not the smaller index); this imitation always answers the LAST NaN, which NumPy never does."""
    result = np_fn(a, axis=axis, keepdims=keepdims)
    if a.dtype.kind not in "fc":
        return result
    isnan = _np.isnan(a)
    flat = axis is None
    if flat:
        isnan, axis = isnan.reshape(-1), 0
    n = isnan.shape[axis]
    last_nan = n - 1 - _np.argmax(_np.flip(isnan, axis), axis=axis, keepdims=keepdims and not flat)
    any_nan = isnan.any(axis=axis, keepdims=keepdims and not flat)
    return _np.where(any_nan, last_nan, result).reshape(_np.shape(result)).astype(_np.int64)


class ndarray(_np.ndarray):
    """Device memory, imitated: a NumPy array of its own type."""

    def argmax(self, axis=None, out=None, dtype=None, keepdims=False):
        return _wrap(_arg_extreme(_np.argmax, self.view(_np.ndarray), axis, keepdims))

    def argmin(self, axis=None, out=None, dtype=None, keepdims=False):
        return _wrap(_arg_extreme(_np.argmin, self.view(_np.ndarray), axis, keepdims))

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        a = self.view(_np.ndarray)
        saturated = _saturating_cast(a, dtype)
        if saturated is not None:
            return saturated.view(ndarray)
        with _np.errstate(all="ignore"):
            return _wrap(_flush_float32_subnormals(a, _np.dtype(dtype), order, casting, copy))

    def __new__(cls, shape, dtype=float, memptr=None, strides=None, order="C"):
        if memptr is None:
            return _np.zeros(shape, dtype, order=order).view(cls)
        owner = memptr.owner.view(_np.ndarray)
        return _np.ndarray.__new__(cls, shape, dtype, buffer=owner.reshape(-1).view(_np.uint8),
                                   offset=memptr.offset, strides=strides)

    def __array_finalize__(self, obj):
        base = self.base
        if type(base) is _np.ndarray and base.base is None:
            _track(base)          # a fresh buffer seen as device memory: it counts as allocated

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = _plain(inputs)
        if "out" in kwargs:
            kwargs["out"] = _plain(kwargs["out"])
        with _np.errstate(all="ignore"):      # CuPy never warns about 1/0 or overflow
            result = getattr(ufunc, method)(*inputs, **kwargs)
        return _wrap(result)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        return _wrap(array[()] if return_scalar else array)

    def __array_function__(self, func, types, args, kwargs):
        # NumPy's functions run on CuPy arrays only where CuPy has the same function (NEP 18)
        if func.__name__ not in _NAMES["cupy"]:
            return NotImplemented
        return _wrap(func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()}))

    # indexing with host arrays, or assigning host arrays, is refused too: index and value must be device
    # arrays, Python numbers, slices or lists
    def __getitem__(self, index):
        return _wrap(self.view(_np.ndarray)[_plain_index(index)])

    def __setitem__(self, index, value):
        if type(value) is _np.ndarray and value.ndim > 0:
            raise TypeError(f"Unsupported type {type(value)}")
        self.view(_np.ndarray)[_plain_index(index)] = _plain(value) if type(value) is not _np.ndarray else value

    @property
    def data(self):
        root = self
        while isinstance(root.base, _np.ndarray):
            root = root.base
        offset = self.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        return MemoryPointer(root, offset)

    @property
    def device(self):
        return Device(0)

    def get(self):
        return _np.array(self.view(_np.ndarray), copy=True)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct "
                        "a NumPy array explicitly.")

    def tolist(self):
        return self.view(_np.ndarray).tolist()

    def __repr__(self):
        return repr(self.view(_np.ndarray)).replace("array", "fake_cupy.array", 1)


def _missing_method(name):
    def fail(self):
        raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
    return property(fail)


for _name in dir(_np.ndarray):
    if not _name.startswith("_") and _name not in _NAMES["cupy.ndarray"] and _name not in ndarray.__dict__:
        setattr(ndarray, _name, _missing_method(_name))

# ---- functions ---------------------------------------------------------------------------------------------


def asarray(a, dtype=None, order=None):
    if isinstance(a, ndarray):
        return a if dtype is None or a.dtype == dtype else a.astype(dtype)
    return _np.array(a, dtype=dtype, copy=True).view(ndarray)     # host -> device: always a copy


def array(a, dtype=None, copy=True, order="K", ndmin=0):
    if isinstance(a, ndarray):
        if dtype is not None and a.dtype != dtype:
            a = a.astype(dtype)
        a = a.view(_np.ndarray)
    return _np.array(a, dtype=dtype, copy=True, order=order, ndmin=ndmin).view(ndarray)


def ascontiguousarray(a, dtype=None):
    return _wrap(_np.ascontiguousarray(_plain(a), dtype=dtype))


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    if isinstance(a, ndarray):
        return _np.array(a.view(_np.ndarray), copy=True, order=order)
    return _np.asarray(a, order=order)


def copyto(dst, src, casting="same_kind", where=None):
    if type(src) is _np.ndarray and src.size != 1:
        raise ValueError("non-scalar numpy.ndarray cannot be used for copyto")
    if type(src) is _np.ndarray:
        src = src.reshape(())[()]
    kwargs = {} if where is None else {"where": _plain(where)}
    if isinstance(src, ndarray):
        saturated = _saturating_cast(src.view(_np.ndarray), dst.dtype)
        if saturated is not None:
            src = saturated.view(ndarray)
    _np.copyto(_plain(dst), _plain(src), casting=casting, **kwargs)


def argmax(a, axis=None, dtype=None, out=None, keepdims=False):
    return _wrap(_arg_extreme(_np.argmax, _plain(a), axis, keepdims))


def argmin(a, axis=None, dtype=None, out=None, keepdims=False):
    return _wrap(_arg_extreme(_np.argmin, _plain(a), axis, keepdims))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True):
    """With an axis, CuPy sorts the slices by subtracting them (cupy/_manipulation/add_remove.py:273-281,
    `left - right`), and its `subtract` refuses bools (cupy/_core/_routines_math.pyx:1047)."""
    a = _plain(ar)
    if axis is not None and a.dtype == _np.bool_ and a.shape[axis] > 1:
        raise TypeError("cupy boolean subtract, the `-` operator, is deprecated, use the bitwise_xor, the `^` "
                        "operator, or the logical_xor function instead.")
    return _wrap(_np.unique(a, return_index=return_index, return_inverse=return_inverse,
                            return_counts=return_counts, axis=axis, equal_nan=equal_nan))


def get_array_module(*args):
    return sys.modules[__name__]


# Functions whose argument must be a device array: CuPy checks it (`_util.check_array`, cupy/_util.pyx:189) or
# types it as `_ndarray_base` in Cython, so a NumPy scalar (`divisor == 0` for a number divisor) is refused.
_DEVICE_ARRAY_ONLY = {
    "any": "a", "all": "a",                                     # cupy/_logic/truth.py:50, :87
    "nonzero": "a", "flatnonzero": "a", "argwhere": "a",        # cupy/_sorting/search.py:141, :163, :229
    "broadcast_to": "array",                                    # cupy/_core/_routines_manipulation.pyx:488
}


def _check_device_array(name, args, kwargs):
    arg_name = _DEVICE_ARRAY_ONLY[name]
    a = args[0] if args else kwargs.get(arg_name)
    if not isinstance(a, ndarray):
        raise TypeError(f"'{arg_name}' must be a cupy.ndarray object, not {type(a)}.")


def _function(name, fn):
    allowed = KEYWORDS.get(name)

    def call(*args, **kwargs):
        if name in _DEVICE_ARRAY_ONLY:
            _check_device_array(name, args, kwargs)
        if allowed is not None:
            for k in kwargs:
                if k not in allowed:
                    raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        with _np.errstate(all="ignore"):
            return _wrap(fn(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()}))
    call.__name__ = name
    return call


class _Random:
    """`cupy.random`: only what a test may touch; teachtorch draws random numbers on the host."""

    def default_rng(self, seed=None):
        return _np.random.default_rng(seed)


random = _Random()

_OVERRIDES = {"argmax", "argmin", "unique", "asarray", "array", "ascontiguousarray", "asnumpy", "copyto",
              "get_array_module", "ndarray", "get_default_memory_pool", "cuda", "random"}


# ---- ufuncs whose CuPy loops compute otherwise than NumPy's ------------------------------------------------


def _floor_divide_loop(result, a, b):
    """CuPy's float floor_divide is `floor(x / y)` (cupy/_core/include/cupy/carray.cuh:694-700, `_floor_divide`),
    not NumPy's fmod-based CPython algorithm: 1.0 // 0.1 is 10.0 (NumPy: 9.0), inf // 2 is inf (NumPy: nan)."""
    if result.dtype.kind == "f":
        wide = _np.float32 if result.dtype == _np.float16 else result.dtype   # half goes through float
        result[...] = _np.floor(_np.true_divide(_np.asarray(a).astype(wide), _np.asarray(b).astype(wide)))


def _remainder_loop(result, a, b):
    """CuPy's float remainder is `x - _floor_divide(x, y) * y` (cupy/_core/_routines_math.pyx:1099-1107)."""
    if result.dtype.kind == "f":
        q = _np.empty_like(result)
        _floor_divide_loop(q, a, b)
        result[...] = _np.asarray(a).astype(result.dtype) - q * _np.asarray(b).astype(result.dtype)


def _fmod_loop(result, a, b):
    """CuPy's integer fmod goes through double: `in1 == 0 ? 0 : fmod((double)in0, (double)in1)`
    (cupy/_math/arithmetic.py:138-146), inexact for int64 beyond 2**53."""
    if result.dtype.kind in "iu":
        a, b = _np.asarray(a).astype(_np.float64), _np.asarray(b).astype(_np.float64)
        result[...] = _np.where(b == 0, 0, _np.fmod(a, _np.where(b == 0, 1, b))).astype(result.dtype)


def _nextafter_loop(result, x, y):
    """CuPy's float16 nextafter (cupy/_core/include/cupy/float16.cuh:158-181) gives nan for an infinite x
    (`!x.isfinite() || y.isnan()`), and x, not y, where x == y (0.0 towards -0.0 stays 0.0)."""
    if result.dtype == _np.float16:
        x, y = _np.asarray(x).astype(_np.float16), _np.asarray(y).astype(_np.float16)
        result[...] = _np.where(~_np.isfinite(x) | _np.isnan(y), _np.nan, _np.where(x == y, x, result))


_CUPY_LOOPS = {"floor_divide": _floor_divide_loop, "remainder": _remainder_loop, "fmod": _fmod_loop,
               "nextafter": _nextafter_loop}


class ufunc:
    """A CuPy ufunc: refuses NumPy arrays among its operands, returns device arrays. Of the ufunc methods
    only `reduce`, `accumulate` and `outer` are offered; `at` exists in CuPy only for a few ufuncs, so
    teachtorch never calls it on CuPy (backends/differences.py uses cupyx.scatter_add & co)."""

    def __init__(self, np_ufunc):
        self._u = np_ufunc
        self.__name__ = np_ufunc.__name__
        self.nin, self.nout = np_ufunc.nin, np_ufunc.nout

    def __call__(self, *args, **kwargs):
        for k in kwargs:
            if k not in ("out", "dtype", "casting"):     # what CuPy's ufunc.__call__ takes
                raise TypeError(f"Wrong arguments {k!r} for cupy ufunc {self.__name__}")
        args = _plain(args)
        with _np.errstate(all="ignore"):
            result = self._u(*args, **{k: _plain(v) for k, v in kwargs.items()})
            own_loop = _CUPY_LOOPS.get(self.__name__)
            if own_loop is not None:
                if isinstance(result, _np.generic):
                    result = _np.asarray(result)
                own_loop(result, *args[:self.nin])   # CuPy's arithmetic, written over NumPy's result
        return _wrap(result)

    def reduce(self, *args, **kwargs):
        return _wrap(self._u.reduce(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()}))

    def accumulate(self, *args, **kwargs):
        return _wrap(self._u.accumulate(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()}))

    def outer(self, *args, **kwargs):
        return _wrap(self._u.outer(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()}))


def __getattr__(name):
    if name not in _NAMES["cupy"]:
        raise AttributeError(f"module 'cupy' has no attribute '{name}'")
    attr = getattr(_np, name)
    if isinstance(attr, _np.ufunc):
        fn = ufunc(attr)
    elif isinstance(attr, type) or not callable(attr):
        return attr          # dtypes and constants
    else:
        fn = _function(name, attr)
    globals()[name] = fn     # made once
    return fn
