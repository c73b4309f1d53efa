"""relu, leaky_relu, gelu, silu, tanh, sigmoid, softmax, log_softmax, and the rest of PyTorch's activations
(elu, selu, celu, softplus, mish, hardtanh, relu6, hardswish, hardsigmoid, logsigmoid, softsign,
tanhshrink, glu, prelu).

An activation is the elementwise nonlinearity between two affine layers: without one, a stack of Linear
layers collapses into a single affine map. PyTorch implements each as a kernel of its own with a
hand-written backward kernel (aten/src/ATen/native/Activation.cpp, cpu/Activation.cpp), and so does
teachtorch: `gelu` is one op forward (`aten::gelu`) and one op backward (`gelu_backward`, node
GeluBackward0), declared in ops/activation.py with their array code in kernels/activation.py. The formulas:

    leaky_relu(x) = x if x > 0 else slope * x
    silu(x)       = x * sigmoid(x)
    gelu(x)       = x * Phi(x) = x * 0.5 * (1 + erf(x / sqrt(2)))           (Phi: the normal CDF)
    gelu_tanh(x)  = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
    elu(x)        = x if x > 0 else alpha * (exp(x) - 1)       (selu, celu: the same kernel, other constants)
    softplus(x)   = log(1 + exp(beta * x)) / beta              (x itself where beta * x > threshold)
    hardtanh(x)   = clamp(x, min_val, max_val)                 (relu6 = hardtanh(x, 0, 6))
    hardsigmoid(x) = relu6(x + 3) / 6,  hardswish(x) = x * hardsigmoid(x),  mish(x) = x * tanh(softplus(x))

One op instead of the five or six of a composition (`x * (erf(x / sqrt 2) + 1) * 0.5`) means one dispatch, one
autograd node and one pass over the data, and a float16 input is computed in float32 and rounded once, as
PyTorch's kernels do (`opmath_t`).

At a kink (relu at 0, hardtanh at its bounds) the derivative is not defined and PyTorch's backward kernel
picks a side; ours are the same kernels: the elu family takes the exponential branch at 0, hardtanh / relu6 /
hardsigmoid have zero gradient at their bounds, softplus switches to x only where beta * x > threshold.

logsigmoid, glu and prelu are ops of their own too (`log_sigmoid_forward`, `glu`, `_prelu_kernel`); softsign
and tanhshrink are written with core ops, as in PyTorch (their nodes are DivBackward0, SubBackward0).

`inplace=True` writes the result into `input` and returns it, as PyTorch does: with the in-place op
(`gelu_`, `leaky_relu_`, ...), whose autograd node saves what its formula needs before the write.
"""

import warnings

from ...ops import activation as _A
from ...ops import log_softmax as _log_softmax, relu as _relu, sigmoid as _sigmoid, softmax as _softmax
from ...ops import tanh as _tanh
from ...ops.pointwise import OPS as _OPS

__all__ = ["relu", "relu_", "leaky_relu", "leaky_relu_", "gelu", "silu", "tanh", "sigmoid", "softmax", "log_softmax",
           "elu", "elu_", "selu", "selu_", "celu", "celu_", "softplus", "mish", "hardtanh", "hardtanh_", "relu6",
           "hardswish", "hardsigmoid", "logsigmoid", "softsign", "tanhshrink", "glu", "prelu", "threshold",
           "threshold_", "softmin"]

# The ops (functional, in-place), called directly: the checks of the Python binding are for user calls
_gelu, _gelu_ = _OPS["gelu"][:2]
_silu, _silu_ = _OPS["silu"][:2]
_leaky_relu, _leaky_relu_ = _OPS["leaky_relu"][:2]
_hardtanh, _hardtanh_ = _OPS["hardtanh"][:2]
_elu, _elu_ = _OPS["elu"][:2]
_hardsigmoid, _hardsigmoid_ = _OPS["hardsigmoid"][:2]
_hardswish, _hardswish_ = _OPS["hardswish"][:2]
_mish, _mish_ = _OPS["mish"][:2]
_threshold, _threshold_ = _OPS["threshold"][:2]
_softplus_op = _OPS["softplus"][0]


