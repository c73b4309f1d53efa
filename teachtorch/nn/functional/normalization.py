"""batch_norm, layer_norm and group_norm: subtract a mean, divide by a standard deviation, then scale and shift.

The three differ only in WHICH elements share one mean and variance:

* **batch_norm** (N, C, *): one pair per channel, over the batch and the spatial dims. In training it uses the
  batch's statistics and updates the running ones in place (`running = (1 - momentum) * running + momentum *
  batch`, with the *unbiased* variance (divided by n - 1), while the normalisation itself uses the biased one
  (divided by n)). In evaluation it uses the running statistics, so one sample's output does not depend on
  the rest of the batch.
* **layer_norm**: one pair per sample, over the last dims given by `normalized_shape`.
* **group_norm** (N, C, *): one pair per sample and group of C/num_groups channels.

Each is written as PyTorch's CPU kernels compute it: with rstd = 1/sqrt(var + eps), the normalisation
(x - mean) * rstd is one fused multiply-add, x * rstd + (-mean * rstd), i.e. `addcmul` (one pass over the
big tensor). For batch_norm the per-channel weight and bias fold into the same two small vectors
(aten/src/ATen/native/batch_norm.cpp, `batch_norm_cpu_transform_input`):

    scale = weight * rstd,  shift = bias - mean * scale,   out = x * scale + shift

Autograd needs nothing new: var_mean, rsqrt, mul and addcmul have derivatives. PyTorch instead has fused
kernels (`native_batch_norm`, `native_layer_norm`, `native_group_norm`) with hand-written backward formulas.
"""

import teachtorch as tt
from ...kernels.shape import suggest_memory_format
from ._layout import _pytorch_layout

__all__ = ["batch_norm", "layer_norm", "group_norm", "normalize"]


def _channel_view(t, input):
    """A (C,) vector shaped (1, C, 1, ..., 1) to broadcast over the channels of `input`."""
    return t.view(1, -1, *([1] * (input.dim() - 2)))


def _dense_like_pytorch(input):
    """PyTorch's normalisation kernels write a contiguous result, or a channels-last one for a channels-last
    input. Our pointwise ops lay their result out like their input, so we hand them an input in that layout:
    a copy only when the input is neither."""
    if suggest_memory_format(input) == "channels_last":
        return input
    return input.contiguous()


def _floating_only(input, kernel):
    """PyTorch's normalisation kernels exist for floating dtypes only."""
    if not input.is_floating_point():
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._ptname}'")


def _reduced_float(dtype):
    """float16 or bfloat16: the 16-bit floats (`at::isReducedFloatingType`)."""
    return dtype.is_floating_point and dtype.itemsize == 2


