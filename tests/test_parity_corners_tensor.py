"""Parity corners of tensors (issue 14, section 2): error types and texts, Python protocols, NumPy warnings that
PyTorch does not give, and the small gaps (type_as, in-place view ops, F.normalize)."""

import re
import warnings

import numpy as np
import pytest
import torch

import teachtorch as tt
from parity import LAYOUTS, P, as_on_cpu, check, check_grad, check_inplace, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)


# ---- unflatten: PyTorch rewords the count mismatch, and wraps every other size error ----------------------


@pytest.mark.parametrize("dim,sizes", [(0, (4, -1)), (0, (4, 2)), (-1, (4, -1)), (1, (0, -1)), (1, (-1, -1)),
                                       (1, (-2, 3)), (1, ()), (1, (2, 3)), (1, (3, -1))])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_unflatten_errors_match_torch(dim, sizes, layout):
    x = rand(6, 6, layout=layout)
    try:
        torch.ones(6, 6).unflatten(dim, sizes)
    except RuntimeError as e:
        if str(e).startswith("unflatten got an unexpected error"):
            # torch's text goes on with a C++ stack trace; the first two lines are the message
            check(lambda lib, x: x.unflatten(dim, sizes), x, msg="\n".join(str(e).split("\n")[:2]))
            return
    check(lambda lib, x: x.unflatten(dim, sizes), x)


# ---- numbers converted to a tensor's dtype: c10::checked_convert --------------------------------------------

FILL_CASES = ([("uint8", v) for v in (255, 256, -1, -255, -256, 1000.0, 255.5, -1.5, 1e20, float("inf"),
                                       float("nan"), True)]
              + [("int8", v) for v in (127, 128, -128, -129, 300.0, 127.5)]
              + [("bool", v) for v in (2, -3, 1e300, 0.5)]
              + [("float16", v) for v in (65504.0, 65520.0, 1e6, float("inf"), -1e300, 70000)]
              + [("float32", v) for v in (1e300, 3e38, float("-inf"))]
              + [("int32", v) for v in (2 ** 31, -2 ** 31, 1e10)]
              + [("int64", v) for v in (2 ** 63, -2 ** 63, 2.5)])


@pytest.mark.parametrize("dtype,value", FILL_CASES)
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset"])
def test_fill_checks_the_number_against_the_dtype(dtype, value, layout):
    check_inplace(lambda lib, x: x.fill_(value), rand(2, 3, dtype=dtype, layout=layout))


@pytest.mark.parametrize("dtype,value", FILL_CASES)
def test_fill_of_expanded_target_checks_too(dtype, value):
    # an expanded (overlapping) target may be filled, but the number is still checked
    check(lambda lib, x: x.fill_(value), rand(2, 3, dtype=dtype, layout="expanded"))


@pytest.mark.parametrize("dtype,value", [("float16", 1e6), ("float16", -1e300)])
def test_one_element_float16_fill_is_unchecked_like_torch(dtype, value):
    # PyTorch's one-element fast path converts to Half without the check: inf, and no NumPy warning either
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        check_inplace(lambda lib, x: x.fill_(value), rand(1, dtype=dtype))


@pytest.mark.parametrize("dtype,value", [("uint8", 300), ("int8", -200), ("float16", 1e6), ("int32", 1e10),
                                         ("uint8", -1.0), ("int64", float("nan"))])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_fill_with_a_tensor_casts_without_checking(dtype, value, layout):
    # fill_.Tensor casts like copy_: 300 wraps to 44 in uint8, 1e6 is inf in float16; no NumPy warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        check_inplace(lambda lib, x: x.fill_(lib.tensor(value)), rand(2, 3, dtype=dtype, layout=layout))


