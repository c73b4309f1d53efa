"""The loss kernels: each loss computed in one op, and its gradient in one more, as PyTorch's are.

PyTorch gives its common losses a kernel and a backward kernel of their own (aten/src/ATen/native/Loss.cpp,
LossNLL.cpp, LossNLL2d.cpp), declared in native_functions.yaml:

    nll_loss_forward(self, target, weight, reduction, ignore_index) -> (output, total_weight)
    nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight)
    nll_loss2d_forward / nll_loss2d_backward        the same for (N, C, H, W) inputs
    mse_loss(self, target, reduction)               mse_loss_backward(grad_output, self, target, reduction)
    binary_cross_entropy(self, target, weight, reduction)           ..._backward(grad_output, ...)
    binary_cross_entropy_with_logits(self, target, weight, pos_weight, reduction)
    smooth_l1_loss(self, target, reduction, beta)   smooth_l1_loss_backward(grad_output, ..., beta)
    huber_loss(self, target, reduction, delta)      huber_loss_backward(grad_output, ..., delta)

`reduction` is PyTorch's `Reduction` enum (aten/src/ATen/core/Reduction.h): 0 none, 1 mean, 2 sum.
One kernel instead of a chain of ops (gather, squeeze, neg, mul, sum, div ...) means one dispatch forward
and one backward node; the array code is the same arithmetic.
"""

import numpy as np

from .. import _dtype
from .._strides import broadcast_shapes, preserve_format_strides
from ..backends import empty, quietly, wrap
from .indexing import fresh, is_meta, xp_for
from .pointwise import DEFAULT, output_strides, pointwise_meta, run

NONE, MEAN, SUM = 0, 1, 2          # at::Reduction::Reduction


def _reduce(xp, loss, reduction):
    """apply_loss_reduction (Loss.cpp): the mean or the sum of the elementwise losses (mean of none is nan)."""
    if reduction == MEAN:
        return loss.sum() / loss.size if loss.size else xp.asarray(np.nan, dtype=loss.dtype)
    return loss.sum()


def _elementwise(fn, operands, params, reduction, name):
    """An elementwise loss as PyTorch runs one: a TensorIterator over the operands (their common dtype, the
    layout of a binary op), then `apply_loss_reduction`."""
    tensors, device, out_dtype, compute, shape = pointwise_meta(operands, DEFAULT)
    if not out_dtype.is_floating_point:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{out_dtype._ptname}'")
    if is_meta(*tensors):
        return empty(shape if reduction == NONE else (), out_dtype, device)
    loss = run(fn, operands, params, compute, device, out_dtype)
    if reduction == NONE:
        return fresh(loss, out_dtype, device, output_strides(shape, tensors, operands, compute))
    return wrap(quietly(_reduce, xp_for(tensors[0]), loss, reduction), out_dtype, device)


def _norm(reduction, numel):
    """The factor of each element's gradient: 1/numel for a mean, 1 otherwise."""
    return 1.0 / numel if reduction == MEAN and numel else 1.0


# ---- negative log likelihood ------------------------------------------------------------------------------


def _nll_arrays(self, target, weight, ignore_index):
    """(x with the class dim at 1, targets, a mask of the targets that count, safe targets, their weights).

    Targets equal to `ignore_index` do not count; every other target must be a class, or IndexError, as
    PyTorch's CPU kernel raises (`TORCH_CHECK_INDEX(cur_target >= 0 && cur_target < n_classes, ...)`).
    """
    xp = xp_for(self)
    x, t = self._data(), target._data().astype(np.int64)
    if self.dim() == 1:                      # an unbatched input: one sample
        x, t = x[None], t.reshape(1)
    n_classes = x.shape[1]
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= n_classes))
    if bool(bad.any()):
        raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
    safe = xp.where(valid, t, 0)
    if weight is None:
        w = valid.astype(x.dtype)                                        # 1 for a target that counts, else 0
    else:
        w = xp.where(valid, weight._data().astype(x.dtype)[safe], 0).astype(x.dtype)
    return xp, x, t, valid, safe, w


