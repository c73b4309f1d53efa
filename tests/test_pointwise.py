"""Elementwise ops and Python operators (ops/pointwise*.py, ops/operators.py), checked against PyTorch.

Every op runs on every layout and on the dtypes it accepts (and the ones it refuses, whose errors must match),
functional, in-place (into permuted, sliced and offset targets) and out=; then hypothesis fuzzes shapes,
broadcasting, layouts and dtypes. Values, dtypes, shapes, strides and error messages come from torch.
"""

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import teachtorch as tt
from parity import LAYOUTS, P, assert_same, check, check_inplace, inputs, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

DTYPES = ("float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool")
FLOATS = ("float32", "float64", "float16")
TARGET_LAYOUTS = ("contiguous", "permuted", "sliced", "offset")


def _rand(shape, dtype, layout="contiguous", seed=0, low=-3, high=3):
    return rand(*shape, dtype=dtype, layout=layout, seed=seed, low=low, high=high)


def _special(dtype, layout="contiguous"):
    """Values that find the corner cases: zeros of both signs, halves, infinities and nan."""
    if dtype in FLOATS:
        v = np.array([[0.0, -0.0, 0.5, -0.5, 1.5, -2.5], [np.inf, -np.inf, np.nan, 1e-3, 3.0, -7.25]], dtype=dtype)
    elif dtype == "bool":
        v = np.array([[True, False, True], [False, False, True]])
    else:
        info = np.iinfo(dtype)
        v = np.array([[0, 1, -1, 2, info.max, info.min], [3, -3, 7, -8, info.max - 1, info.min + 1]]).astype(dtype)
    return P(v, layout)


# ---- unary ops ---------------------------------------------------------------------------------------------

UNARY = ["abs", "absolute", "sign", "sgn", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt",
         "rsqrt", "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
         "acosh", "atanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "sigmoid", "relu",
         "square", "floor", "ceil", "round", "trunc", "fix", "frac", "neg", "negative", "positive", "erf", "erfc",
         "sinc", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "nan_to_num", "signbit", "logical_not",
         "bitwise_not"]
UNARY_ALIASES = {"absolute": "abs", "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
                 "arccosh": "acosh", "arctanh": "atanh", "fix": "trunc", "negative": "neg"}
UNARY_CORE = [n for n in UNARY if n not in UNARY_ALIASES]
NO_INPLACE = {"positive", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"}
NO_OUT = {"positive", "isnan", "isinf", "isfinite", "relu"}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY_CORE)
def test_unary_dtypes(name, dtype):
    check(lambda lib, x: getattr(lib, name)(x), _special(dtype, "permuted"))
    check(lambda lib, x: getattr(x, name)(), _rand((2, 3), dtype, "sliced"))


@pytest.mark.parametrize("name", UNARY)
def test_unary_layouts(name):
    for layout in LAYOUTS:
        check(lambda lib, x: getattr(lib, name)(x), _rand((3, 4, 2), "float32", layout, seed=1))
    check(lambda lib, x: getattr(lib, name)(x), _rand((3, 4, 2), "int64", "expanded", seed=1))


@pytest.mark.parametrize("name", UNARY_CORE)
def test_unary_edge_shapes(name):
    for shape in [(), (0,), (1,), (2, 0, 3), (1, 1)]:
        check(lambda lib, x: getattr(lib, name)(x), _rand(shape, "float32", "permuted" if len(shape) > 1 else
                                                               "contiguous"))


@pytest.mark.parametrize("name", [n for n in UNARY if n not in NO_INPLACE])
def test_unary_inplace(name):
    for layout in TARGET_LAYOUTS:
        check_inplace(lambda lib, x: getattr(x, name + "_")(), _rand((3, 4), "float32", layout, seed=2))
    for dtype, layout in (("float16", "permuted"), ("int64", "sliced"), ("uint8", "offset"), ("bool", "permuted")):
        check_inplace(lambda lib, x: getattr(x, name + "_")(), _rand((3, 4), dtype, layout, seed=2))


@pytest.mark.parametrize("name", [n for n in UNARY_CORE if n not in NO_OUT])
def test_unary_out(name):
    for dtype, out_dtype in [("float32", "float32"), ("int64", "int64"), ("int64", "float64"), ("float32", "int64"),
                             ("float32", "bool"), ("bool", "float32")]:
        out = _rand((3, 4), out_dtype, "permuted")
        check(lambda lib, x, o: getattr(lib, name)(x, out=o), _rand((3, 4), dtype), out)
    # an out= tensor of another shape is resized (with torch's warning), and gets the result's strides
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda lib, x, o: getattr(lib, name)(x, out=o), _rand((3, 4), "float32", "permuted"),
              _rand((0,), "float32"))
        check(lambda lib, x, o: getattr(lib, name)(x, out=o), _rand((3, 4), "float32"), _rand((5,), "float32"))


def test_unary_no_out_variants():
    for name in NO_OUT:
        check(lambda lib, x, o: getattr(lib, name)(x, out=o), _rand((3,), "float32"), _rand((3,), "float32"),
              msg=False)


@given(inputs(dtype="float32"), st.sampled_from(UNARY))
def test_unary_fuzz(x, name):
    check(lambda lib, x: getattr(lib, name)(x), x)


@given(inputs(dtype="int32"), st.sampled_from(UNARY))
def test_unary_fuzz_int(x, name):
    check(lambda lib, x: getattr(lib, name)(x), x)


# ---- binary ops ------------------------------------------------------------------------------------------

BINARY = ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
          "remainder", "fmod", "pow", "float_power", "atan2", "arctan2", "maximum", "minimum", "fmax", "fmin",
          "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal",
          "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
          "bitwise_left_shift", "bitwise_right_shift", "copysign", "hypot", "logaddexp", "logaddexp2", "xlogy",
          "nextafter"]
BINARY_ALIASES = {"subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div", "arctan2": "atan2",
                  "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne"}
BINARY_NO_INPLACE = {"maximum", "minimum", "fmax", "fmin", "logaddexp", "logaddexp2"}
DTYPE_PAIRS = [("float32", "float32"), ("float64", "float32"), ("float16", "float16"), ("int64", "int64"),
               ("int32", "int64"), ("uint8", "int8"), ("bool", "bool"), ("bool", "int64"), ("int64", "float32"),
               ("int32", "float16")]
ROUNDING = [("div_trunc", lambda lib, x, y: lib.div(x, y, rounding_mode="trunc")),
            ("div_floor", lambda lib, x, y: lib.div(x, y, rounding_mode="floor"))]


def _binary_fn(name):
    for n, f in ROUNDING:
        if n == name:
            return f
    return lambda lib, x, y: getattr(lib, name)(x, y)


ALL_BINARY = BINARY + [n for n, _ in ROUNDING]
BINARY_CORE = [n for n in ALL_BINARY if n not in BINARY_ALIASES]


@pytest.mark.parametrize("dtypes", DTYPE_PAIRS, ids=lambda d: "-".join(d))
@pytest.mark.parametrize("name", BINARY_CORE)
def test_binary_dtypes(name, dtypes):
    a, b = dtypes
    fn = _binary_fn(name)
    check(fn, _rand((3, 4), b, seed=3), _rand((4,), a, seed=4))
    check(fn, _special(a), _special(b, "permuted"))


@pytest.mark.parametrize("alias", list(BINARY_ALIASES))
def test_binary_aliases(alias):
    for a, b in (("float32", "float32"), ("int64", "int32"), ("bool", "bool")):
        check(_binary_fn(alias), _rand((3, 4), a, "permuted", seed=1), _rand((4,), b, seed=2))
    check(lambda lib, x: getattr(lib, alias)(x, 2), _rand((3,), "int64"))
    check(lambda lib, x: getattr(lib, alias)(2, x), _rand((3,), "int64"))
    check(lambda lib, x: getattr(x, alias)(2), _rand((3,), "float32"))
    check_inplace(lambda lib, x: getattr(x, alias + "_")(2), _rand((3, 4), "float32", "permuted"))
    check(lambda lib, x, o: getattr(lib, alias)(x, 2, out=o), _rand((3,), "float32"), _rand((3,), "float32"))


