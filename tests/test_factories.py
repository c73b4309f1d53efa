"""Factories and randomness: parity with PyTorch on values, dtype inference, shapes, strides, aliasing with NumPy,
argument errors (type and exact message), out=, and the random ops' API, ranges, statistics and in-place fills
into every layout (values cannot match PyTorch's bit for bit: teachtorch draws from NumPy's PCG64)."""

import math
import tracemalloc
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import teachtorch as tt
from parity import LAYOUTS, P, TORCH_DTYPE, assert_same, device_name, build_in_sentinel_storage, check, check_inplace, inputs, rand

pytestmark = [pytest.mark.device_generic, pytest.mark.filterwarnings("ignore::UserWarning")]

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]
ALL = [tt._dtype._lookup(d) for d in DTYPES]
FLOATS = [tt.float32, tt.float64, tt.float16]
INTS = [tt.int64, tt.int32, tt.int16, tt.int8, tt.uint8]
INF, NAN = float("inf"), float("nan")


def _id(v):
    """A test id that is the same in every process (pytest-xdist compares them): no memory addresses."""
    r = repr(v)
    return type(v).__name__ if " at 0x" in r else r[:40]


def device_generator():
    """A generator for the device the test runs on (a cpu generator cannot drive a cuda random op)."""
    return tt.Generator(tt.get_default_device())


def meta(t):
    """What a random result must share with torch's: shape, dtype, strides, requires_grad, device type."""
    return (t.shape, t.dtype, t.stride(), t.requires_grad, device_name(t), t.is_contiguous())


@pytest.fixture
def default_float64():
    tt.set_default_dtype(tt.float64)
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        tt.set_default_dtype(tt.float32)
        torch.set_default_dtype(torch.float32)


# ==== tensor(data) ==========================================================================================

DATA = [
    [], [[]], [[], []], [[], [1]], 3, 3.5, True, -0.0, [1, 2, 3], [1.0, 2], [True, False], [True, 1], [True, 1, 2.5],
    [[1, 2], [3, 4]], ((1, 2), (3, 4)), [[1, 2], (3, 4)], range(4), [[[1.5]]], [[True], [False]], 2**63 - 1,
    -2**63, [INF, -INF], [NAN], [1e40], [1e-50], [[1.0, 2.0], [3.0, 4.0]],
    np.float32(1.5), np.float64(2.5), np.int32(7), np.int16(-3), np.uint8(200), np.bool_(True), np.float16(0.5),
    [np.float32(1), np.float32(2)], [1.0, np.float32(2)], [np.int32(1), 2], [np.float16(1), np.int64(2)],
    [np.int32(1), np.int32(2)], [np.float64(1.5)], [[np.uint8(1)], [np.int8(-1)]],
    np.array(5, dtype=np.int16), np.array([[1, 2], [3, 4]], dtype=np.int32), np.array([1.5], dtype=np.float16),
    np.array([True, False]), np.zeros((2, 0, 3)), np.array([[1.0, 2.0]], dtype=np.float64),
    [np.array([1, 2]), np.array([3, 4])], [np.array([1, 2], np.int32), np.array([3, 4], np.int32)],
]


@pytest.mark.parametrize("data", DATA, ids=_id)
def test_tensor_infers_dtype_and_shape(data):
    check(lambda lib: lib.tensor(data))


@pytest.mark.parametrize("data", DATA[:30], ids=_id)
def test_tensor_infers_with_default_float64(default_float64, data):
    check(lambda lib: lib.tensor(data))


ERRORS = [
    [[1, 2], [3]], [[1, 2], [3, 4, 5]], [[1, 2], 3], [1, [2, 3]], [[[1, 2], [3, 4]], [[1, 2], [3]]], [[1], []],
    [[[1]], [[]]], "abc", ["a"], [1, "a"], None, [None], [1.5, None], [[1], None], object(), {1: 2}, 2**63, [2**64],
    -2**63 - 1, [np.array(5)], (x for x in range(3)),
]


@pytest.mark.parametrize("data", ERRORS, ids=_id)
def test_tensor_errors(data):
    check(lambda lib: lib.tensor(data))


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("data", [[-1], [2**40], [1e300], [-1.5], [2], [[1, 2]], [1.7, -1.7], [NAN], [INF], [0, 2],
                                  [300, -300], [1e40], [70000.0], [True, False], [[1, [4]]], [1, [4]], [np.float32(1.5)],
                                  [np.int32(5)], [256], [-129], [2**31], [-2**31 - 1]], ids=repr)
def test_tensor_with_dtype_converts_like_torch(dtype, data):
    check(lambda lib, d: lib.tensor(data, dtype=d), dtype)


def test_tensor_of_0d_tensors():
    check(lambda lib: lib.tensor([lib.tensor(1, dtype=lib.int32), lib.tensor(2, dtype=lib.int32)]))
    check(lambda lib: lib.tensor([lib.tensor(1.5, dtype=lib.float64), 2]))
    check(lambda lib: lib.tensor([lib.tensor(True)]))
    check(lambda lib: lib.tensor([lib.tensor(1.5)], dtype=lib.int64))
    check(lambda lib: lib.tensor([lib.tensor([1, 2]), lib.tensor([3, 4])]))
    check(lambda lib: lib.tensor([lib.tensor([1.5])]))
    check(lambda lib: lib.tensor([lib.tensor([1, 2])], dtype=lib.float32))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [None, tt.float64, tt.int32, tt.bool], ids=str)
def test_tensor_from_tensor_copies_keeping_layout(layout, dtype):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        check(lambda lib, x, d: lib.tensor(x, dtype=d), rand(3, 4, layout=layout), dtype)
    assert any("To copy construct from a tensor" in str(x.message) for x in w)


def test_tensor_from_tensor_detaches():
    check(lambda lib, x: lib.tensor(x), P(np.ones(3, np.float32), requires_grad=True))


NP_ARRAYS = {
    "contiguous": lambda: np.arange(12.0).reshape(3, 4),
    "transposed": lambda: np.arange(12.0).reshape(3, 4).T,
    "sliced": lambda: np.arange(48.0).reshape(6, 8)[::2, 1::3],
    "offset": lambda: np.arange(20.0)[3:15].reshape(3, 4),
    "broadcast": lambda: np.broadcast_to(np.arange(4.0), (3, 4)),
    "permuted3d": lambda: np.arange(24, dtype=np.int32).reshape(2, 3, 4).transpose(2, 0, 1),
    "zero-d": lambda: np.array(2.5, dtype=np.float32),
    "empty": lambda: np.zeros((0, 3), dtype=np.int64),
    "bool": lambda: np.array([[True, False], [False, True]]).T,
}


@pytest.mark.parametrize("name", list(NP_ARRAYS))
@pytest.mark.parametrize("dtype", [None, tt.float32, tt.int64], ids=str)
def test_tensor_from_numpy_array_copies_keeping_layout(name, dtype):
    a = NP_ARRAYS[name]()
    t = check(lambda lib, d: lib.tensor(a, dtype=d), dtype)
    before = a.copy()
    t.fill_(1)
    np.testing.assert_array_equal(a, before)   # a copy: the array is untouched


def test_tensor_numpy_errors():
    check(lambda lib: lib.tensor(np.arange(3)[::-1]))
    check(lambda lib: lib.tensor(np.array(["a"])), msg=False)   # teachtorch lists fewer supported dtypes


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_tensor_requires_grad(dtype):
    check(lambda lib, d: lib.tensor([1, 2], dtype=d, requires_grad=True), dtype)


REQUIRES_GRAD_FACTORIES = {
    "tensor": lambda lib, rg: lib.tensor([1.0], requires_grad=rg),
    "new_tensor": lambda lib, rg: lib.zeros(2).new_tensor([1.0], requires_grad=rg),
    "zeros": lambda lib, rg: lib.zeros(2, requires_grad=rg),
    "zeros_out": lambda lib, rg: lib.zeros(2, requires_grad=rg, out=lib.empty(2)),
    "ones": lambda lib, rg: lib.ones(2, requires_grad=rg),
    "empty": lambda lib, rg: lib.empty(2, requires_grad=rg).shape,
    "full": lambda lib, rg: lib.full((2,), 1.0, requires_grad=rg),
    "empty_strided": lambda lib, rg: lib.empty_strided((2,), (1,), requires_grad=rg).shape,
    "zeros_like": lambda lib, rg: lib.zeros_like(lib.ones(2), requires_grad=rg),
    "full_like": lambda lib, rg: lib.full_like(lib.ones(2), 3.0, requires_grad=rg),
    "new_zeros": lambda lib, rg: lib.ones(2).new_zeros(2, requires_grad=rg),
    "new_ones": lambda lib, rg: lib.ones(2).new_ones(2, requires_grad=rg),
    "new_empty": lambda lib, rg: lib.ones(2).new_empty(2, requires_grad=rg).shape,
    "new_full": lambda lib, rg: lib.ones(2).new_full((2,), 1.0, requires_grad=rg),
    "new_empty_strided": lambda lib, rg: lib.ones(2).new_empty_strided((2,), (1,), requires_grad=rg).shape,
    "scalar_tensor": lambda lib, rg: lib.scalar_tensor(1.0, requires_grad=rg),
    # functions with several signatures: PyTorch says that none fits ("invalid combination of arguments")
    "arange": lambda lib, rg: lib.arange(3., requires_grad=rg),
    "arange_start_end_step": lambda lib, rg: lib.arange(0, 3., 1, requires_grad=rg),
    "linspace": lambda lib, rg: lib.linspace(0, 1, 3, requires_grad=rg),
    "logspace": lambda lib, rg: lib.logspace(0, 1, 3, requires_grad=rg),
    "eye": lambda lib, rg: lib.eye(2, requires_grad=rg),
    "eye_n_m": lambda lib, rg: lib.eye(2, 3, requires_grad=rg),
    "rand": lambda lib, rg: lib.rand(2, requires_grad=rg).shape,
    "randn": lambda lib, rg: lib.randn((2, 3), requires_grad=rg).shape,
    "randint": lambda lib, rg: lib.randint(3, (2,), requires_grad=rg).shape,
    "randint_low_high": lambda lib, rg: lib.randint(0, 3, (2,), requires_grad=rg).shape,
    "randperm": lambda lib, rg: lib.randperm(3, requires_grad=rg).shape,
    "normal": lambda lib, rg: lib.normal(0.0, 1.0, (2,), requires_grad=rg).shape,
    "rand_like": lambda lib, rg: lib.rand_like(lib.ones(2), requires_grad=rg).shape,
    "randn_like": lambda lib, rg: lib.randn_like(lib.ones(2), requires_grad=rg).shape,
    "randint_like": lambda lib, rg: lib.randint_like(lib.ones(2), 3, requires_grad=rg).shape,
    "randint_like_low_high": lambda lib, rg: lib.randint_like(lib.ones(2), 0, 3, requires_grad=rg).shape,
}


