"""Gradients of reductions, scans and sorts against PyTorch (teachtorch/autograd/derivatives/reductions.py).

Every op runs through `check_grad` (first and second derivatives against torch, grad_fn names, gradcheck and
gradgradcheck) on every layout, with dim variants (None, int, negative, list), keepdim, 0-d and empty inputs.
Then the special points, each compared with torch: prod and cumprod with zeros, ties (shared by max()/amax/
median(), sent to one index by max.dim/sort/topk), NaNs, std of a constant, norms at 0, var with
N <= correction. Finite differences mean nothing at ties, so those cases skip gradcheck.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

import teachtorch as tt
from parity import LAYOUTS, P, check_grad, inputs, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

inf = float("inf")


def vnorm(ord, dim=None, keepdim=False):
    return lambda lib, x: lib.linalg.vector_norm(x, ord, dim, keepdim)


# torch's second derivative of norms made of sgn(x) (ord 1, +-inf) is an "efficient zero tensor", which
# check_grad cannot read (`.cpu().numpy()` refuses ZeroTensors): those cases compare first derivatives only (gradcheck
# and gradgradcheck still run on teachtorch).
NO_DOUBLE = dict(double=False)

# name -> (fn(lib, x), shape[, check_grad options]). Values are random in [-3, 3]: no ties, no zeros (except in
# the "expanded" layout, which repeats values along its largest dim: ties for the ops in TIE_SENSITIVE).
CASES = {
    "sum": (lambda lib, x: x.sum(), (2, 3)),
    "sum.dim": (lambda lib, x: x.sum(0), (2, 3)),
    "sum.neg_keepdim": (lambda lib, x: x.sum(-1, keepdim=True), (2, 3)),
    "sum.list": (lambda lib, x: x.sum((0, 2)), (2, 3, 2)),
    "sum.list_keepdim": (lambda lib, x: x.sum([-1, 0], keepdim=True), (2, 3, 2)),
    "sum.empty_list": (lambda lib, x: x.sum(()), (2, 3)),
    "sum.dtype": (lambda lib, x: x.sum(1, dtype=lib.float64), (2, 3)),
    "nansum": (lambda lib, x: x.nansum(), (2, 3)),
    "nansum.dim": (lambda lib, x: x.nansum(1), (2, 3)),
    "nansum.list_keepdim": (lambda lib, x: x.nansum((0, -1), keepdim=True), (2, 3, 2)),
    "prod": (lambda lib, x: x.prod(), (2, 3)),
    "prod.dim": (lambda lib, x: x.prod(1), (2, 3)),
    "prod.neg_keepdim": (lambda lib, x: x.prod(-1, keepdim=True), (2, 3, 2)),
    "prod.dtype": (lambda lib, x: x.prod(0, dtype=lib.float64), (2, 3)),
    "mean": (lambda lib, x: x.mean(), (2, 3)),
    "mean.dim": (lambda lib, x: x.mean(0), (2, 3)),
    "mean.neg": (lambda lib, x: x.mean(-1), (2, 3)),
    "mean.list_keepdim": (lambda lib, x: x.mean((0, 2), keepdim=True), (2, 3, 2)),
    "nanmean": (lambda lib, x: x.nanmean(), (2, 3)),
    "nanmean.dim": (lambda lib, x: x.nanmean(1, keepdim=True), (2, 3)),
    "max": (lambda lib, x: x.max(), (2, 3)),
    "min": (lambda lib, x: x.min(), (2, 3)),
    "max.dim": (lambda lib, x: x.max(1), (2, 3)),
    "min.dim_keepdim": (lambda lib, x: x.min(-1, keepdim=True), (2, 3, 2)),
    "max.dim0": (lambda lib, x: x.max(0), (3, 4)),
    "amax": (lambda lib, x: x.amax(), (2, 3)),
    "amax.all_keepdim": (lambda lib, x: x.amax((), keepdim=True), (2, 3)),
    "amax.dim": (lambda lib, x: x.amax(0), (2, 3)),
    "amin.list": (lambda lib, x: x.amin((0, 2)), (2, 3, 2)),
    "amin.neg_keepdim": (lambda lib, x: x.amin(-1, keepdim=True), (2, 3)),
    "aminmax": (lambda lib, x: lib.aminmax(x), (2, 3)),
    "aminmax.dim": (lambda lib, x: lib.aminmax(x, dim=0), (2, 3)),
    "aminmax.neg_keepdim": (lambda lib, x: lib.aminmax(x, dim=-1, keepdim=True), (2, 3, 2)),
    "var": (lambda lib, x: x.var(), (2, 3)),
    "var.dim": (lambda lib, x: x.var(0), (3, 4)),
    "var.correction0": (lambda lib, x: x.var(1, correction=0), (2, 3)),
    "var.list_keepdim": (lambda lib, x: x.var((0, 2), keepdim=True), (2, 3, 2)),
    "var.correction2": (lambda lib, x: x.var(-1, correction=2), (3, 4)),
    "std": (lambda lib, x: x.std(), (2, 3)),
    "std.dim": (lambda lib, x: x.std(1), (2, 3)),
    "std.unbiased_false": (lambda lib, x: x.std(-1, unbiased=False, keepdim=True), (2, 3)),
    "std.list": (lambda lib, x: x.std([0, -1]), (2, 3, 2)),
    "var_mean": (lambda lib, x: lib.var_mean(x), (2, 3)),
    "var_mean.dim": (lambda lib, x: lib.var_mean(x, 0), (3, 4)),
    "var_mean.keepdim": (lambda lib, x: lib.var_mean(x, (0, 2), keepdim=True, correction=0), (2, 3, 2)),
    "std_mean": (lambda lib, x: lib.std_mean(x), (2, 3)),
    "std_mean.dim": (lambda lib, x: lib.std_mean(x, -1, keepdim=True), (2, 3)),
    "logsumexp": (lambda lib, x: x.logsumexp(0), (2, 3)),
    "logsumexp.list": (lambda lib, x: x.logsumexp((0, 1)), (2, 3)),
    "logsumexp.neg_keepdim": (lambda lib, x: x.logsumexp(-1, keepdim=True), (2, 3, 2)),
    "norm": (lambda lib, x: x.norm(), (2, 3)),
    "norm.dim": (lambda lib, x: x.norm(dim=1), (2, 3)),
    "norm.fro_keepdim": (lambda lib, x: x.norm(p="fro", dim=(0, 1), keepdim=True), (2, 3)),
    "norm.p3": (lambda lib, x: lib.norm(x, 3, dim=-1), (2, 3)),
    "vector_norm.1": (vnorm(1), (2, 3), NO_DOUBLE),
    "vector_norm.1.5": (vnorm(1.5, dim=0), (2, 3)),
    "vector_norm.3": (vnorm(3, dim=(0, 2)), (2, 3, 2)),
    "vector_norm.0.5": (vnorm(0.5, dim=-1, keepdim=True), (2, 3)),
    "vector_norm.-1": (vnorm(-1), (2, 3)),
    "vector_norm.inf": (vnorm(inf, dim=1), (2, 3), NO_DOUBLE),
    "vector_norm.-inf": (vnorm(-inf), (2, 3), NO_DOUBLE),
    "vector_norm.0": (vnorm(0, dim=0), (2, 3)),
    "vector_norm.dtype": (lambda lib, x: lib.linalg.vector_norm(x, 2, 1, dtype=lib.float64), (2, 3)),
    "softmax": (lambda lib, x: x.softmax(0), (2, 3)),
    "softmax.neg": (lambda lib, x: x.softmax(-1), (2, 3, 2)),
    "softmax.dtype": (lambda lib, x: lib.softmax(x, 1, dtype=lib.float64), (2, 3)),
    "log_softmax": (lambda lib, x: x.log_softmax(1), (2, 3)),
    "log_softmax.neg": (lambda lib, x: x.log_softmax(-3), (2, 3, 2)),
    "log_softmax.dtype": (lambda lib, x: lib.log_softmax(x, 0, dtype=lib.float64), (2, 3)),
    "cumsum": (lambda lib, x: x.cumsum(0), (2, 3)),
    "cumsum.neg": (lambda lib, x: x.cumsum(-1), (2, 3, 2)),
    "cumsum.dtype": (lambda lib, x: x.cumsum(1, dtype=lib.float64), (2, 3)),
    "cumprod": (lambda lib, x: x.cumprod(1), (2, 3)),
    "cumprod.neg": (lambda lib, x: x.cumprod(-3), (2, 3, 2)),
    "cumprod.dim0": (lambda lib, x: x.cumprod(0), (3, 4)),
    "median": (lambda lib, x: x.median(), (2, 3)),
    "median.dim": (lambda lib, x: x.median(1), (2, 3)),
    "median.neg_keepdim": (lambda lib, x: x.median(-1, keepdim=True), (2, 3, 2)),
    "nanmedian": (lambda lib, x: x.nanmedian(), (2, 3)),
    "nanmedian.dim": (lambda lib, x: x.nanmedian(0), (3, 4)),
    "kthvalue": (lambda lib, x: x.kthvalue(2), (2, 3)),
    "kthvalue.dim_keepdim": (lambda lib, x: x.kthvalue(1, 0, keepdim=True), (3, 4)),
    "sort": (lambda lib, x: x.sort(0), (2, 3)),
    "sort.descending": (lambda lib, x: x.sort(-1, descending=True), (2, 3, 2)),
    # torch calls sort.stable only when stable= is given (SortBackward1), else sort (SortBackward0); teachtorch
    # has the one op sort.stable, named SortBackward0
    "sort.stable": (lambda lib, x: x.sort(stable=True, dim=1), (2, 3), dict(name=False)),
    "msort": (lambda lib, x: lib.msort(x), (3, 4)),
    "topk": (lambda lib, x: x.topk(2), (2, 3)),
    "topk.smallest": (lambda lib, x: x.topk(2, 0, largest=False), (3, 4)),
    "topk.one": (lambda lib, x: x.topk(1, -1), (2, 3, 2)),
}

# Ops that pick elements by comparing values: in the "expanded" layout equal values make finite differences
# meaningless (the gradient is still compared with torch's).
TIE_SENSITIVE = {n for n in CASES if n.split(".")[0] in (
    "max", "min", "amax", "amin", "aminmax", "median", "nanmedian", "kthvalue", "sort", "msort", "topk")} | {
    "vector_norm.inf", "vector_norm.-inf"}


# PyTorch's cpu median reads garbage along a stride-0 dim (a torch bug, see test_reductions.py): along the
# expanded dim these compare on a contiguous copy, through which the gradient flows back to the expanded input.
MEDIAN_ALONG_EXPANDED = {"median.dim"}
# A std along the expanded dim is the std of a constant, 0, where sqrt has its kink: first derivatives are still
# compared with torch's (PyTorch's masked 0), but finite differences and second derivatives (NaN) mean nothing.
STD_ALONG_EXPANDED = {"std.dim", "std.unbiased_false", "std_mean.dim"}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(CASES))
def test_grad(name, layout):
    fn, shape, *opts = CASES[name]
    opts = dict(opts[0]) if opts else {}
    if layout == "expanded" and (name in TIE_SENSITIVE or name in STD_ALONG_EXPANDED):
        opts.update(gradcheck=False, gradgradcheck=False)
    if layout == "expanded" and name in MEDIAN_ALONG_EXPANDED:
        fn = (lambda f: lambda lib, x: f(lib, x.contiguous()))(fn)
    check_grad(fn, rand(*shape, layout=layout, seed=3), **opts)


# ---- 0-d and empty inputs ----------------------------------------------------------------------------------

SCALAR_CASES = {
    "sum": lambda lib, x: x.sum(),
    "sum.dim": lambda lib, x: x.sum(0),
    "nansum": lambda lib, x: x.nansum(-1),
    "prod": lambda lib, x: x.prod(),
    "prod.dim": lambda lib, x: x.prod(0, keepdim=True),
    "mean": lambda lib, x: x.mean(),
    "mean.dim": lambda lib, x: x.mean(0),
    "max": lambda lib, x: x.max(),
    "max.dim": lambda lib, x: x.max(0),
    "min.dim": lambda lib, x: x.min(-1, keepdim=True),
    "amax": lambda lib, x: x.amax(),
    "amax.dim": lambda lib, x: x.amax(0),
    "amin.dim": lambda lib, x: x.amin(-1, keepdim=True),
    "aminmax": lambda lib, x: lib.aminmax(x),
    "aminmax.dim": lambda lib, x: lib.aminmax(x, dim=0),
    "var.correction0": lambda lib, x: x.var(correction=0),
    "std.dim_correction0": lambda lib, x: x.std(0, correction=0),
    "var_mean.correction0": lambda lib, x: lib.var_mean(x, correction=0),
    "logsumexp": lambda lib, x: x.logsumexp(0),
    "norm": lambda lib, x: x.norm(),
    "vector_norm.3": vnorm(3, dim=0),
    "vector_norm.inf": vnorm(inf),
    "softmax": lambda lib, x: x.softmax(0),
    "log_softmax": lambda lib, x: x.log_softmax(-1),
    "cumsum": lambda lib, x: x.cumsum(0),
    "cumprod": lambda lib, x: x.cumprod(0),
    "median": lambda lib, x: x.median(),
    "median.dim": lambda lib, x: x.median(0),
    "nanmedian.dim": lambda lib, x: x.nanmedian(-1),
    "kthvalue": lambda lib, x: x.kthvalue(1, 0),
    "sort": lambda lib, x: x.sort(0),
    "topk": lambda lib, x: x.topk(1),
}


@pytest.mark.parametrize("name", list(SCALAR_CASES))
def test_grad_0d(name):
    kink = name == "std.dim_correction0"          # the std of one element is 0: sqrt's kink
    check_grad(SCALAR_CASES[name], P(np.float32(1.7)), double=name != "vector_norm.inf", gradcheck=not kink,
               gradgradcheck=not kink)


def test_grad_0d_var_nan():
    # one element with correction 1: var is NaN, and so is its gradient (PyTorch's where(x == mean, nan, inf))
    check_grad(lambda lib, x: x.var(), P(np.float32(1.7)), gradcheck=False, gradgradcheck=False)
    check_grad(lambda lib, x: x.std(0), P(np.float32(1.7)), gradcheck=False, gradgradcheck=False)


EMPTY_CASES = {
    "sum": (lambda lib, x: x.sum(), (0, 3)),
    "sum.dim": (lambda lib, x: x.sum(0), (0, 3)),
    "nansum.dim": (lambda lib, x: x.nansum(1), (0, 3)),
    "prod.dim": (lambda lib, x: x.prod(0), (0, 3)),
    "prod": (lambda lib, x: x.prod(), (2, 0)),
    "mean.dim": (lambda lib, x: x.mean(1), (0, 3)),
    "max.dim": (lambda lib, x: x.max(1), (0, 3)),
    "amax.dim": (lambda lib, x: x.amax(1), (0, 3)),
    "var.dim": (lambda lib, x: x.var(1), (0, 3)),
    "std_mean.dim": (lambda lib, x: lib.std_mean(x, 1), (0, 3)),
    "logsumexp": (lambda lib, x: x.logsumexp(1), (0, 3)),
    "logsumexp.empty_dim": (lambda lib, x: x.logsumexp(0), (0, 3)),
    "norm": (lambda lib, x: x.norm(), (0, 3)),
    "norm.dim": (lambda lib, x: x.norm(dim=0), (0, 3)),
    "softmax": (lambda lib, x: x.softmax(1), (0, 3)),
    "log_softmax": (lambda lib, x: x.log_softmax(0), (0, 3)),
    "cumsum": (lambda lib, x: x.cumsum(0), (0, 3)),
    "cumprod": (lambda lib, x: x.cumprod(1), (0, 3)),
    "median.dim": (lambda lib, x: x.median(1), (0, 3)),
    "sort": (lambda lib, x: x.sort(0), (0, 3)),
    "topk": (lambda lib, x: x.topk(0), (2, 3)),
    "kthvalue": (lambda lib, x: x.kthvalue(1, 1), (0, 3)),
}


@pytest.mark.parametrize("name", list(EMPTY_CASES))
def test_grad_empty(name):
    fn, shape = EMPTY_CASES[name]
    check_grad(fn, P(np.zeros(shape, np.float32)))


# ---- in-place scans ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
def test_grad_inplace(op, layout):
    check_grad(lambda lib, x: getattr(x.clone(), op)(1), rand(2, 3, layout=layout, seed=4))
    check_grad(lambda lib, x: getattr(x.clone(), op)(-1), rand(2, 3, 2, layout=layout, seed=5))


# ---- prod and cumprod with zeros ------------------------------------------------------------------------------

ZEROS = {
    "none": [[1.5, -2.0, 0.5], [2.5, 1.2, -0.7]],
    "one": [[1.5, 0.0, 0.5], [2.5, 1.2, -0.7]],
    "two_same_row": [[0.0, 0.0, 0.5], [2.5, 1.2, -0.7]],
    "two_rows": [[1.5, 0.0, 0.5], [2.5, 1.2, 0.0]],
    "three": [[0.0, 0.0, 0.5], [2.5, 0.0, -0.7]],
}


@pytest.mark.parametrize("layout", LAYOUTS[:-1])
@pytest.mark.parametrize("zeros", list(ZEROS))
@pytest.mark.parametrize("op", ["prod", "prod.dim", "prod.dim0_keepdim", "cumprod", "cumprod.dim0"])
def test_zeros(op, zeros, layout):
    """One zero: only it gets a gradient (the product of the others); two: all first derivatives vanish but
    second derivatives do not (PyTorch's prod_safe_zeros_backward runs under create_graph). cumprod has its own
    O(n) path without create_graph (the .backward() step of check_grad) and an O(n^2) one with it."""
    fn = {
        "prod": lambda lib, x: x.prod(),
        "prod.dim": lambda lib, x: x.prod(1),
        "prod.dim0_keepdim": lambda lib, x: x.prod(0, keepdim=True),
        "cumprod": lambda lib, x: x.cumprod(1),
        "cumprod.dim0": lambda lib, x: x.cumprod(0),
    }[op]
    check_grad(fn, P(np.array(ZEROS[zeros], np.float32), layout))


def test_cumprod_zeros_long():
    # zeros in the middle, the end and the start of slices, some with a second zero further on
    v = np.array([[2.0, 0.0, 3.0, 0.5, 0.0, 4.0], [0.0, 1.5, -2.0, 0.0, 3.0, 1.0], [1.0, 2.0, 3.0, -1.0, 0.5, 0.0]],
                 np.float32)
    check_grad(lambda lib, x: x.cumprod(1), P(v))
    check_grad(lambda lib, x: x.cumprod(0), P(v.T.copy(), "permuted"))


# ---- ties, NaNs and other special points -------------------------------------------------------------------------

TIES = np.array([[1.0, 3.0, 3.0], [3.0, -1.0, 2.0]], np.float32)
TIES3 = np.array([[[1.0, 1.0], [0.5, 2.0], [2.0, 2.0]], [[2.0, 0.0], [0.5, -1.0], [2.0, 1.0]]], np.float32)

TIE_CASES = {
    "max": lambda lib, x: x.max(),
    "min": lambda lib, x: x.min(),
    "max.dim": lambda lib, x: x.max(1),
    "min.dim": lambda lib, x: x.min(0, keepdim=True),
    "amax": lambda lib, x: x.amax(),
    "amax.dim": lambda lib, x: x.amax(1),
    "amax.list": lambda lib, x: x.amax((0, -1)),
    "amin.keepdim": lambda lib, x: x.amin(0, keepdim=True),
    "aminmax": lambda lib, x: lib.aminmax(x),
    "aminmax.dim": lambda lib, x: lib.aminmax(x, dim=-1),
    "median": lambda lib, x: x.median(),
    "median.dim": lambda lib, x: x.median(0),
    "nanmedian": lambda lib, x: x.nanmedian(),
    "kthvalue": lambda lib, x: x.kthvalue(2, 0),
    "sort": lambda lib, x: x.sort(-1),
    "sort.descending": lambda lib, x: x.sort(0, descending=True),
    "topk": lambda lib, x: x.topk(2, 0),
    "norm.inf": vnorm(inf),
    "norm.inf_dim": vnorm(inf, dim=0),
    "norm.-inf": vnorm(-inf, dim=-1, keepdim=True),
}


@pytest.mark.parametrize("values", ["2d", "3d"])
@pytest.mark.parametrize("name", list(TIE_CASES))
def test_ties(name, values):
    """max()/min()/median()/amax/norm(inf) share the gradient among equal elements (evenly, per reduced slice
    for amax); max.dim/median.dim/kthvalue/sort send it to the index they return."""
    v = TIES if values == "2d" else TIES3
    check_grad(TIE_CASES[name], P(v), gradcheck=False, gradgradcheck=False, double=not name.startswith("norm"))


def test_ties_negative_zero():
    # -0.0 == 0.0: a tie for max()
    check_grad(lambda lib, x: x.max(), P(np.array([0.0, -0.0, -1.0], np.float32)), gradcheck=False,
               gradgradcheck=False)


NAN = np.array([[1.0, math.nan, 3.0], [0.5, -1.0, 2.0]], np.float32)
ALL_NAN = np.array([[math.nan, math.nan], [math.nan, 1.0]], np.float32)

NAN_CASES = {
    "max": lambda lib, x: x.max(),
    "min.dim": lambda lib, x: x.min(1),
    "amax": lambda lib, x: x.amax(),
    "amax.dim": lambda lib, x: x.amax(1),
    "median": lambda lib, x: x.median(),
    "median.dim": lambda lib, x: x.median(1),
    "nanmedian": lambda lib, x: x.nanmedian(),
    "nanmedian.dim": lambda lib, x: x.nanmedian(1),
    "nansum": lambda lib, x: x.nansum(),
    "nansum.dim": lambda lib, x: x.nansum(0),
    "nanmean.dim": lambda lib, x: x.nanmean(1),
    "sort": lambda lib, x: x.sort(1),
    "topk": lambda lib, x: x.topk(2),
    "norm.inf": vnorm(inf),
}


@pytest.mark.parametrize("values", ["one_nan", "all_nan_row"])
@pytest.mark.parametrize("name", list(NAN_CASES))
def test_nan(name, values):
    v = NAN if values == "one_nan" else ALL_NAN
    check_grad(NAN_CASES[name], P(v), gradcheck=False, gradgradcheck=False, double=not name.startswith("norm"))


CONST = np.full((2, 3), 1.5, np.float32)
ZERO = np.zeros((2, 3), np.float32)


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.std(), lambda lib, x: x.std(1), lambda lib, x: x.var(0),
    lambda lib, x: lib.std_mean(x, 1), lambda lib, x: lib.var_mean(x),
], ids=["std", "std.dim", "var.dim", "std_mean.dim", "var_mean"])
def test_constant_input(fn):
    """std of a constant is 0, where sqrt has an infinite slope: PyTorch masks the gradient to 0."""
    check_grad(fn, P(CONST), gradcheck=False, gradgradcheck=False)


@pytest.mark.parametrize("ord", [2, 1, 3, 1.5, 0.5, -1, inf, -inf, 0])
@pytest.mark.parametrize("dim", [None, 1])
def test_norm_at_zero(ord, dim):
    """At 0 the norm is not differentiable; PyTorch returns the subgradient 0 (x / ||x|| masked where ||x|| = 0,
    sgn(0) = 0, |x|^(p-1) masked at x = 0)."""
    v = ZERO.copy()
    v[1] = [1.0, -2.0, 0.5]          # one slice at zero, one not
    check_grad(vnorm(ord, dim), P(v), gradcheck=False, gradgradcheck=False, double=abs(ord) not in (1, inf))


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.var(correction=6), lambda lib, x: x.var(1, correction=3), lambda lib, x: x.std(0, correction=2),
    lambda lib, x: x.var(()), lambda lib, x: lib.var_mean(x, 1, correction=5),
], ids=["var.all", "var.dim", "std.dim", "var.empty_list", "var_mean.dim"])
def test_var_no_degrees_of_freedom(fn):
    """N <= correction: var is inf or NaN, and so is the gradient (inf, NaN where x equals the mean).
    var(dim=()) reduces everything but PyTorch's backward counts one element per slice: its gradient is inf."""
    v = np.array([[1.0, 2.0, 4.0], [1.0, 3.0, 2.0]], np.float32)
    check_grad(fn, P(v), gradcheck=False, gradgradcheck=False)


def test_softmax_extreme():
    # large logits: softmax saturates to one-hot, and the gradient to ~0, without NaNs
    v = np.array([[100.0, -100.0, 0.0], [50.0, 50.0, -50.0]], np.float32)
    check_grad(lambda lib, x: x.softmax(1), P(v), gradcheck=False, gradgradcheck=False)
    check_grad(lambda lib, x: x.log_softmax(1), P(v), gradcheck=False, gradgradcheck=False)
    check_grad(lambda lib, x: x.logsumexp(1), P(v), gradcheck=False, gradgradcheck=False)


# ---- composites, and ops with integer results ----------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fn", [
    lambda lib, x, y: lib.max(x, y), lambda lib, x, y: lib.min(x, y),
    lambda lib, x, y: x.max(y[0]), lambda lib, x, y: (x.softmax(1) * y).sum(),
], ids=["max.other", "min.other", "max.other_broadcast", "softmax_mul"])
def test_grad_two_inputs(fn, layout):
    check_grad(fn, rand(2, 3, layout=layout, seed=6), rand(2, 3, layout="permuted", seed=7))


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.argmax(), lambda lib, x: x.argmin(1), lambda lib, x: x.count_nonzero(),
    lambda lib, x: x.count_nonzero(0), lambda lib, x: x.all(), lambda lib, x: x.any(1),
    lambda lib, x: x.sort(0)[1], lambda lib, x: x.argsort(), lambda lib, x: x.topk(2)[1],
    lambda lib, x: x.max(1)[1],
], ids=["argmax", "argmin", "count_nonzero", "count_nonzero.dim", "all", "any", "sort.indices", "argsort",
        "topk.indices", "max.indices"])
