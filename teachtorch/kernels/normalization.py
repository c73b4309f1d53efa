"""The kernels of layer norm, batch norm and group norm, forward and backward: `native_layer_norm`,
`native_layer_norm_backward`, `native_batch_norm`, `native_batch_norm_backward`, `native_group_norm`,
`native_group_norm_backward`.

Each subtracts a mean and divides by a standard deviation, then scales by `weight` and shifts by `bias`:

    x_hat = (x - mean) * rstd,   rstd = 1 / sqrt(var + eps)   (var the biased variance: divided by n)
    y     = x_hat * weight + bias

layer norm takes one (mean, rstd) per row of the last dims (each sample), batch norm one per channel
(dim 1) over the batch and the spatial dims, group norm one per sample and group of channels. Each forward
kernel returns (y, mean, rstd) so the backward need not compute them again; the backward of y with respect
to x, for g = grad * weight, is

    grad_x = rstd * (g - mean(g) - x_hat * mean(g * x_hat))    (means over the normalized elements)

plus grad_weight = sum(grad * x_hat) and grad_bias = sum(grad) over the other dims. (In evaluation, batch norm
uses fixed running statistics, so grad_x is only g * rstd.)

As in PyTorch's CPU kernels (aten/src/ATen/native/cpu/layer_norm_kernel.cpp, native/Normalization.cpp
`batch_norm_cpu`, `batch_norm_backward_cpu_template`), float16 and bfloat16 inputs are computed in float32
(`opmath_t`) and the result rounded once; results are written fresh, contiguous (channels-last for a
channels-last batch norm input).
"""

import numpy as np

from .._dtype import float32
from .._strides import channels_last_strides
from ..backends import empty, quietly, wrap, wrap_strided, write, xp_of
from .shape import suggest_memory_format


def _opmath_array(xp, t):
    """t's values as an array to compute with: float32 for the 16-bit floats, its own dtype otherwise."""
    a = t._data()
    return a.astype(np.float32) if a.dtype.itemsize == 2 else a


def _is_meta(*tensors):
    return any(t is not None and t.device.type == "meta" for t in tensors)


# ---- layer norm ---------------------------------------------------------------------------------------------


def _stats_dtype(input, weight):
    """mean and rstd are float32 for a 16-bit input with float32 parameters (the "mixed" case), else the
    input's dtype (`param_scalar_type`)."""
    if weight is not None and weight.dtype is not input.dtype:
        return weight.dtype
    return input.dtype


def native_layer_norm_kernel(ks, input, normalized_shape, weight, bias, eps):
    """(y, mean, rstd) over the last len(normalized_shape) dims; mean and rstd keep those dims as size 1."""
    k = len(normalized_shape)
    outer = tuple(input.shape[:input.dim() - k])
    stats_shape = outer + (1,) * k
    stats_dtype = _stats_dtype(input, weight)
    if _is_meta(input):
        return (empty(tuple(input.shape), input.dtype, input.device),
                empty(stats_shape, stats_dtype, input.device), empty(stats_shape, stats_dtype, input.device))
    xp = xp_of(input)
    x = _opmath_array(xp, input)
    dims = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=dims, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=dims, keepdims=True)
    rstd = 1 / xp.sqrt(xp.maximum(var, 0) + eps)
    y = (x - mean) * rstd
    if weight is not None:
        y = y * _opmath_array(xp, weight)
    if bias is not None:
        y = y + _opmath_array(xp, bias)
    return (wrap(y, input.dtype, input.device), wrap(mean, stats_dtype, input.device),
            wrap(rstd, stats_dtype, input.device))


def native_layer_norm_backward_kernel(ks, grad_out, input, normalized_shape, mean, rstd, weight, bias,
                                      output_mask):
    """(grad_input, grad_weight, grad_bias), each None where output_mask says it is not wanted."""
    if _is_meta(grad_out, input):
        return (empty(tuple(input.shape), input.dtype, input.device) if output_mask[0] else None,
                empty(tuple(weight.shape), weight.dtype, weight.device) if output_mask[1] and weight is not None
                else None,
                empty(tuple(bias.shape), bias.dtype, bias.device) if output_mask[2] and bias is not None else None)
    xp = xp_of(input)
    k = len(normalized_shape)
    x, dy = _opmath_array(xp, input), _opmath_array(xp, grad_out)
    m, r = _opmath_array(xp, mean), _opmath_array(xp, rstd)
    x_hat = (x - m) * r
    inner = tuple(range(x.ndim - k, x.ndim))
    outer = tuple(range(x.ndim - k))
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        g = dy * _opmath_array(xp, weight) if weight is not None else dy
        grad_x = r * (g - g.mean(axis=inner, keepdims=True) - x_hat * (g * x_hat).mean(axis=inner, keepdims=True))
        grad_input = wrap(grad_x, input.dtype, input.device)
    if output_mask[1] and weight is not None:
        grad_weight = wrap((dy * x_hat).sum(axis=outer), weight.dtype, weight.device)
    if output_mask[2] and bias is not None:
        grad_bias = wrap(dy.sum(axis=outer), bias.dtype, bias.device)
    return grad_input, grad_weight, grad_bias


