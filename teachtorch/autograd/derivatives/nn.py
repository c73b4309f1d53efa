"""Backward formulas of the activation and normalization ops (ops/activation.py, ops/normalization.py), as
derivatives.yaml lists them.

Each activation's backward is its backward op: `gelu -> gelu_backward(grad, self, approximate)`, one
elementwise pass (node `GeluBackward0`). The backward ops are differentiable in turn, so a gradient of a
gradient goes through ops: d/d(grad_output) of `f_backward(grad_output, x)` is `f_backward(grad, x)` (it is
linear in grad_output), and d/dx is `grad * grad_output * f''(x)`, PyTorch's `*_double_backward` helpers
(torch/csrc/autograd/FunctionsManual.cpp), written here with teachtorch ops. Where f is piecewise linear
(leaky_relu, hardtanh), f'' = 0: PyTorch's `zeros_like(grad)`. `hardsigmoid_backward` has no derivative in
PyTorch 2.13, so none here: a second derivative of hardsigmoid fails, in both.

silu's and mish's entries are PyTorch's: when the graph of the backward is being recorded (`create_graph=True`:
grad mode is on in backward) the formula is written with differentiable ops (`infinitely_differentiable_*`;
`mish_backward` has no derivative); otherwise it is the one-pass backward op. Layer, batch and group norm use
the same pattern (see below).

In-place `leaky_relu_`, `elu_` and `celu_` overwrite their input, so PyTorch's entries for them read the
result instead (nodes `LeakyReluBackward1`, `EluBackward1`, `CeluBackward1`): the same gradient, since the
result is > 0 exactly where the input is (for a positive slope). `threshold_` has an entry of its own too
(`ThresholdBackward1`), reading the saved copy of the input.
"""

import math

from ... import ops
from ...ops import activation as A
from ...ops.activation import _prelu_kernel_backward_op, glu_backward_op
from ...ops.normalization import (
    native_batch_norm_backward_op, native_group_norm_backward_op, native_layer_norm_backward_op,
)
from ...ops.embedding import embedding_dense_backward_op, embedding_op
from ...ops.factories import zeros_like
from ...ops.pointwise import OPS
from ...ops.pointwise_rounding import threshold_backward
from ...ops.pointwise_ternary import where
from ..derivative import derivative, no_formula
from ..grad_mode import is_grad_enabled


def _op(name):
    return OPS[name][0]


_gelu_backward = _op("gelu_backward")
_silu_backward = _op("silu_backward")
_leaky_relu_backward = _op("leaky_relu_backward")
_hardtanh_backward = _op("hardtanh_backward")
_softplus_backward = _op("softplus_backward")
_hardsigmoid_backward = _op("hardsigmoid_backward")
_hardswish_backward = _op("hardswish_backward")
_mish_backward = _op("mish_backward")
_elu_backward = A.elu_backward

# ---- gelu ----------------------------------------------------------------------------------------------------

_GELU_ALPHA = 2 / math.sqrt(math.pi) * (1 / math.sqrt(2)) * 0.5   # 1/sqrt(2 pi), the normal density at 0
_GELU_BETA = math.sqrt(2) * 2 / math.sqrt(math.pi) * 0.5           # sqrt(2/pi)
_GELU_KAPPA = 0.044715


def gelu_double_backward(ggI, gO, self, approximate):
    """grad * grad_output * gelu''(x) (FunctionsManual.cpp `gelu_double_backward`)."""
    if approximate == "tanh":
        # u = beta (x + kappa x^3), t = tanh(u): gelu'' = (1 - t^2) (u' + x/2 (u'' - 2 t u'^2))
        x_sq = self * self
        t = (_GELU_BETA * (self + _GELU_KAPPA * x_sq * self)).tanh()
        du = _GELU_BETA * (1 + 3 * _GELU_KAPPA * x_sq)
        ddu = (6 * _GELU_BETA * _GELU_KAPPA) * self
        second = (1 - t * t) * (du + 0.5 * self * (ddu - 2 * t * du * du))
        return ggI * gO * second
    x_sq = self * self
    pdf = _GELU_ALPHA * (-0.5 * x_sq).exp()
    return ggI * gO * (2 * pdf - x_sq * pdf)


