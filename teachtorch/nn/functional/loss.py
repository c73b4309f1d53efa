"""Loss functions: one number that says how wrong the predictions are, for `backward()` to start from.

The common losses are PyTorch's fused ops (ops/loss.py, kernels/loss.py): one kernel forward, one backward
op with PyTorch's node name, and the functional here does what torch/nn/functional.py does before calling it.

* `nll_loss(log_probs, target)` (negative log likelihood) is `nll_loss_nd`: for each sample the
  log-probability of its target class, negated. `weight[c]` scales the loss of class c; targets equal to
  `ignore_index` count for nothing. The mean is a *weighted* mean: the sum of the weighted losses divided by
  the sum of the weights of the targets that count (all targets ignored: 0/0 = nan, as in PyTorch).
* `cross_entropy(logits, target)` is `cross_entropy_loss` = `nll_loss_nd(log_softmax(logits))` for class
  indices. For class probabilities (a float target of the input's shape) it is
  `-(target * log_softmax(logits)).sum(class_dim)`. `label_smoothing=eps` mixes the target with the uniform
  distribution: (1 - eps) * target + eps / C. These two are composites in PyTorch too.
* `mse_loss` = mean((x - y)^2) (the `mse_loss` op; with a `weight`, ops as in PyTorch),
  `l1_loss` = mean(|x - y|) (ops: PyTorch's l1_loss is a composite too).
* `binary_cross_entropy(p, y)` = -(y log p + (1 - y) log(1 - p)), each log clamped to >= -100, so p = 0 or 1
  gives a large finite loss; its backward divides by max(p (1 - p), 1e-12), so the gradient is finite too.
* `binary_cross_entropy_with_logits(x, y)` takes the logit x instead of p = sigmoid(x):
  (1 - y) x - log_sigmoid(x), never log of a rounded sigmoid.
* `smooth_l1_loss` / `huber_loss`: squared error near 0, absolute error further out; `kl_div`,
  `poisson_nll_loss`, `gaussian_nll_loss`: the negative log likelihoods of distributions;
  `margin_ranking_loss`, `cosine_embedding_loss`, `triplet_margin_loss`: hinges on scores, cosines, distances;
  `soft_margin_loss` = log(1 + exp(-y x)), the logistic loss of scores x against labels y = +-1.
* `ctc_loss(log_probs, targets, input_lengths, target_lengths)`: the Connectionist Temporal Classification
  loss of unaligned label sequences. Like PyTorch it has a kernel and a backward kernel of its own
  (kernels/ctc_loss.py, ops/ctc.py), so its node is CtcLossBackward0.

`smooth_l1_loss`, `huber_loss` and `soft_margin_loss` are fused ops too (SmoothL1LossBackward0, ...); the
others (`kl_div`, `poisson_nll_loss`, ...) are compositions of core ops here as in PyTorch. The Python
checks follow torch/nn/functional.py; the kernels' checks (aten/src/ATen/native/Loss.cpp, LossNLL.cpp,
LossNLL2d.cpp) are in kernels/loss.py, in the same order, with the same messages.
"""

import math
import warnings

import teachtorch as tt
from ...ops import loss as L

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "l1_loss",
           "mse_loss", "nll_loss", "smooth_l1_loss", "huber_loss", "kl_div", "margin_ranking_loss",
           "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss", "ctc_loss",
           "soft_margin_loss"]


# ---- reduction -------------------------------------------------------------------------------------------


def _check_reduction(reduction):
    """torch/nn/_reduction.py `get_enum`: the three reductions a loss understands."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy_reduction(size_average, reduce, reduction):
    """The old `size_average` / `reduce` flags (torch/nn/_reduction.py `legacy_get_string`), when given."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if (size_average and reduce) else ("sum" if reduce else "none")
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.")
    return reduction


_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}   # torch/nn/_reduction.py get_enum


def _enum(reduction):
    """The reduction as the int PyTorch's loss ops take (at::Reduction: 0 none, 1 mean, 2 sum)."""
    _check_reduction(reduction)
    return _REDUCTION_ENUM[reduction]


def _reduce(losses, reduction):
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    return losses


def _shape(t):
    return list(t.shape)


