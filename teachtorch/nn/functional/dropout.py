"""dropout: in training, zero each element with probability p and scale the survivors by 1 / (1 - p).

Zeroing random units stops a network from relying on any single one of them. The scaling keeps the
expected value of every element unchanged (E[out] = (1 - p) * x / (1 - p) = x), so at evaluation time,
when nothing is dropped, the layer is simply the identity and the next layer sees inputs of the same size.

PyTorch's `_dropout_impl` (aten/src/ATen/native/Dropout.cpp) does exactly this with three ops: draw a
Bernoulli(1 - p) mask of ones and zeros, divide it by 1 - p, multiply. The mask is an ordinary tensor, so
the multiply's backward sends the gradient through the kept elements (times 1 / (1 - p)) and not through
the dropped ones, with no formula of its own.
"""

from ...ops import empty_like, zeros_like

__all__ = ["dropout"]


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero elements with probability `p` and scale the rest by 1 / (1 - p), when `training`."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input                  # PyTorch returns the input itself here, not a copy
    if p == 1.0:
        mask = zeros_like(input)      # everything dropped (and no division by 1 - p = 0)
    else:
        mask = empty_like(input).bernoulli_(1 - p).div_(1 - p)
    return input.mul_(mask) if inplace else input * mask
