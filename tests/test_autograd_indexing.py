"""Gradients of indexing, gather/scatter and masked ops, and of `x[index] = value`, against PyTorch.

Every op runs on every input layout (LAYOUTS), with repeated indices where the op allows them (their gradients
must add up), 0-dim and empty inputs, broadcasting masks and values, and the in-place twins on a clone.
Index tensors and masks are int64 / bool `P`s, so check_grad never marks them as requiring grad.
`__setitem__` gets its own parity harness (`setitem_parity`): it writes a value that requires grad into a
clone of a leaf (or into a view of that clone, or into a tensor that does not require grad), and compares
the gradients of the leaf and the value, the grad_fn names, and the gradient through a view taken before
the write.
"""

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import teachtorch as tt
from parity import LAYOUTS, P, assert_same, check_grad, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

NON_EXPANDED = LAYOUTS[:-1]


def I(values, layout="contiguous"):
    """An int64 index tensor (never differentiable)."""
    return P(np.array(values, dtype=np.int64), layout)


def M(values, layout="contiguous"):
    """A bool mask."""
    return P(np.array(values, dtype=bool), layout)


MASK_3x4 = [[True, False, True, False], [False, False, True, True], [True, True, False, False]]


# ---- x[index]: aten::index.Tensor ---------------------------------------------------------------------------

INDEX_CASES = {
    "rows_repeated": (lambda lib, x, i: x[i], (3, 4), [I([0, 2, 0, 0])]),
    "cols": (lambda lib, x, i: x[:, i], (3, 4), [I([3, 1, 1])]),
    "two_broadcast": (lambda lib, x, i, j: x[i, j], (3, 4), [I([[0], [2], [2]]), I([1, 3, 1])]),
    "2d_index": (lambda lib, x, i: x[i], (3, 4), [I([[0, 1], [2, 0]])]),
    "negative": (lambda lib, x, i: x[i], (3, 4), [I([-1, 0, -3])]),
    "mask": (lambda lib, x, m: x[m], (3, 4), [M(MASK_3x4)]),
    "mask_permuted": (lambda lib, x, m: x[m], (3, 4), [M(MASK_3x4, "permuted")]),
    "row_mask": (lambda lib, x, m: x[m], (3, 4), [M([True, False, True])]),
    "slice_then_index": (lambda lib, x, i: x[1:, i], (3, 4), [I([0, 3, 0])]),
    "int_and_list": (lambda lib, x: x[1, [0, 2, 2]], (3, 4), []),
    "none_ellipsis": (lambda lib, x, i: x[None, ..., i], (3, 4), [I([2, 2])]),
    "bool_true": (lambda lib, x: x[True], (3, 4), []),
    "empty_index": (lambda lib, x, i: x[i], (3, 4), [I(np.zeros(0, dtype=np.int64))]),
    "empty_input": (lambda lib, x, i: x[:, i], (0, 3), [I([1, 1])]),
    "zero_dim_true": (lambda lib, x: x[True], (), []),
    "zero_dim_false": (lambda lib, x: x[False], (), []),
    "zero_dim_mask": (lambda lib, x, m: x[m], (), [M(True)]),
    "3d_adjacent": (lambda lib, x, i, j: x[:, i, j], (2, 3, 2), [I([0, 2, 2]), I([1, 0, 1])]),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", sorted(INDEX_CASES))
def test_index(case, layout):
    fn, shape, extra = INDEX_CASES[case]
    check_grad(fn, rand(*shape, layout=layout), *extra)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_separated_indices(layout):
    """x[i, :, j] puts the indexed dims first; its `indices` list is [i, None, j]."""
    check_grad(lambda lib, x, i, j: x[i, :, j], rand(3, 2, 4, layout=layout), I([0, 2, 2]), I([1, 3, 1]))


# ---- index_put / index_put_ ---------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("inplace", [False, True])
def test_index_put(layout, accumulate, inplace):
    # repeated rows only with accumulate=True: without it, which write wins is unspecified
    rows = I([0, 2, 0]) if accumulate else I([2, 0])
    values = rand(3 if accumulate else 2, 4, layout=layout, seed=1)

    def fn(lib, x, i, v):
        return x.clone().index_put_((i,), v, accumulate) if inplace else x.index_put((i,), v, accumulate)
    check_grad(fn, rand(3, 4, layout=layout), rows, values)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_broadcast_values(layout, accumulate):
    """A value of shape (4,) written into two rows: its gradient sums the two rows' gradients."""
    check_grad(lambda lib, x, i, v: x.index_put((i,), v, accumulate), rand(3, 4, layout=layout), I([2, 0]),
               rand(4, layout=layout, seed=1))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_mask_and_scalar(layout, accumulate):
    check_grad(lambda lib, x, m, v: x.index_put((m,), v, accumulate), rand(3, 4, layout=layout), M(MASK_3x4),
               rand(seed=1))
    check_grad(lambda lib, x, i, j, v: x.index_put((i, j), v, accumulate), rand(3, 4, layout=layout),
               I([0, 2, 1]), I([[3], [1]]), rand(2, 3, layout=layout, seed=2))


def test_index_put_only_values_require_grad():
    check_grad(lambda lib, v, i: lib.zeros(3, 4, dtype=v.dtype).index_put((i,), v), rand(2, 4, seed=1), I([2, 0]))
    check_grad(lambda lib, v, i: lib.zeros(3, 4, dtype=v.dtype).index_put_((i,), v, True), rand(4, seed=1),
               I([2, 0, 2]))


# ---- index_select, gather, take, take_along_dim --------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(layout, dim):
    check_grad(lambda lib, x, i: x.index_select(dim, i), rand(3, 4, layout=layout), I([2, 0, 2, 1]))
    check_grad(lambda lib, x, i: lib.index_select(x, dim, i), rand(3, 4, layout=layout), I(np.zeros(0, np.int64)))


def test_index_select_zero_dim():
    check_grad(lambda lib, x, i: x.index_select(0, i), rand(), I([0]))
    check_grad(lambda lib, x, i: x.index_select(0, i), rand(), I(0))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -2])
