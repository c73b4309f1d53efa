"""Lesson 4, kernels over strided memory: the exercises.

    L04.strided_map   strided_map(fn, out, a): out[i] = fn(a[i]) for every index i, written into out's storage
    L04.strided_sum   strided_sum(a, dim, keepdim=False) -> a fresh contiguous Strided: the sum over `dim`
    L04.strided_zip   strided_zip(fn, out, a, b): out[i] = fn(a[i], b[i]), after checking the shapes match
                      (PyTorch's RuntimeError and message), with nothing written when they do not

A tensor here is a `Strided(storage, shape, strides, offset)`: a plain Python list as its storage, and the
view of lesson 1 on it. `Strided.of(t)` reads a teachtorch tensor's whole storage into one, `s.tensor()` makes
a float64 tensor of the same view again.

Every case runs on random views: permuted, sliced with steps, at an offset, and (for inputs) expanded with
stride 0; the output's storage starts full of NaN, so a cell the answer should not touch shows as NaN, and a
cell it forgot to write too. The expected answers come from the library's own ops run on the same views:
`tt.neg(a, out=o)`, `tt.abs`, `tt.square`, `tt.exp` for the map, `Tensor.sum(dim, keepdim)` for the
reduction, `tt.add`, `tt.sub`, `tt.mul`, `tt.maximum` with `out=` for the zip (whose error, when the shapes
differ, is PyTorch's, raised before anything is written: tests/test_lesson04.py checks it against PyTorch).
PyTorch's counterparts: TensorIterator (aten/src/ATen/TensorIterator.cpp) and the loops of
aten/src/ATen/native/cpu/Loops.h; the reduction is at::sum (aten/src/ATen/native/ReduceOps.cpp); the message
is infer_size's (aten/src/ATen/ExpandUtils.cpp).
"""

import math
import operator
from typing import NamedTuple

from .. import _dtype, _strides
from .core import Exercise


class Strided(NamedTuple):
    """A tensor in plain Python: a flat list of numbers, and the view (shape, strides, offset) on it."""

    storage: list
    shape: tuple
    strides: tuple
    offset: int

    @classmethod
    def of(cls, t):
        """The whole storage of teachtorch tensor `t` as a list, with `t`'s view of it."""
        n = t.untyped_storage().nbytes() // t.element_size()
        flat = t.as_strided((n,), (1,), 0)
        return cls(flat.tolist(), tuple(t.shape), tuple(t.stride()), t.storage_offset())

    def tensor(self):
        """A float64 teachtorch tensor over a copy of this storage, with this view."""
        return _tensor(self.storage).as_strided(self.shape, self.strides, self.offset)

    def __repr__(self):
        # the view first (a report cuts long arguments short), then the storage's first numbers
        cells = ", ".join(repr(v) for v in self.storage[:6])
        more = f", ... {len(self.storage)} numbers" if len(self.storage) > 6 else ""
        return (f"Strided(shape={tuple(self.shape)}, strides={tuple(self.strides)}, offset={self.offset}, "
                f"storage=[{cells}{more}])")

    def copy(self):
        return self._replace(storage=list(self.storage))


class Fn:
    """A function of numbers (what the student's kernel calls) and the library's op that computes the same."""

    def __init__(self, name, python, op):
        self.name, self.python, self.op = name, python, op

    def __call__(self, *values):
        return self.python(*values)

    def __repr__(self):
        return self.name


def _ops():
    import teachtorch as tt    # (the package itself: imported when a check first runs)
    maps = [Fn("neg", operator.neg, tt.neg), Fn("abs", abs, tt.abs), Fn("square", lambda v: v * v, tt.square),
            Fn("exp", math.exp, tt.exp)]
    zips = [Fn("add", operator.add, tt.add), Fn("sub", operator.sub, tt.sub), Fn("mul", operator.mul, tt.mul),
            Fn("maximum", max, tt.maximum)]
    return {f.name: f for f in maps + zips}


