"""Elementwise ops, part 2: division, powers, math functions, comparisons, logic, and the Python operators.

Every op here is made by `pointwise(...)` (pointwise.py): a schema plus one NumPy/CuPy expression, turned into
the functional, in-place and `out=` operators, the public function and the Tensor methods. What differs
from op to op is what PyTorch's kernels do around the arithmetic, and that is what this file spells out:

* **Type promotion kind** (torch/_prims_common ELEMENTWISE_TYPE_PROMOTION_KIND). `exp`, `sqrt`, `/` give
  the default float dtype for integer inputs (INT_TO_FLOAT); comparisons give bool (ALWAYS_BOOL); most
  others keep the promoted dtype (DEFAULT). A few have a rule of their own: `lerp` keeps `self`'s dtype,
  `float_power` always computes in float64, `square` promotes like `x ** 2` (bool becomes int64).
* **Which dtypes the kernel has.** PyTorch compiles each CPU kernel for a list of dtypes
  (AT_DISPATCH_ALL_TYPES_AND(...) in aten/src/ATen/native/cpu/*Kernel.cpp); for the others it raises
  `NotImplementedError: "abs_cpu" not implemented for 'Bool'`. `not_implemented_for(...)` says the same.
* **Integer arithmetic** wraps around like C (`int8 127 + 1 == -128`), integer division by zero raises
  `RuntimeError: ZeroDivisionError` (a float division by zero gives inf or nan), and integer powers are
  computed exactly by repeated squaring (BinaryOps.cpp, Pow.h).

Sections: division; powers; math functions of one tensor; rounding and sign; functions of two tensors;
clamp; where, lerp, addcmul, addcdiv; comparisons; logical and bitwise ops; nan and inf; Python operators.
"""


import numpy as np

from .. import _dtype
from .._dispatch_key import CompositeImplicitAutograd
from .._dtype import bool_, float16, float64, uint8
from .._tensor import Tensor
from ..backends import ARRAY_MODULES, empty
from ..dispatch.dispatcher import call, define, impl
from ..kernels import special
from ..kernels.pointwise import ALWAYS_BOOL, DEFAULT, INT_TO_FLOAT, check_inplace_shape_and_dtype, check_out, promote
from ._define import bind_method, register_kernel
from ..backends import preserve_strides
from .pointwise import (
    NUMBERS_ANY, NUMBERS_EITHER, NUMBERS_OTHER, OPS, TYPEMETA_NAME, all_checks, as_operand,
    alias, binary_operator, check_operands, checked_scalar, exact_out_dtype, not_implemented_for, operand_or_none,
    opmath, pointwise, public_function, tensor_method,
)


def _is_integer(a):
    """Is this array (or NumPy scalar) of an integer type (not bool, not floating)?"""
    return a.dtype.kind in "iu"


def _is_floating(a):
    return a.dtype.kind == "f"


def _no_integer_zero_division(xp, dividend, divisor):
    # C++ integer division by zero is undefined behaviour; PyTorch checks each element it divides and
    # raises this (an empty result divides nothing)
    if xp.broadcast(dividend, divisor).size and xp.any(divisor == 0):
        raise RuntimeError("ZeroDivisionError")


def _promoted_no_opmath(operands):
    # the promoted dtype, float16 included: the op itself decides how float16 is computed
    dt = promote(operands, DEFAULT)[0]
    return dt, dt


# ---- division ----------------------------------------------------------------------------------------------
# `/` is true division: integers give the default float dtype. With `rounding_mode` ("trunc" rounds toward
# zero like C, "floor" toward -inf like Python's `//`) the result keeps the promoted dtype. PyTorch has both
# as overloads of one op (div.Tensor, div.Tensor_mode); `teachtorch.div` picks one.


def _div_mode(xp, a, b, rounding_mode):
    if a.dtype == np.float16:
        # float16 computes in float32; but where the divisor is a tensor with dimensions (not a number),
        # PyTorch's vectorized trunc kernel rounds the quotient to float16 before truncating it
        q = xp.true_divide(a.astype(np.float32), b.astype(np.float32))
        if rounding_mode == "trunc":
            return xp.trunc(q.astype(np.float16) if xp.ndim(b) > 0 else q)
        return xp.floor_divide(a.astype(np.float32), b.astype(np.float32))
    if _is_integer(a):
        _no_integer_zero_division(xp, a, b)
        q = xp.floor_divide(a, b)              # NumPy's integer // rounds toward -inf, like Python
        if rounding_mode == "trunc":
            # floor and trunc differ when the division is inexact and the signs differ: step back toward zero
            q = q + ((xp.remainder(a, b) != 0) & xp.not_equal(a < 0, b < 0))   # (a may be a NumPy scalar)
        return q
    if rounding_mode == "floor":
        # NumPy's float floor_divide is CPython's algorithm, which PyTorch's div_floor_floating copies
        return xp.floor_divide(a, b)
    return xp.trunc(xp.true_divide(a, b))


def _rounding_mode_check(args, out_dtype, compute_dtype):
    mode = args[2]
    if mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")
    if out_dtype is bool_:
        raise NotImplementedError(f'"div_{mode}_cpu" not implemented for \'Bool\'')


_true_div = pointwise("div.Tensor(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.true_divide(a, b),
                      INT_TO_FLOAT, numbers=NUMBERS_ANY, bind=False, opmath_scalar=True)
_div_mode_fn = pointwise("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", _div_mode,
                         _promoted_no_opmath, late_check=_rounding_mode_check, numbers=NUMBERS_ANY,
                         name="div_mode", bind=False, out_overload="out_mode")
_DIV, _DIV_INPLACE, _DIV_OUT = OPS["div"]
_DIV_MODE, _DIV_MODE_INPLACE, _DIV_MODE_OUT = OPS["div_mode"]


