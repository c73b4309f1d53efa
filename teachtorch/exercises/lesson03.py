"""Lesson 3, broadcasting and tensor puzzles: the exercises.

    L03.broadcast_shape   broadcast_shape(a, b) -> the shape `a + b` has, or PyTorch's RuntimeError
    L03.ones              ones(n)          -> [1, 1, ..., 1]
    L03.outer             outer(a, b)      -> out[i][j] = a[i] * b[j]
    L03.eye               eye(n)           -> the n x n identity
    L03.triu              triu(n)          -> out[i][j] = 1 where i <= j
    L03.cumsum            cumsum(a)        -> out[i] = a[0] + ... + a[i]
    L03.diff              diff(a)          -> out[0] = a[0], out[i] = a[i] - a[i - 1]
    L03.roll              roll(a, k)       -> out[(i + k) % n] = a[i]
    L03.flip              flip(a)          -> each row of a matrix reversed: out[i][j] = a[i][m - 1 - j]
    L03.compress          compress(g, v)   -> the v[i] with g[i] True, packed to the front, then zeros

`L03.broadcast_shape` is checked against the library's own rule (`broadcast_shapes` in
`teachtorch/_strides.py`, which follows `infer_size_impl` in PyTorch's aten/src/ATen/ExpandUtils.cpp): the
result shape as a tuple, or, for shapes that do not broadcast, the text of the RuntimeError, which must be
PyTorch's own ("The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1").

The puzzles are Sasha Rush's Tensor Puzzles (github.com/srush/Tensor-Puzzles): each has a plain-Python loop
SPEC here (`ones_spec` ... `compress_spec`, on Python lists), and the check runs the answer on teachtorch
int64 tensors of seeded random sizes and compares it, by value (any dtype: a bool `eye` passes), with the
spec run on the same numbers. The rules of the puzzles (only `arange`, `where`, comparisons, arithmetic,
indexing, `sum` and `@`) are the student's to keep: the check does not read the code. PyTorch's
counterparts: `torch.ones`, `torch.outer`, `torch.eye`, `torch.triu`, `torch.cumsum`, `torch.diff` (with
`prepend`), `torch.roll`, `torch.fliplr`, and boolean-mask indexing `v[g]` (unpadded).
"""

import numpy as np

from .. import _strides
from .._dtype import bool_, int64
from .._tensor import Tensor
from ..ops.tensor_new import tensor as _tensor
from .core import Exercise

# ---- the specs: what each puzzle means, as loops over Python lists -------------------------------------------


def ones_spec(n):
    out = [0] * n
    for i in range(n):
        out[i] = 1
    return out


def outer_spec(a, b):
    out = [[0] * len(b) for _ in range(len(a))]
    for i in range(len(a)):
        for j in range(len(b)):
            out[i][j] = a[i] * b[j]
    return out


def eye_spec(n):
    out = [[0] * n for _ in range(n)]
    for i in range(n):
        out[i][i] = 1
    return out


def triu_spec(n):
    out = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i <= j:
                out[i][j] = 1
    return out


def cumsum_spec(a):
    out, total = [0] * len(a), 0
    for i in range(len(a)):
        total += a[i]
        out[i] = total
    return out


def diff_spec(a):
    out = [0] * len(a)
    out[0] = a[0]
    for i in range(1, len(a)):
        out[i] = a[i] - a[i - 1]
    return out


def roll_spec(a, k):
    n = len(a)
    out = [0] * n
    for i in range(n):
        out[(i + k) % n] = a[i]
    return out


def flip_spec(a):
    rows, cols = len(a), len(a[0])
    out = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        for j in range(cols):
            out[i][j] = a[i][cols - 1 - j]
    return out


def compress_spec(g, v):
    out, j = [0] * len(v), 0
    for i in range(len(v)):
        if g[i]:
            out[j] = v[i]
            j += 1
    return out


SPECS = {"L03.ones": ones_spec, "L03.outer": outer_spec, "L03.eye": eye_spec, "L03.triu": triu_spec,
         "L03.cumsum": cumsum_spec, "L03.diff": diff_spec, "L03.roll": roll_spec, "L03.flip": flip_spec,
         "L03.compress": compress_spec}


# ---- running a puzzle: tensors in, the spec on lists, values compared ------------------------------------------


def _t(values, dtype=int64):
    return _tensor(values, dtype=dtype)


def _reference(spec):
    """The spec run on the arguments as Python lists, as a NumPy array (compared by value, any dtype)."""
    def reference(*args):
        return np.array(spec(*[a.tolist() if isinstance(a, Tensor) else a for a in args]), dtype=np.int64)
    return reference


def _run_puzzle(answer, args):
    """The answer on fresh copies of the arguments (an in-place slip cannot spoil a later case); a tensor
    answer as a NumPy array, so that any dtype with the right values passes."""
    got = answer(*[a.clone() if isinstance(a, Tensor) else a for a in args])
    return got.detach().numpy() if isinstance(got, Tensor) else got


