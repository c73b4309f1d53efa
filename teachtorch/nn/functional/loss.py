"""Loss functions: one number that says how wrong the predictions are, for `backward()` to start from.

Every loss here is a few core ops, so autograd needs no new formulas:

* `nll_loss(log_probs, target)` (negative log likelihood) picks, for each sample, the log-probability of its
  target class with ONE `gather` along the class dim, and negates it. `weight[c]` scales the loss of class c;
  targets equal to `ignore_index` count for nothing. The mean is a *weighted* mean: the sum of the weighted
  losses divided by the sum of the weights of the targets that count (so with all targets ignored it is
  0/0 = nan, as in PyTorch).
* `cross_entropy(logits, target)` = `nll_loss(log_softmax(logits))` for class indices. For class
  probabilities (a float target of the input's shape) it is `-(target * log_softmax(logits)).sum(class_dim)`.
  `label_smoothing=eps` mixes the target with the uniform distribution: (1 - eps) * target + eps / C.
* `mse_loss` = mean((x - y)^2), `l1_loss` = mean(|x - y|).
* `binary_cross_entropy(p, y)` = -(y log p + (1 - y) log(1 - p)), each log clamped to >= -100 (as PyTorch
  does, so p = 0 or 1 gives a large finite loss instead of inf).
* `binary_cross_entropy_with_logits(x, y)` takes the logit x instead of p = sigmoid(x). Written as
  (1 - y) x + softplus(-x) it never computes sigmoid(x) and then log of it, which would round to log(0)
  for large |x|; softplus(-x) = log(1 + e^-x) is `logaddexp(-x, 0)`, computed stably.

* `smooth_l1_loss` / `huber_loss`: squared error near 0, absolute error further out; `kl_div`,
  `poisson_nll_loss`, `gaussian_nll_loss`: the negative log likelihoods of distributions;
  `margin_ranking_loss`, `cosine_embedding_loss`, `triplet_margin_loss`: hinges on scores, cosines, distances.
* `ctc_loss(log_probs, targets, input_lengths, target_lengths)`: the Connectionist Temporal Classification
  loss of unaligned label sequences. Unlike the others it is not a composition: like PyTorch it has a
  kernel and a backward kernel of its own (kernels/ctc_loss.py, ops/ctc.py), so its node is CtcLossBackward0.

At the boundaries (p exactly 0 or 1, all targets ignored, weights summing to 0) a composition of ops can
give nan gradients where PyTorch's hand-written backward gives finite ones: the product rule multiplies a 0
by an inf. Where that happens the code below feeds the op a harmless value (`where`), so that the gradient
is PyTorch's; tests/test_nn_loss_extra.py compares every loss there.

PyTorch has a C++ kernel and a hand-written backward per loss (aten/src/ATen/native/Loss.cpp,
LossNLL.cpp, LossNLL2d.cpp) and the Python checks in torch/nn/functional.py; the checks, their order and
their messages here follow those files.
"""

import math
import warnings

import teachtorch as tt
from ..._strides import broadcast_shapes
from ._layout import _layout_of_empty_like, _pytorch_layout

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "l1_loss",
           "mse_loss", "nll_loss", "smooth_l1_loss", "huber_loss", "kl_div", "margin_ranking_loss",
           "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss", "ctc_loss"]


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


def _reduce(losses, reduction):
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    return losses


def _shape(t):
    return list(t.shape)


# ---- negative log likelihood and cross entropy -----------------------------------------------------------


def _check_nll(input, target, weight):
    """The checks of PyTorch's `nll_loss_nd` and of the kernels it calls (nll_loss for 1-d and 2-d inputs,
    nll_loss2d for the rest, which are reshaped to 4-d), in the same order, with the same messages."""
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    target_batch = target.shape[0] if target.dim() > 0 else 0      # (PyTorch reports a 0-d target's as 0)
    if input.dim() != 1 and input.shape[0] != target_batch:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({target_batch}).")
    n_classes = input.shape[0] if input.dim() == 1 else input.shape[1]
    if input.dim() <= 2:
        if target.dim() > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
            raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes "
                               f"but got weight tensor of shape: {_shape(weight)}")
    else:
        if input.dim() == 4 and target.dim() != 3:
            raise RuntimeError("only batches of spatial targets supported (3D tensors) but got targets of "
                               f"dimension: {target.dim()}")
        if input.dim() == 4 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
            raise RuntimeError(f"size mismatch (got input: {_shape(input)} , target: {_shape(target)}")
        if input.dim() != 4 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
            expected = [input.shape[0]] + list(input.shape[2:])
            raise RuntimeError(f"Expected target size {expected}, got {_shape(target)}")
        if weight is not None and weight.numel() != n_classes:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
    if target.dtype not in (tt.int64, tt.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype._ptname}")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._ptname} but found {weight.dtype._ptname}")
    return n_classes


