"""The array code of PyTorch's activation kernels and their backward kernels.

Each function is `f(xp, *operands, *params)` over NumPy or CuPy arrays, run by kernels/pointwise.py
`PointwiseKernel` (broadcasting, output strides, the write path); ops/activation.py declares the ops. A float16
input arrives here already converted to float32 and the result is rounded back to float16 once, at the end:
PyTorch's CPU kernels compute in `opmath_t` (float32 for float16) the same way, so `gelu(-3.0)` in float16 is
-4.05e-3 as in PyTorch, not the -4.39e-3 of the same formula evaluated op by op in float16.

log_sigmoid, glu and prelu's backward are kernels of their own shape (two results, or halves of the input):
they read the tensors' arrays and wrap fresh results themselves.

Each formula is the one in aten/src/ATen/native/cpu/Activation.cpp (forward `*_kernel`, backward
`*_backward_kernel`), with PyTorch's choice at every kink: the backward kernels test `x <= 0`, `x > -3`, ... as
written there.
"""

import math

import numpy as np

from .._strides import contiguous_strides, normalize_dim
from ..backends import empty, quietly, wrap, wrap_strided, xp_of
from .pointwise import output_strides
from .special import erf as _erf
from .views import slice_kernel

# gelu's constants, named as in Activation.cpp
_SQRT1_2 = 1 / math.sqrt(2)                              # M_SQRT1_2
_GELU_ALPHA = 2 / math.sqrt(math.pi) * _SQRT1_2 * 0.5    # kAlpha = M_2_SQRTPI * M_SQRT1_2 * 0.5: 1/sqrt(2 pi)
_GELU_BETA = math.sqrt(2) * 2 / math.sqrt(math.pi) * 0.5  # kBeta = M_SQRT2 * M_2_SQRTPI * 0.5: sqrt(2/pi)
_GELU_KAPPA = 0.044715


def gelu(xp, x, approximate):
    """x * Phi(x), Phi the normal CDF; 'tanh': 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    if approximate == "tanh":
        inner = _GELU_BETA * (x + _GELU_KAPPA * x * x * x)
        return 0.5 * x * (1 + xp.tanh(inner))
    return x * 0.5 * (1 + _erf(xp, x * _SQRT1_2))


def gelu_backward(xp, grad, x, approximate):
    """grad * (Phi(x) + x * phi(x)), phi the normal density (GeluBackwardKernelImpl)."""
    if approximate == "tanh":
        x_sq = x * x
        tanh_inner = xp.tanh(_GELU_BETA * (x + _GELU_KAPPA * x_sq * x))
        left_derivative = 0.5 * (1 + tanh_inner)
        right_derivative = 1 - tanh_inner * tanh_inner
        inner_derivative = _GELU_BETA * (1 + 3 * _GELU_KAPPA * x_sq)
        return grad * (left_derivative + 0.5 * x * right_derivative * inner_derivative)
    cdf = 0.5 * (1 + _erf(xp, x * _SQRT1_2))
    pdf = _GELU_ALPHA * xp.exp(-0.5 * x * x)
    return grad * (cdf + x * pdf)


def tanh_backward(xp, grad, y):
    """grad * (1 - y^2), from tanh's result y (BinaryOpsKernel.cpp `tanh_backward_kernel`)."""
    return grad * (1 - y * y)


def sigmoid_backward(xp, grad, y):
    """grad * (1 - y) * y, from sigmoid's result y (BinaryOpsKernel.cpp `sigmoid_backward_kernel`)."""
    return grad * (1 - y) * y


def silu(xp, x):
    """x * sigmoid(x), written x / (1 + exp(-x)) as silu_kernel does."""
    return x / (1 + xp.exp(-x))


def silu_backward(xp, grad, x):
    """grad * sigmoid(x) * (1 + x (1 - sigmoid(x)))."""
    sigmoid = 1 / (1 + xp.exp(-x))
    return grad * sigmoid * (1 + x * (1 - sigmoid))


def leaky_relu(xp, x, negative_slope):
    return xp.where(x > 0, x, x * negative_slope)


def leaky_relu_backward(xp, grad, x, negative_slope, self_is_result):
    """The slope where x <= 0 (at 0 too), 1 above (leaky_relu_backward_kernel: `a > 0 ? b : b * negval`)."""
    return xp.where(x > 0, grad, grad * negative_slope)


def hardtanh(xp, x, min_val, max_val):
    """clamp(x, min_val, max_val): PyTorch's hardtanh is `at::clamp`."""
    return xp.minimum(xp.maximum(x, min_val), max_val)