@pytest.mark.parametrize("value", ["yes", 1, None, np.bool_(True), 0.0], ids=repr)
@pytest.mark.parametrize("name", REQUIRES_GRAD_FACTORIES)
def test_factory_requires_grad_takes_only_a_bool(name, value):
    """True or False; None too (meaning False) where PyTorch's schema says `bool?`, but not in tensor()."""
    check(lambda lib: REQUIRES_GRAD_FACTORIES[name](lib, value))


@pytest.mark.parametrize("dtype", [None, tt.float64, tt.float16, tt.int32, tt.bool], ids=str)
@pytest.mark.parametrize("kind", ["float", "int", "bool", "mixed"])
def test_tensor_from_a_big_nested_list_peaks_at_the_result_size(kind, dtype):
    """tensor(list) allocates its result once and fills it row by row: no list of every element, no float64
    copy of the whole data (a 10^4 x 10^4 list of floats peaked at 5x its result before)."""
    n = 300
    make = {"float": lambda i, j: float(i * n + j) / 7, "int": lambda i, j: i * n + j - 5000,
            "bool": lambda i, j: (i + j) % 3 == 0, "mixed": lambda i, j: [True, 2, 0.5][(i + j) % 3]}[kind]
    data = [[make(i, j) for j in range(n)] for i in range(n)]
    expected = torch.tensor(data, dtype=None if dtype is None else TORCH_DTYPE[dtype.name])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # int -> bool/int32/float16 conversions that overflow are checked elsewhere
        tracemalloc.start()
        try:
            got = tt.tensor(data, dtype=dtype, device="cpu")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert_same(got, expected)
    nbytes = got.numel() * got.element_size()
    assert peak <= nbytes + 64 * n + 100_000, f"peak {peak} bytes for a result of {nbytes}"


def test_tensor_on_meta_device():
    check(lambda lib: meta(lib.tensor([[1, 2]], device="meta")))
    check(lambda lib: meta(lib.tensor(np.ones((2, 3)).T, device="meta")))


def test_tensor_data_is_a_copy():
    data = [1.0, 2.0]
    t = tt.tensor(data)
    t[0] = 5
    assert data == [1.0, 2.0]


nested = st.recursive(st.one_of(st.booleans(), st.integers(-2**40, 2**40), st.floats(-1e6, 1e6, allow_nan=False)),
                      lambda children: st.lists(children, min_size=0, max_size=3), max_leaves=12)


@st.composite
def regular_nested(draw):
    shape = draw(st.lists(st.integers(0, 3), min_size=0, max_size=3))
    kind = draw(st.sampled_from(["bool", "int", "float", "mixed"]))
    leaf = {"bool": st.booleans(), "int": st.integers(-1000, 1000), "float": st.floats(-1e3, 1e3, allow_nan=False),
            "mixed": st.one_of(st.booleans(), st.integers(-5, 5), st.floats(-5, 5))}[kind]

    def build(dims):
        if not dims:
            return draw(leaf)
        return [build(dims[1:]) for _ in range(dims[0])]
    return build(shape)


@given(regular_nested(), st.sampled_from([None] + ALL))
def test_fuzz_tensor_from_nested_lists(data, dtype):
    check(lambda lib, d: lib.tensor(data, dtype=d), dtype)


@given(nested)
def test_fuzz_tensor_from_any_nesting(data):
    check(lambda lib: lib.tensor(data))


# ==== as_tensor and from_numpy ================================================================================


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"])
def test_from_numpy_shares_memory_both_ways(dtype):
    a = np.arange(6).reshape(2, 3).astype(dtype)
    t = tt.from_numpy(a)
    assert t.dtype is tt._dtype.from_numpy_dtype(a.dtype) and t.shape == (2, 3) and t.stride() == (3, 1)
    t[0, 0] = 1 if dtype != "bool" else True
    a[1, 2] = 0
    assert a[0, 0] == t[0, 0].item() and t[1, 2].item() == 0
    assert t.cpu().numpy() is not a and np.shares_memory(t.cpu().numpy(), a)


@pytest.mark.cpu_only("from_numpy shares host memory")
@pytest.mark.parametrize("name", list(NP_ARRAYS))
def test_from_numpy_keeps_strides_like_torch(name):
    a = NP_ARRAYS[name]()
    got, exp = tt.from_numpy(a), torch.from_numpy(a)
    assert got.shape == exp.shape and got.stride() == exp.stride() and got.storage_offset() == exp.storage_offset()
    assert got.untyped_storage().nbytes() == exp.untyped_storage().nbytes()
    assert_same(got, exp)
    assert np.shares_memory(got.cpu().numpy(), a) or a.size == 0


def test_from_numpy_views_see_writes():
    base = np.zeros(20)
    a = base[2:14].reshape(3, 4)[:, ::2]
    t = tt.from_numpy(a)
    t.fill_(3.0)
    assert (base.reshape(-1)[2:14].reshape(3, 4)[:, ::2] == 3).all() and base[0] == 0 and base[3] == 0
    base[2] = -1
    assert t[0, 0].item() == -1


def test_from_numpy_errors():
    check(lambda lib: lib.from_numpy(np.zeros(4)[::-1]))
    check(lambda lib: lib.from_numpy(np.arange(12.).reshape(3, 4)[:, ::-1]))
    check(lambda lib: lib.from_numpy([1]))
    check(lambda lib: lib.from_numpy(np.float32(1)))
    check(lambda lib: lib.from_numpy(np.zeros(2, ">f4")))
    check(lambda lib: lib.from_numpy(np.lib.stride_tricks.as_strided(np.zeros(10, np.float32), (2,), (6,))))
    check(lambda lib: lib.from_numpy(np.array(["a"])), msg=False)   # teachtorch lists fewer supported dtypes


def test_from_numpy_read_only_warns():
    a = np.zeros(3)
    a.setflags(write=False)
    with pytest.warns(UserWarning, match="not writable"):
        tt.from_numpy(a)


@pytest.mark.cpu_only("as_tensor of cpu tensors and NumPy arrays shares memory")
def test_as_tensor_shares_or_copies():
    x = tt.ones(2)
    assert tt.as_tensor(x) is x and tt.as_tensor(x, dtype=tt.float32) is x and tt.as_tensor(x, device="cpu") is x
    y = tt.ones(2, requires_grad=True)
    assert tt.as_tensor(y) is y
    a = np.zeros(3)
    t = tt.as_tensor(a)
    t[0] = 5
    assert a[0] == 5
    t = tt.as_tensor(a, dtype=tt.float32)
    t[1] = 5
    assert a[1] == 0
    check(lambda lib: lib.as_tensor(np.zeros((3, 4)).T))
    check(lambda lib: lib.as_tensor(np.zeros((3, 4)).T, dtype=lib.float32))
    check(lambda lib, x: lib.as_tensor(x, dtype=lib.float64), rand(2, 3, layout="permuted"))
    check(lambda lib: lib.as_tensor([1.0, 2], dtype=lib.float64))
    check(lambda lib: lib.as_tensor((1, 2)))
    check(lambda lib: lib.as_tensor(3))
    check(lambda lib: lib.as_tensor(np.float32(3)))
    check(lambda lib: meta(lib.as_tensor(np.ones(2), device="meta")))
    check(lambda lib: lib.as_tensor(np.arange(3)[::-1]))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_as_tensor_of_tensor_with_other_dtype_keeps_layout(layout):
    check(lambda lib, x: lib.as_tensor(x, dtype=lib.float64), rand(3, 4, layout=layout))
    check(lambda lib, x: lib.as_tensor(x), rand(3, 4, layout=layout))


# ==== zeros, ones, empty, full ==========================================================================================

SIZES = [(2, 3), ((2, 3),), ([2, 3],), (torch.Size([2, 3]),), (), ((),), (0,), (2, 0, 3), (1,), (np.int64(3), 2)]