def _nll_terms(log_probs, target, weight, ignore_index):
    """The per-target losses -w[t] * log_probs[t] and the per-target weights w (None when all are 1).

    Targets equal to `ignore_index` get weight 0. Every other target must be a valid class index; the
    first one that is not raises IndexError, as PyTorch's CPU kernel does.
    """
    if log_probs.dim() == 1 and target.dim() == 1:
        # an unbatched input may come with its one target in a 1-d tensor
        if target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
        target = target.squeeze(0)
    n_classes = _check_nll(log_probs, target, weight)
    class_dim = 0 if log_probs.dim() == 1 else 1
    if target.dtype == tt.uint8:
        target = target.long()                              # index with int64, as uint8 would mean a mask
    ignored = None
    # The usual case costs one op: every target is in [0, C) and ignore_index (-100 by default) is no class,
    # so nothing is ignored and nothing is out of bounds. Otherwise, look closer.
    low, high = target.aminmax() if target.numel() > 0 else (0, 0)
    if int(low) < 0 or int(high) >= n_classes or 0 <= ignore_index < n_classes:
        ignored = target == ignore_index
        if bool(ignored.any()):
            target = target.masked_fill(ignored, 0)        # any valid index: its loss is multiplied by 0
        else:
            ignored = None
        out_of_bounds = (target < 0) | (target >= n_classes)
        if bool(out_of_bounds.any()):
            raise IndexError(f"Target {int(target[out_of_bounds][0])} is out of bounds.")
    # the log-probability of each sample's target class: one gather along the class dim
    picked = log_probs.gather(class_dim, target.unsqueeze(class_dim)).squeeze(class_dim)
    if ignored is not None:
        # PyTorch's backward skips ignored targets: their gradient is 0 even when the weighted mean divides by
        # a total weight of 0 (all targets ignored: loss nan, gradient 0). Multiplying by their weight 0 would
        # give 0 * (1 / 0) = nan; `where`'s backward puts exact zeros there instead
        picked = tt.where(ignored, 0.0, picked)
    if weight is not None:
        w = weight[target]                                  # the weight of each target's class
        if ignored is not None:
            w = w.masked_fill(ignored, 0)
    elif ignored is not None:
        w = (~ignored).to(log_probs.dtype)
    else:
        w = None
    losses = -picked if w is None else -picked * w
    return losses, w, ignored


