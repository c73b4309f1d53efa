"""Backward formulas of the elementwise ops.

An elementwise op computes each output element from the input elements at the same position, so its
Jacobian is diagonal: the backward of `y = f(x)` is just `grad * f'(x)`, element by element. What a formula
has to choose is what to save for f':

* the input, when f' is written in terms of x: `sin -> grad * self.cos()`;
* the output, when that is cheaper or more exact: `exp -> grad * result`, `sqrt -> grad / (2 * result)`,
  `tanh -> grad * (1 - result**2)`, `sigmoid -> grad * (1 - result) * result`.

Binary ops broadcast their inputs, so a formula may return a gradient of the broadcast shape: the engine
sums it back to each input's shape (undoing the broadcast) and converts it to the input's dtype. So
`x * y` with x of shape (3, 4) and y of shape (4,) needs no more than `grad * x` for y.

Where f has a kink or a jump, PyTorch picks a value and so do we: `abs'(0) = sign(0) = 0`, `relu'(0) = 0`,
clamp passes the gradient *at* the boundary, `maximum(a, a)` splits it evenly between both inputs, and
`sqrt'(0)` is `inf`. Piecewise constant functions (floor, round, sign, ...) have a zero gradient, and
`frac(x) = x - trunc(x)` passes it through unchanged.

PyTorch often has several overloads of one op, each with its own entry in derivatives.yaml and its own
node name: `pow.Tensor_Scalar` (x ** 2, PowBackward0), `pow.Tensor_Tensor` (x ** y, PowBackward1) and
`pow.Scalar` (2 ** x, PowBackward2). So does teachtorch (ops/pointwise.py `define_pointwise` makes each
overload an op), and each overload has its own entry here. A formula where PyTorch's C++ meets a number
calls the Scalar overload by name (`mul_scalar(t, 2.0)` below): in C++ `2.0 * t` is `mul.Scalar`, while
from Python `2.0 * t` wraps the number in a tensor and runs `mul.Tensor`.

Every formula is made of teachtorch ops, so it is differentiable in turn (gradients of gradients).
"""

import math

from ... import ops
from ...ops.pointwise_rounding import threshold_backward
from ..._tensor import Tensor
from ...dispatch.dispatcher import lookup
from ...ops.factories import scalar_tensor_op
from ..derivative import derivative, no_formula

# The Scalar overloads, as C++ calls them: `at::mul(t, 2.0)` is mul.Scalar, `t.pow(2.0)` pow.Tensor_Scalar
add_scalar, sub_scalar, mul_scalar, div_scalar = (lookup(f"{n}.Scalar") for n in ("add", "sub", "mul", "div"))
pow_scalar = lookup("pow.Tensor_Scalar")
tanh_backward, sigmoid_backward = lookup("tanh_backward"), lookup("sigmoid_backward")   # (ops/activation.py)


def _is_number(x):
    return not isinstance(x, Tensor)


def _not_implemented(name):
    """A formula that refuses, as PyTorch's `not_implemented(name)` does when backward reaches it."""
    def refuse(grad):
        raise RuntimeError(f"the derivative for '{name}' is not implemented.")
    return refuse


def _zeros(grad):
    return ops.zeros_like(grad)


def _zeros_for_other(grad, other_sym_sizes):
    """No gradient for `other` (saves only its shape)."""
    return grad.new_zeros(other_sym_sizes)


def _maybe_multiply(t, s):
    """`t * s`, skipped when s is 1 (alpha and value are usually 1)."""
    return t if s == 1 else t * s


def _log_number(x):
    """log of a Python number as C++ computes it: -inf at 0 and nan below."""
    x = float(x)
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


# ---- + - * / --------------------------------------------------------------------------------------------