@pytest.mark.parametrize("name", ["zeros", "ones"])
@pytest.mark.parametrize("size", SIZES, ids=repr)
def test_zeros_ones_sizes(name, size):
    check(lambda lib: getattr(lib, name)(*(tt.Size(s) if isinstance(s, torch.Size) and lib is tt else s
                                           for s in size)))


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_zeros_ones_empty_dtypes(name, dtype):
    if name == "empty":
        check(lambda lib, d: meta(lib.empty(2, 3, dtype=d)), dtype)
    else:
        check(lambda lib, d: getattr(lib, name)(2, 3, dtype=d), dtype)


def test_size_keyword():
    for name in ["zeros", "ones", "rand", "randn", "empty"]:
        check(lambda lib: meta(getattr(lib, name)(size=(2, 3))))
        check(lambda lib: meta(getattr(lib, name)(size=[4])))
        check(lambda lib: getattr(lib, name)(2, size=(2, 3)), msg=False)


def test_sizes_from_0d_int_tensors():
    check(lambda lib: lib.zeros(lib.tensor(2), lib.tensor(3)))
    check(lambda lib: lib.zeros(lib.tensor(3)))


SIZE_ERRORS = [(2.0,), ((2, 2.5),), (2, 2.5), (None,), ("a",), (True,), ([2.5],), (2, "a"), ((2,), 3), (-1,), (2, -3),
               ((2, None),), (np.array([2, 3]),), (True, 2)]


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
@pytest.mark.parametrize("size", SIZE_ERRORS, ids=repr)
def test_size_errors(name, size):
    msg = name in ("zeros", "ones", "empty") or not (isinstance(size[0], bool) or len(size) == 2
                                                       and isinstance(size[0], tuple))
    check(lambda lib: getattr(lib, name)(*size), msg=msg)


def test_size_errors_tensor_sizes():
    check(lambda lib: lib.zeros(lib.tensor([3, 2])))
    check(lambda lib: lib.zeros(lib.tensor(2.0)))
    check(lambda lib: lib.zeros(), msg=False)


@pytest.mark.parametrize("fill", [3, True, 2.5, -1, 0, 1e300, 2**40, -1.5, NAN, INF, np.float32(3), np.int32(3),
                                  np.bool_(False)], ids=repr)
@pytest.mark.parametrize("dtype", [None] + ALL, ids=str)
def test_full_infers_and_checks_fill_value(fill, dtype):
    check(lambda lib, d: lib.full((2, 3), fill, dtype=d), dtype)


def test_full_errors_and_tensor_fill():
    check(lambda lib: lib.full((2,), lib.tensor(3)))
    check(lambda lib: lib.full((2,), lib.tensor(2.5)))
    check(lambda lib: lib.full((2,), lib.tensor([3])))
    check(lambda lib: lib.full(2, 3))
    check(lambda lib: lib.full((-2,), 1))
    check(lambda lib: lib.full([2, 3], 1.5))
    check(lambda lib: lib.full((2,), 300, dtype=lib.uint8))
    check(lambda lib: lib.full((2,), -1, dtype=lib.uint8))
    check(lambda lib: lib.full((2,), -256, dtype=lib.uint8))
    check(lambda lib: lib.full((2,), 1e10, dtype=lib.float16))
    check(lambda lib: lib.full((2,), 1e39, dtype=lib.float32))
    check(lambda lib: lib.full((2,), "a"), msg=False)


def test_scalar_tensor():
    for args, kw in [((3,), {}), ((True,), {}), ((3,), {"dtype": tt.int64}), ((1.5,), {"dtype": tt.int32}),
                     ((3,), {"dtype": tt.float16}), ((2.5,), {"requires_grad": True})]:
        check(lambda lib, d: lib.scalar_tensor(*args, **{**kw, **({"dtype": d} if "dtype" in kw else {})}),
              kw.get("dtype"))
    check(lambda lib: lib.scalar_tensor(lib.tensor(2)))


@pytest.mark.parametrize("name,args", [("zeros", ()), ("ones", ()), ("full", (1.5,)), ("empty", ())])
@pytest.mark.parametrize("dtype", [tt.float32, tt.int64, tt.bool], ids=str)
def test_requires_grad_on_factories(name, args, dtype):
    def fn(lib, d):
        f = getattr(lib, name)
        size = (2, 3) if name == "full" else (2, 3)
        t = f(size, *args, dtype=d, requires_grad=True) if name == "full" else f(*size, dtype=d, requires_grad=True)
        return meta(t)
    check(fn, dtype)


def test_meta_device_factories():
    for name in ["zeros", "ones", "empty"]:
        check(lambda lib: meta(getattr(lib, name)(2, 3, device="meta")))
    check(lambda lib: meta(lib.full((2,), 1.5, device="meta", dtype=lib.float64)))
    check(lambda lib: meta(lib.arange(0, 1.5, dtype=lib.float64, device="meta")))
    check(lambda lib: meta(lib.eye(3, device="meta")))


def test_cuda_device_without_cuda():
    if torch.cuda.is_available() or tt.cuda.is_available():
        pytest.skip("there is a GPU here")
    msg = "Torch not compiled with CUDA enabled: teachtorch's cuda backend runs on CuPy, which is not installed"
    check(lambda lib: lib.zeros(2, device="cuda"), msg=msg)
    check(lambda lib: lib.tensor([1], device="cuda"), msg=msg)


def test_dtype_argument_must_be_a_dtype():
    check(lambda lib: lib.ones(2, dtype="float32"))


@pytest.mark.parametrize("out_layout", ["contiguous", "permuted", "sliced"])
def test_out_variants(out_layout):
    for fn in [lambda lib, o: lib.zeros(2, 3, out=o), lambda lib, o: lib.ones(2, 3, out=o),
               lambda lib, o: lib.full((2, 3), 1.5, out=o), lambda lib, o: lib.eye(2, 3, out=o)]:
        check(fn, rand(2, 3, layout=out_layout))
        check(fn, rand(2, 3, layout=out_layout, dtype="int64"))
    check(lambda lib, o: lib.arange(6, out=o), rand(6, layout=out_layout, dtype="int32"))
    check(lambda lib, o: lib.linspace(0, 1, 6, out=o), rand(6, layout=out_layout))


def test_out_variant_errors_and_resize():
    check(lambda lib, o: lib.zeros(2, 3, dtype=lib.float64, out=o), rand(2, 3))
    check(lambda lib, o: lib.zeros(2, 3, out=o), rand(6))
    check(lambda lib, o: lib.arange(0.0, 5, out=o), rand(2, dtype="int32"))
    check(lambda lib, o: lib.zeros(2, out=o), P(np.ones(2, np.float32), requires_grad=True))
    o = tt.empty(2, 3)
    v = o._version
    assert tt.zeros(2, 3, out=o) is o and o._version == v + 1 and (o == 0).all()


# ==== arange ==================================================================================================

ARANGE = [((5,), {}), ((1, 5), {}), ((5, 1), {}), ((5, 1, -1), {}), ((0, 1, 0.1), {}), ((0, 1, 0.3), {}), ((0., 5), {}),
          ((0, 5, 0), {}), ((0, 5, -1), {}), ((1, 5, -1), {}), ((5, 5), {}), ((0, 2.5), {}), ((-2.5, 2.5, 0.5), {}),
          ((True,), {}), ((0, INF), {}), ((0, NAN), {}), ((NAN,), {}), ((0, 1, 1e-20), {}), ((2, 1, 1), {}),
          ((0, -5, -2), {}), ((-1.5, -5, -1), {}), ((0, 10**18, 10**17), {}), ((5, 0, -1.5), {}), ((0, 2**63), {}),
          ((np.int32(3),), {}), ((np.float32(3),), {}), ((0, 1, 1 / 3), {}), ((-7, 7, 3), {}), ((7, -7, -3), {}),
          ((0, "a"), {}), ((0, None), {}), ((), {}), ((), {"end": 4}), ((), {"start": 1, "end": 4}),
          ((0.1, 0.7, 0.2), {}), ((1e-3, 1, 0.07), {})]


@pytest.mark.parametrize("args,kw", ARANGE, ids=repr)
def test_arange(args, kw):
    check(lambda lib: lib.arange(*args, **kw), msg=not (len(args) == 2 and args[1] in ("a", None) or not args))


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("args", [(10,), (0, 10, 3), (0, 2.5), (0, 1, 0.1), (0.5, 3.7, 1.2), (-0.5, 3.7, 1.2),
                                  (-3, 3), (300,), (0, 3, 0.5), (0, 1e-3, 1e-4), (5, 0, -2), (0, 2**40, 2**38)], ids=repr)
def test_arange_dtypes(dtype, args):
    check(lambda lib, d: lib.arange(*args, dtype=d), dtype)


def test_arange_tensor_args_and_requires_grad():
    check(lambda lib: lib.arange(lib.tensor(3)))
    check(lambda lib: lib.arange(lib.tensor(3.0)))
    check(lambda lib: lib.arange(5, requires_grad=True))
    check(lambda lib: lib.arange(5.0, requires_grad=True))


def test_arange_default_float64(default_float64):
    check(lambda lib: lib.arange(0, 1, 0.1))
    check(lambda lib: lib.arange(5))


@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(-9, 9).filter(lambda s: s != 0),
       st.sampled_from([None, tt.int64, tt.int32, tt.float32, tt.float64, tt.int16]))