def test_gather(layout, dim):
    index = I([[0, 1, 2], [2, 2, 0]]) if dim % 2 == 0 else I([[3, 3], [0, 1], [1, 1]])
    check_grad(lambda lib, x, i: x.gather(dim, i), rand(3, 4, layout=layout), index)
    check_grad(lambda lib, x, i: lib.gather(x, dim, i), rand(3, 4, layout=layout), I(np.zeros((0, 2), np.int64)))


def test_gather_zero_dim_and_empty():
    check_grad(lambda lib, x, i: x.gather(0, i), rand(), I(0))
    check_grad(lambda lib, x, i: x.gather(1, i), rand(2, 0), I(np.zeros((2, 0), np.int64)))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_take(layout):
    check_grad(lambda lib, x, i: x.take(i), rand(3, 4, layout=layout), I([[0, 11, 5], [5, -1, 0]]))
    check_grad(lambda lib, x, i: lib.take(x, i), rand(3, 4, layout=layout), I(np.zeros(0, np.int64)))


def test_take_zero_dim():
    check_grad(lambda lib, x, i: x.take(i), rand(), I([0, 0]))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_take_along_dim(layout):
    check_grad(lambda lib, x, i: lib.take_along_dim(x, i, 1), rand(3, 4, layout=layout), I([[0, 3], [1, 1], [2, 0]]))
    # the index broadcasts against x (and x against the index) except along dim
    check_grad(lambda lib, x, i: x.take_along_dim(i, 0), rand(3, 4, layout=layout), I([[0, 2, 2, 1]]))
    check_grad(lambda lib, x, i: x.take_along_dim(i, 1), rand(3, 1, layout=layout), I([[0, 0]]))
    # dim=None reads x.view(-1): non-contiguous layouts refuse, in both libraries
    check_grad(lambda lib, x, i: lib.take_along_dim(x, i), rand(3, 4, layout=layout), I([5, 0, 5]))


# ---- scatter family ---------------------------------------------------------------------------------------------

