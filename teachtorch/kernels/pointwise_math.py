"""The array code of the elementwise ops: what PyTorch's cpu kernels compute where NumPy computes otherwise.

Each function here is the `fn(xp, *operands, *params)` of one elementwise op (or a helper of several), run by
kernels/pointwise.py `run` on arrays (or NumPy scalars) already cast to the compute dtype; the ops that use
them are declared in ops/pointwise*.py. A one-call op (`lambda xp, a: xp.exp(a)`) is written in its
declaration; what is here needs more: PyTorch's answer differs from NumPy's (integer division by zero, negative
integer powers, shifts past the bit width, `pow(-0.0, 0.5)`), or the op is a formula of several calls.

PyTorch's counterparts: aten/src/ATen/native/cpu/BinaryOpsKernel.cpp (add, div, remainder, fmod, shifts,
xlogy), PowKernel.cpp and Pow.h (pow), UnaryOpsKernel.cpp (sinc, sign, round, nan_to_num), TensorCompare.cpp
(clamp), Lerp.h (lerp), PointwiseOpsKernel.cpp (addcmul, addcdiv).
"""

import numpy as np

from ..backends import ARRAY_MODULES
from .pointwise import DEFAULT, promote


def is_integer(a):
    """Is this array (or NumPy scalar) of an integer type (not bool, not floating)?"""
    return a.dtype.kind in "iu"


def is_floating(a):
    return a.dtype.kind == "f"


def copy(xp, a):
    # The result must be a fresh array: the operand may be the input tensor's own memory.
    return xp.array(a, copy=True)


def none_like(xp, a):
    """All False, in `a`'s shape: integers and bools are never nan or inf."""
    return xp.zeros(xp.shape(a), dtype=bool)


# ---- add, sub ---------------------------------------------------------------------------------------------


def scaled(xp, b, alpha):
    # alpha is converted to the compute dtype first, as the C++ kernel does (`alpha.to<opmath_t>()`); a
    # negative alpha for an unsigned type wraps around, as in PyTorch.
    return xp.multiply(b, xp.asarray(alpha).astype(xp.result_type(b)))


def add(xp, a, b, alpha):
    return xp.add(a, b) if alpha == 1 else xp.add(a, scaled(xp, b, alpha))


def sub(xp, a, b, alpha):
    return xp.subtract(a, b) if alpha == 1 else xp.subtract(a, scaled(xp, b, alpha))


# ---- division -----------------------------------------------------------------------------------------------


def no_integer_zero_division(xp, dividend, divisor):
    # C++ integer division by zero is undefined behaviour; PyTorch checks each element it divides and
    # raises this (an empty result divides nothing)
    if xp.broadcast(dividend, divisor).size and xp.any(divisor == 0):
        raise RuntimeError("ZeroDivisionError")


def div_mode(xp, a, b, rounding_mode):
    """`a / b` rounded toward zero ("trunc") or toward -inf ("floor")."""
    if a.dtype == np.float16:
        # float16 computes in float32; but where the divisor is a tensor with dimensions (not a number),
        # PyTorch's vectorized trunc kernel rounds the quotient to float16 before truncating it
        q = xp.true_divide(a.astype(np.float32), b.astype(np.float32))
        if rounding_mode == "trunc":
            return xp.trunc(q.astype(np.float16) if xp.ndim(b) > 0 else q)
        return xp.floor_divide(a.astype(np.float32), b.astype(np.float32))
    if is_integer(a):
        no_integer_zero_division(xp, a, b)
        q = xp.floor_divide(a, b)              # NumPy's integer // rounds toward -inf, like Python
        if rounding_mode == "trunc":
            # floor and trunc differ when the division is inexact and the signs differ: step back toward zero
            q = q + ((xp.remainder(a, b) != 0) & xp.not_equal(a < 0, b < 0))   # (a may be a NumPy scalar)
        return q
    if rounding_mode == "floor":
        # NumPy's float floor_divide is CPython's algorithm, which PyTorch's div_floor_floating copies
        return xp.floor_divide(a, b)
    return xp.trunc(xp.true_divide(a, b))


def remainder(xp, a, b):
    if is_integer(a):
        no_integer_zero_division(xp, a, b)
        return xp.remainder(a, b)             # NumPy's integer % takes the divisor's sign, like Python
    # PyTorch's float remainder (BinaryOpsKernel.cpp): C's fmod, then moved into the divisor's sign
    mod = xp.fmod(a, b)
    # (xp.not_equal, not `!=`: `b` may be a NumPy scalar, which must not lead a CuPy expression)
    return xp.where((mod != 0) & xp.not_equal(mod < 0, b < 0), mod + b, mod)


def fmod(xp, a, b):
    if is_integer(a):
        no_integer_zero_division(xp, a, b)
    return xp.fmod(a, b)                      # C's fmod: the result takes the dividend's sign


# ---- powers -------------------------------------------------------------------------------------------------


def integer_pow(xp, a, b):
    # NumPy refuses negative integer exponents. PyTorch's `powi` (aten/src/ATen/native/Pow.h) gives the
    # exact result truncated toward zero: 1 ** -n == 1, (-1) ** -n == +-1, and 0 for every other base.
    negative = b < 0
    result = xp.power(a, xp.where(negative, 0, b))
    if xp.any(negative):
        odd = (b % 2) != 0
        small = xp.where(a == 1, 1, xp.where(a == -1, xp.where(odd, -1, 1), 0))
        result = xp.where(negative, small, result).astype(result.dtype)
    return result