def test_integer_results(fn):
    """Integer and bool results never require grad."""
    check_grad(fn, rand(2, 3, seed=8))


@pytest.mark.parametrize("fn, name", [
    (lambda lib, x: lib.unique(x), "_unique2"),
    (lambda lib, x: lib.unique(x, return_inverse=True, return_counts=True), "_unique2"),
    (lambda lib, x: lib.unique(x, dim=0), "unique_dim"),
    (lambda lib, x: lib.unique_consecutive(x), "unique_consecutive"),
    (lambda lib, x: lib.unique_consecutive(x, return_counts=True, dim=1), "unique_consecutive"),
], ids=["unique", "unique.inverse_counts", "unique_dim", "unique_consecutive", "unique_consecutive.dim"])
def test_unique_not_differentiable(fn, name):
    """unique's values require grad, as in PyTorch, but backward through them fails: no formula exists."""
    v = np.array([[1.0, 2.0, 2.0], [1.0, 2.0, 2.0]], np.float32)
    results = {}
    for lib in (torch, tt):
        x = lib.tensor(v, requires_grad=True)
        out = fn(lib, x)
        outs = out if isinstance(out, tuple) else (out,)
        with pytest.raises(NotImplementedError) as e:
            outs[0].sum().backward()
        results[lib] = ([o.requires_grad for o in outs], outs[0].grad_fn.name(), str(e.value))
    assert results[tt] == results[torch]
    assert results[tt][2] == f"the derivative for '{name}' is not implemented."