def test_fuzz_arange_ints(start, end, step, dtype):
    check(lambda lib, d: lib.arange(start, end, step, dtype=d), dtype)


@given(st.floats(-20, 20), st.floats(-20, 20), st.floats(0.01, 5), st.booleans(),
       st.sampled_from([None, tt.float64, tt.float16, tt.int64, tt.int32]))
def test_fuzz_arange_floats(start, end, step, negative, dtype):
    step = -step if negative else step
    # (PyTorch's vectorised loop rounds the first elements' base to the dtype: up to one ulp apart)
    check(lambda lib, d: lib.arange(start, end, step, dtype=d), dtype)


# ==== linspace, logspace, eye, empty_strided ==========================================================================

LINSPACE = [((0, 1, 5), {}), ((0, 1, 1), {}), ((0, 1, 0), {}), ((0, 1, -1), {}), ((1, 0, 4), {}), ((0, 100, 7), {}),
            ((-3.3, 7.1, 1001), {}), ((0, 1, 1001), {}), ((0, 1), {}), ((0, 1, 3.0), {}), ((0, 1e300, 3), {}),
            ((0, 1, 5), {"requires_grad": True}), ((2.5, 2.5, 3), {})]


@pytest.mark.parametrize("args,kw", LINSPACE, ids=repr)
def test_linspace(args, kw):
    check(lambda lib: lib.linspace(*args, **kw), msg=len(args) == 3 and not isinstance(args[2], float))


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("args", [(0, 10, 5), (0, 10, 4), (-3, 7, 6), (10, -10, 7), (0.5, 10.7, 5), (0, 1, 7), (3, 3, 1),
                                  (0, 1000, 9), (-2.5, 2.5, 2)], ids=repr)
def test_linspace_dtypes(dtype, args):
    check(lambda lib, d: lib.linspace(*args, dtype=d), dtype)


def test_linspace_tensor_args():
    check(lambda lib: lib.linspace(lib.tensor(0.0), lib.tensor(1.0), 3))
    check(lambda lib: lib.linspace(lib.tensor(0), lib.tensor(10), 5))
    check(lambda lib: lib.linspace(lib.tensor([0.0]), 1, 3))


@given(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3), st.integers(0, 40), st.sampled_from([None, tt.float64, tt.float16,
                                                                                       tt.int64, tt.int32]))
def test_fuzz_linspace(start, end, steps, dtype):
    check(lambda lib, d: lib.linspace(start, end, steps, dtype=d), dtype, rtol=2e-6, atol=1e-4)


@pytest.mark.parametrize("args,kw", [((0, 2, 3), {}), ((0, 2, 3), {"base": 2}), ((0, 2, 3), {"base": 2.5}),
                                     ((0, 2, 3), {"dtype": tt.int64}), ((0, 1, 1), {}), ((0, 1, 0), {}),
                                     ((-1, 1, 5), {"dtype": tt.float64}), ((0, 3, 4), {"dtype": tt.int32}),
                                     ((0, 1, 5), {"dtype": tt.float16}), ((2, 0, 5), {"base": 3}), ((0, 1, -1), {})],
                         ids=repr)
def test_logspace(args, kw):
    check(lambda lib: lib.logspace(*args, **{k: (TORCH_DTYPE[v.name] if lib is torch and k == "dtype" else v)
                                             for k, v in kw.items()}))


@pytest.mark.parametrize("args", [(3,), (3, 2), (2, 3), (0,), (0, 3), (1, 1), (-1,), (2, -1), (2.5,), (2, None)],
                         ids=repr)
@pytest.mark.parametrize("dtype", [None, tt.int64, tt.bool, tt.float16], ids=str)
def test_eye(args, dtype):
    if any(isinstance(a, float) or a is None for a in args):
        check(lambda lib: lib.eye(*args))   # (with keywords, PyTorch's parser words the error differently)
    else:
        check(lambda lib, d: lib.eye(*args, dtype=d), dtype)


def test_eye_requires_grad():
    check(lambda lib: lib.eye(2, requires_grad=True))
    check(lambda lib: lib.eye(2, dtype=lib.int64, requires_grad=True))


# ---- sizes an int64 cannot count: refused before anything is allocated -----------------------------------------

B = 2**40


def _geometry(t):
    """A fresh tensor's layout and storage size (never its values: `empty` gives whatever memory held)."""
    return tuple(t.shape), t.stride(), t.untyped_storage().nbytes()


def _expanded(lib, n=2**31):
    return lib.zeros(1, 1).expand(n, n)   # n * n elements over one: only a copy of it needs the memory


HUGE_FACTORIES = {
    "empty": lambda lib: lib.empty(B, B),
    "zeros": lambda lib: lib.zeros(B, B),
    "ones": lambda lib: lib.ones(B, B),
    "full": lambda lib: lib.full((B, B), 1.0),
    "full_bad_value": lambda lib: lib.full((B, B), 300, dtype=lib.uint8),    # the size is checked first
    "zeros_2**61_float64": lambda lib: lib.zeros(2**61, dtype=lib.float64),
    "empty_channels_last": lambda lib: lib.empty(B, B, 1, 1, memory_format=lib.channels_last),
    "empty_overflow_before_a_0": lambda lib: lib.empty(B, B, 0),              # the product overflows first
    "empty_0_then_huge": lambda lib: lib.empty(0, B, B),                      # no bytes, but a stride of 2**80
    "empty_product_fits_before_a_0": lambda lib: _geometry(lib.empty(2**32, 2**31, 0)),
    "empty_negative_and_huge": lambda lib: lib.empty(B, B, -1),
    "empty_meta": lambda lib: lib.empty(B, B, device="meta"),
    "empty_meta_fits": lambda lib: tuple(lib.empty(2**31, 2**31, device="meta").shape),
    "empty_strided_zero_strides": lambda lib: lib.empty_strided((B, B), (0, 0)),
    "empty_strided_zero_strides_fit": lambda lib: _geometry(lib.empty_strided((2**31, 2**31), (0, 0))),
    "empty_strided_bytes": lambda lib: lib.empty_strided((2**62,), (4,)),
    "empty_strided_stride": lambda lib: lib.empty_strided((2, 2), (2**62, 1)),
    "empty_strided_negative_stride": lambda lib: lib.empty_strided((2,), (-1,)),
    "empty_strided_negative_stride_size_1": lambda lib: _geometry(lib.empty_strided((1, 2), (-5, 1))),
    "empty_strided_overflow_before_a_0": lambda lib: lib.empty_strided((B, B, 0), (0, 0, 0)),
    "empty_strided_negative_before_length": lambda lib: lib.empty_strided((-1, B), (0,)),
    "new_empty": lambda lib: lib.zeros(2).new_empty(B, B),
    "new_zeros": lambda lib: lib.zeros(2).new_zeros(B, B),
    "new_ones": lambda lib: lib.zeros(2).new_ones((B, B)),
    "new_full": lambda lib: lib.zeros(2).new_full((B, B), 1.0),
    "new_empty_strided": lambda lib: lib.zeros(2).new_empty_strided((B, B), (0, 0)),
    "new_empty_strided_bytes": lambda lib: lib.zeros(2).new_empty_strided((B, B), (B, 1)),
    "empty_like": lambda lib: lib.empty_like(_expanded(lib)),
    "zeros_like": lambda lib: lib.zeros_like(_expanded(lib)),
    "ones_like": lambda lib: lib.ones_like(_expanded(lib)),
    "full_like": lambda lib: lib.full_like(_expanded(lib), 2.0),
    "zeros_like_contiguous": lambda lib: lib.zeros_like(_expanded(lib), memory_format=lib.contiguous_format),
    "rand_like": lambda lib: lib.rand_like(_expanded(lib)),
    "randn_like": lambda lib: lib.randn_like(_expanded(lib)),
    "randint_like": lambda lib: lib.randint_like(_expanded(lib), 3),
    "clone": lambda lib: _expanded(lib).clone(),
    "contiguous": lambda lib: _expanded(lib).contiguous(),
    "rand": lambda lib: lib.rand(B, B),
    "randn": lambda lib: lib.randn(B, B),
    "randint": lambda lib: lib.randint(3, (B, B)),
    "normal": lambda lib: lib.normal(0.0, 1.0, (B, B)),
    "randperm": lambda lib: lib.randperm(2**62),
    "arange": lambda lib: lib.arange(2**62),
    "linspace": lambda lib: lib.linspace(0, 1, 2**62),
    "eye": lambda lib: lib.eye(B),
}


@pytest.mark.parametrize("name", HUGE_FACTORIES)
def test_factories_refuse_sizes_beyond_int64_like_torch(name):
    """PyTorch refuses these before allocating (a RuntimeError with its message); NumPy would raise its own
    ValueError ("Maximum allowed dimension exceeded"), or allocate one element for 2**80 of them."""
    check(HUGE_FACTORIES[name])


def test_huge_factory_errors_allocate_nothing():
    tracemalloc.start()
    try:
        for name in ("zeros", "empty_strided_zero_strides", "ones_like", "randn"):
            with pytest.raises(RuntimeError, match="overflow"):
                HUGE_FACTORIES[name](tt)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 100_000


@pytest.mark.parametrize("size,stride", [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((0, 3), (1, 2)), ((2, 3), (1, -2)),
                                         ((2, 3), (1,)), ((-2, 3), (1, 2)), ((4,), (0,)), ((2, 2), (0, 0)), ((), ())],
                         ids=repr)