derivative("add.Tensor", self=lambda grad: grad, other=lambda grad, alpha: _maybe_multiply(grad, alpha))
derivative("add.Scalar", name="AddBackward1", self=lambda grad: grad)
derivative("sub.Tensor", self=lambda grad: grad, other=lambda grad, alpha: _maybe_multiply(-grad, alpha))
derivative("sub.Scalar", name="SubBackward1", self=lambda grad: grad)
derivative("mul.Tensor", self=lambda grad, other: grad * other, other=lambda grad, self: grad * self)
derivative("mul.Scalar", name="MulBackward1", self=lambda grad, other: mul_scalar(grad, other))
derivative("neg", self=lambda grad: grad.neg())
# `2 - x` is rsub(x, 2): rsub.Scalar
derivative("rsub.Tensor", self=lambda grad, alpha: _maybe_multiply(-grad, alpha), other=lambda grad: grad)
derivative("rsub.Scalar", name="RsubBackward1", self=lambda grad, alpha: _maybe_multiply(-grad, alpha))


def _div_self(grad, other, rounding_mode=None):
    # rounding ("floor", "trunc") makes the quotient piecewise constant
    return grad / other if rounding_mode is None else _zeros(grad)


def _div_other(grad, self, other, rounding_mode=None):
    return -grad * ((self / other) / other) if rounding_mode is None else _zeros(grad)


derivative("div.Tensor", self=lambda grad, other: _div_self(grad, other),
           other=lambda grad, self, other: _div_other(grad, self, other))
derivative("div.Scalar", name="DivBackward1", self=lambda grad, other: div_scalar(grad, other))
derivative("div.Tensor_mode", name="DivBackward2",
           self=lambda grad, other, rounding_mode: _div_self(grad, other, rounding_mode),
           other=lambda grad, self, other, rounding_mode: _div_other(grad, self, other, rounding_mode))

# remainder(a, b) = a - floor(a / b) * b: the quotient is piecewise constant, so d/da = 1, d/db = -floor(a/b).
derivative("remainder.Tensor", name="RemainderBackward1", self=lambda grad: grad,
           other=lambda grad, self, other: -grad * self.div(other, rounding_mode="floor"))
derivative("remainder.Scalar", self=lambda grad: grad)
# PyTorch has no formula for `2 % x` (remainder.Scalar_Tensor): backward fails there.
no_formula("remainder.Scalar_Tensor", why="no derivative in PyTorch either")
# fmod(a, b) = a - trunc(a / b) * b
derivative("fmod.Tensor", name="FmodBackward1", self=lambda grad: grad,
           other=lambda grad, self, other: -grad * self.div(other, rounding_mode="trunc"))
derivative("fmod.Scalar", self=lambda grad: grad)
# floor_divide has no formula in PyTorch either: its backward fails (the autograd fallback's error node).


# ---- powers -----------------------------------------------------------------------------------------------
# d(a^b)/da = b a^(b-1), and d(a^b)/db = a^b log(a). PyTorch's choices at the edges (FunctionsManual.cpp):
# b == 0 gives 0 for a (even at a == 0, where b a^(b-1) would be nan), and a == 0 with b >= 0 gives 0 for b
# (the limit from a > 0), so that x ** 2 at x == 0 has a finite gradient everywhere.


def _pow_backward(grad, self, exponent):
    """d/dself of self ** exponent for a number exponent: `grad * (exponent * self.pow(exponent - 1))` in C++,
    where the exponent is a double: pow.Tensor_Scalar, mul.Scalar, then mul.Tensor."""
    if exponent == 0:
        return ops.zeros_like(self)
    exponent = float(exponent)
    return grad * mul_scalar(pow_scalar(self, exponent - 1), exponent)


def _pow_backward_self(grad, self, exponent):
    return ops.where(exponent == 0.0, 0.0, grad * (exponent * self.pow(exponent - 1)))


