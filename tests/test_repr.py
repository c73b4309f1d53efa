"""teachtorch._repr.format_tensor must reproduce torch's repr(tensor) exactly.

Every test builds a real torch tensor, prints it with torch, and prints the
same elements with ``format_tensor``; the strings must be identical.
"""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from teachtorch._repr import (  # noqa: E402
    format_tensor,
    get_printoptions,
    printoptions,
    set_printoptions,
)

DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


@pytest.fixture(autouse=True)
def _reset_printoptions():
    """Every test starts and ends with default options on both sides."""
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


def ours(t: torch.Tensor, device=None) -> str:
    grad_fn = t.grad_fn
    return format_tensor(
        t.detach().cpu().numpy(),
        dtype_name=str(t.dtype).removeprefix("torch."),
        is_default_dtype=t.dtype in (torch.get_default_dtype(), torch.int64, torch.bool),
        device=device,
        requires_grad=t.requires_grad,
        grad_fn_name=None if grad_fn is None else type(grad_fn).__name__,
    )


def check(t: torch.Tensor) -> None:
    assert ours(t) == repr(t)


# ---------------------------------------------------------------------------
# Hand-picked cases
# ---------------------------------------------------------------------------

CASES = {
    # basic dtypes
    "float32": lambda: torch.tensor([1.5, -2.25, 3.0]),
    "float64": lambda: torch.tensor([1.5, -2.25, 3.0], dtype=torch.float64),
    "float16": lambda: torch.tensor([1.5, -2.25, 3.1], dtype=torch.float16),
    "float16_big": lambda: torch.tensor([65504.0, -1.0, 0.001], dtype=torch.float16),
    "float16_tiny": lambda: torch.tensor([6e-8, 1.0], dtype=torch.float16),
    "int64": lambda: torch.tensor([1, -20, 300]),
    "int32": lambda: torch.tensor([1, -20, 300], dtype=torch.int32),
    "int16": lambda: torch.tensor([-32768, 32767], dtype=torch.int16),
    "int8": lambda: torch.tensor([-128, 0, 127], dtype=torch.int8),
    "uint8": lambda: torch.tensor([0, 7, 255], dtype=torch.uint8),
    "bool": lambda: torch.tensor([True, False]),
    "bool_2d": lambda: torch.tensor([[True, False, True], [False, False, True]]),
    "int64_extremes": lambda: torch.tensor([-(2**63), 2**63 - 1]),
    # 0-d
    "scalar_float": lambda: torch.tensor(3.14159),
    "scalar_int_float": lambda: torch.tensor(2.0),
    "scalar_int": lambda: torch.tensor(7),
    "scalar_bool": lambda: torch.tensor(True),
    "scalar_nan": lambda: torch.tensor(float("nan")),
    "scalar_neg_inf": lambda: torch.tensor(float("-inf")),
    "scalar_zero": lambda: torch.tensor(0.0),
    "scalar_neg_zero": lambda: torch.tensor(-0.0),
    "scalar_big": lambda: torch.tensor(1e10),
    "scalar_f16": lambda: torch.tensor(0.1, dtype=torch.float16),
    "scalar_uint8": lambda: torch.tensor(200, dtype=torch.uint8),
    # empty
    "empty": lambda: torch.tensor([]),
    "empty_0x3": lambda: torch.empty(0, 3),
    "empty_int64": lambda: torch.empty(0, dtype=torch.int64),
    "empty_int64_2d": lambda: torch.empty(2, 0, dtype=torch.int64),
    "empty_bool": lambda: torch.empty(0, dtype=torch.bool),
    "empty_f64": lambda: torch.empty(0, 3, 2, dtype=torch.float64),
    "empty_f16": lambda: torch.empty(0, dtype=torch.float16),
    "empty_requires_grad": lambda: torch.empty(0, 3, requires_grad=True),
    # float modes
    "int_mode": lambda: torch.tensor([1.0, -2.0, 300.0]),
    "all_zero": lambda: torch.zeros(4),
    "neg_zero": lambda: torch.tensor([-0.0, 0.0, 1.0]),
    "neg_zero_frac": lambda: torch.tensor([-0.0, 0.5]),
    "big_values": lambda: torch.tensor([1e9, 2.0]),
    "big_int_mode": lambda: torch.tensor([1e9, 2e9]),
    "ratio_over_1000": lambda: torch.tensor([1.0, 1001.0, 0.5]),
    "ratio_exactly_1000": lambda: torch.tensor([1.0, 1000.0]),
    "tiny_values": lambda: torch.tensor([1e-5, 2e-5]),
    "tiny_and_zero": lambda: torch.tensor([0.0, 1e-5]),
    "mixed_sign": lambda: torch.tensor([-1.2345, 0.0001, 9.87654]),
    "rounding": lambda: torch.tensor([0.00005, 0.99995, 1.23456789]),
    "over_1e8": lambda: torch.tensor([123456789.0, 1.5]),
    "huge_f64": lambda: torch.tensor([1e300, -1e-300], dtype=torch.float64),
    "sci_negative_exp": lambda: torch.tensor([-1e-10, 3.3e-7, 1.0]),
    # nan / inf
    "nan_inf": lambda: torch.tensor([float("nan"), float("inf"), float("-inf"), 1.5]),
    "nan_int_mode": lambda: torch.tensor([1.0, float("nan")]),
    "inf_int_mode": lambda: torch.tensor([float("inf"), 100.0, -float("inf")]),
    "all_nan": lambda: torch.tensor([float("nan"), float("nan")]),
    "inf_sci": lambda: torch.tensor([float("inf"), 1e-6, 1.0]),
    "nan_2d": lambda: torch.tensor([[float("nan"), 1.25], [2.0, float("-inf")]]),
    # multi-dimensional
    "2x3": lambda: torch.arange(6.0).reshape(2, 3),
    "2x3x4": lambda: torch.arange(24.0).reshape(2, 3, 4) / 7,
    "2x3x4_int": lambda: torch.arange(24).reshape(2, 3, 4),
    "4d": lambda: torch.arange(2 * 2 * 3 * 2).reshape(2, 2, 3, 2) - 10,
    "5d": lambda: torch.linspace(-1, 1, 32).reshape(2, 2, 2, 2, 2),
    "col": lambda: torch.tensor([[1.5], [2.5], [-3.5]]),
    "1x1x1": lambda: torch.tensor([[[9]]]),
    "non_contiguous": lambda: torch.arange(12.0).reshape(3, 4).t() * 1.1,
    # long rows that wrap
    "long_row_float": lambda: torch.linspace(0, 1, 40),
    "long_row_int": lambda: torch.arange(100) * 1000,
    "long_row_2d": lambda: torch.arange(60.0).reshape(2, 30) + 0.5,
    "long_row_3d": lambda: torch.arange(90).reshape(3, 1, 30),
    "long_row_sci": lambda: torch.logspace(-10, 10, 25),
    "long_row_bool": lambda: torch.arange(30) % 3 == 0,
    # summarization
    "arange_2000": lambda: torch.arange(2000),
    "arange_1001_float": lambda: torch.arange(1001.0) / 3,
    "arange_1000_not_summarized": lambda: torch.arange(1000),
    "100x100": lambda: torch.arange(10000.0).reshape(100, 100),
    "100x100_rand": lambda: torch.randn(100, 100, generator=torch.Generator().manual_seed(0)),
    "10x10x20": lambda: torch.arange(2000).reshape(10, 10, 20),
    "3x1000": lambda: torch.arange(3000).reshape(3, 1000),
    "1000x3": lambda: torch.arange(3000.0).reshape(1000, 3),
    "summarized_hidden_extremes": lambda: torch.cat(
        [torch.ones(5), torch.full((1000,), 1e12), torch.ones(5)]
    ),
    "summarized_f16": lambda: torch.linspace(-5, 5, 1500).half(),
    # autograd and dtype suffixes
    "requires_grad": lambda: torch.tensor([1.0, 2.0], requires_grad=True),
    "requires_grad_f64": lambda: torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True),
    "requires_grad_scalar": lambda: torch.tensor(1.5, requires_grad=True),
    "grad_fn_add": lambda: torch.ones(3, requires_grad=True) + 1,
    "grad_fn_mul_f64": lambda: torch.ones(3, dtype=torch.float64, requires_grad=True) * 2,
    "grad_fn_sum": lambda: (torch.ones(3, requires_grad=True) * 2).sum(),
    "grad_fn_matmul": lambda: torch.ones(2, 3, requires_grad=True) @ torch.ones(3, 2),
    "grad_fn_long_row": lambda: torch.linspace(0, 1, 30, requires_grad=True) * 3,
    "grad_fn_long_row_f64": lambda: (
        torch.linspace(0, 1, 30, dtype=torch.float64, requires_grad=True).exp()
    ),
    "grad_fn_2d_f16": lambda: torch.ones(4, 9, dtype=torch.float16, requires_grad=True) * 1.5,
    "grad_fn_summarized": lambda: torch.arange(2000.0, requires_grad=True) * 2,
    "dtype_suffix_wraps": lambda: torch.arange(13, dtype=torch.int32) * 100000,
    "dtype_suffix_just_fits": lambda: torch.arange(10, dtype=torch.int32) * 100000,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_picked(name):
    check(CASES[name]())