# scatter indices without repeats (which write wins is unspecified), and with repeats (for add/reduce)
UNIQUE_0 = [[0, 2, 1, 0], [1, 0, 2, 2]]      # dim 0 of a (3, 4) self, src (2, 4)
UNIQUE_1 = [[3, 0], [1, 2], [0, 3]]          # dim 1, src (3, 2)
REPEAT_0 = [[0, 2, 2, 0], [0, 2, 1, 0]]
REPEAT_1 = [[3, 3], [1, 2], [0, 0]]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("inplace", [False, True])
def test_scatter_src(layout, dim, inplace):
    if dim == 0:
        index, src = I(UNIQUE_0), rand(2, 4, layout=layout, seed=1)
    else:
        index, src = I(UNIQUE_1), rand(3, 2, layout=layout, seed=1)

    def fn(lib, x, i, s):
        return x.clone().scatter_(dim, i, s) if inplace else x.scatter(dim, i, s)
    check_grad(fn, rand(3, 4, layout=layout), index, src)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("inplace", [False, True])
def test_scatter_value(layout, inplace):
    def fn(lib, x, i):
        return x.clone().scatter_(1, i, 2.5) if inplace else lib.scatter(x, 1, i, value=-1.0)
    check_grad(fn, rand(3, 4, layout=layout), I(REPEAT_1))


def test_scatter_zero_dim():
    check_grad(lambda lib, x, i, s: x.scatter(0, i, s), rand(), I(0), rand(seed=1))


def test_scatter_index_smaller_than_src():
    """The index may be smaller than src (only src's first elements are read); PyTorch's formula
    `grad.gather(dim, index)` then has the index's shape, and its engine refuses it: so does ours."""
    msg = "Function ScatterBackward0 returned an invalid gradient at index 1 - got [1, 2] but expected shape " \
          "compatible with [2, 4]"
    for lib in (torch, tt):
        x, s = lib.ones(3, 4, requires_grad=True), lib.ones(2, 4, requires_grad=True)
        y = x.scatter(0, lib.tensor([[2, 0]]), s)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        assert str(e.value) == msg
    # only self requiring grad is fine
    check_grad(lambda lib, x, i, s: x.scatter(0, i, s), rand(3, 4), I([[2, 0]]), P(np.ones((2, 4), np.int64)))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("inplace", [False, True])
def test_scatter_add(layout, dim, inplace):
    if dim == 0:
        index, src = I(REPEAT_0), rand(2, 4, layout=layout, seed=1)
    else:
        index, src = I(REPEAT_1), rand(3, 2, layout=layout, seed=1)

    def fn(lib, x, i, s):
        return x.clone().scatter_add_(dim, i, s) if inplace else lib.scatter_add(x, dim, i, s)
    check_grad(fn, rand(3, 4, layout=layout), index, src)


@pytest.mark.parametrize("value", [False, True])
def test_scatter_with_reduce_has_no_derivative(value):
    """scatter(..., reduce=) has no formula in PyTorch: the forward works, backward raises."""
    for lib in (torch, tt):
        x = lib.ones(3, 4, requires_grad=True)
        i = lib.tensor([[0, 1], [2, 0]])
        s = 2.0 if value else lib.ones(2, 2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # torch: "The reduce argument of torch.scatter ... is deprecated"
            y = x.scatter(0, i, s, reduce="multiply")
        assert y.requires_grad
        with pytest.raises(RuntimeError, match="not implemented"):
            y.sum().backward()


# scatter_reduce: self (3, 4), src (2, 4) scattered along dim 0 with repeats; values far from each other
# (no ties) and from 0, except in the tests made for ties and zeros.
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(layout, reduce, include_self):
    x = rand(3, 4, layout=layout, low=0.5, high=2)
    src = rand(2, 4, layout=layout, seed=1, low=-2, high=-0.5)
    check_grad(lambda lib, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), x, I(REPEAT_0), src)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_dim1_inplace(layout, reduce):
    x = rand(3, 4, layout=layout, low=0.5, high=2)
    src = rand(3, 2, layout=layout, seed=1, low=-2, high=-0.5)
    for include_self in (True, False):
        check_grad(lambda lib, x, i, s: x.clone().scatter_reduce_(1, i, s, reduce, include_self=include_self),
                   x, I(UNIQUE_1), src)


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_ties_share_the_gradient(reduce, include_self):
    """Elements equal to the max (min) share its gradient evenly. A tie is a kink, where finite differences
    do not give the gradient: gradcheck is left out here, parity with torch is the check."""
    x = P(np.array([[1.0, 2.0, 3.0], [0.0, 5.0, 0.5]], dtype=np.float32))
    src = P(np.array([[1.0, 2.0, 3.0], [1.0, -1.0, 3.0]], dtype=np.float32))
    check_grad(lambda lib, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), x,
               I([[0, 0, 0], [0, 1, 0]]), src, gradcheck=False, gradgradcheck=False)


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod_with_zeros(include_self):
    """prod's gradient is the product of the *other* factors, also where a factor is 0."""
    x = P(np.array([[0.0, 2.0, 1.5], [3.0, 0.0, 0.5]], dtype=np.float32))
    src = P(np.array([[0.0, 1.5, 0.0], [2.0, -1.0, 0.5]], dtype=np.float32))
    # one zero reaching each position (self's zeros count on their own)
    check_grad(lambda lib, x, i, s: x.scatter_reduce(0, i, s, "prod", include_self=include_self), x,
               I([[0, 1, 0], [1, 0, 1]]), src)


