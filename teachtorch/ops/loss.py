"""The loss ops: PyTorch's fused loss kernels, their backward ops, and the composites over them.

What `F.cross_entropy(logits, target)` dispatches, as in PyTorch (torch/nn/functional.py calls
`torch._C._nn.cross_entropy_loss`; aten/src/ATen/native/LossNLL.cpp):

    cross_entropy_loss                 CompositeImplicitAutograd
      log_softmax(self, class_dim)     the `_log_softmax` kernel
      nll_loss_nd                      CompositeImplicitAutograd: picks by the input's dim
        nll_loss (1-d, 2-d input)      CompositeImplicitAutograd: output 0 of
          nll_loss_forward             the kernel; autograd node NllLossBackward0
        nll_loss2d (4-d, and 3-d / 5-d+ viewed as (N, C, 1, -1))
          nll_loss2d_forward           the kernel; autograd node NllLoss2DBackward0

so a step of cross entropy is two kernels forward and, in PyTorch, two backward (`nll_loss_backward`,
`_log_softmax_backward_data`; here log_softmax's formula is written with ops, autograd/derivatives/
reductions.py), whatever the shape. The other fused losses are one kernel each with a backward op of their
own: `mse_loss`, `binary_cross_entropy`, `binary_cross_entropy_with_logits` (whose gradient PyTorch writes
with ops, FunctionsManual.cpp), `smooth_l1_loss`, `huber_loss`, `soft_margin_loss`. The kernels are in
kernels/loss.py, the formulas in autograd/derivatives/loss.py. `reduction` is an int: 0 none, 1 mean, 2 sum
(the schemas write PyTorch's default `Mean` as 1).
"""

from ..kernels import loss as K
from ._define import composite_op, function, kernel_op

__all__ = ["binary_cross_entropy_with_logits"]

# ---- the kernels and their backward ops (native_functions.yaml) ------------------------------------------

nll_loss_forward_op = kernel_op(
    "nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) "
    "-> (Tensor output, Tensor total_weight)", K.nll_loss_forward_kernel)
nll_loss_backward_op = kernel_op(
    "nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index, Tensor total_weight) -> Tensor", K.nll_loss_backward_kernel)
nll_loss2d_forward_op = kernel_op(
    "nll_loss2d_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) "
    "-> (Tensor output, Tensor total_weight)", K.nll_loss2d_forward_kernel)
nll_loss2d_backward_op = kernel_op(
    "nll_loss2d_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index, Tensor total_weight) -> Tensor", K.nll_loss2d_backward_kernel)

mse_loss_op = kernel_op("mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor", K.mse_loss_kernel)
mse_loss_backward_op = kernel_op(
    "mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor",
    K.mse_loss_backward_kernel)

binary_cross_entropy_op = kernel_op(
    "binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=1) -> Tensor",
    K.binary_cross_entropy_kernel)
binary_cross_entropy_backward_op = kernel_op(
    "binary_cross_entropy_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight=None, "
    "int reduction=1) -> Tensor", K.binary_cross_entropy_backward_kernel)
binary_cross_entropy_with_logits_op = kernel_op(
    "binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, "
    "int reduction=1) -> Tensor", K.binary_cross_entropy_with_logits_kernel)

smooth_l1_loss_op = kernel_op("smooth_l1_loss(Tensor self, Tensor target, int reduction=1, float beta=1.0) "
                              "-> Tensor", K.smooth_l1_loss_kernel)
smooth_l1_loss_backward_op = kernel_op(
    "smooth_l1_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction, float beta) -> Tensor",
    K.smooth_l1_loss_backward_kernel)
huber_loss_op = kernel_op("huber_loss(Tensor self, Tensor target, int reduction=1, float delta=1.0) -> Tensor",
                          K.huber_loss_kernel)
huber_loss_backward_op = kernel_op(
    "huber_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction, float delta) -> Tensor",
    K.huber_loss_backward_kernel)
soft_margin_loss_op = kernel_op("soft_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor",
                                K.soft_margin_loss_kernel)
soft_margin_loss_backward_op = kernel_op(
    "soft_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor",
    K.soft_margin_loss_backward_kernel)


# ---- the composites: nll_loss, nll_loss2d, nll_loss_nd, cross_entropy_loss (LossNLL.cpp) ---------------------


def _nll_loss(self, target, weight, reduction, ignore_index):
    return nll_loss_forward_op(self, target, weight, reduction, ignore_index)[0]


def _nll_loss2d(self, target, weight, reduction, ignore_index):
    return nll_loss2d_forward_op(self, target, weight, reduction, ignore_index)[0]


nll_loss_op = composite_op("nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
                           "SymInt ignore_index=-100) -> Tensor", _nll_loss)
nll_loss2d_op = composite_op("nll_loss2d(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
                             "SymInt ignore_index=-100) -> Tensor", _nll_loss2d)


