"""Lesson 6, devices: one kernel, two array modules: the exercises, and the stand-in device they run on.

    L06.softplus    softplus(xp, x, beta=1.0, threshold=20.0) -> PyTorch's softplus of the array x, written
                    once against the array module `xp` (NumPy, CuPy, or the stand-in below)
    L06.addcmul_    addcmul_(xp, out, tensor1, tensor2, value=1) -> out, after out += value * tensor1 * tensor2,
                    computed by `contiguous_addcmul` (a kernel that only writes contiguous memory) and written
                    back into `out` whatever its layout: the fix of the MPS bug behind pytorch#118115

Both answers are run twice per case: on NumPy arrays, and on the arrays of `standin`, a second array module
that is NumPy underneath but refuses what CuPy refuses (a NumPy function given one of its arrays, a NumPy
array mixed into its operations, an implicit conversion to NumPy); with a GPU and CuPy, a third time on CuPy.
teachtorch's own stand-in for CuPy, tests/fake_cupy.py, belongs to the test suite and is not part of the
package, so the course carries this small one.

`L06.softplus` is checked against teachtorch's `F.softplus` (ops/activation.py; PyTorch's
torch.nn.functional.softplus, aten/src/ATen/native/cpu/Activation.cpp `softplus_kernel`) on float32 and float64
arrays of seeded random shapes: values and dtype. `L06.addcmul_` is checked against teachtorch's
`Tensor.addcmul_` on the same layout (contiguous, transposed, strided, offset, permuted views of a storage):
the whole storage after the op (the view's elements updated, every other element untouched), and that the
answer returns `out` itself, as an in-place op does. PyTorch's counterpart of the fix is in
aten/src/ATen/native/mps/operations/PointwiseOps.mm (PR #124442): compute into a contiguous temporary, then
copy it into the output.
"""

import sys

import numpy as np

from ..nn import functional as F
from ..ops.tensor_new import from_numpy, tensor
from .core import Exercise

# ---- the stand-in device: NumPy underneath, CuPy's manners on top --------------------------------------------


def _dev(x):
    """The NumPy array under a stand-in array (a NumPy array itself is refused, as CuPy refuses it)."""
    if isinstance(x, DeviceArray):
        return x._a
    if type(x) is np.ndarray:
        raise TypeError(f"Unsupported type {type(x)}: a NumPy array (host memory) mixed with a stand-in "
                        "(device) array; move it with standin.asarray(...) first")
    if isinstance(x, (list, tuple)):
        return type(x)(_dev(v) for v in x)
    return x


def _wrap(r):
    if isinstance(r, np.ndarray):
        return DeviceArray(r)
    if isinstance(r, np.generic):
        return DeviceArray(np.asarray(r))          # CuPy returns 0-dim arrays, not NumPy scalars
    if isinstance(r, (list, tuple)):
        return type(r)(_wrap(v) for v in r)
    return r


class DeviceArray:
    """An array of the stand-in device: `standin.ndarray`. NumPy functions refuse it, as they refuse CuPy's."""

    __array_ufunc__ = None      # np.exp(a) raises TypeError; np.float32(2) * a falls back to a.__rmul__
    __hash__ = None

    def __init__(self, array):
        self._a = array

    def __array__(self, *args, **kwargs):      # CuPy's own message for np.asarray(cupy_array)
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
                        "construct a NumPy array explicitly.")

    def __array_function__(self, func, types, args, kwargs):
        raise TypeError(f"numpy.{func.__name__} was given a stand-in device array: a kernel calls "
                        f"xp.{func.__name__}, the function of the array module it is given")

    def get(self):
        """A NumPy copy (CuPy: `cupy.ndarray.get()`)."""
        return self._a.copy()

    def __getattr__(self, name):               # shape, dtype, flags, T, reshape, astype, sum, ...
        if name.startswith("__"):              # never NumPy's protocols (__array_interface__, ...)
            raise AttributeError(name)
        attr = getattr(self._a, name)
        if callable(attr):
            return lambda *args, **kwargs: _wrap(attr(*_dev(args), **{k: _dev(v) for k, v in kwargs.items()}))
        return _wrap(attr)

    def __getitem__(self, index):
        return _wrap(self._a[_dev(index)])

    def __setitem__(self, index, value):
        self._a[_dev(index)] = _dev(value)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (_wrap(v) for v in self._a)

    def __bool__(self):
        return bool(self._a)

    def __float__(self):
        return float(self._a)

    def __repr__(self):
        return "standin." + repr(self._a)