def test_scatter_reduce_prod_two_zeros_no_double_backward():
    """Two zeros of src reaching the same position: first derivatives work, the second raises (as torch)."""
    x = P(np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32))
    src = P(np.array([[0.0, 1.5], [0.0, 2.0]], dtype=np.float32))
    fn = lambda lib, x, i, s: x.scatter_reduce(0, i, s, "prod")   # noqa: E731
    check_grad(fn, x, I([[0, 0], [0, 1]]), src, double=False, gradgradcheck=False)
    for lib in (torch, tt):
        xs, ss = x.build(lib).requires_grad_(), src.build(lib).requires_grad_()
        y = fn(lib, xs, lib.tensor([[0, 0], [0, 1]]), ss)
        _, gs = lib.autograd.grad(y.sum(), (xs, ss), create_graph=True)
        with pytest.raises(RuntimeError, match="Double backward is unsupported"):
            lib.autograd.grad(gs.sum(), (xs, ss))


def test_scatter_reduce_zero_dim():
    for reduce in ("sum", "amax", "mean"):
        check_grad(lambda lib, x, i, s: x.scatter_reduce(0, i, s, reduce), rand(), I(0), rand(seed=1))


# ---- index_add, index_copy, index_fill --------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("alpha", [1, 2.5])
@pytest.mark.parametrize("inplace", [False, True])
def test_index_add(layout, dim, alpha, inplace):
    if dim == 0:
        index, src = I([2, 0, 2]), rand(3, 4, layout=layout, seed=1)
    else:
        index, src = I([1, 1]), rand(3, 2, layout=layout, seed=1)

    def fn(lib, x, i, s):
        return x.clone().index_add_(dim, i, s, alpha=alpha) if inplace else x.index_add(dim, i, s, alpha=alpha)
    check_grad(fn, rand(3, 4, layout=layout), index, src)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("inplace", [False, True])
def test_index_copy(layout, dim, inplace):
    if dim == 0:
        index, src = I([2, 0]), rand(2, 4, layout=layout, seed=1)
    else:
        index, src = I([3, 0, 1]), rand(3, 3, layout=layout, seed=1)

    def fn(lib, x, i, s):
        return x.clone().index_copy_(dim, i, s) if inplace else x.index_copy(dim, i, s)
    check_grad(fn, rand(3, 4, layout=layout), index, src)


def test_index_add_copy_zero_dim():
    """A 0-dim self and source with a one-element index (PyTorch's special case in the formula)."""
    check_grad(lambda lib, x, i, s: x.index_add(0, i, s, alpha=3), rand(), I([0]), rand(seed=1))
    check_grad(lambda lib, x, i, s: x.index_copy(0, i, s), rand(), I([0]), rand(seed=1))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("inplace", [False, True])
def test_index_fill(layout, dim, inplace):
    index = I([2, 0, 2]) if dim == 0 else I([1, 3, 3])

    def scalar(lib, x, i):
        return x.clone().index_fill_(dim, i, 1.5) if inplace else x.index_fill(dim, i, -2)

    def tensor_value(lib, x, i, v):
        return x.clone().index_fill_(dim, i, v) if inplace else x.index_fill(dim, i, v)
    check_grad(scalar, rand(3, 4, layout=layout), index)
    # the 0-dim value lands in each filled slice once, even when the index repeats it
    check_grad(tensor_value, rand(3, 4, layout=layout), index, rand(seed=1))