def float_pow(xp, a, b):
    """IEEE pow, where pow(-0.0, 0.5) is 0 and pow(-inf, 0.5) is inf.

    NumPy computes `x ** 0.5` as sqrt(x) (which gives -0.0 and nan there) whenever the exponent is one number,
    even a broadcast one; a full array of exponents gets the real pow.
    """
    shape = xp.broadcast_shapes(xp.shape(a), xp.shape(b))
    base = xp.broadcast_to(a, shape).reshape(-1)
    exponent = xp.broadcast_to(b, shape).reshape(-1).copy()
    return xp.power(base, exponent).reshape(shape)


def power(xp, a, b):
    """`a ** b` as PyTorch's pow computes it, for every dtype."""
    if a.dtype == np.bool_:
        # only reached for a bool tensor and a Python bool exponent (PyTorch has no bool ** bool kernel)
        return xp.logical_or(a, xp.logical_not(b))
    if is_integer(a):
        return integer_pow(xp, a, b)
    if a.dtype == np.float16:
        # float16 is computed in float32, with the real pow whatever the exponent
        return float_pow(xp, a.astype(np.float32), xp.asarray(b).astype(np.float32))
    if isinstance(b, np.generic) and b in (0.5, -0.5):
        # a Python number exponent (pow.Tensor_Scalar): PowKernel.cpp takes x ** 0.5 as sqrt(x) and
        # x ** -0.5 as 1 / sqrt(x), which differ from pow at -0.0 and -inf
        return xp.sqrt(a) if b == 0.5 else 1 / xp.sqrt(a)
    if isinstance(b, np.generic):
        # any other single exponent: NumPy's own shortcuts for it (2: square, -1: reciprocal, 1, 0) agree
        # with IEEE pow, so no need to spell the exponent out element by element as float_pow does
        return xp.power(a, b)
    return float_pow(xp, a, b)


# ---- functions of one tensor ----------------------------------------------------------------------------


def sinc(xp, a):
    # sin(pi x) / (pi x), and 1 at 0 (UnaryOpsKernel.cpp computes pi * x in the input's float type)
    x = a * xp.pi
    return xp.where(a == 0, 1, xp.sin(x) / x)


def rounding(np_name):
    """floor, ceil, round, trunc: integers are already whole, so they are copied as they are."""
    def fn(xp, a):
        return getattr(xp, np_name)(a) if is_floating(a) else copy(xp, a)
    return fn


def sign(xp, a):
    if a.dtype == np.bool_:
        return copy(xp, a)
    # (0 < a) - (a < 0), as PyTorch computes it: nan and -0.0 both give 0
    return (a > 0).astype(a.dtype) - (a < 0).astype(a.dtype)


def round_decimals(xp, a, decimals):
    # UnaryOpsKernel.cpp round_decimals_kernel: scale, round to even, scale back
    ten_pow = xp.asarray(10.0 ** (decimals if decimals >= 0 else -decimals)).astype(a.dtype)
    if decimals >= 0:
        return xp.rint(a * ten_pow) / ten_pow
    return xp.rint(a / ten_pow) * ten_pow


def nan_to_num(xp, a, nan, posinf, neginf):
    if not is_floating(a):
        return copy(xp, a)
    # infinities become the largest finite numbers *of the dtype* (65504 for float16), so this op computes
    # in the dtype itself rather than in float32
    return xp.nan_to_num(a, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


# ---- functions of two tensors -----------------------------------------------------------------------------


def xlogy(xp, x, y):
    # x * log(y), defined as 0 where x == 0 (even for y == 0), and nan where y is nan
    return xp.where(xp.isnan(y), xp.nan, xp.where(x == 0, 0, x * xp.log(y)))


def left_shift(xp, a, b):
    # C leaves shifts by a negative amount or by the bit width or more undefined; PyTorch
    # (BinaryOpsKernel.cpp lshift_kernel) defines them as 0
    too_far = (b < 0) | (b >= a.dtype.itemsize * 8)
    return xp.where(too_far, 0, xp.left_shift(a, xp.where(too_far, 0, b))).astype(a.dtype)


def right_shift(xp, a, b):
    # ... and a right shift that far as a shift by all the value bits: 0, or -1 for a negative signed number
    max_shift = a.dtype.itemsize * 8 - (1 if a.dtype.kind == "i" else 0)
    too_far = (b < 0) | (b >= max_shift)
    return xp.right_shift(a, xp.where(too_far, max_shift, b).astype(a.dtype))


# ---- functions of three tensors -----------------------------------------------------------------------------


def clamp(xp, a, lo, hi):
    # maximum, then minimum: nan stays nan, and lo > hi gives hi everywhere (a None bound is absent)
    if lo is not None:
        a = xp.maximum(a, lo)
    if hi is not None:
        a = xp.minimum(a, hi)
    return a


def lerp(xp, start, end, weight):
    # aten/src/ATen/native/Lerp.h: two formulas, so that weight 0 gives exactly start and weight 1 exactly end
    return xp.where(xp.abs(weight) < 0.5, start + weight * (end - start), end - (end - start) * (1 - weight))


def addcmul(xp, a, t1, t2, value):
    return a + xp.asarray(value).astype(a.dtype) * t1 * t2


def addcdiv(xp, a, t1, t2, value):
    return a + xp.asarray(value).astype(a.dtype) * t1 / t2


# ---- a kernel of its own --------------------------------------------------------------------------------


def equal_kernel(ks, self, other):
    """torch.equal: True when the sizes and every element are equal (after type promotion); nan is never equal."""
    if self._sizes != other._sizes:
        return False
    dt = promote((self, other), DEFAULT)[1].numpy
    xp = ARRAY_MODULES[self.device.type]
    return bool(xp.array_equal(self._data().astype(dt, copy=False), other._data().astype(dt, copy=False)))