@pytest.mark.parametrize("alias", list(UNARY_ALIASES))
def test_unary_aliases(alias):
    for dtype in ("float32", "int64"):
        check(lambda lib, x: getattr(lib, alias)(x), _rand((3, 4), dtype, "permuted"))
    check(lambda lib, x: getattr(x, alias)(), _rand((3,), "float32"))
    check_inplace(lambda lib, x: getattr(x, alias + "_")(), _rand((3, 4), "float32", "sliced"))
    check(lambda lib, x, o: getattr(lib, alias)(x, out=o), _rand((3,), "float32"), _rand((3,), "float32"))


@pytest.mark.parametrize("layouts", [(la, lb) for la in LAYOUTS for lb in LAYOUTS], ids=lambda d: "-".join(d))
@pytest.mark.parametrize("name", ["add", "div", "pow", "eq", "bitwise_and"])
def test_binary_layouts(name, layouts):
    la, lb = layouts
    fn = _binary_fn(name)
    dt = "int64" if name == "bitwise_and" else "float32"
    check(fn, _rand((3, 4, 2), dt, la, seed=5), _rand((3, 4, 2), dt, lb, seed=6))
    check(fn, _rand((3, 1, 2), dt, la, seed=7), _rand((4, 1), "float64" if dt == "float32" else "int32", lb, seed=8))


@pytest.mark.parametrize("name", BINARY_CORE)
def test_binary_layouts_all_ops(name):
    fn = _binary_fn(name)
    for la, lb in [("permuted", "sliced"), ("expanded", "offset"), ("sliced", "permuted")]:
        check(fn, _rand((2, 3, 4), "float32", la, seed=9), _rand((2, 3, 4), "float32", lb, seed=10))
        check(fn, _rand((2, 3, 4), "int32", la, seed=9), _rand((3, 1), "int64", lb, seed=10))


@pytest.mark.parametrize("name", BINARY_CORE)
def test_binary_edge_shapes(name):
    fn = _binary_fn(name)
    for sa, sb in [((), ()), ((), (3,)), ((2, 0), (1,)), ((0,), ()), ((1, 1), (1,)), ((2, 1, 3), (4, 1))]:
        check(fn, _rand(sa, "float32", seed=11), _rand(sb, "float32", seed=12))
    # broadcasting that fails
    check(fn, _rand((2, 3), "float32"), _rand((4,), "float32"))


@pytest.mark.parametrize("name", BINARY_CORE)
def test_binary_zero_dim_promotion(name):
    fn = _binary_fn(name)
    # a 0-dim tensor counts only when its category is higher than the dimensioned tensors'
    for a, b in [("float32", "float64"), ("int8", "int64"), ("int64", "float32"), ("float16", "float64"),
                 ("uint8", "int8"), ("bool", "int32"), ("int32", "bool")]:
        check(fn, _rand((2, 3), a, seed=13), _rand((), b, seed=14))
        check(fn, _rand((), b, seed=15), _rand((2, 3), a, seed=16))


BINARY_SCALARS = [2, -1, 0, 2.5, True, 1000]


@pytest.mark.parametrize("dtype", ("float32", "float16", "int64", "int8", "uint8", "bool"))
@pytest.mark.parametrize("name", BINARY_CORE)
def test_binary_with_python_numbers(name, dtype):
    # tensor op number and number op tensor, where torch has the overload (else the same TypeError)
    fn = _binary_fn(name)
    x = _rand((2, 3), dtype, "permuted", seed=17)
    for s in BINARY_SCALARS:
        check(fn, x, s)
        check(fn, s, x)


@pytest.mark.parametrize("layout", TARGET_LAYOUTS)
@pytest.mark.parametrize("name", [n for n in BINARY_CORE if n not in BINARY_NO_INPLACE and not n.startswith("div_")])
def test_binary_inplace(name, layout):
    for a, b in [("float32", "float64"), ("int64", "int32"), ("int64", "float32"), ("bool", "bool"),
                 ("uint8", "int64"), ("float16", "float32")]:
        check_inplace(lambda lib, x, y: getattr(x, name + "_")(y), _rand((3, 4), a, layout, seed=18),
                      _rand((4,), b, seed=19))
        check_inplace(lambda lib, x: getattr(x, name + "_")(2), _rand((3, 4), a, layout, seed=20))
    # the target does not broadcast
    check_inplace(lambda lib, x, y: getattr(x, name + "_")(y), _rand((4,), "float32", layout),
                  _rand((3, 4), "float32"))


@pytest.mark.parametrize("layout", TARGET_LAYOUTS)
@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_div_rounding_inplace(mode, layout):
    for a, b in [("float32", "float32"), ("int64", "int64"), ("int64", "float32"), ("int32", "int32")]:
        check_inplace(lambda lib, x, y: x.div_(y, rounding_mode=mode), _rand((3, 4), a, layout, seed=21, low=1),
                      _rand((4,), b, seed=22, low=1))


@pytest.mark.parametrize("name", BINARY_CORE)
def test_binary_out(name):
    fn = _binary_fn(name)

    def with_out(lib, x, y, o):
        if name.startswith("div_"):
            return lib.div(x, y, rounding_mode=name[4:], out=o)
        return getattr(lib, name)(x, y, out=o)

    for a, b, o in [("float32", "float32", "float32"), ("int64", "int64", "int64"), ("int64", "int64", "float64"),
                    ("float32", "float32", "int64"), ("int32", "float32", "bool"), ("bool", "bool", "bool")]:
        check(with_out, _rand((3, 4), a, seed=23), _rand((4,), b, seed=24), _rand((3, 4), o, "permuted"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(with_out, _rand((3, 4), "float32", "permuted"), _rand((3, 4), "float32", "permuted"),
              _rand((0,), "float32"))
        check(with_out, _rand((3, 4), "float32"), _rand((1, 4), "float32"), _rand((2,), "float32"))
    del fn


@st.composite
def broadcast_pair(draw, dtypes=("float32",)):
    """Two inputs with broadcast-compatible random shapes, independent layouts and dtypes."""
    shape = draw(st.lists(st.integers(0, 4), min_size=0, max_size=4))
    cut = draw(st.integers(0, len(shape)))
    other = [1 if draw(st.booleans()) else s for s in shape[cut:]]
    first = [1 if draw(st.integers(0, 3)) == 0 else s for s in shape]
    a = draw(inputs(shape=tuple(first), dtype=draw(st.sampled_from(dtypes))))
    b = draw(inputs(shape=tuple(other), dtype=draw(st.sampled_from(dtypes))))
    return (a, b) if draw(st.booleans()) else (b, a)


@given(broadcast_pair(), st.sampled_from(ALL_BINARY))
def test_binary_broadcast_fuzz(pair, name):
    check(_binary_fn(name), *pair)


@given(broadcast_pair(("int64", "int32", "uint8", "bool", "float32", "float16")),
       st.sampled_from(["add", "mul", "sub", "div", "floor_divide", "remainder", "eq", "lt", "maximum",
                        "bitwise_xor", "logical_or", "pow", "where"]))
def test_binary_broadcast_fuzz_dtypes(pair, name):
    if name == "where":
        check(lambda lib, x, y: lib.where(x > 0, x, y), *pair)
    else:
        check(_binary_fn(name), *pair)


@given(broadcast_pair(), st.sampled_from(["add_", "mul_", "sub_", "div_", "pow_", "atan2_", "lt_", "clamp_"]))
def test_binary_inplace_fuzz(pair, name):
    a, b = pair
    if a.layout == "expanded":
        a = P(a.values, "permuted", seed=a.seed)
    check_inplace(lambda lib, x, y: getattr(x, name)(y), a, b)


# ---- Python operators -------------------------------------------------------------------------------------

OPERATORS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": lambda a, b: a ** b, "&": lambda a, b: a & b,
    "|": lambda a, b: a | b, "^": lambda a, b: a ^ b, "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def _iop(op):
    def f(a, b):
        if op == "+":
            a += b
        elif op == "-":
            a -= b
        elif op == "*":
            a *= b
        elif op == "/":
            a /= b
        elif op == "//":
            a //= b
        elif op == "%":
            a %= b
        elif op == "**":
            a **= b
        elif op == "&":
            a &= b
        elif op == "|":
            a |= b
        elif op == "^":
            a ^= b
        elif op == "<<":
            a <<= b
        elif op == ">>":
            a >>= b
        return a
    return f


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("int64", "int64"), ("int32", "float64"),
                                    ("bool", "bool"), ("uint8", "int8")],
                         ids=lambda d: "-".join(d))