def hardtanh_backward(xp, grad, x, min_val, max_val):
    """grad strictly between the bounds, 0 at and beyond them (hardtanh_backward_kernel)."""
    return xp.where((x <= min_val) | (x >= max_val), xp.zeros((), grad.dtype), grad)


def elu(xp, x, alpha, scale, input_scale):
    """scale * x above 0, alpha * scale * (exp(input_scale * x) - 1) at and below: one kernel for elu, selu
    (alpha, scale fixed) and celu (input_scale = 1 / alpha). Only x <= 0 reaches exp, so it cannot overflow."""
    negative = xp.minimum(x, 0) * input_scale
    return xp.where(x <= 0, xp.expm1(negative) * (alpha * scale), x * scale)


def elu_backward(xp, grad, self_or_result, alpha, scale, input_scale, is_result):
    """grad * scale above 0; below, the derivative of alpha * scale * (exp(input_scale x) - 1), computed
    from x, or from the result y as input_scale * (y + alpha * scale) when the op wrote into its input."""
    b = self_or_result
    if is_result:
        negative = grad * input_scale * (b + alpha * scale)
    else:
        negative = grad * input_scale * (alpha * scale) * xp.exp(xp.minimum(b, 0) * input_scale)
    return xp.where(b <= 0, negative, grad * scale)


def softplus(xp, x, beta, threshold):
    """log(1 + exp(beta x)) / beta, x itself where beta x > threshold."""
    scaled = x * beta
    return xp.where(scaled > threshold, x, xp.log1p(xp.exp(xp.minimum(scaled, threshold))) / beta)


def softplus_backward(xp, grad, x, beta, threshold):
    """grad * sigmoid(beta x), written z / (z + 1) with z = exp(beta x) as softplus_backward_kernel does."""
    scaled = x * beta
    z = xp.exp(xp.minimum(scaled, threshold))
    return xp.where(scaled > threshold, grad, grad * z / (z + 1))


def hardsigmoid(xp, x):
    """min(max(x + 3, 0), 6) / 6."""
    return xp.minimum(xp.maximum(x + 3, 0), 6) / 6


def hardsigmoid_backward(xp, grad, x):
    """grad / 6 strictly between -3 and 3, else 0."""
    return xp.where((x > -3) & (x < 3), grad / 6, xp.zeros((), grad.dtype))


def hardswish(xp, x):
    """x * min(max(x + 3, 0), 6) / 6."""
    return x * xp.minimum(xp.maximum(x + 3, 0), 6) / 6


def hardswish_backward(xp, grad, x):
    """0 up to -3, grad * (x / 3 + 1/2) strictly between -3 and 3, grad from 3 on (hardswish_backward_kernel)."""
    middle = grad * (x / 3 + 0.5)
    return xp.where(x <= -3, xp.zeros((), grad.dtype), xp.where(x < 3, middle, grad))


def mish(xp, x):
    """x * tanh(softplus(x)), softplus as log1p(exp(x))."""
    return x * xp.tanh(xp.log1p(xp.exp(x)))


def mish_backward(xp, grad, x):
    """grad * (tanh(softplus(x)) + x * sigmoid(x) * (1 - tanh(softplus(x))^2))."""
    sigmoid = 1 / (1 + xp.exp(-x))
    tanh_softplus = xp.tanh(xp.log1p(xp.exp(x)))
    return grad * (tanh_softplus + x * sigmoid * (1 - tanh_softplus * tanh_softplus))


def threshold(xp, x, threshold, value):
    """x above the threshold, `value` at and below it (threshold_kernel: `x <= threshold ? value : x`)."""
    return xp.where(x <= threshold, xp.asarray(value, dtype=x.dtype), x)


# ---- log_sigmoid, glu, prelu: kernels of their own shape ----------------------------------------------------


def _refuse_integers(t, kernel_name):
    if not t.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel_name}" not implemented for \'{t.dtype._ptname}\'')


def _opmath(t):
    """t's values to compute with: float32 for float16 (opmath_t), its own dtype otherwise."""
    a = t._data()
    return a.astype(np.float32) if a.dtype == np.float16 else a


