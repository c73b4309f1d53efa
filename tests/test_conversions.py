"""Conversions: `to` (dtype, device, other, copy, memory_format) on every layout and dtype pair, the casting
rules, the shortcut methods (`float()`, `long()`, ...), `type()`, `cpu()`/`cuda()`, `new_*`, conversions to
Python (`item`, `tolist`, `numpy`, `len`, `iter`, `bool`, `int`, `float`, `index`) and repr, all against
PyTorch: values, dtypes, strides, aliasing and errors."""

import operator

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import teachtorch as tt
from parity import LAYOUTS, TORCH_DTYPE, P, assert_same, check, inputs, rand

pytestmark = [pytest.mark.device_generic, pytest.mark.filterwarnings("ignore::UserWarning")]

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]
TT = {d: tt._dtype._lookup(d) for d in DTYPES}
NAN, INF = float("nan"), float("inf")


def _values(dtype, shape=(3, 4), seed=0):
    return rand(*shape, dtype=dtype, seed=seed, low=-4, high=4).values


# ---- to(dtype) ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_to_dtype_every_pair_and_layout(src, dst, layout):
    """Values cast like C, the input's layout kept (dense) or densified in the same order; same dtype: self."""
    check(lambda lib, x, d: x.to(d), P(_values(src), layout), TT[dst])
    check(lambda lib, x, d: x.to(d), P(_values(src, (2, 3, 4), seed=1), layout, seed=1), TT[dst])


@pytest.mark.cpu_only("`.to('cpu') is x` and `.cpu() is x` hold for cpu tensors")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_to_same_dtype_returns_self(layout):
    for lib in (tt, torch):
        x = P(_values("float32"), layout).build(lib)
        assert x.to(x.dtype) is x and x.to(x) is x and x.to("cpu") is x and x.to() is x and x.to(None) is x
        assert x.float() is x and x.cpu() is x and x.type(x.dtype) is x
        assert x.to(memory_format=lib.preserve_format) is x
        assert x.to(x.dtype, copy=True) is not x and x.to(device="cpu", copy=True) is not x


@pytest.mark.parametrize("dst", DTYPES)
def test_casts_of_special_values(dst):
    """Out-of-range floats into integers, NaN and inf, negative into unsigned: what C's casts give on this cpu."""
    vals = np.array([1.7, -1.7, 300.0, -300.0, NAN, INF, -INF, 3e9, -3e9, 3e19, -3e19, 255.9, 256.0, -0.5, 127.5,
                     128.5, 70000.0, 1e-8, -0.0], dtype=np.float64)
    for src in ["float64", "float32", "float16"]:
        with np.errstate(all="ignore"):
            v = vals.astype(src)
        check(lambda lib, x, d: x.to(d), P(v), TT[dst])
    ints = np.array([300, -1, 2**40, -2**40, 2**63 - 1, -2**63, 70000, 1, 0, 255, 256, -129], dtype=np.int64)
    check(lambda lib, x, d: x.to(d), P(ints), TT[dst])
    check(lambda lib, x, d: x.to(d), P(np.array([True, False])), TT[dst])


@given(inputs(dtype="float32", low=-300, high=300), st.sampled_from(DTYPES))
def test_fuzz_to_dtype(p, dst):
    check(lambda lib, x, d: x.to(d), p, TT[dst])


@given(inputs(dtype="int64", low=-1000, high=1000), st.sampled_from(DTYPES))
def test_fuzz_to_dtype_from_int(p, dst):
    check(lambda lib, x, d: x.to(d), p, TT[dst])


# ---- to(...) signatures, copy, device, memory_format ---------------------------------------------------------