def test_index_fill_zero_dim():
    check_grad(lambda lib, x, i, v: x.index_fill(0, i, v), rand(), I([0]), rand(seed=1))


# ---- masks ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mask_layout", ["contiguous", "permuted", "sliced"])
@pytest.mark.parametrize("inplace", [False, True])
def test_masked_fill(layout, mask_layout, inplace):
    def scalar(lib, x, m):
        return x.clone().masked_fill_(m, 0.5) if inplace else x.masked_fill(m, -1)

    def tensor_value(lib, x, m, v):
        return x.clone().masked_fill_(m, v) if inplace else x.masked_fill(m, v)
    mask = M(MASK_3x4, mask_layout)
    check_grad(scalar, rand(3, 4, layout=layout), mask)
    check_grad(tensor_value, rand(3, 4, layout=layout), mask, rand(seed=1))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_fill_broadcast(layout):
    # a row mask broadcast over self; and (out of place) a mask bigger than self: the result is broadcast
    check_grad(lambda lib, x, m, v: x.masked_fill(m, v), rand(3, 4, layout=layout), M([True, False, False, True]),
               rand(seed=1))
    check_grad(lambda lib, x, m, v: x.masked_fill(m, v), rand(4, layout=layout), M(MASK_3x4), rand(seed=1))
    check_grad(lambda lib, x, m: x.masked_fill(m, 3.0), rand(4, 1, layout=layout), M(MASK_3x4[0]))


def test_masked_fill_zero_dim_and_empty():
    check_grad(lambda lib, x, m, v: x.masked_fill(m, v), rand(), M(True), rand(seed=1))
    check_grad(lambda lib, x, m, v: x.masked_fill(m, v), rand(0, 3), M(np.zeros((0, 3), bool)), rand(seed=1))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mask_layout", ["contiguous", "permuted", "sliced", "offset"])
def test_masked_select(layout, mask_layout):
    """The selected elements come in the logical (row-major) order of self and mask, whatever their strides
    (pytorch#99638 was a backward that used the storage order)."""
    check_grad(lambda lib, x, m: x.masked_select(m), rand(3, 4, layout=layout), M(MASK_3x4, mask_layout))
    check_grad(lambda lib, x, m: lib.masked_select(x, m), rand(2, 3, 2, layout=layout),
               M(np.arange(12).reshape(2, 3, 2) % 3 != 1, mask_layout))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_select_broadcast(layout):
    check_grad(lambda lib, x, m: x.masked_select(m), rand(3, 4, layout=layout), M([True, False, True, True]))
    check_grad(lambda lib, x, m: x.masked_select(m), rand(4, layout=layout), M(MASK_3x4, "permuted"))
    check_grad(lambda lib, x, m: x.masked_select(m), rand(3, 1, layout=layout), M(MASK_3x4))


def test_masked_select_zero_dim_and_empty():
    check_grad(lambda lib, x, m: x.masked_select(m), rand(), M(True))
    check_grad(lambda lib, x, m: x.masked_select(m), rand(2, 3), M(np.zeros((2, 3), bool)))
    check_grad(lambda lib, x, m: x.masked_select(m), rand(0, 3), M(np.zeros((0, 3), bool)))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mask_layout", ["contiguous", "permuted"])
@pytest.mark.parametrize("inplace", [False, True])
def test_masked_scatter(layout, mask_layout, inplace):
    def fn(lib, x, m, s):
        return x.clone().masked_scatter_(m, s) if inplace else x.masked_scatter(m, s)
    # source has more elements than the mask selects: the rest get no gradient
    check_grad(fn, rand(3, 4, layout=layout), M(MASK_3x4, mask_layout), rand(2, 5, layout=layout, seed=1))
    check_grad(fn, rand(3, 4, layout=layout), M([False, True, True, False]), rand(6, layout=layout, seed=1))


def test_masked_scatter_broadcast_self_and_zero_dim():
    check_grad(lambda lib, x, m, s: x.masked_scatter(m, s), rand(4), M(MASK_3x4), rand(3, 3, seed=1))
    check_grad(lambda lib, x, m, s: x.masked_scatter(m, s), rand(), M(True), rand(2, seed=1))
    check_grad(lambda lib, x, m, s: x.masked_scatter(m, s), rand(2, 3), M(np.zeros((2, 3), bool)), rand(0, seed=1))