def div(input, other, *, rounding_mode=None, out=None):
    """`input / other`, or rounded with rounding_mode="trunc" or "floor" (dispatches div.Tensor or
    div.Tensor_mode)."""
    if rounding_mode is None:
        return _true_div(input, other, out=out)
    return _div_mode_fn(input, other, rounding_mode=rounding_mode, out=out)


def _div_method(op, mode_op, name):
    def method(self, other, *, rounding_mode=None):
        if rounding_mode is None:
            return call(op, check_operands(op, name, (self, other), 2, NUMBERS_ANY, 2, method=True))
        args = check_operands(mode_op, name, (self, other, rounding_mode), 2, NUMBERS_ANY, 2, method=True)
        return call(mode_op, args)
    method.__name__ = method.__qualname__ = name
    return method


def true_divide(input, other, *, out=None):
    """Alias of `div` without rounding."""
    return _true_div(input, other, out=out)


divide = div
bind_method("div", _div_method(_DIV, _DIV_MODE, "div"))
bind_method("div_", _div_method(_DIV_INPLACE, _DIV_MODE_INPLACE, "div_"))
bind_method("divide", Tensor.div)
bind_method("divide_", Tensor.div_)
bind_method("true_divide", tensor_method(_DIV, "true_divide", 2, NUMBERS_ANY))
bind_method("true_divide_", tensor_method(_DIV_INPLACE, "true_divide_", 2, NUMBERS_ANY))

floor_divide = pointwise("floor_divide(Tensor self, Tensor other) -> Tensor",
                         lambda xp, a, b: _div_mode(xp, a, b, "floor"), _promoted_no_opmath,
                         late_check=not_implemented_for("div_floor_cpu", bool_), numbers=NUMBERS_ANY)


def _remainder(xp, a, b):
    if _is_integer(a):
        _no_integer_zero_division(xp, a, b)
        return xp.remainder(a, b)             # NumPy's integer % takes the divisor's sign, like Python
    # PyTorch's float remainder (BinaryOpsKernel.cpp): C's fmod, then moved into the divisor's sign
    mod = xp.fmod(a, b)
    # (xp.not_equal, not `!=`: `b` may be a NumPy scalar, which must not lead a CuPy expression)
    return xp.where((mod != 0) & xp.not_equal(mod < 0, b < 0), mod + b, mod)


def _fmod(xp, a, b):
    if _is_integer(a):
        _no_integer_zero_division(xp, a, b)
    return xp.fmod(a, b)                      # C's fmod: the result takes the dividend's sign


remainder = pointwise("remainder.Tensor(Tensor self, Tensor other) -> Tensor", _remainder,
                      late_check=not_implemented_for("remainder_cpu", bool_), numbers=NUMBERS_EITHER)
fmod = pointwise("fmod.Tensor(Tensor self, Tensor other) -> Tensor", _fmod,
                 late_check=not_implemented_for("fmod_cpu", bool_), numbers=NUMBERS_OTHER)


# ---- powers ---------------------------------------------------------------------------------------------


def _integer_pow(xp, a, b):
    # NumPy refuses negative integer exponents. PyTorch's `powi` (aten/src/ATen/native/Pow.h) gives the
    # exact result truncated toward zero: 1 ** -n == 1, (-1) ** -n == +-1, and 0 for every other base.
    negative = b < 0
    result = xp.power(a, xp.where(negative, 0, b))
    if xp.any(negative):
        odd = (b % 2) != 0
        small = xp.where(a == 1, 1, xp.where(a == -1, xp.where(odd, -1, 1), 0))
        result = xp.where(negative, small, result).astype(result.dtype)
    return result


def _float_pow(xp, a, b):
    """IEEE pow, where pow(-0.0, 0.5) is 0 and pow(-inf, 0.5) is inf.

    NumPy computes `x ** 0.5` as sqrt(x) (which gives -0.0 and nan there) whenever the exponent is one number,
    even a broadcast one; a full array of exponents gets the real pow.
    """
    shape = xp.broadcast_shapes(xp.shape(a), xp.shape(b))
    base = xp.broadcast_to(a, shape).reshape(-1)
    exponent = xp.broadcast_to(b, shape).reshape(-1).copy()
    return xp.power(base, exponent).reshape(shape)


def _pow(xp, a, b):
    if a.dtype == np.bool_:
        # only reached for a bool tensor and a Python bool exponent (PyTorch has no bool ** bool kernel)
        return xp.logical_or(a, xp.logical_not(b))
    if _is_integer(a):
        return _integer_pow(xp, a, b)
    if a.dtype == np.float16:
        # float16 is computed in float32, with the real pow whatever the exponent
        return _float_pow(xp, a.astype(np.float32), xp.asarray(b).astype(np.float32))
    if isinstance(b, np.generic) and b in (0.5, -0.5):
        # a Python number exponent (pow.Tensor_Scalar): PowKernel.cpp takes x ** 0.5 as sqrt(x) and
        # x ** -0.5 as 1 / sqrt(x), which differ from pow at -0.0 and -inf
        return xp.sqrt(a) if b == 0.5 else 1 / xp.sqrt(a)
    if isinstance(b, np.generic):
        # any other single exponent: NumPy's own shortcuts for it (2: square, -1: reciprocal, 1, 0) agree
        # with IEEE pow, so no need to spell the exponent out element by element as _float_pow does
        return xp.power(a, b)
    return _float_pow(xp, a, b)