def test_empty_strided(size, stride):
    def fn(lib):
        t = lib.empty_strided(size, stride)
        return meta(t) + (t.untyped_storage().nbytes(),)
    check(fn)


# ==== *_like ====================================================================================================

LIKE = {
    "empty_like": lambda lib, x, **kw: meta(lib.empty_like(x, **kw)),
    "zeros_like": lambda lib, x, **kw: lib.zeros_like(x, **kw),
    "ones_like": lambda lib, x, **kw: lib.ones_like(x, **kw),
    "full_like": lambda lib, x, **kw: lib.full_like(x, 7, **kw),
    "rand_like": lambda lib, x, **kw: meta(lib.rand_like(x, **kw)),
    "randn_like": lambda lib, x, **kw: meta(lib.randn_like(x, **kw)),
    "randint_like": lambda lib, x, **kw: meta(lib.randint_like(x, 1, 5, **kw)),
}


@pytest.mark.parametrize("name", list(LIKE))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_like_keeps_layout(name, layout, dtype):
    check(LIKE[name], rand(3, 4, dtype=dtype, layout=layout))
    check(LIKE[name], rand(2, 3, 4, dtype=dtype, layout=layout, seed=1))


@pytest.mark.parametrize("name", list(LIKE))
@pytest.mark.parametrize("fmt", ["contiguous_format", "preserve_format", "channels_last"])
def test_like_memory_formats(name, fmt):
    def fn(lib, x):
        return LIKE[name](lib, x, memory_format=getattr(lib, fmt))
    check(fn, rand(3, 4, layout="permuted"))
    check(fn, rand(2, 3, 4, 5, layout="permuted", seed=2))
    check(fn, rand(2, 3, 4, 5, layout="sliced"))


@pytest.mark.parametrize("name", list(LIKE))
def test_like_dtype_device_and_requires_grad(name):
    check(lambda lib, x: LIKE[name](lib, x, dtype=lib.float64), rand(3, 4, layout="permuted"))
    check(lambda lib, x: LIKE[name](lib, x, dtype=lib.int32), rand(3, 4, layout="permuted"))
    check(lambda lib, x: LIKE[name](lib, x, requires_grad=True), rand(3, 4))
    check(lambda lib, x: LIKE[name](lib, x, dtype=lib.int64, requires_grad=True), rand(3, 4))
    check(lambda lib, x: meta(LIKE[name](lib, x, device="meta")) if name in ("zeros_like", "ones_like", "full_like")
          else LIKE[name](lib, x, device="meta"), rand(3, 4, layout="permuted"))
    check(lambda lib, x: LIKE[name](lib, x), rand())
    check(lambda lib, x: LIKE[name](lib, x), rand(0, 3))


def test_like_errors():
    check(lambda lib: lib.zeros_like([1]))
    check(lambda lib, x: lib.full_like(x, 300), rand(2, dtype="uint8"))
    check(lambda lib, x: lib.full_like(x, 2.5), rand(2, dtype="int64"))
    check(lambda lib, x: lib.full_like(x, -2.5), rand(2, dtype="uint8"))
    check(lambda lib, x: lib.full_like(x, 1e300), rand(2))
    check(lambda lib, x: lib.full_like(x, 5), rand(2, dtype="bool"))
    check(lambda lib, x: lib.full_like(x, lib.tensor(3)), rand(2))
    check(lambda lib, x: lib.full_like(x, 2**40), rand(2, dtype="int32"))
    check(lambda lib, x: lib.empty_like(x, memory_format=lib.channels_last), rand(2, 3, 4))


@given(inputs(dtype="float32"))
def test_fuzz_like(p):
    check(lambda lib, x: lib.zeros_like(x), p)
    check(lambda lib, x: lib.full_like(x, 2.5, dtype=lib.float64), p)
    check(lambda lib, x: meta(lib.empty_like(x)), p)
    check(lambda lib, x: meta(lib.rand_like(x)), p)


# ==== random: generators and seeding ==============================================================================


def test_generator_api():
    g = tt.Generator()
    assert g.initial_seed() == torch.Generator().initial_seed() == 67280421310721
    assert g.manual_seed(3) is g and g.initial_seed() == 3
    assert g.device == tt.device("cpu")
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    assert tt.manual_seed(5) is tt.default_generator and tt.initial_seed() == 5
    assert isinstance(tt.seed(), int)
    for seed in [-1, 2**64 - 1, 0, 7, -2**63]:
        assert tt.manual_seed(seed).initial_seed() == torch.manual_seed(seed).initial_seed()
        assert tt.Generator().manual_seed(seed).initial_seed() == torch.Generator().manual_seed(seed).initial_seed()
    assert tt.manual_seed(True).initial_seed() == torch.manual_seed(True).initial_seed()
    assert tt.manual_seed(tt.tensor(3)).initial_seed() == 3
    assert tt.manual_seed(1.5).initial_seed() == torch.manual_seed(1.5).initial_seed()


def test_generator_errors():
    check(lambda lib: lib.manual_seed(2**64))
    check(lambda lib: lib.manual_seed(-2**63 - 1))
    check(lambda lib: lib.manual_seed("a"))
    check(lambda lib: lib.Generator().manual_seed(2**64))
    check(lambda lib: lib.Generator().manual_seed(1.5))
    check(lambda lib: lib.Generator().manual_seed(True))
    check(lambda lib: lib.Generator().set_state(lib.zeros(3)))
    check(lambda lib: lib.Generator().set_state([1]))
    with pytest.raises(RuntimeError, match="input RNG state size to be 3"):
        tt.Generator().set_state(tt.zeros(3, dtype=tt.uint8))


def test_same_seed_same_numbers():
    for op in [lambda g: tt.rand(5, generator=g), lambda g: tt.randn(5, generator=g),
               lambda g: tt.randint(0, 100, (5,), generator=g), lambda g: tt.randperm(10, generator=g),
               lambda g: tt.empty(3, 4).T.uniform_(generator=g), lambda g: tt.normal(0.0, 1.0, (4,), generator=g),
               lambda g: tt.multinomial(tt.ones(6), 3, generator=g)]:
        a = op(device_generator().manual_seed(11)).tolist()
        b = op(device_generator().manual_seed(11)).tolist()
        c = op(device_generator().manual_seed(12)).tolist()
        assert a == b and a != c
    tt.manual_seed(3)
    a = tt.rand(4).tolist()
    tt.manual_seed(3)
    assert tt.rand(4).tolist() == a


def test_generators_are_independent_of_the_default():
    g = device_generator().manual_seed(1)
    tt.manual_seed(1)
    first = tt.rand(3, generator=g).tolist()
    tt.rand(100)   # draws from the default generator do not move g
    g2 = device_generator().manual_seed(1)
    tt.rand(3, generator=g2)
    assert tt.rand(3, generator=g).tolist() == tt.rand(3, generator=g2).tolist()
    assert first != tt.rand(3, generator=g).tolist()


def test_get_set_state_replays():
    g = device_generator().manual_seed(9)
    tt.rand(7, generator=g)
    state = g.get_state()
    assert state.dtype is tt.uint8 and state.dim() == 1
    a = tt.randn(5, generator=g).tolist()
    assert g.set_state(state) is g
    assert tt.randn(5, generator=g).tolist() == a
    s = tt.get_rng_state()                       # the cpu generator's state (as torch.get_rng_state)
    b = tt.rand(3, device="cpu").tolist()
    assert tt.set_rng_state(s) is None
    assert tt.rand(3, device="cpu").tolist() == b
    h = device_generator().set_state(state)
    assert h.initial_seed() == 9 and tt.randn(5, generator=h).tolist() == a


def test_generator_argument_type():
    with pytest.raises(TypeError):
        tt.rand(2, generator=3)
    with pytest.raises(TypeError):
        tt.empty(2).normal_(generator=3)


# ==== random factories: shapes, dtypes, strides, errors ==========================================================


@pytest.mark.parametrize("size", [(2, 3), ((2, 3),), ([2, 3],), (), ((),), (0,), (4, 0)], ids=repr)
@pytest.mark.parametrize("name", ["rand", "randn"])
def test_rand_randn_shapes(name, size):
    check(lambda lib: meta(getattr(lib, name)(*size)))


@pytest.mark.parametrize("name", ["rand", "randn"])
@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_rand_randn_dtypes(name, dtype):
    check(lambda lib, d: meta(getattr(lib, name)(3, dtype=d)), dtype)
    check(lambda lib, d: meta(getattr(lib, name)(3, dtype=d, requires_grad=True)), dtype)
    check(lambda lib, d: meta(getattr(lib, name)(0, dtype=d)), dtype)


def test_rand_default_float64(default_float64):
    check(lambda lib: meta(lib.rand(2)))
    check(lambda lib: meta(lib.randn(2)))
    check(lambda lib: meta(lib.normal(0.0, 1.0, (2,))))
    check(lambda lib: meta(lib.rand_like(lib.ones(2, dtype=lib.int64), dtype=lib.float64)))