def _pow_backward_exponent(grad, self, exponent, result):
    if _is_number(self):
        log_base = _log_number(self)
        if self == 0:
            return grad * ops.where(exponent >= 0, 0.0, mul_scalar(result, log_base))
        return grad * mul_scalar(result, log_base)          # `result * log(base)`, a number: mul.Scalar
    cond = (self == 0).logical_and(exponent >= 0)
    return grad * ops.where(cond, 0.0, result * self.to(result.dtype).log())


derivative("pow.Tensor_Tensor", name="PowBackward1", self=_pow_backward_self, exponent=_pow_backward_exponent)
derivative("pow.Tensor_Scalar", name="PowBackward0", self=_pow_backward)
derivative("pow.Scalar", name="PowBackward2", exponent=_pow_backward_exponent)
# ---- exponentials and logarithms ----------------------------------------------------------------------------

derivative("exp", self=lambda grad, result: grad * result)
derivative("exp2", self=lambda grad, result: grad * result * math.log(2))
derivative("expm1", self=lambda grad, result: grad * (result + 1))
derivative("log", self=lambda grad, self: grad.div(self))
derivative("log2", self=lambda grad, self: grad / (self * math.log(2)))
derivative("log10", self=lambda grad, self: grad / (self * math.log(10)))
derivative("log1p", name="Log1PBackward0", self=lambda grad, self: grad / (self + 1))
derivative("sqrt", self=lambda grad, result: grad / (2 * result))
derivative("rsqrt", self=lambda grad, result: -0.5 * grad * result.pow(3))
derivative("reciprocal", self=lambda grad, result: -grad * (result * result))
# sigmoid and tanh: one backward op each, from the result (derivatives.yaml), with derivatives of their own
derivative("sigmoid", self=lambda grad, result: sigmoid_backward(grad, result))
derivative("sigmoid_backward", grad_output=lambda grad, output: sigmoid_backward(grad, output),
           output=lambda grad, grad_output, output: grad * grad_output * add_scalar(mul_scalar(output, -2), 1))
# d/dx erf(x) = 2/sqrt(pi) exp(-x^2)
derivative("erf", self=lambda grad, self: 2.0 / math.sqrt(math.pi) * (-(self.pow(2))).exp() * grad)
derivative("erfc", self=lambda grad, self: -2.0 / math.sqrt(math.pi) * (-(self.pow(2))).exp() * grad)


# ---- trigonometric and hyperbolic -----------------------------------------------------------------------------

derivative("sin", self=lambda grad, self: grad * self.cos())
derivative("cos", self=lambda grad, self: grad * -self.sin())
derivative("tan", self=lambda grad, result: grad * (1 + result.pow(2)))
derivative("asin", self=lambda grad, self: grad * (-self * self + 1).rsqrt())
derivative("acos", self=lambda grad, self: grad * -((-self * self + 1).rsqrt()))
derivative("atan", self=lambda grad, self: grad / (self * self + 1))
derivative("sinh", self=lambda grad, self: grad * self.cosh())
derivative("cosh", self=lambda grad, self: grad * self.sinh())
derivative("tanh", self=lambda grad, result: tanh_backward(grad, result))
derivative("tanh_backward", grad_output=lambda grad, output: tanh_backward(grad, output),
           output=lambda grad, grad_output, output: grad * (mul_scalar(output, -2) * grad_output))
derivative("asinh", self=lambda grad, self: grad * (self.pow(2) + 1).rsqrt())
derivative("acosh", self=lambda grad, self: grad * (self * self - 1).rsqrt())
derivative("atanh", self=lambda grad, self: grad * 1 / (1 - self.pow(2)))
# PyTorch refuses the backward of these three in place (derivatives.yaml has an entry saying so)
for _name in ("acosh", "asinh", "atanh"):
    derivative(f"{_name}_", name=f"{_name.capitalize()}Backward1",
               self=_not_implemented(f"inplace version of {_name}"))