def _pow_check(operands):
    # pow.Tensor_Scalar refuses a negative Python int exponent outright for an integer base (Pow.cpp); a
    # tensor of negative exponents is computed by `powi` instead.
    base, exponent = operands
    if (isinstance(base, Tensor) and not base.dtype.is_floating_point and isinstance(exponent, int)
            and exponent < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def _pow_late_check(args, out_dtype, compute_dtype):
    base, exponent = args
    if out_dtype is bool_ and not (isinstance(base, Tensor) and isinstance(exponent, bool)):
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if isinstance(base, Tensor) and not isinstance(exponent, Tensor):
        checked_scalar(exponent, out_dtype)   # a number exponent is converted to the result dtype


pow = pointwise("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", _pow, _promoted_no_opmath,
                check=_pow_check, late_check=_pow_late_check, numbers=NUMBERS_EITHER,
                numbers_take_part="contiguous_if_self_is_a_number")


def _double(operands):
    return float64, float64


def _float_power_inplace_check(self, out_dtype, shape, operands):
    if self.dtype is not float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype._ptname} but the operation's "
                           "result requires dtype Double")
    check_inplace_shape_and_dtype(self, out_dtype, shape)


def _float_power_out_check(out, out_dtype, shape, operands):
    if out.dtype is not float64:
        raise RuntimeError(f"the output given to float_power has dtype {out.dtype._ptname} but the operation's "
                           "result requires dtype Double")


# float_power: pow computed in float64 whatever the inputs (PyTorch casts both to double, then calls pow)
float_power = pointwise("float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
                        _pow, _double, inplace_check=_float_power_inplace_check,
                        out_check=_float_power_out_check, numbers=NUMBERS_EITHER,
                numbers_take_part="contiguous_if_self_is_a_number")


def _like_times_two(operands):
    # square(x) is pow(x, 2): promoted with the Python int 2, so bool gives int64
    return promote((operands[0], 2), DEFAULT)


square = pointwise("square(Tensor self) -> Tensor", lambda xp, a: xp.multiply(a, a), _like_times_two)


# ---- math functions of one tensor (integers and bools give the default float dtype) ------------------------


def _sinc(xp, a):
    # sin(pi x) / (pi x), and 1 at 0 (UnaryOpsKernel.cpp computes pi * x in the input's float type)
    x = a * xp.pi
    return xp.where(a == 0, 1, xp.sin(x) / x)


_FLOAT_FUNCTIONS = {
    "exp": lambda xp, a: xp.exp(a),
    "exp2": lambda xp, a: xp.exp2(a),
    "expm1": lambda xp, a: xp.expm1(a),
    "log": lambda xp, a: xp.log(a),
    "log2": lambda xp, a: xp.log2(a),
    "log10": lambda xp, a: xp.log10(a),
    "log1p": lambda xp, a: xp.log1p(a),
    "sqrt": lambda xp, a: xp.sqrt(a),
    "rsqrt": lambda xp, a: 1 / xp.sqrt(a),
    "reciprocal": lambda xp, a: xp.reciprocal(a),
    "sin": lambda xp, a: xp.sin(a),
    "cos": lambda xp, a: xp.cos(a),
    "tan": lambda xp, a: xp.tan(a),
    "asin": lambda xp, a: xp.arcsin(a),
    "acos": lambda xp, a: xp.arccos(a),
    "atan": lambda xp, a: xp.arctan(a),
    "sinh": lambda xp, a: xp.sinh(a),
    "cosh": lambda xp, a: xp.cosh(a),
    "tanh": lambda xp, a: xp.tanh(a),
    "asinh": lambda xp, a: xp.arcsinh(a),
    "acosh": lambda xp, a: xp.arccosh(a),
    "atanh": lambda xp, a: xp.arctanh(a),
    "sigmoid": lambda xp, a: 1 / (1 + xp.exp(-a)),
    "erf": special.erf,        # fdlibm's piecewise approximation, vectorised (kernels/special.py)
    "erfc": special.erfc,
    "sinc": _sinc,
}
for _name, _fn in _FLOAT_FUNCTIONS.items():
    globals()[_name] = pointwise(f"{_name}(Tensor self) -> Tensor", _fn, INT_TO_FLOAT)

for _alias, _name in (("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"), ("arcsinh", "asinh"),
                      ("arccosh", "acosh"), ("arctanh", "atanh")):
    globals()[_alias] = alias(_alias, _name)


# ---- rounding, sign, absolute value --------------------------------------------------------------------------


def _copy(xp, a):
    # The result must be a fresh array: the operand may be the input tensor's own memory.
    return xp.array(a, copy=True)


def _rounding(np_name):
    """floor, ceil, round, trunc: integers are already whole, so they are copied as they are."""
    def fn(xp, a):
        return getattr(xp, np_name)(a) if _is_floating(a) else _copy(xp, a)
    return fn


abs = pointwise("abs(Tensor self) -> Tensor", lambda xp, a: xp.abs(a),
                late_check=not_implemented_for("abs_cpu", bool_), out_check=exact_out_dtype)
absolute = alias("absolute", "abs")


def _sign(xp, a):
    if a.dtype == np.bool_:
        return _copy(xp, a)
    # (0 < a) - (a < 0), as PyTorch computes it: nan and -0.0 both give 0
    return (a > 0).astype(a.dtype) - (a < 0).astype(a.dtype)


sign = pointwise("sign(Tensor self) -> Tensor", _sign, out_check=exact_out_dtype)
# sgn is sign for real numbers (z / |z| for complex ones)
sgn = pointwise("sgn(Tensor self) -> Tensor", _sign, out_check=exact_out_dtype)


def _relu_check(operands):
    if operands[0].dtype is bool_:
        raise RuntimeError("Boolean inputs not supported for relu")


relu = pointwise("relu(Tensor self) -> Tensor", lambda xp, a: xp.maximum(a, 0), check=_relu_check, out=False)
# relu's backward (and threshold's): one elementwise pass, `grad_output` where `self > threshold`, else 0.
# An op of its own, as in PyTorch, so the backward of a ReLU network is one kernel per layer, not three.
threshold_backward = pointwise(
    "threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
    lambda xp, g, a, threshold: xp.where(a <= threshold, xp.zeros((), g.dtype), g), inplace=False, bind=False)