def _check_mixed_dtype(input, *params):
    """The CPU kernels' dtype rules for the weight, bias and running statistics (aten/src/ATen/native/
    cpu/mixed_data_type.h, `is_mixed_type` / `check_mixed_data_type`). The first given parameter decides:
    if its dtype is the input's, every parameter must match the input exactly; if not ("mixed"), every
    parameter must be float32 and the input a reduced float (float16, bfloat16), the one mix the kernels
    compute (in float32)."""
    if input.device.type != "cpu":      # (the CUDA kernels have rules of their own)
        return _reduced_float(input.dtype) and any(
            t is not None and t.dtype == tt.float32 for t in params)
    given = [t for t in params if t is not None]
    if given and given[0].dtype != input.dtype:
        if any(t.dtype != tt.float32 for t in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if not _reduced_float(input.dtype):
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return True
    for t in given:
        if t.dtype != input.dtype:
            raise RuntimeError(f"expected scalar type {input.dtype._ptname} but found {t.dtype._ptname}")
    return False


def _to_float_if(mixed, input):
    """A reduced-float input with float32 parameters is normalised in float32 (and the result cast back)."""
    return input.float() if mixed else input


def _verify_batch_size(size):
    values = size[0]
    for s in size[2:]:
        values *= s
    if values == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


@tt.no_grad()        # the running statistics are not part of the graph
def _update_running_stats(running_mean, running_var, mean, var, momentum, n):
    running_mean.mul_(1 - momentum).add_(mean * momentum)
    running_var.mul_(1 - momentum).add_(var * (momentum * n / (n - 1)))   # unbiased variance


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    """Normalise each channel of (N, C, *) input with the batch's statistics (training) or the running ones.

    In training, `running_mean` and `running_var` (when given) are updated in place with `momentum`.
    """
    if training:
        _verify_batch_size(input.shape)
    channels = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is None and not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")

    _floating_only(input, "batch_norm")
    mixed = _check_mixed_dtype(input, weight, bias, running_mean, running_var)
    x = _to_float_if(mixed, input)
    if training:
        dims = [0] + list(range(2, x.dim()))              # everything but the channels
        var, mean = tt.var_mean(x, dims, correction=0)
        if running_mean is not None:
            _update_running_stats(running_mean, running_var, mean, var, momentum, x.numel() // channels)
    else:
        mean, var = running_mean, running_var

    scale = tt.rsqrt(var + eps)
    if weight is not None:
        scale = scale * weight
    shift = -mean * scale if bias is None else bias - mean * scale
    x = _dense_like_pytorch(x)
    out = tt.addcmul(_channel_view(shift, x), x, _channel_view(scale, x))
    out = _pytorch_layout(out, input)         # (a copy only where dims of size 1 make the layout ambiguous)
    return out.to(input.dtype) if mixed else out


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the last len(normalized_shape) dims of `input`, then scale by weight and add bias."""
    if not isinstance(normalized_shape, (tuple, list)):   # (LayerNorm accepts an int; the function does not)
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
                        f"{type(normalized_shape).__name__}")
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if tuple(input.shape[input.dim() - k:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                               f"shape {list(t.shape)} and normalized_shape = {list(normalized_shape)}")
    mixed = _check_mixed_dtype(input, weight, bias)
    _floating_only(input, "LayerNormKernelImpl")
    x = _to_float_if(mixed, input).contiguous()           # PyTorch's kernel works on (and returns) contiguous
    dims = tuple(range(x.dim() - k, x.dim()))
    var, mean = tt.var_mean(x, dims, correction=0, keepdim=True)
    rstd = tt.rsqrt(var + eps)
    out = tt.addcmul(-mean * rstd, x, rstd)               # (x - mean) * rstd
    if weight is not None and bias is not None:
        out = tt.addcmul(bias, out, weight)
    elif weight is not None:
        out = out * weight
    elif bias is not None:
        out = out + bias
    out = _pytorch_layout(out)                            # (a copy only where dims of size 1 are ambiguous)
    return out.to(input.dtype) if mixed else out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each group of C/num_groups channels of each sample of (N, C, *) input, then apply the
    per-channel weight and bias."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    batch, channels = input.shape[0], input.shape[1]
    if channels % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input "
                           f"of shape {list(input.shape)} and num_groups={num_groups}")
    # (PyTorch's message for a bad bias prints the *weight's* shape, [0] when there is none: copied as is)
    weight_shape = list(weight.shape) if weight is not None else [0]
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in "
                               f"input, but got {name} of shape {weight_shape} and input of shape "
                               f"{list(input.shape)}")
    mixed = _check_mixed_dtype(input, weight, bias)
    _floating_only(input, "GroupNormKernelImpl")
    groups = _to_float_if(mixed, input).reshape(batch, num_groups, -1)   # each row: one sample's group
    var, mean = tt.var_mean(groups, -1, correction=0, keepdim=True)
    rstd = tt.rsqrt(var + eps)
    out = tt.addcmul(-mean * rstd, groups, rstd).view(input.shape)
    if weight is not None and bias is not None:
        out = tt.addcmul(_channel_view(bias, out), out, _channel_view(weight, out))
    elif weight is not None:
        out = out * _channel_view(weight, out)
    elif bias is not None:
        out = out + _channel_view(bias, out)
    # (the reshape put a channels-last input in NCHW order; PyTorch returns it channels-last)
    out = _pytorch_layout(out, input)
    return out.to(input.dtype) if mixed else out


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """`F.normalize`: divide `input` by its `p`-norm along `dim`, so each slice has norm 1.

    The norm is clamped below at `eps` so that a zero slice stays zero instead of becoming nan, exactly as
    torch/nn/functional.py writes it: `input / input.norm(p, dim, keepdim=True).clamp_min(eps)`. (It is not
    a statistics normalisation like the layers above; PyTorch files it next to them.)
    """
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return tt.div(input, denom, out=out)