def _binary(name):
    op = getattr(np.ndarray, name)
    return lambda self, other: _wrap(op(self._a, _dev(other)))


def _inplace(name):
    op = getattr(np.ndarray, name)

    def method(self, other):
        op(self._a, _dev(other))
        return self
    return method


for _n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor"):
    setattr(DeviceArray, f"__{_n}__", _binary(f"__{_n}__"))
    setattr(DeviceArray, f"__r{_n}__", _binary(f"__r{_n}__"))
    setattr(DeviceArray, f"__i{_n}__", _inplace(f"__i{_n}__"))
for _n in ("lt", "le", "eq", "ne", "gt", "ge"):
    setattr(DeviceArray, f"__{_n}__", _binary(f"__{_n}__"))
for _n in ("neg", "pos", "abs", "invert"):
    setattr(DeviceArray, f"__{_n}__", (lambda op: lambda self: _wrap(op(self._a)))(getattr(np.ndarray, f"__{_n}__")))


class _StandIn:
    """The stand-in array module: every NumPy function, taking and giving DeviceArrays (CuPy's API is NumPy's)."""

    ndarray = DeviceArray
    __name__ = "standin"

    def asarray(self, a, dtype=None):
        """To the device: a copy of host data (CuPy: `cupy.asarray`)."""
        if isinstance(a, DeviceArray):
            return a if dtype in (None, a.dtype) else a.astype(dtype)
        return DeviceArray(np.array(a, dtype=dtype))

    def asnumpy(self, a):
        """Back to the host (CuPy: `cupy.asnumpy`)."""
        return a.get() if isinstance(a, DeviceArray) else np.asarray(a)

    def __getattr__(self, name):
        attr = getattr(np, name)
        if isinstance(attr, type) or not callable(attr):
            return attr                            # dtypes (xp.float32), constants (xp.pi, xp.inf)
        return lambda *args, **kwargs: _wrap(attr(*_dev(args), **{k: _dev(v) for k, v in kwargs.items()}))

    def __repr__(self):
        return "<array module 'standin' (NumPy underneath, CuPy's rules on top)>"


standin = _StandIn()


def second_modules():
    """[(name, array module)] every answer also runs on: the stand-in, and CuPy when a GPU is there."""
    found = [("the stand-in array module", standin)]
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        from ..backends.cuda import device_count
        if device_count() > 0:
            found.append(("CuPy", cupy))
    return found


def contiguous_addcmul(xp, buf, tensor1, tensor2, value=1):
    """The device's kernel: buf += value * tensor1 * tensor2, treating buf as one flat block of memory.

    Like a Metal or CUDA kernel handed a pointer and a length, it cannot follow strides: it refuses a buf that
    is not contiguous. (MPS's `Placeholder` made that contiguous copy itself, silently.)"""
    if not buf.flags.c_contiguous:
        raise ValueError("contiguous_addcmul writes contiguous memory only (a device kernel sees a pointer and "
                         "a length, not strides): give it xp.ascontiguousarray(out)")
    n = buf.size
    flat = buf.reshape(n)                      # contiguous: a view of buf's own memory
    a = xp.ascontiguousarray(xp.broadcast_to(tensor1, buf.shape)).reshape(n)
    b = xp.ascontiguousarray(xp.broadcast_to(tensor2, buf.shape)).reshape(n)
    flat += value * a * b
    return buf


# ---- running an answer on every array module --------------------------------------------------------------------


def _elsewhere(name, error):
    text = f"on {name}, the kernel raised {type(error).__name__}: {error}"
    if isinstance(error, TypeError):
        text += " (a NumPy function, or a NumPy array, met a device array: use only the xp you are given)"
    return text


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-30, equal_nan=True)


