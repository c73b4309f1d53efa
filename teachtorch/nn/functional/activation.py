"""relu, leaky_relu, gelu, silu, tanh, sigmoid, softmax, log_softmax.

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

`inplace=True` writes the result into `input` and returns it, as PyTorch does.
"""

import math
import warnings

from ...ops import erf, log_softmax as _log_softmax, relu as _relu, sigmoid as _sigmoid, softmax as _softmax
from ...ops import tanh as _tanh, where

__all__ = ["relu", "relu_", "leaky_relu", "gelu", "silu", "tanh", "sigmoid", "softmax", "log_softmax"]


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