def relu(input, inplace=False):
    """max(x, 0)."""
    return input.relu_() if inplace else _relu(input)


def relu_(input):
    return input.relu_()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x where x > 0, else negative_slope * x: `aten::leaky_relu`, backward `leaky_relu_backward`."""
    return _leaky_relu_(input, negative_slope) if inplace else _leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return _leaky_relu_(input, negative_slope)


def gelu(input, approximate="none"):
    """x * Phi(x), Phi the standard normal CDF; `approximate='tanh'` uses the tanh approximation of Phi."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _gelu(input, approximate)


def silu(input, inplace=False):
    """x * sigmoid(x) (also called swish)."""
    return _silu_(input) if inplace else _silu(input)


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


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along `dim`: the largest weight on the smallest element (torch/nn/functional.py writes it
    `(-input).softmax(dim)`, so its node is SoftmaxBackward0)."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim())
    return _softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along `dim`, computed stably as x - max - log(sum(exp(x - max)))."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim())
    return _log_softmax(input, dim, dtype=dtype)


def elu(input, alpha=1.0, inplace=False):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    return _elu_(input, alpha) if inplace else _elu(input, alpha)


def elu_(input, alpha=1.0):
    return _elu_(input, alpha)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the fixed constants that keep activations at mean 0, variance 1
    (`aten::selu` calls the elu kernel: its node is EluBackward0)."""
    return _A.selu_inplace_op(input) if inplace else _A.selu_op(input)


def selu_(input):
    return _A.selu_inplace_op(input)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)): elu whose slope at 0 is 1 for every alpha."""
    return _A.celu_inplace_op(input, alpha) if inplace else _A.celu_op(input, alpha)


def celu_(input, alpha=1.0):
    return _A.celu_inplace_op(input, alpha)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, a smooth relu; x itself where beta * x > threshold (there they agree
    to float precision), as PyTorch's kernel and its backward do."""
    return _softplus_op(input, beta, threshold)


def mish(input, inplace=False):
    """x * tanh(softplus(x)) (Misra 2019)."""
    return _mish_(input) if inplace else _mish(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """x clamped to [min_val, max_val]; gradient 1 strictly inside, 0 at and beyond the bounds."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _hardtanh_(input, min_val, max_val) if inplace else _hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else `value` (relu is threshold(x, 0, 0)); the gradient flows where x > threshold,
    as PyTorch's threshold_backward lets it."""
    return _threshold_(input, threshold, value) if inplace else _threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return _threshold_(input, threshold, value)


def relu6(input, inplace=False):
    """min(max(0, x), 6): hardtanh(x, 0, 6), as in PyTorch (so its gradient at 0 and 6 is 0)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6, a piecewise-polynomial silu (Howard et al. 2019, MobileNetV3)."""
    return _hardswish_(input) if inplace else _hardswish(input)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6 = clamp(x / 6 + 1/2, 0, 1), a piecewise-linear sigmoid; gradient 1/6 strictly
    between -3 and 3."""
    return _hardsigmoid_(input) if inplace else _hardsigmoid(input)


def logsigmoid(input):
    """log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|)), stable for large |x|: `aten::log_sigmoid`."""
    return _A.log_sigmoid_op(input)


def softsign(input):
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x)."""
    return input - _tanh(input)


def glu(input, dim=-1):
    """The gated linear unit: split `input` in two halves a, b along `dim`, return a * sigmoid(b) (`aten::glu`)."""
    return _A.glu_op(input, dim)


def prelu(input, weight):
    """leaky_relu with a learned slope: x for x > 0, weight * x otherwise; `weight` has one slope, or one per
    channel (dim 1 of the input). As PyTorch's `prelu`, it checks the shapes, reshapes the weight to
    broadcast over the channels, and calls `_prelu_kernel` (one op and one node each way)."""
    n = weight.numel()
    if n != 1:
        channels = input.shape[1] if input.dim() > 1 else 1
        if channels != n:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{n} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if weight.dim() != input.dim():
        shape = [1] * input.dim()
        if input.dim() >= 2:
            shape[1] = n
        weight = weight.reshape(shape)
    return _A._prelu_kernel_op(input, weight)