TO_CALLS = {
    "dtype": lambda lib, x: x.to(lib.float64),
    "dtype kw": lambda lib, x: x.to(dtype=lib.int32),
    "device": lambda lib, x: x.to("cpu"),
    "device obj": lambda lib, x: x.to(lib.device("cpu")),
    "device, dtype": lambda lib, x: x.to("cpu", lib.float64),
    "device, dtype, nb, copy": lambda lib, x: x.to("cpu", lib.float64, True, True),
    "dtype, nb, copy": lambda lib, x: x.to(lib.float32, False, True),
    "kw copy": lambda lib, x: x.to(device=None, dtype=None, copy=True),
    "other": lambda lib, x: x.to(lib.ones(2, dtype=lib.int8)),
    "other copy": lambda lib, x: x.to(lib.ones(2, dtype=lib.float32), False, True),
    "nothing": lambda lib, x: x.to(),
    "None": lambda lib, x: x.to(None),
    "copy contiguous": lambda lib, x: x.to(lib.float32, copy=True, memory_format=lib.contiguous_format),
    "contiguous only": lambda lib, x: x.to(memory_format=lib.contiguous_format),
    "dtype contiguous": lambda lib, x: x.to(lib.float64, memory_format=lib.contiguous_format),
    "dtype preserve": lambda lib, x: x.to(lib.float64, memory_format=lib.preserve_format),
    "channels_last": lambda lib, x: x.to(lib.float64, memory_format=lib.channels_last),
    "channels_last only": lambda lib, x: x.to(memory_format=lib.channels_last),
    "meta": lambda lib, x: x.to("meta"),
    "meta dtype": lambda lib, x: x.to("meta", lib.float16),
    "non_blocking": lambda lib, x: x.to(dtype=lib.float64, non_blocking=True),
}


@pytest.mark.cpu_only("the calls move tensors to 'cpu' and 'meta' explicitly")
@pytest.mark.parametrize("name", list(TO_CALLS))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4, 5), (), (0, 3)], ids=str)
def test_to_signatures(name, layout, shape):
    fn = TO_CALLS[name]
    if name.startswith("meta"):
        def fn(lib, x, f=fn):
            r = f(lib, x)
            return (r.shape, r.dtype, r.stride(), r.device.type)
    check(fn, P(rand(*shape).values, layout))


TO_ERRORS = [
    lambda lib, x: x.to(lib.float64, "cpu"), lambda lib, x: x.to(lib.float64, lib.float32),
    lambda lib, x: x.to(dtype="float64"), lambda lib, x: x.to(device="cpu", foo=1),
    lambda lib, x: x.to(lib.float64, foo=1), lambda lib, x: x.to("cpu", "cpu"), lambda lib, x: x.to("foo"),
    lambda lib, x: x.to(lib.ones(1), lib.float64), lambda lib, x: x.to(other=lib.ones(1)),
    lambda lib, x: x.to("cpu", foo=1),
]


@pytest.mark.parametrize("i", range(len(TO_ERRORS)))
def test_to_errors(i):
    # messages: PyTorch lists more device types than teachtorch knows ("foo"), and orders unknown keywords first
    check(TO_ERRORS[i], rand(2), msg=i not in (3, 6))


def test_to_meta_and_back():
    check(lambda lib: lib.ones(2, device="meta").to("cpu"))
    check(lambda lib: lib.ones(2, device="meta").cpu())
    check(lambda lib: lib.ones(2, device="meta").tolist())
    check(lambda lib: lib.ones(2, device="meta").item())
    check(lambda lib: lib.ones(1, device="meta").item())
    check(lambda lib: lib.ones(2, device="meta").to(lib.float64).dtype)


def test_cuda_without_cuda():
    if torch.cuda.is_available() or tt.cuda.is_available():
        pytest.skip("there is a GPU here")
    # PyTorch's error type and words, then what to install (CuPy)
    msg = "Torch not compiled with CUDA enabled: teachtorch's cuda backend runs on CuPy"
    check(lambda lib, x: x.cuda(), rand(2), msg=msg)
    check(lambda lib, x: x.to("cuda"), rand(2), msg=msg)
    check(lambda lib, x: x.to("cuda:0", lib.float64), rand(2), msg=msg)
    check(lambda lib, x: x.to(torch.device("cuda") if lib is torch else lib.device("cuda")), rand(2), msg=msg)


def test_to_copy_is_dispatched_and_fresh():
    from teachtorch import dispatch
    x = tt.ones(3, 4).T
    with dispatch.trace() as tr:
        y = x.to(tt.float64)
    assert "aten::_to_copy" in [e.op for e in tr.events]
    with dispatch.trace() as tr:
        x.to(tt.float32)
    assert tr.events == []   # nothing to do: `to` returns x itself without calling any op
    assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr() and y._version == 0
    y.fill_(5)
    assert (x == 1).all()
    from teachtorch.dispatch.dispatcher import OPERATORS
    assert "aten::_to_copy" in OPERATORS