# ---- put -------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("inplace", [False, True])
def test_put(layout, accumulate, inplace):
    index = I([[0, 11, -1], [5, 5, 2]]) if accumulate else I([[0, 11, 3], [-2, 5, 2]])

    def fn(lib, x, i, s):
        return x.clone().put_(i, s, accumulate) if inplace else x.put(i, s, accumulate)
    check_grad(fn, rand(3, 4, layout=layout), index, rand(2, 3, layout=layout, seed=1))
    # the source may have any shape with as many elements as the index
    check_grad(fn, rand(3, 4, layout=layout), index, rand(6, layout=layout, seed=2))


def test_put_zero_dim_and_empty():
    check_grad(lambda lib, x, i, s: x.put(i, s), rand(), I([0]), rand(1, seed=1))
    check_grad(lambda lib, x, i, s: x.put(i, s, True), rand(2, 3), I(np.zeros(0, np.int64)), rand(0, seed=1))


# ---- x[index] = value --------------------------------------------------------------------------------------------

def _name(fn):
    """A node's name; PyTorch calls its C++-only nodes `torch::autograd::CopySlices`, teachtorch `CopySlices`."""
    return None if fn is None else fn.name().replace("torch::autograd::", "")


def _index_for(lib, index):
    """Build the index in `lib`: P -> tensor, inside tuples too; ints, slices, None, ... as they are."""
    if isinstance(index, tuple):
        return tuple(_index_for(lib, i) for i in index)
    return index.build(lib) if isinstance(index, P) else index


def setitem_parity(leaf, index, value, *, via=None, old=None, seed=0):
    """`t = leaf.clone(); dst = via(t) or t; dst[index] = value; (t * w).sum().backward()` in both libraries.

    `leaf` is a float P (requires grad) or a shape (then t is zeros that do not require grad); `value` a float
    P (requires grad) or a number; `old(t)` a view of t taken before the write and read after it.
    Compares t's values, t.requires_grad, the grad_fn names of t, dst and old, leaf.grad and value.grad.
    """
    out = {}
    for lib in (torch, tt):
        if isinstance(leaf, P):
            x = leaf.build(lib).requires_grad_(True)
            t = x.clone()
        else:
            x, t = None, lib.zeros(leaf)
        v = value.build(lib).requires_grad_(True) if isinstance(value, P) else value
        old_view = old(t) if old is not None else None
        dst = via(t) if via is not None else t
        dst[_index_for(lib, index)] = v
        names = (_name(t.grad_fn), _name(dst.grad_fn), _name(old_view.grad_fn) if old is not None else None)
        if t.requires_grad:
            w = np.random.default_rng(seed).standard_normal(tuple(t.shape)).astype(np.float32)
            loss = (t * lib.tensor(w)).sum()
            if old is not None and old_view.requires_grad:
                w_old = np.random.default_rng(seed + 1).standard_normal(tuple(old_view.shape)).astype(np.float32)
                loss = loss + (old_view * lib.tensor(w_old)).sum()
            loss.backward()
        v_grad = v.grad if isinstance(v, (torch.Tensor, tt.Tensor)) else None
        out[lib] = (t, names, None if x is None else x.grad, v_grad)
    (t_tt, names_tt, xg_tt, vg_tt), (t_th, names_th, xg_th, vg_th) = out[tt], out[torch]
    assert_same(t_tt.detach(), t_th.detach(), strides=False, path="t")
    assert t_tt.requires_grad == t_th.requires_grad, "t.requires_grad"
    assert names_tt == names_th, f"grad_fn names (t, written, old view) {names_tt} != {names_th}"
    for path, a, b in (("leaf.grad", xg_tt, xg_th), ("value.grad", vg_tt, vg_th)):
        assert (a is None) == (b is None), f"{path}: {a} vs {b}"
        if b is not None:
            assert_same(a, b, strides=False, path=path)


