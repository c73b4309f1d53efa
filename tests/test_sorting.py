"""Sorting and selecting against PyTorch: sort, argsort, msort, topk, kthvalue, unique, unique_consecutive.

Values, indices, named-tuple results, strides (sort keeps the input's layout; topk and kthvalue are
contiguous), NaN placement, stability with ties, `out=` and errors, on every input layout. `topk` reports
ties in an order PyTorch does not promise, so its inputs here have distinct values.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import teachtorch as tt
from parity import LAYOUTS, P, check, inputs, rand

DTYPES = ("float32", "float64", "float16", "int64", "int32", "uint8", "bool")

pytestmark = [pytest.mark.device_generic, pytest.mark.filterwarnings("ignore::UserWarning")]

WITH_TIES = P(np.array([[3., 1., 2., 1.], [0., -1., 5., np.nan], [2., 2., 2., 2.]], np.float32))


def distinct(*shape, seed=0, dtype="float32", layout="contiguous"):
    n = int(np.prod(shape)) if shape else 1
    return P((np.random.default_rng(seed).permutation(n) - n // 2).reshape(shape).astype(dtype), layout)


# ---- sort / argsort / msort ------------------------------------------------------------------------------------------

SORT = {
    "default": lambda lib, x: x.sort(),
    "descending": lambda lib, x: x.sort(descending=True),
    "stable": lambda lib, x: x.sort(stable=True),
    "dim0_desc_stable": lambda lib, x: x.sort(dim=0, stable=True, descending=True),
    "function": lambda lib, x: lib.sort(x, 0),
    "function_kwargs": lambda lib, x: lib.sort(x, dim=-1, descending=True, stable=True),
    "dim_out_of_range": lambda lib, x: x.sort(2),
    "argsort": lambda lib, x: x.argsort(),
    "argsort_desc": lambda lib, x: x.argsort(1, True),
    "argsort_function": lambda lib, x: lib.argsort(x, dim=0, stable=True),
    "msort": lambda lib, x: lib.msort(x),
    "msort_method": lambda lib, x: x.msort(),
    "out": lambda lib, x: lib.sort(x, out=(lib.empty(0), lib.empty(0, dtype=lib.int64))),
    "out_wrong_values_dtype": lambda lib, x: lib.sort(x, out=(lib.empty(0, dtype=lib.float64),
                                                              lib.empty(0, dtype=lib.int64))),
    "out_wrong_indices_dtype": lambda lib, x: lib.sort(x, out=(lib.empty(0), lib.empty(0, dtype=lib.int32))),
    "out_permuted": lambda lib, x: lib.sort(x, 1, out=(lib.empty(4, 3).t(), lib.empty(4, 3, dtype=lib.int64).t())),
    "argsort_out": lambda lib, x: lib.argsort(x, stable=True, out=lib.empty(0, dtype=lib.int64)),
    "msort_out": lambda lib, x: lib.msort(x, out=lib.empty(0)),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", list(SORT))
def test_sort(case, layout):
    check(SORT[case], P(WITH_TIES.values, layout))       # ties and a NaN: stable order, NaN largest


@pytest.mark.parametrize("layout", LAYOUTS)
def test_sort_keeps_layout(layout):
    x = distinct(2, 3, 4, layout=layout)
    for dim in (0, 1, 2):
        check(lambda lib, x: x.sort(dim), x)
        check(lambda lib, x: x.argsort(dim, descending=True), x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_dtypes(dtype):
    x = rand(3, 5, dtype=dtype, layout="permuted", low=-2, high=2)           # with ties
    check(lambda lib, x: x.sort(), x)
    check(lambda lib, x: x.sort(0, descending=True), x)
    check(lambda lib, x: x.argsort(stable=True), x)


def test_sort_special_values_and_shapes():
    check(lambda lib: lib.tensor([1., float("nan"), 3., float("-inf"), float("nan"), float("inf")]).sort())
    check(lambda lib: lib.tensor([1., float("nan"), 3., float("-inf"), float("nan")]).sort(descending=True))
    check(lambda lib: lib.tensor([0., -0., 0., -0.]).sort(stable=True))
    check(lambda lib: lib.tensor(3.).sort())
    check(lambda lib: lib.tensor(3.).argsort())
    check(lambda lib: lib.zeros(0, 3).sort())
    check(lambda lib: lib.zeros(3, 0).sort(0, descending=True))


def test_sort_returns_a_named_tuple():
    r = tt.tensor([[3., 1.]]).sort()
    assert r.values.tolist() == [[1., 3.]] and r.indices.tolist() == [[1, 0]]
    values, indices = r
    assert values is r[0] and indices is r[1]
    assert repr(r).startswith("torch.return_types.sort(\nvalues=tensor(")
    assert type(tt.tensor([3., 1.]).topk(1)).__name__ == "topk"


# ---- topk ------------------------------------------------------------------------------------------------------------

TOPK = {
    "k2": lambda lib, x: x.topk(2),
    "smallest": lambda lib, x: x.topk(2, largest=False),
    "dim0": lambda lib, x: x.topk(1, 0),
    "function": lambda lib, x: lib.topk(x, 3, dim=1, largest=True, sorted=True),
    "all": lambda lib, x: x.topk(4),
    "zero": lambda lib, x: x.topk(0),
    "too_big": lambda lib, x: x.topk(5),
    "negative": lambda lib, x: x.topk(-1),
    "out": lambda lib, x: lib.topk(x, 2, out=(lib.empty(0), lib.empty(0, dtype=lib.int64))),
    "out_wrong_dtype": lambda lib, x: lib.topk(x, 2, out=(lib.empty(0, dtype=lib.float64),
                                                          lib.empty(0, dtype=lib.int64))),
}


@pytest.mark.parametrize("layout", LAYOUTS[:-1])     # (an expanded input is full of ties)
@pytest.mark.parametrize("case", list(TOPK))
def test_topk(case, layout):
    check(TOPK[case], distinct(3, 4, layout=layout))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "uint8"])
def test_topk_dtypes(dtype):
    x = P(np.random.default_rng(1).permutation(20).reshape(4, 5).astype(dtype), "permuted")
    check(lambda lib, x: x.topk(3), x)
    check(lambda lib, x: x.topk(2, 0, largest=False), x)


def test_topk_edges():
    check(lambda lib: lib.tensor(3.).topk(1))
    check(lambda lib: lib.tensor(3.).topk(0))
    check(lambda lib: lib.tensor(3.).topk(2))
    check(lambda lib: lib.tensor([True, False]).topk(1))
    check(lambda lib: lib.tensor([1., float("nan"), 3]).topk(2))
    check(lambda lib: lib.tensor([1., float("nan"), 3]).topk(2, largest=False))
    check(lambda lib: lib.zeros(0, 3).topk(2))
    check(lambda lib: lib.tensor([1., 5., 3., 4.]).topk(3, sorted=True))
    check(lambda lib, x: x.topk(2, 1), distinct(2, 3, 4, layout="permuted"))


# ---- kthvalue ----------------------------------------------------------------------------------------------------------

KTHVALUE = {
    "k2": lambda lib, x: x.kthvalue(2),
    "keepdim_dim0": lambda lib, x: x.kthvalue(1, 0, True),
    "function": lambda lib, x: lib.kthvalue(x, 3, dim=1, keepdim=False),
    "last": lambda lib, x: x.kthvalue(4),
    "too_big": lambda lib, x: x.kthvalue(5),
    "zero": lambda lib, x: x.kthvalue(0),
    "out": lambda lib, x: lib.kthvalue(x, 3, out=(lib.empty(0), lib.empty(0, dtype=lib.int64))),
    "out_wrong_dtype": lambda lib, x: lib.kthvalue(x, 3, out=(lib.empty(0, dtype=lib.float64),
                                                              lib.empty(0, dtype=lib.int64))),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", list(KTHVALUE))
def test_kthvalue(case, layout):
    # PyTorch's quickselect is ported step by step, so even among ties the same index is reported
    check(KTHVALUE[case], P(WITH_TIES.values, layout))
    check(KTHVALUE[case], distinct(3, 4, layout=layout))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"])
def test_kthvalue_dtypes(dtype):
    x = rand(4, 6, dtype=dtype, layout="permuted", low=-2, high=2)
    check(lambda lib, x: x.kthvalue(3), x)
    check(lambda lib, x: x.kthvalue(2, 0, keepdim=True), x)


def test_kthvalue_edges():
    check(lambda lib: lib.tensor(2.).kthvalue(1))
    check(lambda lib: lib.tensor(2.).kthvalue(2))
    check(lambda lib: lib.zeros(0, 3).kthvalue(1))
    check(lambda lib: lib.zeros(3, 0).kthvalue(1))
    check(lambda lib, x: x.kthvalue(2, 1), distinct(2, 3, 4, layout="sliced"))


# ---- unique ------------------------------------------------------------------------------------------------------------

UNIQUE = {
    "plain": lambda lib, x: x.unique(),
    "inverse_counts": lambda lib, x: lib.unique(x, return_inverse=True, return_counts=True),
    "counts": lambda lib, x: x.unique(return_counts=True),
    "unsorted": lambda lib, x: x.unique(sorted=False),
    "dim0": lambda lib, x: x.unique(dim=0, return_inverse=True, return_counts=True),
    "dim1": lambda lib, x: x.unique(dim=1, return_inverse=True, return_counts=True),
    "consecutive": lambda lib, x: x.unique_consecutive(return_inverse=True, return_counts=True),
    "consecutive_plain": lambda lib, x: lib.unique_consecutive(x),
    "consecutive_dim0": lambda lib, x: x.unique_consecutive(dim=0, return_inverse=True, return_counts=True),
    "consecutive_dim1": lambda lib, x: x.unique_consecutive(dim=1, return_counts=True),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", list(UNIQUE))
def test_unique(case, layout):
    x = P(np.array([[3, 1, 3, 3], [2, 1, 2, 2], [3, 1, 3, 3]]), layout)
    check(UNIQUE[case], x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unique_dtypes(dtype):
    x = rand(3, 4, dtype=dtype, layout="permuted", low=-2, high=2)
    check(lambda lib, x: lib.unique(x, return_inverse=True, return_counts=True), x)
    check(lambda lib, x: x.unique(dim=1), x)
    check(lambda lib, x: x.unique_consecutive(return_counts=True), x)


def test_unique_edges():
    check(lambda lib: lib.tensor([1., float("nan"), float("nan")]).unique())      # each NaN is its own value
    check(lambda lib: lib.zeros(0).unique(return_inverse=True, return_counts=True))
    check(lambda lib: lib.tensor(3.).unique(return_inverse=True, return_counts=True))
    check(lambda lib: lib.zeros(0).unique_consecutive(return_inverse=True, return_counts=True))
    check(lambda lib: lib.tensor([[[3, 1, 3], [2, 1, 2]], [[3, 1, 3], [2, 1, 2]]]).unique(dim=2))
    check(lambda lib: lib.tensor([[[3, 1, 3], [2, 1, 2]], [[3, 1, 3], [2, 1, 2]]]).unique_consecutive(dim=2))


def test_meta_device_shapes():
    x = tt.empty(3, 4, device="meta")
    assert x.sort()[0].shape == (3, 4) and x.topk(2)[1].dtype is tt.int64 and x.kthvalue(2)[0].shape == (3,)


# ---- hypothesis ----------------------------------------------------------------------------------------------------------


@given(inputs(low=-3, high=3), st.data())
def test_fuzz_sort(p, data):
    nd = max(p.values.ndim, 1)
    dim = data.draw(st.integers(-nd, nd - 1))
    descending = data.draw(st.booleans())
    check(lambda lib, x: x.sort(dim, descending=descending), p)
    check(lambda lib, x: x.argsort(dim=dim, descending=descending, stable=True), p)


@given(inputs(shape=None, dtype="int64", low=-3, high=3), st.data())
def test_fuzz_sort_ints_with_ties(p, data):
    nd = max(p.values.ndim, 1)
    dim = data.draw(st.integers(-nd, nd - 1))
    check(lambda lib, x: x.sort(dim, descending=data_desc), p) if (data_desc := data.draw(st.booleans())) else \
        check(lambda lib, x: x.sort(dim), p)
    size = p.values.shape[dim] if p.values.ndim else 1
    if size:
        k = data.draw(st.integers(1, size))
        keepdim = data.draw(st.booleans())
        check(lambda lib, x: x.kthvalue(k, dim, keepdim), p)
    check(lambda lib, x: x.unique(return_inverse=True, return_counts=True), p)
    if p.values.ndim:
        check(lambda lib, x: x.unique(dim=dim, return_inverse=True, return_counts=True), p)
        check(lambda lib, x: x.unique_consecutive(dim=dim, return_inverse=True, return_counts=True), p)


@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.data())
def test_fuzz_topk_distinct(shape, data):
    p = distinct(*shape, seed=data.draw(st.integers(0, 1000)), layout=data.draw(st.sampled_from(LAYOUTS[:-1])))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    k = data.draw(st.integers(0, shape[dim]))
    largest = data.draw(st.booleans())
    check(lambda lib, x: x.topk(k, dim, largest=largest), p)
    if k:
        check(lambda lib, x: x.kthvalue(k, dim), p)