def _run_softplus(answer, args):
    x, beta, threshold = args
    got = answer(np, x.copy(), beta, threshold)
    if not isinstance(got, (np.ndarray, np.generic)):
        return f"on NumPy, a {type(got).__name__}, not an array"
    got = np.asarray(got)
    for name, xp in second_modules():
        try:
            there = answer(xp, xp.asarray(x), beta, threshold)
        except NotImplementedError:
            raise
        except Exception as e:
            return _elsewhere(name, e)
        if not isinstance(there, xp.ndarray):
            return f"on {name}, the result is a {type(there).__name__}, not an array of that module (xp.ndarray)"
        if not _same(got, xp.asnumpy(there)):
            return f"on {name}, a different result from NumPy's: {xp.asnumpy(there)!r}"
    return tensor(got)


# ---- L06.softplus -------------------------------------------------------------------------------------------------


def _softplus_reference(x, beta, threshold):
    return F.softplus(from_numpy(x.copy()), beta=beta, threshold=threshold)


def _random_softplus(rng):
    shape = tuple(int(s) for s in rng.integers(0, 6, size=int(rng.integers(0, 3))))
    dtype = (np.float32, np.float64)[int(rng.integers(0, 2))]
    beta = float((1.0, 0.5, 2.0)[int(rng.integers(0, 3))])
    threshold = float((20.0, 10.0)[int(rng.integers(0, 2))])
    x = np.asarray(rng.uniform(-80, 120, size=shape) / beta, dtype=dtype)
    return x, beta, threshold



_SOFTPLUS_KNOWN = [
    ((np.array([0.0, 1.0, -1.0, 25.0, -25.0], np.float32), 1.0, 20.0),
     tensor(np.array([0.6931472, 1.3132616, 0.3132617, 25.0, 1.3887944e-11], np.float32))),
    ((np.array([100.0, -30.0], np.float32), 1.0, 20.0),          # exp(100) overflows float32; 100 > 20: x itself
     tensor(np.array([100.0, 9.357623e-14], np.float32))),
    ((np.array([[0.0, 6.0], [-2.0, 3.0]]), 2.0, 10.0),            # float64; 2 * 6 = 12 > 10: x itself
     tensor(np.array([[0.34657359027997264, 6.0], [0.009074963958904869, 3.001237842568865]]))),
]

# ---- L06.addcmul_ -------------------------------------------------------------------------------------------------

# views of a flat storage (a NumPy array or a stand-in one): the layouts an in-place op must write into
LAYOUTS = {
    "contiguous (3, 4)": (12, lambda s: s.reshape(3, 4)),
    "transposed (4, 3) of a (3, 4)": (12, lambda s: s.reshape(3, 4).T),
    "every other column of a (3, 6)": (18, lambda s: s.reshape(3, 6)[:, ::2]),
    "block [1:, 2:] of a (4, 5)": (20, lambda s: s.reshape(4, 5)[1:, 2:]),
    "permuted (4, 2, 3) of a (2, 3, 4)": (24, lambda s: s.reshape(2, 3, 4).transpose(2, 0, 1)),
    "column 1 of a (4, 3)": (12, lambda s: s.reshape(4, 3)[:, 1]),
}


