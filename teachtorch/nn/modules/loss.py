"""The loss modules: CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, BCELoss, BCEWithLogitsLoss.

A loss module holds the loss's options (the reduction, class weights, ignore_index, ...) and calls its
function in nn.functional: `nn.CrossEntropyLoss(label_smoothing=0.1)(logits, target)` is
`F.cross_entropy(logits, target, label_smoothing=0.1)`. A class `weight` (and BCEWithLogitsLoss's
`pos_weight`) is registered as a buffer, not a parameter: it is saved in the state_dict and moves with
`.to()`, but it is not trained. As in PyTorch (torch/nn/modules/loss.py), the losses share two base
classes: `_Loss` (the reduction) and `_WeightedLoss` (plus the weight buffer).
"""

from ..functional.loss import (_legacy_reduction, binary_cross_entropy, binary_cross_entropy_with_logits,
                               cross_entropy, l1_loss, mse_loss, nll_loss)
from .module import Module

__all__ = ["BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "L1Loss", "MSELoss", "NLLLoss"]


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
