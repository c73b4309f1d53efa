"""Elementwise powers: `pow` (`**`), `float_power`, `square`.

Made by `pointwise(...)` (pointwise.py) like every elementwise op; PyTorch's are in
aten/src/ATen/native/Pow.cpp (the overloads and their checks) and cpu/PowKernel.cpp, Pow.h (the arithmetic,
here kernels/pointwise_math.py `power`). What they do around the arithmetic:

* Integer powers are computed exactly by repeated squaring, and a negative integer exponent gives the exact
  result truncated toward zero (`powi`); but a negative Python int exponent of an integer tensor is refused.
* Type promotion has a rule of its own in two of them: `float_power` always computes in float64, `square`
  promotes like `x ** 2` (bool becomes int64).
* `x ** 0.5` and `x ** -0.5` with a Python number are sqrt and 1 / sqrt, as PowKernel.cpp computes them.
"""

from .._dtype import bool_, float64
from .._tensor import Tensor
from ..kernels import pointwise_math, unary_math
from ..kernels.pointwise import DEFAULT, PowKernel, check_inplace_shape_and_dtype, promote
from .binding import NUMBERS_EITHER
from .pointwise import Checks, checked_scalar, pointwise, promoted_no_opmath


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


pow = pointwise("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", pointwise_math.power, promoted_no_opmath,
                checks=Checks(operands=_pow_check, late=_pow_late_check), numbers=NUMBERS_EITHER,
                number_is_operand=False, kernel=PowKernel)


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
float_power = pointwise("float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", pointwise_math.power,
                        _double, checks=Checks(inplace=_float_power_inplace_check, out=_float_power_out_check),
                        numbers=NUMBERS_EITHER, number_is_operand=False, kernel=PowKernel)


def _like_times_two(operands):
    # square(x) is pow(x, 2): promoted with the Python int 2, so bool gives int64
    return promote((operands[0], 2), DEFAULT)


square = pointwise("square(Tensor self) -> Tensor", unary_math.square, _like_times_two)


__all__ = ["pow", "float_power", "square"]