SCALAR_OPS = {
    "full": lambda lib, x, v: lib.full((2,), v, dtype=x.dtype),
    "full_like": lambda lib, x, v: lib.full_like(x, v),
    "new_full": lambda lib, x, v: x.new_full((2,), v),
    "masked_fill": lambda lib, x, v: x.masked_fill(x > 0, v),
    "masked_fill_": lambda lib, x, v: x.clone().masked_fill_(x > 0, v),
    "clamp": lambda lib, x, v: x.clamp(0, v),
    "clamp_min": lambda lib, x, v: x.clamp(v),
    "add_alpha": lambda lib, x, v: x.add(x, alpha=v),
    "add_scalar": lambda lib, x, v: x.add(v),          # no check: the number wraps in PyTorch
    "sub_scalar_": lambda lib, x, v: x.clone().sub_(v),
    "index_fill": lambda lib, x, v: x.index_fill(0, lib.tensor([0]), v),
    "scatter": lambda lib, x, v: x.scatter(0, lib.tensor([[0, 1, 0]]), v),
    "where": lambda lib, x, v: lib.where(x > 0, x, v),
    "pow": lambda lib, x, v: x.pow(v),
    "addcmul": lambda lib, x, v: x.addcmul(x, x, value=v),
    "setitem": lambda lib, x, v: x.clone().__setitem__(0, v),
    "setitem_mask": lambda lib, x, v: x.clone().__setitem__(x > 0, v),
    "eq": lambda lib, x, v: x == v,
}


@pytest.mark.parametrize("op", SCALAR_OPS)
@pytest.mark.parametrize("dtype,value", [("uint8", 300), ("uint8", -1), ("int8", 200), ("float16", 1e6),
                                         ("int32", 2 ** 40)])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_scalar_taking_ops_check_overflow_like_torch(op, dtype, value, layout):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)       # pow's integer overflow notes aside
        check(SCALAR_OPS[op], rand(2, 3, dtype=dtype, layout=layout, low=0, high=5), value)


def test_setitem_of_a_float16_number_is_inf_like_torch():
    # valueToTensor fills a one-element tensor: the Half fast path, no overflow check
    def f(lib, x):
        x[0] = 1e6
        x[1:] = -1e6
        return x
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        check(f, rand(3, dtype="float16"))


# ---- torch.Size arithmetic stays a Size ---------------------------------------------------------------------


@pytest.mark.parametrize("expr", ["S + (3,)", "(3,) + S", "S * 2", "2 * S", "S * 0", "S + S", "S[1:]",
                                  "S[::-1]", "S + T([3])", "S[0]", "S == (1, 2, 4)", "hash(S) == hash((1, 2, 4))",
                                  "S + [3]", "S.count(2)", "S.index(4)", "S.numel()", "(S + (5,)).numel()"])
def test_size_arithmetic_matches_torch(expr):
    def run(lib):
        env = {"S": lib.Size([1, 2, 4]), "T": lib.Size}
        try:
            r = eval(expr, env)
        except Exception as e:
            return ("error", type(e).__name__, str(e))
        return (type(r).__name__, repr(r))
    assert run(tt) == run(torch)


# ---- Python protocols ------------------------------------------------------------------------------------