def _vector(rng, low=-5, high=10):
    return _t([int(x) for x in rng.integers(low, high, size=int(rng.integers(1, 8)))])


def _size(rng):
    return (int(rng.integers(1, 8)),)


def _roll_args(rng):
    a = _vector(rng)
    n = len(a)
    return a, int(rng.integers(-2 * n, 2 * n + 1))


def _matrix(rng):
    rows, cols = (int(s) for s in rng.integers(1, 6, size=2))
    return (_t(rng.integers(-5, 10, size=(rows, cols)).tolist()),)


def _compress_args(rng):
    n = int(rng.integers(1, 8))
    return _t([bool(x) for x in rng.random(n) < 0.5], bool_), _t([int(x) for x in rng.integers(1, 10, size=n)])


def _puzzle(name, title, known, random_args, hints, solution):
    spec = SPECS[name]
    reference = _reference(spec)
    return Exercise(name=name, title=title, reference=reference,
                    known=[(args, reference(*args)) for args in known],
                    random_args=random_args, hints=hints, solution=solution, call=_run_puzzle)


# ---- broadcast_shape -------------------------------------------------------------------------------------------


def _broadcast_outcome(a, b):
    """The shape a + b has, as a tuple, or "RuntimeError: <PyTorch's message>"."""
    try:
        return tuple(_strides.broadcast_shapes(a, b))
    except RuntimeError as e:
        return f"RuntimeError: {e}"


def _run_broadcast_shape(answer, args):
    try:
        got = answer(*args)
    except NotImplementedError:          # (a RuntimeError too: the stub must still read "not solved yet")
        raise
    except RuntimeError as e:
        return f"RuntimeError: {e}"
    return tuple(got) if isinstance(got, (tuple, list)) else got


def _random_shape_pair(rng):
    """Two shapes that broadcast about two times in three: each of b's dims lined up with one of a's is the
    same size, a 1, or (sometimes) another size; a's sizes are often 1 and now and then 0."""
    a = [int(s) for s in rng.choice([0, 1, 1, 2, 3, 4, 5], size=int(rng.integers(1, 5)))]
    b = []
    for d in range(int(rng.integers(0, 5))):
        if d < len(a):
            pick = rng.random()
            b.insert(0, a[-1 - d] if pick < 0.4 else 1 if pick < 0.7 else int(rng.integers(2, 6)))
        else:
            b.insert(0, int(rng.integers(1, 5)))
    return (tuple(a), tuple(b)) if rng.random() < 0.5 else (tuple(b), tuple(a))


_BROADCAST_KNOWN = [((2, 1, 4), (3, 1)), ((3, 1), (4,)), ((), (2, 3)), ((2, 3), (2, 4)), ((3,), (4,)),
                    ((5, 2, 3), (4, 3)), ((4, 3), (5, 2, 3)), ((1,), (0,)), ((3, 0), (1, 1))]


def _solution(body):
    return "import teachtorch as tt\n\n\n" + body