def _sinc_backward(grad, self):
    # d/dx sin(pi x)/(pi x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2), and 0 at x == 0 (the limit)
    self_pi = self * math.pi
    self_squared_pi = self * self * math.pi
    out = grad * ((self_pi * self_pi.cos()) - self_pi.sin()) / self_squared_pi
    return ops.where(self_squared_pi == 0.0, 0.0, out)


derivative("sinc", self=_sinc_backward)

# atan2(y, x) is the angle of the point (x, y): its gradient is (x, -y) / (x^2 + y^2)


def _atan2_backward(grad, self, other, grad_input_mask):
    # at the origin, where the angle has no derivative, PyTorch gives 0 (not 0 * inf = nan)
    denominator = self * self + other * other
    recip = ops.where(denominator == 0, 0.0, denominator.reciprocal())
    return (grad * other * recip if grad_input_mask[0] else None,
            grad * -self * recip if grad_input_mask[1] else None)


derivative("atan2", entries={"self, other": _atan2_backward})
derivative("hypot", self=lambda grad, self, result: grad * self / result,
           other=lambda grad, other, result: grad * other / result)
# PyTorch writes grad / (1 + exp(other - self)): the same number, but where exp overflows its own derivative is
# inf / inf = nan (softplus'' at -100 in float32); sigmoid's derivative stays finite
derivative("logaddexp", self=lambda grad, self, other: grad * (self - other).sigmoid(),
           other=lambda grad, self, other: grad * (other - self).sigmoid())
derivative("logaddexp2", self=lambda grad, self, other: grad / (1 + ops.pow(2, other - self)),
           other=lambda grad, self, other: grad / (1 + ops.pow(2, self - other)))


# ---- sign, rounding, kinks --------------------------------------------------------------------------------

derivative("abs", self=lambda grad, self: grad * self.sgn())          # sgn(0) == 0: no gradient at the kink


# relu: the gradient where the result is above 0, else 0, in one op (PyTorch's threshold_backward). Its own
# derivative: the same mask for the incoming gradient, and 0 for `self` (kept as an edge, as PyTorch does).
derivative("relu", self=lambda grad, result: threshold_backward(grad, result, 0))
derivative("threshold_backward",
           grad_output=lambda grad, self, threshold: threshold_backward(grad, self, threshold),
           self=lambda grad: grad * 0)
for _name in ("sign", "sgn", "floor", "ceil", "trunc", "round"):
    derivative(_name, self=_zeros)
derivative("round.decimals", name="RoundBackward1", self=_zeros)
derivative("frac", self=lambda grad: grad)
# copysign(a, b) = |a| sign(b): d/da is result / a (+-1), and 0 at a == 0 as for abs; nothing for b.
_copysign_self = lambda grad, self, result: grad * (result / self).masked_fill_(self == 0, 0)   # noqa: E731
derivative("copysign.Tensor", self=_copysign_self, other=_zeros_for_other)
derivative("copysign.Scalar", name="CopysignBackward1", self=_copysign_self)
# nextafter moves by one ulp: the identity for self, except where it stays put (self == other)
derivative("nextafter", self=lambda grad, self, other: ops.where(self != other, grad, 0.0), other=_zeros_for_other)
derivative("nan_to_num", self=lambda grad, self: grad * self.isfinite())


# ---- x log y ----------------------------------------------------------------------------------------------
# xlogy(0, y) is 0 even where log(y) is not finite; the gradient for x is then 0 too.


def _xlogy_self(grad, self, other):
    return ops.xlogy(grad, other).masked_fill((self == 0.0).logical_and(other <= 0.0), 0.0)


def _xlogy_self_scalar_other(grad, self, other):
    out = ops.xlogy(grad, other)
    return out if other > 0.0 else out.masked_fill(self == 0.0, 0.0)


derivative("xlogy.Tensor", self=_xlogy_self, other=lambda grad, self, other: grad * self / other)
derivative("xlogy.Scalar_Self", name="XlogyBackward1", other=lambda grad, self, other: mul_scalar(grad, self) / other)
derivative("xlogy.Scalar_Other", name="XlogyBackward2", self=_xlogy_self_scalar_other)