def _nll_forward(self, target, weight, reduction, ignore_index, per_sample):
    """nll_loss_out_frame (LossNLL.cpp) and nll_loss2d_forward_out_frame (LossNLL2d.cpp): the loss of each
    target is -w[t] * x[t], and the mean divides the sum by total_weight, the sum of the weights that count."""
    dtype, device = self.dtype, self.device
    if is_meta(self, target):
        return empty(per_sample if reduction == NONE else (), dtype, device), empty((), dtype, device)
    xp, x, t, valid, safe, w = _nll_arrays(self, target, weight, ignore_index)
    picked = xp.take_along_axis(x, safe[:, None], axis=1)[:, 0]          # x[n, t[n], ...]
    losses = xp.where(valid, -picked * w, 0).astype(x.dtype)             # an ignored target counts 0, even nan
    if reduction == NONE and self.dim() > 1:
        return wrap(losses, dtype, device), wrap(xp.zeros((), x.dtype), dtype, device)
    total = w.sum()
    out = losses.sum()
    if reduction == MEAN:
        out = quietly(lambda: out / total) if t.size else xp.asarray(np.nan, x.dtype)
    return wrap(out, dtype, device), wrap(total, dtype, device)


def _check_nll_dtypes(self, target, weight):
    if target.dtype not in (_dtype.int64, _dtype.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype._ptname}")
    if weight is not None and weight.dtype != self.dtype:
        raise RuntimeError(f"expected scalar type {self.dtype._ptname} but found {weight.dtype._ptname}")


def nll_loss_forward_kernel(ks, self, target, weight, reduction, ignore_index):
    """(output, total_weight) for an (N, C) or unbatched (C,) input; the checks of TORCH_META_FUNC(nll_loss_forward)."""
    if not 0 < self.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if not (self.dim() == 1 and target.dim() == 0) and self.shape[0] != target.shape[0]:
        raise RuntimeError(f"size mismatch (got input: {list(self.shape)}, target: {list(target.shape)})")
    n_classes = self.shape[-1]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes "
                           f"but got weight tensor of shape: {list(weight.shape)}")
    _check_nll_dtypes(self, target, weight)
    return _nll_forward(self, target, weight, reduction, ignore_index, tuple(self.shape[:1]))


def _check_nll2d(self, target, weight):
    """check_inputs_nll_loss2d (LossNLL2d.cpp)."""
    if target.dim() != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got targets of "
                           f"dimension: {target.dim()}")
    if self.dim() != 4:
        raise RuntimeError("only batches of spatial inputs supported (4D tensors), but got input of dimension: "
                           f"{self.dim()}")
    if tuple(target.shape) != (self.shape[0],) + tuple(self.shape[2:]):
        raise RuntimeError(f"size mismatch (got input: {list(self.shape)} , target: {list(target.shape)}")
    if weight is not None and weight.numel() != self.shape[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    _check_nll_dtypes(self, target, weight)


def nll_loss2d_forward_kernel(ks, self, target, weight, reduction, ignore_index):
    """(output, total_weight) for an (N, C, H, W) input and (N, H, W) targets."""
    _check_nll2d(self, target, weight)
    return _nll_forward(self, target, weight, reduction, ignore_index, tuple(target.shape))


def _nll_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    """nll_loss_backward_out_frame: the gradient is 0 everywhere but at each counted target, where it is
    -w[t] * grad (divided by total_weight for a mean). An ignored target gets exact zeros, even when the
    mean divides by a total weight of 0."""
    dtype, device = self.dtype, self.device
    if is_meta(self, target, grad_output):
        return empty(self.shape, dtype, device)
    xp, x, t, valid, safe, w = _nll_arrays(self, target, weight, ignore_index)
    g = grad_output._data().astype(x.dtype)
    if reduction == MEAN:
        g = quietly(lambda: g / total_weight._data().astype(x.dtype))
    if reduction != NONE or self.dim() == 1:
        g = g.reshape(())
    per_target = xp.where(valid, quietly(lambda: -w * g), 0)                     # (N, ...)
    classes = xp.arange(x.shape[1]).reshape((1, -1) + (1,) * (x.ndim - 2))
    grad = xp.where(classes == safe[:, None], per_target[:, None], 0).astype(x.dtype)
    return wrap(grad.reshape(self.shape), dtype, device)


def nll_loss_backward_kernel(ks, grad_output, self, target, weight, reduction, ignore_index, total_weight):
    return _nll_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight)


def nll_loss2d_backward_kernel(ks, grad_output, self, target, weight, reduction, ignore_index, total_weight):
    _check_nll2d(self, target, weight)
    return _nll_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight)


# ---- mean squared error -----------------------------------------------------------------------------------


def mse(xp, x, y):
    d = x - y
    return d * d


def mse_loss_kernel(ks, self, target, reduction):
    """(x - y)^2, reduced (Loss.cpp `mse_loss_out`)."""
    return _elementwise(mse, (self, target), (), reduction, "mse")