# ---- hypothesis -------------------------------------------------------------------------------------------------


@st.composite
def reduction_case(draw, min_dims=0):
    """A small input (numel <= 12, so gradcheck stays cheap), a dim (None, an int or a list) and keepdim."""
    ndim = draw(st.integers(min_dims, 3))
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim)))
    assume(math.prod(shape) <= 12)
    x = draw(inputs(shape=shape, allow_expanded=False))
    kind = draw(st.sampled_from(["none", "int", "list"])) if ndim else draw(st.sampled_from(["none", "int"]))
    if kind == "none":
        dim = None
    elif kind == "int":
        dim = draw(st.integers(-max(ndim, 1), max(ndim, 1) - 1))
    else:
        dim = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
        dim = [d - ndim if draw(st.booleans()) else d for d in dim]
    return x, dim, draw(st.booleans())


def _strides_checkable(x):
    """The strides of .grad are compared unless the input has size-1 dims: there PyTorch's AccumulateGrad keeps
    the formula's (view) gradient as it is, strides of size-1 dims included, while teachtorch's copies views
    into the leaf's strides (a known difference of the core, not of these formulas)."""
    return 1 not in x.values.shape


def _reduce(op, dim, keepdim):
    def fn(lib, x):
        if dim is None:
            return getattr(x, op)()
        return getattr(x, op)(dim, keepdim=keepdim)
    return fn