@pytest.mark.parametrize("args,kw", [((10, (3,)), {}), ((3, 10, (3,)), {}), ((5, 5, (2,)), {}), ((6, 5, (2,)), {}),
                                     ((0, 300, (2,)), {"dtype": tt.uint8}), ((-1, 3, (2,)), {"dtype": tt.uint8}),
                                     ((0, 2, (3,)), {"dtype": tt.bool}), ((0, 3, (3,)), {"dtype": tt.bool}),
                                     ((10, (3,)), {"dtype": tt.float32}), ((10, 3), {}), ((0, 2**63, (2,)), {}),
                                     ((-2**63, 2**63 - 1, (2,)), {}), ((), {"high": 10, "size": (2,)}),
                                     ((), {"low": 2, "high": 10, "size": (2,)}), ((3, 10), {"size": (2,)}),
                                     ((0, 2**24 + 2, (2,)), {"dtype": tt.float32}),
                                     ((0, 2**11 + 2, (2,)), {"dtype": tt.float16}), ((3, [2, 2]), {}),
                                     ((3, (2,)), {"dtype": tt.int8}), ((-3, 3, (2,)), {"dtype": tt.int8}),
                                     ((0, 2, (3,)), {"requires_grad": True}), ((10, (0, 3)), {}),
                                     ((-2**40, 2**40, (3,)), {"dtype": tt.int32}), ((1.5, 10, (2,)), {})], ids=repr)
def test_randint_like_torch(args, kw):
    def fn(lib):
        k = {key: (TORCH_DTYPE[v.name] if lib is torch and key == "dtype" else v) for key, v in kw.items()}
        return meta(lib.randint(*args, **k))
    check(fn, msg=not (len(args) == 3 and isinstance(args[0], float)))


@pytest.mark.parametrize("n", [0, 1, 5, -1, 2.5])
@pytest.mark.parametrize("dtype", [None] + ALL, ids=str)
def test_randperm_like_torch(n, dtype):
    if isinstance(n, float):
        check(lambda lib: meta(lib.randperm(n)))
    else:
        check(lambda lib, d: meta(lib.randperm(n, dtype=d)), dtype)


def test_randperm_limits():
    check(lambda lib: meta(lib.randperm(300, dtype=lib.uint8)))
    check(lambda lib: meta(lib.randperm(256, dtype=lib.uint8)))
    check(lambda lib: meta(lib.randperm(3000, dtype=lib.float16)))
    check(lambda lib: meta(lib.randperm(2049, dtype=lib.float16)))
    check(lambda lib: meta(lib.randperm(5, requires_grad=True)))
    check(lambda lib: meta(lib.randperm(5, dtype=lib.float32, requires_grad=True)))


def test_random_factories_on_meta_and_out():
    check(lambda lib: meta(lib.rand(2, dtype=lib.float64, device="meta")))
    check(lambda lib: meta(lib.randint(0, 5, (2, 3), device="meta")))
    for fn in [lambda lib, o: meta(lib.rand(2, 3, out=o)), lambda lib, o: meta(lib.randn(2, 3, out=o)),
               lambda lib, o: meta(lib.normal(0.0, 1.0, (2, 3), out=o))]:
        check(fn, rand(2, 3, layout="permuted"))
        check(fn, rand(6))
        check(fn, rand(2, 3, dtype="int64"))
    check(lambda lib, o: meta(lib.randint(0, 5, (2, 3), out=o)), rand(2, 3, dtype="int64", layout="sliced"))
    check(lambda lib, o: meta(lib.randint(0, 5, (2, 3), out=o)), rand(2, 3))
    check(lambda lib, o: meta(lib.randperm(4, out=o)), rand(4, dtype="int64"))
    check(lambda lib, o: meta(lib.randint(0, 5, (2,), dtype=lib.int64, out=o)), rand(2))


# ==== random values: ranges and statistics =============================================================================


def _values(t):
    return t.cpu().numpy().astype(np.float64)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_rand_range_and_stats(dtype):
    v = _values(tt.rand(20000, dtype=dtype, generator=device_generator().manual_seed(1)))
    assert v.min() >= 0 and v.max() < 1
    assert abs(v.mean() - 0.5) < 0.02 and abs(v.std() - math.sqrt(1 / 12)) < 0.02


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_randn_stats(dtype):
    v = _values(tt.randn(20000, dtype=dtype, generator=device_generator().manual_seed(2)))
    assert abs(v.mean()) < 0.05 and abs(v.std() - 1) < 0.05


@pytest.mark.parametrize("dtype", INTS + [tt.float32, tt.float64], ids=str)
def test_randint_range_and_stats(dtype):
    low, high = (3, 10)
    v = _values(tt.randint(low, high, (20000,), dtype=dtype, generator=device_generator().manual_seed(3)))
    assert set(np.unique(v)) == set(range(low, high))
    assert abs(v.mean() - (low + high - 1) / 2) < 0.1


def test_randint_bool_and_negative():
    v = tt.randint(0, 2, (1000,), dtype=tt.bool).cpu().numpy()
    assert v.any() and not v.all()
    v = _values(tt.randint(-5, 0, (2000,), dtype=tt.int8))
    assert set(np.unique(v)) == set(range(-5, 0))


@pytest.mark.parametrize("dtype", [tt.int64, tt.int32, tt.float32, tt.float64, tt.uint8, tt.float16], ids=str)
def test_randperm_is_a_permutation(dtype):
    for n in [0, 1, 7, 200]:
        v = tt.randperm(n, dtype=dtype)
        assert v.dtype is dtype and v.shape == (n,)
        assert sorted(_values(v).tolist()) == list(range(n))


def test_normal_overloads_stats_and_shapes():
    g = device_generator().manual_seed(4)
    v = _values(tt.normal(2.0, 3.0, (20000,), generator=g))
    assert abs(v.mean() - 2) < 0.1 and abs(v.std() - 3) < 0.1
    mean = tt.tensor([0.0, 100.0]).expand(10000, 2)
    std = tt.tensor([1.0, 0.0])
    v = _values(tt.normal(mean, std, generator=g))
    assert abs(v[:, 0].mean()) < 0.05 and (v[:, 1] == 100).all()
    v = _values(tt.normal(tt.full((10000,), 5.0), 2.0))
    assert abs(v.mean() - 5) < 0.1 and abs(v.std() - 2) < 0.1
    v = _values(tt.normal(-1.0, tt.full((10000,), 0.5)))
    assert abs(v.mean() + 1) < 0.05 and abs(v.std() - 0.5) < 0.05


NORMAL = [
    lambda lib: lib.normal(lib.zeros(2, 3), lib.ones(2, 3)), lambda lib: lib.normal(lib.zeros(2, 3), 1.0),
    lambda lib: lib.normal(0.0, lib.ones(2, 3)), lambda lib: lib.normal(0.0, 1.0, (2, 3)),
    lambda lib: lib.normal(0, 1, size=(2, 3)), lambda lib: lib.normal(lib.zeros(2, 3), lib.ones(3)),
    lambda lib: lib.normal(lib.zeros(3), lib.ones(2, 3)), lambda lib: lib.normal(lib.zeros(2), lib.ones(3)),
    lambda lib: lib.normal(lib.zeros(6), lib.ones(2, 3)),
    lambda lib: lib.normal(lib.zeros(2, 3, dtype=lib.float64), lib.ones(2, 3)),
    lambda lib: lib.normal(lib.zeros(2, 3), lib.ones(2, 3, dtype=lib.float64)),
    lambda lib: lib.normal(lib.zeros(3, dtype=lib.int64), 1.0), lambda lib: lib.normal(lib.zeros(3), -1.0),
    lambda lib: lib.normal(lib.zeros(3), lib.tensor([1.0, -1, 1])), lambda lib: lib.normal(0.0, lib.tensor([1.0, -1])),
    lambda lib: lib.normal(0.0, -1.0, (2,)), lambda lib: lib.normal(0.0, 1.0, (2,), dtype=lib.float64),
    lambda lib: lib.normal(0.0, 1.0, (2,), dtype=lib.int64), lambda lib: lib.normal(0.0, lib.ones(2, dtype=lib.float16)),
    lambda lib: lib.normal(lib.zeros(2, dtype=lib.float16), 1), lambda lib: lib.normal(lib.zeros(2), lib.ones(2).long()),
    lambda lib: lib.normal(lib.zeros(2).long(), lib.ones(2).long()), lambda lib: lib.normal(lib.zeros(2, 3).T, 1.0),
    lambda lib: lib.normal(lib.zeros(2, 3).T, lib.ones(3, 2)), lambda lib: lib.normal(1.0, lib.ones(2, 3).T),
    lambda lib: lib.normal(lib.tensor(0.0), lib.tensor(1.0)), lambda lib: lib.normal(lib.tensor(0.0), 1.0, (2,)),
    lambda lib: lib.normal(lib.zeros(3), lib.tensor(1.0)), lambda lib: lib.normal(lib.zeros(0), lib.ones(0)),
    lambda lib: lib.normal(0.0, 1.0, (2,), requires_grad=True), lambda lib: lib.normal(0.0, 1.0),
    lambda lib: lib.normal(0.0, lib.ones(2).long()),
]


@pytest.mark.parametrize("i", range(len(NORMAL)))
def test_normal_like_torch(i):
    check(lambda lib: meta(NORMAL[i](lib)), msg=i != len(NORMAL) - 2)


def test_normal_out():
    check(lambda lib, o: meta(lib.normal(lib.zeros(2, 3), lib.ones(2, 3), out=o)), rand(6))
    check(lambda lib, o: meta(lib.normal(lib.zeros(2, 3), lib.ones(2, 3), out=o)), rand(2, 3, dtype="int64"))


