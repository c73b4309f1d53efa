"""linear: y = x W^T + b, the affine map of a fully connected layer.

`weight` is stored as (out_features, in_features), as in PyTorch, so a row of W is the weights of one
output unit and `x @ W.t()` needs no copy: `t()` is a view that swaps the strides. For the usual 2-d batch
with a bias the whole layer is ONE op, `addmm(b, x, W^T)` (b + x @ W^T, the bias broadcast over the rows),
which is what PyTorch's `torch._C._nn.linear` calls too; other shapes use `matmul` (which broadcasts over
leading batch dims) and one add.
"""

from ...ops import addmm, matmul

__all__ = ["linear"]


def linear(input, weight, bias=None):
    """`input @ weight.T + bias` with input (*, in_features), weight (out_features, in_features)."""
    if input.dim() == 2 and bias is not None:
        return addmm(bias, input, weight.t())
    output = matmul(input, weight.t())
    if bias is not None:
        output = output + bias
    return output