@pytest.mark.parametrize("op", list(OPERATORS))
def test_operators(op, dtypes):
    f = OPERATORS[op]
    a, b = dtypes
    check(lambda lib, x, y: f(x, y), _rand((3, 4), a, "permuted", seed=25), _rand((4,), b, "sliced", seed=26))
    for s in (2, 2.5, True, -1):
        check(lambda lib, x: f(x, s), _rand((3, 4), a, "sliced", seed=27))
        check(lambda lib, x: f(s, x), _rand((3, 4), a, "sliced", seed=27))   # reflected: 2 / x, 2 ** x


@pytest.mark.parametrize("layout", TARGET_LAYOUTS)
@pytest.mark.parametrize("op", [o for o in OPERATORS if o not in ("==", "!=", "<", "<=", ">", ">=")])
def test_inplace_operators(op, layout):
    f = _iop(op)
    for a, b in [("float32", "float32"), ("int64", "int64"), ("int64", "float32"), ("bool", "bool"),
                 ("int32", "int64"), ("float64", "int32")]:
        check_inplace(lambda lib, x, y: f(x, y), _rand((3, 4), a, layout, seed=28, low=1), _rand((4,), b, seed=29,
                                                                                                  low=1))
        check_inplace(lambda lib, x: f(x, 2), _rand((3, 4), a, layout, seed=30))


def test_inplace_operator_returns_the_same_object():
    x = tt.ones(3, 4).t()
    y = x
    x += 1
    x *= tt.full((4, 1), 2.0)
    x /= 2
    x **= 2
    x -= 1
    assert x is y and x.stride() == (1, 4)
    assert x._version == 5
    n = tt.arange(6).view(2, 3)[:, ::2]
    m = n
    n //= 2
    n %= 2
    n <<= 1
    n >>= 1
    n &= 1
    n |= 2
    n ^= 1
    assert n is m


@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_operators(dtype):
    for f in (lambda x: -x, lambda x: +x, lambda x: abs(x), lambda x: ~x):
        for layout in ("contiguous", "permuted", "sliced"):
            check(lambda lib, x: f(x), _rand((3, 4), dtype, layout))
    x = tt.ones(3, dtype=tt._dtype._lookup(dtype))
    if dtype != "bool":
        assert (+x) is x and tt.positive(x) is x


@pytest.mark.cpu_only("a NumPy array operand becomes a cpu tensor")
def test_operators_with_other_types():
    x = tt.arange(3)
    assert (x == None) is False and (x != None) is True  # noqa: E711
    assert (x == "a") is False
    for f in (lambda: x + None, lambda: x < None, lambda: x + "a", lambda: None - x, lambda: x / [1]):
        with pytest.raises(TypeError):
            f()
    # NumPy scalars are Python numbers; a NumPy array is refused by the operator, so NumPy computes (as with torch)
    check(lambda lib, x: x + np.float64(2.5), _rand((3,), "int64"))
    check(lambda lib, x: x * np.int32(2), _rand((3,), "int8"))
    check(lambda lib, x: np.float64(2.5) + x, _rand((3,), "int64"))
    check(lambda lib, x: x + np.ones(3), _rand((3,), "int64"))
    check(lambda lib, x: x == np.ones(3), _rand((3,), "float32"))


class _NotATensor:
    pass


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.add(x, np.ones(3)), lambda lib, x: x.add(np.ones(3)), lambda lib, x: lib.maximum(x, np.ones(3)),
    lambda lib, x: lib.mm(x.reshape(3, 1), np.ones((1, 3))), lambda lib, x: x.reshape(3, 1).mm(np.ones((1, 3))),
    lambda lib, x: lib.mm(x.reshape(3, 1), np.float64(2.0)), lambda lib, x: lib.dot(x, _NotATensor()),
    lambda lib, x: lib.addmm(x, x.reshape(3, 1), [1.0]), lambda lib, x: lib.inner(x, 2),
    lambda lib, x: lib.maximum(x, _NotATensor()),
])
def test_functions_refuse_what_is_not_a_tensor(call):
    """The binding (ops/binding.py) turns NumPy scalars into numbers where a number may go, but a NumPy array
    given to a function or method is a TypeError, as in PyTorch (only the operators convert arrays); the
    message names the argument, its position, and the type as CPython's tp_name does (`_NotATensor`, not
    `test_pointwise._NotATensor`; `numpy.ndarray`)."""
    check(call, _rand((3,), "float32"))