floor = pointwise("floor(Tensor self) -> Tensor", _rounding("floor"),
                  late_check=not_implemented_for("floor_vml_cpu", bool_), out_check=exact_out_dtype)
ceil = pointwise("ceil(Tensor self) -> Tensor", _rounding("ceil"),
                 late_check=not_implemented_for("ceil_vml_cpu", bool_), out_check=exact_out_dtype)
trunc = pointwise("trunc(Tensor self) -> Tensor", _rounding("trunc"),
                  late_check=not_implemented_for("trunc_vml_cpu", bool_), out_check=exact_out_dtype)
fix = alias("fix", "trunc")
frac = pointwise("frac(Tensor self) -> Tensor", lambda xp, a: a - xp.trunc(a),
                 late_check=not_implemented_for("frac_cpu", "integral"), out_check=exact_out_dtype)

# round: half to even (nearbyint), like NumPy's rint. With `decimals` it is another overload, which has no
# integer kernel at all.
_round_plain = pointwise("round(Tensor self) -> Tensor", _rounding("rint"),
                         late_check=not_implemented_for("round_vml_cpu", bool_), out_check=exact_out_dtype,
                         bind=False)
_ROUND, _ROUND_INPLACE, _ROUND_OUT = OPS["round"]


def _round_decimals(xp, a, decimals):
    # UnaryOpsKernel.cpp round_decimals_kernel: scale, round to even, scale back
    ten_pow = xp.asarray(10.0 ** (decimals if decimals >= 0 else -decimals)).astype(a.dtype)
    if decimals >= 0:
        return xp.rint(a * ten_pow) / ten_pow
    return xp.rint(a / ten_pow) * ten_pow


def _round_decimals_check(args, out_dtype, compute_dtype):
    if not out_dtype.is_floating_point:
        kernel = "round_vml_cpu" if args[1] == 0 else "round_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{out_dtype._ptname}\'')


_round_decimals_fn = pointwise("round.decimals(Tensor self, *, int decimals) -> Tensor", _round_decimals,
                               late_check=_round_decimals_check, out_check=exact_out_dtype,
                               name="round_decimals", bind=False, out_overload="decimals_out")
_ROUND_D, _ROUND_D_INPLACE, _ROUND_D_OUT = OPS["round_decimals"]


def round(input, *, decimals=None, out=None):
    """Round half to even; with `decimals`, to that many decimal places (dispatches round or round.decimals)."""
    if decimals is None:
        return _round_plain(input, out=out)
    return _round_decimals_fn(input, decimals=decimals, out=out)


def _round_method(op, decimals_op, name):
    def method(self, *, decimals=None):
        if decimals is None:
            return call(op, (self,))
        return call(decimals_op, (self, decimals))
    method.__name__ = method.__qualname__ = name
    return method


bind_method("round", _round_method(_ROUND, _ROUND_D, "round"))
bind_method("round_", _round_method(_ROUND_INPLACE, _ROUND_D_INPLACE, "round_"))


# positive: `+x` returns x itself (a CompositeImplicitAutograd op in PyTorch: nothing is computed or copied)
positive_op = define("positive(Tensor(a) self) -> Tensor(a)")


def _positive(ks, self):
    if self.dtype is bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


impl(positive_op, CompositeImplicitAutograd, _positive)
positive = public_function(positive_op, None, "positive", 1)
bind_method("positive", tensor_method(positive_op, "positive", 1))


# ---- functions of two tensors ---------------------------------------------------------------------------


def _xlogy(xp, x, y):
    # x * log(y), defined as 0 where x == 0 (even for y == 0), and nan where y is nan
    return xp.where(xp.isnan(y), xp.nan, xp.where(x == 0, 0, x * xp.log(y)))