def log_sigmoid_forward_kernel(ks, self):
    """(output, buffer): log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), and the buffer exp(-|x|) the
    backward reads (log_sigmoid_cpu_kernel), both written fresh and contiguous."""
    _refuse_integers(self, "log_sigmoid_cpu")
    shape = tuple(self.shape)
    if self.device.type == "meta":
        return empty(shape, self.dtype, self.device), empty(shape, self.dtype, self.device)
    xp = xp_of(self)
    x = _opmath(self)
    z = quietly(lambda: xp.exp(-xp.abs(x)))
    return wrap(xp.minimum(x, 0) - xp.log1p(z), self.dtype, self.device), wrap(z, self.dtype, self.device)


def log_sigmoid_backward(xp, grad, x, buffer):
    """grad * (1 - sigmoid(x)), from the buffer z = exp(-|x|): (max_deriv - sign * z / (1 + z)) * grad."""
    negative = x < 0
    max_deriv = xp.where(negative, 1, 0).astype(grad.dtype)
    sign = xp.where(negative, 1, -1).astype(grad.dtype)
    return (max_deriv - sign * (buffer / (1 + buffer))) * grad


def _halves(xp, a, dim):
    n = a.shape[dim] // 2
    index = [slice(None)] * a.ndim
    first, second = list(index), list(index)
    first[dim], second[dim] = slice(0, n), slice(n, None)
    return a[tuple(first)], a[tuple(second)]


def glu_kernel(ks, self, dim=-1):
    """a * sigmoid(b), a and b the two halves of `self` along `dim` (glu_kernel, Activation.cpp `glu`); the
    result is laid out like the input, as TensorIterator lays it out."""
    _refuse_integers(self, "glu_cpu")
    if self.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = normalize_dim(dim, self.dim())
    size = self.shape[dim]
    if size % 2 != 0:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    half = size // 2
    first, second = slice_kernel(self, dim, 0, half), slice_kernel(self, dim, half, size)
    shape = first._sizes
    strides = output_strides(shape, [first, second]) or contiguous_strides(shape)
    if self.device.type == "meta":
        return empty(shape, self.dtype, self.device, strides)
    xp = xp_of(self)
    a, b = _opmath(first), _opmath(second)
    return wrap_strided(quietly(lambda: a / (1 + xp.exp(-b))), self.dtype, self.device, strides)


def glu_backward_kernel(ks, grad_output, self, dim):
    """The two halves of the gradient: grad * sigmoid(b) for a, grad * a * sigmoid(b) (1 - sigmoid(b)) for b
    (glu_backward_cpu), joined along `dim` in a fresh contiguous tensor."""
    dim = normalize_dim(dim, self.dim())
    if self.device.type == "meta":
        return empty(tuple(self.shape), self.dtype, self.device)
    xp = xp_of(self)
    a, b = _halves(xp, _opmath(self), dim)
    grad = _opmath(grad_output)
    sigmoid = quietly(lambda: 1 / (1 + xp.exp(-b)))
    grad_a = grad * sigmoid
    return wrap(xp.concatenate([grad_a, grad_a * a * (1 - sigmoid)], axis=dim), self.dtype, self.device)


def prelu(xp, x, weight):
    """x above 0, weight * x at and below (prelu_kernel; `weight` broadcast over the channels)."""
    return xp.where(x > 0, x, weight * x)


def prelu_kernel_backward_kernel(ks, grad_output, self, weight):
    """(grad_input, grad_weight): grad where x > 0, else weight * grad; and x * grad where x <= 0, summed over
    the dims `weight` was broadcast along (prelu_backward_kernel, then a sum to the weight's shape)."""
    _refuse_integers(self, "prelu_cpu")
    if self.device.type == "meta":
        return empty(tuple(self.shape), self.dtype, self.device), empty(tuple(weight.shape), weight.dtype,
                                                                           weight.device)
    xp = xp_of(self)
    x, w, g = _opmath(self), _opmath(weight), _opmath(grad_output)
    positive = x > 0
    grad_input = quietly(lambda: xp.where(positive, g, w * g))
    grad_weight = quietly(lambda: xp.where(positive, 0, x * g))
    # sum the broadcast dims away: the leading ones, and those where weight has size 1
    lead = grad_weight.ndim - w.ndim
    grad_weight = grad_weight.sum(axis=tuple(range(lead))) if lead else grad_weight
    ones = tuple(d for d in range(w.ndim) if w.shape[d] == 1 and grad_weight.shape[d] != 1)
    if ones:
        grad_weight = grad_weight.sum(axis=ones, keepdims=True)
    return (wrap(xp.broadcast_to(grad_input, tuple(self.shape)).copy(), self.dtype, self.device),
            wrap(grad_weight.reshape(tuple(weight.shape)), weight.dtype, weight.device))