def test_operator_errors():
    check(lambda lib, x: ~x, _rand((3,), "float32"))
    check(lambda lib, x: x ** -1, _rand((3,), "int64"))
    check(lambda lib, x: x ** -1.0, _rand((3,), "int64", low=1))
    check(lambda lib, x, y: x - y, _rand((3,), "bool"), _rand((3,), "bool"))
    check(lambda lib, x: x - True, _rand((3,), "int64"))
    check(lambda lib, x: 1 - x, _rand((3,), "bool"))
    check(lambda lib, x: -x, _rand((3,), "bool"))
    check(lambda lib, x: +x, _rand((3,), "bool"))
    check(lambda lib, x: x // 0, _rand((3,), "int64"))
    check(lambda lib, x: x % 0, _rand((3,), "int32"))
    check(lambda lib, x: 1.0 // x, _rand((3,), "float32"))
    check(lambda lib, x: x & 1.5, _rand((3,), "int64"))
    check(lambda lib, x: x << 1, _rand((3,), "float32"))
    check_inplace(lambda lib, x: x.__itruediv__(2), _rand((3,), "int64"))
    check_inplace(lambda lib, x: x.__iadd__(2.5), _rand((3,), "int64"))
    check_inplace(lambda lib, x: x.__ipow__(-1), _rand((3,), "int64"))
    check_inplace(lambda lib, x: x.__iand__(1), _rand((3,), "bool"))


# ---- promotion with Python numbers and 0-dim tensors --------------------------------------------------------


def test_type_promotion_with_numbers():
    for dtype in DTYPES:
        for s in (2, 2.5, True, 1000, -1, 2 ** 40, 1e10, -0.0):
            check(lambda lib, x: x + s, _rand((2, 3), dtype))
            check(lambda lib, x: x * s, _rand((2, 3), dtype))
            check(lambda lib, x: lib.maximum(x, lib.tensor(s)), _rand((2, 3), dtype))
    check(lambda lib: lib.add(2, 3))
    check(lambda lib: lib.add(2, 3.5))
    check(lambda lib: lib.mul(True, 2))
    check(lambda lib: lib.sub(True, True))
    check(lambda lib: lib.div(7, 2))
    check(lambda lib: lib.floor_divide(7, 2))


def test_integer_overflow_wraps():
    for dtype in ("int8", "uint8", "int16", "int32", "int64"):
        x = _special(dtype)
        for f in (lambda lib, x: x + x, lambda lib, x: x * x, lambda lib, x: x - 1, lambda lib, x: -x,
                  lambda lib, x: lib.abs(x), lambda lib, x: x * 3, lambda lib, x: x ** 3, lambda lib, x: x ** 7,
                  lambda lib, x: lib.square(x), lambda lib, x: x << 3, lambda lib, x: x >> 1,
                  lambda lib, x: x + 0 if str(x.dtype).endswith("uint8") else
                  lib.pow(x, lib.tensor([[-1], [-2]], dtype=x.dtype))):
            with warnings.catch_warnings():
                warnings.simplefilter("error")   # NumPy's overflow warnings must not leak out
                check(f, x)


def test_float16_converts_inputs_first():
    # inputs are converted to the common dtype float16 before the float32 arithmetic...
    big = P(np.array([70000, 65519, 65520, -70000, 3], dtype="int32"))
    half = P(np.array([1.0, 1.0, 1.0, 1.0, 0.5], dtype="float16"))
    for f in (lambda lib, x, y: x + y, lambda lib, x, y: lib.remainder(x, y), lambda lib, x, y: x == y,
              lambda lib, x, y: lib.maximum(x, y), lambda lib, x, y: lib.atan2(x, y)):
        check(f, big, half)
    check(lambda lib, x, y: lib.remainder(x, y), P(np.array(2.8217, "float32")), P(np.array([1.4109], "float16")))
    check(lambda lib, x: x == 0.1, P(np.array([0.1, 0.2], "float16")))
    check(lambda lib, x: lib.remainder(x, 0.1), P(np.array([0.3, 1.0], "float16")))
    # ... except a number after the first operand of add, sub, mul, div and lerp, used as it is
    check(lambda lib, x: x * 70000, P(np.array([0.5, 1e-3], "float16")))
    check(lambda lib, x: x / 0.1, P(np.array([0.3, 1.0], "float16")))
    check(lambda lib, x: lib.lerp(x, x + 1, 70000.0), P(np.array([0.5, 1e-3], "float16")))


def test_float16_computes_in_float32():
    check(lambda lib, x, y: x + y, _rand((4,), "float16"), _rand((4,), "float16", seed=1))
    check(lambda lib, x: x + 0.1, P(np.array([1000.0, 2048.0, 0.1], dtype="float16")))
    check(lambda lib, x: lib.add(x, x, alpha=0.3), P(np.array([1000.0, 2048.0, 0.1], dtype="float16")))
    check(lambda lib, x: x * 1e5, P(np.array([1.0, 0.5], dtype="float16")))   # inf in float16


# ---- division, remainder, powers --------------------------------------------------------------------------


def test_division_semantics():
    a = P(np.array([-7, -6, -1, 0, 1, 5, 7], dtype="int64"))
    b = P(np.array([2, -2, 3, -3, 2, -4, -1], dtype="int64"))
    fa = P(np.array([-7.5, -6.0, -1.0, 0.0, 1.0, 5.5, np.inf, np.nan, -0.0], dtype="float32"))
    fb = P(np.array([2.0, -2.0, 0.0, -0.0, np.inf, -4.0, 2.0, 1.0, -3.0], dtype="float32"))
    for f in (lambda lib, x, y: lib.div(x, y), lambda lib, x, y: lib.div(x, y, rounding_mode="trunc"),
              lambda lib, x, y: lib.div(x, y, rounding_mode="floor"), lambda lib, x, y: lib.floor_divide(x, y),
              lambda lib, x, y: lib.remainder(x, y), lambda lib, x, y: lib.fmod(x, y),
              lambda lib, x, y: lib.true_divide(x, y), lambda lib, x, y: lib.divide(x, y, rounding_mode="floor"),
              lambda lib, x, y: x.div(y, rounding_mode="trunc"), lambda lib, x, y: x.divide(y)):
        check(f, a, b)
        check(f, fa, fb)
        check(f, b, 3)
        check(f, -5, b)
        check(f, fa, -2.5)


def test_division_errors():
    x = _rand((3,), "int64")
    for mode in ("trunc", "floor"):
        check(lambda lib, x: lib.div(x, 0, rounding_mode=mode), x)
        check(lambda lib, x, y: lib.div(x, y, rounding_mode=mode), x, P(np.array([1, 0, 2])))
        check(lambda lib, x, y: lib.div(x, y, rounding_mode=mode), _rand((3,), "bool"), _rand((3,), "bool"))
    check(lambda lib, x: lib.div(x, 2, rounding_mode="bad"), x)
    check(lambda lib, x: lib.remainder(x, 0), x)
    check(lambda lib, x: lib.fmod(x, 0), x)
    check(lambda lib, x: lib.floor_divide(x, 0), x)
    check(lambda lib, x: lib.remainder(2, x), P(np.array([1, 0])))
    check(lambda lib, x: lib.fmod(2, x), x, msg=False)              # no (Number, Tensor) overload
    check(lambda lib, x: lib.div(x, 0), x)                          # true division: inf and nan
    check(lambda lib, x: lib.div(x, 0.0, rounding_mode="floor"), _rand((3,), "float32"))
    check_inplace(lambda lib, x: x.div_(2), _rand((3,), "int64"))
    check_inplace(lambda lib, x: x.true_divide_(2), _rand((3,), "int32"))
    check_inplace(lambda lib, x: x.div_(0, rounding_mode="trunc"), _rand((3,), "int64"))


def test_pow_semantics():
    base = P(np.array([2, -1, 1, 0, -2, 3, 0], dtype="int64"))
    exp = P(np.array([-1, -3, -5, -1, 3, 0, 0], dtype="int64"))
    check(lambda lib, x, y: lib.pow(x, y), base, exp)
    check(lambda lib, x, y: x ** y, base, exp)
    check(lambda lib, x: lib.pow(2, x), exp)
    check(lambda lib, x: 2 ** x, exp)
    check(lambda lib, x: 2.5 ** x, exp)
    check(lambda lib, x: lib.pow(x, -1), base)
    check(lambda lib, x: lib.pow(x, -1), _rand((3,), "bool"))
    check(lambda lib, x: lib.pow(x, -2.0), base)
    check(lambda lib, x: lib.pow(x, lib.tensor(-1)), base)
    check(lambda lib, x: lib.pow(x, x), _rand((3,), "bool"))
    check(lambda lib, x: lib.pow(x, True), _rand((3,), "bool"))
    check(lambda lib, x: lib.pow(x, False), _rand((3,), "bool"))
    check(lambda lib, x: lib.pow(x, 2), _rand((3,), "bool"))
    check(lambda lib, x: lib.pow(True, x), _rand((3,), "bool"))
    check(lambda lib, x: lib.pow(x, 0.5), _rand((3, 2), "float32"))
    check(lambda lib, x: lib.pow(x, 3), P(np.array([3, 100, -7], dtype="int8")))
    check(lambda lib, x: lib.pow(x, 2), _rand((3,), "float16"))
    check(lambda lib, x: lib.pow(3, x), _rand((3,), "float16"))
    check(lambda lib: lib.pow(2, 3), msg=False)
    # x ** 0.5 with a number exponent is sqrt(x) for float32 and float64, which differs from pow at -0.0 and -inf
    special = P(np.array([0.0, -0.0, 0.5, -1.5, np.inf, -np.inf, np.nan, 4.0], dtype="float32"))
    for dtype in FLOATS:
        x = P(special.values.astype(dtype), "sliced")
        for e in (0.5, -0.5, 2, 3, -1, -2, 0.1, 1.5, 0, np.inf, -np.inf):
            check(lambda lib, x: lib.pow(x, e), x)
            check(lambda lib, x: lib.pow(x, lib.tensor(e)), x)
            check(lambda lib, x: lib.pow(e, x), x)
            check(lambda lib, x: lib.float_power(x, e), x)
        check(lambda lib, x: lib.pow(x, lib.full((8,), 0.5, dtype=x.dtype)), x)
    for e in (1000, 300, 70000, 2 ** 40, 1e10):
        for dtype in ("int8", "uint8", "int16", "float16", "int32"):
            check(lambda lib, x: lib.pow(x, e), _rand((3,), dtype, low=0, high=1))
    check_inplace(lambda lib, x: x.pow_(-1), _rand((3,), "int64"))
    check_inplace(lambda lib, x: x.pow_(0.5), _rand((3,), "int64"))


def test_float_power():
    for a, b in [("float32", "float32"), ("int64", "int64"), ("bool", "bool"), ("float16", "int32")]:
        check(lambda lib, x, y: lib.float_power(x, y), _rand((2, 3), a, "permuted"), _rand((3,), b))
        check(lambda lib, x: lib.float_power(x, 2), _rand((2, 3), a))
        check(lambda lib, x: lib.float_power(2, x), _rand((2, 3), a))
        check(lambda lib, x: lib.float_power(x, -1), _rand((2, 3), a))
    for dtype in ("float32", "float64", "int64"):
        check_inplace(lambda lib, x: x.float_power_(2), _rand((3, 2), dtype, "permuted"))
        check(lambda lib, x, o: lib.float_power(x, 2, out=o), _rand((3,), "float32"), _rand((3,), dtype))


# ---- rounding and friends ---------------------------------------------------------------------------------


def test_round_decimals():
    x = P(np.array([1.25, 1.35, 12345.6789, -2.5, 0.5, 1234.5, -0.15, np.nan, np.inf], dtype="float32"))
    for d in (0, 1, 2, -1, -2, 3):
        check(lambda lib, x: lib.round(x, decimals=d), x)
        check(lambda lib, x: x.round(decimals=d), x)
        check_inplace(lambda lib, x: x.round_(decimals=d), P(x.values, "sliced"))
    check(lambda lib, x: lib.round(x, decimals=1), P(x.values.astype("float64")))
    check(lambda lib, x: lib.round(x, decimals=2), _rand((4,), "float16"), atol=1e-2)
    for dtype in ("int64", "bool", "uint8"):
        for d in (0, 1):
            check(lambda lib, x: lib.round(x, decimals=d), _rand((3,), dtype))
    check(lambda lib, x, o: lib.round(x, decimals=1, out=o), x, _rand((9,), "float32"))


def test_sign_of_special_values():
    for name in ("sign", "sgn", "signbit", "abs", "frac", "trunc", "isposinf", "isneginf", "nan_to_num", "relu"):
        for dtype in DTYPES:
            check(lambda lib, x: getattr(lib, name)(x), _special(dtype))
    check(lambda lib, x: lib.signbit(x), P(np.array([-0.0, 0.0, -np.nan, np.nan, -1.0])))


def test_threshold_backward_selects_exactly():
    """ReLU's backward keeps g's own bits where a > threshold (NaN, inf, -0.0 included) and writes +0.0
    elsewhere; a NaN in `a` keeps g (NaN <= t is false). Every dtype of the kernel, every layout."""
    for dtype in ("float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8"):
        for threshold in (0, 2):
            check(lambda lib, g, a: lib.ops.aten.threshold_backward(g, a, threshold),
                  _special(dtype, "permuted"), _special(dtype))
    for layout in LAYOUTS:
        check(lambda lib, g, a: lib.ops.aten.threshold_backward(g, a, 0.5),
              _rand((4, 6), "float32", layout, seed=1), _rand((4, 6), "float32", "permuted", seed=2))
    check(lambda lib, g, a: lib.ops.aten.threshold_backward(g, a, 0.0),       # broadcast
          _special("float32"), P(np.array([0.0, -1.0, 2.0, np.nan, -0.0, 1.0], dtype="float32")))


def test_nan_to_num():
    v = P(np.array([np.nan, np.inf, -np.inf, 1.5, -0.0], dtype="float32"))
    for dtype in FLOATS:
        x = P(v.values.astype(dtype), "sliced")
        check(lambda lib, x: lib.nan_to_num(x), x)
        check(lambda lib, x: lib.nan_to_num(x, nan=1.0, posinf=2.5, neginf=-7), x)
        check(lambda lib, x: lib.nan_to_num(x, posinf=1e10), x)
        check(lambda lib, x: x.nan_to_num(nan=1e40), x)
        check_inplace(lambda lib, x: x.nan_to_num_(neginf=0.0), P(v.values.astype(dtype), "permuted"))
    check(lambda lib, x: lib.nan_to_num(x, nan=1.5), _rand((3,), "int64"))


# ---- functions of two tensors without number overloads ------------------------------------------------------


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "atan2", "hypot", "logaddexp", "logical_and",
                                  "logical_or", "logical_xor", "nextafter", "isclose", "equal"])