@pytest.mark.parametrize("n", range(0, 16))
def test_row_lengths_around_suffix_wrap(n):
    # Walks the end of the last line across the linewidth so that the
    # ", dtype=..." suffix switches from same-line to next-line.
    check(torch.arange(n, dtype=torch.int16) * 100000)
    check(torch.arange(n, dtype=torch.float64, requires_grad=True) * 1.5)


def test_default_dtype_float64():
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        check(torch.tensor([1.5, 2.0]))  # no dtype= suffix now
        check(torch.tensor([1.5, 2.0], dtype=torch.float32))  # dtype=torch.float32
        check(torch.empty(0))
        check(torch.empty(0, dtype=torch.float32))
    finally:
        torch.set_default_dtype(old)


# ---------------------------------------------------------------------------
# Device suffix (no second device here, so the expected strings are written out)
# ---------------------------------------------------------------------------


def test_device_suffix():
    a = np.array([1.0, 2.0], dtype=np.float32)
    assert (
        format_tensor(a, dtype_name="float32", is_default_dtype=True, device="cuda:0")
        == "tensor([1., 2.], device='cuda:0')"
    )
    assert (
        format_tensor(
            a,
            dtype_name="float16",
            is_default_dtype=False,
            device="cuda:0",
            grad_fn_name="AddBackward0",
        )
        == "tensor([1., 2.], device='cuda:0', dtype=torch.float16, grad_fn=<AddBackward0>)"
    )
    assert (
        format_tensor(
            np.zeros((0, 2)), dtype_name="float32", is_default_dtype=True, device="cuda:1"
        )
        == "tensor([], device='cuda:1', size=(0, 2))"
    )