derivative("gelu", self=lambda grad, self, approximate: _gelu_backward(grad, self, approximate))
derivative("gelu_backward",
           grad_output=lambda grad, self, approximate: _gelu_backward(grad, self, approximate),
           self=lambda grad, grad_output, self, approximate: gelu_double_backward(grad, grad_output, self,
                                                                                  approximate))

# ---- silu ----------------------------------------------------------------------------------------------------


def silu_double_backward(grad, grad_output, self):
    """grad * grad_output * silu''(x), silu'' = s (1 - s) (2 + x (1 - 2 s)) with s = sigmoid(x)."""
    s = self.sigmoid()
    return grad * grad_output * s * (1 - s) * (2 + self * (1 - 2 * s))


def infinitely_differentiable_silu_backward(grad, self):
    """grad * sigmoid(x) * (1 + x (1 - sigmoid(x))), with differentiable ops."""
    sigmoid = self.sigmoid()
    return grad * sigmoid * (1 + self * (1 - sigmoid))


def _silu_formula(grad, self):
    """derivatives.yaml: `GradMode::is_enabled() ? infinitely_differentiable_silu_backward(grad, self) :
    silu_backward(grad, self)`."""
    if is_grad_enabled():
        return infinitely_differentiable_silu_backward(grad, self)
    return _silu_backward(grad, self)


derivative("silu", self=_silu_formula)
derivative("silu_backward",
           grad_output=lambda grad, self: _silu_backward(grad, self),
           self=lambda grad, grad_output, self: silu_double_backward(grad, grad_output, self))

# ---- the piecewise-linear ones: f'' = 0 ------------------------------------------------------------------------

derivative("leaky_relu",
           self=lambda grad, self, negative_slope: _leaky_relu_backward(grad, self, negative_slope, False))


def _leaky_relu_inplace_backward(grad, result, negative_slope):
    """From the result: only possible with a positive slope (PyTorch's leaky_relu_backward checks)."""
    if negative_slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
            "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
            "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
            "in-place leakRelu backward calculation with negative slope")
    return _leaky_relu_backward(grad, result, negative_slope, True)


derivative("leaky_relu_", name="LeakyReluBackward1", self=_leaky_relu_inplace_backward)
derivative("leaky_relu_backward",
           grad_output=lambda grad, self, negative_slope: _leaky_relu_backward(grad, self, negative_slope, False),
           self=lambda grad: zeros_like(grad))

derivative("hardtanh", self=lambda grad, self, min_val, max_val: _hardtanh_backward(grad, self, min_val, max_val))
derivative("hardtanh_backward",
           grad_output=lambda grad, self, min_val, max_val: _hardtanh_backward(grad, self, min_val, max_val),
           self=lambda grad: zeros_like(grad))

derivative("hardsigmoid", self=lambda grad, self: _hardsigmoid_backward(grad, self))
no_formula("hardsigmoid_backward", why="none in PyTorch 2.13 either: a second derivative of hardsigmoid fails "
           "there with 'derivative for aten::hardsigmoid_backward is not implemented'")

derivative("threshold", self=lambda grad, self, threshold: threshold_backward(grad, self, threshold))
# (the in-place twin reads the saved copy of the input, as the functional one does; only its name differs)
derivative("threshold_", name="ThresholdBackward1",
           self=lambda grad, self, threshold: threshold_backward(grad, self, threshold))

# ---- hardswish: f'' = 1/3 strictly between -3 and 3 ---------------------------------------------------------

derivative("hardswish", self=lambda grad, self: _hardswish_backward(grad, self))
derivative("hardswish_backward",
           grad_output=lambda grad, self: _hardswish_backward(grad, self),
           self=lambda grad, grad_output, self: where((self > -3) & (self < 3), grad * grad_output / 3, 0.0))

# ---- elu, selu, celu --------------------------------------------------------------------------------------------


def elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, self_or_result):
    """d/dx of elu_backward (FunctionsManual.cpp `elu_double_backward`), masked with x < 0 as PyTorch's is: so
    at exactly 0, where the backward took the exponential branch (x <= 0), the second derivative is 0."""
    negative = (self_or_result < 0).to(grad.dtype)
    if is_result:
        return grad * grad_output * input_scale * negative
    return _elu_backward(grad * grad_output * input_scale, alpha, scale, input_scale, is_result,
                         self_or_result) * negative


derivative("elu", self=lambda grad, self, alpha, scale, input_scale:
           _elu_backward(grad, alpha, scale, input_scale, False, self))
derivative("elu_", name="EluBackward1", self=lambda grad, result, alpha, scale, input_scale:
           _elu_backward(grad, alpha, scale, input_scale, True, result))
derivative("elu_backward",
           grad_output=lambda grad, alpha, scale, input_scale, is_result, self_or_result:
           _elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result),
           self_or_result=lambda grad, grad_output, alpha, scale, input_scale, is_result, self_or_result:
           elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, self_or_result))
derivative("celu", self=lambda grad, self, alpha: _elu_backward(grad, alpha, 1, 1 / alpha, False, self))
derivative("celu_", name="CeluBackward1", self=lambda grad, result, alpha:
           _elu_backward(grad, alpha, 1, 1 / alpha, True, result))

# ---- softplus ---------------------------------------------------------------------------------------------------


def softplus_double_backward(grad, self, beta, threshold):
    """d/dx of softplus_backward: beta * sigmoid(beta x) (1 - sigmoid(beta x)) where beta x < threshold, else 0
    (FunctionsManual.cpp `softplus_double_backward`)."""
    scaled = self * beta
    s = scaled.sigmoid()
    return grad * s * (1 - s) * (scaled < threshold).to(grad.dtype) * beta


derivative("softplus", self=lambda grad, self, beta, threshold: _softplus_backward(grad, self, beta, threshold))
derivative("softplus_backward",
           grad_output=lambda grad, self, beta, threshold: _softplus_backward(grad, self, beta, threshold),
           self=lambda grad, grad_output, self, beta, threshold:
           softplus_double_backward(grad * grad_output, self, beta, threshold))

# ---- mish -------------------------------------------------------------------------------------------------------


def infinitely_differentiable_mish_backward(grad, self):
    """grad * (tanh(softplus(x)) + x sigmoid(x) (1 - tanh(softplus(x))^2)), with differentiable ops."""
    sigmoid = self.sigmoid()
    tanh_softplus = A.softplus(self).tanh()
    return grad * (tanh_softplus + self * sigmoid * (1 - tanh_softplus * tanh_softplus))


def _mish_formula(grad, self):
    if is_grad_enabled():
        return infinitely_differentiable_mish_backward(grad, self)
    return _mish_backward(grad, self)


derivative("mish", self=_mish_formula)
no_formula("mish_backward", why="none in PyTorch either: under create_graph mish's formula is written with "
           "differentiable ops instead")


# ---- log_sigmoid, glu, prelu ----------------------------------------------------------------------------------------
_log_sigmoid_backward = _op("log_sigmoid_backward")

derivative("log_sigmoid_forward", name="LogSigmoidBackward0",
           self=lambda grad, self, buffer: _log_sigmoid_backward(grad, self, buffer))
derivative("log_sigmoid_backward",
           grad_output=lambda grad, self, buffer: _log_sigmoid_backward(grad, self, buffer),
           self=lambda grad, grad_output, self: log_sigmoid_double_backward(grad * grad_output, self))


def log_sigmoid_double_backward(grad, self):
    """d/dx of grad * (1 - sigmoid(x)): -grad * sigmoid(x) (1 - sigmoid(x)) (FunctionsManual.cpp)."""
    z = self.sigmoid()
    return grad * (z - 1) * z


def _glu_halves(self, dim):
    return self.chunk(2, dim)


def glu_double_backward_grad_output(grad, self, dim):
    """d/d(grad_output) of glu_backward, applied to `grad`: grad_a * sigmoid(b) + grad_b * a * sigmoid'(b)."""
    a, b = _glu_halves(self, dim)
    ga, gb = _glu_halves(grad, dim)
    s = b.sigmoid()
    return ga * s + gb * a * s * (1 - s)