# ---- batch norm ---------------------------------------------------------------------------------------------


def _channel_shape(input):
    """(1, C, 1, ..., 1): a per-channel vector broadcast over (N, C, *)."""
    return (1, input.shape[1]) + (1,) * (input.dim() - 2)


def _reduce_dims(input):
    return (0,) + tuple(range(2, input.dim()))


def _wrap_like_input(array, dtype, input):
    """PyTorch's batch norm results: contiguous, or channels-last for a channels-last input."""
    if input.dim() == 4 and suggest_memory_format(input) == "channels_last":
        return wrap_strided(array, dtype, input.device, channels_last_strides(tuple(array.shape)))
    return wrap(array, dtype, input.device)


def _running_write(running, value):
    """Write the updated running statistic into its tensor (the one write path, backends.write)."""
    write(running, value.astype(running._data().dtype))


def native_batch_norm_kernel(ks, input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(y, save_mean, save_invstd). In training the batch's statistics normalise the input and the running
    ones are updated in place: running = (1 - momentum) * running + momentum * batch, with the unbiased
    variance (divided by n - 1). In evaluation the running statistics normalise it, and save_mean and
    save_invstd are empty (PyTorch's CPU kernel returns them so)."""
    channels = input.shape[1]
    stats_dtype = _stats_dtype(input, weight)
    stats_size = (channels,) if training else (0,)
    if _is_meta(input):
        return (empty(tuple(input.shape), input.dtype, input.device),
                empty(stats_size, stats_dtype, input.device), empty(stats_size, stats_dtype, input.device))
    xp = xp_of(input)
    x = _opmath_array(xp, input)
    shape = _channel_shape(input)
    if training:
        dims = _reduce_dims(input)
        n = x.size // channels
        mean = x.mean(axis=dims)
        var = ((x - mean.reshape(shape)) ** 2).mean(axis=dims)
        invstd = 1 / xp.sqrt(var + eps)
        if running_mean is not None:
            _running_write(running_mean, momentum * mean + (1 - momentum) * _opmath_array(xp, running_mean))
        if running_var is not None:
            unbiased = var * n / (n - 1) if n > 1 else xp.full_like(var, np.inf)
            _running_write(running_var, momentum * unbiased + (1 - momentum) * _opmath_array(xp, running_var))
    else:
        mean = _opmath_array(xp, running_mean)
        invstd = quietly(lambda: 1 / xp.sqrt(_opmath_array(xp, running_var) + eps))
    # y = x * scale + shift, scale = weight * invstd, shift = bias - mean * scale (batch_norm_cpu_transform_input)
    scale = invstd * _opmath_array(xp, weight) if weight is not None else invstd
    shift = -mean * scale if bias is None else _opmath_array(xp, bias) - mean * scale
    y = x * scale.reshape(shape) + shift.reshape(shape)
    out = _wrap_like_input(y, input.dtype, input)
    if not training:
        return out, empty((0,), stats_dtype, input.device), empty((0,), stats_dtype, input.device)
    return out, wrap(mean, stats_dtype, input.device), wrap(invstd, stats_dtype, input.device)


def native_batch_norm_backward_kernel(ks, grad_out, input, weight, running_mean, running_var, save_mean,
                                      save_invstd, train, eps, output_mask):
    """(grad_input, grad_weight, grad_bias) of batch norm (batch_norm_backward_cpu_template)."""
    if _is_meta(grad_out, input):
        return (empty(tuple(input.shape), input.dtype, input.device) if output_mask[0] else None,
                empty(tuple(weight.shape), weight.dtype, weight.device) if output_mask[1] and weight is not None
                else None,
                empty(tuple(weight.shape), weight.dtype, weight.device) if output_mask[2] and weight is not None
                else None)
    xp = xp_of(input)
    x, dy = _opmath_array(xp, input), _opmath_array(xp, grad_out)
    shape, dims = _channel_shape(input), _reduce_dims(input)
    if train:
        mean, invstd = _opmath_array(xp, save_mean), _opmath_array(xp, save_invstd)
    else:
        mean = _opmath_array(xp, running_mean)
        invstd = 1 / xp.sqrt(_opmath_array(xp, running_var) + eps)
    x_hat = (x - mean.reshape(shape)) * invstd.reshape(shape)
    w = _opmath_array(xp, weight).reshape(shape) if weight is not None else 1
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        g = dy * w
        if train:
            g = g - g.mean(axis=dims, keepdims=True) - x_hat * (g * x_hat).mean(axis=dims, keepdims=True)
        grad_input = _wrap_like_input(g * invstd.reshape(shape), input.dtype, input)
    param_dtype = weight.dtype if weight is not None else (float32 if input.dtype.itemsize == 2 else input.dtype)
    if output_mask[1]:
        grad_weight = wrap((dy * x_hat).sum(axis=dims), param_dtype, input.device)
    if output_mask[2]:
        grad_bias = wrap(dy.sum(axis=dims), param_dtype, input.device)
    return grad_input, grad_weight, grad_bias


# ---- group norm ---------------------------------------------------------------------------------------------


def _per_channel(a, n, c, group, hxw):
    """A (C,) vector as (1, group, C/group, 1), to broadcast over (N, group, C/group, HxW)."""
    return a.reshape(1, group, c // group, 1)


def native_group_norm_kernel(ks, input, weight, bias, N, C, HxW, group, eps):
    """(y, mean, rstd), mean and rstd of shape (N, group) (aten/src/ATen/native/group_norm.cpp,
    cpu/group_norm_kernel.cpp)."""
    stats_dtype = _stats_dtype(input, weight)
    if _is_meta(input):
        return (empty(tuple(input.shape), input.dtype, input.device), empty((N, group), stats_dtype, input.device),
                empty((N, group), stats_dtype, input.device))
    xp = xp_of(input)
    x = _opmath_array(xp, input).reshape(N, group, C // group, HxW)
    mean = x.mean(axis=(2, 3), keepdims=True)
    var = ((x - mean) ** 2).mean(axis=(2, 3), keepdims=True)
    rstd = 1 / xp.sqrt(xp.maximum(var, 0) + eps)
    y = (x - mean) * rstd
    if weight is not None:
        y = y * _per_channel(_opmath_array(xp, weight), N, C, group, HxW)
    if bias is not None:
        y = y + _per_channel(_opmath_array(xp, bias), N, C, group, HxW)
    out = _wrap_like_input(y.reshape(tuple(input.shape)), input.dtype, input)
    return out, wrap(mean.reshape(N, group), stats_dtype, input.device), wrap(rstd.reshape(N, group), stats_dtype,
                                                                              input.device)


def native_group_norm_backward_kernel(ks, grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    """(grad_input, grad_weight, grad_bias) of group norm: the layer norm formula within each group."""
    if _is_meta(grad_out, input):
        return (empty(tuple(input.shape), input.dtype, input.device) if output_mask[0] else None,
                empty((C,), weight.dtype, input.device) if output_mask[1] and weight is not None else None,
                empty((C,), input.dtype, input.device) if output_mask[2] else None)
    xp = xp_of(input)
    shape4 = (N, group, C // group, HxW)
    x, dy = _opmath_array(xp, input).reshape(shape4), _opmath_array(xp, grad_out).reshape(shape4)
    m = _opmath_array(xp, mean).reshape(N, group, 1, 1)
    r = _opmath_array(xp, rstd).reshape(N, group, 1, 1)
    x_hat = (x - m) * r
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        g = dy * _per_channel(_opmath_array(xp, weight), N, C, group, HxW) if weight is not None else dy
        dims = (2, 3)
        grad_x = r * (g - g.mean(axis=dims, keepdims=True) - x_hat * (g * x_hat).mean(axis=dims, keepdims=True))
        grad_input = _wrap_like_input(grad_x.reshape(tuple(input.shape)), input.dtype, input)
    param_dtype = weight.dtype if weight is not None else input.dtype
    if output_mask[1] and weight is not None:
        grad_weight = wrap((dy * x_hat).sum(axis=(0, 3)).reshape(C), param_dtype, input.device)
    if output_mask[2]:
        grad_bias = wrap(dy.sum(axis=(0, 3)).reshape(C), param_dtype, input.device)
    return grad_input, grad_weight, grad_bias