_OPS = {}


def op(name):
    if not _OPS:
        _OPS.update(_ops())
    return _OPS[name]


# ---- random views ------------------------------------------------------------------------------------------


def _random_shape(rng, low=1, high=4, max_dims=3):
    return tuple(int(n) for n in rng.integers(low, high + 1, size=int(rng.integers(1, max_dims + 1))))


def _random_view(rng, shape, values, expand=False):
    """A Strided of `shape` over a fresh storage: the view of a contiguous base, permuted, stepped, offset.

    `values(n)` fills the storage; `expand` lets some dims read with stride 0 (an input made by expand)."""
    nd = len(shape)
    perm = [int(p) for p in rng.permutation(nd)]       # view dim d walks base dim perm[d]
    steps = [int(s) for s in rng.integers(1, 3, size=nd)]
    starts = [int(s) for s in rng.integers(0, 2, size=nd)]
    base = [0] * nd
    for d in range(nd):
        base[perm[d]] = starts[d] + (shape[d] - 1) * steps[d] + 1 + int(rng.integers(0, 2))
    base_strides = _strides.contiguous_strides(base)
    strides = [base_strides[perm[d]] * steps[d] for d in range(nd)]
    offset = sum(starts[d] * base_strides[perm[d]] for d in range(nd))
    if expand:
        strides = [0 if rng.random() < 0.25 else s for s in strides]
    front = int(rng.integers(0, 3))                     # cells before the base: the view starts further in
    return Strided(values(front + math.prod(base)), tuple(shape), tuple(strides), front + offset)


def _numbers(rng):
    return lambda n: [float(v) for v in rng.integers(-5, 10, size=n)]


def _nans(n):
    return [math.nan] * n


def _tensor(storage):
    import teachtorch as tt
    return tt.tensor(storage, dtype=_dtype.float64)


# ---- L04.strided_map ---------------------------------------------------------------------------------------


def _map_reference(fn, out, a):
    base = _tensor(out.storage)
    fn.op(_tensor(a.storage).as_strided(a.shape, a.strides, a.offset),
          out=base.as_strided(out.shape, out.strides, out.offset))
    return base.tolist()


def _map_case(rng):
    shape = _random_shape(rng)
    fn = op(["neg", "abs", "square", "exp"][int(rng.integers(0, 4))])
    return fn, _random_view(rng, shape, _nans), _random_view(rng, shape, _numbers(rng), expand=True)


def _call_map(answer, args):
    fn, out, a = args
    out = out.copy()
    answer(fn, out, a.copy())
    return out.storage


_NAN = math.nan
_SIX = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]

# ---- L04.strided_sum ---------------------------------------------------------------------------------------


def _sum_reference(a, dim, keepdim):
    r = _tensor(a.storage).as_strided(a.shape, a.strides, a.offset).sum(dim, keepdim=keepdim)
    return r.reshape(-1).tolist(), tuple(r.shape), tuple(r.stride()), r.storage_offset()


def _sum_case(rng):
    a = _random_view(rng, _random_shape(rng), _numbers(rng), expand=True)
    dim = int(rng.integers(0, len(a.shape)))
    if rng.random() < 0.3:
        dim -= len(a.shape)                              # PyTorch's negative dims: -1 is the last
    return a, dim, bool(rng.random() < 0.5)


def _call_sum(answer, args):
    a, dim, keepdim = args
    result = answer(a.copy(), dim, keepdim)
    if result is None:                                   # forgot to return the output: "got None"
        return None
    storage, shape, strides, offset = result
    return list(storage), tuple(shape), tuple(strides), offset


# ---- L04.strided_zip ---------------------------------------------------------------------------------------


def _zip_reference(fn, out, a, b):
    base = _tensor(out.storage)
    try:
        fn.op(_tensor(a.storage).as_strided(a.shape, a.strides, a.offset),
              _tensor(b.storage).as_strided(b.shape, b.strides, b.offset),
              out=base.as_strided(out.shape, out.strides, out.offset))
    except RuntimeError as e:
        return "RuntimeError", str(e), base.tolist()
    return None, None, base.tolist()


