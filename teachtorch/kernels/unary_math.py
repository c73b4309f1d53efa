"""The arithmetic of the elementwise ops of one tensor: `exp`, `sin`, `abs`, `floor`, `isnan`, ...

Each function is the `compute(xp, a)` of one op declared in ops/pointwise_unary.py, pointwise_rounding.py or
pointwise_nan_inf.py, run by kernels/pointwise.py `PointwiseKernel` on an array (or NumPy scalar) already cast
to the compute dtype; `xp` is NumPy or CuPy. Most are one NumPy call under PyTorch's name (`asin` is
`xp.arcsin`); the others hold what PyTorch computes differently from NumPy (integers are already whole, so
`floor` copies them; `sign` of nan is 0).

PyTorch's counterparts: aten/src/ATen/native/cpu/UnaryOpsKernel.cpp and UnaryOps.cpp, with the dtype
dispatch of each kernel (AT_DISPATCH_FLOATING_TYPES...).
"""

import numpy as np

from .pointwise_math import copy, is_floating, none_like


# ---- exponentials and logarithms -----------------------------------------------------------------------------------


def exp(xp, a):
    return xp.exp(a)


def exp2(xp, a):
    return xp.exp2(a)


def expm1(xp, a):
    return xp.expm1(a)


def log(xp, a):
    return xp.log(a)


def log2(xp, a):
    return xp.log2(a)


def log10(xp, a):
    return xp.log10(a)


def log1p(xp, a):
    return xp.log1p(a)


def sqrt(xp, a):
    return xp.sqrt(a)


def rsqrt(xp, a):
    return 1 / xp.sqrt(a)


def reciprocal(xp, a):
    return xp.reciprocal(a)


# ---- trigonometric and hyperbolic functions ------------------------------------------------------------------------


def sin(xp, a):
    return xp.sin(a)


def cos(xp, a):
    return xp.cos(a)


def tan(xp, a):
    return xp.tan(a)


def asin(xp, a):
    return xp.arcsin(a)


def acos(xp, a):
    return xp.arccos(a)


def atan(xp, a):
    return xp.arctan(a)


def sinh(xp, a):
    return xp.sinh(a)


def cosh(xp, a):
    return xp.cosh(a)


def tanh(xp, a):
    return xp.tanh(a)


def asinh(xp, a):
    return xp.arcsinh(a)


def acosh(xp, a):
    return xp.arccosh(a)


def atanh(xp, a):
    return xp.arctanh(a)


# ---- activations and signs -----------------------------------------------------------------------------------------


def sigmoid(xp, a):
    return 1 / (1 + xp.exp(-a))


def relu(xp, a):
    return xp.maximum(a, 0)


def neg(xp, a):
    return xp.negative(a)


def abs(xp, a):
    return xp.abs(a)


def square(xp, a):
    return xp.multiply(a, a)


# ---- rounding, signs, special values -------------------------------------------------------------------------------


def sinc(xp, a):
    # sin(pi x) / (pi x), and 1 at 0 (UnaryOpsKernel.cpp computes pi * x in the input's float type)
    x = a * xp.pi
    return xp.where(a == 0, 1, xp.sin(x) / x)


# floor, ceil, round, trunc: integers are already whole, so they are copied as they are


def floor(xp, a):
    return xp.floor(a) if is_floating(a) else copy(xp, a)


def ceil(xp, a):
    return xp.ceil(a) if is_floating(a) else copy(xp, a)


def trunc(xp, a):
    return xp.trunc(a) if is_floating(a) else copy(xp, a)


def rint(xp, a):
    return xp.rint(a) if is_floating(a) else copy(xp, a)


def frac(xp, a):
    return a - xp.trunc(a)


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


# ---- nan and inf ---------------------------------------------------------------------------------------------------


def isnan(xp, a):
    return xp.isnan(a) if is_floating(a) else none_like(xp, a)


def isinf(xp, a):
    return xp.isinf(a) if is_floating(a) else none_like(xp, a)


def isfinite(xp, a):
    return xp.isfinite(a) if is_floating(a) else ~none_like(xp, a)


def isposinf(xp, a):
    return a == xp.inf if is_floating(a) else none_like(xp, a)


def isneginf(xp, a):
    return a == -xp.inf if is_floating(a) else none_like(xp, a)


def signbit(xp, a):
    return xp.signbit(a) if is_floating(a) else xp.less(a, 0)


# ---- logical and bitwise not ---------------------------------------------------------------------------------------


def logical_not(xp, a):
    return xp.logical_not(a)


def bitwise_not(xp, a):
    return xp.invert(a)
