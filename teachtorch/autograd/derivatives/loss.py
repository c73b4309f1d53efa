"""Backward formulas of the losses with kernels of their own (derivatives.yaml, FunctionsManual.cpp).

Each fused loss has a backward op (ops/loss.py, kernels/loss.py), and that op has a formula too, so
gradients of gradients go through ops as in PyTorch:

* nll_loss_forward -> nll_loss_backward (NllLossBackward0); nll_loss_backward is linear in grad_output, so
  its own gradient with respect to grad_output is nll_loss of the incoming gradient, and with respect to
  self 0 (`zeros_like(grad)`). The same for nll_loss2d (NllLoss2DBackward0).
* mse_loss, smooth_l1_loss, huber_loss, soft_margin_loss (self only): the target's gradient is the backward
  op with self and target swapped; the backward op's gradient with respect to grad_output is the backward op
  applied to the incoming gradient (the engine sums it to grad_output's shape), with respect to self the
  second derivative of the loss (`mse_loss_double_backward`, ...), and minus that for the target.
* binary_cross_entropy(_with_logits): FunctionsManual.cpp's `binary_cross_entropy_*_backward` functions,
  written with ops.

CTC's gradient is its own kernel, `_ctc_loss_backward` (kernels/ctc_loss.py): the beta recursion and Graves'
eq. 16, from the log_alpha the forward kept. The formula reads only `grad`, so only the loss is
differentiable, not log_alpha (PyTorch's codegen rule, autograd/variable_type.py `record`).
"""

from ...ops import loss as L
from ...ops.ctc import _ctc_loss_backward_op
from ...ops.pointwise_ternary import where
from ..derivative import derivative, no_formula

MEAN = 1

derivative("_ctc_loss",
           log_probs=lambda grad, log_probs, targets, input_lengths, target_lengths, result0, result1, blank,
           zero_infinity: _ctc_loss_backward_op(grad, log_probs, targets, input_lengths, target_lengths, result0,
                                                result1, blank, zero_infinity))

no_formula("_ctc_loss_backward", why="CTC's gradient kernel: a double backward through CTC fails, as in PyTorch")


# ---- nll_loss ------------------------------------------------------------------------------------------------

derivative("nll_loss_forward", name="NllLossBackward0",
           self=lambda grad, self, target, weight, reduction, ignore_index, total_weight:
           L.nll_loss_backward_op(grad, self, target, weight, reduction, ignore_index, total_weight))
derivative("nll_loss_backward",
           grad_output=lambda grad, target, weight, reduction, ignore_index:
           L.nll_loss_op(grad, target, weight, reduction, ignore_index),
           self=lambda grad: grad.new_zeros(grad.shape))
derivative("nll_loss2d_forward", name="NllLoss2DBackward0",
           self=lambda grad, self, target, weight, reduction, ignore_index, total_weight:
           L.nll_loss2d_backward_op(grad, self, target, weight, reduction, ignore_index, total_weight))
derivative("nll_loss2d_backward", name="NllLoss2DBackwardBackward0",
           grad_output=lambda grad, target, weight, reduction, ignore_index:
           L.nll_loss2d_op(grad, target, weight, reduction, ignore_index),
           self=lambda grad: grad.new_zeros(grad.shape))


# ---- mse_loss, smooth_l1_loss, huber_loss -------------------------------------------------------------------


def _mean_norm(grad, self, reduction):
    return grad / self.numel() if reduction == MEAN else grad


def mse_loss_double_backward(grad, self, reduction):
    """d^2 (x - y)^2 / dx^2 = 2 (over numel for a mean)."""
    return _mean_norm(2 * grad, self, reduction)


derivative("mse_loss",
           self=lambda grad, self, target, reduction: L.mse_loss_backward_op(grad, self, target, reduction),
           target=lambda grad, self, target, reduction: L.mse_loss_backward_op(grad, target, self, reduction))
derivative("mse_loss_backward",
           grad_output=lambda grad, self, target, reduction: L.mse_loss_backward_op(grad, self, target, reduction),
           self=lambda grad, grad_output, self, reduction:
           mse_loss_double_backward(grad * grad_output, self, reduction),
           target=lambda grad, grad_output, target, reduction:
           -mse_loss_double_backward(grad * grad_output, target, reduction))


def smooth_l1_loss_double_backward(grad, self, target, reduction, beta):
    """1 / beta where |x - y| < beta, 0 elsewhere."""
    if beta == 0:
        return grad.new_zeros(grad.shape)
    return _mean_norm(where((self - target).abs() < beta, grad / beta, 0.0), self, reduction)


def huber_loss_double_backward(grad, self, target, reduction, delta):
    """1 where |x - y| < delta, 0 elsewhere."""
    return _mean_norm(where((self - target).abs() < delta, grad, 0.0), self, reduction)


derivative("smooth_l1_loss",
           self=lambda grad, self, target, reduction, beta: L.smooth_l1_loss_backward_op(grad, self, target, reduction,
                                                                                        beta),
           target=lambda grad, self, target, reduction, beta: L.smooth_l1_loss_backward_op(grad, target, self,
                                                                                          reduction, beta))