@given(reduction_case(), st.sampled_from(["sum", "mean", "nansum", "amax", "logsumexp"]))
def test_hypothesis_sum_mean(case, op):
    x, dim, keepdim = case
    if op == "logsumexp" and dim is None:
        dim = list(range(x.values.ndim))
    check_grad(_reduce(op, dim, keepdim), x, check_grad_strides=_strides_checkable(x))


@given(reduction_case(), st.sampled_from(["var", "std"]), st.sampled_from([0, 1]))
def test_hypothesis_var(case, op, correction):
    x, dim, keepdim = case
    v = x.values
    dims = range(v.ndim) if dim is None else ([dim] if isinstance(dim, int) else dim)
    n = math.prod(v.shape[d] for d in dims) if v.ndim else 1
    assume(n > correction + (op == "std"))      # finite, and std not at a single point (its sqrt kink)
    check_grad(lambda lib, t: getattr(t, op)(dim, correction=correction, keepdim=keepdim), x,
               check_grad_strides=_strides_checkable(x))


@given(reduction_case(), st.sampled_from(["softmax", "log_softmax", "cumsum", "cumprod"]))
def test_hypothesis_softmax_scans(case, op):
    x, dim, _ = case
    dim = 0 if dim is None else (dim if isinstance(dim, int) else dim[0])
    check_grad(lambda lib, t: getattr(t, op)(dim), x, check_grad_strides=_strides_checkable(x))