def test_bernoulli_functional():
    g = device_generator().manual_seed(5)
    v = _values(tt.bernoulli(tt.full((20000,), 0.3), generator=g))
    assert set(np.unique(v)) <= {0.0, 1.0} and abs(v.mean() - 0.3) < 0.02
    v = _values(tt.bernoulli(tt.zeros(20000), 0.7))
    assert abs(v.mean() - 0.7) < 0.02
    p = tt.tensor([0.0, 1.0]).expand(50, 2)
    v = _values(tt.bernoulli(p))
    assert (v[:, 0] == 0).all() and (v[:, 1] == 1).all()
    for fn in [lambda lib: lib.bernoulli(lib.tensor([0.0, 1.0])), lambda lib: lib.bernoulli(lib.tensor([0.0, 1.0]), 0.5),
               lambda lib: lib.bernoulli(lib.tensor([0, 1])), lambda lib: lib.bernoulli(lib.tensor([0.0, 2.0])),
               lambda lib: lib.bernoulli(lib.ones(2, 3).T), lambda lib: lib.bernoulli(lib.ones(2, 3).T, 0.3),
               lambda lib: lib.bernoulli(lib.ones(2, 3, dtype=lib.float64)), lambda lib: lib.bernoulli(lib.ones(2), p=1.5),
               lambda lib: lib.bernoulli(lib.ones(2, dtype=lib.int64), p=0.5),
               lambda lib: lib.bernoulli(lib.ones(3, 1).expand(3, 4)), lambda lib: lib.ones(2).bernoulli(),
               lambda lib: lib.ones(2).bernoulli(0.5), lambda lib: lib.bernoulli(lib.ones(0))]:
        check(lambda lib: meta(fn(lib)))


def test_multinomial():
    g = device_generator().manual_seed(6)
    p = tt.tensor([0.1, 0.2, 0.7])
    v = _values(tt.multinomial(p, 20000, replacement=True, generator=g))
    counts = np.bincount(v.astype(int), minlength=3) / 20000
    np.testing.assert_allclose(counts, [0.1, 0.2, 0.7], atol=0.02)
    for _ in range(20):
        s = tt.multinomial(tt.tensor([1.0, 1, 1, 0, 1]), 4).tolist()
        assert sorted(s) == [0, 1, 2, 4]
    assert tt.multinomial(tt.tensor([1.0, 0, 0]), 2).tolist()[0] == 0
    rows = tt.multinomial(tt.tensor([[0.0, 1.0], [1.0, 0.0]]), 1).tolist()
    assert rows == [[1], [0]]
    first = _values(tt.multinomial(tt.tensor([1.0, 3.0]).expand(5000, 2), 1))
    assert abs(first.mean() - 0.75) < 0.03


MULTINOMIAL = [
    lambda lib: lib.multinomial(lib.tensor([0.1, 0.2, 0.7]), 2), lambda lib: lib.multinomial(lib.tensor([0.1, 0.2, 0.7]), 4),
    lambda lib: lib.multinomial(lib.tensor([0.1, 0.2, 0.7]), 4, replacement=True),
    lambda lib: lib.multinomial(lib.tensor([0.1, 0.2, 0.7]), 0), lambda lib: lib.multinomial(lib.ones(1, 1, 3), 1),
    lambda lib: lib.multinomial(lib.zeros(3), 1), lambda lib: lib.multinomial(lib.tensor([1.0, -1, 1]), 1),
    lambda lib: lib.multinomial(lib.tensor([1.0, NAN, 1]), 1), lambda lib: lib.multinomial(lib.tensor([1, 2]), 1),
    lambda lib: lib.multinomial(lib.ones(2, 3), 2), lambda lib: lib.multinomial(lib.ones(2, 3), -1),
    lambda lib: lib.multinomial(lib.tensor([1.0, 0, 0]), 1, True), lambda lib: lib.multinomial(lib.ones(0), 1),
    lambda lib: lib.multinomial(lib.ones(2, 0), 1), lambda lib: lib.multinomial(lib.tensor(1.0), 1),
    lambda lib: lib.multinomial(lib.ones(2, dtype=lib.float16), 1), lambda lib: lib.multinomial(lib.tensor([1.0, INF]), 1),
    lambda lib: lib.multinomial(lib.tensor([1.0, -1, 1]), 2, True), lambda lib: lib.multinomial(lib.tensor([1.0, INF]), 2, True),
    lambda lib: lib.multinomial(lib.tensor([1.0, NAN]), 2, True), lambda lib: lib.multinomial(lib.zeros(3), 2, True),
    lambda lib: lib.multinomial(lib.tensor([[0.0, 0, 0], [1, 1, 1]]), 2, True), lambda lib: lib.multinomial(lib.ones(3, 4).T, 2),
    lambda lib: lib.tensor([1.0, 2]).multinomial(1), lambda lib: lib.multinomial(lib.ones(3), 1, out=lib.empty(1)),
    lambda lib: lib.multinomial(lib.ones(3), 2, out=lib.empty(5, dtype=lib.int64)),
    lambda lib: lib.multinomial(lib.ones(2, 3), 2, out=lib.empty(3, 2, dtype=lib.int64).T),
    # no categories at all: PyTorch's own messages for each path
    lambda lib: lib.multinomial(lib.zeros(0), 1, True), lambda lib: lib.multinomial(lib.zeros(0), 2, True),
    lambda lib: lib.multinomial(lib.zeros(2, 0), 1, True), lambda lib: lib.multinomial(lib.zeros(2, 0), 3, True),
    lambda lib: lib.multinomial(lib.zeros(0), 1), lambda lib: lib.multinomial(lib.zeros(0, 3), 2),
]


@pytest.mark.parametrize("i", range(len(MULTINOMIAL)))
def test_multinomial_like_torch(i):
    check(lambda lib: meta(MULTINOMIAL[i](lib)))


# ==== in-place random fills ========================================================================================

# (name, call, dtypes it accepts, what the fill can never produce: the view is filled with it beforehand)
FILLS = {
    "uniform_": (lambda x: x.uniform_(), FLOATS),
    "uniform_range": (lambda x: x.uniform_(-3, -2), FLOATS),
    "normal_": (lambda x: x.normal_(5, 2), FLOATS),
    "random_": (lambda x: x.random_(), FLOATS + INTS),
    "random_to": (lambda x: x.random_(5), FLOATS + INTS),
    "random_from_to": (lambda x: x.random_(1, 4), FLOATS + INTS),
    "bernoulli_": (lambda x: x.bernoulli_(0.5), FLOATS + INTS),
    "bernoulli_tensor": (lambda x: x.bernoulli_(x.new_full(x.shape, 0.5, dtype=x.new_ones(()).float().dtype)),
                         FLOATS + INTS),
    "exponential_": (lambda x: x.exponential_(2.0), FLOATS),
    "geometric_": (lambda x: x.geometric_(0.5), FLOATS + INTS),
    "log_normal_": (lambda x: x.log_normal_(), FLOATS),
    "cauchy_": (lambda x: x.cauchy_(), FLOATS),
}
_IMPOSSIBLE = -7   # no fill above produces -7 (uint8 targets start at 250, which none of them produces either)


def _view_positions(view):
    """The storage positions (in elements) that a view covers."""
    idx = np.indices(view.shape).reshape(view.dim(), -1) if view.dim() else np.zeros((0, 1), dtype=int)
    return set((view.storage_offset() + np.asarray(view.stride()) @ idx).tolist()) if view.numel() else set()


def check_random_fill(fill, p):
    """A random fill into a view inside a sentinel-filled storage: every element of the view changes, nothing
    outside it does, the target is returned, keeps its storage and strides, and its version goes up once."""
    view, base = build_in_sentinel_storage(p, tt)
    before_base = base.cpu().numpy().copy()
    before = (view.untyped_storage().data_ptr(), view.stride(), view.storage_offset(), view._version)
    out = fill(view)
    assert out is view
    assert (view.untyped_storage().data_ptr(), view.stride(), view.storage_offset()) == before[:3]
    assert view._version == before[3] + 1
    after = base.cpu().numpy()
    inside = _view_positions(view)
    for i in range(after.shape[0]):
        if i in inside:
            assert after[i] != before_base[i], f"element at storage position {i} was not written"
        else:
            assert after[i] == before_base[i] or (np.isnan(after[i]) and np.isnan(before_base[i])), \
                f"storage position {i}, outside the view, was changed"


@pytest.mark.parametrize("name", list(FILLS))
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset"])
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (5,), ()], ids=str)
def test_random_fills_write_every_element_of_any_layout(name, layout, shape):
    fill, dtypes = FILLS[name]
    for dtype in dtypes[:2] + dtypes[-1:]:
        if name == "random_" and dtype is tt.uint8:
            dtype = tt.int8   # random_() may draw any uint8 value: no start value is impossible
        start = 250 if dtype is tt.uint8 else _IMPOSSIBLE
        values = np.full(shape, start, dtype=dtype.numpy)
        for attempt in range(3):   # a 0/1 fill keeps an element at -7 never, but a {1..3} range may repeat: fine
            check_random_fill(fill, P(values, layout, seed=attempt))


@given(inputs(dtype="float32", allow_expanded=False, shape=None), st.sampled_from(["uniform_", "normal_", "random_",
                                                                                    "bernoulli_", "exponential_"]))
