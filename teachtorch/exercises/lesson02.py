"""Lesson 2, views without copies: the exercises.

    L02.permute           permute(sizes, strides, offset, dims)       -> (sizes, strides, offset)
    L02.getitem           getitem(sizes, strides, offset, index)      -> (sizes, strides, offset), where index is a
                          tuple of `slice` objects, one per leading dim (`x[1:, ::2]` is index
                          (slice(1, None), slice(None, None, 2)))
    L02.expand            expand(sizes, strides, offset, new_sizes)   -> (sizes, strides, offset), or raise
                          RuntimeError (ValueError is accepted too) where PyTorch's `expand` refuses
    L02.predict_strides   predict_strides() -> [(strides, offset), ...], one pair per question of QUIZ, worked
                          out by hand

How the three view exercises are checked. The student works on bare geometry: the input tensor is given as
its (sizes, strides, offset), and is most often itself a view (the random cases permute a fresh tensor, slice
it with steps, which moves the offset; about three in four are not contiguous). The check makes a storage
whose cell k holds the number k, puts the input on it with `as_strided`, and then

* builds the student's view with `as_strided` from the student's (sizes, strides, offset) over that same
  storage, and reads its values, as nested lists (each value is the number of the storage cell it reads);
* computes the expected view with the library's own op on the input tensor: `Tensor.permute`,
  `Tensor.expand`, `Tensor.__getitem__` (their kernels: `permute_kernel`, `expand_kernel`, `slice_kernel` in
  `teachtorch/kernels/views.py`);
* compares (sizes, strides, offset, values, shares storage). The last item is whether the view is still on
  the input's storage: a view built with `as_strided` always is, and so must the library's op be (no copy).

For `expand`, the stride of a result dim of size 1 is not compared (it shows as None): one never steps along
such a dim, so any stride reads the same elements. PyTorch gives a *new leading* dim of size 1 the stride
size x stride of the dim to its right (`torch.ones(3).expand(1, 3).stride() == (3, 1)`), not 0; both are right.
A case where PyTorch's `expand` raises expects the answer to raise too; its message is up to the student.

PyTorch's counterparts, in aten/src/ATen/native/TensorShape.cpp: `permute`, `slice` (with `select`, what
`x[...]` is made of), `expand` (its geometry from `inferExpandGeometry` in aten/src/ATen/ExpandUtils.cpp).
`predict_strides` is checked against what the library's ops give for each question (the same as PyTorch's;
tests/test_lesson02.py compares them with torch).
"""

import math

from ..ops.range_factories import arange
from .core import Exercise

ERROR = "an error (RuntimeError), as PyTorch's expand raises"


# ---- the input: a random view of a random tensor ---------------------------------------------------------------