# (index, shape of the value written) for a (3, 4) target
SETITEM_CASES = {
    "int": (1, (4,)),
    "negative_int": (-1, (1, 4)),               # a leading size-1 dim of the value is dropped
    "slice": (slice(1, None), (2, 4)),
    "column": ((slice(None), 2), (3,)),
    "step_slice": ((slice(None), slice(0, None, 2)), (3, 2)),
    "element": ((1, 2), ()),
    "int_0dim_value": (1, ()),                  # a 0-dim value fills the row (fill_ with a tensor value)
    "ellipsis_none": ((Ellipsis, None, 1), (3, 1)),
    "none_int": ((None, 1), (1, 4)),
    "int_tensor": (I([0, 2]), (2, 4)),
    "int_tensor_broadcast": (I([0, 2]), (4,)),
    "list": ([2, 0], (2, 4)),
    "mask": (M(MASK_3x4), (6,)),
    "mask_scalar_value": (M(MASK_3x4), ()),
    "row_mask": (M([True, False, True]), (2, 4)),
    "slice_and_tensor": ((slice(None), I([1, 3])), (3, 2)),
    "two_tensors": ((I([0, 2]), I([1, 3])), (2,)),
    "int_and_list": ((1, [0, 2]), (2,)),
    "ellipsis_tensor": ((Ellipsis, I([3, 0])), (3, 2)),
    "separated_tensors": ((I([0, 2]), slice(None), I([1, 0])), None),   # on a (3, 2, 2) target
}


def _setitem_case(name, layout):
    index, vshape = SETITEM_CASES[name]
    if vshape is None:
        return rand(3, 2, 2, layout=layout), index, rand(2, 2, seed=1)
    return rand(3, 4, layout=layout), index, rand(*vshape, seed=1)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", sorted(SETITEM_CASES))
def test_setitem(case, layout):
    leaf, index, value = _setitem_case(case, layout)
    setitem_parity(leaf, index, value)


@pytest.mark.parametrize("case", sorted(SETITEM_CASES))
def test_setitem_into_tensor_without_grad(case):
    """The target does not require grad but the value does: the target starts requiring grad, with a
    CopySlices (basic index) or IndexPutBackward0 (advanced index) history."""
    leaf, index, value = _setitem_case(case, "contiguous")
    setitem_parity(tuple(leaf.values.shape), index, value)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", sorted(SETITEM_CASES))
def test_setitem_number(case, layout):
    """A Python number: only the leaf has a gradient (zero where the number was written)."""
    leaf, index, _ = _setitem_case(case, layout)
    setitem_parity(leaf, index, 2.5)