def test_fuzz_random_fills(p, name):
    p = P(np.full(p.values.shape, _IMPOSSIBLE, dtype=np.float32), p.layout, seed=p.seed)
    check_random_fill(FILLS[name][0], p)


@pytest.mark.parametrize("name", list(FILLS))
def test_random_fills_refuse_expanded_targets(name):
    fill = FILLS[name][0]
    check_inplace(lambda lib, x: fill(x.expand(3, 4)), rand(3, 1))


def test_random_fills_stats():
    g = device_generator().manual_seed(8)
    x = tt.empty(200, 100).T
    v = _values(x.uniform_(-2, 4, generator=g))
    assert v.min() >= -2 and v.max() < 4 and abs(v.mean() - 1) < 0.1
    v = _values(x.normal_(3, 0.5, generator=g))
    assert abs(v.mean() - 3) < 0.02 and abs(v.std() - 0.5) < 0.02
    v = _values(x.exponential_(4.0, generator=g))
    assert v.min() >= 0 and abs(v.mean() - 0.25) < 0.02
    v = _values(x.geometric_(0.25, generator=g))
    assert v.min() >= 1 and (v == np.round(v)).all() and abs(v.mean() - 4) < 0.2
    v = _values(x.log_normal_(0.0, 0.25, generator=g))
    assert v.min() > 0 and abs(np.log(v).mean()) < 0.02
    v = _values(x.cauchy_(1.0, 2.0, generator=g))
    assert abs(np.median(v) - 1) < 0.2
    v = _values(x.bernoulli_(0.25, generator=g))
    assert set(np.unique(v)) == {0.0, 1.0} and abs(v.mean() - 0.25) < 0.02
    v = _values(x.random_(3, 9, generator=g))
    assert set(np.unique(v)) == set(range(3, 9))
    v = _values(x.random_(generator=g))
    assert v.min() >= 0 and v.max() <= 2**24 and v.max() > 2**20
    v = _values(tt.empty(1000, dtype=tt.uint8).random_())
    assert v.max() > 200 and v.min() < 50
    v = tt.empty(1000, dtype=tt.bool).random_().cpu().numpy()
    assert v.any() and not v.all()


INPLACE_ERRORS = [
    ("random_(-2**40, 2**40)", lambda x: x.random_(-2**40, 2**40)), ("random_(0, 2**40)", lambda x: x.random_(0, 2**40)),
    ("uniform_()", lambda x: x.uniform_()), ("normal_()", lambda x: x.normal_()),
    ("exponential_()", lambda x: x.exponential_()), ("bernoulli_()", lambda x: x.bernoulli_()),
    ("random_()", lambda x: x.random_()), ("geometric_(0.5)", lambda x: x.geometric_(0.5)),
    ("log_normal_()", lambda x: x.log_normal_()), ("cauchy_()", lambda x: x.cauchy_()),
    ("uniform_(2, 1)", lambda x: x.uniform_(2, 1)), ("uniform_(1, 1)", lambda x: x.uniform_(1, 1)),
    ("uniform_(0, inf)", lambda x: x.uniform_(0, INF)), ("uniform_(nan, 1)", lambda x: x.uniform_(NAN, 1)),
    ("uniform_(-1e308, 1e308)", lambda x: x.uniform_(-1e308, 1e308)), ("uniform_(-1e39, 1)", lambda x: x.uniform_(-1e39, 1)),
    ("uniform_(0, 1e5)", lambda x: x.uniform_(0, 1e5)), ("uniform_(-3e38, 3e38)", lambda x: x.uniform_(-3e38, 3e38)),
    ("normal_(0, -1)", lambda x: x.normal_(0, -1)), ("normal_(0, nan)", lambda x: x.normal_(0, NAN)),
    ("normal_(0, 0)", lambda x: x.normal_(0, 0)),
    ("exponential_(-1)", lambda x: x.exponential_(-1)), ("exponential_(0)", lambda x: x.exponential_(0)),
    ("bernoulli_(1.5)", lambda x: x.bernoulli_(1.5)), ("bernoulli_(-0.1)", lambda x: x.bernoulli_(-0.1)),
    ("bernoulli_(0)", lambda x: x.bernoulli_(0.0)), ("bernoulli_(1)", lambda x: x.bernoulli_(1.0)),
    ("geometric_(0)", lambda x: x.geometric_(0)), ("geometric_(1)", lambda x: x.geometric_(1)),
    ("log_normal_(0, -1)", lambda x: x.log_normal_(0, -1)), ("log_normal_(0, 0)", lambda x: x.log_normal_(0, 0)),
    ("cauchy_(0, -1)", lambda x: x.cauchy_(0, -1)), ("cauchy_(0, 0)", lambda x: x.cauchy_(0, 0)),
    ("random_(0)", lambda x: x.random_(0)), ("random_(-3)", lambda x: x.random_(-3)),
    ("random_(5, 5)", lambda x: x.random_(5, 5)), ("random_(2**30, None)", lambda x: x.random_(2**30, None)),
    ("random_(2.5)", lambda x: x.random_(2.5)), ("random_(True)", lambda x: x.random_(True)),
    ("random_(-5, None)", lambda x: x.random_(-5, None)), ("random_(-1, 2)", lambda x: x.random_(-1, 2)),
    ("random_(0, 2**25)", lambda x: x.random_(0, 2**25)), ("random_(2**24+1, 2**26)", lambda x: x.random_(2**24 + 1, 2**26)),
    ("random_(to=3)", lambda x: x.random_(to=3)),
]
ERROR_DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", ERROR_DTYPES)
@pytest.mark.parametrize("name,fill", INPLACE_ERRORS, ids=[n for n, _ in INPLACE_ERRORS])
def test_random_fill_errors_like_torch(name, fill, dtype):
    """Arguments and dtypes PyTorch refuses: same error, same message, target unchanged. Deterministic fills
    (p=0, p=1, std=0, from=to) compare their values too."""
    def fn(lib, x):
        fill(x)
        return x
    deterministic = name in ("uniform_(1, 1)", "bernoulli_(0)", "bernoulli_(1)", "normal_(0, 0)")
    msg = "random_(2.5)" != name and "random_(True)" != name
    try:
        expected = fn(torch, torch.zeros(3, dtype=TORCH_DTYPE[dtype]))
    except Exception:
        check_inplace(fn, P(np.zeros((2, 3), dtype=dtype), "permuted"), msg=msg)
        check(fn, P(np.zeros((0,), dtype=dtype)), msg=msg)
        return
    got = fn(tt, tt.zeros(3, dtype=tt._dtype._lookup(dtype)))
    assert got.dtype.name == dtype
    if deterministic:
        assert_same(got, expected)
        check_inplace(fn, P(np.zeros((2, 3), dtype=dtype), "sliced"))


def test_bernoulli_tensor_p_like_torch():
    for fn in [lambda lib: lib.zeros(3).bernoulli_(lib.tensor([1, 0, 1])),
               lambda lib: lib.zeros(3, dtype=lib.int64).bernoulli_(lib.tensor([1.0, 0, 1])),
               lambda lib: lib.zeros(3, dtype=lib.bool).bernoulli_(lib.tensor([1.0, 0, 1])),
               lambda lib: lib.zeros(3).bernoulli_(lib.tensor([1.0, 0, 1], dtype=lib.float64)),
               lambda lib: lib.zeros(3).bernoulli_(lib.tensor([True, False, True])),
               lambda lib: lib.zeros(3).bernoulli_(lib.tensor([0.0, 1.0, 1.5])),
               lambda lib: lib.zeros(3).bernoulli_(lib.tensor([0.0, 1.0])),
               lambda lib: lib.zeros(3).bernoulli_(lib.tensor(1.0)),
               lambda lib: lib.zeros(1, 3).bernoulli_(lib.ones(3, 1)),
               lambda lib: lib.zeros(3).bernoulli_(lib.ones(1)),
               lambda lib: lib.zeros(2).bernoulli_(lib.tensor([0.5, NAN])),
               lambda lib: lib.zeros(0).bernoulli_(lib.zeros(2)),
               lambda lib: lib.zeros(0).bernoulli_(lib.zeros(0, dtype=lib.int64)),
               lambda lib: lib.zeros(2, 3).T.bernoulli_(lib.tensor([1.0, 0.0, 1.0]).unsqueeze(1))]:
        check(fn)


@pytest.mark.parametrize("name", list(FILLS))
def test_random_fills_on_meta_and_empty(name):
    fill, dtypes = FILLS[name]
    t = tt.empty(2, 3, device="meta")
    assert fill(t) is t and t._version == 1
    e = tt.empty(0, 3)
    assert fill(e) is e and e._version == 1


def test_random_methods_dispatch():
    """Random ops are operators like any other: they show up in the dispatcher's registry."""
    from teachtorch.dispatch.dispatcher import OPERATORS
    for name in ["rand", "randn", "randint.low", "randperm", "normal.float_float", "normal.Tensor_Tensor", "uniform_",
                 "normal_", "random_.from", "random_.to", "random_", "bernoulli_.float", "bernoulli_.Tensor",
                 "exponential_", "geometric_", "log_normal_", "cauchy_", "bernoulli", "multinomial", "rand_like",
                 "randn_like", "randint_like.low_dtype", "zeros", "ones", "full", "arange.start_step", "linspace",
                 "eye.m", "empty_strided", "zeros_like", "empty_like"]:
        assert f"aten::{name}" in OPERATORS, name