def _reduce_weighted(losses, w, reduction):
    """Sum, none, or the weighted mean: divided by the total weight of the targets that count."""
    if reduction == "mean" and w is not None:
        return losses.sum() / w.sum()
    if reduction == "none":
        # PyTorch's nll_loss kernel writes the losses into a new contiguous tensor; ours come from a gather and
        # a squeeze, whose strides on size-1 dims may differ: give them the kernel's layout
        return _pytorch_layout(losses)
    return _reduce(losses, reduction)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """The negative log likelihood of the target classes, given log-probabilities `input`.

    input (N, C) or (N, C, d1, ...) or unbatched (C,); target (N,) / (N, d1, ...) / () of class indices.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    losses, w, _ = _nll_terms(input, target, weight, ignore_index)
    return _reduce_weighted(losses, w, reduction)


def _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing):
    """Cross entropy against class probabilities (aten/src/ATen/native/LossNLL.cpp,
    `cross_entropy_loss_prob_target`): -(target * log_softmax(input)) summed over the classes."""
    class_dim = 0 if input.dim() == 1 else 1
    n_classes = input.shape[class_dim]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {n_classes} classes or "
                           f"no classes but got weight tensor of shape: {_shape(weight)}")
    log_probs = tt.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    products = log_probs * target
    if weight is not None:
        # weight[c] scales class c: shaped (C, 1, ..., 1) to line up with the class dim
        products = products * weight.view([n_classes] + [1] * (input.dim() - class_dim - 1))
    if reduction == "none":
        return -products.sum(class_dim)
    if reduction == "sum":
        return -products.sum()
    if input.numel() == 0:
        return products.sum() * math.nan
    # the mean over samples (and positions), not over classes
    return -products.sum() / (input.numel() // n_classes)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy between the logits `input` and `target`: class indices, or class probabilities when
    `target` has the input's shape.

    input (N, C) or (N, C, d1, ...) or unbatched (C,). `weight` (C,) scales each class, targets equal to
    `ignore_index` are skipped, `label_smoothing` in [0, 1] mixes the target with the uniform distribution.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if tuple(input.shape) == tuple(target.shape):
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{target.dtype._ptname}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing)
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.dim() == 1 else 1
    log_probs = tt.log_softmax(input, class_dim)
    losses, w, ignored = _nll_terms(log_probs, target, weight, ignore_index)
    if label_smoothing > 0.0:
        # the loss against the uniform distribution: -sum over classes of (weighted) log-probabilities,
        # mixed in with weight eps / C; it has the same weighted-mean denominator as the nll part
        n_classes = input.shape[class_dim]
        if weight is not None:
            log_probs = log_probs * weight.view([n_classes] + [1] * (input.dim() - class_dim - 1))
        smooth = -log_probs.sum(class_dim)
        if ignored is not None:
            smooth = smooth.masked_fill(ignored, 0)
        # reduced apart, then mixed, as PyTorch does: with weights summing to 0 the nll part is 0/0 = nan and
        # the mix is nan (mixing first would divide a positive sum by 0: inf)
        return (_reduce_weighted(losses, w, reduction) * (1 - label_smoothing)
                + _reduce_weighted(smooth, w, reduction) * (label_smoothing / n_classes))
    return _reduce_weighted(losses, w, reduction)


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
    """The mean squared error (x - y)^2, reduced. `target` broadcasts against `input` (with a warning)."""
    _warn_if_broadcasting(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    diff = input - target
    if not diff.dtype.is_floating_point:
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{diff.dtype._ptname}'")
    squared = diff.square()
    if weight is None and reduction == "none" and squared.stride() != diff.stride():
        # PyTorch's mse kernel is one TensorIterator over (input, target), so its result has the layout of
        # `input - target`; our second op, square, can lay out size-1 dims differently: copy into that layout
        squared = tt.empty_strided(diff.shape, diff.stride(), dtype=diff.dtype, device=diff.device).copy_(squared)
    return _reduce_elementwise(squared, weight, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean absolute error |x - y|, reduced. `target` broadcasts against `input` (with a warning)."""
    _warn_if_broadcasting(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    return _reduce_elementwise((input - target).abs(), weight, reduction)


# ---- binary cross entropy --------------------------------------------------------------------------------


def _apply_weight(loss, weight):
    """`loss.mul_(weight)` as PyTorch's kernels do it: the weight broadcasts into the loss's shape (never
    grows it) and the result keeps the loss's dtype. Written out of place so autograd records it."""
    if weight is None:
        return loss
    shape = broadcast_shapes(tuple(loss.shape), tuple(weight.shape))      # the C++ rule, and its message
    if shape != tuple(loss.shape):
        raise RuntimeError(f"output with shape {_shape(loss)} doesn't match the broadcast shape {list(shape)}")
    if weight.dtype != loss.dtype:
        weight = weight.to(loss.dtype)
    return loss * weight


# PyTorch's binary_cross_entropy_backward: grad * (p - y) / max(p (1 - p), EPSILON)
_BCE_EPSILON = 1e-12


def _binary_cross_entropy_terms(p, y):
    """-(y log p + (1 - y) log(1 - p)), elementwise, with PyTorch's values and gradients at p = 0 and 1.

    PyTorch clamps each log at -100, so p = 0 or 1 gives a large finite loss, and its hand-written backward
    divides by max(p (1 - p), 1e-12), so the gradient there is finite too: (p - y) / 1e-12, which is 0 when
    p = y. The plain composition would give nan there (log(0)'s gradient 1/0 times the clamp's 0), and a
    sigmoid in front (p = sigmoid(20) rounds to 1) would pass the nan on to its logits.
    So the elements where p (1 - p) >= 1e-12 (all but p within 1e-12 of 0 or 1) take the composition, fed
    p = 1/2 elsewhere so that no log(0) is ever differentiated; the others take the clamped value, plus a term
    that is 0 but whose derivative is PyTorch's (p - y) / 1e-12.
    """
    inside = (p * (1 - p)).detach() >= _BCE_EPSILON
    p_in = tt.where(inside, p, 0.5)
    log_1mp = tt.log1p(-p_in)
    interior = -(log_1mp + y * (tt.log(p_in) - log_1mp))    # = -(y log p + (1 - y) log(1 - p))
    # at the edges: the value with each log clamped at -100 (its gradient reaches y only) ...
    p_edge = p.detach()
    log_p, log_1mp = tt.log(p_edge).clamp_min(-100), tt.log1p(-p_edge).clamp_min(-100)
    edge = -(log_1mp + y * (log_p - log_1mp))
    # ... plus 0 whose gradient with respect to p is (p - y) / 1e-12
    edge = edge + (p - p_edge) * ((p_edge - y.detach()) / _BCE_EPSILON)
    return tt.where(inside, interior, edge)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(y log p + (1 - y) log(1 - p)) for probabilities p = `input` in [0, 1] and targets y."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(tt.broadcast_shapes(target.shape, weight.shape))   # torch's Python one
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"binary_cross_entropy\" not implemented for '{input.dtype._ptname}'")
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {target.dtype._ptname} but expected {input.dtype._ptname}")
    # (also refuses nan: it is not >= 0)
    if input.numel() > 0 and not bool(((input >= 0) & (input <= 1)).all()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if target.numel() > 0 and not bool(((target >= 0) & (target <= 1)).all()):
        raise RuntimeError("all elements of target should be between 0 and 1")
    loss = _apply_weight(_binary_cross_entropy_terms(input, target), weight)
    if reduction == "none":
        return _layout_of_empty_like(loss, input)           # PyTorch's kernel writes into empty_like(input)
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross entropy of sigmoid(`input`) and `target`, computed from the logits without sigmoid.

    loss = (1 - y) x + (1 + (pos_weight - 1) y) softplus(-x); `pos_weight` scales the loss of the positive
    examples (the y log p term), `weight` the whole loss.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    if not target.dtype.is_floating_point:
        # PyTorch computes `(1 - target).mul_(input)` in place, into the target's dtype
        result = tt.promote_types(input.dtype, target.dtype)
        raise RuntimeError(f"result type {result._ptname} can't be cast to the desired output type "
                           f"{target.dtype._ptname}")
    # softplus(-x) = log(1 + e^-x) = -log(sigmoid(x)), stable for large |x|
    softplus_neg = tt.logaddexp(-input, tt.zeros((), dtype=input.dtype, device=input.device))
    if pos_weight is not None:
        softplus_neg = _apply_weight(softplus_neg, (pos_weight - 1) * target + 1)
    loss = (1 - target) * input + softplus_neg
    if loss.dtype != target.dtype:
        loss = loss.to(target.dtype)                         # the dtype PyTorch's in-place kernel ends in
    return _reduce(_apply_weight(loss, weight), reduction)


# ---- robust regression: smooth L1 and Huber --------------------------------------------------------------


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere (d = input - target): squared near 0, absolute
    further out, so outliers pull with a bounded gradient. beta = 0 is l1_loss."""
    _warn_if_broadcasting(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    input, target = tt.broadcast_tensors(input, target)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    diff = input - target
    size = diff.abs()
    # (abs's gradient at 0 is 0, and the quadratic branch is taken there: PyTorch's gradient d / beta)
    return _reduce(tt.where(size < beta, diff * diff * (0.5 / beta), size - 0.5 * beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere: smooth_l1_loss times beta = delta."""
    _warn_if_broadcasting(input, target)
    _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = tt.broadcast_tensors(input, target)
    diff = input - target
    size = diff.abs()
    losses = tt.where(size < delta, diff * diff * 0.5, (size - 0.5 * delta) * delta)
    if weight is None:
        return _reduce(losses, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    return _reduce(losses * weight, reduction)                 # (a plain mean, not divided by sum(weight))


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

_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}   # torch/nn/_reduction.py get_enum


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The CTC loss of (T, N, C) log-probabilities (or unbatched (T, C)) against padded (N, S) or concatenated
    targets: minus the log of the summed probability of every alignment of each target to its input frames.
    'mean' divides each loss by its target length before averaging over the batch; `zero_infinity` turns
    the inf loss of an impossible alignment (and its gradient) into 0. The work is `torch.ctc_loss`'s."""
    _check_reduction(reduction)
    return tt.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _REDUCTION_ENUM[reduction],
                       zero_infinity)