@pytest.mark.parametrize("n", [1, 5, 9, 10, 11, 12, 13, 30])
def test_device_suffix_matches_torch_layout(n):
    # Build torch's answer from its own pieces: _tensor_str gives the body and
    # _add_suffixes decides where the device/dtype suffixes go.
    t = torch.arange(n, dtype=torch.int32) * 100000
    tt = torch._tensor_str
    expected = tt._add_suffixes(
        "tensor(" + tt._tensor_str(t, 7), ["device='cuda:0'", "dtype=torch.int32"], 7, False
    )
    got = format_tensor(t.numpy(), dtype_name="int32", is_default_dtype=False, device="cuda:0")
    assert got == expected


def test_requires_grad_ignored_when_grad_fn_given():
    s = format_tensor(
        np.ones(2, dtype=np.float32),
        dtype_name="float32",
        is_default_dtype=True,
        requires_grad=True,
        grad_fn_name="MulBackward0",
    )
    assert s == "tensor([1., 1.], grad_fn=<MulBackward0>)"


def test_accepts_non_contiguous_arrays():
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4).transpose(2, 0, 1)[::-1]
    t = torch.from_numpy(np.ascontiguousarray(a))
    assert format_tensor(a, dtype_name="float64", is_default_dtype=False) == repr(t)


# ---------------------------------------------------------------------------
# Print options
# ---------------------------------------------------------------------------


def test_get_printoptions_defaults():
    assert get_printoptions() == DEFAULTS
    assert get_printoptions() == torch._tensor_str.get_printoptions()