atan2 = pointwise("atan2(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.arctan2(a, b), INT_TO_FLOAT)
arctan2 = alias("arctan2", "atan2")
hypot = pointwise("hypot(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.hypot(a, b),
                  late_check=not_implemented_for("hypot_cpu", "integral"))
logaddexp = pointwise("logaddexp(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.logaddexp(a, b),
                      late_check=not_implemented_for("logaddexp_cpu", "integral"), inplace=False)
logaddexp2 = pointwise("logaddexp2(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.logaddexp2(a, b),
                       late_check=not_implemented_for("logaddexp2_cpu", "integral"), inplace=False)
copysign = pointwise("copysign.Tensor(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.copysign(a, b),
                     INT_TO_FLOAT, numbers=NUMBERS_OTHER)
xlogy = pointwise("xlogy.Tensor(Tensor self, Tensor other) -> Tensor", _xlogy, INT_TO_FLOAT,
                  numbers=NUMBERS_EITHER)
nextafter = pointwise("nextafter(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.nextafter(a, b),
                      _promoted_no_opmath, late_check=not_implemented_for("nextafter_cpu", "integral"))

# maximum and minimum propagate nan (like NumPy's); fmax and fmin ignore it unless both are nan
maximum = pointwise("maximum(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.maximum(a, b),
                    inplace=False)
minimum = pointwise("minimum(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.minimum(a, b),
                    inplace=False)
fmax = pointwise("fmax(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.fmax(a, b), inplace=False)
fmin = pointwise("fmin(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.fmin(a, b), inplace=False)


# ---- clamp ------------------------------------------------------------------------------------------------
# clamp(x, min, max) = minimum(maximum(x, min), max): nan stays nan, and min > max gives max everywhere.
# The bounds take part in type promotion (`clamp(int_tensor, 0.5)` is float). PyTorch has two overloads,
# Python numbers (clamp) and tensors (clamp.Tensor); here one op takes either, as the kernels accept numbers.


def _clamp(xp, a, lo, hi):
    if lo is not None:
        a = xp.maximum(a, lo)
    if hi is not None:
        a = xp.minimum(a, hi)
    return a


def _clamp_check(operands):
    if operands[1] is None and operands[2] is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")


def _bounds_fit(args, out_dtype, compute_dtype):
    # Python-number bounds are converted to the result dtype (TensorCompare.cpp), and must fit in it;
    # except that a nan bound makes the whole result nan, and then the other bound is never converted
    if any(isinstance(b, float) and b != b for b in args[1:]):
        return
    for bound in args[1:]:
        if bound is not None and not isinstance(bound, Tensor):
            checked_scalar(bound, out_dtype)


def _clamp_kernel_check(args, out_dtype, compute_dtype):
    """The clamp kernels with number bounds, and the one with two tensor bounds, have no bool version."""
    if out_dtype is not bool_:
        return
    self, lo, hi = args[:3]
    if _numbers_only((self, lo, hi)):
        kernel = "clamp_scalar_cpu" if lo is not None and hi is not None else (
            "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu")
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    if lo is not None and hi is not None:
        raise NotImplementedError('"clamp_cpu" not implemented for \'Bool\'')


def _numbers_only(operands):
    return all(b is None or not isinstance(b, Tensor) for b in operands[1:])


def _clamp_inplace_check(self, out_dtype, shape, operands):
    if _numbers_only(operands) and not _dtype.can_cast(out_dtype, self.dtype):
        # the number overload checks the dtype itself, and prints it as C++ does (caffe2::TypeMeta)
        raise RuntimeError(f"result type {out_dtype._ptname} can't be cast to the desired output type "
                           f"{TYPEMETA_NAME[self.dtype]}")
    check_inplace_shape_and_dtype(self, out_dtype, shape)


def _clamp_out_check(out, out_dtype, shape, operands):
    if _numbers_only(operands) and out.dtype is not out_dtype:
        # a structured kernel's out= tensor must have the result dtype exactly
        raise RuntimeError(f"Found dtype {out.dtype._ptname} but expected {out_dtype._ptname}")
    check_out(out, out_dtype, shape)


def _clamp_min_kernel_check(args, out_dtype, compute_dtype):
    _clamp_kernel_check((args[0], args[1], None), out_dtype, compute_dtype)


def _clamp_max_kernel_check(args, out_dtype, compute_dtype):
    _clamp_kernel_check((args[0], None, args[1]), out_dtype, compute_dtype)


_clamp_fn = pointwise("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", _clamp,
                      check=_clamp_check, late_check=all_checks(_bounds_fit, _clamp_kernel_check),
                      inplace_check=_clamp_inplace_check, out_check=_clamp_out_check, name="clamp", bind=False,
                      numbers_take_part=False)
clamp_min = pointwise("clamp_min.Tensor(Tensor self, Tensor min) -> Tensor", lambda xp, a, lo: xp.maximum(a, lo),
                      late_check=all_checks(_bounds_fit, _clamp_min_kernel_check), inplace_check=_clamp_inplace_check,
                      out_check=_clamp_out_check, numbers=NUMBERS_OTHER, numbers_take_part=False)
clamp_max = pointwise("clamp_max.Tensor(Tensor self, Tensor max) -> Tensor", lambda xp, a, hi: xp.minimum(a, hi),
                      late_check=all_checks(_bounds_fit, _clamp_max_kernel_check), inplace_check=_clamp_inplace_check,
                      out_check=_clamp_out_check, numbers=NUMBERS_OTHER, numbers_take_part=False)
_CLAMP, _CLAMP_INPLACE, _CLAMP_OUT = OPS["clamp"]


def _clamp_args(name, self, min, max, method):
    """The binding's rules: bounds are both numbers or both tensors (or None)."""
    min, max = as_operand(min), as_operand(max)
    if not isinstance(self, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(self).__name__}")
    if min is not None and max is not None and isinstance(min, Tensor) != isinstance(max, Tensor):
        got = ", ".join(("Tensor" if isinstance(x, Tensor) else type(x).__name__) for x in (self, min, max))
        if method:
            sigs = [" * (Tensor min = None, Tensor max = None)\n", " * (Number min = None, Number max = None)\n"]
            got = got.split(", ", 1)[1]
        else:
            sigs = [" * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n",
                    " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n"]
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
                        "of:\n" + "".join(sigs))
    return (self, min, max)


def clamp(input, min=None, max=None, *, out=None):
    """Limit every element to [min, max]; either bound may be None (not both), a number or a tensor."""
    args = _clamp_args("clamp", input, min, max, False)
    return call(_CLAMP, args) if out is None else call(_CLAMP_OUT, args + (out,))


clip = clamp


def _clamp_method(op, name):
    def method(self, min=None, max=None):
        return call(op, _clamp_args(name, self, min, max, True))
    method.__name__ = method.__qualname__ = name
    return method


for _name in ("clamp", "clip"):
    bind_method(_name, _clamp_method(_CLAMP, _name))
    bind_method(_name + "_", _clamp_method(_CLAMP_INPLACE, _name + "_"))


# ---- where, lerp, addcmul, addcdiv -----------------------------------------------------------------------


def _where_promotion(operands):
    # the result type of `self` and `other`; the condition only selects
    return promote(operands[1:], DEFAULT)


def _where_check(operands):
    condition = operands[0]
    if condition.dtype is not bool_ and condition.dtype is not uint8:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition.dtype._ptname}")


def _where_numbers_fit(args, out_dtype, compute_dtype):
    if out_dtype is float16:
        return   # PyTorch converts numbers to float16 unchecked here (they may become inf)
    for x in args[1:3]:
        if not isinstance(x, Tensor):
            checked_scalar(x, out_dtype)


def _where_out(out, out_dtype, shape, operands):
    if out.dtype is not out_dtype:
        raise RuntimeError(f"Expected out type to be {out_dtype._ptname} but got {out.dtype._ptname}")


_where_fn = pointwise("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
                      lambda xp, c, a, b: xp.where(c, a, b), _where_promotion, check=_where_check,
                      late_check=_where_numbers_fit, out_check=_where_out, inplace=False, name="where", bind=False)
_WHERE, _, _WHERE_OUT = OPS["where"]


def where(condition, input=None, other=None, *, out=None):
    """`input` where `condition` is true, else `other`; `where(condition)` is `nonzero(condition, as_tuple=True)`."""
    if input is None and other is None:
        import teachtorch
        return teachtorch.nonzero(condition, as_tuple=True)
    args = (as_operand(condition), as_operand(input), as_operand(other))
    if not isinstance(args[0], Tensor):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not {type(condition).__name__}")
    return call(_WHERE, args) if out is None else call(_WHERE_OUT, args + (out,))


bind_method("where", lambda self, condition, other: where(condition, self, other))


def _self_dtype(operands):
    dt = operands[0].dtype
    return dt, opmath(dt)


def _lerp_check(operands):
    # LerpKernel / Lerp.cpp: `end` and a tensor `weight` must have self's dtype (a 0-dim weight may differ)
    self, end, weight = operands
    if end.dtype is not self.dtype:
        raise RuntimeError(f"expected dtype {TYPEMETA_NAME[self.dtype]} for `end` but got dtype "
                           f"{TYPEMETA_NAME[end.dtype]}")
    if isinstance(weight, Tensor) and weight.dim() > 0 and weight.dtype is not self.dtype:
        raise RuntimeError(f"expected dtype {TYPEMETA_NAME[self.dtype]} for `weight` but got dtype "
                           f"{TYPEMETA_NAME[weight.dtype]}")


def _lerp_late_check(args, out_dtype, compute_dtype):
    if not out_dtype.is_floating_point:
        kernel = "lerp_kernel_tensor" if isinstance(args[2], Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{out_dtype._ptname}\'')


def _lerp(xp, start, end, weight):
    # aten/src/ATen/native/Lerp.h: two formulas, so that weight 0 gives exactly start and weight 1 exactly end
    return xp.where(xp.abs(weight) < 0.5, start + weight * (end - start), end - (end - start) * (1 - weight))


_lerp_fn = pointwise("lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor", _lerp, _self_dtype,
                     check=_lerp_check, late_check=_lerp_late_check, name="lerp", bind=False, opmath_scalar=True,
                     numbers_take_part=False)
_LERP, _LERP_INPLACE, _LERP_OUT = OPS["lerp"]


def _lerp_args(name, args, method):
    args = tuple(as_operand(a) for a in args)
    if not (isinstance(args[0], Tensor) and isinstance(args[1], Tensor)):
        got = ", ".join(("Tensor" if isinstance(x, Tensor) else type(x).__name__) for x in args[method:])
        first = "" if method else "Tensor input, "
        tail = "" if method else ", *, Tensor out = None"
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        f" * ({first}Tensor end, Tensor weight{tail})\n * ({first}Tensor end, Number weight{tail})\n")
    return args


