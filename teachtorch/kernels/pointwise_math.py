"""The array code of the elementwise ops: what PyTorch's cpu kernels compute where NumPy computes otherwise.

Each function here is the `fn(xp, *operands, *params)` of one elementwise op (or a helper of several), run by
kernels/pointwise.py `run` on arrays (or NumPy scalars) already cast to the compute dtype; the ops that use
them are declared in ops/pointwise*.py (the functions of one tensor are in unary_math.py). Many are one NumPy
call under PyTorch's name (`eq` is `xp.equal`); the others hold what PyTorch computes differently from NumPy
(integer division by zero, negative integer powers, shifts past the bit width, `pow(-0.0, 0.5)`), or a
formula of several calls.

PyTorch's counterparts: aten/src/ATen/native/cpu/BinaryOpsKernel.cpp (add, div, remainder, fmod, shifts,
xlogy), PowKernel.cpp and Pow.h (pow), TensorCompare.cpp
(clamp, where), Lerp.h (lerp), PointwiseOpsKernel.cpp (addcmul, addcdiv).
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


# ---- add, sub, mul ------------------------------------------------------------------------------------------


def scaled(xp, b, alpha):
    # alpha is converted to the compute dtype first, as the C++ kernel does (`alpha.to<opmath_t>()`); a
    # negative alpha for an unsigned type wraps around, as in PyTorch.
    return xp.multiply(b, xp.asarray(alpha).astype(xp.result_type(b)))


def add(xp, a, b, alpha):
    return xp.add(a, b) if alpha == 1 else xp.add(a, scaled(xp, b, alpha))


def sub(xp, a, b, alpha):
    return xp.subtract(a, b) if alpha == 1 else xp.subtract(a, scaled(xp, b, alpha))


def mul(xp, a, b):
    return xp.multiply(a, b)


def rsub(xp, a, b, alpha):
    return sub(xp, b, a, alpha)


# ---- division -----------------------------------------------------------------------------------------------


def no_integer_zero_division(xp, dividend, divisor):
    # C++ integer division by zero is undefined behaviour; PyTorch checks each element it divides and
    # raises this (an empty result divides nothing). `.any()`, not `xp.any`: a number divisor is a NumPy
    # scalar, and CuPy's `any` takes only device arrays.
    if xp.broadcast(dividend, divisor).size and (divisor == 0).any():
        raise RuntimeError("ZeroDivisionError")


def div_mode(xp, a, b, rounding_mode):
    """`a / b` rounded toward zero ("trunc") or toward -inf ("floor")."""
    if a.dtype == np.float16:
        # float16 computes in float32; but where the divisor is a tensor with dimensions (not a number),
        # PyTorch's vectorized trunc kernel rounds the quotient to float16 before truncating it
        q = xp.true_divide(a.astype(np.float32), b.astype(np.float32))
        if rounding_mode == "trunc":
            return xp.trunc(q.astype(np.float16) if xp.ndim(b) > 0 else q)
        return floor_divide_floating(xp, a.astype(np.float32), b.astype(np.float32))
    if is_integer(a):
        no_integer_zero_division(xp, a, b)
        q = xp.floor_divide(a, b)              # NumPy's integer // rounds toward -inf, like Python
        if rounding_mode == "trunc":
            # floor and trunc differ when the division is inexact and the signs differ: step back toward zero
            q = q + ((xp.remainder(a, b) != 0) & xp.not_equal(a < 0, b < 0))   # (a may be a NumPy scalar)
        return q
    if rounding_mode == "floor":
        return floor_divide_floating(xp, a, b)
    return xp.trunc(xp.true_divide(a, b))


def floor_divide_floating(xp, a, b):
    """PyTorch's `div_floor_floating` (c10/util/generic_math.h), CPython's float `//`: the quotient of the exact
    remainder (fmod), rounded to the nearest integer. NumPy's float floor_divide computes the same; CuPy's
    computes floor(a / b) (cupy/_core/include/cupy/carray.cuh), which rounds twice (1.0 // 0.1 is 10.0, not
    9.0) and gives inf where this gives nan (inf // 2), so it is written out here for both."""
    mod = xp.fmod(a, b)
    div = xp.true_divide(xp.subtract(a, mod), b)
    # (xp.not_equal, not `!=`: `b` may be a NumPy scalar, which must not lead a CuPy expression)
    div = xp.where((mod != 0) & xp.not_equal(b < 0, mod < 0), div - 1, div)
    floordiv = xp.floor(div)
    floordiv = xp.where(div - floordiv > 0.5, floordiv + 1, floordiv)
    quotient = xp.true_divide(a, b)          # also the IEEE result of a division by zero (inf or nan)
    floordiv = xp.where(div == 0, xp.copysign(0, quotient), floordiv)
    return xp.where(xp.equal(b, 0), quotient, floordiv).astype(quotient.dtype)


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
        # C's integer %: a - trunc(a / b) * b. (Not xp.fmod: CuPy's integer fmod goes through double,
        # cupy/_math/arithmetic.py, which is inexact for int64 beyond 2**53.)
        return xp.subtract(a, xp.multiply(div_mode(xp, a, b, "trunc"), b))
    return xp.fmod(a, b)                      # C's fmod: the result takes the dividend's sign


def div(xp, a, b):
    return xp.true_divide(a, b)


def floor_divide(xp, a, b):
    return div_mode(xp, a, b, "floor")


# ---- powers -------------------------------------------------------------------------------------------------


def integer_pow(xp, a, b):
    # NumPy refuses negative integer exponents. PyTorch's `powi` (aten/src/ATen/native/Pow.h) gives the
    # exact result truncated toward zero: 1 ** -n == 1, (-1) ** -n == +-1, and 0 for every other base.
    negative = b < 0
    result = xp.power(a, xp.where(negative, 0, b))
    if negative.any():                     # (b may be a NumPy scalar, which `xp.any` on CuPy refuses)
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
    # (xp.asarray: either may be a number, a NumPy scalar, and CuPy's broadcast_to takes only device arrays)
    base = xp.broadcast_to(xp.asarray(a), shape).reshape(-1)
    exponent = xp.broadcast_to(xp.asarray(b), shape).reshape(-1).copy()
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


def atan2(xp, a, b):
    return xp.arctan2(a, b)


def hypot(xp, a, b):
    return xp.hypot(a, b)


def logaddexp(xp, a, b):
    return xp.logaddexp(a, b)


def logaddexp2(xp, a, b):
    return xp.logaddexp2(a, b)


def copysign(xp, a, b):
    return xp.copysign(a, b)


def nextafter(xp, a, b):
    result = xp.nextafter(a, b)
    if a.dtype == np.float16:
        # C's nextafter (NumPy's, PyTorch's) returns y where x == y, and steps from an infinite x to the
        # largest finite value; CuPy's float16 one (cupy/_core/include/cupy/float16.cuh) returns x there, and
        # nan for any infinite x, so both are spelled out
        largest = np.finfo(np.float16).max
        result = xp.where(xp.equal(a, b), b, result)
        from_inf = xp.isinf(a) & xp.not_equal(a, b) & ~xp.isnan(b)
        result = xp.where(from_inf, xp.where(a > 0, largest, -largest), result).astype(np.float16)
    return result


def maximum(xp, a, b):
    return xp.maximum(a, b)


def minimum(xp, a, b):
    return xp.minimum(a, b)


def fmax(xp, a, b):
    return xp.fmax(a, b)


def fmin(xp, a, b):
    return xp.fmin(a, b)


# ---- functions of three tensors -----------------------------------------------------------------------------


def clamp(xp, a, lo, hi):
    # maximum, then minimum: nan stays nan, and lo > hi gives hi everywhere (a None bound is absent)
    if lo is not None:
        a = xp.maximum(a, lo)
    if hi is not None:
        a = xp.minimum(a, hi)
    return a


def lerp(xp, start, end, weight):
    # aten/src/ATen/native/Lerp.h `lerp`: two formulas, so that weight 0 gives exactly start and weight 1 exactly
    # end; each element takes the one its |weight| < 0.5 picks.
    if type(weight) is not xp.ndarray or (xp is np and weight.ndim == 0):
        # One weight for every element (a Python number, PyTorch's lerp.Scalar and `lerp_kernel_scalar`, or a
        # 0-dim host array): one formula for the whole tensor, so only that one is computed
        if abs(weight) < 0.5:
            return start + weight * (end - start)
        return end - (end - start) * (1 - weight)
    return xp.where(xp.abs(weight) < 0.5, start + weight * (end - start), end - (end - start) * (1 - weight))


def addcmul(xp, a, t1, t2, value):
    return a + xp.asarray(value).astype(a.dtype) * t1 * t2


def addcdiv(xp, a, t1, t2, value):
    return a + xp.asarray(value).astype(a.dtype) * t1 / t2


def clamp_min(xp, a, lo):
    return xp.maximum(a, lo)


def clamp_max(xp, a, hi):
    return xp.minimum(a, hi)


def where(xp, c, a, b):
    return xp.where(c, a, b)


def threshold_backward(xp, g, a, threshold):
    """`a <= threshold ? 0 : g` (PyTorch's threshold kernel, cpu/Activation.cpp), for ReLU's backward.

    The select is done on the bits: each element of `g` is ANDed with all ones (kept) or all zeros (+0.0), an
    exact select (NaN, inf and -0.0 in g are kept where kept). `xp.where` gives the same values, but branches
    per element, and a ReLU's mask is as good as random to a branch predictor: about 2.5x slower."""
    ints = _SAME_SIZE_INT.get(g.dtype.itemsize)
    if ints is None:                # (complex128: no integer that wide)
        return xp.where(a <= threshold, xp.zeros((), g.dtype), g)
    keep = xp.negative((~(a <= threshold)).astype(ints))           # -1 = all bits set, 0 = none
    return xp.bitwise_and(g.view(ints), keep).view(g.dtype)


_SAME_SIZE_INT = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


# ---- comparisons --------------------------------------------------------------------------------------------


def eq(xp, a, b):
    return xp.equal(a, b)


def ne(xp, a, b):
    return xp.not_equal(a, b)


def lt(xp, a, b):
    return xp.less(a, b)


def le(xp, a, b):
    return xp.less_equal(a, b)


def gt(xp, a, b):
    return xp.greater(a, b)


def ge(xp, a, b):
    return xp.greater_equal(a, b)



# ---- logical and bitwise ------------------------------------------------------------------------------------


def logical_and(xp, a, b):
    return xp.logical_and(a, b)


def logical_or(xp, a, b):
    return xp.logical_or(a, b)


def logical_xor(xp, a, b):
    return xp.logical_xor(a, b)


def bitwise_and(xp, a, b):
    return xp.bitwise_and(a, b)


def bitwise_or(xp, a, b):
    return xp.bitwise_or(a, b)


def bitwise_xor(xp, a, b):
    return xp.bitwise_xor(a, b)



# ---- a kernel of its own --------------------------------------------------------------------------------


def equal_kernel(ks, self, other):
    """torch.equal: True when the sizes and every element are equal (after type promotion); nan is never equal."""
    if self._sizes != other._sizes:
        return False
    dt = promote((self, other), DEFAULT)[1].numpy
    xp = ARRAY_MODULES[self.device.type]
    return bool(xp.array_equal(self._data().astype(dt, copy=False), other._data().astype(dt, copy=False)))