def test_tensor_only_arguments(name):
    x = _rand((3,), "float32")
    check(lambda lib, x: getattr(lib, name)(x, 2), x)
    check(lambda lib, x: getattr(lib, name)(2, x), x)
    check(lambda lib, x: getattr(lib, name)(x, other=2), x)
    check(lambda lib, x: getattr(x, name)(2), x)


def test_nan_propagation_of_maximum_and_fmax():
    a = P(np.array([np.nan, 1.0, np.nan, -0.0, 2.0], dtype="float32"))
    b = P(np.array([2.0, np.nan, np.nan, 0.0, 2.0], dtype="float32"))
    for name in ("maximum", "minimum", "fmax", "fmin"):
        check(lambda lib, x, y: getattr(lib, name)(x, y), a, b)


def test_copysign_xlogy_logaddexp():
    x = _special("float32")
    y = _special("float32", "permuted")
    for name in ("copysign", "xlogy", "logaddexp", "logaddexp2", "hypot", "atan2", "nextafter"):
        check(lambda lib, a, b: getattr(lib, name)(a, b), x, y)
    check(lambda lib, a: lib.copysign(a, -0.0), x)
    check(lambda lib, a: lib.xlogy(2, a), x)
    check(lambda lib, a: lib.xlogy(a, 2), x)
    check(lambda lib, a: lib.xlogy(a, a), _rand((3,), "int64"))
    check(lambda lib, a: lib.nextafter(a, a * 2), _rand((3,), "float16"))


# ---- clamp ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_clamp(dtype, layout):
    x = _rand((3, 4), dtype, layout)
    for lo, hi in [(0, 1), (-1, None), (None, 2), (1.5, None), (None, 0.5), (2, 1), (-0.5, 0.5), (True, None)]:
        check(lambda lib, x: lib.clamp(x, lo, hi), x)
        check(lambda lib, x: lib.clip(x, min=lo, max=hi), x)
        check(lambda lib, x: x.clamp(lo, hi), x)
    check(lambda lib, x, lo: lib.clamp(x, lo), x, _rand((4,), "float32", "sliced", seed=3))
    check(lambda lib, x, lo, hi: lib.clamp(x, lo, hi), x, _rand((3, 1), "int64", seed=3), _rand((4,), dtype, seed=4))
    check(lambda lib, x, hi: lib.clamp(x, max=hi), x, _rand((), "float64", seed=3))
    check(lambda lib, x: lib.clamp_min(x, 1), x)
    check(lambda lib, x: lib.clamp_max(x, 0.5), x)
    check(lambda lib, x, t: lib.clamp_min(x, t), x, _rand((4,), dtype, seed=5))
    check(lambda lib, x, t: x.clamp_max(t), x, _rand((4,), "float32", seed=5))


@pytest.mark.parametrize("layout", TARGET_LAYOUTS)
def test_clamp_inplace(layout):
    for dtype in ("float32", "int64", "bool", "uint8", "float16"):
        x = _rand((3, 4), dtype, layout, seed=6)
        for lo, hi in [(0, 1), (-1, None), (None, 2), (1.5, None), (None, 0.5)]:
            check_inplace(lambda lib, x: x.clamp_(lo, hi), x)
            check_inplace(lambda lib, x: x.clip_(lo, hi), x)
        check_inplace(lambda lib, x: x.clamp_min_(1.5), x)
        check_inplace(lambda lib, x: x.clamp_max_(1), x)
        check_inplace(lambda lib, x, t: x.clamp_(t), x, _rand((4,), "float32", seed=7))
        check_inplace(lambda lib, x, t: x.clamp_min_(t), x, _rand((), "float32", seed=7))
        check_inplace(lambda lib, x, t, u: x.clamp_(t, u), x, _rand((4,), dtype, seed=7), _rand((3, 1), dtype))


def test_clamp_errors_and_nan():
    x = _rand((3,), "int64")
    check(lambda lib, x: lib.clamp(x), x)
    check(lambda lib, x: lib.clamp(x, None, None), x)
    check(lambda lib, x: x.clamp(), x)
    check(lambda lib, x, t: lib.clamp(x, t, 2), x, _rand((3,), "int64"))
    check(lambda lib, x: lib.clamp(x, 1000), _rand((3,), "int8"))
    check(lambda lib, x: lib.clamp(x, 100, 200), _rand((3,), "int8"))
    check(lambda lib, x: lib.clamp_min(x, 1000), _rand((3,), "int8"))
    check(lambda lib, x: lib.clamp(x, -1), _rand((3,), "uint8"))
    check(lambda lib, x: lib.clamp(x, 1e10), _rand((3,), "float16"))
    check(lambda lib, x: lib.clamp(x, 1e40), _rand((3,), "float32"))
    check(lambda lib, x: lib.clamp(x, float("nan")), _rand((3,), "float32"))
    check(lambda lib, x: lib.clamp(x, 70000, float("nan")), _rand((3,), "float16"))
    check(lambda lib, x: lib.clamp(x, 70000, 1), _rand((3,), "float16"))
    check(lambda lib, x: lib.clamp(x, 0, 1), _special("float32"))
    check(lambda lib, x, t: lib.clamp(x, t), _rand((3,), "float32"), P(np.array([np.nan, 0.0, 0.0], "float32")))
    for o in ("int64", "float32", "float64"):
        check(lambda lib, x, o: lib.clamp(x, 1, out=o), x, _rand((3,), o))
        check(lambda lib, x, o: lib.clamp(x, 0.5, out=o), x, _rand((3,), o))
        check(lambda lib, x, o: lib.clamp_min(x, 1.5, out=o), x, _rand((3,), o))
        check(lambda lib, x, t, o: lib.clamp(x, t, out=o), x, P(np.array(1.5, "float32")), _rand((3,), o))