def glu_double_backward(grad, grad_output, self, dim):
    """d/d(self) of glu_backward, applied to `grad`, joined back along `dim` (FunctionsManual.cpp)."""
    a, b = _glu_halves(self, dim)
    ga, gb = _glu_halves(grad, dim)
    s = b.sigmoid()
    ds = s * (1 - s)
    grad_a = gb * grad_output * ds
    grad_b = ga * grad_output * ds + gb * grad_output * a * ds * (1 - 2 * s)
    return ops.cat([grad_a, grad_b], dim)


derivative("glu", self=lambda grad, self, dim: glu_backward_op(grad, self, dim))
derivative("glu_backward",
           grad_output=lambda grad, self, dim: glu_double_backward_grad_output(grad, self, dim),
           self=lambda grad, grad_output, self, dim: glu_double_backward(grad, grad_output, self, dim))


def _prelu_backward(grad, self, weight, grad_input_mask):
    """PyTorch's `_prelu_kernel_backward` gives both gradients in one pass; under create_graph they are written
    with differentiable ops (the engine sums grad_weight back to the weight's shape)."""
    if not is_grad_enabled():
        return _prelu_kernel_backward_op(grad, self, weight)
    positive = self > 0
    return where(positive, grad, grad * weight), where(positive, 0.0, self * grad)


derivative("_prelu_kernel", entries={"self, weight": _prelu_backward})
no_formula("_prelu_kernel_backward", why="double backward of prelu goes through ops: the formula of _prelu_kernel "
           "is written with differentiable ops when create_graph=True")


# ---- layer norm, batch norm ---------------------------------------------------------------------------------------
# derivatives.yaml: `native_layer_norm: input, weight, bias: native_layer_norm_backward(grad, input,
# normalized_shape, result1, result2, weight, bias, grad_input_mask)`, one op for all three gradients, reading the
# mean and rstd the forward returned; likewise batch norm. PyTorch differentiates the backward ops in turn with
# hand-derived `layer_norm_double_backward` / `batchnorm_double_backward`; here, when the graph of the backward is
# recorded (create_graph=True, grad mode on), the gradients are written with differentiable ops instead, the
# statistics recomputed from the input (PyTorch's own pattern for silu and mish), so gradients of gradients are
# exact without a third formula.


def _norm_backward_with_ops(grad, input, weight, mean, rstd, inner, outer, train, grad_input_mask):
    """grad_x = rstd * (g - mean(g) - x_hat * mean(g * x_hat)) with g = grad * weight (only g * rstd when the
    statistics are constants: batch norm in evaluation); grad_weight = sum(grad * x_hat); grad_bias = sum(grad).
    `mean`, `rstd` broadcast against input; `inner` are the dims normalized over, `outer` the others."""
    x_hat = (input - mean) * rstd
    grad_input = grad_weight = grad_bias = None
    if grad_input_mask[0]:
        g = grad * weight if weight is not None else grad
        if train:
            g = g - g.mean(inner, keepdim=True) - x_hat * (g * x_hat).mean(inner, keepdim=True)
        grad_input = g * rstd
    if grad_input_mask[1] and weight is not None:
        grad_weight = (grad * x_hat).sum(outer) if outer else grad * x_hat
    if len(grad_input_mask) > 2 and grad_input_mask[2]:
        grad_bias = grad.sum(outer) if outer else grad
    return grad_input, grad_weight, grad_bias


def _layer_norm_backward(grad, input, normalized_shape, eps, result1, result2, weight, bias, grad_input_mask):
    if not is_grad_enabled():
        return native_layer_norm_backward_op(grad, input, normalized_shape, result1, result2, weight, bias,
                                             grad_input_mask)
    k = len(normalized_shape)
    inner = list(range(input.dim() - k, input.dim()))
    var, mean = ops.var_mean(input, inner, correction=0, keepdim=True)
    gi, gw, gb = _norm_backward_with_ops(grad, input, weight, mean, (var + eps).rsqrt(), inner,
                                         list(range(input.dim() - k)), True, grad_input_mask)
    if gw is not None and weight.dim() != gw.dim():
        gw = gw.reshape(weight.shape)
    if gb is not None and bias.dim() != gb.dim():
        gb = gb.reshape(bias.shape)
    return gi, gw, gb