def test_to_result_is_writable_alias_when_self():
    x = tt.zeros(3)
    x.to(tt.float32)[0] = 7
    assert x[0].item() == 7
    x.to(tt.float64)[1] = 7
    assert x[1].item() == 0


# ---- shortcut methods and type() ----------------------------------------------------------------------------

METHODS = ["float", "double", "half", "long", "int", "short", "char", "byte", "bool"]


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("src", ["float32", "int64", "bool", "float16"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_dtype_methods(name, src, layout):
    check(lambda lib, x: getattr(x, name)(), P(_values(src), layout))


@pytest.mark.parametrize("name", METHODS + ["cpu"])
@pytest.mark.parametrize("fmt", ["contiguous_format", "preserve_format"])
def test_dtype_methods_memory_format(name, fmt):
    moves = name == "cpu"       # x.cpu() leaves the device on purpose
    check(lambda lib, x: getattr(x, name)(memory_format=getattr(lib, fmt)), P(_values("float32"), "permuted"),
          same_device=not moves, share=not moves, offset=not moves)
    check(lambda lib, x: getattr(x, name)(memory_format=getattr(lib, fmt)), P(_values("int64"), "sliced"),
          same_device=not moves, share=not moves, strides=not moves, offset=not moves)   # torch's x.cpu() is x


@pytest.mark.cpu_only("cpu type names ('torch.FloatTensor'); cuda ones in test_cuda.py")
@pytest.mark.parametrize("dtype", DTYPES)
def test_type_names(dtype):
    check(lambda lib, x: x.type(), P(_values(dtype)))
    check(lambda lib: lib.ones(2, device="meta", dtype=TORCH_DTYPE[dtype] if lib is torch else TT[dtype]).type())


@pytest.mark.parametrize("arg", [tt.int64, tt.float32, "torch.LongTensor", "torch.BoolTensor", "torch.HalfTensor",
                                 "torch.FloatTensor", "torch.DoubleTensor", "foo", "torch.Foo", 3], ids=repr)
@pytest.mark.cpu_only("x.type('torch.FloatTensor') means a cpu tensor")
@pytest.mark.parametrize("layout", ["contiguous", "permuted"])
def test_type_conversions(arg, layout):
    check(lambda lib, x, a: x.type(a), P(_values("float32"), layout), arg)
    if isinstance(arg, tt.dtype):
        check(lambda lib, x, a: x.type(dtype=a), P(_values("int32"), layout), arg)


# ---- new_* -------------------------------------------------------------------------------------------------------

NEW = {
    "new_tensor list": lambda lib, x: x.new_tensor([1, 2]),
    "new_tensor floats": lambda lib, x: x.new_tensor([1.5, -2.7]),
    "new_tensor dtype": lambda lib, x: x.new_tensor([1, 2], dtype=lib.int64),
    "new_tensor tensor": lambda lib, x: x.new_tensor(x),
    "new_tensor numpy T": lambda lib, x: x.new_tensor(np.ones((2, 3)).T),
    "new_tensor grad": lambda lib, x: x.new_tensor([1.0], requires_grad=True),
    "new_zeros varargs": lambda lib, x: x.new_zeros(2, 3),
    "new_zeros tuple": lambda lib, x: x.new_zeros((2, 3)),
    "new_zeros list": lambda lib, x: x.new_zeros([2, 3]),
    "new_zeros dtype": lambda lib, x: x.new_zeros(2, dtype=lib.int8),
    "new_zeros empty": lambda lib, x: x.new_zeros(()),
    "new_zeros none": lambda lib, x: x.new_zeros(),
    "new_zeros neg": lambda lib, x: x.new_zeros(-1),
    "new_zeros grad": lambda lib, x: x.new_zeros(2, requires_grad=True),
    "new_ones": lambda lib, x: x.new_ones(2),
    "new_ones neg": lambda lib, x: x.new_ones(-1),
    "new_empty": lambda lib, x: x.new_empty(2, 3).shape,
    "new_empty neg": lambda lib, x: x.new_empty(-1),
    "new_full": lambda lib, x: x.new_full((2,), 7),
    "new_full float": lambda lib, x: x.new_full((2,), 7.5),
    "new_full int size": lambda lib, x: x.new_full(2, 7),
    "new_full neg": lambda lib, x: x.new_full((-1,), 2),
    "new_full dtype": lambda lib, x: x.new_full((2,), 7.5, dtype=lib.float64),
    "new_empty_strided": lambda lib, x: x.new_empty_strided((2, 3), (1, 2)).stride(),
    "new meta": lambda lib, x: x.new_zeros(2, device="meta").device.type,
}


@pytest.mark.parametrize("name", list(NEW))
@pytest.mark.parametrize("dtype", ["float64", "int32", "bool", "float16"])
def test_new_methods(name, dtype):
    check(NEW[name], P(_values(dtype), "permuted"))


# ---- conversion to Python and NumPy -------------------------------------------------------------------------------


@pytest.mark.cpu_only("numpy() views cpu memory")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_tolist_item_numpy(dtype, layout):
    p = P(_values(dtype), layout)
    check(lambda lib, x: x.tolist(), p)
    check(lambda lib, x: x[1, 2].item(), p)
    check(lambda lib, x: type(x[1, 2].item()).__name__, p)
    check(lambda lib, x: type(x.tolist()[0][0]).__name__, p)
    for lib in (tt, torch):
        x = p.build(lib)
        a = x.cpu().numpy()
        assert a.dtype == np.dtype(dtype) and a.shape == tuple(x.shape)
        assert a.strides == tuple(s * x.element_size() for s in x.stride())
        np.testing.assert_array_equal(a, p.values)
    x = p.build(tt)
    if layout != "expanded":
        x.cpu().numpy()[0, 0] = 1
        assert x[0, 0].item() == 1   # numpy() shares memory
        x[0, 1] = 0
        assert x.cpu().numpy()[0, 1] == 0


SCALAR_CONVERSIONS = {
    "item": lambda x: x.item(), "int": int, "float": float, "bool": bool, "index": operator.index,
    "len": len, "list": list, "complex": complex, "tolist": lambda x: x.tolist(),
}
SCALAR_INPUTS = [np.array(2.7, np.float32), np.array(-2.7), np.array(3), np.array(True), np.array([1.5]),
                 np.array([[4]]), np.array([1, 2]), np.zeros(0), np.array(NAN), np.array(INF), np.array(0),
                 np.array([[1, 2], [3, 4]], np.int32), np.array(7, np.uint8), np.array(1.5, np.float16),
                 np.zeros((0, 2))]


@pytest.mark.parametrize("name", list(SCALAR_CONVERSIONS))
@pytest.mark.parametrize("v", SCALAR_INPUTS, ids=lambda v: f"{v.dtype}{list(v.shape)}")
def test_python_conversions(name, v):
    f = SCALAR_CONVERSIONS[name]
    if name == "complex" and v.size == 1 and np.isnan(v).any():
        return   # (nan+0j) != (nan+0j): compared below
    check(lambda lib, x: f(x), P(v))


def test_complex_of_nan():
    import cmath
    assert cmath.isnan(complex(tt.tensor(NAN))) and cmath.isnan(complex(torch.tensor(NAN)))


def test_index_uses():
    check(lambda lib: [1, 2, 3][lib.tensor(1)])
    check(lambda lib: [1, 2, 3][lib.tensor(True)])
    check(lambda lib: [1, 2, 3][lib.tensor([[1]])])
    check(lambda lib: [1, 2, 3][lib.tensor(1.0)])
    check(lambda lib: [1, 2, 3][lib.tensor([1, 2])])
    check(lambda lib: range(10)[lib.tensor(3, dtype=lib.int8)])


def test_iter_yields_views():
    for lib in (tt, torch):
        x = lib.arange(6).view(2, 3)
        rows = list(x)
        assert len(rows) == 2 and rows[0].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    check(lambda lib, x: list(x), rand(3, 2, layout="permuted"))


@pytest.mark.cpu_only("numpy() views cpu memory")
def test_numpy_errors():
    check(lambda lib: lib.ones(2, requires_grad=True).cpu().numpy())
    check(lambda lib: lib.ones(2, device="meta").cpu().numpy())
    check(lambda lib: lib.ones(2, requires_grad=True).numpy(force=True).tolist())


def test_requires_grad_messages():
    check(lambda lib: lib.ones(2, dtype=lib.int64).requires_grad_())
    check(lambda lib: lib.ones(2, dtype=lib.bool).requires_grad_(True))
    check(lambda lib: lib.ones(2, dtype=lib.int64).requires_grad_(False).requires_grad)

    def set_attr(lib, value, dtype):
        x = lib.ones(2, dtype=dtype)
        x.requires_grad = value
        return x.requires_grad
    check(lambda lib: set_attr(lib, True, lib.int64))
    check(lambda lib: set_attr(lib, 1, lib.float32))
    check(lambda lib: set_attr(lib, True, lib.float32))
    check(lambda lib: set_attr(lib, False, lib.int64))


# ---- questions about tensors ---------------------------------------------------------------------------------


def test_numel_is_tensor_is_floating_point_is_nonzero():
    for d in DTYPES:
        check(lambda lib, x: (lib.numel(x), lib.is_tensor(x), lib.is_floating_point(x), x.is_floating_point(),
                              x.element_size(), x.numel(), x.nelement()), P(_values(d)))
    check(lambda lib: lib.numel([1]))
    check(lambda lib: lib.is_tensor(1))
    check(lambda lib: lib.is_floating_point(1.0))
    for v in [[1], [0], [1, 2], [], [[2.5]], [NAN]]:
        check(lambda lib: lib.is_nonzero(lib.tensor(v)))
        check(lambda lib: lib.tensor(v).is_nonzero())


# ---- repr integration ----------------------------------------------------------------------------------------

REPRS = [
    lambda lib: lib.tensor([1.5, 2.0, -3.25]), lambda lib: lib.tensor(3.0), lambda lib: lib.tensor(3),
    lambda lib: lib.tensor([True, False]), lambda lib: lib.tensor([]), lambda lib: lib.zeros(2, 0),
    lambda lib: lib.arange(12).view(3, 4), lambda lib: lib.arange(12.0).view(3, 4).T,
    lambda lib: lib.ones(2, 3, dtype=lib.float64), lambda lib: lib.ones(2, dtype=lib.float16),
    lambda lib: lib.tensor([1, 2], dtype=lib.int32), lambda lib: lib.tensor([1, 2], dtype=lib.uint8),
    lambda lib: lib.tensor([1, 2], dtype=lib.int8), lambda lib: lib.tensor([1, 2], dtype=lib.int16),
    lambda lib: lib.ones(2, requires_grad=True), lambda lib: lib.tensor([1e10, 1e-10]),
    lambda lib: lib.tensor([NAN, INF, -INF, 1.0]), lambda lib: lib.arange(2000), lambda lib: lib.arange(2000.0).view(40, 50),
    lambda lib: lib.linspace(-1, 1, 7), lambda lib: lib.eye(3, dtype=lib.bool), lambda lib: lib.zeros(2, 3, device="meta"),
    lambda lib: lib.zeros(2, 3, device="meta", dtype=lib.int32), lambda lib: lib.tensor([[1e-5, 1.0], [100.0, 1e5]]),
    lambda lib: lib.full((2, 2), 0.1, dtype=lib.float64), lambda lib: lib.tensor(-0.0),
    lambda lib: lib.tensor([123456789.0, 1.0]), lambda lib: lib.tensor([[[1, 2]], [[3, 4]]]),
]


@pytest.mark.cpu_only("PyTorch's cpu repr text; cuda reprs in test_cuda.py")
@pytest.mark.parametrize("i", range(len(REPRS)))
def test_repr_matches_torch(i):
    assert repr(REPRS[i](tt)) == repr(REPRS[i](torch))
    assert str(REPRS[i](tt)) == str(REPRS[i](torch))


@pytest.mark.cpu_only("PyTorch's cpu repr text")
@pytest.mark.parametrize("i", range(len(REPRS)))
@pytest.mark.parametrize("d", [tt.float64, tt.float16])
def test_repr_with_other_default_dtype(i, d):
    tt.set_default_dtype(d)
    torch.set_default_dtype(TORCH_DTYPE[d.name])
    try:
        assert repr(REPRS[i](tt)) == repr(REPRS[i](torch))
    finally:
        tt.set_default_dtype(tt.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.cpu_only("PyTorch's cpu repr text")
@given(inputs(dtype="float32", low=-1000, high=1000), st.sampled_from(DTYPES))
def test_fuzz_repr(p, dtype):
    got = repr(p.build(tt).to(TT[dtype]))
    exp = repr(p.build(torch).to(TORCH_DTYPE[dtype]))
    assert got == exp
