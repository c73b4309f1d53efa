"""Gradient clipping: shrink the gradients of a model before the optimizer step, so one bad batch cannot
throw the parameters far away.

`clip_grad_norm_(parameters, max_norm)` treats all the gradients as one long vector, computes its p-norm
(`get_total_norm`) and, if that norm is above `max_norm`, multiplies every gradient in place by
`max_norm / (total_norm + 1e-6)` (`clip_grads_with_norm_`). It returns the total norm, measured before
clipping, which training loops like to log. `clip_grad_value_(parameters, clip_value)` clamps every gradient
entry into [-clip_value, clip_value] instead.

PyTorch's torch/nn/utils/clip_grad.py is the same, step for step: the norm of each gradient, then the norm of
those norms (the p-norm of a concatenation is the p-norm of the parts' p-norms), then one multiplication per
gradient by the clamped coefficient (a tensor: no `.item()`, so no GPU sync). Its `foreach=True` path does
the same arithmetic with fused multi-tensor kernels (`torch._foreach_norm`, `torch._foreach_mul_`);
teachtorch has no fused kernels, so `foreach` is accepted and both paths run the loop below.
"""

import types
import warnings

import teachtorch as tt
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _as_list(tensors):
    # one tensor or any iterable of tensors (a generator is read once, here)
    return [tensors] if isinstance(tensors, tt.Tensor) else list(tensors)


@no_grad()
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The `norm_type`-norm of all `tensors` as if they were concatenated into one vector."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)               # 'inf' (a string) is accepted, as float('inf')
    if len(tensors) == 0:
        return tt.tensor(0.0)
    first_device = tensors[0].device
    norms = [tt.linalg.vector_norm(t, norm_type) for t in tensors]
    # stack promotes (a float64 gradient next to float32 ones gives a float64 total), as in PyTorch
    total_norm = tt.linalg.vector_norm(tt.stack([n.to(first_device) for n in norms]), norm_type)
    if error_if_nonfinite and tt.logical_or(total_norm.isnan(), total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from "
            "`parameters` is non-finite, so it cannot be clipped. To disable "
            "this error and scale the gradients by the non-finite norm anyway, "
            "set `error_if_nonfinite=False`")
    return total_norm


@no_grad()
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Multiply every `.grad` in place by min(max_norm / (total_norm + 1e-6), 1)."""
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    # 1e-6 keeps a zero norm from dividing by zero; the clamp means gradients are only ever scaled down
    clip_coef_clamped = tt.clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped.to(g.device))   # in place: the optimizer reads these same .grad tensors


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clip the gradients of `parameters` so that their total `norm_type`-norm is at most `max_norm`.
    Returns the total norm before clipping."""
    if isinstance(parameters, tt.Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            # `model.parameters()` already used up (a generator is empty the second time) is a common bug
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The old name of `clip_grad_norm_` (deprecated: it clips in place, so the name ends with `_`)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient entry of `parameters` into [-clip_value, clip_value], in place. Returns None."""
    if isinstance(parameters, tt.Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    for p in parameters:
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