@pytest.mark.parametrize("element", [3, 7, 2.0, True, "tensor([1, 2])", "tensor([2, 1])", "tensor(4)",
                                     "tensor([[3, 4]])", "tensor([])", "none", "list", "string"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_contains_is_elementwise_membership(element, layout):
    def f(lib, x):
        e = {"none": None, "list": [1, 2], "string": "a"}.get(element, element)
        if isinstance(e, str):
            e = eval(e, {"tensor": lib.tensor})
        return e in x
    got = check(f, P(np.array([[1, 2], [3, 4]]), layout))
    assert isinstance(got, (bool, Exception))


def test_contains_refuses_other_types_like_torch():
    for bad in (None, [1], "a"):
        with pytest.raises(RuntimeError) as got:
            bad in tt.ones(2)
        with pytest.raises(RuntimeError) as want:
            bad in torch.ones(2)
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_reversed_is_a_flipped_tensor(layout):
    check(lambda lib, x: reversed(x), rand(3, 4, layout=layout))
    check(lambda lib, x: reversed(x), rand(4, layout=layout))


def test_reversed_of_a_0d_tensor_is_itself():
    x = tt.tensor(3.0)
    assert reversed(x) is x and reversed(torch.tensor(3.0)).dim() == 0


@pytest.mark.parametrize("expr", ["len(x)", "list(iter(x))", "bool(x)", "float(x)", "int(x)", "[10, 20, 30][x]",
                                  "format(x, '.3f')", "format(x, '')", "f'{x:>8}'", "complex(x)",
                                  "hash(x) == id(x) or hash(x) == hash(x)"])
@pytest.mark.parametrize("value", ["tensor(1.5)", "tensor(2)", "tensor([1])", "tensor([1.0, 2.0])",
                                   "tensor(True)", "tensor([])"])
def test_python_protocols_match_torch(expr, value):
    def run(lib):
        x = eval(value, {"tensor": lib.tensor})
        try:
            r = eval(expr, {"x": x})
        except Exception as e:
            return ("error", type(e).__name__, str(e))
        if isinstance(r, list):
            return ("list", [(type(v).__name__, v.tolist() if hasattr(v, "tolist") else v) for v in r])
        return (type(r).__name__, as_on_cpu(r) if isinstance(r, str) else r)   # (a cuda repr names its device)
    assert run(tt) == run(torch)


# ---- NumPy's RuntimeWarnings stay inside: PyTorch overflows to inf (or wraps) silently ----------------------

SILENT_CASES = {
    "half": lambda lib: lib.tensor([1e6, -1e6, 1.0]).half(),
    "to_float16": lambda lib: lib.tensor([1e6, 1e-10]).to(lib.float16),
    "to_float32": lambda lib: lib.tensor([1e300, -1e300], dtype=lib.float64).float(),
    "float_to_int": lambda lib: lib.tensor([1e20]).int(),
    "nan_to_int": lambda lib: lib.tensor([float("nan")]).long(),
    "neg_to_uint8": lambda lib: lib.tensor([-1.0]).byte(),
    "copy_": lambda lib: lib.zeros(2, dtype=lib.float16).copy_(lib.tensor([1e6, 7e4])),
    "tensor_from_tensor": lambda lib: lib.tensor([1e6]).to(lib.float16, copy=True),
    "matmul_float16": lambda lib: lib.full((2, 2), 300.0, dtype=lib.float16) @ lib.full((2, 2), 300.0,
                                                                                      dtype=lib.float16),
    "mm_float32": lambda lib: lib.mm(lib.full((2, 2), 1e30), lib.full((2, 2), 1e30)),
    "matmul_batched": lambda lib: lib.full((2, 2, 2), 1e30) @ lib.full((2, 2), 1e30),
    "mv_float16": lambda lib: lib.mv(lib.full((2, 2), 300.0, dtype=lib.float16),
                                     lib.full((2,), 300.0, dtype=lib.float16)),
    "dot_float32": lambda lib: lib.dot(lib.full((2,), 1e30), lib.full((2,), 1e30)),
    "dot_float16": lambda lib: lib.dot(lib.full((2,), 300.0, dtype=lib.float16),
                                       lib.full((2,), 300.0, dtype=lib.float16)),
    "linear_float32": lambda lib: lib.nn.functional.linear(lib.full((2, 2), 1e30), lib.full((2, 2), 1e30)),
    "cumsum_inf": lambda lib: lib.tensor([float("inf"), float("-inf"), 1.0]).cumsum(0),
    "cumprod_inf": lambda lib: lib.tensor([float("inf"), 0.0, 2.0]).cumprod(0),
    "cumsum_float16": lambda lib: lib.full((3,), 6e4, dtype=lib.float16).cumsum(0),
    "cumsum_nan_to_int": lambda lib: lib.tensor([float("nan"), 1.0]).cumsum(0, dtype=lib.int64),
}


@pytest.mark.parametrize("case", SILENT_CASES)
def test_overflow_is_silent_like_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        check(lambda lib: SILENT_CASES[case](lib), strides=False)


# ---- Tensor.type_as ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("src,other", [("int64", "float32"), ("float32", "float64"), ("float32", "float32"),
                                       ("float64", "uint8"), ("bool", "float16")])
def test_type_as_matches_torch(layout, src, other):
    check(lambda lib, x, y: x.type_as(y), rand(3, 4, dtype=src, layout=layout), rand(2, dtype=other))


def test_type_as_refuses_a_non_tensor_and_carries_gradients():
    check(lambda lib, x: x.type_as(3), rand(2))
    check_grad(lambda lib, x: x.type_as(lib.ones(1, dtype=lib.float64)), rand(3, 4, layout="permuted"),
               gradcheck=False, gradgradcheck=False)


# ---- in-place view ops: metadata changes in place -----------------------------------------------------------

INPLACE_VIEWS = {
    "squeeze_": lambda x: x.squeeze_(),
    "squeeze_dim": lambda x: x.squeeze_(0),
    "squeeze_dims": lambda x: x.squeeze_((0, 2)),
    "unsqueeze_": lambda x: x.unsqueeze_(1),
    "unsqueeze_neg": lambda x: x.unsqueeze_(-1),
    "transpose_": lambda x: x.transpose_(0, 2),
    "swapdims_": lambda x: x.swapdims_(1, -1),
    "swapaxes_": lambda x: x.swapaxes_(0, 1),
    "as_strided_": lambda x: x.as_strided_((3, 2), (1, 2), 1),
    "t_2d": lambda x: x.squeeze_(0).t_(),
    "t_3d": lambda x: x.t_(),
    "transpose_bad_dim": lambda x: x.transpose_(0, 5),
    "unsqueeze_bad_dim": lambda x: x.unsqueeze_(7),
}


