"""relu, leaky_relu, gelu, silu, tanh, sigmoid, softmax, log_softmax, and the rest of PyTorch's activations
(elu, selu, celu, softplus, mish, hardtanh, relu6, hardswish, hardsigmoid, logsigmoid, softsign,
tanhshrink, glu, prelu).

An activation is the elementwise nonlinearity between two affine layers: without one, a stack of Linear
layers collapses into a single affine map. PyTorch implements each as a kernel of its own with a
hand-written derivative (aten/src/ATen/native/Activation.cpp); relu, sigmoid, tanh, softmax and log_softmax
are core ops here too, so these functions just call them. The others are written with a few core ops, so
autograd differentiates them with no new formula:

    leaky_relu(x) = where(x > 0, x, slope * x)
    silu(x)       = x * sigmoid(x)
    gelu(x)       = x * Phi(x) = x * 0.5 * (1 + erf(x / sqrt(2)))           (Phi: the normal CDF)
    gelu_tanh(x)  = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))  = x * sigmoid(2u)

(the last because 0.5 * (1 + tanh(u)) = sigmoid(2u): one op fewer). Each op costs a pass over the data
and a trip through the dispatcher, so fewer ops is faster.

At a kink (relu at 0, hardtanh at its bounds) the derivative is not defined and PyTorch's hand-written
backward picks a side; the `where` masks below are written so that autograd picks the same side:
PyTorch's elu family takes the exponential branch at 0, hardtanh / relu6 / hardsigmoid have zero gradient
at their bounds (their backward tests min < x < max), softplus switches to x only where beta * x > threshold.
A branch that `where` does not select still gets a zero gradient, and 0 * inf = nan: so a branch that could
overflow (exp of a large x) is fed a clamped input.

`inplace=True` writes the result into `input` and returns it, as PyTorch does.
"""

import math
import warnings

from ..._strides import normalize_dim

from ...ops import erf, logaddexp, log_softmax as _log_softmax, relu as _relu, sigmoid as _sigmoid, softmax as _softmax
from ...ops import tanh as _tanh, where, zeros
from ._layout import _pytorch_layout

__all__ = ["relu", "relu_", "leaky_relu", "leaky_relu_", "gelu", "silu", "tanh", "sigmoid", "softmax", "log_softmax",
           "elu", "elu_", "selu", "selu_", "celu", "celu_", "softplus", "mish", "hardtanh", "hardtanh_", "relu6",
           "hardswish", "hardsigmoid", "logsigmoid", "softsign", "tanhshrink", "glu", "prelu", "threshold",
           "threshold_"]

# selu's constants (Klambauer et al. 2017), as in PyTorch's Activation.cpp
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def relu(input, inplace=False):
    """max(x, 0)."""
    return input.relu_() if inplace else _relu(input)


def relu_(input):
    return input.relu_()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x where x > 0, else negative_slope * x."""
    result = where(input > 0, input, input * negative_slope)
    if inplace:
        # `where` saved only the mask and `input * slope` saved nothing, so overwriting input is safe
        return input.copy_(result)
    return result


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def gelu(input, approximate="none"):
    """x * Phi(x), Phi the standard normal CDF; `approximate='tanh'` uses the tanh approximation of Phi."""
    if approximate == "none":
        return input * (erf(input * (1 / math.sqrt(2))) + 1) * 0.5
    if approximate == "tanh":
        # 2u = 2 * sqrt(2/pi) * (x + 0.044715 x^3) = x * (a + b x^2)
        a = 2 * math.sqrt(2 / math.pi)
        b = a * 0.044715
        return input * _sigmoid(input * (input * input * b + a))
    raise RuntimeError("approximate argument must be either none or tanh.")


def silu(input, inplace=False):
    """x * sigmoid(x) (also called swish)."""
    if inplace:
        # the product saves its operands for backward: compute it from a copy, then overwrite input
        original = input.clone()
        return input.copy_(original * _sigmoid(original))
    return input * _sigmoid(input)


def tanh(input):
    return _tanh(input)


def sigmoid(input):
    """1 / (1 + exp(-x))."""
    return _sigmoid(input)


def _get_softmax_dim(name, ndim):
    """The legacy rule for `softmax(x)` without dim (PyTorch warns; the rule was guessing a batch dim)."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                  "dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along `dim`; `dtype` converts the input first (for half inputs)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim())
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along `dim`, computed stably as x - max - log(sum(exp(x - max)))."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim())
    return _log_softmax(input, dim, dtype=dtype)


def _in_place(input, fn):
    """Write fn(input) into input. The ops of fn save their inputs for backward, so they run on a copy:
    overwriting the saved tensor would make backward fail its version check."""
    return input.copy_(fn(input.clone()))