def lerp(input, end, weight, *, out=None):
    """`input + weight * (end - input)`: linear interpolation, with a number or tensor weight."""
    args = _lerp_args("lerp", (input, end, weight), False)
    return call(_LERP, args) if out is None else call(_LERP_OUT, args + (out,))


bind_method("lerp", lambda self, end, weight: call(_LERP, _lerp_args("lerp", (self, end, weight), True)))
bind_method("lerp_", lambda self, end, weight: call(_LERP_INPLACE, _lerp_args("lerp_", (self, end, weight), True)))


def _value_fits(args, out_dtype, compute_dtype):
    checked_scalar(args[3], opmath(out_dtype))   # `value` is converted to the type the kernel computes in


def _addcmul(xp, a, t1, t2, value):
    return a + xp.asarray(value).astype(a.dtype) * t1 * t2


def _addcdiv(xp, a, t1, t2, value):
    return a + xp.asarray(value).astype(a.dtype) * t1 / t2


def _addcdiv_check(operands):
    if not operands[1].dtype.is_floating_point and not operands[2].dtype.is_floating_point:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
            "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")


addcmul = pointwise("addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", _addcmul,
                    late_check=all_checks(not_implemented_for("addcmul_cpu_out", bool_), _value_fits))
addcdiv = pointwise("addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", _addcdiv,
                    check=_addcdiv_check, late_check=_value_fits)


# ---- comparisons ------------------------------------------------------------------------------------------
# Computed in the promoted dtype (so `int8_tensor == 1000` compares with 1000 wrapped into int8, as PyTorch
# does), returning bool. The in-place forms (`x.lt_(y)`) write 0/1 into x's own dtype.

_COMPARISONS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
                "ge": "greater_equal"}
_NUMPY_NAME = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
               "ge": "greater_equal"}
for _name, _alias in _COMPARISONS.items():
    _f = (lambda np_name: lambda xp, a, b: getattr(xp, np_name)(a, b))(_NUMPY_NAME[_name])
    globals()[_name] = pointwise(f"{_name}.Tensor(Tensor self, Tensor other) -> Tensor", _f, ALWAYS_BOOL,
                                 numbers=NUMBERS_OTHER)
    globals()[_alias] = alias(_alias, _name)

_EQ = OPS["eq"][0]
_NE = OPS["ne"][0]