def mse_grad(xp, g, x, y, norm):
    return norm * (x - y) * g


def mse_loss_backward_kernel(ks, grad_output, self, target, reduction):
    """2 (x - y) grad, divided by numel for a mean (Loss.cpp `mse_loss_backward_out`)."""
    return _elementwise(mse_grad, (grad_output, self, target), (2.0 * _norm(reduction, self.numel()),), NONE,
                        "mse_backward")


# ---- binary cross entropy ---------------------------------------------------------------------------------


def _check_fits(weight_shape, shape):
    """`loss.mul_(weight)`: the weight broadcasts into the loss's shape, never grows it."""
    full = broadcast_shapes(tuple(shape), tuple(weight_shape))
    if full != tuple(shape):
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}")


def bce(xp, p, y, w):
    """w ((y - 1) max(log(1 - p), -100) - y max(log p, -100)): each log clamped, so p = 0 or 1 stays finite."""
    return ((y - 1) * xp.maximum(xp.log1p(-p), -100) - y * xp.maximum(xp.log(p), -100)) * w


def binary_cross_entropy_kernel(ks, self, target, weight, reduction):
    """Loss.cpp `binary_cross_entropy_out_cpu`: checks that p and y are in [0, 1], then the clamped loss,
    written into `empty_like(self)` and multiplied by the weight in place (`loss.mul_(weight)`)."""
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"binary_cross_entropy\" not implemented for '{self.dtype._ptname}'")
    if target.dtype != self.dtype:
        raise RuntimeError(f"Found dtype {target.dtype._ptname} but expected {self.dtype._ptname}")
    if weight is not None:
        _check_fits(tuple(weight.shape), self.shape)
    if is_meta(self, target):
        return empty(self.shape if reduction == NONE else (), self.dtype, self.device)
    xp, p, y = xp_for(self), self._data(), target._data()
    # (nan is refused too: it is not >= 0)
    if p.size and not bool(((p >= 0) & (p <= 1)).all()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if y.size and not bool(((y >= 0) & (y <= 1)).all()):
        raise RuntimeError("all elements of target should be between 0 and 1")
    w = 1 if weight is None else weight._data().astype(p.dtype)
    loss = quietly(bce, xp, p, y, w).astype(p.dtype)
    if reduction == NONE:
        return fresh(loss, self.dtype, self.device, preserve_format_strides(self._sizes, self._strides))
    return wrap(quietly(_reduce, xp, loss, reduction), self.dtype, self.device)


# PyTorch's binary_cross_entropy_backward: grad * (p - y) / max(p (1 - p), EPSILON)
BCE_EPSILON = 1e-12


def bce_grad(xp, g, p, y, w, norm):
    return g * (p - y) / xp.maximum((1 - p) * p, BCE_EPSILON) * w * norm


def binary_cross_entropy_backward_kernel(ks, grad_output, self, target, weight, reduction):
    """Loss.cpp `binary_cross_entropy_backward_out_cpu`: (p - y) / max(p (1 - p), 1e-12) grad [* w] [/ numel]."""
    tensors, device, dtype, _, shape = pointwise_meta((grad_output, self, target), DEFAULT)
    if is_meta(*tensors):
        return empty(shape, dtype, device)
    g, p, y = (t._data().astype(dtype.numpy) for t in tensors)
    w = 1 if weight is None else weight._data().astype(dtype.numpy)         # (grad_input.mul_(weight))
    grad = quietly(bce_grad, xp_for(self), g, p, y, w, _norm(reduction, self.numel())).astype(dtype.numpy)
    return fresh(grad, dtype, device, output_strides(shape, tensors))


def log_sigmoid(xp, x):
    """log(sigmoid(x)) = -log(1 + e^-x) = min(x, 0) - log1p(e^-|x|), stable for large |x|."""
    return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))


def bce_with_logits(xp, x, y, weight, pos_weight):
    """Loss.cpp `binary_cross_entropy_with_logits`: (1 - y) x - (1 + (pos_weight - 1) y) log_sigmoid(x)."""
    log_sig = log_sigmoid(xp, x)
    if pos_weight is not None:
        log_sig = log_sig * ((pos_weight - 1) * y + 1)
    loss = (1 - y) * x - log_sig
    return loss if weight is None else loss * weight