@pytest.mark.parametrize("op", INPLACE_VIEWS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_inplace_view_ops_change_metadata_in_place(op, layout):
    def f(lib, x):
        before = (x.untyped_storage().data_ptr(), x._version)
        r = INPLACE_VIEWS[op](x)
        assert r is x, "an in-place view op returns its target itself"
        assert x.untyped_storage().data_ptr() == before[0], "no new storage"
        assert x._version == before[1] + 1, "the version counter moves on once"
        return x
    check(f, rand(1, 3, 4, layout=layout), share=False)


@pytest.mark.parametrize("op", [k for k in INPLACE_VIEWS if "bad" not in k and k != "t_3d"])
def test_inplace_view_ops_record_autograd_like_torch(op):
    # the node is the view op's, under PyTorch's name for the in-place overload (SqueezeBackward3, TBackward1...)
    check_grad(lambda lib, x: INPLACE_VIEWS[op](x * 2), rand(1, 3, 4, layout="permuted"), gradcheck=False)


def test_inplace_view_of_a_view_shares_the_version_and_keeps_the_base_history():
    for lib in (tt, torch):
        base = lib.ones(2, 3, requires_grad=True).clone()
        v = base[0]
        v.unsqueeze_(0)
        assert v.shape == (1, 3) and v._base is base and base._version == 1
        assert v.grad_fn.name() == "UnsqueezeBackward1" and base.grad_fn.name() == "CloneBackward0"
        v.sum().backward()


@pytest.mark.parametrize("make", ["leaf", "view_of_leaf"])
def test_inplace_view_ops_refuse_leaves_like_torch(make):
    def f(lib):
        a = lib.ones(1, 3, requires_grad=True)
        (a if make == "leaf" else a[0]).unsqueeze_(0)
    check(f)


# ---- F.normalize ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("kwargs", [{}, {"p": 1}, {"p": 3.0, "dim": 0}, {"dim": -1, "eps": 0.5},
                                    {"p": float("inf"), "dim": 2}, {"p": 0.5}])
def test_normalize_matches_torch(layout, kwargs):
    check(lambda lib, x: lib.nn.functional.normalize(x, **kwargs), rand(3, 4, 5, layout=layout),
          rtol=1e-5, atol=1e-6)
    # (the inf-norm is a max: an expanded input ties, where finite differences cannot see a gradient)
    smooth = kwargs.get("p") != float("inf")
    check_grad(lambda lib, x: lib.nn.functional.normalize(x, **kwargs), rand(2, 3, 4, layout=layout), name=False,
               gradcheck=smooth, gradgradcheck=smooth)


def test_normalize_of_zeros_out_and_errors():
    check(lambda lib, x: lib.nn.functional.normalize(x), P(np.zeros((2, 3), np.float32)))
    check(lambda lib, x: lib.nn.functional.normalize(x, dim=0, out=lib.empty(3, 2)), rand(3, 2))
    check(lambda lib, x: lib.nn.functional.normalize(x), rand(2, 3, dtype="int64"))
    check(lambda lib, x: lib.nn.functional.normalize(x, dim=4), rand(2, 3))


# ---- view(dtype) between element sizes ------------------------------------------------------------------------

VIEW_DTYPE_PAIRS = [("float32", "float16"), ("float32", "uint8"), ("int64", "int16"), ("float64", "float32"),
                    ("float16", "float32"), ("uint8", "int32"), ("int16", "float64"), ("bool", "int16"),
                    ("int8", "bool"), ("float32", "int32")]


@pytest.mark.parametrize("src,dst", VIEW_DTYPE_PAIRS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(2, 8), (3, 4, 4), (4,), (2, 3), (1,), ()])
def test_view_dtype_between_element_sizes(src, dst, layout, shape):
    check(lambda lib, x, d: x.view(d), rand(*shape, dtype=src, layout=layout, low=0, high=100), getattr(tt, dst))