# ---- where, lerp, addcmul, addcdiv -----------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_where(layout):
    c = _rand((3, 4), "bool", layout, seed=1)
    for a, b in [("float32", "float32"), ("int64", "float32"), ("int8", "uint8"), ("bool", "bool"),
                 ("float16", "float64")]:
        x = _rand((3, 4), a, "permuted", seed=2)
        y = _rand((4,), b, layout, seed=3)
        check(lambda lib, c, x, y: lib.where(c, x, y), c, x, y)
        check(lambda lib, c, x, y: x.where(c, y), c, x, y)
        check(lambda lib, c, x, y: lib.where(c, y, x), c, x, y)
        for s in (1, 2.5, True, -1, 1000):
            check(lambda lib, c, x: lib.where(c, x, s), c, x)
            check(lambda lib, c, x: lib.where(c, s, x), c, x)
        check(lambda lib, c, x, y, o: lib.where(c, x, y, out=o), c, x, y, _rand((3, 4), "float64", "permuted"))
    for s, t in [(1, 2), (1, 2.0), (True, False), (True, 2), (1.5, 2.5)]:
        check(lambda lib, c: lib.where(c, s, t), c)
    check(lambda lib, c, x: lib.where(c, x, 0.5), _rand((3, 1, 4), "bool", layout, seed=4), _rand((5, 1), "float32"))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("shape", [(), (3,)], ids=["0-d", "1-d"])
def test_where_with_a_number_keeps_the_tensors_dtype(dtype, shape):
    """A number promotes as a wrapped number, also against a 0-d tensor: `where(c, f32_scalar, 0.0)` is
    float32 (PyTorch's wrapped number ranks below a 0-d tensor; a float64 0-d stand-in would not)."""
    c = _rand(shape, "bool", seed=1)
    x = _rand(shape, dtype, seed=2)
    for s in (True, 3, -1, 0.5):
        check(lambda lib, c, x: lib.where(c, x, s), c, x)
        check(lambda lib, c, x: lib.where(c, s, x), c, x)


def test_where_errors():
    c = _rand((3,), "bool")
    check(lambda lib, x: lib.where(x, 1, 2), _rand((3,), "int64"))
    check(lambda lib, x: lib.where(x, 1, 2), _rand((3,), "float32"))
    check(lambda lib, x: lib.where(x, 1, 2), _rand((3,), "uint8"))
    check(lambda lib, c, x: lib.where(c, x, 1000), c, _rand((3,), "int8"))
    check(lambda lib, c, x: lib.where(c, 1000, x), c, _rand((3,), "int8"))
    check(lambda lib, c, x: lib.where(c, x, -1), c, _rand((3,), "uint8"))
    check(lambda lib, c, x: lib.where(c, x, 1e300), c, _rand((3,), "float32"))
    check(lambda lib, c, x: lib.where(c, x, 1e300), c, _rand((3,), "float16"))
    check(lambda lib, c, x: lib.where(c, x, x[:2]), c, _rand((3,), "float32"))


def test_where_one_argument():
    if not hasattr(tt, "nonzero"):
        pytest.skip("teachtorch.nonzero is not written yet")
    check(lambda lib, c: lib.where(c), _rand((3, 4), "bool", "permuted"))


def test_lerp():
    for layout in LAYOUTS:
        for dtype in FLOATS:
            s, e = _rand((3, 4), dtype, layout, seed=1), _rand((4,), dtype, seed=2)
            for w in (0.0, 0.25, 0.5, 0.75, 1.0, -1.5, 2, True):
                check(lambda lib, s, e: lib.lerp(s, e, w), s, e)
            check(lambda lib, s, e, w: lib.lerp(s, e, w), s, e, _rand((3, 1), dtype, "sliced", seed=3, low=0, high=1))
            check(lambda lib, s, e, w: s.lerp(e, w), s, e, _rand((), "float64", seed=3))
    x = _rand((3,), "float32")
    check(lambda lib, x: lib.lerp(x, x.double(), 0.5), x)
    for dtype in ("int64", "bool", "uint8"):
        check(lambda lib, x: lib.lerp(x, x, 0.5), _rand((3,), dtype))
        check(lambda lib, x: lib.lerp(x, x, x), _rand((3,), dtype))
    check(lambda lib, x, e: lib.lerp(x, e, 0.5), x, _rand((3,), "int64"))
    check(lambda lib, x, w: lib.lerp(x, x, w), x, _rand((3,), "float16"))
    check(lambda lib, x, w: lib.lerp(x, x, w), x, _rand((), "float16"))
    check(lambda lib, x: lib.lerp(x, 2, 0.5), x, msg=False)
    for layout in TARGET_LAYOUTS:
        check_inplace(lambda lib, s, e: s.lerp_(e, 0.3), _rand((3, 4), "float32", layout), _rand((4,), "float32"))
        check_inplace(lambda lib, s, e, w: s.lerp_(e, w), _rand((3, 4), "float64", layout), _rand((4,), "float64"),
                      _rand((3, 1), "float64"))
    check(lambda lib, s, o: lib.lerp(s, s, 0.5, out=o), x, _rand((3,), "float64"))
    check(lambda lib, s, o: lib.lerp(s, s, 0.5, out=o), x, _rand((3,), "int64"))


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv(name):
    for layout in LAYOUTS:
        for dtypes in [("float32",) * 3, ("float64", "float32", "float32"), ("int64",) * 3, ("int64", "float32", "int64"),
                       ("float16",) * 3, ("bool",) * 3, ("bool", "float32", "float32"), ("uint8", "int8", "uint8")]:
            a = _rand((3, 4), dtypes[0], layout, seed=1)
            b = _rand((4,), dtypes[1], seed=2, low=1)
            c = _rand((3, 1), dtypes[2], "sliced", seed=3, low=1)
            for v in (1, 2, 0.5, -1, True, 1000, 1e300):
                check(lambda lib, a, b, c: getattr(lib, name)(a, b, c, value=v), a, b, c)
    for layout in TARGET_LAYOUTS:
        check_inplace(lambda lib, a, b, c: getattr(a, name + "_")(b, c, value=2), _rand((3, 4), "float32", layout),
                      _rand((4,), "float32", low=1), _rand((3, 1), "float32", low=1))
        check_inplace(lambda lib, a, b, c: getattr(a, name + "_")(b, c), _rand((3, 4), "int64", layout),
                      _rand((4,), "float32", low=1), _rand((3, 1), "float32", low=1))
    check(lambda lib, a, o: getattr(lib, name)(a, a, a, value=2, out=o), _rand((3,), "int64", low=1),
          _rand((3,), "float32"))
    check(lambda lib, a: getattr(lib, name)(a, 2, a), _rand((3,), "float32"), msg=False)


# ---- comparisons, equal, isclose ----------------------------------------------------------------------------


def test_comparisons_wrap_numbers_into_the_dtype():
    for s in (1000, -1, 2.5, 255, 300, True, float("nan"), float("inf")):
        for name in ("eq", "ne", "lt", "le", "gt", "ge"):
            check(lambda lib, x: getattr(lib, name)(x, s), _special("int8"))
            check(lambda lib, x: getattr(lib, name)(x, s), _special("uint8"))
            check(lambda lib, x: getattr(x, name)(s), _special("float16"))
    check(lambda lib, x: lib.eq(2, x), _rand((3,), "int64"), msg=False)


def test_comparison_inplace_keeps_dtype():
    for dtype in DTYPES:
        for layout in TARGET_LAYOUTS:
            check_inplace(lambda lib, x, y: x.lt_(y), _rand((3, 4), dtype, layout), _rand((4,), "float32", seed=1))
            check_inplace(lambda lib, x: x.eq_(1), _rand((3, 4), dtype, layout))
            check_inplace(lambda lib, x: x.greater_equal_(0.5), _rand((3, 4), dtype, layout))


def test_equal():
    for a, b in [("float32", "float32"), ("int64", "float32"), ("bool", "int64"), ("float16", "float64")]:
        x = _rand((3, 4), a)
        check(lambda lib, x, y: lib.equal(x, y), x, P(x.values.astype(b), "permuted"))
        check(lambda lib, x, y: x.equal(y), x, _rand((3, 4), b, seed=1))
    check(lambda lib, x: lib.equal(x, x[:2]), _rand((3,), "float32"))
    check(lambda lib, x: lib.equal(x, x), _special("float32"))        # nan is not equal to itself
    check(lambda lib, x, y: lib.equal(x, y), _rand((0,), "float32"), _rand((0,), "int64"))
    check(lambda lib, x, y: lib.equal(x, y), _rand((1, 3), "float32"), _rand((3,), "float32"))