derivative("native_layer_norm", entries={"input, weight, bias": _layer_norm_backward})
no_formula("native_layer_norm_backward", why="double backward of layer norm goes through ops: the formula of "
           "native_layer_norm is written with differentiable ops when create_graph=True")


def _batch_norm_backward(grad, input, weight, running_mean, running_var, training, eps, result1, result2,
                         grad_input_mask):
    if not is_grad_enabled():
        return native_batch_norm_backward_op(grad, input, weight, running_mean, running_var, result1, result2,
                                             training, eps, grad_input_mask)
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    dims = [0] + list(range(2, input.dim()))
    if training:
        var, mean = ops.var_mean(input, dims, correction=0, keepdim=True)
    else:
        var, mean = running_var.reshape(shape), running_mean.reshape(shape)
    w = weight.reshape(shape) if weight is not None else None
    gi, gw, gb = _norm_backward_with_ops(grad, input, w, mean, (var + eps).rsqrt(), dims, dims, training,
                                         grad_input_mask)
    return gi, gw, gb


derivative("native_batch_norm", entries={"input, weight, bias": _batch_norm_backward})


def _group_norm_backward(grad, input, weight, N, C, HxW, group, eps, result1, result2, grad_input_mask):
    if not is_grad_enabled():
        return native_group_norm_backward_op(grad, input, result1, result2, weight, N, C, HxW, group,
                                             grad_input_mask)
    # each (sample, group) row normalized over its C/group channels and HxW positions
    x = input.reshape(N, group, C // group, HxW)
    var, mean = ops.var_mean(x, [2, 3], correction=0, keepdim=True)
    w = weight.reshape(1, group, C // group, 1) if weight is not None else None
    gi, gw, gb = _norm_backward_with_ops(grad.reshape(N, group, C // group, HxW), x, w, mean, (var + eps).rsqrt(),
                                         [2, 3], [0, 3], True, grad_input_mask)
    return (gi.reshape(input.shape) if gi is not None else None, gw.reshape(C) if gw is not None else None,
            gb.reshape(C) if gb is not None else None)


derivative("native_group_norm", entries={"input, weight, bias": _group_norm_backward})
no_formula("native_group_norm_backward", why="double backward of group norm goes through ops: the formula of "
           "native_group_norm is written with differentiable ops when create_graph=True")
no_formula("native_batch_norm_backward", why="double backward of batch norm goes through ops: the formula of "
           "native_batch_norm is written with differentiable ops when create_graph=True")


# ---- embedding ----------------------------------------------------------------------------------------------------
# derivatives.yaml: `embedding: weight: embedding_backward_symint(grad, indices, weight.sym_size(0), padding_idx,
# scale_grad_by_freq, sparse)`, which for dense gradients is `embedding_dense_backward` (node EmbeddingBackward0);
# `embedding_dense_backward: grad_output: embedding_dense_double_backward(grad, indices, padding_idx)`, a lookup of
# the rows again (the padding row's gradient is zero: it got none).


def _embedding_dense_double_backward(grad, indices, padding_idx):
    rows = embedding_op(grad, indices)
    if padding_idx >= 0:
        rows = where((indices != padding_idx).unsqueeze(-1), rows, 0.0)
    return rows


def _embedding_backward(grad, indices, weight_sym_sizes, padding_idx, scale_grad_by_freq, sparse):
    if sparse:
        raise NotImplementedError("teachtorch's embedding has no sparse gradients")
    return embedding_dense_backward_op(grad, indices, weight_sym_sizes[0], padding_idx, scale_grad_by_freq)


derivative("embedding", weight=_embedding_backward)
derivative("embedding_dense_backward", grad_output=lambda grad, indices, padding_idx:
           _embedding_dense_double_backward(grad, indices, padding_idx))
