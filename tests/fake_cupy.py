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
* `ndarray(shape, dtype, memptr=..., strides=...)` views memory through a pointer, `.data` is that pointer;
* a memory pool whose `used_bytes` counts live arrays, devices, `runtime.getDeviceCount`, synchronize.
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


class ndarray(_np.ndarray):
    """Device memory, imitated: a NumPy array of its own type."""

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
    _np.copyto(_plain(dst), _plain(src), casting=casting, **kwargs)


def get_array_module(*args):
    return sys.modules[__name__]


def _function(name, fn):
    allowed = KEYWORDS.get(name)

    def call(*args, **kwargs):
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

_OVERRIDES = {"asarray", "array", "ascontiguousarray", "asnumpy", "copyto", "get_array_module", "ndarray",
              "get_default_memory_pool", "cuda", "random"}


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
        with _np.errstate(all="ignore"):
            return _wrap(self._u(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()}))

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