def _zip_case(rng):
    fn = op(["add", "sub", "mul", "maximum"][int(rng.integers(0, 4))])
    a_shape = _random_shape(rng, low=2)
    b_shape = list(a_shape)
    if rng.random() < 0.5:                              # sizes that differ, by 1 or 2 dims (never a size 1)
        for d in rng.choice(len(a_shape), size=int(rng.integers(1, min(2, len(a_shape)) + 1)), replace=False):
            b_shape[d] = int(rng.choice([n for n in range(2, 6) if n != a_shape[d]]))
    return (fn, _random_view(rng, a_shape, _nans), _random_view(rng, a_shape, _numbers(rng), expand=True),
            _random_view(rng, tuple(b_shape), _numbers(rng), expand=True))


def _call_zip(answer, args):
    fn, out, a, b = args
    out = out.copy()
    try:
        answer(fn, out, a.copy(), b.copy())
    except NotImplementedError:
        raise                                            # the stub: "not solved yet"
    except Exception as e:                               # the error itself is part of the answer
        return type(e).__name__, str(e), out.storage
    return None, None, out.storage


_MISMATCH = "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}"

EXERCISES = [
    Exercise(
        name="L04.strided_map",
        title="strided_map(fn, out, a): write fn(a[i]) into out[i] for every index i, reading and writing "
              "through offset + sum(i * stride)",
        reference=_map_reference,
        known=[((op("neg"), Strided(_nans(6), (3, 2), (2, 1), 0), Strided(_SIX, (3, 2), (1, 3), 0)),
                [-0.0, -3.0, -1.0, -4.0, -2.0, -5.0]),
               ((op("square"), Strided(_nans(5), (3,), (2,), 0), Strided(_SIX * 2, (3,), (2,), 1)),
                [1.0, _NAN, 9.0, _NAN, 25.0]),
               ((op("abs"), Strided(_nans(7), (2, 3), (3, 1), 1), Strided([-1.0, 2.0, -3.0], (2, 3), (0, 1), 0)),
                [_NAN, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0])],
        random_args=_map_case,
        call=_call_map,
        hints=["Loop over every index of out.shape (`indices(out.shape)`); for each, find where it lives in "
               "a's storage and in out's storage with lesson 1's formula.",
               "Each tensor has its own strides and offset: read a.storage[position(index, a.strides, "
               "a.offset)], write out.storage[position(index, out.strides, out.offset)].",
               "out.storage[position(i, out.strides, out.offset)] = fn(a.storage[position(i, a.strides, a.offset)])"],
        solution='''def strided_map(fn, out, a):
    from itertools import product
    for index in product(*(range(n) for n in out.shape)):
        src = a.offset + sum(i * s for i, s in zip(index, a.strides))
        dst = out.offset + sum(i * s for i, s in zip(index, out.strides))
        out.storage[dst] = fn(a.storage[src])''',
    ),
    Exercise(
        name="L04.strided_sum",
        title="strided_sum(a, dim, keepdim=False): the sum over `dim`, as a fresh contiguous Strided",
        reference=_sum_reference,
        known=[((Strided(_SIX, (2, 3), (3, 1), 0), 1, False), ([3.0, 12.0], (2,), (1,), 0)),
               ((Strided(_SIX, (2, 3), (3, 1), 0), 0, True), ([3.0, 5.0, 7.0], (1, 3), (3, 1), 0)),
               ((Strided(_SIX, (3, 2), (1, 3), 0), 1, False), ([3.0, 5.0, 7.0], (3,), (1,), 0)),
               ((Strided([1.0, 2.0], (2, 2), (0, 1), 0), -1, True), ([3.0, 3.0], (2, 1), (1, 1), 0))],
        random_args=_sum_case,
        call=_call_sum,
        hints=["First the output: its shape is a.shape without `dim` (or with a 1 there when keepdim), its "
               "strides contiguous_strides(shape), its storage [0.0] * numel, its offset 0. A negative dim counts "
               "from the end: dim % len(a.shape).",
               "Then for every index of a (not of the output), add a's element into the output cell it "
               "belongs to: the same index with `dim` set to 0 (keepdim) or left out.",
               "full = index[:dim] + index[dim + 1:], or index[:dim] + (0,) + index[dim + 1:] with keepdim; "
               "out.storage[position(full, out.strides, 0)] += a.storage[position(index, a.strides, a.offset)]"],
        solution='''def strided_sum(a, dim, keepdim=False):
    import math
    from itertools import product
    from teachtorch._strides import contiguous_strides
    dim = dim % len(a.shape)
    shape = a.shape[:dim] + ((1,) if keepdim else ()) + a.shape[dim + 1:]
    strides = contiguous_strides(shape)
    storage = [0.0] * math.prod(shape)
    for index in product(*(range(n) for n in a.shape)):
        kept = index[:dim] + ((0,) if keepdim else ()) + index[dim + 1:]
        dst = sum(i * s for i, s in zip(kept, strides))
        storage[dst] += a.storage[a.offset + sum(i * s for i, s in zip(index, a.strides))]
    return storage, shape, strides, 0''',
    ),
    Exercise(
        name="L04.strided_zip",
        title="strided_zip(fn, out, a, b): check that a and b have one shape (PyTorch's RuntimeError if "
              "not, with nothing written), then write fn(a[i], b[i]) into out[i]",
        reference=_zip_reference,
        known=[((op("add"), Strided(_nans(6), (2, 3), (3, 1), 0), Strided(_SIX, (2, 3), (3, 1), 0),
                 Strided(_SIX, (2, 3), (1, 2), 0)), (None, None, [0.0, 3.0, 6.0, 4.0, 7.0, 10.0])),
               ((op("add"), Strided(_nans(6), (2, 3), (3, 1), 0), Strided(_SIX, (2, 3), (3, 1), 0),
                 Strided(_SIX + _SIX, (2, 4), (4, 1), 0)), ("RuntimeError", _MISMATCH.format(3, 4, 1), _nans(6))),
               ((op("mul"), Strided(_nans(6), (2, 3), (3, 1), 0), Strided(_SIX, (2, 3), (3, 1), 0),
                 Strided(_SIX + _SIX, (4, 2), (2, 1), 0)), ("RuntimeError", _MISMATCH.format(3, 2, 1), _nans(6)))],
        random_args=_zip_case,
        call=_call_zip,
        hints=["Check first, write after: compare the sizes dim by dim before the loop starts, and raise "
               "RuntimeError(...) with PyTorch's message if two differ.",
               "PyTorch compares from the LAST dim to the first and reports the first mismatch it meets: "
               "'The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1' "
               "(a's size, then b's, then the dim counted from the left).",
               "for d in reversed(range(len(a.shape))): if a.shape[d] != b.shape[d]: raise RuntimeError(f\"The "
               "size of tensor a ({a.shape[d]}) must match the size of tensor b ({b.shape[d]}) at non-singleton "
               "dimension {d}\"); then the loop of strided_map, reading b too."],
        solution='''def strided_zip(fn, out, a, b):
    from itertools import product
    for d in reversed(range(len(a.shape))):
        if a.shape[d] != b.shape[d]:
            raise RuntimeError(f"The size of tensor a ({a.shape[d]}) must match the size of tensor b "
                               f"({b.shape[d]}) at non-singleton dimension {d}")
    for index in product(*(range(n) for n in out.shape)):
        x = a.storage[a.offset + sum(i * s for i, s in zip(index, a.strides))]
        y = b.storage[b.offset + sum(i * s for i, s in zip(index, b.strides))]
        out.storage[out.offset + sum(i * s for i, s in zip(index, out.strides))] = fn(x, y)''',
    ),
]