@pytest.mark.parametrize("index", ["[:, 1:]", "[:, 2:]", "[1:]", "[:, ::2]", "[:, :6]", "[::2]", "[:, 1:7]"])
@pytest.mark.parametrize("src,dst", [("float16", "float32"), ("uint8", "int32"), ("float32", "float16"),
                                     ("int8", "int64")])
def test_view_dtype_checks_offset_and_strides(index, src, dst):
    check(lambda lib, x, d: eval("x" + index).view(d), rand(4, 8, dtype=src, low=0, high=100), getattr(tt, dst))


def test_view_dtype_shares_bytes_and_version():
    def f(lib, x):
        v = x.view(lib.uint8)
        v[0, 1] = 60          # the high byte of the first half: changes x's first element
        assert v._version == x._version == 1
        return x
    check(f, P(np.ones((2, 4), np.float16)))


# ---- Embedding(scale_grad_by_freq=True): each row's gradient divided by its count in the batch -------------


def _ids(values, layout="contiguous"):
    return P(np.array(values, dtype=np.int64), layout)


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset", "expanded"])
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_embedding_scale_grad_by_freq(layout, padding_idx):
    from nn_parity import check_module
    check_module(lambda nn: nn.Embedding(7, 3, padding_idx=padding_idx, scale_grad_by_freq=True),
                 _ids([[1, 2, 6, 2], [0, 2, 2, 6]], layout))
    check_module(lambda nn: nn.Embedding(5, 2, scale_grad_by_freq=True, max_norm=1.0),
                 _ids([4, 4, 0, 4], layout))


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "expanded"])
def test_functional_embedding_scale_grad_by_freq_gradients(layout):
    ids = _ids([[3, 0, 3], [3, 1, 0]], layout)
    check_grad(lambda lib, w, i: lib.nn.functional.embedding(i, w, scale_grad_by_freq=True),
               rand(4, 5, layout="permuted"), ids, name=False, gradcheck=False, gradgradcheck=False)
    # (no gradcheck: the scaled gradient is by design not the derivative of the lookup, in PyTorch too)
    # the forward values are the lookup itself, exactly
    check(lambda lib, w, i: lib.nn.functional.embedding(i, w, scale_grad_by_freq=True), rand(4, 5), ids)
    assert "scale_grad_by_freq=True" in repr(tt.nn.Embedding(4, 2, scale_grad_by_freq=True))


# ---- checkpoints: a tensor saved twice loads back as one object ---------------------------------------------


def test_a_tensor_saved_twice_loads_as_one_object(tmp_path):
    for lib in (tt, torch):
        a = lib.arange(6.0)
        w = lib.nn.Parameter(lib.ones(2, 2))
        lib.save({"a": a, "b": a, "v": a[2:].view(2, 2), "list": [a, w, w[0]], "w": w}, tmp_path / lib.__name__)
        d = lib.load(tmp_path / lib.__name__)
        assert d["a"] is d["b"] is d["list"][0] and d["w"] is d["list"][1]
        assert type(d["w"]).__name__ == "Parameter"
        assert d["v"].untyped_storage().data_ptr() == d["a"].untyped_storage().data_ptr()
        assert d["v"].storage_offset() == 2 and d["list"][2].untyped_storage().data_ptr() == d["w"].untyped_storage().data_ptr()
        d["a"][3] = 100.0
        assert d["v"][0, 1].item() == 100.0


# ---- arange(out=): its own resize rule and warning ----------------------------------------------------------


@pytest.mark.parametrize("args,out_shape", [((5,), (3,)), ((0, 1, 0.25), (2, 2)), ((5,), (0,)), ((5,), (5,)),
                                            ((5,), (1, 5)), ((2, 8, 3), (4, 1)), ((3,), (7,))])