# ---- maximum, minimum, clamp ------------------------------------------------------------------------------
# The larger input gets the gradient; on a tie both get half (maximum/minimum). fmax/fmin ignore a nan
# operand, so the gradient goes to the other one.


def _tie_split(grad, self, other):
    return ops.where(self == other, grad / 2, grad)


derivative("maximum", self=lambda grad, self, other: _tie_split(grad, self, other).masked_fill(self < other, 0),
           other=lambda grad, self, other: _tie_split(grad, self, other).masked_fill(self > other, 0))
derivative("minimum", self=lambda grad, self, other: _tie_split(grad, self, other).masked_fill(self > other, 0),
           other=lambda grad, self, other: _tie_split(grad, self, other).masked_fill(self < other, 0))
# fmax picks self where self >= other or other is nan
_fmax_picks_self = lambda self, other: (self >= other).logical_or(other.isnan())   # noqa: E731
_fmin_picks_self = lambda self, other: (self <= other).logical_or(other.isnan())   # noqa: E731
derivative("fmax", self=lambda grad, self, other: grad.masked_fill(_fmax_picks_self(self, other).logical_not(), 0),
           other=lambda grad, self, other: grad.masked_fill(_fmax_picks_self(self, other), 0))
derivative("fmin", self=lambda grad, self, other: grad.masked_fill(_fmin_picks_self(self, other).logical_not(), 0),
           other=lambda grad, self, other: grad.masked_fill(_fmin_picks_self(self, other), 0))


def _clamp_backward(grad, self, min, max):
    """The gradient passes where self is inside [min, max], boundaries included (a subgradient of 1).
    Written as FunctionsManual.cpp `clamp_backward`: the 0 first (`scalar_tensor`), then the mask."""
    if min is None and max is None:
        return grad
    zero = scalar_tensor_op(0.0, dtype=grad.dtype, device=grad.device)
    if min is not None and max is not None:
        inside = (self >= min).logical_and_(self <= max)
    elif min is not None:
        inside = self >= min
    else:
        inside = self <= max
    return ops.where(inside, grad, zero)


def _clamp_backward_min_max(grad, self, min, max, grad_input_mask):
    """A bound gets the gradient where it is the result; when min > max the result is max everywhere."""
    grad_min = grad_max = None
    if min is not None and max is not None:
        if grad_input_mask[0]:
            grad_min = ops.where((self < min).logical_and(min < max), grad, 0.0)
        if grad_input_mask[1]:
            grad_max = ops.where((self > max).logical_or(max < min), grad, 0.0)
    elif min is not None and grad_input_mask[0]:
        grad_min = ops.where(self < min, grad, 0.0)
    elif max is not None and grad_input_mask[1]:
        grad_max = ops.where(self > max, grad, 0.0)
    return grad_min, grad_max


derivative("clamp.Tensor", name="ClampBackward0", self=_clamp_backward, entries={"min, max": _clamp_backward_min_max})
derivative("clamp", name="ClampBackward1", self=_clamp_backward)
derivative("clamp_min.Tensor", name="ClampMinBackward1", self=lambda grad, self, min: ops.where(self >= min, grad, 0.0),
           min=lambda grad, self, min: ops.where(self < min, grad, 0.0))
derivative("clamp_min", self=lambda grad, self, min: ops.where(self >= min, grad, 0.0))
derivative("clamp_max.Tensor", name="ClampMaxBackward1", self=lambda grad, self, max: ops.where(self <= max, grad, 0.0),
           max=lambda grad, self, max: ops.where(self > max, grad, 0.0))
derivative("clamp_max", self=lambda grad, self, max: ops.where(self <= max, grad, 0.0))


# ---- where, lerp, addcmul, addcdiv ------------------------------------------------------------------------