@given(reduction_case(), st.sampled_from(["max", "min", "median", "nanmedian", "kthvalue", "sort", "topk", "aminmax"]))
def test_hypothesis_selecting(case, op):
    """Ops that pick elements (random values: no ties), along one dim."""
    x, dim, keepdim = case
    dim = 0 if dim is None else (dim if isinstance(dim, int) else dim[0])
    fn = {
        "kthvalue": lambda lib, t: t.kthvalue(1, dim, keepdim),
        "sort": lambda lib, t: t.sort(dim),
        "topk": lambda lib, t: t.topk(1, dim),
        "aminmax": lambda lib, t: lib.aminmax(t, dim=dim, keepdim=keepdim),
    }.get(op, lambda lib, t: getattr(t, op)(dim, keepdim))
    check_grad(fn, x, check_grad_strides=_strides_checkable(x))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_softmax_backward_is_one_op_with_pytorchs_nodes(fn, layout):
    """The backward of (log_)softmax is PyTorch's fused `_(log_)softmax_backward_data` op, one dispatched call,
    whose node (SoftmaxBackwardDataBackward0) carries the second derivative; values match torch's."""
    x = rand(3, 5, layout=layout, seed=4)
    w = rand(3, 5, seed=5)
    results = []
    for lib in (torch, tt):
        xt = x.build(lib).requires_grad_(True)
        y = getattr(lib, fn)(xt, 1)
        g, = lib.autograd.grad((y * w.build(lib)).sum(), xt, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), xt)
        results.append((type(y.grad_fn).__name__, type(g.grad_fn).__name__, g.detach().cpu().numpy(),
                        gg.cpu().numpy()))
    (*names_torch, g_torch, gg_torch), (*names_tt, g_tt, gg_tt) = results
    assert names_tt == names_torch
    np.testing.assert_allclose(g_tt, g_torch, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gg_tt, gg_torch, rtol=1e-4, atol=1e-5)
    y = getattr(tt, fn)(x.build(tt).requires_grad_(True), 1)
    with tt.dispatch.trace() as t:
        y.backward(tt.ones_like(y))
    ops = [e.op for e in t.events if e.depth == 0 and e.backward_node == type(y.grad_fn).__name__]
    assert ops == [f"aten::_{fn}_backward_data"], ops