EXERCISES = [
    Exercise(
        name="L03.broadcast_shape",
        title="broadcast_shape(a, b): the shape of `a + b` for tensors of shapes a and b, or PyTorch's RuntimeError",
        reference=_broadcast_outcome,
        known=[(args, _broadcast_outcome(*args)) for args in _BROADCAST_KNOWN],
        random_args=_random_shape_pair,
        call=_run_broadcast_shape,
        hints=["Line the shapes up on the right: pad the shorter one with 1s on the left.",
               "In each column the sizes must be equal, or one of them 1; the result takes the other size "
               "(even 0: a 1 meets a 0 and gives 0, so max() is not quite it).",
               "The dimension in the message counts the dims of the result, from the left: "
               "raise RuntimeError(f\"The size of tensor a ({sa}) must match the size of tensor b ({sb}) "
               "at non-singleton dimension {i}\")."],
        solution=_solution('''def broadcast_shape(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (sa, sb) in enumerate(zip(a, b)):
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) "
                               f"at non-singleton dimension {i}")
        out.append(sb if sa == 1 else sa)
    return tuple(out)'''),
    ),
    _puzzle("L03.ones", "ones(n): a vector of n ones", [(3,), (1,)], _size,
            ["tt.arange(n) has the right shape; now turn every entry into 1.",
             "A comparison that is always true, then tt.where(condition, 1, 0).",
             "tt.where(tt.arange(n) >= 0, 1, 0)"],
            _solution('''def ones(n):
    return tt.where(tt.arange(n) >= 0, 1, 0)''')),
    _puzzle("L03.outer", "outer(a, b): the matrix out[i][j] = a[i] * b[j]", [(_t([1, 2, 3]), _t([1, 10, 100])),
                                                                           (_t([1, 2]), _t([3, 4, 5]))],
            lambda rng: (_vector(rng), _vector(rng)),
            ["The result has shape (len(a), len(b)): make a a column and b a row, and let broadcasting "
             "do the loops.",
             "a[:, None] has shape (len(a), 1); b has shape (len(b),), which broadcasts as (1, len(b)).",
             "a[:, None] * b"],
            _solution('''def outer(a, b):
    return a[:, None] * b''')),
    _puzzle("L03.eye", "eye(n): the n x n identity matrix", [(3,), (1,)], _size,
            ["Compare a column of row numbers with a row of column numbers.",
             "i = tt.arange(n); i[:, None] == i is True exactly on the diagonal.",
             "tt.where(i[:, None] == i, 1, 0)"],
            _solution('''def eye(n):
    i = tt.arange(n)
    return tt.where(i[:, None] == i, 1, 0)''')),
    _puzzle("L03.triu", "triu(n): ones on and above the diagonal, zeros below", [(3,), (1,)], _size,
            ["As eye, with another comparison.",
             "The row number i[:, None] and the column number i: out is 1 where row <= column.",
             "tt.where(i[:, None] <= i, 1, 0); the diagonal is in (<=, not <)."],
            _solution('''def triu(n):
    i = tt.arange(n)
    return tt.where(i[:, None] <= i, 1, 0)''')),
    _puzzle("L03.cumsum", "cumsum(a): out[i] = a[0] + ... + a[i]", [(_t([1, 2, 3, 4]),), (_t([5]),)],
            lambda rng: (_vector(rng),),
            ["A sum of some of the a[j] is a vector-matrix product with a matrix of 0s and 1s.",
             "out[i] = sum over j of a[j] * M[j][i], with M[j][i] = 1 when j <= i: which puzzle is M?",
             "a @ triu(len(a)), or without triu: a @ tt.where(j[:, None] <= j, 1, 0) with j = tt.arange(len(a))."],
            _solution('''def cumsum(a):
    j = tt.arange(len(a))
    return a @ tt.where(j[:, None] <= j, 1, 0)''')),
    _puzzle("L03.diff", "diff(a): out[0] = a[0], out[i] = a[i] - a[i - 1]",
            [(_t([1, 4, 9, 16]),), (_t([7]),)], lambda rng: (_vector(rng),),
            ["Index a with a tensor: a[i - 1] for i = tt.arange(len(a)) is the vector of previous values.",
             "a[i - 1] at i = 0 reads a[-1], the last value: out[0] needs a 0 there instead.",
             "a - tt.where(i > 0, a[i - 1], 0)"],
            _solution('''def diff(a):
    i = tt.arange(len(a))
    return a - tt.where(i > 0, a[i - 1], 0)''')),
    _puzzle("L03.roll", "roll(a, k): every value moves k places right, wrapping round (torch.roll(a, k))",
            [(_t([1, 2, 3, 4, 5]), 1), (_t([1, 2, 3, 4]), -1), (_t([1, 2, 3]), 5)], _roll_args,
            ["out[i] is some a[j]: which j? Index a with a tensor of them.",
             "out[(i + k) % n] = a[i] means out[i] = a[(i - k) % n].",
             "a[(tt.arange(n) - k) % n] with n = len(a); % of a negative number is still in 0..n-1."],
            _solution('''def roll(a, k):
    n = len(a)
    return a[(tt.arange(n) - k) % n]''')),
    _puzzle("L03.flip", "flip(a): a matrix with each row reversed (torch.fliplr)",
            [(_t([[1, 2, 3], [4, 5, 6]]),), (_t([[1], [2]]),)], _matrix,
            ["Index the columns with a tensor: a[:, cols] picks the columns in the order cols lists them.",
             "Column j of the result is column m - 1 - j of a (m = a.shape[1]); the rows stay where they are.",
             "a[:, m - 1 - tt.arange(m)]"],
            _solution('''def flip(a):
    m = a.shape[1]
    return a[:, m - 1 - tt.arange(m)]''')),
    _puzzle("L03.compress", "compress(g, v): the v[i] whose g[i] is True, moved to the front, then zeros",
            [(_t([True, False, True, True, False], bool_), _t([1, 2, 3, 4, 5])),
             (_t([False, False], bool_), _t([1, 2])), (_t([True, True], bool_), _t([1, 2]))],
            _compress_args,
            ["Where does v[i] go? If g[i], to slot (number of True in g[0..i]) - 1: a cumsum.",
             "With slot[i] (and -1 where g[i] is False), out = v @ M where M[i][j] = 1 when slot[i] == j.",
             "slot = tt.where(g, cumsum(tt.where(g, 1, 0)) - 1, -1); v @ tt.where(slot[:, None] == j, 1, 0)."],
            _solution('''def compress(g, v):
    j = tt.arange(len(v))
    slot = tt.where(g, 1, 0) @ tt.where(j[:, None] <= j, 1, 0) - 1   # cumsum(g) - 1: where v[i] goes
    slot = tt.where(g, slot, -1)                                       # dropped values go nowhere
    return v @ tt.where(slot[:, None] == j, 1, 0)''')),
]