# the condition only selects: each branch gets the gradient where it was selected
derivative("where.self", self=lambda grad, condition: ops.where(condition, grad, 0.0),
           other=lambda grad, condition: ops.where(condition, 0.0, grad))
# lerp(a, b, w) = a + w (b - a)
derivative("lerp.Tensor", name="LerpBackward1", self=lambda grad, weight: grad * (1 - weight),
           end=lambda grad, weight: grad * weight, weight=lambda grad, self, end: grad * (end - self))
derivative("lerp.Scalar", self=lambda grad, weight: mul_scalar(grad, 1 - float(weight)),
           end=lambda grad, weight: mul_scalar(grad, weight))
derivative("addcmul", self=lambda grad: grad,
           tensor1=lambda grad, tensor2, value: grad * (tensor2 * value),
           tensor2=lambda grad, tensor1, value: grad * (tensor1 * value))
derivative("addcdiv", self=lambda grad: grad,
           tensor1=lambda grad, tensor2, value: grad * ops.div(value, tensor2),
           tensor2=lambda grad, tensor1, tensor2, value: -grad * (tensor1 * value / (tensor2 * tensor2)))


# ---- comparisons in place -----------------------------------------------------------------------------------
# `x.eq_(y)` writes 0s and 1s into a float x: a constant, so no gradient for either input.

for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    derivative(f"{_name}_.Tensor", name=f"{_name.capitalize()}Backward1", self=_zeros, other=_zeros_for_other)
    derivative(f"{_name}_.Scalar", name=f"{_name.capitalize()}Backward0", self=_zeros)


# ---- random ops with tensor parameters ----------------------------------------------------------------------
# A sample is not a differentiable function of its distribution's parameters here (no reparametrization):
# PyTorch gives them zero gradients.

derivative("normal.Tensor_float", name="NormalBackward1",
           mean=lambda grad, mean_sym_sizes: grad.new_zeros(mean_sym_sizes))
derivative("normal.float_Tensor", name="NormalBackward2",
           std=lambda grad, std_sym_sizes: grad.new_zeros(std_sym_sizes))
derivative("normal.Tensor_Tensor", name="NormalBackward3",
           mean=lambda grad, mean_sym_sizes: grad.new_zeros(mean_sym_sizes),
           std=lambda grad, std_sym_sizes: grad.new_zeros(std_sym_sizes))
derivative("bernoulli", self=_zeros)
derivative("bernoulli_.Tensor", name="BernoulliBackward1", self=_zeros,
           p=lambda grad, p_sym_sizes: grad.new_zeros(p_sym_sizes))
# bernoulli.p has no formula in PyTorch: its backward fails (the autograd fallback's error node)

no_formula(*(f"{_name}.{_overload}" for _name in ("eq", "ne", "lt", "le", "gt", "ge")
             for _overload in ("Tensor", "Scalar")),
           "equal", "logical_and", "logical_or", "logical_xor", "logical_not",
           *(f"{_name}{_inplace}.{_overload}" for _name in ("bitwise_and", "bitwise_or", "bitwise_xor")
             for _inplace, _overload in (("", "Tensor"), ("_", "Tensor"), ("", "Scalar"), ("_", "Scalar"),
                                         ("", "Scalar_Tensor"))),
           *(f"{_name}{_inplace}.{_overload}" for _name in ("bitwise_left_shift", "bitwise_right_shift")
             for _inplace, _overload in (("", "Tensor"), ("_", "Tensor"), ("", "Tensor_Scalar"),
                                         ("_", "Tensor_Scalar"), ("", "Scalar_Tensor"))),
           *(f"{_name}.{_overload}" for _name in ("__lshift__", "__rshift__", "__ilshift__", "__irshift__")
             for _overload in ("Tensor", "Scalar")),
           "bitwise_not", "bitwise_not_", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit",
           why="bool or integer results")
no_formula("floor_divide", "floor_divide_", why="no derivative in PyTorch either")
