"""BatchNorm1d and BatchNorm2d: F.batch_norm with learnable weight and bias and running statistics.

The module owns
    weight, bias            Parameters (C,), initialised to ones and zeros (when affine=True)
    running_mean, running_var   buffers (C,), zeros and ones (when track_running_stats=True)
    num_batches_tracked     an int64 buffer counting the training batches seen

In train mode each forward normalises with the batch's statistics and updates the running ones; in eval
mode it normalises with the running ones. With momentum=None the running statistics are the plain average
of all batches so far (momentum 1/num_batches_tracked). A module that does not track running statistics
uses the batch's statistics in eval mode too. All of this follows torch/nn/modules/batchnorm.py
(`_NormBase`, `_BatchNorm.forward`), with the same buffers, so state_dicts load across.
"""

from ..._dtype import int64
from ...ops import empty, ones, tensor, zeros
from .. import init
from ..functional.normalization import batch_norm
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d"]


class _BatchNorm(Module):
    """What BatchNorm1d and BatchNorm2d share; they differ only in the input dims they accept."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        self._check_input_dim(input)
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:           # a cumulative average: the n-th batch weighs 1/n
                momentum = 1.0 / float(self.num_batches_tracked)
        # batch statistics in training, and in eval when there are no running ones to use
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        # the running statistics are passed only where they are used or updated
        track = not self.training or self.track_running_stats
        return batch_norm(input, self.running_mean if track else None, self.running_var if track else None,
                          self.weight, self.bias, use_batch_stats, momentum, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) input, per channel C."""

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) input, per channel C."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")