def test_arange_out_resizes_and_warns_like_torch(args, out_shape):
    messages = {}

    def f(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = lib.arange(*args, out=lib.zeros(out_shape))
        messages[lib] = [str(m.message).split(" (Triggered internally")[0] for m in w]
        return r
    check(f)
    assert messages[tt] == messages[torch]


# ---- norm: we keep float32 sums of squares from overflowing, PyTorch does not --------------------------------


def test_norm_of_huge_float32_is_finite_where_torch_overflows():
    # a documented difference (README): PyTorch squares in float32 and overflows to inf; teachtorch scales
    x = [1e30, 1e30]
    assert torch.tensor(x).norm().item() == float("inf")
    got = tt.tensor(x).norm()
    assert got.dtype is tt.float32 and abs(got.item() / 1.4142135e30 - 1) < 1e-6


# ---- NumPy arrays as operands: PyTorch's operators refuse them, so NumPy computes and wraps a tensor ----------

_NP_EXPRS = ["t + a", "t - a", "t * a", "t / a", "t ** a", "t // a", "t % a", "t == a", "t != a", "t < a",
             "t >= a", "t & a", "t | a", "t ^ a", "t << a", "t @ a", "a + t", "a * t", "a - t", "a / t", "a ** t",
             "a == t", "a < t", "t * z", "z * t", "t + s", "s * t", "np.sin(t)", "np.add(t, 1)", "np.greater(t, 0)",
             "np.maximum(t, a)"]


def _np_result(lib, expr, tensor_dtype, array_dtype, layout, requires_grad=False):
    t = P(np.array([[1.0, 2.0], [3.0, 4.0]]).astype(tensor_dtype), layout).build(lib)
    if requires_grad:
        t.requires_grad_(True)
    a = np.array([[1, 2], [3, 1]], dtype=array_dtype)
    env = {"t": t, "a": a, "z": np.array(2.0), "s": np.float32(2.0), "np": np}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # numpy 2's note about PyTorch's old __array_wrap__ signature
        try:
            r = eval(expr, env)
        except Exception as e:
            return ("error", type(e).__name__)
    if isinstance(r, (tt.Tensor, torch.Tensor)):
        return ("Tensor", str(r.dtype), r.requires_grad, r.detach().cpu().tolist())
    return (type(r).__name__, r.tolist() if hasattr(r, "tolist") else r)


@pytest.mark.parametrize("expr", _NP_EXPRS)
@pytest.mark.parametrize("tensor_dtype,array_dtype", [("float32", "int32"), ("float32", "float64"),
                                                      ("int32", "int32"), ("int64", "float32"), ("int32", "bool")])
@pytest.mark.cpu_only("NumPy reads the tensor through __array__; an array operand becomes a cpu tensor")
def test_numpy_array_operands_behave_as_in_torch(expr, tensor_dtype, array_dtype):
    for layout in ("contiguous", "permuted", "sliced"):
        assert _np_result(tt, expr, tensor_dtype, array_dtype, layout) == \
            _np_result(torch, expr, tensor_dtype, array_dtype, layout)


@pytest.mark.parametrize("expr", ["t + a", "t * z", "t == a", "np.sin(t)"])
@pytest.mark.cpu_only("a NumPy array operand becomes a cpu tensor")
def test_numpy_array_operands_refuse_tensors_that_require_grad(expr):
    assert _np_result(tt, expr, "float32", "int32", "contiguous", requires_grad=True) == \
        _np_result(torch, expr, "float32", "int32", "contiguous", requires_grad=True)


@pytest.mark.cpu_only("NumPy computes on the cpu")
def test_inplace_operator_with_numpy_array_rebinds_like_torch():
    for lib in (tt, torch):
        t = lib.ones(2)
        before = t
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t += np.array([1, 2], dtype=np.int32)
        # PyTorch's `+=` refuses the array; Python falls back to NumPy's `array.__radd__`: a new float64 tensor
        assert t is not before and str(t.dtype).endswith("float64") and before.tolist() == [1.0, 1.0]


# ---- fill_diagonal_ -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape,wrap", [((7, 3), False), ((3, 7), True), ((4, 4), False), ((3, 3, 3), False),
                                        ((5, 4), True), ((1, 1), True)])
def test_fill_diagonal_like_torch(layout, shape, wrap):
    """A strided view along the diagonal, filled in place: every layout of the target, errors included
    (an expanded target refuses the write as PyTorch does)."""
    check_inplace(lambda lib, x: x.fill_diagonal_(5.0, wrap=wrap), rand(*shape, layout=layout))


@pytest.mark.parametrize("layout", LAYOUTS[:4])
@pytest.mark.parametrize("shape", [(7, 3), (6, 0), (9, 2)])
def test_fill_diagonal_wraps_like_torch(layout, shape):
    """A tall matrix's diagonal starts again every width + 1 rows: two fills, two version bumps, as in
    PyTorch's composite."""
    check(lambda lib, x: x.fill_diagonal_(5.0, wrap=True), rand(*shape, layout=layout))
    versions = []
    for lib in (torch, tt):
        x = lib.zeros(*shape)
        x.fill_diagonal_(5.0, wrap=True)
        versions.append(x._version)
    assert versions[0] == versions[1]


