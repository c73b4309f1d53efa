"""Elementwise powers: `pow` (`**`), `float_power`, `square`.

Made by `pointwise(...)` (pointwise.py) like every elementwise op; PyTorch's are in
aten/src/ATen/native/Pow.cpp (the overloads and their checks) and cpu/PowKernel.cpp, Pow.h (the arithmetic,
here kernels/pointwise_math.py `power`). What they do around the arithmetic:

* Integer powers are computed exactly by repeated squaring, and a negative integer exponent gives the exact
  result truncated toward zero (`powi`); but a negative Python int exponent of an integer tensor is refused.
* `float_power` is pow in float64 (its inputs converted first), `square` is `x ** 2`: both made of pow.
* `x ** 0.5` and `x ** -0.5` with a Python number are sqrt and 1 / sqrt, as PowKernel.cpp computes them.
"""

from .._dtype import bool_, float64
from .._tensor import Tensor
from ..kernels import pointwise_math
from ..dispatch.dispatcher import call
from ..kernels.pointwise import PowKernel
from ._define import bind_method, composite_op
from .binding import NUMBERS_EITHER, public_function, tensor_method
from .pointwise import NUMBER_OVERLOADS, Checks, checked_scalar, pointwise, promoted_no_opmath


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


# PyTorch's three overloads, as in native_functions.yaml: `x ** y` (Tensor_Tensor), `x ** 2` (Tensor_Scalar),
# `2 ** x` (Scalar); their in-place forms are `pow_.Tensor` and `pow_.Scalar`.
_POW_INPLACE = (("Tensor_Tensor", "Tensor"), ("Tensor_Scalar", "Scalar"))
pow = pointwise("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", pointwise_math.power, promoted_no_opmath,
                checks=Checks(operands=_pow_check, late=_pow_late_check), numbers=NUMBERS_EITHER,
                number_is_operand=False, kernel=PowKernel, out_overload="Tensor_Tensor_out",
                scalar_overloads=("pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
                                  "pow.Scalar(Scalar self, Tensor exponent) -> Tensor"),
                inplace_overloads=_POW_INPLACE)


# float_power is pow computed in double: PyTorch writes its overloads (CompositeImplicitAutograd, Pow.cpp) as
# `at::pow(base.to(kDouble), exponent)`, so a trace shows `_to_copy` then pow, and the nodes are pow's.
_POW = NUMBER_OVERLOADS["pow"]      # number pattern -> (pow, pow_, pow out=)


def _double(x):
    return float(x) if not isinstance(x, Tensor) else x.to(float64)


def _check_double(t, what):
    if t.dtype is not float64:
        raise RuntimeError(f"the {what} has dtype {t.dtype._ptname} but the operation's result requires dtype Double")


def _float_power_kernel(pattern):
    def float_power_kernel(self, exponent):
        return call(_POW[pattern][0], (_double(self), _double(exponent)))
    return float_power_kernel


def _float_power_inplace_kernel(pattern):
    def float_power_inplace_kernel(self, exponent):
        _check_double(self, "base given to float_power_")
        return call(_POW[pattern][1], (self, _double(exponent)))
    return float_power_inplace_kernel


def _float_power_out_kernel(pattern):
    def float_power_out_kernel(self, exponent, out):
        _check_double(out, "output given to float_power")
        return call(_POW[pattern][2], (_double(self), _double(exponent), out))
    return float_power_out_kernel


_FLOAT_POWER = {}    # number pattern -> (float_power, float_power_ or None, float_power out=)
for _pattern, _overload, _self, _exponent, _inplace in (((False, False), "Tensor_Tensor", "Tensor", "Tensor", "Tensor"),
                                                       ((False, True), "Tensor_Scalar", "Tensor", "Scalar", "Scalar"),
                                                       ((True, False), "Scalar", "Scalar", "Tensor", None)):
    _FLOAT_POWER[_pattern] = (
        composite_op(f"float_power.{_overload}({_self} self, {_exponent} exponent) -> Tensor",
                     _float_power_kernel(_pattern)),
        _inplace and composite_op(f"float_power_.{_inplace}(Tensor(a!) self, {_exponent} exponent) -> Tensor(a!)",
                                  _float_power_inplace_kernel(_pattern)),
        composite_op(f"float_power.{_overload}_out({_self} self, {_exponent} exponent, *, Tensor(a!) out) "
                     "-> Tensor(a!)", _float_power_out_kernel(_pattern)))
_FLOAT_POWER_TT, _FLOAT_POWER_INPLACE_T, _FLOAT_POWER_OUT_TT = _FLOAT_POWER[(False, False)]
float_power = public_function(_FLOAT_POWER_TT, _FLOAT_POWER_OUT_TT, "float_power", 2, NUMBERS_EITHER,
                              overloads={k: (v[0], v[2]) for k, v in _FLOAT_POWER.items()})
bind_method("float_power", tensor_method(_FLOAT_POWER_TT, "float_power", 2, NUMBERS_EITHER,
                                         {k: v[0] for k, v in _FLOAT_POWER.items()}))
bind_method("float_power_", tensor_method(_FLOAT_POWER_INPLACE_T, "float_power_", 2, NUMBERS_EITHER,
                                          {k: v[1] for k, v in _FLOAT_POWER.items() if v[1] is not None}))


# square(x) is pow(x, 2) in PyTorch (CompositeImplicitAutograd): a trace shows `pow.Tensor_Scalar`, the node
# is PowBackward0, and the promotion is pow's with the Python int 2 (bool becomes int64).
_POW_SCALAR, _POW_SCALAR_INPLACE, _POW_SCALAR_OUT = _POW[(False, True)]


def square_kernel(self):
    return call(_POW_SCALAR, (self, 2))


def square_inplace_kernel(self):
    return call(_POW_SCALAR_INPLACE, (self, 2))


def square_out_kernel(self, out):
    return call(_POW_SCALAR_OUT, (self, 2, out))


square_op = composite_op("square(Tensor self) -> Tensor", square_kernel)
square_inplace_op = composite_op("square_(Tensor(a!) self) -> Tensor(a!)", square_inplace_kernel)
square_out_op = composite_op("square.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", square_out_kernel)
square = public_function(square_op, square_out_op, "square", 1)
bind_method("square", tensor_method(square_op, "square", 1))
bind_method("square_", tensor_method(square_inplace_op, "square_", 1))


__all__ = ["pow", "float_power", "square"]