def test_isclose_allclose():
    a = P(np.array([1.0, 1.00001, np.nan, np.inf, -np.inf, 1e-9, 0.0, 100.0], dtype="float32"))
    b = P(np.array([1.0, 1.0, np.nan, np.inf, np.inf, 0.0, 1e-7, 100.001], dtype="float32"), "sliced")
    for kw in ({}, {"equal_nan": True}, {"rtol": 0, "atol": 0}, {"rtol": 1e-3}, {"atol": 1e-6, "rtol": 0}):
        check(lambda lib, x, y: lib.isclose(x, y, **kw), a, b)
        check(lambda lib, x, y: x.isclose(y, **kw), a, b)
        check(lambda lib, x, y: lib.allclose(x, y, **kw), a, b)
        check(lambda lib, x, y: x.allclose(y, **kw), a, a)
    for dtype in DTYPES:
        x = _rand((3, 4), dtype, "permuted")
        y = _rand((4,), dtype, seed=1)
        check(lambda lib, x, y: lib.isclose(x, y), x, y)
        check(lambda lib, x, y: lib.isclose(x, y, atol=1), x, y)
        check(lambda lib, x, y: lib.allclose(x, y, rtol=0.5), x, y)
    check(lambda lib, x, y: lib.isclose(x, y), _rand((3,), "int64"), _rand((3,), "float32"))
    check(lambda lib, x, y: lib.allclose(x, y), _rand((3,), "int64"), _rand((3,), "float32"))
    check(lambda lib, x: lib.isclose(x, x, rtol=-1), _rand((3,), "float32"))
    check(lambda lib, x: lib.isclose(x, x, atol=-0.5), _rand((3,), "float32"))
    check(lambda lib, x: lib.isclose(x, x[:2]), _rand((3,), "float32"))
    check(lambda lib, x: lib.allclose(x, x[:1]), _rand((3,), "float32"))


# ---- logical and bitwise --------------------------------------------------------------------------------


def test_shifts_past_the_width():
    for dtype in ("int8", "uint8", "int16", "int32", "int64"):
        x = _special(dtype)
        for s in (0, 1, 7, 8, 15, 31, 63, 64, 70, -1, -70):
            check(lambda lib, x: x << s, x)
            check(lambda lib, x: x >> s, x)
        check(lambda lib, x, y: lib.bitwise_left_shift(x, y), x, P(np.array([[0, 1, 9, -1, 65, 3]]).astype(dtype)))
        check(lambda lib, x, y: lib.bitwise_right_shift(x, y), x, P(np.array([[0, 1, 9, -1, 65, 3]]).astype(dtype)))
    check(lambda lib, x: 2 << x, _rand((3,), "int64", low=0))


def test_bitwise_and_logical():
    for dtype in DTYPES:
        x, y = _rand((3, 4), dtype, "permuted"), _rand((4,), dtype, "sliced", seed=1)
        for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor"):
            check(lambda lib, x, y: getattr(lib, name)(x, y), x, y)
            check(lambda lib, x: getattr(lib, name)(x, True), x, msg=name.startswith("bitwise"))
            check(lambda lib, x: getattr(lib, name)(3, x), x, msg=name.startswith("bitwise"))
        check(lambda lib, x: lib.bitwise_not(x), x)
        check(lambda lib, x: lib.logical_not(x), x)
        check_inplace(lambda lib, x: x.logical_not_(), _rand((3, 4), dtype, "permuted"))
        check_inplace(lambda lib, x, y: x.logical_and_(y), _rand((3, 4), dtype, "sliced"), _rand((4,), "float32"))
        check_inplace(lambda lib, x, y: x.bitwise_xor_(y), _rand((3, 4), dtype, "offset"), _rand((4,), "int64"))


# ---- overlap, out=, errors ----------------------------------------------------------------------------------


def test_overlapping_targets():
    def self_transposed(lib):
        x = lib.ones(3, 3)
        return x.add_(x.t())

    def shifted(lib):
        x = lib.arange(6.0)
        return x[1:].add_(x[:-1])

    def same_memory(lib):
        x = lib.arange(6.0).view(2, 3)
        return x.mul_(x[:])

    def into_expanded(lib):
        return lib.ones(3).expand(2, 3).add_(1)

    def out_overlaps(lib):
        x = lib.ones(3, 3)
        return lib.exp(x, out=x.t())

    def out_expanded(lib):
        return lib.add(lib.ones(2, 3), 1, out=lib.ones(3).expand(2, 3))

    def out_is_input(lib):
        x = lib.arange(6.0).view(2, 3)
        return lib.mul(x, 2, out=x)

    for f in (self_transposed, shifted, same_memory, into_expanded, out_overlaps, out_expanded, out_is_input):
        check(f)
    check_inplace(lambda lib, x: x.add_(1), P(np.ones((3, 4), "float32"), "expanded"))


def test_out_errors():
    check(lambda lib, x, o: lib.exp(x, out=o), _rand((3,), "int64"), _rand((3,), "int64"))
    check(lambda lib, x, o: lib.add(x, x, out=o), _rand((3,), "float32"), _rand((3,), "int32"))
    check(lambda lib, x, o: lib.eq(x, x, out=o), _rand((3,), "float32"), _rand((3,), "float32"))
    check(lambda lib, x, o: lib.abs(x, out=o), _rand((3,), "bool"), _rand((3,), "bool"))
    check(lambda lib, x, o: lib.add(x, 1, out=o), _rand((2, 3), "float32"), _rand((2, 3), "float32", "expanded"))


def test_not_implemented_messages():
    for name, dtype in [("abs", "bool"), ("floor", "bool"), ("ceil", "bool"), ("round", "bool"), ("trunc", "bool"),
                        ("frac", "int64"), ("frac", "bool"), ("bitwise_not", "float32"), ("relu", "bool"),
                        ("neg", "bool"), ("positive", "bool"), ("bitwise_not", "float16")]:
        check(lambda lib, x: getattr(lib, name)(x), _rand((3,), dtype))
        if name != "positive":
            check_inplace(lambda lib, x: getattr(x, name + "_")(), _rand((3,), dtype))
    for name, a, b in [("hypot", "int64", "int64"), ("logaddexp", "int32", "bool"), ("bitwise_and", "float32", "int64"),
                       ("bitwise_or", "float16", "float16"), ("bitwise_left_shift", "bool", "bool"),
                       ("bitwise_right_shift", "float64", "int64"), ("remainder", "bool", "bool"),
                       ("fmod", "bool", "bool"), ("floor_divide", "bool", "bool"), ("nextafter", "int64", "int64"),
                       ("sub", "bool", "bool"), ("sub", "bool", "float32"), ("sub", "int64", "bool")]:
        check(lambda lib, x, y: getattr(lib, name)(x, y), _rand((3,), a), _rand((3,), b))
    # in-place: the cast check comes before the missing kernel
    check_inplace(lambda lib, x, y: x.bitwise_and_(y), _rand((3,), "int64"), _rand((3,), "float32"))
    check_inplace(lambda lib, x, y: x.bitwise_and_(y), _rand((3,), "float32"), _rand((3,), "int64"))
    check_inplace(lambda lib, x, y: x.hypot_(y), _rand((3,), "int64"), _rand((3,), "float32"))
    check_inplace(lambda lib, x, y: x.add_(y), _rand((1,), "int64"), _rand((3,), "float32"))


def test_alpha():
    for dtype in DTYPES:
        x = _rand((2, 3), dtype, "permuted")
        for alpha in (2, -1, 0, 2.5, True, 1000):
            check(lambda lib, x: lib.add(x, x, alpha=alpha), x)
            check(lambda lib, x: lib.sub(x, 1, alpha=alpha), x)
            check(lambda lib, x: x.add(2, alpha=alpha), x)
            check(lambda lib, x: lib.rsub(x, 1, alpha=alpha), x)
    check_inplace(lambda lib, x, y: x.add_(y, alpha=3), _rand((3, 4), "float32", "sliced"), _rand((4,), "float32"))
    check_inplace(lambda lib, x, y: x.sub_(y, alpha=-2), _rand((3, 4), "int64", "permuted"), _rand((4,), "int32"))