@pytest.mark.parametrize("shape", [(3,), (2, 3, 3), ()])
def test_fill_diagonal_errors_like_torch(shape):
    check_inplace(lambda lib, x: x.fill_diagonal_(1.0), rand(*shape))


def test_fill_diagonal_through_autograd_like_torch():
    check_grad(lambda lib, x: (x * 2).fill_diagonal_(0.0), rand(4, 4, layout="permuted"))
    for lib in (torch, tt):
        leaf = lib.zeros(3, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                               "in-place operation."):
            leaf.fill_diagonal_(1.0)


# ---- Python numbers as PyTorch's argument parser unpacks them ------------------------------------------------
# A Scalar is an int64 or a uint64 in C++: a Python int outside [-2**63, 2**64) is an OverflowError before any
# dtype is looked at (`float_tensor.fill_(10**20)` too). An `int` argument takes ints, NumPy integers and
# one-element integer tensors, never a float or a bool: `x.tril(1.5)` must not round.

SCALAR_OPS_AND_OPERATORS = dict(SCALAR_OPS, **{
    "mul": lambda lib, x, v: x * v, "rmul": lambda lib, x, v: v * x, "radd": lambda lib, x, v: v + x,
    "rsub": lambda lib, x, v: v - x, "truediv": lambda lib, x, v: x / v, "lt": lambda lib, x, v: x < v,
    "imul": lambda lib, x, v: x.clone().__imul__(v), "add_alpha": lambda lib, x, v: x.add(x, alpha=v),
    "full": lambda lib, x, v: lib.full((2,), v, dtype=x.dtype), "clamp": lambda lib, x, v: x.clamp(max=v),
    "masked_fill": lambda lib, x, v: x.masked_fill(x > 0, v), "pow_scalar": lambda lib, x, v: lib.pow(v, x),
    "div_floor": lambda lib, x, v: x.div(v, rounding_mode="floor"), "lerp": lambda lib, x, v: x.lerp(x, v),
    "arange": lambda lib, x, v: lib.arange(v), "linspace": lambda lib, x, v: lib.linspace(0, v, 3),
    "fill_": lambda lib, x, v: x.clone().fill_(v),
})


@pytest.mark.parametrize("op", SCALAR_OPS_AND_OPERATORS)
@pytest.mark.parametrize("value", [10 ** 20, -10 ** 20, 2 ** 64, -2 ** 63 - 1])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_python_ints_beyond_64_bits_overflow_like_torch(op, value, dtype):
    e = check(SCALAR_OPS_AND_OPERATORS[op], rand(2, 3, dtype=dtype, layout="permuted", low=0, high=5), value)
    assert isinstance(e, OverflowError if "setitem" not in op else ValueError), e   # x[i] = v unpacks an int64


@pytest.mark.parametrize("op", ["fill_", "mul", "full", "add_alpha", "eq"])
@pytest.mark.parametrize("value", [2 ** 63, 2 ** 64 - 1, -2 ** 63])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_python_ints_that_fit_a_uint64_are_taken_like_torch(op, value, dtype):
    check(SCALAR_OPS_AND_OPERATORS[op], rand(2, 3, dtype=dtype, low=0, high=5), value)


INT_ARGUMENTS = {
    "tril": lambda lib, x, v: x.tril(v), "triu_kw": lambda lib, x, v: lib.triu(x, diagonal=v),
    "diag": lambda lib, x, v: x[0].diag(v), "select": lambda lib, x, v: x.select(0, v),
    "topk": lambda lib, x, v: x[0].topk(v), "flatten": lambda lib, x, v: x.flatten(v),
    "transpose": lambda lib, x, v: x.transpose(0, v), "unsqueeze": lambda lib, x, v: x.unsqueeze(v),
    "movedim": lambda lib, x, v: x.movedim(v, 0), "roll": lambda lib, x, v: x.roll(v, 0),
}


@pytest.mark.parametrize("op", INT_ARGUMENTS)
@pytest.mark.parametrize("value", [1, 1.0, 1.5, True, np.int64(1), np.float64(1.0), "1", None,
                                   P(np.array(1)), P(np.array(1.0)), P(np.array([1, 0]))])