def _elu(input, alpha, scale, input_scale):
    """scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1)): PyTorch's one kernel for elu, selu, celu.

    At 0 the exponential branch is taken (its slope is alpha * scale * input_scale), as PyTorch's backward does.
    exp gets min(x, 0): exp of a large positive x would be inf, and its zero gradient times inf is nan.
    exp(x) - 1 rather than expm1(x): expm1's derivative is computed as result + 1, which loses the digits
    of exp(x) for x << 0 where PyTorch's backward computes exp(x) itself.
    """
    negative = ((input.clamp_max(0) * input_scale).exp() - 1) * alpha
    result = where(input > 0, input, negative)
    return result if scale == 1 else result * scale


def elu(input, alpha=1.0, inplace=False):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    if inplace:
        return _in_place(input, lambda x: _elu(x, alpha, 1, 1))
    return _elu(input, alpha, 1, 1)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the fixed constants that keep activations at mean 0, variance 1."""
    if inplace:
        return _in_place(input, lambda x: _elu(x, _SELU_ALPHA, _SELU_SCALE, 1))
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1)


def selu_(input):
    return selu(input, inplace=True)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)): elu whose slope at 0 is 1 for every alpha."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    if inplace:
        return _in_place(input, lambda x: _elu(x, alpha, 1, 1 / alpha))
    return _elu(input, alpha, 1, 1 / alpha)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def _softplus(x):
    """log(1 + e^x), computed stably as logaddexp(x, 0) (its gradient is sigmoid(x), never nan)."""
    return logaddexp(x, zeros((), dtype=x.dtype, device=x.device))


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, a smooth relu; x itself where beta * x > threshold (there they agree
    to float precision), as PyTorch's kernel and its backward do."""
    scaled = input * beta if beta != 1 else input
    smooth = _softplus(scaled)
    if beta != 1:
        smooth = smooth / beta
    return where(scaled > threshold, input, smooth)


def mish(input, inplace=False):
    """x * tanh(softplus(x)) (Misra 2019)."""
    if inplace:
        return _in_place(input, lambda x: x * _tanh(_softplus(x)))
    return input * _tanh(_softplus(input))


def _clamp_open(input, low, high):
    """clamp(x, low, high) with PyTorch's hardtanh gradient: 1 strictly inside (low, high), 0 at the bounds
    (clamp's own backward passes the gradient at the bounds too)."""
    inside = (input > low) & (input < high)
    return where(inside, input, input.detach().clamp(low, high))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """x clamped to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _in_place(input, lambda x: _clamp_open(x, min_val, max_val))
    return _clamp_open(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def _thresholded(x, threshold, value):
    return where(x > threshold, x, value)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else `value` (relu is threshold(x, 0, 0)); the gradient flows where x > threshold,
    as PyTorch's threshold_backward lets it."""
    if inplace:
        return threshold_(input, threshold, value)
    return _thresholded(input, threshold, value)


def threshold_(input, threshold, value):
    return _in_place(input, lambda x: _thresholded(x, threshold, value))


def relu6(input, inplace=False):
    """min(max(0, x), 6): hardtanh(x, 0, 6), as in PyTorch (so its gradient at 0 and 6 is 0)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def _hardswish(x):
    # x * relu6(x + 3) / 6, in three pieces so the gradient is PyTorch's: 0 up to -3, x/3 + 1/2 strictly
    # between -3 and 3, 1 from 3 on
    middle = x * (x + 3) * (1 / 6)
    return where(x <= -3, 0.0, where(x < 3, middle, x))


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6, a piecewise-polynomial silu (Howard et al. 2019, MobileNetV3)."""
    return _in_place(input, _hardswish) if inplace else _hardswish(input)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6 = clamp(x / 6 + 1/2, 0, 1), a piecewise-linear sigmoid; gradient 1/6 strictly
    between -3 and 3."""
    if inplace:
        return _in_place(input, lambda x: _clamp_open(x * (1 / 6) + 0.5, 0.0, 1.0))
    return _clamp_open(input * (1 / 6) + 0.5, 0.0, 1.0)


def logsigmoid(input):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x| (log of a sigmoid that rounded to 0 is -inf)."""
    # PyTorch's kernel writes into a fresh contiguous tensor
    return _pytorch_layout(-_softplus(-input))


def softsign(input):
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x)."""
    return input - _tanh(input)


def glu(input, dim=-1):
    """The gated linear unit: split `input` in two halves a, b along `dim`, return a * sigmoid(b)."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = normalize_dim(dim, input.dim())
    size = input.shape[dim]
    if size % 2 != 0:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    a, b = input.chunk(2, dim)
    return a * _sigmoid(b)


def prelu(input, weight):
    """leaky_relu with a learned slope: x for x > 0, weight * x otherwise; `weight` has one slope, or one per
    channel (dim 1 of the input)."""
    n = weight.numel()
    if n != 1:
        channels = input.shape[1] if input.dim() > 1 else 1
        if channels != n:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{n} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if input.dim() > 1 and n != 1:
        weight = weight.reshape([n] + [1] * (input.dim() - 2))      # one slope per channel, broadcast
    # at 0 the slope is weight, as PyTorch's backward has it
    return where(input > 0, input, input * weight)
