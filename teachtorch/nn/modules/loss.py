"""The loss modules: CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, BCELoss, BCEWithLogitsLoss, SmoothL1Loss,
HuberLoss, KLDivLoss, PoissonNLLLoss, GaussianNLLLoss, MarginRankingLoss, CosineEmbeddingLoss,
TripletMarginLoss, SoftMarginLoss, CTCLoss.

A loss module holds the loss's options (the reduction, class weights, ignore_index, ...) and calls its
function in nn.functional: `nn.CrossEntropyLoss(label_smoothing=0.1)(logits, target)` is
`F.cross_entropy(logits, target, label_smoothing=0.1)`. A class `weight` (and BCEWithLogitsLoss's
`pos_weight`) is registered as a buffer, not a parameter: it is saved in the state_dict and moves with
`.to()`, but it is not trained. As in PyTorch (torch/nn/modules/loss.py), the losses share two base
classes: `_Loss` (the reduction) and `_WeightedLoss` (plus the weight buffer).
"""

from ..functional.loss import (_legacy_reduction, binary_cross_entropy, binary_cross_entropy_with_logits,
                               cosine_embedding_loss, cross_entropy, ctc_loss, gaussian_nll_loss, huber_loss, kl_div,
                               l1_loss, margin_ranking_loss, mse_loss, nll_loss, poisson_nll_loss, smooth_l1_loss,
                               soft_margin_loss, triplet_margin_loss)
from .module import Module

__all__ = ["BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "L1Loss", "MSELoss", "NLLLoss", "SmoothL1Loss",
           "HuberLoss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss", "MarginRankingLoss",
           "CosineEmbeddingLoss", "TripletMarginLoss", "SoftMarginLoss", "CTCLoss"]


class _Loss(Module):
    """A loss with a `reduction`: 'mean' (the default), 'sum' or 'none' (one loss per element)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        # the deprecated size_average / reduce flags, turned into a reduction when given
        self.reduction = _legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    """A loss with a per-class `weight` buffer (None when not given)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """The mean absolute error |input - target|."""

    def forward(self, input, target):
        return l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """The mean squared error (input - target)^2."""

    def forward(self, input, target):
        return mse_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """The negative log likelihood of the target classes, for an input of log-probabilities."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits and class indices (or class probabilities): log_softmax, then nll_loss."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities in [0, 1] and targets."""

    def forward(self, input, target):
        return binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of sigmoid(logits) and targets, computed stably from the logits."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below `beta`, absolute error above it."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below `delta`, delta times the absolute error above it."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """The KL divergence of the target distribution from the input's (given as log-probabilities)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """The negative log likelihood of target counts under a Poisson distribution of the input's rate."""

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """The negative log likelihood of the target under a normal distribution of the input's mean and `var`."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """The logistic loss log(1 + exp(-target * input)) of scores against labels +-1."""

    def forward(self, input, target):
        return soft_margin_loss(input, target, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    """Hinge loss on the order of two scores: target 1 wants input1 > input2 + margin."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """Pulls pairs with target 1 to cosine 1, pushes pairs with target -1 below cosine `margin`."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """Wants the anchor closer to the positive than to the negative by at least `margin`."""

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                   swap=self.swap, reduction=self.reduction)


class CTCLoss(_Loss):
    """The Connectionist Temporal Classification loss: scores unaligned label sequences (speech, handwriting)
    against per-frame log-probabilities; `blank` is the class that means "no label here"."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                        self.zero_infinity)
