"""dtypes and type promotion: promote_types, can_cast and result_type against PyTorch over every dtype pair and
many tensor / 0-d tensor / Python number combinations; the default dtype and what it changes; dtype attributes;
finfo and iinfo."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import teachtorch as tt
from parity import TORCH_DTYPE, check

DTYPES = [tt.bool, tt.uint8, tt.int8, tt.int16, tt.int32, tt.int64, tt.float16, tt.float32, tt.float64]
T = {d: TORCH_DTYPE[d.name] for d in DTYPES}


@pytest.fixture
def default_dtype():
    """Set the default dtype in both libraries; restored afterwards."""
    def set_(d):
        tt.set_default_dtype(d)
        torch.set_default_dtype(T[d])
    try:
        yield set_
    finally:
        tt.set_default_dtype(tt.float32)
        torch.set_default_dtype(torch.float32)


# ---- promote_types and can_cast: every pair ----------------------------------------------------------------------


@pytest.mark.parametrize("a", DTYPES, ids=str)
@pytest.mark.parametrize("b", DTYPES, ids=str)
def test_promote_types_every_pair(a, b):
    got = tt.promote_types(a, b)
    assert got is tt._dtype._lookup(str(torch.promote_types(T[a], T[b])).replace("torch.", ""))
    assert got is tt.promote_types(b, a)


@pytest.mark.parametrize("a", DTYPES, ids=str)
@pytest.mark.parametrize("b", DTYPES, ids=str)
def test_can_cast_every_pair(a, b):
    assert tt.can_cast(a, b) == torch.can_cast(T[a], T[b])


def test_promotion_argument_errors():
    check(lambda lib: lib.promote_types(lib.int8, 3))
    check(lambda lib: lib.promote_types(3, lib.int8))
    check(lambda lib: lib.promote_types("int8", lib.int8))
    check(lambda lib: lib.can_cast(lib.float32, 3))
    check(lambda lib: lib.can_cast(None, lib.float32))


# ---- result_type ---------------------------------------------------------------------------------------------

SCALARS = [True, False, 0, 3, -5, 1000, 2.5, -0.0, float("inf"), np.float32(1.5), np.float16(2.0), np.float64(3.0),
           np.int32(2), np.int64(-1), np.uint8(3), np.bool_(True)]


def _tensor(lib, d, dim):
    dt = T[d] if lib is torch else d
    return lib.ones(2, dtype=dt) if dim else lib.ones((), dtype=dt)


@pytest.mark.parametrize("a", DTYPES, ids=str)
@pytest.mark.parametrize("b", DTYPES, ids=str)
@pytest.mark.parametrize("dims", [(1, 1), (1, 0), (0, 1), (0, 0)], ids=["dim-dim", "dim-0d", "0d-dim", "0d-0d"])
def test_result_type_tensor_pairs(a, b, dims):
    got = tt.result_type(_tensor(tt, a, dims[0]), _tensor(tt, b, dims[1]))
    exp = torch.result_type(_tensor(torch, a, dims[0]), _tensor(torch, b, dims[1]))
    assert got.name == str(exp).replace("torch.", "")


@pytest.mark.parametrize("a", DTYPES, ids=str)
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
@pytest.mark.parametrize("dim", [1, 0], ids=["dim", "0d"])
def test_result_type_tensor_and_number(a, scalar, dim):
    for args in [(0, 1), (1, 0)]:   # both orders
        tt_args = [_tensor(tt, a, dim), scalar]
        th_args = [_tensor(torch, a, dim), scalar]
        got = tt.result_type(*[tt_args[i] for i in args])
        exp = torch.result_type(*[th_args[i] for i in args])
        assert got.name == str(exp).replace("torch.", ""), (a, scalar, dim, args)


@pytest.mark.parametrize("x", [True, 3, 2.5, np.float32(1.5), np.int8(3)], ids=repr)
@pytest.mark.parametrize("y", [True, 3, 2.5, np.float16(1.5)], ids=repr)
def test_result_type_two_numbers(x, y):
    assert tt.result_type(x, y).name == str(torch.result_type(x, y)).replace("torch.", "")


@pytest.mark.parametrize("d", [tt.float64, tt.float16])
def test_result_type_follows_default_dtype(default_dtype, d):
    default_dtype(d)
    for a in DTYPES:
        for s in [True, 3, 2.5, np.float32(1.5)]:
            got = tt.result_type(_tensor(tt, a, 1), s)
            exp = torch.result_type(_tensor(torch, a, 1), s)
            assert got.name == str(exp).replace("torch.", ""), (a, s)
    assert tt.result_type(1, 2.5) is d


def _operand(draw, lib_values):
    kind = draw(st.sampled_from(["dim", "0d", "number"]))
    if kind == "number":
        return ("number", draw(st.sampled_from([True, 2, -3, 1.5, False, 0.0])))
    return (kind, draw(st.sampled_from(DTYPES)))


@st.composite
def operands(draw):
    return [_operand(draw, None) for _ in range(draw(st.integers(1, 4)))]


@given(operands())
def test_fuzz_result_type_through_add(ops):
    """torch.result_type takes two arguments; longer lists are checked through the dtype of an elementwise op's
    result, which PyTorch computes with the same rule (`at::native::result_type` over all operands)."""
    def build(lib, op):
        kind, v = op
        if kind == "number":
            return v
        return _tensor(lib, v, kind == "dim")
    tt_ops = [build(tt, o) for o in ops]
    th_ops = [build(torch, o) for o in ops]
    if len(ops) == 2 and any(isinstance(o, torch.Tensor) for o in th_ops):
        exp = torch.result_type(*th_ops)
        assert tt.result_type(*tt_ops).name == str(exp).replace("torch.", "")
    from torch._prims_common import elementwise_dtypes, ELEMENTWISE_TYPE_PROMOTION_KIND
    _, exp = elementwise_dtypes(*th_ops, type_promotion_kind=ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT)
    assert tt._dtype.result_type(*tt_ops).name == str(exp).replace("torch.", "")


# ---- the default dtype ------------------------------------------------------------------------------------------


def test_default_dtype_errors():
    check(lambda lib: lib.set_default_dtype(lib.int64))
    check(lambda lib: lib.set_default_dtype(lib.bool))
    check(lambda lib: lib.set_default_dtype("float32"))
    assert tt.get_default_dtype() is tt.float32


@pytest.mark.parametrize("d", [tt.float16, tt.float32, tt.float64], ids=str)
def test_default_dtype_changes_factories_and_promotion(default_dtype, d):
    default_dtype(d)
    assert tt.get_default_dtype() is d
    check(lambda lib: lib.tensor([1.5]))
    check(lambda lib: lib.tensor(2.5))
    check(lambda lib: lib.tensor([]))
    check(lambda lib: lib.tensor([1, 2]))
    check(lambda lib: lib.tensor([np.float64(1.5)]))
    check(lambda lib: lib.arange(0.0, 1, 0.25))
    check(lambda lib: lib.full((2,), 1.5))
    check(lambda lib: lib.zeros(2))
    check(lambda lib: lib.ones(2, 3))
    check(lambda lib: lib.eye(2))
    check(lambda lib: lib.linspace(0, 1, 3))
    check(lambda lib: lib.scalar_tensor(1))
    check(lambda lib: lib.ones(2, dtype=lib.int64) + 1.5)
    check(lambda lib: lib.ones(2, dtype=lib.float32) + 1.5)
    check(lambda lib: lib.ones(2, dtype=lib.int32).new_tensor([1.5]))
    check(lambda lib: lib.tensor([1.0, 2.0]).dtype)


def test_default_dtype_and_repr(default_dtype):
    default_dtype(tt.float64)
    assert repr(tt.tensor([1.5, 2])) == repr(torch.tensor([1.5, 2]))
    assert repr(tt.tensor([1.5, 2], dtype=tt.float32)) == repr(torch.tensor([1.5, 2], dtype=torch.float32))


# ---- dtype attributes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", DTYPES, ids=str)
def test_dtype_attributes(d):
    t = T[d]
    assert repr(d) == repr(t) and str(d) == str(t)
    assert d.is_floating_point == t.is_floating_point
    assert d.is_signed == t.is_signed
    assert d.itemsize == t.itemsize
    assert d.is_complex == t.is_complex
    assert tt.ones(1, dtype=d).element_size() == torch.ones(1, dtype=t).element_size()
    assert tt.ones(1, dtype=d).is_floating_point() == torch.ones(1, dtype=t).is_floating_point()


def test_dtype_aliases():
    assert tt.float is tt.float32 and tt.double is tt.float64 and tt.half is tt.float16
    assert tt.int is tt.int32 and tt.long is tt.int64 and tt.short is tt.int16
    assert isinstance(tt.float32, tt.dtype)


# ---- finfo and iinfo --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [tt.float16, tt.float32, tt.float64], ids=str)
def test_finfo(d):
    got, exp = tt.finfo(d), torch.finfo(T[d])
    for name in ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]:
        assert getattr(got, name) == getattr(exp, name), name
        assert type(getattr(got, name)) is type(getattr(exp, name)), name
    assert repr(got) == repr(exp) and str(got) == str(exp)
    assert got == tt.finfo(d)


@pytest.mark.parametrize("d", [tt.uint8, tt.int8, tt.int16, tt.int32, tt.int64], ids=str)
def test_iinfo(d):
    got, exp = tt.iinfo(d), torch.iinfo(T[d])
    for name in ["bits", "max", "min", "dtype"]:
        assert getattr(got, name) == getattr(exp, name), name
        assert type(getattr(got, name)) is type(getattr(exp, name)), name
    assert repr(got) == repr(exp)


def test_finfo_default_and_errors(default_dtype):
    assert repr(tt.finfo()) == repr(torch.finfo())
    default_dtype(tt.float64)
    assert repr(tt.finfo()) == repr(torch.finfo())
    for d in [tt.int32, tt.bool, tt.uint8]:
        check(lambda lib, x: lib.finfo(x), d)
    for d in [tt.float32, tt.bool, tt.float16]:
        check(lambda lib, x: lib.iinfo(x), d)
    check(lambda lib: lib.finfo(1.0))
