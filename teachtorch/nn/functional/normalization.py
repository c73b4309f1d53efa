"""batch_norm, layer_norm and group_norm: subtract a mean, divide by a standard deviation, then scale and shift.

The three differ only in WHICH elements share one mean and variance:

* **batch_norm** (N, C, *): one pair per channel, over the batch and the spatial dims. In training it uses the
  batch's statistics and updates the running ones in place (`running = (1 - momentum) * running + momentum *
  batch`, with the *unbiased* variance (divided by n - 1), while the normalisation itself uses the biased one
  (divided by n)). In evaluation it uses the running statistics, so one sample's output does not depend on
  the rest of the batch.
* **layer_norm**: one pair per sample, over the last dims given by `normalized_shape`.
* **group_norm** (N, C, *): one pair per sample and group of C/num_groups channels.

Each is one of PyTorch's fused ops, `native_batch_norm`, `native_layer_norm`, `native_group_norm`
(ops/normalization.py, kernels/normalization.py): one op forward, returning the output with the mean and
1/std it used, and one op backward (`native_batch_norm_backward`, ...; nodes NativeBatchNormBackward0,
NativeLayerNormBackward0, NativeGroupNormBackward0), as `torch.batch_norm`, `torch.layer_norm` and
`torch.group_norm` call them. The functions here check the arguments with PyTorch's messages, then call the op.
"""

import teachtorch as tt
from ...ops.normalization import native_batch_norm_op, native_group_norm_op, native_layer_norm_op

__all__ = ["batch_norm", "layer_norm", "group_norm", "normalize"]


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


def _verify_batch_size(size):
    values = size[0]
    for s in size[2:]:
        values *= s
    if values == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


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
    _check_mixed_dtype(input, weight, bias, running_mean, running_var)
    return native_batch_norm_op(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


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
    _check_mixed_dtype(input, weight, bias)
    _floating_only(input, "LayerNormKernelImpl")
    # torch.layer_norm is CompositeImplicitAutograd: native_layer_norm's output, its mean and rstd dropped
    return native_layer_norm_op(input, normalized_shape, weight, bias, eps)[0]


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
    _check_mixed_dtype(input, weight, bias)
    _floating_only(input, "GroupNormKernelImpl")
    hxw = 1
    for size in input.shape[2:]:
        hxw *= size
    # torch.group_norm (CompositeImplicitAutograd) calls native_group_norm on the input seen as (N, C, HxW)
    return native_group_norm_op(input, weight, bias, batch, channels, hxw, num_groups, eps)[0]


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