def _random_view(rng, min_dims=0, max_dims=4, ones=0.0):
    """(sizes, strides, offset) of a random view: a fresh tensor, maybe permuted, maybe sliced with steps.
    `ones`: how often a dim is made size 1 (for expand)."""
    ndim = 0 if min_dims == 0 and rng.random() < 0.05 else int(rng.integers(max(min_dims, 1), max_dims + 1))
    high = {1: 8, 2: 7, 3: 5}.get(ndim, 4)                                   # small: reports stay short
    base = tuple(1 if rng.random() < 0.1 else int(rng.integers(2, high + 1)) for _ in range(ndim))
    x = arange(float(math.prod(base))).reshape(base)
    if ndim > 1 and rng.random() < 0.6:
        x = x.permute(*(int(d) for d in rng.permutation(ndim)))
    if ndim and rng.random() < 0.8:
        index = []
        for size in x.shape:
            start, step = int(rng.integers(0, size // 3 + 1)), int(rng.integers(1, 3 if size < 6 else 4))
            index.append(slice(start, None, step))
        x = x[tuple(index)]
    if ones:
        index = tuple(slice(0, 1) if rng.random() < ones else slice(None) for _ in range(x.dim()))
        x = x[index]
    return tuple(x.shape), x.stride(), x.storage_offset()


def _input(sizes, strides, offset):
    """A tensor with this geometry over a fresh int64 storage whose cell k holds k (plus a few spare cells)."""
    last = offset + sum((n - 1) * s for n, s in zip(sizes, strides)) if 0 not in sizes else offset
    return arange(last + 4).as_strided(tuple(sizes), tuple(strides), offset)


def _geometry(view, x, ignore_size_one=False):
    """What is compared: (sizes, strides, offset, values as nested lists, shares x's storage)."""
    strides = tuple(None if ignore_size_one and n == 1 else s for n, s in zip(view.shape, view.stride()))
    same = view.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    return tuple(view.shape), strides, view.storage_offset(), view.tolist(), same


def _build(x, result, ignore_size_one=False):
    """The student's (sizes, strides, offset) made into a view of x's storage, as `_geometry` describes it."""
    try:
        sizes, strides, offset = result
        sizes, strides = tuple(sizes), tuple(strides)
    except (TypeError, ValueError):
        raise TypeError(f"return a tuple (sizes, strides, offset), not {result!r}") from None
    try:
        view = x.as_strided(sizes, strides, offset)
    except Exception as e:                           # outside the storage, negative, lengths that differ
        shown = tuple(None if ignore_size_one and n == 1 else s for n, s in zip(sizes, strides))
        return sizes, shown, offset, f"as_strided cannot build this view: {e}", True
    return _geometry(view, x, ignore_size_one)


# ---- permute ----------------------------------------------------------------------------------------------------


def _permute_reference(sizes, strides, offset, dims):
    x = _input(sizes, strides, offset)
    return _geometry(x.permute(tuple(dims)), x)


def _view_call(answer, args):
    return _build(_input(*args[:3]), answer(*args))


def _random_permute(rng):
    sizes, strides, offset = _random_view(rng)
    return sizes, strides, offset, tuple(int(d) for d in rng.permutation(len(sizes)))


_PERMUTE_KNOWN = [((2, 3, 4), (12, 4, 1), 0, (2, 0, 1)), ((3, 4), (4, 1), 0, (1, 0)),
                  ((4, 3), (1, 4), 2, (1, 0)), ((2, 3, 2), (12, 4, 2), 5, (0, 2, 1)), ((), (), 7, ())]


# ---- getitem with slices ---------------------------------------------------------------------------------------


def _getitem_reference(sizes, strides, offset, index):
    x = _input(sizes, strides, offset)
    return _geometry(x[tuple(index)], x)


def _random_bound(rng, size):
    return None if rng.random() < 0.3 else int(rng.integers(-size - 2, size + 3))


def _random_getitem(rng):
    sizes, strides, offset = _random_view(rng, min_dims=1)
    k = int(rng.integers(1, len(sizes) + 1))
    index = tuple(slice(_random_bound(rng, n), _random_bound(rng, n), [None, 1, 2, 3][int(rng.integers(0, 4))])
                  for n in sizes[:k])
    return sizes, strides, offset, index


_GETITEM_KNOWN = [((3, 4), (4, 1), 0, (slice(1, None), slice(None, None, 2))),
                  ((10,), (1,), 0, (slice(2, 7, 3),)),
                  ((10,), (1,), 0, (slice(1, 8, 3),)),
                  ((6,), (2,), 1, (slice(-4, None),)),
                  ((5,), (1,), 0, (slice(2, 100),)),
                  ((4, 3), (1, 4), 0, (slice(None, None, 2), slice(1, None))),
                  ((2, 3, 4), (12, 4, 1), 0, (slice(1, 2),))]


# ---- expand -----------------------------------------------------------------------------------------------------


def _expand_reference(sizes, strides, offset, new_sizes):
    x = _input(sizes, strides, offset)
    try:
        view = x.expand(tuple(new_sizes))
    except RuntimeError:
        return ERROR
    return _geometry(view, x, ignore_size_one=True)


def _expand_call(answer, args):
    x = _input(*args[:3])
    if _expand_reference(*args) == ERROR:           # PyTorch refuses: so must the answer
        try:
            result = answer(*args)
        except (RuntimeError, ValueError):
            return ERROR
        return _build(x, result, ignore_size_one=True)
    return _build(x, answer(*args), ignore_size_one=True)


def _random_expand(rng):
    sizes, strides, offset = _random_view(rng, max_dims=3, ones=0.5)
    lead = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
    new = [int(rng.choice([n, -1])) if n != 1 else int(rng.choice([1, -1, 2, 3, 4])) for n in sizes]
    if rng.random() < 0.15:                          # a case PyTorch refuses
        wrong = [d for d, n in enumerate(sizes) if n != 1]
        if wrong:
            new[wrong[0]] = sizes[wrong[0]] + 1
        else:
            lead = [-1] + lead
    return sizes, strides, offset, tuple(lead + new)


_EXPAND_KNOWN = [((3,), (1,), 0, (4, 3)), ((3, 1), (1, 1), 0, (3, 4)), ((3, 1), (1, 1), 0, (2, -1, 5)),
                 ((1, 3), (12, 2), 5, (4, 3)), ((2, 3), (3, 1), 0, (2, 4)), ((3,), (1,), 0, (-1, 3))]


# ---- predict the strides: a quiz ---------------------------------------------------------------------------------

# The questions, about x = arange(24.).reshape(2, 3, 4) and y = arange(3.).reshape(3, 1)
QUIZ = ["x.permute(2, 0, 1)", "x.transpose(0, 1)", "x[:, 1:, ::2]", "x[1, ::2]", "x[..., 1]",
        "y.expand(2, 3, 5)", "x.permute(2, 0, 1)[1:]", "x.reshape(6, 4)"]
_QUIZ_OPS = [lambda x, y: x.permute(2, 0, 1), lambda x, y: x.transpose(0, 1), lambda x, y: x[:, 1:, ::2],
             lambda x, y: x[1, ::2], lambda x, y: x[..., 1], lambda x, y: y.expand(2, 3, 5),
             lambda x, y: x.permute(2, 0, 1)[1:], lambda x, y: x.reshape(6, 4)]


def quiz_answer(question):
    """(strides, offset) of the view that `question` (one of QUIZ) makes."""
    view = _QUIZ_OPS[QUIZ.index(question)](arange(24.).reshape(2, 3, 4), arange(3.).reshape(3, 1))
    return view.stride(), view.storage_offset()


def _quiz_call(answer, args):
    answers = answer() if callable(answer) else answer
    if not isinstance(answers, (list, tuple)) or len(answers) != len(QUIZ):
        raise TypeError(f"return a list of {len(QUIZ)} pairs (strides, offset), one per question of QUIZ")
    strides, offset = answers[QUIZ.index(args[0])]
    return tuple(strides), offset


EXERCISES = [
    Exercise(
        name="L02.permute",
        title="permute(sizes, strides, offset, dims): the geometry of x.permute(*dims)",
        reference=_permute_reference,
        known=[(args, _permute_reference(*args)) for args in _PERMUTE_KNOWN],
        random_args=_random_permute,
        call=_view_call,
        hints=["Dim k of the result is dim dims[k] of the input: it takes that dim's size AND its stride.",
               "Nothing moves in the storage, so the offset stays as it is.",
               "sizes = tuple(sizes[d] for d in dims), and the same for strides."],
        solution='''def permute(sizes, strides, offset, dims):
    return tuple(sizes[d] for d in dims), tuple(strides[d] for d in dims), offset''',
    ),
    Exercise(
        name="L02.getitem",
        title="getitem(sizes, strides, offset, index): the geometry of x[index], index a tuple of slices",
        reference=_getitem_reference,
        known=[(args, _getitem_reference(*args)) for args in _GETITEM_KNOWN],
        random_args=_random_getitem,
        call=_view_call,
        hints=["Each slice changes one dim: the start moves the offset, the step multiplies the stride, and "
               "start, stop and step together give the size. Dims after the index are kept as they are.",
               "s.indices(size) turns a slice into (start, stop, step) with None, negative and too big "
               "bounds already resolved, as Python's lists (and PyTorch) resolve them.",
               "size = len(range(start, stop, step)) (that is, ceil((stop - start) / step), or 0); "
               "offset += start * stride; stride *= step."],
        solution='''def getitem(sizes, strides, offset, index):
    sizes, strides = list(sizes), list(strides)
    for d, s in enumerate(index):
        start, stop, step = s.indices(sizes[d])
        offset += start * strides[d]
        sizes[d] = len(range(start, stop, step))
        strides[d] *= step
    return tuple(sizes), tuple(strides), offset''',
    ),
    Exercise(
        name="L02.expand",
        title="expand(sizes, strides, offset, new_sizes): the geometry of x.expand(*new_sizes), or raise",
        reference=_expand_reference,
        known=[(args, _expand_reference(*args)) for args in _EXPAND_KNOWN],
        random_args=_random_expand,
        call=_expand_call,
        hints=["Line the dims up from the right, as broadcasting does: new_sizes may have more dims, at the front.",
               "A new leading dim reads the same elements for every index: stride 0. A size-1 dim stretched to "
               "n: stride 0 too. -1, or the same size: keep the dim as it is.",
               "Any other size change is impossible without a copy: raise RuntimeError (so does -1 in a new "
               "leading dim). The offset never changes."],
        solution='''def expand(sizes, strides, offset, new_sizes):
    lead = len(new_sizes) - len(sizes)
    out_sizes, out_strides = [], []
    for i, n in enumerate(new_sizes):
        d = i - lead                       # the input's dim lined up with this one (< 0: a new dim)
        if d < 0:
            if n < 0:
                raise RuntimeError("-1 is not allowed in a new leading dim")
            out_sizes.append(n)
            out_strides.append(0)
        elif n == -1 or n == sizes[d]:
            out_sizes.append(sizes[d])
            out_strides.append(strides[d])
        elif sizes[d] == 1:
            out_sizes.append(n)
            out_strides.append(0)
        else:
            raise RuntimeError(f"cannot expand size {sizes[d]} to {n}")
    return tuple(out_sizes), tuple(out_strides), offset''',
    ),
    Exercise(
        name="L02.predict_strides",
        title="predict_strides(): the (strides, offset) of each view in QUIZ, worked out by hand",
        reference=quiz_answer,
        known=[((q,), quiz_answer(q)) for q in QUIZ],
        random_args=lambda rng: (QUIZ[int(rng.integers(0, len(QUIZ)))],),   # the same questions, shuffled
        call=_quiz_call,
        hints=["x is fresh: strides (12, 4, 1), offset 0. A permute or transpose moves strides with their dims; "
               "an int index drops a dim and moves the offset by index * stride.",
               "A slice start:stop:step moves the offset by start * stride and multiplies the stride by step; "
               "expand gives stride 0 to every dim it stretches or adds.",
               "reshape of a contiguous tensor is a view with fresh row-major strides."],
        solution='''def predict_strides():
    return [((1, 12, 4), 0), ((4, 12, 1), 0), ((12, 4, 2), 4), ((8, 1), 12), ((12, 4), 1),
            ((0, 1, 0), 0), ((1, 12, 4), 1), ((4, 1), 0)]''',
    ),
]