def _equal_kernel(ks, self, other):
    # True when the sizes and every element are equal (after type promotion); nan is never equal
    if self._sizes != other._sizes:
        return False
    dt = promote((self, other), DEFAULT)[1].numpy
    xp = ARRAY_MODULES[self.device.type]
    return bool(xp.array_equal(self._data().astype(dt, copy=False), other._data().astype(dt, copy=False)))


equal_op = define("equal(Tensor self, Tensor other) -> bool")
register_kernel(equal_op, _equal_kernel)
equal = public_function(equal_op, None, "equal", 2)
bind_method("equal", tensor_method(equal_op, "equal", 2))


def _format_double(x):
    return f"{x:g}"   # as C++ prints a double


def _isclose(ks, self, other, rtol, atol, equal_nan):
    """|self - other| <= atol + rtol * |other|, made of other ops, as PyTorch's TensorCompare.cpp does."""
    if self.dtype is not other.dtype:
        raise RuntimeError(f"{self.dtype._ptname} did not match {other.dtype._ptname}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {_format_double(rtol)}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {_format_double(atol)}")
    close = eq(self, other)
    if equal_nan and self.dtype.is_floating_point:
        close = logical_or(close, logical_and(isnan(self), isnan(other)))
    if rtol == 0 and atol == 0:
        return close
    # integers and bools are compared in the default float dtype: a uint8 difference would wrap around, and
    # bool has no subtraction at all
    if not self.dtype.is_floating_point:
        self, other = self.to(_dtype.get_default_dtype()), other.to(_dtype.get_default_dtype())
    allowed_error = atol + (rtol * other).abs()
    actual_error = (self - other).abs()
    return logical_or(close, logical_and(isfinite(actual_error), actual_error <= allowed_error))


isclose_op = define("isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) "
                    "-> Tensor")
impl(isclose_op, CompositeImplicitAutograd, _isclose)
isclose = public_function(isclose_op, None, "isclose", 2)
bind_method("isclose", tensor_method(isclose_op, "isclose", 2))


def _allclose(ks, self, other, rtol, atol, equal_nan):
    close = isclose_op(self, other, rtol, atol, equal_nan)
    return bool(close._data().all())         # PyTorch: isclose(...).all().item()


allclose_op = define("allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) "
                     "-> bool")
impl(allclose_op, CompositeImplicitAutograd, _allclose)
allclose = public_function(allclose_op, None, "allclose", 2)
bind_method("allclose", tensor_method(allclose_op, "allclose", 2))


# ---- logical and bitwise ops ------------------------------------------------------------------------------
# logical_*: is each element nonzero? The result is bool. bitwise_*: the bits of integers (for bool, the
# same as logical); floats are refused.

logical_and = pointwise("logical_and(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.logical_and(a, b),
                        ALWAYS_BOOL)
logical_or = pointwise("logical_or(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.logical_or(a, b),
                       ALWAYS_BOOL)
logical_xor = pointwise("logical_xor(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.logical_xor(a, b),
                        ALWAYS_BOOL)
logical_not = pointwise("logical_not(Tensor self) -> Tensor", lambda xp, a: xp.logical_not(a), ALWAYS_BOOL)

bitwise_and = pointwise("bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor",
                        lambda xp, a, b: xp.bitwise_and(a, b),
                        late_check=not_implemented_for("bitwise_and_cpu", "floating"), numbers=NUMBERS_EITHER)
bitwise_or = pointwise("bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.bitwise_or(a, b),
                       late_check=not_implemented_for("bitwise_or_cpu", "floating"), numbers=NUMBERS_EITHER)
bitwise_xor = pointwise("bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor",
                        lambda xp, a, b: xp.bitwise_xor(a, b),
                        late_check=not_implemented_for("bitwise_xor_cpu", "floating"), numbers=NUMBERS_EITHER)
bitwise_not = pointwise("bitwise_not(Tensor self) -> Tensor", lambda xp, a: xp.invert(a),
                        late_check=not_implemented_for("bitwise_not_cpu", "floating"), out_check=exact_out_dtype)


def _left_shift(xp, a, b):
    # C leaves shifts by a negative amount or by the bit width or more undefined; PyTorch
    # (BinaryOpsKernel.cpp lshift_kernel) defines them as 0
    too_far = (b < 0) | (b >= a.dtype.itemsize * 8)
    return xp.where(too_far, 0, xp.left_shift(a, xp.where(too_far, 0, b))).astype(a.dtype)


def _right_shift(xp, a, b):
    # ... and a right shift that far as a shift by all the value bits: 0, or -1 for a negative signed number
    max_shift = a.dtype.itemsize * 8 - (1 if a.dtype.kind == "i" else 0)
    too_far = (b < 0) | (b >= max_shift)
    return xp.right_shift(a, xp.where(too_far, max_shift, b).astype(a.dtype))


bitwise_left_shift = pointwise("bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor", _left_shift,
                               late_check=not_implemented_for("lshift_cpu", bool_, "floating"),
                               numbers=NUMBERS_EITHER)
bitwise_right_shift = pointwise("bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor", _right_shift,
                                late_check=not_implemented_for("rshift_cpu", bool_, "floating"),
                                numbers=NUMBERS_EITHER)


# ---- nan and inf ------------------------------------------------------------------------------------------
# Integers and bools are never nan or inf. isnan, isinf and isfinite have no out= variant in PyTorch.


def _none_like(xp, a):
    return xp.zeros(xp.shape(a), dtype=bool)


isnan = pointwise("isnan(Tensor self) -> Tensor",
                  lambda xp, a: xp.isnan(a) if _is_floating(a) else _none_like(xp, a), ALWAYS_BOOL,
                  inplace=False, out=False)
isinf = pointwise("isinf(Tensor self) -> Tensor",
                  lambda xp, a: xp.isinf(a) if _is_floating(a) else _none_like(xp, a), ALWAYS_BOOL,
                  inplace=False, out=False)