def test_keyword_arguments():
    check(lambda lib, x: lib.sin(input=x), _rand((3,), "float32"))
    check(lambda lib, x: lib.add(input=x, other=2), _rand((3,), "float32"))
    check(lambda lib, x: lib.sub(x, other=x, alpha=2), _rand((3,), "float32"))
    check(lambda lib, x: lib.exp(2), _rand((3,), "float32"))


# ---- the meta device: shapes, dtypes and strides only -----------------------------------------------------


def _meta_case(lib, shape, dtype, perm):
    return lib.empty(*shape, dtype=getattr(lib, dtype), device="meta").permute(*perm)


@pytest.mark.parametrize("name", ["exp", "neg", "abs", "sigmoid", "floor", "isnan", "logical_not", "square", "round"])
def test_meta_unary(name):
    for dtype in ("float32", "int64", "float16"):
        if name in ("abs", "floor", "round") and dtype == "bool":
            continue
        got = getattr(tt, name)(_meta_case(tt, (2, 3, 4), dtype, (2, 0, 1)))
        want = getattr(torch, name)(_meta_case(torch, (2, 3, 4), dtype, (2, 0, 1)))
        assert got.device.type == "meta"
        assert (tuple(got.shape), str(got.dtype), got.stride()) == (tuple(want.shape), str(want.dtype), want.stride())


@pytest.mark.parametrize("name", ["add", "mul", "div", "eq", "pow", "maximum", "atan2", "remainder", "bitwise_and"])
def test_meta_binary(name):
    for a, b in [("float32", "float32"), ("int64", "int32"), ("int32", "float64")]:
        if name == "bitwise_and" and "float" in a + b:
            continue
        x = _meta_case(tt, (2, 3, 4), a, (1, 0, 2)), _meta_case(torch, (2, 3, 4), a, (1, 0, 2))
        y = _meta_case(tt, (4, 1), b, (1, 0)), _meta_case(torch, (4, 1), b, (1, 0))
        got, want = getattr(tt, name)(x[0], y[0]), getattr(torch, name)(x[1], y[1])
        assert (tuple(got.shape), str(got.dtype), got.stride()) == (tuple(want.shape), str(want.dtype), want.stride())
        got, want = x[0] + 2.5, x[1] + 2.5
        assert (tuple(got.shape), str(got.dtype), got.stride()) == (tuple(want.shape), str(want.dtype), want.stride())


def test_meta_inplace_and_where():
    x = tt.empty(3, 4, device="meta").t()
    assert x.add_(1) is x and x._version == 1
    w = tt.where(tt.empty(4, 3, dtype=tt.bool, device="meta"), x, 0.5)
    assert tuple(w.shape) == (4, 3) and w.dtype is tt.float32
    c = tt.clamp(tt.empty(2, 3, dtype=tt.int64, device="meta"), 0.5)
    assert c.dtype is tt.float32 and c.device.type == "meta"


# ---- result strides follow TensorIterator -------------------------------------------------------------------


def test_output_strides():
    def case(lib):
        a = lib.arange(24.0).view(2, 3, 4)
        return [
            lib.exp(a.permute(2, 0, 1)), a.permute(2, 0, 1)[::2] + 1, a.transpose(0, 2) * a.transpose(0, 2),
            a.permute(1, 0, 2) + a, a + a.permute(1, 0, 2), a[:, :1].permute(2, 0, 1) + a.permute(2, 0, 1),
            lib.where(a.permute(2, 1, 0) > 3, a.permute(2, 1, 0), 0.0), a.permute(2, 0, 1).long() // 2,
            lib.clamp(a.transpose(1, 2), 1, 5), lib.lerp(a.transpose(0, 1), a.transpose(0, 1), 0.5),
            lib.isclose(a.permute(2, 1, 0), a.permute(2, 1, 0)), a.permute(2, 0, 1)[::2].int() / 2,
        ]
    if not hasattr(tt.Tensor, "long"):
        pytest.skip("dtype conversion methods are not written yet")
    check(case)


def test_module_exports():
    for name in ["div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "float_power", "where", "clamp",
                 "clip", "lerp", "addcmul", "addcdiv", "equal", "isclose", "allclose", "nan_to_num", "sgn",
                 "logical_xor", "bitwise_left_shift", "greater_equal", "not_equal", "positive", "relu"]:
        assert hasattr(tt, name) and callable(getattr(tt, name))
        assert hasattr(tt.Tensor, name)
    assert_same(tt.tensor([1.5]).exp(), torch.tensor([1.5]).exp())


# ---- output strides when inputs have different dtypes ------------------------------------------------------
# TensorIterator converts inputs to the common dtype before it picks the output layout (reference: the
# stride module's notes); a non-dense input then takes part with the dense strides of its converted copy.

@given(st.data())
def test_fuzz_mixed_dtype_output_strides(data):
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple))
    a = data.draw(inputs(shape=shape, dtype=data.draw(st.sampled_from(["float32", "float64", "int64"]))))
    b = data.draw(inputs(shape=shape[data.draw(st.integers(0, len(shape) - 1)):],
                          dtype=data.draw(st.sampled_from(["float32", "float64", "int32", "bool"]))))
    check(lambda lib, x, y: x + y, a, b)
    check(lambda lib, x, y: lib.maximum(x, y), a, b)
    check(lambda lib, x, y: x < y, a, b)
    check(lambda lib, x: lib.exp(x), a)


def test_mixed_dtype_output_strides_use_the_converted_input():
    # found by brute force against torch: a non-dense float32 input next to a float64 one
    def case(lib):
        a = lib.zeros(5, 3, 7)[1::2, 1::2, 1::2]                                      # strides (42, 14, 2)
        b = lib.arange(12, dtype=lib.float64).as_strided((2, 1, 3), (1, 6, 2))
        return a + b, lib.maximum(a, b), a < b
    check(case)


def test_number_operand_counts_as_a_zero_dim_tensor_for_output_strides():
    # sizes (2, 1, 2, 1) with odd strides on the size-1 dims: `x * x` takes TensorIterator's all-contiguous
    # shortcut, `x + 1` does not (the wrapped number is a 0-dim operand), so it keeps x's order
    def case(lib):
        x = lib.arange(4.0).as_strided((2, 1, 2, 1), (2, 2, 1, 4))
        return x + 1, x * x, lib.exp(x), x + lib.tensor(2.0), 1 - x, x.clone()
    check(case)


# A Python number is an operand of TensorIterator in `x + 2` (a wrapped 0-dim tensor), but only a parameter of
# the kernel in `x ** 2`, `clamp(x, 0, 1)` or `lerp(x, y, 0.5)`; the difference shows in the strides of size-1
# dims, which the all-contiguous shortcut resets only when no number takes part.
@pytest.mark.parametrize("fn", [
    lambda lib, x: x + 2, lambda lib, x: 2 - x, lambda lib, x: x * 2, lambda lib, x: x / 2, lambda lib, x: x < 2,
    lambda lib, x: lib.remainder(x, 2), lambda lib, x: lib.where(x > 0, x, 2.0), lambda lib, x: x ** 2,
    lambda lib, x: 2 ** x, lambda lib, x: x.pow(0.5), lambda lib, x: lib.float_power(x, 2),
    lambda lib, x: lib.float_power(2, x), lambda lib, x: x.clamp(0, 1), lambda lib, x: x.clamp_min(0),
    lambda lib, x: x.clamp_max(0), lambda lib, x: lib.lerp(x, x * 1, 0.3), lambda lib, x: x.exp(),
    lambda lib, x: lib.pow(x, x[0:1, 0:1]), lambda lib, x: x.clamp(x[0, 0], x[0, 0] + 1),
], ids=["add", "rsub", "mul", "div", "lt", "remainder", "where", "pow", "rpow", "sqrt_pow", "float_power",
        "rfloat_power", "clamp", "clamp_min", "clamp_max", "lerp", "exp", "pow_0d_tensor", "clamp_0d_tensor"])
def test_numbers_as_operands_or_parameters_set_size1_strides_like_torch(fn):
    for sizes, strides in [((1, 3, 1), (3, 1, 3)), ((2, 1, 2), (1, 5, 2)), ((1, 1), (7, 9))]:
        def build(lib):
            x = lib.empty_strided(sizes, strides)
            return x.copy_(lib.arange(float(x.numel())).reshape(sizes) / 4)
        check(lambda lib: fn(lib, build(lib)))
