"""Linear and Identity.

`Linear(in_features, out_features)` owns a weight (out_features, in_features) and a bias (out_features) and
computes `F.linear(x, weight, bias)`. Its default initialisation is PyTorch's (torch/nn/modules/linear.py,
`reset_parameters`): `kaiming_uniform_(weight, a=sqrt(5))`, which works out to U(-1/sqrt(in), 1/sqrt(in)),
and the bias from the same U(-1/sqrt(fan_in), 1/sqrt(fan_in)).

`Identity` returns its input unchanged: a placeholder where a model wants "no layer here".
"""

import math

from ...ops import empty
from .. import init
from ..functional.linear import linear
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear"]


class Identity(Module):
    """Returns its input. Takes (and ignores) any constructor arguments, as PyTorch's does."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)   # a slot, so `self.bias` is None rather than missing
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under another name: PyTorch uses it for MultiheadAttention's `out_proj` (to keep quantization
    tools away from it), so it shows in the repr; it lives here, as in torch/nn/modules/linear.py."""
