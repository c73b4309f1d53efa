"""Gradients of the matrix products against PyTorch (autograd/derivatives/linalg.py).

mm, bmm, mv, dot, trace and addmm / addmv / baddbmm (with beta and alpha, a broadcast `self`, and the in-place
twins) have formulas; matmul, vdot, outer, ger, inner, tensordot and einsum are compositions whose gradients
come from their pieces. `check_grad` compares forward values, the node's name, first and second derivatives
with torch, and runs gradcheck / gradgradcheck, for every input layout.

Where teachtorch's composite ends in another node than PyTorch's, the test passes name=False:
    matmul 1-D @ 2-D   UnsafeViewBackward0 here, SqueezeBackward4 in PyTorch (which squeezes in place)
    vdot               DotBackward0 here (vdot is dot for real dtypes), VdotBackward0 in PyTorch (a native op)
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parity import LAYOUTS, check_grad, layouts, rand

pytestmark = [pytest.mark.device_generic, pytest.mark.filterwarnings("ignore::UserWarning")]  # ger is deprecated


def _other(layout, k=1):
    """Another layout for the other inputs, so that inputs of different layouts meet."""
    return LAYOUTS[(LAYOUTS.index(layout) + k) % len(LAYOUTS)]


def rand64(*shape, **kw):
    """float64 values: check_grad's gradcheck step converts only the inputs that require grad to float64, so
    tests with `nondiff` inputs use float64 throughout (a float32 input would meet a float64 one)."""
    return rand(*shape, dtype="float64", **kw)


def column_major(*shape, seed=0):
    """A leaf matrix stored column by column (strides (1, rows)), as `x.t().contiguous().t()` would be."""
    p = rand(*shape, layout="permuted", seed=seed)
    p.perm = (1, 0)
    return p


# ---- mm / bmm / mv / dot --------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_mm(layout):
    check_grad(lambda lib, a, b: a.mm(b), rand(2, 3, layout=layout), rand(3, 4, layout=_other(layout), seed=1))
    check_grad(lambda lib, a, b: lib.mm(a, b), rand(3, 2, layout=_other(layout, 2)), rand(2, 2, layout=layout))


def test_mm_column_major():
    # the gradient of a column-major input is formed transposed, so it comes out column-major too
    check_grad(lambda lib, a, b: a.mm(b), column_major(2, 3), column_major(3, 4, seed=1))
    check_grad(lambda lib, a, b: a.mm(b), column_major(3, 3), rand(3, 2, seed=1))


@pytest.mark.parametrize("shapes", [((0, 3), (3, 4)), ((2, 0), (0, 4)), ((2, 3), (3, 0)), ((0, 0), (0, 0))])
def test_mm_empty(shapes):
    check_grad(lambda lib, a, b: a.mm(b), rand(*shapes[0]), rand(*shapes[1], seed=1))


@pytest.mark.parametrize("which", [0, 1])
def test_mm_one_input_requires_grad(which):
    # the node has an edge for one input only: the other formula must not run (or fail)
    check_grad(lambda lib, a, b: a.mm(b), rand64(2, 3), rand64(3, 4, seed=1), nondiff=(which,))


def test_mm_errors():
    check_grad(lambda lib, a, b: a.mm(b), rand(2, 3), rand(2, 4, seed=1))
    check_grad(lambda lib, a, b: a.mm(b), rand(3), rand(3, 4, seed=1))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_bmm(layout):
    check_grad(lambda lib, a, b: a.bmm(b), rand(2, 2, 3, layout=layout), rand(2, 3, 4, layout=_other(layout), seed=1))


@pytest.mark.parametrize("shapes", [((0, 2, 3), (0, 3, 4)), ((2, 0, 3), (2, 3, 4)), ((2, 2, 0), (2, 0, 3))])
def test_bmm_empty(shapes):
    check_grad(lambda lib, a, b: a.bmm(b), rand(*shapes[0]), rand(*shapes[1], seed=1))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_mv(layout):
    check_grad(lambda lib, a, v: a.mv(v), rand(2, 3, layout=layout), rand(3, layout=_other(layout), seed=1))
    check_grad(lambda lib, a, v: lib.mv(a, v), rand(3, 2, layout=_other(layout, 3)), rand(2, layout=layout, seed=1))


@pytest.mark.parametrize("shapes", [((0, 3), (3,)), ((2, 0), (0,))])
def test_mv_empty(shapes):
    check_grad(lambda lib, a, v: a.mv(v), rand(*shapes[0]), rand(*shapes[1], seed=1))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_dot(layout):
    check_grad(lambda lib, a, b: a.dot(b), rand(4, layout=layout), rand(4, layout=_other(layout), seed=1))


def test_dot_edge_cases():
    check_grad(lambda lib, a, b: lib.dot(a, b), rand(0), rand(0, seed=1))
    check_grad(lambda lib, a, b: lib.dot(a, b), rand(3), rand(4, seed=1))      # sizes differ: an error
    check_grad(lambda lib, a, b: lib.dot(a, b), rand(2, 2), rand(2, 2, seed=1))  # 2-D: an error


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2)])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_trace(layout, shape):
    check_grad(lambda lib, a: a.trace(), rand(*shape, layout=layout))


def test_trace_edge_cases():
    check_grad(lambda lib, a: lib.trace(a), rand(0, 0))
    check_grad(lambda lib, a: lib.trace(a), rand(0, 3))
    check_grad(lambda lib, a: lib.trace(a), rand(3))          # not a matrix: an error


# ---- addmm / addmv / baddbmm ----------------------------------------------------------------------------------

SCALES = [(1, 1), (0.5, 2.0), (0, 1), (1, 0), (2, -1), (-1.5, 3)]
INPLACE_LAYOUTS = ("contiguous", "permuted", "sliced", "offset")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("self_shape", [(2, 4), (4,), (1, 4), (2, 1), ()])
def test_addmm(layout, self_shape):
    check_grad(lambda lib, s, a, b: lib.addmm(s, a, b), rand(*self_shape, layout=layout),
               rand(2, 3, layout=_other(layout), seed=1), rand(3, 4, layout=_other(layout, 2), seed=2))


@pytest.mark.parametrize("beta, alpha", SCALES)
def test_addmm_scales(beta, alpha):
    check_grad(lambda lib, s, a, b: lib.addmm(s, a, b, beta=beta, alpha=alpha), rand(2, 4), rand(2, 3, seed=1),
               rand(3, 4, seed=2))
    check_grad(lambda lib, s, a, b: s.addmm(a, b, beta=beta, alpha=alpha), rand(4, layout="expanded"),
               column_major(2, 3, seed=1), column_major(3, 4, seed=2))


def test_addmm_beta_zero_ignores_self():
    # beta=0: self's nan never reaches the result, and self's gradient is grad * 0 = 0
    s = rand(2, 4)
    s.values[0, 1] = np.nan
    check_grad(lambda lib, s, a, b: lib.addmm(s, a, b, beta=0), s, rand(2, 3, seed=1), rand(3, 4, seed=2))


@pytest.mark.parametrize("shapes", [((2, 4), (2, 0), (0, 4)), ((0, 4), (0, 3), (3, 4)), ((4,), (0, 3), (3, 4))])
def test_addmm_empty(shapes):
    check_grad(lambda lib, s, a, b: lib.addmm(s, a, b, beta=0.5, alpha=2), rand(*shapes[0]), rand(*shapes[1], seed=1),
               rand(*shapes[2], seed=2))


@pytest.mark.parametrize("which", [(0,), (1,), (2,), (1, 2), (0, 2)])
def test_addmm_some_inputs_require_grad(which):
    check_grad(lambda lib, s, a, b: lib.addmm(s, a, b, alpha=2), rand64(2, 4), rand64(2, 3, seed=1),
               rand64(3, 4, seed=2), nondiff=which)


@pytest.mark.parametrize("beta, alpha", [(1, 1), (0.5, 2.0), (0, 1)])
@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
def test_addmm_inplace(layout, beta, alpha):
    check_grad(lambda lib, s, a, b: s.clone().addmm_(a, b, beta=beta, alpha=alpha), rand(2, 4, layout=layout),
               rand(2, 3, layout=_other(layout), seed=1), rand(3, 4, layout=_other(layout, 2), seed=2))
    # only the matrices require grad: the in-place op gives the clone its history
    check_grad(lambda lib, s, a, b: s.clone().addmm_(a, b, beta=beta, alpha=alpha), rand64(2, 4, layout=layout),
               rand64(2, 3, seed=1), rand64(3, 4, seed=2), nondiff=(0,))


def test_addmm_inplace_into_view():
    # writing into a row block of a bigger tensor: the history goes through CopySlices
    def fn(lib, big, a, b):
        out = big.clone()
        out[1:3].addmm_(a, b, beta=0.5, alpha=2)
        return out
    check_grad(fn, rand(4, 4), rand(2, 3, seed=1), rand(3, 4, seed=2))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("self_shape", [(2,), (1,), ()])
def test_addmv(layout, self_shape):
    check_grad(lambda lib, s, a, v: lib.addmv(s, a, v), rand(*self_shape, layout=layout),
               rand(2, 3, layout=_other(layout), seed=1), rand(3, layout=_other(layout, 2), seed=2))


@pytest.mark.parametrize("beta, alpha", SCALES)
def test_addmv_scales(beta, alpha):
    check_grad(lambda lib, s, a, v: s.addmv(a, v, beta=beta, alpha=alpha), rand(2), rand(2, 3, seed=1), rand(3, seed=2))


def test_addmv_empty():
    check_grad(lambda lib, s, a, v: lib.addmv(s, a, v, beta=2), rand(2), rand(2, 0, seed=1), rand(0, seed=2))
    check_grad(lambda lib, s, a, v: lib.addmv(s, a, v), rand(0), rand(0, 3, seed=1), rand(3, seed=2))


@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
def test_addmv_inplace(layout):
    check_grad(lambda lib, s, a, v: s.clone().addmv_(a, v, beta=0.5, alpha=2), rand(2, layout=layout),
               rand(2, 3, layout=_other(layout), seed=1), rand(3, seed=2))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("self_shape", [(2, 2, 4), (2, 1, 4), (4,), (2, 1, 1), ()])
def test_baddbmm(layout, self_shape):
    check_grad(lambda lib, s, a, b: lib.baddbmm(s, a, b), rand(*self_shape, layout=layout),
               rand(2, 2, 3, layout=_other(layout), seed=1), rand(2, 3, 4, layout=_other(layout, 2), seed=2))


@pytest.mark.parametrize("beta, alpha", SCALES)
def test_baddbmm_scales(beta, alpha):
    check_grad(lambda lib, s, a, b: s.baddbmm(a, b, beta=beta, alpha=alpha), rand(2, 2, 4), rand(2, 2, 3, seed=1),
               rand(2, 3, 4, seed=2))


def test_baddbmm_empty():
    check_grad(lambda lib, s, a, b: lib.baddbmm(s, a, b, alpha=2), rand(2, 2, 4), rand(2, 2, 0, seed=1),
               rand(2, 0, 4, seed=2))
    check_grad(lambda lib, s, a, b: lib.baddbmm(s, a, b), rand(0, 2, 4), rand(0, 2, 3, seed=1), rand(0, 3, 4, seed=2))


@pytest.mark.parametrize("layout", INPLACE_LAYOUTS)
def test_baddbmm_inplace(layout):
    check_grad(lambda lib, s, a, b: s.clone().baddbmm_(a, b, beta=0.5, alpha=2), rand(2, 2, 4, layout=layout),
               rand(2, 2, 3, layout=_other(layout), seed=1), rand(2, 3, 4, seed=2))


# ---- matmul: each combination of dims takes another path (dot, mv, mm, folded mm, bmm) --------------------------

MATMUL_SHAPES = {
    "1x1": ((3,), (3,)),
    "2x1": ((2, 3), (3,)),
    "2x2": ((2, 3), (3, 4)),
    "1x2": ((3,), (3, 4)),
    "3x1": ((2, 2, 3), (3,)),
    "3x2": ((2, 2, 3), (3, 4)),          # folded into one mm
    "1x3": ((3,), (2, 3, 4)),            # the larger operand transposed and folded
    "2x3": ((2, 3), (2, 3, 4)),          # bmm with the matrix broadcast over the batch
    "3x3": ((2, 2, 3), (2, 3, 4)),
    "3x3-broadcast": ((1, 2, 3), (3, 3, 2)),   # a size-1 batch that requires grad is squeezed, not expanded
    "4x3": ((2, 1, 2, 3), (3, 3, 2)),    # batch dims broadcast to (2, 3)
    "4x1": ((2, 1, 2, 3), (3,)),
    "1x4": ((3,), (2, 1, 3, 2)),
}
# the composite's last node differs from PyTorch's here (see the module docstring)
MATMUL_NAME_DIFFERS = {"1x2"}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", list(MATMUL_SHAPES))
def test_matmul(case, layout):
    sa, sb = MATMUL_SHAPES[case]
    check_grad(lambda lib, a, b: a.matmul(b), rand(*sa, layout=layout), rand(*sb, layout=_other(layout), seed=1),
               name=case not in MATMUL_NAME_DIFFERS)


@pytest.mark.parametrize("case", ["3x2", "2x3", "3x3-broadcast", "4x3"])
@pytest.mark.parametrize("which", [0, 1])
def test_matmul_one_input_requires_grad(case, which):
    # whether the smaller operand requires grad changes the path (fold with a copy, or bmm)
    sa, sb = MATMUL_SHAPES[case]
    check_grad(lambda lib, a, b: a @ b, rand64(*sa), rand64(*sb, seed=1), nondiff=(which,))


def test_matmul_empty_and_errors():
    check_grad(lambda lib, a, b: lib.matmul(a, b), rand(0, 2, 3), rand(3, 4, seed=1))
    check_grad(lambda lib, a, b: lib.matmul(a, b), rand(2, 0), rand(0, 4, seed=1))
    check_grad(lambda lib, a, b: lib.matmul(a, b), rand(2, 3), rand(4, seed=1))
    check_grad(lambda lib, a, b: lib.matmul(a, b), rand(), rand(3, seed=1))


@st.composite
def matmul_operands(draw):
    """Two operands of 1 to 4 dims whose batch dims broadcast (a size may be 1 on either side)."""
    n, k, p = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dim_a, dim_b = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    batch = draw(st.lists(st.integers(1, 2), min_size=2, max_size=2))
    ones = st.booleans()
    batch_a = [1 if draw(ones) else b for b in batch][2 - max(dim_a - 2, 0):]
    batch_b = [1 if draw(ones) else b for b in batch][2 - max(dim_b - 2, 0):]
    sa = (k,) if dim_a == 1 else tuple(batch_a) + (n, k)
    sb = (k,) if dim_b == 1 else tuple(batch_b) + (k, p)
    seed = draw(st.integers(0, 2**16))
    return rand(*sa, layout=draw(layouts()), seed=seed), rand(*sb, layout=draw(layouts()), seed=seed + 1)


@settings(max_examples=25)
@given(matmul_operands())
def test_matmul_fuzz(operands):
    # .grad strides are not compared: where the gradient reaching a leaf is a view (a transpose's), PyTorch
    # keeps it as .grad and teachtorch's engine copies it, so strides of size-1 dims may differ
    check_grad(lambda lib, a, b: a @ b, *operands, name=False, check_grad_strides=False)


# ---- the other compositions ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_vdot(layout):
    check_grad(lambda lib, a, b: lib.vdot(a, b), rand(4, layout=layout), rand(4, layout=_other(layout), seed=1),
               name=False)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_outer_and_ger(layout):
    check_grad(lambda lib, a, b: lib.outer(a, b), rand(3, layout=layout), rand(2, layout=_other(layout), seed=1))
    check_grad(lambda lib, a, b: a.outer(b), rand(0, layout=layout), rand(2, seed=1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grad(lambda lib, a, b: lib.ger(a, b), rand(3, layout=layout), rand(2, layout=_other(layout), seed=1))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shapes", [((2, 3), (4, 3)), ((3,), (3,)), ((2, 2, 3), (3,)), ((2, 3), ())])
def test_inner(layout, shapes):
    check_grad(lambda lib, a, b: lib.inner(a, b), rand(*shapes[0], layout=layout),
               rand(*shapes[1], layout=_other(layout), seed=1))


TENSORDOT_CASES = [
    ((2, 3), (3, 4), ([1], [0])),
    ((2, 3, 2), (3, 4, 2), ([1, 0], [0, 2])),
    ((2, 3), (2, 3), ([0, 1], [0, 1])),          # a full contraction: a dot product
    ((2, 3), (3, 2), 1),                         # dims as a count: the last of self with the first of other
    ((2, 1), (3, 4), ([1], [0])),                # a size-1 dim against a size-3 one: summed first
    ((2, 3), (4, 2), 0),                         # no contraction: an outer product
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", range(len(TENSORDOT_CASES)))
def test_tensordot(layout, case):
    sa, sb, dims = TENSORDOT_CASES[case]
    check_grad(lambda lib, a, b: lib.tensordot(a, b, dims), rand(*sa, layout=layout),
               rand(*sb, layout=_other(layout), seed=1))


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij->j", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("bij,jk->bik", [(2, 2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("i,ij,j->", [(2,), (2, 3), (3,)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]),
    ("ij,ij->i", [(2, 3), (2, 3)]),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", range(len(EINSUM_CASES)))
def test_einsum(layout, case):
    eq, shapes = EINSUM_CASES[case]
    args = [rand(*s, layout=_other(layout, i), seed=i) for i, s in enumerate(shapes)]
    check_grad(lambda lib, *ts: lib.einsum(eq, *ts), *args)