@pytest.mark.parametrize(
    "opts",
    [
        {"precision": 2},
        {"precision": 0},
        {"precision": 8},
        {"threshold": 5},
        {"threshold": 5, "edgeitems": 1},
        {"threshold": 5, "edgeitems": 0},
        {"edgeitems": 0},
        {"linewidth": 40},
        {"linewidth": 10},
        {"sci_mode": True},
        {"sci_mode": False},
        {"sci_mode": True, "precision": 1},
        {"profile": "short"},
        {"profile": "full"},
        {"profile": "short", "precision": 6},
    ],
    ids=str,
)
def test_printoptions_match_torch(opts):
    set_printoptions(**opts)
    torch.set_printoptions(**opts)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    for name in sorted(CASES):
        check(CASES[name]())


def test_precision_2():
    set_printoptions(precision=2)
    torch.set_printoptions(precision=2)
    t = torch.tensor([1.12345, -20.5, 3.999])
    assert ours(t) == repr(t) == "tensor([  1.12, -20.50,   4.00])"


def test_profile_default_restores():
    set_printoptions(precision=1, threshold=3, edgeitems=1, linewidth=20, sci_mode=True)
    set_printoptions(profile="default")
    assert get_printoptions() == DEFAULTS


def test_sci_mode_reset_when_omitted():
    # torch quirk: every call assigns sci_mode, so leaving it out resets it.
    set_printoptions(sci_mode=True)
    set_printoptions(precision=3)
    assert get_printoptions()["sci_mode"] is None


def test_printoptions_context_manager():
    with printoptions(precision=1, threshold=10):
        assert get_printoptions()["precision"] == 1
        torch.set_printoptions(precision=1, threshold=10)
        check(torch.arange(20.0) / 3)
    assert get_printoptions() == DEFAULTS


# ---------------------------------------------------------------------------
# Hypothesis fuzz
# ---------------------------------------------------------------------------

NP_DTYPES = [
    np.float16, np.float32, np.float64,
    np.int8, np.uint8, np.int16, np.int32, np.int64,
    np.bool_,
]  # fmt: skip


def _element_strategy(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        return None  # hypothesis' default: the whole range of the dtype
    width = dtype.itemsize * 8
    return st.one_of(
        # anything representable, including nan, inf, subnormals, -0.0
        st.floats(width=width),
        # whole numbers -> int mode
        st.integers(-1000, 1000).map(float),
        # "ordinary" values -> fixed point
        st.floats(-100, 100, width=width),
        # a few magnitudes that flip sci mode on
        st.sampled_from([1e-5, -3e-7, 1e4, 6e4, 123456.0, 0.0, -0.0, 0.5]).filter(
            lambda v: abs(v) <= float(np.finfo(dtype).max)
        ),
    )


@st.composite
def tensors(draw):
    dtype = draw(st.sampled_from(NP_DTYPES))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7))
    arr = draw(hnp.arrays(dtype, shape, elements=_element_strategy(dtype)))
    return torch.from_numpy(arr)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tensors())
def test_fuzz_default_options(t):
    check(t)


print_opts = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(0, 10),
        "threshold": st.integers(0, 60),
        "edgeitems": st.integers(0, 4),
        "linewidth": st.integers(1, 120),
        "sci_mode": st.sampled_from([None, True, False]),
        "profile": st.sampled_from(["default", "short", "full"]),
    },
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tensors(), print_opts, st.booleans())
def test_fuzz_with_printoptions(t, opts, requires_grad):
    if requires_grad and t.dtype.is_floating_point:
        t = t.detach().requires_grad_(True)
    try:
        set_printoptions(**opts)
        torch.set_printoptions(**opts)
        assert ours(t) == repr(t)
    finally:
        set_printoptions(profile="default")
        torch.set_printoptions(profile="default")


@settings(max_examples=50, deadline=None)
@given(st.integers(990, 1300), st.sampled_from([np.float32, np.int64, np.float16]))
def test_fuzz_around_threshold(n, dtype):
    values = np.arange(n) * 7 % 23 - 11
    if dtype is not np.int64:
        values = values / 3
    check(torch.from_numpy(values.astype(dtype)))