derivative("smooth_l1_loss_backward",
           grad_output=lambda grad, self, target, reduction, beta: L.smooth_l1_loss_backward_op(grad, self, target,
                                                                                               reduction, beta),
           self=lambda grad, grad_output, self, target, reduction, beta:
           smooth_l1_loss_double_backward(grad * grad_output, self, target, reduction, beta),
           target=lambda grad, grad_output, self, target, reduction, beta:
           -smooth_l1_loss_double_backward(grad * grad_output, self, target, reduction, beta))
derivative("huber_loss",
           self=lambda grad, self, target, reduction, delta: L.huber_loss_backward_op(grad, self, target, reduction,
                                                                                     delta),
           target=lambda grad, self, target, reduction, delta: L.huber_loss_backward_op(grad, target, self, reduction,
                                                                                       delta))
derivative("huber_loss_backward",
           grad_output=lambda grad, self, target, reduction, delta: L.huber_loss_backward_op(grad, self, target,
                                                                                            reduction, delta),
           self=lambda grad, grad_output, self, target, reduction, delta:
           huber_loss_double_backward(grad * grad_output, self, target, reduction, delta),
           target=lambda grad, grad_output, self, target, reduction, delta:
           -huber_loss_double_backward(grad * grad_output, self, target, reduction, delta))


def soft_margin_loss_double_backward(grad, self, target, reduction):
    """d/dx of -y z / (1 + z), z = e^(-yx): y^2 z / (1 + z)^2."""
    z = (self * -target).exp()
    return _mean_norm(grad * (target * target) * z / ((z + 1) * (z + 1)), self, reduction)


# (PyTorch gives the target no formula: a target that requires grad is refused, nn/functional/loss.py)
derivative("soft_margin_loss",
           self=lambda grad, self, target, reduction: L.soft_margin_loss_backward_op(grad, self, target, reduction))
derivative("soft_margin_loss_backward",
           grad_output=lambda grad, self, target, reduction:
           L.soft_margin_loss_backward_op(grad, self, target, reduction),
           self=lambda grad, grad_output, self, target, reduction:
           soft_margin_loss_double_backward(grad * grad_output, self, target, reduction))


# ---- binary_cross_entropy, binary_cross_entropy_with_logits (FunctionsManual.cpp) -------------------------------

BCE_EPSILON = 1e-12


def _weighted(x, weight, self, reduction):
    if weight is not None:
        x = x * weight
    return _mean_norm(x, self, reduction)


def binary_cross_entropy_target_backward(grad, self, target, weight, reduction):
    """d loss / dy = -(log p - log(1 - p)) = -logit(p)."""
    return _weighted(-(self.log() - (-self).log1p()) * grad, weight, target, reduction)


def binary_cross_entropy_double_backward(grad_output, grad, self, target, weight, reduction):
    """d/dp of (p - y) / (p (1 - p)) = (p^2 - 2 p y + y) / (p^2 (1 - p)^2), with PyTorch's eps in the denominator."""
    gI = (self * self - 2 * self * target + target) / ((self + BCE_EPSILON) ** 2 * (1 - self + BCE_EPSILON) ** 2)
    return _weighted(gI * (grad * grad_output), weight, self, reduction)


def binary_cross_entropy_double_backward_target(grad, grad_output, self, target, weight, reduction):
    """d/dy of (p - y) / max(p (1 - p), eps) = -1 / max(p (1 - p), eps)."""
    denominator = ((1 - self) * self).detach().clamp_min(BCE_EPSILON)     # (clamped under no_grad in PyTorch)
    return _weighted(-grad * grad_output / denominator, weight, target, reduction)


derivative("binary_cross_entropy",
           self=lambda grad, self, target, weight, reduction:
           L.binary_cross_entropy_backward_op(grad, self, target, weight, reduction),
           target=binary_cross_entropy_target_backward)
derivative("binary_cross_entropy_backward",
           grad_output=lambda grad, self, target, weight, reduction:
           L.binary_cross_entropy_backward_op(grad, self, target, weight, reduction),
           self=binary_cross_entropy_double_backward,
           target=binary_cross_entropy_double_backward_target)


def binary_cross_entropy_with_logits_backward(grad, self, target, weight, pos_weight, reduction):
    """-w [pos_weight y (1 - sigmoid(x)) - (1 - y) sigmoid(x)] grad = w ((pos_weight y + 1 - y) sigmoid(x)
    - pos_weight y) grad."""
    if pos_weight is not None:
        t = pos_weight * target
        grad_input = (t + 1 - target) * self.sigmoid() - t
    else:
        grad_input = self.sigmoid() - target
    return _weighted(grad_input * grad, weight, self, reduction)


def binary_cross_entropy_with_logits_target_backward(grad, self, target, weight, pos_weight, reduction):
    """d loss / dy = -x, or log_sigmoid(-x) - pos_weight log_sigmoid(x) with a pos_weight."""
    from ...ops.pointwise_binary import logaddexp
    if pos_weight is not None:
        # log_sigmoid(x) = -softplus(-x) = -logaddexp(0, -x)
        zero = self.new_zeros(())
        grad_target = pos_weight * logaddexp(zero, -self) - logaddexp(zero, self)
    else:
        grad_target = -self
    return _weighted(grad_target * grad, weight, target, reduction)


derivative("binary_cross_entropy_with_logits",
           self=binary_cross_entropy_with_logits_backward, target=binary_cross_entropy_with_logits_target_backward)
