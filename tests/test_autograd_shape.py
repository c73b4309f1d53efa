"""Gradients of the ops that rearrange elements against PyTorch (autograd/derivatives/shape.py).

cat, flip, roll, rot90, repeat, tril / triu (and tril_ / triu_), diag and diag_embed have formulas; stack,
hstack / vstack / dstack, column_stack, atleast_*, tile, fliplr / flipud, diagflat, repeat_interleave and
meshgrid are compositions whose gradients come from their pieces. `check_grad` compares forward values, the
node's name, first and second derivatives with torch, and runs gradcheck / gradgradcheck, for every layout
(the inputs of cat and stack mix layouts).

Where the node's name cannot match PyTorch's, the test passes name=False:
    stack            a composite here (cat and a view: CatBackward0 / UnsafeViewBackward0), a native op
                     with StackBackward0 in PyTorch
    diag of a matrix diag is one op here (DiagEmbedBackward0, PyTorch's name for the vector case); PyTorch's
                     diag of a matrix is diagonal_copy (DiagonalBackward0_copy)
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parity import LAYOUTS, P, check_grad, inputs, rand, shapes

pytestmark = [pytest.mark.device_generic, pytest.mark.filterwarnings("ignore::UserWarning")]


def _other(layout, k=1):
    """Another layout for the other inputs, so that inputs of different layouts meet."""
    return LAYOUTS[(LAYOUTS.index(layout) + k) % len(LAYOUTS)]


# ---- cat ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_cat(layout, dim):
    sizes = [(2, 3), (2, 2), (2, 1)] if dim != 0 else [(2, 3), (1, 3), (3, 3)]
    args = [rand(*s, layout=_other(layout, i), seed=i) for i, s in enumerate(sizes)]
    check_grad(lambda lib, a, b, c: lib.cat([a, b, c], dim), *args)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cat_3d_and_aliases(layout):
    a, b = rand(2, 1, 3, layout=layout), rand(2, 2, 3, layout=_other(layout), seed=1)
    check_grad(lambda lib, a, b: lib.cat((a, b), dim=1), a, b)
    check_grad(lambda lib, a, b: lib.concat([b, a], -2), a, b)
    check_grad(lambda lib, a, b: lib.concatenate([a, b, a], axis=1), a, b)


def test_cat_one_tensor_and_repeated_input():
    check_grad(lambda lib, a: lib.cat([a]), rand(2, 3))
    # the same tensor twice: its two slices of the gradient are summed
    check_grad(lambda lib, a, b: lib.cat([a, b, a], 1), rand(2, 3), rand(2, 1, seed=1))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cat_empty_inputs(layout):
    # an input of size 0 along dim gets an empty slice; a legacy 1-d [0] tensor is skipped whatever its shape
    check_grad(lambda lib, a, b, c: lib.cat([a, b, c], 1), rand(2, 0), rand(2, 3, layout=layout, seed=1),
               rand(2, 2, seed=2))
    check_grad(lambda lib, a, b, c: lib.cat([a, b, c], 1), rand(2, 3, layout=layout), rand(0, seed=1),
               rand(2, 2, seed=2))
    check_grad(lambda lib, a, b: lib.cat([a, b], -1), rand(0), rand(2, 3, layout=layout, seed=1))
    check_grad(lambda lib, a, b: lib.cat([a, b]), rand(0, 3), rand(0, 3, seed=1))


def test_cat_dtypes():
    # float32 and float64 promote to float64: the float32 input's gradient is converted back
    check_grad(lambda lib, a, b: lib.cat([a, b]), rand(2, 3), rand(1, 3, dtype="float64", seed=1))
    # an integer input gets no gradient
    check_grad(lambda lib, a, b: lib.cat([a, b], 1), rand(2, 3), rand(2, 2, dtype="int64", seed=1))


def test_cat_errors():
    check_grad(lambda lib, a, b: lib.cat([a, b]), rand(), rand(seed=1))
    check_grad(lambda lib, a, b: lib.cat([a, b]), rand(2, 3), rand(2, 2, seed=1))


@settings(max_examples=25)
@given(st.data())
def test_cat_fuzz(data):
    ndim = data.draw(st.integers(1, 3))
    dim = data.draw(st.integers(-ndim, ndim - 1))
    base = list(data.draw(shapes(ndim, ndim, 1, 3)))
    n = data.draw(st.integers(1, 3))
    args = []
    for _ in range(n):
        s = list(base)
        s[dim] = data.draw(st.integers(0, 3))
        args.append(data.draw(inputs(shape=tuple(s))))
    # .grad strides are not compared: where the gradient reaching a leaf is a view (a narrow of cat's
    # gradient), PyTorch keeps it as .grad and teachtorch's engine copies it, so strides of size-1 dims may differ
    check_grad(lambda lib, *ts: lib.cat(list(ts), dim), *args, check_grad_strides=False)


# ---- flip / roll / rot90 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dims", [(0,), (1,), (0, 1), (-1,), ()])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_flip(layout, dims):
    check_grad(lambda lib, a: a.flip(dims), rand(2, 3, layout=layout))
    check_grad(lambda lib, a: lib.flip(a, dims), rand(2, 3, 2, layout=layout))


def test_flip_edge_cases():
    check_grad(lambda lib, a: lib.flip(a, []), rand())
    check_grad(lambda lib, a: lib.flip(a, [0, 1]), rand(0, 3))
    check_grad(lambda lib, a: lib.flip(a, [0, 0]), rand(2, 3))       # a repeated dim: an error


@pytest.mark.parametrize("layout", LAYOUTS)
def test_fliplr_flipud(layout):
    check_grad(lambda lib, a: lib.fliplr(a), rand(2, 3, layout=layout))
    check_grad(lambda lib, a: a.flipud(), rand(2, 3, layout=layout))


@pytest.mark.parametrize("shifts, dims", [(1, None), (-4, None), ((1,), (0,)), (2, 1), ((1, -2), (0, 1)),
                                          ((5, 1), (1, -1))])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_roll(layout, shifts, dims):
    check_grad(lambda lib, a: lib.roll(a, shifts, dims), rand(2, 3, layout=layout))


def test_roll_edge_cases():
    check_grad(lambda lib, a: lib.roll(a, 1), rand())
    check_grad(lambda lib, a: lib.roll(a, 2, 0), rand(0, 3))
    check_grad(lambda lib, a: lib.roll(a, (1, 2), (0,)), rand(2, 3))     # shifts and dims differ in length


@settings(max_examples=25)
@given(inputs(shape=(2, 3, 2)), st.lists(st.tuples(st.integers(-5, 5), st.integers(-3, 2)), min_size=1, max_size=3))
def test_roll_fuzz(x, shift_dims):
    shifts, dims = [s for s, _ in shift_dims], [d for _, d in shift_dims]
    check_grad(lambda lib, a: lib.roll(a, shifts, dims), x)


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 5])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_rot90(layout, k):
    check_grad(lambda lib, a: lib.rot90(a, k), rand(2, 3, layout=layout))
    check_grad(lambda lib, a: a.rot90(k, (2, 0)), rand(2, 3, 2, layout=layout))


def test_rot90_edge_cases():
    check_grad(lambda lib, a: lib.rot90(a, 1), rand(0, 3))
    check_grad(lambda lib, a: lib.rot90(a, 1, (0, 0)), rand(2, 3))      # same dim twice: an error


# ---- repeat / tile / repeat_interleave -----------------------------------------------------------------------------


@pytest.mark.parametrize("repeats", [(1, 1), (2, 1), (1, 3), (2, 3), (2, 1, 2), (3, 2, 1, 1), (0, 2), (2, 2, 0)])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_repeat(layout, repeats):
    check_grad(lambda lib, a: a.repeat(*repeats), rand(2, 3, layout=layout))


def test_repeat_edge_cases():
    check_grad(lambda lib, a: a.repeat(2, 3), rand())
    check_grad(lambda lib, a: a.repeat(()), rand())
    check_grad(lambda lib, a: a.repeat(2, 1), rand(0, 3))
    check_grad(lambda lib, a: a.repeat(2), rand(2, 3))                  # fewer repeats than dims: an error


@settings(max_examples=25)
@given(inputs(shape=(2, 3), allow_expanded=True), st.lists(st.integers(0, 3), min_size=2, max_size=4))
def test_repeat_fuzz(x, repeats):
    check_grad(lambda lib, a: a.repeat(repeats), x)


@pytest.mark.parametrize("reps", [(2,), (2, 1), (1, 2, 2), (0,)])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_tile(layout, reps):
    check_grad(lambda lib, a: lib.tile(a, reps), rand(2, 3, layout=layout))


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_repeat_interleave(layout, dim):
    check_grad(lambda lib, a: a.repeat_interleave(2, dim), rand(2, 3, layout=layout))
    check_grad(lambda lib, a: lib.repeat_interleave(a, 0, dim), rand(2, 3, layout=layout))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_repeat_interleave_tensor(layout):
    check_grad(lambda lib, a, r: a.repeat_interleave(r, dim=0), rand(2, 3, layout=layout), P(np.array([1, 2])))
    check_grad(lambda lib, a, r: a.repeat_interleave(r, dim=1), rand(2, 3, layout=layout), P(np.array([0, 2, 1])))
    check_grad(lambda lib, a, r: lib.repeat_interleave(a, r), rand(2, 3, layout=layout), P(np.array(2)))


# ---- tril / triu ---------------------------------------------------------------------------------------------------

INPLACE_LAYOUTS = ("contiguous", "permuted", "sliced", "offset")


@pytest.mark.parametrize("diagonal", [0, -1, 1, 3, -5])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_triangle(name, layout, diagonal):
    check_grad(lambda lib, a: getattr(a, name)(diagonal), rand(3, 4, layout=layout))
    check_grad(lambda lib, a: getattr(lib, name)(a, diagonal=diagonal), rand(2, 3, 3, layout=layout))


@pytest.mark.parametrize("diagonal", [0, -1, 2])
@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
@pytest.mark.parametrize("name", ["tril_", "triu_"])
def test_triangle_inplace(name, layout, diagonal):
    check_grad(lambda lib, a: getattr(a.clone(), name)(diagonal), rand(3, 4, layout=layout))
    # in place on a view: the rest of the base keeps its gradient
    def into_view(lib, a):
        b = a.clone()
        getattr(b[:, 1:], name)(diagonal)
        return b
    check_grad(into_view, rand(3, 4, layout=layout))


def test_triangle_edge_cases():
    check_grad(lambda lib, a: a.tril(), rand(0, 3))
    check_grad(lambda lib, a: a.triu(1), rand(2, 0, 3))
    check_grad(lambda lib, a: a.tril(), rand(3))                        # 1-d: an error


# ---- diag / diag_embed / diagflat -----------------------------------------------------------------------------------


@pytest.mark.parametrize("diagonal", [0, 1, -2])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_diag(layout, diagonal):
    check_grad(lambda lib, a: a.diag(diagonal), rand(3, layout=layout))
    for shape in [(3, 3), (2, 4), (4, 2)]:
        check_grad(lambda lib, a: lib.diag(a, diagonal), rand(*shape, layout=layout), name=False)


def test_diag_edge_cases():
    check_grad(lambda lib, a: lib.diag(a), rand(0))
    check_grad(lambda lib, a: lib.diag(a, 5), rand(2, 3), name=False)    # past the corner: an empty diagonal
    check_grad(lambda lib, a: lib.diag(a), rand(2, 2, 2))              # 3-d: an error


@pytest.mark.parametrize("offset, dim1, dim2", [(0, -2, -1), (1, -2, -1), (-1, 0, 2), (2, 2, 0), (0, 1, 0)])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_diag_embed(layout, offset, dim1, dim2):
    check_grad(lambda lib, a: lib.diag_embed(a, offset, dim1, dim2), rand(2, 3, layout=layout))


def test_diag_embed_edge_cases():
    check_grad(lambda lib, a: a.diag_embed(), rand(3))
    check_grad(lambda lib, a: a.diag_embed(1), rand(2, 0))


@pytest.mark.parametrize("offset", [0, 1, -1])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_diagflat(layout, offset):
    check_grad(lambda lib, a: lib.diagflat(a, offset), rand(2, 2, layout=layout))
    check_grad(lambda lib, a: a.diagflat(offset), rand(3, layout=layout))


# ---- the compositions: stack and friends, atleast_*, meshgrid -------------------------------------------------------


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_stack(layout, dim):
    args = [rand(2, 3, layout=_other(layout, i), seed=i) for i in range(3)]
    check_grad(lambda lib, a, b, c: lib.stack([a, b, c], dim), *args, name=False)


def test_stack_edge_cases():
    check_grad(lambda lib, a, b: lib.stack([a, b]), rand(), rand(seed=1), name=False)
    check_grad(lambda lib, a, b: lib.stack([a, b], 1), rand(0, 2), rand(0, 2, seed=1), name=False)
    check_grad(lambda lib, a, b: lib.stack([a, b]), rand(2, 3), rand(3, 2, seed=1))    # shapes differ: an error


@pytest.mark.parametrize("name, shapes", [
    ("hstack", [(2, 3), (2, 1)]), ("hstack", [(3,), (2,)]), ("hstack", [(), ()]),
    ("vstack", [(3,), (2, 3)]), ("vstack", [(2, 3), (1, 3)]),
    ("dstack", [(2, 3), (2, 3, 2)]), ("dstack", [(3,), (3,)]),
    ("column_stack", [(3,), (3, 2)]), ("column_stack", [(), ()]),
])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_joined(layout, name, shapes):
    args = [rand(*s, layout=_other(layout, i), seed=i) for i, s in enumerate(shapes)]
    check_grad(lambda lib, *ts: getattr(lib, name)(list(ts)), *args)


# (an input that already has enough dims comes back itself: no node, nothing to differentiate)
@pytest.mark.parametrize("name, shape", [(f"atleast_{n}d", s) for n in (1, 2, 3) for s in [(), (3,), (2, 3)]
                                         if len(s) < n])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_atleast(layout, name, shape):
    check_grad(lambda lib, a: getattr(lib, name)(a), rand(*shape, layout=layout))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_meshgrid(layout, indexing):
    check_grad(lambda lib, a, b: lib.meshgrid(a, b, indexing=indexing), rand(3, layout=layout),
               rand(2, layout=_other(layout), seed=1))
    check_grad(lambda lib, a, b, c: lib.meshgrid(a, b, c, indexing=indexing), rand(2, layout=layout),
               rand(), rand(3, seed=2))