def binary_cross_entropy_with_logits_kernel(ks, self, target, weight, pos_weight, reduction):
    """The loss of sigmoid(x) against y, from the logits (never log(sigmoid(x)) of a rounded sigmoid).

    PyTorch computes `(1 - target).mul_(input)` in place, into the target: the loss has the target's dtype,
    and a target that cannot hold it is refused."""
    if not target.dtype.is_floating_point:
        result = _dtype.promote_types(self.dtype, target.dtype)
        raise RuntimeError(f"result type {result._ptname} can't be cast to the desired output type "
                           f"{target.dtype._ptname}")
    if pos_weight is not None:
        # `(pos_weight - 1).mul(target)` broadcasts, then multiplies log_sigmoid(input) in place
        _check_fits(broadcast_shapes(tuple(pos_weight.shape), tuple(target.shape)), self.shape)
    if weight is not None:
        _check_fits(tuple(weight.shape), self.shape)
    operands = (self, target) + tuple(t for t in (weight, pos_weight) if t is not None)
    tensors, device, _, compute, shape = pointwise_meta(operands, DEFAULT)
    dtype = target.dtype
    if is_meta(*tensors):
        return empty(shape if reduction == NONE else (), dtype, device)
    xp = xp_for(self)
    arrays = [t._data().astype(compute.numpy) if t is not None else None for t in (self, target, weight, pos_weight)]
    loss = quietly(bce_with_logits, xp, *arrays).astype(dtype.numpy)
    if reduction == NONE:
        # the loss is written into `1 - target`: the layout of that op's result
        return fresh(loss, dtype, device, output_strides(shape, [target], (1, target), dtype))
    return wrap(quietly(_reduce, xp, loss, reduction), dtype, device)


# ---- smooth L1 and Huber ----------------------------------------------------------------------------------


def smooth_l1(xp, x, y, beta):
    z = xp.abs(x - y)
    return xp.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)


def smooth_l1_loss_kernel(ks, self, target, reduction, beta):
    """0.5 d^2 / beta where |d| < beta, |d| - beta / 2 elsewhere (Loss.cpp `smooth_l1_loss_out`)."""
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _elementwise(smooth_l1, (self, target), (beta,), reduction, "smooth_l1")


def smooth_l1_grad(xp, g, x, y, norm, beta):
    d = x - y
    return xp.where(d <= -beta, -norm * g, xp.where(d >= beta, norm * g, norm * d * g / beta))


def smooth_l1_loss_backward_kernel(ks, grad_output, self, target, reduction, beta):
    """The kernel of PyTorch's smooth_l1_backward_cpu_kernel: d / beta inside, sign(d) outside, times grad."""
    return _elementwise(smooth_l1_grad, (grad_output, self, target), (_norm(reduction, self.numel()), beta), NONE,
                        "smooth_l1_backward")


def huber(xp, x, y, delta):
    z = xp.abs(x - y)
    return xp.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))


def huber_loss_kernel(ks, self, target, reduction, delta):
    """0.5 d^2 where |d| < delta, delta (|d| - delta / 2) elsewhere (Loss.cpp `huber_loss_out`)."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return _elementwise(huber, (self, target), (delta,), reduction, "huber")


def huber_grad(xp, g, x, y, norm, delta):
    d = x - y
    return xp.where(d < -delta, -norm * g * delta, xp.where(d > delta, norm * g * delta, norm * d * g))


def huber_loss_backward_kernel(ks, grad_output, self, target, reduction, delta):
    return _elementwise(huber_grad, (grad_output, self, target), (_norm(reduction, self.numel()), delta), NONE,
                        "huber_backward")



# ---- soft margin ------------------------------------------------------------------------------------------


def soft_margin(xp, x, y):
    return xp.log1p(xp.exp(-x * y))


def soft_margin_loss_kernel(ks, self, target, reduction):
    """log(1 + exp(-y x)), the logistic loss of a score x against a label y = +-1 (Loss.cpp
    `soft_margin_loss_out`: `neg_out(output, input).mul_(target).exp_().log1p_()`)."""
    return _elementwise(soft_margin, (self, target), (), reduction, "soft_margin")


def soft_margin_grad(xp, g, x, y, norm):
    z = xp.exp(-y * x)
    return -norm * y * z / (1 + z) * g


def soft_margin_loss_backward_kernel(ks, grad_output, self, target, reduction):
    """-y e^(-yx) / (1 + e^(-yx)) grad, over numel for a mean (Loss.cpp `soft_margin_loss_backward_out`)."""
    return _elementwise(soft_margin_grad, (grad_output, self, target), (_norm(reduction, self.numel()),), NONE,
                        "soft_margin_backward")