isfinite = pointwise("isfinite(Tensor self) -> Tensor",
                     lambda xp, a: xp.isfinite(a) if _is_floating(a) else ~_none_like(xp, a), ALWAYS_BOOL,
                     inplace=False, out=False)


def _bool_out(name):
    def out_check(out, out_dtype, shape, operands):
        if out.dtype is not bool_:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
    return out_check


isposinf = pointwise("isposinf(Tensor self) -> Tensor",
                     lambda xp, a: a == xp.inf if _is_floating(a) else _none_like(xp, a), ALWAYS_BOOL,
                     inplace=False,
                     out_check=_bool_out("isposinf"))
isneginf = pointwise("isneginf(Tensor self) -> Tensor",
                     lambda xp, a: a == -xp.inf if _is_floating(a) else _none_like(xp, a), ALWAYS_BOOL,
                     inplace=False, out_check=_bool_out("isneginf"))
# signbit: is the sign bit set? True for -0.0 and for a nan with its sign bit set
signbit = pointwise("signbit(Tensor self) -> Tensor",
                    lambda xp, a: xp.signbit(a) if _is_floating(a) else xp.less(a, 0), ALWAYS_BOOL, inplace=False,
                    out_check=_bool_out("signbit"))


def _nan_to_num(xp, a, nan, posinf, neginf):
    if not _is_floating(a):
        return _copy(xp, a)
    # infinities become the largest finite numbers *of the dtype* (65504 for float16), so this op computes
    # in the dtype itself rather than in float32
    return xp.nan_to_num(a, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


def _dtype_itself(operands):
    dt = operands[0].dtype
    return dt, dt


def _nan_to_num_out(out, out_dtype, shape, operands):
    if out.dtype is not out_dtype:
        raise RuntimeError(f"nan_to_num: dtype of out: {out.dtype._ptname} should be same as input: "
                           f"{out_dtype._ptname}")


nan_to_num = pointwise("nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
                       _nan_to_num, _dtype_itself, out_check=_nan_to_num_out)
_NAN_TO_NUM, _, _NAN_TO_NUM_OUT = OPS["nan_to_num"]


def _nan_to_num_kernel(ks, self, nan, posinf, neginf):
    # UnaryOps.cpp: the result is `empty_like(self)` (laid out like self, as `clone` is), filled by the out= op
    out = empty(self._sizes, self.dtype, self.device, preserve_strides(self))
    return call(_NAN_TO_NUM_OUT, (self, nan, posinf, neginf, out))


register_kernel(_NAN_TO_NUM, _nan_to_num_kernel)


# ---- Python operators -------------------------------------------------------------------------------------
# As in torch/_tensor.py and python_variable_methods.cpp: each operator calls the op, the reflected form
# (`2 / x`, called as x.__rtruediv__(2)) swaps the operands, and the augmented form (`x /= y`) calls the
# in-place op, which returns x itself. Two reflected ones are written differently in PyTorch, and so here:
# `n / x` is `x.reciprocal() * n`, and `n - x` is `rsub` (pointwise.py).

_RECIPROCAL = OPS["reciprocal"][0]
_MUL = OPS["mul"][0]


def _rtruediv(self, other):
    if isinstance(other, np.ndarray):      # PyTorch's `self.reciprocal() * other`: NumPy then multiplies
        return call(_RECIPROCAL, (self,)) * other
    other = operand_or_none(other)
    if other is None:
        return NotImplemented
    return call(_MUL, (call(_RECIPROCAL, (self,)), other))


_OPERATORS = {   # Python's name -> the op
    "truediv": "div", "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift",
}
for _py, _name in _OPERATORS.items():
    _op, _inplace_op, _ = OPS[_name]
    setattr(Tensor, f"__{_py}__", binary_operator(_op))
    setattr(Tensor, f"__i{_py}__", binary_operator(_inplace_op))
    if _py != "truediv":
        setattr(Tensor, f"__r{_py}__", binary_operator(_op, reflected=True))
Tensor.__rtruediv__ = _rtruediv
Tensor.__div__, Tensor.__rdiv__, Tensor.__idiv__ = Tensor.__truediv__, Tensor.__rtruediv__, Tensor.__itruediv__

for _py, _name in (("eq", "eq"), ("ne", "ne"), ("lt", "lt"), ("le", "le"), ("gt", "gt"), ("ge", "ge")):
    # (with a NumPy array, PyTorch's `==` compares as tensors; its `!=` ends in Python's identity test, a bool)
    setattr(Tensor, f"__{_py}__", binary_operator(OPS[_name][0], arrays=_py == "eq"))

_POSITIVE, _ABS, _BITWISE_NOT = positive_op, OPS["abs"][0], OPS["bitwise_not"][0]


def _invert(self):
    if self.dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return call(_BITWISE_NOT, (self,))


Tensor.__pos__ = lambda self: call(_POSITIVE, (self,))
Tensor.__abs__ = lambda self: call(_ABS, (self,))
Tensor.__invert__ = _invert


__all__ = [
    "div", "divide", "true_divide", "floor_divide", "remainder", "fmod",
    "pow", "float_power", "square",
    *_FLOAT_FUNCTIONS, "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
    "abs", "absolute", "sign", "sgn", "relu", "floor", "ceil", "round", "trunc", "fix", "frac", "positive",
    "atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "copysign", "xlogy", "nextafter",
    "maximum", "minimum", "fmax", "fmin",
    "clamp", "clip", "clamp_min", "clamp_max",
    "where", "lerp", "addcmul", "addcdiv",
    *_COMPARISONS, *_COMPARISONS.values(), "equal", "isclose", "allclose",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
    "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "nan_to_num",
]