def test_int_arguments_take_ints_only_like_torch(op, value):
    """The same result or error type; for "must be int" the same text but for the "(position N)" PyTorch adds
    for positional arguments (the dispatcher cannot tell `x.tril(1.5)`, position 1, from `torch.tril(x, 1.5)`,
    position 2). Not here: a one-element 1-d integer tensor, which PyTorch takes for some int arguments (tril,
    select, topk) and refuses for others (diag, flatten, transpose: ops with several overloads); teachtorch
    takes it everywhere."""
    error = check(INT_ARGUMENTS[op], rand(3, 3, layout="sliced"), value, msg=False)
    if isinstance(error, Exception):
        expected = re.sub(r" \(position \d+\)", "", str(error).split("\n")[0])
        with pytest.raises(type(error)) as ours:
            INT_ARGUMENTS[op](tt, tt.ones(3, 3), value.build(tt) if isinstance(value, P) else value)
        if "must be int, not" in expected:
            assert str(ours.value) == expected


# ---- resize_, out= of a size that cannot be counted, empty_strided on meta ------------------------------------


def _resized(lib, x, sizes, **kwargs):
    x.resize_(*sizes, **kwargs)
    return x


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("sizes", [(2, 2), (6,), (0,), (3, 1), ((2, 3),), (1, 2, 1)])
def test_resize_keeps_the_storage_and_its_elements_like_torch(layout, sizes):
    """Smaller or equal: same storage, same offset, contiguous strides, the elements where they were."""
    def fn(lib, x):
        base = x.clone() if layout == "expanded" else x      # resize_ of an expanded view writes nothing either
        before = base.untyped_storage().data_ptr()
        out = _resized(lib, base, sizes)
        assert out is base and out.untyped_storage().data_ptr() == before
        return out
    check(fn, P(np.arange(12.0).reshape(3, 4), layout), share=False)


def test_resize_to_its_own_sizes_keeps_odd_strides_like_torch():
    check(lambda lib, x: _resized(lib, x.t(), (4, 3)), rand(3, 4), share=False)
    check(lambda lib, x: _resized(lib, x.t(), (3, 4)), rand(3, 4), share=False)


@pytest.mark.parametrize("memory_format", ["channels_last", "contiguous_format"])
def test_resize_with_a_memory_format_like_torch(memory_format):
    check(lambda lib, x: _resized(lib, x, (2, 2, 2, 2), memory_format=getattr(lib, memory_format)).stride(),
          rand(2, 3, 4, 5))
    check(lambda lib, x: _resized(lib, x, (4,), memory_format=getattr(lib, memory_format)).stride(),
          rand(2, 3))


def test_resize_that_grows_copies_the_old_elements():
    """PyTorch grows the storage in place and leaves the new bytes uninitialized; teachtorch gives the tensor a
    new storage (its bytes never move) with the old bytes first and zeros after them."""
    for lib in (tt, torch):
        x = lib.arange(6.0)
        y = x[2:]
        y.resize_(3, 3)
        assert y.storage_offset() == 2 and y.stride() == (3, 1) and y.untyped_storage().nbytes() == 44
        assert y.flatten()[:4].tolist() == [2.0, 3.0, 4.0, 5.0]
    assert tt.zeros(2).resize_(4).tolist() == [0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("case", [
    lambda lib: lib.ones(2, requires_grad=True).resize_(3),
    lambda lib: lib.ones(2).resize_(-1),
    lambda lib: lib.ones(2).resize_(2 ** 40, 2 ** 40),
    lambda lib: lib.ones(2).resize_(2, memory_format=lib.channels_last),
    lambda lib: lib.ones(2).resize_as_(lib.ones(2, 3, requires_grad=True)).shape,
    lambda lib: lib.zeros(2 ** 40, 2 ** 40, out=lib.empty(0)),
    lambda lib: lib.full((2 ** 40, 2 ** 40), 1.0, out=lib.empty(0)),
    lambda lib: lib.empty_strided((2 ** 40, 2 ** 40), (1, 1), device="meta"),
    lambda lib: lib.empty_strided((2 ** 62, 4), (1, 1), device="meta"),
    lambda lib: tuple(lib.empty_strided((2, 3), (-1, 1), device="meta").stride()),
    lambda lib: lib.empty_strided((2, 3), (-5, -5), device="meta").untyped_storage().nbytes(),
    lambda lib: lib.empty_strided((2, 3), (-1, 1)),
])
def test_resize_and_size_errors_like_torch(case):
    check(lambda lib: case(lib))