# ---- negative log likelihood and cross entropy -----------------------------------------------------------


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """The negative log likelihood of the target classes, given log-probabilities `input`.

    input (N, C) or (N, C, d1, ...) or unbatched (C,); target (N,) / (N, d1, ...) / () of class indices.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return L.nll_loss_nd_op(input, target, weight, _enum(reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy between the logits `input` and `target`: class indices, or class probabilities when
    `target` has the input's shape.

    input (N, C) or (N, C, d1, ...) or unbatched (C,). `weight` (C,) scales each class, targets equal to
    `ignore_index` are skipped, `label_smoothing` in [0, 1] mixes the target with the uniform distribution.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return L.cross_entropy_loss_op(input, target, weight, _enum(reduction), ignore_index, label_smoothing)


# ---- regression losses -----------------------------------------------------------------------------------


def _warn_if_broadcasting(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


def _reduce_elementwise(errors, weight, reduction):
    """The reduction of mse_loss and l1_loss; with per-element weights the mean is sum(w e) / sum(w)."""
    if weight is None:
        _check_reduction(reduction)
        return _reduce(errors, reduction)
    errors = errors * weight
    if reduction == "none":
        return errors
    if reduction == "sum":
        return errors.sum()
    if reduction == "mean":
        return errors.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean squared error (x - y)^2, reduced: the `mse_loss` op (MseLossBackward0). `target` broadcasts
    against `input` (with a warning). With a per-element `weight` PyTorch composes ops, and so do we."""
    _warn_if_broadcasting(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = tt.broadcast_tensors(input, target)
    if weight is None:
        return L.mse_loss_op(input, target, _enum(reduction))
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    diff = input - target
    if not diff.dtype.is_floating_point:
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{diff.dtype._ptname}'")
    return _reduce_elementwise(diff.pow(2), weight, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean absolute error |x - y|, reduced. `target` broadcasts against `input` (with a warning)."""
    _warn_if_broadcasting(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    return _reduce_elementwise((input - target).abs(), weight, reduction)


# ---- binary cross entropy --------------------------------------------------------------------------------


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(y log p + (1 - y) log(1 - p)) for probabilities p = `input` in [0, 1] and targets y: the
    `binary_cross_entropy` op (BinaryCrossEntropyBackward0)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    reduction_enum = _enum(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(tt.broadcast_shapes(target.shape, weight.shape))   # torch's Python one
    return L.binary_cross_entropy_op(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross entropy of sigmoid(`input`) and `target`, computed from the logits without sigmoid: the
    `binary_cross_entropy_with_logits` op (BinaryCrossEntropyWithLogitsBackward0).

    loss = (1 - y) x - (1 + (pos_weight - 1) y) log_sigmoid(x); `pos_weight` scales the loss of the positive
    examples (the y log p term), `weight` the whole loss.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    reduction_enum = _enum(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return L.binary_cross_entropy_with_logits_op(input, target, weight, pos_weight, reduction_enum)


# ---- robust regression: smooth L1 and Huber --------------------------------------------------------------


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere (d = input - target): squared near 0, absolute
    further out, so outliers pull with a bounded gradient. beta = 0 is l1_loss. The `smooth_l1_loss` op."""
    _warn_if_broadcasting(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = tt.broadcast_tensors(input, target)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    return L.smooth_l1_loss_op(input, target, _enum(reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere: smooth_l1_loss times beta = delta. The
    `huber_loss` op; with a per-element `weight`, its unreduced loss times the weight, reduced (a plain
    mean, not divided by sum(weight)), as torch/nn/functional.py does."""
    _warn_if_broadcasting(input, target)
    input, target = tt.broadcast_tensors(input, target)
    if weight is None:
        return L.huber_loss_op(input, target, _enum(reduction), delta)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    weighted = L.huber_loss_op(input, target, 0, delta) * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


# ---- distributions: KL divergence, Poisson and Gaussian negative log likelihood ----------------------------


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL(target || q) per element, for `input` = log q: target * (log target - input), with 0 log 0 = 0
    (`xlogy`); `log_target=True` takes log target instead. reduction='batchmean' divides the sum by the batch
    size, which is the KL divergence of the math; 'mean' divides by every element (PyTorch warns)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if reduction != "batchmean":
        _check_reduction(reduction)
    if not input.dtype.is_floating_point or not target.dtype.is_floating_point:
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        losses = tt.exp(target) * (target - input)
    else:
        losses = tt.xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = losses.sum()
        return total / input.shape[0] if input.dim() != 0 else total
    return _reduce(losses, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """The negative log likelihood of `target` counts under Poisson(rate), less the constant log(target!):
    rate - target log rate. With `log_input` the input is log rate (exp(x) - target x), otherwise the rate
    (x - target log(x + eps)). `full` adds Stirling's approximation of log(target!) where target > 1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_input:
        losses = tt.exp(input) - target * input
    else:
        losses = input - target * tt.log(input + eps)
    if full:
        stirling = target * tt.log(target) - target + 0.5 * tt.log(2 * math.pi * target)
        losses = losses + stirling.masked_fill(target <= 1, 0)
    return _reduce(losses, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """The negative log likelihood of `target` under Normal(input, var), less a constant:
    0.5 (log var + (input - target)^2 / var), var clamped to >= eps (without gradient below it).

    `var` has the input's shape (one variance per element), or one dim fewer (one per row: it gets a
    trailing 1), or the input's shape with one dim of size 1; a float is one variance for everything. The
    checks, their order and their messages are those of torch/nn/functional.py.
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * tt.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)                           # one variance per row
        elif input.dim() == var.dim() and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1:
            pass                                              # a dim of size 1 that broadcasts
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    # PyTorch clamps a copy in place under no_grad: var's gradient passes even where the clamp acted
    var = var + (var.detach().clamp_min(eps) - var.detach())
    losses = 0.5 * (tt.log(var) + (input - target) ** 2 / var)
    if full:
        losses = losses + 0.5 * math.log(2 * math.pi)
    return _reduce(losses, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)) for labels +-1, reduced: the `soft_margin_loss` op (SoftMarginLossBackward0)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.requires_grad:
        # derivatives.yaml has no formula for the target: PyTorch's generated autograd kernel refuses it
        # (VariableType's `check_no_requires_grad`)
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    return L.soft_margin_loss_op(input, target, _enum(reduction))


# ---- embeddings: margin ranking, cosine embedding, triplet margin -----------------------------------------


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target (input1 - input2) + margin): target 1 says input1 should rank higher, -1 lower."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


# the EPSILON of aten/src/ATen/native/Loss.cpp, added to the squared norms
_COSINE_EPSILON = 1e-12


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) for target 1 (pull together), max(0, cos(x1, x2) - margin) for target -1 (push apart);
    other targets count 0. Inputs (N, D) with target (N,), or (D,) with a 0-d target."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{_shape(input1)} and {_shape(input2)}.")
    if dim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{_shape(input1)} and {_shape(input2)}.")
    dot = (input1 * input2).sum(dim)
    squared1 = (input1 * input1).sum(dim) + _COSINE_EPSILON
    squared2 = (input2 * input2).sum(dim) + _COSINE_EPSILON
    cos = dot / (squared1 * squared2).sqrt()
    pos = tt.where(target == 1, 1 - cos, 0.0)
    neg = tt.where(target == -1, (cos - margin).clamp_min(0), 0.0)
    return _reduce(pos + neg, reduction)


def _pairwise_distance(x1, x2, p, eps):
    """torch.pairwise_distance: the p-norm of x1 - x2 + eps over the last dim (eps keeps the norm's
    gradient finite when x1 == x2)."""
    return tt.norm(x1 - x2 + eps, p, dim=max(x1.dim(), x2.dim()) - 1)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance over the last dim.
    `swap` uses min(d(anchor, negative), d(positive, negative)), the harder negative (Balntas et al. 2016)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pos, n = anchor.dim(), positive.dim(), negative.dim()
    if not a == pos == n:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {pos}D, and negative {n}D inputs")
    dist_pos = _pairwise_distance(anchor, positive, p, eps)
    dist_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = tt.minimum(dist_neg, _pairwise_distance(positive, negative, p, eps))
    return _reduce((dist_pos - dist_neg + margin).clamp_min(0), reduction)


# ---- sequences: CTC ---------------------------------------------------------------------------------------


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The CTC loss of (T, N, C) log-probabilities (or unbatched (T, C)) against padded (N, S) or concatenated
    targets: minus the log of the summed probability of every alignment of each target to its input frames.
    'mean' divides each loss by its target length before averaging over the batch; `zero_infinity` turns
    the inf loss of an impossible alignment (and its gradient) into 0. The work is `torch.ctc_loss`'s."""
    _check_reduction(reduction)
    return tt.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _REDUCTION_ENUM[reduction],
                       zero_infinity)