# writes into a view of t (a (3, 4) clone of the leaf): (view, index into the view, value shape)
VIEW_CASES = {
    "rows_int": (lambda t: t[1:], 0, (4,)),
    "rows_slice": (lambda t: t[1:], (slice(None), slice(2, None)), (2, 2)),
    "transposed_int": (lambda t: t.t(), 2, (3,)),
    "column_tensor": (lambda t: t[:, 1], I([2, 0]), (2,)),
    "rows_mask": (lambda t: t[1:], M([[True, False, False, True], [False, True, False, False]]), (3,)),
    "rows_tensor": (lambda t: t[1:], (I([1]), I([0])), ()),
    "select_then_list": (lambda t: t[2], [3, 1], (2,)),
    "reshaped": (lambda t: t.view(2, 6), (1, slice(0, 3)), (3,)),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", sorted(VIEW_CASES))
def test_setitem_through_view(case, layout):
    via, index, vshape = VIEW_CASES[case]
    setitem_parity(rand(3, 4, layout=layout), index, rand(*vshape, seed=1), via=via)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", sorted(VIEW_CASES))
def test_setitem_old_view_after_write(case, layout):
    """A view of t taken before the write sees the new values; its grad_fn becomes AsStridedBackward0 of t's
    new history, and gradients through it reach the written value."""
    via, index, vshape = VIEW_CASES[case]
    for old in (lambda t: t[1], lambda t: t[:, 1:3], lambda t: t.t()):
        setitem_parity(rand(3, 4, layout=layout), index, rand(*vshape, seed=1), via=via, old=old)


@pytest.mark.parametrize("case", ["int_tensor", "slice", "mask", "column"])
def test_setitem_old_view_of_tensor_without_grad(case):
    """t = zeros (no grad); old = t[0]; t[...] = value (requires grad): old now requires grad too."""
    _, index, value = _setitem_case(case, "contiguous")
    setitem_parity((3, 4), index, value, old=lambda t: t[0])
    setitem_parity((3, 4), index, value, old=lambda t: t[:, 1:])


def test_setitem_twice_and_overlapping_writes():
    """Writes that overlap: the first value's gradient is cut where a later write overwrote it."""
    leaf = rand(3, 4)
    first = rand(2, 4, seed=1)
    got = {}
    for lib in (torch, tt):
        x = leaf.build(lib).requires_grad_(True)
        v = first.build(lib).requires_grad_(True)
        t = x.clone()
        t[0:2] = v
        t[lib.tensor([1, 2]), 1:3] = v[:, :2] * 3
        t[:, 0][t[:, 0] > 0] = 0.0
        (t * lib.arange(12.0).view(3, 4)).sum().backward()
        got[lib] = (t.detach(), x.grad, v.grad, _name(t.grad_fn))
    for a, b in zip(got[tt][:3], got[torch][:3]):
        assert_same(a, b, strides=False)
    assert got[tt][3] == got[torch][3]


# ---- hypothesis: x[index] and index_put over shapes, layouts and index kinds --------------------------------------

@st.composite
def index_case(draw):
    """A float input and a random index tuple: per dim a slice, an int, an int list or a bool mask, with Nones."""
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    layout = draw(st.sampled_from(LAYOUTS))
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    index, advanced, list_len = [], False, draw(st.integers(1, 3))
    for size in shape:
        if draw(st.booleans()):
            index.append(None)
        kind = draw(st.sampled_from(["slice", "int", "list", "mask"]))
        if kind == "slice":
            index.append(slice(draw(st.integers(0, size - 1)), None, draw(st.integers(1, 2))))
        elif kind == "int":
            index.append(int(rng.integers(-size, size)))
        elif kind == "list":
            index.append(I(rng.integers(-size, size, list_len)))
            advanced = True
        else:
            index.append(M(rng.random(size) > 0.4))
            advanced = True
    if not advanced:
        index[-1] = I(rng.integers(0, shape[-1], list_len))
    return rand(*shape, layout=layout, seed=seed), tuple(index)


@given(index_case())
def test_index_fuzz(case):
    x, index = case
    check_grad(lambda lib, x: x[_index_for(lib, index)], x)


@st.composite
def index_put_case(draw):
    """x, a tuple of index tensors for its leading dims (ints or one bool mask), accumulate, and a value."""
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    layout = draw(st.sampled_from(LAYOUTS))
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    k = draw(st.integers(1, ndim))                       # how many leading dims are indexed
    accumulate = draw(st.booleans())
    if draw(st.booleans()):
        indices = (M(rng.random(shape[:k]) > 0.5),)
        idx_shape = (int(indices[0].values.sum()),)
    else:
        n_positions = int(np.prod(shape[:k]))
        m = draw(st.integers(0, 4)) if accumulate else draw(st.integers(0, min(4, n_positions)))
        # without accumulate a position written twice keeps an unspecified one of the values: no repeats then
        flat = rng.integers(0, n_positions, m) if accumulate else rng.permutation(n_positions)[:m]
        idx_shape = (m,) if m % 2 or draw(st.booleans()) else (2, m // 2)
        indices = tuple(I(np.reshape(a, idx_shape) - (shape[d] if rng.random() < 0.3 else 0))
                        for d, a in enumerate(np.unravel_index(flat, shape[:k])))
    result_shape = idx_shape + shape[k:]
    drop = draw(st.integers(0, len(result_shape)))       # a value broadcast over the leading dims
    value = rand(*result_shape[drop:], layout=draw(st.sampled_from(LAYOUTS)), seed=seed + 1)
    return rand(*shape, layout=layout, seed=seed), indices, accumulate, value


@given(index_put_case(), st.booleans())
def test_index_put_fuzz(case, inplace):
    x, indices, accumulate, value = case

    def fn(lib, x, v, *idx):
        if inplace and not accumulate:
            t = x.clone()
            t[idx] = v                          # __setitem__ -> index_put_
            return t
        return x.clone().index_put_(idx, v, accumulate) if inplace else x.index_put(idx, v, accumulate)
    check_grad(fn, x, value, *indices)