def _addcmul_reference(layout, storage, tensor1, tensor2, value):
    """teachtorch's Tensor.addcmul_ on the same view of a copy of the storage: the whole storage after it."""
    base = storage.copy()
    view = LAYOUTS[layout][1](base)
    strides = tuple(s // base.itemsize for s in view.strides)
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
    flat = from_numpy(base)
    flat.as_strided(view.shape, strides, offset).addcmul_(from_numpy(tensor1), from_numpy(tensor2), value=value)
    return tensor(base)


def _run_addcmul(answer, args):
    layout, storage, tensor1, tensor2, value = args
    base = storage.copy()
    out = LAYOUTS[layout][1](base)
    if answer(np, out, tensor1.copy(), tensor2.copy(), value) is not out:
        return "on NumPy, the kernel returned something other than out (an in-place op returns the array it wrote)"
    for name, xp in second_modules():
        there = xp.asarray(storage)
        out = LAYOUTS[layout][1](there)
        try:
            returned = answer(xp, out, xp.asarray(tensor1), xp.asarray(tensor2), value)
        except NotImplementedError:
            raise
        except Exception as e:
            return _elsewhere(name, e)
        if returned is not out:
            return f"on {name}, the kernel returned something other than out"
        if not _same(base, xp.asnumpy(there)):
            return f"on {name}, the storage ends up different from on NumPy: {xp.asnumpy(there)!r}"
    return tensor(base)


def _random_addcmul(rng):
    layout = list(LAYOUTS)[int(rng.integers(0, len(LAYOUTS)))]
    size, view = LAYOUTS[layout]
    dtype = (np.float32, np.float64)[int(rng.integers(0, 2))]
    storage = rng.standard_normal(size).astype(dtype)
    shape = view(storage).shape
    shape2 = shape[-1:] if rng.integers(0, 3) == 0 else shape       # sometimes broadcast along the rows
    tensor1 = rng.standard_normal(shape).astype(dtype)
    tensor2 = rng.standard_normal(shape2).astype(dtype)
    return layout, storage, tensor1, tensor2, float((1.0, -0.5, 0.001, 2.5)[int(rng.integers(0, 4))])


def _known_addcmul(layout, value):
    size, view = LAYOUTS[layout]
    storage = np.arange(size, dtype=np.float32)
    ones = np.ones(view(storage).shape, np.float32)
    args = (layout, storage, ones, 2 * ones, value)
    return args, _addcmul_reference(*args)


EXERCISES = [
    Exercise(
        name="L06.softplus",
        title="softplus(xp, x, beta=1.0, threshold=20.0): PyTorch's softplus of an array, using only xp",
        reference=_softplus_reference,
        known=_SOFTPLUS_KNOWN,
        random_args=_random_softplus,
        call=_run_softplus,
        hints=["Call every function through xp (xp.exp, xp.log1p, xp.where, xp.minimum): np.exp is NumPy's, "
               "and the second array module's arrays refuse it.",
               "PyTorch's softplus is log(1 + exp(beta x)) / beta, and x itself where beta x > threshold.",
               "exp overflows float32 above 88: take xp.exp(xp.minimum(beta * x, threshold)), then pick with "
               "xp.where(beta * x > threshold, x, ...). Keep x's dtype: no astype."],
        solution='''def softplus(xp, x, beta=1.0, threshold=20.0):
    scaled = x * beta
    return xp.where(scaled > threshold, x, xp.log1p(xp.exp(xp.minimum(scaled, threshold))) / beta)''',
    ),
    Exercise(
        name="L06.addcmul_",
        title="addcmul_(xp, out, tensor1, tensor2, value=1): out += value * tensor1 * tensor2 with "
              "contiguous_addcmul, whatever out's layout; returns out",
        reference=_addcmul_reference,
        known=[_known_addcmul("transposed (4, 3) of a (3, 4)", 1.0), _known_addcmul("contiguous (3, 4)", 1.0),
               _known_addcmul("every other column of a (3, 6)", -0.5)],
        random_args=_random_addcmul,
        call=_run_addcmul,
        hints=["contiguous_addcmul writes contiguous memory only: give it buf = xp.ascontiguousarray(out), "
               "which is out's own memory when out is contiguous, and a fresh copy when it is not.",
               "After contiguous_addcmul(xp, buf, tensor1, tensor2, value) the new values are in buf. If buf is "
               "a copy (not xp.shares_memory(buf, out)), they still have to get into out: that is the write-back "
               "the MPS kernel forgot.",
               "xp.copyto(out, buf) (or out[...] = buf) writes through out's strides; out.reshape(-1)[:] = ... "
               "does not (reshaping a non-contiguous array copies it). Return out itself."],
        solution='''def addcmul_(xp, out, tensor1, tensor2, value=1):
    buf = xp.ascontiguousarray(out)          # out's own memory, or a contiguous copy of it
    contiguous_addcmul(xp, buf, tensor1, tensor2, value)
    if not xp.shares_memory(buf, out):       # a copy: write it back into out's strided view
        xp.copyto(out, buf)
    return out


from teachtorch.exercises.lesson06 import contiguous_addcmul   # the device's kernel (the lesson imports it)''',
    ),
]