def _nll_loss_nd(self, target, weight, reduction, ignore_index):
    """`nll_loss_nd_symint`: 1-d and 2-d inputs go to nll_loss, 4-d to nll_loss2d, and the others are viewed
    as 4-d (N, C, 1, -1) for nll_loss2d, the unreduced loss viewed back to the target's shape."""
    if self.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {self.dim()})")
    if self.dim() == 1 and target.dim() == 1:
        # an unbatched input may come with its one target in a 1-d tensor
        if target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
        target = target.squeeze(0)
    target_batch = target.shape[0] if target.dim() > 0 else 0      # (PyTorch reports a 0-d target's as 0)
    if self.dim() != 1 and self.shape[0] != target_batch:
        raise ValueError(f"Expected input batch_size ({self.shape[0]}) to match target batch_size ({target_batch}).")
    if self.dim() <= 2:
        return nll_loss_op(self, target, weight, reduction, ignore_index)
    if self.dim() == 4:
        return nll_loss2d_op(self, target, weight, reduction, ignore_index)
    n, c = self.shape[0], self.shape[1]
    out_size = [n] + list(self.shape[2:])
    if tuple(target.shape[1:]) != tuple(self.shape[2:]):
        raise RuntimeError(f"Expected target size {out_size}, got {list(target.shape)}")
    if self.numel() > 0:
        input_, target_ = self.contiguous().view(n, c, 1, -1), target.contiguous().view(n, 1, -1)
    else:
        input_, target_ = self.view(n, c, 0, 0), target.view(n, 0, 0)
    out = nll_loss2d_op(input_, target_, weight, reduction, ignore_index)
    return out if reduction != 0 else out.view(out_size)


nll_loss_nd_op = composite_op("nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
                              "SymInt ignore_index=-100) -> Tensor", _nll_loss_nd)


def _class_weight_view(weight, n_classes, dim, class_dim):
    """weight (C,) shaped (C, 1, ..., 1) to line up with the class dim of a `dim`-d input."""
    return weight.view([n_classes] + [1] * (dim - class_dim - 1))


def _cross_entropy_prob_target(self, target, weight, reduction, label_smoothing):
    """`cross_entropy_loss_prob_target`: -(target * log_softmax(self)) summed over the classes."""
    from .factories import full
    class_dim = 0 if self.dim() == 1 else 1
    n_classes = self.shape[class_dim]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {n_classes} classes or "
                           f"no classes but got weight tensor of shape: {list(weight.shape)}")
    log_probs = self.log_softmax(class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    products = log_probs * target
    if weight is not None:
        products = products * _class_weight_view(weight, n_classes, self.dim(), class_dim)
    if reduction == 0:
        return -products.sum(class_dim)
    if reduction == 2:
        return -products.sum()
    if self.numel() == 0:
        return products.sum() * full((), float("nan"), dtype=self.dtype, device=self.device)
    return -products.sum() / (self.numel() // n_classes)      # the mean over samples, not over classes


def _cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing):
    """`cross_entropy_loss_label_smoothing`: (1 - eps) nll_loss + eps / C times the loss against the uniform
    distribution, -sum over classes of the (weighted) log-probabilities, reduced with the same denominator."""
    class_dim = 0 if self.dim() == 1 else 1
    log_probs = self.log_softmax(class_dim)
    nll = nll_loss_nd_op(log_probs, target, weight, reduction, ignore_index)
    n_classes = log_probs.shape[class_dim]
    if weight is not None:
        smooth = -(log_probs * _class_weight_view(weight, n_classes, self.dim(), class_dim)).sum(class_dim)
    else:
        smooth = -log_probs.sum(class_dim)
    ignore_mask = target == ignore_index
    smooth = smooth.masked_fill(ignore_mask, 0.0)
    if reduction == 1:
        if weight is not None:
            # normalized by the weights, as nll_loss_nd's mean is
            denominator = weight.gather(0, target.masked_select(~ignore_mask).flatten()).sum()
        else:
            denominator = (~ignore_mask).sum()
        ret = smooth.sum() / denominator
    elif reduction == 2:
        ret = smooth.sum()
    else:
        ret = smooth
    return (1 - label_smoothing) * nll + ret * (label_smoothing / n_classes)


def _cross_entropy_loss(self, target, weight, reduction, ignore_index, label_smoothing):
    """`cross_entropy_loss_symint`: class probabilities when target has the input's shape, else class indices:
    log_softmax then nll_loss_nd (or the label-smoothing composite)."""
    if tuple(self.shape) == tuple(target.shape):
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{target.dtype._ptname}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_prob_target(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
        return _cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing)
    class_dim = 0 if self.dim() == 1 else 1
    return nll_loss_nd_op(self.log_softmax(class_dim), target, weight, reduction, ignore_index)


cross_entropy_loss_op = composite_op(
    "cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor", _cross_entropy_loss)

binary_cross_entropy_with_logits = function(binary_cross_entropy_with_logits_op)
